/* cpu_matmul_blocked.c - the cache-blocked, vectorised SGEMM in plain C
 * behind omp_blocked and omp_blocked_rect: the CPU counterpart of the GPU's
 * shared-memory tiles, and what a student can write without a library.
 * Each thread computes a block of rows of C (gl_cpu_rows_omp). For each
 * NC-wide column block and KC-deep slice of the inner dimension it copies
 * ("packs") that part of B into NR-wide panels (KC x NC floats: kept in the L2
 * cache), then for each MC-row block of its rows the matching part of A into
 * MR-row panels (L1/L2), and computes C MR x NR tiles at a time in registers:
 * MR x NR accumulators, each step of k one panel row of B times MR broadcast
 * elements of A (`omp simd` makes the compiler use the level's full vector
 * width: 4, 8 or 16 floats). The first slice of k writes C, later ones add to
 * it. Compiled for every level of cpu_dispatch.h.
 * Must not time, verify, allocate or start threads: the harness and
 * gl_cpu_rows_omp do. */
#include "cpu_matmul.h"

#include <omp.h>
#include <stdint.h>

#include "cpu_harness.h"

#define MR 6      /* rows of a register tile */
#define NR 16     /* columns of a register tile: 1 x 16, 2 x 8 or 4 x 4 floats */
#define KC 256    /* depth of a packed slice */
#define MC 96     /* rows of a packed A block (a multiple of MR) */
#define NC 1024   /* columns of a packed B block (a multiple of NR) */
#define ALIGN_FLOATS 16   /* 64 bytes: a packed panel starts on a cache line */

size_t gl_mm_blocked_work(const struct gl_mm_ctx *k)
{
    (void)k;
    return (size_t)KC * NC + (size_t)MC * KC + 2 * ALIGN_FLOATS;
}

/* p rounded up to the next 64-byte boundary. */
static float *align64(float *p)
{
    uintptr_t u = (uintptr_t)p;
    return (float *)((u + 63u) & ~(uintptr_t)63u);
}

/* Pack B[k0 .. k0+kc)[j0 .. j0+nc) into panels of NR columns, each kc x NR
 * row-major; columns past n are 0. */
static inline __attribute__((always_inline)) void pack_b(const float *B, long n, long k0,
                                                         long kc, long j0, long nc, float *bp)
{
    for (long jp = 0; jp < nc; jp += NR) {
        float *dst = bp + jp * kc;
        const long w = nc - jp < NR ? nc - jp : NR;
        for (long k = 0; k < kc; k++) {
            const float *src = B + (k0 + k) * n + j0 + jp;
            for (long j = 0; j < w; j++)
                dst[k * NR + j] = src[j];
            for (long j = w; j < NR; j++)
                dst[k * NR + j] = 0.0f;
        }
    }
}

/* Pack A[i0 .. i0+mc)[k0 .. k0+kc) into panels of MR rows, each kc x MR
 * (k-major: the MR elements one step of k broadcasts are adjacent); rows
 * past mc are 0. */
static inline __attribute__((always_inline)) void pack_a(const float *A, long p, long i0,
                                                         long mc, long k0, long kc, float *ap)
{
    for (long ip = 0; ip < mc; ip += MR) {
        float *dst = ap + ip * kc;
        const long h = mc - ip < MR ? mc - ip : MR;
        for (long k = 0; k < kc; k++) {
            for (long r = 0; r < h; r++)
                dst[k * MR + r] = A[(i0 + ip + r) * p + k0 + k];
            for (long r = h; r < MR; r++)
                dst[k * MR + r] = 0.0f;
        }
    }
}

/* C[0 .. mr)[0 .. nr) (row stride ldc) = (first ? 0 : C) + the kc-step
 * product of an A panel and a B panel. */
static inline __attribute__((always_inline)) void tile(long kc, const float *ap,
                                                       const float *bp, float *c, long ldc,
                                                       long mr, long nr, int first)
{
    float acc[MR][NR];
    for (int r = 0; r < MR; r++)
#pragma omp simd
        for (int j = 0; j < NR; j++)
            acc[r][j] = 0.0f;
    for (long k = 0; k < kc; k++) {
        const float *b = bp + k * NR, *a = ap + k * MR;
        for (int r = 0; r < MR; r++) {
            const float av = a[r];
#pragma omp simd
            for (int j = 0; j < NR; j++)
                acc[r][j] += av * b[j];
        }
    }
    for (long r = 0; r < mr; r++)
        for (long j = 0; j < nr; j++)
            c[r * ldc + j] = first ? acc[r][j] : c[r * ldc + j] + acc[r][j];
}

static inline __attribute__((always_inline)) void blocked_rows(const struct gl_cpu_job *job,
                                                               long i0, long i1)
{
    const struct gl_mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    float *C = job->out;
    const long n = k->n, p = k->p;
    float *slice = job->work + (size_t)omp_get_thread_num() * job->work_count;
    float *bp = align64(slice);
    float *ap = align64(bp + (size_t)KC * NC);
    for (long jc = 0; jc < n; jc += NC) {
        const long nc = n - jc < NC ? n - jc : NC;
        for (long kc0 = 0; kc0 < p; kc0 += KC) {
            const long kc = p - kc0 < KC ? p - kc0 : KC;
            pack_b(B, n, kc0, kc, jc, nc, bp);
            for (long ic = i0; ic < i1; ic += MC) {
                const long mc = i1 - ic < MC ? i1 - ic : MC;
                pack_a(A, p, ic, mc, kc0, kc, ap);
                for (long jr = 0; jr < nc; jr += NR)
                    for (long ir = 0; ir < mc; ir += MR)
                        tile(kc, ap + ir * kc, bp + jr * kc, C + (ic + ir) * n + jc + jr, n,
                             mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR,
                             kc0 == 0);
            }
        }
    }
}

static void blocked_base(const struct gl_cpu_job *j, long i0, long i1)
{
    blocked_rows(j, i0, i1);
}

GL_TARGET_V3 static void blocked_v3(const struct gl_cpu_job *j, long i0, long i1)
{
    blocked_rows(j, i0, i1);
}

GL_TARGET_V4 static void blocked_v4(const struct gl_cpu_job *j, long i0, long i1)
{
    blocked_rows(j, i0, i1);
}

const struct gl_cpu_rows gl_mm_blocked_rows = { { blocked_base, blocked_v3, blocked_v4 } };

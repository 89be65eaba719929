/* cpu_matmul.c - the CPU baselines of matmul (C = A.B, float) and their
 * declarations. The seeds' baselines, kept as the seeds wrote them (plain
 * loops): seq_ijk (the triple loop), omp_ikj and omp_ijk (OpenMP parallel for
 * over rows, the two loop orders of study S1) on N x N, and omp_rect (i-k-j)
 * on M x P times P x N. Beside them what a fair CPU side is measured with:
 * omp_blocked / omp_blocked_rect, a cache-blocked vectorised SGEMM in plain C
 * (cpu_matmul_blocked.c), and openblas / openblas_rect, OpenBLAS's SGEMM
 * loaded at run time (cpu_openblas.h). The loops are compiled for every
 * instruction-set level and dispatched at run time (cpu_dispatch.h).
 * Must not time, verify or allocate by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu_harness.h"
#include "cpu_matmul.h"
#include "cpu_openblas.h"
#include "family.h"
#include "params.h"
#include "reference.h"

/* ---- the seeds' loops, one row function per instruction-set level --------- */

/* i-j-k on rows [i0, i1): each output the sum over l down a column of B. */
static inline __attribute__((always_inline)) void ijk_rows(const struct gl_cpu_job *job,
                                                           long i0, long i1)
{
    const struct gl_mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    float *C = job->out;
    const long N = k->n, P = k->p;
    for (long i = i0; i < i1; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long l = 0; l < P; l++)
                s += A[i * P + l] * B[l * N + j];
            C[i * N + j] = s;
        }
}

/* i-k-j on rows [i0, i1): the inner loop runs along rows of B and C (unit
 * stride). */
static inline __attribute__((always_inline)) void ikj_rows(const struct gl_cpu_job *job,
                                                           long i0, long i1)
{
    const struct gl_mm_ctx *k = job->ctx;
    const float *A = job->in[0], *B = job->in[1];
    const long N = k->n, P = k->p;
    for (long i = i0; i < i1; i++) {
        float *c = job->out + i * N;
        for (long j = 0; j < N; j++)
            c[j] = 0.0f;
        for (long l = 0; l < P; l++) {
            const float a = A[i * P + l];
            const float *b = B + l * N;
            for (long j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

static void ijk_base(const struct gl_cpu_job *j, long i0, long i1) { ijk_rows(j, i0, i1); }
GL_TARGET_V3 static void ijk_v3(const struct gl_cpu_job *j, long i0, long i1) { ijk_rows(j, i0, i1); }
GL_TARGET_V4 static void ijk_v4(const struct gl_cpu_job *j, long i0, long i1) { ijk_rows(j, i0, i1); }
static const struct gl_cpu_rows ijk = { { ijk_base, ijk_v3, ijk_v4 } };

static void ikj_base(const struct gl_cpu_job *j, long i0, long i1) { ikj_rows(j, i0, i1); }
GL_TARGET_V3 static void ikj_v3(const struct gl_cpu_job *j, long i0, long i1) { ikj_rows(j, i0, i1); }
GL_TARGET_V4 static void ikj_v4(const struct gl_cpu_job *j, long i0, long i1) { ikj_rows(j, i0, i1); }
static const struct gl_cpu_rows ikj = { { ikj_base, ikj_v3, ikj_v4 } };

/* ---- the kernels --------------------------------------------------------- */

static long rows_of(const struct gl_cpu_job *job)
{
    return ((const struct gl_mm_ctx *)job->ctx)->m;
}

static void mm_seq_ijk(const struct gl_cpu_job *job) { gl_cpu_rows_seq(job, &ijk, rows_of(job)); }
static void mm_omp_ijk(const struct gl_cpu_job *job) { gl_cpu_rows_omp(job, &ijk, rows_of(job)); }
static void mm_omp_ikj(const struct gl_cpu_job *job) { gl_cpu_rows_omp(job, &ikj, rows_of(job)); }

static void mm_omp_blocked(const struct gl_cpu_job *job)
{
    gl_cpu_rows_omp(job, &gl_mm_blocked_rows, rows_of(job));
}

/* C = A.B by cblas_sgemm (row-major, no transposes, beta 0: C is written
 * whole), on job->threads OpenBLAS threads. check() and mm_run() made sure
 * every size fits an int. */
static void mm_openblas(const struct gl_cpu_job *job)
{
    const struct gl_mm_ctx *k = job->ctx;
    const int M = (int)k->m, N = (int)k->n, P = (int)k->p;
    k->ob->set_num_threads(job->threads);
    k->ob->sgemm(GL_CBLAS_ROW_MAJOR, GL_CBLAS_NO_TRANS, GL_CBLAS_NO_TRANS, M, N, P, 1.0f,
                 job->in[0], P, job->in[1], N, 0.0f, job->out, N);
}

/* ---- references, sizes, checks, the run ----------------------------------- */

static const double *mm_reference(const struct gl_cpu_job *job, char *err, size_t errlen)
{
    const struct gl_mm_ctx *k = job->ctx;
    return gl_ref_matmul(job->in[0], job->in[1], k->m, k->n, k->p, (long)job->seed, err, errlen);
}

/* The float64 reference of output element i alone (row i / N, column i % N). */
static double mm_ref_at(const struct gl_cpu_job *job, size_t i)
{
    const struct gl_mm_ctx *k = job->ctx;
    size_t row = i / (size_t)k->n, col = i % (size_t)k->n;
    const float *a = job->in[0] + row * (size_t)k->p, *b = job->in[1] + col;
    double s = 0.0;
    for (long l = 0; l < k->p; l++)
        s += (double)a[l] * (double)b[(size_t)l * (size_t)k->n];
    return s;
}

/* floats of a rows x cols matrix, or 0 when it is empty or too large to index. */
static size_t elems(long rows, long cols)
{
    if (rows < 1 || cols < 1 || (unsigned long)rows > (size_t)PTRDIFF_MAX / sizeof(double) /
                                                       (unsigned long)cols)
        return 0;
    return (size_t)rows * (size_t)cols;
}

/* What a variant's row points at: its kernel, whether it reads M and P, and
 * what else its run needs. */
enum mm_kind {
    MM_LOOPS,     /* the seeds' loops: nothing */
    MM_BLOCKED,   /* scratch for the packed panels */
    MM_OPENBLAS   /* the library, loaded */
};

struct mm_impl {
    gl_cpu_kernel kernel;
    int rect;
    enum mm_kind kind;
};

/* The sizes variant v computes at point p. */
static struct gl_mm_ctx sizes_of(const struct gl_variant *v, const struct gl_params *p)
{
    const struct mm_impl *im = v->impl;
    struct gl_mm_ctx k = { 0 };
    k.n = p->n;
    k.m = im->rect ? p->m : p->n;
    k.p = im->rect ? p->p : p->n;
    return k;
}

/* The OpenBLAS rows' check: cblas_sgemm takes int sizes, and the library must
 * load (gl_openblas_get: once per process). */
static const char *mm_check_openblas(const struct gl_variant *v, const struct gl_params *p,
                                     const struct gl_device *dev, char *buf, size_t len)
{
    (void)dev;
    struct gl_mm_ctx k = sizes_of(v, p);
    if (k.m > INT_MAX || k.n > INT_MAX || k.p > INT_MAX) {
        snprintf(buf, len, "OpenBLAS takes sizes up to %d (M=%ld N=%ld P=%ld)", INT_MAX, k.m,
                 k.n, k.p);
        return buf;
    }
    return gl_openblas_get(buf, len) ? NULL : buf;
}

static int mm_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct mm_impl *im = v->impl;
    struct gl_mm_ctx k = sizes_of(v, p);

    struct gl_cpu_job j = { 0 };
    j.p = p;
    j.t = t;
    j.r = r;
    j.kernel = im->kernel;
    j.reference = mm_reference;
    j.ref_at = mm_ref_at;
    j.ctx = &k;
    j.dispatched = 1;
    size_t na = elems(k.m, k.p), nb = elems(k.p, k.n), nc = elems(k.m, k.n);
    if (!na || !nb || !nc) {
        snprintf(j.size_err, sizeof j.size_err,
                 "M, N and P must be >= 1 and fit in memory (M=%ld N=%ld P=%ld)", k.m, k.n, k.p);
        return gl_cpu_execute(&j);
    }
    if (im->kind == MM_OPENBLAS) {
        /* refused as check() refuses it; else the library is loaded */
        if (!mm_check_openblas(v, p, NULL, j.size_err, sizeof j.size_err)) {
            k.ob = gl_openblas_get(j.size_err, sizeof j.size_err);
            j.library = k.ob->describe;
        }
    } else if (im->kind == MM_BLOCKED) {
        j.work_count = gl_mm_blocked_work(&k);
    }
    j.nin = 2;
    j.in_count[0] = na;
    j.in_count[1] = nb;
    j.in_stream[0] = 0;
    j.in_stream[1] = 1;
    j.out_count = nc;
    j.tol_len = k.p;
    j.row_len = k.n;
    gl_cpu_execute(&j);
    /* OpenBLAS caps its threads at its MAX_THREADS: say so when it did */
    if (k.ob && r->status == GL_OK && k.ob->get_num_threads() != j.threads) {
        size_t used = strlen(r->code_path);
        snprintf(r->code_path + used, sizeof r->code_path - used, "; ran %d of %d threads",
                 k.ob->get_num_threads(), j.threads);
    }
    return 0;
}

static const struct mm_impl im_seq_ijk = { mm_seq_ijk, 0, MM_LOOPS };
static const struct mm_impl im_omp_ijk = { mm_omp_ijk, 0, MM_LOOPS };
static const struct mm_impl im_omp_ikj = { mm_omp_ikj, 0, MM_LOOPS };
static const struct mm_impl im_omp_rect = { mm_omp_ikj, 1, MM_LOOPS };
static const struct mm_impl im_omp_blocked = { mm_omp_blocked, 0, MM_BLOCKED };
static const struct mm_impl im_omp_blocked_rect = { mm_omp_blocked, 1, MM_BLOCKED };
static const struct mm_impl im_openblas = { mm_openblas, 0, MM_OPENBLAS };
static const struct mm_impl im_openblas_rect = { mm_openblas, 1, MM_OPENBLAS };

#define PB(x) GL_PBIT(GL_P_##x)
#define SQUARE (PB(N) | PB(THREADS) | PB(SEED))
#define RECT (PB(M) | PB(N) | PB(P) | PB(THREADS) | PB(SEED))

const struct gl_variant gl_cpu_matmul_variants[] = {
    { "matmul", "seq_ijk", "cpu", "seed baseline: sequential i-j-k", PB(N) | PB(SEED), NULL,
      gl_matmul_flops, gl_matmul_bytes, mm_run, &im_seq_ijk },
    { "matmul", "omp_ikj", "cpu", "seed baseline: OpenMP over rows, i-k-j (cache friendly)",
      SQUARE, NULL, gl_matmul_flops, gl_matmul_bytes, mm_run, &im_omp_ikj },
    { "matmul", "omp_ijk", "cpu", "seed baseline: OpenMP over rows, i-j-k (naive order)",
      SQUARE, NULL, gl_matmul_flops, gl_matmul_bytes, mm_run, &im_omp_ijk },
    { "matmul", "omp_rect", "cpu",
      "seed baseline: OpenMP over rows, i-k-j, non-square M x P . P x N", RECT, NULL,
      gl_matmul_flops, gl_matmul_bytes, mm_run, &im_omp_rect },
    { "matmul", "omp_blocked", "cpu",
      "OpenMP, cache-blocked and vectorised (packed panels, 6x16 register tiles)", SQUARE, NULL,
      gl_matmul_flops, gl_matmul_bytes, mm_run, &im_omp_blocked },
    { "matmul", "omp_blocked_rect", "cpu", "omp_blocked on non-square M x P . P x N", RECT,
      NULL, gl_matmul_flops, gl_matmul_bytes, mm_run, &im_omp_blocked_rect },
    { "matmul", "openblas", "cpu", "OpenBLAS SGEMM (loaded at run time), the CPU library reference",
      SQUARE, mm_check_openblas, gl_matmul_flops, gl_matmul_bytes, mm_run, &im_openblas },
    { "matmul", "openblas_rect", "cpu", "OpenBLAS SGEMM on non-square M x P . P x N", RECT,
      mm_check_openblas, gl_matmul_flops, gl_matmul_bytes, mm_run, &im_openblas_rect },
};

const int gl_cpu_matmul_nvariants =
    (int)(sizeof gl_cpu_matmul_variants / sizeof gl_cpu_matmul_variants[0]);

/* cpu_matmul.c - the CPU baselines of matmul (C = A.B, float): seq_ijk (plain
 * triple loop), omp_ikj and omp_ijk (OpenMP parallel for over rows, the two
 * loop orders of study S1) on N x N, and omp_rect (i-k-j) on M x P times P x N.
 * The kernels are plain loops on purpose: they are the baselines the seeds ran.
 * Must not time or verify by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_harness.h"
#include "reference.h"

struct mm_ctx {
    const float *a, *b;
    float *c;
    long m, n, p;
    int threads;
};

static void mm_seq_ijk(const void *x)
{
    const struct mm_ctx *k = x;
    const long M = k->m, N = k->n, P = k->p;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long l = 0; l < P; l++)
                s += k->a[i * P + l] * k->b[l * N + j];
            k->c[i * N + j] = s;
        }
}

static void mm_omp_ijk(const void *x)
{
    const struct mm_ctx *k = x;
    const long M = k->m, N = k->n, P = k->p;
#pragma omp parallel for num_threads(k->threads) schedule(static)
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long l = 0; l < P; l++)
                s += k->a[i * P + l] * k->b[l * N + j];
            k->c[i * N + j] = s;
        }
}

/* i-k-j: the inner loop runs along rows of B and C (unit stride). */
static void mm_omp_ikj(const void *x)
{
    const struct mm_ctx *k = x;
    const long M = k->m, N = k->n, P = k->p;
#pragma omp parallel for num_threads(k->threads) schedule(static)
    for (long i = 0; i < M; i++) {
        float *c = k->c + i * N;
        for (long j = 0; j < N; j++)
            c[j] = 0.0f;
        for (long l = 0; l < P; l++) {
            const float a = k->a[i * P + l];
            const float *b = k->b + l * N;
            for (long j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

/* floats of a rows x cols matrix, or 0 when it is empty or too large to index. */
static size_t elems(long rows, long cols)
{
    if (rows < 1 || cols < 1 || (unsigned long)rows > (size_t)PTRDIFF_MAX / sizeof(double) /
                                                       (unsigned long)cols)
        return 0;
    return (size_t)rows * (size_t)cols;
}

int gl_cpu_matmul(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    gl_cpu_kernel kernel;
    int rect = 0;
    gl_cpu_result_init(r);
    if (strcmp(variant, "seq_ijk") == 0)
        kernel = mm_seq_ijk;
    else if (strcmp(variant, "omp_ijk") == 0)
        kernel = mm_omp_ijk;
    else if (strcmp(variant, "omp_ikj") == 0)
        kernel = mm_omp_ikj;
    else if (strcmp(variant, "omp_rect") == 0) {
        kernel = mm_omp_ikj;
        rect = 1;
    } else
        return gl_cpu_fail(r, "unknown CPU matmul variant '%s'", variant);

    struct mm_ctx k;
    k.n = p->n;
    k.m = rect ? p->m : p->n;
    k.p = rect ? p->p : p->n;
    k.threads = gl_cpu_threads(p);
    if (k.threads < 1)
        return gl_cpu_skip(r, "threads must be 0 (all) to %d (threads=%ld)", GL_CPU_MAX_THREADS,
                           p->threads);
    size_t na = elems(k.m, k.p), nb = elems(k.p, k.n), nc = elems(k.m, k.n);
    if (!na || !nb || !nc)
        return gl_cpu_skip(r, "M, N and P must be >= 1 and fit in memory (M=%ld N=%ld P=%ld)",
                           k.m, k.n, k.p);

    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *c = malloc(nc * sizeof *c);
    int rc = 0;
    char err[GL_REASON_MAX];
    if (!a || !b || !c) {
        rc = gl_cpu_fail(r, "out of memory for %zu floats", na + nb + nc);
        goto out;
    }
    unsigned long long seed = gl_cpu_seed(p);
    gl_fill_random(a, na, seed, 0);
    gl_fill_random(b, nb, seed, 1);
    const double *ref = gl_ref_matmul(a, b, k.m, k.n, k.p, (long)seed, err, sizeof err);
    if (!ref) {
        rc = gl_cpu_fail(r, "reference: %s", err);
        goto out;
    }
    k.a = a;
    k.b = b;
    k.c = c;
    rc = gl_cpu_time(kernel, &k, c, nc, t, r);
    if (rc == 0)
        gl_cpu_check(r, c, ref, nc, k.n, k.p);
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

/* cpu_vecadd.c - the CPU baselines of vector add (c = a + b, float): seq, one
 * loop, and omp, the same loop as an OpenMP parallel for.
 * Must not time or verify by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_harness.h"
#include "reference.h"

struct va_ctx {
    const float *a, *b;
    float *c;
    long n;
    int threads;
};

static void va_seq(const void *x)
{
    const struct va_ctx *k = x;
    for (long i = 0; i < k->n; i++)
        k->c[i] = k->a[i] + k->b[i];
}

static void va_omp(const void *x)
{
    const struct va_ctx *k = x;
    const long n = k->n;
#pragma omp parallel for num_threads(k->threads) schedule(static)
    for (long i = 0; i < n; i++)
        k->c[i] = k->a[i] + k->b[i];
}

int gl_cpu_vecadd(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    gl_cpu_kernel kernel;
    gl_cpu_result_init(r);
    if (strcmp(variant, "seq") == 0)
        kernel = va_seq;
    else if (strcmp(variant, "omp") == 0)
        kernel = va_omp;
    else
        return gl_cpu_fail(r, "unknown CPU vecadd variant '%s'", variant);

    struct va_ctx k;
    k.n = p->n;
    k.threads = gl_cpu_threads(p);
    if (k.threads < 1)
        return gl_cpu_skip(r, "threads must be 0 (all) to %d (threads=%ld)", GL_CPU_MAX_THREADS,
                           p->threads);
    if (k.n < 1 || (unsigned long)k.n > (size_t)PTRDIFF_MAX / sizeof(double))
        return gl_cpu_skip(r, "N must be >= 1 and fit in memory (N=%ld)", k.n);
    const size_t n = (size_t)k.n;

    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    int rc = 0;
    char err[GL_REASON_MAX];
    if (!a || !b || !c) {
        rc = gl_cpu_fail(r, "out of memory for %zu floats", 3 * n);
        goto out;
    }
    unsigned long long seed = gl_cpu_seed(p);
    gl_fill_random(a, n, seed, 0);
    gl_fill_random(b, n, seed, 1);
    const double *ref = gl_ref_vecadd(a, b, k.n, (long)seed, err, sizeof err);
    if (!ref) {
        rc = gl_cpu_fail(r, "reference: %s", err);
        goto out;
    }
    k.a = a;
    k.b = b;
    k.c = c;
    rc = gl_cpu_time(kernel, &k, c, n, t, r);
    if (rc == 0)
        gl_cpu_check(r, c, ref, n, k.n, 1);
out:
    free(a);
    free(b);
    free(c);
    return rc;
}

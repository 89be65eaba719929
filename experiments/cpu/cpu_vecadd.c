/* cpu_vecadd.c - the CPU baselines of vector add (c = a + b, float) and their
 * declarations: seq, one loop, and omp, the same loop as an OpenMP parallel
 * for.
 * Must not time, verify or allocate by itself: cpu_harness.c does that. */
#include "cpu.h"

#include <stdint.h>
#include <stdio.h>

#include "cpu_harness.h"
#include "family.h"
#include "params.h"
#include "reference.h"

/* What a variant's row points at. */
struct va_impl {
    gl_cpu_kernel kernel;
};

static void va_seq(const struct gl_cpu_job *job)
{
    const float *a = job->in[0], *b = job->in[1];
    float *c = job->out;
    const long n = (long)job->out_count;
    for (long i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static void va_omp(const struct gl_cpu_job *job)
{
    const float *a = job->in[0], *b = job->in[1];
    float *c = job->out;
    const long n = (long)job->out_count;
#pragma omp parallel for num_threads(job->threads) schedule(static)
    for (long i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

static const double *va_reference(const struct gl_cpu_job *job, char *err, size_t errlen)
{
    return gl_ref_vecadd(job->in[0], job->in[1], (long)job->out_count, (long)job->seed, err,
                         errlen);
}

static double va_ref_at(const struct gl_cpu_job *job, size_t i)
{
    return (double)job->in[0][i] + (double)job->in[1][i];
}

static int va_run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct va_impl *im = v->impl;
    struct gl_cpu_job j = { 0 };
    j.p = p;
    j.t = t;
    j.r = r;
    j.kernel = im->kernel;
    j.reference = va_reference;
    j.ref_at = va_ref_at;
    if (p->n < 1 || (unsigned long)p->n > (size_t)PTRDIFF_MAX / sizeof(double)) {
        snprintf(j.size_err, sizeof j.size_err, "N must be >= 1 and fit in memory (N=%ld)", p->n);
        return gl_cpu_execute(&j);
    }
    const size_t n = (size_t)p->n;
    j.nin = 2;
    j.in_count[0] = n;
    j.in_count[1] = n;
    j.in_stream[0] = 0;
    j.in_stream[1] = 1;
    j.out_count = n;
    j.tol_len = 1;
    j.row_len = p->n;
    return gl_cpu_execute(&j);
}

static const struct va_impl im_seq = { va_seq };
static const struct va_impl im_omp = { va_omp };

#define PB(x) GL_PBIT(GL_P_##x)

const struct gl_variant gl_cpu_vecadd_variants[] = {
    { "vecadd", "seq", "cpu", "sequential", PB(N) | PB(SEED), NULL, gl_vecadd_flops,
      gl_vecadd_bytes, va_run, &im_seq },
    { "vecadd", "omp", "cpu", "OpenMP parallel for", PB(N) | PB(THREADS) | PB(SEED), NULL,
      gl_vecadd_flops, gl_vecadd_bytes, va_run, &im_omp },
};

const int gl_cpu_vecadd_nvariants =
    (int)(sizeof gl_cpu_vecadd_variants / sizeof gl_cpu_vecadd_variants[0]);

/* cpu_vecadd.c - the CPU baselines of vector add (c = a + b, float) and their
 * declarations: seq, one loop, and omp, the same loop as an OpenMP parallel
 * for (static schedule), compiled for every instruction-set level and
 * dispatched at run time (cpu_dispatch.h).
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

/* c = a + b on elements [i0, i1): vectorised at every level (4, 8 or 16 floats
 * a step), which counts where the vectors fit in cache; from DRAM the memory
 * bandwidth decides. */
static inline __attribute__((always_inline)) void add_rows(const struct gl_cpu_job *job,
                                                           long i0, long i1)
{
    const float *a = job->in[0], *b = job->in[1];
    float *c = job->out;
    for (long i = i0; i < i1; i++)
        c[i] = a[i] + b[i];
}

static void add_base(const struct gl_cpu_job *j, long i0, long i1) { add_rows(j, i0, i1); }
GL_TARGET_V3 static void add_v3(const struct gl_cpu_job *j, long i0, long i1) { add_rows(j, i0, i1); }
GL_TARGET_V4 static void add_v4(const struct gl_cpu_job *j, long i0, long i1) { add_rows(j, i0, i1); }
static const struct gl_cpu_rows add = { { add_base, add_v3, add_v4 } };

static void va_seq(const struct gl_cpu_job *job) { gl_cpu_rows_seq(job, &add, (long)job->out_count); }
static void va_omp(const struct gl_cpu_job *job) { gl_cpu_rows_omp(job, &add, (long)job->out_count); }

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
    j.dispatched = 1;
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
    { "vecadd", "seq", "cpu", "seed baseline: sequential loop", PB(N) | PB(SEED), NULL, gl_vecadd_flops,
      gl_vecadd_bytes, va_run, &im_seq },
    { "vecadd", "omp", "cpu", "seed baseline: OpenMP parallel for", PB(N) | PB(THREADS) | PB(SEED), NULL,
      gl_vecadd_flops, gl_vecadd_bytes, va_run, &im_omp },
};

const int gl_cpu_vecadd_nvariants =
    (int)(sizeof gl_cpu_vecadd_variants / sizeof gl_cpu_vecadd_variants[0]);

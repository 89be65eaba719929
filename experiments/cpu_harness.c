/* cpu_harness.c - see cpu_harness.h: the timing loop and result handling that
 * all CPU baselines share. Must not contain a family's kernels. */
#include "cpu_harness.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "reference.h"
#include "stats.h"

void gl_cpu_result_init(struct gl_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = GL_OK;
    r->max_rel_err = -1.0;
    r->h2d_ms = r->d2h_ms = -1.0;
}

static void set_reason(struct gl_result *r, int status, const char *fmt, va_list ap)
{
    r->status = status;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
}

int gl_cpu_fail(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_FAILED, fmt, ap);
    va_end(ap);
    return -1;
}

int gl_cpu_skip(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_SKIPPED, fmt, ap);
    va_end(ap);
    return 0;
}

unsigned long long gl_cpu_seed(const struct gl_params *p)
{
    return p->seed == GL_UNSET ? 42ull : (unsigned long long)p->seed;
}

int gl_cpu_threads(const struct gl_params *p)
{
    if (p->threads > GL_CPU_MAX_THREADS)
        return 0;
    if (p->threads > 0)
        return (int)p->threads;
    return omp_get_num_procs();
}

static int now_s(struct gl_result *r, double *s)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return gl_cpu_fail(r, "clock_gettime(CLOCK_MONOTONIC): %s", strerror(errno));
    *s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return 0;
}

int gl_cpu_time(gl_cpu_kernel kernel, const void *ctx, float *out, size_t out_n,
                const struct gl_timing *t, struct gl_result *r)
{
    double start, t0, t1;
    r->nsamples = 0;

    if (now_s(r, &start) != 0)
        return -1;
    for (int i = 0; i < t->warmup; i++) {
        gl_fill_nan(out, out_n);
        kernel(ctx);
        if (now_s(r, &t1) != 0)
            return -1;
        if (t1 - start >= t->max_seconds)
            break;
    }

    if (now_s(r, &start) != 0)
        return -1;
    for (;;) {
        gl_fill_nan(out, out_n);
        if (now_s(r, &t0) != 0)
            return -1;
        kernel(ctx);
        if (now_s(r, &t1) != 0)
            return -1;
        r->samples_ms[r->nsamples++] = (t1 - t0) * 1e3;
        if (r->nsamples >= GL_MAX_SAMPLES ||
            gl_sampling_done(r->samples_ms, r->nsamples, t1 - start, t))
            break;
    }
    return 0;
}

int gl_cpu_check(struct gl_result *r, const float *out, const double *ref, size_t n,
                 long row_len, long tol_len)
{
    struct gl_verify_report rep;
    r->max_rel_err = gl_verify_full(out, ref, n, row_len, gl_tolerance(tol_len), &rep);
    if (rep.nbad == 0)
        return 1;
    r->status = GL_WRONG;
    snprintf(r->reason, sizeof r->reason, "%s", rep.summary);
    return 0;
}

/* cpu_harness.c - see cpu_harness.h: one CPU run from its job description
 * (result, threads, buffers, inputs, reference, timing, verification) for all
 * CPU baselines. Must not contain a family's kernels nor name a variant. */
#include "cpu_harness.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Give the run a status other than ok, with a reason. Returns 0 (the
 * gl_variant.run return: the CPU stays usable whatever happened). */
static int set_status(struct gl_result *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_status(struct gl_result *r, int status, const char *fmt, ...)
{
    va_list ap;
    r->status = status;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    return 0;
}

/* The OpenMP thread count: threads, or every processor OpenMP sees when it is
 * unset or 0; 0 when it is over GL_CPU_MAX_THREADS. */
static int thread_count(const struct gl_params *p)
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
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        set_status(r, GL_FAILED, "clock_gettime(CLOCK_MONOTONIC): %s", strerror(errno));
        return -1;
    }
    *s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return 0;
}

int gl_cpu_time(const struct gl_cpu_job *j)
{
    const struct gl_timing *t = j->t;
    struct gl_result *r = j->r;
    double start, t0, t1;
    r->nsamples = 0;

    if (now_s(r, &start) != 0)
        return -1;
    for (int i = 0; i < t->warmup; i++) {
        gl_fill_nan(j->out, j->out_count);
        j->kernel(j);
        if (now_s(r, &t1) != 0)
            return -1;
        if (t1 - start >= t->max_seconds)
            break;
    }

    if (now_s(r, &start) != 0)
        return -1;
    for (;;) {
        gl_fill_nan(j->out, j->out_count);
        if (now_s(r, &t0) != 0)
            return -1;
        j->kernel(j);
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

/* 1 when the family filled the job completely (a programming error otherwise);
 * p and t are checked before. */
static int job_complete(const struct gl_cpu_job *j)
{
    if (!j->kernel || !j->reference || j->nin < 1 || j->nin > GL_CPU_MAX_IN ||
        j->out_count < 1)
        return 0;
    for (int i = 0; i < j->nin; i++)
        if (j->in_count[i] < 1)
            return 0;
    return 1;
}

static void free_buffers(struct gl_cpu_job *j)
{
    for (int i = 0; i < GL_CPU_MAX_IN; i++) {
        free(j->in[i]);
        j->in[i] = NULL;
    }
    free(j->out);
    j->out = NULL;
}

/* n floats, or NULL when they cannot be had (count overflow included). */
static float *alloc_floats(size_t n)
{
    return n > SIZE_MAX / sizeof(float) ? NULL : malloc(n * sizeof(float));
}

/* Allocate the buffers; on failure free what was allocated, set r failed and
 * return -1. */
static int alloc_buffers(struct gl_cpu_job *j)
{
    size_t total = j->out_count;
    int ok = 1;
    for (int i = 0; i < GL_CPU_MAX_IN; i++)
        j->in[i] = NULL;
    for (int i = 0; i < j->nin; i++) {
        total += j->in_count[i];
        j->in[i] = alloc_floats(j->in_count[i]);
        ok = ok && j->in[i];
    }
    j->out = alloc_floats(j->out_count);
    if (ok && j->out)
        return 0;
    free_buffers(j);
    set_status(j->r, GL_FAILED, "out of memory for %zu floats", total);
    return -1;
}

int gl_cpu_execute(struct gl_cpu_job *j)
{
    struct gl_result *r = j->r;
    char err[GL_REASON_MAX] = "";

    gl_cpu_result_init(r);
    if (!j->p || !j->t)
        return set_status(r, GL_FAILED, "internal: CPU job without parameters or timing");
    j->threads = thread_count(j->p);
    if (j->threads < 1)
        return set_status(r, GL_SKIPPED, "threads must be 0 (all) to %d (threads=%ld)",
                          GL_CPU_MAX_THREADS, j->p->threads);
    if (j->size_err[0])
        return set_status(r, GL_SKIPPED, "%s", j->size_err);
    if (!job_complete(j))
        return set_status(r, GL_FAILED, "internal: incomplete CPU job (%d inputs, %zu outputs)",
                          j->nin, j->out_count);
    if (alloc_buffers(j) != 0)
        return 0;

    j->seed = j->p->seed == GL_UNSET ? 42ull : (unsigned long long)j->p->seed;
    for (int i = 0; i < j->nin; i++)
        gl_fill_random(j->in[i], j->in_count[i], j->seed, j->in_stream[i]);
    const double *ref = j->reference(j, err, sizeof err);
    if (!ref)
        set_status(r, GL_FAILED, "reference: %s", err);
    else if (gl_cpu_time(j) == 0)
        gl_cpu_check(r, j->out, ref, j->out_count, j->row_len, j->tol_len);
    free_buffers(j);
    return 0;
}

/* cpu_harness.c - see cpu_harness.h: one CPU run from its job description
 * (result, threads, instruction-set level and code path, buffers, inputs,
 * reference, timing, full or sampled verification, the phase times of
 * --profile-self) for all CPU baselines. Must not contain a family's kernels
 * nor name a variant. */
#include "cpu_harness.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"
#include "rng.h"
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

/* Monotonic seconds for the phase times (0 if the clock fails: the phases are
 * then wrong, never the run). */
static double gl_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

int gl_cpu_timing_loop(const struct gl_timing *t, struct gl_result *r,
                       const struct gl_cpu_step *step)
{
    double start, t0, t1;
    r->nsamples = 0;

    /* the first run, timed: a run that lasts the time cap executes once */
    step->prepare(step->arg);
    if (now_s(r, &start) != 0 || step->run(step->arg) != 0 || now_s(r, &t1) != 0)
        return -1;
    r->busy_ms += (t1 - start) * 1e3;
    /* every run starts from poisoned (or reset) outputs, and the caller checks
     * what the last one left (run.integrity) */
    snprintf(r->integrity, sizeof r->integrity, "%s", GL_INTEGRITY_POISON_EVERY);
    if (t1 - start >= t->max_seconds) {
        r->samples_ms[r->nsamples++] = (t1 - start) * 1e3;
        r->phase_ms[GL_PH_SAMPLES] += (t1 - start) * 1e3;
        return 0;
    }
    for (int i = 1; i < t->warmup && t1 - start < t->max_seconds * GL_WARMUP_SHARE; i++) {
        step->prepare(step->arg);
        if (now_s(r, &t0) != 0 || step->run(step->arg) != 0 || now_s(r, &t1) != 0)
            return -1;
        r->busy_ms += (t1 - t0) * 1e3;
    }
    r->phase_ms[GL_PH_WARMUP] += (t1 - start) * 1e3;

    if (now_s(r, &start) != 0)
        return -1;
    for (;;) {
        step->prepare(step->arg);
        if (now_s(r, &t0) != 0 || step->run(step->arg) != 0 || now_s(r, &t1) != 0)
            return -1;
        r->samples_ms[r->nsamples++] = (t1 - t0) * 1e3;
        r->busy_ms += (t1 - t0) * 1e3;
        if (r->nsamples >= GL_MAX_SAMPLES ||
            gl_sampling_done(r->samples_ms, r->nsamples, t1 - start, t))
            break;
    }
    r->phase_ms[GL_PH_SAMPLES] += (t1 - start) * 1e3;
    return 0;
}

static void poison_out(void *arg)
{
    const struct gl_cpu_job *j = arg;
    gl_fill_nan(j->out, j->out_count);
}

static int run_kernel(void *arg)
{
    const struct gl_cpu_job *j = arg;
    j->kernel(j);
    return 0;
}

int gl_cpu_time(const struct gl_cpu_job *j)
{
    const struct gl_cpu_step step = { poison_out, run_kernel, (void *)j };
    return gl_cpu_timing_loop(j->t, j->r, &step);
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

int gl_cpu_check_sampled(const struct gl_cpu_job *j, int npoints)
{
    struct gl_result *r = j->r;
    const double tol = gl_tolerance(j->tol_len);
    const size_t n = j->out_count;
    const long row_len = j->row_len > 0 ? j->row_len : (long)n;
    size_t nonfinite = 0, first_nf = 0;
    long long count = (long long)n;
#pragma omp parallel for schedule(static) reduction(+ : nonfinite) if (count >= 65536)
    for (long long i = 0; i < count; i++)
        nonfinite += !isfinite(j->out[i]);
    if (nonfinite)
        for (size_t i = 0; i < n; i++)
            if (!isfinite(j->out[i])) {
                first_nf = i;
                break;
            }
    double maxe = nonfinite ? INFINITY : 0.0;
    size_t nbad = 0, first = 0;
    float got0 = 0.0f;
    double want0 = 0.0;
    const unsigned long long s0 = gl_rng_state(j->seed, 0x5eedc4ec);
    for (int k = 0; k < npoints; k++) {
        size_t i = (size_t)(gl_rng_mix(s0 + (unsigned long long)(k + 1) * GL_RNG_GOLDEN) % n);
        double want = j->ref_at(j, i), got = j->out[i];
        double e = !isfinite(got) || isnan(want) ? INFINITY
                   : want != 0.0                 ? fabs(got - want) / fabs(want)
                                                 : fabs(got - want);
        if (e > maxe)
            maxe = e;
        if (!(e <= tol) && nbad++ == 0) {
            first = i;
            got0 = j->out[i];
            want0 = want;
        }
    }
    r->max_rel_err = maxe;
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_SAMPLED);
    r->check_points = npoints;
    if (nonfinite) {
        r->status = GL_WRONG;
        snprintf(r->reason, sizeof r->reason,
                 "%zu of %zu outputs not written or not finite; first at (%zu,%zu): got %.9g",
                 nonfinite, n, first_nf / (size_t)row_len, first_nf % (size_t)row_len,
                 (double)j->out[first_nf]);
        return 0;
    }
    if (nbad) {
        r->status = GL_WRONG;
        snprintf(r->reason, sizeof r->reason,
                 "%zu of %d sampled outputs outside tolerance %.1e; first at (%zu,%zu): got %.9g "
                 "want %.9g", nbad, npoints, tol, first / (size_t)row_len, first % (size_t)row_len,
                 (double)got0, want0);
        return 0;
    }
    return 1;
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
    free(j->work);
    j->work = NULL;
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
    size_t work = j->work_count && (size_t)j->threads <= SIZE_MAX / j->work_count
                      ? j->work_count * (size_t)j->threads : 0;
    size_t total = j->out_count + work;
    int ok = 1;
    for (int i = 0; i < GL_CPU_MAX_IN; i++)
        j->in[i] = NULL;
    for (int i = 0; i < j->nin; i++) {
        total += j->in_count[i];
        j->in[i] = alloc_floats(j->in_count[i]);
        ok = ok && j->in[i];
    }
    j->out = alloc_floats(j->out_count);
    j->work = work ? alloc_floats(work) : NULL;
    if (ok && j->out && (j->work || !j->work_count))
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
    j->isa = GL_ISA_BASE;
    if (j->library) {
        snprintf(r->code_path, sizeof r->code_path, "%s", j->library);
    } else {
        if (j->dispatched && (j->isa = gl_isa_pick(err, sizeof err)) < 0)
            return set_status(r, GL_SKIPPED, "%s", err);
        snprintf(r->code_path, sizeof r->code_path, "%s", gl_isa_label((enum gl_isa)j->isa));
    }
    if (!job_complete(j))
        return set_status(r, GL_FAILED, "internal: incomplete CPU job (%d inputs, %zu outputs)",
                          j->nin, j->out_count);
    double t0 = gl_cpu_now();
    if (alloc_buffers(j) != 0)
        return 0;

    j->seed = j->p->seed == GL_UNSET ? 42ull : (unsigned long long)j->p->seed;
    for (int i = 0; i < j->nin; i++)
        gl_fill_random(j->in[i], j->in_count[i], j->seed, j->in_stream[i]);
    r->phase_ms[GL_PH_SETUP] += (gl_cpu_now() - t0) * 1e3;
    /* sampled past GL_CPU_FULL_WORK: the full reference would cost a run */
    int sampled = j->ref_at && (long long)j->out_count * (j->tol_len > 0 ? j->tol_len : 1) >
                                   GL_CPU_FULL_WORK;
    const double *ref = NULL;
    double v0 = gl_cpu_now();
    if (!sampled && !(ref = j->reference(j, err, sizeof err)))
        set_status(r, GL_FAILED, "reference: %s", err);
    r->phase_ms[GL_PH_VERIFY] += (gl_cpu_now() - v0) * 1e3;
    if (r->status == GL_OK && gl_cpu_time(j) == 0) {
        v0 = gl_cpu_now();
        if (sampled) {
            gl_cpu_check_sampled(j, GL_CPU_CHECK_POINTS);
        } else {
            gl_cpu_check(r, j->out, ref, j->out_count, j->row_len, j->tol_len);
            snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
            r->check_points = (long long)j->out_count;
        }
        r->phase_ms[GL_PH_VERIFY] += (gl_cpu_now() - v0) * 1e3;
    }
    free_buffers(j);
    return 0;
}

/* harness_measure.cu - one run's measurements: the verification run on a
 * NaN-poisoned output (a user kernel's outputs as its hooks prepare them),
 * checks of the output against the float64 reference (or the hooks' check),
 * warm-up, and event-timed samples (the L2 flushed before each when cold)
 * until the timing policy is met.
 * Must not allocate or free buffers, nor profile. */
#include "harness_int.cuh"

#include <math.h>
#include <stdio.h>

extern "C" {
#include "reference.h"
#include "stats.h"
}

static int launch_run(struct gh_job *j, const char *what)
{
    j->lib_err[0] = '\0';
    cudaError_t e = j->enqueue(j);
    if (e != cudaSuccess && j->lib_err[0]) {
        (void)cudaGetLastError();
        return gh_fail(j->r, "%s: %s", what, j->lib_err);
    }
    return gh_ok(j->r, e, what);
}

/* A user kernel's outputs that have an init go back to it before every run,
 * before the flush and outside the timed interval. */
static int reset_outputs(struct gh_job *j)
{
    if (!j->hooks || !j->hooks->reset)
        return 1;
    return gh_ok(j->r, j->hooks->reset(j), "output reset");
}

/* Copy the outputs back (timing that copy into d2h_ms once) and check every
 * element against the float64 reference (built-in families) or through
 * j->hooks (a user's kernel); a mismatch makes the run `wrong`.
 * Returns 1 when it checked (right or wrong), 0 on a CUDA error. */
int gh_check_output(struct gh_job *j, const double *ref, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    double ms = 0.0;
    if (!gh_copy_output(j, e0, e1, &ms))
        return 0;
    if (r->d2h_ms < 0)
        r->d2h_ms = ms;
    if (j->hooks)
        return j->hooks->check(j);
    char why[GL_REASON_MAX] = "";
    double tol = gl_tolerance(j->tol_len);
    double err = gl_verify(j->out[0].host, ref, j->out[0].count, tol, why, sizeof why);
    if (isnan(err))
        err = INFINITY;
    if (err > r->max_rel_err)
        r->max_rel_err = err;
    if (!(err <= tol) && r->status == GL_OK) {
        r->status = GL_WRONG;
        snprintf(r->reason, sizeof r->reason, "%s", why[0] ? why : "output differs from the reference");
    }
    return 1;
}

/* The sample-free verification run: poison the output with NaN (so an element
 * the kernel never writes is caught), run, check. */
int gh_verify_run(struct gh_job *j, const double *ref, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    if (j->hooks) {
        if (!j->hooks->prepare(j))
            return 0;
    } else {
        size_t bytes = gh_buf_bytes(&j->out[0]);
        gl_fill_nan(j->out[0].host, j->out[0].count);
        if (j->mem == GH_MEM_DEVICE &&
            !gh_ok(r, cudaMemcpy(j->out[0].dev, j->out[0].host, bytes, cudaMemcpyHostToDevice),
                   "cudaMemcpy(poison H2D)"))
            return 0;
    }
    if (!gh_place_output(j))
        return 0;
    if (!launch_run(j, "launch (verification run)") ||
        !gh_ok(r, cudaDeviceSynchronize(), "kernel (verification run)"))
        return 0;
    return gh_check_output(j, ref, e0, e1);
}

/* Warm-up, then samples until gl_sampling_done. `since` is when the
 * verification run started: warm-up stops early once verification and warm-up
 * together have lasted max_seconds (as the CPU harness's), so a run that takes
 * a minute is not run four times before its one sample. */
int gh_timed_samples(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double since)
{
    struct gl_result *r = j->r;
    const struct gl_timing *t = j->t;
    for (int i = 0; i < t->warmup && gh_now_s() - since < t->max_seconds; i++)
        if (!reset_outputs(j) || !launch_run(j, "launch (warm-up)") ||
            !gh_ok(r, cudaDeviceSynchronize(), "kernel (warm-up)"))
            return 0;
    double start = gh_now_s();
    r->nsamples = 0;
    for (;;) {
        double ms = 0.0;
        if (!reset_outputs(j))
            return 0;
        if (j->cold && !gh_ok(r, gh_flush_enqueue(0, NULL), "L2 flush launch"))
            return 0;
        if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") ||
            !launch_run(j, "launch (timed)") ||
            !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") ||
            !gh_elapsed_ms(r, e0, e1, &ms))
            return 0;
        r->samples_ms[r->nsamples++] = ms;
        if (r->nsamples >= GL_MAX_SAMPLES ||
            gl_sampling_done(r->samples_ms, r->nsamples, gh_now_s() - start, t))
            break;
    }
    return 1;
}

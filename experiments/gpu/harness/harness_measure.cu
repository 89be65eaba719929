/* harness_measure.cu - one run's measurements: the verification run on a
 * NaN-poisoned output (a user's job's outputs as they start: harness_typed.cu),
 * timed as a sample would be and kept as the one sample of a run that lasts
 * the time cap, checks of the output against the float64 reference on the
 * device (typed for a user's job), warm-up, and event-timed samples (the L2
 * flushed before each when cold) until the timing policy is met, the last of
 * them on outputs poisoned again (harness_integrity.cu). A library call's
 * kernels are counted at its verification run (for the range mode it is
 * profiled in). Must not allocate or free buffers, nor profile. */
#include "harness_int.cuh"

#include <math.h>
#include <stdio.h>

extern "C" {
#include "profiler.h"
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

/* Whether a library call's kernels are counted at its verification run: when
 * the run is to be profiled (cupti/profiler.h: a call of one kernel is profiled
 * in an auto range); counting starts here, before the run's first event, as
 * subscribing to CUPTI's callbacks is host work. GPULAB_LIB_RANGES=user counts
 * nothing: every library call in a user range, as before 2026-12-07
 * (bench/README). */
static int count_begin(struct gh_job *j)
{
    static int lib_user = -1;
    j->lib_kernels = 0;
    char why[GL_REASON_MAX];
    return !j->kernel && gh_st.passes > 0 && !gh_env_is("GPULAB_LIB_RANGES", "user", &lib_user) &&
           glc_count_begin(why, sizeof why) == 0;
}

/* The count, once the call was enqueued (ok) or failed. */
static void count_end(struct gh_job *j, int ok)
{
    char why[GL_REASON_MAX];
    int n = glc_count_end(why, sizeof why);
    j->lib_kernels = ok && n > 0 ? n : 0;
}

/* A user kernel's outputs that have an init, the inputs it writes and its
 * symbols go back before every run, before the flush (so the cache holds what
 * it holds before any other run) and outside the timed interval
 * (harness_restore.cu). */
static int reset_outputs(struct gh_job *j)
{
    if (j->nrestore == 0)
        return 1;
    return gh_ok(j->r, gh_restore_enqueue(j), "restore before the run");
}

/* Check the outputs on the device: against the float64 reference (built-in
 * families) or the job's own (a user's, typed); a mismatch makes the run
 * `wrong`. The first check then times the copy back into d2h_ms (only then:
 * no check needs a host copy). The check comes first: managed outputs are
 * still on the device, where it reads them (after the copy, a prefetch to the
 * host, it would move them back page by page: 2-4 ms a run at S1's sizes).
 * Returns 1 when it checked (right or wrong), 0 on a CUDA error. */
int gh_check_output(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    double ms = 0.0, copied = 0.0, t0 = gh_now_s();
    int ok = j->typed ? gh_typed_check(j) : gh_check_device(j);
    double t1 = gh_now_s();
    r->step_ms[GL_ST_CHECK] += (t1 - t0) * 1e3;
    if (ok && r->d2h_ms < 0) {
        if (!gh_copy_output(j, e0, e1, &ms, &copied))
            return 0;
        r->d2h_ms = ms;
        r->busy_ms += copied;   /* the device's time, as the upload's (harness_execute.cu) */
    }
    r->step_ms[GL_ST_READBACK] += (gh_now_s() - t1) * 1e3 - copied;
    return ok;
}

/* Poison the outputs (every bit set: NaN), so that an element the kernel never
 * writes fails the check; a user's job's start as harness_typed.cu says. */
static int poison_outputs(struct gh_job *j)
{
    if (j->typed)
        return gh_typed_prepare_outputs(j);
    for (int i = 0; i < j->nout; i++)
        if (!gh_ok(j->r, cudaMemsetAsync(j->out[i].dev, 0xff, gh_buf_bytes(&j->out[i]), 0),
                   "cudaMemset(poison)"))
            return 0;
    return 1;
}

/* The verification run: poison, flush when cold, run between the events,
 * check. When that one run lasted the time cap, it is the run's only sample:
 * a long run executes once (warm-up and further samples skipped). */
int gh_verify_run(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, int *long_run)
{
    struct gl_result *r = j->r;
    double ms = 0.0, t0 = gh_now_s();
    *long_run = 0;
    if (!poison_outputs(j) || !gh_place_output(j) || !gh_l2_persist_reset(j))
        return 0;
    if (j->cold && !gh_ok(r, gh_flush_enqueue(0, NULL), "L2 flush launch"))
        return 0;
    int counting = count_begin(j);
    int launched = gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") &&
                   launch_run(j, "launch (verification run)");
    if (counting)
        count_end(j, launched);
    if (!launched ||
        !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") ||
        !gh_ok(r, cudaDeviceSynchronize(), "kernel (verification run)") ||
        !gh_elapsed_ms(r, e0, e1, &ms))
        return 0;
    r->busy_ms += ms + (j->cold ? gh_st.flush_ms : 0.0);
    /* the host's part: the kernel and its flush are the run's busy time */
    r->step_ms[GL_ST_VERIFY_RUN] += (gh_now_s() - t0) * 1e3 - ms - (j->cold ? gh_st.flush_ms : 0.0);
    if (ms >= j->t->max_seconds * 1e3) {
        r->nsamples = 1;
        r->samples_ms[0] = ms;
        *long_run = 1;
    }
    return gh_check_output(j, e0, e1);
}

/* Warm-up, then samples until gl_sampling_done. `since` is when the
 * verification run started: warm-up stops early once verification and warm-up
 * together have lasted GL_WARMUP_SHARE of max_seconds (as the CPU harness's). */
int gh_timed_samples(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double since)
{
    struct gl_result *r = j->r;
    const struct gl_timing *t = j->t;
    double w0 = gh_now_s(), kernels = 0.0;
    for (int i = 0; i < t->warmup && gh_now_s() - since < t->max_seconds * GL_WARMUP_SHARE; i++) {
        double ms = 0.0;
        if (!reset_outputs(j) || !gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") ||
            !launch_run(j, "launch (warm-up)") ||
            !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") || !gh_elapsed_ms(r, e0, e1, &ms))
            return 0;
        r->busy_ms += ms;
        kernels += ms;
    }
    double start = gh_now_s();
    r->phase_ms[GL_PH_WARMUP] += (start - w0) * 1e3;
    r->nsamples = 0;
    for (int last = 0;; ) {
        double ms = 0.0;
        /* the last sample's outputs are poisoned again (an init output reset),
         * so that the check after it sees what this launch wrote */
        if (!(last ? poison_outputs(j) && gh_place_output(j) : reset_outputs(j)) ||
            !gh_l2_persist_reset(j))
            return 0;
        if (j->cold && !gh_ok(r, gh_flush_enqueue(0, NULL), "L2 flush launch"))
            return 0;
        if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") ||
            !launch_run(j, last ? "launch (last timed sample)" : "launch (timed)") ||
            !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") ||
            !gh_elapsed_ms(r, e0, e1, &ms))
            return 0;
        r->samples_ms[r->nsamples++] = ms;
        r->busy_ms += ms + (j->cold ? gh_st.flush_ms : 0.0);
        kernels += ms + (j->cold ? gh_st.flush_ms : 0.0);
        if (last)
            break;
        /* Policy met: one more sample, on poisoned outputs; it takes the place
         * of the one just taken when the count is at its limit. */
        if (r->nsamples >= GL_MAX_SAMPLES || r->nsamples >= t->max_samples ||
            gl_sampling_done(r->samples_ms, r->nsamples, gh_now_s() - start, t)) {
            if (r->nsamples >= GL_MAX_SAMPLES || r->nsamples >= t->max_samples)
                r->nsamples--;
            last = 1;
        }
    }
    gh_integrity_note(j);
    double end = gh_now_s();
    r->phase_ms[GL_PH_SAMPLES] += (end - start) * 1e3;
    /* launches, poison, resets and waits between the kernels */
    r->step_ms[GL_ST_SAMPLING] += (end - w0) * 1e3 - kernels;
    return 1;
}

/* profiler.h - the CUPTI measurement engine as the GPU harness sees it: set up the
 * Range Profiler once per worker for a metric list, then profile runs (one, or a
 * batch together) by replaying them once per pass (user replay), with an L2 flush
 * before each run in each pass, and evaluate every metric; then, for the runs
 * that want them, the exact shared-memory conflicts from one more replay with
 * the kernels instrumented (CUPTI's SASS metrics). Implemented in
 * cupti/profiler_*.c (profiler_int.h says which file does what) and the C++
 * shim for cupti_profiler_host.h. C header; must not include CUDA or CUPTI headers. */
#ifndef GL_PROFILER_H
#define GL_PROFILER_H

#include "gpulab.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the engine replays one run. All callbacks enqueue work on the default
 * stream of the current context and return; the engine synchronizes. */
struct glc_replay {
    void (*run)(void *ctx);    /* every launch that makes up one run (all of a 1-D or single-block geometry) */
    void (*flush)(void *ctx);  /* read a buffer of >= 2x L2 size: leaves L2 holding clean lines;
                                  called with the ctx of the run it comes before (the last
                                  flush of a pass, after the last run: that run's) */
    void *ctx;
    int single_kernel;         /* 1: run() is exactly one kernel launch (auto range, as ncu):
                                  a kernel of ours, or a library call counted to launch one
                                  (glc_count_begin); 0: several launches, or a library call
                                  not counted so (one user range) */
    int counted;               /* 1: single_kernel is a library call's count at one call,
                                  which a replay may not repeat (the auto-range session that
                                  finds another count is run again with such runs in user
                                  ranges) */
    int smem;                  /* 1: measure the exact shared-memory conflicts too (the
                                  harness decided the run is worth it: its kernel uses
                                  shared memory; else it wrote r->smem_reason) */
    double *smem_ms;           /* NULL, or where the instrumented replay's wall time goes (ms) */
    /* The run's share of the wall time of the collection sessions it was in
     * (ms; added to *prof_ms when not NULL): each session's time, the fresh
     * range profiler object it needed to change range mode included, goes to
     * its own runs: to each its replays' time as measured in an auto-range
     * session (CUPTI serializes its launches), or est_ms (the harness's
     * estimate of one replay on the device, the flush before it included)
     * times the passes in a user-range one; the rest evenly (gl_share_batch).
     * What the batch does outside its sessions (a fresh object for a new
     * metric set) is the caller's to share. */
    double est_ms;
    double *prof_ms;
    double *own_ms;            /* NULL, or where the part of *prof_ms that is the run's own
                                  replays (measured or estimated, before the even share)
                                  is added */
    /* NULL, or what puts the run's buffers back before it runs (copies and
     * memsets, no kernel), outside every range. With restore_early (it writes
     * the run's own memory only, which no other run of the pass touches) it is
     * called at each pass's start, before the pass's first flush. Otherwise it
     * is called just before the run's own flush (the first run's: at the
     * pass's start). A run after the first then gets a flush of its own after
     * the restore, so that the flush after the run before it (its drain) holds
     * that run's dirty lines only; in auto-range mode that flush is one more
     * kernel range, counted (glc_restore_between). */
    void (*restore)(void *ctx);
    int restore_early;
    /* A launch sequence measured launch by launch too (a kernel section's
     * launch.NAME lines): run() is nlaunches launches (2 .. GL_MAX_LAUNCH_PROFILED)
     * and run_launch(ctx, k) enqueues launch k alone. In each pass of the
     * user-range session the run is replayed twice: once in its own range (the
     * whole: r->metrics) and, after a flush, launch by launch, each in a range
     * of its own (r->launch_values[k], aligned with r->metrics). 0: not split. */
    int nlaunches;
    void (*run_launch)(void *ctx, int k);
};

/* After the CUDA context exists (cudaFree(0)); may be called again with another
 * list (reconfigures). Builds the config image of the whole list; when CUPTI
 * refuses it, validates the names one by one to say which.
 * gpulab's own names (gpulab__*) are not CUPTI's: the drain is req->drain, and
 * GL_METRIC_SMEM_EXCESS_LD / _ST ask for the exact conflicts.
 * Returns passes (>= 1; 1 when only the exact conflicts are asked for: their
 * instrumented replay), 0 when req->n == 0, -1 + err when counters are
 * unavailable (no permission: ERR_NVGPUCTRPERM, unsupported chip, ...), -2 + err
 * when a name is unknown to this GPU (err names it and the nearest valid ones). */
int glc_setup(const struct gl_metric_req *req, char *err, size_t errlen);

/* After the worker's first glc_setup that returned passes: its range profiler
 * object started now, before any run (its first Start costs ~370 ms on an H100,
 * CUPTI 13.0; a session's first Start after it ~20 ms), so that no run's
 * profiling pays it. Does nothing once an object has run or when nothing is
 * configured; a failure leaves it to the first profile. */
void glc_warm(void);

/* Runs profiled together in one collection, at most. */
#define GLC_BATCH_MAX 64

/* Profile n runs (n <= GLC_BATCH_MAX) together: one collection session per range
 * mode, each pass replaying every run of the session in turn with an L2 flush
 * between them, so CUPTI's per-session cost (~45 ms on an H100, most of a lone
 * run's profiling time) is paid once per batch. Every run's buffers must stay
 * valid until this returns. On success fills each r[i]->passes and
 * r[i]->metrics (names, units, values; plus gpulab__dram__bytes_write_drain.sum
 * when req->drain, and the exact conflicts asked for of each run with
 * rp[i]->smem, or r[i]->smem_reason). Returns 0 when every run has metrics, -1
 * when some have none: those carry r[i]->metrics_reason. */
int glc_profile_batch(const struct glc_replay *const *rp, struct gl_result *const *r, int n);

/* How many kernels a library call launches: glc_count_begin, enqueue the call
 * (on this thread), glc_count_end. CUPTI's driver-API callbacks are on in
 * between only. begin: 0, or -1 + why (callbacks unavailable: another
 * subscriber); end: the kernel launches seen (>= 0), or -1 + why when the call
 * also copied, set memory, launched a graph or a host function (then it is
 * not one kernel as an auto range sees it). */
int glc_count_begin(char *why, size_t len);
int glc_count_end(char *why, size_t len);

/* Every counter metric name the current GPU supports. */
int glc_list(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen);

void glc_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif

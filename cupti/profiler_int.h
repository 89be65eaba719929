/* profiler_int.h - what the files of the CUPTI measurement engine
 * (cupti/profiler.h; profiler_*.c) share, and why the engine is the way it is.
 * The engine: hardware
 * counters of runs through the CUPTI Range Profiler, user replay, the L2
 * flushed before every run of every pass, and the optional drain measured on
 * the flush right after each run. Runs come one at a time or in batches.
 *
 * Two range modes, chosen per run:
 * - a run that is one kernel launch gets AUTO ranges (one per kernel: flush,
 *   run, flush), which is how Nsight Compute brackets a kernel; the counters
 *   start and stop with the kernel itself.
 * - a run of several launches (grid = 1d or block) or a library call gets one
 *   USER range around all of its launches, so CUPTI aggregates the counters over
 *   the whole run and ratios (hit rates, occupancy) come out as the whole run's
 *   ratio rather than something we would have to re-weight. The cost: a user
 *   range adds ~2 us to gpu__time_duration.sum and its boundaries add L2 traffic
 *   (H100): negligible for multi-launch runs, which are long, but 30-50 % of a
 *   5 us kernel (bench/ncu_agree) - why single kernels use auto ranges.
 *
 * Measured on the H100 (CUPTI 13.0), and why the code is the way it is:
 * - CUPTI packs counters into passes per ConfigAddMetrics call: names are
 *   validated one by one on a scratch host object, the configuration is built
 *   with one call (default set: 2 passes, not 9).
 * - In a user range with many counters PopRange waits for the GPU and the range
 *   ends ~10 us after the last kernel: in user mode gpu__time_duration.sum gets
 *   a pass of its own (see isolated()). Other *.pct_of_peak_sustained_elapsed
 *   metrics keep that ~10 us in their elapsed cycles. Auto ranges need neither.
 * - Cost: each collection session (SetConfig .. DecodeData) costs ~42 ms of
 *   Start/Stop whatever it holds, plus ~1.5 ms per run per pass; the first
 *   session of a range profiler object ~150 ms more. Hence batches (many runs
 *   per session) and as few fresh objects as possible.
 * - ncu's cache control also invalidates the instruction caches: after it a small
 *   kernel's code fetch misses L2 (srcunit gcc, 300-550 sectors). The harness's
 *   replay flush evicts them too (experiments/gpu/harness/harness_flush.cu), or L2 hit rates of 5-10 us
 *   kernels come out 2-3 pt above ncu's. CUPTI 13.4 adds a cache-control mode to
 *   cuptiRangeProfilerEnable; 13.0 has none.
 * - One range profiler object per configuration (re-enabled on each glc_setup):
 *   reusing one across configurations crashed in cuptiRangeProfilerStart; one
 *   that ran an auto-range session refuses user ranges (PushRange:
 *   INVALID_PARAMETER), and one that ran a user-range session refuses auto
 *   ranges (Start: UNKNOWN; bench/README, 2026-12-07 fifth session), so a mode
 *   change takes a fresh object too (its first Start ~0.3 s) - and every fresh
 *   object needs its counter-data size asked again (size_counter_data), or
 *   Start crashes. Hence library calls counted as one kernel
 *   (profiler_count.c) go into the auto-range session: a sweep of kernels and
 *   cuBLAS calls changes mode only for the calls of several kernels.
 *
 * The exact shared-memory conflicts (profiler_smem.c): CUPTI's SASS Metrics API
 * (cupti_sass_metrics.h) instruments the kernel and counts, per instruction
 * (module CRC, function, PC offset), its shared-memory wavefronts and their
 * ideal; GH100 offers no per-direction wavefront metric there, so each
 * instruction is sorted into loads and stores by its shared load / store
 * execution counts (src/core/smem_excess.h). Measured on the H100 (CUPTI 13.0,
 * driver 580; bench/smem_probe, bench/results/2026-11-24-h100-smem_probe_*):
 * - the ideal is CUPTI's per executed instruction, from its addresses, width and
 *   active lanes: 32/64/128-bit conflict-free accesses 1/2/4 (fewer for partial
 *   warps), a 128-bit broadcast 2; the actual wavefronts equal ncu's
 *   smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} exactly;
 * - with no range profiler object enabled on the context, only the first
 *   enable..disable after cuptiSassMetricsSetConfig collects anything; with one
 *   enabled (ensure_init keeps one), every enable..disable does, several
 *   launches and kernels inside one add up, modules loaded later are patched,
 *   and a fresh range profiler object changes nothing;
 * - SetConfig after UnsetConfig failed (CUPTI_ERROR_OUT_OF_MEMORY): configure
 *   once per process, unset at glc_shutdown;
 * - the range profiler's counters after instrumented runs are the same on the
 *   object that ran the sessions before them as on a fresh one: stencil's 162
 *   runs (81 of them instrumented), smsp__inst_executed equal in every run, the
 *   other counters within the spread of two fresh-object sweeps (bench/results/
 *   2026-11-28-h100-smem_kept_object.txt); a fresh object's first Start costs
 *   ~370 ms, so the object is kept (GPULAB_CUPTI_SMEM_FRESH=1: a fresh one after
 *   each batch with instrumented runs, as before);
 * - the instrumented kernels are restored at disable: event times and the range
 *   profiler's counters (smsp__inst_executed exactly) are the same before and
 *   after; the instrumented replay costs about 1-2.5 ns per warp-level shared
 *   instruction (transpose N = 8192: 10 ms for a 0.2-0.3 ms kernel; matmul/shared
 *   N = 3072 BS = 8: 1.45 s for 11 ms), enable/flush/disable < 0.3 ms.
 *
 * No libcuda link: the plugin must load where there is no driver, so the current
 * CUcontext comes from cuCtxGetCurrent found through the runtime's
 * cudaGetDriverEntryPointByVersion. Must not launch kernels itself or know about
 * families: the harness's callbacks do all GPU work.
 *
 * The files: profiler_common.c (the state, the trace, error strings: every
 * other file calls it, it calls none), profiler_state.c (CUPTI brought up once,
 * the range profiler object, teardown), profiler_names.c (names: listing, one-by-one
 * validation, suggestions), profiler_setup.c (glc_setup: configuration images),
 * profiler_passes.c (one session's passes), profiler_batch.c (glc_profile_batch:
 * sessions, ranges, evaluation), profiler_smem.c (the exact shared-memory
 * conflicts). This header must not be included outside cupti/. */
#ifndef GL_PROFILER_INT_H
#define GL_PROFILER_INT_H

#include "profiler.h"
#include "host_shim.h"
#include "metric_sets.h"
#include "smem_excess.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <stddef.h>
#include <stdint.h>

#define RANGE_RUN "gpulab_run"
#define RANGE_DRAIN "gpulab_drain"
#define RANGE_LAUNCH "gpulab_launch"   /* gpulab_launch_<run>_<k>: launch k of a split run */
/* a run's reason; retry_missing (profiler_batch.c) looks for it */
#define RANGES_MISSING "profiled ranges missing"
/* Range modes. AUTO: one range per kernel; a session of n runs is flush, run 1,
 * flush, run 2, ..., run n, flush, each run followed by the flush after it (its
 * drain, and the next run's cold L2), and a run restored between the runs
 * preceded by a flush of its own (glc_ranges_at). USER: ranges named
 * gpulab_run_<i> and gpulab_drain_<i> around each run's launches and the flush
 * after them, and for a run split launch by launch (glc_replay.nlaunches), then
 * gpulab_launch_<i>_<k> around each launch of its second replay. A user session
 * holds at most glc_max_ranges() ranges a pass: profiler_batch.c cuts the
 * runs of a batch into sessions that fit (glc_ranges_at). */
enum { MODE_USER = 0, MODE_AUTO = 1 };
#define MAX_RANGES (3 * GLC_BATCH_MAX + 1)   /* runs, flushes, and the flushes after restores */
/* The ranges a pass holds (the counter data image's size, SetConfig's
 * maxRangesPerPass, a session's cut): MAX_RANGES, or fewer under
 * GPULAB_CUPTI_RANGES=k (4 <= k; for bench/: what a range costs against the
 * image's size). */
int glc_max_ranges(void);

/* 1 when run rp is measured launch by launch too (its launch ranges fit a session). */
static inline int glc_split(const struct glc_replay *rp)
{
    return rp->nlaunches > 1 && rp->run_launch && rp->nlaunches <= GL_MAX_LAUNCH_PROFILED &&
           rp->nlaunches + 2 <= glc_max_ranges();
}

/* 1 when environment variable name is set, not empty and not "0". */
int glc_env_on(const char *name);

/* 1 under GPULAB_CUPTI_RESTORE_BETWEEN=1: every restore between the runs,
 * restore_early or not (how it was before; for bench/ and tests/gpu to compare
 * the counters). */
int glc_restores_between(void);

/* 1 when run i of a pass (rp) is restored between the runs, after the flush
 * after run i - 1, and gets a flush of its own (profiler_passes.c); 0 when it
 * has nothing to restore, or is restored at the pass's start (the first run;
 * a run whose restore_early is set). */
static inline int glc_restore_between(const struct glc_replay *rp, int i)
{
    return i > 0 && rp->restore && (!rp->restore_early || glc_restores_between());
}

/* The user ranges run rp takes in a pass: its own, its drain's, its launches'. */
static inline int glc_ranges_of(const struct glc_replay *rp)
{
    return 2 + (glc_split(rp) ? rp->nlaunches : 0);
}

/* The ranges run rp takes at place i of a pass in mode m: in auto-range mode
 * the flush before the first run (i == 0), the run and the flush after it, and
 * a flush of its own after a restore between the runs; in user-range mode
 * glc_ranges_of. */
static inline int glc_ranges_at(const struct glc_replay *rp, int i, int m)
{
    if (m != MODE_AUTO)
        return glc_ranges_of(rp);
    return (i == 0 ? 1 : 0) + 2 + glc_restore_between(rp, i);
}

/* Where profiling time goes, summed over a worker's life and printed to stderr
 * at shutdown when GPULAB_CUPTI_TRACE is set (for bench/ and for users asking
 * why profiling is slow). */
enum { T_WARM, T_REENABLE, T_SETCONFIG, T_CTRINIT, T_SYNC, T_START1, T_START, T_FLUSH, T_RUN, T_RANGE,
       T_STOP, T_DECODE, T_EVAL, T_SMEM, T_TOTAL, T_N };
struct glc_trace_sums {
    int on;
    long profiles, passes, sessions;
    /* collection starts (counted whether the trace is on or not): configurations
     * built and taken from the cache (glc_setup), and range profiler objects
     * started for a profile: for a new configuration, a range mode change,
     * after an instrumented replay, after a failure */
    long configs_built, configs_reused;
    long objects_config, objects_mode, objects_smem, objects_broken, objects_asked;
    long objects_warmed;       /* first Starts paid at set-up (glc_warm) */
    double sum[T_N];
};
extern struct glc_trace_sums glc_trace;

/* The engine's state, one per worker process (profiler_common.c; brought up and
 * torn down by profiler_state.c). */
struct glc_state {
    int init_tried;            /* ensure_init ran (its outcome is kept) */
    int device;                /* the CUDA device's index */
    int unavailable;           /* counters cannot be used in this process */
    char why[GL_REASON_MAX];   /* ... and why */
    int cupti_init;            /* cuptiProfilerInitialize succeeded */
    CUcontext ctx;
    char chip[64];             /* "" until known */
    uint8_t *avail;            /* counter availability image */
    CUpti_RangeProfiler_Object *rp;  /* range profiler enabled on ctx */
    int broken;                /* a profile failed half-way: re-enable before the next */
    int configs_made;          /* configurations built (glc_setup) */
    /* The configuration the range profiler object is sized and set up for
     * (cache id; -1: none yet, the object ensure_init enabled never ran a
     * session). glc_setup only makes a configuration current; the object is
     * started for it at the first profile that needs it (glc_object_for_current),
     * so that checking a sweep's metric sets up front and switching between
     * them costs an object only when the profiled set changes. */
    int object_cfg;
    int cur_cfg;               /* cache id of the current configuration, -1 none */
    int mode_owned;            /* mode[] was built but not cached: glc_drop_config frees it
                                  (else the cache owns what mode[] points to) */
    /* the current configuration (glc_setup): one per range mode, see MODE_* */
    int configured;
    char notready[GL_REASON_MAX];   /* why glc_profile_batch cannot run */
    struct mode_config {
        glh_host *host;        /* built the image; evaluates its counter data */
        uint8_t *config;
        size_t config_size;
        size_t passes;
    } mode[2];
    int last_mode;             /* mode of the last session on rp: -1 none yet */
    int n;                     /* metrics in the configuration */
    char names[GL_MAX_METRICS][GL_METRIC_NAME];
    const char *ptrs[GL_MAX_METRICS];
    int stored[GL_MAX_METRICS];  /* 1 = asked for (goes into the result) */
    int drain;
    uint8_t *counter_data;
    size_t counter_size;
    /* the exact shared-memory conflicts (profiler_smem.c) */
    int smem_want;             /* of the current configuration: 1 loads, 2 stores (bits) */
    int smem_state;            /* SASS metrics configured on the device: 0 not yet, 1 yes,
                                  -1 cannot be (smem_why); kept across configurations */
    char smem_why[GL_REASON_MAX];
    uint64_t smem_ids[GL_SMEM_NKINDS];   /* CUPTI's id of each enum gl_smem_kind metric */
    int smem_ran;              /* kernels were instrumented since the range profiler object
                                  last ran a session: with GPULAB_CUPTI_SMEM_FRESH=1 the
                                  next session takes a fresh one */
};
extern struct glc_state glc_st;

/* profiler_common.c */
double glc_now_s(void);
/* Add the time since *t0 to phase k of the trace and restart the clock. */
void glc_lap(int k, double *t0);
/* snprintf that accepts a NULL or empty buf. */
void glc_fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
const char *glc_cupti_str(CUptiResult rc);
/* 1 with the reason in buf when rc means counters are unavailable here
 * (permission, support, another profiler), else 0. */
int glc_unavailable_reason(CUptiResult rc, const char *call, char *buf, size_t len);
/* The trace's sums per profiled run on stderr, when GPULAB_CUPTI_TRACE is on. */
void glc_trace_print(void);

/* profiler_state.c */
/* Once per process: context, CUPTI, chip, counter availability, range
 * profiler. 0, or -1 with glc_st.why. */
int glc_ensure_init(void);
/* Disable and enable the range profiler again: a clean object. */
CUptiResult glc_reenable(void);

/* Forget the current configuration. */
void glc_drop_config(void);

/* profiler_names.c */
/* Try each configured name alone: 0, -1 (no host object) or -2 with err naming
 * each refused name and the nearest valid ones. */
int glc_validate_names(char *err, size_t errlen);

/* profiler_count.c */
/* Unsubscribe the kernel count's callbacks (glc_shutdown). */
void glc_count_shutdown(void);

/* profiler_setup.c */
/* A fresh range profiler object for the current configuration. 0, or -1 + err. */
int glc_fresh_object(char *err, size_t errlen);
/* The range profiler object set up for the current configuration: nothing when
 * it is already, else a fresh one (the one ensure_init enabled only sized, the
 * first time). 0, or -1 + err. */
int glc_object_for_current(char *err, size_t errlen);

/* profiler_configs.c */
/* The current request's (glc_st) configuration from the cache, made current:
 * 1, else 0 (not built yet). */
int glc_config_take(void);
/* The configuration just built (glc_st.mode, owned) into the cache, current. */
void glc_config_keep(void);
/* Free every cached configuration (glc_shutdown). */
void glc_config_cache_free(void);

/* profiler_smem.c */
/* The exact conflicts of every run of rp[0..n) with rp[i]->smem (after the range
 * profiler's sessions: appended to r[i]->metrics), the others' smem_reason. */
void glc_smem_profile(const struct glc_replay *const *rp, struct gl_result *const *r, int n);
/* Unset the SASS metrics configuration (glc_shutdown). */
void glc_smem_shutdown(void);

/* profiler_passes.c */
/* The same metrics reason into every run of a session (no metrics). */
void glc_reason_all(struct gl_result *const *r, int n, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 when rc is success, else its reason into every run and 0. */
int glc_rp_call(CUptiResult rc, const char *call, struct gl_result *const *r, int n);
/* Every pass of one session of n runs in mode m, decoded; passes into *passes.
 * In auto-range mode, where CUPTI serializes each launch (the host waits for
 * it), run i's wall time in every pass, from the end of the run before it (the
 * flush and restore that prepare it) to the end of its kernel, is added to
 * run_ms[i] (zeroed by the caller); in user-range mode run_ms is not touched
 * and may be NULL (launches are queued: a run's time lands on later calls). 1, or 0 with
 * every run's reason. */
int glc_collect_passes(const struct glc_replay *const *rp, int n, int m,
                       struct gl_result *const *r, int *passes, double *run_ms);

#endif

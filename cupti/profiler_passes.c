/* profiler_passes.c - one collection session's passes: the counter data
 * initialised, the configuration set, then each pass replaying every run of
 * the session with the flush before each (user ranges around each run, or auto
 * ranges around each kernel), and the decode; and the worker's first range
 * profiler object started empty at set-up (glc_warm).
 * Must not evaluate metrics or decide which runs share a session
 * (profiler_batch.c). */
#include "profiler_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void glc_reason_all(struct gl_result *const *r, int n, const char *f, ...)
{
    char buf[GL_REASON_MAX];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    for (int i = 0; i < n; i++) {
        r[i]->nmetrics = 0;
        r[i]->passes = 0;
        glc_fmt(r[i]->metrics_reason, sizeof r[i]->metrics_reason, "%s", buf);
    }
}

/* A failed CUPTI call: its reason into every run of the session. 1 = success. */
int glc_rp_call(CUptiResult rc, const char *call, struct gl_result *const *r, int n)
{
    if (rc == CUPTI_SUCCESS)
        return 1;
    char buf[GL_REASON_MAX];
    if (!glc_unavailable_reason(rc, call, buf, sizeof buf))
        glc_fmt(buf, sizeof buf, "%s failed: %s", call, glc_cupti_str(rc));
    glc_reason_all(r, n, "%s", buf);
    return 0;
}

static CUptiResult push(const char *name)
{
    CUpti_RangeProfiler_PushRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = glc_st.rp;
    p.pRangeName = name;
    return cuptiRangeProfilerPushRange(&p);
}

static CUptiResult pop(void)
{
    CUpti_RangeProfiler_PopRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = glc_st.rp;
    return cuptiRangeProfilerPopRange(&p);
}

static void stop_quietly(void)
{
    CUpti_RangeProfiler_Stop_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = glc_st.rp;
    (void)cuptiRangeProfilerStop(&p);
}

/* "<prefix>_<i>": the user range of run i (RANGE_RUN) or of its drain (RANGE_DRAIN). */
static void range_name(char *buf, size_t len, const char *prefix, int i)
{
    glc_fmt(buf, len, "%s_%d", prefix, i);
}

/* After run i and the flush after it: run i + 1's buffers put back (outside
 * every range), then a flush of its own (in auto-range mode a kernel range,
 * which session() of profiler_batch.c counts), unless they were put back at
 * the pass's start (glc_restore_between). */
static void restore_next(const struct glc_replay *const *rp, int n, int i)
{
    if (i + 1 >= n || !glc_restore_between(rp[i + 1], i + 1))
        return;
    rp[i + 1]->restore(rp[i + 1]->ctx);
    rp[i + 1]->flush(rp[i + 1]->ctx);
}

/* One pass over every run of the session (see MODE_*). Sets *all when CUPTI has
 * every pass it needs. Every flush is called with the run it prepares (its ctx
 * names the buffers to keep mapped, experiments/gpu/harness/harness_batch.cu); the flush after the last
 * run, with the last run. */
static int one_pass(const struct glc_replay *const *rp, int n, int m, struct gl_result *const *r,
                    int first, int *all, double *run_ms)
{
    double t0 = glc_trace.on ? glc_now_s() : 0.0;
    CUpti_RangeProfiler_Start_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = glc_st.rp;
    if (!glc_rp_call(cuptiRangeProfilerStart(&sp), "cuptiRangeProfilerStart", r, n))
        return 0;
    glc_lap(first ? T_START1 : T_START, &t0);
    /* inside Start/Stop: whatever Start left in L2 goes too; the first run's
     * buffers put back before it, and those of every run restored early (what
     * they put back is its own: no run before it touches it; their copies' time
     * falls in the first run's run_ms) */
    double mark = glc_now_s();   /* where run i's preparation began */
    for (int i = 0; i < n; i++)
        if (rp[i]->restore && !glc_restore_between(rp[i], i))
            rp[i]->restore(rp[i]->ctx);
    rp[0]->flush(rp[0]->ctx);
    glc_lap(T_FLUSH, &t0);
    CUptiResult rc = CUPTI_SUCCESS;
    const char *call = "";
    char name[64];
    for (int i = 0; i < n && rc == CUPTI_SUCCESS; i++) {
        const struct glc_replay *next = rp[i + 1 < n ? i + 1 : i];
        if (m == MODE_AUTO) {
            rp[i]->run(rp[i]->ctx);
            double t = glc_now_s();
            run_ms[i] += (t - mark) * 1e3;
            mark = t;
            glc_lap(T_RUN, &t0);
            next->flush(next->ctx);
            glc_lap(T_FLUSH, &t0);
            restore_next(rp, n, i);
            continue;
        }
        /* a split run replays launch by launch after its whole: the flush after
         * the whole prepares that replay, and the next run's comes after it */
        int split = glc_split(rp[i]);
        const struct glc_replay *after = split ? rp[i] : next;
        range_name(name, sizeof name, RANGE_RUN, i);
        call = "cuptiRangeProfilerPushRange";
        rc = push(name);
        glc_lap(T_RANGE, &t0);
        if (rc != CUPTI_SUCCESS)
            break;
        rp[i]->run(rp[i]->ctx);
        glc_lap(T_RUN, &t0);
        call = "cuptiRangeProfilerPopRange";
        rc = pop();
        glc_lap(T_RANGE, &t0);
        if (rc != CUPTI_SUCCESS)
            break;
        if (glc_st.drain) {
            range_name(name, sizeof name, RANGE_DRAIN, i);
            call = "cuptiRangeProfilerPushRange";
            rc = push(name);
            if (rc != CUPTI_SUCCESS)
                break;
            after->flush(after->ctx);
            call = "cuptiRangeProfilerPopRange";
            rc = pop();
            glc_lap(T_RANGE, &t0);
        } else if (split || i + 1 < n) {
            after->flush(after->ctx);   /* the next replay's cold L2, outside any range */
            glc_lap(T_FLUSH, &t0);
        }
        for (int k = 0; split && k < rp[i]->nlaunches && rc == CUPTI_SUCCESS; k++) {
            glc_fmt(name, sizeof name, "%s_%d_%d", RANGE_LAUNCH, i, k);
            call = "cuptiRangeProfilerPushRange";
            rc = push(name);
            if (rc != CUPTI_SUCCESS)
                break;
            rp[i]->run_launch(rp[i]->ctx, k);
            call = "cuptiRangeProfilerPopRange";
            rc = pop();
            glc_lap(T_RANGE, &t0);
        }
        if (rc == CUPTI_SUCCESS && split && i + 1 < n) {
            next->flush(next->ctx);
            glc_lap(T_FLUSH, &t0);
        }
        if (rc == CUPTI_SUCCESS)
            restore_next(rp, n, i);
    }
    if (rc != CUPTI_SUCCESS) {
        stop_quietly();
        return glc_rp_call(rc, call, r, n);
    }
    CUpti_RangeProfiler_Stop_Params tp;
    memset(&tp, 0, sizeof tp);
    tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    tp.pRangeProfilerObject = glc_st.rp;
    if (!glc_rp_call(cuptiRangeProfilerStop(&tp), "cuptiRangeProfilerStop", r, n))
        return 0;
    glc_lap(T_STOP, &t0);
    *all = tp.isAllPassSubmitted != 0;
    return 1;
}

/* Every pass of one session of n runs in mode m, decoded. Passes in *passes. */
int glc_collect_passes(const struct glc_replay *const *rp, int n, int m,
                          struct gl_result *const *r, int *passes, double *run_ms)
{
    double t0 = glc_trace.on ? glc_now_s() : 0.0;
    /* A range profiler object that ran a session in one range mode refuses the
     * other one afterwards (PushRange: INVALID_PARAMETER after an auto-range
     * session, CUPTI 13.0): a fresh object when the mode changes. */
    if (glc_st.last_mode >= 0 && glc_st.last_mode != m) {
        char why[GL_REASON_MAX];
        glc_trace.objects_mode++;
        if (glc_fresh_object(why, sizeof why) != 0) {
            glc_reason_all(r, n, "range mode change: %s", why);
            return 0;
        }
        glc_lap(T_REENABLE, &t0);
    }
    glc_st.last_mode = m;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = glc_st.rp;
    ip.counterDataSize = glc_st.counter_size;
    ip.pCounterData = glc_st.counter_data;
    if (!glc_rp_call(cuptiRangeProfilerCounterDataImageInitialize(&ip),
                 "cuptiRangeProfilerCounterDataImageInitialize", r, n))
        return 0;
    glc_lap(T_CTRINIT, &t0);
    const struct mode_config *c = &glc_st.mode[m];
    CUpti_RangeProfiler_SetConfig_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    cp.pRangeProfilerObject = glc_st.rp;
    cp.configSize = c->config_size;
    cp.pConfig = c->config;
    cp.counterDataImageSize = glc_st.counter_size;
    cp.pCounterDataImage = glc_st.counter_data;
    cp.range = m == MODE_AUTO ? CUPTI_AutoRange : CUPTI_UserRange;
    cp.replayMode = CUPTI_UserReplay;
    /* Always the most the counter data image is sized for, never the session's
     * own count: a session with more runs than the object's earlier user
     * sessions lost some runs' ranges (H100, CUPTI 13.0) when this was n. */
    cp.maxRangesPerPass = glc_max_ranges();
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    if (!glc_rp_call(cuptiRangeProfilerSetConfig(&cp), "cuptiRangeProfilerSetConfig", r, n))
        return 0;
    glc_lap(T_SETCONFIG, &t0);
    /* nothing of the timing phase may still run inside the first range */
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        glc_reason_all(r, n, "CUDA error before profiling: %s", cudaGetErrorName(ce));
        return 0;
    }
    glc_lap(T_SYNC, &t0);
    int all = 0, k = 0;
    while (!all) {
        if (k > (int)c->passes) {
            glc_reason_all(r, n, "CUPTI asked for more than the %zu passes it announced",
                           c->passes);
            return 0;
        }
        if (!one_pass(rp, n, m, r, k == 0, &all, run_ms))
            return 0;
        k++;
    }
    /* a session that CUPTI ended early (passes of an earlier session left
     * standing) has only some of the counters: refused, never stored partial */
    if ((size_t)k != c->passes) {
        glc_reason_all(r, n, "CUPTI ended the session after %d of the %zu passes it announced",
                       k, c->passes);
        return 0;
    }
    if (glc_trace.on)
        t0 = glc_now_s();
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = glc_st.rp;
    if (!glc_rp_call(cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData", r, n))
        return 0;
    glc_lap(T_DECODE, &t0);
    if (dp.numOfRangeDropped > 0) {
        glc_reason_all(r, n, "CUPTI dropped %zu range(s)", dp.numOfRangeDropped);
        return 0;
    }
    *passes = k;
    return 1;
}

/* The first Start of a range profiler object costs ~370 ms on an H100 (CUPTI
 * 13.0; a session's first Start after it ~20 ms: bench/README, 2026-11-28).
 * Paid here, when a worker configures its first metric set (before any run),
 * not by the runs of its first batch: the counter data initialised, the
 * auto-range configuration set, every pass started and stopped with nothing
 * launched in it (CUPTI counts an empty pass: a session after one of them ran
 * only the rest), then decoded. The next session sets its configuration again
 * (a session always does), so nothing of this one reaches a run. 0, or -1 with
 * err (the object is then made afresh at the first profile). */
static int warm_object(char *err, size_t errlen)
{
    double t0 = glc_trace.on ? glc_now_s() : 0.0;
    if (glc_object_for_current(err, errlen) != 0)
        return -1;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = glc_st.rp;
    ip.counterDataSize = glc_st.counter_size;
    ip.pCounterData = glc_st.counter_data;
    CUptiResult rc = cuptiRangeProfilerCounterDataImageInitialize(&ip);
    const struct mode_config *c = &glc_st.mode[MODE_AUTO];
    CUpti_RangeProfiler_SetConfig_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    cp.pRangeProfilerObject = glc_st.rp;
    cp.configSize = c->config_size;
    cp.pConfig = c->config;
    cp.counterDataImageSize = glc_st.counter_size;
    cp.pCounterDataImage = glc_st.counter_data;
    cp.range = CUPTI_AutoRange;
    cp.replayMode = CUPTI_UserReplay;
    cp.maxRangesPerPass = glc_max_ranges();
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    if (rc == CUPTI_SUCCESS)
        rc = cuptiRangeProfilerSetConfig(&cp);
    /* every pass, empty (CUPTI counts an empty Start..Stop as a pass: a session
     * after one pass of it ran only the rest), and the decode that ends it */
    int all = 0;
    for (size_t k = 0; rc == CUPTI_SUCCESS && !all && k <= c->passes; k++) {
        CUpti_RangeProfiler_Start_Params sp;
        memset(&sp, 0, sizeof sp);
        sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = glc_st.rp;
        rc = cuptiRangeProfilerStart(&sp);
        if (rc != CUPTI_SUCCESS)
            break;
        CUpti_RangeProfiler_Stop_Params tp;
        memset(&tp, 0, sizeof tp);
        tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        tp.pRangeProfilerObject = glc_st.rp;
        rc = cuptiRangeProfilerStop(&tp);
        all = tp.isAllPassSubmitted != 0;
    }
    if (rc == CUPTI_SUCCESS && !all)
        rc = CUPTI_ERROR_UNKNOWN;
    if (rc == CUPTI_SUCCESS) {
        CUpti_RangeProfiler_DecodeData_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = glc_st.rp;
        (void)cuptiRangeProfilerDecodeData(&dp);   /* nothing to decode: its result is not used */
    }
    glc_lap(T_WARM, &t0);
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(err, errlen, "warming the range profiler object: %s", glc_cupti_str(rc));
        glc_st.broken = 1;
        return -1;
    }
    glc_st.last_mode = MODE_AUTO;
    glc_trace.objects_warmed++;
    return 0;
}

void glc_warm(void)
{
    char why[GL_REASON_MAX];
    if (glc_st.configured && glc_st.n > 0 && glc_st.object_cfg == -1)
        (void)warm_object(why, sizeof why);   /* a failure: made afresh at the first profile */
}

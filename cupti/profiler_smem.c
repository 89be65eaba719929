/* profiler_smem.c - the exact shared-memory bank conflicts of runs: CUPTI's SASS
 * metrics configured once per process, then for each run one instrumented replay
 * between cuptiSassMetricsEnable and Disable (lazy patching: only the kernels
 * the run launches), its per-instruction records flushed and summed by
 * gl_smem_excess (src/core/smem_excess.c) into the excess wavefronts of loads
 * and stores, appended to the run's metrics. Why it works the way it does is in
 * profiler_int.h. Must not decide which runs want it (the harness does, by
 * rp->smem) nor touch the range profiler's sessions (profiler_passes.c). */
#include "profiler_int.h"

#include <cupti_sass_metrics.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Configure the SASS metrics on the device, once per process. 0, or -1 with
 * glc_st.smem_why (kept: a failure is not tried again). */
static int smem_configure(void)
{
    if (glc_st.smem_state != 0)
        return glc_st.smem_state > 0 ? 0 : -1;
    glc_st.smem_state = -1;
    CUpti_SassMetrics_Config cfg[GL_SMEM_NKINDS];
    for (int k = 0; k < GL_SMEM_NKINDS; k++) {
        CUpti_SassMetrics_GetProperties_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
        p.pChipName = glc_st.chip;
        p.pMetricName = gl_smem_sass_metric[k];
        CUptiResult rc = cuptiSassMetricsGetProperties(&p);
        if (rc != CUPTI_SUCCESS) {
            glc_fmt(glc_st.smem_why, sizeof glc_st.smem_why,
                    "CUPTI offers no SASS metric %s on %s (%s)", gl_smem_sass_metric[k],
                    glc_st.chip, glc_cupti_str(rc));
            return -1;
        }
        glc_st.smem_ids[k] = p.metric.metricId;
        cfg[k].metricId = p.metric.metricId;
        cfg[k].outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    }
    CUpti_SassMetricsSetConfig_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sp.numOfMetricConfig = GL_SMEM_NKINDS;
    sp.pConfigs = cfg;
    sp.deviceIndex = (uint32_t)glc_st.device;
    CUptiResult rc = cuptiSassMetricsSetConfig(&sp);
    if (rc != CUPTI_SUCCESS) {
        if (!glc_unavailable_reason(rc, "cuptiSassMetricsSetConfig", glc_st.smem_why,
                                    sizeof glc_st.smem_why))
            glc_fmt(glc_st.smem_why, sizeof glc_st.smem_why,
                    "cuptiSassMetricsSetConfig failed: %s", glc_cupti_str(rc));
        return -1;
    }
    glc_st.smem_state = 1;
    return 0;
}

void glc_smem_shutdown(void)
{
    if (glc_st.smem_state <= 0)
        return;
    CUpti_SassMetricsUnsetConfig_Params up;
    memset(&up, 0, sizeof up);
    up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    up.deviceIndex = (uint32_t)glc_st.device;
    (void)cuptiSassMetricsUnsetConfig(&up);
    glc_st.smem_state = 0;
}

static int kind_of(uint64_t id)
{
    for (int k = 0; k < GL_SMEM_NKINDS; k++)
        if (glc_st.smem_ids[k] == id)
            return k;
    return -1;
}

/* What CUPTI collected since the enable, as records (malloc'd into *out, *nout).
 * 0, or -1 with why. */
static int flush_records(struct gl_smem_record **out, size_t *nout, char *why, size_t len)
{
    *out = NULL;
    *nout = 0;
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    dp.ctx = glc_st.ctx;
    CUptiResult rc = cuptiSassMetricsGetDataProperties(&dp);
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(why, len, "cuptiSassMetricsGetDataProperties failed: %s", glc_cupti_str(rc));
        return -1;
    }
    size_t nrec = dp.numOfPatchedInstructionRecords, ninst = dp.numOfInstances;
    if (nrec == 0 || ninst == 0)
        return 0;
    CUpti_SassMetrics_Data *d = calloc(nrec, sizeof *d);
    CUpti_SassMetrics_InstanceValue *v = calloc(nrec * ninst, sizeof *v);
    struct gl_smem_record *r = calloc(nrec * ninst, sizeof *r);
    if (!d || !v || !r) {
        free(d);
        free(v);
        free(r);
        glc_fmt(why, len, "out of memory for %zu SASS records", nrec);
        return -1;
    }
    for (size_t i = 0; i < nrec; i++) {
        d[i].structSize = sizeof d[i];
        d[i].pInstanceValues = v + i * ninst;
    }
    CUpti_SassMetricsFlushData_Params fp;
    memset(&fp, 0, sizeof fp);
    fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
    fp.ctx = glc_st.ctx;
    fp.numOfPatchedInstructionRecords = nrec;
    fp.numOfInstances = ninst;
    fp.pMetricsData = d;
    rc = cuptiSassMetricsFlushData(&fp);
    if (rc != CUPTI_SUCCESS) {
        free(d);
        free(v);
        free(r);
        glc_fmt(why, len, "cuptiSassMetricsFlushData failed: %s", glc_cupti_str(rc));
        return -1;
    }
    /* a record is one instruction and one metric; its values one per instance
     * (one: GPU granularity), each naming its metric */
    size_t n = 0;
    for (size_t i = 0; i < nrec; i++)
        for (size_t k = 0; k < ninst; k++) {
            int kind = kind_of(d[i].pInstanceValues[k].metricId);
            if (kind < 0)
                continue;
            r[n].cubin = d[i].cubinCrc;
            r[n].function = d[i].functionIndex;
            r[n].pc = d[i].pcOffset;
            r[n].kind = kind;
            r[n].value = d[i].pInstanceValues[k].value;
            n++;
        }
    free(d);
    free(v);
    *out = r;
    *nout = n;
    return 0;
}

/* One run instrumented: enable, its launches, flush, disable. 0 with the
 * records, or -1 with why (the patching is undone either way). */
static int instrumented_run(const struct glc_replay *rp, struct gl_smem_record **rec, size_t *n,
                            char *why, size_t len)
{
    *rec = NULL;
    *n = 0;
    /* patching takes effect only with no kernel in flight */
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        glc_fmt(why, len, "CUDA error before the instrumented replay: %s", cudaGetErrorName(ce));
        return -1;
    }
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.ctx = glc_st.ctx;
    ep.enableLazyPatching = 1;
    CUptiResult rc = cuptiSassMetricsEnable(&ep);
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(why, len, "cuptiSassMetricsEnable failed: %s", glc_cupti_str(rc));
        return -1;
    }
    if (rp->restore)
        rp->restore(rp->ctx);   /* copies only: nothing for the instrumentation to see */
    rp->run(rp->ctx);
    ce = cudaDeviceSynchronize();
    int ok = 0;
    if (ce != cudaSuccess)
        glc_fmt(why, len, "the instrumented replay failed: %s", cudaGetErrorName(ce));
    else
        ok = flush_records(rec, n, why, len) == 0;
    CUpti_SassMetricsDisable_Params xp;
    memset(&xp, 0, sizeof xp);
    xp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    xp.ctx = glc_st.ctx;
    rc = cuptiSassMetricsDisable(&xp);
    if (ok && rc != CUPTI_SUCCESS) {
        glc_fmt(why, len, "cuptiSassMetricsDisable failed: %s", glc_cupti_str(rc));
        ok = 0;
    }
    if (!ok) {
        free(*rec);
        *rec = NULL;
        *n = 0;
    }
    return ok ? 0 : -1;
}

static void add_metric(struct gl_result *r, const char *name, double value)
{
    if (r->nmetrics >= GL_MAX_METRICS)
        return;
    struct gl_metric *m = &r->metrics[r->nmetrics++];
    glc_fmt(m->name, sizeof m->name, "%s", name);
    glc_fmt(m->unit, sizeof m->unit, "%s", gl_metric_unit(name));
    m->value = value;
}

/* The exact conflicts of one run into r, or r->smem_reason. */
static void one_run(const struct glc_replay *rp, struct gl_result *r)
{
    char why[GL_REASON_MAX];
    struct gl_smem_record *rec = NULL;
    size_t n = 0;
    double t0 = glc_now_s();
    glc_st.smem_ran = 1;
    int rc = instrumented_run(rp, &rec, &n, why, sizeof why);
    if (rp->smem_ms)
        *rp->smem_ms = (glc_now_s() - t0) * 1e3;
    if (rc != 0) {
        glc_fmt(r->smem_reason, sizeof r->smem_reason, "not measured: %s", why);
        return;
    }
    struct gl_smem_totals t;
    if (n == 0) {
        glc_fmt(r->smem_reason, sizeof r->smem_reason,
                "not measured: CUPTI's SASS metrics returned no record (the run executed no "
                "shared-memory instruction, or the instrumentation collected nothing)");
    } else if (gl_smem_excess(rec, n, &t, why, sizeof why) != 0) {
        glc_fmt(r->smem_reason, sizeof r->smem_reason, "not measured: %s", why);
    } else {
        if (glc_st.smem_want & 1)
            add_metric(r, GL_METRIC_SMEM_EXCESS_LD, t.excess[GL_SMEM_LD]);
        if (glc_st.smem_want & 2)
            add_metric(r, GL_METRIC_SMEM_EXCESS_ST, t.excess[GL_SMEM_ST]);
        if (r->passes == 0)
            r->passes = 1;   /* only the instrumented replay */
        if (glc_trace.on)
            fprintf(stderr, "gpulab cupti smem: %zu records; loads %d instructions, %.0f executed, "
                    "%.0f wavefronts, ideal %.0f; stores %d, %.0f, %.0f, %.0f; other %d\n", n,
                    t.instructions[GL_SMEM_LD], t.executed[GL_SMEM_LD], t.wavefronts[GL_SMEM_LD],
                    t.ideal[GL_SMEM_LD], t.instructions[GL_SMEM_ST], t.executed[GL_SMEM_ST],
                    t.wavefronts[GL_SMEM_ST], t.ideal[GL_SMEM_ST], t.other_instructions);
    }
    free(rec);
}

void glc_smem_profile(const struct glc_replay *const *rp, struct gl_result *const *r, int n)
{
    double t0 = glc_trace.on ? glc_now_s() : 0.0;
    for (int i = 0; i < n; i++) {
        if (!glc_st.smem_want) {
            glc_fmt(r[i]->smem_reason, sizeof r[i]->smem_reason,
                    "not requested: the metrics list leaves out " GL_METRIC_SMEM_EXCESS_SET);
            continue;
        }
        if (!rp[i]->smem)
            continue;   /* the harness said why */
        if (glc_st.n > 0 && r[i]->nmetrics == 0) {
            glc_fmt(r[i]->smem_reason, sizeof r[i]->smem_reason,
                    "not measured: the run's other counters failed (metrics_reason)");
            continue;
        }
        /* the SASS metrics collect only while a range profiler object is enabled
         * on the context (profiler_int.h): ensure_init made one */
        if (!glc_st.rp) {
            glc_fmt(r[i]->smem_reason, sizeof r[i]->smem_reason,
                    "not measured: no range profiler object on the context");
            continue;
        }
        if (smem_configure() != 0) {
            glc_fmt(r[i]->smem_reason, sizeof r[i]->smem_reason, "not measured: %s",
                    glc_st.smem_why);
            continue;
        }
        one_run(rp[i], r[i]);
    }
    glc_lap(T_SMEM, &t0);
}

/* profiler_setup.c - glc_setup: the metric list of a sweep turned into one
 * configuration image per range mode (the fewest passes), a range profiler
 * object sized for it, the names it stores, and whether the exact
 * shared-memory conflicts are wanted (profiler_smem.c measures them).
 * Must not run a collection session or evaluate counters. */
#include "profiler_int.h"

#include <stdlib.h>
#include <string.h>

static int add_name(const char *name, int stored)
{
    for (int i = 0; i < glc_st.n; i++)
        if (strcmp(glc_st.names[i], name) == 0) {
            glc_st.stored[i] |= stored;
            return 0;
        }
    if (glc_st.n >= GL_MAX_METRICS)
        return -1;
    glc_fmt(glc_st.names[glc_st.n], sizeof glc_st.names[glc_st.n], "%s", name);
    glc_st.ptrs[glc_st.n] = glc_st.names[glc_st.n];
    glc_st.stored[glc_st.n] = stored;
    glc_st.n++;
    return 0;
}

/* Metrics that get a pass of their own in user-range mode. gpu__time_duration
 * measured in a user range shared with many other counters comes out ~9 us long
 * (H100, CUPTI 13.0: programming the other counters at the range boundaries is
 * timed too); alone in its pass it is ~2 us long. With auto ranges the counters
 * start with the kernel and it shares a pass without bias (measured against ncu
 * on the H100: median 0.03 % on bench/agree.conf), so auto mode needs one pass
 * fewer. */
static int isolated(const char *name)
{
    return strncmp(name, "gpu__time_duration.", 19) == 0;
}

/* Configure h with every metric: in one call (CUPTI packs the counters of one
 * call into as few passes as it can: the GH100 default set needs 2 passes this
 * way, 9 when added one by one), with the isolated ones alone after it when
 * isolate is set. */
static int add_all(glh_host *h, int isolate)
{
    const char *rest[GL_MAX_METRICS];
    int nrest = 0, rc = 0;
    for (int i = 0; i < glc_st.n; i++)
        if (!isolate || !isolated(glc_st.names[i]))
            rest[nrest++] = glc_st.names[i];
    if (nrest > 0)
        rc = glh_add_metrics(h, rest, (size_t)nrest);
    for (int i = 0; isolate && rc == 0 && i < glc_st.n; i++)
        if (isolated(glc_st.names[i]))
            rc = glh_add_metrics(h, &glc_st.ptrs[i], 1);
    return rc;
}

/* Host object, configuration image and pass count of one mode. 0 or -1 + err. */
static int build_mode(int m, char *err, size_t errlen)
{
    struct mode_config *c = &glc_st.mode[m];
    int rc = glh_create(glc_st.chip, glc_st.avail, &c->host);
    if (rc == 0)
        rc = add_all(c->host, m == MODE_USER);
    if (rc != 0) {
        glc_fmt(err, errlen, "CUPTI refused the metric set as a whole (%s)",
            glc_cupti_str((CUptiResult)rc));
        return -1;
    }
    rc = glh_config_image(c->host, &c->config, &c->config_size);
    if (rc == 0)
        rc = glh_num_passes(c->config, c->config_size, &c->passes);
    if (rc != 0 || c->passes == 0) {
        glc_fmt(err, errlen, "cannot build the counter configuration (%s)",
            rc ? glc_cupti_str((CUptiResult)rc) : "0 passes");
        return -1;
    }
    return 0;
}

/* Size (and allocate) the counter data for the current range profiler object:
 * cuptiRangeProfilerGetCounterDataSize also tells the object which metrics its
 * counter data holds, so it is called again for every new object - without it a
 * re-enabled object crashed in cuptiRangeProfilerStart (H100, CUPTI 13.0).
 * 0, or -1 + err. */
static int size_counter_data(char *err, size_t errlen)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = glc_st.rp;
    sp.pMetricNames = glc_st.ptrs;
    sp.numMetrics = (size_t)glc_st.n;
    sp.maxNumOfRanges = glc_max_ranges();
    sp.maxNumRangeTreeNodes = glc_max_ranges();
    CUptiResult cr = cuptiRangeProfilerGetCounterDataSize(&sp);
    if (cr != CUPTI_SUCCESS) {
        glc_fmt(err, errlen,
                "cannot size the counter data (cuptiRangeProfilerGetCounterDataSize: %s)",
                glc_cupti_str(cr));
        return -1;
    }
    if (glc_st.counter_data && sp.counterDataSize == glc_st.counter_size)
        return 0;
    free(glc_st.counter_data);
    glc_st.counter_size = sp.counterDataSize;
    glc_st.counter_data = malloc(glc_st.counter_size ? glc_st.counter_size : 1);
    if (!glc_st.counter_data) {
        glc_fmt(err, errlen, "out of memory for the counter data (%zu bytes)", glc_st.counter_size);
        glc_st.counter_size = 0;
        return -1;
    }
    return 0;
}

/* A fresh range profiler object for the current configuration (after a failure,
 * or to change the range mode). 0, or -1 + err. */
int glc_fresh_object(char *err, size_t errlen)
{
    glc_st.object_cfg = -2;   /* none usable until sized */
    CUptiResult rc = glc_reenable();
    if (rc != CUPTI_SUCCESS) {
        glc_fmt(err, errlen, "cannot re-enable the range profiler (%s)", glc_cupti_str(rc));
        return -1;
    }
    glc_st.last_mode = -1;
    glc_st.smem_ran = 0;
    if (size_counter_data(err, errlen) != 0)
        return -1;
    glc_st.object_cfg = glc_st.cur_cfg;
    return 0;
}

int glc_object_for_current(char *err, size_t errlen)
{
    if (glc_st.object_cfg == glc_st.cur_cfg && glc_st.counter_data)
        return 0;
    glc_trace.objects_config++;
    if (glc_st.object_cfg == -1) {
        /* the object ensure_init enabled has run nothing: sized, it serves */
        glc_st.last_mode = -1;
        if (size_counter_data(err, errlen) != 0)
            return -1;
        glc_st.object_cfg = glc_st.cur_cfg;
        return 0;
    }
    /* a fresh range profiler object per configuration (profiler_int.h) */
    return glc_fresh_object(err, errlen);
}

int glc_setup(const struct gl_metric_req *req, char *err, size_t errlen)
{
    glc_drop_config();
    if (errlen)
        err[0] = '\0';
    if (!req || (req->n <= 0 && !req->drain)) {
        glc_fmt(glc_st.notready, sizeof glc_st.notready, "no metrics requested (metrics = none)");
        return 0;
    }
    if (glc_ensure_init() != 0) {
        glc_fmt(err, errlen, "%s", glc_st.why);
        glc_fmt(glc_st.notready, sizeof glc_st.notready, "%s", glc_st.why);
        return -1;
    }
    glc_trace.on = glc_env_on("GPULAB_CUPTI_TRACE");
    int n = req->n < GL_MAX_METRICS ? req->n : GL_MAX_METRICS;
    for (int i = 0; i < n; i++) {
        if (strcmp(req->names[i], GL_METRIC_SMEM_EXCESS_LD) == 0)
            glc_st.smem_want |= 1;
        else if (strcmp(req->names[i], GL_METRIC_SMEM_EXCESS_ST) == 0)
            glc_st.smem_want |= 2;
        else if (strncmp(req->names[i], "gpulab__", 8) != 0)
            (void)add_name(req->names[i], 1);
    }
    glc_st.drain = req->drain != 0;
    if (glc_st.drain && add_name(GL_METRIC_DRAM_WRITE, 0) != 0) {
        glc_fmt(err, errlen, "too many metrics (at most %d with the drain)", GL_MAX_METRICS);
        glc_drop_config();
        return -2;
    }
    if (glc_st.n == 0 && glc_st.smem_want) {
        /* only the exact conflicts: no range profiler configuration, one
         * instrumented replay (ensure_init's range profiler object stays enabled:
         * the SASS metrics need it) */
        glc_st.configured = 1;
        glc_st.notready[0] = '\0';
        return 1;
    }
    if (glc_st.n == 0) {
        glc_fmt(glc_st.notready, sizeof glc_st.notready, "no metrics requested");
        return 0;
    }
    /* a set configured before in this worker: its images again, validation and
     * build skipped; the range profiler object follows at the first profile
     * (glc_object_for_current), so checking several sets up front starts none */
    if (glc_config_take()) {
        glc_trace.configs_reused++;
        glc_st.configured = 1;
        glc_st.notready[0] = '\0';
        return (int)glc_st.mode[MODE_AUTO].passes;
    }
    /* CUPTI refuses a set that holds an unknown name as a whole, so the names
     * are validated one by one (~25 ms for the default set on GH100) only when
     * the set is refused, to say which of them it is */
    glc_st.mode_owned = 1;
    if (build_mode(MODE_AUTO, err, errlen) != 0) {
        /* err: build_mode's, unless the check finds a name or no host object */
        if (glc_validate_names(err, errlen) == -2) {
            glc_fmt(glc_st.notready, sizeof glc_st.notready, "metric configuration refused");
            glc_drop_config();
            return -2;
        }
        goto fail;
    }
    if (build_mode(MODE_USER, err, errlen) != 0)
        goto fail;
    glc_st.configs_made++;
    glc_trace.configs_built++;
    glc_config_keep();
    glc_st.configured = 1;
    glc_st.notready[0] = '\0';
    return (int)glc_st.mode[MODE_AUTO].passes;
fail:
    glc_fmt(glc_st.notready, sizeof glc_st.notready, "%s",
            err && errlen ? err : "profiler set-up failed");
    glc_drop_config();
    return -1;
}

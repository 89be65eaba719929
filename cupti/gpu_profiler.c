/* gpu_profiler.c - the CUPTI measurement engine (cupti/profiler.h): hardware
 * counters of one run through the CUPTI Range Profiler, user replay, one user
 * range around all of the run's launches, the L2 flushed before every pass, and
 * the optional drain range around a second flush right after the run.
 *
 * Why user range and not auto range: a run can be many launches (grid = 1d or
 * block, a library call). One range per run makes CUPTI aggregate the counters
 * over the whole run, so ratios (hit rates, occupancy, % of peak) come out as the
 * whole run's ratio rather than something we would have to re-weight; launches
 * stay asynchronous (auto range synchronizes after every kernel); the counter data
 * holds 1 or 2 ranges whatever the launch count; and the flush needs no range to
 * be thrown away. The cost: gpu__time_duration.sum of a multi-launch run spans
 * first start to last end, gaps included - the same span the timing phase times.
 *
 * Measured on the H100 (CUPTI 13.0), and why the code is the way it is:
 * - CUPTI packs counters into passes per ConfigAddMetrics call: names are
 *   validated one by one on a scratch host object, the configuration is built
 *   with one call (default set: 2 passes + 1 for the duration, not 9).
 * - In a pass with many counters PopRange waits for the GPU and the range ends
 *   ~10 us after the last kernel; gpu__time_duration.sum gets a pass of its own
 *   (see isolated()). Other *.pct_of_peak_sustained_elapsed metrics keep that
 *   ~10 us in their elapsed cycles: visible on runs shorter than ~1 ms.
 * - One range profiler object per configuration (re-enabled on each glc_setup):
 *   reusing one across configurations crashed in cuptiRangeProfilerStart.
 *
 * No libcuda link: the plugin must load where there is no driver, so the current
 * CUcontext comes from cuCtxGetCurrent found through the runtime's
 * cudaGetDriverEntryPointByVersion. Must not launch kernels itself or know about
 * families: the harness's callbacks do all GPU work. */
#include "profiler.h"
#include "host_shim.h"
#include "metric_sets.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_RUN "gpulab_run"
#define RANGE_DRAIN "gpulab_drain"
#define SUGGESTIONS 3

static struct {
    int init_tried;            /* ensure_init ran (its outcome is kept) */
    int unavailable;           /* counters cannot be used in this process */
    char why[GL_REASON_MAX];   /* ... and why */
    int cupti_init;            /* cuptiProfilerInitialize succeeded */
    CUcontext ctx;
    char chip[64];             /* "" until known */
    uint8_t *avail;            /* counter availability image */
    CUpti_RangeProfiler_Object *rp;  /* range profiler enabled on ctx */
    int broken;                /* a profile failed half-way: re-enable before the next */
    int configs_made;          /* configurations built on the current range profiler */
    /* the current configuration (glc_setup) */
    int configured;
    char notready[GL_REASON_MAX];   /* why glc_profile cannot run */
    glh_host *host;
    uint8_t *config;
    size_t config_size;
    size_t passes;
    int n;                     /* metrics in the configuration */
    char names[GL_MAX_METRICS][GL_METRIC_NAME];
    const char *ptrs[GL_MAX_METRICS];
    int stored[GL_MAX_METRICS];  /* 1 = asked for (goes into the result) */
    int drain;
    uint8_t *counter_data;
    size_t counter_size;
} g;

static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, f);
    vsnprintf(buf, len, f, ap);
    va_end(ap);
}

static const char *cupti_str(CUptiResult rc)
{
    const char *s = NULL;
    if (cuptiGetResultString(rc, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* The reason counters are unavailable, for the errors that mean just that. */
static int unavailable_reason(CUptiResult rc, const char *call, char *buf, size_t len)
{
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        fmt(buf, len, "no permission to read GPU performance counters (%s: %s; "
            "ERR_NVGPUCTRPERM): run as root or load the driver with "
            "NVreg_RestrictProfilingToAdminUsers=0", call, cupti_str(rc));
        return 1;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        fmt(buf, len, "GPU performance counters not supported here (%s: %s)", call,
            cupti_str(rc));
        return 1;
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        fmt(buf, len, "GPU performance counters in use by another profiler (%s: %s; "
            "running under ncu or nsys?)", call, cupti_str(rc));
        return 1;
    default:
        return 0;
    }
}

static void set_unavailable(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void set_unavailable(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(g.why, sizeof g.why, f, ap);
    va_end(ap);
    g.unavailable = 1;
}

/* A failed CUPTI call during set-up: unavailable with a reason. */
static void init_failed(CUptiResult rc, const char *call)
{
    if (!unavailable_reason(rc, call, g.why, sizeof g.why))
        fmt(g.why, sizeof g.why, "CUPTI profiler unavailable (%s: %s)", call, cupti_str(rc));
    g.unavailable = 1;
}

static const char *level(CUpti_Profiler_Support_Level l)
{
    switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
    }
}

static int check_supported(int dev)
{
    CUpti_Profiler_DeviceSupported_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = (CUdevice)dev;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUptiResult rc = cuptiProfilerDeviceSupported(&p);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerDeviceSupported");
        return -1;
    }
    if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        set_unavailable("GPU performance counters not supported on this device: architecture "
                        "%s, SLI %s, vGPU %s, confidential compute %s, CMP %s, WSL %s",
                        level(p.architecture), level(p.sli), level(p.vGpu),
                        level(p.confidentialCompute), level(p.cmp), level(p.wsl));
        return -1;
    }
    return 0;
}

static int get_context(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t ce = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000,
                                                      cudaEnableDefault, &q);
    if (ce != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
        set_unavailable("cannot find cuCtxGetCurrent in the CUDA driver (%s)",
                        cudaGetErrorName(ce));
        return -1;
    }
    CUresult (*get_current)(CUcontext *) = (CUresult (*)(CUcontext *))fn;
    CUresult cr = get_current(&g.ctx);
    if (cr != CUDA_SUCCESS || !g.ctx) {
        set_unavailable("no current CUDA context (cuCtxGetCurrent returned %d)", (int)cr);
        return -1;
    }
    return 0;
}

/* Once per process (until glc_shutdown): context, CUPTI, chip, counter
 * availability, range profiler. 0, or -1 with g.why. */
static int ensure_init(void)
{
    if (g.init_tried)
        return g.unavailable ? -1 : 0;
    g.init_tried = 1;
    int dev = -1;
    cudaError_t ce = cudaGetDevice(&dev);
    if (ce == cudaSuccess)
        ce = cudaFree(0);   /* the context exists from here on */
    if (ce != cudaSuccess) {
        set_unavailable("no usable CUDA device (%s: %s)", cudaGetErrorName(ce),
                        cudaGetErrorString(ce));
        return -1;
    }
    if (get_context() != 0)
        return -1;
    CUpti_Profiler_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    CUptiResult rc = cuptiProfilerInitialize(&ip);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerInitialize");
        return -1;
    }
    g.cupti_init = 1;
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)dev;
    rc = cuptiDeviceGetChipName(&cp);
    if (rc != CUPTI_SUCCESS || !cp.pChipName) {
        init_failed(rc, "cuptiDeviceGetChipName");
        return -1;
    }
    fmt(g.chip, sizeof g.chip, "%s", cp.pChipName);
    if (check_supported(dev) != 0)
        return -1;
    CUpti_Profiler_GetCounterAvailability_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ap.ctx = g.ctx;
    rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerGetCounterAvailability");
        return -1;
    }
    g.avail = malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
    if (!g.avail) {
        set_unavailable("out of memory");
        return -1;
    }
    ap.pCounterAvailabilityImage = g.avail;
    rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerGetCounterAvailability");
        return -1;
    }
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = g.ctx;
    rc = cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiRangeProfilerEnable");
        return -1;
    }
    g.rp = ep.pRangeProfilerObject;
    return 0;
}

/* Disable and enable the range profiler again: a clean state after a failure. */
static CUptiResult reenable(void)
{
    if (g.rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = g.rp;
        (void)cuptiRangeProfilerDisable(&dp);
        g.rp = NULL;
    }
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = g.ctx;
    CUptiResult rc = cuptiRangeProfilerEnable(&ep);
    if (rc == CUPTI_SUCCESS)
        g.rp = ep.pRangeProfilerObject;
    return rc;
}

static void drop_config(void)
{
    glh_destroy(g.host);
    g.host = NULL;
    free(g.config);
    g.config = NULL;
    g.config_size = 0;
    free(g.counter_data);
    g.counter_data = NULL;
    g.counter_size = 0;
    g.passes = 0;
    g.n = 0;
    g.drain = 0;
    g.configured = 0;
}

/* ---- every metric name of the chip (glc_list, suggestions) ---------------------- */

struct name_cb {
    void (*cb)(const char *name, void *ctx);
    void *ctx;
};

static void join_and_call(const char *base, const char *suffix, void *c)
{
    struct name_cb *x = c;
    char name[512];
    fmt(name, sizeof name, "%s%s", base, suffix);
    x->cb(name, x->ctx);
}

/* Every name, from a host object of its own (the configuration's may hold a
 * failed addition). */
static int each_name(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen)
{
    glh_host *h = NULL;
    int rc = glh_create(g.chip, g.avail, &h);
    if (rc != 0) {
        fmt(err, errlen, "cannot list metrics (cuptiProfilerHostInitialize: %s)",
            cupti_str((CUptiResult)rc));
        return -1;
    }
    struct name_cb x = { cb, ctx };
    rc = glh_each_metric(h, join_and_call, &x);
    glh_destroy(h);
    if (rc != 0) {
        fmt(err, errlen, "cannot list metrics (%s)", cupti_str((CUptiResult)rc));
        return -1;
    }
    return 0;
}

/* All names in one buffer, for suggestions. */
struct name_list {
    char *buf;
    size_t used, cap;
    size_t *off;
    int n, capn;
    int oom;
};

static void collect(const char *name, void *c)
{
    struct name_list *l = c;
    size_t len = strlen(name) + 1;
    if (l->oom)
        return;
    if (l->used + len > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : (size_t)1 << 20;
        while (cap < l->used + len)
            cap *= 2;
        char *b = realloc(l->buf, cap);
        if (!b) {
            l->oom = 1;
            return;
        }
        l->buf = b;
        l->cap = cap;
    }
    if (l->n == l->capn) {
        int capn = l->capn ? l->capn * 2 : 4096;
        size_t *o = realloc(l->off, (size_t)capn * sizeof *o);
        if (!o) {
            l->oom = 1;
            return;
        }
        l->off = o;
        l->capn = capn;
    }
    memcpy(l->buf + l->used, name, len);
    l->off[l->n++] = l->used;
    l->used += len;
}

/* Append to err why name was refused: unknown (with the nearest names), or known
 * but not collectable. */
static void explain_bad_name(const char *name, int rc, const struct name_list *l,
                             const char *const *known, char *err, size_t errlen)
{
    size_t used = strlen(err);
    if (used + 4 >= errlen)
        return;
    char *p = err + used;
    size_t left = errlen - used;
    if (used) {
        fmt(p, left, "; ");
        p += 2;
        left -= 2;
    }
    int is_known = 0;
    for (int i = 0; known && i < l->n; i++)
        if (strcmp(known[i], name) == 0) {
            is_known = 1;
            break;
        }
    if (strncmp(name, "launch__", 8) == 0) {
        fmt(p, left, "'%s' is a launch attribute, not a counter metric: gpulab stores "
            "registers, shared memory and occupancy from the CUDA runtime", name);
        return;
    }
    if (is_known) {
        fmt(p, left, "metric '%s' cannot be collected by the range profiler on %s (%s)", name,
            g.chip, cupti_str((CUptiResult)rc));
        return;
    }
    const char *near[SUGGESTIONS];
    int nn = known ? gl_metric_suggest(name, known, l->n, near, SUGGESTIONS) : 0;
    if (nn == 0) {
        fmt(p, left, "unknown metric '%s' on %s", name, g.chip);
        return;
    }
    fmt(p, left, "unknown metric '%s' on %s (nearest: %s%s%s%s%s)", name, g.chip, near[0],
        nn > 1 ? ", " : "", nn > 1 ? near[1] : "", nn > 2 ? ", " : "", nn > 2 ? near[2] : "");
}

/* ---- set-up ------------------------------------------------------------------- */

static int add_name(const char *name, int stored)
{
    for (int i = 0; i < g.n; i++)
        if (strcmp(g.names[i], name) == 0) {
            g.stored[i] |= stored;
            return 0;
        }
    if (g.n >= GL_MAX_METRICS)
        return -1;
    fmt(g.names[g.n], sizeof g.names[g.n], "%s", name);
    g.ptrs[g.n] = g.names[g.n];
    g.stored[g.n] = stored;
    g.n++;
    return 0;
}

/* Add every name to a scratch host object one by one, to say which ones CUPTI
 * refuses. A refused name leaves the host object refusing every later one (seen
 * with CUPTI 13.0), so after a refusal the object is made again with the names
 * accepted so far. The configuration itself is built elsewhere with all names
 * in one call (fewer passes). 0, -1 (no host object) or -2 with err naming each
 * refused name. */
static int validate_names(char *err, size_t errlen)
{
    int bad[GL_MAX_METRICS], badrc[GL_MAX_METRICS], nbad = 0;
    int good[GL_MAX_METRICS], ngood = 0;
    glh_host *h = NULL;
    int rc = glh_create(g.chip, g.avail, &h);
    for (int i = 0; rc == 0 && i < g.n; i++) {
        int arc = glh_add_metric(h, g.names[i]);
        if (arc == 0) {
            good[ngood++] = i;
            continue;
        }
        bad[nbad] = i;
        badrc[nbad++] = arc;
        glh_destroy(h);
        h = NULL;
        rc = glh_create(g.chip, g.avail, &h);
        for (int j = 0; rc == 0 && j < ngood; j++)
            rc = glh_add_metric(h, g.names[good[j]]);
    }
    glh_destroy(h);
    if (rc != 0) {
        fmt(err, errlen, "CUPTI profiler host unavailable (%s)", cupti_str((CUptiResult)rc));
        return -1;
    }
    if (nbad == 0)
        return 0;
    struct name_list l;
    memset(&l, 0, sizeof l);
    char lerr[GL_REASON_MAX] = "";
    const char **known = NULL;
    if (each_name(collect, &l, lerr, sizeof lerr) == 0 && !l.oom && l.n > 0) {
        known = malloc((size_t)l.n * sizeof *known);
        for (int i = 0; known && i < l.n; i++)
            known[i] = l.buf + l.off[i];
    }
    if (errlen)
        err[0] = '\0';
    for (int i = 0; i < nbad; i++)
        explain_bad_name(g.names[bad[i]], badrc[i], &l, known, err, errlen);
    free(known);
    free(l.buf);
    free(l.off);
    return -2;
}

/* Metrics that get a pass of their own. gpu__time_duration measured in the
 * same range as many other counters comes out ~9 us long (H100, CUPTI 13.0:
 * programming the other counters at the range boundaries is timed too); alone in
 * its pass it matches Nsight Compute to ~1.5 us, and such a pass costs little
 * more than the run itself. */
static int isolated(const char *name)
{
    return strncmp(name, "gpu__time_duration.", 19) == 0;
}

/* Configure h with every metric: the others in ONE call (CUPTI packs the
 * counters of one call into as few passes as it can: the GH100 default set needs
 * 2 passes this way, 9 when added one by one), then each isolated one alone. */
static int add_all(glh_host *h)
{
    const char *rest[GL_MAX_METRICS];
    int nrest = 0, rc = 0;
    for (int i = 0; i < g.n; i++)
        if (!isolated(g.names[i]))
            rest[nrest++] = g.names[i];
    if (nrest > 0)
        rc = glh_add_metrics(h, rest, (size_t)nrest);
    for (int i = 0; rc == 0 && i < g.n; i++)
        if (isolated(g.names[i]))
            rc = glh_add_metrics(h, &g.ptrs[i], 1);
    return rc;
}

int glc_setup(const struct gl_metric_req *req, char *err, size_t errlen)
{
    drop_config();
    if (errlen)
        err[0] = '\0';
    if (!req || (req->n <= 0 && !req->drain)) {
        fmt(g.notready, sizeof g.notready, "no metrics requested (metrics = none)");
        return 0;
    }
    if (ensure_init() != 0) {
        fmt(err, errlen, "%s", g.why);
        fmt(g.notready, sizeof g.notready, "%s", g.why);
        return -1;
    }
    int n = req->n < GL_MAX_METRICS ? req->n : GL_MAX_METRICS;
    for (int i = 0; i < n; i++)
        if (strncmp(req->names[i], "gpulab__", 8) != 0)
            (void)add_name(req->names[i], 1);
    g.drain = req->drain != 0;
    if (g.drain && add_name(GL_METRIC_DRAM_WRITE, 0) != 0) {
        fmt(err, errlen, "too many metrics (at most %d with the drain)", GL_MAX_METRICS);
        drop_config();
        return -2;
    }
    if (g.n == 0) {
        fmt(g.notready, sizeof g.notready, "no metrics requested");
        return 0;
    }
    int rc = validate_names(err, errlen);
    if (rc == -1)
        goto fail;
    if (rc != 0) {
        fmt(g.notready, sizeof g.notready, "metric configuration refused");
        drop_config();
        return -2;
    }
    rc = glh_create(g.chip, g.avail, &g.host);
    if (rc == 0)
        rc = add_all(g.host);
    if (rc != 0) {
        fmt(err, errlen, "CUPTI refused the metric set as a whole (%s)",
            cupti_str((CUptiResult)rc));
        goto fail;
    }
    /* a fresh range profiler object per configuration (see the top comment) */
    if (g.configs_made++ > 0) {
        CUptiResult er = reenable();
        if (er != CUPTI_SUCCESS) {
            fmt(err, errlen, "cannot re-enable the range profiler (%s)", cupti_str(er));
            goto fail;
        }
    }
    rc = glh_config_image(g.host, &g.config, &g.config_size);
    if (rc == 0)
        rc = glh_num_passes(g.config, g.config_size, &g.passes);
    if (rc != 0 || g.passes == 0) {
        fmt(err, errlen, "cannot build the counter configuration (%s)",
            rc ? cupti_str((CUptiResult)rc) : "0 passes");
        goto fail;
    }
    CUpti_RangeProfiler_GetCounterDataSize_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = g.rp;
    sp.pMetricNames = g.ptrs;
    sp.numMetrics = (size_t)g.n;
    sp.maxNumOfRanges = g.drain ? 2 : 1;
    sp.maxNumRangeTreeNodes = (uint32_t)sp.maxNumOfRanges;
    CUptiResult cr = cuptiRangeProfilerGetCounterDataSize(&sp);
    if (cr != CUPTI_SUCCESS) {
        fmt(err, errlen, "cannot size the counter data (cuptiRangeProfilerGetCounterDataSize: %s)",
            cupti_str(cr));
        goto fail;
    }
    g.counter_size = sp.counterDataSize;
    g.counter_data = malloc(g.counter_size ? g.counter_size : 1);
    if (!g.counter_data) {
        fmt(err, errlen, "out of memory for the counter data (%zu bytes)", g.counter_size);
        goto fail;
    }
    g.configured = 1;
    g.notready[0] = '\0';
    return (int)g.passes;
fail:
    fmt(g.notready, sizeof g.notready, "%s", err && errlen ? err : "profiler set-up failed");
    drop_config();
    return -1;
}

/* ---- profiling one run ---------------------------------------------------------- */

static int rp_call(CUptiResult rc, const char *call, struct gl_result *r)
{
    if (rc == CUPTI_SUCCESS)
        return 1;
    if (!unavailable_reason(rc, call, r->metrics_reason, sizeof r->metrics_reason))
        fmt(r->metrics_reason, sizeof r->metrics_reason, "%s failed: %s", call, cupti_str(rc));
    return 0;
}

static int push(const char *name, struct gl_result *r)
{
    CUpti_RangeProfiler_PushRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    p.pRangeName = name;
    return rp_call(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange", r);
}

static int pop(struct gl_result *r)
{
    CUpti_RangeProfiler_PopRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    return rp_call(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange", r);
}

static void stop_quietly(void)
{
    CUpti_RangeProfiler_Stop_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    (void)cuptiRangeProfilerStop(&p);
}

/* One pass: flush, [run], and with the drain [flush]. Sets *all when CUPTI has
 * every pass it needs. */
static int one_pass(const struct glc_replay *rp, struct gl_result *r, int *all)
{
    CUpti_RangeProfiler_Start_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerStart(&sp), "cuptiRangeProfilerStart", r))
        return 0;
    /* inside Start/Stop but outside any range: whatever Start left in L2 goes too */
    rp->flush(rp->ctx);
    if (!push(RANGE_RUN, r)) {
        stop_quietly();
        return 0;
    }
    rp->run(rp->ctx);
    int ok = pop(r);
    if (ok && g.drain) {
        ok = push(RANGE_DRAIN, r);
        if (ok) {
            rp->flush(rp->ctx);
            ok = pop(r);
        }
    }
    if (!ok) {
        stop_quietly();
        return 0;
    }
    CUpti_RangeProfiler_Stop_Params tp;
    memset(&tp, 0, sizeof tp);
    tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    tp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerStop(&tp), "cuptiRangeProfilerStop", r))
        return 0;
    *all = tp.isAllPassSubmitted != 0;
    return 1;
}

static int collect_passes(const struct glc_replay *rp, struct gl_result *r, int *passes)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = g.rp;
    ip.counterDataSize = g.counter_size;
    ip.pCounterData = g.counter_data;
    if (!rp_call(cuptiRangeProfilerCounterDataImageInitialize(&ip),
                 "cuptiRangeProfilerCounterDataImageInitialize", r))
        return 0;
    CUpti_RangeProfiler_SetConfig_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    cp.pRangeProfilerObject = g.rp;
    cp.configSize = g.config_size;
    cp.pConfig = g.config;
    cp.counterDataImageSize = g.counter_size;
    cp.pCounterDataImage = g.counter_data;
    cp.range = CUPTI_UserRange;
    cp.replayMode = CUPTI_UserReplay;
    cp.maxRangesPerPass = g.drain ? 2 : 1;
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    if (!rp_call(cuptiRangeProfilerSetConfig(&cp), "cuptiRangeProfilerSetConfig", r))
        return 0;
    /* nothing of the timing phase may still run inside the first range */
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        fmt(r->metrics_reason, sizeof r->metrics_reason, "CUDA error before profiling: %s",
            cudaGetErrorName(ce));
        return 0;
    }
    int all = 0, n = 0;
    while (!all) {
        if (n > (int)g.passes) {
            fmt(r->metrics_reason, sizeof r->metrics_reason,
                "CUPTI asked for more than the %zu passes it announced", g.passes);
            return 0;
        }
        if (!one_pass(rp, r, &all))
            return 0;
        n++;
    }
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData", r))
        return 0;
    if (dp.numOfRangeDropped > 0) {
        fmt(r->metrics_reason, sizeof r->metrics_reason, "CUPTI dropped %zu range(s)",
            dp.numOfRangeDropped);
        return 0;
    }
    *passes = n;
    return 1;
}

/* Index of the range named name in the decoded counter data, or -1. */
static long find_range(const char *name, size_t nranges)
{
    for (size_t i = 0; i < nranges; i++) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
        p.pCounterDataImage = g.counter_data;
        p.counterDataImageSize = g.counter_size;
        p.rangeIndex = i;
        p.rangeDelimiter = "/";
        if (cuptiRangeProfilerCounterDataGetRangeInfo(&p) == CUPTI_SUCCESS && p.rangeName &&
            strcmp(p.rangeName, name) == 0)
            return (long)i;
    }
    return -1;
}

static int evaluate(struct gl_result *r)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = g.counter_data;
    ip.counterDataImageSize = g.counter_size;
    if (!rp_call(cuptiRangeProfilerGetCounterDataInfo(&ip), "cuptiRangeProfilerGetCounterDataInfo",
                 r))
        return 0;
    long run = find_range(RANGE_RUN, ip.numTotalRanges);
    long drain = g.drain ? find_range(RANGE_DRAIN, ip.numTotalRanges) : -1;
    if (run < 0 || (g.drain && drain < 0)) {
        fmt(r->metrics_reason, sizeof r->metrics_reason,
            "profiled ranges missing (%zu range(s) decoded): did the run launch any kernel?",
            ip.numTotalRanges);
        return 0;
    }
    double v[GL_MAX_METRICS];
    int rc = glh_evaluate(g.host, g.counter_data, g.counter_size, (size_t)run, g.ptrs,
                          (size_t)g.n, v);
    if (rc != 0) {
        fmt(r->metrics_reason, sizeof r->metrics_reason,
            "cuptiProfilerHostEvaluateToGpuValues failed: %s", cupti_str((CUptiResult)rc));
        return 0;
    }
    double dv = NAN;
    if (g.drain) {
        const char *dw = GL_METRIC_DRAM_WRITE;
        rc = glh_evaluate(g.host, g.counter_data, g.counter_size, (size_t)drain, &dw, 1, &dv);
        if (rc != 0) {
            fmt(r->metrics_reason, sizeof r->metrics_reason,
                "cuptiProfilerHostEvaluateToGpuValues (drain) failed: %s",
                cupti_str((CUptiResult)rc));
            return 0;
        }
    }
    int k = 0;
    for (int i = 0; i < g.n && k < GL_MAX_METRICS; i++) {
        if (!g.stored[i] || !isfinite(v[i]))
            continue;   /* not measured: absent, never 0 */
        struct gl_metric *m = &r->metrics[k++];
        fmt(m->name, sizeof m->name, "%s", g.names[i]);
        fmt(m->unit, sizeof m->unit, "%s", gl_metric_unit(g.names[i]));
        m->value = v[i];
    }
    if (g.drain && isfinite(dv) && k < GL_MAX_METRICS) {
        struct gl_metric *m = &r->metrics[k++];
        fmt(m->name, sizeof m->name, "%s", GL_METRIC_DRAIN);
        fmt(m->unit, sizeof m->unit, "%s", gl_metric_unit(GL_METRIC_DRAIN));
        m->value = dv;
    }
    r->nmetrics = k;
    return 1;
}

int glc_profile(const struct glc_replay *rp, struct gl_result *r)
{
    r->passes = 0;
    r->nmetrics = 0;
    r->metrics_reason[0] = '\0';
    if (!g.configured) {
        fmt(r->metrics_reason, sizeof r->metrics_reason, "%s",
            g.notready[0] ? g.notready : "profiler not set up");
        return -1;
    }
    if (!rp || !rp->run || !rp->flush) {
        fmt(r->metrics_reason, sizeof r->metrics_reason, "internal: incomplete replay callbacks");
        return -1;
    }
    if (g.broken) {
        CUptiResult rc = reenable();
        if (rc != CUPTI_SUCCESS) {
            fmt(r->metrics_reason, sizeof r->metrics_reason,
                "cannot re-enable the range profiler after an earlier failure: %s",
                cupti_str(rc));
            return -1;
        }
        g.broken = 0;
    }
    int passes = 0;
    if (!collect_passes(rp, r, &passes)) {
        g.broken = 1;
        return -1;
    }
    if (!evaluate(r)) {
        r->nmetrics = 0;
        return -1;
    }
    r->passes = passes;
    return 0;
}

/* ---- listing and shutdown --------------------------------------------------------- */

int glc_list(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen)
{
    if (!cb) {
        fmt(err, errlen, "internal: no callback");
        return -1;
    }
    (void)ensure_init();   /* the chip is all a listing needs */
    if (!g.chip[0]) {
        fmt(err, errlen, "%s", g.unavailable ? g.why : "GPU chip unknown");
        return -1;
    }
    return each_name(cb, ctx, err, errlen);
}

void glc_shutdown(void)
{
    drop_config();
    if (g.rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = g.rp;
        (void)cuptiRangeProfilerDisable(&dp);
    }
    if (g.cupti_init) {
        CUpti_Profiler_DeInitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        (void)cuptiProfilerDeInitialize(&dp);
    }
    free(g.avail);
    memset(&g, 0, sizeof g);
}

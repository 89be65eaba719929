/* gpu_profiler.c - the CUPTI measurement engine (cupti/profiler.h): hardware
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
 *   replay flush evicts them too (gpu_harness.cu), or L2 hit rates of 5-10 us
 *   kernels come out 2-3 pt above ncu's. CUPTI 13.4 adds a cache-control mode to
 *   cuptiRangeProfilerEnable; 13.0 has none.
 * - One range profiler object per configuration (re-enabled on each glc_setup):
 *   reusing one across configurations crashed in cuptiRangeProfilerStart; one
 *   that ran an auto-range session refuses user ranges, so a mode change takes
 *   a fresh object too - and every fresh object needs its counter-data size
 *   asked again (size_counter_data), or Start crashes.
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
#include <time.h>

#define RANGE_RUN "gpulab_run"
#define RANGE_DRAIN "gpulab_drain"
#define RANGES_MISSING "profiled ranges missing"   /* a run's reason; retry_missing looks for it */
#define SUGGESTIONS 3
/* Range modes. AUTO: one range per kernel; a session of n runs is flush, run 1,
 * flush, run 2, ..., run n, flush: 2n + 1 ranges, run i at 2i + 1, and the flush
 * after it (its drain, and the next run's cold L2) at 2i + 2. USER: ranges named
 * gpulab_run_<i> and gpulab_drain_<i> around each run's launches and the flush
 * after them. */
enum { MODE_USER = 0, MODE_AUTO = 1 };
#define MAX_RANGES (2 * GLC_BATCH_MAX + 1)

/* Where profiling time goes, summed over a worker's life and printed to stderr
 * at shutdown when GPULAB_CUPTI_TRACE is set (for bench/ and for users asking
 * why profiling is slow). */
enum { T_REENABLE, T_SETCONFIG, T_CTRINIT, T_SYNC, T_START, T_FLUSH, T_RUN, T_RANGE, T_STOP,
       T_DECODE, T_EVAL, T_TOTAL, T_N };
static const char *const trace_name[T_N] = { "re-enable", "setconfig", "counterdata init",
    "sync", "start", "flush", "run", "push/pop", "stop", "decode", "evaluate", "total" };
static struct {
    int on;
    long profiles, passes, sessions;
    double sum[T_N];
} trace;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Add the time since *t0 to phase k and restart the clock. */
static void lap(int k, double *t0)
{
    if (!trace.on)
        return;
    double t = now_s();
    trace.sum[k] += t - *t0;
    *t0 = t;
}

static void trace_print(void)
{
    if (!trace.on || trace.profiles == 0)
        return;
    fprintf(stderr, "gpulab cupti trace: %ld profiled runs in %ld sessions, %.2f passes/run; "
            "ms per run:", trace.profiles, trace.sessions,
            (double)trace.passes / (double)trace.profiles);
    for (int k = 0; k < T_N; k++)
        fprintf(stderr, "%s %s %.3f", k ? "," : "", trace_name[k],
                trace.sum[k] * 1e3 / (double)trace.profiles);
    fprintf(stderr, "\n");
}

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
    /* the current configuration (glc_setup): one per range mode, see MODE_* */
    int configured;
    char notready[GL_REASON_MAX];   /* why glc_profile_batch cannot run */
    struct mode_config {
        glh_host *host;        /* built the image; evaluates its counter data */
        uint8_t *config;
        size_t config_size;
        size_t passes;
    } mode[2];
    int last_mode;             /* mode of the last session on g.rp: -1 none yet */
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
    for (int m = 0; m < 2; m++) {
        glh_destroy(g.mode[m].host);
        free(g.mode[m].config);
        memset(&g.mode[m], 0, sizeof g.mode[m]);
    }
    free(g.counter_data);
    g.counter_data = NULL;
    g.counter_size = 0;
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
    for (int i = 0; i < g.n; i++)
        if (!isolate || !isolated(g.names[i]))
            rest[nrest++] = g.names[i];
    if (nrest > 0)
        rc = glh_add_metrics(h, rest, (size_t)nrest);
    for (int i = 0; isolate && rc == 0 && i < g.n; i++)
        if (isolated(g.names[i]))
            rc = glh_add_metrics(h, &g.ptrs[i], 1);
    return rc;
}

/* Host object, configuration image and pass count of one mode. 0 or -1 + err. */
static int build_mode(int m, char *err, size_t errlen)
{
    struct mode_config *c = &g.mode[m];
    int rc = glh_create(g.chip, g.avail, &c->host);
    if (rc == 0)
        rc = add_all(c->host, m == MODE_USER);
    if (rc != 0) {
        fmt(err, errlen, "CUPTI refused the metric set as a whole (%s)",
            cupti_str((CUptiResult)rc));
        return -1;
    }
    rc = glh_config_image(c->host, &c->config, &c->config_size);
    if (rc == 0)
        rc = glh_num_passes(c->config, c->config_size, &c->passes);
    if (rc != 0 || c->passes == 0) {
        fmt(err, errlen, "cannot build the counter configuration (%s)",
            rc ? cupti_str((CUptiResult)rc) : "0 passes");
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
    sp.pRangeProfilerObject = g.rp;
    sp.pMetricNames = g.ptrs;
    sp.numMetrics = (size_t)g.n;
    sp.maxNumOfRanges = MAX_RANGES;
    sp.maxNumRangeTreeNodes = MAX_RANGES;
    CUptiResult cr = cuptiRangeProfilerGetCounterDataSize(&sp);
    if (cr != CUPTI_SUCCESS) {
        fmt(err, errlen, "cannot size the counter data (cuptiRangeProfilerGetCounterDataSize: %s)",
            cupti_str(cr));
        return -1;
    }
    if (g.counter_data && sp.counterDataSize == g.counter_size)
        return 0;
    free(g.counter_data);
    g.counter_size = sp.counterDataSize;
    g.counter_data = malloc(g.counter_size ? g.counter_size : 1);
    if (!g.counter_data) {
        fmt(err, errlen, "out of memory for the counter data (%zu bytes)", g.counter_size);
        g.counter_size = 0;
        return -1;
    }
    return 0;
}

/* A fresh range profiler object for the current configuration (after a failure,
 * or to change the range mode). 0, or -1 + err. */
static int fresh_object(char *err, size_t errlen)
{
    CUptiResult rc = reenable();
    if (rc != CUPTI_SUCCESS) {
        fmt(err, errlen, "cannot re-enable the range profiler (%s)", cupti_str(rc));
        return -1;
    }
    g.last_mode = -1;
    return size_counter_data(err, errlen);
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
    const char *ev = getenv("GPULAB_CUPTI_TRACE");
    trace.on = ev && *ev && strcmp(ev, "0") != 0;
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
    if (build_mode(MODE_AUTO, err, errlen) != 0 || build_mode(MODE_USER, err, errlen) != 0)
        goto fail;
    /* a fresh range profiler object per configuration (see the top comment) */
    if (g.configs_made++ > 0) {
        CUptiResult er = reenable();
        if (er != CUPTI_SUCCESS) {
            fmt(err, errlen, "cannot re-enable the range profiler (%s)", cupti_str(er));
            goto fail;
        }
    }
    g.last_mode = -1;
    if (size_counter_data(err, errlen) != 0)
        goto fail;
    g.configured = 1;
    g.notready[0] = '\0';
    return (int)g.mode[MODE_AUTO].passes;
fail:
    fmt(g.notready, sizeof g.notready, "%s", err && errlen ? err : "profiler set-up failed");
    drop_config();
    return -1;
}

/* ---- profiling a batch of runs -------------------------------------------------- */

static void reason_all(struct gl_result *const *r, int n, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static void reason_all(struct gl_result *const *r, int n, const char *f, ...)
{
    char buf[GL_REASON_MAX];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    for (int i = 0; i < n; i++) {
        r[i]->nmetrics = 0;
        r[i]->passes = 0;
        fmt(r[i]->metrics_reason, sizeof r[i]->metrics_reason, "%s", buf);
    }
}

/* A failed CUPTI call: its reason into every run of the session. 1 = success. */
static int rp_call(CUptiResult rc, const char *call, struct gl_result *const *r, int n)
{
    if (rc == CUPTI_SUCCESS)
        return 1;
    char buf[GL_REASON_MAX];
    if (!unavailable_reason(rc, call, buf, sizeof buf))
        fmt(buf, sizeof buf, "%s failed: %s", call, cupti_str(rc));
    reason_all(r, n, "%s", buf);
    return 0;
}

static CUptiResult push(const char *name)
{
    CUpti_RangeProfiler_PushRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    p.pRangeName = name;
    return cuptiRangeProfilerPushRange(&p);
}

static CUptiResult pop(void)
{
    CUpti_RangeProfiler_PopRange_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    return cuptiRangeProfilerPopRange(&p);
}

static void stop_quietly(void)
{
    CUpti_RangeProfiler_Stop_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = g.rp;
    (void)cuptiRangeProfilerStop(&p);
}

/* "<prefix>_<i>": the user range of run i (RANGE_RUN) or of its drain (RANGE_DRAIN). */
static void range_name(char *buf, size_t len, const char *prefix, int i)
{
    fmt(buf, len, "%s_%d", prefix, i);
}

/* One pass over every run of the session (see MODE_*). Sets *all when CUPTI has
 * every pass it needs. Every flush is called with the run it prepares (its ctx
 * names the buffers to keep mapped, gpu_harness.cu); the flush after the last
 * run, with the last run. */
static int one_pass(const struct glc_replay *const *rp, int n, int m, struct gl_result *const *r,
                    int *all)
{
    double t0 = trace.on ? now_s() : 0.0;
    CUpti_RangeProfiler_Start_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerStart(&sp), "cuptiRangeProfilerStart", r, n))
        return 0;
    lap(T_START, &t0);
    /* inside Start/Stop: whatever Start left in L2 goes too */
    rp[0]->flush(rp[0]->ctx);
    lap(T_FLUSH, &t0);
    CUptiResult rc = CUPTI_SUCCESS;
    const char *call = "";
    char name[64];
    for (int i = 0; i < n && rc == CUPTI_SUCCESS; i++) {
        const struct glc_replay *next = rp[i + 1 < n ? i + 1 : i];
        if (m == MODE_AUTO) {
            rp[i]->run(rp[i]->ctx);
            lap(T_RUN, &t0);
            next->flush(next->ctx);
            lap(T_FLUSH, &t0);
            continue;
        }
        range_name(name, sizeof name, RANGE_RUN, i);
        call = "cuptiRangeProfilerPushRange";
        rc = push(name);
        lap(T_RANGE, &t0);
        if (rc != CUPTI_SUCCESS)
            break;
        rp[i]->run(rp[i]->ctx);
        lap(T_RUN, &t0);
        call = "cuptiRangeProfilerPopRange";
        rc = pop();
        lap(T_RANGE, &t0);
        if (rc != CUPTI_SUCCESS)
            break;
        if (g.drain) {
            range_name(name, sizeof name, RANGE_DRAIN, i);
            call = "cuptiRangeProfilerPushRange";
            rc = push(name);
            if (rc != CUPTI_SUCCESS)
                break;
            next->flush(next->ctx);
            call = "cuptiRangeProfilerPopRange";
            rc = pop();
            lap(T_RANGE, &t0);
        } else if (i + 1 < n) {
            next->flush(next->ctx);   /* the next run's cold L2, outside any range */
            lap(T_FLUSH, &t0);
        }
    }
    if (rc != CUPTI_SUCCESS) {
        stop_quietly();
        return rp_call(rc, call, r, n);
    }
    CUpti_RangeProfiler_Stop_Params tp;
    memset(&tp, 0, sizeof tp);
    tp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    tp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerStop(&tp), "cuptiRangeProfilerStop", r, n))
        return 0;
    lap(T_STOP, &t0);
    *all = tp.isAllPassSubmitted != 0;
    return 1;
}

/* Every pass of one session of n runs in mode m, decoded. Passes in *passes. */
static int collect_passes(const struct glc_replay *const *rp, int n, int m,
                          struct gl_result *const *r, int *passes)
{
    double t0 = trace.on ? now_s() : 0.0;
    /* A range profiler object that ran a session in one range mode refuses the
     * other one afterwards (PushRange: INVALID_PARAMETER after an auto-range
     * session, CUPTI 13.0): a fresh object when the mode changes. */
    if (g.last_mode >= 0 && g.last_mode != m) {
        char why[GL_REASON_MAX];
        if (fresh_object(why, sizeof why) != 0) {
            reason_all(r, n, "range mode change: %s", why);
            return 0;
        }
        lap(T_REENABLE, &t0);
    }
    g.last_mode = m;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ip.pRangeProfilerObject = g.rp;
    ip.counterDataSize = g.counter_size;
    ip.pCounterData = g.counter_data;
    if (!rp_call(cuptiRangeProfilerCounterDataImageInitialize(&ip),
                 "cuptiRangeProfilerCounterDataImageInitialize", r, n))
        return 0;
    lap(T_CTRINIT, &t0);
    const struct mode_config *c = &g.mode[m];
    CUpti_RangeProfiler_SetConfig_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    cp.pRangeProfilerObject = g.rp;
    cp.configSize = c->config_size;
    cp.pConfig = c->config;
    cp.counterDataImageSize = g.counter_size;
    cp.pCounterDataImage = g.counter_data;
    cp.range = m == MODE_AUTO ? CUPTI_AutoRange : CUPTI_UserRange;
    cp.replayMode = CUPTI_UserReplay;
    /* Always the most the counter data image is sized for, never the session's
     * own count: a session with more runs than the object's earlier user
     * sessions lost some runs' ranges (H100, CUPTI 13.0) when this was n. */
    cp.maxRangesPerPass = MAX_RANGES;
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    if (!rp_call(cuptiRangeProfilerSetConfig(&cp), "cuptiRangeProfilerSetConfig", r, n))
        return 0;
    lap(T_SETCONFIG, &t0);
    /* nothing of the timing phase may still run inside the first range */
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        reason_all(r, n, "CUDA error before profiling: %s", cudaGetErrorName(ce));
        return 0;
    }
    lap(T_SYNC, &t0);
    int all = 0, k = 0;
    while (!all) {
        if (k > (int)c->passes) {
            reason_all(r, n, "CUPTI asked for more than the %zu passes it announced", c->passes);
            return 0;
        }
        if (!one_pass(rp, n, m, r, &all))
            return 0;
        k++;
    }
    if (trace.on)
        t0 = now_s();
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = g.rp;
    if (!rp_call(cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData", r, n))
        return 0;
    lap(T_DECODE, &t0);
    if (dp.numOfRangeDropped > 0) {
        reason_all(r, n, "CUPTI dropped %zu range(s)", dp.numOfRangeDropped);
        return 0;
    }
    *passes = k;
    return 1;
}

/* i when name is "<prefix>_<i>" with 0 <= i < n, else -1. */
static int range_index(const char *name, const char *prefix, int n)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0 || name[lp] != '_' || name[lp + 1] == '\0')
        return -1;
    char *end;
    long i = strtol(name + lp + 1, &end, 10);
    return *end == '\0' && i >= 0 && i < n ? (int)i : -1;
}

/* Where each of n runs' user ranges (run[i], drain[i]) lies in the decoded
 * counter data: one walk over its nranges ranges, -1 where one is missing. */
static void user_ranges(size_t nranges, int n, long *run, long *drain)
{
    for (int i = 0; i < n; i++)
        run[i] = drain[i] = -1;
    for (size_t k = 0; k < nranges; k++) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
        p.pCounterDataImage = g.counter_data;
        p.counterDataImageSize = g.counter_size;
        p.rangeIndex = k;
        p.rangeDelimiter = "/";
        if (cuptiRangeProfilerCounterDataGetRangeInfo(&p) != CUPTI_SUCCESS || !p.rangeName)
            continue;
        int i = range_index(p.rangeName, RANGE_RUN, n);
        if (i >= 0)
            run[i] = (long)k;
        else if ((i = range_index(p.rangeName, RANGE_DRAIN, n)) >= 0)
            drain[i] = (long)k;
    }
}

/* Ranges decoded in the counter data, or -1 with every run's reason. */
static long count_ranges(struct gl_result *const *r, int n)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = g.counter_data;
    ip.counterDataImageSize = g.counter_size;
    if (!rp_call(cuptiRangeProfilerGetCounterDataInfo(&ip), "cuptiRangeProfilerGetCounterDataInfo",
                 r, n))
        return -1;
    return (long)ip.numTotalRanges;
}

/* Metrics of run i (range run, drain range drain or -1) into r. 1, or 0 with
 * r's reason. */
static int evaluate(int m, long run, long drain, struct gl_result *r, int passes)
{
    const struct mode_config *c = &g.mode[m];
    double v[GL_MAX_METRICS];
    int rc = glh_evaluate(c->host, g.counter_data, g.counter_size, (size_t)run, g.ptrs,
                          (size_t)g.n, v);
    if (rc != 0) {
        fmt(r->metrics_reason, sizeof r->metrics_reason,
            "cuptiProfilerHostEvaluateToGpuValues failed: %s", cupti_str((CUptiResult)rc));
        return 0;
    }
    double dv = NAN;
    if (g.drain) {
        const char *dw = GL_METRIC_DRAM_WRITE;
        rc = glh_evaluate(c->host, g.counter_data, g.counter_size, (size_t)drain, &dw, 1, &dv);
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
        struct gl_metric *mt = &r->metrics[k++];
        fmt(mt->name, sizeof mt->name, "%s", g.names[i]);
        fmt(mt->unit, sizeof mt->unit, "%s", gl_metric_unit(g.names[i]));
        mt->value = v[i];
    }
    if (g.drain && isfinite(dv) && k < GL_MAX_METRICS) {
        struct gl_metric *mt = &r->metrics[k++];
        fmt(mt->name, sizeof mt->name, "%s", GL_METRIC_DRAIN);
        fmt(mt->unit, sizeof mt->unit, "%s", gl_metric_unit(GL_METRIC_DRAIN));
        mt->value = dv;
    }
    r->nmetrics = k;
    r->passes = passes;
    return 1;
}

/* One session: every run of rp[0..n) in mode m. 1 when it ran (each run then
 * has its metrics or its own reason), 0 when the session failed (reasons set). */
static int session(const struct glc_replay *const *rp, int n, int m, struct gl_result *const *r)
{
    double t0 = trace.on ? now_s() : 0.0, tall = t0;
    double start0 = trace.sum[T_START], stop0 = trace.sum[T_STOP], total0 = trace.sum[T_TOTAL];
    int passes = 0;
    if (!collect_passes(rp, n, m, r, &passes)) {
        g.broken = 1;
        return 0;
    }
    if (trace.on)
        t0 = now_s();
    long nr = count_ranges(r, n);
    if (nr < 0)
        return 0;
    if (m == MODE_AUTO && nr != 2L * n + 1) {
        reason_all(r, n, "%ld kernel ranges decoded where %d runs of one kernel and their "
                   "flushes make %d: did a run launch more or fewer kernels?", nr, n, 2 * n + 1);
        return 0;
    }
    long urun[GLC_BATCH_MAX], udrain[GLC_BATCH_MAX];
    if (m == MODE_USER)
        user_ranges((size_t)nr, n, urun, udrain);
    for (int i = 0; i < n; i++) {
        long run, drain = -1;
        if (m == MODE_AUTO) {
            run = 2L * i + 1;
            drain = g.drain ? 2L * i + 2 : -1;
        } else {
            run = urun[i];
            drain = g.drain ? udrain[i] : -1;
            if (run < 0 || (g.drain && drain < 0)) {
                fmt(r[i]->metrics_reason, sizeof r[i]->metrics_reason,
                    RANGES_MISSING " (%ld range(s) decoded): did the run launch any kernel?", nr);
                continue;
            }
        }
        if (!evaluate(m, run, drain, r[i], passes)) {
            r[i]->nmetrics = 0;
            r[i]->passes = 0;
        }
    }
    lap(T_EVAL, &t0);
    lap(T_TOTAL, &tall);
    if (trace.on) {
        fprintf(stderr, "gpulab cupti session: %s ranges, %d run(s), %d pass(es), counter data "
                "%zu B: start %.2f ms, stop %.2f ms, whole %.2f ms\n",
                m == MODE_AUTO ? "auto" : "user", n, passes, g.counter_size,
                (trace.sum[T_START] - start0) * 1e3, (trace.sum[T_STOP] - stop0) * 1e3,
                (trace.sum[T_TOTAL] - total0) * 1e3);
        trace.sessions++;
        trace.profiles += n;
        trace.passes += (long)passes * n;
    }
    return 1;
}

/* A user-range session that decoded some runs' ranges but not the others': the
 * runs without ranges once more, on a fresh object; their reasons stay if that
 * fails too. Seen on the H100 (CUPTI 13.0) in a session with more runs than the
 * object's earlier user sessions while maxRangesPerPass was the session's own
 * count: test_plugin's growing session then lost 3 of 5 runs' ranges and this
 * retry recovered them; with MAX_RANGES it loses none and the retry does not
 * run (bench/results/2026-11-23-h100-test_plugin_ranges.log). Kept as a net. */
static void retry_missing(const struct glc_replay *const *rp, struct gl_result *const *r, int n)
{
    const struct glc_replay *again[GLC_BATCH_MAX];
    struct gl_result *ra[GLC_BATCH_MAX];
    int k = 0, got = 0;
    for (int i = 0; i < n; i++) {
        if (r[i]->nmetrics > 0)
            got++;
        else if (strncmp(r[i]->metrics_reason, RANGES_MISSING, strlen(RANGES_MISSING)) == 0) {
            again[k] = rp[i];
            ra[k++] = r[i];
        }
    }
    if (k == 0 || got == 0)
        return;
    char why[GL_REASON_MAX];
    if (fresh_object(why, sizeof why) != 0) {
        g.broken = 1;
        return;
    }
    if (trace.on)
        fprintf(stderr, "gpulab cupti: %d of %d user-range runs had no ranges; again on a fresh "
                "object\n", k, n);
    for (int i = 0; i < k; i++)
        ra[i]->metrics_reason[0] = '\0';   /* set again if the retry fails too */
    (void)session(again, k, MODE_USER, ra);
}

int glc_profile_batch(const struct glc_replay *const *rp, struct gl_result *const *r, int n)
{
    if (n <= 0)
        return 0;
    for (int i = 0; i < n; i++) {
        r[i]->passes = 0;
        r[i]->nmetrics = 0;
        r[i]->metrics_reason[0] = '\0';
    }
    if (n > GLC_BATCH_MAX) {
        reason_all(r, n, "internal: %d runs in one profiling batch (at most %d)", n,
                   GLC_BATCH_MAX);
        return -1;
    }
    if (!g.configured) {
        reason_all(r, n, "%s", g.notready[0] ? g.notready : "profiler not set up");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!rp[i] || !rp[i]->run || !rp[i]->flush) {
            reason_all(r, n, "internal: incomplete replay callbacks");
            return -1;
        }
    if (g.broken) {
        char why[GL_REASON_MAX];
        if (fresh_object(why, sizeof why) != 0) {
            reason_all(r, n, "after an earlier failure: %s", why);
            return -1;
        }
        g.broken = 0;
    }
    /* runs of one kernel in one auto-range session, the others in one user-range
     * session; the current mode's session first (no re-enable between batches of
     * the same kind) */
    const struct glc_replay *grp[2][GLC_BATCH_MAX];
    struct gl_result *gr[2][GLC_BATCH_MAX];
    int cnt[2] = { 0, 0 };
    for (int i = 0; i < n; i++) {
        int m = rp[i]->single_kernel ? MODE_AUTO : MODE_USER;
        grp[m][cnt[m]] = rp[i];
        gr[m][cnt[m]++] = r[i];
    }
    int first = g.last_mode == MODE_USER ? MODE_USER : MODE_AUTO;
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        int m = k == 0 ? first : 1 - first;
        if (cnt[m] > 0 && !session(grp[m], cnt[m], m, gr[m]))
            ok = 0;
        else if (cnt[m] > 0 && m == MODE_USER)
            retry_missing(grp[m], gr[m], cnt[m]);
    }
    for (int i = 0; i < n; i++)
        if (r[i]->nmetrics == 0) {
            if (r[i]->metrics_reason[0] == '\0')
                fmt(r[i]->metrics_reason, sizeof r[i]->metrics_reason, "profiling failed");
            ok = 0;
        }
    return ok ? 0 : -1;
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
    trace_print();
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

/* profiler_state.c - the engine's life in a worker: CUPTI and the range
 * profiler brought up once per worker (ensure_init), re-enabled after a
 * failure, torn down at glc_shutdown (the SASS metrics' configuration first).
 * The state itself (glc_st), the trace and the error strings are
 * profiler_common.c's.
 * Must not configure metrics or run a collection session (profiler_setup.c,
 * profiler_passes.c). */
#include "profiler_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_unavailable(const char *f, ...) __attribute__((format(printf, 1, 2)));
static void set_unavailable(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(glc_st.why, sizeof glc_st.why, f, ap);
    va_end(ap);
    glc_st.unavailable = 1;
}

/* A failed CUPTI call during set-up: unavailable with a reason. */
static void init_failed(CUptiResult rc, const char *call)
{
    if (!glc_unavailable_reason(rc, call, glc_st.why, sizeof glc_st.why))
        glc_fmt(glc_st.why, sizeof glc_st.why, "CUPTI profiler unavailable (%s: %s)", call,
                glc_cupti_str(rc));
    glc_st.unavailable = 1;
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
    CUresult cr = get_current(&glc_st.ctx);
    if (cr != CUDA_SUCCESS || !glc_st.ctx) {
        set_unavailable("no current CUDA context (cuCtxGetCurrent returned %d)", (int)cr);
        return -1;
    }
    return 0;
}

/* Once per process (until glc_shutdown): context, CUPTI, chip, counter
 * availability, range profiler. 0, or -1 with glc_st.why. */
int glc_ensure_init(void)
{
    if (glc_st.init_tried)
        return glc_st.unavailable ? -1 : 0;
    glc_st.init_tried = 1;
    int dev = -1;
    cudaError_t ce = cudaGetDevice(&dev);
    glc_st.device = dev;
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
    glc_st.cupti_init = 1;
    CUpti_Device_GetChipName_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cp.deviceIndex = (size_t)dev;
    rc = cuptiDeviceGetChipName(&cp);
    if (rc != CUPTI_SUCCESS || !cp.pChipName) {
        init_failed(rc, "cuptiDeviceGetChipName");
        return -1;
    }
    glc_fmt(glc_st.chip, sizeof glc_st.chip, "%s", cp.pChipName);
    if (check_supported(dev) != 0)
        return -1;
    CUpti_Profiler_GetCounterAvailability_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ap.ctx = glc_st.ctx;
    rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerGetCounterAvailability");
        return -1;
    }
    glc_st.avail = malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
    if (!glc_st.avail) {
        set_unavailable("out of memory");
        return -1;
    }
    ap.pCounterAvailabilityImage = glc_st.avail;
    rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiProfilerGetCounterAvailability");
        return -1;
    }
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = glc_st.ctx;
    rc = cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS) {
        init_failed(rc, "cuptiRangeProfilerEnable");
        return -1;
    }
    glc_st.rp = ep.pRangeProfilerObject;
    glc_st.object_cfg = -1;   /* enabled, not yet sized for a configuration */
    return 0;
}

/* Disable and enable the range profiler again: a clean state after a failure. */
CUptiResult glc_reenable(void)
{
    if (glc_st.rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = glc_st.rp;
        (void)cuptiRangeProfilerDisable(&dp);
        glc_st.rp = NULL;
    }
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = glc_st.ctx;
    CUptiResult rc = cuptiRangeProfilerEnable(&ep);
    if (rc == CUPTI_SUCCESS)
        glc_st.rp = ep.pRangeProfilerObject;
    return rc;
}

/* The current configuration forgotten; its images stay in the cache
 * (profiler_setup.c) and the counter data with the object it is sized for. */
void glc_drop_config(void)
{
    for (int m = 0; m < 2; m++) {
        if (glc_st.mode_owned) {
            glh_destroy(glc_st.mode[m].host);
            free(glc_st.mode[m].config);
        }
        memset(&glc_st.mode[m], 0, sizeof glc_st.mode[m]);
    }
    glc_st.mode_owned = 0;
    glc_st.cur_cfg = -1;
    glc_st.n = 0;
    glc_st.drain = 0;
    glc_st.smem_want = 0;
    glc_st.configured = 0;
}

void glc_shutdown(void)
{
    glc_trace_print();
    glc_drop_config();
    glc_config_cache_free();
    free(glc_st.counter_data);
    glc_smem_shutdown();
    glc_count_shutdown();
    if (glc_st.rp) {
        CUpti_RangeProfiler_Disable_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dp.pRangeProfilerObject = glc_st.rp;
        (void)cuptiRangeProfilerDisable(&dp);
    }
    if (glc_st.cupti_init) {
        CUpti_Profiler_DeInitialize_Params dp;
        memset(&dp, 0, sizeof dp);
        dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        (void)cuptiProfilerDeInitialize(&dp);
    }
    free(glc_st.avail);
    memset(&glc_st, 0, sizeof glc_st);
}

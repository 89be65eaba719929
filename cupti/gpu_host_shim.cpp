/* gpu_host_shim.cpp - see host_shim.h: thin C wrappers over cupti_profiler_host.h.
 * The only C++ in gpulab, and only because that header includes <string>. Must
 * not grow logic: fill the parameter struct, make the call, return its result. */
#include "host_shim.h"

#include <cupti_profiler_host.h>

#include <cstdlib>
#include <cstring>

static CUpti_Profiler_Host_Object *obj(glh_host *h)
{
    return reinterpret_cast<CUpti_Profiler_Host_Object *>(h);
}

extern "C" int glh_create(const char *chip, const uint8_t *avail, glh_host **out)
{
    CUpti_Profiler_Host_Initialize_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    CUptiResult rc = cuptiProfilerHostInitialize(&p);
    *out = rc == CUPTI_SUCCESS ? reinterpret_cast<glh_host *>(p.pHostObject) : nullptr;
    return static_cast<int>(rc);
}

extern "C" void glh_destroy(glh_host *h)
{
    if (!h)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = obj(h);
    (void)cuptiProfilerHostDeinitialize(&p);
}

extern "C" int glh_add_metric(glh_host *h, const char *name)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = obj(h);
    p.ppMetricNames = &name;
    p.numMetrics = 1;
    return static_cast<int>(cuptiProfilerHostConfigAddMetrics(&p));
}

extern "C" int glh_add_metrics(glh_host *h, const char *const *names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = obj(h);
    p.ppMetricNames = const_cast<const char **>(names);
    p.numMetrics = n;
    return static_cast<int>(cuptiProfilerHostConfigAddMetrics(&p));
}

extern "C" int glh_config_image(glh_host *h, uint8_t **img, size_t *size)
{
    *img = nullptr;
    *size = 0;
    CUpti_Profiler_Host_GetConfigImageSize_Params s;
    std::memset(&s, 0, sizeof s);
    s.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    s.pHostObject = obj(h);
    CUptiResult rc = cuptiProfilerHostGetConfigImageSize(&s);
    if (rc != CUPTI_SUCCESS)
        return static_cast<int>(rc);
    uint8_t *buf = static_cast<uint8_t *>(std::malloc(s.configImageSize ? s.configImageSize : 1));
    if (!buf)
        return static_cast<int>(CUPTI_ERROR_OUT_OF_MEMORY);
    CUpti_Profiler_Host_GetConfigImage_Params g;
    std::memset(&g, 0, sizeof g);
    g.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    g.pHostObject = obj(h);
    g.configImageSize = s.configImageSize;
    g.pConfigImage = buf;
    rc = cuptiProfilerHostGetConfigImage(&g);
    if (rc != CUPTI_SUCCESS) {
        std::free(buf);
        return static_cast<int>(rc);
    }
    *img = buf;
    *size = s.configImageSize;
    return 0;
}

extern "C" int glh_num_passes(const uint8_t *img, size_t size, size_t *passes)
{
    CUpti_Profiler_Host_GetNumOfPasses_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    p.configImageSize = size;
    p.pConfigImage = const_cast<uint8_t *>(img);
    CUptiResult rc = cuptiProfilerHostGetNumOfPasses(&p);
    *passes = rc == CUPTI_SUCCESS ? p.numOfPasses : 0;
    return static_cast<int>(rc);
}

extern "C" int glh_evaluate(glh_host *h, const uint8_t *counter_data, size_t size, size_t range,
                            const char *const *names, size_t n, double *values)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params p;
    std::memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    p.pHostObject = obj(h);
    p.pCounterDataImage = counter_data;
    p.counterDataImageSize = size;
    p.rangeIndex = range;
    p.ppMetricNames = const_cast<const char **>(names);
    p.numMetrics = n;
    p.pMetricValues = values;
    return static_cast<int>(cuptiProfilerHostEvaluateToGpuValues(&p));
}

extern "C" int glh_each_metric(glh_host *h, void (*cb)(const char *base, const char *suffix, void *ctx),
                               void *ctx)
{
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; t++) {
        CUpti_Profiler_Host_GetBaseMetrics_Params b;
        std::memset(&b, 0, sizeof b);
        b.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
        b.pHostObject = obj(h);
        b.metricType = static_cast<CUpti_MetricType>(t);
        CUptiResult rc = cuptiProfilerHostGetBaseMetrics(&b);
        if (rc != CUPTI_SUCCESS)
            return static_cast<int>(rc);
        for (size_t i = 0; i < b.numMetrics; i++) {
            CUpti_Profiler_Host_GetSubMetrics_Params s;
            std::memset(&s, 0, sizeof s);
            s.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
            s.pHostObject = obj(h);
            s.metricType = static_cast<CUpti_MetricType>(t);
            s.pMetricName = b.ppMetricNames[i];
            rc = cuptiProfilerHostGetSubMetrics(&s);
            if (rc != CUPTI_SUCCESS)
                return static_cast<int>(rc);
            for (size_t j = 0; j < s.numOfSubmetrics; j++)
                cb(b.ppMetricNames[i], s.ppSubMetrics[j], ctx);
        }
    }
    return 0;
}

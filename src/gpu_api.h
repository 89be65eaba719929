/* gpu_api.h - the boundary between the C driver and the GPU plugin
 * (build/libgpulab_gpu.so: kernels, harness, CUPTI). The driver dlopens the plugin
 * in its worker process and calls through this table, so that a machine without
 * a CUDA driver still runs every CPU variant. Must not include CUDA headers. */
#ifndef GL_GPU_API_H
#define GL_GPU_API_H

#include "gpulab.h"

#define GL_GPU_ABI 3
#define GL_GPU_SYMBOL "gpulab_gpu_api"

/* The metrics to collect for each run of a sweep. */
struct gl_metric_req {
    int n;                                    /* 0 = no counters (metrics = none) */
    char names[GL_MAX_METRICS][GL_METRIC_NAME];
    int drain;  /* also measure gpulab__dram__bytes_write_drain.sum (output still dirty in L2) */
};

struct gl_gpu_api {
    int abi;  /* GL_GPU_ABI */
    /* Pick device `ordinal`, describe it (incl. measured copy bandwidth). 0 or -1 + err. */
    int (*init)(int ordinal, struct gl_device *dev, char *err, size_t errlen);
    /* 1 if the plugin implements family/variant. */
    int (*has_variant)(const char *family, const char *variant);
    /* Validate and configure counters for the sweep. Returns the number of passes
     * (>= 1), 0 if req->n == 0, -1 with err when counters are unavailable
     * (permission, chip), or -2 with err when a name is unknown to this GPU (err
     * names it and the nearest valid names). */
    int (*profiler_setup)(const struct gl_metric_req *req, char *err, size_t errlen);
    /* Run one variant: setup, warm-up, timed samples, verify, then (if setup
     * succeeded) one profiled replay per pass. Fills r. 0, or -1 if the CUDA
     * context is unusable afterwards (sticky error): the worker must exit. */
    int (*run)(const char *family, const char *variant, const struct gl_params *p,
               const struct gl_timing *t, struct gl_result *r);
    /* Between batch_begin and batch_end, run() leaves the runs it would profile
     * parked (r filled but for the metrics; r, p and t must stay valid), and
     * batch_end profiles them together - CUPTI's per-collection cost is paid once
     * per batch instead of once per run - and frees them. batch_end returns 0, or
     * -1 when the CUDA context is unusable (the worker must exit). */
    void (*batch_begin)(void);
    int (*batch_end)(void);
    /* Call cb for each counter metric name the GPU supports (gpulab metrics). */
    int (*list_metrics)(void (*cb)(const char *name, void *ctx), void *ctx,
                        char *err, size_t errlen);
    void (*shutdown)(void);
};

typedef const struct gl_gpu_api *(*gl_gpu_api_fn)(void);

#endif

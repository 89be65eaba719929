/* plugin.h - the versioned interface through which gpulab learns its variants.
 * Everything that can run is a variant declared once, in a plugin, next to its
 * kernel or baseline: the built-in CPU baselines (build/libgpulab_cpu.so), the
 * built-in GPU kernels (build/libgpulab_gpu.so) and, later, users' own. A plugin
 * exports one function, gpulab_plugin(), that returns a struct gl_plugin: its
 * variants and, for a device other than the host CPU, the device's operations.
 * The driver loads every plugin before it reads a config, so `list` and `plan`
 * know every variant (and call the same check as `run`) on a machine without a
 * GPU; a plugin must therefore load without a CUDA driver.
 * Must stay plain C (no CUDA types), and must not change the meaning of a field
 * without raising GL_PLUGIN_API (the loader refuses any other version). */
#ifndef GL_PLUGIN_H
#define GL_PLUGIN_H

#include <stddef.h>

#include "gpulab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_PLUGIN_API 1
#define GL_PLUGIN_SYMBOL "gpulab_plugin"

/* One variant: a kernel or a CPU baseline of a family, as the sweep sees it. */
struct gl_variant {
    const char *family;   /* matmul | stencil | vecadd | ... */
    const char *name;     /* unique within the family */
    const char *device;   /* "cpu" | "gpu" */
    const char *desc;     /* one line, shown by `gpulab list` */
    unsigned params;      /* GL_PBIT() of each parameter the variant reads */
    /* NULL when the run can be made, else why not (a static string or written
     * into buf): every constraint the run would hit, compile-time ones included
     * (the BS values a template was built for). dev is the GPU the run will
     * use, or NULL when none is known (then every CUDA GPU's static limits
     * apply). Pure: no device calls. NULL check = every point runs. */
    const char *(*check)(const struct gl_variant *v, const struct gl_params *p,
                         const struct gl_device *dev, char *buf, size_t len);
    /* analytic FLOP count; minimum bytes (each input read once, output written once) */
    double (*flops)(const struct gl_variant *v, const struct gl_params *p);
    double (*min_bytes)(const struct gl_variant *v, const struct gl_params *p);
    /* Run one job (in the worker process): set up, warm up, take samples as t
     * says, verify, profile; fill r. 0, or -1 when the device is unusable
     * afterwards (a sticky CUDA error: the worker exits). */
    int (*run)(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
               struct gl_result *r);
    const void *impl;     /* the plugin's own data for run (a launcher, a kernel) */
};

/* The metrics to collect for each run of a sweep. */
struct gl_metric_req {
    int n;                                    /* 0 = no counters (metrics = none) */
    char names[GL_MAX_METRICS][GL_METRIC_NAME];
    int drain;  /* also measure gpulab__dram__bytes_write_drain.sum (output still dirty in L2) */
};

struct gl_kernel_variant;   /* a user's kernel as a variant: kernel.h */

/* A device's operations, called in the worker process only (kernel_compile
 * also in the driver: it needs no device). */
struct gl_device_ops {
    /* Pick device `ordinal` and describe it (incl. measured copy bandwidth). 0, or -1 + err. */
    int (*init)(int ordinal, struct gl_device *dev, char *err, size_t errlen);
    /* Validate and configure counters for the runs that follow. Returns the
     * number of passes (>= 1), 0 if req->n == 0, -1 with err when counters are
     * unavailable (permission, chip), or -2 with err when a name is unknown to
     * this device (err names it and the nearest valid names). */
    int (*profiler_setup)(const struct gl_metric_req *req, char *err, size_t errlen);
    /* Between batch_begin and batch_end, a variant's run leaves the runs it
     * would profile parked (r filled but for the metrics; r, p and t must stay
     * valid), and batch_end profiles them together and frees them. batch_end
     * returns 0, or -1 when the device is unusable (the worker must exit). */
    void (*batch_begin)(void);
    int (*batch_end)(void);
    /* Call cb for each counter metric name the device supports. 0, or -1 + err. */
    int (*list_metrics)(void (*cb)(const char *name, void *ctx), void *ctx, char *err,
                        size_t errlen);
    void (*shutdown)(void);
    /* User kernels (kernel.h), NULL where the device has none. kernel_compile
     * compiles the variant's kernel at point p for compute capability arch
     * (90 = sm_90; 0 = the device's) into the kernel cache, without a device:
     * 1 when it was in the cache already, 0 when compiled now, or -1 with the
     * compiler's log in log (its lines name the source file and line).
     * kernel_run runs it as a variant's run does (in the worker, after init). */
    int (*kernel_compile)(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
                          char *log, size_t loglen);
    int (*kernel_run)(const struct gl_kernel_variant *kv, const struct gl_params *p,
                      const struct gl_timing *t, struct gl_result *r);
};

struct gl_plugin {
    int api;                            /* GL_PLUGIN_API */
    const char *name;                   /* "cpu", "gpu", or a user plugin's name */
    int nvariants;
    const struct gl_variant *variants;
    const struct gl_device_ops *device; /* NULL: the variants run on the host CPU */
};

typedef const struct gl_plugin *(*gl_plugin_fn)(void);

#ifdef __cplusplus
}
#endif

#endif

/* plugin.h - the public, versioned interface through which gpulab learns its
 * variants. Everything that can run is a variant declared once, in a plugin,
 * next to its kernel or baseline: the built-in CPU baselines
 * (build/libgpulab_cpu.so), the built-in GPU kernels (build/libgpulab_gpu.so)
 * and users' own (`gpulab run|plan|list --plugin lib.so`: for what one kernel
 * launch cannot express - several launches per run, a library call, a host-side
 * driver loop). A plugin exports one function, gpulab_plugin(host), that
 * returns a struct gl_plugin: its variants and, for a device other than the
 * host CPU, the device's operations. The driver loads every plugin before it
 * reads a config, so `list` and `plan` know every variant (and call the same
 * check as `run`) on a machine without a GPU; a plugin must therefore load
 * without a CUDA driver.
 *
 * A user's plugin includes this header only (compile with -I src/core) and
 * runs its variants through the host's harness (struct gl_host): buffers,
 * inputs from the seed, timing, verification against a float64 reference and,
 * on the GPU, resources, occupancy and the profiled replay, as for built-in
 * variants. tests/plugins/ has examples.
 *
 * Versions. GL_PLUGIN_API is the version of everything in this header but
 * struct gl_host: the loader refuses a plugin built for another one (rebuild
 * it). struct gl_host has its own version, gl_host.api (GL_HOST_API), like
 * SQLite's iVersion: fields are only ever appended, so a plugin may use the
 * fields of version v when host->api >= v. struct gl_result (gpulab.h) is only
 * ever allocated by gpulab and grows at its end (the phase times, the check
 * kind, the exact-conflict reason and the code path were appended): a plugin
 * writes through the pointer it is given, never makes or copies one, so one
 * built against an older header keeps working.
 * Must stay plain C (no CUDA types),
 * and must not change the meaning, order or size of a field without raising
 * GL_PLUGIN_API. */
#ifndef GL_PLUGIN_H
#define GL_PLUGIN_H

#include <stddef.h>

#include "gpulab.h"
#include "params.h"   /* GL_PBIT, GL_P_*: the parameters a variant reads */

#ifdef __cplusplus
extern "C" {
#endif

#define GL_PLUGIN_API 4          /* 2: gpulab_plugin() takes the host's functions;
                                    3: the copy bandwidth is its own device operation;
                                    4: kernel_compile_many (several kernels at once),
                                       the device count (run --gpus) and the memory
                                       levels' ceilings (gl_device_ops.count, .ceilings) */
#define GL_PLUGIN_SYMBOL "gpulab_plugin"
#define GL_HOST_API 1            /* struct gl_host's version (its fields are appended) */

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
 * also in the driver's compile child: it needs no device, but once NVRTC has
 * run in a process, a CUDA context cannot be made in its later forks; count in
 * a child of its own). */
struct gl_device_ops {
    /* Pick device `ordinal` and describe it, measuring nothing (copy_bw_gbs is
     * copy_bandwidth's). 0, or -1 + err. */
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
    /* Measure the device-to-device copy bandwidth (GB/s, bytes read + written),
     * 0 when it cannot be. A measurement: gpulab calls it only while it holds
     * the device's lock, never from init. NULL: not measured. */
    double (*copy_bandwidth)(void);
    /* kernel_compile for n variants at their points (kvs[i] at ps[i]), where
     * those that share a program (source, -D list, options, compiler) may be
     * compiled as one: res[i] gets 1 (cache), 0 (compiled now) or -1 (failed,
     * or not reached after a failure). Returns 0, -1 with the log of the first
     * variant (in order) that failed, -2 with the compiler's log when it
     * refused an option of the section's `options`, or -3 when a symbol of
     * the section does not match the compiled module's variables (kernel.h
     * gl_kbuffer.symbol), the log then "LINE: message". NULL: gpulab calls
     * kernel_compile for each. */
    int (*kernel_compile_many)(const struct gl_kernel_variant *const *kvs,
                               const struct gl_params *const *ps, int n, int arch, int *res,
                               char *log, size_t loglen);
    /* How many devices this process can see (CUDA_VISIBLE_DEVICES applied),
     * without making a context on any: 0 when there is none, -1 with err when
     * the driver is unusable. `run --gpus` calls it in a child process of its
     * own before it starts one worker per device (each worker then sees only
     * its device, as its ordinal 0). NULL: one device. */
    int (*count)(char *err, size_t errlen);
    /* Measure the bandwidth ceilings of the memory levels (struct gl_ceilings,
     * gpulab.h): 0 when every one was measured, 1 when some were not (c->why
     * says which and why; those fields are 0), -1 when the device is unusable
     * afterwards. Measurements: only under the device's lock, as copy_bandwidth.
     * NULL: none measured. */
    int (*ceilings)(struct gl_ceilings *c);
};

/* ---- the host's harness, for users' plugins ------------------------------- */

/* Element types of a buffer (and of a kernel section's scalar arguments).
 * Values are only ever appended. HALF is IEEE binary16 (CUDA's __half) and
 * BF16 bfloat16 (__nv_bfloat16): two bytes each, handed over as their bits
 * (the 8-bit types below likewise);
 * gpulab makes and reads them (experiments/typed.h), the plugin needs no CUDA
 * header for that. ktype.h has each type's config name and size. */
enum gl_ktype {
    GL_KT_FLOAT, GL_KT_DOUBLE, GL_KT_INT, GL_KT_UINT, GL_KT_INT64, GL_KT_UINT64,
    GL_KT_HALF, GL_KT_BF16,
    /* one byte each: 8-bit integers, and the 8-bit floats of CUDA's cuda_fp8.h
     * (__nv_fp8_e4m3: 4 exponent, 3 fraction bits, no infinities;
     * __nv_fp8_e5m2: 5 and 2, IEEE-like), handed over as their bits */
    GL_KT_INT8, GL_KT_UINT8, GL_KT_FP8E4M3, GL_KT_FP8E5M2
};

/* What a buffer holds before a run. An input is filled once per run; an output
 * with an init is reset to it before every run (outside the timed interval), so
 * that kernels that accumulate (atomicAdd) start from it; an output without one
 * is poisoned (NaN, or all bits set for integers) before every verified run, so
 * that an element the kernel leaves unwritten fails verification. */
enum gl_kinit {
    GL_KI_POISON,   /* outputs only: the default for an output (an input: random) */
    GL_KI_RANDOM,   /* uniform in [0, 1) from the run's seed (integers: 0..2^24-1); the
                       default for an input. The k-th random buffer of a job (inputs
                       and outputs, in order) is stream k of the seed, as in a kernel
                       section, so a CPU and a GPU variant with the same buffers see
                       the same inputs */
    GL_KI_ZERO,
    GL_KI_CONST,    /* value */
    GL_KI_RAMP,     /* element i holds i */
    /* Kernel sections only (their bounds are in kernel.h struct gl_kbuffer; a
     * plugin's job refuses them): */
    GL_KI_RANDINT,  /* integers uniform in [lo, hi) from the run's seed */
    GL_KI_NORMAL,   /* normal with mean mu and deviation sigma from the run's seed */
    GL_KI_FILE      /* the raw contents of a file */
};

#define GL_HOST_MAX_BUFFERS 16   /* buffers of one job */
#define GL_HOST_CTX_MAX 512      /* bytes of a job's ctx */

/* One buffer of a job: allocated, filled and checked by the harness. */
struct gl_host_buffer {
    const char *name;       /* for messages ("x", "y") */
    enum gl_ktype type;
    size_t count;           /* elements (>= 1) */
    enum gl_kinit init;
    double value;           /* GL_KI_CONST */
    int output;             /* written by the run and compared with the reference */
};

/* One run of a user's variant, as its run (struct gl_variant.run) describes it
 * to the host (gl_host.cpu_execute or gpu_execute). The harness does the rest:
 * a fresh result, the variant's check (against the GPU), the buffers (mem =
 * device | zerocopy | managed on the GPU, when the variant reads mem), inputs,
 * poison and resets, the reference, the verification run, warm-up and samples
 * as t says (cache = cold flushes L2 before each GPU sample), the check of the
 * last sample's outputs, and on the GPU timed copies, the kernel's resources,
 * occupancy, guidance and the profiled replay. Buffers are indexed in the
 * order of `buffers` everywhere (bufs, in, expected). */
struct gl_host_job {
    const struct gl_variant *v;   /* the variant run (its check is applied) */
    const struct gl_params *p;
    const struct gl_timing *t;
    struct gl_result *r;          /* filled completely */
    int nbuffers;                 /* 1..GL_HOST_MAX_BUFFERS, at least one output */
    const struct gl_host_buffer *buffers;
    /* The work of one run; 0, or -1 with a reason in err. GPU: enqueue every
     * launch and library call on the legacy default stream (stream 0), without
     * synchronizing; bufs[i] is buffer i's device pointer. A .cu plugin has a
     * CUDA runtime of its own, which gpulab's does not see: check your launches
     * (cudaGetLastError()) and return -1 on an error. CPU: compute the outputs;
     * bufs[i] is buffer i's host memory; OpenMP gets p->threads threads
     * (omp_set_num_threads before every run). */
    int (*enqueue)(void *ctx, void *const *bufs, char *err, size_t errlen);
    /* GPU only. */
    int launches;                 /* kernel launches of one run (stored; 0 = 1) */
    const void *kernel;           /* the run's main kernel, for registers, shared memory
                                     and occupancy: a cudaKernel_t from
                                     cudaGetKernel(&k, (const void *)my_kernel) (a
                                     function's address means nothing to gpulab's CUDA
                                     runtime); NULL for a library call */
    unsigned grid[3], block[3];   /* that kernel's launch shape (0 = 1) */
    size_t smem;                  /* its dynamic shared memory, bytes */
    /* The expected outputs in double, from the inputs: in[i] is buffer i's
     * contents (an input's, or the initial contents of an output with an init;
     * NULL for an output without one), expected[i] has count elements for each
     * output (NULL for inputs). 0, or -1 (the run fails). NULL: outputs are
     * only checked to be written (no poison left). */
    int (*reference)(void *ctx, const void *const *in, double *const *expected);
    double tolerance;             /* relative, floating-point outputs (integers match
                                     exactly); 0 = each output type's default
                                     (experiments/typed.h: 1e-5 for float and
                                     double, 2^-9 for half, 2^-6 for bfloat16) */
    /* The plugin's data for enqueue and reference: plain values (no pointers
     * into the caller's stack). The harness hands enqueue and reference a copy
     * (aligned for a double or a pointer), kept when a GPU run is parked for
     * batch profiling (enqueue is then called after gpu_execute returned). */
    void *ctx;
    size_t ctx_size;              /* <= GL_HOST_CTX_MAX */
};

/* The host's functions, handed to every plugin by gpulab_plugin(host) and valid
 * for the life of the process. A plugin may keep the pointer and use a field of
 * version v when host->api >= v. Called from a variant's run, in the worker. */
struct gl_host {
    int api;                      /* GL_HOST_API of this gpulab */
    /* version 1 */
    /* Run a job on the host CPU / on the GPU, as gl_variant.run does: 0, or -1
     * when the GPU is unusable afterwards (return it from run). gpu_execute is
     * NULL where gpulab has no GPU plugin. */
    int (*cpu_execute)(const struct gl_host_job *job);
    int (*gpu_execute)(const struct gl_host_job *job);
};

struct gl_plugin {
    int api;                            /* GL_PLUGIN_API */
    const char *name;                   /* "cpu", "gpu", or a user plugin's name */
    int nvariants;
    const struct gl_variant *variants;
    /* NULL: the variants run on the host CPU, or (a user's plugin) on the GPU
     * of the built-in GPU plugin, through gl_host.gpu_execute */
    const struct gl_device_ops *device;
    /* The host functions this plugin implements (the built-in ones: CPU
     * cpu_execute, GPU gpu_execute); NULL for users' plugins. */
    const struct gl_host *provides;
};

/* The value of the named parameter `name` of p (a kernel section's TILE = 16,
 * 32), or GL_UNSET when p has none. Inline, so a C reference (kernel.h
 * gl_kernel_cref_fn) or a plugin can use it without linking gpulab. */
#ifdef GL_CREF_BUILD
/* In a C reference gpulab builds (src/registry/cref_build.c defines
 * GL_CREF_BUILD): the first name gl_param_value was asked for and not handed,
 * which the harness reads after the call and fails the run with ("the C
 * reference read N, which verify_reads does not list"). Weak, so the
 * reference's files share one. */
__attribute__((weak)) char gl_cref_missed[GL_UPARAM_NAME];
#endif
static inline long gl_param_value(const struct gl_params *p, const char *name)
{
    for (int i = 0; i < p->nuser && i < GL_MAX_UPARAMS; i++) {
        const char *a = p->user[i].name, *b = name;
        while (*a && *a == *b)
            a++, b++;
        if (*a == *b)
            return p->user[i].v;
    }
#ifdef GL_CREF_BUILD
    if (!gl_cref_missed[0])
        for (int i = 0; i < GL_UPARAM_NAME - 1 && name[i]; i++)
            gl_cref_missed[i] = name[i];
#endif
    return GL_UNSET;
}

/* The entry point: gpulab_plugin(host). host is never NULL when gpulab loads
 * the plugin (tests may pass NULL to a built-in one). */
typedef const struct gl_plugin *(*gl_plugin_fn)(const struct gl_host *host);

#ifdef __cplusplus
}
#endif

#endif

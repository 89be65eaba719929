/* gpu_plugin.cu - the one symbol of build/libgpulab_gpu.so: gpulab_plugin(),
 * the GPU variants of every family as one plugin (src/core/plugin.h), and the
 * GPU's device operations: device count and description (measuring nothing),
 * the copy bandwidth and memory ceilings measurements (called under the
 * device's lock; the ceilings' kernels are ceilings.cu's), profiler setup,
 * profiling batches, metric listing, shutdown, and
 * the host function it provides to users' plugins: gl_host.gpu_execute
 * (host_gpu.cu).
 * The rows themselves are declared next to their kernels; this file only puts
 * the families' tables end to end.
 * Must not declare a variant, link or call libcuda directly (the plugin must
 * load, list its variants and check them on machines without a driver, and
 * say so when init is called), nor contain kernels of a family. */
#include "gpu_harness.cuh"
#include "userkernel.h"

#include <stdio.h>
#include <string.h>

extern "C" {
#include "family.h"
#include "profiler.h"
}

static int profiler_touched;   /* glc_setup or glc_list was called: glc_shutdown at the end */

/* FP32 cores per SM by compute capability (0 = not known to this table). */
static int cores_per_sm(int major, int minor)
{
    switch (major) {
    case 3:
        return 192;
    case 5:
        return 128;
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
        return 64;
    case 8:
        return minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12:
        return 128;
    }
    return 0;
}

/* Device-to-device cudaMemcpy of 256 MiB, best of 5 after a warm-up, counting
 * bytes read + written. 0 when it cannot be measured (stored as unknown). */
static double copy_bandwidth(void)
{
    size_t bytes = (size_t)256 << 20;
    void *src = NULL, *dst = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double best_ms = 0.0;
    if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess ||
        cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess ||
        cudaMemset(src, 0x3f, bytes) != cudaSuccess ||
        cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess)
        goto out;
    for (int i = 0; i < 5; i++) {
        float ms = 0.0f;
        if (cudaEventRecord(e0, 0) != cudaSuccess ||
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0) != cudaSuccess ||
            cudaEventRecord(e1, 0) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess ||
            cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
            best_ms = 0.0;
            goto out;
        }
        if (best_ms == 0.0 || ms < best_ms)
            best_ms = ms;
    }
out:
    (void)cudaGetLastError();
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (src)
        cudaFree(src);
    if (dst)
        cudaFree(dst);
    return best_ms > 0.0 ? 2.0 * (double)bytes / (best_ms * 1e-3) / 1e9 : 0.0;
}

static void uuid_text(const cudaUUID_t *u, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(buf, len,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

static int plugin_init(int ordinal, struct gl_device *dev, char *err, size_t errlen)
{
    int drv = 0, rt = 0, count = 0;
    memset(dev, 0, sizeof *dev);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver && drv == 0) {
        snprintf(err, errlen, "no CUDA driver (libcuda.so.1 not found)");
        return -1;
    }
    if (e == cudaErrorInsufficientDriver) {
        snprintf(err, errlen, "CUDA driver too old: it supports CUDA %d.%d, the plugin needs %d.%d",
                 drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        return -1;
    }
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
        snprintf(err, errlen, "no CUDA device");
        return -1;
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA unavailable: %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return -1;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(err, errlen, "no CUDA device %d (%d found)", ordinal, count);
        return -1;
    }
    struct cudaDeviceProp pr;
    int clock = 0, mem_clock = 0;
    if ((e = cudaSetDevice(ordinal)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&pr, ordinal)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, ordinal)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, ordinal)) !=
            cudaSuccess) {
        snprintf(err, errlen, "CUDA device %d: %s (%s)", ordinal, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return -1;
    }
    snprintf(dev->kind, sizeof dev->kind, "gpu");
    snprintf(dev->name, sizeof dev->name, "%.127s", pr.name);
    uuid_text(&pr.uuid, dev->ident, sizeof dev->ident);
    dev->cc_major = pr.major;
    dev->cc_minor = pr.minor;
    dev->sm_count = pr.multiProcessorCount;
    dev->cores_per_sm = cores_per_sm(pr.major, pr.minor);
    dev->clock_khz = clock;
    dev->mem_clock_khz = mem_clock;
    dev->mem_bus_bits = pr.memoryBusWidth;
    dev->mem_bytes = (long long)pr.totalGlobalMem;
    dev->l2_bytes = pr.l2CacheSize;
    dev->smem_per_block = (int)pr.sharedMemPerBlock;
    dev->smem_per_block_optin = (int)pr.sharedMemPerBlockOptin;
    dev->smem_per_sm = (int)pr.sharedMemPerMultiprocessor;
    dev->regs_per_block = pr.regsPerBlock;
    dev->regs_per_sm = pr.regsPerMultiprocessor;
    dev->warp_size = pr.warpSize;
    dev->max_threads_per_block = pr.maxThreadsPerBlock;
    dev->max_threads_per_sm = pr.maxThreadsPerMultiProcessor;
    dev->max_blocks_per_sm = pr.maxBlocksPerMultiProcessor;
    for (int i = 0; i < 3; i++) {
        dev->max_block[i] = pr.maxThreadsDim[i];
        dev->max_grid[i] = pr.maxGridSize[i];
    }
    dev->driver_version = drv;
    dev->runtime_version = rt;
    /* Lecture S4: memory clock x (bus width / 8) x 2 (double data rate). */
    dev->theo_bw_gbs = (double)mem_clock * 1e3 * (pr.memoryBusWidth / 8.0) * 2.0 / 1e9;
    dev->fp32_peak_gflops = (double)dev->sm_count * dev->cores_per_sm * 2.0 * clock * 1e3 / 1e9;
    return gh_device_set(ordinal, dev, err, errlen);
}

/* Devices this process can see, without making a context. */
static int plugin_count(char *err, size_t errlen)
{
    int drv = 0, count = 0;
    cudaDriverGetVersion(&drv);
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice)
        return 0;
    if (e == cudaErrorInsufficientDriver && drv == 0) {
        snprintf(err, errlen, "no CUDA driver (libcuda.so.1 not found)");
        return -1;
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA unavailable: %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return -1;
    }
    return count;
}

static int plugin_profiler_setup(const struct gl_metric_req *req, char *err, size_t errlen)
{
    if (!gh_device()) {
        snprintf(err, errlen, "GPU not initialised");
        gh_set_profiling(-1);
        return -1;
    }
    if (gh_context_lost()) {
        snprintf(err, errlen, "CUDA context unusable after an earlier error");
        gh_set_profiling(-1);
        return -1;
    }
    profiler_touched = 1;
    int rc = glc_setup(req, err, errlen);
    if (rc > 0)
        glc_warm();
    gh_set_profiling(rc);
    return rc;
}

static void plugin_batch_begin(void)
{
    if (gh_device())
        gh_batch_begin();
}

static int plugin_batch_end(void)
{
    return gh_device() ? gh_batch_end() : 0;
}

static int plugin_list_metrics(void (*cb)(const char *name, void *ctx), void *ctx, char *err,
                               size_t errlen)
{
    if (!gh_device()) {
        snprintf(err, errlen, "GPU not initialised");
        return -1;
    }
    profiler_touched = 1;
    return glc_list(cb, ctx, err, errlen);
}

static void plugin_shutdown(void)
{
    if (profiler_touched)
        glc_shutdown();
    profiler_touched = 0;
    gh_matmul_shutdown();
    gk_shutdown();
    gh_shutdown();
}

static const struct gl_device_ops device_ops = {
    plugin_init,
    plugin_profiler_setup,
    plugin_batch_begin,
    plugin_batch_end,
    plugin_list_metrics,
    plugin_shutdown,
    gk_kernel_compile,   /* users' kernels: kernel_compile.cu, kernel_run.cu */
    gk_kernel_run,
    copy_bandwidth,
    gk_kernel_compile_many,
    plugin_count,
    gh_measure_ceilings,   /* ceilings.cu: L1, shared memory, L2, host link */
};

/* Each family's table, in the order `gpulab list` shows them. */
static const struct gl_family_table tables[] = {
    { gh_matmul_variants, &gh_matmul_nvariants },
    { gh_stencil_variants, &gh_stencil_nvariants },
    { gh_vecadd_variants, &gh_vecadd_nvariants },
};

#define GPU_MAX_VARIANTS 64

static struct gl_variant variants[GPU_MAX_VARIANTS];
static struct gl_plugin plugin;
static const struct gl_host provides = { GL_HOST_API, NULL, gh_host_execute };

/* Built on the first call (the driver calls it once, from one thread, at load),
 * without a CUDA call. NULL only if the tables outgrow GPU_MAX_VARIANTS; the
 * loader reports it. host: unused (this plugin is one of the host's). */
extern "C" const struct gl_plugin *gpulab_plugin(const struct gl_host *host)
{
    (void)host;
    if (plugin.api == GL_PLUGIN_API)
        return &plugin;
    int n = gl_join_tables(tables, (int)(sizeof tables / sizeof tables[0]), variants, GPU_MAX_VARIANTS);
    if (n < 0)
        return NULL;
    plugin.name = "gpu";
    plugin.nvariants = n;
    plugin.variants = variants;
    plugin.device = &device_ops;
    plugin.provides = &provides;
    plugin.api = GL_PLUGIN_API;
    return &plugin;
}

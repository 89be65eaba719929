/* example_gpu.cu - a user's GPU plugin written against src/core/plugin.h only:
 * family saxpy, variant saxpy_twice, z = a*x + y as two kernel launches per
 * run (z = a*x, then z += y), run through gpulab's GPU harness
 * (gl_host.gpu_execute): gpulab allocates x, y (random from the seed, the same
 * as saxpy_cpu's) and z (poisoned), times both launches as one run, checks z
 * against the float64 reference, reads the first kernel's registers and
 * occupancy, and profiles the run's counters over both launches.
 * Build: nvcc -shared -Xcompiler -fPIC -I src/core -o example_gpu.so example_gpu.cu
 * Use:   gpulab run saxpy.conf --plugin ./example_plugin.so --plugin ./example_gpu.so
 * Must not use anything of gpulab but plugin.h; must load without a CUDA
 * driver (no CUDA call before a run). */
#include <stdio.h>

#include <cuda_runtime.h>

extern "C" {
#include "plugin.h"
}

static const struct gl_host *host;   /* gpulab's functions, from gpulab_plugin() */

struct twice_ctx {   /* by value: the harness keeps a copy for the profiled replay */
    long n;
    float a;
    unsigned block, grid;
};

enum { X, Y, Z };

__global__ void scale(float *z, const float *x, float a, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i];
}

__global__ void accumulate(float *z, const float *y, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] += y[i];
}

/* Both launches on the default stream. Our CUDA runtime is not gpulab's: its
 * launch errors are ours to report. */
static int twice_enqueue(void *ctx, void *const *bufs, char *err, size_t errlen)
{
    const struct twice_ctx *c = (const struct twice_ctx *)ctx;
    float *z = (float *)bufs[Z];
    scale<<<c->grid, c->block>>>(z, (const float *)bufs[X], c->a, c->n);
    accumulate<<<c->grid, c->block>>>(z, (const float *)bufs[Y], c->n);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        return 0;
    snprintf(err, errlen, "launch: %s", cudaGetErrorString(e));
    return -1;
}

static int twice_reference(void *ctx, const void *const *in, double *const *expected)
{
    const struct twice_ctx *c = (const struct twice_ctx *)ctx;
    const float *x = (const float *)in[X], *y = (const float *)in[Y];
    for (long i = 0; i < c->n; i++)
        expected[Z][i] = (double)c->a * x[i] + y[i];
    return 0;
}

static const char *twice_check(const struct gl_variant *v, const struct gl_params *p,
                               const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (p->n < 1 || p->n > (1L << 31)) {
        snprintf(buf, len, "N must be 1 to 2^31 (N=%ld)", p->n);
        return buf;
    }
    if (p->bs < 32 || p->bs > 1024 || p->bs % 32) {
        snprintf(buf, len, "BS must be a multiple of 32 from 32 to 1024 (BS=%ld)", p->bs);
        return buf;
    }
    return NULL;
}

static double twice_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 2.0 * (double)p->n;
}

static double twice_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 12.0 * (double)p->n;
}

static int twice_run(const struct gl_variant *v, const struct gl_params *p,
                     const struct gl_timing *t, struct gl_result *r)
{
    size_t n = p->n > 0 ? (size_t)p->n : 1;
    unsigned block = p->bs > 0 ? (unsigned)p->bs : 256;
    struct twice_ctx c = { (long)n, 2.0f, block, (unsigned)((n + block - 1) / block) };
    const struct gl_host_buffer bufs[] = {
        { "x", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "y", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "z", GL_KT_FLOAT, n, GL_KI_POISON, 0.0, 1 },
    };
    /* the handle of the first kernel, for its registers and occupancy: the
     * address of a __global__ function means nothing to gpulab's runtime */
    cudaKernel_t k = NULL;
    if (cudaGetKernel(&k, (const void *)scale) != cudaSuccess) {
        (void)cudaGetLastError();
        k = NULL;   /* runs all the same, without the kernel's resources */
    }
    struct gl_host_job job = {};
    job.v = v;
    job.p = p;
    job.t = t;
    job.r = r;
    job.nbuffers = 3;
    job.buffers = bufs;
    job.enqueue = twice_enqueue;
    job.launches = 2;
    job.kernel = (const void *)k;
    job.grid[0] = c.grid;
    job.block[0] = c.block;
    job.reference = twice_reference;
    job.tolerance = 1e-6;
    job.ctx = &c;
    job.ctx_size = sizeof c;
    return host->gpu_execute(&job);
}

static const struct gl_variant variants[] = {
    { "saxpy", "saxpy_twice", "gpu", "z = a*x, then z += y: two launches per run (example plugin)",
      GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_SEED) | GL_PBIT(GL_P_MEM) |
          GL_PBIT(GL_P_CACHE),
      twice_check, twice_flops, twice_bytes, twice_run, NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "example_gpu", 1, variants, NULL, NULL };

extern "C" const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    if (!h || h->api < 1 || !h->gpu_execute)
        return NULL;
    host = h;
    return &plugin;
}

/* pick_gpu.cu - a GPU test plugin whose "library call" picks its kernels at the
 * first call and launches others afterwards, as a library that tunes itself
 * may: family pick, z = a*x + y.
 *   pick_kernel  one kernel of its own (its cudaKernel_t given): an auto range
 *   pick_later   a library call (kernel NULL): one kernel at its first call
 *                (the verification run, where gpulab counts a call's kernels),
 *                that kernel and an empty one at every later call (the samples
 *                and the profiled replay)
 * gpulab counts pick_later as one kernel, profiles it in the auto-range session
 * with pick_kernel, finds the extra ranges, and profiles it again in a user
 * range (cupti/profiler_batch.c recount): both keep their counters.
 * No check, FLOP or byte count: tests/gpu/plugins.sh runs it at sizes that fit.
 * Must not use anything of gpulab but plugin.h;
 * must load without a CUDA driver (no CUDA call before a run). */
#include <stdio.h>

#include <cuda_runtime.h>

extern "C" {
#include "plugin.h"
}

static const struct gl_host *host;

struct pick_ctx {   /* by value: the harness's copy is the one enqueue sees and keeps */
    long n;
    float a;
    unsigned block, grid;
    int called;     /* pick_later: set at the first call (the harness's copy keeps it) */
};

enum { X, Y, Z };

__global__ void pick_axpy(float *z, const float *x, const float *y, float a, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

__global__ void pick_nothing(void) {}

static int launched(char *err, size_t errlen)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        return 0;
    snprintf(err, errlen, "launch: %s", cudaGetErrorString(e));
    return -1;
}

static int kernel_enqueue(void *ctx, void *const *bufs, char *err, size_t errlen)
{
    const struct pick_ctx *c = (const struct pick_ctx *)ctx;
    pick_axpy<<<c->grid, c->block>>>((float *)bufs[Z], (const float *)bufs[X],
                                     (const float *)bufs[Y], c->a, c->n);
    return launched(err, errlen);
}

static int later_enqueue(void *ctx, void *const *bufs, char *err, size_t errlen)
{
    struct pick_ctx *c = (struct pick_ctx *)ctx;
    pick_axpy<<<c->grid, c->block>>>((float *)bufs[Z], (const float *)bufs[X],
                                     (const float *)bufs[Y], c->a, c->n);
    if (c->called)
        pick_nothing<<<1, 32>>>();
    c->called = 1;
    return launched(err, errlen);
}

static int pick_reference(void *ctx, const void *const *in, double *const *expected)
{
    const struct pick_ctx *c = (const struct pick_ctx *)ctx;
    const float *x = (const float *)in[X], *y = (const float *)in[Y];
    for (long i = 0; i < c->n; i++)
        expected[Z][i] = (double)c->a * x[i] + y[i];
    return 0;
}

static int pick_run(const struct gl_variant *v, const struct gl_params *p,
                    const struct gl_timing *t, struct gl_result *r, int library)
{
    size_t n = p->n > 0 ? (size_t)p->n : 1;
    unsigned block = p->bs > 0 ? (unsigned)p->bs : 256;
    struct pick_ctx c = { (long)n, 2.0f, block, (unsigned)((n + block - 1) / block), 0 };
    const struct gl_host_buffer bufs[] = {
        { "x", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "y", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "z", GL_KT_FLOAT, n, GL_KI_POISON, 0.0, 1 },
    };
    cudaKernel_t k = NULL;
    if (!library && cudaGetKernel(&k, (const void *)pick_axpy) != cudaSuccess) {
        (void)cudaGetLastError();
        k = NULL;
    }
    struct gl_host_job job = {};
    job.v = v;
    job.p = p;
    job.t = t;
    job.r = r;
    job.nbuffers = 3;
    job.buffers = bufs;
    job.enqueue = library ? later_enqueue : kernel_enqueue;
    job.launches = 1;
    job.kernel = library ? NULL : (const void *)k;
    job.grid[0] = c.grid;
    job.block[0] = c.block;
    job.reference = pick_reference;
    job.tolerance = 1e-6;
    job.ctx = &c;
    job.ctx_size = sizeof c;
    return host->gpu_execute(&job);
}

static int kernel_run(const struct gl_variant *v, const struct gl_params *p,
                      const struct gl_timing *t, struct gl_result *r)
{
    return pick_run(v, p, t, r, 0);
}

static int later_run(const struct gl_variant *v, const struct gl_params *p,
                     const struct gl_timing *t, struct gl_result *r)
{
    return pick_run(v, p, t, r, 1);
}

#define PICK_PARAMS (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_SEED) | GL_PBIT(GL_P_CACHE))

static const struct gl_variant variants[] = {
    { "pick", "pick_kernel", "gpu", "z = a*x + y: one kernel of its own (test plugin)",
      PICK_PARAMS, NULL, NULL, NULL, kernel_run, NULL },
    { "pick", "pick_later", "gpu", "z = a*x + y as a library call that launches one more "
      "kernel after its first call (test plugin)",
      PICK_PARAMS, NULL, NULL, NULL, later_run, NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "pick_gpu", 2, variants, NULL, NULL };

extern "C" const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    if (!h || h->api < 1 || !h->gpu_execute)
        return NULL;
    host = h;
    return &plugin;
}

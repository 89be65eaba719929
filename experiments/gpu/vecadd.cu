/* vecadd.cu - the GPU vector-add family (c = a + b, float): global with one
 * element per thread, and gridstride with G blocks (0 = 4 x SM count) looping
 * over the vector. Each variant's check rejects, before anything runs, every
 * point the run would reject; the table at the end declares each variant, once.
 * It also gives the float64 reference of an output element (a device kernel
 * whose array the harness caches, or a functor) for the on-device check.
 * Must not time, verify or allocate: the harness (harness_*.cu) does that for
 * every family. */
#include "gpu_harness.cuh"
#include "gh_compare.cuh"

#include <stdio.h>
#include <string.h>

extern "C" {
#include "family.h"
#include "reference.h"
#include "rng.h"
}
#include "gpu_limits.h"

/* ---- kernels --------------------------------------------------------------------- */

__global__ void vecadd_global(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ c, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void vecadd_gridstride(const float *__restrict__ a, const float *__restrict__ b,
                                  float *__restrict__ c, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

/* ---- launchers ---------------------------------------------------------------------- */

typedef void (*vecadd_fn)(const float *, const float *, float *, size_t);

struct va_ctx {
    vecadd_fn kernel;
    long n;
};

static cudaError_t enqueue_vecadd(struct gh_job *j)
{
    const struct va_ctx *x = (const struct va_ctx *)j->ctx;
    x->kernel<<<j->grid, j->block>>>(j->in[0].dev, j->in[1].dev, j->out[0].dev, (size_t)x->n);
    return cudaGetLastError();
}

/* The float64 reference of element i, from the inputs' random streams (rng.h):
 * nothing read, nothing cached. */
struct va_want {
    unsigned long long sa, sb;
    __device__ double operator()(size_t i) const
    {
        return (double)gl_rng_float(sa, i) + (double)gl_rng_float(sb, i);
    }
};

static cudaError_t va_check(struct gh_job *j, struct gh_cmp *c)
{
    unsigned long long seed = gh_seed(j->p);
    struct va_want want = { gl_rng_state(seed, 0), gl_rng_state(seed, 1) };
    return gh_compare(j->out[0].dev, want, j->out_count[0], gl_tolerance(j->tol_len), c,
                      gh_device()->sm_count);
}

/* Block of BS threads, ceil(N/BS) blocks or G (0 = 4 x the SM count, as check
 * counts them). Every rule on N, BS, G and the words is check's. */
static int prepare(struct gh_job *j, struct va_ctx *x, int gridstride)
{
    const struct gl_params *p = j->p;
    const struct gl_device *d = gh_device();
    long n = p->n, bs = p->bs;
    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_fail(j->r, "internal: mem or cache word passed the check but does not parse");
    long blocks = gh_ceil_div(n, bs);
    if (gridstride) {
        long g = p->g == GL_UNSET ? 0 : p->g;
        blocks = g > 0 ? g : 4L * (d && d->sm_count > 0 ? d->sm_count : 1);
    }
    x->kernel = gridstride ? vecadd_gridstride : vecadd_global;
    x->n = n;
    j->nin = 2;
    j->in_count[0] = (size_t)n;
    j->in_count[1] = (size_t)n;
    j->out_count[0] = (size_t)n;
    j->tol_len = 1;
    j->kernel = (const void *)x->kernel;
    j->block = dim3((unsigned)bs);
    j->grid = dim3((unsigned)blocks);
    j->launches = 1;
    j->enqueue = enqueue_vecadd;
    j->check_dev = va_check;
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return gh_check_launch(j->r, j->kernel, j->grid, j->block, 0);
}

static int prepare_global(struct gh_job *j, void *ctx)
{
    struct va_ctx *x = (struct va_ctx *)ctx;
    return prepare(j, x, 0);
}

static int prepare_gridstride(struct gh_job *j, void *ctx)
{
    struct va_ctx *x = (struct va_ctx *)ctx;
    return prepare(j, x, 1);
}

/* ---- plan-time checks ------------------------------------------------------------------ */

/* Everything the run would reject: sizes, words, the block of BS threads, and the grid (ceil(N/BS) blocks, or G; G = 0 is 4 x the SM count,
 * always within the limit). */
static const char *check(const struct gl_params *p, const struct gl_device *dev, int gridstride,
                         char *buf, size_t len)
{
    long n = p->n, bs = p->bs;
    enum gh_mem mem;
    int cold;
    if (n < 1 || bs < 1) {
        snprintf(buf, len, "N and BS must be >= 1 (N=%ld BS=%ld)", n, bs);
        return buf;
    }
    if (bs > 1024 * 1024) {
        snprintf(buf, len, "BS=%ld is far over any device limit", bs);
        return buf;
    }
    if (gh_parse_mem(p->mem, &mem) != 0) {
        snprintf(buf, len, "unknown mem '%s' (device, zerocopy, managed)", p->mem);
        return buf;
    }
    if (gh_parse_cold(p->cache, &cold) != 0) {
        snprintf(buf, len, "unknown cache '%s' (cold, warm)", p->cache);
        return buf;
    }
    if (gh_over_threads(bs, dev, "BS", buf, len) || gh_over_block(bs, 1, dev, buf, len))
        return buf;
    long blocks = gh_ceil_div(n, bs);
    if (gridstride) {
        long g = p->g == GL_UNSET ? 0 : p->g;
        if (g < 0) {
            snprintf(buf, len, "G must be >= 0 (G=%ld)", g);
            return buf;
        }
        blocks = g > 0 ? g : 4L * (dev && dev->sm_count > 0 ? dev->sm_count : 1);
    }
    if (blocks > GH_INT_MAX) {
        snprintf(buf, len, "%ld blocks exceed the grid limit", blocks);
        return buf;
    }
    return gh_over_grid(blocks, 1, dev, buf, len) ? buf : NULL;
}

static const char *check_global(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check(p, dev, 0, buf, len);
}

static const char *check_gridstride(const struct gl_variant *v, const struct gl_params *p,
                                    const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check(p, dev, 1, buf, len);
}

/* ---- the variants ---------------------------------------------------------------------- */

static const struct gh_impl im_global = { prepare_global };
static const struct gh_impl im_gridstride = { prepare_gridstride };

#define PB(x) GL_PBIT(GL_P_##x)

const struct gl_variant gh_vecadd_variants[] = {
    { "vecadd", "global", "gpu", "one element per thread", PB(N) | PB(BS) | PB(CACHE) | PB(SEED),
      check_global, gl_vecadd_flops, gl_vecadd_bytes, gh_run, &im_global },
    { "vecadd", "gridstride", "gpu", "G blocks (0 = 4 x SMs) stride over the vector",
      PB(N) | PB(BS) | PB(G) | PB(CACHE) | PB(SEED), check_gridstride, gl_vecadd_flops,
      gl_vecadd_bytes, gh_run, &im_gridstride },
};

const int gh_vecadd_nvariants = (int)(sizeof gh_vecadd_variants / sizeof gh_vecadd_variants[0]);

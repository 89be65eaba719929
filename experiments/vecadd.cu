/* vecadd.cu - the GPU vector-add family (c = a + b, float): global with one
 * element per thread, and gridstride with G blocks (0 = 4 x SM count) looping
 * over the vector. The table at the end maps variant names to launchers.
 * Must not time, verify or allocate: gpu_harness.cu does that for every family. */
#include "gpu_harness.cuh"

#include <string.h>

extern "C" {
#include "reference.h"
}

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
    x->kernel<<<j->grid, j->block>>>(j->in[0].dev, j->in[1].dev, j->out.dev, (size_t)x->n);
    return cudaGetLastError();
}

static const double *va_reference(const struct gh_job *j, char *err, size_t errlen)
{
    const struct va_ctx *x = (const struct va_ctx *)j->ctx;
    return gl_ref_vecadd(j->in[0].host, j->in[1].host, x->n, j->p->seed, err, errlen);
}

static int prepare(struct gh_job *j, struct va_ctx *x, int gridstride)
{
    const struct gl_params *p = j->p;
    struct gl_result *r = j->r;
    const struct gl_device *d = gh_device();
    long n = p->n, bs = p->bs;
    if (n < 1 || bs < 1)
        return gh_skip(r, "N and BS must be >= 1 (N=%ld BS=%ld)", n, bs);
    if (bs > 1024 * 1024)
        return gh_skip(r, "BS=%ld is far over any device limit", bs);
    if (gh_parse_mem(p->mem, &j->mem) != 0)
        return gh_skip(r, "unknown mem '%s' (device, zerocopy, managed)", p->mem);
    if (gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_skip(r, "unknown cache '%s' (cold, warm)", p->cache);
    long blocks = (n + bs - 1) / bs;
    if (gridstride) {
        long g = p->g == GL_UNSET ? 0 : p->g;
        if (g < 0)
            return gh_skip(r, "G must be >= 0 (G=%ld)", g);
        blocks = g > 0 ? g : 4L * (d ? d->sm_count : 1);
    }
    if (blocks > 0x7fffffffL)
        return gh_skip(r, "%ld blocks exceed the grid limit", blocks);
    x->kernel = gridstride ? vecadd_gridstride : vecadd_global;
    x->n = n;
    j->nin = 2;
    j->in_count[0] = (size_t)n;
    j->in_count[1] = (size_t)n;
    j->out_count = (size_t)n;
    j->tol_len = 1;
    j->kernel = (const void *)x->kernel;
    j->block = dim3((unsigned)bs);
    j->grid = dim3((unsigned)blocks);
    j->launches = 1;
    j->enqueue = enqueue_vecadd;
    j->reference = va_reference;
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return gh_check_launch(r, j->kernel, j->grid, j->block, 0);
}

static int prepare_global(struct gh_job *j, struct va_ctx *x)
{
    return prepare(j, x, 0);
}

static int prepare_gridstride(struct gh_job *j, struct va_ctx *x)
{
    return prepare(j, x, 1);
}

/* ---- the family table ---------------------------------------------------------------- */

struct va_variant {
    const char *name;
    int (*prepare)(struct gh_job *j, struct va_ctx *x);
};

static const struct va_variant va_variants[] = {
    { "global", prepare_global },
    { "gridstride", prepare_gridstride },
};

static const struct va_variant *va_find(const char *name)
{
    for (size_t i = 0; i < sizeof va_variants / sizeof va_variants[0]; i++)
        if (strcmp(va_variants[i].name, name) == 0)
            return &va_variants[i];
    return NULL;
}

static int va_has(const char *variant)
{
    return va_find(variant) != NULL;
}

static int va_run(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct va_variant *v = va_find(variant);
    struct gh_job j = {};
    struct va_ctx x;
    memset(&x, 0, sizeof x);
    if (!v)
        return gh_skip(r, "vecadd has no GPU variant '%s'", variant);
    j.p = p;
    j.t = t;
    j.r = r;
    if (!v->prepare(&j, &x))
        return gh_context_lost() ? -1 : 0;
    return gh_execute(&j);
}

const struct gh_family gh_family_vecadd = { "vecadd", va_has, va_run, NULL };

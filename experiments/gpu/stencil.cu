/* stencil.cu - the GPU radius-R box-sum family: OUT[W][W], W = N-2R, each the
 * sum of the (2R+1)^2 inputs of TAB[N][N] around it. global is seed 002's
 * kernel (K consecutive outputs of a row per thread, straight from global
 * memory); shared stages a (BS+2R) x (K*BS+2R) tile with its halo in shared
 * memory. Each variant's check rejects, before anything runs, every point the
 * run would reject; the table at the end declares each variant, once.
 * It also gives the float64 reference of an output element (a device kernel
 * whose array the harness caches, or a functor) for the on-device check.
 * Must not time, verify or allocate: the harness (harness_*.cu) does that for
 * every family. */
#include "gpu_harness.cuh"

#include <stdio.h>
#include <string.h>

extern "C" {
#include "family.h"
#include "reference.h"
}
#include "gpu_limits.h"

/* ---- kernels --------------------------------------------------------------------- */

/* global (seed 002): thread (x, y) computes out[y][x*K + q] for q < K, reading
 * every input of each window from global memory. Block BS x BS, grid
 * ceil(W/(BS*K)) x ceil(W/BS). */
__global__ void stencil_global(const float *__restrict__ in, float *__restrict__ out, int n,
                               int r, int k)
{
    const int w = n - 2 * r;
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * k;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= w)
        return;
    for (int q = 0; q < k; q++) {
        const int iq = i + q;
        if (iq >= w)
            break;
        float sum = 0.0f;
        for (int y = 0; y <= 2 * r; y++) {
            const float *row = in + (j + y) * n + iq;
            for (int x = 0; x <= 2 * r; x++)
                sum += row[x];
        }
        out[j * w + iq] = sum;
    }
}

/* shared: the block loads rows y0 .. y0+BS+2R-1 and columns x0 .. x0+K*BS+2R-1
 * of the input into dynamic shared memory (coalesced, halo included), then thread
 * (tx, ty) computes out[y0+ty][x0 + tx + q*BS] for q < K: the K outputs of a
 * thread are BS apart so that a warp's shared reads and global writes stay
 * consecutive. */
__global__ void stencil_shared(const float *__restrict__ in, float *__restrict__ out, int n,
                               int r, int k)
{
    extern __shared__ float tile[];
    const int w = n - 2 * r;
    const int bs = blockDim.x;
    const int tw = k * bs + 2 * r;            /* tile width */
    const int th = bs + 2 * r;                /* tile height */
    const int x0 = blockIdx.x * k * bs;
    const int y0 = blockIdx.y * bs;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int idx = ty * bs + tx; idx < tw * th; idx += bs * blockDim.y) {
        const int ty_ = idx / tw, tx_ = idx % tw;
        const int gy = y0 + ty_, gx = x0 + tx_;
        tile[idx] = (gy < n && gx < n) ? in[gy * n + gx] : 0.0f;
    }
    __syncthreads();
    const int j = y0 + ty;
    if (j >= w)
        return;
    for (int q = 0; q < k; q++) {
        const int c = tx + q * bs;
        if (x0 + c >= w)
            break;
        float sum = 0.0f;
        for (int y = 0; y <= 2 * r; y++) {
            const float *row = tile + (ty + y) * tw + c;
            for (int x = 0; x <= 2 * r; x++)
                sum += row[x];
        }
        out[j * w + x0 + c] = sum;
    }
}

/* ---- launchers ---------------------------------------------------------------------- */

typedef void (*stencil_fn)(const float *, float *, int, int, int);

struct st_ctx {
    stencil_fn kernel;
    int n, r, k;
};

static cudaError_t enqueue_stencil(struct gh_job *j)
{
    const struct st_ctx *x = (const struct st_ctx *)j->ctx;
    x->kernel<<<j->grid, j->block, j->dyn_smem>>>(j->in[0].dev, j->out[0].dev, x->n, x->r, x->k);
    return cudaGetLastError();
}

/* The float64 reference, one output per thread: the (2R+1)^2 box summed in double. */
__global__ void stencil_ref_f64(const float *__restrict__ in, double *__restrict__ out, int n,
                                int r)
{
    int w = n - 2 * r, col = blockIdx.x * blockDim.x + threadIdx.x,
        row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= w || col >= w)
        return;
    double s = 0.0;
    for (int a = 0; a <= 2 * r; a++) {
        const float *line = in + (size_t)(row + a) * n + col;
        for (int b = 0; b <= 2 * r; b++)
            s += (double)line[b];
    }
    out[(size_t)row * w + col] = s;
}

static cudaError_t st_devref(const struct gh_job *j, float *const *in, double *out)
{
    const struct st_ctx *x = (const struct st_ctx *)j->ctx;
    int w = x->n - 2 * x->r;
    dim3 block(32, 8), grid((unsigned)((w + 31) / 32), (unsigned)((w + 7) / 8));
    stencil_ref_f64<<<grid, block>>>(in[0], out, x->n, x->r);
    return cudaGetLastError();
}

/* Block BS x BS, grid over the W x W output, shared's tile as dynamic shared
 * memory. Every rule on N, R, BS, K and the words is check's. */
static int prepare(struct gh_job *j, struct st_ctx *x, int shared)
{
    const struct gl_params *p = j->p;
    long n = p->n, rad = p->r, bs = p->bs, k = p->k == GL_UNSET ? 1 : p->k;
    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_fail(j->r, "internal: mem or cache word passed the check but does not parse");
    long w = n - 2 * rad;
    x->kernel = shared ? stencil_shared : stencil_global;
    x->n = (int)n;
    x->r = (int)rad;
    x->k = (int)k;
    j->nin = 1;
    j->in_count[0] = (size_t)n * (size_t)n;
    j->out_count[0] = (size_t)w * (size_t)w;
    j->tol_len = (2 * rad + 1) * (2 * rad + 1);
    j->kernel = (const void *)x->kernel;
    j->block = dim3((unsigned)bs, (unsigned)bs);
    j->grid = dim3((unsigned)((w + bs * k - 1) / (bs * k)), (unsigned)((w + bs - 1) / bs));
    j->dyn_smem = shared ? (size_t)(bs + 2 * rad) * (size_t)(k * bs + 2 * rad) * sizeof(float) : 0;
    j->launches = 1;
    j->enqueue = enqueue_stencil;
    j->row_len = w;
    gh_use_devref(j, st_devref, "stencil", n, rad, 0);
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return gh_check_launch(j->r, j->kernel, j->grid, j->block, j->dyn_smem);
}

static int prepare_global(struct gh_job *j, void *ctx)
{
    struct st_ctx *x = (struct st_ctx *)ctx;
    return prepare(j, x, 0);
}

static int prepare_shared(struct gh_job *j, void *ctx)
{
    struct st_ctx *x = (struct st_ctx *)ctx;
    return prepare(j, x, 1);
}

/* ---- plan-time checks ------------------------------------------------------------------ */

/* Everything the run would reject: sizes, words, block BS x BS, the grid over
 * the W x W output, and shared's (BS+2R) x (K*BS+2R) tile. */
static const char *check(const struct gl_params *p, const struct gl_device *dev, int shared,
                         char *buf, size_t len)
{
    long n = p->n, rad = p->r, bs = p->bs, k = p->k == GL_UNSET ? 1 : p->k;
    enum gh_mem mem;
    int cold;
    const char *why;
    if (n < 1 || rad < 0 || bs < 1 || k < 1) {
        snprintf(buf, len, "need N >= 1, R >= 0, BS >= 1, K >= 1 (N=%ld R=%ld BS=%ld K=%ld)", n,
                 rad, bs, k);
        return buf;
    }
    if ((why = gl_stencil_check_size(p, buf, len)))
        return why;
    if (!gh_fits_int2(n, n)) {
        snprintf(buf, len, "inputs over 2^31 elements are not supported (int indexing)");
        return buf;
    }
    if (bs > 1024 || k > 1024) {
        snprintf(buf, len, "BS=%ld or K=%ld is far over any device limit", bs, k);
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
    if (gh_over_threads(bs * bs, dev, "BS*BS", buf, len) || gh_over_block(bs, bs, dev, buf, len))
        return buf;
    /* in double: K and R are not bounded by the block limit */
    double tile = ((double)bs + 2.0 * rad) * ((double)k * bs + 2.0 * rad) * 4.0;
    if (shared && gh_over_smem(tile, gh_smem_optin(dev), "(BS+2R)*(K*BS+2R)*4", buf, len))
        return buf;
    long w = n - 2 * rad;
    return gh_over_grid(gh_ceil_div(w, bs * k), gh_ceil_div(w, bs), dev, buf, len) ? buf : NULL;
}

static const char *check_global(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check(p, dev, 0, buf, len);
}

static const char *check_shared(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check(p, dev, 1, buf, len);
}

/* ---- the variants ---------------------------------------------------------------------- */

static const struct gh_impl im_global = { prepare_global };
static const struct gh_impl im_shared = { prepare_shared };

#define PB(x) GL_PBIT(GL_P_##x)
#define STENCIL (PB(N) | PB(R) | PB(BS) | PB(K) | PB(CACHE) | PB(SEED))

const struct gl_variant gh_stencil_variants[] = {
    { "stencil", "global", "gpu", "global memory, K consecutive outputs per thread along the row",
      STENCIL, check_global, gl_stencil_flops, gl_stencil_bytes, gh_run, &im_global },
    { "stencil", "shared", "gpu", "shared tile (BS+2R) x (K*BS+2R) with an R-wide halo", STENCIL,
      check_shared, gl_stencil_flops, gl_stencil_bytes, gh_run, &im_shared },
};

const int gh_stencil_nvariants =
    (int)(sizeof gh_stencil_variants / sizeof gh_stencil_variants[0]);

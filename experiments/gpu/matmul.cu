/* matmul.cu - the GPU matrix-product family (C = A.B, float, row-major): the
 * square kernels global and shared (K outputs per thread, grid geometry 2d / 1d /
 * block, three memory modes), the bounds-checked non-square naive_rect and
 * tiled_rect, and the cuBLAS SGEMM reference row. Each variant is one kernel
 * (templated where BS or K must be compile-time) plus a launcher, and a check
 * that rejects, before anything runs, every point the run would reject (the
 * BS values a template was built for included); the table at the end declares
 * each variant, once.
 * It also gives the float64 reference of an output element (a device kernel
 * whose array the harness caches, or a functor) for the on-device check.
 * Must not time, verify or allocate: the harness (harness_*.cu) does that for
 * every family. */
#include "gpu_harness.cuh"

#include <cublas_v2.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "family.h"
#include "reference.h"
}
#include "gpu_limits.h"

/* ---- kernels --------------------------------------------------------------------- */

/* global: block (K*BS) x BS threads computes a (K*BS) x (K*BS) tile of C; thread
 * (tx, ty) computes c[row + q*BS][col] for q < K straight from global memory.
 * (bx0, by0) offset the tile so that the 1d and block geometries can launch
 * parts of the grid. Needs n % (K*BS) == 0. */
template <int K>
__global__ void matmul_global(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ c, int n, int bx0, int by0)
{
    const int bs = blockDim.y;
    const int col = (blockIdx.x + bx0) * (K * bs) + threadIdx.x;
    const int row = (blockIdx.y + by0) * (K * bs) + threadIdx.y;
    float acc[K];
#pragma unroll
    for (int q = 0; q < K; q++)
        acc[q] = 0.0f;
    for (int e = 0; e < n; e++) {
        const float bv = b[e * n + col];
#pragma unroll
        for (int q = 0; q < K; q++)
            acc[q] += a[(row + q * bs) * n + e] * bv;
    }
#pragma unroll
    for (int q = 0; q < K; q++)
        c[(row + q * bs) * n + col] = acc[q];
}

/* shared: the same tile, staged through shared memory: sm_a holds K*BS rows of
 * A by BS columns, sm_b BS rows of B by K*BS columns; two barriers per tile. */
template <int BS, int K>
__global__ void matmul_shared(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ c, int n, int bx0, int by0)
{
    __shared__ float sm_a[K * BS][BS];
    __shared__ float sm_b[BS][K * BS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = (blockIdx.y + by0) * (K * BS);
    const int col0 = (blockIdx.x + bx0) * (K * BS);
    /* K*BS*BS threads load the K*BS x BS slice of A, one element each. */
    const int lin = ty * (K * BS) + tx;
    const int ar = lin / BS, ac = lin % BS;
    float acc[K];
#pragma unroll
    for (int q = 0; q < K; q++)
        acc[q] = 0.0f;
    for (int e0 = 0; e0 < n; e0 += BS) {
        sm_a[ar][ac] = a[(row0 + ar) * n + e0 + ac];
        sm_b[ty][tx] = b[(e0 + ty) * n + col0 + tx];
        __syncthreads();
#pragma unroll
        for (int e = 0; e < BS; e++) {
            const float bv = sm_b[e][tx];
#pragma unroll
            for (int q = 0; q < K; q++)
                acc[q] += sm_a[ty + q * BS][e] * bv;
        }
        __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < K; q++)
        c[(row0 + ty + q * BS) * n + col0 + tx] = acc[q];
}

/* naive_rect: C (m x n) = A (m x p) . B (p x n), one output per thread,
 * bounds-checked so that no size needs to be a multiple of the block. */
__global__ void matmul_naive_rect(const float *__restrict__ a, const float *__restrict__ b,
                                  float *__restrict__ c, int m, int n, int p)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float acc = 0.0f;
    for (int e = 0; e < p; e++)
        acc += a[row * p + e] * b[e * n + col];
    c[row * n + col] = acc;
}

/* tiled_rect: TILE x TILE tiles ds_M of A and ds_N of B; elements outside the
 * matrices load as 0, so partial tiles need no special case. */
template <int TILE>
__global__ void matmul_tiled_rect(const float *__restrict__ a, const float *__restrict__ b,
                                  float *__restrict__ c, int m, int n, int p)
{
    __shared__ float ds_M[TILE][TILE];
    __shared__ float ds_N[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int ph = 0; ph < (p + TILE - 1) / TILE; ph++) {
        const int ac = ph * TILE + tx;
        const int br = ph * TILE + ty;
        ds_M[ty][tx] = (row < m && ac < p) ? a[row * p + ac] : 0.0f;
        ds_N[ty][tx] = (br < p && col < n) ? b[br * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int e = 0; e < TILE; e++)
            acc += ds_M[ty][e] * ds_N[e][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}

/* ---- kernel selection -------------------------------------------------------------- */

typedef void (*square_fn)(const float *, const float *, float *, int, int, int);
typedef void (*rect_fn)(const float *, const float *, float *, int, int, int);

static square_fn global_kernel(long k)
{
    switch (k) {
    case 1: return matmul_global<1>;
    case 2: return matmul_global<2>;
    case 3: return matmul_global<3>;
    case 4: return matmul_global<4>;
    }
    return NULL;
}

template <int BS>
static square_fn shared_kernel_k(long k)
{
    switch (k) {
    case 1: return matmul_shared<BS, 1>;
    case 2: return matmul_shared<BS, 2>;
    case 3: return matmul_shared<BS, 3>;
    case 4: return matmul_shared<BS, 4>;
    }
    return NULL;
}

/* BS is a template argument of the shared kernels: these are the built ones. */
static square_fn shared_kernel(long bs, long k)
{
    switch (bs) {
    case 1: return shared_kernel_k<1>(k);
    case 2: return shared_kernel_k<2>(k);
    case 4: return shared_kernel_k<4>(k);
    case 8: return shared_kernel_k<8>(k);
    case 16: return shared_kernel_k<16>(k);
    case 32: return shared_kernel_k<32>(k);
    }
    return NULL;
}

static rect_fn tiled_rect_kernel(long bs)
{
    switch (bs) {
    case 1: return matmul_tiled_rect<1>;
    case 2: return matmul_tiled_rect<2>;
    case 4: return matmul_tiled_rect<4>;
    case 8: return matmul_tiled_rect<8>;
    case 16: return matmul_tiled_rect<16>;
    case 32: return matmul_tiled_rect<32>;
    }
    return NULL;
}

/* 1 when the run has a kernel for BS (and K): read off the same switches the
 * run picks its kernel from, so that the check cannot drift from them. */
static int built(int tiled, long bs, long k)
{
    return tiled ? tiled_rect_kernel(bs) != NULL : shared_kernel(bs, k) != NULL;
}

/* "<name> is built for BS in 1, 2, 4, ... (BS=<bs>)", the list from built(). */
static const char *not_built(const char *name, int tiled, long bs, char *buf, size_t len)
{
    char list[256] = "";
    size_t used = 0;
    for (long b = 1; b <= GH_STATIC_MAX_THREADS; b++) {
        if (!built(tiled, b, 1))
            continue;
        int w = snprintf(list + used, sizeof list - used, "%s%ld", used ? ", " : "", b);
        if (w < 0 || (size_t)w >= sizeof list - used)
            break;
        used += (size_t)w;
    }
    snprintf(buf, len, "%s is built for BS in %s (BS=%ld)", name, list, bs);
    return buf;
}

/* ---- launchers ---------------------------------------------------------------------- */

enum mm_grid { MM_GRID_2D, MM_GRID_1D, MM_GRID_BLOCK };

struct mm_ctx {
    square_fn square;     /* global / shared */
    rect_fn rect;         /* naive_rect / tiled_rect */
    enum mm_grid geometry;
    int tiles;            /* tiles per side (square) */
    int m, n, p;
};

static cublasHandle_t mm_cublas;   /* created on the first cublas run, kept until shutdown */

/* 2d: one launch of tiles x tiles blocks; 1d: one launch per block-row; block:
 * one launch per tile. */
static cudaError_t enqueue_square(struct gh_job *j)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    const float *a = j->in[0].dev, *b = j->in[1].dev;
    float *c = j->out[0].dev;
    switch (x->geometry) {
    case MM_GRID_2D:
        x->square<<<j->grid, j->block>>>(a, b, c, x->n, 0, 0);
        break;
    case MM_GRID_1D:
        for (int row = 0; row < x->tiles; row++)
            x->square<<<j->grid, j->block>>>(a, b, c, x->n, 0, row);
        break;
    case MM_GRID_BLOCK:
        for (int row = 0; row < x->tiles; row++)
            for (int col = 0; col < x->tiles; col++)
                x->square<<<j->grid, j->block>>>(a, b, c, x->n, col, row);
        break;
    }
    return cudaGetLastError();
}

static cudaError_t enqueue_rect(struct gh_job *j)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    x->rect<<<j->grid, j->block>>>(j->in[0].dev, j->in[1].dev, j->out[0].dev, x->m, x->n, x->p);
    return cudaGetLastError();
}

/* Row-major C = A.B is column-major C^T = B^T.A^T: hand cuBLAS B first. */
static cudaError_t enqueue_cublas(struct gh_job *j)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t s = cublasSgemm(mm_cublas, CUBLAS_OP_N, CUBLAS_OP_N, x->n, x->m, x->p, &one,
                                   j->in[1].dev, x->n, j->in[0].dev, x->p, &zero, j->out[0].dev,
                                   x->n);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(j->lib_err, sizeof j->lib_err, "cublasSgemm: %s", cublasGetStatusString(s));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

/* ---- the float64 reference and the check, on the device ------------------------- */

#define MM_REF_TILE 16

/* C = A.B in double (A m x p, B p x n, row-major): 16 x 16 tiles through
 * shared memory, every product and sum in double. */
__global__ void matmul_ref_f64(const float *__restrict__ a, const float *__restrict__ b,
                               double *__restrict__ c, int m, int n, int p)
{
    __shared__ double ta[MM_REF_TILE][MM_REF_TILE], tb[MM_REF_TILE][MM_REF_TILE];
    int row = blockIdx.y * MM_REF_TILE + threadIdx.y, col = blockIdx.x * MM_REF_TILE + threadIdx.x;
    double s = 0.0;
    for (int t = 0; t < p; t += MM_REF_TILE) {
        int ka = t + threadIdx.x, kb = t + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = row < m && ka < p ? (double)a[(size_t)row * p + ka] : 0.0;
        tb[threadIdx.y][threadIdx.x] = kb < p && col < n ? (double)b[(size_t)kb * n + col] : 0.0;
        __syncthreads();
        for (int k = 0; k < MM_REF_TILE; k++)
            s += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = s;
}

static cudaError_t mm_devref(const struct gh_job *j, float *const *in, double *out)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    dim3 block(MM_REF_TILE, MM_REF_TILE);
    dim3 grid((unsigned)((x->n + MM_REF_TILE - 1) / MM_REF_TILE),
              (unsigned)((x->m + MM_REF_TILE - 1) / MM_REF_TILE));
    matmul_ref_f64<<<grid, block>>>(in[0], in[1], out, x->m, x->n, x->p);
    return cudaGetLastError();
}

/* Common to every variant: sizes, memory, cache; fills the job's buffers. The
 * variant's check has passed (gh_begin): sizes >= 1 and int-indexable, known words. */
static int mm_job(struct gh_job *j, struct mm_ctx *x, long m, long n, long p)
{
    if (gh_parse_mem(j->p->mem, &j->mem) != 0 || gh_parse_cold(j->p->cache, &j->cold) != 0)
        return gh_fail(j->r, "internal: mem or cache word passed the check but does not parse");
    x->m = (int)m;
    x->n = (int)n;
    x->p = (int)p;
    j->nin = 2;
    j->in_count[0] = (size_t)m * (size_t)p;
    j->in_count[1] = (size_t)p * (size_t)n;
    j->out_count[0] = (size_t)m * (size_t)n;
    j->tol_len = p;
    j->row_len = n;
    gh_use_devref(j, mm_devref, "matmul", m, n, p);
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return 1;
}

static int parse_grid(const char *s, enum mm_grid *g)
{
    if (!s || !s[0] || strcmp(s, "2d") == 0)
        *g = MM_GRID_2D;
    else if (strcmp(s, "1d") == 0)
        *g = MM_GRID_1D;
    else if (strcmp(s, "block") == 0)
        *g = MM_GRID_BLOCK;
    else
        return -1;
    return 0;
}

/* global and shared: block K*BS x BS, tiles of K*BS, the geometry's launches.
 * Every rule on N, BS, K, grid and mem is check_square's. */
static int prepare_square(struct gh_job *j, struct mm_ctx *x, int shared)
{
    const struct gl_params *p = j->p;
    long n = p->n, bs = p->bs, k = p->k == GL_UNSET ? 1 : p->k;
    x->square = shared ? shared_kernel(bs, k) : global_kernel(k);
    if (!x->square || parse_grid(p->grid, &x->geometry) != 0)
        return gh_fail(j->r, "internal: no kernel or grid for a point that passed the check");
    if (!mm_job(j, x, n, n, n))
        return 0;
    x->tiles = (int)(n / (k * bs));
    j->kernel = (const void *)x->square;
    j->block = dim3((unsigned)(k * bs), (unsigned)bs);
    switch (x->geometry) {
    case MM_GRID_2D:
        j->grid = dim3((unsigned)x->tiles, (unsigned)x->tiles);
        j->launches = 1;
        break;
    case MM_GRID_1D:
        j->grid = dim3((unsigned)x->tiles, 1);
        j->launches = x->tiles;
        break;
    case MM_GRID_BLOCK:
        j->grid = dim3(1, 1);
        j->launches = x->tiles * x->tiles;   /* <= MM_MAX_BLOCK_LAUNCHES (check_square) */
        break;
    }
    j->enqueue = enqueue_square;
    return gh_check_launch(j->r, j->kernel, j->grid, j->block, 0);
}

static int prepare_global(struct gh_job *j, void *ctx)
{
    struct mm_ctx *x = (struct mm_ctx *)ctx;
    return prepare_square(j, x, 0);
}

static int prepare_shared(struct gh_job *j, void *ctx)
{
    struct mm_ctx *x = (struct mm_ctx *)ctx;
    return prepare_square(j, x, 1);
}

/* M, N, P default to N when unset (square problem). */
static void rect_sizes(const struct gl_params *p, long *m, long *n, long *k)
{
    *n = p->n;
    *m = p->m == GL_UNSET ? p->n : p->m;
    *k = p->p == GL_UNSET ? p->n : p->p;
}

/* naive_rect and tiled_rect: block BS x BS over the M x N output. Every rule on
 * M, N, P, BS and mem is check_rect's. */
static int prepare_rect(struct gh_job *j, struct mm_ctx *x, int tiled)
{
    const struct gl_params *p = j->p;
    long m, n, k, bs = p->bs;
    rect_sizes(p, &m, &n, &k);
    x->rect = tiled ? tiled_rect_kernel(bs) : matmul_naive_rect;
    if (!x->rect)
        return gh_fail(j->r, "internal: no kernel for a point that passed the check");
    if (!mm_job(j, x, m, n, k))
        return 0;
    j->kernel = (const void *)x->rect;
    j->block = dim3((unsigned)bs, (unsigned)bs);
    j->grid = dim3((unsigned)((n + bs - 1) / bs), (unsigned)((m + bs - 1) / bs));
    j->launches = 1;
    j->enqueue = enqueue_rect;
    return gh_check_launch(j->r, j->kernel, j->grid, j->block, 0);
}

static int prepare_naive_rect(struct gh_job *j, void *ctx)
{
    struct mm_ctx *x = (struct mm_ctx *)ctx;
    return prepare_rect(j, x, 0);
}

static int prepare_tiled_rect(struct gh_job *j, void *ctx)
{
    struct mm_ctx *x = (struct mm_ctx *)ctx;
    return prepare_rect(j, x, 1);
}

/* cuBLAS SGEMM with the default (FP32) math mode; only device memory. */
static int prepare_cublas(struct gh_job *j, void *ctx)
{
    struct mm_ctx *x = (struct mm_ctx *)ctx;
    struct gl_result *r = j->r;
    long m, n, k;
    rect_sizes(j->p, &m, &n, &k);
    if (!mm_job(j, x, m, n, k))
        return 0;
    if (!mm_cublas) {
        cublasStatus_t s = cublasCreate(&mm_cublas);
        if (s != CUBLAS_STATUS_SUCCESS) {
            mm_cublas = NULL;
            return gh_fail(r, "cublasCreate: %s", cublasGetStatusString(s));
        }
    }
    j->kernel = NULL;   /* library call: no kernel of ours, no resources */
    j->launches = 1;
    j->enqueue = enqueue_cublas;
    return 1;
}

/* ---- plan-time checks ------------------------------------------------------------------ */

/* grid = block is one launch per tile; more than this would take hours. */
#define MM_MAX_BLOCK_LAUNCHES 1048576L

/* What every variant's run needs of M, N, P, mem and cache: 0, or 1 with the
 * reason in buf. */
static int check_job(const struct gl_params *p, long m, long n, long k, char *buf, size_t len)
{
    enum gh_mem mem;
    int cold;
    if (m < 1 || n < 1 || k < 1) {
        snprintf(buf, len, "M, N and P must be >= 1 (M=%ld N=%ld P=%ld)", m, n, k);
        return 1;
    }
    if (!gh_fits_int2(m, k) || !gh_fits_int2(k, n) || !gh_fits_int2(m, n)) {
        snprintf(buf, len, "matrices over 2^31 elements are not supported (int indexing)");
        return 1;
    }
    if (gh_parse_mem(p->mem, &mem) != 0) {
        snprintf(buf, len, "unknown mem '%s' (device, zerocopy, managed)", p->mem);
        return 1;
    }
    if (gh_parse_cold(p->cache, &cold) != 0) {
        snprintf(buf, len, "unknown cache '%s' (cold, warm)", p->cache);
        return 1;
    }
    return 0;
}

/* global and shared: K 1..4, the grid word, block K*BS x BS, the BS values the
 * shared template was built for and its tiles, N a multiple of K*BS, the
 * geometry's grid or launch count. */
static const char *check_square(const struct gl_params *p, const struct gl_device *dev,
                                int shared, char *buf, size_t len)
{
    long n = p->n, bs = p->bs, k = p->k == GL_UNSET ? 1 : p->k;
    enum mm_grid geometry;
    if (n < 1 || bs < 1) {
        snprintf(buf, len, "N and BS must be >= 1 (N=%ld BS=%ld)", n, bs);
        return buf;
    }
    if (k < 1 || k > 4) {
        snprintf(buf, len, "K=%ld is not in 1..4", k);
        return buf;
    }
    if (parse_grid(p->grid, &geometry) != 0) {
        snprintf(buf, len, "unknown grid '%s' (2d, 1d, block)", p->grid);
        return buf;
    }
    if (bs > GH_STATIC_MAX_THREADS) {
        snprintf(buf, len, "BS=%ld is over any device's block limit", bs);
        return buf;
    }
    if (gh_over_threads(k * bs * bs, dev, "K*BS*BS", buf, len) ||
        gh_over_block(k * bs, bs, dev, buf, len))
        return buf;
    if (shared && !built(0, bs, k))
        return not_built("shared", 0, bs, buf, len);
    if (shared && gh_over_smem(2.0 * k * bs * bs * 4, gh_smem_static(dev), "2*K*BS*BS*4", buf, len))
        return buf;
    if (n % (k * bs) != 0) {
        snprintf(buf, len, "N=%ld is not a multiple of K*BS=%ld", n, k * bs);
        return buf;
    }
    /* the launch shape first, then what the sizes need (int indexing, mem, cache) */
    long tiles = n / (k * bs);
    switch (geometry) {
    case MM_GRID_2D:
        if (gh_over_grid(tiles, tiles, dev, buf, len))
            return buf;
        break;
    case MM_GRID_1D:
        if (gh_over_grid(tiles, 1, dev, buf, len))
            return buf;
        break;
    case MM_GRID_BLOCK:
        if (tiles > 46341 || tiles * tiles > MM_MAX_BLOCK_LAUNCHES) {   /* no overflow */
            snprintf(buf, len, "grid=block needs (N/(K*BS))^2=%.0f launches, more than %ld",
                     (double)tiles * (double)tiles, MM_MAX_BLOCK_LAUNCHES);
            return buf;
        }
        break;
    }
    return check_job(p, n, n, n, buf, len) ? buf : NULL;
}

static const char *check_global(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check_square(p, dev, 0, buf, len);
}

static const char *check_shared(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check_square(p, dev, 1, buf, len);
}

/* naive_rect and tiled_rect: block BS x BS over an M x N output, the BS values
 * the tiled template was built for and its tiles. */
static const char *check_rect(const struct gl_params *p, const struct gl_device *dev, int tiled,
                              char *buf, size_t len)
{
    long m, n, k, bs = p->bs;
    rect_sizes(p, &m, &n, &k);
    if (bs < 1 || bs > GH_STATIC_MAX_THREADS) {
        snprintf(buf, len, "BS must be 1..1024 (BS=%ld)", bs);
        return buf;
    }
    if (gh_over_threads(bs * bs, dev, "BS*BS", buf, len) || gh_over_block(bs, bs, dev, buf, len))
        return buf;
    if (tiled && !built(1, bs, 1))
        return not_built("tiled_rect", 1, bs, buf, len);
    if (tiled && gh_over_smem(2.0 * bs * bs * 4, gh_smem_static(dev), "2*BS*BS*4", buf, len))
        return buf;
    if (check_job(p, m, n, k, buf, len))
        return buf;
    return gh_over_grid(gh_ceil_div(n, bs), gh_ceil_div(m, bs), dev, buf, len) ? buf : NULL;
}

static const char *check_naive_rect(const struct gl_variant *v, const struct gl_params *p,
                                    const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check_rect(p, dev, 0, buf, len);
}

static const char *check_tiled_rect(const struct gl_variant *v, const struct gl_params *p,
                                    const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    return check_rect(p, dev, 1, buf, len);
}

static const char *check_cublas(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    long m, n, k;
    (void)dev;
    rect_sizes(p, &m, &n, &k);
    return check_job(p, m, n, k, buf, len) ? buf : NULL;
}

/* ---- the variants ---------------------------------------------------------------------- */

void gh_matmul_shutdown(void)
{
    if (mm_cublas && !gh_context_lost())
        cublasDestroy(mm_cublas);
    mm_cublas = NULL;
}

static const struct gh_impl im_global = { prepare_global };
static const struct gh_impl im_shared = { prepare_shared };
static const struct gh_impl im_naive_rect = { prepare_naive_rect };
static const struct gh_impl im_tiled_rect = { prepare_tiled_rect };
static const struct gh_impl im_cublas = { prepare_cublas };

#define PB(x) GL_PBIT(GL_P_##x)
#define SQUARE (PB(N) | PB(BS) | PB(K) | PB(GRID) | PB(MEM) | PB(CACHE) | PB(SEED))
#define RECT (PB(M) | PB(N) | PB(P) | PB(BS) | PB(CACHE) | PB(SEED))

const struct gl_variant gh_matmul_variants[] = {
    { "matmul", "global", "gpu",
      "global memory; block K*BS x BS, K outputs per thread; grid 2d/1d/block, mem kinds", SQUARE,
      check_global, gl_matmul_flops, gl_matmul_bytes, gh_run, &im_global },
    { "matmul", "shared", "gpu", "shared-memory tiles (sm_a, sm_b), same shapes as global",
      SQUARE, check_shared, gl_matmul_flops, gl_matmul_bytes, gh_run, &im_shared },
    { "matmul", "naive_rect", "gpu", "non-square, bounds-checked, one output per thread", RECT,
      check_naive_rect, gl_matmul_flops, gl_matmul_bytes, gh_run, &im_naive_rect },
    { "matmul", "tiled_rect", "gpu", "non-square TILE_WIDTH=BS shared tiles, bounds-checked",
      RECT, check_tiled_rect, gl_matmul_flops, gl_matmul_bytes, gh_run, &im_tiled_rect },
    { "matmul", "cublas", "gpu", "cuBLAS SGEMM (default FP32 math), the library reference",
      PB(M) | PB(N) | PB(P) | PB(CACHE) | PB(SEED), check_cublas, gl_matmul_flops,
      gl_matmul_bytes, gh_run, &im_cublas },
};

const int gh_matmul_nvariants = (int)(sizeof gh_matmul_variants / sizeof gh_matmul_variants[0]);

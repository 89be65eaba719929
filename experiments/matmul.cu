/* matmul.cu - the GPU matrix-product family (C = A.B, float, row-major): the
 * square kernels global and shared (K outputs per thread, grid geometry 2d / 1d /
 * block, three memory modes), the bounds-checked non-square naive_rect and
 * tiled_rect, and the cuBLAS SGEMM reference row. Each variant is one kernel
 * (templated where BS or K must be compile-time) plus a launcher; the table at
 * the end maps variant names to launchers.
 * Must not time, verify or allocate: gpu_harness.cu does that for every family. */
#include "gpu_harness.cuh"

#include <cublas_v2.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "reference.h"
}

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
    float *c = j->out.dev;
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
    x->rect<<<j->grid, j->block>>>(j->in[0].dev, j->in[1].dev, j->out.dev, x->m, x->n, x->p);
    return cudaGetLastError();
}

/* Row-major C = A.B is column-major C^T = B^T.A^T: hand cuBLAS B first. */
static cudaError_t enqueue_cublas(struct gh_job *j)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t s = cublasSgemm(mm_cublas, CUBLAS_OP_N, CUBLAS_OP_N, x->n, x->m, x->p, &one,
                                   j->in[1].dev, x->n, j->in[0].dev, x->p, &zero, j->out.dev,
                                   x->n);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(j->lib_err, sizeof j->lib_err, "cublasSgemm: %s", cublasGetStatusString(s));
        return cudaErrorUnknown;
    }
    return cudaGetLastError();
}

static const double *mm_reference(const struct gh_job *j, char *err, size_t errlen)
{
    const struct mm_ctx *x = (const struct mm_ctx *)j->ctx;
    return gl_ref_matmul(j->in[0].host, j->in[1].host, x->m, x->n, x->p, j->p->seed, err, errlen);
}

/* Common to every variant: sizes, memory, cache; fills the job's buffers. */
static int mm_job(struct gh_job *j, struct mm_ctx *x, long m, long n, long p)
{
    struct gl_result *r = j->r;
    if (m < 1 || n < 1 || p < 1)
        return gh_skip(r, "M, N and P must be >= 1 (M=%ld N=%ld P=%ld)", m, n, p);
    if (!gh_fits_int((size_t)m * (size_t)p) || !gh_fits_int((size_t)p * (size_t)n) ||
        !gh_fits_int((size_t)m * (size_t)n))
        return gh_skip(r, "matrices over 2^31 elements are not supported (int indexing)");
    if (gh_parse_mem(j->p->mem, &j->mem) != 0)
        return gh_skip(r, "unknown mem '%s' (device, zerocopy, managed)", j->p->mem);
    if (gh_parse_cold(j->p->cache, &j->cold) != 0)
        return gh_skip(r, "unknown cache '%s' (cold, warm)", j->p->cache);
    x->m = (int)m;
    x->n = (int)n;
    x->p = (int)p;
    j->nin = 2;
    j->in_count[0] = (size_t)m * (size_t)p;
    j->in_count[1] = (size_t)p * (size_t)n;
    j->out_count = (size_t)m * (size_t)n;
    j->tol_len = p;
    j->reference = mm_reference;
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

/* global and shared: N, BS, K (1..4), grid, mem. */
static int prepare_square(struct gh_job *j, struct mm_ctx *x, int shared)
{
    const struct gl_params *p = j->p;
    struct gl_result *r = j->r;
    long n = p->n, bs = p->bs, k = p->k == GL_UNSET ? 1 : p->k;
    if (n < 1 || bs < 1)
        return gh_skip(r, "N and BS must be >= 1 (N=%ld BS=%ld)", n, bs);
    if (k < 1 || k > 4)
        return gh_skip(r, "K must be 1..4 (K=%ld)", k);
    if (parse_grid(p->grid, &x->geometry) != 0)
        return gh_skip(r, "unknown grid '%s' (2d, 1d, block)", p->grid);
    if (k * bs * bs > 1024 * 1024)
        return gh_skip(r, "block of %ld threads is far over any device limit", k * bs * bs);
    if (n % (k * bs) != 0)
        return gh_skip(r, "N=%ld is not a multiple of K*BS=%ld", n, k * bs);
    x->square = shared ? shared_kernel(bs, k) : global_kernel(k);
    if (!x->square)
        return gh_skip(r, "shared is built for BS in 1, 2, 4, 8, 16, 32 (BS=%ld)", bs);
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
        if ((long)x->tiles * x->tiles > 0x7fffffffL)
            return gh_skip(r, "%d x %d single-block launches are too many", x->tiles, x->tiles);
        j->launches = x->tiles * x->tiles;
        break;
    }
    j->enqueue = enqueue_square;
    return gh_check_launch(r, j->kernel, j->grid, j->block, 0);
}

static int prepare_global(struct gh_job *j, struct mm_ctx *x)
{
    return prepare_square(j, x, 0);
}

static int prepare_shared(struct gh_job *j, struct mm_ctx *x)
{
    return prepare_square(j, x, 1);
}

/* M, N, P default to N when unset (square problem). */
static void rect_sizes(const struct gl_params *p, long *m, long *n, long *k)
{
    *n = p->n;
    *m = p->m == GL_UNSET ? p->n : p->m;
    *k = p->p == GL_UNSET ? p->n : p->p;
}

static int prepare_rect(struct gh_job *j, struct mm_ctx *x, int tiled)
{
    const struct gl_params *p = j->p;
    struct gl_result *r = j->r;
    long m, n, k, bs = p->bs;
    rect_sizes(p, &m, &n, &k);
    if (bs < 1 || bs > 1024)
        return gh_skip(r, "BS must be 1..1024 (BS=%ld)", bs);
    if (tiled) {
        x->rect = tiled_rect_kernel(bs);
        if (!x->rect)
            return gh_skip(r, "tiled_rect is built for BS in 1, 2, 4, 8, 16, 32 (BS=%ld)", bs);
    } else {
        x->rect = matmul_naive_rect;
    }
    if (!mm_job(j, x, m, n, k))
        return 0;
    j->kernel = (const void *)x->rect;
    j->block = dim3((unsigned)bs, (unsigned)bs);
    j->grid = dim3((unsigned)((n + bs - 1) / bs), (unsigned)((m + bs - 1) / bs));
    j->launches = 1;
    j->enqueue = enqueue_rect;
    return gh_check_launch(r, j->kernel, j->grid, j->block, 0);
}

static int prepare_naive_rect(struct gh_job *j, struct mm_ctx *x)
{
    return prepare_rect(j, x, 0);
}

static int prepare_tiled_rect(struct gh_job *j, struct mm_ctx *x)
{
    return prepare_rect(j, x, 1);
}

/* cuBLAS SGEMM with the default (FP32) math mode; only device memory. */
static int prepare_cublas(struct gh_job *j, struct mm_ctx *x)
{
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

/* ---- the family table ---------------------------------------------------------------- */

struct mm_variant {
    const char *name;
    int (*prepare)(struct gh_job *j, struct mm_ctx *x);
};

static const struct mm_variant mm_variants[] = {
    { "global", prepare_global },
    { "shared", prepare_shared },
    { "naive_rect", prepare_naive_rect },
    { "tiled_rect", prepare_tiled_rect },
    { "cublas", prepare_cublas },
};

static const struct mm_variant *mm_find(const char *name)
{
    for (size_t i = 0; i < sizeof mm_variants / sizeof mm_variants[0]; i++)
        if (strcmp(mm_variants[i].name, name) == 0)
            return &mm_variants[i];
    return NULL;
}

static int mm_has(const char *variant)
{
    return mm_find(variant) != NULL;
}

static int mm_run(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r)
{
    const struct mm_variant *v = mm_find(variant);
    struct gh_job j = {};
    struct mm_ctx x;
    memset(&x, 0, sizeof x);
    if (!v)
        return gh_skip(r, "matmul has no GPU variant '%s'", variant);
    j.p = p;
    j.t = t;
    j.r = r;
    if (!v->prepare(&j, &x))
        return gh_context_lost() ? -1 : 0;
    return gh_execute(&j);
}

static void mm_shutdown(void)
{
    if (mm_cublas && !gh_context_lost())
        cublasDestroy(mm_cublas);
    mm_cublas = NULL;
}

const struct gh_family gh_family_matmul = { "matmul", mm_has, mm_run, mm_shutdown };

/* registry.c - the variant registry (see registry.h): every kernel variant and CPU
 * baseline, the parameters it reads, the launches it rejects before anything runs,
 * its analytic FLOP and minimum-byte counts, and the defaults a run gets for
 * parameters the config leaves unset. This table is the one place a variant is
 * declared; the driver, `gpulab list` and the docs test all read it.
 * Must not contain kernels, timing or CUDA calls: checks use the device
 * description only (static limits when no GPU is known). */
#include "registry.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"

/* Limits used when no GPU is known (every CUDA GPU since compute capability 2.0). */
#define STATIC_MAX_THREADS 1024
#define STATIC_SMEM_PER_BLOCK (48 * 1024)
#define STATIC_GRID_Y 65535
/* grid = block is one launch per tile; more than this would take hours. */
#define MAX_BLOCK_LAUNCHES 1048576L

/* ---- device limits ---------------------------------------------------------- */

static long max_threads(const struct gl_device *gpu)
{
    return gpu && gpu->max_threads_per_block > 0 ? gpu->max_threads_per_block : STATIC_MAX_THREADS;
}

/* Static shared memory: the per-block limit without opt-in. */
static long smem_static(const struct gl_device *gpu)
{
    return gpu && gpu->smem_per_block > 0 ? gpu->smem_per_block : STATIC_SMEM_PER_BLOCK;
}

/* Dynamic shared memory: the harness opts in to the larger limit where there is one. */
static long smem_dynamic(const struct gl_device *gpu)
{
    if (gpu && gpu->smem_per_block_optin > 0)
        return gpu->smem_per_block_optin;
    return smem_static(gpu);
}

static long grid_y(const struct gl_device *gpu)
{
    return gpu && gpu->max_grid[1] > 0 ? gpu->max_grid[1] : STATIC_GRID_Y;
}

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

/* A problem size from the params, with M and P falling back to N (square runs). */
static double dim(const struct gl_params *p, long v)
{
    return (double)(v == GL_UNSET ? p->n : v);
}

/* Each limit helper returns 1 and writes the reason into buf when the launch is
 * over the limit, 0 when it fits. */
static int over_block(long threads, const struct gl_device *gpu, const char *what, char *buf,
                      size_t len)
{
    if (threads <= max_threads(gpu))
        return 0;
    snprintf(buf, len, "block of %s=%ld threads exceeds the device limit of %ld", what, threads,
             max_threads(gpu));
    return 1;
}

static int over_smem(long bytes, long limit, const char *what, char *buf, size_t len)
{
    if (bytes <= limit)
        return 0;
    snprintf(buf, len, "%s=%ld bytes of shared memory exceed the limit of %ld per block", what,
             bytes, limit);
    return 1;
}

static int over_rows(long rows, const struct gl_device *gpu, char *buf, size_t len)
{
    if (rows <= grid_y(gpu))
        return 0;
    snprintf(buf, len, "grid of %ld block rows exceeds the device limit of %ld", rows, grid_y(gpu));
    return 1;
}

/* ---- matmul ----------------------------------------------------------------- */

static const char *check_square(const struct gl_params *p, const struct gl_device *gpu, int shared,
                                char *buf, size_t len)
{
    long n = p->n, bs = p->bs, k = p->k;
    if (k < 1 || k > 4) {
        snprintf(buf, len, "K=%ld is not in 1..4", k);
        return buf;
    }
    if (bs > 1024) {
        snprintf(buf, len, "BS=%ld is over any device's block limit", bs);
        return buf;
    }
    if (over_block(k * bs * bs, gpu, "K*BS*BS", buf, len))
        return buf;
    if (shared && over_smem(2 * k * bs * bs * 4, smem_static(gpu), "2*K*BS*BS*4", buf, len))
        return buf;
    if (n % (k * bs) != 0) {
        snprintf(buf, len, "N=%ld is not a multiple of K*BS=%ld", n, k * bs);
        return buf;
    }
    long tiles = n / (k * bs);
    if (strcmp(p->grid, "block") == 0 && tiles > 1024) {   /* tiles^2 > 2^20, no overflow */
        snprintf(buf, len, "grid=block needs (N/(K*BS))^2=%ld launches, more than %ld",
                 tiles * tiles, MAX_BLOCK_LAUNCHES);
        return buf;
    }
    if (strcmp(p->grid, "2d") == 0 && over_rows(tiles, gpu, buf, len))
        return buf;
    return NULL;
}

static const char *check_global(const struct gl_params *p, const struct gl_device *gpu, char *buf,
                                size_t len)
{
    return check_square(p, gpu, 0, buf, len);
}

static const char *check_shared(const struct gl_params *p, const struct gl_device *gpu, char *buf,
                                size_t len)
{
    return check_square(p, gpu, 1, buf, len);
}

static const char *check_rect(const struct gl_params *p, const struct gl_device *gpu, int tiled,
                              char *buf, size_t len)
{
    long bs = p->bs, m = p->m == GL_UNSET ? p->n : p->m;
    if (bs > 1024) {
        snprintf(buf, len, "BS=%ld is over any device's block limit", bs);
        return buf;
    }
    if (over_block(bs * bs, gpu, "BS*BS", buf, len))
        return buf;
    if (tiled && over_smem(2 * bs * bs * 4, smem_static(gpu), "2*BS*BS*4", buf, len))
        return buf;
    return over_rows(ceil_div(m, bs), gpu, buf, len) ? buf : NULL;
}

static const char *check_naive_rect(const struct gl_params *p, const struct gl_device *gpu,
                                    char *buf, size_t len)
{
    return check_rect(p, gpu, 0, buf, len);
}

static const char *check_tiled_rect(const struct gl_params *p, const struct gl_device *gpu,
                                    char *buf, size_t len)
{
    return check_rect(p, gpu, 1, buf, len);
}

static double mm_flops(const struct gl_params *p)
{
    return 2.0 * dim(p, p->m) * (double)p->n * dim(p, p->p);
}

static double mm_bytes(const struct gl_params *p)
{
    double m = dim(p, p->m), n = (double)p->n, k = dim(p, p->p);
    return 4.0 * (m * k + k * n + m * n);
}

/* ---- stencil ---------------------------------------------------------------- */

static int stencil_too_small(const struct gl_params *p, char *buf, size_t len)
{
    if (p->n > 2 * p->r)
        return 0;
    snprintf(buf, len, "N=%ld must exceed 2R=%ld", p->n, 2 * p->r);
    return 1;
}

static const char *check_stencil_cpu(const struct gl_params *p, const struct gl_device *gpu,
                                     char *buf, size_t len)
{
    (void)gpu;
    return stencil_too_small(p, buf, len) ? buf : NULL;
}

static const char *check_stencil(const struct gl_params *p, const struct gl_device *gpu, int shared,
                                 char *buf, size_t len)
{
    long bs = p->bs, k = p->k, r = p->r;
    if (stencil_too_small(p, buf, len))
        return buf;
    if (bs > 1024) {
        snprintf(buf, len, "BS=%ld is over any device's block limit", bs);
        return buf;
    }
    if (over_block(bs * bs, gpu, "BS*BS", buf, len))
        return buf;
    if (shared) {
        /* in double: K and R are not bounded by the block limit */
        double bytes = ((double)bs + 2.0 * r) * ((double)k * bs + 2.0 * r) * 4.0;
        if (bytes > (double)smem_dynamic(gpu)) {
            snprintf(buf, len, "(BS+2R)*(K*BS+2R)*4=%.0f bytes of shared memory exceed the limit "
                     "of %ld per block", bytes, smem_dynamic(gpu));
            return buf;
        }
    }
    return over_rows(ceil_div(p->n - 2 * p->r, bs), gpu, buf, len) ? buf : NULL;
}

static const char *check_stencil_global(const struct gl_params *p, const struct gl_device *gpu,
                                        char *buf, size_t len)
{
    return check_stencil(p, gpu, 0, buf, len);
}

static const char *check_stencil_shared(const struct gl_params *p, const struct gl_device *gpu,
                                        char *buf, size_t len)
{
    return check_stencil(p, gpu, 1, buf, len);
}

static double st_flops(const struct gl_params *p)
{
    double w = (double)(p->n - 2 * p->r), taps = (double)(2 * p->r + 1);
    return w > 0 ? w * w * taps * taps : 0.0;
}

static double st_bytes(const struct gl_params *p)
{
    double n = (double)p->n, w = (double)(p->n - 2 * p->r);
    return 4.0 * (n * n + (w > 0 ? w * w : 0.0));
}

/* ---- vecadd ----------------------------------------------------------------- */

static const char *check_vecadd(const struct gl_params *p, const struct gl_device *gpu, char *buf,
                                size_t len)
{
    return over_block(p->bs, gpu, "BS", buf, len) ? buf : NULL;
}

static double va_flops(const struct gl_params *p)
{
    return (double)p->n;
}

static double va_bytes(const struct gl_params *p)
{
    return 12.0 * (double)p->n;
}

/* ---- the table -------------------------------------------------------------- */

#define B(x) GL_PBIT(GL_P_##x)
#define SQUARE_GPU (B(N) | B(BS) | B(K) | B(GRID) | B(MEM) | B(CACHE) | B(SEED))
#define RECT_GPU (B(M) | B(N) | B(P) | B(BS) | B(CACHE) | B(SEED))
#define STENCIL_GPU (B(N) | B(R) | B(BS) | B(K) | B(CACHE) | B(SEED))

const struct gl_variant gl_variants[] = {
    { "matmul", "seq_ijk", "cpu", "sequential i-j-k", B(N) | B(SEED), NULL, mm_flops, mm_bytes,
      gl_cpu_matmul },
    { "matmul", "omp_ikj", "cpu", "OpenMP over rows, i-k-j (cache friendly)",
      B(N) | B(THREADS) | B(SEED), NULL, mm_flops, mm_bytes, gl_cpu_matmul },
    { "matmul", "omp_ijk", "cpu", "OpenMP over rows, i-j-k (naive order)",
      B(N) | B(THREADS) | B(SEED), NULL, mm_flops, mm_bytes, gl_cpu_matmul },
    { "matmul", "omp_rect", "cpu", "OpenMP over rows, i-k-j, non-square M x P . P x N",
      B(M) | B(N) | B(P) | B(THREADS) | B(SEED), NULL, mm_flops, mm_bytes, gl_cpu_matmul },
    { "matmul", "global", "gpu",
      "global memory; block K*BS x BS, K outputs per thread; grid 2d/1d/block, mem kinds",
      SQUARE_GPU, check_global, mm_flops, mm_bytes, NULL },
    { "matmul", "shared", "gpu", "shared-memory tiles (sm_a, sm_b), same shapes as global",
      SQUARE_GPU, check_shared, mm_flops, mm_bytes, NULL },
    { "matmul", "naive_rect", "gpu", "non-square, bounds-checked, one output per thread", RECT_GPU,
      check_naive_rect, mm_flops, mm_bytes, NULL },
    { "matmul", "tiled_rect", "gpu", "non-square TILE_WIDTH=BS shared tiles, bounds-checked",
      RECT_GPU, check_tiled_rect, mm_flops, mm_bytes, NULL },
    { "matmul", "cublas", "gpu", "cuBLAS SGEMM (default FP32 math), the library reference",
      B(M) | B(N) | B(P) | B(CACHE) | B(SEED), NULL, mm_flops, mm_bytes, NULL },
    { "stencil", "seq", "cpu", "sequential 4-loop box sum", B(N) | B(R) | B(SEED),
      check_stencil_cpu, st_flops, st_bytes, gl_cpu_stencil },
    { "stencil", "omp", "cpu", "OpenMP over output rows", B(N) | B(R) | B(THREADS) | B(SEED),
      check_stencil_cpu, st_flops, st_bytes, gl_cpu_stencil },
    { "stencil", "global", "gpu", "global memory, K consecutive outputs per thread along the row",
      STENCIL_GPU, check_stencil_global, st_flops, st_bytes, NULL },
    { "stencil", "shared", "gpu", "shared tile (BS+2R) x (K*BS+2R) with an R-wide halo",
      STENCIL_GPU, check_stencil_shared, st_flops, st_bytes, NULL },
    { "vecadd", "seq", "cpu", "sequential", B(N) | B(SEED), NULL, va_flops, va_bytes,
      gl_cpu_vecadd },
    { "vecadd", "omp", "cpu", "OpenMP parallel for", B(N) | B(THREADS) | B(SEED), NULL, va_flops,
      va_bytes, gl_cpu_vecadd },
    { "vecadd", "global", "gpu", "one element per thread", B(N) | B(BS) | B(CACHE) | B(SEED),
      check_vecadd, va_flops, va_bytes, NULL },
    { "vecadd", "gridstride", "gpu", "G blocks (0 = 4 x SMs) stride over the vector",
      B(N) | B(BS) | B(G) | B(CACHE) | B(SEED), check_vecadd, va_flops, va_bytes, NULL },
};

const int gl_nvariants = (int)(sizeof gl_variants / sizeof gl_variants[0]);

const struct gl_variant *gl_variant_find(const char *family, const char *name)
{
    for (int i = 0; i < gl_nvariants; i++)
        if (strcmp(gl_variants[i].family, family) == 0 && strcmp(gl_variants[i].name, name) == 0)
            return &gl_variants[i];
    return NULL;
}

int gl_family_known(const char *family)
{
    for (int i = 0; i < gl_nvariants; i++)
        if (strcmp(gl_variants[i].family, family) == 0)
            return 1;
    return 0;
}

/* Same rule as gl_param_nearest: close in case-insensitive edit distance. */
const char *gl_variant_nearest(const char *family, const char *name)
{
    const char *best = NULL;
    int bestd = -1;
    for (int i = 0; i < gl_nvariants; i++) {
        if (strcmp(gl_variants[i].family, family) != 0)
            continue;
        char a[64], b[64];
        size_t j;
        for (j = 0; name[j] && j + 1 < sizeof a; j++)
            a[j] = (char)(name[j] >= 'A' && name[j] <= 'Z' ? name[j] - 'A' + 'a' : name[j]);
        a[j] = '\0';
        snprintf(b, sizeof b, "%s", gl_variants[i].name);
        size_t la = strlen(a), lb = strlen(b), longer = la > lb ? la : lb;
        size_t shorter = la < lb ? la : lb;
        int d = gl_edit_distance(a, b);
        if ((size_t)d * 3 > longer && !(shorter >= 3 && strncmp(a, b, shorter) == 0))
            continue;
        if (bestd < 0 || d < bestd) {
            best = gl_variants[i].name;
            bestd = d;
        }
    }
    return best;
}

void gl_variant_complete(const struct gl_variant *v, struct gl_params *p)
{
    if (p->seed == GL_UNSET)
        p->seed = 42;
    if (p->threads == GL_UNSET || p->threads == 0)
        p->threads = omp_get_num_procs();
    if (!p->cache[0])
        gl_params_set_text(p, GL_P_CACHE, "cold");
    if (!p->mem[0])
        gl_params_set_text(p, GL_P_MEM, "device");
    if (!p->grid[0])
        gl_params_set_text(p, GL_P_GRID, "2d");
    if (p->k == GL_UNSET)
        p->k = 1;
    if (p->g == GL_UNSET)
        p->g = 0;
    if (p->m == GL_UNSET)
        p->m = p->n;
    if (p->p == GL_UNSET)
        p->p = p->n;
    gl_params_mask(p, v->params);
}

/* gpu_limits.h - the device limits the variants' plan-time checks read, and
 * the reasons worded once for the checks that hit them. A limit is the GPU's
 * own when the check is given one (struct gl_device, from the plugin's init),
 * else the static limit of every CUDA GPU (compute capability 3.0 and later):
 * 1024 threads and 1024 x 1024 x 64 per block, 48 KiB of static shared memory
 * per block, a grid of 2^31-1 x 65535 x 65535 blocks.
 * Each over_* helper returns 0 when the value fits, else 1 with the reason
 * written into buf.
 * Pure C: no CUDA types or calls (checks run where there is no GPU, from
 * `gpulab list` and `plan`). Must not know about families or variants. */
#ifndef GL_GPU_LIMITS_H
#define GL_GPU_LIMITS_H

#include <stddef.h>
#include <stdio.h>

#include "gpulab.h"

#define GH_STATIC_MAX_THREADS 1024L
#define GH_STATIC_SMEM_PER_BLOCK (48L * 1024)
#define GH_INT_MAX 0x7fffffffL   /* kernels index in int */

static inline long gh_max_threads(const struct gl_device *d)
{
    return d && d->max_threads_per_block > 0 ? d->max_threads_per_block : GH_STATIC_MAX_THREADS;
}

/* Static shared memory: the per-block limit without opt-in. */
static inline long gh_smem_static(const struct gl_device *d)
{
    return d && d->smem_per_block > 0 ? d->smem_per_block : GH_STATIC_SMEM_PER_BLOCK;
}

/* Dynamic shared memory: the harness opts in to the larger limit where there is one. */
static inline long gh_smem_optin(const struct gl_device *d)
{
    return d && d->smem_per_block_optin > 0 ? d->smem_per_block_optin : gh_smem_static(d);
}

/* Block side on axis 0..2. */
static inline long gh_block_max(const struct gl_device *d, int axis)
{
    static const long stat[3] = { 1024, 1024, 64 };
    return d && d->max_block[axis] > 0 ? d->max_block[axis] : stat[axis];
}

/* Grid side on axis 0..2 (y is the one that bites: 65535). */
static inline long gh_grid_max(const struct gl_device *d, int axis)
{
    static const long stat[3] = { GH_INT_MAX, 65535, 65535 };
    return d && d->max_grid[axis] > 0 ? d->max_grid[axis] : stat[axis];
}

/* 1 when an a x b array (a, b >= 1) can be indexed in int, as the kernels do. */
static inline int gh_fits_int2(long a, long b)
{
    return a >= 1 && b >= 1 && a <= GH_INT_MAX / b;
}

/* ceil(a / b) for a >= 0, b >= 1, without overflow. */
static inline long gh_ceil_div(long a, long b)
{
    return a / b + (a % b != 0);
}

/* threads per block; what names the product ("K*BS*BS"). */
static inline int gh_over_threads(long threads, const struct gl_device *d, const char *what,
                                  char *buf, size_t len)
{
    if (threads <= gh_max_threads(d))
        return 0;
    snprintf(buf, len, "block of %s=%ld threads exceeds the device limit of %ld", what, threads,
             gh_max_threads(d));
    return 1;
}

/* Block sides x, y (z = 1). */
static inline int gh_over_block(long x, long y, const struct gl_device *d, char *buf, size_t len)
{
    if (x <= gh_block_max(d, 0) && y <= gh_block_max(d, 1))
        return 0;
    snprintf(buf, len, "block %ldx%ld exceeds the device limit %ldx%ld", x, y, gh_block_max(d, 0),
             gh_block_max(d, 1));
    return 1;
}

/* Grid sides x, y (z = 1). */
static inline int gh_over_grid(long x, long y, const struct gl_device *d, char *buf, size_t len)
{
    if (x <= gh_grid_max(d, 0) && y <= gh_grid_max(d, 1))
        return 0;
    if (x <= gh_grid_max(d, 0))
        snprintf(buf, len, "grid of %ld block rows exceeds the device limit of %ld", y,
                 gh_grid_max(d, 1));
    else
        snprintf(buf, len, "grid of %ld block columns exceeds the device limit of %ld", x,
                 gh_grid_max(d, 0));
    return 1;
}

/* Shared memory per block (in double: sizes may come from unbounded parameters). */
static inline int gh_over_smem(double bytes, long limit, const char *what, char *buf,
                               size_t len)
{
    if (bytes <= (double)limit)
        return 0;
    snprintf(buf, len, "%s=%.0f bytes of shared memory exceed the limit of %ld per block", what,
             bytes, limit);
    return 1;
}

#endif

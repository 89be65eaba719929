/* harness_resources.cu - what a launch shape costs and whether it can launch:
 * the run-time launch check against the real device (the safety net behind
 * each variant's plan-time check; it also raises a kernel's dynamic shared
 * memory limit), the kernel's registers and shared memory, occupancy and the
 * blocks/SM each resource allows, and the launch guidance flags.
 * Must not allocate buffers or launch kernels. */
#include "harness_int.cuh"

#include <stdio.h>

int gh_check_launch(struct gl_result *r, const void *kernel, dim3 grid, dim3 block,
                    size_t dyn_smem)
{
    const struct gl_device *d = &gh_st.dev;
    long threads = (long)block.x * block.y * block.z;
    if (threads <= 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
        return gh_skip(r, "empty launch (grid %ux%ux%u, block %ux%ux%u)", grid.x, grid.y,
                       grid.z, block.x, block.y, block.z);
    if (threads > d->max_threads_per_block)
        return gh_skip(r, "block of %ld threads exceeds the device limit of %d", threads,
                       d->max_threads_per_block);
    if ((int)block.x > d->max_block[0] || (int)block.y > d->max_block[1] ||
        (int)block.z > d->max_block[2])
        return gh_skip(r, "block %ux%ux%u exceeds the device limit %dx%dx%d", block.x, block.y,
                       block.z, d->max_block[0], d->max_block[1], d->max_block[2]);
    if ((long)grid.x > d->max_grid[0] || (long)grid.y > d->max_grid[1] ||
        (long)grid.z > d->max_grid[2])
        return gh_skip(r, "grid %ux%ux%u exceeds the device limit %dx%dx%d", grid.x, grid.y,
                       grid.z, d->max_grid[0], d->max_grid[1], d->max_grid[2]);
    if (!kernel)
        return 1;
    struct cudaFuncAttributes fa;
    if (!gh_ok(r, cudaFuncGetAttributes(&fa, kernel), "cudaFuncGetAttributes"))
        return 0;
    if (threads > fa.maxThreadsPerBlock)
        return gh_skip(r, "block of %ld threads: the kernel's %d registers/thread allow at most %d",
                       threads, fa.numRegs, fa.maxThreadsPerBlock);
    size_t smem = fa.sharedSizeBytes + dyn_smem;
    if (smem > (size_t)d->smem_per_block_optin)
        return gh_skip(r, "needs %zu bytes of shared memory per block (static %zu + dynamic %zu), "
                       "the device allows %d", smem, fa.sharedSizeBytes, dyn_smem,
                       d->smem_per_block_optin);
    /* The opt-in is the kernel's, not the launch's: only ever raise it, or a run
     * parked for batch profiling with a larger need fails on replay. */
    if (dyn_smem > 0 && smem > (size_t)d->smem_per_block &&
        (size_t)fa.maxDynamicSharedSizeBytes < dyn_smem &&
        !gh_ok(r, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)dyn_smem),
               "cudaFuncSetAttribute(max dynamic shared memory)"))
        return 0;
    return 1;
}

static int round_up(int v, int unit)
{
    return unit > 0 ? (v + unit - 1) / unit * unit : v;
}

/* Registers, shared memory, occupancy and the blocks/SM each resource allows. */
int gh_resources(struct gh_job *j)
{
    struct gl_result *r = j->r;
    const struct gl_device *d = &gh_st.dev;
    struct cudaFuncAttributes fa;
    int threads = (int)(j->block.x * j->block.y * j->block.z);
    if (!gh_ok(r, cudaFuncGetAttributes(&fa, j->kernel), "cudaFuncGetAttributes"))
        return 0;
    r->regs_per_thread = fa.numRegs;
    r->static_smem = (int)fa.sharedSizeBytes;
    r->dynamic_smem = (int)j->dyn_smem;
    r->local_bytes = (int)fa.localSizeBytes;
    if (!gh_ok(r, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r->blocks_per_sm, j->kernel,
                                                                threads, j->dyn_smem),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor"))
        return 0;

    int warp = d->warp_size > 0 ? d->warp_size : 32;
    int warps_per_block = (threads + warp - 1) / warp;
    int max_warps = d->max_threads_per_sm / warp;
    /* Registers: allocated per warp in units of 256, from 4 sub-partitions that
     * each hold a quarter of the SM's register file (compute capability >= 3). */
    const int reg_unit = 256, subparts = 4;
    int regs_per_warp = round_up(fa.numRegs * warp, reg_unit);
    int limit_regs = d->max_blocks_per_sm;
    if (regs_per_warp > 0)
        limit_regs = ((d->regs_per_sm / subparts) / regs_per_warp) * subparts / warps_per_block;
    /* Shared memory: static + dynamic + the driver's reserved part, rounded to
     * the allocation unit (128 bytes from compute capability 8.0, else 256). */
    int smem_unit = d->cc_major >= 8 ? 128 : 256;
    int smem_block = round_up((int)fa.sharedSizeBytes + (int)j->dyn_smem + gh_st.reserved_smem,
                              smem_unit);
    int limit_smem = smem_block > 0 ? d->smem_per_sm / smem_block : d->max_blocks_per_sm;
    int limit_warps = warps_per_block > 0 ? max_warps / warps_per_block : 0;
    int limit_blocks = d->max_blocks_per_sm;
    r->limit_regs = limit_regs;
    r->limit_smem = limit_smem;
    r->limit_warps = limit_warps;
    r->limit_blocks = limit_blocks;
    /* The limiter is the smallest; ties go to the first of this order. */
    const char *name = GL_LIMITER_REGS;
    int best = limit_regs;
    if (limit_smem < best) {
        best = limit_smem;
        name = GL_LIMITER_SMEM;
    }
    if (limit_warps < best) {
        best = limit_warps;
        name = GL_LIMITER_WARPS;
    }
    if (limit_blocks < best) {
        best = limit_blocks;
        name = GL_LIMITER_BLOCKS;
    }
    snprintf(r->limiter, sizeof r->limiter, "%s", name);
    if (max_warps > 0)
        r->theo_occupancy = 100.0 * r->blocks_per_sm * warps_per_block / max_warps;
    return 1;
}

/* Launch guidance (lecture S4) from the shape of one launch and the SM count. */
int gh_guidance(dim3 grid, dim3 block, int sm_count)
{
    long blocks = (long)grid.x * grid.y * grid.z;
    long threads = (long)block.x * block.y * block.z;
    int f = 0;
    if (blocks < 2L * sm_count)
        f |= GL_GUIDE_FEW_BLOCKS;
    if (threads % 32 != 0)
        f |= GL_GUIDE_NOT_WARP_MULT;
    if (threads < 64 && blocks > sm_count)
        f |= GL_GUIDE_SMALL_BLOCK;
    if (threads < 128 || threads > 256)
        f |= GL_GUIDE_OUTSIDE_REC;
    return f;
}

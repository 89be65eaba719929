/* gpu_harness.cu - see gpu_harness.cuh: setup, copies, verification, timing,
 * resources and profiling shared by every GPU family.
 * Must not contain a family's kernels (only the L2 flush kernel lives here). */
#include "gpu_harness.cuh"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "stats.h"
#include "reference.h"
#include "profiler.h"
}

#define GH_FLUSH_THREADS 256
#define GH_MEM_MARGIN (64ull << 20)   /* device memory left free beyond a run's buffers */

static struct {
    int ready;                /* gh_device_set succeeded */
    int ordinal;
    struct gl_device dev;
    int reserved_smem;        /* shared memory the driver reserves per block, bytes */
    int sticky;               /* a sticky error made the context unusable */
    int passes;               /* current profiler configuration; <= 0: none */
    float4 *flush_buf;        /* 2 x L2, read by the flush kernel */
    size_t flush_n4;
    float *flush_sink;        /* the one word the flush kernel may write */
} gh;

/* ---- errors and results ---------------------------------------------------- */

void gh_result_init(struct gl_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = GL_OK;
    r->max_rel_err = -1.0;
    r->h2d_ms = -1.0;
    r->d2h_ms = -1.0;
}

static void set_reason(struct gl_result *r, int status, const char *fmt, va_list ap)
{
    r->status = status;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
}

int gh_skip(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_SKIPPED, fmt, ap);
    va_end(ap);
    return 0;
}

int gh_fail(struct gl_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_reason(r, GL_FAILED, fmt, ap);
    va_end(ap);
    return 0;
}

/* Errors after which every later call of this context fails too. */
static int sticky_code(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
        return 1;
    default:
        return 0;
    }
}

int gh_ok(struct gl_result *r, cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 1;
    /* An ordinary error is cleared by reading it; a sticky one comes back from
     * the next call that touches the context. */
    (void)cudaGetLastError();
    if (sticky_code(e) || cudaDeviceSynchronize() != cudaSuccess)
        gh.sticky = 1;
    if (r->status != GL_FAILED || r->reason[0] == '\0') {
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason, "%s: %s (%s)%s", what, cudaGetErrorName(e),
                 cudaGetErrorString(e), gh.sticky ? "; CUDA context unusable" : "");
    }
    return 0;
}

int gh_context_lost(void)
{
    return gh.sticky;
}

int gh_parse_mem(const char *s, enum gh_mem *m)
{
    if (!s || !s[0] || strcmp(s, "device") == 0)
        *m = GH_MEM_DEVICE;
    else if (strcmp(s, "zerocopy") == 0)
        *m = GH_MEM_ZEROCOPY;
    else if (strcmp(s, "managed") == 0)
        *m = GH_MEM_MANAGED;
    else
        return -1;
    return 0;
}

int gh_parse_cold(const char *s, int *cold)
{
    if (!s || !s[0] || strcmp(s, "cold") == 0)
        *cold = 1;
    else if (strcmp(s, "warm") == 0)
        *cold = 0;
    else
        return -1;
    return 0;
}

int gh_fits_int(size_t n)
{
    return n > 0 && n <= 0x7fffffffu;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- device ------------------------------------------------------------------ */

int gh_device_set(int ordinal, const struct gl_device *dev, char *err, size_t errlen)
{
    int reserved = 0;
    cudaError_t e = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                           ordinal);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cudaDeviceGetAttribute(reserved shared memory): %s",
                 cudaGetErrorString(e));
        return -1;
    }
    gh.ordinal = ordinal;
    gh.dev = *dev;
    gh.reserved_smem = reserved;
    gh.ready = 1;
    return 0;
}

const struct gl_device *gh_device(void)
{
    return gh.ready ? &gh.dev : NULL;
}

int gh_device_ordinal(void)
{
    return gh.ordinal;
}

void gh_set_profiling(int passes)
{
    gh.passes = passes;
}

/* ---- L2 flush ------------------------------------------------------------------ */

/* Reads every word of buf so that L2 ends up holding its (clean) lines; writes
 * one word only when the sum equals `never` (a NaN: never), so that the reads
 * cannot be optimised away and no dirty line is left behind. With `code` set,
 * the first warp of every block first runs GH_CODE_STEPS x 8 dependent FMAs of
 * straight-line code (512 KiB of SASS): that evicts the SMs' instruction caches
 * and the GPC-level constant/instruction cache, which the data reads cannot
 * reach, so the next kernel fetches its code from L2 as it does after ncu's
 * cache invalidation. ca and cb are runtime values so the chain cannot fold.
 * Last, every block reads the words of `touch` (see gh_touch). */
#define GH_CODE_STEPS 4096

/* Words whose pages the next profiled run uses, one per 2 MiB page. Reading
 * 100 MB of flush buffer also evicts the address translations of the run's
 * buffers, which ncu's cache invalidation leaves in place (its replay keeps the
 * kernel's pages mapped and hot): the first accesses of a 5-10 us kernel then
 * pay for page walks: over the smoke kernels gpulab's durations were a median
 * 1.9 % above ncu's without this and 0.7 % with it (H100, the same ncu records,
 * 5 processes each side, buffers padded so that the touched word lay outside
 * them; 2-3 % on the 128^2 global and 100x90x70 naive matmuls).
 * Each block reading the first word of every page puts the translations back on
 * every SM.
 * The price: that word's sector is in L2 when the run starts, one L2 hit and
 * 32 bytes of DRAM read less per page (1 in 2,048 sectors of a 64 KiB buffer,
 * 1 in 65,536 of a large one). Padding buffers to touch outside them was tried
 * and dropped: it moves where buffers land, which alone shifts a small
 * kernel's time by a few percent. */
#define GH_TOUCH_MAX 32
#define GH_PAGE ((size_t)2 << 20)
struct gh_touch {
    const float *p[GH_TOUCH_MAX];
    int n;
};

__global__ void gh_flush_kernel(const float4 *__restrict__ buf, size_t n4, float *sink, float never,
                                int code, float ca, float cb, struct gh_touch touch)
{
    if (code && threadIdx.x < 32) {
        float x0 = ca, x1 = cb, x2 = ca + cb, x3 = ca - cb;
#pragma unroll
        for (int i = 0; i < GH_CODE_STEPS; i++) {
            x0 = fmaf(x0, ca, cb); x1 = fmaf(x1, ca, cb); x2 = fmaf(x2, ca, cb); x3 = fmaf(x3, ca, cb);
        }
#pragma unroll
        for (int i = 0; i < GH_CODE_STEPS; i++) {
            x0 = fmaf(x0, cb, ca); x1 = fmaf(x1, cb, ca); x2 = fmaf(x2, cb, ca); x3 = fmaf(x3, cb, ca);
        }
        if (x0 + x1 + x2 + x3 == never)
            *sink = x0;
    }
    float acc0 = 0.0f, acc1 = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n4; i += 2 * stride) {
        float4 a = buf[i];
        float4 b = buf[i + stride];
        acc0 += a.x + a.y + a.z + a.w;
        acc1 += b.x + b.y + b.z + b.w;
    }
    if (i < n4) {
        float4 a = buf[i];
        acc0 += a.x + a.y + a.z + a.w;
    }
    if ((int)threadIdx.x < touch.n)
        acc1 += __ldcg(touch.p[threadIdx.x]);
    if (acc0 + acc1 == never)
        *sink = acc0 + acc1;
}

/* code: also evict the instruction caches (the profiled replay's flush, which
 * stands in for ncu's "flush all caches"); the timing phase's cold flush is L2
 * only, as nvbench's. touch: NULL, or the next run's pages. */
static cudaError_t flush_enqueue(int code, const struct gh_touch *touch)
{
    static const struct gh_touch none = {};
    if (!touch)
        touch = &none;
    int blocks = gh.dev.sm_count > 0 ? 4 * gh.dev.sm_count : 128;
    gh_flush_kernel<<<blocks, GH_FLUSH_THREADS>>>(gh.flush_buf, gh.flush_n4, gh.flush_sink, nanf(""),
                                                  code, 0.5f, 0.25f, *touch);
    return cudaGetLastError();
}

/* Add the pages of b to t (device memory only: mapped host memory and managed
 * memory are translated elsewhere). */
static void touch_add(struct gh_touch *t, const struct gh_buf *b, enum gh_mem mem)
{
    if (mem != GH_MEM_DEVICE || !b->dev)
        return;
    uintptr_t end = (uintptr_t)b->dev + b->count * sizeof(float);
    for (uintptr_t a = (uintptr_t)b->dev; a < end && t->n < GH_TOUCH_MAX;
         a = (a / GH_PAGE + 1) * GH_PAGE)
        t->p[t->n++] = (const float *)a;
}

/* Allocate the flush buffer (2 x L2) once per process and run one flush right
 * away, so that whatever the allocation left dirty in L2 is gone before the
 * first measured kernel. */
static int flush_ready(struct gl_result *r)
{
    if (gh.flush_buf)
        return 1;
    size_t l2 = gh.dev.l2_bytes > 0 ? (size_t)gh.dev.l2_bytes : (size_t)64 << 20;
    size_t bytes = (2 * l2 + 15) / 16 * 16;
    float4 *buf = NULL;
    float *sink = NULL;
    if (!gh_ok(r, cudaMalloc((void **)&buf, bytes), "cudaMalloc(L2 flush buffer)"))
        return 0;
    if (!gh_ok(r, cudaMalloc((void **)&sink, sizeof(float)), "cudaMalloc(flush sink)")) {
        cudaFree(buf);
        return 0;
    }
    gh.flush_buf = buf;
    gh.flush_n4 = bytes / 16;
    gh.flush_sink = sink;
    if (!gh_ok(r, flush_enqueue(0, NULL), "L2 flush launch") ||
        !gh_ok(r, cudaDeviceSynchronize(), "L2 flush"))
        return 0;
    return 1;
}

void gh_shutdown(void)
{
    if (gh.flush_buf && !gh.sticky) {
        cudaFree(gh.flush_buf);
        cudaFree(gh.flush_sink);
    }
    gh.flush_buf = NULL;
    gh.flush_sink = NULL;
    gh.flush_n4 = 0;
    gh.ready = 0;
}

/* ---- launch checks and resources ---------------------------------------------- */

int gh_check_launch(struct gl_result *r, const void *kernel, dim3 grid, dim3 block,
                    size_t dyn_smem)
{
    const struct gl_device *d = &gh.dev;
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
static int resources(struct gh_job *j)
{
    struct gl_result *r = j->r;
    const struct gl_device *d = &gh.dev;
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
    int smem_block = round_up((int)fa.sharedSizeBytes + (int)j->dyn_smem + gh.reserved_smem,
                              smem_unit);
    int limit_smem = smem_block > 0 ? d->smem_per_sm / smem_block : d->max_blocks_per_sm;
    int limit_warps = warps_per_block > 0 ? max_warps / warps_per_block : 0;
    int limit_blocks = d->max_blocks_per_sm;
    r->limit_regs = limit_regs;
    r->limit_smem = limit_smem;
    r->limit_warps = limit_warps;
    r->limit_blocks = limit_blocks;
    /* The limiter is the smallest; ties go to the first of this order. */
    const char *name = "registers";
    int best = limit_regs;
    if (limit_smem < best) {
        best = limit_smem;
        name = "shared";
    }
    if (limit_warps < best) {
        best = limit_warps;
        name = "warps";
    }
    if (limit_blocks < best) {
        best = limit_blocks;
        name = "blocks";
    }
    snprintf(r->limiter, sizeof r->limiter, "%s", name);
    if (max_warps > 0)
        r->theo_occupancy = 100.0 * r->blocks_per_sm * warps_per_block / max_warps;
    return 1;
}

/* Launch guidance (lecture S4) from the shape of one launch and the SM count. */
static int guidance(dim3 grid, dim3 block, int sm_count)
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

/* ---- buffers ------------------------------------------------------------------- */

/* GPULAB_PAD=bytes: allocate that much device memory just before each run's
 * buffers, so that they land elsewhere. Where a small kernel's buffers lie moves
 * its duration by up to ~10 % (H100, stencil/global: 4.45 us with no pad or 256
 * bytes, 4.8-4.95 us with 4 KiB to 1 MiB); bench/ncu_agree can give each of
 * its processes, on both sides, another pad (PADS) to spread both over several
 * placements (not the same ones: ncu allocates in the process too). 0 when
 * unset; -1 when it is not a byte count. */
static long long pad_bytes(void)
{
    static long long v = -2;
    if (v == -2) {
        const char *e = getenv("GPULAB_PAD");
        char *end = NULL;
        v = 0;
        if (e && *e) {
            long long x = strtoll(e, &end, 10);
            v = (*end || x < 0 || x > ((long long)1 << 40)) ? -1 : x;
        }
    }
    return v;
}

static int buf_alloc(struct gl_result *r, struct gh_buf *b, size_t count, enum gh_mem mem)
{
    size_t bytes = count * sizeof(float);
    b->count = count;
    b->host = b->dev = NULL;
    switch (mem) {
    case GH_MEM_DEVICE:
        if (!gh_ok(r, cudaMallocHost((void **)&b->host, bytes), "cudaMallocHost"))
            return 0;
        return gh_ok(r, cudaMalloc((void **)&b->dev, bytes), "cudaMalloc");
    case GH_MEM_ZEROCOPY:
        if (!gh_ok(r, cudaHostAlloc((void **)&b->host, bytes, cudaHostAllocMapped),
                   "cudaHostAlloc(mapped)"))
            return 0;
        return gh_ok(r, cudaHostGetDevicePointer((void **)&b->dev, b->host, 0),
                     "cudaHostGetDevicePointer");
    case GH_MEM_MANAGED:
        if (!gh_ok(r, cudaMallocManaged((void **)&b->dev, bytes, cudaMemAttachGlobal),
                   "cudaMallocManaged"))
            return 0;
        b->host = b->dev;
        return 1;
    }
    return 0;
}

static void buf_free(struct gh_buf *b, enum gh_mem mem)
{
    if (gh.sticky) {   /* the context is gone: freeing would only fail */
        b->host = b->dev = NULL;
        return;
    }
    switch (mem) {
    case GH_MEM_DEVICE:
        if (b->dev)
            cudaFree(b->dev);
        if (b->host)
            cudaFreeHost(b->host);
        break;
    case GH_MEM_ZEROCOPY:
        if (b->host)
            cudaFreeHost(b->host);
        break;
    case GH_MEM_MANAGED:
        if (b->dev)
            cudaFree(b->dev);
        break;
    }
    b->host = b->dev = NULL;
}

/* Device memory the run needs must fit in what the card has free (managed
 * memory included: over-subscribing it can hang the GPU). */
static int memory_fits(struct gh_job *j)
{
    if (j->mem == GH_MEM_ZEROCOPY)
        return 1;
    size_t need = j->out_count * sizeof(float);
    for (int i = 0; i < j->nin; i++)
        need += j->in_count[i] * sizeof(float);
    if (!gh.flush_buf && gh.dev.l2_bytes > 0)
        need += 2 * (size_t)gh.dev.l2_bytes;
    size_t free_b = 0, total_b = 0;
    if (!gh_ok(j->r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
        return 0;
    if (need + GH_MEM_MARGIN > free_b)
        return gh_skip(j->r, "needs %.1f MiB of device memory, %.1f MiB free",
                       (double)need / 1048576.0, (double)free_b / 1048576.0);
    return 1;
}

static struct cudaMemLocation location(int host)
{
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = host ? 0 : gh.ordinal;
    return loc;
}

static int elapsed_ms(struct gl_result *r, cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float f = 0.0f;
    if (!gh_ok(r, cudaEventSynchronize(b), "cudaEventSynchronize") ||
        !gh_ok(r, cudaEventElapsedTime(&f, a, b), "cudaEventElapsedTime"))
        return 0;
    *ms = f;
    return 1;
}

/* Inputs host -> device, timed: device = cudaMemcpy; managed = prefetch to the
 * device; zerocopy = 0 (no copy exists). The output's pages are placed too
 * (untimed) so that the first kernel does not fault them in. */
static int copy_inputs(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    double ms = 0.0;
    if (j->mem == GH_MEM_ZEROCOPY) {
        r->h2d_ms = 0.0;
        return 1;
    }
    if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord"))
        return 0;
    for (int i = 0; i < j->nin; i++) {
        size_t bytes = j->in[i].count * sizeof(float);
        cudaError_t e = j->mem == GH_MEM_DEVICE
            ? cudaMemcpyAsync(j->in[i].dev, j->in[i].host, bytes, cudaMemcpyHostToDevice, 0)
            : cudaMemPrefetchAsync(j->in[i].dev, bytes, location(0), 0, 0);
        if (!gh_ok(r, e, j->mem == GH_MEM_DEVICE ? "cudaMemcpy(H2D)" : "cudaMemPrefetchAsync(device)"))
            return 0;
    }
    if (!gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") || !elapsed_ms(r, e0, e1, &ms))
        return 0;
    r->h2d_ms = ms;
    return 1;
}

/* Output pages to the device before runs (managed only; untimed). */
static int place_output(struct gh_job *j)
{
    if (j->mem != GH_MEM_MANAGED)
        return 1;
    return gh_ok(j->r, cudaMemPrefetchAsync(j->out.dev, j->out.count * sizeof(float), location(0),
                                            0, 0),
                 "cudaMemPrefetchAsync(output to device)") &&
           gh_ok(j->r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

/* Output device -> host, timed into *ms (device = cudaMemcpy, managed =
 * prefetch to the host, zerocopy = 0). */
static int copy_output(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double *ms)
{
    struct gl_result *r = j->r;
    size_t bytes = j->out.count * sizeof(float);
    *ms = 0.0;
    if (j->mem == GH_MEM_ZEROCOPY)
        return gh_ok(r, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord"))
        return 0;
    cudaError_t e = j->mem == GH_MEM_DEVICE
        ? cudaMemcpyAsync(j->out.host, j->out.dev, bytes, cudaMemcpyDeviceToHost, 0)
        : cudaMemPrefetchAsync(j->out.dev, bytes, location(1), 0, 0);
    if (!gh_ok(r, e, j->mem == GH_MEM_DEVICE ? "cudaMemcpy(D2H)" : "cudaMemPrefetchAsync(host)"))
        return 0;
    return gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") && elapsed_ms(r, e0, e1, ms);
}

/* ---- one run ----------------------------------------------------------------- */

static int launch_run(struct gh_job *j, const char *what)
{
    j->lib_err[0] = '\0';
    cudaError_t e = j->enqueue(j);
    if (e != cudaSuccess && j->lib_err[0]) {
        (void)cudaGetLastError();
        return gh_fail(j->r, "%s: %s", what, j->lib_err);
    }
    return gh_ok(j->r, e, what);
}

/* Copy the output back (timing that copy into d2h_ms once) and check every
 * element against the float64 reference; a mismatch makes the run `wrong`.
 * Returns 1 when it checked (right or wrong), 0 on a CUDA error. */
static int check_output(struct gh_job *j, const double *ref, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    double ms = 0.0;
    if (!copy_output(j, e0, e1, &ms))
        return 0;
    if (r->d2h_ms < 0)
        r->d2h_ms = ms;
    char why[GL_REASON_MAX] = "";
    double tol = gl_tolerance(j->tol_len);
    double err = gl_verify(j->out.host, ref, j->out.count, tol, why, sizeof why);
    if (isnan(err))
        err = INFINITY;
    if (err > r->max_rel_err)
        r->max_rel_err = err;
    if (!(err <= tol) && r->status == GL_OK) {
        r->status = GL_WRONG;
        snprintf(r->reason, sizeof r->reason, "%s", why[0] ? why : "output differs from the reference");
    }
    return 1;
}

/* The sample-free verification run: poison the output with NaN (so an element
 * the kernel never writes is caught), run, check. */
static int verify_run(struct gh_job *j, const double *ref, cudaEvent_t e0, cudaEvent_t e1)
{
    struct gl_result *r = j->r;
    size_t bytes = j->out.count * sizeof(float);
    gl_fill_nan(j->out.host, j->out.count);
    if (j->mem == GH_MEM_DEVICE &&
        !gh_ok(r, cudaMemcpy(j->out.dev, j->out.host, bytes, cudaMemcpyHostToDevice),
               "cudaMemcpy(poison H2D)"))
        return 0;
    if (!place_output(j))
        return 0;
    if (!launch_run(j, "launch (verification run)") ||
        !gh_ok(r, cudaDeviceSynchronize(), "kernel (verification run)"))
        return 0;
    return check_output(j, ref, e0, e1);
}

/* Warm-up, then samples until gl_sampling_done. `since` is when the
 * verification run started: warm-up stops early once verification and warm-up
 * together have lasted max_seconds (as the CPU harness's), so a run that takes
 * a minute is not run four times before its one sample. */
static int timed_samples(struct gh_job *j, cudaEvent_t e0, cudaEvent_t e1, double since)
{
    struct gl_result *r = j->r;
    const struct gl_timing *t = j->t;
    for (int i = 0; i < t->warmup && now_s() - since < t->max_seconds; i++)
        if (!launch_run(j, "launch (warm-up)") ||
            !gh_ok(r, cudaDeviceSynchronize(), "kernel (warm-up)"))
            return 0;
    double start = now_s();
    r->nsamples = 0;
    for (;;) {
        double ms = 0.0;
        if (j->cold && !gh_ok(r, flush_enqueue(0, NULL), "L2 flush launch"))
            return 0;
        if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") ||
            !launch_run(j, "launch (timed)") ||
            !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") ||
            !elapsed_ms(r, e0, e1, &ms))
            return 0;
        r->samples_ms[r->nsamples++] = ms;
        if (r->nsamples >= GL_MAX_SAMPLES ||
            gl_sampling_done(r->samples_ms, r->nsamples, now_s() - start, t))
            break;
    }
    return 1;
}

/* ---- profiled replay ------------------------------------------------------------- */

struct replay_ctx {
    struct gh_job *j;
    cudaError_t err;
    struct gh_touch touch;   /* j's pages, read by the flush before j */
};

static void replay_run(void *c)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = x->j->enqueue(x->j);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

static void replay_flush(void *c)
{
    struct replay_ctx *x = (struct replay_ctx *)c;
    cudaError_t e = flush_enqueue(1, &x->touch);
    if (e != cudaSuccess && x->err == cudaSuccess)
        x->err = e;
}

/* Profile jobs[0..n) together (n <= GLC_BATCH_MAX). A CUDA error during the
 * replay takes every run's metrics and fails the run that caused it (all of
 * them when the error surfaced only at the final synchronize). */
static void profile_jobs(struct gh_job *const *jobs, int n)
{
    struct replay_ctx x[GLC_BATCH_MAX];
    struct glc_replay rp[GLC_BATCH_MAX];
    const struct glc_replay *rpp[GLC_BATCH_MAX] = {};
    struct gl_result *rs[GLC_BATCH_MAX] = {};
    for (int i = 0; i < n; i++) {
        x[i].j = jobs[i];
        x[i].err = cudaSuccess;
        memset(&x[i].touch, 0, sizeof x[i].touch);
        for (int k = 0; k < jobs[i]->nin; k++)
            touch_add(&x[i].touch, &jobs[i]->in[k], jobs[i]->mem);
        touch_add(&x[i].touch, &jobs[i]->out, jobs[i]->mem);
        rp[i].run = replay_run;
        rp[i].flush = replay_flush;
        rp[i].ctx = &x[i];
        rp[i].single_kernel = jobs[i]->kernel != NULL && jobs[i]->launches == 1;
        rpp[i] = &rp[i];
        rs[i] = jobs[i]->r;
    }
    (void)glc_profile_batch(rpp, rs, n);
    int culprit = -1;
    for (int i = 0; i < n && culprit < 0; i++)
        if (x[i].err != cudaSuccess)
            culprit = i;
    cudaError_t e = culprit >= 0 ? x[culprit].err : cudaDeviceSynchronize();
    if (e == cudaSuccess)
        return;
    for (int i = 0; i < n; i++) {
        rs[i]->nmetrics = 0;
        rs[i]->passes = 0;
        snprintf(rs[i]->metrics_reason, sizeof rs[i]->metrics_reason,
                 "profiled replay failed: %s%s", cudaGetErrorName(e),
                 culprit >= 0 && culprit != i ? " (in another run of the batch)" : "");
        if (culprit < 0 || culprit == i)
            (void)gh_ok(rs[i], e, "profiled replay");
    }
}

/* Runs parked for the current profiling batch: a copy of each job (its ctx
 * copied too) whose device buffers are kept until the batch is profiled. */
#define GH_BATCH_HOST_MAX (1ull << 30)   /* zero-copy bytes parked at most */

struct gh_parked {
    struct gh_job j;
    union {
        unsigned char bytes[GH_CTX_MAX];
        double align_d;
        void *align_p;
    } ctx;
};

static struct {
    int open;
    int n;
    size_t host_bytes;   /* mapped host memory held by parked zero-copy runs */
    struct gh_parked runs[GLC_BATCH_MAX];
} batch;

static void spacer_free(struct gh_job *j)
{
    if (j->spacer)
        cudaFree(j->spacer);
    j->spacer = NULL;
}

static void job_free(struct gh_job *j)
{
    buf_free(&j->out, j->mem);
    for (int i = 0; i < j->nin; i++)
        buf_free(&j->in[i], j->mem);
    spacer_free(j);
}

static size_t job_bytes(const struct gh_job *j)
{
    size_t b = j->out_count * sizeof(float);
    for (int i = 0; i < j->nin; i++)
        b += j->in_count[i] * sizeof(float);
    return b;
}

/* Profile the parked runs and free their buffers. */
static void batch_flush(void)
{
    struct gh_job *jobs[GLC_BATCH_MAX] = {};
    int n = batch.n;
    if (n == 0)
        return;
    for (int i = 0; i < n; i++)
        jobs[i] = &batch.runs[i].j;
    if (gh.sticky) {
        for (int i = 0; i < n; i++) {
            jobs[i]->r->nmetrics = 0;
            jobs[i]->r->passes = 0;
            snprintf(jobs[i]->r->metrics_reason, sizeof jobs[i]->r->metrics_reason,
                     "not profiled: the CUDA context was lost in a later run of its batch");
        }
    } else {
        profile_jobs(jobs, n);
    }
    for (int i = 0; i < n; i++)
        job_free(jobs[i]);
    batch.n = 0;
    batch.host_bytes = 0;
}

/* Would j's buffers fit next to the parked ones? */
static int batch_has_room(const struct gh_job *j)
{
    if (batch.n >= GLC_BATCH_MAX)
        return 0;
    if (j->mem == GH_MEM_ZEROCOPY)
        return batch.host_bytes + job_bytes(j) <= GH_BATCH_HOST_MAX;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return job_bytes(j) + 2 * GH_MEM_MARGIN <= free_b;
}

/* Keep j (buffers and all) for batch_flush. 1 when parked. */
static int park(struct gh_job *j)
{
    if (!batch.open || batch.n >= GLC_BATCH_MAX || j->ctx_size > GH_CTX_MAX)
        return 0;
    struct gh_parked *p = &batch.runs[batch.n++];
    p->j = *j;
    memcpy(p->ctx.bytes, j->ctx, j->ctx_size);
    p->j.ctx = p->ctx.bytes;
    if (j->mem == GH_MEM_DEVICE) {   /* the pinned host copies are not replayed: free now */
        for (int i = 0; i < j->nin; i++) {
            cudaFreeHost(p->j.in[i].host);
            p->j.in[i].host = NULL;
        }
        cudaFreeHost(p->j.out.host);
        p->j.out.host = NULL;
    } else if (j->mem == GH_MEM_ZEROCOPY) {
        batch.host_bytes += job_bytes(j);
    }
    return 1;
}

void gh_batch_begin(void)
{
    batch_flush();
    batch.open = 1;
}

int gh_batch_end(void)
{
    batch_flush();
    batch.open = 0;
    return gh.sticky ? -1 : 0;
}

/* ---- the whole run ---------------------------------------------------------------- */

int gh_execute(struct gh_job *j)
{
    struct gl_result *r = j->r;
    cudaEvent_t e0 = NULL, e1 = NULL;
    const double *ref = NULL;
    char err[GL_REASON_MAX];
    int nalloc = 0, out_alloc = 0, parked = 0;
    long seed;
    double since;

    j->spacer = NULL;
    if (gh.sticky) {
        gh_fail(r, "CUDA context unusable after an earlier error");
        return -1;
    }
    if (!gh.ready) {
        gh_fail(r, "GPU not initialised");
        return 0;
    }
    if (j->nin < 1 || j->nin > GH_MAX_IN || !j->enqueue || !j->reference) {
        gh_fail(r, "internal: incomplete job description");
        return 0;
    }
    r->launches = j->launches;
    if (j->kernel) {   /* a library call's launch shape is its own: left 0 */
        r->grid[0] = (int)j->grid.x;
        r->grid[1] = (int)j->grid.y;
        r->grid[2] = (int)j->grid.z;
        r->block[0] = (int)j->block.x;
        r->block[1] = (int)j->block.y;
        r->block[2] = (int)j->block.z;
        r->dynamic_smem = (int)j->dyn_smem;
        r->guide_flags = guidance(j->grid, j->block, gh.dev.sm_count);
        if (!resources(j))
            goto out;
        if (r->blocks_per_sm == 0) {
            gh_skip(r, "no block of this shape fits on an SM (occupancy 0)");
            goto out;
        }
    }
    if (batch.n > 0 && !batch_has_room(j))
        batch_flush();   /* profile the parked runs to make room */
    if (!memory_fits(j))
        goto out;

    if (pad_bytes() < 0) {
        gh_fail(r, "GPULAB_PAD: not a byte count: '%s'", getenv("GPULAB_PAD"));
        goto out;
    }
    if (pad_bytes() > 0 && j->mem == GH_MEM_DEVICE &&
        !gh_ok(r, cudaMalloc(&j->spacer, (size_t)pad_bytes()), "cudaMalloc(GPULAB_PAD spacer)"))
        goto out;
    for (; nalloc < j->nin; nalloc++)
        if (!buf_alloc(r, &j->in[nalloc], j->in_count[nalloc], j->mem)) {
            nalloc++;
            goto out;
        }
    out_alloc = 1;
    if (!buf_alloc(r, &j->out, j->out_count, j->mem))
        goto out;
    seed = j->p->seed == GL_UNSET ? 42 : j->p->seed;
    for (int i = 0; i < j->nin; i++)
        gl_fill_random(j->in[i].host, j->in[i].count, (unsigned long long)seed, i);
    ref = j->reference(j, err, sizeof err);
    if (!ref) {
        gh_fail(r, "reference: %s", err);
        goto out;
    }
    if (!gh_ok(r, cudaEventCreate(&e0), "cudaEventCreate") ||
        !gh_ok(r, cudaEventCreate(&e1), "cudaEventCreate"))
        goto out;
    if (!copy_inputs(j, e0, e1))
        goto out;
    if ((j->cold || gh.passes > 0) && !flush_ready(r))
        goto out;

    /* Verify first: a wrong kernel is not timed or profiled. */
    since = now_s();
    if (!verify_run(j, ref, e0, e1) || r->status != GL_OK)
        goto out;
    if (!place_output(j) || !timed_samples(j, e0, e1, since))
        goto out;
    /* Check the last sample's output too: catches results that change from
     * run to run without running the kernel once more. */
    if (!gh_ok(r, cudaDeviceSynchronize(), "kernel (timed)") ||
        !check_output(j, ref, e0, e1) || r->status != GL_OK)
        goto out;
    if (gh.passes > 0) {
        if (!place_output(j))
            goto out;
        if (park(j)) {
            parked = 1;
        } else {
            struct gh_job *one = j;
            profile_jobs(&one, 1);
        }
    }

out:
    if (e0 && !gh.sticky)
        cudaEventDestroy(e0);
    if (e1 && !gh.sticky)
        cudaEventDestroy(e1);
    if (out_alloc && !parked)
        buf_free(&j->out, j->mem);
    for (int i = 0; i < nalloc && !parked; i++)
        buf_free(&j->in[i], j->mem);
    if (!parked)
        spacer_free(j);
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return gh.sticky ? -1 : 0;
}

/* ceilings.cu - the memory levels' bandwidth ceilings of the roofline
 * (struct gl_ceilings, gpulab.h), each measured by a small kernel whose bytes
 * are known: global loads that hit L1, conflict-free shared-memory loads,
 * global loads that miss L1 and hit L2, kernel reads of pinned mapped host
 * memory (the zero-copy path over the host link), the pinned host-to-device
 * copy, and the SM clock they ran at (clock64 cycles over event time). Every
 * kernel's work is sized for about 2 ms at the level's nominal peak; a number
 * is the best of GH_CEIL_REPS timed launches after one untimed one. The DRAM
 * level is the device-to-device copy bandwidth (gpu_plugin.cu), measured apart.
 * Called by the plugin's ceilings operation, under the device's lock only.
 * Must not touch the harness's buffers or profile anything; what it allocates
 * it frees. */
#include "harness_int.cuh"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GH_CEIL_THREADS 256
#define GH_CEIL_BLOCKS_PER_SM 8       /* 2048 threads per SM where the GPU allows them */
#define GH_CEIL_REPS 5
#define GH_CEIL_WINDOW 1024           /* float4 of the L1 and shared windows: 16 KiB */
#define GH_CEIL_TARGET_S 2e-3         /* each timed launch: ~2 ms at the nominal peak */

/* Spin for `cycles` SM cycles (clock64) in one warp per block. */
__global__ void gh_ceil_spin(long long cycles, float *sink, float never)
{
    long long t0 = clock64(), t = t0;
    while (t - t0 < cycles)
        t = clock64();
    if ((float)(t - t0) == never)
        *sink = 0.0f;
}

/* iters float4 loads per thread from a window of mask + 1 float4 that every
 * block shares, so that after the first pass every load hits the SM's L1
 * (ld.global.ca). step is blockDim.x at run time, so the addresses cannot be
 * folded. Writes only when the sum is `never` (a NaN: never). */
__global__ void gh_ceil_l1(const float4 *__restrict__ buf, int mask, int step, int iters,
                           float *sink, float never)
{
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int i = threadIdx.x & mask;
#pragma unroll 16
    for (int k = 0; k < iters; k++) {
        float4 v = __ldca(buf + i);
        a.x += v.x;
        a.y += v.y;
        a.z += v.z;
        a.w += v.w;
        i = (i + step) & mask;
    }
    if (a.x + a.y + a.z + a.w == never)
        *sink = a.x;
}

/* The same loop over a 16 KiB shared-memory window of the block's own: a warp
 * reads 32 consecutive float4 (4 wavefronts, no bank conflict). */
__global__ void gh_ceil_smem(int mask, int step, int iters, float seed, float *sink, float never)
{
    __shared__ float4 s[GH_CEIL_WINDOW];
    for (int j = threadIdx.x; j < GH_CEIL_WINDOW; j += blockDim.x)
        s[j] = make_float4(seed * j, seed + j, seed - j, seed);
    __syncthreads();
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int i = threadIdx.x & mask;
#pragma unroll 16
    for (int k = 0; k < iters; k++) {
        float4 v = s[i];
        a.x += v.x;
        a.y += v.y;
        a.z += v.z;
        a.w += v.w;
        i = (i + step) & mask;
    }
    if (a.x + a.y + a.z + a.w == never)
        *sink = a.x;
}

/* passes grid-stride sweeps over buf[0..n4), loads that skip L1 (ld.global.cg):
 * from L2 when buf fits in it (after an untimed sweep), from host memory over
 * the host link when buf is mapped host memory. */
__global__ void gh_ceil_stream(const float4 *__restrict__ buf, size_t n4, int passes,
                               float *sink, float never)
{
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t start = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int p = 0; p < passes; p++)
        for (size_t i = start; i < n4; i += stride) {
            float4 v = __ldcg(buf + i);
            a.x += v.x;
            a.y += v.y;
            a.z += v.z;
            a.w += v.w;
        }
    if (a.x + a.y + a.z + a.w == never)
        *sink = a.x;
}

/* What one measurement launches. */
enum ceil_kind { CK_SPIN, CK_L1, CK_SMEM, CK_STREAM, CK_H2D };

struct ceil_job {
    enum ceil_kind kind;
    dim3 grid, block;
    const float4 *buf;
    size_t n4;
    int iters;                  /* CK_L1, CK_SMEM: loads per thread; CK_STREAM: passes */
    long long cycles;           /* CK_SPIN */
    void *dst;                  /* CK_H2D */
    const void *src;
    size_t bytes;
    float *sink;
    float never;
};

static cudaError_t ceil_enqueue(const struct ceil_job *j)
{
    switch (j->kind) {
    case CK_SPIN:
        gh_ceil_spin<<<j->grid, j->block>>>(j->cycles, j->sink, j->never);
        break;
    case CK_L1:
        gh_ceil_l1<<<j->grid, j->block>>>(j->buf, GH_CEIL_WINDOW - 1, (int)j->block.x, j->iters,
                                          j->sink, j->never);
        break;
    case CK_SMEM:
        gh_ceil_smem<<<j->grid, j->block>>>(GH_CEIL_WINDOW - 1, (int)j->block.x, j->iters, 0.5f,
                                            j->sink, j->never);
        break;
    case CK_STREAM:
        gh_ceil_stream<<<j->grid, j->block>>>(j->buf, j->n4, j->iters, j->sink, j->never);
        break;
    case CK_H2D:
        return cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyHostToDevice, 0);
    }
    return cudaGetLastError();
}

/* Launch j once untimed, then GH_CEIL_REPS times timed: the shortest (and, for
 * the clock, the median) in ms. 1, or 0 with r failed. */
static int ceil_time(const struct ceil_job *j, cudaEvent_t e0, cudaEvent_t e1, struct gl_result *r,
                     double *best_ms, double *median_ms)
{
    float ms[GH_CEIL_REPS];
    if (!gh_ok(r, ceil_enqueue(j), "calibration launch") ||
        !gh_ok(r, cudaDeviceSynchronize(), "calibration run"))
        return 0;
    for (int k = 0; k < GH_CEIL_REPS; k++) {
        if (!gh_ok(r, cudaEventRecord(e0, 0), "cudaEventRecord") ||
            !gh_ok(r, ceil_enqueue(j), "calibration launch") ||
            !gh_ok(r, cudaEventRecord(e1, 0), "cudaEventRecord") ||
            !gh_ok(r, cudaEventSynchronize(e1), "calibration run") ||
            !gh_ok(r, cudaEventElapsedTime(&ms[k], e0, e1), "cudaEventElapsedTime"))
            return 0;
    }
    /* insertion sort: five numbers */
    for (int a = 1; a < GH_CEIL_REPS; a++)
        for (int b = a; b > 0 && ms[b] < ms[b - 1]; b--) {
            float t = ms[b];
            ms[b] = ms[b - 1];
            ms[b - 1] = t;
        }
    *best_ms = ms[0];
    if (median_ms)
        *median_ms = ms[GH_CEIL_REPS / 2];
    return ms[0] > 0.0f ? 1 : gh_fail(r, "calibration kernel took no time");
}

/* Append "what: reason" to c->why. */
static void ceil_why(struct gl_ceilings *c, const char *what, const char *reason)
{
    size_t used = strlen(c->why);
    if (used + 8 >= sizeof c->why)
        return;
    snprintf(c->why + used, sizeof c->why - used, "%s%s not measured: %.150s", used ? "; " : "",
             what, reason);
}

/* Bytes that keep the level busy for GH_CEIL_TARGET_S at bytes_per_clock per SM. */
static double ceil_target_bytes(const struct gl_device *d, double bytes_per_clock)
{
    double clock_hz = d->clock_khz > 0 ? d->clock_khz * 1e3 : 1.5e9;
    return bytes_per_clock * (d->sm_count > 0 ? d->sm_count : 1) * clock_hz * GH_CEIL_TARGET_S;
}

int gh_measure_ceilings(struct gl_ceilings *c)
{
    memset(c, 0, sizeof *c);
    const struct gl_device *d = gh_device();
    if (!d) {
        ceil_why(c, "ceilings", "GPU not initialised");
        return 1;
    }
    if (gh_context_lost()) {
        ceil_why(c, "ceilings", "CUDA context unusable after an earlier error");
        return -1;
    }
    struct gl_result r;
    gh_result_init(&r);
    cudaEvent_t e0 = NULL, e1 = NULL;
    float *sink = NULL;
    float4 *dev = NULL, *host = NULL, *mapped = NULL;
    int sms = d->sm_count > 0 ? d->sm_count : 1;
    dim3 block(GH_CEIL_THREADS), grid(sms * GH_CEIL_BLOCKS_PER_SM);
    double best = 0.0, median = 0.0;
    struct ceil_job j = {};
    j.never = nanf("");
    j.block = block;
    j.grid = grid;
    if (!gh_ok(&r, cudaEventCreate(&e0), "cudaEventCreate") ||
        !gh_ok(&r, cudaEventCreate(&e1), "cudaEventCreate") ||
        !gh_ok(&r, cudaMalloc((void **)&sink, sizeof *sink), "cudaMalloc")) {
        ceil_why(c, "ceilings", r.reason);
        goto out;
    }
    j.sink = sink;

    /* the SM clock: one warp per SM spinning ~5 ms of nominal cycles */
    j.kind = CK_SPIN;
    j.grid = dim3(sms);
    j.block = dim3(32);
    j.cycles = (long long)((d->clock_khz > 0 ? d->clock_khz * 1e3 : 1.5e9) * 5e-3);
    if (ceil_time(&j, e0, e1, &r, &best, &median))
        c->clock_mhz = (double)j.cycles / (median * 1e-3) / 1e6;
    else
        ceil_why(c, "SM clock", r.reason);
    j.grid = grid;
    j.block = block;

    /* L1: 16 KiB every block reads, 128 bytes per SM clock nominal */
    {
        size_t window = GH_CEIL_WINDOW * sizeof(float4);
        double per_launch = (double)grid.x * block.x * sizeof(float4);
        gh_result_init(&r);
        if (gh_ok(&r, cudaMalloc((void **)&dev, window), "cudaMalloc") &&
            gh_ok(&r, cudaMemset(dev, 0, window), "cudaMemset")) {
            j.kind = CK_L1;
            j.buf = dev;
            j.iters = (int)fmax(64.0, ceil_target_bytes(d, 128.0) / per_launch);
            if (ceil_time(&j, e0, e1, &r, &best, NULL))
                c->l1_gbs = per_launch * j.iters / (best * 1e-3) / 1e9;
        }
        if (!(c->l1_gbs > 0))
            ceil_why(c, "L1", r.reason);
        cudaFree(dev);
        dev = NULL;
        if (gh_context_lost())
            goto out;
    }

    /* shared memory: the same loop over the block's own 16 KiB */
    {
        double per_launch = (double)grid.x * block.x * sizeof(float4);
        gh_result_init(&r);
        j.kind = CK_SMEM;
        j.iters = (int)fmax(64.0, ceil_target_bytes(d, 128.0) / per_launch);
        if (ceil_time(&j, e0, e1, &r, &best, NULL))
            c->smem_gbs = per_launch * j.iters / (best * 1e-3) / 1e9;
        else
            ceil_why(c, "shared memory", r.reason);
        if (gh_context_lost())
            goto out;
    }

    /* L2: a quarter of L2 (at least 1 MiB), swept with loads that skip L1 */
    {
        size_t bytes = d->l2_bytes >= (4 << 20) ? (size_t)d->l2_bytes / 4 : (size_t)1 << 20;
        bytes &= ~(size_t)4095;
        gh_result_init(&r);
        if (gh_ok(&r, cudaMalloc((void **)&dev, bytes), "cudaMalloc") &&
            gh_ok(&r, cudaMemset(dev, 0, bytes), "cudaMemset")) {
            j.kind = CK_STREAM;
            j.buf = dev;
            j.n4 = bytes / sizeof(float4);
            j.iters = (int)fmax(4.0, ceil_target_bytes(d, 64.0) / (double)bytes);
            if (ceil_time(&j, e0, e1, &r, &best, NULL))
                c->l2_gbs = (double)bytes * j.iters / (best * 1e-3) / 1e9;
        }
        if (!(c->l2_gbs > 0))
            ceil_why(c, "L2", r.reason);
        cudaFree(dev);
        dev = NULL;
        if (gh_context_lost())
            goto out;
    }

    /* the host link: one sweep of pinned mapped host memory (4 x L2, at least
     * 64 MiB, so that L2 holds none of it when the next sweep starts), then the
     * pinned copy of 64 MiB of it to the device */
    {
        size_t bytes = (size_t)d->l2_bytes * 4;
        if (bytes < ((size_t)64 << 20))
            bytes = (size_t)64 << 20;
        size_t copy = (size_t)64 << 20;
        gh_result_init(&r);
        if (gh_ok(&r, cudaHostAlloc((void **)&host, bytes, cudaHostAllocMapped),
                  "cudaHostAlloc(mapped)") &&
            gh_ok(&r, cudaHostGetDevicePointer((void **)&mapped, host, 0),
                  "cudaHostGetDevicePointer")) {
            memset(host, 0, bytes);
            j.kind = CK_STREAM;
            j.buf = mapped;
            j.n4 = bytes / sizeof(float4);
            j.iters = 1;
            if (ceil_time(&j, e0, e1, &r, &best, NULL))
                c->hostlink_gbs = (double)bytes / (best * 1e-3) / 1e9;
            else
                ceil_why(c, "host link (zero-copy read)", r.reason);
            if (!gh_context_lost()) {
                gh_result_init(&r);
                if (gh_ok(&r, cudaMalloc((void **)&dev, copy), "cudaMalloc")) {
                    j.kind = CK_H2D;
                    j.dst = dev;
                    j.src = host;
                    j.bytes = copy;
                    if (ceil_time(&j, e0, e1, &r, &best, NULL))
                        c->h2d_gbs = (double)copy / (best * 1e-3) / 1e9;
                }
                if (!(c->h2d_gbs > 0))
                    ceil_why(c, "pinned host-to-device copy", r.reason);
            }
        } else {
            ceil_why(c, "host link (zero-copy read)", r.reason);
            ceil_why(c, "pinned host-to-device copy", r.reason);
        }
    }

out:
    if (!gh_context_lost()) {
        (void)cudaGetLastError();
        if (dev)
            cudaFree(dev);
        if (host)
            cudaFreeHost(host);
        if (sink)
            cudaFree(sink);
        if (e0)
            cudaEventDestroy(e0);
        if (e1)
            cudaEventDestroy(e1);
    }
    if (gh_context_lost())
        return -1;
    return c->why[0] ? 1 : 0;
}

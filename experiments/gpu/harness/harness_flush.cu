/* harness_flush.cu - the L2 flush: the one kernel of the harness, which reads a
 * buffer of twice the L2 size (and, for the profiled replay, evicts the
 * instruction caches and puts the next run's page translations back), the
 * buffer's life (its one flush timed), and the harness's shutdown.
 * Must not time anything or know about families; the flush never leaves a
 * dirty line in L2. */
#include "harness_int.cuh"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define GH_FLUSH_THREADS 256

/* Reads every word of buf so that L2 ends up holding its (clean) lines; writes
 * one word only when the sum equals `never` (a NaN: never), so that the reads
 * cannot be optimised away and no dirty line is left behind. With `code` set,
 * the first warp of every block first runs GH_CODE_STEPS x 8 dependent FMAs of
 * straight-line code (512 KiB of SASS): that evicts the SMs' instruction caches
 * and the GPC-level constant/instruction cache, which the data reads cannot
 * reach, so the next kernel fetches its code from L2 as it does after ncu's
 * cache invalidation. ca and cb are runtime values so the chain cannot fold.
 * Last, every block reads the words of `touch` (struct gh_touch, harness_int.cuh). */
#define GH_CODE_STEPS 4096

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
cudaError_t gh_flush_enqueue(int code, const struct gh_touch *touch)
{
    static const struct gh_touch none = {};
    if (!touch)
        touch = &none;
    int blocks = gh_st.dev.sm_count > 0 ? 4 * gh_st.dev.sm_count : 128;
    gh_flush_kernel<<<blocks, GH_FLUSH_THREADS>>>(gh_st.flush_buf, gh_st.flush_n4, gh_st.flush_sink,
                                                  nanf(""), code, 0.5f, 0.25f, *touch);
    return cudaGetLastError();
}

/* Add the pages of b to t (device memory only: mapped host memory and managed
 * memory are translated elsewhere). */
void gh_touch_add(struct gh_touch *t, const struct gh_buf *b, enum gh_mem mem)
{
    if (mem != GH_MEM_DEVICE || !b->dev)
        return;
    uintptr_t end = (uintptr_t)b->dev + gh_buf_bytes(b);
    for (uintptr_t a = (uintptr_t)b->dev; a < end && t->n < GH_TOUCH_MAX;
         a = (a / GH_PAGE + 1) * GH_PAGE)
        t->p[t->n++] = (const float *)a;
}

/* Allocate the flush buffer (2 x L2) once per process and run one flush right
 * away, so that whatever the allocation left dirty in L2 is gone before the
 * first measured kernel. */
int gh_flush_ready(struct gl_result *r)
{
    if (gh_st.flush_buf)
        return 1;
    size_t l2 = gh_st.dev.l2_bytes > 0 ? (size_t)gh_st.dev.l2_bytes : (size_t)64 << 20;
    size_t bytes = (2 * l2 + 15) / 16 * 16;
    float4 *buf = NULL;
    float *sink = NULL;
    if (!gh_ok(r, cudaMalloc((void **)&buf, bytes), "cudaMalloc(L2 flush buffer)"))
        return 0;
    if (!gh_ok(r, cudaMalloc((void **)&sink, sizeof(float)), "cudaMalloc(flush sink)")) {
        cudaFree(buf);
        return 0;
    }
    gh_st.flush_buf = buf;
    gh_st.flush_n4 = bytes / 16;
    gh_st.flush_sink = sink;
    if (!gh_ok(r, gh_flush_enqueue(0, NULL), "L2 flush launch") ||
        !gh_ok(r, cudaDeviceSynchronize(), "L2 flush"))
        return 0;
    /* one more, timed: what each flush adds to a run's device time (--profile-self) */
    cudaEvent_t a = NULL, b = NULL;
    double ms = 0.0;
    int ok = gh_ok(r, cudaEventCreate(&a), "cudaEventCreate") &&
             gh_ok(r, cudaEventCreate(&b), "cudaEventCreate") &&
             gh_ok(r, cudaEventRecord(a, 0), "cudaEventRecord") &&
             gh_ok(r, gh_flush_enqueue(0, NULL), "L2 flush launch") &&
             gh_ok(r, cudaEventRecord(b, 0), "cudaEventRecord") && gh_elapsed_ms(r, a, b, &ms);
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    gh_st.flush_ms = ms;
    return ok;
}

void gh_shutdown(void)
{
    gh_lend_report();
    gh_check_shutdown();
    gh_expected_release();
    gh_expected_view_free();
    gh_staging_free();
    if (gh_st.flush_buf && !gh_st.sticky) {
        cudaFree(gh_st.flush_buf);
        cudaFree(gh_st.flush_sink);
    }
    gh_st.flush_buf = NULL;
    gh_st.flush_sink = NULL;
    gh_st.flush_n4 = 0;
    gh_st.ready = 0;
}

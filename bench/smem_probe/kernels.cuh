/* kernels.cuh - the kernels bench/smem_probe measures: gpulab's transpose tiles
 * and matmul/shared (copies of configs/kernels/transpose.cu and
 * experiments/gpu/matmul.cu, so the probe needs no gpulab build of them), and
 * one-access micro kernels whose shared-memory width, active lanes and pattern
 * are known, to learn what CUPTI's instrumented wavefront counts and their
 * "ideal" mean. Must stay a probe: no gpulab code depends on it. */
#ifndef SMEM_PROBE_KERNELS_CUH
#define SMEM_PROBE_KERNELS_CUH

template <int TS, int ROWS>
__global__ void transpose_tiled(float *out, const float *in, int n)
{
    __shared__ float tile[TS][TS];
    int x = blockIdx.x * TS + threadIdx.x;
    int y = blockIdx.y * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TS + threadIdx.x;
    y = blockIdx.x * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <int TS, int ROWS>
__global__ void transpose_padded(float *out, const float *in, int n)
{
    __shared__ float tile[TS][TS + 1];
    int x = blockIdx.x * TS + threadIdx.x;
    int y = blockIdx.y * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TS + threadIdx.x;
    y = blockIdx.x * TS + threadIdx.y;
    if (x < n)
        for (int j = 0; j < TS; j += ROWS)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <int BS, int K>
__global__ void matmul_shared(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ c, int n, int bx0, int by0)
{
    __shared__ float sm_a[K * BS][BS];
    __shared__ float sm_b[BS][K * BS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = (blockIdx.y + by0) * (K * BS);
    const int col0 = (blockIdx.x + bx0) * (K * BS);
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

/* Micro kernels: 256 threads per block; the shared array is filled with plain
 * 32-bit stores (STS), then each thread makes ONE access of the kind named, and
 * the value goes to out so nothing is optimised away. W = words per access. */
#define MICRO_WORDS 8192
#define MICRO_FILL()                                                        \
    __shared__ __align__(16) float sm[MICRO_WORDS];                         \
    for (int i = threadIdx.x; i < MICRO_WORDS; i += blockDim.x)             \
        sm[i] = (float)(i + blockIdx.x);                                    \
    __syncthreads();                                                        \
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;                \
    (void)lane; (void)warp

/* lane -> word index of a load of W words with stride S accesses (S = W:
 * contiguous, conflict-free) */
template <int W>
__device__ __forceinline__ float ld(const float *sm, int word)
{
    if (W == 1)
        return sm[word];
    if (W == 2) {
        float2 v = *reinterpret_cast<const float2 *>(sm + word);
        return v.x + v.y;
    }
    float4 v = *reinterpret_cast<const float4 *>(sm + word);
    return v.x + v.y + v.z + v.w;
}

/* load: W words per lane, lane L at word (warp * 32 * S + L * S) % MICRO_WORDS,
 * only lanes < ACTIVE; S = 0: every lane the same address (broadcast) */
template <int W, int S, int ACTIVE>
__global__ void micro_ld(float *out)
{
    MICRO_FILL();
    float v = 0.0f;
    if (lane < ACTIVE)
        v = ld<W>(sm, (warp * 32 * (S ? S : 1) + lane * S) % MICRO_WORDS);
    out[blockIdx.x * blockDim.x + t] = v;
}

/* store: the same addressing; the array is read back with 32-bit loads */
template <int W, int S, int ACTIVE>
__global__ void micro_st(float *out)
{
    __shared__ __align__(16) float sm[MICRO_WORDS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int word = (warp * 32 * (S ? S : 1) + lane * S) % MICRO_WORDS;
    if (lane < ACTIVE) {
        if (W == 1)
            sm[word] = (float)t;
        else if (W == 2)
            *reinterpret_cast<float2 *>(sm + word) = make_float2((float)t, 1.0f);
        else
            *reinterpret_cast<float4 *>(sm + word) = make_float4((float)t, 1.0f, 2.0f, 3.0f);
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sm[t];
}

/* reads a big buffer: the L2 flush the range profiler's auto ranges need
 * around each run (one kernel between runs) */
__global__ void flush_kernel(const float4 *__restrict__ buf, size_t n4, float *sink)
{
    float acc = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 a = buf[i];
        acc += a.x + a.y + a.z + a.w;
    }
    if (acc == -1.2345f)
        *sink = acc;
}

#endif

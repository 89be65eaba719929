// reduce_passes.cu - the sum of n floats in passes, each pass reducing by a
// block's worth, until one value remains: pass p adds groups of BLOCK values
// that lie BLOCK^p apart, in place in `partial`, so no pass reads what another
// block of the same pass writes (block b writes only the first element of its
// own group). The first pass reads the input, the last (one block) writes the
// sum. Two block reductions: a shared-memory tree and warp shuffles.
//
//   nvcc -O3 -o reduce_passes reduce_passes.cu && ./reduce_passes [n]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                               \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_),   \
                    __FILE__, __LINE__);                                          \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

// The value of element i of pass `stride`: the input in the first pass, the
// partial sums of the pass before in the others (0 past the end).
__device__ __forceinline__ float load(const float *in, const float *partial, long long n,
                                      long long stride, long long i)
{
    if (i * stride >= n)
        return 0.0f;
    return stride == 1 ? in[i] : partial[i * stride];
}

// Where a block's sum goes: the first element of its group, or the result
// when this pass is the last (one block).
__device__ __forceinline__ void store(float *partial, float *sum, long long stride, int block,
                                      float v)
{
    if (gridDim.x == 1)
        sum[0] = v;
    else
        partial[(long long)blockIdx.x * block * stride] = v;
}

template <int BLOCK>
__global__ void reduce_shared(const float *in, float *partial, float *sum, long long n,
                              long long stride)
{
    __shared__ float s[BLOCK];
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = load(in, partial, n, stride, i);
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        store(partial, sum, stride, BLOCK, s[0]);
}

template <int BLOCK>
__global__ void reduce_shuffle(const float *in, float *partial, float *sum, long long n,
                               long long stride)
{
    __shared__ float warp_sums[BLOCK / 32];
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    float v = load(in, partial, n, stride, i);
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0)
            store(partial, sum, stride, BLOCK, v);
    }
}

int main(int argc, char **argv)
{
    const long long n = argc > 1 ? atoll(argv[1]) : 1LL << 24;
    const int BS = 256;
    std::vector<float> h(n);
    double want = 0.0;
    for (long long i = 0; i < n; i++) {
        h[i] = (float)(i % 1000) / 1000.0f;
        want += h[i];
    }
    float *d_in, *d_partial, *d_sum;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_partial, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int passes = 0;
    for (long long span = 1; span < n; span *= BS)
        passes++;
    long long stride = 1;
    for (int p = 0; p < passes; p++, stride *= BS) {
        long long blocks = (n + stride * BS - 1) / (stride * BS);
        reduce_shuffle<BS><<<(unsigned)blocks, BS>>>(d_in, d_partial, d_sum, n, stride);
        CHECK(cudaGetLastError());
    }
    float got = 0.0f;
    CHECK(cudaMemcpy(&got, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum of %lld floats in %d passes: %.6f (want %.6f)\n", n, passes, got, want);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_sum));
    return 0;
}

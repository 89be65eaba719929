// compact.cu - stream compaction: keep the elements above a threshold, appended
// to the output at an index taken with atomicAdd, so their order is whatever
// the atomics decide. Two classic forms: one atomic per kept element, and one
// per warp (ballot, popc, a leader's atomicAdd, shuffled base).
// Build alone: nvcc -O3 -o compact compact.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void compact_atomic(const int *in, int *out, int *count, int n, int threshold)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = in[i];
        if (v > threshold)
            out[atomicAdd(count, 1)] = v;
    }
}

__global__ void compact_warp(const int *in, int *out, int *count, int n, int threshold)
{
    const int lane = threadIdx.x & 31;
    // every lane of a warp runs the same number of iterations (the bound is rounded up)
    int n_up = (n + 31) / 32 * 32;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_up; i += gridDim.x * blockDim.x) {
        int v = i < n ? in[i] : 0;
        bool keep = i < n && v > threshold;
        unsigned mask = __ballot_sync(0xffffffffu, keep);
        int base = 0;
        if (lane == 0 && mask)
            base = atomicAdd(count, __popc(mask));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (keep)
            out[base + __popc(mask & ((1u << lane) - 1))] = v;
    }
}

int main()
{
    const int n = 1 << 20, threshold = 500;
    std::vector<int> h(n);
    for (auto &x : h) x = 1 + rand() % 999;
    int *in, *out, *count;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&out, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&count, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(count, 0, sizeof(int)));
    compact_warp<<<264, 256>>>(in, out, count, n, threshold);
    CUDA_CHECK(cudaDeviceSynchronize());
    int c;
    CUDA_CHECK(cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost));
    printf("kept %d of %d\n", c, n);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(count));
    return 0;
}

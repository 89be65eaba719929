/*
 * treereduce.cu - sum of n floats by a tree reduction done in place in global
 * memory: each block folds its 2*BLOCK-element segment onto its first element
 * in log2(2*BLOCK) passes (stride BLOCK, BLOCK/2, ..., 1), a barrier between
 * passes, then adds the segment's sum into *g_sum. The input is destroyed,
 * as in the textbook version: run it twice on the same buffer and the second
 * sum is wrong.
 *
 *   nvcc -O3 -o treereduce treereduce.cu && ./treereduce 16777216
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

template <unsigned BLOCK>
__global__ void reduce_inplace(float *g_data, float *g_sum, unsigned n)
{
    const size_t base = (size_t)blockIdx.x * (2 * BLOCK);
    const unsigned t = threadIdx.x;
    for (unsigned stride = BLOCK; stride > 0; stride >>= 1) {
        if (t < stride && base + t + stride < n)
            g_data[base + t] += g_data[base + t + stride];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(g_sum, g_data[base]);
}

int main(int argc, char **argv)
{
    const unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1u << 24;
    const unsigned BS = 256;
    float *h = (float *)malloc(n * sizeof(float));
    double want = 0.0;
    for (unsigned i = 0; i < n; i++) {
        h[i] = (float)(rand() & 0xff) / 256.0f;
        want += h[i];
    }
    float *d_data, *d_sum, sum = 0.0f;
    CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_data, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    reduce_inplace<BS><<<(n + 2 * BS - 1) / (2 * BS), BS>>>(d_data, d_sum, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum %.6f, expected %.6f\n", sum, want);
    cudaFree(d_data);
    cudaFree(d_sum);
    free(h);
    return 0;
}

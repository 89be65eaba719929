// histogram.cu - 256-bin histogram of floats in [0, 1), in two kernels: each
// block builds a private histogram of its grid-stride slice in shared memory
// and writes it to its row of `partial`, then one block merges the rows. Two
// ways to build a block's histogram: one shared histogram per block (every
// thread of the block contends for the same 256 counters), or one per warp
// (less contention, summed at the end of the block).
//
//   nvcc -O3 -o histogram histogram.cu && ./histogram [n] [blocks]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err__ = (call);                                               \
        if (err__ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorString(err__));                                   \
            exit(EXIT_FAILURE);                                                   \
        }                                                                         \
    } while (0)

#ifndef NUM_BINS
#define NUM_BINS 256
#endif
#define MAX_WARPS 32   // warps of a block of up to 1024 threads

// The bin of x in [0, 1): floor(x * NUM_BINS), clamped (x * 256 is exact in float).
__device__ __forceinline__ int bin_of(float x)
{
    int b = (int)(x * (float)NUM_BINS);
    return b < 0 ? 0 : b >= NUM_BINS ? NUM_BINS - 1 : b;
}

// One shared histogram per block.
__global__ void histogram_block(const float *data, unsigned int *partial, int n)
{
    __shared__ unsigned int hist[NUM_BINS];
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x)
        hist[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[bin_of(data[i])], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < NUM_BINS; i += blockDim.x)
        partial[blockIdx.x * NUM_BINS + i] = hist[i];
}

// One shared histogram per warp, summed per bin at the end of the block.
__global__ void histogram_warp(const float *data, unsigned int *partial, int n)
{
    __shared__ unsigned int hist[MAX_WARPS][NUM_BINS];
    const int warps = (blockDim.x + 31) / 32, w = threadIdx.x / 32;
    for (int i = threadIdx.x; i < warps * NUM_BINS; i += blockDim.x)
        hist[i / NUM_BINS][i % NUM_BINS] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[w][bin_of(data[i])], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int sum = 0;
        for (int k = 0; k < warps; k++)
            sum += hist[k][b];
        partial[blockIdx.x * NUM_BINS + b] = sum;
    }
}

// hist[b] = the sum of column b of partial (nparts rows): one thread per bin.
__global__ void histogram_merge(const unsigned int *partial, unsigned int *hist, int nparts)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= NUM_BINS)
        return;
    unsigned int sum = 0;
    for (int k = 0; k < nparts; k++)
        sum += partial[k * NUM_BINS + b];
    hist[b] = sum;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
    const int blocks = argc > 2 ? atoi(argv[2]) : 264;
    const int threads = 256;
    std::vector<float> h_data(n);
    srand(1);
    for (int i = 0; i < n; i++)
        h_data[i] = (float)rand() / ((float)RAND_MAX + 1.0f);

    float *d_data;
    unsigned int *d_partial, *d_hist;
    CUDA_CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_partial, (size_t)blocks * NUM_BINS * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_hist, NUM_BINS * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(d_data, h_data.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    histogram_warp<<<blocks, threads>>>(d_data, d_partial, n);
    histogram_merge<<<(NUM_BINS + threads - 1) / threads, threads>>>(d_partial, d_hist, blocks);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    std::vector<unsigned int> h_hist(NUM_BINS), want(NUM_BINS, 0);
    CUDA_CHECK(cudaMemcpy(h_hist.data(), d_hist, NUM_BINS * sizeof(unsigned int),
                          cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int b = (int)(h_data[i] * (float)NUM_BINS);
        want[b < 0 ? 0 : b >= NUM_BINS ? NUM_BINS - 1 : b]++;
    }
    int bad = 0;
    for (int b = 0; b < NUM_BINS; b++)
        bad += h_hist[b] != want[b];
    printf("histogram of %d floats, %d blocks: %.3f ms, %d wrong bins\n", n, blocks, ms, bad);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_partial));
    CUDA_CHECK(cudaFree(d_hist));
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}

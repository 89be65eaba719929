// persistent.cu - a persistent kernel: as many blocks as the GPU holds at once
// (SM count x blocks per SM from the occupancy API), each looping over tiles of
// y = a*x + y until none is left. Its own main() sizes the grid so.
// Build: nvcc -O3 -o persistent persistent.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

__global__ void saxpy_persistent(int n, float a, const float *__restrict__ x, float *y)
{
    const int tile = blockDim.x * 4;
    const int tiles = (n + tile - 1) / tile;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int i = t * tile + k * blockDim.x + threadIdx.x;
            if (i < n)
                y[i] = a * x[i] + y[i];
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 24, dev = 0, sms = 0, per_sm = 0;
    const int block = 256;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, saxpy_persistent, block, 0));
    float *x, *y;
    CHECK(cudaMalloc(&x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&y, (size_t)n * sizeof(float)));
    CHECK(cudaMemset(x, 0, (size_t)n * sizeof(float)));
    CHECK(cudaMemset(y, 0, (size_t)n * sizeof(float)));
    saxpy_persistent<<<sms * per_sm, block>>>(n, 2.0f, x, y);
    CHECK(cudaDeviceSynchronize());
    printf("%d blocks = %d SMs x %d\n", sms * per_sm, sms, per_sm);
    cudaFree(x);
    cudaFree(y);
    return 0;
}

/* lib_transpose.cu - TILE = 32 transposes as extern "C" kernels, built into a
 * cubin that bench/smem_probe loads with cudaLibraryLoadData: the path users'
 * kernels take in gpulab (NVRTC cubin, experiments/gpu/userkernel/kernel_run.cu). */
#include "kernels.cuh"
extern "C" __global__ void lib_tiled32(float *out, const float *in, int n)
{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (x < n)
        for (int j = 0; j < 32; j += 8)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < n)
        for (int j = 0; j < 32; j += 8)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void lib_padded32(float *out, const float *in, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (x < n)
        for (int j = 0; j < 32; j += 8)
            if (y + j < n)
                tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < n)
        for (int j = 0; j < 32; j += 8)
            if (y + j < n)
                out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

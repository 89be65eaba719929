// surface_scale.cu - read a row-major image through a texture over linear
// memory (tex1Dfetch) and write it, scaled, into a 2D cudaArray through a
// surface object (surf2Dwrite takes the x coordinate in bytes).
// Build alone: nvcc -O3 -o surface_scale surface_scale.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void scale_to_surface(cudaTextureObject_t src, cudaSurfaceObject_t dst, int W, int H,
                                 float s)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H)
        surf2Dwrite(s * tex1Dfetch<float>(src, y * W + x), dst, x * (int)sizeof(float), y);
}

int main()
{
    const int W = 1024, H = 1024;
    float *lin;
    CUDA_CHECK(cudaMalloc(&lin, W * H * sizeof(float)));
    CUDA_CHECK(cudaMemset(lin, 0, W * H * sizeof(float)));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = lin;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = W * H * sizeof(float);
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CUDA_CHECK(cudaMallocArray(&arr, &cd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc sd = {};
    sd.resType = cudaResourceTypeArray;
    sd.res.array.array = arr;
    cudaSurfaceObject_t surf;
    CUDA_CHECK(cudaCreateSurfaceObject(&surf, &sd));
    scale_to_surface<<<dim3(W / 16, H / 16), dim3(16, 16)>>>(tex, surf, W, H, 2.0f);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("done\n");
    CUDA_CHECK(cudaDestroySurfaceObject(surf));
    CUDA_CHECK(cudaDestroyTextureObject(tex));
    CUDA_CHECK(cudaFreeArray(arr));
    CUDA_CHECK(cudaFree(lin));
    return 0;
}

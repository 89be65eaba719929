// tex_bilinear.cu - 2x image upscale by bilinear sampling: the texture unit's
// filtering (tex2D on a cudaArray with cudaFilterModeLinear) against the same
// interpolation written out from four point-sampled fetches.
// Build alone: nvcc -O3 -o tex_bilinear tex_bilinear.cu
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

// Output pixel (x, y) of a 2W x 2H image samples the source at texel
// coordinates ((x + 0.5) / 2, (y + 0.5) / 2): texel centres sit at i + 0.5.
__global__ void upscale_hw(float *out, cudaTextureObject_t linear_tex, cudaTextureObject_t point_tex,
                           int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= 2 * W || y >= 2 * H)
        return;
    float u = (x + 0.5f) * 0.5f, v = (y + 0.5f) * 0.5f;
    out[y * 2 * W + x] = tex2D<float>(linear_tex, u, v);
}

__device__ __forceinline__ float fetch(cudaTextureObject_t t, int i, int j)
{
    return tex2D<float>(t, i + 0.5f, j + 0.5f);   // point sampling, clamped at the edges
}

__global__ void upscale_manual(float *out, cudaTextureObject_t linear_tex, cudaTextureObject_t point_tex,
                               int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= 2 * W || y >= 2 * H)
        return;
    float u = (x + 0.5f) * 0.5f - 0.5f, v = (y + 0.5f) * 0.5f - 0.5f;
    int i = (int)floorf(u), j = (int)floorf(v);
    float a = u - i, b = v - j;
    float t00 = fetch(point_tex, i, j), t10 = fetch(point_tex, i + 1, j);
    float t01 = fetch(point_tex, i, j + 1), t11 = fetch(point_tex, i + 1, j + 1);
    out[y * 2 * W + x] = (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
}

int main()
{
    const int W = 512, H = 384;
    std::vector<float> img(W * H), out(4 * W * H);
    for (int i = 0; i < W * H; i++)
        img[i] = (float)rand() / RAND_MAX;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CUDA_CHECK(cudaMallocArray(&arr, &cd, W, H));
    CUDA_CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H,
                                   cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t lin, pt;
    CUDA_CHECK(cudaCreateTextureObject(&lin, &rd, &td, nullptr));
    td.filterMode = cudaFilterModePoint;
    CUDA_CHECK(cudaCreateTextureObject(&pt, &rd, &td, nullptr));
    float *d_out;
    CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
    dim3 block(16, 16), grid((2 * W + 15) / 16, (2 * H + 15) / 16);
    upscale_hw<<<grid, block>>>(d_out, lin, pt, W, H);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[1000] = %f\n", out[1000]);
    CUDA_CHECK(cudaDestroyTextureObject(lin));
    CUDA_CHECK(cudaDestroyTextureObject(pt));
    CUDA_CHECK(cudaFreeArray(arr));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}

// tma_scale.cu - a 2D tile load with the Tensor Memory Accelerator (sm_90):
// each block has one 32 x 32 float tile of the input copied into shared memory
// by cp.async.bulk.tensor, completion signalled on an mbarrier (expect_tx
// bytes), then writes the tile scaled by 2. The tensor map is built on the
// host with cuTensorMapEncodeTiled and passed by value as a __grid_constant__
// parameter. The plain kernel does the same from global memory.
// Build alone: nvcc -O3 -arch=sm_90 -o tma_scale tma_scale.cu -lcuda
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define TILE 32

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__global__ void scale_tma(float *out, const __grid_constant__ CUtensorMap in_map, const float *in,
                          int W, int H)
{
    __shared__ alignas(128) float tile[TILE * TILE];
    __shared__ alignas(8) uint64_t bar;
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar)), "r"(1));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (tid == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     ::"r"(smem_u32(&bar)), "r"((int)sizeof(tile)) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(smem_u32(tile)), "l"(&in_map), "r"(x0), "r"(y0), "r"(smem_u32(&bar))
                     : "memory");
    }
    // every thread waits for phase 0 of the barrier to complete
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(smem_u32(&bar)), "r"(0) : "memory");
    for (int i = tid; i < TILE * TILE; i += blockDim.x * blockDim.y) {
        int x = x0 + i % TILE, y = y0 + i / TILE;
        if (x < W && y < H)
            out[(size_t)y * W + x] = 2.0f * tile[i];
    }
}

__global__ void scale_plain(float *out, const __grid_constant__ CUtensorMap in_map, const float *in,
                            int W, int H)
{
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < TILE * TILE; i += blockDim.x * blockDim.y) {
        int x = x0 + i % TILE, y = y0 + i / TILE;
        if (x < W && y < H)
            out[(size_t)y * W + x] = 2.0f * in[(size_t)y * W + x];
    }
}

int main()
{
    const int W = 4096, H = 4096;
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, (size_t)W * H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, (size_t)W * H * sizeof(float)));
    CUDA_CHECK(cudaMemset(in, 0, (size_t)W * H * sizeof(float)));
    CUtensorMap map;
    cuuint64_t dims[2] = { (cuuint64_t)W, (cuuint64_t)H };
    cuuint64_t strides[1] = { (cuuint64_t)W * sizeof(float) };
    cuuint32_t box[2] = { TILE, TILE }, es[2] = { 1, 1 };
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, dims, strides,
                                        box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
        return 1;
    }
    scale_tma<<<dim3(W / TILE, H / TILE), dim3(32, 8)>>>(out, map, in, W, H);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("done\n");
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return 0;
}

// wgmma_gemm.cu - a small Hopper GEMM (sm_90a): C (float, M x N) = A (half,
// M x K, row-major) times B^T, B given as N x K row-major (both K-major, the
// "TN" layout). Each block is one warpgroup (128 threads) computing a 64 x 64
// tile of C: per 64-wide slice of K, TMA loads the A and B tiles (64 x 64 halfs,
// 128-byte swizzle) into shared memory, completion on an mbarrier, then four
// wgmma.mma_async m64n64k16 steps read them through shared-memory matrix
// descriptors, accumulating in registers. Not tuned (no pipelining): a
// correct, readable starting point. The naive kernel is the reference.
// Build alone: nvcc -O3 -arch=sm_90a -o wgmma_gemm wgmma_gemm.cu -lcuda
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define BM 64
#define BN 64
#define BK 64

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// A shared-memory matrix descriptor for a K-major tile with 128-byte swizzle:
// start address, leading byte offset 16, stride byte offset 1024 (8 rows of
// 128 bytes), each >> 4, swizzle mode 1 (128B) in bits 62-63.
__device__ __forceinline__ uint64_t desc_128b(const void *p)
{
    uint64_t addr = smem_u32(p);
    return ((addr & 0x3FFFF) >> 4) | ((uint64_t)(16 >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) |
           (1ull << 62);
}

__device__ __forceinline__ void wgmma_m64n64k16(float d[32], uint64_t da, uint64_t db, int scale_d)
{
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "r"(scale_d));
}

__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, int c0, int c1,
                                            uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(smem_u32(dst)), "l"(map), "r"(c0), "r"(c1), "r"(smem_u32(bar))
                 : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t phase)
{
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(smem_u32(bar)), "r"(phase) : "memory");
}

__global__ void __launch_bounds__(128) gemm_wgmma(const __grid_constant__ CUtensorMap mapA,
                                                  const __grid_constant__ CUtensorMap mapB,
                                                  const half *A, const half *B, float *C, int M,
                                                  int N, int K)
{
    __shared__ alignas(1024) half sA[BM * BK];
    __shared__ alignas(1024) half sB[BN * BK];
    __shared__ alignas(8) uint64_t bar;
    const int tid = threadIdx.x, m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float d[32];
    for (int i = 0; i < 32; i++)
        d[i] = 0.0f;
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar)), "r"(1));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    uint32_t phase = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        if (tid == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                         ::"r"(smem_u32(&bar)), "r"((int)(sizeof(sA) + sizeof(sB))) : "memory");
            tma_load_2d(sA, &mapA, k0, m0, &bar);
            tma_load_2d(sB, &mapB, k0, n0, &bar);
        }
        mbar_wait(&bar, phase);
        phase ^= 1;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < BK / 16; kk++)   // 16 halfs = 32 bytes further along K
            wgmma_m64n64k16(d, desc_128b(sA + kk * 16), desc_128b(sB + kk * 16), 1);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();   // the tiles are read: the next loads may overwrite them
    }
    // the m64nNk16 accumulator layout: warp w owns rows 16w .. 16w + 15
    const int warp = tid / 32, lane = tid % 32;
    for (int i = 0; i < 32; i++) {
        int row = m0 + warp * 16 + lane / 4 + 8 * ((i / 2) % 2);
        int col = n0 + (i / 4) * 8 + (lane % 4) * 2 + (i % 2);
        if (row < M && col < N)
            C[(size_t)row * N + col] = d[i];
    }
}

// The reference: one output per thread, the same C = A B^T in float.
__global__ void gemm_naive(const __grid_constant__ CUtensorMap mapA,
                           const __grid_constant__ CUtensorMap mapB, const half *A, const half *B,
                           float *C, int M, int N, int K)
{
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {
        int row = m0 + e / BN, col = n0 + e % BN;
        if (row >= M || col >= N)
            continue;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)col * K + k]);
        C[(size_t)row * N + col] = acc;
    }
}

static CUtensorMap tile_map(const half *p, int rows, int K)
{
    CUtensorMap m;
    cuuint64_t dims[2] = { (cuuint64_t)K, (cuuint64_t)rows };
    cuuint64_t strides[1] = { (cuuint64_t)K * sizeof(half) };
    cuuint32_t box[2] = { BK, 64 }, es[2] = { 1, 1 };
    if (cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void *)p, dims, strides, box,
                               es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
        exit(1);
    }
    return m;
}

int main()
{
    const int M = 2048, N = 2048, K = 2048;
    half *A, *B;
    float *C;
    CUDA_CHECK(cudaMalloc(&A, (size_t)M * K * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&B, (size_t)N * K * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&C, (size_t)M * N * sizeof(float)));
    CUDA_CHECK(cudaMemset(A, 0, (size_t)M * K * sizeof(half)));
    CUDA_CHECK(cudaMemset(B, 0, (size_t)N * K * sizeof(half)));
    CUtensorMap mA = tile_map(A, M, K), mB = tile_map(B, N, K);
    gemm_wgmma<<<dim3(N / BN, M / BM), 128>>>(mA, mB, A, B, C, M, N, K);
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("done\n");
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    return 0;
}

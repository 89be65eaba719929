// igemm_wmma.cu - 8-bit integer GEMM on tensor cores: C (int32) = A (int8, M x K,
// row-major) times B (int8, K x N, row-major), one 16x16 tile of C per warp
// with WMMA fragments of signed char and int accumulators, against a plain
// loop with int accumulation.
// Build alone: nvcc -O3 -arch=sm_80 -o igemm_wmma igemm_wmma.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16
#ifndef WARPS_X
#define WARPS_X 2   // warps per block along N
#endif
#ifndef WARPS_Y
#define WARPS_Y 2   // warps per block along M
#endif

// Each warp stages its 16 x 16 tiles of A and B in shared memory (fragments load
// from 256-bit aligned addresses: a 16-byte step along K in global memory is not).
__global__ void igemm_wmma(const signed char *A, const signed char *B, int *C, int M, int N, int K)
{
    __shared__ __align__(32) signed char sA[WARPS_X * WARPS_Y][WMMA_M * WMMA_K];
    __shared__ __align__(32) signed char sB[WARPS_X * WARPS_Y][WMMA_K * WMMA_N];
    const int warp = threadIdx.y * WARPS_X + threadIdx.x / 32, lane = threadIdx.x % 32;
    int warp_m = blockIdx.y * WARPS_Y + threadIdx.y;         // tile row
    int warp_n = blockIdx.x * WARPS_X + threadIdx.x / 32;    // tile column
    if (warp_m * WMMA_M >= M || warp_n * WMMA_N >= N)
        return;
    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, signed char, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, signed char, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, int> acc;
    wmma::fill_fragment(acc, 0);
    const int r = lane / 2, half = lane % 2;   // each lane copies 8 bytes of a 16-byte row
    for (int k = 0; k < K; k += WMMA_K) {
        *(uint2 *)&sA[warp][r * WMMA_K + half * 8] =
            *(const uint2 *)&A[(size_t)(warp_m * WMMA_M + r) * K + k + half * 8];
        *(uint2 *)&sB[warp][r * WMMA_N + half * 8] =
            *(const uint2 *)&B[(size_t)(k + r) * N + warp_n * WMMA_N + half * 8];
        __syncwarp();
        wmma::load_matrix_sync(a, sA[warp], WMMA_K);
        wmma::load_matrix_sync(b, sB[warp], WMMA_N);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(C + (size_t)warp_m * WMMA_M * N + warp_n * WMMA_N, acc, N,
                            wmma::mem_row_major);
}

// The same 32 x 32 tile of C per block as igemm_wmma's 2 x 2 warps, each of
// the block's threads computing every (blockDim.x * blockDim.y)-th element.
__global__ void igemm_naive(const signed char *A, const signed char *B, int *C, int M, int N, int K)
{
    const int TM = WMMA_M * WARPS_Y, TN = WMMA_N * WARPS_X;
    int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
    for (int e = tid; e < TM * TN; e += nthreads) {
        int row = blockIdx.y * TM + e / TN, col = blockIdx.x * TN + e % TN;
        if (row >= M || col >= N)
            continue;
        int acc = 0;
        for (int k = 0; k < K; k++)
            acc += (int)A[(size_t)row * K + k] * (int)B[(size_t)k * N + col];
        C[(size_t)row * N + col] = acc;
    }
}

int main()
{
    const int M = 1024, N = 1024, K = 1024;
    std::vector<signed char> hA((size_t)M * K), hB((size_t)K * N);
    for (auto &x : hA) x = (signed char)(rand() % 256 - 128);
    for (auto &x : hB) x = (signed char)(rand() % 256 - 128);
    signed char *A, *B;
    int *C;
    CUDA_CHECK(cudaMalloc(&A, hA.size()));
    CUDA_CHECK(cudaMalloc(&B, hB.size()));
    CUDA_CHECK(cudaMalloc(&C, (size_t)M * N * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(A, hA.data(), hA.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(B, hB.data(), hB.size(), cudaMemcpyHostToDevice));
    dim3 block(32 * WARPS_X, WARPS_Y), grid(N / (WMMA_N * WARPS_X), M / (WMMA_M * WARPS_Y));
    igemm_wmma<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK(cudaDeviceSynchronize());
    int c0;
    CUDA_CHECK(cudaMemcpy(&c0, C, sizeof c0, cudaMemcpyDeviceToHost));
    printf("C[0] = %d\n", c0);
    CUDA_CHECK(cudaFree(A));
    CUDA_CHECK(cudaFree(B));
    CUDA_CHECK(cudaFree(C));
    return 0;
}

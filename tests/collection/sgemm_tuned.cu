// sgemm_tuned.cu - a tiled single-precision GEMM, C = A * B for square row-major
// N x N matrices, with its tile shape left to the build, the way tuning tutorials
// write one:
//   BM x BN   the tile of C one thread block computes
//   BK        the depth of the A and B slices staged in shared memory per step
//   TM x TN   the outputs one thread keeps in registers (its thread tile)
//   PAD       floats added to each shared-memory row (bank conflicts against size)
// A block has (BM/TM)*(BN/TN) threads; the staged slices live in dynamic shared
// memory, A's transposed so that the inner loop reads both slices along a row.
// Build it alone with e.g. nvcc -DBM=64 -DBN=64 -DBK=8 -DTM=4 -DTN=4 -DPAD=1.
#ifndef __CUDACC_RTC__   // NVRTC (gpulab's compiler) has no host headers
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#endif

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef PAD
#define PAD 0
#endif

#ifndef __CUDACC_RTC__
#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)
#endif

static_assert(BM % TM == 0 && BN % TN == 0, "a thread tile must divide the block tile");

extern "C" __global__ void sgemm_tiled(float *__restrict__ C, const float *__restrict__ A,
                                       const float *__restrict__ B, int N)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    extern __shared__ float smem[];
    float *As = smem;                    // [BK][BM + PAD], A's slice transposed
    float *Bs = smem + BK * (BM + PAD);  // [BK][BN + PAD]
    const int t = threadIdx.x;
    const int ty = t / (BN / TN), tx = t % (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int m = 0; m < TM; m++)
#pragma unroll
        for (int n = 0; n < TN; n++)
            acc[m][n] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += BK) {
        for (int i = t; i < BM * BK; i += THREADS) {
            int r = i / BK, c = i % BK;
            int gr = row0 + r, gc = k0 + c;
            As[c * (BM + PAD) + r] = (gr < N && gc < N) ? A[(size_t)gr * N + gc] : 0.0f;
        }
        for (int i = t; i < BK * BN; i += THREADS) {
            int r = i / BN, c = i % BN;
            int gr = k0 + r, gc = col0 + c;
            Bs[r * (BN + PAD) + c] = (gr < N && gc < N) ? B[(size_t)gr * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int m = 0; m < TM; m++)
                a[m] = As[kk * (BM + PAD) + ty * TM + m];
#pragma unroll
            for (int n = 0; n < TN; n++)
                b[n] = Bs[kk * (BN + PAD) + tx * TN + n];
#pragma unroll
            for (int m = 0; m < TM; m++)
#pragma unroll
                for (int n = 0; n < TN; n++)
                    acc[m][n] = fmaf(a[m], b[n], acc[m][n]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < TM; m++) {
        int r = row0 + ty * TM + m;
#pragma unroll
        for (int n = 0; n < TN; n++) {
            int c = col0 + tx * TN + n;
            if (r < N && c < N)
                C[(size_t)r * N + c] = acc[m][n];
        }
    }
}

#ifndef __CUDACC_RTC__
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&c, bytes));
    CHECK(cudaMemset(a, 0, bytes));
    CHECK(cudaMemset(b, 0, bytes));
    size_t smem = sizeof(float) * (BK * (BM + PAD) + BK * (BN + PAD));
    CHECK(cudaFuncSetAttribute(sgemm_tiled, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    sgemm_tiled<<<grid, (BM / TM) * (BN / TN), smem>>>(c, a, b, n);
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    printf("N=%d BM=%d BN=%d BK=%d TM=%d TN=%d PAD=%d: %.3f ms, %.1f GFLOP/s\n", n, BM, BN, BK, TM,
           TN, PAD, ms, 2.0 * n * n * (double)n / ms / 1e6);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
#endif

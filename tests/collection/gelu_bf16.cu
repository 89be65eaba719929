// gelu_bf16.cu - bias + GELU (tanh approximation) over bfloat16 activations, as
// transformer MLPs fuse it: y = gelu(alpha * x + bias[col]) for a rows x cols
// matrix, computed in float and rounded once to bfloat16. Two kernels: one
// element per thread, and two per thread through __nv_bfloat162 (cols even).
// Build alone: nvcc -O3 -o gelu gelu_bf16.cu && ./gelu
// Through gpulab: tests/collection/gelu_bf16.conf.
#include <cstdio>
#include <cstdlib>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));\
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define GELU_SCALE 0.7978845608028654f   // sqrt(2 / pi)

__device__ __forceinline__ float gelu_tanh(float x)
{
    const float cube = 0.044715f * x * x * x;
    return 0.5f * x * (1.0f + tanhf(GELU_SCALE * (x + cube)));
}

__global__ void bias_gelu_bf16(__nv_bfloat16 *__restrict__ y, const __nv_bfloat16 *__restrict__ x,
                               const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 alpha,
                               int rows, int cols)
{
    const long n = (long)rows * cols;
    const float a = __bfloat162float(alpha);
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        const float v = a * __bfloat162float(x[i]) + __bfloat162float(bias[i % cols]);
        y[i] = __float2bfloat16(gelu_tanh(v));
    }
}

__global__ void bias_gelu_bf16x2(__nv_bfloat16 *__restrict__ y,
                                 const __nv_bfloat16 *__restrict__ x,
                                 const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 alpha,
                                 int rows, int cols)
{
    const long n2 = (long)rows * cols / 2;
    const float a = __bfloat162float(alpha);
    const __nv_bfloat162 *x2 = reinterpret_cast<const __nv_bfloat162 *>(x);
    const __nv_bfloat162 *b2 = reinterpret_cast<const __nv_bfloat162 *>(bias);
    __nv_bfloat162 *y2 = reinterpret_cast<__nv_bfloat162 *>(y);
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n2;
         i += (long)gridDim.x * blockDim.x) {
        const float2 v = __bfloat1622float2(x2[i]);
        const float2 b = __bfloat1622float2(b2[i % (cols / 2)]);
        y2[i] = __floats2bfloat162_rn(gelu_tanh(a * v.x + b.x), gelu_tanh(a * v.y + b.y));
    }
}

int main()
{
    const int rows = 4096, cols = 3072;
    __nv_bfloat16 *x, *y, *bias;
    CUDA_CHECK(cudaMalloc(&x, (size_t)rows * cols * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&y, (size_t)rows * cols * sizeof(__nv_bfloat16)));
    CUDA_CHECK(cudaMalloc(&bias, cols * sizeof(__nv_bfloat16)));
    const int threads = 256;
    const int blocks = (int)(((long)rows * cols / 2 + threads - 1) / threads);
    bias_gelu_bf16x2<<<blocks, threads>>>(y, x, bias, __float2bfloat16(1.0f), rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("bias + GELU over %d x %d bfloat16\n", rows, cols);
    return 0;
}

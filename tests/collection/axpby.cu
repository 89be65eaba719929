// axpby.cu - y = a x + b y, templated on the element type as BLAS-like libraries
// write it (one template, explicit instances for float and double in main()).
// Build alone: nvcc -O3 -o axpby axpby.cu && ./axpby
// Through gpulab: tests/collection/axpby.conf sweeps T = float, double.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));\
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

template <typename T>
__global__ void axpby(int n, T a, const T *__restrict__ x, T b, T *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + b * y[i];
}

// Grid-stride: a fixed grid of G blocks covers any n.
template <typename T>
__global__ void axpby_gs(int n, T a, const T *__restrict__ x, T b, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + b * y[i];
}

template <typename T>
static void run(int n)
{
    std::vector<T> hx(n, T(1)), hy(n, T(2));
    T *x, *y;
    CUDA_CHECK(cudaMalloc(&x, n * sizeof(T)));
    CUDA_CHECK(cudaMalloc(&y, n * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(x, hx.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(y, hy.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    axpby<T><<<(n + 255) / 256, 256>>>(n, T(2), x, T(0.5), y);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hy.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    printf("%s: y[0] = %g (want 3)\n", sizeof(T) == 4 ? "float" : "double", (double)hy[0]);
    CUDA_CHECK(cudaFree(x));
    CUDA_CHECK(cudaFree(y));
}

int main()
{
    run<float>(1 << 20);
    run<double>(1 << 20);
    return 0;
}

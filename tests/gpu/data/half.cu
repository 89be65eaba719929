/* half.cu - the GPU suite's 16-bit kernels (half.conf): out = s x + y over half
 * or bfloat16 buffers, computed in float and rounded once (axpy_float, the
 * reference), in the type's own arithmetic with two roundings (axpy_native),
 * and with one element 5 % off (axpy_off, wrong on purpose). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ float to_f(__half v) { return __half2float(v); }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ T from_f(float v);
template <> __device__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <class T>
__global__ void axpy_float(T *out, const T *x, const T *y, int n, T s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = from_f<T>(to_f(s) * to_f(x[i]) + to_f(y[i]));
}

template <class T>
__global__ void axpy_native(T *out, const T *x, const T *y, int n, T s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __hadd(__hmul(s, x[i]), y[i]);
}

template <class T>
__global__ void axpy_off(T *out, const T *x, const T *y, int n, T s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = from_f<T>((to_f(s) * to_f(x[i]) + to_f(y[i])) * (i == n / 3 ? 1.05f : 1.0f));
}

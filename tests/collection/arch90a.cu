// arch90a.cu - a kernel built for the arch-specific target sm_90a only (Hopper's
// own instructions are there: wgmma, setmaxnreg): it refuses to compile for
// anything else, and checks at run time that the feature macro was set.
// Build: nvcc -O3 -arch=sm_90a -o arch90a arch90a.cu
#include <cstdio>
#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "arch90a.cu is for sm_90a: compile with -arch=sm_90a"
#endif

__global__ void scale_90a(const float *__restrict__ in, float *out, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = s * in[i];
}

int main()
{
    const int n = 1 << 20;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    scale_90a<<<(n + 255) / 256, 256>>>(in, out, 3.0f, n);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(in);
    cudaFree(out);
    return 0;
}

// host.cu - a kernel file as written for nvcc (tests/gpu/data/cccl.conf, section
// [host], compiler = nvcc): C library headers and a main() beside the kernels.
#include <stdio.h>
#include <stdlib.h>

__global__ void scale_ref(float *out, const float *in, int n, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = s * in[i];
}

template <int S>
__global__ void scale(float *out, const float *in, int n, int)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = S * in[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
    printf("scale: %d elements (run it through gpulab: tests/gpu/data/cccl.conf)\n", n);
    return 0;
}

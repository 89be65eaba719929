// fault.cu - a user kernel file for the GPU suite (tests/gpu/kernels.sh): `scale`
// is correct; `stray` writes far outside its buffer, which the GPU reports as an
// illegal address. The run of stray must be stored failed with the CUDA error and
// the sweep must go on to scale. Must not be used as an example of anything else.

extern "C" __global__ void stray(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i + (1 << 28)] = in[i];   // 1 GiB past the end of a small buffer
}

extern "C" __global__ void scale(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

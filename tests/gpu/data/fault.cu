// fault.cu - a user kernel file for the GPU suite (tests/gpu/kernels.sh, gpus.sh):
// `scale` is correct; `stray` writes far outside its buffer, which the GPU reports
// as an illegal address (when the address lands in no allocation: on two H200s,
// after other runs' buffers, it once landed in one and the run was only wrong);
// `trapper` executes a trap instruction, which loses the CUDA context every time.
// The run of stray or trapper must be stored failed with the CUDA error and the
// sweep must go on to scale. Must not be used as an example of anything else.

extern "C" __global__ void stray(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i + (1 << 28)] = in[i];   // 1 GiB past the end of a small buffer
}

extern "C" __global__ void trapper(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
    if (i == 0)
        __trap();
}

extern "C" __global__ void scale(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

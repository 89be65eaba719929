/* cref.cu - the GPU suite's kernels verified against a C reference
 * (cref.conf, scale_ref.c): scale is right, scale_off is wrong by one element. */
__global__ void scale(float *out, const float *in, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

__global__ void scale_off(float *out, const float *in, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i == n / 2 ? 0.0f : a * in[i];
}

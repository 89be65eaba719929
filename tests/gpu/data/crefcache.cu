/* crefcache.cu - the GPU suite's kernels for the C reference's cache
 * (crefcache.conf): out = 2 in + FACTOR, by one thread per element (twice),
 * by a grid-stride loop (stride), and (wrong_big) with one element left 0
 * when n is at least 65536, right below that. rep repeats the same store:
 * it changes nothing the reference computes. */
__global__ void twice(float *out, const float *in, int n, int factor, int rep)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rep; r++)
        if (i < n)
            out[i] = 2.0f * in[i] + (float)factor;
}

__global__ void stride(float *out, const float *in, int n, int factor, int rep)
{
    for (int r = 0; r < rep; r++)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            out[i] = 2.0f * in[i] + (float)factor;
}

__global__ void wrong_big(float *out, const float *in, int n, int factor, int rep)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)rep;
    if (i < n)
        out[i] = n >= 65536 && i == n / 2 ? 0.0f : 2.0f * in[i] + (float)factor;
}

/* earlyret.cu - the GPU suite's kernel that games its timing (earlyret.conf):
 * lazy computes out = 2 in on its first launch only, then returns at once on
 * every launch after it (each block remembers in a __device__ flag that it has
 * done its part, so the first launch itself is complete and right); honest
 * computes it on every launch. gpulab must store lazy `wrong` (its last timed
 * sample runs on poisoned outputs and leaves them poisoned) and honest `ok`. */
#define GRID 64

__device__ int done_block[GRID];

__global__ void lazy(float *out, const float *in, int n)
{
    __shared__ int skip;
    if (threadIdx.x == 0)
        skip = done_block[blockIdx.x];
    __syncthreads();
    if (skip)
        return;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 2.0f * in[i];
    __syncthreads();
    if (threadIdx.x == 0)
        done_block[blockIdx.x] = 1;
}

__global__ void honest(float *out, const float *in, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 2.0f * in[i];
}

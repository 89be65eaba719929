// coop_reduce.cu - a one-kernel sum: every block reduces a grid-stride slice
// into partial[blockIdx.x], the whole grid waits at grid.sync(), then block 0
// adds the partials. Needs a cooperative launch (cudaLaunchCooperativeKernel),
// and a grid that is resident all at once.
// Build: nvcc -O3 -arch=sm_90 -o coop_reduce coop_reduce.cu
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define BLOCK 256

__device__ float block_sum(float v)
{
    __shared__ float s[BLOCK];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o)
            s[threadIdx.x] += s[threadIdx.x + o];
        __syncthreads();
    }
    float r = s[0];
    __syncthreads();
    return r;
}

__global__ void reduce_coop(const float *in, float *partial, float *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    float sum = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        sum += in[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sum;
    grid.sync();
    if (blockIdx.x == 0) {
        float t = 0.0f;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            t += partial[b];
        t = block_sum(t);
        if (threadIdx.x == 0)
            out[0] = t;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    if (!coop) {
        fprintf(stderr, "no cooperative launch on this GPU\n");
        return 1;
    }
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_coop, BLOCK, 0));
    int blocks = sms * per_sm;
    float *h = (float *)malloc((size_t)n * sizeof *h), *d_in, *d_part, *d_out, got;
    double want = 0;
    for (int i = 0; i < n; i++)
        want += h[i] = (float)rand() / RAND_MAX;
    CHECK(cudaMalloc(&d_in, (size_t)n * sizeof *d_in));
    CHECK(cudaMalloc(&d_part, (size_t)blocks * sizeof *d_part));
    CHECK(cudaMalloc(&d_out, sizeof *d_out));
    CHECK(cudaMemcpy(d_in, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice));
    void *args[] = { &d_in, &d_part, &d_out, &n };
    CHECK(cudaLaunchCooperativeKernel((void *)reduce_coop, blocks, BLOCK, args, 0, 0));
    CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    printf("%d blocks (%d SMs x %d): sum %.6g, want %.6g\n", blocks, sms, per_sm, got, want);
    cudaFree(d_in);
    cudaFree(d_part);
    cudaFree(d_out);
    free(h);
    return 0;
}

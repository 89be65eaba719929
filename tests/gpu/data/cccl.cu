// cccl.cu - the GPU suite's kernels as users write them (tests/gpu/data/cccl.conf):
// one block sum per block, by a shared-memory tree (the reference), by CUB's
// BlockReduce and by cooperative groups' reduce over warp tiles. The header
// comes from the section's `options = ... -I inc`.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <partial.cuh>

namespace cg = cooperative_groups;

template <int BS>
__global__ void sum_tree(float *out, const float *in, int n)
{
    __shared__ float s[BS];
    s[threadIdx.x] = load(in, blockIdx.x * BS + threadIdx.x, n);
    __syncthreads();
    for (int w = BS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

template <int BS>
__global__ void sum_cub(float *out, const float *in, int n)
{
    using BlockReduce = cub::BlockReduce<float, BS>;
    __shared__ typename BlockReduce::TempStorage tmp;
    float s = BlockReduce(tmp).Sum(load(in, blockIdx.x * BS + threadIdx.x, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
}

template <int BS>
__global__ void sum_cg(float *out, const float *in, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float part[BS / 32];
    float v = cg::reduce(warp, load(in, blockIdx.x * BS + threadIdx.x, n), cg::plus<float>());
    if (warp.thread_rank() == 0)
        part[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float w = warp.thread_rank() < BS / 32 ? part[warp.thread_rank()] : 0.0f;
        w = cg::reduce(warp, w, cg::plus<float>());
        if (warp.thread_rank() == 0)
            out[blockIdx.x] = w;
    }
}

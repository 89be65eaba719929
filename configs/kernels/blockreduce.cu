// blockreduce.cu - the sum of n floats written the way kernels are written today,
// with CUB and cooperative groups, for a gpulab kernel section
// (configs/blockreduce.conf; the README's tour brings it as a user's kernel).
//
// Both kernels take (out, in, n): each thread sums a grid-stride loop over `in` in
// a register, the block reduces those sums, and thread 0 adds the block's sum to
// out[0] with atomicAdd. out[0] is reset to zero before every run, so both kernels
// leave the whole sum there and either can verify the other.
//
//   reduce_cub<BS>  the block reduction is cub::BlockReduce<float, BS> (a template
//                   on the block size, which CUB needs at compile time).
//   reduce_cg       cooperative groups: the block is cut into tiles of 32 threads
//                   (tiled_partition<32>), each tile reduced by cg::reduce, the
//                   tiles' sums reduced by the first tile. Any block size that is a
//                   multiple of 32, up to 1024, works without a template.
//
// It must not use anything but the toolkit's headers: it is compiled by NVRTC.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>

namespace cg = cooperative_groups;

// This thread's sum of in[i] for i = its global index, then a grid's width on.
__device__ float thread_sum(const float *in, int n)
{
    float v = 0.0f;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        v += in[i];
    return v;
}

template <int BS>
__global__ void reduce_cub(float *out, const float *in, int n)
{
    using BlockReduce = cub::BlockReduce<float, BS>;
    __shared__ typename BlockReduce::TempStorage tmp;
    const float sum = BlockReduce(tmp).Sum(thread_sum(in, n));   // valid in thread 0
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

__global__ void reduce_cg(float *out, const float *in, int n)
{
    __shared__ float tile_sums[32];   // one per tile of 32: up to 1024 threads
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

    const float v = cg::reduce(tile, thread_sum(in, n), cg::plus<float>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = v;
    block.sync();

    if (tile.meta_group_rank() == 0) {
        const unsigned ntiles = tile.meta_group_size();
        const float s = tile.thread_rank() < ntiles ? tile_sums[tile.thread_rank()] : 0.0f;
        const float sum = cg::reduce(tile, s, cg::plus<float>());
        if (tile.thread_rank() == 0)
            atomicAdd(out, sum);
    }
}

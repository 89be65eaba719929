// compile_speed.cu - bench/compile_speed's kernel file: three block reductions,
// each a template of its block size, that include what most kernels written
// today include (cooperative groups, CUB, cuda::std). Each block writes its sum.
// bench/compile_speed.conf instantiates each at four block sizes: twelve kernels.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cuda/std/type_traits>

namespace cg = cooperative_groups;

template <typename T>
__device__ inline T element(const T *in, int i, int n)
{
    static_assert(cuda::std::is_arithmetic<T>::value, "a sum of numbers");
    return i < n ? in[i] : T(0);
}

// CUB: one BlockReduce over the block
template <int B>
__global__ void sum_cub(float *out, const float *in, int n)
{
    using BlockReduce = cub::BlockReduce<float, B>;
    __shared__ typename BlockReduce::TempStorage tmp;
    float s = BlockReduce(tmp).Sum(element(in, blockIdx.x * B + threadIdx.x, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
}

// cooperative groups: cg::reduce in each warp tile, then over the warps' sums
template <int B>
__global__ void sum_cg(float *out, const float *in, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float part[B / 32];
    float v = cg::reduce(warp, element(in, blockIdx.x * B + threadIdx.x, n), cg::plus<float>());
    if (warp.thread_rank() == 0)
        part[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float w = warp.thread_rank() < B / 32 ? part[warp.thread_rank()] : 0.0f;
        w = cg::reduce(warp, w, cg::plus<float>());
        if (warp.thread_rank() == 0)
            out[blockIdx.x] = w;
    }
}

// CUB's warp reduction inside a cooperative-groups block
template <int B>
__global__ void sum_warp(float *out, const float *in, int n)
{
    using WarpReduce = cub::WarpReduce<float>;
    __shared__ typename WarpReduce::TempStorage tmp[B / 32];
    __shared__ float part[B / 32];
    cg::thread_block block = cg::this_thread_block();
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float v = WarpReduce(tmp[warp]).Sum(element(in, blockIdx.x * B + threadIdx.x, n));
    if (lane == 0)
        part[warp] = v;
    block.sync();
    if (warp == 0) {
        float w = WarpReduce(tmp[0]).Sum(lane < B / 32 ? part[lane] : 0.0f);
        if (lane == 0)
            out[blockIdx.x] = w;
    }
}

// reduction.cu - sum of n floats, the classic reduction ladder, as plain __global__
// templates for a gpulab kernel section (configs/reduction.conf).
//
// Every kernel is a template on the block size BS (a power of two, 64..1024) and
// has the same arguments (out, in, n). Each block reduces its slice of `in` in
// shared memory, then thread 0 adds the block's partial sum to out[0] with
// atomicAdd, so every kernel leaves the whole sum in out[0] (which the config
// resets to zero before each run) and any one of them can verify the others.
//
//   reduce_interleaved_div      (1) interleaved addressing: thread t works when
//                               t % (2s) == 0, so the active threads of a warp thin
//                               out and the warps diverge.
//   reduce_interleaved_strided  (2) interleaved addressing through a strided index
//                               (2 s t): no divergence, but the threads of a warp
//                               touch shared memory 2s floats apart: bank conflicts.
//   reduce_sequential           (3) sequential addressing: thread t adds element t + s,
//                               contiguous and conflict-free.
//   reduce_first_add            (4) as (3), each thread adds two elements while
//                               loading: half the blocks (grid = ceil(n / (2 BS))).
//   reduce_warp_shuffle         (5) as (4), the last 32 partial sums are reduced in
//                               registers with __shfl_down_sync, no __syncthreads.
//   reduce_grid_stride          (6) a fixed number of blocks: each thread first sums
//                               a grid-stride loop over the input in a register, then
//                               the block reduces with warp shuffles.
//
// (1)-(3) load through a grid-stride loop: with their own grid (ceil(n / BS)
// blocks) each thread loads exactly one element as in the classic kernels, and
// with any other grid they are still correct. That is what lets the config use
// reduce_sequential as the reference in the sections whose grid is (4)'s, (5)'s
// or (6)'s.

#define FULL_MASK 0xffffffffu

// Sum of the elements i = blockIdx.x*BS + threadIdx.x + k*gridDim.x*BS, k = 0, 1, ...
template <int BS>
__device__ float load_strided(const float *in, int n)
{
    float v = 0.0f;
    const size_t stride = (size_t)gridDim.x * BS;
    for (size_t i = (size_t)blockIdx.x * BS + threadIdx.x; i < (size_t)n; i += stride)
        v += in[i];
    return v;
}

// Sum of the 32 values of a warp, in lane 0.
__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// (1) interleaved addressing, divergent branch
template <int BS>
__global__ void reduce_interleaved_div(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS];
    const unsigned t = threadIdx.x;
    s[t] = load_strided<BS>(in, n);
    __syncthreads();
    for (unsigned d = 1; d < BS; d *= 2) {
        if (t % (2 * d) == 0)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, s[0]);
}

// (2) interleaved addressing, strided index: bank conflicts
template <int BS>
__global__ void reduce_interleaved_strided(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS];
    const unsigned t = threadIdx.x;
    s[t] = load_strided<BS>(in, n);
    __syncthreads();
    for (unsigned d = 1; d < BS; d *= 2) {
        const unsigned k = 2 * d * t;
        if (k < BS)
            s[k] += s[k + d];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, s[0]);
}

// (3) sequential addressing
template <int BS>
__global__ void reduce_sequential(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS];
    const unsigned t = threadIdx.x;
    s[t] = load_strided<BS>(in, n);
    __syncthreads();
    for (unsigned d = BS / 2; d > 0; d >>= 1) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, s[0]);
}

// (4) first add during the global load: a block covers 2 BS elements
template <int BS>
__global__ void reduce_first_add(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * BS) + t;
    float v = i < (size_t)n ? in[i] : 0.0f;
    if (i + BS < (size_t)n)
        v += in[i + BS];
    s[t] = v;
    __syncthreads();
    for (unsigned d = BS / 2; d > 0; d >>= 1) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, s[0]);
}

// (5) as (4), the last warp reduced with shuffles
template <int BS>
__global__ void reduce_warp_shuffle(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * BS) + t;
    float v = i < (size_t)n ? in[i] : 0.0f;
    if (i + BS < (size_t)n)
        v += in[i + BS];
    s[t] = v;
    __syncthreads();
    for (unsigned d = BS / 2; d > 32; d >>= 1) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t < 32) {
        v = warp_sum(s[t] + s[t + 32]);
        if (t == 0)
            atomicAdd(out, v);
    }
}

// (6) grid-stride loop over the input with a fixed number of blocks (the grid),
// then shuffles within each warp and across the block's warps
template <int BS>
__global__ void reduce_grid_stride(float *out, const float *in, int n)
{
    static_assert(BS >= 64 && BS <= 1024 && (BS & (BS - 1)) == 0, "BS: a power of two, 64..1024");
    __shared__ float s[BS / 32];
    const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    float v = warp_sum(load_strided<BS>(in, n));
    if (lane == 0)
        s[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < BS / 32 ? s[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, v);
    }
}

// embedding.cu - token embedding lookup (the first layer of a language model):
// out[t, :] = table[ids[t], :], one block per token; a float4 version for
// rows whose length is a multiple of 4. Each block also counts its token into
// a __device__ counter (tokens seen, as a serving loop keeps), and a token id
// outside [0, vocab) is counted in d_bad instead of being read.
#include <cuda_fp16.h>

__device__ unsigned long long d_tokens;
__device__ unsigned int d_bad;

__global__ void embedding_gather(float *__restrict__ out, const int *__restrict__ ids,
                                 const float *__restrict__ table, int vocab, int dim)
{
    const int t = blockIdx.x;
    const int id = ids[t];
    if (threadIdx.x == 0) {
        atomicAdd(&d_tokens, 1ull);
        if (id < 0 || id >= vocab)
            atomicAdd(&d_bad, 1u);
    }
    if (id < 0 || id >= vocab)
        return;
    const float *row = table + (size_t)id * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x)
        out[(size_t)t * dim + d] = row[d];
}

__global__ void embedding_gather_vec4(float *__restrict__ out, const int *__restrict__ ids,
                                      const float *__restrict__ table, int vocab, int dim)
{
    const int t = blockIdx.x;
    const int id = ids[t];
    if (threadIdx.x == 0) {
        atomicAdd(&d_tokens, 1ull);
        if (id < 0 || id >= vocab)
            atomicAdd(&d_bad, 1u);
    }
    if (id < 0 || id >= vocab)
        return;
    const float4 *row = reinterpret_cast<const float4 *>(table + (size_t)id * dim);
    float4 *dst = reinterpret_cast<float4 *>(out + (size_t)t * dim);
    for (int d = threadIdx.x; d < dim / 4; d += blockDim.x)
        dst[d] = row[d];
}

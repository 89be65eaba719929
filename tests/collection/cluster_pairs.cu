// cluster_pairs.cu - thread-block clusters with distributed shared memory: each
// block stages its tile of `in` in shared memory, the cluster syncs, and every
// block writes the sum over the cluster's tiles, reading its peers' shared
// memory through cluster.map_shared_rank. out[b*TILE + t] = sum over the blocks
// q of b's cluster of in[q*TILE + t]. Hopper (sm_90) and later.
// Build: nvcc -O3 -arch=sm_90 -o cluster_pairs cluster_pairs.cu
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CUDA_CHECK(x)                                                                \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(EXIT_FAILURE);                                                      \
        }                                                                            \
    } while (0)

#ifndef TILE
#define TILE 256
#endif

// the cluster's shape comes from the launch (cudaLaunchKernelEx's attribute)
__global__ void cluster_sum(const float *in, float *out)
{
    __shared__ float tile[TILE];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned base = blockIdx.x * TILE;
    for (unsigned t = threadIdx.x; t < TILE; t += blockDim.x)
        tile[t] = in[base + t];
    cluster.sync();   // every tile of the cluster is staged
    const unsigned nb = cluster.num_blocks();
    for (unsigned t = threadIdx.x; t < TILE; t += blockDim.x) {
        float s = 0.0f;
        for (unsigned q = 0; q < nb; q++)
            s += cluster.map_shared_rank(tile, q)[t];
        out[base + t] = s;
    }
    cluster.sync();   // no block leaves while a peer may still read its tile
}

// the same with its cluster compiled in: two blocks
__global__ void __cluster_dims__(2, 1, 1) pair_sum(const float *in, float *out)
{
    __shared__ float tile[TILE];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned base = blockIdx.x * TILE;
    for (unsigned t = threadIdx.x; t < TILE; t += blockDim.x)
        tile[t] = in[base + t];
    cluster.sync();
    const float *peer = cluster.map_shared_rank(tile, cluster.block_rank() ^ 1);
    for (unsigned t = threadIdx.x; t < TILE; t += blockDim.x)
        out[base + t] = tile[t] + peer[t];
    cluster.sync();
}

int main()
{
    const int blocks = 1024, cs = 4, n = blocks * TILE;
    float *h = (float *)malloc(n * sizeof(float)), *d_in, *d_out;
    for (int i = 0; i < n; i++)
        h[i] = (float)(i % 17);
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(128);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_sum, (const float *)d_in, d_out));
    pair_sum<<<blocks, 128>>>(d_in, d_out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[0] = %g\n", h[0]);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    return 0;
}

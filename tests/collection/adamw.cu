// adamw.cu - one AdamW optimizer step over a flat parameter vector, as training
// loops write it (decoupled weight decay, bias-corrected moments; the step
// counts from 1). Two kernels: one element per thread in a grid-stride loop, and
// the same through float4 loads and stores (n a multiple of 4 takes that path
// whole; a tail is done element by element).
// Build alone: nvcc -O3 -o adamw adamw.cu && ./adamw
// Through gpulab: tests/collection/adamw.conf.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));\
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__device__ __forceinline__ void adamw_one(float &p, float g, float &m, float &v, float lr,
                                          float beta1, float beta2, float eps, float wd,
                                          float bc1, float bc2)
{
    m = beta1 * m + (1.0f - beta1) * g;
    v = beta2 * v + (1.0f - beta2) * g * g;
    const float mhat = m / bc1;
    const float vhat = v / bc2;
    p -= lr * (mhat / (sqrtf(vhat) + eps) + wd * p);
}

__global__ void adamw_step(float *param, const float *grad, float *exp_avg, float *exp_avg_sq,
                           float lr, float beta1, float beta2, float eps, float weight_decay,
                           int step, int n)
{
    const float bc1 = 1.0f - powf(beta1, (float)step);
    const float bc2 = 1.0f - powf(beta2, (float)step);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float p = param[i], m = exp_avg[i], v = exp_avg_sq[i];
        adamw_one(p, grad[i], m, v, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        param[i] = p;
        exp_avg[i] = m;
        exp_avg_sq[i] = v;
    }
}

__global__ void adamw_step_vec4(float4 *param, const float4 *grad, float4 *exp_avg,
                                float4 *exp_avg_sq, float lr, float beta1, float beta2,
                                float eps, float weight_decay, int step, int n)
{
    const float bc1 = 1.0f - powf(beta1, (float)step);
    const float bc2 = 1.0f - powf(beta2, (float)step);
    const int n4 = n / 4;
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 p = param[i], g = grad[i], m = exp_avg[i], v = exp_avg_sq[i];
        adamw_one(p.x, g.x, m.x, v.x, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        adamw_one(p.y, g.y, m.y, v.y, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        adamw_one(p.z, g.z, m.z, v.z, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        adamw_one(p.w, g.w, m.w, v.w, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        param[i] = p;
        exp_avg[i] = m;
        exp_avg_sq[i] = v;
    }
    // the tail of n % 4 elements
    float *pf = (float *)param, *mf = (float *)exp_avg, *vf = (float *)exp_avg_sq;
    const float *gf = (const float *)grad;
    for (int i = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        adamw_one(pf[i], gf[i], mf[i], vf[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
}

int main()
{
    const int n = 1 << 24;
    float *p, *g, *m, *v;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&g, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&v, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(m, 0, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(v, 0, n * sizeof(float)));
    const int threads = 256, blocks = (n / 4 + threads - 1) / threads;
    for (int step = 1; step <= 10; ++step)
        adamw_step_vec4<<<blocks, threads>>>((float4 *)p, (const float4 *)g, (float4 *)m,
                                             (float4 *)v, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f,
                                             step, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    printf("10 AdamW steps over %d parameters\n", n);
    return 0;
}

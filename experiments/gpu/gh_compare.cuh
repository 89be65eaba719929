/* gh_compare.cuh - the on-device check of a built-in family's output: one
 * kernel compares every output element with its float64 reference, which a
 * family gives as a functor (computed from the inputs on the device, or read
 * from a cached reference array), and brings back only the count of bad
 * elements, the maximum relative error and the first mismatch. The rule is
 * reference.h's gl_verify_full, element for element: relative error |got -
 * want| / |want| (|got| where want is 0), infinite for a NaN or infinite
 * output and for a NaN reference; bad above the tolerance.
 * Included by the families (matmul.cu, stencil.cu, vecadd.cu), which
 * instantiate gh_compare with their functor. Must not allocate per run, time
 * anything or set a run's status (harness_check.cu does, from gh_cmp). */
#ifndef GL_GH_COMPARE_CUH
#define GL_GH_COMPARE_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

/* What the compare kernels leave in device memory (harness_check.cu owns it). */
struct gh_cmp {
    unsigned long long nbad;
    unsigned long long maxerr_bits;   /* the largest error's bits (>= 0 doubles order as integers) */
    unsigned long long first;         /* smallest bad index; ~0 when none */
    float got;                        /* element `first` */
    double want;
};

/* The device scratch the compare kernels write, reset by gh_compare_begin
 * (harness_check.cu). NULL with err when it cannot be had. */
struct gh_cmp *gh_compare_begin(cudaError_t *err);

__device__ __forceinline__ double gh_rel_err(float got, double want)
{
    if (!isfinite(got) || isnan(want))
        return INFINITY;
    double d = fabs((double)got - want);
    return want != 0.0 ? d / fabs(want) : d;
}

/* The reference as a cached array of doubles (gh_devref). */
struct gh_want_array {
    const double *ref;
    __device__ double operator()(size_t i) const { return ref[i]; }
};

template <class Want>
__global__ void gh_compare_kernel(const float *__restrict__ got, Want want, size_t n, double tol,
                                  struct gh_cmp *c)
{
    double maxe = 0.0;
    unsigned long long nbad = 0, first = ~0ull;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double e = gh_rel_err(got[i], want(i));
        if (e > maxe)
            maxe = e;
        if (!(e <= tol)) {
            nbad++;
            if (i < first)
                first = i;
        }
    }
    /* warp reduce, then one atomic per warp */
    for (int o = 16; o > 0; o >>= 1) {
        double m2 = __shfl_down_sync(0xffffffffu, maxe, o);
        unsigned long long b2 = __shfl_down_sync(0xffffffffu, nbad, o);
        unsigned long long f2 = __shfl_down_sync(0xffffffffu, first, o);
        maxe = m2 > maxe ? m2 : maxe;
        nbad += b2;
        first = f2 < first ? f2 : first;
    }
    if ((threadIdx.x & 31) == 0) {
        if (nbad) {
            atomicAdd(&c->nbad, nbad);
            atomicMin(&c->first, first);
        }
        if (maxe > 0.0)
            atomicMax(&c->maxerr_bits, (unsigned long long)__double_as_longlong(maxe));
    }
}

template <class Want>
__global__ void gh_compare_first_kernel(const float *__restrict__ got, Want want, struct gh_cmp *c)
{
    if (c->first != ~0ull) {
        c->got = got[c->first];
        c->want = want(c->first);
    }
}

/* Enqueue the check of got[0..n) (a device-accessible pointer) against want
 * with tolerance tol into c (from gh_compare_begin). Block count: enough to
 * fill the GPU, each thread striding. */
template <class Want>
cudaError_t gh_compare(const float *got, Want want, size_t n, double tol, struct gh_cmp *c,
                       int sm_count)
{
    size_t blocks = (n + 255) / 256;
    size_t cap = (size_t)(sm_count > 0 ? sm_count : 132) * 8;
    if (blocks > cap)
        blocks = cap;
    if (blocks < 1)
        blocks = 1;
    gh_compare_kernel<Want><<<(unsigned)blocks, 256>>>(got, want, n, tol, c);
    gh_compare_first_kernel<Want><<<1, 1>>>(got, want, c);
    return cudaGetLastError();
}

#endif

/* gh_compare.cuh - the on-device check of a built-in family's output: one
 * kernel compares every output element with its float64 reference, which a
 * family gives as a functor (computed from the inputs on the device, or read
 * from a cached reference array), and brings back only the count of bad
 * elements, the maximum relative error and the first mismatch. The rule is
 * reference.h's gl_verify_full, element for element: relative error |got -
 * want| / |want| (|got| where want is 0), infinite for a NaN or infinite
 * output and for a NaN reference; bad above the tolerance.
 * The reduction is one template (gh_verdict) over a verdict type: the
 * families' float rule here, the typed rule of users' jobs (typed.h) in
 * harness_typed.cu.
 * Included by the families (matmul.cu, stencil.cu, vecadd.cu), which
 * instantiate gh_compare with their functor. Must not allocate per run, time
 * anything or set a run's status (harness_check.cu does, from gh_cmp). */
#ifndef GL_GH_COMPARE_CUH
#define GL_GH_COMPARE_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

extern "C" {
#include "typed.h"
}

/* What the compare kernels leave in device memory (harness_check.cu owns it). */
struct gh_cmp {
    unsigned long long nbad;
    unsigned long long maxerr_bits;   /* the largest error's bits (>= 0 doubles order as integers) */
    unsigned long long first;         /* smallest bad index; ~0 when none */
    double got;                       /* element `first` */
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

/* The float output of a built-in family against its reference functor. */
template <class Want>
struct gh_float_verdict {
    const float *got;
    Want want_fn;
    double tol;
    __device__ int bad(size_t i, double *err) const
    {
        *err = gh_rel_err(got[i], want_fn(i));
        return !(*err <= tol);
    }
    __device__ double got_at(size_t i) const { return got[i]; }
    __device__ double want_at(size_t i) const { return want_fn(i); }
};

/* A user's output (typed.h's rule) against its expected values: an array of
 * want_type (the type itself: a reference kernel's output; GL_KT_DOUBLE: a host
 * reference's values); want NULL: the written-only check (poison left =
 * unwritten). */
struct gh_typed_verdict {
    const void *got;
    int type;
    const void *want;
    int want_type;
    double tol;
    __device__ int bad(size_t i, double *err) const
    {
        if (!want) {
            *err = 0.0;
            return gl_ty_unwritten(got, type, i);
        }
        return gl_ty_bad(got, type, i, want, want_type, tol, err);
    }
    __device__ double got_at(size_t i) const { return gl_ty_get(got, type, i); }
    __device__ double want_at(size_t i) const { return want ? gl_ty_get(want, want_type, i) : 0.0; }
};

/* Every element's verdict (V::bad) reduced into c: the bad count, the largest
 * error, the first bad index. V also gives the first's values (got_at,
 * want_at), taken by gh_verdict_first_kernel once the count is in. */
template <class V>
__global__ void gh_verdict_kernel(V v, size_t n, struct gh_cmp *c)
{
    double maxe = 0.0;
    unsigned long long nbad = 0, first = ~0ull;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double e = 0.0;
        if (v.bad(i, &e)) {
            nbad++;
            if (i < first)
                first = i;
        }
        if (e > maxe)
            maxe = e;
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

template <class V>
__global__ void gh_verdict_first_kernel(V v, struct gh_cmp *c)
{
    if (c->first != ~0ull) {
        c->got = v.got_at(c->first);
        c->want = v.want_at(c->first);
    }
}

/* Enqueue the verdicts of v's n elements into c (from gh_compare_begin).
 * Block count: enough to fill the GPU, each thread striding. */
template <class V>
cudaError_t gh_verdict(V v, size_t n, struct gh_cmp *c, int sm_count)
{
    size_t blocks = (n + 255) / 256;
    size_t cap = (size_t)(sm_count > 0 ? sm_count : 132) * 8;
    if (blocks > cap)
        blocks = cap;
    if (blocks < 1)
        blocks = 1;
    gh_verdict_kernel<V><<<(unsigned)blocks, 256>>>(v, n, c);
    gh_verdict_first_kernel<V><<<1, 1>>>(v, c);
    return cudaGetLastError();
}

/* Enqueue the check of got[0..n) (a device-accessible pointer) against want
 * with tolerance tol into c (from gh_compare_begin). */
template <class Want>
cudaError_t gh_compare(const float *got, Want want, size_t n, double tol, struct gh_cmp *c,
                       int sm_count)
{
    struct gh_float_verdict<Want> v = { got, want, tol };
    return gh_verdict(v, n, c, sm_count);
}

#endif

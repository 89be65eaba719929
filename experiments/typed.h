/* typed.h - the one definition of what a user's typed buffer holds and when
 * one of its output elements is right, compiled for the CPU (host_buffers.c:
 * the CPU plugin path's fill and check) and for the GPU (gpu/harness_typed.cu:
 * users' kernels filled and checked on the device), so that both sides make the
 * same inputs from a seed and give the same verdict on the same output.
 * Inputs: random elements are rng.h's stream (floats in [0, 1), integers that
 * value times 2^24); const and ramp are converted from a double as C converts.
 * Verdict of output element i against the reference's want:
 *   floats   bad unless got == want or |got - want| <= tol/10 + tol |want|
 *            (NaN on either side always bad); error |got - want| / |want|
 *            (|got - want| where want is 0), infinite for NaN;
 *   integers bad unless equal (bit for bit against a typed reference array, by
 *            value against a double one); the error of a bad element as above,
 *            infinite where the difference does not show in a double.
 * Must not hold state, allocate or know about runs. */
#ifndef GL_TYPED_H
#define GL_TYPED_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin.h"
#include "rng.h"

#ifdef __CUDACC__
#define GL_TY_FN static inline __host__ __device__
#else
#define GL_TY_FN static inline
#endif

/* Bytes per element of t (0 for a type gpulab does not know). */
GL_TY_FN size_t gl_ty_esize(int t)
{
    switch (t) {
    case GL_KT_FLOAT:
    case GL_KT_INT:
    case GL_KT_UINT:
        return 4;
    case GL_KT_DOUBLE:
    case GL_KT_INT64:
    case GL_KT_UINT64:
        return 8;
    }
    return 0;
}

GL_TY_FN int gl_ty_is_float(int t)
{
    return t == GL_KT_FLOAT || t == GL_KT_DOUBLE;
}

/* Element i as a double (64-bit integers above 2^53 round). */
GL_TY_FN double gl_ty_get(const void *a, int t, size_t i)
{
    switch (t) {
    case GL_KT_FLOAT:
        return ((const float *)a)[i];
    case GL_KT_DOUBLE:
        return ((const double *)a)[i];
    case GL_KT_INT:
        return ((const int32_t *)a)[i];
    case GL_KT_UINT:
        return ((const uint32_t *)a)[i];
    case GL_KT_INT64:
        return (double)((const int64_t *)a)[i];
    case GL_KT_UINT64:
        return (double)((const uint64_t *)a)[i];
    }
    return 0.0;
}

GL_TY_FN void gl_ty_set(void *a, int t, size_t i, double v)
{
    switch (t) {
    case GL_KT_FLOAT:
        ((float *)a)[i] = (float)v;
        break;
    case GL_KT_DOUBLE:
        ((double *)a)[i] = v;
        break;
    case GL_KT_INT:
        ((int32_t *)a)[i] = (int32_t)v;
        break;
    case GL_KT_UINT:
        ((uint32_t *)a)[i] = (uint32_t)v;
        break;
    case GL_KT_INT64:
        ((int64_t *)a)[i] = (int64_t)v;
        break;
    case GL_KT_UINT64:
        ((uint64_t *)a)[i] = (uint64_t)v;
        break;
    }
}

/* The raw bits of element i (widened), for exact integer comparison. */
GL_TY_FN uint64_t gl_ty_bits(const void *a, int t, size_t i)
{
    return gl_ty_esize(t) == 8 ? ((const uint64_t *)a)[i] : ((const uint32_t *)a)[i];
}

/* 1 when element i still holds the poison (every bit set; NaN for floats). */
GL_TY_FN int gl_ty_unwritten(const void *a, int t, size_t i)
{
    if (gl_ty_is_float(t) && isnan(gl_ty_get(a, t, i)))
        return 1;
    return gl_ty_esize(t) == 8 ? gl_ty_bits(a, t, i) == UINT64_MAX
                               : gl_ty_bits(a, t, i) == UINT32_MAX;
}

/* Element i of a buffer whose init is const (value), ramp (i) or random
 * (element i of the stream that starts at s0 = gl_rng_state(seed, stream)). */
GL_TY_FN double gl_ty_init_value(int t, int init, double value, unsigned long long s0, size_t i)
{
    if (init == GL_KI_CONST)
        return value;
    if (init == GL_KI_RAMP)
        return (double)i;
    double u = (double)gl_rng_float(s0, (unsigned long long)i);
    return gl_ty_is_float(t) ? u : u * 16777216.0;
}

/* Element i of a reference's expected values: a typed array of type t
 * (want_double 0) or doubles (1). */
GL_TY_FN double gl_ty_want(const void *want, int want_double, int t, size_t i)
{
    return want_double ? ((const double *)want)[i] : gl_ty_get(want, t, i);
}

/* The verdict on got[i] (type t) against want[i]: a typed array of the same
 * type (want_double 0: a reference kernel's output) or doubles (1: a host
 * reference's expected values). 1 when bad; *err its relative error. */
GL_TY_FN int gl_ty_bad(const void *got, int t, size_t i, const void *want, int want_double,
                       double tol, double *err)
{
    double g = gl_ty_get(got, t, i);
    double w = gl_ty_want(want, want_double, t, i);
    double d = fabs(g - w);
    int bad;
    if (gl_ty_is_float(t)) {
        bad = isnan(g) || isnan(w) || !(g == w || d <= tol / 10.0 + tol * fabs(w));
        *err = isnan(g) || isnan(w) ? INFINITY : g == w ? 0.0 : w != 0.0 ? d / fabs(w) : d;
        return bad;
    }
    bad = want_double ? isnan(w) || g != w : gl_ty_bits(got, t, i) != gl_ty_bits(want, t, i);
    *err = !bad ? 0.0 : w != 0.0 ? d / fabs(w) : d;
    if (bad && !(*err > 0.0))
        *err = INFINITY;   /* NaN expected, or a difference beyond a double's precision */
    return bad;
}

#endif

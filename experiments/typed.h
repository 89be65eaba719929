/* typed.h - the one definition of what a user's typed buffer holds and when
 * one of its output elements is right, compiled for the CPU (host_buffers.c:
 * the CPU plugin path's fill and check) and for the GPU (gpu/harness_typed.cu:
 * users' kernels filled and checked on the device), so that both sides make the
 * same inputs from a seed and give the same verdict on the same output.
 * 16- and 8-bit floats (half, bfloat16, fp8e4m3, fp8e5m2) are read and written
 * with ktype.h's bit-level
 * conversions (no cuda_fp16.h on either side: rounded to nearest, ties to even;
 * read back exactly). Every value below passes through a double, which holds
 * every float, half and bfloat16 exactly.
 * Inputs: random elements are rng.h's stream (floats in [0, 1), integers that
 * value times 2^24, 8-bit ones the type's whole range: uint8 0..255, int8
 * -128..127; half, bfloat16 and the 8-bit floats get the float rounded, so 1.0
 * can occur);
 * const and ramp are converted from a double as C converts (16-bit floats:
 * rounded as above, so a ramp is exact up to 2048 in half, 256 in bfloat16, and
 * half's reaches infinity at 65520; 8-bit integers wrap modulo 256, 8-bit floats
 * saturate at their largest finite value as CUDA's constructors do).
 * Verdict of output element i (type t) against the reference's want (an array
 * of type wt: the reference kernel's output, of t, or a host reference's
 * doubles), each read as a double:
 *   floats   bad unless got == want or |got - want| <= tol/10 + tol |want|
 *            (NaN on either side always bad); error |got - want| / |want|
 *            (|got - want| where want is 0), infinite for NaN;
 *   integers bad unless equal (bit for bit against an array of the same type,
 *            by value against another); the error of a bad element as above,
 *            infinite where the difference does not show in a double.
 * Each floating-point output type has a default tolerance (gl_ty_default_tol).
 * Must not hold state, allocate or know about runs. */
#ifndef GL_TYPED_H
#define GL_TYPED_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ktype.h"
#include "plugin.h"
#include "rng.h"

#ifdef __CUDACC__
#define GL_TY_FN static inline __host__ __device__
#else
#define GL_TY_FN static inline
#endif

/* Bytes per element of t (0 for a type gpulab does not know): ktype.h's. */
GL_TY_FN size_t gl_ty_esize(int t)
{
    return gl_ktype_size(t);
}

GL_TY_FN int gl_ty_is_float(int t)
{
    return gl_ktype_is_float(t);
}

/* ---- elements ------------------------------------------------------------------ */

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
    case GL_KT_HALF:
        return gl_from_half(((const uint16_t *)a)[i]);
    case GL_KT_BF16:
        return gl_from_bf16(((const uint16_t *)a)[i]);
    case GL_KT_INT8:
        return ((const int8_t *)a)[i];
    case GL_KT_UINT8:
        return ((const uint8_t *)a)[i];
    case GL_KT_FP8E4M3:
        return gl_from_fp8(((const uint8_t *)a)[i], GL_FP8E4M3_E, GL_FP8E4M3_M);
    case GL_KT_FP8E5M2:
        return gl_from_fp8(((const uint8_t *)a)[i], GL_FP8E5M2_E, GL_FP8E5M2_M);
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
    case GL_KT_HALF:
        ((uint16_t *)a)[i] = gl_to_half(v);
        break;
    case GL_KT_BF16:
        ((uint16_t *)a)[i] = gl_to_bf16(v);
        break;
    case GL_KT_INT8:   /* wrapped to 8 bits, as C converts to an unsigned type */
    case GL_KT_UINT8:
        ((uint8_t *)a)[i] = (uint8_t)(uint64_t)(int64_t)v;
        break;
    case GL_KT_FP8E4M3:
        ((uint8_t *)a)[i] = gl_to_fp8(v, GL_FP8E4M3_E, GL_FP8E4M3_M);
        break;
    case GL_KT_FP8E5M2:
        ((uint8_t *)a)[i] = gl_to_fp8(v, GL_FP8E5M2_E, GL_FP8E5M2_M);
        break;
    }
}

/* The raw bits of element i (widened), for exact integer comparison. */
GL_TY_FN uint64_t gl_ty_bits(const void *a, int t, size_t i)
{
    switch (gl_ty_esize(t)) {
    case 1:
        return ((const uint8_t *)a)[i];
    case 2:
        return ((const uint16_t *)a)[i];
    case 4:
        return ((const uint32_t *)a)[i];
    case 8:
        return ((const uint64_t *)a)[i];
    }
    return 0;
}

/* 1 when element i still holds the poison (every bit set; NaN for floats). */
GL_TY_FN int gl_ty_unwritten(const void *a, int t, size_t i)
{
    if (gl_ty_is_float(t) && isnan(gl_ty_get(a, t, i)))
        return 1;
    size_t es = gl_ty_esize(t);
    return gl_ty_bits(a, t, i) ==
           (es == 8 ? UINT64_MAX : es == 4 ? UINT32_MAX : es == 2 ? 0xFFFFu : 0xFFu);
}

/* ---- the bounded and normal inits (kernel sections) ---------------------------------
 * Each is computed from + - * /, fma and sqrt only, which IEEE rounds exactly
 * on both sides (every multiply-add is an explicit fma, so no compiler's
 * contraction can make the host and the device differ): the same bits on the
 * CPU and the GPU. */

/* Draw j of element i's own sequence of 64-bit numbers (normal's rejection loop
 * takes a few): splitmix64 of the stream at counter i * 64 + j. */
GL_TY_FN unsigned long long gl_ty_draw(unsigned long long s0, size_t i, unsigned j)
{
    return gl_rng_mix(s0 + ((unsigned long long)i * 64ull + j + 1ull) * GL_RNG_GOLDEN);
}

/* The high 64 bits of a * b. */
GL_TY_FN unsigned long long gl_ty_mulhi(unsigned long long a, unsigned long long b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
#endif
}

/* ln(x) for a normal, finite x > 0 (about 1 ulp): x = m 2^e with m in
 * [sqrt(1/2), sqrt(2)), ln m = 2 atanh(f), f = (m - 1) / (m + 1), |f| < 0.172,
 * by its series to f^23 (the next term is below 2^-60 of the sum). */
GL_TY_FN double gl_ty_log(double x)
{
    uint64_t b = gl_double_bits(x);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    double m = gl_double_from_bits((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
    if (m > 1.4142135623730951) {
        m = m * 0.5;   /* exact */
        e++;
    }
    double f = (m - 1.0) / (m + 1.0), f2 = f * f, p = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        p = fma(p, f2, 1.0 / k);
    /* e ln2 in two parts (the high part has 32 bits: e * hi is exact) */
    return fma((double)e, 6.93147180369123816490e-01, fma(2.0 * f, p, (double)e * 1.90821492927058770002e-10));
}

/* Element i of normal(mu, sigma): Marsaglia's polar method on draws of 53 bits
 * (at most 32 tries, each accepted with probability pi/4; after 32, mu). */
GL_TY_FN double gl_ty_normal(double mu, double sigma, unsigned long long s0, size_t i)
{
    for (unsigned k = 0; k < 32; k++) {
        double u = (double)(gl_ty_draw(s0, i, 2 * k) >> 11) * (1.0 / 9007199254740992.0);
        double v = (double)(gl_ty_draw(s0, i, 2 * k + 1) >> 11) * (1.0 / 9007199254740992.0);
        u = fma(2.0, u, -1.0);   /* exact: (-1, 1) */
        v = fma(2.0, v, -1.0);
        double s = fma(u, u, v * v);
        if (s >= 1.0 || s < 1e-300)
            continue;
        return fma(sigma, u * sqrt(-2.0 * gl_ty_log(s) / s), mu);
    }
    return mu;
}

/* Element i of randint(lo, hi): lo + floor(z (hi - lo) / 2^64) for the
 * element's 64-bit draw z, an integer in [lo, hi) (hi - lo <= 2^53). */
GL_TY_FN double gl_ty_randint(double lo, double hi, unsigned long long s0, size_t i)
{
    unsigned long long span = (unsigned long long)(hi - lo);
    return lo + (double)gl_ty_mulhi(gl_ty_draw(s0, i, 0), span);
}

/* Element i of a buffer whose init is const (a), ramp (i), random (element i
 * of the stream that starts at s0 = gl_rng_state(seed, stream); floats scaled
 * to [a, b): a + (b - a) u, one fma, so random(0, 1) is plain random),
 * randint (in [a, b)) or normal (mean a, deviation b), before its conversion
 * to t. */
GL_TY_FN double gl_ty_init_value2(int t, int init, double a, double b, unsigned long long s0,
                                  size_t i)
{
    switch (init) {
    case GL_KI_CONST:
        return a;
    case GL_KI_RAMP:
        return (double)i;
    case GL_KI_RANDINT:
        return gl_ty_randint(a, b, s0, i);
    case GL_KI_NORMAL:
        return gl_ty_normal(a, b, s0, i);
    }
    double u = (double)gl_rng_float(s0, (unsigned long long)i);
    if (gl_ty_is_float(t))
        return fma(b - a, u, a);
    if (gl_ty_esize(t) == 1)   /* 8-bit integers: the type's whole range */
        return (double)(int)(u * 256.0) - (t == GL_KT_INT8 ? 128.0 : 0.0);
    return u * 16777216.0;
}

/* The same for the inits a plugin's job has: const (value), ramp or random in
 * [0, 1) (integers: 0 .. 2^24 - 1). */
GL_TY_FN double gl_ty_init_value(int t, int init, double value, unsigned long long s0, size_t i)
{
    return init == GL_KI_CONST ? value : gl_ty_init_value2(t, init, 0.0, 1.0, s0, i);
}

/* ---- verdicts ------------------------------------------------------------------- */

/* The relative tolerance of a floating-point output of type t when the config
 * or plugin gives none: four units of its rounding (unit roundoff u = 2^-p for
 * p significant bits): half 2^-9 (about 2.0e-3), bfloat16 2^-6 (1.6e-2). That
 * covers an output computed in float (or a few operations in the type) and
 * rounded once, against a reference in double or one rounded to the type too
 * (the two then differ by up to 2 u). An output accumulated over K terms in the
 * 16-bit type itself drifts by about u sqrt(K) (up to u K): such a kernel needs
 * `tolerance =` for its largest K (the reference can tell no K). float and
 * double keep 1e-5; the 8-bit floats the same four units: fp8e4m3 (4
 * significant bits) 2^-2, fp8e5m2 (3) 2^-1. */
GL_TY_FN double gl_ty_default_tol(int t)
{
    switch (t) {
    case GL_KT_HALF:
        return 1.0 / 512.0;
    case GL_KT_BF16:
        return 1.0 / 64.0;
    case GL_KT_FP8E4M3:
        return 1.0 / 4.0;
    case GL_KT_FP8E5M2:
        return 1.0 / 2.0;
    }
    return 1e-5;
}

/* The verdict on got[i] (type t) against want[i] (type wt: t for a reference
 * kernel's output, GL_KT_DOUBLE for a host reference's expected values). 1 when
 * bad; *err its relative error. */
GL_TY_FN int gl_ty_bad(const void *got, int t, size_t i, const void *want, int wt, double tol,
                       double *err)
{
    double g = gl_ty_get(got, t, i);
    double w = gl_ty_get(want, wt, i);
    double d = fabs(g - w);
    int bad;
    if (gl_ty_is_float(t)) {
        bad = isnan(g) || isnan(w) || !(g == w || d <= tol / 10.0 + tol * fabs(w));
        *err = isnan(g) || isnan(w) ? INFINITY : g == w ? 0.0 : w != 0.0 ? d / fabs(w) : d;
        return bad;
    }
    bad = wt == t ? gl_ty_bits(got, t, i) != gl_ty_bits(want, wt, i) : isnan(w) || g != w;
    *err = !bad ? 0.0 : w != 0.0 ? d / fabs(w) : d;
    if (bad && !(*err > 0.0))
        *err = INFINITY;   /* NaN expected, or a difference beyond a double's precision */
    return bad;
}

#endif

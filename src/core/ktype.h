/* ktype.h - the element types of users' buffers and scalar arguments (enum
 * gl_ktype of plugin.h) as configs name them and as memory holds them: the
 * one table of each type's config name and size in bytes, and the bit-level
 * conversions of the 16-bit floats. half is IEEE binary16 (1 sign, 5 exponent,
 * 10 fraction bits: 11 significant bits, CUDA's __half), bfloat16 the top half
 * of a float (1, 8, 7: 8 significant bits, __nv_bfloat16); a double converts
 * to the nearest value, ties to even, with subnormals, overflow to infinity and
 * NaN kept NaN (directly, not through a float), and a value reads back exactly.
 * Read by the config reader and the plan's checks (driver), by both plugins
 * (compiled for the device too: experiments/typed.h builds on it), and by a C
 * reference or a plugin that reads or writes 16-bit buffers (include
 * "ktype.h"; no CUDA header, no libm needed).
 * Plain C; must not hold the rules of a buffer's contents or verdicts
 * (experiments/typed.h does) or know about configs beyond the names. */
#ifndef GL_KTYPE_H
#define GL_KTYPE_H

#include <math.h>     /* NAN, INFINITY */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plugin.h"

#ifdef __CUDACC__
#define GL_KT_FN static inline __host__ __device__
#else
#define GL_KT_FN static inline
#endif

/* The number of element types (enum gl_ktype runs 0 .. GL_KT_COUNT - 1). */
#define GL_KT_COUNT 12

/* Bytes per element of t (0 for a type gpulab does not know). */
GL_KT_FN size_t gl_ktype_size(int t)
{
    switch (t) {
    case GL_KT_INT8:
    case GL_KT_UINT8:
    case GL_KT_FP8E4M3:
    case GL_KT_FP8E5M2:
        return 1;
    case GL_KT_HALF:
    case GL_KT_BF16:
        return 2;
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

/* The name configs give t (`buffer.x = half[N]`, `args = ..., int N`), "?" for
 * an unknown one. */
static inline const char *gl_ktype_name(int t)
{
    static const char *const names[GL_KT_COUNT] = { "float", "double", "int",  "uint",
                                                    "int64", "uint64", "half", "bfloat16",
                                                    "int8", "uint8", "fp8e4m3", "fp8e5m2" };
    return t >= 0 && t < GL_KT_COUNT ? names[t] : "?";
}

/* The type's name in C++ source, as a template argument (`saxpy<T>` at T =
 * half is saxpy<__half>), "?" for an unknown one. */
static inline const char *gl_ktype_cname(int t)
{
    static const char *const names[GL_KT_COUNT] = {
        "float", "double", "int", "unsigned int", "long long", "unsigned long long", "__half",
        "__nv_bfloat16", "signed char", "unsigned char", "__nv_fp8_e4m3", "__nv_fp8_e5m2"
    };
    return t >= 0 && t < GL_KT_COUNT ? names[t] : "?";
}

/* 1 for the floating-point types (their outputs compare with a tolerance). */
GL_KT_FN int gl_ktype_is_float(int t)
{
    return t == GL_KT_FLOAT || t == GL_KT_DOUBLE || t == GL_KT_HALF || t == GL_KT_BF16 ||
           t == GL_KT_FP8E4M3 || t == GL_KT_FP8E5M2;
}

/* The smallest and largest value an integer type holds (64-bit bounds as far
 * as a double tells them); a floating type gets the 64-bit unsigned range. */
GL_KT_FN void gl_ktype_int_range(int t, double *lo, double *hi)
{
    switch (t) {
    case GL_KT_INT8:
        *lo = -128.0, *hi = 127.0;
        return;
    case GL_KT_UINT8:
        *lo = 0.0, *hi = 255.0;
        return;
    case GL_KT_INT:
        *lo = -2147483648.0, *hi = 2147483647.0;
        return;
    case GL_KT_UINT:
        *lo = 0.0, *hi = 4294967295.0;
        return;
    case GL_KT_INT64:
        *lo = -9223372036854775808.0, *hi = 9223372036854775807.0;
        return;
    default:
        *lo = 0.0, *hi = 18446744073709551615.0;
    }
}

/* ---- type parameters ------------------------------------------------------------ */

/* A kernel section's type parameter (`T = float, double`) is a named parameter
 * (gl_params.user) whose value stands for an element type: GL_KT_PARAM_BASE +
 * the type (enum gl_ktype). No integer parameter takes these values (the config
 * reader refuses them), so a C reference or a plugin reads T's type at a point
 * with gl_ktype_of_param(gl_param_value(p, "T")). */
#define GL_KT_PARAM_BASE (-0x7f00000000000000L)

/* The type a named parameter's value v stands for, or -1 when v is a number. */
GL_KT_FN int gl_ktype_of_param(long v)
{
    return v >= GL_KT_PARAM_BASE && v < GL_KT_PARAM_BASE + GL_KT_COUNT
               ? (int)(v - GL_KT_PARAM_BASE) : -1;
}

/* ---- 16-bit floats ------------------------------------------------------------ */

/* Exponent and fraction bits of the 16-bit float types. */
#define GL_HALF_E 5
#define GL_HALF_M 10
#define GL_BF16_E 8
#define GL_BF16_M 7

GL_KT_FN uint64_t gl_double_bits(double v)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(v);
#else
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
#endif
}

/* The double whose bits are b. */
GL_KT_FN double gl_double_from_bits(uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)b);
#else
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
#endif
}

/* 2^e for -1022 <= e <= 1023, built from its bits (no libm). */
GL_KT_FN double gl_pow2(int e)
{
    return gl_double_from_bits((uint64_t)(e + 1023) << 52);
}

/* v as the bits of a 16-bit float with ebits exponent and mbits fraction bits,
 * rounded to nearest, ties to even, from the double's own bits. */
GL_KT_FN uint16_t gl_to16(double v, int ebits, int mbits)
{
    uint64_t b = gl_double_bits(v);
    uint16_t sign = (uint16_t)((b >> 63) << 15);
    int ex = (int)((b >> 52) & 0x7ff);
    uint64_t frac = b & 0xFFFFFFFFFFFFFull;
    int bias = (1 << (ebits - 1)) - 1;
    uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
    if (ex == 0x7ff)   /* infinity, or NaN (quiet, whatever its payload) */
        return (uint16_t)(sign | inf | (frac ? 1u << (mbits - 1) : 0u));
    if (ex == 0)       /* zero, or a double subnormal: far below either format */
        return sign;
    uint64_t sig = frac | (1ull << 52);   /* v = sig * 2^(ex - 1075) */
    int te = ex - 1023 + bias;            /* the biased exponent in the target */
    int shift = 52 - mbits + (te < 1 ? 1 - te : 0);
    if (shift > 53)                       /* below half the smallest subnormal */
        return sign;
    uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    /* normal: the implicit bit of q adds one to the exponent field (te - 1 + 1);
     * a carry out of the fraction moves on to the next binade, or to infinity */
    uint64_t mag = te < 1 ? q : ((uint64_t)(te - 1) << mbits) + q;
    if (mag >= inf)
        mag = inf;
    return (uint16_t)(sign | mag);
}

/* The value of the 16-bit float bits h (exact). */
GL_KT_FN double gl_from16(uint16_t h, int ebits, int mbits)
{
    int ex = (h >> mbits) & ((1 << ebits) - 1);
    int frac = h & ((1 << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    if (ex == (1 << ebits) - 1)
        return frac ? NAN : (h >> 15) ? -INFINITY : INFINITY;
    double v = ex == 0 ? (double)frac * gl_pow2(1 - bias - mbits)
                       : (double)(frac | (1 << mbits)) * gl_pow2(ex - bias - mbits);
    return (h >> 15) ? -v : v;
}

GL_KT_FN uint16_t gl_to_half(double v)
{
    return gl_to16(v, GL_HALF_E, GL_HALF_M);
}

GL_KT_FN double gl_from_half(uint16_t h)
{
    return gl_from16(h, GL_HALF_E, GL_HALF_M);
}

GL_KT_FN uint16_t gl_to_bf16(double v)
{
    return gl_to16(v, GL_BF16_E, GL_BF16_M);
}

GL_KT_FN double gl_from_bf16(uint16_t h)
{
    return gl_from16(h, GL_BF16_E, GL_BF16_M);
}

/* ---- 8-bit floats --------------------------------------------------------------- */

/* Exponent and fraction bits of the 8-bit float types (OCP FP8, as CUDA's
 * cuda_fp8.h): e4m3 has no infinities (its largest finite value is 448, the
 * bits S.1111.111 are NaN), e5m2 is IEEE-like (largest 57344, infinities and
 * NaNs with exponent field 31). */
#define GL_FP8E4M3_E 4
#define GL_FP8E4M3_M 3
#define GL_FP8E5M2_E 5
#define GL_FP8E5M2_M 2

/* v as the bits of an 8-bit float with ebits (4 or 5) exponent and mbits
 * fraction bits, rounded to nearest, ties to even, with subnormals; values
 * beyond the largest finite one (infinities too) saturate to it and NaN stays
 * NaN (0x7f with v's sign) - what CUDA's __nv_fp8_e4m3 / __nv_fp8_e5m2
 * constructors do (__NV_SATFINITE). */
GL_KT_FN uint8_t gl_to_fp8(double v, int ebits, int mbits)
{
    uint64_t b = gl_double_bits(v);
    uint8_t sign = (uint8_t)((b >> 63) << 7);
    int ex = (int)((b >> 52) & 0x7ff);
    uint64_t frac = b & 0xFFFFFFFFFFFFFull;
    int bias = (1 << (ebits - 1)) - 1;
    uint64_t maxmag = ebits == 4 ? 0x7e : 0x7b;
    if (ex == 0x7ff)
        return (uint8_t)(sign | (frac ? 0x7fu : (unsigned)maxmag));
    if (ex == 0)
        return sign;
    uint64_t sig = frac | (1ull << 52);
    int te = ex - 1023 + bias;
    if (te > 2 * bias + 2)                /* far beyond the largest: saturates */
        return (uint8_t)(sign | maxmag);
    int shift = 52 - mbits + (te < 1 ? 1 - te : 0);
    if (shift > 53)
        return sign;
    uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1)))
        q++;
    uint64_t mag = te < 1 ? q : ((uint64_t)(te - 1) << mbits) + q;
    if (mag > maxmag)
        mag = maxmag;
    return (uint8_t)(sign | mag);
}

/* The value of the 8-bit float bits h (exact). */
GL_KT_FN double gl_from_fp8(uint8_t h, int ebits, int mbits)
{
    int ex = (h >> mbits) & ((1 << ebits) - 1);
    int frac = h & ((1 << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    if (ebits == 4 ? (h & 0x7f) == 0x7f : ex == (1 << ebits) - 1)
        return ebits == 4 || frac ? NAN : (h >> 7) ? -INFINITY : INFINITY;
    double v = ex == 0 ? (double)frac * gl_pow2(1 - bias - mbits)
                       : (double)(frac | (1 << mbits)) * gl_pow2(ex - bias - mbits);
    return (h >> 7) ? -v : v;
}

#endif

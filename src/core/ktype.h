/* ktype.h - the element types of users' buffers and scalar arguments (enum
 * gl_ktype of plugin.h) as configs name them and as memory holds them: the
 * one table of each type's config name and size in bytes, read by the config
 * reader and the plan's checks (driver), by the GPU plugin (compiled for the
 * device too: typed.h builds on it) and by the CPU plugin.
 * Plain C; must not hold the rules of a type's values (experiments/typed.h
 * does) or know about configs beyond the names. */
#ifndef GL_KTYPE_H
#define GL_KTYPE_H

#include <stddef.h>

#include "plugin.h"

#ifdef __CUDACC__
#define GL_KT_FN static inline __host__ __device__
#else
#define GL_KT_FN static inline
#endif

/* The number of element types (enum gl_ktype runs 0 .. GL_KT_COUNT - 1). */
#define GL_KT_COUNT 8

/* Bytes per element of t (0 for a type gpulab does not know). */
GL_KT_FN size_t gl_ktype_size(int t)
{
    switch (t) {
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
                                                    "int64", "uint64", "half", "bfloat16" };
    return t >= 0 && t < GL_KT_COUNT ? names[t] : "?";
}

#endif

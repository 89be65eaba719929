/* kobject.h - the rules of a kernel section's objects (kernel.h struct
 * gl_kobject: tensor maps, textures, surfaces) and of its arrays, in one place
 * for the config reader (a mistake in constants is a file:line error), the plan
 * (each point's values: a skip with the reason) and the GPU plugin (the values
 * it hands the driver): the names configs give the driver's enum values, which
 * element types a cudaArray or a texture holds, and a tensor map's values at a
 * point checked as cuTensorMapEncodeTiled checks them (CUDA driver API
 * documentation: rank 1..5, dims up to 2^32, strides multiples of 16 bytes below
 * 2^40, box sides 1..256 whose inner side is a multiple of 16 bytes, element
 * strides 1..8, a swizzled box's inner side at most the swizzle's span), plus
 * what gpulab adds: a box no larger than the tensor, and a tensor inside its
 * buffer.
 * Plain C, no CUDA header: the numbers are the driver's (cuda.h) and must stay so. */
#ifndef GL_KOBJECT_H
#define GL_KOBJECT_H

#include <stddef.h>

#include "kernel.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The driver's CUtensorMapDataType as configs name it (type(NAME) of a
 * tensormap); -1 for an unknown name. */
int gl_tmap_dtype(const char *name);
const char *gl_tmap_dtype_name(int dtype);
/* Bytes per element of a data type (0: unknown). */
int gl_tmap_dtype_size(int dtype);
/* The data type a buffer of element type t has by default (8-bit types: uint8),
 * -1 for none. */
int gl_tmap_dtype_of(int t);

/* A word list: the names of one setting (interleave, swizzle, l2, fill; a
 * texture's filter, address, coords, read) in the order of the driver's enum
 * values, NULL-terminated. */
extern const char *const gl_tmap_interleaves[];
extern const char *const gl_tmap_swizzles[];
extern const char *const gl_tmap_l2s[];
extern const char *const gl_tmap_fills[];
extern const char *const gl_tex_filters[];
extern const char *const gl_tex_addresses[];

/* 1 when a cudaArray (and so a texture over one, or a surface) can hold
 * elements of type t: float, half, int, uint, int8, uint8. */
int gl_kobj_array_type(int t);
/* 1 when a texture over linear memory (a buffer) can read elements of type t
 * (the same types). */
int gl_kobj_texture_type(int t);

/* A tensor map's values at a point. known[] says which were computed (an
 * expression that names an unset parameter is unknown: the config reader
 * checks constants only). */
struct gl_tmap_vals {
    int dtype, esize, rank;
    unsigned long long dims[GL_TMAP_RANK];
    unsigned long long strides[GL_TMAP_RANK];   /* bytes; [0] = esize */
    unsigned box[GL_TMAP_RANK];
    unsigned elem_strides[GL_TMAP_RANK];
    int interleave, swizzle, l2, fill;
    long long buffer_bytes;                     /* the buffer's size, -1 unknown */
};

/* Evaluate o (a tensor map of k) at p and check it: 0 when every rule whose
 * values are known holds; -1 with the first broken rule in err ("box[0] = 128
 * elements of 2 bytes is 256 bytes, more than the 128-byte swizzle span").
 * With partial 1, values that cannot be computed at p are skipped; else they
 * are an error too. v (may be NULL) gets the values. */
int gl_tmap_eval(const struct gl_kernel *k, const struct gl_kobject *o,
                 const struct gl_params *p, int partial, struct gl_tmap_vals *v, char *err,
                 size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

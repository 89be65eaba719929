/* kobject.c - see kobject.h. */
#include "kobject.h"

#include <stdio.h>
#include <string.h>

#include "expr.h"
#include "ktype.h"
#include "scalar.h"

/* CUtensorMapDataType in the driver's order (cuda.h), as configs name them. */
static const struct {
    const char *name;
    int size;
} dtypes[] = {
    { "uint8", 1 },    { "uint16", 2 },  { "uint32", 4 },      { "int32", 4 },
    { "uint64", 8 },   { "int64", 8 },   { "float16", 2 },     { "float32", 4 },
    { "float64", 8 },  { "bfloat16", 2 }, { "float32_ftz", 4 }, { "tfloat32", 4 },
    { "tfloat32_ftz", 4 },
};
#define NDTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

const char *const gl_tmap_interleaves[] = { "none", "16B", "32B", NULL };
const char *const gl_tmap_swizzles[] = { "none", "32B", "64B", "128B", NULL };
const char *const gl_tmap_l2s[] = { "none", "64B", "128B", "256B", NULL };
const char *const gl_tmap_fills[] = { "zero", "nan", NULL };
const char *const gl_tex_filters[] = { "point", "linear", NULL };
const char *const gl_tex_addresses[] = { "wrap", "clamp", "mirror", "border", NULL };

int gl_tmap_dtype(const char *name)
{
    for (int i = 0; i < NDTYPES; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return i;
    return -1;
}

const char *gl_tmap_dtype_name(int dtype)
{
    return dtype >= 0 && dtype < NDTYPES ? dtypes[dtype].name : "?";
}

int gl_tmap_dtype_size(int dtype)
{
    return dtype >= 0 && dtype < NDTYPES ? dtypes[dtype].size : 0;
}

int gl_tmap_dtype_of(int t)
{
    switch (t) {
    case GL_KT_FLOAT: return 7;
    case GL_KT_DOUBLE: return 8;
    case GL_KT_INT: return 3;
    case GL_KT_UINT: return 2;
    case GL_KT_INT64: return 5;
    case GL_KT_UINT64: return 4;
    case GL_KT_HALF: return 6;
    case GL_KT_BF16: return 9;
    case GL_KT_INT8:
    case GL_KT_UINT8:
    case GL_KT_FP8E4M3:
    case GL_KT_FP8E5M2: return 0;
    }
    return -1;
}

int gl_kobj_array_type(int t)
{
    return t == GL_KT_FLOAT || t == GL_KT_HALF || t == GL_KT_INT || t == GL_KT_UINT ||
           t == GL_KT_INT8 || t == GL_KT_UINT8;
}

int gl_kobj_texture_type(int t)
{
    return gl_kobj_array_type(t);
}

/* One value: 1 known, 0 unknown (partial), -1 error (in err). */
static int val(const char *what, int i, const char *e, const struct gl_params *p, int partial,
               long long *out, char *err, size_t errlen)
{
    char msg[300];
    if (gl_expr_value(e, p, out, msg, sizeof msg) == 0)
        return 1;
    if (partial)
        return 0;
    snprintf(err, errlen, "%s[%d] '%s': %s", what, i, e, msg);
    return -1;
}

int gl_tmap_eval(const struct gl_kernel *k, const struct gl_kobject *o,
                 const struct gl_params *p, int partial, struct gl_tmap_vals *out, char *err,
                 size_t errlen)
{
    struct gl_tmap_vals v;
    int kd[GL_TMAP_RANK] = { 0 }, ks[GL_TMAP_RANK] = { 0 }, kb[GL_TMAP_RANK] = { 0 };
    const struct gl_kbuffer *bf = &k->buffers[o->source];
    long long x;
    memset(&v, 0, sizeof v);
    v.rank = o->rank;
    v.interleave = o->interleave;
    v.swizzle = o->swizzle;
    v.l2 = o->l2;
    v.fill = o->fill;
    v.buffer_bytes = -1;
    int t = gl_ktype_at(bf->type, bf->tparam, p);
    v.dtype = o->dtype >= 0 ? o->dtype : t >= 0 ? gl_tmap_dtype_of(t) : -1;
    v.esize = gl_tmap_dtype_size(v.dtype);
    if (v.rank < 1 || v.rank > GL_TMAP_RANK) {
        snprintf(err, errlen, "rank %d: a tensor map has 1 to %d dimensions", v.rank,
                 GL_TMAP_RANK);
        return -1;
    }
    if (v.interleave != 0 && v.rank < 3) {
        snprintf(err, errlen, "interleave(%s) needs a rank of at least 3 (this one has %d)",
                 gl_tmap_interleaves[v.interleave], v.rank);
        return -1;
    }
    if (v.fill == 1 && (v.dtype >= 0 && (v.dtype <= 5))) {
        snprintf(err, errlen, "fill(nan) is for floating-point data, not %s",
                 gl_tmap_dtype_name(v.dtype));
        return -1;
    }
    if (t >= 0 && v.esize > 0 && v.esize != (int)gl_ktype_size(t) && o->dtype >= 0) {
        snprintf(err, errlen, "type(%s) has %d-byte elements, buffer '%s' holds %s (%d bytes)",
                 gl_tmap_dtype_name(v.dtype), v.esize, bf->name, gl_ktype_name(t),
                 (int)gl_ktype_size(t));
        return -1;
    }
    for (int i = 0; i < v.rank; i++) {
        int r;
        if ((r = val("dims", i, o->dims[i], p, partial, &x, err, errlen)) < 0)
            return -1;
        if (r) {
            if (x < 1 || x > (1LL << 32)) {
                snprintf(err, errlen, "dims[%d] = %lld: a dimension is 1 to 2^32 elements", i, x);
                return -1;
            }
            v.dims[i] = (unsigned long long)x;
            kd[i] = 1;
        }
        if ((r = val("box", i, o->box[i], p, partial, &x, err, errlen)) < 0)
            return -1;
        if (r) {
            if (x < 1 || x > 256) {
                snprintf(err, errlen, "box[%d] = %lld: a box side is 1 to 256 elements", i, x);
                return -1;
            }
            v.box[i] = (unsigned)x;
            kb[i] = 1;
        }
        v.elem_strides[i] = o->elem_strides[i] ? (unsigned)o->elem_strides[i] : 1;
        if (v.elem_strides[i] > 8) {
            snprintf(err, errlen, "elem_strides[%d] = %u: an element stride is 1 to 8", i,
                     v.elem_strides[i]);
            return -1;
        }
        if (kd[i] && kb[i] && v.box[i] > v.dims[i]) {
            snprintf(err, errlen, "box[%d] = %u exceeds dims[%d] = %llu", i, v.box[i], i,
                     v.dims[i]);
            return -1;
        }
    }
    /* strides: [0] is the element; a missing one is packed (the previous
     * stride times the previous dimension) */
    v.strides[0] = (unsigned long long)v.esize;
    ks[0] = v.esize > 0;
    int align = v.interleave == 2 ? 32 : 16;
    for (int i = 1; i < v.rank; i++) {
        if (o->strides[i][0]) {
            int r = val("strides", i, o->strides[i], p, partial, &x, err, errlen);
            if (r < 0)
                return -1;
            if (r) {
                if (x < 1) {
                    snprintf(err, errlen, "strides[%d] = %lld bytes: must be positive", i, x);
                    return -1;
                }
                v.strides[i] = (unsigned long long)x;
                ks[i] = 1;
            }
        } else if (ks[i - 1] && kd[i - 1]) {
            v.strides[i] = v.strides[i - 1] * v.dims[i - 1];
            ks[i] = 1;
        }
        if (!ks[i])
            continue;
        if (v.strides[i] % (unsigned long long)align != 0) {
            snprintf(err, errlen, "strides[%d] = %llu bytes is not a multiple of %d bytes%s", i,
                     v.strides[i], align,
                     o->strides[i][0] ? "" : " (packed rows: pad them with strides(...))");
            return -1;
        }
        if (v.strides[i] >= (1ULL << 40)) {
            snprintf(err, errlen, "strides[%d] = %llu bytes: at most 2^40 - 1", i, v.strides[i]);
            return -1;
        }
        if (ks[i - 1] && kd[i - 1] && v.strides[i] < v.strides[i - 1] * v.dims[i - 1]) {
            snprintf(err, errlen, "strides[%d] = %llu bytes is less than dims[%d] x strides[%d] "
                     "= %llu: rows would overlap", i, v.strides[i], i - 1, i - 1,
                     v.strides[i - 1] * v.dims[i - 1]);
            return -1;
        }
    }
    if (kb[0] && v.esize > 0) {
        unsigned inner = v.box[0] * (unsigned)v.esize;
        static const unsigned span[] = { 0, 32, 64, 128 };
        if (v.interleave == 0 && inner % 16 != 0) {
            snprintf(err, errlen, "box[0] = %u elements of %d bytes is %u bytes, not a multiple "
                     "of 16", v.box[0], v.esize, inner);
            return -1;
        }
        if (v.interleave == 0 && v.swizzle > 0 && inner > span[v.swizzle]) {
            snprintf(err, errlen, "box[0] = %u elements of %d bytes is %u bytes, more than the "
                     "%u-byte span of swizzle(%s)", v.box[0], v.esize, inner, span[v.swizzle],
                     gl_tmap_swizzles[v.swizzle]);
            return -1;
        }
    }
    /* the tensor inside its buffer */
    int all = v.esize > 0;
    for (int i = 0; i < v.rank; i++)
        all = all && kd[i] && ks[i];
    if (all && t >= 0 && val("count", 0, bf->count, p, 1, &x, err, errlen) == 1) {
        v.buffer_bytes = x * (long long)gl_ktype_size(t);
        unsigned long long end = v.dims[0] * v.strides[0];
        for (int i = 1; i < v.rank; i++)
            end += (v.dims[i] - 1) * v.strides[i];
        if (end > (unsigned long long)v.buffer_bytes) {
            snprintf(err, errlen, "the tensor spans %llu bytes but buffer '%s' holds %lld", end,
                     bf->name, v.buffer_bytes);
            return -1;
        }
    }
    if (!partial && v.dtype < 0) {
        snprintf(err, errlen, "buffer '%s' has no type here: give type(...)", bf->name);
        return -1;
    }
    if (out)
        *out = v;
    return 0;
}

/* kernel_objects.cu - a kernel section's arrays, textures, surfaces and tensor
 * maps (kernel.h struct gl_kobject, rules in kobject.h) for one run: each
 * array a cudaArray (cudaMalloc3DArray, surface load/store allowed) that the
 * harness fills from its buffer before every run and reads back when it is an
 * output (harness_restore.cu, as a symbol's variable); a texture or surface over
 * an array made once the array exists; a texture over a buffer (linear memory)
 * and a tensor map made from the buffer's device pointer when the run first
 * launches (the buffers exist then), and made again should that pointer change.
 * A tensor map is a 128-byte CUtensorMap encoded by cuTensorMapEncodeTiled,
 * reached through the runtime's cudaGetDriverEntryPointByVersion (no libcuda
 * link); the kernel takes it by value (`const __grid_constant__ CUtensorMap`).
 * Must not time, check outputs or decide what a buffer holds. */
#include "gpu_harness.cuh"
#include "kernel_int.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "kobject.h"
#include "typed.h"
}

struct gk_obj {
    CUtensorMap map;                  /* a tensor map (64-byte aligned: first member) */
    unsigned long long handle;        /* a texture's or surface's object */
    int made;                         /* handle or map is valid */
    const void *made_for;             /* the device pointer it was made from (a buffer's) */
    const struct gl_kobject *o;
    signed char out, idx;             /* its source buffer in j->out / j->in */
    int type;                         /* the source's element type */
    size_t count;                     /* ... and elements */
    struct gl_tmap_vals v;            /* a tensor map's values at the point */
};

struct gk_objs {
    struct gk_obj obj[GL_KERNEL_MAX_OBJECTS];   /* first: aligned as the struct */
    int nobj;
    cudaArray_t arr[GL_KERNEL_MAX_BUFFERS];
};

static cudaChannelFormatDesc channel(int t)
{
    switch (t) {
    case GL_KT_HALF:
        return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
    case GL_KT_INT:
        return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    case GL_KT_UINT:
        return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
    case GL_KT_INT8:
        return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindSigned);
    case GL_KT_UINT8:
        return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    }
    return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
}

static cudaTextureDesc tex_desc(const struct gl_kobject *o)
{
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    for (int i = 0; i < 3; i++)
        td.addressMode[i] = (cudaTextureAddressMode)o->address[i];
    td.filterMode = o->filter ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = o->read_normalized ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
    td.normalizedCoords = o->normalized;
    return td;
}

void gk_objects_free(struct gk_objs *q)
{
    if (!q)
        return;
    if (!gh_context_lost()) {
        for (int i = 0; i < q->nobj; i++) {
            struct gk_obj *g = &q->obj[i];
            if (!g->made || g->o->kind == GL_KO_TENSORMAP)
                continue;
            if (g->o->kind == GL_KO_SURFACE)
                cudaDestroySurfaceObject((cudaSurfaceObject_t)g->handle);
            else
                cudaDestroyTextureObject((cudaTextureObject_t)g->handle);
        }
        for (int b = 0; b < GL_KERNEL_MAX_BUFFERS; b++)
            if (q->arr[b])
                cudaFreeArray(q->arr[b]);
    }
    free(q);
}

int gk_objects_prepare(struct gh_job *j, const struct gl_kernel *k, struct gh_typed *T,
                       struct gk_objs **out)
{
    struct gl_result *r = j->r;
    void *mem = NULL;
    *out = NULL;
    if (posix_memalign(&mem, 64, sizeof(struct gk_objs)) != 0)
        return gh_fail(r, "out of host memory for the tensor maps and textures");
    struct gk_objs *q = (struct gk_objs *)mem;
    memset(q, 0, sizeof *q);
    *out = q;
    /* the arrays, at their extents here */
    for (int b = 0; b < k->nbuffers && b < T->n; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        struct gh_tbuf *tb = &T->b[b];
        if (!kb->array)
            continue;
        size_t ext[3] = { 1, 1, 1 };
        for (int d = 0; d < kb->nextent; d++) {
            long long v;
            char err[GL_REASON_MAX - 64];
            if (gk_value(kb->extent[d], j->p, &v, err, sizeof err) != 0)
                return gh_skip(r, "array %s extent '%s': %s", kb->name, kb->extent[d], err);
            if (v < 1)
                return gh_skip(r, "array %s: extent %d is %lld", kb->name, d + 1, v);
            ext[d] = (size_t)v;
        }
        cudaChannelFormatDesc cd = channel(tb->type);
        cudaExtent ae = make_cudaExtent(ext[0], kb->nextent > 1 ? ext[1] : 0,
                                        kb->nextent > 2 ? ext[2] : 0);
        char what[GL_KNAME + 40];
        snprintf(what, sizeof what, "cudaMalloc3DArray(%s)", kb->name);
        if (!gh_ok(r, cudaMalloc3DArray(&q->arr[b], &cd, ae, cudaArraySurfaceLoadStore), what))
            return 0;
        tb->array = q->arr[b];
        memcpy(tb->ext, ext, sizeof ext);
    }
    /* the objects: those over arrays now, the others at the first launch */
    for (int i = 0; i < k->nobjects; i++) {
        const struct gl_kobject *o = &k->objects[i];
        struct gk_obj *g = &q->obj[q->nobj++];
        const struct gh_tbuf *tb = &T->b[o->source];
        char err[GL_REASON_MAX - 64], what[GL_KNAME + 48];
        g->o = o;
        g->out = (signed char)tb->out;
        g->idx = (signed char)tb->idx;
        g->type = tb->type;
        g->count = tb->count;
        if (o->kind == GL_KO_TENSORMAP &&
            gl_tmap_eval(k, o, j->p, 0, &g->v, err, sizeof err) != 0)
            return gh_skip(r, "tensormap.%s: %s", o->name, err);
        if (!tb->arr)
            continue;
        cudaResourceDesc rd;
        memset(&rd, 0, sizeof rd);
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = q->arr[o->source];
        if (o->kind == GL_KO_SURFACE) {
            cudaSurfaceObject_t s = 0;
            snprintf(what, sizeof what, "cudaCreateSurfaceObject(%s)", o->name);
            if (!gh_ok(r, cudaCreateSurfaceObject(&s, &rd), what))
                return 0;
            g->handle = (unsigned long long)s;
        } else {
            cudaTextureObject_t t = 0;
            cudaTextureDesc td = tex_desc(o);
            snprintf(what, sizeof what, "cudaCreateTextureObject(%s)", o->name);
            if (!gh_ok(r, cudaCreateTextureObject(&t, &rd, &td, NULL), what))
                return 0;
            g->handle = (unsigned long long)t;
        }
        g->made = 1;
    }
    return 1;
}

/* cuTensorMapEncodeTiled and cuGetErrorName from the driver, once. */
static PFN_cuTensorMapEncodeTiled_v12000 encode_fn;
static PFN_cuGetErrorName_v6000 errname_fn;

static int driver_fns(char *err, size_t len)
{
    if (encode_fn)
        return 0;
    void *f = NULL, *g = NULL;
    cudaDriverEntryPointQueryResult qr = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                     cudaEnableDefault, &qr);
    if (e != cudaSuccess || !f || qr != cudaDriverEntryPointSuccess) {
        snprintf(err, len, "the driver has no cuTensorMapEncodeTiled (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        return -1;
    }
    if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &g, 6000, cudaEnableDefault, &qr) ==
        cudaSuccess && qr == cudaDriverEntryPointSuccess)
        memcpy(&errname_fn, &g, sizeof g);
    memcpy(&encode_fn, &f, sizeof f);
    return 0;
}

static int make_map(struct gk_obj *g, void *ptr, char *err, size_t len)
{
    const struct gl_tmap_vals *v = &g->v;
    cuuint64_t dims[GL_TMAP_RANK], strides[GL_TMAP_RANK];
    cuuint32_t box[GL_TMAP_RANK], es[GL_TMAP_RANK];
    for (int i = 0; i < v->rank; i++) {
        dims[i] = v->dims[i];
        box[i] = v->box[i];
        es[i] = v->elem_strides[i];
        if (i > 0)
            strides[i - 1] = v->strides[i];
    }
    if (driver_fns(err, len) != 0)
        return -1;
    CUresult c = encode_fn(&g->map, (CUtensorMapDataType)v->dtype, (cuuint32_t)v->rank, ptr, dims,
                           strides, box, es, (CUtensorMapInterleave)v->interleave,
                           (CUtensorMapSwizzle)v->swizzle, (CUtensorMapL2promotion)v->l2,
                           (CUtensorMapFloatOOBfill)v->fill);
    if (c != CUDA_SUCCESS) {
        const char *name = NULL;
        if (errname_fn)
            errname_fn(c, &name);
        snprintf(err, len, "tensormap.%s: cuTensorMapEncodeTiled: %s (%d)", g->o->name,
                 name ? name : "error", (int)c);
        return -1;
    }
    return 0;
}

const void *gk_objects_arg(struct gh_job *j, struct gk_objs *q, int i)
{
    struct gk_obj *g = &q->obj[i];
    if (g->o->kind == GL_KO_SURFACE || (g->made && !g->made_for))
        return g->o->kind == GL_KO_TENSORMAP ? (const void *)&g->map : (const void *)&g->handle;
    void *ptr = g->out ? (void *)j->out[(int)g->idx].dev : (void *)j->in[(int)g->idx].dev;
    if (g->made && g->made_for == ptr)
        return g->o->kind == GL_KO_TENSORMAP ? (const void *)&g->map : (const void *)&g->handle;
    if (g->o->kind == GL_KO_TENSORMAP) {
        if (make_map(g, ptr, j->lib_err, sizeof j->lib_err) != 0)
            return NULL;
    } else {   /* a texture over a buffer: linear memory */
        if (g->made)
            cudaDestroyTextureObject((cudaTextureObject_t)g->handle);
        g->made = 0;
        cudaResourceDesc rd;
        memset(&rd, 0, sizeof rd);
        rd.resType = cudaResourceTypeLinear;
        rd.res.linear.devPtr = ptr;
        rd.res.linear.desc = channel(g->type);
        rd.res.linear.sizeInBytes = g->count * gl_ty_esize(g->type);
        cudaTextureDesc td = tex_desc(g->o);
        cudaTextureObject_t t = 0;
        cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, NULL);
        if (e != cudaSuccess) {
            snprintf(j->lib_err, sizeof j->lib_err, "texture.%s: cudaCreateTextureObject: %s",
                     g->o->name, cudaGetErrorString(e));
            return NULL;
        }
        g->handle = (unsigned long long)t;
    }
    g->made = 1;
    g->made_for = ptr;
    return g->o->kind == GL_KO_TENSORMAP ? (const void *)&g->map : (const void *)&g->handle;
}

/* harness_restore.cu - what a user's job (struct gh_typed) puts back before
 * every run, so that every run does the same work on the same data: the
 * verification run, each warm-up run and timed sample (before the L2 flush,
 * outside the timed interval: harness_measure.cu), and each pass of the
 * profiled replay (before that run's flush: harness_batch.cu and
 * cupti/profiler_passes.c):
 *   - outputs with an init: their image (a copy) or zeros (a memset);
 *   - inputs the kernel writes (in place, or counters it bumps): a pristine copy
 *     of each input is made once the inputs exist; after the verification run
 *     the inputs that still equal theirs are known to be left alone, and their
 *     copies are freed (they are not restored: no cost for a kernel that only
 *     reads its inputs);
 *   - symbols (a kernel section's __constant__ and __device__ variables): an
 *     input from its buffer (the module's variable may hold another run's
 *     values: a parked run of another point of the same module), an output's
 *     starting state (its image, zeros, or the poison: every bit set);
 *   - arrays (a kernel section's cudaArrays) likewise, by a 3D copy from the
 *     buffer (an output's buffer is first set to its starting state).
 * Outputs without an init are poisoned before the verification run only (the
 * kernel must write every element; later runs overwrite them).
 * Everything is a cudaMemcpyAsync or cudaMemsetAsync on the default stream:
 * no kernel, so the profiler's auto ranges (one per kernel) stay the run's.
 * Must not time, flush, or decide what a buffer's contents are (harness_typed.cu
 * makes them). */
#include "harness_int.cuh"

#include <stdio.h>
#include <string.h>

extern "C" {
#include "typed.h"
}

static void add(struct gh_job *j, void *dst, const void *src, size_t bytes, int byte, int input,
                int buf)
{
    struct gh_restore_op *o = &j->restore[j->nrestore++];
    memset(o, 0, sizeof *o);
    o->dst = dst;
    o->src = src;
    o->bytes = bytes;
    o->byte = byte;
    o->input = input;
    o->buf = buf;
}

/* An array's contents from its buffer src (linear, the array's extent). */
static void add_array(struct gh_job *j, const struct gh_tbuf *tb, const void *src, int buf)
{
    struct gh_restore_op *o = &j->restore[j->nrestore++];
    memset(o, 0, sizeof *o);
    o->src = src;
    o->array = tb->array;
    memcpy(o->ext, tb->ext, sizeof o->ext);
    o->esize = gl_ty_esize(tb->type);
    o->bytes = tb->count * o->esize;
    o->buf = buf;
}

/* A 3D copy between linear memory (rows of ext[0] elements of esize bytes,
 * packed) and a cudaArray of extent ext, either way. */
static cudaError_t array_copy(void *array, void *lin, const size_t ext[3], size_t esize,
                              int to_array)
{
    cudaMemcpy3DParms m;
    memset(&m, 0, sizeof m);
    cudaPitchedPtr pp = make_cudaPitchedPtr(lin, ext[0] * esize, ext[0], ext[1]);
    if (to_array) {
        m.srcPtr = pp;
        m.dstArray = (cudaArray_t)array;
    } else {
        m.srcArray = (cudaArray_t)array;
        m.dstPtr = pp;
    }
    m.extent = make_cudaExtent(ext[0], ext[1], ext[2]);
    m.kind = cudaMemcpyDefault;
    return cudaMemcpy3DAsync(&m, 0);
}

int gh_restore_plan(struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    j->nrestore = 0;
    if (!T)
        return 1;
    for (int b = 0; b < T->n && j->nrestore < GH_RESTORE_MAX - 1; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (tb->symbol && !tb->sym)
            return gh_fail(j->r, "internal: symbol '%s' without its address", tb->name);
        if (tb->arr && !tb->array)
            return gh_fail(j->r, "internal: array '%s' without its cudaArray", tb->name);
        if (tb->arr && !tb->out) {   /* the array from its buffer */
            add_array(j, tb, j->in[tb->idx].dev, b);
            continue;
        }
        if (tb->arr) {   /* an output array: its buffer's starting state, then the array */
            struct gh_buf *o = &j->out[tb->idx];
            if (tb->img >= 0)
                add(j, o->dev, j->in[tb->img].dev, gh_buf_bytes(o), 0, 0, b);
            else
                add(j, o->dev, NULL, gh_buf_bytes(o), tb->init == GL_KI_ZERO ? 0 : 0xff, 0, b);
            add_array(j, tb, o->dev, b);
            continue;
        }
        if (!tb->out && tb->symbol) {   /* the variable from its buffer */
            add(j, tb->sym, j->in[tb->idx].dev, gh_buf_bytes(&j->in[tb->idx]), 0, 0, b);
            continue;
        }
        if (!tb->out) {              /* a pristine copy of the input */
            if (tb->img < 0)
                continue;
            struct gh_buf *in = &j->in[tb->idx], *img = &j->in[tb->img];
            if (!gh_ok(j->r, cudaMemcpyAsync(img->dev, in->dev, gh_buf_bytes(in), cudaMemcpyDefault, 0),
                       "cudaMemcpy(pristine input)"))
                return 0;
            add(j, in->dev, img->dev, gh_buf_bytes(in), 0, 1, b);
            continue;
        }
        /* an output's starting state: into the variable for a symbol */
        struct gh_buf *o = &j->out[tb->idx];
        void *dst = tb->symbol ? tb->sym : (void *)o->dev;
        if (tb->img >= 0)
            add(j, dst, j->in[tb->img].dev, gh_buf_bytes(o), 0, 0, b);
        else if (tb->init == GL_KI_ZERO)
            add(j, dst, NULL, gh_buf_bytes(o), 0, 0, b);
        else if (tb->symbol)
            add(j, dst, NULL, gh_buf_bytes(o), 0xff, 0, b);   /* the poison, every run */
    }
    return gh_ok(j->r, cudaDeviceSynchronize(), "cudaMemcpy(pristine input)");
}

cudaError_t gh_restore_enqueue(const struct gh_job *j)
{
    for (int i = 0; i < j->nrestore; i++) {
        const struct gh_restore_op *o = &j->restore[i];
        cudaError_t e = o->array ? array_copy(o->array, (void *)o->src, o->ext, o->esize, 1)
                        : o->src ? cudaMemcpyAsync(o->dst, o->src, o->bytes, cudaMemcpyDefault, 0)
                                 : cudaMemsetAsync(o->dst, o->byte, o->bytes, 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

int gh_restore_private(const struct gh_job *j)
{
    for (int i = 0; i < j->nrestore; i++) {
        int b = j->restore[i].buf;
        if (j->typed && b >= 0 && b < j->typed->n && j->typed->b[b].symbol)
            return 0;
    }
    return 1;
}

/* Sets *flag when a[0..n) and b[0..n) differ (bytes; words where aligned). */
__global__ void restore_differ_kernel(const unsigned char *a, const unsigned char *b, size_t n,
                                      int *flag)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t nw = n / 4;
    const unsigned *wa = (const unsigned *)a, *wb = (const unsigned *)b;
    int d = 0;
    for (size_t i = t; i < nw && !d; i += stride)
        d = wa[i] != wb[i];
    for (size_t i = 4 * nw + t; i < n && !d; i += stride)
        d = a[i] != b[i];
    if (d)
        *flag = 1;
}

int gh_restore_prune(struct gh_job *j)
{
    int *flag = NULL, any = 0;
    for (int i = 0; i < j->nrestore; i++)
        any |= j->restore[i].input;
    if (!any)
        return 1;
    if (!gh_ok(j->r, cudaMalloc(&flag, sizeof(int) * GH_RESTORE_MAX), "cudaMalloc(restore check)"))
        return 0;
    int ok = gh_ok(j->r, cudaMemsetAsync(flag, 0, sizeof(int) * GH_RESTORE_MAX, 0),
                   "cudaMemset(restore check)");
    for (int i = 0; i < j->nrestore && ok; i++) {
        const struct gh_restore_op *o = &j->restore[i];
        if (!o->input)
            continue;
        size_t words = o->bytes / 4 > 0 ? o->bytes / 4 : 1;
        restore_differ_kernel<<<gh_stride_blocks(words), 256>>>(
            (const unsigned char *)o->dst, (const unsigned char *)o->src, o->bytes, flag + i);
        ok = gh_ok(j->r, cudaGetLastError(), "restore check");
    }
    int differ[GH_RESTORE_MAX] = { 0 };
    ok = ok && gh_ok(j->r, cudaMemcpy(differ, flag, sizeof differ, cudaMemcpyDeviceToHost),
                     "cudaMemcpy(restore check)");
    if (!gh_st.sticky)
        cudaFree(flag);
    if (!ok)
        return 0;
    /* keep the ops of inputs the kernel wrote; free the other copies */
    int n = 0;
    for (int i = 0; i < j->nrestore; i++) {
        struct gh_restore_op o = j->restore[i];
        if (o.input && !differ[i]) {
            int img = j->typed->b[o.buf].img;
            if (img >= 0)
                gh_buf_free(&j->in[img], j->mem);
            continue;
        }
        j->restore[n++] = o;
    }
    j->nrestore = n;
    return 1;
}

cudaError_t gh_symbols_collect(struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    for (int b = 0; T && b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (!tb->out || !(tb->symbol || tb->arr))
            continue;
        const struct gh_buf *o = &j->out[tb->idx];
        cudaError_t e = tb->arr ? array_copy(tb->array, o->dev, tb->ext, gl_ty_esize(tb->type), 0)
                                : cudaMemcpyAsync(o->dev, tb->sym, gh_buf_bytes(o),
                                                  cudaMemcpyDefault, 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* harness_typed.cu - what a user's job (struct gh_typed: a kernel section's
 * run or a plugin's) needs beyond a built-in family's run, kept on the device
 * as the families' is: its typed inputs and reset images made from the run's
 * seed (typed.h: the same numbers the CPU makes) on the device for device
 * memory, the outputs' starting state (image, zeros, poison), the expected
 * outputs kept in device memory (the reference kernel's, or a host reference's
 * doubles copied up; a keyed one's kept across runs by harness_expected.cu),
 * and each output checked there (gh_verdict of gh_compare.cuh with typed.h's
 * rule, each floating-point type with its own default tolerance), only the
 * verdict brought back and worded by host_buffers.c's gl_hb_verdict.
 * Must not launch a job's own kernels, time anything, or decide what the
 * reference is (the job's adapter does). */
#include "harness_int.cuh"
#include "gh_compare.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "host_buffers.h"
}

/* ---- layout -------------------------------------------------------------------- */

int gh_typed_layout(struct gh_job *j, struct gh_typed *T)
{
    int nin = 0, nout = 0, nimg = 0;
    if (T->n < 1 || T->n > GH_TYPED_MAX)
        return gh_fail(j->r, "internal: %d buffers (1 to %d)", T->n, GH_TYPED_MAX);
    for (int b = 0; b < T->n; b++) {
        struct gh_tbuf *tb = &T->b[b];
        size_t es = gl_ty_esize(tb->type);
        tb->img = -1;
        if (!tb->out && tb->init == GL_KI_POISON) {   /* an input without init is random */
            tb->init = GL_KI_RANDOM;
            tb->value = 0.0;
            tb->value2 = 1.0;
        }
        if (tb->out) {
            if (nout >= GH_MAX_OUT)
                return gh_fail(j->r, "%d or more output buffers (at most %d)", nout + 1,
                               GH_MAX_OUT);
            tb->idx = nout;
            j->out_count[nout] = tb->count;
            j->out_esize[nout] = es;
            nout++;
        } else {
            if (nin >= GH_MAX_IN)
                return gh_fail(j->r, "too many input buffers (at most %d)", GH_MAX_IN);
            tb->idx = nin;
            j->in_count[nin] = tb->count;
            j->in_esize[nin] = es;
            nin++;
        }
    }
    if (nout < 1)
        return gh_fail(j->r, "no output buffer");
    /* reset images of outputs whose init is neither poison nor zero (zero is a
     * memset), and pristine copies of the inputs passed to the kernel (restored
     * before every run where the kernel writes them: harness_restore.cu): inputs
     * the kernel never sees, after its own */
    for (int b = 0; b < T->n; b++) {
        struct gh_tbuf *tb = &T->b[b];
        if (tb->out ? tb->init == GL_KI_POISON || tb->init == GL_KI_ZERO
                    : tb->symbol || tb->arr)
            continue;
        if (nin + nimg >= GH_MAX_IN)
            return gh_fail(j->r, "too many buffers (at most %d inputs and reset images)",
                           GH_MAX_IN);
        tb->img = nin + nimg++;
        j->in_count[tb->img] = tb->count;
        j->in_esize[tb->img] = gl_ty_esize(tb->type);
    }
    j->nin = nin + nimg;
    j->naux = nimg;
    j->nout = nout;
    j->typed = T;
    return 1;
}

/* ---- inputs ----------------------------------------------------------------------- */

__global__ void typed_fill_kernel(void *a, int t, int init, double va, double vb, size_t n,
                                  unsigned long long s0)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        gl_ty_set(a, t, i, gl_ty_init_value2(t, init, va, vb, s0, i));
}

cudaError_t gh_typed_fill_dev2(void *dev, int type, int init, double a, double b, size_t n,
                               unsigned long long seed, unsigned long long stream)
{
    if (init == GL_KI_POISON || init == GL_KI_ZERO)
        return cudaMemsetAsync(dev, init == GL_KI_ZERO ? 0 : 0xff, n * gl_ty_esize(type), 0);
    typed_fill_kernel<<<gh_stride_blocks(n), 256>>>(dev, type, init, a, b, n,
                                                    gl_rng_state(seed, stream));
    return cudaGetLastError();
}

cudaError_t gh_typed_fill_dev(void *dev, int type, int init, double value, size_t n,
                              unsigned long long seed, unsigned long long stream)
{
    if (init == GL_KI_RANDOM)
        return gh_typed_fill_dev2(dev, type, init, 0.0, 1.0, n, seed, stream);
    return gh_typed_fill_dev2(dev, type, init, value, 0.0, n, seed, stream);
}

/* file(PATH): its bytes into host memory (exactly bytes of them). */
static int read_file_into(struct gh_job *j, const struct gh_tbuf *tb, void *dst, size_t bytes)
{
    FILE *f = tb->file ? fopen(tb->file, "rb") : NULL;
    if (!f)
        return gh_fail(j->r, "buffer '%s': cannot open file %s", tb->name,
                       tb->file ? tb->file : "(none)");
    size_t got = fread(dst, 1, bytes, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    if (got != bytes || more)
        return gh_fail(j->r, "buffer '%s': file %s does not hold %zu bytes (changed since plan?)",
                       tb->name, tb->file, bytes);
    return 1;
}

/* Buffer tb's contents as it starts into g (its input, or its output's image). */
static int fill_one(struct gh_job *j, const struct gh_tbuf *tb, struct gh_buf *g, int on_host)
{
    unsigned long long seed = gh_seed(j->p);
    if (tb->init == GL_KI_FILE) {
        if (on_host)
            return read_file_into(j, tb, g->host, gh_buf_bytes(g));
        void *stage = gh_staging_get(j->r, gh_buf_bytes(g));
        return stage && read_file_into(j, tb, stage, gh_buf_bytes(g)) &&
               gh_ok(j->r, cudaMemcpy(g->dev, stage, gh_buf_bytes(g), cudaMemcpyHostToDevice),
                     "cudaMemcpy(file input)");
    }
    if (on_host) {
        if (gl_hb_fill2(g->host, (enum gl_ktype)tb->type, g->count, (enum gl_kinit)tb->init,
                        tb->value, tb->value2, seed, tb->stream) != 0)
            return gh_fail(j->r, "out of host memory filling buffer '%s'", tb->name);
        return 1;
    }
    return gh_ok(j->r, gh_typed_fill_dev2(g->dev, tb->type, tb->init, tb->value, tb->value2,
                                          g->count, seed, tb->stream),
                 "input generation");
}

int gh_typed_fill(struct gh_job *j, int on_device)
{
    const struct gh_typed *T = j->typed;
    /* made where the kernel reads them (host memory for zerocopy and managed:
     * the copy of managed pages is the prefetch of what the host wrote), or on
     * the host when the reference reads them there */
    int on_host = j->mem != GH_MEM_DEVICE || T->host_inputs;
    if (on_host == on_device)
        return 1;
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        int i = !tb->out ? tb->idx : tb->img;   /* an input's pristine copy: harness_restore.cu */
        if (i >= 0 && !fill_one(j, tb, &j->in[i], on_host))
            return 0;
    }
    return on_host || gh_ok(j->r, cudaDeviceSynchronize(), "input generation");
}

/* ---- outputs' starting state ------------------------------------------------------ */

/* Enqueue the outputs' starting state; poison = 0 leaves outputs without init
 * as they are. */
static cudaError_t init_outputs(struct gh_job *j, int poison)
{
    const struct gh_typed *T = j->typed;
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (!tb->out)
            continue;
        const struct gh_buf *o = &j->out[tb->idx];
        cudaError_t e = cudaSuccess;
        if (tb->img >= 0)
            e = cudaMemcpyAsync(o->dev, j->in[tb->img].dev, gh_buf_bytes(o), cudaMemcpyDefault, 0);
        else if (tb->init == GL_KI_ZERO)
            e = cudaMemsetAsync(o->dev, 0, gh_buf_bytes(o), 0);
        else if (poison)
            e = cudaMemsetAsync(o->dev, 0xff, gh_buf_bytes(o), 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

int gh_typed_prepare_outputs(struct gh_job *j)
{
    /* then what every run starts from: outputs with an init, inputs the kernel
     * writes, symbols (harness_restore.cu) */
    return gh_ok(j->r, init_outputs(j, 1), "output poison/init") &&
           gh_ok(j->r, gh_restore_enqueue(j), "restore before the run") &&
           gh_ok(j->r, cudaDeviceSynchronize(), "output poison/init");
}

/* ---- the expected outputs ---------------------------------------------------------- */

size_t gh_typed_want_bytes(const struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    size_t bytes = 0;
    if (!T || !T->reference || T->want[0])   /* none, or allocated already (a keyed one) */
        return 0;
    for (int o = 0; o < j->nout; o++)
        bytes += j->out_count[o] * (T->host_inputs ? sizeof(double) : j->out_esize[o]);
    return bytes;
}

void gh_typed_release(struct gh_job *j)
{
    struct gh_typed *T = j->typed;
    for (int o = 0; o < GH_MAX_OUT; o++) {
        if (T->want[o] && !T->want_kept && !gh_st.sticky)
            cudaFree(T->want[o]);
        T->want[o] = NULL;
    }
    T->want_kept = T->want_ready = 0;
}

int gh_typed_keep_outputs(struct gh_job *j)
{
    struct gh_typed *T = j->typed;
    T->want_double = 0;
    if (!gh_ok(j->r, gh_symbols_collect(j), "reading back output symbols"))
        return 0;
    for (int o = 0; o < j->nout; o++) {
        size_t bytes = gh_buf_bytes(&j->out[o]);
        if (!gh_ok(j->r, cudaMalloc(&T->want[o], bytes), "cudaMalloc(reference output)") ||
            !gh_ok(j->r, cudaMemcpyAsync(T->want[o], j->out[o].dev, bytes, cudaMemcpyDefault, 0),
                   "cudaMemcpy(reference output)"))
            return 0;
    }
    return gh_ok(j->r, cudaDeviceSynchronize(), "cudaMemcpy(reference output)");
}

/* The host reference's expected outputs to the device. */
static int expect(struct gh_job *j, double *const *want)
{
    struct gh_typed *T = j->typed;
    T->want_double = 1;
    for (int o = 0; o < j->nout; o++) {
        size_t bytes = j->out_count[o] * sizeof(double);
        if (!gh_ok(j->r, cudaMalloc(&T->want[o], bytes), "cudaMalloc(expected output)") ||
            !gh_ok(j->r, cudaMemcpy(T->want[o], want[o], bytes, cudaMemcpyHostToDevice),
                   "cudaMemcpy(expected output)"))
            return 0;
    }
    return 1;
}

int gh_typed_host_view(struct gh_job *j, struct gh_host_view *v)
{
    const struct gh_typed *T = j->typed;
    memset(v, 0, sizeof *v);
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (!tb->out || tb->img >= 0) {
            v->in[b] = j->in[!tb->out ? tb->idx : tb->img].host;
            continue;
        }
        if (tb->init != GL_KI_ZERO)
            continue;
        size_t bytes = gh_buf_bytes(&j->out[tb->idx]);
        if (!(v->own[b] = malloc(bytes)))
            return gh_fail(j->r, "out of host memory for the reference's inputs");
        memset(v->own[b], 0, bytes);
        v->in[b] = v->own[b];
    }
    for (int o = 0; o < j->nout; o++) {
        if (!(v->want[o] = (double *)malloc(j->out_count[o] * sizeof(double))))
            return gh_fail(j->r, "out of host memory for the reference's outputs");
        for (size_t i = 0; i < j->out_count[o]; i++)
            v->want[o][i] = NAN;
    }
    return 1;
}

int gh_typed_host_done(struct gh_job *j, struct gh_host_view *v, int ok)
{
    ok = ok && expect(j, v->want);
    for (int b = 0; b < GH_TYPED_MAX; b++)
        free(v->own[b]);
    for (int o = 0; o < GH_MAX_OUT; o++)
        free(v->want[o]);
    memset(v, 0, sizeof *v);
    return ok;
}

/* ---- the check ---------------------------------------------------------------------- */

/* `output unordered`: the output and its expected values copied to the host,
 * each sorted, and compared there (host_buffers.h gl_hb_unordered). */
static int unordered_check(struct gh_job *j, const struct gh_tbuf *tb, const void *want,
                           double tol)
{
    const struct gh_typed *T = j->typed;
    struct gl_result *r = j->r;
    int wt = T->want_double ? GL_KT_DOUBLE : tb->type;
    size_t gbytes = tb->count * gl_ty_esize(tb->type), wbytes = tb->count * gl_ty_esize(wt);
    void *g = malloc(gbytes), *w = malloc(wbytes);
    struct gl_hb_found f;
    int ok = g && w;
    if (!ok)
        gh_fail(r, "out of host memory to compare output '%s' as a multiset", tb->name);
    ok = ok && gh_ok(r, cudaMemcpy(g, j->out[tb->idx].dev, gbytes, cudaMemcpyDefault),
                     "cudaMemcpy(unordered output)") &&
         gh_ok(r, cudaMemcpy(w, want, wbytes, cudaMemcpyDefault), "cudaMemcpy(unordered output)");
    if (ok && gl_hb_unordered(g, tb->type, w, wt, tb->count, tol, &f) != 0)
        ok = gh_fail(r, "out of host memory to compare output '%s' as a multiset", tb->name);
    free(g);
    free(w);
    if (ok)
        gl_hb_verdict(r, tb->name, (enum gl_ktype)tb->type, tb->count, T->ref_name, tol, &f);
    return ok;
}

int gh_typed_check(struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    struct gl_result *r = j->r;
    if (!gh_ok(r, gh_symbols_collect(j), "reading back output symbols"))
        return 0;
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        if (!tb->out)
            continue;
        const void *want = T->want[tb->idx];
        if (!want && tb->init != GL_KI_POISON) {   /* no reference, and no poison to find */
            snprintf(r->check, sizeof r->check, "%s", GL_CHECK_NONE);   /* not verified */
            continue;
        }
        double tol = T->tol > 0 ? T->tol : gl_ty_default_tol(tb->type);
        if (want && tb->unordered) {
            if (!unordered_check(j, tb, want, tol))
                return 0;
            continue;
        }
        struct gh_typed_verdict v = { j->out[tb->idx].dev, tb->type, want,
                                      T->want_double ? GL_KT_DOUBLE : tb->type, tol };
        struct gh_cmp c;
        cudaError_t e;
        struct gh_cmp *dc = gh_compare_begin(&e);
        if (!dc)
            return gh_ok(r, e, "on-device check (scratch)");
        if (!gh_ok(r, gh_verdict(v, tb->count, dc, gh_st.dev.sm_count), "on-device check") ||
            !gh_ok(r, cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost),
                   "on-device check (result)"))
            return 0;
        struct gl_hb_found f;
        f.nbad = c.nbad;
        f.first = c.first;
        f.got = c.got;
        f.want = c.want;
        memcpy(&f.maxerr, &c.maxerr_bits, sizeof f.maxerr);
        gl_hb_verdict(r, tb->name, (enum gl_ktype)tb->type, tb->count, want ? T->ref_name : NULL,
                      tol, &f);
    }
    return 1;
}

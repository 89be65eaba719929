/* harness_expected.cu - the expected outputs of a user's job whose host
 * reference has a key (struct gh_typed.want_key: a kernel section's C
 * reference, experiments/cref.h), computed once per key and kept in device
 * memory for the runs that follow with that key: the variants of one point,
 * and points that differ only in what the reference does not read.
 * A miss allocates the expected outputs before the run's own buffers, as a
 * hit finds them, so that a run's buffers land where they would either way
 * (where a small kernel's buffers lie moves its time: harness_buffers.cu).
 * The reference reads host copies of the buffers as they start, made on the
 * device like every run's inputs (typed.h) and copied down into a pageable
 * view kept for the process: at 2^26 floats a device fill and one copy take
 * tens of ms, where making them on the host took one core about 100 ms per
 * buffer.
 * The cache holds at most GH_EXP_SLOTS keys and GH_EXP_BYTES bytes (the newest
 * entry may exceed that alone); entries not in use are freed when a run needs
 * the memory (gh_memory_fits) and at shutdown. GPULAB_CREF_CACHE=0 keeps
 * nothing: every run computes its own (the same steps, in the same order).
 * Must not launch a job's kernels, time anything, or decide a verdict. */
#include "harness_int.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "reference.h"
#include "typed.h"
}

#define GH_EXP_SLOTS 2
#define GH_EXP_BYTES (1ull << 30)

static struct {
    struct {
        char *key;                    /* malloc'ed; NULL: the slot is free */
        int nout;
        size_t count[GH_MAX_OUT];
        double *want[GH_MAX_OUT];     /* device memory */
        size_t bytes;
        unsigned long long tick;
    } e[GH_EXP_SLOTS];
    unsigned long long tick;
    size_t bytes;
} ex;

static int cache_enabled(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("GPULAB_CREF_CACHE");
        on = !(v && strcmp(v, "0") == 0);
    }
    return on;
}

static void free_wants(double *const *want, int n)
{
    for (int o = 0; o < n; o++)
        if (want[o] && !gh_st.sticky)
            cudaFree(want[o]);
}

static void entry_drop(int i)
{
    if (!ex.e[i].key)
        return;
    free_wants(ex.e[i].want, ex.e[i].nout);
    free(ex.e[i].key);
    ex.bytes -= ex.e[i].bytes;
    memset(&ex.e[i], 0, sizeof ex.e[i]);
}

void gh_expected_trim(const struct gh_typed *keep)
{
    for (int i = 0; i < GH_EXP_SLOTS; i++)
        if (ex.e[i].key && !(keep && keep->want_kept && keep->want[0] == ex.e[i].want[0]))
            entry_drop(i);
}

void gh_expected_release(void)
{
    gh_expected_trim(NULL);
}

static size_t want_bytes(const struct gh_job *j)
{
    size_t b = 0;
    for (int o = 0; o < j->nout; o++)
        b += j->out_count[o] * sizeof(double);
    return b;
}

/* The slot holding T's key with j's outputs, or -1. */
static int find(const struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    for (int i = 0; i < GH_EXP_SLOTS; i++) {
        if (!ex.e[i].key || strcmp(ex.e[i].key, T->want_key) != 0 || ex.e[i].nout != j->nout)
            continue;
        int same = 1;
        for (int o = 0; o < j->nout; o++)
            same &= ex.e[i].count[o] == j->out_count[o];
        return same ? i : -1;   /* the key names every count: a mismatch cannot happen */
    }
    return -1;
}

size_t gh_expected_need(const struct gh_job *j)
{
    return j->typed && j->typed->want_key && find(j) < 0 ? want_bytes(j) : 0;
}

int gh_expected_get(struct gh_job *j)
{
    struct gh_typed *T = j->typed;
    struct gl_result *r = j->r;
    T->want_ready = 0;
    T->want_kept = 0;
    if (!T->want_key)
        return 1;
    int i = find(j);
    if (i >= 0) {
        ex.e[i].tick = ++ex.tick;
        for (int o = 0; o < j->nout; o++)
            T->want[o] = ex.e[i].want[o];
        T->want_double = 1;
        T->want_ready = 1;
        T->want_kept = 1;
        return 1;
    }
    /* a miss: the memory now, filled by the reference once the inputs exist */
    size_t bytes = want_bytes(j), free_b = 0, total_b = 0;
    if (!gh_ok(r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
        return 0;
    if (bytes + GH_MEM_MARGIN > free_b) {   /* other cached arrays make room first */
        gh_expected_release();
        gh_devref_release();
        if (!gh_ok(r, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"))
            return 0;
        if (bytes + GH_MEM_MARGIN > free_b)
            return gh_skip(r, "the expected outputs need %.1f MiB of device memory, %.1f MiB free",
                           (double)bytes / 1048576.0, (double)free_b / 1048576.0);
    }
    T->want_double = 1;
    for (int o = 0; o < j->nout; o++)
        if (!gh_ok(r, cudaMalloc(&T->want[o], j->out_count[o] * sizeof(double)),
                   "cudaMalloc(expected output)"))
            return 0;   /* gh_typed_release frees what was allocated */
    return 1;
}

/* Keep T's just computed expected outputs under its key: within the slots and
 * the byte budget (the newest entry may exceed it alone). */
static void keep(struct gh_job *j)
{
    struct gh_typed *T = j->typed;
    size_t bytes = want_bytes(j);
    if (!cache_enabled() || !T->want_key)
        return;
    char *key = strdup(T->want_key);
    if (!key)
        return;   /* not kept: the run frees its own */
    for (;;) {
        int used = 0, victim = -1;
        for (int i = 0; i < GH_EXP_SLOTS; i++) {
            if (!ex.e[i].key)
                continue;
            used++;
            if (victim < 0 || ex.e[i].tick < ex.e[victim].tick)
                victim = i;
        }
        if (used == 0 || (used < GH_EXP_SLOTS && ex.bytes + bytes <= GH_EXP_BYTES))
            break;
        entry_drop(victim);
    }
    for (int i = 0; i < GH_EXP_SLOTS; i++) {
        if (ex.e[i].key)
            continue;
        ex.e[i].key = key;
        ex.e[i].nout = j->nout;
        for (int o = 0; o < j->nout; o++) {
            ex.e[i].count[o] = j->out_count[o];
            ex.e[i].want[o] = (double *)T->want[o];
        }
        ex.e[i].bytes = bytes;
        ex.e[i].tick = ++ex.tick;
        ex.bytes += bytes;
        T->want_kept = 1;
        return;
    }
    free(key);
}

/* ---- the host reference's view, from the device ------------------------------------- */

/* The view lives in pageable memory kept for the process and grown as needed:
 * nothing of it is a timed copy, and pinning it cost more than it saves (on an
 * H100 host, pinning the 1 GiB view of an N = 8192 transpose took 373-447 ms,
 * the first run's largest step). A new block is touched on all cores at once,
 * so that its page faults are not paid one core at a time inside the copies. */
static struct {
    unsigned char *p;
    size_t bytes;
} view_mem;

static unsigned char *view_get(struct gl_result *r, size_t bytes)
{
    if (bytes <= view_mem.bytes)
        return view_mem.p;
    free(view_mem.p);
    view_mem.bytes = 0;
    view_mem.p = (unsigned char *)malloc(bytes);
    if (!view_mem.p) {
        gh_fail(r, "out of host memory for the reference's view of the buffers (%.1f MiB)",
                (double)bytes / 1048576.0);
        return NULL;
    }
    gl_fill_zero(view_mem.p, bytes);
    view_mem.bytes = bytes;
    return view_mem.p;
}

void gh_expected_view_free(void)
{
    free(view_mem.p);
    view_mem.p = NULL;
    view_mem.bytes = 0;
}

#define ALIGN(x) (((x) + 255) & ~(size_t)255)

/* Staging bytes of the view: every buffer, then every output's doubles. */
static size_t view_bytes(const struct gh_job *j)
{
    const struct gh_typed *T = j->typed;
    size_t total = 0;
    for (int b = 0; b < T->n; b++)
        total += ALIGN(T->b[b].count * gl_ty_esize(T->b[b].type));
    for (int o = 0; o < j->nout; o++)
        total += ALIGN(j->out_count[o] * sizeof(double));
    return total;
}

int gh_expected_view(struct gh_job *j, struct gh_host_view *v)
{
    const struct gh_typed *T = j->typed;
    struct gl_result *r = j->r;
    size_t at = 0;
    memset(v, 0, sizeof *v);
    unsigned char *stage = view_get(r, view_bytes(j));
    if (!stage)
        return 0;
    /* every buffer as it starts: an input or an output's image from the device
     * (made there from the seed), an output without image as zeros or poison */
    for (int b = 0; b < T->n; b++) {
        const struct gh_tbuf *tb = &T->b[b];
        size_t bytes = tb->count * gl_ty_esize(tb->type);
        void *dst = stage + at;
        at += ALIGN(bytes);
        v->in[b] = dst;
        if (!tb->out || tb->img >= 0) {
            const struct gh_buf *src = &j->in[!tb->out ? tb->idx : tb->img];
            if (!gh_ok(r, cudaMemcpyAsync(dst, src->dev, bytes, cudaMemcpyDefault, 0),
                       "cudaMemcpy(the reference's inputs)"))
                return 0;
        } else {
            memset(dst, tb->init == GL_KI_ZERO ? 0 : 0xff, bytes);
        }
    }
    for (int o = 0; o < j->nout; o++) {
        v->want[o] = (double *)(stage + at);
        at += ALIGN(j->out_count[o] * sizeof(double));
        gl_fill_nan64(v->want[o], j->out_count[o]);   /* what the reference leaves */
    }
    return gh_ok(r, cudaDeviceSynchronize(), "cudaMemcpy(the reference's inputs)");
}

int gh_expected_done(struct gh_job *j, struct gh_host_view *v, int ok)
{
    struct gh_typed *T = j->typed;
    for (int o = 0; o < j->nout && ok; o++)
        ok = gh_ok(j->r, cudaMemcpyAsync(T->want[o], v->want[o], j->out_count[o] * sizeof(double),
                                         cudaMemcpyHostToDevice, 0),
                   "cudaMemcpy(expected output)");
    ok = ok && gh_ok(j->r, cudaDeviceSynchronize(), "cudaMemcpy(expected output)");
    memset(v, 0, sizeof *v);   /* the staging buffer's: nothing to free */
    if (ok)
        keep(j);
    return ok;
}

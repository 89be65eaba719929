/* kernel_sequence.cu - a kernel section's launch sequence (src/core/launches.h)
 * in the worker: every launch of the run evaluated at the point before
 * anything runs (each launch line's kernel compiled or taken from the kernel
 * cache and loaded once, and for each pass of its loop the grid, block,
 * dynamic shared memory and arguments with the loop variable set, each shape
 * checked against the device), then enqueued in order as one run (the
 * harness times that as one unit and verifies after the last launch), or one
 * launch alone (the profiler's launch-by-launch replay). The launches are
 * written into the result (gl_result.launch: kernel, pass, shape) for the
 * store. kernel_run.cu owns the job: its ctx holds the struct gk_seq made here.
 * Must not time, verify or profile anything itself, nor parse configs. */
#include "gpu_harness.cuh"
#include "kernel_int.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "launches.h"
}

struct gk_seq_launch {
    const void *kernel;           /* cudaKernel_t */
    const void *ref_kernel;       /* the reference variant's run: its kernel for this launch */
    int item;                     /* the launch line */
    dim3 grid, block;
    size_t smem;
    int nargs;
    signed char buf[GL_KERNEL_MAX_ARGS];   /* a buffer argument's buffer, or -1 (a scalar) */
    signed char out[GL_KERNEL_MAX_ARGS];   /* ... an output: j->out[idx], else j->in[idx] */
    signed char idx[GL_KERNEL_MAX_ARGS];
    unsigned long long val[GL_KERNEL_MAX_ARGS];   /* a scalar's bytes */
};

struct gk_seq {
    int n;
    struct gk_seq_launch l[GL_MAX_LAUNCHES];
};

void gk_seq_free(struct gk_seq *s)
{
    free(s);
}

/* One launch dimension list at q (1..3 expressions, the others 1). */
static int dims(struct gl_result *r, const char *label, const char *what, int n,
                const char (*e)[GL_KEXPR], const struct gl_params *q, dim3 *d)
{
    unsigned v[3] = { 1, 1, 1 };
    char err[GL_REASON_MAX];
    for (int i = 0; i < n && i < 3; i++) {
        long long x;
        if (gk_value(e[i], q, &x, err, sizeof err) != 0)
            return gh_skip(r, "launch.%s: %s '%s': %s", label, what, e[i], err);
        if (x < 1 || x > (long long)UINT_MAX)
            return gh_skip(r, "launch.%s: %s '%s' = %lld: must be 1 to %u", label, what, e[i], x,
                           UINT_MAX);
        v[i] = (unsigned)x;
    }
    *d = dim3(v[0], v[1], v[2]);
    return 1;
}

/* Launch line l's arguments at q into L (T: where each buffer lies in j). */
static int args(struct gl_result *r, const struct gl_klaunch *l, const struct gh_typed *T,
                const struct gl_params *q, struct gk_seq_launch *L)
{
    L->nargs = l->nargs;
    for (int i = 0; i < l->nargs; i++) {
        const struct gl_karg *a = &l->args[i];
        L->buf[i] = (signed char)a->buffer;
        if (a->buffer >= 0) {
            if (a->buffer >= T->n)
                return gh_fail(r, "internal: launch.%s argument %d names buffer %d", l->label,
                               i + 1, a->buffer);
            L->out[i] = (signed char)T->b[a->buffer].out;
            L->idx[i] = (signed char)T->b[a->buffer].idx;
            continue;
        }
        if (!gk_scalar_bytes(r, i, a, q, &L->val[i]))   /* skipped with the reason */
            return 0;
    }
    return 1;
}

int gk_seq_prepare(struct gh_job *j, const struct gl_kernel_variant *kv, const struct gh_typed *T,
                   struct gk_seq **out)
{
    const struct gl_kseq *s = kv->k->seq;
    const struct gl_params *p = j->p;
    struct gl_result *r = j->r;
    char err[GL_REASON_MAX];
    int total;
    *out = NULL;
    if (gl_kseq_total(s, p, &total, err, sizeof err) != 0)
        return gh_skip(r, "%s", err);
    struct gk_seq *q = (struct gk_seq *)calloc(1, sizeof *q);
    if (!q)
        return gh_fail(r, "out of memory (launch sequence)");
    *out = q;
    r->nlaunch_items = s->n < GL_LAUNCH_ITEMS ? s->n : GL_LAUNCH_ITEMS;
    for (int i = 0; i < s->n; i++) {
        const struct gl_klaunch *l = &s->l[i];
        struct gl_kernel_variant one = *kv;
        const void *kern = NULL;
        long long count;
        snprintf(one.expr, sizeof one.expr, "%s", gl_klaunch_kernel(kv, l));
        if (gl_klaunch_count(l, p, &count, err, sizeof err) != 0)
            return gh_skip(r, "launch.%s: %s", l->label, err);
        if (i < GL_LAUNCH_ITEMS) {
            snprintf(r->launch_item[i].label, sizeof r->launch_item[i].label, "%s", l->label);
            if (!gk_kernel_load(r, &one, p, &kern, r->launch_item[i].kernel,
                                sizeof r->launch_item[i].kernel))
                return 0;
        } else {
            char name[GL_KEXPR];
            if (!gk_kernel_load(r, &one, p, &kern, name, sizeof name))
                return 0;
        }
        for (long long it = 0; it < count; it++) {
            struct gl_params pq;
            struct gk_seq_launch *L = &q->l[q->n];
            if (q->n >= GL_MAX_LAUNCHES)
                return gh_fail(r, "internal: more than %d launches", GL_MAX_LAUNCHES);
            if (gl_klaunch_params(l, p, (long)it, &pq, err, sizeof err) != 0)
                return gh_skip(r, "launch.%s: %s", l->label, err);
            L->kernel = L->ref_kernel = kern;
            L->item = i;
            long long sm = 0;
            if (!dims(r, l->label, "grid", l->ngrid, l->grid, &pq, &L->grid) ||
                !dims(r, l->label, "block", l->nblock, l->block, &pq, &L->block))
                return 0;
            if (l->smem[0] && gk_value(l->smem, &pq, &sm, err, sizeof err) != 0)
                return gh_skip(r, "launch.%s: smem '%s': %s", l->label, l->smem, err);
            if (sm < 0 || sm > INT_MAX)
                return gh_skip(r, "launch.%s: smem = %lld bytes", l->label, sm);
            L->smem = (size_t)sm;
            if (!args(r, l, T, &pq, L) ||
                !gh_check_launch(r, L->kernel, L->grid, L->block, L->smem))
                return 0;
            struct gl_launch_row *row = &r->launch[q->n];
            row->item = i;
            row->iter = (int)it;
            row->grid[0] = (int)L->grid.x;
            row->grid[1] = (int)L->grid.y;
            row->grid[2] = (int)L->grid.z;
            row->block[0] = (int)L->block.x;
            row->block[1] = (int)L->block.y;
            row->block[2] = (int)L->block.z;
            row->dynamic_smem = (int)L->smem;
            q->n++;
        }
    }
    if (q->n != total || q->n < 1)
        return gh_fail(r, "internal: %d launches made where %d were counted", q->n, total);
    r->nlaunch = q->n;
    /* the run's own shape and resources are its first launch's */
    j->kernel = q->l[0].kernel;
    j->grid = q->l[0].grid;
    j->block = q->l[0].block;
    j->dyn_smem = q->l[0].smem;
    j->launches = q->n;
    return 1;
}

int gk_seq_reference(struct gh_job *j, const struct gl_kernel_variant *kv,
                     const struct gl_kernel_variant *ref, struct gk_seq *q)
{
    const struct gl_kseq *s = kv->k->seq;
    struct gl_result *r = j->r;
    for (int i = 0; i < s->n; i++) {
        if (!s->l[i].variant)
            continue;   /* the same kernel in the reference's run */
        struct gl_kernel_variant one = *ref;
        const void *kern = NULL;
        char name[GL_KEXPR];
        snprintf(one.expr, sizeof one.expr, "%s", gl_klaunch_kernel(ref, &s->l[i]));
        if (!gk_kernel_load(r, &one, j->p, &kern, name, sizeof name))
            return 0;
        for (int k = 0; k < q->n; k++)
            if (q->l[k].item == i) {
                q->l[k].ref_kernel = kern;
                if (!gh_check_launch(r, kern, q->l[k].grid, q->l[k].block, q->l[k].smem))
                    return 0;
            }
    }
    return 1;
}

/* Launch L of the run (its reference variant's kernel when ref). */
static cudaError_t launch_one(struct gh_job *j, const struct gk_seq_launch *L, int ref)
{
    void *ptrs[GL_KERNEL_MAX_ARGS];
    void *argv[GL_KERNEL_MAX_ARGS];
    for (int i = 0; i < L->nargs; i++) {
        if (L->buf[i] >= 0) {
            ptrs[i] = L->out[i] ? (void *)j->out[(int)L->idx[i]].dev
                                : (void *)j->in[(int)L->idx[i]].dev;
            argv[i] = &ptrs[i];
        } else {
            argv[i] = (void *)&L->val[i];
        }
    }
    return cudaLaunchKernel(ref ? L->ref_kernel : L->kernel, L->grid, L->block, argv, L->smem, 0);
}

cudaError_t gk_seq_enqueue(struct gh_job *j, const struct gk_seq *q, int ref)
{
    for (int k = 0; k < q->n; k++) {
        cudaError_t e = launch_one(j, &q->l[k], ref);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t gk_seq_enqueue_one(struct gh_job *j, const struct gk_seq *q, int k)
{
    if (k < 0 || k >= q->n)
        return cudaErrorInvalidValue;
    return launch_one(j, &q->l[k], 0);
}

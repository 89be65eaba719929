/* host_gpu.cu - gl_host.gpu_execute: one run of a user's plugin's GPU variant
 * (struct gl_host_job, plugin.h) through the harness, as a built-in family's or
 * a kernel section's run goes (gh_begin, gh_execute: buffers for every mem
 * kind, timed copies, verification run, warm-up and samples with the cold L2,
 * resources, occupancy and guidance of the job's kernel, the profiled replay,
 * parking for batch profiling), its typed buffers described to
 * harness_typed.cu (struct gh_typed: made, reset and checked on the device),
 * the plugin's float64 reference called on host copies of the inputs; its
 * enqueue hands the plugin the device pointers in the job's buffer order.
 * Must not launch a kernel of its own, time or profile anything itself, or
 * decide which variants exist (the plugin does). */
#include "gpu_harness.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "host_buffers.h"
}

/* The harness's ctx for one job: plain values (copied when the run is parked),
 * the plugin's own ctx inside by value. */
struct hg_ctx {
    int (*enqueue)(void *ctx, void *const *bufs, char *err, size_t errlen);
    int (*reference)(void *ctx, const void *const *in, double *const *expected);
    int nbuf;
    signed char out[GL_HOST_MAX_BUFFERS];   /* buffer b is j->out[idx[b]], else j->in[idx[b]] */
    signed char idx[GL_HOST_MAX_BUFFERS];
    union {
        unsigned char bytes[GL_HOST_CTX_MAX];
        double align_d;     /* as a parked run's copy is aligned */
        void *align_p;
    } user;
};

static_assert(sizeof(struct hg_ctx) <= GH_CTX_MAX, "a parked run's ctx must hold hg_ctx");

static cudaError_t hg_enqueue(struct gh_job *j)
{
    struct hg_ctx *x = (struct hg_ctx *)j->ctx;
    void *dev[GL_HOST_MAX_BUFFERS];
    for (int b = 0; b < x->nbuf; b++)
        dev[b] = x->out[b] ? (void *)j->out[(int)x->idx[b]].dev : (void *)j->in[(int)x->idx[b]].dev;
    j->lib_err[0] = '\0';
    if (x->enqueue(x->user.bytes, dev, j->lib_err, sizeof j->lib_err) == 0)
        return cudaSuccess;
    if (!j->lib_err[0])
        snprintf(j->lib_err, sizeof j->lib_err, "the plugin's enqueue failed");
    return cudaErrorUnknown;
}

/* The plugin's reference on the host copies of the inputs and of the outputs'
 * initial contents (NULL for an output without init); its expected outputs,
 * which the plugin indexes by buffer, to the device. */
static int hg_reference(struct gh_job *j)
{
    struct hg_ctx *x = (struct hg_ctx *)j->ctx;   /* the live run's own */
    const struct gh_typed *T = j->typed;
    struct gh_host_view v;
    double *want[GL_HOST_MAX_BUFFERS] = {};
    int ok = gh_typed_host_view(j, &v);
    for (int b = 0; b < T->n; b++)
        if (T->b[b].out)
            want[b] = v.want[T->b[b].idx];
    if (ok && x->reference(x->user.bytes, v.in, want) != 0)
        ok = gh_fail(j->r, "the plugin's reference failed");
    return gh_typed_host_done(j, &v, ok);
}

/* The harness's job from the plugin's. 1, or 0 with r skipped or failed. */
static int prepare(const struct gl_host_job *hj, struct gh_job *j, struct hg_ctx *x,
                   struct gh_typed *T)
{
    const struct gl_params *p = hj->p;
    char buf[GL_REASON_MAX];
    const char *why = gl_hb_validate(hj, buf, sizeof buf);
    if (why)
        return gh_fail(j->r, "%s", why);
    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_skip(j->r, "unknown mem '%s' or cache '%s'", p->mem, p->cache);
    x->enqueue = hj->enqueue;
    x->reference = hj->reference;
    x->nbuf = hj->nbuffers;
    if (hj->ctx_size)
        memcpy(x->user.bytes, hj->ctx, hj->ctx_size);
    T->n = hj->nbuffers;
    for (int b = 0; b < hj->nbuffers; b++) {
        const struct gl_host_buffer *hb = &hj->buffers[b];
        struct gh_tbuf *tb = &T->b[b];
        tb->name = hb->name && hb->name[0] ? hb->name : "?";
        tb->type = hb->type;
        tb->init = gl_hb_init(hb);
        tb->value = tb->init == GL_KI_RANDOM ? 0.0 : hb->value;   /* random: in [0, 1) */
        tb->value2 = 1.0;
        tb->stream = gl_hb_stream(hj, b);
        tb->count = hb->count;
        tb->out = hb->output != 0;
    }
    if (!gh_typed_layout(j, T))
        return 0;
    for (int b = 0; b < hj->nbuffers; b++) {
        x->out[b] = (signed char)T->b[b].out;
        x->idx[b] = (signed char)T->b[b].idx;
    }
    T->tol = hj->tolerance > 0 ? hj->tolerance : 0.0;   /* 0: each output type's default */
    T->ref_name = "the reference";
    if (hj->reference) {
        T->reference = hg_reference;
        T->host_inputs = 1;
    }
    j->enqueue = hg_enqueue;
    j->launches = hj->launches > 0 ? hj->launches : 1;
    j->tol_len = 1;
    j->kernel = hj->kernel;
    j->grid = dim3(hj->grid[0] ? hj->grid[0] : 1, hj->grid[1] ? hj->grid[1] : 1,
                   hj->grid[2] ? hj->grid[2] : 1);
    j->block = dim3(hj->block[0] ? hj->block[0] : 1, hj->block[1] ? hj->block[1] : 1,
                    hj->block[2] ? hj->block[2] : 1);
    j->dyn_smem = hj->smem;
    j->ctx = x;
    j->ctx_size = sizeof *x;
    return !j->kernel || gh_check_launch(j->r, j->kernel, j->grid, j->block, j->dyn_smem);
}

int gh_host_execute(const struct gl_host_job *hj)
{
    struct hg_ctx x;
    struct gh_typed T;
    struct gh_job j = {};
    if (!hj || !hj->r)
        return 0;
    int go = gh_begin(hj->v, hj->p, hj->t, hj->r);
    if (go <= 0)
        return go;
    memset(&x, 0, sizeof x);
    memset(&T, 0, sizeof T);
    j.p = hj->p;
    j.t = hj->t;
    j.r = hj->r;
    struct gl_result *r = hj->r;
    double t0 = gh_now_s();
    int ok = prepare(hj, &j, &x, &T);
    r->step_ms[GL_ST_PREPARE] += (gh_now_s() - t0) * 1e3;
    int rc = ok ? gh_execute(&j) : gh_context_lost() ? -1 : 0;
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return rc;
}

/* host_gpu.cu - gl_host.gpu_execute: one run of a user's plugin's GPU variant
 * (struct gl_host_job, plugin.h) through the harness, as a built-in family's or
 * a kernel section's run goes (gh_begin, gh_execute: buffers for every mem
 * kind, timed copies, verification run, warm-up and samples with the cold L2,
 * resources, occupancy and guidance of the job's kernel, the profiled replay,
 * parking for batch profiling). Its hooks (struct gh_hooks) do what differs:
 * typed buffers with init kinds, outputs reset to their init before every run,
 * the plugin's float64 reference on the host and the element-by-element check;
 * its enqueue hands the plugin the device pointers in the job's buffer order.
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
 * the plugin's own ctx inside by value. job and want belong to the live run
 * only (the hooks that use them run before gh_execute returns). */
struct hg_ctx {
    int (*enqueue)(void *ctx, void *const *bufs, char *err, size_t errlen);
    int nbuf;
    signed char is_out[GL_HOST_MAX_BUFFERS];
    signed char idx[GL_HOST_MAX_BUFFERS];   /* index in j->in or j->out */
    signed char img[GL_HOST_MAX_BUFFERS];   /* an output's initial contents in j->in, or -1 */
    const struct gl_host_job *job;          /* live run only */
    double *want[GL_HOST_MAX_BUFFERS];      /* live run only: the expected outputs */
    union {
        unsigned char bytes[GL_HOST_CTX_MAX];
        double align_d;     /* as a parked run's copy is aligned */
        void *align_p;
    } user;
};

static_assert(sizeof(struct hg_ctx) <= GH_CTX_MAX, "a parked run's ctx must hold hg_ctx");

static void *buf_ptr(const struct gh_job *j, const struct hg_ctx *x, int b, int host)
{
    const struct gh_buf *g = x->is_out[b] ? &j->out[(int)x->idx[b]] : &j->in[(int)x->idx[b]];
    return host ? (void *)g->host : (void *)g->dev;
}

static cudaError_t hg_enqueue(struct gh_job *j)
{
    struct hg_ctx *x = (struct hg_ctx *)j->ctx;
    void *dev[GL_HOST_MAX_BUFFERS];
    for (int b = 0; b < x->nbuf; b++)
        dev[b] = buf_ptr(j, x, b, 0);
    j->lib_err[0] = '\0';
    if (x->enqueue(x->user.bytes, dev, j->lib_err, sizeof j->lib_err) == 0)
        return cudaSuccess;
    if (!j->lib_err[0])
        snprintf(j->lib_err, sizeof j->lib_err, "the plugin's enqueue failed");
    return cudaErrorUnknown;
}

static int hg_fill(struct gh_job *j, unsigned long long seed)
{
    const struct hg_ctx *x = (const struct hg_ctx *)j->ctx;
    const struct gl_host_job *hj = x->job;
    for (int b = 0; b < x->nbuf; b++) {
        const struct gl_host_buffer *hb = &hj->buffers[b];
        void *host = !x->is_out[b] ? buf_ptr(j, x, b, 1)
                     : x->img[b] >= 0 ? (void *)j->in[(int)x->img[b]].host : NULL;
        if (host && gl_hb_fill(host, hb->type, hb->count, gl_hb_init(hb), hb->value, seed,
                               gl_hb_stream(hj, b)) != 0)
            return gh_fail(j->r, "out of host memory filling buffer '%s'",
                           hb->name ? hb->name : "?");
    }
    return 1;
}

/* Enqueue the outputs' initial state: a copy of the image, or (poison = 1)
 * all bits set (NaN for floats) for outputs without an init. */
static cudaError_t init_outputs(struct gh_job *j, int poison)
{
    const struct hg_ctx *x = (const struct hg_ctx *)j->ctx;
    for (int b = 0; b < x->nbuf; b++) {
        if (!x->is_out[b])
            continue;
        const struct gh_buf *o = &j->out[(int)x->idx[b]];
        cudaError_t e = cudaSuccess;
        if (x->img[b] >= 0)
            e = cudaMemcpyAsync(o->dev, j->in[(int)x->img[b]].dev, gh_buf_bytes(o),
                                cudaMemcpyDefault, 0);
        else if (poison)
            e = cudaMemsetAsync(o->dev, 0xff, gh_buf_bytes(o), 0);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

static cudaError_t hg_reset(struct gh_job *j)
{
    return init_outputs(j, 0);
}

static int hg_prepare(struct gh_job *j)
{
    return gh_ok(j->r, init_outputs(j, 1), "output poison/init") &&
           gh_ok(j->r, cudaDeviceSynchronize(), "output poison/init");
}

/* The plugin's reference on the host copies of the inputs. */
static int hg_reference(struct gh_job *j)
{
    struct hg_ctx *x = (struct hg_ctx *)j->ctx;   /* the live run's own */
    const struct gl_host_job *hj = x->job;
    const void *in[GL_HOST_MAX_BUFFERS] = {};
    if (!hj->reference)
        return 1;
    for (int b = 0; b < x->nbuf; b++) {
        const struct gl_host_buffer *hb = &hj->buffers[b];
        if (!x->is_out[b]) {
            in[b] = buf_ptr(j, x, b, 1);
            continue;
        }
        in[b] = x->img[b] >= 0 ? (const void *)j->in[(int)x->img[b]].host : NULL;
        x->want[b] = (double *)malloc(hb->count * sizeof(double));
        if (!x->want[b])
            return gh_fail(j->r, "out of host memory for the expected '%s'",
                           hb->name ? hb->name : "?");
    }
    if (hj->reference(x->user.bytes, in, x->want) != 0)
        return gh_fail(j->r, "the plugin's reference failed");
    return 1;
}

static int hg_check(struct gh_job *j)
{
    const struct hg_ctx *x = (const struct hg_ctx *)j->ctx;
    const struct gl_host_job *hj = x->job;
    double tol = hj->tolerance > 0 ? hj->tolerance : 1e-5;
    for (int b = 0; b < x->nbuf; b++)
        if (x->is_out[b])
            gl_hb_check(j->r, &hj->buffers[b], buf_ptr(j, x, b, 1), x->want[b], tol);
    return 1;
}

static const struct gh_hooks hooks_reset = { hg_fill, hg_reference, hg_prepare, hg_check,
                                             hg_reset };
static const struct gh_hooks hooks_plain = { hg_fill, hg_reference, hg_prepare, hg_check, NULL };

/* The harness's job from the plugin's. 1, or 0 with r skipped or failed. */
static int prepare(const struct gl_host_job *hj, struct gh_job *j, struct hg_ctx *x)
{
    const struct gl_params *p = hj->p;
    char buf[GL_REASON_MAX];
    int nin = 0, nout = 0, nimg = 0;
    const char *why = gl_hb_validate(hj, buf, sizeof buf);
    if (why)
        return gh_fail(j->r, "%s", why);
    if (gh_parse_mem(p->mem, &j->mem) != 0 || gh_parse_cold(p->cache, &j->cold) != 0)
        return gh_skip(j->r, "unknown mem '%s' or cache '%s'", p->mem, p->cache);
    x->enqueue = hj->enqueue;
    x->nbuf = hj->nbuffers;
    x->job = hj;
    if (hj->ctx_size)
        memcpy(x->user.bytes, hj->ctx, hj->ctx_size);
    for (int b = 0; b < hj->nbuffers; b++) {
        const struct gl_host_buffer *hb = &hj->buffers[b];
        x->is_out[b] = (signed char)(hb->output != 0);
        x->img[b] = -1;
        if (hb->output) {
            x->idx[b] = (signed char)nout;
            j->out_count[nout] = hb->count;
            j->out_esize[nout] = gl_hb_esize(hb->type);
            nout++;
        } else {
            x->idx[b] = (signed char)nin;
            j->in_count[nin] = hb->count;
            j->in_esize[nin] = gl_hb_esize(hb->type);
            nin++;
        }
    }
    if (nout > GH_MAX_OUT)
        return gh_fail(j->r, "plugin job: %d outputs (at most %d)", nout, GH_MAX_OUT);
    /* the initial contents of outputs with an init: inputs the plugin never
     * sees, after the real ones, copied to the device untimed */
    for (int b = 0; b < hj->nbuffers; b++) {
        const struct gl_host_buffer *hb = &hj->buffers[b];
        if (!hb->output || hb->init == GL_KI_POISON)
            continue;
        if (nin + nimg >= GH_MAX_IN)
            return gh_fail(j->r, "plugin job: too many buffers (at most %d inputs)", GH_MAX_IN);
        int i = nin + nimg++;
        x->img[b] = (signed char)i;
        j->in_count[i] = hb->count;
        j->in_esize[i] = gl_hb_esize(hb->type);
    }
    j->nin = nin + nimg;
    j->naux = nimg;
    j->nout = nout;
    j->hooks = nimg ? &hooks_reset : &hooks_plain;
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
    struct gh_job j = {};
    if (!hj || !hj->r)
        return 0;
    int go = gh_begin(hj->v, hj->p, hj->t, hj->r);
    if (go <= 0)
        return go;
    memset(&x, 0, sizeof x);
    j.p = hj->p;
    j.t = hj->t;
    j.r = hj->r;
    int rc = prepare(hj, &j, &x) ? gh_execute(&j) : gh_context_lost() ? -1 : 0;
    for (int b = 0; b < GL_HOST_MAX_BUFFERS; b++)
        free(x.want[b]);
    struct gl_result *r = hj->r;
    if (r->status != GL_OK && r->nmetrics == 0 && r->metrics_reason[0] == '\0')
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
    return rc;
}

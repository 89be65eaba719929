/* cpu_host.c - gl_host.cpu_execute: one run of a user's plugin's CPU variant
 * (struct gl_host_job, plugin.h) as cpu_harness.c runs a built-in baseline:
 * result, check, threads, buffers of any element type with their inits, the
 * float64 reference, warm-up and samples timed with CLOCK_MONOTONIC until
 * gl_sampling_done, and the verification of the last run's outputs.
 * Must not contain a kernel nor know which variants exist. */
#include "cpu_harness.h"

#include <errno.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_buffers.h"
#include "stats.h"

/* The buffers of one run: each buffer's memory, the image an output with an
 * init is reset from, and the expected outputs. */
struct run {
    void *buf[GL_HOST_MAX_BUFFERS];
    void *img[GL_HOST_MAX_BUFFERS];
    double *want[GL_HOST_MAX_BUFFERS];
};

static int status(struct gl_result *r, int st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int status(struct gl_result *r, int st, const char *fmt, ...)
{
    va_list ap;
    r->status = st;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    return 0;
}

static void run_free(struct run *x)
{
    for (int i = 0; i < GL_HOST_MAX_BUFFERS; i++) {
        free(x->buf[i]);
        free(x->img[i]);
        free(x->want[i]);
    }
}

/* Allocate and fill every buffer and image. 0, or -1 with r failed. */
static int setup(const struct gl_host_job *j, struct run *x, unsigned long long seed)
{
    for (int i = 0; i < j->nbuffers; i++) {
        const struct gl_host_buffer *b = &j->buffers[i];
        size_t bytes = b->count * gl_ty_esize(b->type);
        enum gl_kinit init = gl_hb_init(b);
        unsigned long long stream = gl_hb_stream(j, i);
        x->buf[i] = malloc(bytes);
        if (!x->buf[i])
            return status(j->r, GL_FAILED, "out of memory for buffer '%s' (%zu bytes)",
                          b->name ? b->name : "?", bytes) - 1;
        if (!b->output) {
            if (gl_hb_fill(x->buf[i], b->type, b->count, init, b->value, seed, stream) != 0)
                return status(j->r, GL_FAILED, "out of memory filling '%s'",
                              b->name ? b->name : "?") - 1;
            continue;
        }
        if (init == GL_KI_POISON)
            continue;
        x->img[i] = malloc(bytes);
        if (!x->img[i] ||
            gl_hb_fill(x->img[i], b->type, b->count, init, b->value, seed, stream) != 0)
            return status(j->r, GL_FAILED, "out of memory for the initial contents of '%s'",
                          b->name ? b->name : "?") - 1;
    }
    return 0;
}

/* The expected outputs, when the job has a reference. 0, or -1 with r failed. */
static int reference(const struct gl_host_job *j, struct run *x, void *ctx)
{
    const void *in[GL_HOST_MAX_BUFFERS] = { 0 };
    if (!j->reference)
        return 0;
    for (int i = 0; i < j->nbuffers; i++) {
        const struct gl_host_buffer *b = &j->buffers[i];
        in[i] = b->output ? x->img[i] : x->buf[i];
        if (b->output && !(x->want[i] = malloc(b->count * sizeof(double))))
            return status(j->r, GL_FAILED, "out of memory for the expected '%s'",
                          b->name ? b->name : "?") - 1;
    }
    if (j->reference(ctx, in, x->want) != 0)
        return status(j->r, GL_FAILED, "the plugin's reference failed") - 1;
    return 0;
}

/* Outputs back to their initial state: the image, or poison. */
static void reset(const struct gl_host_job *j, struct run *x)
{
    for (int i = 0; i < j->nbuffers; i++) {
        const struct gl_host_buffer *b = &j->buffers[i];
        if (!b->output)
            continue;
        if (x->img[i])
            memcpy(x->buf[i], x->img[i], b->count * gl_ty_esize(b->type));
        else
            memset(x->buf[i], 0xff, b->count * gl_ty_esize(b->type));
    }
}

/* One run; 0, or -1 with r failed (the plugin's reason). */
static int once(const struct gl_host_job *j, struct run *x, void *ctx, int threads)
{
    char err[GL_REASON_MAX - 32] = "";
    omp_set_num_threads(threads);
    if (j->enqueue(ctx, x->buf, err, sizeof err) == 0)
        return 0;
    return status(j->r, GL_FAILED, "run: %s", err[0] ? err : "the plugin's run failed") - 1;
}

/* What the timing loop runs: reset the outputs, then one run. */
struct step_arg {
    const struct gl_host_job *j;
    struct run *x;
    void *ctx;
    int threads;
};

static void step_reset(void *arg)
{
    struct step_arg *a = arg;
    reset(a->j, a->x);
}

static int step_once(void *arg)
{
    struct step_arg *a = arg;
    return once(a->j, a->x, a->ctx, a->threads);
}

/* The first run, warm-up and samples as gl_cpu_time does. 0, or -1 with r failed. */
static int timed(const struct gl_host_job *j, struct run *x, void *ctx, int threads)
{
    struct step_arg a = { j, x, ctx, threads };
    const struct gl_cpu_step step = { step_reset, step_once, &a };
    return gl_cpu_timing_loop(j->t, j->r, &step);
}

int gl_cpu_host_execute(const struct gl_host_job *j)
{
    struct gl_result *r = j ? j->r : NULL;
    char buf[GL_REASON_MAX];
    union {
        unsigned char bytes[GL_HOST_CTX_MAX];
        double align_d;
        void *align_p;
    } ctx;
    struct run x;
    if (!r)
        return 0;
    gl_cpu_result_init(r);
    if (!j->v || !j->p || !j->t)
        return status(r, GL_FAILED, "plugin job without variant, parameters or timing");
    const char *why = gl_hb_validate(j, buf, sizeof buf);
    if (why)
        return status(r, GL_FAILED, "%s", why);
    why = j->v->check ? j->v->check(j->v, j->p, NULL, buf, sizeof buf) : NULL;
    if (why)
        return status(r, GL_SKIPPED, "%s", why);
    long threads = j->p->threads > 0 ? j->p->threads : omp_get_num_procs();
    if (threads > GL_CPU_MAX_THREADS)
        return status(r, GL_SKIPPED, "threads must be 0 (all) to %d (threads=%ld)",
                      GL_CPU_MAX_THREADS, threads);
    /* the plugin's ctx, by value, as on the GPU */
    memset(&ctx, 0, sizeof ctx);
    if (j->ctx_size)
        memcpy(ctx.bytes, j->ctx, j->ctx_size);
    memset(&x, 0, sizeof x);
    unsigned long long seed = j->p->seed == GL_UNSET ? 42ull : (unsigned long long)j->p->seed;
    if (setup(j, &x, seed) == 0 && reference(j, &x, ctx.bytes) == 0 &&
        timed(j, &x, ctx.bytes, (int)threads) == 0) {
        for (int i = 0; i < j->nbuffers; i++)   /* tolerance 0: each type's default */
            if (j->buffers[i].output)
                gl_hb_check(r, &j->buffers[i], x.buf[i], x.want[i], j->tolerance);
    }
    run_free(&x);
    return 0;
}

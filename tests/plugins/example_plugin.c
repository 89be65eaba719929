/* example_plugin.c - a user's plugin written against src/core/plugin.h only,
 * as docs/plugins.md shows it: family saxpy, variant saxpy_cpu, z = a*x + y on the
 * host CPU with OpenMP, run through gpulab's CPU harness (gl_host.cpu_execute):
 * gpulab allocates x, y (random from the seed) and z (poisoned), times the
 * run, and checks z against the float64 reference below.
 * Build: cc -shared -fPIC -fopenmp -I src/core -o example_plugin.so example_plugin.c
 * Use:   gpulab run saxpy.conf --plugin ./example_plugin.so
 * Must not use anything of gpulab but plugin.h. */
#include <stdio.h>

#include "plugin.h"

static const struct gl_host *host;   /* gpulab's functions, from gpulab_plugin() */

/* What the run needs, by value: the harness keeps a copy of it. */
struct saxpy_ctx {
    long n;
    float a;
};

enum { X, Y, Z };   /* the buffers, in the job's order */

static int saxpy_cpu(void *ctx, void *const *bufs, char *err, size_t errlen)
{
    const struct saxpy_ctx *c = ctx;
    const float *x = bufs[X], *y = bufs[Y];
    float *z = bufs[Z];
    (void)err;
    (void)errlen;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < c->n; i++)
        z[i] = c->a * x[i] + y[i];
    return 0;
}

/* z in double, from the inputs the harness filled. */
static int saxpy_reference(void *ctx, const void *const *in, double *const *expected)
{
    const struct saxpy_ctx *c = ctx;
    const float *x = in[X], *y = in[Y];
    for (long i = 0; i < c->n; i++)
        expected[Z][i] = (double)c->a * x[i] + y[i];
    return 0;
}

static const char *saxpy_check(const struct gl_variant *v, const struct gl_params *p,
                               const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (p->n < 1 || p->n > (1L << 31)) {
        snprintf(buf, len, "N must be 1 to 2^31 (N=%ld)", p->n);
        return buf;
    }
    return NULL;
}

static double saxpy_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 2.0 * (double)p->n;
}

static double saxpy_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 12.0 * (double)p->n;
}

static int saxpy_run(const struct gl_variant *v, const struct gl_params *p,
                     const struct gl_timing *t, struct gl_result *r)
{
    struct saxpy_ctx c = { p->n, 2.0f };
    size_t n = p->n > 0 ? (size_t)p->n : 1;
    const struct gl_host_buffer bufs[] = {
        { "x", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "y", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "z", GL_KT_FLOAT, n, GL_KI_POISON, 0.0, 1 },
    };
    struct gl_host_job job = { 0 };
    job.v = v;
    job.p = p;
    job.t = t;
    job.r = r;
    job.nbuffers = 3;
    job.buffers = bufs;
    job.enqueue = saxpy_cpu;
    job.reference = saxpy_reference;
    job.tolerance = 1e-6;
    job.ctx = &c;
    job.ctx_size = sizeof c;
    return host->cpu_execute(&job);
}

static const struct gl_variant variants[] = {
    { "saxpy", "saxpy_cpu", "cpu", "z = a*x + y, OpenMP (example plugin)",
      GL_PBIT(GL_P_N) | GL_PBIT(GL_P_THREADS) | GL_PBIT(GL_P_SEED), saxpy_check, saxpy_flops,
      saxpy_bytes, saxpy_run, NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "example", 1, variants, NULL, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    if (!h || h->api < 1 || !h->cpu_execute)
        return NULL;   /* gpulab says: returned no plugin */
    host = h;
    return &plugin;
}

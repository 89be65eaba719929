/* checks_plugin.c - CPU variants of family plugtest that exercise the host
 * harness's verdicts through gl_host.cpu_execute (tests/integration/plugins.sh):
 * unwritten (no reference: the last element is left poisoned -> wrong), off
 * (1 % off the reference -> wrong), fails (the run reports an error -> failed
 * with its reason), counts (an int64 output reset to a ramp before every run
 * and incremented: exact integer check -> ok), right (two outputs, one float
 * and one double -> ok). Must use nothing of gpulab but plugin.h. */
#include <stdio.h>
#include <stdint.h>

#include "plugin.h"

static const struct gl_host *host;

struct ctx {
    long n;
    int mode;
};

enum { UNWRITTEN, OFF, FAILS, COUNTS, RIGHT };

static int work(void *vc, void *const *bufs, char *err, size_t errlen)
{
    const struct ctx *c = vc;
    const float *x = bufs[0];
    switch (c->mode) {
    case UNWRITTEN:
        for (long i = 0; i + 1 < c->n; i++)
            ((float *)bufs[1])[i] = x[i];
        return 0;
    case OFF:
        for (long i = 0; i < c->n; i++)
            ((float *)bufs[1])[i] = x[i] * 1.01f + 0.5f;
        return 0;
    case FAILS:
        snprintf(err, errlen, "no luck today");
        return -1;
    case COUNTS:
        for (long i = 0; i < c->n; i++)
            ((int64_t *)bufs[1])[i] += 1;
        return 0;
    default:
        for (long i = 0; i < c->n; i++) {
            ((float *)bufs[1])[i] = 2.0f * x[i];
            ((double *)bufs[2])[i] = (double)x[i] * x[i];
        }
        return 0;
    }
}

static int reference(void *vc, const void *const *in, double *const *expected)
{
    const struct ctx *c = vc;
    const float *x = in[0];
    for (long i = 0; i < c->n; i++) {
        if (c->mode == COUNTS) {
            expected[1][i] = (double)((const int64_t *)in[1])[i] + 1.0;
        } else if (c->mode == RIGHT) {
            expected[1][i] = 2.0 * x[i];
            expected[2][i] = (double)x[i] * x[i];
        } else {
            expected[1][i] = x[i] + 0.5;
        }
    }
    return 0;
}

static int run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
               struct gl_result *r)
{
    struct ctx c = { p->n, *(const int *)v->impl };
    size_t n = p->n > 0 ? (size_t)p->n : 1;
    struct gl_host_buffer b[3] = {
        { "x", GL_KT_FLOAT, n, GL_KI_RANDOM, 0.0, 0 },
        { "out", GL_KT_FLOAT, n, GL_KI_POISON, 0.0, 1 },
        { "sq", GL_KT_DOUBLE, n, GL_KI_POISON, 0.0, 1 },
    };
    struct gl_host_job job = { 0 };
    if (c.mode == COUNTS) {
        b[1].type = GL_KT_INT64;
        b[1].init = GL_KI_RAMP;
    }
    job.v = v;
    job.p = p;
    job.t = t;
    job.r = r;
    job.nbuffers = c.mode == RIGHT ? 3 : 2;
    job.buffers = b;
    job.enqueue = work;
    job.reference = c.mode == UNWRITTEN ? NULL : reference;
    job.ctx = &c;
    job.ctx_size = sizeof c;
    return host->cpu_execute(&job);
}

static const int modes[] = { UNWRITTEN, OFF, FAILS, COUNTS, RIGHT };

#define ROW(name, m, desc) \
    { "plugtest", name, "cpu", desc, GL_PBIT(GL_P_N) | GL_PBIT(GL_P_SEED), NULL, NULL, NULL, run, \
      &modes[m] }

static const struct gl_variant variants[] = {
    ROW("unwritten", UNWRITTEN, "leaves the last element unwritten"),
    ROW("off", OFF, "1 % off the reference"),
    ROW("fails", FAILS, "reports an error"),
    ROW("counts", COUNTS, "int64 output reset to a ramp, incremented"),
    ROW("right", RIGHT, "a float and a double output"),
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "checks", 5, variants, NULL, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    if (!h || h->api < 1 || !h->cpu_execute)
        return NULL;
    host = h;
    return &plugin;
}

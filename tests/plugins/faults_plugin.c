/* faults_plugin.c - a test-only plugin of CPU variants that misbehave on
 * purpose, for tests/integration/faults.sh, signals.sh and kills.sh (loaded
 * with --plugin; never built into gpulab): family faults,
 *   fault_ok     z = x + y, verified: the good one
 *   fault_segv   dereferences NULL in its run (SIGSEGV in the worker)
 *   fault_hang   never returns (the watchdog's timeout must end it)
 *   fault_wrong  z = x + y + 1: finishes, and the verification must say wrong
 *   fault_sleep  z = x + y after sleeping N microseconds per call: a run of a
 *                known length that uses no CPU, for the kill and signal tests
 * Must not use anything of gpulab but plugin.h. */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "plugin.h"

static const struct gl_host *host;

struct faults_ctx {
    long n;
    int mode;
};

enum { M_OK, M_SEGV, M_HANG, M_WRONG, M_SLEEP };
enum { X, Y, Z };

static int faults_cpu(void *ctx, void *const *bufs, char *err, size_t errlen)
{
    const struct faults_ctx *c = ctx;
    const float *x = bufs[X], *y = bufs[Y];
    float *z = bufs[Z];
    (void)err;
    (void)errlen;
    if (c->mode == M_SEGV) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (c->mode == M_HANG)
        for (;;)
            pause();
    if (c->mode == M_SLEEP) {
        struct timespec ts = { c->n / 1000000, (c->n % 1000000) * 1000 };
        nanosleep(&ts, NULL);
    }
    for (long i = 0; i < c->n; i++)
        z[i] = x[i] + y[i] + (c->mode == M_WRONG ? 1.0f : 0.0f);
    return 0;
}

static int faults_reference(void *ctx, const void *const *in, double *const *expected)
{
    const struct faults_ctx *c = ctx;
    const float *x = in[X], *y = in[Y];
    for (long i = 0; i < c->n; i++)
        expected[Z][i] = (double)x[i] + y[i];
    return 0;
}

static const char *faults_check(const struct gl_variant *v, const struct gl_params *p,
                                const struct gl_device *dev, char *buf, size_t len)
{
    (void)v;
    (void)dev;
    if (p->n < 1 || p->n > (1L << 24)) {
        snprintf(buf, len, "N must be 1 to 2^24 (N=%ld)", p->n);
        return buf;
    }
    return NULL;
}

static double faults_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 12.0 * (double)p->n;
}

static int faults_run(const struct gl_variant *v, const struct gl_params *p,
                      const struct gl_timing *t, struct gl_result *r)
{
    struct faults_ctx c = { p->n, M_OK };
    const char *name = v->name;
    if (name[6] == 's' && name[7] == 'e')
        c.mode = M_SEGV;
    else if (name[6] == 'h')
        c.mode = M_HANG;
    else if (name[6] == 'w')
        c.mode = M_WRONG;
    else if (name[6] == 's')
        c.mode = M_SLEEP;
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
    job.enqueue = faults_cpu;
    job.reference = faults_reference;
    job.tolerance = 1e-6;
    job.ctx = &c;
    job.ctx_size = sizeof c;
    return host->cpu_execute(&job);
}

#define PB (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_SEED))
static const struct gl_variant variants[] = {
    { "faults", "fault_ok", "cpu", "z = x + y (the good one)", PB, faults_check, NULL,
      faults_bytes, faults_run, NULL },
    { "faults", "fault_segv", "cpu", "SIGSEGV in the run", PB, faults_check, NULL, faults_bytes,
      faults_run, NULL },
    { "faults", "fault_hang", "cpu", "never returns", PB, faults_check, NULL, faults_bytes,
      faults_run, NULL },
    { "faults", "fault_wrong", "cpu", "z = x + y + 1 (wrong)", PB, faults_check, NULL,
      faults_bytes, faults_run, NULL },
    { "faults", "fault_sleep", "cpu", "sleeps N us, then z = x + y", PB, faults_check, NULL,
      faults_bytes, faults_run, NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "faults", 5, variants, NULL, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *h)
{
    if (!h || h->api < 1 || !h->cpu_execute)
        return NULL;
    host = h;
    return &plugin;
}

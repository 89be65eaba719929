/* fake_gpu.c - a test-only stand-in for the GPU plugin, loaded in its place with
 * GPULAB_PLUGIN=build/tests/plugins/fake_gpu.so (never built into gpulab), for
 * what the driver does around a GPU that no machine without one can show: the
 * clock lock of `run --clocks base` (with tests/fakes/fake_nvml.c), its reset
 * after a crashed worker and on SIGINT/SIGTERM, and the memory ceilings stored
 * NULL with their reason. Its device is a made-up GPU (UUID GPU-fa4e...); its
 * variants (family fakegpu, device gpu):
 *   fake_ok     a result with `samples` samples of 1 ms, verified
 *   fake_crash  SIGSEGV in the worker
 *   fake_sleep  ok after sleeping N microseconds (a run of known length)
 * It has no counters (a request for metrics is refused), measures no copy
 * bandwidth (0) and no ceilings (1 with the reason "a fake GPU measures
 * nothing"). Must not use anything of gpulab but plugin.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "plugin.h"

#define FAKE_UUID "GPU-fa4e0000-0000-0000-0000-000000000001"

static int fake_run(const struct gl_variant *v, const struct gl_params *p,
                    const struct gl_timing *t, struct gl_result *r)
{
    memset(r, 0, sizeof *r);
    r->h2d_ms = r->d2h_ms = -1.0;
    if (strcmp(v->name, "fake_crash") == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (strcmp(v->name, "fake_sleep") == 0) {
        struct timespec ts = { p->n / 1000000, (p->n % 1000000) * 1000 };
        nanosleep(&ts, NULL);
    }
    r->status = GL_OK;
    r->max_rel_err = 0.0;
    r->nsamples = t->min_samples > 0 ? t->min_samples : 1;
    if (r->nsamples > GL_MAX_SAMPLES)
        r->nsamples = GL_MAX_SAMPLES;
    for (int i = 0; i < r->nsamples; i++)
        r->samples_ms[i] = 1.0;
    r->launches = 1;
    snprintf(r->metrics_reason, sizeof r->metrics_reason, "a fake GPU has no counters");
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_WRITTEN);
    return 0;
}

static double fake_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return (double)p->n;
}

static double fake_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 4.0 * (double)p->n;
}

static const struct gl_variant variants[] = {
    { "fakegpu", "fake_ok", "gpu", "a verified result, no work", GL_PBIT(GL_P_N), NULL,
      fake_flops, fake_bytes, fake_run, NULL },
    { "fakegpu", "fake_crash", "gpu", "SIGSEGV in the worker", GL_PBIT(GL_P_N), NULL,
      fake_flops, fake_bytes, fake_run, NULL },
    { "fakegpu", "fake_sleep", "gpu", "ok after N microseconds", GL_PBIT(GL_P_N), NULL,
      fake_flops, fake_bytes, fake_run, NULL },
};

static int fake_init(int ordinal, struct gl_device *dev, char *err, size_t errlen)
{
    memset(dev, 0, sizeof *dev);
    if (ordinal != 0) {
        snprintf(err, errlen, "no fake GPU %d", ordinal);
        return -1;
    }
    snprintf(dev->kind, sizeof dev->kind, "gpu");
    snprintf(dev->name, sizeof dev->name, "Fake GPU");
    snprintf(dev->ident, sizeof dev->ident, "%s", FAKE_UUID);
    dev->cc_major = 9;
    dev->sm_count = 4;
    dev->cores_per_sm = 128;
    dev->clock_khz = 1755000;
    dev->l2_bytes = 1 << 20;
    dev->warp_size = 32;
    dev->max_threads_per_block = 1024;
    dev->fp32_peak_gflops = 4.0 * 128 * 2 * 1.755;
    return 0;
}

static int fake_profiler_setup(const struct gl_metric_req *req, char *err, size_t errlen)
{
    if (req->n == 0 && !req->drain)
        return 0;
    snprintf(err, errlen, "a fake GPU has no counters");
    return -1;
}

static void fake_batch_begin(void)
{
}

static int fake_batch_end(void)
{
    return 0;
}

static int fake_list_metrics(void (*cb)(const char *name, void *ctx), void *ctx, char *err,
                             size_t errlen)
{
    (void)cb;
    (void)ctx;
    snprintf(err, errlen, "a fake GPU has no counters");
    return -1;
}

static void fake_shutdown(void)
{
}

static double fake_copy_bandwidth(void)
{
    return 0.0;
}

static int fake_ceilings(struct gl_ceilings *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->why, sizeof c->why, "a fake GPU measures nothing");
    return 1;
}

/* named fields: a positional list would put a function in another's place when
 * plugin.h adds one */
static const struct gl_device_ops ops = {
    .init = fake_init,
    .profiler_setup = fake_profiler_setup,
    .batch_begin = fake_batch_begin,
    .batch_end = fake_batch_end,
    .list_metrics = fake_list_metrics,
    .shutdown = fake_shutdown,
    .copy_bandwidth = fake_copy_bandwidth,
    .ceilings = fake_ceilings,
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "gpu", 3, variants, &ops, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *host)
{
    (void)host;
    return &plugin;
}

/* harness_energy.cu - a GPU run's energy (src/core/energy.h): after its timed
 * samples are checked, the run's launches back to back (no flush between them:
 * a flush reads 100 MB and would cost more energy than a small kernel), over a
 * window of at least k steps of NVML's total-energy counter, started and ended
 * on a step. The counter's period is measured once per process, on the idle
 * GPU. Not measured (energy_reason says why): no NVML or no counter on this
 * GPU, GPULAB_ENERGY=off, or a window longer than GPULAB_ENERGY_MAX_S (a run
 * whose one launch is long). GPULAB_ENERGY_TRACE=1 prints each window's numbers
 * on stderr (bench/energy reads them).
 * Must not time samples, check outputs, or change what was measured before it. */
#include "harness_int.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" {
#include "energy.h"
#include "stats.h"
}

static struct {
    int tried, ok;
    void *dev;                   /* the NVML device */
    double period_s;
    struct gl_energy_policy pol;
    char why[GL_REASON_MAX];
} ge;

struct window_ctx {
    struct gh_job *j;
    int failed;
};

static int read_counter(void *ctx, unsigned long long *mj, char *why, size_t len)
{
    (void)ctx;
    return gl_nvml_energy_read(ge.dev, mj, why, len);
}

static int launch_n(void *ctx, long n)
{
    struct window_ctx *w = (struct window_ctx *)ctx;
    struct gh_job *j = w->j;
    for (long i = 0; i < n; i++) {
        j->lib_err[0] = '\0';
        cudaError_t e = j->enqueue(j);
        if (e != cudaSuccess && j->lib_err[0]) {
            (void)cudaGetLastError();
            gh_fail(j->r, "launch (energy window): %s", j->lib_err);
            w->failed = 1;
            return -1;
        }
        if (!gh_ok(j->r, e, "launch (energy window)")) {
            w->failed = 1;
            return -1;
        }
    }
    if (!gh_ok(j->r, cudaDeviceSynchronize(), "kernel (energy window)")) {
        w->failed = 1;
        return -1;
    }
    return 0;
}

static double now_s(void *ctx)
{
    (void)ctx;
    return gh_now_s();
}

static void pause_short(void *ctx)
{
    (void)ctx;
    struct timespec ts = { 0, 200000 };   /* 0.2 ms */
    nanosleep(&ts, NULL);
}

/* NVML, the policy and the counter's period, once per process. */
static void energy_ready(void)
{
    if (ge.tried)
        return;
    ge.tried = 1;
    char why[GL_REASON_MAX - 40];
    if (gl_energy_policy_env(&ge.pol, why, sizeof why) != 0) {
        snprintf(ge.why, sizeof ge.why, "%s", why);
        return;
    }
    if (ge.pol.off) {
        snprintf(ge.why, sizeof ge.why, "%s", why);
        return;
    }
    if (gl_nvml_energy_open(gh_st.dev.ident, &ge.dev, why, sizeof why) != 0) {
        snprintf(ge.why, sizeof ge.why, "no energy counter: %s", why);
        return;
    }
    struct gl_energy_io io = { NULL, read_counter, NULL, now_s, pause_short };
    if (gl_energy_period(&io, 2.0, &ge.period_s, why, sizeof why) != 0) {
        snprintf(ge.why, sizeof ge.why, "%s", why);
        return;
    }
    ge.ok = 1;
    if (getenv("GPULAB_ENERGY_TRACE"))
        fprintf(stderr, "gpulab: energy: counter period %.2f ms (k = %d, at most %.2f s a run)\n",
                ge.period_s * 1e3, ge.pol.k, ge.pol.max_window_s);
}

int gh_energy_window(struct gh_job *j)
{
    struct gl_result *r = j->r;
    energy_ready();
    if (!ge.ok) {
        snprintf(r->energy_reason, sizeof r->energy_reason, "%s", ge.why);
        return 1;
    }
    struct gl_summary s;
    gl_summarize(r->samples_ms, r->nsamples, &s);
    if (!(s.median > 0)) {
        snprintf(r->energy_reason, sizeof r->energy_reason, "not measured: no timed sample");
        return 1;
    }
    struct window_ctx w = { j, 0 };
    struct gl_energy_io io = { &w, read_counter, launch_n, now_s, pause_short };
    struct gl_energy e;
    char why[GL_REASON_MAX];
    double t0 = gh_now_s();
    int rc = gl_energy_measure(&io, ge.period_s, s.median * 1e-3, &ge.pol, &e, why, sizeof why);
    double spent = gh_now_s() - t0;
    r->phase_ms[GL_PH_SAMPLES] += spent * 1e3;
    if (w.failed || rc < 0)
        return 0;
    r->busy_ms += spent * 1e3;
    if (rc > 0) {
        snprintf(r->energy_reason, sizeof r->energy_reason, "%s", why);
        return 1;
    }
    r->energy_j = e.energy_j;
    r->avg_power_w = e.avg_power_w;
    if (getenv("GPULAB_ENERGY_TRACE"))
        fprintf(stderr, "gpulab: energy: window %.3f s, %ld runs of %.4g ms, %.6g J a run, "
                "%.1f W\n", e.window_s, e.launches, s.median, e.energy_j, e.avg_power_w);
    return 1;
}

/* energy.c - see energy.h: the energy window's procedure and policy. The NVML
 * reader is nvml_energy.c. */
#include "energy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GL_ENERGY_K_DEFAULT 5
#define GL_ENERGY_MAX_S_DEFAULT 3.0

int gl_energy_policy_env(struct gl_energy_policy *pol, char *why, size_t len)
{
    pol->off = 0;
    pol->k = GL_ENERGY_K_DEFAULT;
    pol->min_window_s = 0.1;
    pol->max_window_s = GL_ENERGY_MAX_S_DEFAULT;
    /* off unless asked: the window costs (K + 3) counter periods, at least 0.15 s,
     * a GPU run, as much as a whole sweep's timing of small kernels */
    const char *e = getenv("GPULAB_ENERGY");
    if (!e || !*e || strcmp(e, "off") == 0 || strcmp(e, "0") == 0) {
        pol->off = 1;
        snprintf(why, len, "not measured: energy is off unless GPULAB_ENERGY=on (its window "
                 "costs about 0.2-1 s a GPU run)");
        return 0;
    }
    if (strcmp(e, "on") != 0 && strcmp(e, "1") != 0) {
        snprintf(why, len, "GPULAB_ENERGY: on or off, not '%.40s'", e);
        return -1;
    }
    char *end;
    e = getenv("GPULAB_ENERGY_K");
    if (e && *e) {
        long k = strtol(e, &end, 10);
        if (*end || k < 1 || k > 1000) {
            snprintf(why, len, "GPULAB_ENERGY_K: not a count of 1 to 1000: '%.40s'", e);
            return -1;
        }
        pol->k = (int)k;
    }
    e = getenv("GPULAB_ENERGY_MAX_S");
    if (e && *e) {
        double s = strtod(e, &end);
        if (*end || !(s > 0 && s <= 3600)) {
            snprintf(why, len, "GPULAB_ENERGY_MAX_S: not seconds in (0, 3600]: '%.40s'", e);
            return -1;
        }
        pol->max_window_s = s;
    }
    return 0;
}

int gl_energy_period(const struct gl_energy_io *io, double timeout_s, double *period_s, char *why,
                     size_t len)
{
    unsigned long long last, v;
    double steps[4];
    int n = 0;
    if (io->read(io->ctx, &last, why, len) != 0)
        return -1;
    double t0 = io->now(io->ctx);
    while (n < 4) {
        if (io->now(io->ctx) - t0 > timeout_s) {
            snprintf(why, len, "the energy counter stepped %d times in %.1f s (4 needed to know its "
                     "period)", n, timeout_s);
            return -1;
        }
        io->pause(io->ctx);
        if (io->read(io->ctx, &v, why, len) != 0)
            return -1;
        if (v != last) {
            steps[n++] = io->now(io->ctx);
            last = v;
        }
    }
    double d[3] = { steps[1] - steps[0], steps[2] - steps[1], steps[3] - steps[2] };
    /* the median of three */
    double lo = d[0] < d[1] ? d[0] : d[1], hi = d[0] < d[1] ? d[1] : d[0];
    *period_s = d[2] < lo ? lo : d[2] > hi ? hi : d[2];
    if (!(*period_s > 0)) {
        snprintf(why, len, "the energy counter's period could not be measured");
        return -1;
    }
    return 0;
}

/* Launch batches until the counter steps after `after` seconds from t_from:
 * *v and *t get the step's reading and time; *n counts the launches made.
 * 0, 1 (no step by deadline: why), -1 (a launch failed). */
static int launch_to_step(const struct gl_energy_io *io, long batch, double t_from, double after,
                          double deadline, unsigned long long *last, unsigned long long *v,
                          double *t, long *n, char *why, size_t len)
{
    for (;;) {
        if (io->launch(io->ctx, batch) != 0)
            return -1;
        *n += batch;
        if (io->read(io->ctx, v, why, len) != 0)
            return 1;
        *t = io->now(io->ctx);
        int stepped = *v != *last;
        if (*v < *last) {
            snprintf(why, len, "the energy counter went back (%llu to %llu mJ)", *last, *v);
            return 1;
        }
        *last = *v;
        if (stepped && *t - t_from >= after)
            return 0;
        if (*t > deadline) {
            snprintf(why, len, "the energy counter did not step within %.2f s of launches",
                     *t - t_from);
            return 1;
        }
    }
}

int gl_energy_measure(const struct gl_energy_io *io, double period_s, double launch_s,
                      const struct gl_energy_policy *pol, struct gl_energy *e, char *why,
                      size_t len)
{
    memset(e, 0, sizeof *e);
    e->period_s = period_s;
    if (pol->off) {
        snprintf(why, len, "not measured: energy is off unless GPULAB_ENERGY=on");
        return 1;
    }
    if (!(period_s > 0) || !(launch_s > 0)) {
        snprintf(why, len, "not measured: no counter period or launch time");
        return 1;
    }
    double target = pol->k * period_s;
    if (target < pol->min_window_s)
        target = pol->min_window_s;
    double preroll = period_s > target / 2 ? period_s : target / 2;
    /* the preroll, the window, and up to a period and a launch waiting for each
     * of the two steps */
    double need = preroll + target + 2 * (period_s + launch_s);
    if (need > pol->max_window_s) {
        snprintf(why, len, "the counter steps every %.0f ms and one run takes %.3g s: its energy "
                 "window would take %.2f s, over GPULAB_ENERGY_MAX_S = %.2f s", period_s * 1e3,
                 launch_s, need, pol->max_window_s);
        return 1;
    }
    /* batches short against a period and the window, so that a step is seen
     * soon after it happens and the launches are counted to a batch */
    double batch_s = period_s / 10 < target / 100 ? period_s / 10 : target / 100;
    long batch = (long)(batch_s / launch_s);
    if (batch < 1)
        batch = 1;
    if (batch > (1L << 20))
        batch = 1L << 20;
    unsigned long long last, e0, e1;
    double t0, t1, start = io->now(io->ctx);
    double deadline = start + pol->max_window_s + period_s;
    long n = 0;
    if (io->read(io->ctx, &last, why, len) != 0)
        return 1;
    /* preroll: a period of launches, then the first step starts the window */
    int rc = launch_to_step(io, batch, start, preroll, deadline, &last, &e0, &t0, &n, why, len);
    if (rc != 0)
        return rc;
    n = 0;
    rc = launch_to_step(io, batch, t0, target, deadline, &last, &e1, &t1, &n, why, len);
    if (rc != 0)
        return rc;
    if (e1 <= e0 || n < 1 || !(t1 > t0)) {
        snprintf(why, len, "the energy counter did not advance over %.2f s", t1 - t0);
        return 1;
    }
    e->launches = n;
    e->window_s = t1 - t0;
    e->energy_j = (double)(e1 - e0) / 1e3 / (double)n;
    e->avg_power_w = (double)(e1 - e0) / 1e3 / e->window_s;
    return 0;
}

/* energy.h - the energy of a run's launches, from a GPU's total-energy counter
 * (NVML's nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver
 * loaded). The counter does not move continuously: it steps once per update
 * period (tens of milliseconds), so a window shorter than a few periods says
 * nothing. gpulab therefore measures energy over a window of its own: the run's
 * launches back to back (no flush between them), started and ended on a step of
 * the counter (so no partial period is counted), at least k periods long, after
 * one period of the same launches (so the counter's lag sees the busy GPU).
 * Joules per launch = the energy between the two steps / the launches between
 * them; average watts = that energy / the time between them. A window that
 * would exceed the policy's longest is not measured: NULL with the reason,
 * never a number below the counter's resolution.
 * This file holds the procedure (callbacks: read, launch, clock, pause, so that
 * tests drive it with a simulated counter) and the NVML reader (dlopen'ed, as
 * src/host/gpuclocks.c does for the driver; $GPULAB_NVML_LIB for tests).
 * Must not launch anything itself, print, or know CUDA. */
#ifndef GL_ENERGY_H
#define GL_ENERGY_H

#include <stddef.h>

/* What the procedure needs from its caller. */
struct gl_energy_io {
    void *ctx;
    /* the counter now: 0 with *mj, or -1 with why */
    int (*read)(void *ctx, unsigned long long *mj, char *why, size_t len);
    /* n launches back to back, waited for: 0, or -1 (the caller records why) */
    int (*launch)(void *ctx, long n);
    double (*now)(void *ctx);    /* monotonic seconds */
    void (*pause)(void *ctx);    /* a short wait between reads of an idle counter */
};

/* How long gpulab may measure. Defaults (gl_energy_policy_env): k = 5, at least
 * 0.1 s, at most 3 s per run; GPULAB_ENERGY_K and GPULAB_ENERGY_MAX_S change
 * them, GPULAB_ENERGY=off measures nothing. */
struct gl_energy_policy {
    int off;               /* 1: not measured ("GPULAB_ENERGY=off") */
    int k;                 /* the window lasts at least k counter periods ... */
    double min_window_s;   /* ... and at least this long (a counter that steps very
                              often still averages the board's power over its own
                              sampling: the preroll lasts at least half of it) */
    double max_window_s;   /* the longest window (preroll and waits for steps included) */
};

struct gl_energy {
    double energy_j;       /* per launch */
    double avg_power_w;    /* the board's, over the window */
    double window_s;       /* between the two steps of the counter */
    long launches;         /* in the window */
    double period_s;       /* the counter's update period used */
};

/* The policy from the environment; 0, or -1 with why (a value that is not a
 * number in range: the caller stores the runs without energy, with why). */
int gl_energy_policy_env(struct gl_energy_policy *pol, char *why, size_t len);

/* The counter's update period: poll it (pausing between reads) until it has
 * stepped 4 times, the median of the 3 intervals. 0 with *period_s, or -1 with
 * why (a read failed; no step within timeout_s). */
int gl_energy_period(const struct gl_energy_io *io, double timeout_s, double *period_s, char *why,
                     size_t len);

/* Measure one run's energy window (launch_s: one launch's time, e.g. the
 * median sample, for the batch size). 0 measured (*e); 1 not measured, why
 * says why; -1 a launch failed (the caller's error stands). */
int gl_energy_measure(const struct gl_energy_io *io, double period_s, double launch_s,
                      const struct gl_energy_policy *pol, struct gl_energy *e, char *why,
                      size_t len);

/* The NVML counter of the GPU whose UUID is uuid ("GPU-..."): 0 with *dev, or
 * -1 with why (no NVML, unknown GPU, counter not supported). */
int gl_nvml_energy_open(const char *uuid, void **dev, char *why, size_t len);
/* The read callback for gl_energy_io (ctx = the dev of gl_nvml_energy_open). */
int gl_nvml_energy_read(void *dev, unsigned long long *mj, char *why, size_t len);

#endif

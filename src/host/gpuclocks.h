/* gpuclocks.h - the GPU's clocks through NVML, for the driver process: what the
 * SM clock is set to and runs at (read for every session), and `run --clocks
 * base`: lock the SM clock to the base (TDP) clock for a sweep, as Nsight
 * Compute does by default, and reset it when the sweep ends. NVML is loaded with
 * dlopen("libnvidia-ml.so.1") ($GPULAB_NVML_LIB instead, for tests), so nothing
 * links against it and a machine without it still works: every answer then says
 * why not. The driver owns a lock it took: the worker never calls this (a
 * crashed worker leaves the lock to the driver, which resets it at the end of
 * the sweep, on SIGINT and SIGTERM too, and at exit()).
 * Must not print, and must not reset clocks it did not lock. */
#ifndef GL_GPUCLOCKS_H
#define GL_GPUCLOCKS_H

#include <stddef.h>

/* The SM clock as NVML sees it (MHz; 0 = not known). */
struct gl_gpu_clocks {
    int sm_mhz;            /* current */
    int app_mhz;           /* applications clock (the target) */
    int app_default_mhz;   /* default applications clock (not the base clock: 1980 = max on an H100) */
    int max_mhz;           /* maximum */
    int have_events;       /* events below are known */
    unsigned long long events;   /* nvmlClocksEventReasons bits */
    char events_text[160]; /* the active reasons, comma-separated ("" none) */
};

/* Read the clocks of the GPU with this UUID ("GPU-..."). 0 (fields NVML does
 * not answer stay 0), or -1 with why (no NVML, no such GPU ...). */
int gl_clocks_read(const char *uuid, struct gl_gpu_clocks *c, char *why, size_t whylen);

/* Lock the SM clock of the GPU with this UUID to its base (TDP) clock
 * (nvmlDeviceSetGpuLockedClocks(TDP, TDP)) until gl_clocks_reset. 0 locked;
 * -1 with why (no NVML, no permission, not supported ...). */
int gl_clocks_lock_base(const char *uuid, char *why, size_t whylen);

/* Reset every clock lock gl_clocks_lock_base took in this process
 * (nvmlDeviceResetGpuLockedClocks), once. Returns how many were reset, or -1
 * with why when one could not be. Nothing locked: 0. */
int gl_clocks_reset(char *why, size_t whylen);

/* How many locks this process holds now. */
int gl_clocks_held(void);

#endif

/* sweep_lock.c - what `gpulab run` does before it measures so that it measures
 * alone, and what it records of the machine: survey the sweep (sweep.c), take
 * the device lock (devlock.c) of every device some job will run on (the CPU
 * first, then the GPU), then lock the GPU's clocks when `--clocks base` asks
 * (gpuclocks.c; given back before the device lock), measure the GPU's copy
 * bandwidth and, once per device row, its memory ceilings (under its lock,
 * never before), and gather the session's facts: the 1-minute load
 * average (/proc/loadavg), the time spent waiting for the locks, other
 * processes holding the GPU open (gpuprocs.c; NULL with the reason when that
 * cannot be checked), and the GPU's clocks (asked, done, NVML's readings).
 * What gpulab cannot see: other users' processes that do not take its locks.
 * Must not run or store jobs. */
#include "sweep.h"
#include "gpuclocks.h"
#include "gpuprocs.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

/* `run --clocks base`, with the GPU's lock held: lock its SM clock to base
 * (NVML), or say why not. */
static void lock_clocks(struct gl_sweep *sw)
{
    char why[GL_REASON_MAX - 64];
    sw->clocks_locked = 0;
    if (!sw->clocks_base) {
        snprintf(sw->clocks_why, sizeof sw->clocks_why, "left as they were (--clocks none)");
        return;
    }
    if (gl_clocks_lock_base(sw->gpu.ident, why, sizeof why) == 0) {
        sw->clocks_locked = 1;
        snprintf(sw->clocks_why, sizeof sw->clocks_why,
                 "locked to the base clock (NVML, TDP) for the sweep; reset at its end");
    } else {
        snprintf(sw->clocks_why, sizeof sw->clocks_why, "not locked: %s", why);
    }
}

int gl_sweep_lock(struct gl_sweep *sw, gl_store *store, int wait, const char *cmdline,
                  volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    int need_cpu, need_gpu;
    if (gl_sweep_survey(sw, store, &need_cpu, &need_gpu) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const struct gl_device *devs[2];
    int n = 0;
    if (need_cpu)
        devs[n++] = &sw->cpu;
    if (need_gpu && sw->gpu_ok)
        devs[n++] = &sw->gpu;
    int rc = gl_devlock_take(&sw->locks, devs, n, wait, cmdline, stop, stderr, err, errlen);
    if (rc != 0 || !(need_gpu && sw->gpu_ok))
        return rc;
    /* the GPU is ours: its clocks as asked, then its measurements outside runs,
     * the copy bandwidth and (once per device row) the memory ceilings */
    lock_clocks(sw);
    sw->gpu.copy_bw_gbs = gl_worker_copy_bandwidth(&sw->worker);
    if (gl_store_device_bandwidth(store, sw->gpu_id, sw->gpu.copy_bw_gbs) != 0)   /* not fatal: */
        fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));   /* a description */
    if (gl_store_device_has_ceilings(store, sw->gpu_id) == 0) {
        struct gl_ceilings c;
        (void)gl_worker_ceilings(&sw->worker, &c);
        if (gl_store_device_ceilings(store, sw->gpu_id, &c) != 0)
            fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));
    }
    return 0;
}

int gl_sweep_unlock_clocks(struct gl_sweep *sw, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if (!sw->clocks_locked)
        return 0;
    sw->clocks_locked = 0;
    return gl_clocks_reset(err, errlen) < 0 ? -1 : 0;
}

/* The 1-minute load average, or -1 when /proc/loadavg cannot be read. */
static double load1(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double v = -1;
    if (!f)
        return -1;
    if (fscanf(f, "%lf", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

void gl_sweep_facts(const struct gl_sweep *sw, struct gl_session_info *si)
{
    si->have_facts = 1;
    si->load1 = load1();
    si->lock_wait_s = sw->locks.waited;
    static char note[512];   /* si->gpu_procs_reason until the next call */
    si->gpu_procs = -1;
    si->gpu_procs_reason = "no GPU in this session";
    if (sw->gpu_ok) {
        pid_t skip[2] = { getpid(), sw->worker.pid };   /* gpulab's own */
        si->gpu_procs = gl_gpu_procs("/proc", sw->gpu.ident, skip, 2, note, sizeof note);
        si->gpu_procs_reason = note[0] ? note : NULL;
    }
    /* the clocks: asked, done (gl_sweep_lock), and NVML's readings now */
    static char cwhy[GL_REASON_MAX], nwhy[GL_REASON_MAX], events[160];
    struct gl_gpu_clocks c;
    si->have_clocks = 1;
    si->clocks_asked = sw->clocks_base ? "base" : "none";
    si->clocks_locked = -1;
    si->clocks_reason = "no GPU in this session";
    si->nvml_reason = "no GPU in this session";
    si->clock_events = NULL;
    si->sm_clock_mhz = si->sm_app_clock_mhz = si->sm_app_default_mhz = si->sm_max_clock_mhz = 0;
    if (!sw->gpu_ok || !sw->clocks_why[0])   /* the sweep did not lock the GPU: no GPU job */
        return;
    si->clocks_locked = sw->clocks_locked;
    snprintf(cwhy, sizeof cwhy, "%s", sw->clocks_why);
    si->clocks_reason = cwhy;
    if (gl_clocks_read(sw->gpu.ident, &c, nwhy, sizeof nwhy) != 0) {
        si->nvml_reason = nwhy;
        return;
    }
    si->nvml_reason = NULL;
    si->sm_clock_mhz = c.sm_mhz;
    si->sm_app_clock_mhz = c.app_mhz;
    si->sm_app_default_mhz = c.app_default_mhz;
    si->sm_max_clock_mhz = c.max_mhz;
    if (c.have_events) {
        snprintf(events, sizeof events, "%s", c.events_text);
        si->clock_events = events;
    }
}

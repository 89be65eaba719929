/* sweep_lock.c - what `gpulab run` does before it measures so that it measures
 * alone, and what it records of the machine: survey the sweep (sweep.c), take
 * the device lock (devlock.c) of every device some job will run on (the CPU
 * first, then the GPU), then measure the GPU's copy bandwidth (under its lock,
 * never before), and gather the session's facts: the 1-minute load
 * average (/proc/loadavg), the time spent waiting for the locks, and other
 * processes holding the GPU open (gpuprocs.c; NULL with the reason when that
 * cannot be checked).
 * What gpulab cannot see: other users' processes that do not take its locks.
 * Must not run or store jobs. */
#include "sweep.h"
#include "gpuprocs.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

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
    /* the GPU is ours: its one measurement outside runs, the copy bandwidth */
    sw->gpu.copy_bw_gbs = gl_worker_copy_bandwidth(&sw->worker);
    if (gl_store_device_bandwidth(store, sw->gpu_id, sw->gpu.copy_bw_gbs) != 0)   /* not fatal: */
        fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));   /* a description */
    return 0;
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
}

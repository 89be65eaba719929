/* sweep_lock.c - what `gpulab run` does before it measures so that it measures
 * alone, and what it records of the machine: survey the sweep (sweep.c), take
 * the device lock (devlock.c) of every device some job will run on (the CPU
 * first, then each GPU of the sweep in the order of their UUIDs), then measure
 * each GPU's copy bandwidth (under its lock, never before), and gather the
 * session's facts: the 1-minute load average (/proc/loadavg), the time spent
 * waiting for the locks, and other processes holding the sweep's GPUs open
 * (gpuprocs.c, summed; NULL with the reason when that cannot be checked).
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
    const struct gl_device *devs[1 + GL_GPUS_MAX];
    int n = 0, gpus = need_gpu && sw->gpu_ok ? sw->nworkers : 0;
    if (need_cpu)
        devs[n++] = &sw->cpu;
    /* the GPUs by UUID: the order every sweep takes them in */
    for (int i = 0; i < gpus; i++) {
        int at = n;
        while (at > (need_cpu ? 1 : 0) && strcmp(devs[at - 1]->ident, sw->gpus[i].ident) > 0) {
            devs[at] = devs[at - 1];
            at--;
        }
        devs[at] = &sw->gpus[i];
        n++;
    }
    int rc = gl_devlock_take(&sw->locks, devs, n, wait, cmdline, stop, stderr, err, errlen);
    if (rc != 0)
        return rc;
    /* the GPUs are ours: their one measurement outside runs, the copy bandwidth */
    for (int i = 0; i < gpus; i++) {
        sw->gpus[i].copy_bw_gbs = gl_worker_copy_bandwidth(&sw->workers[i]);
        /* not fatal: a description */
        if (gl_store_device_bandwidth(store, sw->gpu_ids[i], sw->gpus[i].copy_bw_gbs) != 0)
            fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));
    }
    if (gpus > 0)
        sw->gpu.copy_bw_gbs = sw->gpus[0].copy_bw_gbs;
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
    note[0] = '\0';
    si->gpu_procs = -1;
    si->gpu_procs_reason = "no GPU in this session";
    if (sw->gpu_ok) {
        pid_t skip[1 + GL_GPUS_MAX];   /* gpulab's own */
        int nskip = 0;
        skip[nskip++] = getpid();
        for (int i = 0; i < sw->nworkers; i++)
            if (sw->workers[i].pid > 0)
                skip[nskip++] = sw->workers[i].pid;
        /* every GPU of the sweep: the sum, or NULL when one cannot be checked */
        si->gpu_procs = 0;
        for (int i = 0; i < sw->nworkers && si->gpu_procs >= 0; i++) {
            char one[512];
            long c = gl_gpu_procs("/proc", sw->gpus[i].ident, skip, nskip, one, sizeof one);
            si->gpu_procs = c < 0 ? -1 : si->gpu_procs + c;
            if (one[0] && (!note[0] || c < 0))
                snprintf(note, sizeof note, "%s", one);
        }
        si->gpu_procs_reason = note[0] ? note : NULL;
    }
}

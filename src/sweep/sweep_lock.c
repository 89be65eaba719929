/* sweep_lock.c - what `gpulab run` does before it measures so that it measures
 * alone, and what it records of the machine: survey the sweep (sweep.c), take
 * the device lock (devlock.c) of every device some job will run on (the CPU
 * first, then each GPU of the sweep in the order of their UUIDs), then, for
 * each GPU: lock its clocks when `--clocks base` asks (gpuclocks.c; given back
 * before the device locks), measure its copy bandwidth and, once per device
 * row, its memory ceilings (by its own worker, under its lock, never before;
 * or those measured on this machine before: ceilings_cache.c),
 * and gather the session's facts: the 1-minute load average (/proc/loadavg),
 * the time spent waiting for the locks, other processes holding the sweep's
 * GPUs open (gpuprocs.c, summed; NULL with the reason when that cannot be
 * checked), and the GPUs' clocks (asked, done per GPU, NVML's readings of the
 * first GPU).
 * At the end, gl_sweep_free gives all of it back (and what gl_sweep_prepare
 * in sweep.c made).
 * What gpulab cannot see: other users' processes that do not take its locks.
 * Must not run or store jobs; sweep.c must not call this file. */
#include "sweep.h"
#include "ceilings_cache.h"
#include "gpuclocks.h"
#include "gpuprocs.h"
#include "hostload.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* What `run --clocks` did to one GPU (its lock held): lock its SM clock to base
 * (NVML) when asked, or say why not. 1 locked, 0 not. */
static int lock_one(const struct gl_sweep *sw, const struct gl_device *gpu, char *what,
                    size_t len)
{
    char why[GL_REASON_MAX - 64];
    if (!sw->clocks_base) {
        snprintf(what, len, "left as they were (--clocks none)");
        return 0;
    }
    if (gl_clocks_lock_base(gpu->ident, why, sizeof why) == 0) {
        snprintf(what, len, "locked to the base clock (NVML, TDP) for the sweep; reset at its end");
        return 1;
    }
    snprintf(what, len, "not locked: %s", why);
    return 0;
}

/* `run --clocks`, with the locks of the sweep's n GPUs held: each GPU's clocks
 * as asked; sw->clocks_locked counts those locked, sw->clocks_why says what was
 * done: one GPU's text as it is, several GPUs' grouped by text ("GPU 0,1:
 * locked ... | GPU 2: not locked: ..."), each GPU by its --gpus number. */
static void lock_clocks(struct gl_sweep *sw, int n)
{
    char what[GL_GPUS_MAX][GL_REASON_MAX];
    int done[GL_GPUS_MAX];
    size_t used = 0;
    sw->clocks_locked = 0;
    sw->clocks_gpus = n;
    sw->clocks_why[0] = '\0';
    for (int i = 0; i < n; i++) {
        sw->clocks_locked += lock_one(sw, &sw->gpus[i], what[i], sizeof what[i]);
        done[i] = 0;
    }
    if (n == 1) {
        snprintf(sw->clocks_why, sizeof sw->clocks_why, "%s", what[0]);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        char nums[12 * GL_GPUS_MAX];
        size_t k = 0;
        nums[0] = '\0';
        for (int j = i; j < n; j++)
            if (!done[j] && strcmp(what[j], what[i]) == 0) {
                done[j] = 1;
                int w = snprintf(nums + k, sizeof nums - k, "%s%d", k ? "," : "",
                                 sw->gpu_num[j]);
                if (w > 0 && (size_t)w < sizeof nums - k)
                    k += (size_t)w;
            }
        int w = snprintf(sw->clocks_why + used, sizeof sw->clocks_why - used, "%sGPU %s: %s",
                         used ? " | " : "", nums, what[i]);
        if (w < 0 || (size_t)w >= sizeof sw->clocks_why - used)
            break;   /* truncated: the rest is left out */
        used += (size_t)w;
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
    /* the GPUs are ours: each one's clocks as asked, then its measurements
     * outside runs by its own worker, the copy bandwidth and (once per device
     * row) the memory ceilings, stored on its row */
    lock_clocks(sw, gpus);
    for (int i = 0; i < gpus; i++) {
        sw->gpus[i].copy_bw_gbs = gl_worker_copy_bandwidth(&sw->workers[i]);
        /* not fatal: a description */
        if (gl_store_device_bandwidth(store, sw->gpu_ids[i], sw->gpus[i].copy_bw_gbs) != 0)
            fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));
        if (gl_store_device_has_ceilings(store, sw->gpu_ids[i]) == 0) {
            /* a new row takes this GPU's ceilings measured before on this
             * machine (ceilings_cache.h), else they are measured now */
            struct gl_ceilings c;
            char at[40];
            if (gl_ceilings_cache_load(&sw->gpus[i], &c, at, sizeof at) != 1) {
                (void)gl_worker_ceilings(&sw->workers[i], &c);
                (void)gl_ceilings_cache_save(&sw->gpus[i], &c, at, sizeof at);   /* not fatal */
            }
            if (gl_store_device_ceilings_at(store, sw->gpu_ids[i], &c, at[0] ? at : NULL) != 0)
                fprintf(stderr, "gpulab: note: %s\n", gl_store_errmsg(store));
        }
    }
    if (gpus > 0)
        sw->gpu.copy_bw_gbs = sw->gpus[0].copy_bw_gbs;
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

/* The 1-minute load average, or -1 when /proc/loadavg ($GPULAB_LOADAVG_FILE)
 * cannot be read. */
static double load1(void)
{
    double v = -1;
    int run;
    if (gl_loadavg_read(&v, &run) != 0 && v < 0)
        return -1;
    return v;
}

void gl_sweep_warn_busy(const struct gl_sweep *sw, FILE *out)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int others = gl_others_running();
    double l1 = load1();
    pid_t pid = 0;
    long gpulabs = gl_other_gpulabs("/proc", getpid(), getppid(), NULL, &pid);
    (void)sw;
    if (ncpu > 0 && (others >= ncpu || l1 >= (double)ncpu))
        fprintf(out, "gpulab: warning: the host is busy (%d other runnable tasks now, 1-minute "
                "load %.2f, %ld CPUs): runs measured while it stays so are stored with "
                "`contaminated` saying so\n", others, l1, ncpu);
    if (gpulabs > 0)
        fprintf(out, "gpulab: warning: another gpulab is running (pid %d%s), with other lock "
                "folders than this one's: runs it disturbs are stored with `contaminated` "
                "saying so\n", (int)pid, gpulabs > 1 ? " and more" : "");
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
    /* the clocks: asked, done (gl_sweep_lock), and NVML's readings now: of the
     * sweep's first GPU (slot 0, the one its plan was expanded for), said in
     * clocks_reason when there are several */
    static char cwhy[GL_CLOCKS_WHY_MAX + 64], nwhy[GL_REASON_MAX], events[160];
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
    /* 1 only when every GPU of the sweep was locked */
    si->clocks_locked = sw->clocks_gpus > 0 && sw->clocks_locked == sw->clocks_gpus;
    if (sw->clocks_gpus > 1)
        snprintf(cwhy, sizeof cwhy, "%s | NVML readings: GPU %d's", sw->clocks_why,
                 sw->gpu_num[0]);
    else
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

/* Everything prepare and lock took, given back: the workers stopped, every clock
 * lock released while the devices are still ours, then the device locks, then the
 * configs and their expansions. */
void gl_sweep_free(struct gl_sweep *sw)
{
    char why[GL_REASON_MAX];
    for (int i = 0; i < GL_GPUS_MAX; i++)
        gl_worker_stop(&sw->workers[i]);
    /* every clock lock back while the devices are still ours, then the devices */
    (void)gl_sweep_unlock_clocks(sw, why, sizeof why);
    gl_devlock_release(&sw->locks);   /* after the workers: they measure no more */
    for (int i = 0; i < sw->nconfigs; i++) {
        gl_expansion_free(&sw->exps[i]);
        gl_config_free(&sw->configs[i]);
    }
    free(sw->exps);
    free(sw->configs);
    free(sw->surveyed);
    memset(sw, 0, sizeof *sw);
}

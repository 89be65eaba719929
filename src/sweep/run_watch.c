/* run_watch.c - see run_watch.h. */
#include "run_watch.h"
#include "gpuclocks.h"
#include "gpuprocs.h"
#include "hostload.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The NVML clock events that slow a GPU from outside the run's own power
 * management: hardware slowdown, software and hardware thermal slowdown,
 * hardware power brake (the software power cap is the kernel's own doing). */
#define GL_EVENTS_SLOWED (0x8ull | 0x20ull | 0x40ull | 0x80ull)

static void sample(struct gl_run_watch *w, int first)
{
    int o = gl_others_running();
    if (o < 0) {
        w->unreadable++;
    } else {
        w->samples++;
        w->others_sum += o;
        if (o > w->others_max)
            w->others_max = o;
    }
    if (!w->uuid[0])
        return;
    if (first) {
        char dev[64];
        pid_t pid = 0;
        if (gl_gpu_dev_file("/proc", w->uuid, dev, sizeof dev) == 0)
            w->gpulabs = gl_other_gpulabs("/proc", getpid(), getppid(), dev, &pid);
        w->gpulab_pid = (int)pid;
    }
    struct gl_gpu_clocks c;
    char why[256];
    if (gl_clocks_read(w->uuid, &c, why, sizeof why) == 0) {
        if (c.have_events)
            w->events |= c.events;
        if (c.sm_mhz > 0 && (w->min_mhz == 0 || c.sm_mhz < w->min_mhz))
            w->min_mhz = c.sm_mhz;
    }
}

static void *watch_main(void *arg)
{
    struct gl_run_watch *w = arg;
    sample(w, 1);
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += GL_WATCH_EVERY_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        int rc = 0;
        while (!w->stop && rc == 0)   /* until the period is over or a stop wakes it */
            rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
        if (!w->stop) {
            pthread_mutex_unlock(&w->mu);
            sample(w, 0);
            pthread_mutex_lock(&w->mu);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

void gl_run_watch_start(struct gl_run_watch *w, int cores_used, const char *gpu_uuid)
{
    memset(w, 0, sizeof *w);
    w->cores_used = cores_used > 0 ? cores_used : 1;
    snprintf(w->uuid, sizeof w->uuid, "%s", gpu_uuid ? gpu_uuid : "");
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return;
    int ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&w->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!ok)
        return;
    if (pthread_mutex_init(&w->mu, NULL) != 0) {
        pthread_cond_destroy(&w->cv);
        return;
    }
    w->started = pthread_create(&w->th, NULL, watch_main, w) == 0;
    if (!w->started) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
    }
}

void gl_run_watch_verdict(const struct gl_run_watch *w, int ncpu, char *why, size_t len)
{
    size_t used = 0;
    why[0] = '\0';
    if (w->samples > 0) {
        double mean = w->others_sum / w->samples;
        int free_cpus = ncpu - w->cores_used;
        if (free_cpus < 0)
            free_cpus = 0;
        if (mean >= free_cpus + 0.5) {
            int n = snprintf(why, len, "host busy: %.1f other runnable tasks on average (at "
                             "most %.0f) beside its %d busy CPU%s of %d (%d samples)", mean,
                             w->others_max, w->cores_used, w->cores_used == 1 ? "" : "s", ncpu,
                             w->samples);
            used = n > 0 && (size_t)n < len ? (size_t)n : len - 1;
        }
    }
    if (w->gpulabs > 0 && used + 1 < len) {
        int n = snprintf(why + used, len - used, "%sanother gpulab on the GPU (pid %d%s)",
                         used ? "; " : "", w->gpulab_pid, w->gpulabs > 1 ? " and more" : "");
        used += n > 0 && (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
    if ((w->events & GL_EVENTS_SLOWED) && used + 1 < len) {
        char ev[160];
        unsigned long long bits = w->events & GL_EVENTS_SLOWED;
        snprintf(ev, sizeof ev, "%s%s%s%s", (bits & 0x8ull) ? ", hardware slowdown" : "",
                 (bits & 0x20ull) ? ", software thermal slowdown" : "",
                 (bits & 0x40ull) ? ", hardware thermal slowdown" : "",
                 (bits & 0x80ull) ? ", hardware power brake slowdown" : "");
        snprintf(why + used, len - used, "%sGPU clock slowed (%s; SM clock down to %d MHz)",
                 used ? "; " : "", ev + 2, w->min_mhz);
    }
}

void gl_run_watch_stop(struct gl_run_watch *w, struct gl_result *r)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    w->started = 0;
    sample(w, 0);   /* one at the end too: a run shorter than a period has two */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    gl_run_watch_verdict(w, ncpu > 0 ? (int)ncpu : 1, r->contaminated, sizeof r->contaminated);
}

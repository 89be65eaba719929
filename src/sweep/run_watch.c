/* run_watch.c - see run_watch.h. */
#include "run_watch.h"
#include "gpuclocks.h"
#include "gpuprocs.h"
#include "hostload.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The NVML clock events that slow a GPU from outside the run's own power
 * management: hardware slowdown, software and hardware thermal slowdown,
 * hardware power brake (the software power cap is the kernel's own doing). */
#define GL_EVENTS_SLOWED (0x8ull | 0x20ull | 0x40ull | 0x80ull)

/* One sample of the machine. */
struct watch_sample {
    int others;               /* other runnable tasks; -1 unreadable */
    int have_clocks;
    unsigned long long events;
    int mhz;
};

/* The process's one sampling thread and the run it watches (mu guards all). */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;              /* the thread runs (in process pid) */
    int quit;                 /* gl_run_watch_shutdown asked it to end */
    pthread_t th;
    pid_t pid;
    struct gl_run_watch *cur; /* the run being watched, or NULL */
    char uuid[128];           /* the GPU whose clocks are read while cur is a GPU run */
    struct watch_sample last; /* the latest sample */
    int have_last;
    double scanned;           /* when other gpulabs were last looked for (0 never) */
    long gpulabs;             /* ... and what was found */
    int gpulab_pid;
} mon = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read the machine (no lock held: NVML and /proc take their time); uuid ""
 * for the load alone. */
static void read_sample(const char *uuid, struct watch_sample *s)
{
    memset(s, 0, sizeof *s);
    s->others = gl_others_running();
    if (!uuid[0])
        return;
    struct gl_gpu_clocks c;
    char why[256];
    if (gl_clocks_read(uuid, &c, why, sizeof why) == 0) {
        s->have_clocks = 1;
        s->events = c.have_events ? c.events : 0;
        s->mhz = c.sm_mhz;
    }
}

/* Other gpulab processes on GPU uuid: into mon (no lock held while looking). */
static void scan_gpulabs(const char *uuid)
{
    char dev[64];
    pid_t pid = 0;
    long n = 0;
    if (gl_gpu_dev_file("/proc", uuid, dev, sizeof dev) == 0)
        n = gl_other_gpulabs("/proc", getpid(), getppid(), dev, &pid);
    pthread_mutex_lock(&mon.mu);
    mon.gpulabs = n;
    mon.gpulab_pid = (int)pid;
    mon.scanned = now_s();
    pthread_mutex_unlock(&mon.mu);
}

/* Sample s into run w (mon.mu held). */
static void add_sample(struct gl_run_watch *w, const struct watch_sample *s)
{
    if (s->others < 0) {
        w->unreadable++;
    } else {
        w->samples++;
        w->others_sum += s->others;
        if (s->others > w->others_max)
            w->others_max = s->others;
    }
    if (!w->uuid[0] || !s->have_clocks)
        return;
    w->events |= s->events;
    if (s->mhz > 0 && (w->min_mhz == 0 || s->mhz < w->min_mhz))
        w->min_mhz = s->mhz;
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        char uuid[128];
        pthread_mutex_lock(&mon.mu);
        if (mon.quit) {
            pthread_mutex_unlock(&mon.mu);
            return NULL;
        }
        int gpu = mon.cur && mon.cur->uuid[0];
        snprintf(uuid, sizeof uuid, "%s", gpu ? mon.cur->uuid : "");
        int scan = gpu && (mon.scanned == 0.0 || now_s() - mon.scanned >= GL_WATCH_SCAN_S);
        pthread_mutex_unlock(&mon.mu);
        if (scan)
            scan_gpulabs(uuid);
        struct watch_sample s;
        read_sample(uuid, &s);
        pthread_mutex_lock(&mon.mu);
        mon.last = s;
        mon.have_last = 1;
        pthread_cond_broadcast(&mon.cv);   /* a stop waiting for the first sample */
        /* a sample read for a GPU run is not a CPU run's, nor another GPU's */
        if (mon.cur && strcmp(mon.cur->uuid, uuid) == 0)
            add_sample(mon.cur, &s);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += GL_WATCH_EVERY_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (!mon.quit && pthread_cond_timedwait(&mon.cv, &mon.mu, &until) == 0)
            ;   /* the period, whole (only the shutdown ends it early) */
        pthread_mutex_unlock(&mon.mu);
    }
}

/* The thread, once per process (mon.mu held). 1 when it runs. */
static int monitor_started(void)
{
    if (mon.started)
        return 1;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return 0;
    int ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0;
    if (ok) {
        pthread_cond_destroy(&mon.cv);
        ok = pthread_cond_init(&mon.cv, &ca) == 0;
    }
    pthread_condattr_destroy(&ca);
    mon.quit = 0;
    if (!ok || pthread_create(&mon.th, NULL, watch_main, NULL) != 0)
        return 0;
    mon.started = 1;
    mon.pid = getpid();
    return 1;
}

void gl_run_watch_start(struct gl_run_watch *w, int cores_used, const char *gpu_uuid)
{
    memset(w, 0, sizeof *w);
    w->cores_used = cores_used > 0 ? cores_used : 1;
    snprintf(w->uuid, sizeof w->uuid, "%s", gpu_uuid ? gpu_uuid : "");
    if (mon.started && mon.pid != getpid()) {   /* a fork's child: the thread stayed behind */
        pthread_mutex_init(&mon.mu, NULL);
        pthread_cond_init(&mon.cv, NULL);
        mon.started = 0;
        mon.cur = NULL;
    }
    pthread_mutex_lock(&mon.mu);
    if (monitor_started()) {
        mon.cur = w;
        w->started = 1;
    }
    pthread_mutex_unlock(&mon.mu);
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
    struct watch_sample s;
    pthread_mutex_lock(&mon.mu);
    mon.cur = NULL;
    w->started = 0;
    int own = w->samples + w->unreadable > 0;
    /* the process's first run may end before the thread's first sample: it
     * waits for that one (as long as a sample takes; once per worker) */
    while (!own && !mon.have_last && !mon.quit)
        pthread_cond_wait(&mon.cv, &mon.mu);
    int have = mon.have_last;
    s = mon.last;
    if (w->uuid[0]) {
        w->gpulabs = mon.gpulabs;
        w->gpulab_pid = mon.gpulab_pid;
    }
    pthread_mutex_unlock(&mon.mu);
    if (!own && have)   /* shorter than the thread's period: the latest sample */
        add_sample(w, &s);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    gl_run_watch_verdict(w, ncpu > 0 ? (int)ncpu : 1, r->contaminated, sizeof r->contaminated);
}

void gl_run_watch_shutdown(void)
{
    if (!mon.started || mon.pid != getpid())
        return;
    pthread_mutex_lock(&mon.mu);
    mon.quit = 1;
    mon.cur = NULL;
    pthread_cond_broadcast(&mon.cv);
    pthread_mutex_unlock(&mon.mu);
    pthread_join(mon.th, NULL);
    mon.started = 0;
}

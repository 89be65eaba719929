/* run_watch.h - what the worker sees of the machine while one run is measured,
 * so that a run measured on a busy host is marked (gl_result.contaminated,
 * stored as run.contaminated; docs/measurement.md, "contaminated"): a thread
 * samples, every GL_WATCH_EVERY_MS from the run's start to its end, the
 * runnable tasks beside the worker's own threads (hostload.h), and for a GPU run
 * other gpulab processes holding the GPU (once) and NVML's clock event reasons
 * (gpuclocks.h). The run is contaminated when, on average over the samples, the
 * other runnable tasks reach the CPUs the run leaves free plus one half (a CPU
 * run of T threads on C CPUs: C - T + 0.5; a GPU run uses one), when another
 * gpulab holds its GPU, or when the GPU's clock was slowed by a thermal,
 * hardware or power-brake event.
 * Must not touch the run itself; costs one thread waking every 50 ms, and at
 * the run's end one last sample (the thread is woken, not waited for). */
#ifndef GL_RUN_WATCH_H
#define GL_RUN_WATCH_H

#include <pthread.h>

#include "gpulab.h"

#define GL_WATCH_EVERY_MS 50

struct gl_run_watch {
    pthread_t th;
    pthread_mutex_t mu;       /* stop and the thread's wait: a stop wakes it at once, */
    pthread_cond_t cv;        /* so ending a run costs no part of a period */
    int started;
    int stop;
    int cores_used;           /* CPUs the run keeps busy */
    char uuid[128];           /* the GPU's ("" a CPU run) */
    /* what the thread saw */
    int samples, unreadable;
    double others_sum, others_max;
    long gpulabs;             /* other gpulab processes holding the GPU */
    int gpulab_pid;
    unsigned long long events;   /* NVML clock event reasons seen */
    int min_mhz;              /* the lowest SM clock NVML gave (0 unknown) */
};

/* Start watching a run that keeps cores_used CPUs busy, on the GPU gpu_uuid
 * (NULL or "": a CPU run). Not watched at all when the thread cannot start. */
void gl_run_watch_start(struct gl_run_watch *w, int cores_used, const char *gpu_uuid);

/* Stop, and write what was seen into r->contaminated ("" when nothing). */
void gl_run_watch_stop(struct gl_run_watch *w, struct gl_result *r);

/* The verdict from what was seen (ncpu: the machine's CPUs): why, or "" clean.
 * Separate from the thread for the tests. */
void gl_run_watch_verdict(const struct gl_run_watch *w, int ncpu, char *why, size_t len);

#endif

/* run_watch.h - what the worker sees of the machine while one run is measured,
 * so that a run measured on a busy host is marked (gl_result.contaminated,
 * stored as run.contaminated; docs/measurement.md, "contaminated"): one thread
 * per worker process (started with its first watched run, kept for the
 * process's life) samples, every GL_WATCH_EVERY_MS, the runnable tasks beside
 * the worker's own threads (hostload.h), and while a GPU run is watched NVML's
 * clock event reasons (gpuclocks.h) and, at most once a GL_WATCH_SCAN_S, other
 * gpulab processes holding the GPU. Each sample is added to the run being
 * watched; a run that ends before a sample of its own falls in takes the
 * latest one (at most one period old). The run is contaminated when, on
 * average over its samples, the other runnable tasks reach the CPUs the run
 * leaves free plus one half (a CPU run of T threads on C CPUs: C - T + 0.5; a
 * GPU run uses one), when another gpulab holds its GPU, or when the GPU's
 * clock was slowed by a thermal, hardware or power-brake event.
 * Must not touch the run itself, nor cost a run more than a lock at its start
 * and end (the sampling is the thread's: on an H100 a thread per run with a
 * sample at its end cost 3-4 ms a run, bench/README 2026-11-28); the worker's
 * first run alone may wait for the thread's first sample. */
#ifndef GL_RUN_WATCH_H
#define GL_RUN_WATCH_H

#include <stddef.h>

#include "gpulab.h"

#define GL_WATCH_EVERY_MS 50
#define GL_WATCH_SCAN_S 1.0   /* other gpulabs on the GPU: looked for at most this often */

struct gl_run_watch {
    int started;              /* being watched (the thread adds its samples) */
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
 * (NULL or "": a CPU run); one run at a time. Not watched at all when the
 * thread cannot start. */
void gl_run_watch_start(struct gl_run_watch *w, int cores_used, const char *gpu_uuid);

/* Stop, and write what was seen into r->contaminated ("" when nothing). */
void gl_run_watch_stop(struct gl_run_watch *w, struct gl_result *r);

/* End the sampling thread (the worker, before it shuts the GPU plugin and NVML
 * down: no sample may be under way then). Nothing when none runs. */
void gl_run_watch_shutdown(void);

/* The verdict from what was seen (ncpu: the machine's CPUs): why, or "" clean.
 * Separate from the thread for the tests. */
void gl_run_watch_verdict(const struct gl_run_watch *w, int ncpu, char *why, size_t len);

#endif

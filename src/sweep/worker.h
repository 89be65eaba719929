/* worker.h - the worker process that runs jobs for the parent. The parent forks it
 * before any CUDA call, sends one job (or one batch of jobs) at a time over a
 * pipe and reads the results back; a crash, a sticky CUDA error or a watchdog timeout kills only the worker,
 * which is restarted for the next job. The parent stays the only SQLite writer.
 * Several workers (one per GPU, `run --gpus`) are driven at once through
 * gl_worker_submit / gl_worker_wait / gl_worker_step.
 * Must not touch the store, print progress or parse configs. */
#ifndef GL_WORKER_H
#define GL_WORKER_H

#include <sys/types.h>
#include "gpulab.h"
#include "config.h"

/* What the worker reports when it starts. */
struct gl_ready {
    int gpu_ok;                       /* 1 = GPU initialised */
    char why[GL_REASON_MAX];          /* why not, when gpu_ok == 0 */
    struct gl_device gpu;
};

struct gl_worker {
    pid_t pid;              /* 0 = not running */
    int to_child, from_child;
    int want_gpu;
    /* CUDA_VISIBLE_DEVICES the worker runs under ("" = the driver's own, untouched):
     * set by the caller before the first start; `run --gpus` gives each worker
     * one GPU, which it then sees as its device 0 */
    char visible[256];
    struct gl_ready ready;  /* from the latest start */
    int starts;             /* how many times a worker was started */
    /* Called every wait_every seconds while a job runs (0: never), with the
     * seconds since it started: `run`'s heartbeat when stdout is no terminal. */
    void (*on_wait)(void *arg, double elapsed);
    void *wait_arg;
    double wait_every;
    double job_started, next_wait;   /* gl_now() of the job in flight (0: none), next call */
    /* The unit in flight, from gl_worker_submit until gl_worker_step says it is
     * complete: jobs[0..n), their results res[0..got) so far. */
    struct gl_job *jobs;    /* GL_BATCH_MAX of each, allocated by the first submit */
    struct gl_result *res;
    int n, got;
    int busy;               /* a unit is in flight */
    int single;             /* its jobs go one at a time: a lone job, or the rest of a
                               batch whose worker ended */
    int lost;               /* the worker ended during the unit (a sticky CUDA error,
                               a crash, a hang): the runs it profiled together may
                               have lost their counters to another run */
    double deadline;        /* gl_now() by which the awaited result must come */
};

/* Fork a worker; want_gpu initialises device 0 in it through the GPU plugin's
 * device operations (gl_registry_load must have run: the child inherits it),
 * under w->visible when set. Waits for its ready report. 0, or -1 + err if the
 * worker could not start. */
int gl_worker_start(struct gl_worker *w, int want_gpu, char *err, size_t errlen);
/* The same in two halves, so that several workers initialise their GPUs at
 * once: fork (0, or -1 + err), then wait for the ready report (0, or -1 + err;
 * the worker is gone then). */
int gl_worker_spawn(struct gl_worker *w, int want_gpu, char *err, size_t errlen);
int gl_worker_await(struct gl_worker *w, char *err, size_t errlen);

/* How many GPUs the GPU plugin's count operation sees (CUDA_VISIBLE_DEVICES
 * applied), asked in a child process made for that: the driver never
 * initialises CUDA itself, since its workers are forked from it. >= 0, or -1
 * with err (no GPU plugin, no usable driver, the child died). */
int gl_worker_count_gpus(char *err, size_t errlen);

/* Ask the worker to validate a metrics spec on the GPU. Returns passes (>= 0),
 * -1 counters unavailable, -2 unknown name (err says which), -3 worker trouble. */
int gl_worker_metrics(struct gl_worker *w, const char *spec, char *err, size_t errlen);
/* The same in two halves, so that the worker sets its profiler up while the
 * driver does something else (compiles the kernels): send the spec (0; -2 or
 * -3 + err as above), then read its answer (as gl_worker_metrics). Answers
 * come in the order the specs were sent; each reply is about 1 KiB, so ask at
 * most a few dozen ahead of reading (a pipe holds 64 KiB). */
int gl_worker_metrics_ask(struct gl_worker *w, const char *spec, char *err, size_t errlen);
int gl_worker_metrics_answer(struct gl_worker *w, char *err, size_t errlen);

/* Have the worker measure its GPU's copy bandwidth (GB/s, read + written): a
 * measurement, so only while the sweep holds the GPU's lock. 0 when there is
 * no GPU or it cannot be measured (a worker that does not answer is stopped;
 * the next job starts another). */
double gl_worker_copy_bandwidth(struct gl_worker *w);

/* Have the worker measure its GPU's memory ceilings (gl_device_ops.ceilings),
 * under the GPU's lock as the copy bandwidth. 0 all measured, 1 some or none
 * (c->why says which and why; a worker that does not answer, or whose context
 * the measurement lost, is stopped and the next job starts another). */
int gl_worker_ceilings(struct gl_worker *w, struct gl_ceilings *c);

/* Run one job. Always fills r: the worker's result, or a failed result saying
 * the worker died (signal, exit status) or the watchdog fired after the job's
 * timeout. A dead worker is restarted on the next call. 0; -1 if no worker
 * could be started (err says why); -2 if SIGINT or SIGTERM came (interrupt.h):
 * the signal was forwarded to the worker, which is gone, and r is not to be
 * stored. */
int gl_worker_run(struct gl_worker *w, const struct gl_job *job, struct gl_result *r,
                  char *err, size_t errlen);

/* Workers of one sweep at most: one per GPU (`run --gpus`). */
#define GL_GPUS_MAX 16

/* Jobs sent to the worker together, at most: their GPU runs are profiled in one
 * CUPTI collection (cupti/profiler.h, GLC_BATCH_MAX). */
#define GL_BATCH_MAX 64

/* Run n jobs (n <= GL_BATCH_MAX) as one batch: every job is timed and verified
 * in turn, then the GPU runs are profiled together. Fills res[0..n). If the
 * worker dies or hangs during the batch, the jobs without a result are run
 * again one at a time (as gl_worker_run), so a crash is recorded on the job
 * that causes it. 0; -1 if no worker could be started (err says why); -2 if
 * the worker was interrupted by SIGINT or SIGTERM (to it, or to the parent,
 * which forwards it): nothing in res is to be stored. */
int gl_worker_run_batch(struct gl_worker *w, const struct gl_job *jobs, int n,
                        struct gl_result *res, char *err, size_t errlen);

/* ---- several workers at once (`run --gpus`): the same units, not waited for.
 * gl_worker_submit sends jobs[0..n) (n <= GL_BATCH_MAX; one job, or a batch as
 * gl_worker_run_batch) and returns at once; the results come back into
 * w->res as gl_worker_step reads them, with the same handling of a worker that
 * dies, hangs or ends after a sticky error as the blocking calls above (which
 * are these two in a loop). Both return 0 while the unit is in flight, 1 once
 * w->res[0..n) is complete (w->busy is then 0), -1 when no worker could be
 * started (err says why), -2 when SIGINT or SIGTERM came (the worker was ended:
 * nothing of the unit is to be stored). gl_worker_step blocks until the next
 * message, the deadline or a signal: call it when gl_worker_wait says so. */
int gl_worker_submit(struct gl_worker *w, const struct gl_job *jobs, int n, char *err,
                     size_t errlen);
int gl_worker_step(struct gl_worker *w, char *err, size_t errlen);
/* Wait until a busy worker of ws[0..n) has a message to read or has passed its
 * deadline (ready[i] = 1 for each such), calling on_wait of the busy ones as
 * their heartbeats fall due. The number of ready workers, or -3 when SIGINT or
 * SIGTERM came (then gl_worker_interrupt every busy one). */
int gl_worker_wait(struct gl_worker *const *ws, int n, int *ready);
/* Forward the signal that came to w's worker and reap it; its unit is dropped. */
void gl_worker_interrupt(struct gl_worker *w);

void gl_worker_stop(struct gl_worker *w);

#endif

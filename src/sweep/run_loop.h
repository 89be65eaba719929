/* run_loop.h - the loop of `gpulab run` over one config's jobs: hand them out
 * to the sweep's workers (handout.h: in plan order with one worker, by expected
 * cost with one worker per GPU, `run --gpus`), wait for whichever worker
 * answers, store each result as it arrives (the driver stays the only SQLite
 * writer; a GPU run is stored under the device row of the GPU that ran it),
 * print its line and the progress, and profile again, in a fresh worker, the
 * ok runs whose counters another run of their batch took (a later run lost the
 * CUDA context, or the batch's replay failed in another run): they are stored
 * only with their own counters, or not at all, so that the next `run` measures
 * them. Must not prepare the sweep, take device locks or print the summary
 * (cmd_run.c does). */
#ifndef GL_RUN_LOOP_H
#define GL_RUN_LOOP_H

#include "progress.h"
#include "handout.h"
#include "selfprof.h"
#include "sweep.h"

struct gl_run_loop;

/* What a worker's heartbeat (worker.h on_wait) needs to name its run. */
struct gl_run_tick {
    struct gl_run_loop *rl;
    int slot;
};

struct gl_run_loop {
    struct gl_sweep *sw;
    gl_store *store;
    const char *db;                 /* its file, for messages */
    struct gl_progress pg;
    struct gl_selfprof *sp;         /* --profile-self, else NULL */
    int batch_max;                  /* GPULAB_BATCH, 1..GL_BATCH_MAX */
    double min_unit;                /* GPULAB_UNIT_MIN: smallest batch budget, seconds */
    double spec_cost;               /* GPULAB_SPEC_COST: a worker's change of metrics spec, s */
    /* what happened, for the summary */
    int n_ok, n_wrong, n_failed, n_skipped;
    int n_done, n_rejected, n_nogpu, n_elsewhere, n_other;   /* n_other: other shards' */
    int n_searched;                 /* searches run (or resumed) */
    int n_redone;                   /* runs profiled again: another run took their counters */
    int n_unredone;                 /* such runs not stored: the sweep stopped first */
    int storage_error;              /* something could not be stored, even on the retry */
    int n_lost;                     /* finished runs not stored */
    int worker_error;               /* no worker could be started */
    int interrupted;                /* SIGINT or SIGTERM: the runs in flight were dropped */
    /* the config being run */
    int ci;
    long long session;
    const struct gl_config *c;
    struct gl_handout handout;
    unsigned char *attempt;         /* per job of the config: times redone */
    int unit_job[GL_GPUS_MAX][GL_BATCH_MAX];   /* each worker's unit: job indices */
    double unit_t0[GL_GPUS_MAX];    /* gl_now() when it was handed out */
    double unit_wall[GL_GPUS_MAX];  /* its wall clock start (run.started_at) */
    struct gl_run_tick tick[GL_GPUS_MAX];
    /* batchable()'s cache: the metrics text resolved last and whether it profiles */
    const char *spec_seen;
    int spec_checked, spec_profiles;
};

/* Ready to run the sweep's configs: the progress (total from the survey), the
 * heartbeat of every worker when stdout is no terminal. */
void gl_run_loop_init(struct gl_run_loop *rl, struct gl_sweep *sw, gl_store *store,
                      const char *db, struct gl_selfprof *sp);
/* Run config ci's jobs in session `session`, all but its searched sections'
 * (run_config.c runs those next, through gl_run_jobs). 0, or -1 when the sweep
 * must stop (interrupted, a storage error, no worker: rl's fields say which). */
int gl_run_config_jobs(struct gl_run_loop *rl, int ci, long long session);
/* Run jobs[0..n) of the current config (gl_run_config_jobs') now: claimed,
 * handed out, stored, as any other. A search (search.c) runs its batches so.
 * 0, or -1 when the sweep must stop. */
int gl_run_jobs(struct gl_run_loop *rl, const int *jobs, int n);
/* A storage error on stderr: the file and SQLite's message, then what. */
void gl_run_storage_message(struct gl_run_loop *rl, const char *what);
void gl_run_loop_end(struct gl_run_loop *rl);

/* "family/variant params" of a job. */
void gl_job_label(const struct gl_job *job, char *buf, size_t len);

#endif

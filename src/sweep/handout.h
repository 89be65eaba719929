/* handout.h - the hand-out of one config's jobs to the workers of `gpulab run`,
 * one unit at a time: one job, or a batch of GPU jobs with the same metrics
 * spec (at most batch_max) that the worker runs in one trip and, with counters,
 * profiles together.
 *
 * Either way the GPU jobs are grouped by spec, in the order the
 * specs first appear: a worker configures the counters of a spec once (a
 * CUPTI configuration and range profiler object, ~0.3 s on an H100), not once
 * per section that switches between specs.
 *
 * In plan order (one worker, `run` without --gpus): the jobs in the config's
 * order (the grouped GPU jobs in the places GPU jobs had); GPU jobs are
 * gathered into a batch until it is full or the spec changes, and the CPU
 * jobs run at once, ahead of the gathered batch
 * (so that a CPU baseline between two GPU runs does not split their batch).
 *
 * By cost (`run --gpus`): first the jobs that will not run (done, rejected: the
 * claim accounts for them), then the CPU jobs in plan order, each alone (no
 * other unit in flight: GPU workers' host work would disturb a CPU timing),
 * then the GPU jobs spec by spec, each spec's by expected cost, largest first. With several workers a
 * batch takes jobs from the front while their cost fits in a budget of the
 * cost still left / (2 x workers), but at least min_unit (not for runs without
 * counters: GL_HANDOUT_LIGHT) and at least its first job: big units early, small
 * ones at the end, so that the workers finish close together (Hummel's factoring,
 * weighted by cost), and none so small that the profiling session a batch costs
 * outweighs what it balances; with one worker a batch is only capped by batch_max.
 *
 * Either way a job is claimed (the caller's claim function) only when it is
 * handed out, and the jobs to run again on one worker (runs whose counters
 * another run of their batch took: gl_handout_redo) go before anything else on
 * that worker.
 * Must not know the store, the workers or the configs: the caller's claim does. */
#ifndef GL_HANDOUT_H
#define GL_HANDOUT_H

#include "worker.h"   /* GL_BATCH_MAX */

#define GL_HANDOUT_SLOTS GL_GPUS_MAX   /* workers at most (GPUs of one sweep) */

enum {
    GL_HANDOUT_CPU = 1,    /* runs on the host CPU: alone, when by cost */
    GL_HANDOUT_BATCH = 2,  /* a GPU job that profiles counters: batched with its spec */
    GL_HANDOUT_NORUN = 4,  /* will not run (done, rejected, no GPU): only its claim is called */
    GL_HANDOUT_LIGHT = 8   /* a batched GPU job without counters: its batch starts no
                              collection (no smallest unit, no cost to take its spec) */
};

struct gl_handout_job {
    int job;        /* the caller's index */
    double cost;    /* expected cost (seconds, or any unit every job shares); >= 0 */
    int spec;       /* metrics spec: a batch holds one */
    unsigned flags; /* GL_HANDOUT_* */
};

/* 1: the job is the caller's to run (claimed); 0: it does not run (done,
 * claimed elsewhere, rejected: the caller has said and counted so); -1: stop. */
typedef int (*gl_handout_claim_fn)(void *arg, int job, int slot);

struct gl_handout {
    struct gl_handout_job *q;   /* hand-out order (owned) */
    unsigned char *taken;     /* q[i] handed out or dropped (owned) */
    int n, cursor;            /* q[0..cursor) are all taken */
    int nworkers, batch_max, by_cost;
    double min_unit;          /* smallest batch budget (cost units) */
    double left;              /* cost of the GPU jobs not yet taken */
    int inflight;             /* units handed out and not finished */
    int alone_slot;           /* the worker running a CPU unit alone, or -1 */
    int stopped;              /* a claim said stop */
    int pend[GL_BATCH_MAX], npend, pend_spec;   /* plan order: the batch being gathered */
    /* by cost, several workers: the spec each worker profiled last (-1 none;
     * a worker stays on it until it takes another) and the cost a worker pays
     * to change its spec (gl_handout_set_spec_cost) */
    int on_spec[GL_HANDOUT_SLOTS];
    double spec_cost;
    int redo[GL_HANDOUT_SLOTS][GL_BATCH_MAX];     /* caller's job indices to run again */
    int nredo[GL_HANDOUT_SLOTS], redo_single[GL_HANDOUT_SLOTS];
    gl_handout_claim_fn claim;
    void *arg;
};

/* Order jobs[0..n) (copied) for handing out. 0, or -1 (out of memory). */
int gl_handout_init(struct gl_handout *s, const struct gl_handout_job *jobs, int n, int nworkers,
                  int batch_max, int by_cost, double min_unit, gl_handout_claim_fn claim,
                  void *arg);
/* By cost with several workers: what a worker pays when it changes its
 * metrics spec (a new counter collection: the range profiler object, its
 * configuration; ~0.3 s on an H100), in the jobs' cost unit. A worker keeps to
 * the spec it has while jobs of it are left; when none are, it takes the spec
 * with the most cost left that no other worker is on, else joins the one with
 * the most cost left per worker on it, when that is more than spec_cost; else
 * it waits (0) for the others to end. So each worker pays each spec's start
 * once at most, specs spread over the workers before any is shared, and a
 * short tail is not split at the price of a second start. 0 by default. */
void gl_handout_set_spec_cost(struct gl_handout *s, double cost);
/* The next unit for worker `slot`: the caller's job indices in out[0..k)
 * (out has room for GL_BATCH_MAX). k > 0: a unit (counted in flight until
 * gl_handout_finished); 0: nothing for this worker now (everything handed out,
 * or a CPU job waits to run alone); -1: a claim said stop. */
int gl_handout_next(struct gl_handout *s, int slot, int *out);
/* The unit handed to `slot` is over (stored, or dropped). */
void gl_handout_finished(struct gl_handout *s, int slot);
/* Jobs (already claimed) to run again on `slot` before anything else: as one
 * unit, or one at a time (single). n <= GL_BATCH_MAX, once per unit. */
void gl_handout_redo(struct gl_handout *s, int slot, const int *jobs, int n, int single);
/* 1 when nothing is left to hand out (units may still be in flight). */
int gl_handout_empty(const struct gl_handout *s);
void gl_handout_free(struct gl_handout *s);

#endif

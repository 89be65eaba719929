/* sweep.h - what `gpulab run` and `gpulab plan` share: load and check the configs,
 * start the worker (which tells whether a GPU is here; with `run --gpus`, one
 * worker per GPU, each seeing only its own), expand every config against that device,
 * compile every distinct user kernel point (kernel sections) through the GPU
 * plugin and every C reference (verify = c:FILE:FUNC) with cc, validate metric names on the GPU, and classify each job (run, done,
 * rejected by check, no GPU, run by another process, another shard's: shard.h).
 * Must not print progress or results: the commands do. */
#ifndef GL_SWEEP_H
#define GL_SWEEP_H

#include "config.h"
#include "devlock.h"
#include "selfprof.h"
#include "shard.h"
#include "store.h"
#include "worker.h"

#include <stdio.h>

enum gl_job_state {
    GL_JOB_RUN,        /* will run */
    GL_JOB_DONE,       /* an ok result with the same key is stored */
    GL_JOB_REJECTED,   /* the variant's check() refused the launch: stored as skipped */
    GL_JOB_NO_GPU,     /* GPU variant, no usable GPU here */
    GL_JOB_ELSEWHERE,  /* another process runs it (a live claim), or ran it since this
                          sweep's survey (gl_sweep_survey) */
    GL_JOB_OTHER_SHARD /* another shard's (--shard I/N, shard.h): not run, not stored */
};
#define GL_JOB_STATES 6

/* The size of gl_sweep.clocks_why: a reason per group of GPUs. */
#define GL_CLOCKS_WHY_MAX (4 * GL_REASON_MAX)

struct gl_sweep {
    int nconfigs;
    struct gl_config *configs;
    struct gl_expansion *exps;     /* one per config */
    int force;
    /* The workers: one, as gpulab always ran (GPU 0 as the driver sees it, if
     * any), or with `run --gpus` one per GPU, each under CUDA_VISIBLE_DEVICES of
     * its own GPU. Slot i runs on gpus[i]; CPU jobs run on any slot. */
    int nworkers;                  /* >= 1 once prepared */
    int multi;                     /* `run --gpus` was given (jobs go by cost) */
    struct gl_worker workers[GL_GPUS_MAX];
    struct gl_device gpus[GL_GPUS_MAX];
    long long gpu_ids[GL_GPUS_MAX];   /* device rows of gpus[] (0 = none) */
    int gpu_num[GL_GPUS_MAX];      /* each GPU's number in --gpus (CUDA's ordinal as
                                      the driver's environment shows it) */
    int model_first[GL_GPUS_MAX];  /* slots that are the first of their model */
    int nmodels;
    int gpu_wanted;                /* some section lists a GPU variant */
    int gpu_ok;
    char gpu_why[GL_REASON_MAX];
    struct gl_device gpu, cpu;     /* gpu: slot 0's, the one the plan is expanded for */
    long long gpu_id, cpu_id;      /* device rows (0 = none); gpu_id is slot 0's */
    int counters;                  /* passes of the first GPU metrics spec; -1 unavailable */
    double prep_s[GL_PREP_PARTS];  /* gl_sweep_prepare's steps, seconds (selfprof.h) */
    char counters_why[1024];
    /* user kernels: compiled before anything runs */
    int arch;                      /* compute capability compiled for (90 = sm_90); 0 = none;
                                      with --arch 90a (target.h) every kernel section without
                                      its own `arch` gets that target when it is read */
    char targets[64];              /* the targets compiled for: "sm_90" or "sm_90, sm_90a" */
    char devvals_said[400];        /* what plan assumed of sm_count and occupancy() ("" none) */
    int nkernels;                  /* distinct kernel points that needed a compilation */
    int nkernels_cached;           /* of which the kernel cache had */
    int nprograms;                 /* programs compiled now (the points of one program -
                                      source, options, -D list - compile together) */
    char kernels_why[GL_REASON_MAX];   /* why kernel points were not compiled ("" = they were) */
    int ncrefs;                    /* C references (verify = c:FILE.c:FUNC) built or found */
    int ncrefs_cached;             /* of which the kernel cache had */
    unsigned char *surveyed;       /* each job's state at gl_sweep_survey, jobs of all
                                      configs in order; NULL before the survey */
    long long surveyed_last;       /* the highest run id stored at the survey */
    struct gl_devlocks locks;      /* the devices this sweep measures (gl_sweep_lock) */
    /* the GPUs' clocks (gpuclocks.h), set by gl_sweep_lock: */
    int clocks_base;               /* asked: `run --clocks base` (set before gl_sweep_lock) */
    int clocks_locked;             /* how many of the sweep's GPUs it locked to base */
    int clocks_gpus;               /* how many GPUs gl_sweep_lock dealt with (0: no GPU job) */
    char clocks_why[GL_CLOCKS_WHY_MAX];   /* what was done, or why not ("": no GPU
                                         job); with several GPUs, per GPU:
                                         "GPU 0,1: text | GPU 2: text" (gpu_num) */
    struct gl_shard shard;         /* the slice of the plan this process runs (count 0:
                                      all); set by the command after gl_sweep_prepare */
};

/* How far compiling the users' kernels is (gl_sweep_watch), told about once a
 * second while it takes more than a second, and once more at its end. */
struct gl_compile_status {
    int kernels_done;              /* kernel points answered (compiled or from the cache) */
    int kernels_total;
    int programs_left;             /* compilations (programs, C references) not finished */
    double seconds;                /* since compiling began */
    int final;                     /* 1: the last call (compiling is over) */
};
struct gl_sweep_watch {
    void (*fn)(void *ctx, const struct gl_compile_status *st);
    void *ctx;
};

/* Everything up to the first run. arch: the compute capability to compile
 * user kernels for when no GPU is here (0 = 90). gpus: `run --gpus` ("all" or
 * "0,2": CUDA's ordinals as this process's environment shows them), NULL for
 * one worker on GPU 0. watch (may be NULL) hears how compiling goes. Returns 0,
 * or 2 (config/usage error, or a user kernel that does not compile: err has
 * "file:line: ..." and the compiler's log; a GPU --gpus names that is not here:
 * err has "gpulab: --gpus ..."), or 1 (other failure, a GPU of --gpus that does
 * not initialise: err says what). */
int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, const char *gpus, gl_store *store,
                     const struct gl_sweep_watch *watch, char *err, size_t errlen);
/* The syntax of a --gpus value: 0, or -1 with err. */
int gl_sweep_gpus_syntax(const char *gpus, char *err, size_t errlen);
/* sweep_compile.c: step 3b of gl_sweep_prepare - every distinct user kernel
 * point (not rejected) and C reference compiled or found in the kernel cache,
 * the points of one program together, distinct programs in parallel child
 * processes (GPULAB_JOBS at most, else the cores). Fills nkernels,
 * nkernels_cached, nprograms, ncrefs, ncrefs_cached or kernels_why. 0, 2 (a
 * kernel or C reference does not compile, an option is refused, GPULAB_JOBS is
 * wrong: err has the config's file:line and the log) or 1 (out of memory, a
 * compile process died). */
int gl_sweep_compile(struct gl_sweep *sw, const struct gl_sweep_watch *watch, char *err,
                     size_t errlen);
/* sweep_compile.c: the kernels of jobs[0..n) of config ci that are not in the
 * kernel cache yet compiled into it in parallel child processes, as
 * gl_sweep_compile does, so that the worker that runs them finds them there: a
 * search asks for several points at once and compiles only what it asks. A
 * point that does not compile is left to its worker, which stores the failure.
 * 0, or -1 (out of memory, a compile process could not start: the worker
 * compiles them one by one then). */
int gl_sweep_compile_ahead(struct gl_sweep *sw, int ci, const int *jobs, int n);
/* A job's state now; another shard's job is GL_JOB_OTHER_SHARD before anything
 * else (its rejection is stored by its own shard). */
enum gl_job_state gl_sweep_state(struct gl_sweep *sw, gl_store *store, const struct gl_job *job);
/* The state of every job now (gl_sweep_state), kept as the sweep's starting
 * point; *need_cpu / *need_gpu say whether some job will run on that device
 * (those are the devices to lock). 0, or -1 (out of memory). */
int gl_sweep_survey(struct gl_sweep *sw, gl_store *store, int *need_cpu, int *need_gpu);
/* Just before job ji of config ci runs on worker `slot`: claim it in the store
 * (gl_store_claim) under the key of that worker's device (gl_sweep_key_on).
 * GL_JOB_OTHER_SHARD, without a claim, for another shard's job; GL_JOB_RUN when
 * the claim is ours; GL_JOB_DONE when it was done before the
 * survey; GL_JOB_ELSEWHERE when another process holds its claim or has stored
 * it (whatever its status, --force or not) since the survey; the rejected and no-GPU states as gl_sweep_state. -1 on
 * a store error (gl_store_errmsg). */
int gl_sweep_claim_on(struct gl_sweep *sw, gl_store *store, int ci, int ji, int slot);
/* The same on slot 0. */
int gl_sweep_claim(struct gl_sweep *sw, gl_store *store, int ci, int ji);
/* sweep_lock.c: survey the sweep, then take the device lock (devlock.h) of each
 * device some job will run on, the CPU first, then every GPU of the sweep by UUID
 * (an order every sweep shares, so two never wait for each other crosswise);
 * then, holding them, for each GPU by its worker: lock its clocks to base when
 * sw->clocks_base asks (NVML; sw->clocks_locked and clocks_why say what
 * happened), measure its copy bandwidth, and its memory ceilings when its
 * device row has none yet (stored on its row). wait 0: refuse when one is held. 0,
 * GL_DEVLOCK_BUSY, GL_DEVLOCK_STOPPED (*stop set while waiting) or -1, with err.
 * The locks are released by gl_sweep_free, after the worker has stopped. */
int gl_sweep_lock(struct gl_sweep *sw, gl_store *store, int wait, const char *cmdline,
                  volatile sig_atomic_t *stop, char *err, size_t errlen);
/* Warn on out (at the start of `run`) when the host is busy (runnable tasks
 * beside gpulab, or the 1-minute load, at or above the CPU count) or another
 * gpulab process is running (with separate lock folders, its lock does not
 * stop this one). */
void gl_sweep_warn_busy(const struct gl_sweep *sw, FILE *out);

/* sweep_lock.c: what the session records of the machine (gl_session_info's
 * facts): the load now, the time waited for the locks, the GPU check's reason,
 * and the GPU's clocks (asked, done, and NVML's readings now). */
void gl_sweep_facts(const struct gl_sweep *sw, struct gl_session_info *si);
/* sweep_lock.c: give back the clock locks gl_sweep_lock took (nothing when it
 * took none), before the device locks go. 0, or -1 with err (gl_sweep_free
 * tries again, silently). */
int gl_sweep_unlock_clocks(struct gl_sweep *sw, char *err, size_t errlen);
/* Resume key of a job (device chosen by the variant's device kind: the CPU, or
 * slot 0's GPU). */
void gl_sweep_key(const struct gl_sweep *sw, const struct gl_job *job, struct gl_run_key *k);
/* The same on worker `slot`: a GPU job's key is that worker's GPU (its model
 * for resuming, its device row for the run). */
void gl_sweep_key_on(const struct gl_sweep *sw, const struct gl_job *job, int slot,
                     struct gl_run_key *k);
/* sweep_cost.c: the expected cost of each job of config ci, in seconds, into
 * cost[0..njobs): from the latest ok run of its key when one is stored
 * (gl_store_run_cost), else from the analytic FLOP and byte counts against
 * slot 0's device (peak and bandwidth) scaled to the stored ones where both
 * exist, plus a fixed host overhead; 0 for a job that will not run. */
void gl_sweep_costs(struct gl_sweep *sw, gl_store *store, int ci, double *cost);
void gl_sweep_free(struct gl_sweep *sw);

#endif

/* sweep.h - what `gpulab run` and `gpulab plan` share: load and check the configs,
 * start the worker (which tells whether a GPU is here), expand every config against that device,
 * compile every distinct user kernel point (kernel sections) through the GPU
 * plugin and every C reference (verify = c:FILE:FUNC) with cc, validate metric names on the GPU, and classify each job (run, done,
 * rejected by check, no GPU).
 * Must not print progress or results: the commands do. */
#ifndef GL_SWEEP_H
#define GL_SWEEP_H

#include "config.h"
#include "store.h"
#include "worker.h"

enum gl_job_state {
    GL_JOB_RUN,        /* will run */
    GL_JOB_DONE,       /* an ok result with the same key is stored */
    GL_JOB_REJECTED,   /* the variant's check() refused the launch: stored as skipped */
    GL_JOB_NO_GPU      /* GPU variant, no usable GPU here */
};
#define GL_JOB_STATES 4

struct gl_sweep {
    int nconfigs;
    struct gl_config *configs;
    struct gl_expansion *exps;     /* one per config */
    int force;
    struct gl_worker worker;
    int gpu_wanted;                /* some section lists a GPU variant */
    int gpu_ok;
    char gpu_why[GL_REASON_MAX];
    struct gl_device gpu, cpu;
    long long gpu_id, cpu_id;      /* device rows (0 = none) */
    int counters;                  /* passes of the first GPU metrics spec; -1 unavailable */
    char counters_why[1024];
    /* user kernels: compiled before anything runs */
    int arch;                      /* compute capability compiled for (90 = sm_90); 0 = none */
    int nkernels;                  /* distinct kernel points that needed a compilation */
    int nkernels_cached;           /* of which the kernel cache had */
    char kernels_why[GL_REASON_MAX];   /* why kernel points were not compiled ("" = they were) */
    int ncrefs;                    /* C references (verify = c:FILE.c:FUNC) built or found */
    int ncrefs_cached;             /* of which the kernel cache had */
};

/* Everything up to the first run. arch: the compute capability to compile
 * user kernels for when no GPU is here (0 = 90). Returns 0, or 2 (config/usage
 * error, or a user kernel that does not compile: err has "file:line: ..." and
 * the compiler's log), or 1 (other failure: err says what). */
int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, gl_store *store, char *err, size_t errlen);
enum gl_job_state gl_sweep_state(struct gl_sweep *sw, gl_store *store, const struct gl_job *job);
/* Resume key of a job (device chosen by the variant's device kind). */
void gl_sweep_key(const struct gl_sweep *sw, const struct gl_job *job, struct gl_run_key *k);
void gl_sweep_free(struct gl_sweep *sw);

#endif

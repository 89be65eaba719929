/* selfprof.h - `gpulab run --profile-self`: where a sweep's wall time goes.
 * Per run, the phases the harness timed (gl_result.phase_ms), the worker's
 * whole run, the driver's store, and the device or CPU time of the kernels the
 * run executed (gl_result.busy_ms); the rest of its wall time is host
 * overhead. Prints one line per run and a table at the end.
 * Must not store anything or change how a run is made. */
#ifndef GL_SELFPROF_H
#define GL_SELFPROF_H

#include <stdio.h>

#include "gpulab.h"

#define GL_SP_PARTS (GL_STEPS + 5)

/* What goes before the first run (gl_sweep_prepare's steps, timed there):
 * reading the configs, starting the workers (their GPUs' contexts), the plan,
 * the compile, and the wait after it for the workers' counter set-up (asked
 * before the compile, so only what the compile did not hide). */
enum { GL_PREP_CONFIGS, GL_PREP_WORKERS, GL_PREP_PLAN, GL_PREP_COMPILE, GL_PREP_COUNTERS,
       GL_PREP_PARTS };
extern const char *const gl_prep_name[GL_PREP_PARTS];

struct gl_selfprof {
    FILE *out;
    int runs, gpu_runs, cpu_runs;
    double phase[GL_PHASES];   /* ms, summed over the runs */
    double wall, busy, ipc;    /* ms: each run's share of its batch's round trip, kernels, rest */
    double *gpu_over;          /* host overhead of each ok GPU run, ms (owned) */
    int ngpu_over, cap_gpu_over;
    /* each ok GPU run's overhead by part (GL_SP_PARTS columns a row, ms; owned):
     * the harness's steps (gl_step), then what the steps leave unnamed in the
     * harness, the worker around the run, the trip to and from it, the store */
    double *gpu_parts;
    int cap_parts;
    double *cpu_ratio;         /* wall / one run, CPU runs longer than their time cap (owned) */
    int ncpu_ratio, cap_cpu_ratio;
    double prepare_s;          /* before the first run, s */
    double prep_s[GL_PREP_PARTS];   /* ... its parts (the rest: the store, the banner) */
    int workers;               /* runs that went on at once (run --gpus: the GPUs) */
};

void gl_selfprof_init(struct gl_selfprof *sp, FILE *out);
/* One stored run: wall_ms is its share of its batch's round trip to the
 * worker, store_ms the time to store it; time_cap_s its timing policy's cap. */
void gl_selfprof_add(struct gl_selfprof *sp, const char *label, const char *device,
                     const struct gl_result *r, double wall_ms, double store_ms,
                     double time_cap_s);
/* A store that ended after its runs were added (a batch's commit): ms shared
 * evenly by the last nruns runs added, of which the last gpu_ok are ok GPU runs. */
void gl_selfprof_store_more(struct gl_selfprof *sp, int nruns, int gpu_ok, double ms);
/* The table: totals per phase, the median host overhead of GPU runs, the CPU
 * runs' wall against one run. total_s: the sweep's wall time. */
void gl_selfprof_report(const struct gl_selfprof *sp, double total_s);
void gl_selfprof_free(struct gl_selfprof *sp);

#endif

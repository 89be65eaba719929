/* cpu_harness.h - the harness every CPU baseline family shares, the CPU
 * counterpart of experiments/gpu/harness/gpu_harness.cuh. A family (cpu_matmul.c,
 * cpu_stencil.c, cpu_vecadd.c) checks its sizes and describes one run as a
 * struct gl_cpu_job: its inputs, its output, its kernel and its reference.
 * gl_cpu_execute() does everything else the same way for all of them: a fresh
 * result, the thread count, the buffers, the random inputs from the seed, the
 * instruction-set level of its dispatched kernel (cpu_dispatch.h) and the code
 * path it records, the float64 reference (full, or sampled for a large problem), the timing loop
 * (NaN poisoning, warm-up, samples timed with CLOCK_MONOTONIC until
 * gl_sampling_done; a first run that lasts the time cap is the only one) and
 * the verification of the last run. A user's plugin's CPU variant describes its run as a struct gl_host_job
 * (plugin.h) instead: gl_cpu_host_execute() (cpu_host.c) runs it the same way
 * with typed buffers, and is the CPU plugin's gl_host.cpu_execute.
 * Must not contain a family's kernels nor know which variants exist. */
#ifndef GL_CPU_HARNESS_H
#define GL_CPU_HARNESS_H

#include <stddef.h>

#include "cpu_dispatch.h"
#include "gpulab.h"
#include "plugin.h"

#define GL_CPU_MAX_IN 2          /* input arrays of one problem */
#define GL_CPU_MAX_THREADS 4096  /* more OpenMP threads than this: the run is skipped */

struct gl_cpu_job;

/* One run of a kernel: computes every element of j->out from j->in, with
 * j->threads OpenMP threads, the family's j->ctx and, for a dispatched kernel,
 * its functions of level j->isa (cpu_dispatch.h). */
typedef void (*gl_cpu_kernel)(const struct gl_cpu_job *j);

/* The float64 reference of the job's inputs (j->in), j->out_count values,
 * owned by the reference cache (valid until the next gl_ref_* call). NULL with
 * err on failure. */
typedef const double *(*gl_cpu_reference)(const struct gl_cpu_job *j, char *err,
                                          size_t errlen);

/* The float64 reference of output element i alone, from j->in. */
typedef double (*gl_cpu_ref_at)(const struct gl_cpu_job *j, size_t i);

/* How much checking a CPU run gets. A full reference costs about as much as
 * the run (matmul, stencil): past GL_CPU_FULL_WORK reference operations
 * (outputs x reduction length) the output is checked sampled instead: every
 * element written and finite, and GL_CPU_CHECK_POINTS elements chosen from the
 * seed compared with their reference (an error on a fraction f of the outputs
 * escapes with probability (1 - f)^GL_CPU_CHECK_POINTS: 3e-5 for f = 1 %). */
#define GL_CPU_FULL_WORK (1ll << 27)
#define GL_CPU_CHECK_POINTS 1024

/* One run of one variant, as the family describes it to gl_cpu_execute(). */
struct gl_cpu_job {
    /* set by the family */
    const struct gl_params *p;
    const struct gl_timing *t;
    struct gl_result *r;
    int nin;                                   /* 1..GL_CPU_MAX_IN */
    size_t in_count[GL_CPU_MAX_IN];            /* floats per input (>= 1) */
    unsigned long long in_stream[GL_CPU_MAX_IN]; /* random stream: 0 for A or the
                                                    stencil input, 1 for B */
    size_t out_count;                          /* floats of the output (>= 1) */
    gl_cpu_kernel kernel;
    gl_cpu_reference reference;
    gl_cpu_ref_at ref_at;                      /* one element's reference (sampled check) */
    const void *ctx;                           /* the family's own data (sizes) */
    long tol_len;                              /* reduction length for the tolerance */
    long row_len;                              /* output row length, to place mismatches */
    size_t work_count;                         /* scratch floats per thread (packing):
                                                  thread t's are j->work + t * work_count;
                                                  0: none */
    /* What ran, for the run's code path. A kernel that calls a library: library
     * says what it is (its name, version and build, where it was loaded from).
     * Else dispatched = 1: the kernel's loops exist for every level
     * (cpu_dispatch.h), and the harness picks one (j->isa; GPULAB_CPU_ISA may
     * force it) and records it; dispatched = 0: they are compiled once, for the
     * build's target, recorded as the lowest level (j->isa = GL_ISA_BASE, and
     * GPULAB_CPU_ISA does not apply). */
    const char *library;
    int dispatched;
    /* Non-empty when the sizes are out of range: the run is skipped with this
     * reason (after the thread check, before anything is allocated); the
     * counts above are then ignored. */
    char size_err[GL_REASON_MAX];
    /* set by the harness */
    unsigned long long seed;                   /* the input seed (unset: 42) */
    int threads;                               /* OpenMP threads for the kernel */
    int isa;                                   /* enum gl_isa of a dispatched kernel */
    float *in[GL_CPU_MAX_IN];
    float *out;
    float *work;                               /* threads x work_count floats, or NULL */
};

/* Run the job and fill j->r completely (but for the metrics_reason, which is
 * the worker's): status ok, wrong (verification), skipped (threads over
 * GL_CPU_MAX_THREADS, j->size_err set, or a level GPULAB_CPU_ISA forces that
 * is unknown or that this CPU lacks) or failed (out of memory, reference,
 * clock, a malformed job), each but ok with a reason; r->code_path says what
 * ran (j->library, or the level picked). Always returns 0: the host CPU is
 * never left unusable (the gl_variant.run convention). */
int gl_cpu_execute(struct gl_cpu_job *j);

/* Run a user's plugin job on the host CPU (gl_host.cpu_execute): a fresh
 * result, the variant's check, the thread count (p->threads, 0 or unset = every
 * processor; omp_set_num_threads before every run), the typed buffers and
 * their inits, the reference, the timing loop (outputs poisoned or reset
 * before every run, outside the timed interval) and the check of the last
 * run's outputs. Fills j->r completely; always returns 0. */
int gl_cpu_host_execute(const struct gl_host_job *j);

/* ---- the parts of gl_cpu_execute, for tests -------------------------------- */

/* A fresh result: status ok, no samples, nothing verified yet (max_rel_err -1),
 * no host<->device copies (h2d_ms = d2h_ms = -1), no launch shape, no code path. */
void gl_cpu_result_init(struct gl_result *r);

/* One execution as the timing loop sees it: prepare (poison or reset the
 * outputs) runs outside the timed interval, run inside; run returns 0, or -1
 * when the run failed (the result already says why). */
struct gl_cpu_step {
    void (*prepare)(void *arg);
    int (*run)(void *arg);
    void *arg;
};

/* The timing loop of every CPU run (gl_cpu_time, gl_cpu_host_execute), as
 * gl_cpu_time describes it, filling r's samples, busy time and phases. 0, or
 * -1 when the clock or a run failed (r then failed with the reason). */
int gl_cpu_timing_loop(const struct gl_timing *t, struct gl_result *r,
                       const struct gl_cpu_step *step);

/* Time j->kernel(j): a first run, timed; when it alone lasted t->max_seconds
 * it is the only sample (a long run executes once). Else it counts as the
 * first of j->t->warmup untimed runs (cut short once they have taken
 * t->max_seconds), then timed runs until gl_sampling_done (or GL_MAX_SAMPLES),
 * each preceded by filling j->out[0..out_count) with NaN outside the timed
 * interval. Samples (ms) go to j->r->samples_ms / nsamples. j->out holds the
 * last timed run's output afterwards. Returns 0, or -1 when the clock fails
 * (j->r then failed with the reason). */
int gl_cpu_time(const struct gl_cpu_job *j);

/* Verify out[0..n) against ref with the tolerance of a reduction of tol_len
 * terms; sets r->max_rel_err, and on a mismatch r->status = GL_WRONG with the
 * verification summary as reason. row_len places mismatches as (row, col).
 * Returns 1 when every element is within tolerance. */
int gl_cpu_check(struct gl_result *r, const float *out, const double *ref, size_t n,
                 long row_len, long tol_len);

/* The sampled check of j->out: every element finite (NaN marks one the run
 * never wrote), and npoints elements chosen from j->seed against j->ref_at.
 * Sets r->max_rel_err, r->check / check_points, and r wrong with the first
 * mismatch on failure. Returns 1 when all of it holds. */
int gl_cpu_check_sampled(const struct gl_cpu_job *j, int npoints);

#endif

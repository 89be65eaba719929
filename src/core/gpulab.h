/* gpulab.h - the plain structs every room of gpulab shares: a run's parameters,
 * its timing policy, its result, and the description of the device it ran on.
 * This header is C (included by nvcc-compiled .cu files too, inside extern "C").
 * It must not contain logic: functions live in the .c file of the room that owns them. */
#ifndef GPULAB_H
#define GPULAB_H

#include <stddef.h>

#define GL_VERSION "0.1.0"

#define GL_MAX_SAMPLES 1000   /* timed samples kept per run */
#define GL_MAX_METRICS 64     /* hardware-counter metrics per run */
#define GL_METRIC_NAME 160   /* a metric name and its NUL (longest recorded GH100 name: 115) */
#define GL_REASON_MAX 256
#define GL_WORD 24            /* short text parameters: mem, grid, cache */

/* Integer parameters that are not set hold GL_UNSET and are stored as NULL. */
#define GL_UNSET (-1L)

/* One run's parameters. Which ones a variant reads is in the registry; the
 * others stay unset so that the resume key and the stored row are exact.
 * The canonical list of parameters (names, types, meaning) is gl_param_table
 * in src/params.c: the config parser, the store and the docs all read it. */
#define GL_MAX_UPARAMS 16     /* named parameters of one kernel section */
#define GL_UPARAM_NAME 32     /* a named parameter's name and its NUL */
#define GL_MAX_LAUNCHES 256   /* launches of one run of a launch sequence (kernel sections) */
#define GL_MAX_LAUNCH_PROFILED 64   /* ... of which get counters of their own */
#define GL_LAUNCH_ITEMS 16    /* launch.NAME lines of a sequence (GL_KSEQ_MAX) */

/* A parameter a user's kernel section names (TILE = 16, 32) and its value. */
struct gl_uparam {
    char name[GL_UPARAM_NAME];
    long v;
};

struct gl_params {
    long n;        /* N: problem size (matrix side, vector length; columns of C for rect) */
    long m;        /* M: rows of A and C (non-square matmul) */
    long p;        /* P: inner dimension, columns of A = rows of B (non-square matmul) */
    long bs;       /* BS: block side (block BS x BS threads, or BS x K*BS, see variant) */
    long k;        /* K: outputs computed by one thread */
    long r;        /* R: stencil radius */
    long g;        /* G: grid blocks for grid-stride kernels (0 = 4 x SM count) */
    long threads;  /* threads: CPU threads for OpenMP baselines (0 = all cores) */
    long seed;     /* seed: input random seed */
    char mem[GL_WORD];   /* mem: device | zerocopy | managed */
    char grid[GL_WORD];  /* grid: 2d | 1d | block  (launch geometry, S3) */
    char cache[GL_WORD]; /* cache: cold | warm  (L2 flushed before each sample or not) */
    int nuser;           /* named parameters of a kernel section, sorted by name; unused */
    struct gl_uparam user[GL_MAX_UPARAMS];   /* slots stay zeroed (params compare whole) */
};

/* How a run is timed: warm-up, then samples until the relative standard error
 * of the mean falls under max_noise (with at least min_samples), or until
 * max_samples or max_seconds is reached. Warm-up stops early once the first
 * run and the warm-up together have lasted GL_WARMUP_SHARE of max_seconds; a
 * first run that alone lasts max_seconds is the run's only sample. */
#define GL_WARMUP_SHARE 0.25
struct gl_timing {
    int warmup;          /* untimed runs before sampling */
    int min_samples;
    int max_samples;     /* <= GL_MAX_SAMPLES */
    double max_noise;    /* e.g. 0.005 = 0.5 % */
    double max_seconds;  /* time cap for sampling one run */
    double timeout_s;    /* watchdog: the worker is killed after this (whole run) */
};

enum gl_status { GL_OK = 0, GL_WRONG = 1, GL_SKIPPED = 2, GL_FAILED = 3 };

/* Launch-guidance flags (lecture S4), stored per run as bits. */
enum {
    GL_GUIDE_FEW_BLOCKS = 1,     /* grid blocks < 2 x SM count */
    GL_GUIDE_NOT_WARP_MULT = 2,  /* threads per block not a multiple of 32 */
    GL_GUIDE_SMALL_BLOCK = 4,    /* < 64 threads per block while blocks > SMs */
    GL_GUIDE_OUTSIDE_REC = 8     /* threads per block outside 128..256 recommendation */
};

/* The resource that limits resident blocks per SM (gl_result.limiter). */
#define GL_LIMITER_REGS "registers"
#define GL_LIMITER_SMEM "shared"
#define GL_LIMITER_WARPS "warps"
#define GL_LIMITER_BLOCKS "blocks"

struct gl_metric {
    char name[GL_METRIC_NAME];  /* Nsight Compute name, or gpulab__* for our own */
    char unit[16];
    double value;
};

/* How a run's output was checked (gl_result.check). */
#define GL_CHECK_FULL "full"       /* every element against the float64 reference */
#define GL_CHECK_SAMPLED "sampled" /* every element written and finite; check_points
                                      random elements against the float64 reference */
#define GL_CHECK_WRITTEN "written" /* no reference: every element written */
#define GL_CHECK_NONE "none"       /* not verified: an output with an init and no reference
                                      (a kernel section's `verify = none`) */

/* gl_result.metrics_reason of a run whose counters another run of its
 * profiling batch took with it: the CUDA context was lost (a later run trapped
 * or faulted) before the batch was profiled, or the batch's replay failed in
 * another run (the reason then ends with GL_REASON_OTHER_RUN). `run` profiles
 * such a run again in a fresh worker instead of storing it ok without
 * counters, and an ok row an older gpulab stored with either reason does not
 * count as done (store_resume.c). */
#define GL_REASON_BATCH_LOST "not profiled: the CUDA context was lost in a later run of its batch"
#define GL_REASON_OTHER_RUN " (in another run of the batch)"

/* The phases of one run's wall time (gl_result.phase_ms). */
enum gl_phase {
    GL_PH_SETUP,     /* buffers, inputs, host<->device copies */
    GL_PH_VERIFY,    /* verification run(s) and output checks */
    GL_PH_WARMUP,    /* untimed warm-up runs */
    GL_PH_SAMPLES,   /* the timed samples, their flushes included */
    GL_PH_PROFILE,   /* counter replays (a batch's time shared among its runs) */
    GL_PH_RUN,       /* the whole run in the worker (the phases above and the rest) */
    GL_PH_STORE,     /* the driver storing it */
    GL_PHASES
};

/* The named steps of a GPU run's host time (gl_result.step_ms): the wall time
 * the harness spent in each, less the kernels' and flushes' time the run counts
 * as busy (gl_result.busy_ms) where the step ran them (verification run,
 * sampling, counter replays); the check's compare kernel is counted in its
 * step. --profile-self prints them (selfprof.c). */
enum gl_step {
    GL_ST_PREPARE,     /* the family's launch setup: kernel (compile cache, load),
                          arguments, buffer layout */
    GL_ST_RESOURCES,   /* launch shape, occupancy and the kernel's attributes */
    GL_ST_REFERENCE,   /* the expected outputs: reference kernel or host function, cache */
    GL_ST_ALLOC,       /* buffers allocated (or taken from the worker's pool) */
    GL_ST_INPUTS,      /* inputs generated from the seed (host or device) */
    GL_ST_UPLOAD,      /* the timed host -> device copies, less their device time */
    GL_ST_RESTORE,     /* a user's kernel: pristine copies of what goes back */
    GL_ST_FLUSH_SETUP, /* the L2-flush buffer made ready */
    GL_ST_VERIFY_RUN,  /* poison, flush, the verification launch and its wait */
    GL_ST_READBACK,    /* the timed device -> host copy of the outputs, less its device time */
    GL_ST_CHECK,       /* comparing outputs with the expected ones */
    GL_ST_SAMPLING,    /* warm-up and samples less their kernels and flushes: launches,
                          poison and resets, event waits */
    GL_ST_COUNTERS,    /* the run's own replays beyond its kernels: what CUPTI adds to
                          each of its ranges (measured in an auto-range session) */
    GL_ST_SESSIONS,    /* its share of its collection sessions' own work (start, stop,
                          decode, evaluation, a range-mode change) and of its batch's
                          outside them; in a user-range session all of it beyond the
                          kernels */
    GL_ST_SMEM,        /* the instrumented replay of the exact shared-memory conflicts */
    GL_ST_FREE,        /* buffers freed (or returned to the pool), the run's state released */
    GL_STEPS
};

/* A launch sequence's launch line (gl_result.launch_item) and one launch of
 * the run (gl_result.launch). */
struct gl_launch_item {
    char label[64];                /* NAME of launch.NAME */
    char kernel[256];              /* its kernel as compiled: reduce_pass<256> */
};
struct gl_launch_row {
    int item;                      /* index into launch_item */
    int iter;                      /* the loop variable's value (0 without a loop) */
    int grid[3], block[3];
    int dynamic_smem;
};

/* What a worker sends back for one run (fixed size: written whole to a pipe). */
struct gl_result {
    int status;                    /* enum gl_status */
    char reason[GL_REASON_MAX];    /* why skipped/failed/wrong; empty when ok */
    double max_rel_err;            /* against the float64 reference; <0 = not checked */
    int nsamples;
    double samples_ms[GL_MAX_SAMPLES];
    double h2d_ms, d2h_ms;         /* host<->device copies, timed apart; <0 = none */
    /* launch shape and resources (GPU runs; 0 when not applicable) */
    int launches;                  /* kernel launches that make up one run */
    int grid[3], block[3];
    int regs_per_thread, static_smem, dynamic_smem, local_bytes;
    int blocks_per_sm;             /* occupancy API: resident blocks per SM */
    double theo_occupancy;         /* percent */
    char limiter[16];              /* GL_LIMITER_*: the resource that limits blocks/SM */
    int limit_regs, limit_smem, limit_warps, limit_blocks; /* blocks/SM each allows */
    int guide_flags;               /* GL_GUIDE_* */
    /* hardware counters */
    int passes;                    /* profiler passes; 0 = not profiled */
    char metrics_reason[GL_REASON_MAX]; /* why metrics are absent, when they are */
    int nmetrics;
    struct gl_metric metrics[GL_MAX_METRICS];
    /* where the run's wall time went (gpulab run --profile-self), ms; the
     * harness fills what it did, the worker the whole run */
    double phase_ms[GL_PHASES];
    double watch_ms;               /* of GL_PH_RUN: the run watch's start and stop (worker) */
    /* how the output was checked (stored; docs/measurement.md, what "verified" means) */
    char check[16];                /* GL_CHECK_*; empty: not checked */
    long long check_points;        /* output elements compared with the reference */
    double busy_ms;                /* device or CPU time of the kernels it executed
                                      (verification, warm-up, samples, replays), their
                                      flushes and the timed copies (h2d_ms, d2h_ms);
                                      the rest of the wall is overhead */
    /* why the exact shared-memory conflicts (gpulab__smem_excess_*) are absent
     * when the run was profiled otherwise (stored as run.smem_excess_reason);
     * empty when they were measured or the run was not profiled at all; beside
     * values, the note saying which run measured them (src/core/smem_share.h) */
    char smem_reason[GL_REASON_MAX];
    /* what ran beneath the variant (stored as run.code_path): a built-in CPU
     * baseline's instruction-set level ("x86-64-v3 (AVX2, FMA)"), or the library
     * and its build it called ("OpenBLAS 0.3.21 ... Haswell ..."); empty: not
     * recorded (GPU kernels, users' plugins) */
    char code_path[GL_REASON_MAX];
    /* A kernel section's launch sequence (launches.h): each launch of the run
     * in order (nlaunch of them; 0: not a sequence), the launch.NAME line it
     * comes from (item: its label and kernel as compiled), its pass of that
     * line's loop and its shape; and the counters of launches 0 ..
     * nlaunch_profiled - 1 measured one by one (launch_values[i][m]: the value
     * of metrics[m] for launch i, NaN where not measured), or why not. */
    int nlaunch;
    int nlaunch_items;
    struct gl_launch_item launch_item[GL_LAUNCH_ITEMS];
    struct gl_launch_row launch[GL_MAX_LAUNCHES];
    int nlaunch_profiled;
    char launch_reason[GL_REASON_MAX];   /* why launches have no counters of their own */
    double launch_values[GL_MAX_LAUNCH_PROFILED][GL_MAX_METRICS];
    /* the energy of one launch (J) and the board's average power while the
     * launches of the run's energy window ran (W), from the GPU's total-energy
     * counter (stored as run.energy_j, run.avg_power_w); 0: not measured, with
     * energy_reason saying why (docs/measurement.md, energy) */
    double energy_j;
    double avg_power_w;
    char energy_reason[GL_REASON_MAX];
    /* the checks the timing was made under (run.integrity), GL_INTEGRITY_*
     * tokens joined by ","; empty: none recorded (a user's plugin's own run) */
    char integrity[GL_REASON_MAX];
    /* why the timing may be disturbed (run.contaminated): the host busy,
     * another gpulab on the device, a slowed clock; empty: nothing seen.
     * Filled by the worker around the run, never by a plugin. */
    char contaminated[GL_REASON_MAX];
    /* the device values a user kernel's expressions read at the run (run.device_values,
     * src/core/target.h): "sm_count=132, occupancy(256,0)=8"; empty: none */
    char device_values[GL_REASON_MAX];
    /* where a GPU run's host time went inside the phases above (gpulab run
     * --profile-self), ms, by step (enum gl_step); the harness fills them */
    double step_ms[GL_STEPS];
};

/* The checks of gl_result.integrity (docs/measurement.md, what each means). */
#define GL_INTEGRITY_POISON_FIRST "poison-first"  /* outputs poisoned before the first
                                                     (verification) run, checked after it */
#define GL_INTEGRITY_POISON_LAST "poison-last"    /* outputs poisoned again before the last
                                                     timed sample (untimed), checked after it */
#define GL_INTEGRITY_POISON_EVERY "poison-every"  /* outputs poisoned before every run; the
                                                     last sample's output checked */
#define GL_INTEGRITY_L2_FLUSH "l2-flush"          /* L2 flushed before every sample (cold) */
#define GL_INTEGRITY_L2_PERSIST "l2-persist-reset" /* the persisting-L2 lines reset before
                                                      every sample */

/* A device description: the CPU for baselines, or a GPU. Fields that do not
 * apply or are unknown are 0 / empty and stored as NULL. */
struct gl_device {
    char kind[8];            /* "cpu" or "gpu" */
    char name[128];
    char ident[128];         /* stable identity: GPU UUID, or host+CPU model */
    /* CPU */
    int cores;               /* logical CPUs */
    long l1d_kb, l2_kb, l3_kb;
    /* GPU */
    int cc_major, cc_minor;
    int sm_count, cores_per_sm;
    int clock_khz, mem_clock_khz, mem_bus_bits;
    long long mem_bytes;
    int l2_bytes;
    int smem_per_block, smem_per_block_optin, smem_per_sm;
    int regs_per_block, regs_per_sm;
    int warp_size, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
    int max_block[3], max_grid[3];
    int driver_version, runtime_version;
    double theo_bw_gbs;      /* lecture formula: mem clock * bus/8 * 2 */
    double copy_bw_gbs;      /* measured device-to-device copy, bytes read+written */
    double fp32_peak_gflops; /* sm_count * cores_per_sm * 2 * clock */
};

/* The bandwidth ceilings of a GPU's memory levels beyond the DRAM copy
 * bandwidth (gl_device.copy_bw_gbs), each measured by a small calibrated kernel
 * (gl_device_ops.ceilings) and stored with the device row: GB/s, 0 when not
 * measured (stored NULL; why says what was not and why). Every number counts
 * the bytes the kernel asked that level for, as the per-run counters of the
 * same level count them (README: "Roofline"). */
struct gl_ceilings {
    double l1_gbs;          /* global loads that hit L1 (l1tex__t_bytes's level) */
    double smem_gbs;        /* shared-memory loads, conflict-free */
    double l2_gbs;          /* global loads that miss L1 and hit L2 (lts__t_bytes's level) */
    double hostlink_gbs;    /* kernel reads of pinned, mapped host memory (zero-copy) */
    double h2d_gbs;         /* pinned host-to-device cudaMemcpy (the copy engines) */
    double clock_mhz;       /* SM clock while they were measured (clock64 over event time) */
    char why[GL_REASON_MAX];   /* what was not measured and why; empty when all were */
};

#endif

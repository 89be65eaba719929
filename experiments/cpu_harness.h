/* cpu_harness.h - what every CPU baseline (cpu_matmul.c, cpu_stencil.c,
 * cpu_vecadd.c) does the same way: a fresh result, the seed and thread count
 * from the parameters, the timing loop (NaN poisoning, warm-up, samples timed
 * with CLOCK_MONOTONIC until gl_sampling_done) and the verification of the
 * last run against the float64 reference.
 * Must not contain a family's kernels nor know which variants exist. */
#ifndef GL_CPU_HARNESS_H
#define GL_CPU_HARNESS_H

#include <stddef.h>

#include "gpulab.h"

/* A fresh result: status ok, no samples, nothing verified yet (max_rel_err -1),
 * no host<->device copies (h2d_ms = d2h_ms = -1), no launch shape. */
void gl_cpu_result_init(struct gl_result *r);
/* Mark the run failed (an internal error: allocation, unknown variant) with a
 * reason; returns -1, the gl_cpu_fn error return. */
int gl_cpu_fail(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Mark the run skipped (it cannot be made as asked: sizes out of range) with a
 * reason; returns 0. */
int gl_cpu_skip(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The input seed (unset: 42). */
unsigned long long gl_cpu_seed(const struct gl_params *p);
/* The OpenMP thread count: threads, or every processor OpenMP sees when it is
 * unset or 0; 0 when it is over GL_CPU_MAX_THREADS (the run is skipped). */
#define GL_CPU_MAX_THREADS 4096
int gl_cpu_threads(const struct gl_params *p);

/* One run of a kernel: computes every element of the output. */
typedef void (*gl_cpu_kernel)(const void *ctx);

/* Time kernel(ctx): t->warmup untimed runs (cut short once they have taken
 * t->max_seconds), then timed runs until gl_sampling_done (or GL_MAX_SAMPLES),
 * each preceded by filling out[0..out_n) with NaN outside the timed interval.
 * Samples (ms) go to r->samples_ms / r->nsamples. out holds the last timed
 * run's output afterwards. Returns 0, or -1 when the clock fails (r failed). */
int gl_cpu_time(gl_cpu_kernel kernel, const void *ctx, float *out, size_t out_n,
                const struct gl_timing *t, struct gl_result *r);

/* Verify out[0..n) against ref with the tolerance of a reduction of tol_len
 * terms; sets r->max_rel_err, and on a mismatch r->status = GL_WRONG with the
 * verification summary as reason. row_len places mismatches as (row, col).
 * Returns 1 when every element is within tolerance. */
int gl_cpu_check(struct gl_result *r, const float *out, const double *ref, size_t n,
                 long row_len, long tol_len);

#endif

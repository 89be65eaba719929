/* cpu_dispatch.h - how the CPU baselines use the CPU's vector units without
 * giving up portability: each dispatched kernel's loops (matmul, vecadd; the
 * stencil's are not: it does not help them) are compiled once per x86-64
 * instruction-set level (the psABI levels: x86-64 = SSE2, every x86-64 CPU;
 * x86-64-v3 = AVX2 + FMA; x86-64-v4 = AVX-512) through GCC's target attribute,
 * and the run picks the highest level this CPU supports (or the one
 * GPULAB_CPU_ISA names) at run time. The level a run used is recorded with it
 * (run.code_path). The parallel part of a kernel (OpenMP over rows) is shared:
 * gl_cpu_rows_omp() gives each thread one contiguous block of rows, as the
 * seeds' `parallel for schedule(static)` does, and calls the level's row
 * function on it.
 * Must not contain a family's kernels nor know which variants exist. */
#ifndef GL_CPU_DISPATCH_H
#define GL_CPU_DISPATCH_H

#include <stddef.h>

/* The instruction-set levels a dispatched kernel is compiled for, lowest first.
 * Where the compiler does not target x86-64 only GL_ISA_BASE exists (the
 * compiler's default). */
enum gl_isa { GL_ISA_BASE, GL_ISA_V3, GL_ISA_V4, GL_ISA_COUNT };

/* The attributes that compile a function for a level (on the function that
 * holds the loops; an always_inline body it calls is compiled with it). */
#if defined(__x86_64__)
#define GL_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#define GL_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define GL_TARGET_V3
#define GL_TARGET_V4
#endif

/* The environment variable that forces a level (its name, as gl_isa_name's
 * short form: x86-64, x86-64-v3, x86-64-v4), for tests and benchmarks. */
#define GL_CPU_ISA_ENV "GPULAB_CPU_ISA"

/* The environment variable that caps the levels taken as supported (a level
 * name as above): a CPU above it is treated as one of that level (best,
 * supported, pick), so that one machine covers what gpulab does on a lower
 * one, the refusal of a forced level it lacks included, without running any
 * code the cap excludes. For tests; it can only lower, never raise. */
#define GL_CPU_ISA_MAX_ENV "GPULAB_CPU_ISA_MAX"

/* "x86-64", "x86-64-v3", "x86-64-v4": the psABI name of a level. */
const char *gl_isa_name(enum gl_isa isa);

/* What a level means, for code_path: "x86-64-v4 (AVX-512)". */
const char *gl_isa_label(enum gl_isa isa);

/* 1 when this CPU can run code compiled for the level (and GL_CPU_ISA_MAX_ENV,
 * when set to a known level, does not exclude it). */
int gl_isa_supported(enum gl_isa isa);

/* The highest level this CPU supports. */
enum gl_isa gl_isa_best(void);

/* The level a run uses: the one GL_CPU_ISA_ENV names when it is set and not
 * empty, else gl_isa_best(). -1 with the reason in err when the variable names
 * an unknown level or one this CPU lacks, or GL_CPU_ISA_MAX_ENV an unknown one. */
int gl_isa_pick(char *err, size_t errlen);

struct gl_cpu_job;

/* A kernel's work on rows [i0, i1) of its output (rows of C, of the stencil's
 * output, blocks of a vector: whatever the kernel splits), for one level. */
typedef void (*gl_cpu_rows_fn)(const struct gl_cpu_job *j, long i0, long i1);

/* One kernel compiled for every level: fn[isa]. */
struct gl_cpu_rows {
    gl_cpu_rows_fn fn[GL_ISA_COUNT];
};

/* Run k's function of level j->isa on rows [0, n) in this thread. */
void gl_cpu_rows_seq(const struct gl_cpu_job *j, const struct gl_cpu_rows *k, long n);

/* Run it on rows [0, n) with j->threads OpenMP threads, each thread one
 * contiguous block of about n / threads rows (none when n < threads). */
void gl_cpu_rows_omp(const struct gl_cpu_job *j, const struct gl_cpu_rows *k, long n);

#endif

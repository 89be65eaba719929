/* cpu_matmul.h - what the matmul baselines of cpu_matmul.c share with the
 * cache-blocked kernel of cpu_matmul_blocked.c: the sizes of one run (the
 * job's ctx) and the blocked kernel's row function and scratch.
 * Must not declare a variant: cpu_matmul.c declares them all. */
#ifndef GL_CPU_MATMUL_H
#define GL_CPU_MATMUL_H

#include <stddef.h>

#include "cpu_dispatch.h"

struct gl_openblas;

/* The sizes of one run: C (m x n) = A (m x p) . B (p x n), row-major; and for
 * the OpenBLAS rows the library (cpu_openblas.h), else NULL. */
struct gl_mm_ctx {
    long m, n, p;
    const struct gl_openblas *ob;
};

/* The cache-blocked kernel on rows [i0, i1) of C, for every level; the job's
 * ctx is a struct gl_mm_ctx and each thread needs gl_mm_blocked_work()
 * floats of the job's per-thread scratch (j->work). */
extern const struct gl_cpu_rows gl_mm_blocked_rows;

/* Scratch floats one thread of the blocked kernel needs for k's sizes. */
size_t gl_mm_blocked_work(const struct gl_mm_ctx *k);

#endif

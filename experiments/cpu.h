/* cpu.h - the CPU baselines' entry points, one per family, with the gl_cpu_fn
 * signature of src/registry.h (experiments/cpu_matmul.c, cpu_stencil.c,
 * cpu_vecadd.c). The registry points its CPU rows at them.
 * Must not declare anything else. */
#ifndef GL_CPU_H
#define GL_CPU_H

#include "gpulab.h"

int gl_cpu_matmul(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r);
int gl_cpu_stencil(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                   struct gl_result *r);
int gl_cpu_vecadd(const char *variant, const struct gl_params *p, const struct gl_timing *t,
                  struct gl_result *r);

#endif

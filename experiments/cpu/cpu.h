/* cpu.h - the CPU families' variant tables, each defined once next to its
 * baselines (cpu_matmul.c, cpu_stencil.c, cpu_vecadd.c), and the plugin entry
 * point (cpu_plugin.c) that puts them end to end. Must not declare anything
 * else: everything a variant needs to run is reached through its row (run,
 * impl). */
#ifndef GL_CPU_H
#define GL_CPU_H

#include "plugin.h"

extern const struct gl_variant gl_cpu_matmul_variants[];
extern const int gl_cpu_matmul_nvariants;
extern const struct gl_variant gl_cpu_stencil_variants[];
extern const int gl_cpu_stencil_nvariants;
extern const struct gl_variant gl_cpu_vecadd_variants[];
extern const int gl_cpu_vecadd_nvariants;

/* The CPU plugin: every row above, device operations NULL (the host CPU),
 * providing gl_host.cpu_execute. host is not used (may be NULL). */
const struct gl_plugin *gpulab_plugin(const struct gl_host *host);

#endif

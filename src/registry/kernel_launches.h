/* kernel_launches.h - the driver's side of a kernel section's launch sequence
 * (src/core/launches.h), for kernel_variant.c: the check of every launch at a
 * point and the sequence's kernels as a compilation key.
 * Must not compile or launch anything itself, nor parse configs. */
#ifndef GL_KERNEL_LAUNCHES_H
#define GL_KERNEL_LAUNCHES_H

#include <stddef.h>

#include "kernel.h"

/* NULL when every launch of kv's sequence can run at p on dev (NULL: the limits
 * of every CUDA GPU), else the reason in buf ("launch.pass (p = 3): grid x =
 * ... blocks (must be 1 to ...)"; a repeat count below 0 or above the limit). */
const char *gl_kseq_check(const struct gl_kernel_variant *kv, const struct gl_params *p,
                          const struct gl_device *dev, char *buf, size_t len);
/* The name expressions of the sequence's launches at p, in order, joined by ';'
 * (template arguments substituted). 0, or -1 when it does not fit. */
int gl_kseq_name_exprs(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                       size_t len);

/* A repeat count below 0 or above GL_KSEQ_MAX_REPEAT at any point of the sweep
 * is the config's mistake: -1 with "path:line: launch.NAME: repeat count ... at
 * N=... (must be 0 to 1024)" in err (the plan exits 2), else 0. */

#endif

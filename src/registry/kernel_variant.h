/* kernel_variant.h - the driver's side of a user's kernel as a variant (a
 * struct gl_kernel_variant of src/core/kernel.h, filled by the config reader):
 * its check (launch shape, sizes and arguments evaluated at a point, against the
 * device's limits), FLOP and byte counts, run (the GPU plugin's kernel_run, in
 * the worker), and the texts a compilation is keyed by (the name expression
 * with its template arguments substituted, the -D list).
 * Must not compile or launch anything itself, nor parse configs. */
#ifndef GL_KERNEL_VARIANT_H
#define GL_KERNEL_VARIANT_H

#include <stddef.h>

#include "kernel.h"
#include "params.h"

/* Fill kv->v from kv->family, name, expr and k: device "gpu", desc = expr, the
 * driver's check/flops/min_bytes/run, impl = kv. v.params is the caller's. */
void gl_kernel_variant_init(struct gl_kernel_variant *kv);
/* Is a check's reason the shared-memory limit (a point plan still compiles)? */
int gl_kernel_skip_is_smem(const char *reason);
/* How k launches at p, as run.launch_kind stores it: "plain", "cooperative",
 * "cluster 2x1x1" (`cluster =`), "sequence" (launch.NAME lines). */
void gl_kernel_launch_kind(const struct gl_kernel *k, const struct gl_params *p, char *buf,
                           size_t len);
/* The kernel variant behind v, or NULL for a built-in variant. */
const struct gl_kernel_variant *gl_kernel_variant_of(const struct gl_variant *v);
/* kv->expr at p: every template argument token that names a parameter (named,
 * or a built-in integer one) replaced by its value ("transpose_tiled<32, 8>").
 * 0, or -1 when it does not fit or a parameter has no value at p. */
int gl_kernel_name_expr(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                        size_t len);
/* The -D list at p, "-DBLOCK_ROWS=8 -DTILE=32" ("" for none): the section's
 * defines in config order, or with `defines = all` every integer parameter p
 * has (built-in in table order, then named). 0, or -1 as above. */
int gl_kernel_defines(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                      size_t len);
/* What one program is: the source file, compiler, options and -D list at p
 * (the points of one program differ in their name expressions only, and
 * compile together). 0, or -1 as above. */
int gl_kernel_program_key(const struct gl_kernel_variant *kv, const struct gl_params *p,
                          char *buf, size_t len);
/* What one compilation is: the program and the name expression at p
 * (distinct keys, distinct compilations). 0, or -1 as above. */
int gl_kernel_compile_key(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                          size_t len);

#endif

/* family.h - what the CPU and GPU variants of one family share besides their
 * inputs and references (reference.h): the analytic FLOP and minimum-byte
 * counts of each problem, and the size rules every variant of a family obeys.
 * Linked into both built-in plugins, which also join their families' variant
 * tables through it. Must not name a variant. */
#ifndef GL_FAMILY_H
#define GL_FAMILY_H

#include <stddef.h>

#include "gpulab.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The counts have the signature of struct gl_variant's flops and min_bytes (v
 * unused: they depend on the parameters only). */

/* matmul: C (M x N) = A (M x P) . B (P x N); M and P fall back to N. */
double gl_matmul_flops(const struct gl_variant *v, const struct gl_params *p);   /* 2 M N P */
double gl_matmul_bytes(const struct gl_variant *v, const struct gl_params *p);   /* 4 (MP + PN + MN) */

/* stencil: radius-R box sum of an N x N input into (N-2R) x (N-2R). */
double gl_stencil_flops(const struct gl_variant *v, const struct gl_params *p);  /* (N-2R)^2 (2R+1)^2 */
double gl_stencil_bytes(const struct gl_variant *v, const struct gl_params *p);  /* 4 (N^2 + (N-2R)^2) */
/* NULL when N > 2R, else the reason (written into buf). */
const char *gl_stencil_check_size(const struct gl_params *p, char *buf, size_t len);

/* vecadd: c = a + b over N floats. */
double gl_vecadd_flops(const struct gl_variant *v, const struct gl_params *p);   /* N */
double gl_vecadd_bytes(const struct gl_variant *v, const struct gl_params *p);   /* 12 N */

/* One family's variant table, as a built-in plugin puts its families together. */
struct gl_family_table {
    const struct gl_variant *rows;
    const int *n;
};
/* Copy the tables' rows end to end into out[0..max): the number of rows, or -1
 * when they do not fit. */
int gl_join_tables(const struct gl_family_table *tables, int ntables, struct gl_variant *out,
                   int max);

#ifdef __cplusplus
}
#endif

#endif

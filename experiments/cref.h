/* cref.h - a kernel section's C reference (`verify = c:FILE:FUNC`, kernel.h):
 * what it is handed of a point (only the parameters the section says it reads,
 * `verify_reads`), and the key of its expected outputs: a text that names
 * everything they can depend on, so that the GPU plugin computes them once per
 * distinct key and every run with that key (the variants of a point, and
 * points that differ only in parameters the reference does not read) reuses
 * them (gpu/harness_expected.cu). Pure functions, plain C: the driver's tests
 * call them too.
 * Must not load or call the reference, allocate, or know about devices. */
#ifndef GL_CREF_H
#define GL_CREF_H

#include <stddef.h>

#include "kernel.h"
#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_CREF_KEY_MAX 8192   /* a key's text and its NUL, at most */

/* q: the point p as k's C reference sees it: all of p without `verify_reads`
 * (k->verify_reads_all), else only the parameters verify_reads names (built-in
 * and named, with p's values), every other one unset (GL_UNSET, "" for text,
 * no named ones). */
void gl_cref_params(const struct gl_kernel *k, const struct gl_params *p, struct gl_params *q);

/* The key of k's expected outputs at p, one line of text: the reference (its
 * .so, function and the SHA-256 of its file), each buffer in order (name, type,
 * count at p, init with its value or random stream, output or not), the seed
 * (42 when unset), and what gl_cref_params hands the reference (built-in
 * parameters in table order, then named ones by name). 0, or -1 with err when a
 * count cannot be evaluated at p or the key is longer than len. */
int gl_cref_key(const struct gl_kernel *k, const struct gl_params *p, char *buf, size_t len,
                char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

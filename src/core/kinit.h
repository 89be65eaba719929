/* kinit.h - a kernel section's buffer init at one point: the bounds of
 * randint(lo, hi) where they are expressions over the point's parameters
 * (randint(0, VOCAB)), evaluated and checked against the buffer's type. Used
 * by the plan's per-point check (src/kernel_variant.c), the GPU run
 * (experiments/gpu/kernel_run.cu) and a C reference's key (experiments/cref.c),
 * so that all three see the same numbers.
 * Plain C; must not read files or know about runs. */
#ifndef GL_KINIT_H
#define GL_KINIT_H

#include <stddef.h>

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* b's two init numbers at p (kernel.h gl_kbuffer: value, value2), randint's
 * expressions evaluated. 0; or -1 with why in err (an expression that cannot
 * be evaluated, lo >= hi, or a bound outside the type). */
int gl_kbuffer_values(const struct gl_kbuffer *b, const struct gl_params *p, double *a,
                      double *v2, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

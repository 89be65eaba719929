/* cref_build.h - a kernel section's C reference (verify = c:FILE.c:FUNC,
 * kernel.h) built into the kernel cache: cc -O2 -shared -fPIC -fopenmp
 * -I <gpulab's src/core> ($GPULAB_INCLUDE, else <the executable's
 * folder>/../src/core; $CC for the compiler), then loaded to check that FUNC is
 * there. Runs in a compile child of the sweep (sweep_compile.c).
 * Must not run the reference. */
#ifndef GL_CREF_BUILD_H
#define GL_CREF_BUILD_H

#include <stddef.h>

#include "kernel.h"

/* Build k's C reference into the kernel cache (a .c), or take it from there,
 * then check that its function loads. 1 from the cache (or a .so used as is),
 * 0 compiled now, -1 with the reason (the compiler's output) in log. */
int gl_cref_build(const struct gl_kernel *k, char *log, size_t loglen);

#endif

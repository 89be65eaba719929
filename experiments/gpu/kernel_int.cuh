/* kernel_int.cuh - what the files of users' kernels share (kernel_compile.cu:
 * NVRTC and the kernel cache; kernel_run.cu: loading, launching and verifying):
 * a kernel as compiled for one point (its cache files and lowered name) and the
 * integer value of a config expression at a point.
 * Must not be included by a built-in family or by the harness's own files. */
#ifndef GL_KERNEL_INT_CUH
#define GL_KERNEL_INT_CUH

#include <stddef.h>

extern "C" {
#include "gpulab.h"
#include "kernel.h"
#include "params.h"
}

#define GK_DIR 1024    /* a folder's path */
#define GK_PATH 1200   /* a file's path in such a folder */

/* One variant's kernel compiled for one point and arch: where the cache keeps it. */
struct gk_built {
    char cubin[GK_PATH];      /* <cache>/<key>.cubin */
    char lowered[1024];       /* the lowered (mangled) name of the name expression */
    char expr[GL_KEXPR];      /* the name expression after substitution */
};

/* Compile kv at p for sm_<arch> into the kernel cache, or find it there; fill b.
 * 1 = from the cache, 0 = compiled now, -1 = error with the compiler's log (or
 * why not) in log. Needs no device. */
int gk_build(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
             struct gk_built *b, char *log, size_t loglen);

/* The integer value of a config expression (expr.h) at p: 0, or -1 with err. */
int gk_value(const char *expr, const struct gl_params *p, long long *out, char *err,
             size_t errlen);

#endif

/* cpu_openblas.h - OpenBLAS, loaded at run time (dlopen) so that the CPU
 * plugin loads, lists and plans on a machine without it, and a build folder
 * carried to another machine brings its own copy: `make` copies the library
 * and the runtime libraries it needs that a machine may lack (libgfortran,
 * libquadmath) into build/openblas/, each finding the others there first
 * (RUNPATH $ORIGIN). The library is looked for, in order:
 *   1. $GPULAB_OPENBLAS, when set and not empty: that file only;
 *   2. openblas/libopenblas.so.0 beside the CPU plugin (build/openblas/);
 *   3. libopenblas.so.0 on the system's library path.
 * Loaded once per process and kept (never closed: its threads may live on).
 * Must not run a kernel, time or verify anything: cpu_matmul.c does that. */
#ifndef GL_CPU_OPENBLAS_H
#define GL_CPU_OPENBLAS_H

#include <stddef.h>

#define GL_OPENBLAS_ENV "GPULAB_OPENBLAS"
#define GL_OPENBLAS_SONAME "libopenblas.so.0"
#define GL_OPENBLAS_COPY "openblas/libopenblas.so.0"   /* beside the CPU plugin */

/* The CBLAS values of the one call gpulab makes (cblas.h's enums, fixed by
 * the CBLAS standard). */
#define GL_CBLAS_ROW_MAJOR 101
#define GL_CBLAS_NO_TRANS 111

/* The library's functions gpulab uses; blasint is int in the LP64 builds that
 * Debian and Ubuntu ship as libopenblas.so.0. */
struct gl_openblas {
    void (*sgemm)(int order, int transa, int transb, int m, int n, int k, float alpha,
                  const float *a, int lda, const float *b, int ldb, float beta, float *c,
                  int ldc);
    void (*set_num_threads)(int n);
    int (*get_num_threads)(void);
    /* openblas_get_config() and the file it came from: "OpenBLAS 0.3.21
     * NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY USE_OPENMP Haswell MAX_THREADS=64
     * (/path/build/openblas/libopenblas.so.0)", the run's code path */
    char describe[256];
};

/* The loaded library, or NULL with the reason in err ("OpenBLAS not found:
 * install libopenblas0 or rebuild with it present (...)", or the reason the
 * instruction-set level cannot be had: gl_isa_pick's). Tried once per value
 * of $GPULAB_OPENBLAS: the answer is kept. Not thread-safe (the driver
 * and the worker call it from one thread). */
const struct gl_openblas *gl_openblas_get(char *err, size_t errlen);

/* The OPENBLAS_CORETYPE gpulab sets, before OpenBLAS loads, for the
 * instruction-set level (enum gl_isa) the dispatched rows use, unless the user
 * set one: "SkylakeX" for x86-64-v4, "Haswell" for x86-64-v3; NULL (OpenBLAS
 * chooses alone) for the lowest level. */
const char *gl_openblas_coretype(int isa);

#endif

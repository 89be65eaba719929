/* nvml_lib.h - NVML, loaded at run time (never linked, so gpulab runs where there
 * is no driver): the library GPULAB_NVML_LIB names (a stand-in in the tests),
 * else libnvidia-ml.so.1, initialised, with the calls every user needs (its
 * error strings, a GPU by UUID). For the GPUs' clocks (src/host/gpuclocks.c)
 * and the energy counter (nvml_energy.c), which each look up the other
 * functions they use (gl_nvml_sym). The functions are declared by hand: plain C
 * types, an opaque device handle, 0 = success.
 * Must not keep state of its own: each caller owns its struct gl_nvml. */
#ifndef GL_NVML_LIB_H
#define GL_NVML_LIB_H

#include <stddef.h>

struct gl_nvml {
    int tried, ok;
    char why[256];                          /* why not ok */
    void *lib;
    int (*init)(void);
    const char *(*error_string)(int);
    int (*by_uuid)(const char *, void **);
};

/* dlopen()'s handle of NVML, or NULL with "no NVML (PATH: why)" in why. */
void *gl_nvml_open(char *why, size_t len);
/* n loaded and initialised, once (later calls give the first answer): 1, or 0
 * with n->why. */
int gl_nvml_ready(struct gl_nvml *n);
/* NVML's function `name` of a ready n, or NULL; when needed and missing,
 * n->why says "NVML has no NAME" (the first such) and n->ok is cleared. */
void *gl_nvml_sym(struct gl_nvml *n, const char *name, int needed);
/* NVML's words for rc. */
const char *gl_nvml_error(const struct gl_nvml *n, int rc);
/* The device of the GPU with this UUID: 0, or -1 with why (n not ready, no
 * UUID, NVML does not know it). */
int gl_nvml_device(struct gl_nvml *n, const char *uuid, void **dev, char *why, size_t len);

#endif

/* nvml_lib.h - NVML, loaded at run time (never linked, so gpulab runs where there
 * is no driver): the library GPULAB_NVML_LIB names (a stand-in in the tests),
 * else libnvidia-ml.so.1. For the GPUs' clocks (src/host/gpuclocks.c) and the
 * energy counter (nvml_energy.c), which each look up the functions they use.
 * Must not initialise NVML or keep state: each caller owns its handle. */
#ifndef GL_NVML_LIB_H
#define GL_NVML_LIB_H

#include <stddef.h>

/* dlopen()'s handle of NVML, or NULL with "no NVML (PATH: why)" in why. */
void *gl_nvml_open(char *why, size_t len);

#endif

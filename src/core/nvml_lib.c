/* nvml_lib.c - see nvml_lib.h. Must not initialise NVML or keep state. */
#include "nvml_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *gl_nvml_open(char *why, size_t len)
{
    const char *path = getenv("GPULAB_NVML_LIB");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, len, "no NVML (%s: %.200s)", path, e ? e : "not found");
    }
    return lib;
}

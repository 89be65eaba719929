/* gpu_load.c - see gpu_load.h. */
#include "gpu_load.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

const struct gl_gpu_api *gl_gpu_load(char *err, size_t errlen)
{
    char dir[1024], path[1200];
    const char *env = getenv("GPULAB_PLUGIN");
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        gl_exe_dir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/libgpulab_gpu.so", dir);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errlen, "GPU plugin not loadable: %s", e ? e : path);
        return NULL;
    }
    gl_gpu_api_fn fn;
    *(void **)&fn = dlsym(h, GL_GPU_SYMBOL);
    if (!fn) {
        snprintf(err, errlen, "GPU plugin %s has no %s", path, GL_GPU_SYMBOL);
        dlclose(h);
        return NULL;
    }
    const struct gl_gpu_api *api = fn();
    if (!api || api->abi != GL_GPU_ABI) {
        snprintf(err, errlen, "GPU plugin %s has ABI %d, this driver needs %d (rebuild: make)",
                 path, api ? api->abi : -1, GL_GPU_ABI);
        dlclose(h);
        return NULL;
    }
    return api;   /* stays loaded for the life of the process */
}

/* nvml_lib.c - see nvml_lib.h. Must not keep state of its own. */
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

void *gl_nvml_sym(struct gl_nvml *n, const char *name, int needed)
{
    void *p = n->lib ? dlsym(n->lib, name) : NULL;
    if (!p && needed) {
        if (!n->why[0])
            snprintf(n->why, sizeof n->why, "NVML has no %s", name);
        n->ok = 0;
    }
    return p;
}

const char *gl_nvml_error(const struct gl_nvml *n, int rc)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

int gl_nvml_ready(struct gl_nvml *n)
{
    if (n->tried)
        return n->ok;
    n->tried = 1;
    if (!(n->lib = gl_nvml_open(n->why, sizeof n->why)))
        return 0;
    *(void **)&n->init = gl_nvml_sym(n, "nvmlInit_v2", 1);
    *(void **)&n->error_string = gl_nvml_sym(n, "nvmlErrorString", 0);
    *(void **)&n->by_uuid = gl_nvml_sym(n, "nvmlDeviceGetHandleByUUID", 1);
    if (n->why[0])
        return 0;
    int rc = n->init();
    if (rc != 0) {
        snprintf(n->why, sizeof n->why, "nvmlInit failed: %s", gl_nvml_error(n, rc));
        return 0;
    }
    n->ok = 1;
    return 1;
}

int gl_nvml_device(struct gl_nvml *n, const char *uuid, void **dev, char *why, size_t len)
{
    if (!gl_nvml_ready(n)) {
        snprintf(why, len, "%s", n->why);
        return -1;
    }
    if (!uuid || !*uuid) {
        snprintf(why, len, "the GPU has no UUID to find it by in NVML");
        return -1;
    }
    int rc = n->by_uuid(uuid, dev);
    if (rc != 0) {
        snprintf(why, len, "NVML does not know GPU %.96s: %s", uuid, gl_nvml_error(n, rc));
        return -1;
    }
    return 0;
}

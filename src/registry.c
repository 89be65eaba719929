/* registry.c - see registry.h. The variants come from plugins (src/core/plugin.h)
 * loaded once per process; this file only indexes them.
 * Must not name a family or a variant: each is declared in its plugin. */
#include "registry.h"
#include "nearest.h"

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gl_variant *variants[GL_MAX_VARIANTS_ALL];
static int nvariants;
static int nplugins;
static int builtins_loaded;
static const struct gl_device_ops *gpu_ops;
static char gpu_why[512] = "the GPU plugin was not loaded";

int gl_registry_add(const struct gl_plugin *pl, const char *origin, char *err, size_t errlen)
{
    if (!pl) {
        snprintf(err, errlen, "%s: gpulab_plugin() returned no plugin", origin);
        return -1;
    }
    if (pl->api != GL_PLUGIN_API) {
        snprintf(err, errlen, "%s: plugin API version %d, this gpulab needs %d (rebuild it "
                 "against src/core/plugin.h)", origin, pl->api, GL_PLUGIN_API);
        return -1;
    }
    if (nplugins >= GL_MAX_PLUGINS || nvariants + pl->nvariants > GL_MAX_VARIANTS_ALL) {
        snprintf(err, errlen, "%s: too many plugins or variants (at most %d and %d)", origin,
                 GL_MAX_PLUGINS, GL_MAX_VARIANTS_ALL);
        return -1;
    }
    for (int i = 0; i < pl->nvariants; i++) {
        const struct gl_variant *v = &pl->variants[i];
        if (!v->family || !v->name || !v->device || !v->run || !v->family[0] || !v->name[0] ||
            (strcmp(v->device, "cpu") != 0 && strcmp(v->device, "gpu") != 0)) {
            snprintf(err, errlen, "%s: variant %d is incomplete (family, name, device cpu|gpu "
                     "and run are required)", origin, i);
            return -1;
        }
        const struct gl_variant *dup = gl_variant_find(v->family, v->name);
        for (int j = 0; !dup && j < i; j++)
            if (strcmp(pl->variants[j].family, v->family) == 0 &&
                strcmp(pl->variants[j].name, v->name) == 0)
                dup = &pl->variants[j];
        if (dup) {
            snprintf(err, errlen, "%s: variant %s/%s is declared twice", origin, v->family,
                     v->name);
            return -1;
        }
        if (strcmp(v->device, "gpu") == 0 && !pl->device) {
            snprintf(err, errlen, "%s: GPU variant %s/%s in a plugin without device operations",
                     origin, v->family, v->name);
            return -1;
        }
    }
    if (pl->device) {
        if (gpu_ops && gpu_ops != pl->device) {
            snprintf(err, errlen, "%s: a second plugin with GPU device operations", origin);
            return -1;
        }
        gpu_ops = pl->device;
        gpu_why[0] = '\0';
    }
    for (int i = 0; i < pl->nvariants; i++)
        variants[nvariants++] = &pl->variants[i];
    nplugins++;
    return 0;
}

int gl_registry_add_file(const char *path, char *err, size_t errlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, errlen, "plugin not loadable: %s", e ? e : path);
        return -1;
    }
    gl_plugin_fn fn;
    *(void **)&fn = dlsym(h, GL_PLUGIN_SYMBOL);
    if (!fn) {
        snprintf(err, errlen, "%s: no %s() in it (is it a gpulab plugin?)", path,
                 GL_PLUGIN_SYMBOL);
        dlclose(h);
        return -1;
    }
    if (gl_registry_add(fn(), path, err, errlen) != 0) {
        dlclose(h);
        return -1;
    }
    return 0;   /* stays loaded for the life of the process */
}

int gl_registry_load(const char *dir, char *err, size_t errlen)
{
    char path[1200];
    if (builtins_loaded)
        return 0;
    snprintf(path, sizeof path, "%s/libgpulab_cpu.so", dir);
    if (gl_registry_add_file(path, err, errlen) != 0)
        return -1;
    const char *env = getenv("GPULAB_PLUGIN");
    if (env && env[0])
        snprintf(path, sizeof path, "%s", env);
    else
        snprintf(path, sizeof path, "%s/libgpulab_gpu.so", dir);
    char why[sizeof gpu_why];
    if (gl_registry_add_file(path, why, sizeof why) != 0)
        snprintf(gpu_why, sizeof gpu_why, "GPU plugin: %.490s", why);
    builtins_loaded = 1;
    return 0;
}

int gl_registry_count(void)
{
    return nvariants;
}

const struct gl_variant *gl_registry_at(int i)
{
    return i >= 0 && i < nvariants ? variants[i] : NULL;
}

const struct gl_device_ops *gl_registry_gpu(void)
{
    return gpu_ops;
}

const char *gl_registry_gpu_why(void)
{
    return gpu_why;
}

const struct gl_variant *gl_variant_find(const char *family, const char *name)
{
    for (int i = 0; i < nvariants; i++)
        if (strcmp(variants[i]->family, family) == 0 && strcmp(variants[i]->name, name) == 0)
            return variants[i];
    return NULL;
}

int gl_family_known(const char *family)
{
    for (int i = 0; i < nvariants; i++)
        if (strcmp(variants[i]->family, family) == 0)
            return 1;
    return 0;
}

const char *gl_family_nearest(const char *family)
{
    struct gl_nearest near;
    gl_nearest_init(&near, family);
    for (int i = 0; i < nvariants; i++)
        gl_nearest_offer(&near, variants[i]->family);
    return near.best;
}

const char *gl_variant_nearest(const char *family, const char *name)
{
    struct gl_nearest near;
    gl_nearest_init(&near, name);
    for (int i = 0; i < nvariants; i++)
        if (strcmp(variants[i]->family, family) == 0)
            gl_nearest_offer(&near, variants[i]->name);
    return near.best;
}

void gl_variant_complete(const struct gl_variant *v, struct gl_params *p)
{
    gl_params_complete(p, v->params);
    /* threads = 0 means every core: the real count is what is stored */
    if (p->threads == 0)
        p->threads = omp_get_num_procs();
}

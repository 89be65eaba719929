/* registry.c - see registry.h. The variants come from plugins (src/core/plugin.h)
 * loaded once per process; this file only indexes them, remembers where each
 * came from, and puts the host functions the built-in plugins provide together
 * into the one struct gl_host every plugin is handed.
 * Must not name a family or a variant: each is declared in its plugin. */
#include "registry.h"
#include "nearest.h"
#include "sha256.h"

#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a plugin came from: its path (or the tests' origin), and for a plugin
 * from the command line the SHA-256 of its file (the resume key's code_hash). */
struct origin {
    char path[1024];
    char hash[65];       /* "" for the built-in plugins */
};

static const struct gl_variant *variants[GL_MAX_VARIANTS_ALL];
static int vorigin[GL_MAX_VARIANTS_ALL];   /* index into origins */
static int nvariants;
static struct origin origins[GL_MAX_PLUGINS];
static int nplugins;
static int builtins_loaded;
static const struct gl_device_ops *gpu_ops;
static char gpu_why[512] = "the GPU plugin was not loaded";
static struct gl_host host = { GL_HOST_API, NULL, NULL };

/* The hash of the plugin file being added (gl_registry_add_user), else "". */
static char adding_hash[65];

/* Where variant i came from. */
static const char *origin_of(const struct gl_variant *v)
{
    for (int i = 0; i < nvariants; i++)
        if (variants[i] == v)
            return origins[vorigin[i]].path;
    return "?";
}

/* The host functions pl provides, merged into host (the first provider wins). */
static void merge_host(const struct gl_host *h)
{
    if (!h || h->api < 1)
        return;
    if (!host.cpu_execute)
        host.cpu_execute = h->cpu_execute;
    if (!host.gpu_execute)
        host.gpu_execute = h->gpu_execute;
}

int gl_registry_add(const struct gl_plugin *pl, const char *origin, char *err, size_t errlen)
{
    if (!pl) {
        snprintf(err, errlen, "%s: gpulab_plugin() returned no plugin", origin);
        return -1;
    }
    if (pl->api != GL_PLUGIN_API) {
        snprintf(err, errlen, "%s: built for plugin API %d, this gpulab is %d: rebuild against "
                 "src/core/plugin.h", origin, pl->api, GL_PLUGIN_API);
        return -1;
    }
    if (nplugins >= GL_MAX_PLUGINS || pl->nvariants < 0 ||
        pl->nvariants > GL_MAX_VARIANTS_ALL - nvariants) {
        snprintf(err, errlen, "%s: too many plugins or variants (at most %d and %d)", origin,
                 GL_MAX_PLUGINS, GL_MAX_VARIANTS_ALL);
        return -1;
    }
    if (pl->nvariants > 0 && !pl->variants) {
        snprintf(err, errlen, "%s: %d variants but no table", origin, pl->nvariants);
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
        if (dup) {
            snprintf(err, errlen, "%s: variant %s/%s is declared twice: here and in %s", origin,
                     v->family, v->name, origin_of(dup));
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(pl->variants[j].family, v->family) == 0 &&
                strcmp(pl->variants[j].name, v->name) == 0) {
                snprintf(err, errlen, "%s: variant %s/%s is declared twice in it (rows %d and %d)",
                         origin, v->family, v->name, j, i);
                return -1;
            }
        /* A GPU variant runs on the device of the plugin that has device
         * operations: its own, or the built-in GPU plugin's (users' plugins,
         * through gl_host.gpu_execute). */
        if (strcmp(v->device, "gpu") == 0 && !pl->device && !gpu_ops) {
            snprintf(err, errlen, "%s: GPU variant %s/%s, but no GPU plugin is loaded (%s)",
                     origin, v->family, v->name, gpu_why);
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
    merge_host(pl->provides);
    struct origin *o = &origins[nplugins];
    snprintf(o->path, sizeof o->path, "%s", origin);
    snprintf(o->hash, sizeof o->hash, "%s", adding_hash);
    for (int i = 0; i < pl->nvariants; i++) {
        vorigin[nvariants] = nplugins;
        variants[nvariants++] = &pl->variants[i];
    }
    nplugins++;
    return 0;
}

/* SHA-256 (hex) of a file's bytes. 0, or -1 with err. */
static int file_hash(const char *path, char out[65], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct gl_sha256 c;
    unsigned char buf[65536], d[32];
    size_t n;
    gl_sha256_init(&c);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        gl_sha256_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        return -1;
    }
    gl_sha256_final(&c, d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
    return 0;
}

/* Load path and add its plugin. user: a plugin from the command line (its
 * file's hash goes into its runs' resume key). */
static int add_file(const char *name, int user, char *err, size_t errlen)
{
    char path[1024];
    /* a bare file name is a file here, not a library for dlopen to search */
    snprintf(path, sizeof path, "%s%s", user && !strchr(name, '/') ? "./" : "", name);
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
    adding_hash[0] = '\0';
    int rc = user ? file_hash(path, adding_hash, err, errlen) : 0;
    if (rc == 0)
        rc = gl_registry_add(fn(&host), path, err, errlen);
    adding_hash[0] = '\0';
    if (rc != 0) {
        dlclose(h);
        return -1;
    }
    return 0;   /* stays loaded for the life of the process */
}

int gl_registry_add_file(const char *path, char *err, size_t errlen)
{
    return add_file(path, 0, err, errlen);
}

int gl_registry_add_user(const char *path, char *err, size_t errlen)
{
    return add_file(path, 1, err, errlen);
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

const struct gl_host *gl_registry_host(void)
{
    return &host;
}

const char *gl_variant_origin(const struct gl_variant *v)
{
    for (int i = 0; i < nvariants; i++)
        if (variants[i] == v)
            return origins[vorigin[i]].hash[0] ? origins[vorigin[i]].path : NULL;
    return NULL;
}

const char *gl_variant_code_hash(const struct gl_variant *v)
{
    for (int i = 0; i < nvariants; i++)
        if (variants[i] == v)
            return origins[vorigin[i]].hash[0] ? origins[vorigin[i]].hash : NULL;
    return NULL;
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

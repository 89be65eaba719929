/* cpu_openblas.c - see cpu_openblas.h: find and load OpenBLAS once, take the
 * functions gpulab calls and describe what was loaded. Must not call sgemm. */
#include "cpu_openblas.h"
#include "cpu_dispatch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The answer for one value of $GPULAB_OPENBLAS ("" = unset). */
static struct {
    int tried;
    char env[512];
    void *handle;
    struct gl_openblas lib;
    char err[256];
    char coretype[64];   /* what gpulab set OPENBLAS_CORETYPE to ("" = nothing) */
} cache;

/* The folder of the object this code is linked into (build/ for the CPU
 * plugin), into dir; 0, or -1 when it cannot be told. */
static int own_folder(char *dir, size_t len)
{
    Dl_info info;
    if (dladdr((void *)gl_openblas_get, &info) == 0 || !info.dli_fname)
        return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) {
        snprintf(dir, len, ".");
        return 0;
    }
    int n = snprintf(dir, len, "%.*s", (int)(slash - info.dli_fname), info.dli_fname);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* dlopen path; on failure keep dlerror() in why (the last failure is the one
 * reported). */
static void *try_open(const char *path, char *why, size_t len)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, len, "%.190s", e ? e : path);
    }
    return h;
}

/* Take the functions from h into lib; 0, or -1 with err. */
static int take_symbols(void *h, struct gl_openblas *lib, char *err, size_t errlen)
{
    const char *(*config)(void) = NULL;
    *(void **)&lib->sgemm = dlsym(h, "cblas_sgemm");
    *(void **)&lib->set_num_threads = dlsym(h, "openblas_set_num_threads");
    *(void **)&lib->get_num_threads = dlsym(h, "openblas_get_num_threads");
    *(void **)&config = dlsym(h, "openblas_get_config");
    Dl_info info;
    const char *file = lib->sgemm && dladdr(*(void **)&lib->sgemm, &info) && info.dli_fname
                           ? info.dli_fname : "?";
    if (!lib->sgemm || !lib->set_num_threads || !lib->get_num_threads) {
        snprintf(err, errlen, "%s is not OpenBLAS: it lacks cblas_sgemm, "
                 "openblas_set_num_threads or openblas_get_num_threads", file);
        return -1;
    }
    const char *c = config ? config() : NULL;
    snprintf(lib->describe, sizeof lib->describe, "%s (%s%s%s)",
             c && c[0] ? c : "OpenBLAS (no openblas_get_config)", file,
             cache.coretype[0] ? "; OPENBLAS_CORETYPE=" : "", cache.coretype);
    return 0;
}

/* OpenBLAS 0.3.21 picks its kernels by the CPU model it recognises, and on a
 * CPU newer than itself falls back to the oldest x86-64 ones: on the H100
 * machine's CPU (AVX-512) it chose "Prescott" (SSE3), 154-217 GFLOP/s on 16
 * cores where gpulab's blocked loop reached 740-835 (2026-11-24). So unless the
 * user set OPENBLAS_CORETYPE, gpulab sets it, before the library loads, from the
 * instruction-set level this CPU supports: SkylakeX (AVX-512) or Haswell (AVX2
 * + FMA); on an older CPU OpenBLAS chooses alone. What was set is in code_path. */
static void choose_coretype(void)
{
    const char *user = getenv("OPENBLAS_CORETYPE");
    if (user && user[0])
        return;
    enum gl_isa best = gl_isa_best();
    const char *core = best == GL_ISA_V4 ? "SkylakeX" : best == GL_ISA_V3 ? "Haswell" : NULL;
    if (core && setenv("OPENBLAS_CORETYPE", core, 1) == 0)
        snprintf(cache.coretype, sizeof cache.coretype, "%s, by gpulab from %s", core,
                 gl_isa_name(best));
}

const struct gl_openblas *gl_openblas_get(char *err, size_t errlen)
{
    const char *env = getenv(GL_OPENBLAS_ENV);
    if (!env)
        env = "";
    if (cache.tried && strcmp(cache.env, env) == 0) {
        if (!cache.handle)
            snprintf(err, errlen, "%s", cache.err);
        return cache.handle ? &cache.lib : NULL;
    }
    memset(&cache, 0, sizeof cache);
    cache.tried = 1;
    snprintf(cache.env, sizeof cache.env, "%s", env);

    char why[200] = "", path[4096];
    void *h = NULL;
    choose_coretype();
    if (env[0]) {
        h = try_open(env, why, sizeof why);
    } else {
        char dir[4000];
        if (own_folder(dir, sizeof dir) == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, GL_OPENBLAS_COPY);
            h = try_open(path, why, sizeof why);
        }
        if (!h)
            h = try_open(GL_OPENBLAS_SONAME, why, sizeof why);
    }
    if (!h) {
        snprintf(cache.err, sizeof cache.err,
                 "OpenBLAS not found: install libopenblas0 or rebuild with it present (%s)", why);
    } else if (take_symbols(h, &cache.lib, cache.err, sizeof cache.err) != 0) {
        h = NULL;   /* kept loaded: closing a library that started threads is unsafe */
    }
    cache.handle = h;
    if (!h)
        snprintf(err, errlen, "%s", cache.err);
    return h ? &cache.lib : NULL;
}

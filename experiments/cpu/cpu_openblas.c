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
    const char *core;    /* the core type asked for when it loaded (NULL: none) */
} cache;

/* The OPENBLAS_CORETYPE this process set ("" = none): told apart from the
 * user's, across libraries loaded for other values of $GPULAB_OPENBLAS. */
static char set_here[32];

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

const char *gl_openblas_coretype(int isa)
{
    return isa == GL_ISA_V4 ? "SkylakeX" : isa == GL_ISA_V3 ? "Haswell" : NULL;
}

/* OpenBLAS 0.3.21 picks its kernels by the CPU model it recognises, and on a
 * CPU newer than itself falls back to the oldest x86-64 ones: on the H100
 * machine's CPU (AVX-512) it chose "Prescott" (SSE3), 154-217 GFLOP/s on 16
 * cores where gpulab's blocked loop reached 740-835 (2026-11-24). So unless the
 * user set OPENBLAS_CORETYPE, gpulab asks for the core type of the level the
 * dispatched rows use (gl_isa_pick: the best this CPU supports, or the one
 * GPULAB_CPU_ISA forces), so that a run's OpenBLAS and gpulab's loops use the
 * same instruction set: into *core (NULL: OpenBLAS chooses alone, the user's
 * choice or the lowest level). 0, or -1 with err when the level cannot be had
 * (the reason the dispatched rows are skipped with: a level this CPU lacks
 * must not reach OpenBLAS as a core type it cannot run). */
static int want_coretype(const char **core, int *level, char *err, size_t errlen)
{
    const char *user = getenv("OPENBLAS_CORETYPE");
    *core = NULL;
    *level = -1;
    /* the user's, not the one gpulab set when it loaded the library: level -1 */
    if (user && user[0] && strcmp(user, set_here) != 0)
        return 0;
    if ((*level = gl_isa_pick(err, errlen)) < 0)
        return -1;
    *core = gl_openblas_coretype(*level);
    return 0;
}

const struct gl_openblas *gl_openblas_get(char *err, size_t errlen)
{
    const char *env = getenv(GL_OPENBLAS_ENV);
    if (!env)
        env = "";
    const char *core;
    int level;
    if (want_coretype(&core, &level, err, errlen) != 0)
        return NULL;
    if (cache.tried && strcmp(cache.env, env) == 0) {
        if (!cache.handle) {
            snprintf(err, errlen, "%s", cache.err);
            return NULL;
        }
        /* OPENBLAS_CORETYPE is read once, when the library loads */
        if (level >= 0 && strcmp(core ? core : "", cache.core ? cache.core : "") != 0) {
            snprintf(err, errlen, "OpenBLAS is loaded in this process with %s; %s wants %s%s "
                     "(a new process can have it)",
                     cache.core ? cache.coretype : "the core type it chose",
                     gl_isa_name((enum gl_isa)level), core ? "OPENBLAS_CORETYPE=" : "",
                     core ? core : "its own choice");
            return NULL;
        }
        return &cache.lib;
    }
    memset(&cache, 0, sizeof cache);
    cache.tried = 1;
    snprintf(cache.env, sizeof cache.env, "%s", env);

    char why[200] = "", path[4096];
    void *h = NULL;
    if (core && setenv("OPENBLAS_CORETYPE", core, 1) == 0) {
        cache.core = core;
        snprintf(set_here, sizeof set_here, "%s", core);
        snprintf(cache.coretype, sizeof cache.coretype, "%s, by gpulab from %s", core,
                 gl_isa_name((enum gl_isa)level));
    } else if (!core && level >= 0 && set_here[0] && unsetenv("OPENBLAS_CORETYPE") == 0) {
        set_here[0] = '\0';   /* the lowest level: OpenBLAS chooses alone */
    }
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

/* kernel_compile.cu - a user's kernel (kernel.h) compiled for one point: the
 * point's values substituted into the template arguments of the variant's name
 * expression, the -D list, NVRTC (program name = the source's path, so the log
 * reads `path(line): error ...`), and the kernel cache that keeps one cubin and
 * its lowered name per key (spec: $GPULAB_CACHE, else $XDG_CACHE_HOME/gpulab/
 * kernels, else $HOME/.cache/gpulab/kernels; key = sha256 of the source, the
 * headers beside it, the name expression, the -D list, the arch and the NVRTC
 * version), written atomically (temporary file + rename). Also the integer
 * value of a config expression, for kernel_run.cu.
 * Must not call the CUDA runtime or driver: it runs in the driver at plan time,
 * on machines without a GPU or a driver (NVRTC needs neither). */
#include "kernel_int.cuh"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include "expr.h"
#include "sha256.h"
}

/* Tag of the compile options below: part of every cache key, so a change of
 * options (or of this file's layout) never reuses an old cubin. */
#define GK_KEY_TAG "gpulab-kernel-v1 -std=c++17 -default-device -lineinfo"

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* ---- expression values ------------------------------------------------------------- */

int gk_value(const char *expr, const struct gl_params *p, long long *out, char *err,
             size_t errlen)
{
    if (!expr || !expr[0]) {
        say(err, errlen, "empty expression");
        return -1;
    }
    return gl_expr_value(expr, p, out, err, errlen) == 0 ? 0 : -1;
}

/* ---- the point's values ------------------------------------------------------------ */

/* An integer parameter of the point by name: built-in (set) or named. 1 if found. */
static int param_value(const struct gl_params *p, const char *name, long *v)
{
    const struct gl_param_def *d = gl_param_by_name(name);
    if (d && !d->is_text && gl_params_get(p, d->id) != GL_UNSET) {
        *v = gl_params_get(p, d->id);
        return 1;
    }
    const struct gl_uparam *u = gl_params_user_find(p, name);
    if (u) {
        *v = u->v;
        return 1;
    }
    return 0;
}

static int is_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* kv->expr with every parameter name inside its template arguments replaced by
 * its value at p: "tiled<TILE, BLOCK_ROWS>" -> "tiled<32, 8>". The function's
 * name and other identifiers (float, true) stay. 0, or -1 with err. */
static int substitute(const char *expr, const struct gl_params *p, char *out, size_t len,
                      char *err, size_t errlen)
{
    const char *lt = strchr(expr, '<');
    size_t o = 0, i = 0, n = strlen(expr);
    size_t head = lt ? (size_t)(lt - expr) : n;
    if (head >= len)
        goto too_long;
    memcpy(out, expr, head);
    o = head;
    for (i = head; i < n;) {
        char piece[64];
        size_t plen;
        if (is_name_start(expr[i]) || (expr[i] >= '0' && expr[i] <= '9')) {
            size_t s = i;
            while (i < n && (is_name_char(expr[i]) || expr[i] == '.'))
                i++;
            plen = i - s;
            char name[GL_KEXPR];
            snprintf(name, sizeof name, "%.*s", (int)plen, expr + s);
            long v;
            if (is_name_start(name[0]) && param_value(p, name, &v)) {
                snprintf(piece, sizeof piece, "%ld", v);
                plen = strlen(piece);
                if (o + plen >= len)
                    goto too_long;
                memcpy(out + o, piece, plen);
            } else {
                if (o + plen >= len)
                    goto too_long;
                memcpy(out + o, expr + s, plen);
            }
            o += plen;
        } else {
            if (o + 1 >= len)
                goto too_long;
            out[o++] = expr[i++];
        }
    }
    out[o] = '\0';
    return 0;
too_long:
    say(err, errlen, "the kernel expression '%s' is too long after substitution", expr);
    return -1;
}

#define GK_MAX_OPTS (GL_NPARAMS + GL_MAX_UPARAMS + GL_KERNEL_MAX_DEFINES + 8)
#define GK_DEF_LEN (GL_UPARAM_NAME + 32)

/* The -D list of the point: `defines = all` = every set integer parameter
 * (table order) and every named one; else the listed names. n, or -1 + err. */
static int define_list(const struct gl_kernel *k, const struct gl_params *p,
                       char defs[][GK_DEF_LEN], char *err, size_t errlen)
{
    int n = 0;
    if (k->all_defines) {
        for (int i = 0; i < GL_NPARAMS; i++) {
            const struct gl_param_def *d = &gl_param_table[i];
            if (!d->is_text && gl_params_get(p, d->id) != GL_UNSET)
                snprintf(defs[n++], GK_DEF_LEN, "-D%s=%ld", d->name, gl_params_get(p, d->id));
        }
        for (int i = 0; i < p->nuser && i < GL_MAX_UPARAMS; i++)
            snprintf(defs[n++], GK_DEF_LEN, "-D%s=%ld", p->user[i].name, p->user[i].v);
        return n;
    }
    for (int i = 0; i < k->ndefines && i < GL_KERNEL_MAX_DEFINES; i++) {
        long v;
        if (!param_value(p, k->defines[i], &v)) {
            say(err, errlen, "defines: '%s' has no integer value at this point", k->defines[i]);
            return -1;
        }
        snprintf(defs[n++], GK_DEF_LEN, "-D%s=%ld", k->defines[i], v);
    }
    return n;
}

/* ---- files ---------------------------------------------------------------------------- */

/* Whole file into a malloc'd NUL-terminated buffer (*len without the NUL); NULL + err. */
static char *read_all(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) {
        say(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 131072;
            char *nb = (char *)realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                say(err, errlen, "%s: out of memory", path);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        say(err, errlen, "%s: read error", path);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* The folder of path ("." when it has none). */
static void folder_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the *.h, *.cuh and *.hpp files of dir (name, contents), in name order. */
static int hash_headers(struct gl_sha256 *c, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    char *names[512];
    int n = 0, rc = 0;
    if (!d)
        return 0;   /* an unreadable folder has no headers NVRTC could read either */
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 512;)
        if (e->d_name[0] != '.' &&
            (has_suffix(e->d_name, ".h") || has_suffix(e->d_name, ".cuh") ||
             has_suffix(e->d_name, ".hpp")))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (int i = 0; i < n; i++) {
        char path[GK_PATH];
        size_t len = 0;
        if (!names[i] || strlen(dir) + strlen(names[i]) + 2 > sizeof path) {
            say(err, errlen, "out of memory");
            rc = -1;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *text = rc == 0 ? read_all(path, &len, err, errlen) : NULL;
        if (text) {
            gl_sha256_update(c, names[i], strlen(names[i]) + 1);
            gl_sha256_update(c, text, len + 1);
            free(text);
        } else {
            rc = -1;
        }
        free(names[i]);
    }
    return rc;
}

/* The cache folder (created): $GPULAB_CACHE, $XDG_CACHE_HOME/gpulab/kernels or
 * $HOME/.cache/gpulab/kernels. 0, or -1 + err. The driver finds the same folder
 * for C references (src/kernel_variant.c gl_kernel_cache_dir): keep in step. */
static int cache_dir(char *out, size_t len, char *err, size_t errlen)
{
    const char *e = getenv("GPULAB_CACHE");
    if (e && *e)
        snprintf(out, len, "%s", e);
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        snprintf(out, len, "%s/gpulab/kernels", e);
    else if ((e = getenv("HOME")) && *e)
        snprintf(out, len, "%s/.cache/gpulab/kernels", e);
    else {
        say(err, errlen, "no kernel cache: set GPULAB_CACHE (HOME is not set)");
        return -1;
    }
    char tmp[GK_DIR];
    snprintf(tmp, sizeof tmp, "%s", out);
    for (char *s = tmp + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            say(err, errlen, "kernel cache %s: cannot create %s: %s", out, tmp, strerror(errno));
            return -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    return 0;
}

/* Write data to path through a temporary file beside it and a rename, so that a
 * reader (another process) sees the whole file or none. 0, or -1 + err. */
static int write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    static unsigned counter;
    char tmp[GK_PATH + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), counter++);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        say(err, errlen, "kernel cache: %s: %s", tmp, strerror(errno));
        return -1;
    }
    const char *p = (const char *)data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            say(err, errlen, "kernel cache: writing %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        say(err, errlen, "kernel cache: %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- NVRTC ---------------------------------------------------------------------------- */

/* The CUDA headers' folder as NVRTC's library location gives it (lib64/.. or
 * targets/<arch>/lib/..), else $CUDA_HOME/include, else /usr/local/cuda/include;
 * "" when none has cuda_runtime.h. */
static void cuda_include(char *out, size_t len)
{
    char cand[4][GK_PATH];
    int n = 0;
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char dir[GK_DIR], real[PATH_MAX];
        folder_of(info.dli_fname, dir, sizeof dir);
        snprintf(cand[n++], GK_PATH, "%s/../include", dir);
        if (realpath(info.dli_fname, real)) {
            folder_of(real, dir, sizeof dir);
            snprintf(cand[n++], GK_PATH, "%s/../include", dir);
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && *home && strlen(home) < GK_DIR)
        snprintf(cand[n++], GK_PATH, "%s/include", home);
    snprintf(cand[n++], GK_PATH, "/usr/local/cuda/include");
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char probe[GK_PATH + 32];
        snprintf(probe, sizeof probe, "%s/cuda_runtime.h", cand[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(out, len, "%s", cand[i]);
            return;
        }
    }
}

#define NVRTC_OK(call)                                                                         \
    do {                                                                                       \
        nvrtcResult rc_ = (call);                                                              \
        if (rc_ != NVRTC_SUCCESS) {                                                            \
            say(log, loglen, "%s: %s", #call, nvrtcGetErrorString(rc_));                       \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* Compile text as program `name` with opts; on success the cubin (malloc'd) and
 * the lowered name of expr. 0, or -1 with the log. */
static int nvrtc_build(const char *text, const char *name, const char *expr, const char **opts,
                       int nopts, char **cubin, size_t *cubin_len, char *lowered,
                       size_t lowlen, char *log, size_t loglen)
{
    nvrtcProgram prog = NULL;
    const char *low = NULL;
    size_t n = 0;
    *cubin = NULL;
    NVRTC_OK(nvrtcCreateProgram(&prog, text, name, 0, NULL, NULL));
    NVRTC_OK(nvrtcAddNameExpression(prog, expr));
    {
        nvrtcResult rc = nvrtcCompileProgram(prog, nopts, opts);
        if (rc != NVRTC_SUCCESS) {
            size_t ln = 0;
            if (nvrtcGetProgramLogSize(prog, &ln) == NVRTC_SUCCESS && ln > 1) {
                char *l = (char *)malloc(ln);
                if (l && nvrtcGetProgramLog(prog, l) == NVRTC_SUCCESS)
                    say(log, loglen, "%s", l);
                else
                    say(log, loglen, "%s: %s", name, nvrtcGetErrorString(rc));
                free(l);
            } else {
                say(log, loglen, "%s: %s", name, nvrtcGetErrorString(rc));
            }
            goto fail;
        }
    }
    NVRTC_OK(nvrtcGetLoweredName(prog, expr, &low));
    if (!low || strlen(low) >= lowlen) {
        say(log, loglen, "%s: the lowered name of '%s' is missing or too long", name, expr);
        goto fail;
    }
    snprintf(lowered, lowlen, "%s", low);
    NVRTC_OK(nvrtcGetCUBINSize(prog, &n));
    if (n == 0) {
        say(log, loglen, "%s: NVRTC produced no cubin", name);
        goto fail;
    }
    *cubin = (char *)malloc(n);
    if (!*cubin) {
        say(log, loglen, "out of memory for a %zu-byte cubin", n);
        goto fail;
    }
    NVRTC_OK(nvrtcGetCUBIN(prog, *cubin));
    *cubin_len = n;
    nvrtcDestroyProgram(&prog);
    return 0;
fail:
    free(*cubin);
    *cubin = NULL;
    if (prog)
        nvrtcDestroyProgram(&prog);
    return -1;
}

/* ---- the cache ------------------------------------------------------------------------- */

int gk_build(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
             struct gk_built *b, char *log, size_t loglen)
{
    const struct gl_kernel *k;
    char defs[GK_MAX_OPTS][GK_DEF_LEN];
    char dir[GK_DIR], src_dir[GK_DIR], inc[GK_DIR], key[65], path[GK_PATH];
    char *text = NULL, *cubin = NULL;
    size_t text_len = 0, cubin_len = 0;
    int ndefs, major = 0, minor = 0, rc = -1;
    unsigned char digest[32];
    struct gl_sha256 c;

    if (log && loglen)
        log[0] = '\0';
    memset(b, 0, sizeof *b);
    if (!kv || !kv->k || !p) {
        say(log, loglen, "internal: kernel_compile without a kernel or a point");
        return -1;
    }
    k = kv->k;
    if (arch <= 0)
        arch = 90;
    if (substitute(kv->expr[0] ? kv->expr : kv->name, p, b->expr, sizeof b->expr, log,
                   loglen) != 0)
        return -1;
    if ((ndefs = define_list(k, p, defs, log, loglen)) < 0)
        return -1;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) {
        say(log, loglen, "nvrtcVersion failed: NVRTC unusable");
        return -1;
    }
    if (k->text) {
        text = (char *)k->text;
        text_len = strlen(text);
    } else if (!(text = read_all(k->source, &text_len, log, loglen))) {
        return -1;
    }
    folder_of(k->source, src_dir, sizeof src_dir);

    /* key: source, headers, name expression, -D list, arch, NVRTC version */
    gl_sha256_init(&c);
    gl_sha256_update(&c, GK_KEY_TAG, sizeof GK_KEY_TAG);
    gl_sha256_update(&c, text, text_len + 1);
    if (hash_headers(&c, src_dir, log, loglen) != 0)
        goto out;
    gl_sha256_update(&c, b->expr, strlen(b->expr) + 1);
    for (int i = 0; i < ndefs; i++)
        gl_sha256_update(&c, defs[i], strlen(defs[i]) + 1);
    {
        char tail[64];
        snprintf(tail, sizeof tail, "sm_%d nvrtc %d.%d", arch, major, minor);
        gl_sha256_update(&c, tail, strlen(tail) + 1);
    }
    gl_sha256_final(&c, digest);
    for (int i = 0; i < 32; i++)
        snprintf(key + 2 * i, 3, "%02x", digest[i]);

    if (cache_dir(dir, sizeof dir, log, loglen) != 0)
        goto out;
    snprintf(b->cubin, sizeof b->cubin, "%s/%s.cubin", dir, key);
    snprintf(path, sizeof path, "%s/%s.name", dir, key);
    if (access(b->cubin, R_OK) == 0) {
        char e2[256];
        size_t nl = 0;
        char *name = read_all(path, &nl, e2, sizeof e2);
        while (name && nl > 0 && (name[nl - 1] == '\n' || name[nl - 1] == '\r'))
            name[--nl] = '\0';
        if (name && nl > 0 && nl < sizeof b->lowered) {
            snprintf(b->lowered, sizeof b->lowered, "%s", name);
            free(name);
            rc = 1;
            goto out;
        }
        free(name);   /* no usable name beside it: compile again */
    }

    {
        const char *opts[GK_MAX_OPTS + 8];
        char o_arch[48], o_src[GK_DIR + 4], o_inc[GK_DIR + 4];
        int n = 0;
        snprintf(o_arch, sizeof o_arch, "--gpu-architecture=sm_%d", arch);
        snprintf(o_src, sizeof o_src, "-I%s", src_dir);
        opts[n++] = o_arch;
        opts[n++] = "-std=c++17";
        opts[n++] = "-default-device";
        opts[n++] = "-lineinfo";
        opts[n++] = o_src;
        cuda_include(inc, sizeof inc);
        if (inc[0]) {
            snprintf(o_inc, sizeof o_inc, "-I%s", inc);
            opts[n++] = o_inc;
        }
        for (int i = 0; i < ndefs; i++)
            opts[n++] = defs[i];
        if (nvrtc_build(text, k->source, b->expr, opts, n, &cubin, &cubin_len, b->lowered,
                        sizeof b->lowered, log, loglen) != 0)
            goto out;
    }
    {
        char line[sizeof b->lowered + 2];
        snprintf(line, sizeof line, "%s\n", b->lowered);
        /* the name first: a cubin present means its name is there too */
        if (write_atomic(path, line, strlen(line), log, loglen) != 0 ||
            write_atomic(b->cubin, cubin, cubin_len, log, loglen) != 0)
            goto out;
    }
    rc = 0;
out:
    free(cubin);
    if (text != k->text)
        free(text);
    return rc;
}

int gk_kernel_compile(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
                      char *log, size_t loglen)
{
    struct gk_built b;
    return gk_build(kv, p, arch, &b, log, loglen);
}

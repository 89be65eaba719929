/* kernel_compile.cu - a user's kernel (kernel.h) compiled for one point: the
 * point's values substituted into the template arguments of the variant's name
 * expression, the -D list, the compiler (kernel_nvrtc.cu, the default, or
 * kernel_nvcc.cu for `compiler = nvcc`), and the kernel cache (spec:
 * $GPULAB_CACHE, else $XDG_CACHE_HOME/gpulab/kernels, else
 * $HOME/.cache/gpulab/kernels). The variants that share a program - source,
 * the user headers it includes (src/core/deps.h), the section's options, the
 * -D list, the compiler and its version, the arch - are compiled together as
 * one program with several name expressions. The cache keeps, per program,
 * <program key>.cubin (key: the program's key and its sorted name
 * expressions) and, per variant, <variant key>.name (key: the program's key
 * and the variant's name expression) holding the lowered name and the cubin's
 * file name, so that a variant compiled in any group is found alone (the
 * worker's gk_build at run time). Files are written atomically (temporary file
 * + rename), the cubin before the records that name it. Also the integer value
 * of a config expression, for kernel_run.cu.
 * Must not call the CUDA runtime or driver: it runs in the driver's compile
 * children at plan time, on machines without a GPU or a driver (NVRTC and
 * nvcc need neither). */
#include "kernel_int.cuh"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern "C" {
#include "deps.h"
#include "expr.h"
#include "launches.h"
#include "fileutil.h"
#include "kernel_sig.h"
#include "sha256.h"
}

/* Tag of the compile options: part of every cache key, so a change of gpulab's
 * own options (or of the cache's layout) never reuses an old cubin. */
#define GK_KEY_TAG "gpulab-kernel-v2 -std=c++17 -lineinfo (nvrtc: -default-device)"

/* ---- expression values ------------------------------------------------------------- */

int gk_value(const char *expr, const struct gl_params *p, long long *out, char *err,
             size_t errlen)
{
    if (!expr || !expr[0]) {
        gl_say(err, errlen, "empty expression");
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
                if (gl_ktype_of_param(v) >= 0)   /* a type parameter: saxpy<float> */
                    snprintf(piece, sizeof piece, "%s", gl_ktype_cname(gl_ktype_of_param(v)));
                else
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
    gl_say(err, errlen, "the kernel expression '%s' is too long after substitution", expr);
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
        for (int i = 0; i < p->nuser && i < GL_MAX_UPARAMS; i++)   /* type parameters: no -D */
            if (gl_ktype_of_param(p->user[i].v) < 0)
                snprintf(defs[n++], GK_DEF_LEN, "-D%s=%ld", p->user[i].name, p->user[i].v);
        return n;
    }
    for (int i = 0; i < k->ndefines && i < GL_KERNEL_MAX_DEFINES; i++) {
        long v;
        if (!param_value(p, k->defines[i], &v)) {
            gl_say(err, errlen, "defines: '%s' has no integer value at this point", k->defines[i]);
            return -1;
        }
        snprintf(defs[n++], GK_DEF_LEN, "-D%s=%ld", k->defines[i], v);
    }
    return n;
}

/* ---- files ---------------------------------------------------------------------------- */

/* The cache folder (src/core/fileutil.h gl_kernel_cache_dir), created. 0, or -1 + err. */
static int cache_dir(char *out, size_t len, char *err, size_t errlen)
{
    char failed[GK_DIR];
    int rc = gl_kernel_cache_dir(out, len);
    if (rc == -1) {
        gl_say(err, errlen, "no kernel cache: set GPULAB_CACHE (HOME is not set)");
        return -1;
    }
    if (rc != 0) {
        gl_say(err, errlen, "no kernel cache: its folder's path is longer than %zu bytes", len - 1);
        return -1;
    }
    if (gl_make_dirs(out, failed, sizeof failed) != 0) {
        gl_say(err, errlen, "kernel cache %s: cannot create %s: %s", out, failed, strerror(errno));
        return -1;
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
        gl_say(err, errlen, "kernel cache: %s: %s", tmp, strerror(errno));
        return -1;
    }
    const char *p = (const char *)data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            gl_say(err, errlen, "kernel cache: writing %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        gl_say(err, errlen, "kernel cache: %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- keys ------------------------------------------------------------------------------ */

static void hex_of(const unsigned char d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* One variant at its point, as the cache and the compilers see it. */
struct gk_item {
    const struct gl_kernel_variant *kv;
    char expr[GL_KEXPR];          /* substituted */
    int ndefs;
    char defs[GK_MAX_OPTS][GK_DEF_LEN];
    char program[65];             /* the program's key: everything but the expression */
    char key[65];                 /* the variant's: the program's and the expression */
    int group;                    /* index of the first item of its program */
    int arch;                     /* its target (target.h): the section's arch, else the call's */
};

/* The user headers' hash of each kernel met in one call (a section's variants
 * share it: scanned once). */
struct gk_deps_memo {
    const struct gl_kernel *k[64];
    unsigned char id[64][32];     /* what the scan depends on: source, folder, options, text */
    unsigned char d[64][32];
    int n;
};

/* The identity of k for the memo: a kernel freed and another made at its
 * address (a later config) is not taken for it. */
static void deps_id(const struct gl_kernel *k, unsigned char id[32])
{
    struct gl_sha256 c;
    gl_sha256_init(&c);
    gl_sha256_update(&c, k->source, strlen(k->source) + 1);
    gl_sha256_update(&c, k->config_dir, strlen(k->config_dir) + 1);
    gl_sha256_update(&c, k->options_text, strlen(k->options_text) + 1);
    gl_sha256_update(&c, k->text, strlen(k->text) + 1);
    gl_sha256_final(&c, id);
}

static int deps_digest(struct gk_deps_memo *m, const struct gl_kernel *k, unsigned char d[32],
                       char *log, size_t loglen)
{
    unsigned char id[32];
    deps_id(k, id);
    for (int i = 0; i < m->n; i++)
        if (m->k[i] == k && memcmp(m->id[i], id, 32) == 0) {
            memcpy(d, m->d[i], 32);
            return 0;
        }
    struct gl_sha256 c;
    char err[1200];
    gl_sha256_init(&c);
    if (gl_kernel_deps_hash(k, &c, NULL, err, sizeof err) != 0) {
        gl_say(log, loglen, "%s: %s", k->source, err);
        return -1;
    }
    gl_sha256_final(&c, d);
    if (m->n < 64) {
        m->k[m->n] = k;
        memcpy(m->id[m->n], id, 32);
        memcpy(m->d[m->n++], d, 32);
    }
    return 0;
}

/* Fill it for kv at p: expression, -D list, program and variant keys. 0, or -1 + log. */
static int item_init(struct gk_item *it, const struct gl_kernel_variant *kv,
                     const struct gl_params *p, int arch, const char *version,
                     struct gk_deps_memo *memo, char *log, size_t loglen)
{
    const struct gl_kernel *k = kv->k;
    unsigned char deps[32], d[32];
    struct gl_sha256 c;
    char tail[64];
    it->kv = kv;
    it->arch = arch;
    if (substitute(kv->expr[0] ? kv->expr : kv->name, p, it->expr, sizeof it->expr, log,
                   loglen) != 0)
        return -1;
    if ((it->ndefs = define_list(k, p, it->defs, log, loglen)) < 0)
        return -1;
    if (!k->text) {
        gl_say(log, loglen, "internal: kernel %s without its source's text", k->source);
        return -1;
    }
    if (deps_digest(memo, k, deps, log, loglen) != 0)
        return -1;
    /* the program: tag, compiler and version, arch, source, headers, options, -D list */
    gl_sha256_init(&c);
    gl_sha256_update(&c, GK_KEY_TAG, sizeof GK_KEY_TAG);
    gl_sha256_update(&c, version, strlen(version) + 1);
    snprintf(tail, sizeof tail, "sm_%d", arch);
    gl_sha256_update(&c, tail, strlen(tail) + 1);
    gl_sha256_update(&c, k->text, strlen(k->text) + 1);
    gl_sha256_update(&c, deps, sizeof deps);
    gl_sha256_update(&c, "options", 8);
    gl_sha256_update(&c, k->options_text, strlen(k->options_text) + 1);
    for (int i = 0; i < it->ndefs; i++)
        gl_sha256_update(&c, it->defs[i], strlen(it->defs[i]) + 1);
    gl_sha256_final(&c, d);
    hex_of(d, it->program);
    /* the variant: the program and the expression */
    gl_sha256_init(&c);
    gl_sha256_update(&c, it->program, 65);
    gl_sha256_update(&c, "expr", 5);
    gl_sha256_update(&c, it->expr, strlen(it->expr) + 1);
    gl_sha256_final(&c, d);
    hex_of(d, it->key);
    return 0;
}

/* ---- the cache ------------------------------------------------------------------------- */

/* The record of a variant key: its lowered name and its cubin's path, when
 * both are there. 1 found, 0 not. */
static int lookup(const char *dir, const char *key, char *cubin, size_t cubin_len, char *lowered,
                  size_t lowlen)
{
    char path[GK_PATH], e[256];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.name", dir, key);
    char *rec = gl_file_read(path, &n, e, sizeof e);
    if (!rec)
        return 0;
    char *nl = strchr(rec, '\n'), *file = nl ? nl + 1 : NULL;
    char *end = file ? strchr(file, '\n') : NULL;
    int ok = nl && end && nl > rec && end > file && (size_t)(nl - rec) < lowlen &&
             !memchr(file, '/', (size_t)(end - file));
    if (ok) {
        *nl = *end = '\0';
        snprintf(lowered, lowlen, "%s", rec);
        snprintf(cubin, cubin_len, "%s/%s", dir, file);
        ok = access(cubin, R_OK) == 0;
    }
    free(rec);
    return ok;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Compile the items its[0..n) (one program: the same k, -D list, compiler and
 * arch) as one program into dir: <program key>.cubin, then a record per item.
 * 0, or -1 / -2 with the log. */
static int compile_program(struct gk_item *const *its, int n, int arch, const char *dir,
                           char *log, size_t loglen)
{
    const struct gl_kernel *k = its[0]->kv->k;
    const char **exprs = (const char **)calloc((size_t)n, sizeof *exprs);
    const char **opts = (const char **)calloc((size_t)(its[0]->ndefs + k->noptions + 1),
                                              sizeof *opts);
    char (*lowered)[GK_LOWERED] = (char (*)[GK_LOWERED])calloc((size_t)n, GK_LOWERED);
    char o_src[GK_DIR + 4], src_dir[GK_DIR], key[65], path[GK_PATH];
    char *cubin = NULL;
    size_t cubin_len = 0;
    int nexprs = 0, nopts = 0, rc = -1;
    if (!exprs || !opts || !lowered) {
        gl_say(log, loglen, "out of memory");
        goto out;
    }
    /* the distinct expressions, sorted: the program's cubin is keyed by them */
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < nexprs && !dup; j++)
            dup = strcmp(exprs[j], its[i]->expr) == 0;
        if (!dup)
            exprs[nexprs++] = its[i]->expr;
    }
    qsort(exprs, (size_t)nexprs, sizeof *exprs, by_string);
    {
        struct gl_sha256 c;
        unsigned char d[32];
        gl_sha256_init(&c);
        gl_sha256_update(&c, its[0]->program, 65);
        gl_sha256_update(&c, "program", 8);
        for (int i = 0; i < nexprs; i++)
            gl_sha256_update(&c, exprs[i], strlen(exprs[i]) + 1);
        gl_sha256_final(&c, d);
        hex_of(d, key);
    }
    gl_folder_of(k->source, src_dir, sizeof src_dir);
    snprintf(o_src, sizeof o_src, "-I%s", src_dir);
    opts[nopts++] = o_src;
    for (int i = 0; i < its[0]->ndefs; i++)
        opts[nopts++] = its[0]->defs[i];
    for (int i = 0; i < k->noptions && i < GL_KERNEL_MAX_OPTIONS; i++)
        opts[nopts++] = k->options[i];
    {
        struct gk_compile c = { k, arch, opts, nopts, exprs, nexprs };
        rc = k->compiler == GL_KC_NVCC
                 ? gk_nvcc_compile(&c, &cubin, &cubin_len, lowered, log, loglen)
                 : gk_nvrtc_compile(&c, &cubin, &cubin_len, lowered, log, loglen);
        if (rc != 0)
            goto out;
    }
    rc = -1;
    snprintf(path, sizeof path, "%s/%s.cubin", dir, key);
    if (write_atomic(path, cubin, cubin_len, log, loglen) != 0)
        goto out;
    for (int i = 0; i < n; i++) {
        int e = 0;
        while (strcmp(exprs[e], its[i]->expr) != 0)
            e++;
        char rec[GK_LOWERED + 80];
        snprintf(rec, sizeof rec, "%s\n%s.cubin\n", lowered[e], key);
        snprintf(path, sizeof path, "%s/%s.name", dir, its[i]->key);
        if (write_atomic(path, rec, strlen(rec), log, loglen) != 0)
            goto out;
    }
    rc = 0;
out:
    free(cubin);
    free(exprs);
    free(opts);
    free(lowered);
    return rc;
}

/* The compiler's version text for k (part of the key). 0, or -1 + log. */
static int compiler_version(const struct gl_kernel *k, char *out, size_t len, char *log,
                            size_t loglen)
{
    return k->compiler == GL_KC_NVCC ? gk_nvcc_version(out, len, log, loglen)
                                     : gk_nvrtc_version(out, len, log, loglen);
}

/* Set by gk_build_keep_deps: the headers' digest of each kernel is taken once
 * per process, not once per call (a worker's runs: what the sweep planned). */
static int keep_deps;

void gk_build_keep_deps(void)
{
    keep_deps = 1;
}

/* gk_build_many, with each variant's cache files in built[i] when built. */
static int build(const struct gl_kernel_variant *const *kvs, const struct gl_params *const *ps,
                 int n, int arch, int *res, struct gk_built *built, char *log, size_t loglen)
{
    struct gk_item *items = (struct gk_item *)calloc((size_t)(n > 0 ? n : 1), sizeof *items);
    struct gk_item **group = (struct gk_item **)calloc((size_t)(n > 0 ? n : 1), sizeof *group);
    static struct gk_deps_memo memo;
    char dir[GK_DIR];
    int rc = 0;
    if (log && loglen)
        log[0] = '\0';
    for (int i = 0; i < n; i++)
        res[i] = -1;
    if (!items || !group) {
        gl_say(log, loglen, "out of memory");
        rc = -1;
        goto out;
    }
    if (!keep_deps)
        memo.n = 0;   /* headers may have changed since the last call: scan again */
    if (arch <= 0)
        arch = 90;
    if (cache_dir(dir, sizeof dir, log, loglen) != 0) {
        rc = -1;
        goto out;
    }
    /* keys, and what the cache has */
    for (int i = 0; i < n; i++) {
        char version[600];
        if (!kvs[i] || !kvs[i]->k || !ps[i]) {
            gl_say(log, loglen, "internal: kernel_compile without a kernel or a point");
            rc = -1;
            goto out;
        }
        if (compiler_version(kvs[i]->k, version, sizeof version, log, loglen) != 0 ||
            item_init(&items[i], kvs[i], ps[i], gl_arch_effective(kvs[i]->k->arch, arch), version,
                      &memo, log, loglen) != 0) {
            rc = -1;
            goto out;
        }
        struct gk_built *b = built ? &built[i] : NULL;
        char cubin[GK_PATH], lowered[GK_LOWERED];
        if (lookup(dir, items[i].key, cubin, sizeof cubin, lowered, sizeof lowered))
            res[i] = 1;
        if (b) {
            snprintf(b->expr, sizeof b->expr, "%s", items[i].expr);
            if (res[i] == 1) {
                snprintf(b->cubin, sizeof b->cubin, "%s", cubin);
                snprintf(b->lowered, sizeof b->lowered, "%s", lowered);
            }
        }
    }
    /* the misses, one program per program key, in the order of their first variant */
    for (int i = 0; i < n; i++)
        items[i].group = -1;
    for (int i = 0; i < n && rc == 0; i++) {
        if (res[i] == 1 || items[i].group >= 0)
            continue;
        int m = 0;
        for (int j = i; j < n; j++)
            if (res[j] != 1 && items[j].group < 0 && items[j].kv->k->compiler ==
                items[i].kv->k->compiler && strcmp(items[j].program, items[i].program) == 0) {
                items[j].group = i;
                group[m++] = &items[j];
            }
        rc = compile_program(group, m, items[i].arch, dir, log, loglen);
        if (rc == -1 && m > 1) {
            /* one expression at a time, in order, to name the first that fails
             * with its own log (as a compilation of it alone would) */
            for (int j = 0; j < m; j++) {
                rc = compile_program(&group[j], 1, items[i].arch, dir, log, loglen);
                if (rc != 0) {
                    for (int t = 0; t < j; t++)
                        res[group[t] - items] = 0;
                    break;
                }
            }
            if (rc == 0)   /* each alone compiles: the group's error stands */
                rc = compile_program(group, m, items[i].arch, dir, log, loglen);
        }
        if (rc != 0)
            break;
        for (int j = 0; j < m; j++)
            res[group[j] - items] = 0;
    }
    /* where the ones compiled now are */
    for (int i = 0; i < n && rc == 0 && built; i++)
        if (res[i] == 0 && !lookup(dir, items[i].key, built[i].cubin, sizeof built[i].cubin,
                                   built[i].lowered, sizeof built[i].lowered)) {
            gl_say(log, loglen, "kernel cache %s: the record of %s vanished", dir, items[i].expr);
            rc = -1;
        }
    /* the section's args against each kernel's parameters, as its lowered name
     * says them (kernel_sig.h): a mismatch fails the variant, its log marked */
    for (int i = 0; i < n && rc == 0; i++) {
        char cubin[GK_PATH], lowered[GK_LOWERED], msg[1500];
        if (res[i] < 0 || !lookup(dir, items[i].key, cubin, sizeof cubin, lowered, sizeof lowered))
            continue;
        if (gl_ksig_check_lowered(kvs[i]->k, ps[i], items[i].expr, lowered, msg, sizeof msg) != 0) {
            gl_say(log, loglen, "%s%s", GL_KSIG_LOG_MARK, msg);
            res[i] = -1;
            rc = -1;
        }
    }
out:
    free(items);
    free(group);
    return rc;
}

int gk_build_many(const struct gl_kernel_variant *const *kvs, const struct gl_params *const *ps,
                  int n, int arch, int *res, char *log, size_t loglen)
{
    return build(kvs, ps, n, arch, res, NULL, log, loglen);
}

int gk_build(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
             struct gk_built *b, char *log, size_t loglen)
{
    int res = -1;
    memset(b, 0, sizeof *b);
    int rc = build(&kv, &p, 1, arch, &res, b, log, loglen);
    return rc != 0 ? rc : res;
}

/* Built, then each kernel's symbols against its cubin (kernel_symbols.cu): a
 * mismatch is -3 with the log "LINE: message", LINE the symbol's config line. */
static int compile_checked(const struct gl_kernel_variant *const *kvs,
                           const struct gl_params *const *ps, int n, int arch, int *res,
                           char *log, size_t loglen)
{
    struct gk_built *built = (struct gk_built *)calloc((size_t)(n > 0 ? n : 1), sizeof *built);
    if (!built) {
        gl_say(log, loglen, "out of memory");
        return -1;
    }
    int rc = build(kvs, ps, n, arch, res, built, log, loglen);
    for (int i = 0; i < n && rc == 0; i++) {
        int line = 0;
        char msg[1024];
        int s = gk_symbols_check(kvs[i]->k, ps[i], built[i].cubin, &line, NULL, msg, sizeof msg);
        if (s == 0)
            continue;
        res[i] = -1;
        if (s == -1) {
            snprintf(log, loglen, "%d: %s", line, msg);
            rc = -3;
        } else {
            gl_say(log, loglen, "%s", msg);
            rc = -1;
        }
    }
    free(built);
    return rc;
}

/* A launch sequence (launches.h) compiles the kernel of each of its launch
 * lines: the variants are expanded into one variant per launch line (its
 * kernel as the expression) before the grouping into programs, and each
 * variant's result is its launches' (failed if one failed, compiled now if
 * one was, else from the cache). */
int gk_kernel_compile_many(const struct gl_kernel_variant *const *kvs,
                           const struct gl_params *const *ps, int n, int arch, int *res,
                           char *log, size_t loglen)
{
    int m = 0, rc, seqs = 0;
    for (int i = 0; i < n; i++) {
        int is_seq = kvs[i] && kvs[i]->k && kvs[i]->k->seq;
        m += is_seq ? kvs[i]->k->seq->n : 1;
        seqs += is_seq;
    }
    if (seqs == 0)
        return compile_checked(kvs, ps, n, arch, res, log, loglen);
    struct gl_kernel_variant *own = (struct gl_kernel_variant *)calloc((size_t)m, sizeof *own);
    const struct gl_kernel_variant **ek =
        (const struct gl_kernel_variant **)calloc((size_t)m, sizeof *ek);
    const struct gl_params **ep = (const struct gl_params **)calloc((size_t)m, sizeof *ep);
    int *eres = (int *)calloc((size_t)m, sizeof *eres), *of = (int *)calloc((size_t)m, sizeof *of);
    if (!own || !ek || !ep || !eres || !of) {
        gl_say(log, loglen, "out of memory");
        rc = -1;
        goto out;
    }
    m = 0;
    for (int i = 0; i < n; i++) {
        const struct gl_kseq *q = kvs[i] && kvs[i]->k ? kvs[i]->k->seq : NULL;
        for (int l = 0; l < (q ? q->n : 1); l++) {
            ek[m] = kvs[i];
            if (q) {
                own[m] = *kvs[i];
                snprintf(own[m].expr, sizeof own[m].expr, "%s", gl_klaunch_kernel(kvs[i], &q->l[l]));
                ek[m] = &own[m];
            }
            ep[m] = ps[i];
            of[m++] = i;
        }
    }
    rc = gk_build_many(ek, ep, m, arch, eres, log, loglen);
    for (int i = 0; i < n; i++)
        res[i] = 1;
    for (int e = 0; e < m; e++) {
        int *r = &res[of[e]];
        if (eres[e] < 0 || *r < 0)
            *r = -1;
        else if (eres[e] == 0)
            *r = 0;
    }
out:
    free(own);
    free(ek);
    free(ep);
    free(eres);
    free(of);
    return rc;
}

int gk_kernel_compile(const struct gl_kernel_variant *kv, const struct gl_params *p, int arch,
                      char *log, size_t loglen)
{
    int res = -1;
    int rc = gk_kernel_compile_many(&kv, &p, 1, arch, &res, log, loglen);
    return rc < 0 ? -1 : res;
}

/* deps.c - see deps.h: the user headers a kernel's source includes, one scan
 * for the driver and the GPU plugin.
 * Must not compile, run or print anything, nor follow a name into a folder
 * that is not the including file's, the source's or an -I folder of options. */
#include "deps.h"
#include "fileutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* target's path relative to the folder base (both absolute and real). */
static void relative(const char *base, const char *target, char *out, size_t len)
{
    size_t common = 0, i = 0;
    /* the longest prefix of whole components */
    for (;; i++) {
        char a = base[i], b = target[i];
        if (a == '\0' && (b == '/' || b == '\0')) {
            common = i;
            break;
        }
        if (a != b)
            break;
        if (a == '/')
            common = i;
    }
    if (strcmp(base, "/") == 0)
        common = 0;
    size_t o = 0;
    out[0] = '\0';
    /* one ".." per component of base after the common prefix */
    for (const char *s = base + common; *s; s++)
        if (*s == '/' && s[1] != '\0' && o + 4 < len) {
            memcpy(out + o, "../", 3);
            o += 3;
            out[o] = '\0';
        }
    const char *rest = target + common;
    if (*rest == '/')
        rest++;
    snprintf(out + o, len - o, "%s", rest);
}

static int add_dep(struct gl_deps *d, const char *path, const char *real, char *text, size_t len,
                   const char *base_real, char *err, size_t errlen)
{
    char rel[PATH_MAX];
    if (d->n == GL_DEPS_MAX) {
        gl_say(err, errlen, "more than %d included files (the scan stops there)", GL_DEPS_MAX);
        return -1;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        struct gl_dep *nd = realloc(d->d, (size_t)cap * sizeof *nd);
        if (!nd) {
            gl_say(err, errlen, "out of memory");
            return -1;
        }
        d->d = nd;
        d->cap = cap;
    }
    relative(base_real, real, rel, sizeof rel);
    struct gl_dep *e = &d->d[d->n];
    e->path = strdup(path);
    e->real = strdup(real);
    e->rel = strdup(rel);
    e->text = text;
    e->len = len;
    if (!e->path || !e->real || !e->rel) {
        free(e->path);
        free(e->real);
        free(e->rel);
        gl_say(err, errlen, "out of memory");
        return -1;
    }
    d->n++;
    return 0;
}

static int seen(const struct gl_deps *d, const char *real, const char *source_real)
{
    if (strcmp(real, source_real) == 0)
        return 1;
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->d[i].real, real) == 0)
            return 1;
    return 0;
}

/* The name of an #include line at s (the start of a line): 1 with name, or 0. */
static int include_name(const char *s, const char *end, char *name, size_t len)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s != '#')
        return 0;
    s++;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if ((size_t)(end - s) < 7 || strncmp(s, "include", 7) != 0)
        return 0;
    s += 7;
    if (s < end && (*s == '_' || (*s >= 'a' && *s <= 'z')))
        return 0;   /* include_next, or another word */
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || (*s != '"' && *s != '<'))
        return 0;   /* #include MACRO: not followed */
    char close = *s == '"' ? '"' : '>';
    const char *b = ++s;
    while (s < end && *s != close)
        s++;
    if (s >= end || s == b || (size_t)(s - b) >= len)
        return 0;
    snprintf(name, len, "%.*s", (int)(s - b), b);
    return 1;
}

struct scan {
    struct gl_deps *d;
    const char *source_dir, *source_real, *base_real;
    const char *const *dirs;
    int ndirs;
    char *err;
    size_t errlen;
};

static int scan_text(struct scan *sc, const char *file_dir, const char *text, size_t len);

/* A candidate file for an include: a dependency when it is a regular file not
 * seen yet (then scanned in turn). 0, or -1 with err. */
static int offer(struct scan *sc, const char *dir, const char *name)
{
    char path[PATH_MAX + 256], real[PATH_MAX];
    struct stat st;
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(path, real))
        return 0;
    if (seen(sc->d, real, sc->source_real))
        return 0;
    size_t len = 0;
    char *text = gl_file_read_max(path, GL_TEXT_MAX, 0, &len, sc->err, sc->errlen);
    if (!text) {
        char *why = sc->err ? strdup(sc->err) : NULL;   /* "path: why" */
        gl_say(sc->err, sc->errlen, "cannot read the included file %s", why ? why : path);
        free(why);
        return -1;
    }
    if (add_dep(sc->d, path, real, text, len, sc->base_real, sc->err, sc->errlen) != 0) {
        free(text);
        return -1;
    }
    char here[PATH_MAX + 256];
    gl_folder_of(path, here, sizeof here);
    return scan_text(sc, here, text, len);
}

static int scan_text(struct scan *sc, const char *file_dir, const char *text, size_t len)
{
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *eol = nl ? nl : end;
        char name[PATH_MAX];
        if (include_name(s, eol, name, sizeof name)) {
            if (name[0] == '/') {
                if (offer(sc, "", name) != 0)
                    return -1;
            } else {
                if (offer(sc, file_dir, name) != 0 || offer(sc, sc->source_dir, name) != 0)
                    return -1;
                for (int i = 0; i < sc->ndirs; i++)
                    if (offer(sc, sc->dirs[i], name) != 0)
                        return -1;
            }
        }
        s = nl ? nl + 1 : end;
    }
    return 0;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const struct gl_dep *)a)->rel, ((const struct gl_dep *)b)->rel);
}

int gl_deps_scan(const char *source, const char *text, const char *const *dirs, int ndirs,
                 const char *base, struct gl_deps *out, char *err, size_t errlen)
{
    char source_dir[PATH_MAX], source_real[PATH_MAX], base_real[PATH_MAX];
    char *own = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    gl_folder_of(source, source_dir, sizeof source_dir);
    if (!realpath(source, source_real))
        snprintf(source_real, sizeof source_real, "%s", source);
    if (!base || !base[0])
        base = source_dir;
    if (!realpath(base, base_real)) {
        gl_say(err, errlen, "%s: %s", base, strerror(errno));
        return -1;
    }
    if (!text) {
        if (!(own = gl_file_read_max(source, GL_TEXT_MAX, 0, &len, err, errlen)))
            return -1;
        text = own;
    } else {
        len = strlen(text);
    }
    struct scan sc = { out, source_dir, source_real, base_real, dirs, ndirs, err, errlen };
    int rc = scan_text(&sc, source_dir, text, len);
    free(own);
    if (rc == 0 && out->n > 1)
        qsort(out->d, (size_t)out->n, sizeof *out->d, by_rel);
    return rc;
}

void gl_deps_hash(const struct gl_deps *d, struct gl_sha256 *h)
{
    for (int i = 0; i < d->n; i++) {
        gl_sha256_update(h, "dep", 4);
        gl_sha256_update(h, d->d[i].rel, strlen(d->d[i].rel) + 1);
        gl_sha256_update(h, d->d[i].text, d->d[i].len + 1);
    }
}

void gl_deps_free(struct gl_deps *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->d[i].path);
        free(d->d[i].real);
        free(d->d[i].rel);
        free(d->d[i].text);
    }
    free(d->d);
    memset(d, 0, sizeof *d);
}

int gl_kernel_include_dirs(const struct gl_kernel *k, const char **dirs, int max)
{
    int n = 0;
    for (int i = 0; i < k->noptions && i < GL_KERNEL_MAX_OPTIONS && n < max; i++)
        if (strncmp(k->options[i], "-I", 2) == 0 && k->options[i][2])
            dirs[n++] = k->options[i] + 2;
    return n;
}

int gl_kernel_deps_hash(const struct gl_kernel *k, struct gl_sha256 *h, int *nfiles, char *err,
                        size_t errlen)
{
    const char *dirs[GL_KERNEL_MAX_OPTIONS];
    struct gl_deps d;
    int ndirs = gl_kernel_include_dirs(k, dirs, GL_KERNEL_MAX_OPTIONS);
    int rc = gl_deps_scan(k->source, k->text, dirs, ndirs, k->config_dir, &d, err, errlen);
    if (rc == 0) {
        gl_deps_hash(&d, h);
        if (nfiles)
            *nfiles = d.n;
    }
    gl_deps_free(&d);
    return rc;
}

/* cmd_init.c - `gpulab init FILE.cu`: a starter config for a kernel file, read
 * from the file's own text (src/config/ksource.h): a section per __global__
 * function, its pointer parameters as buffers of their element type (const ones
 * inputs, the others outputs), its scalars as arguments (sizes are N, other
 * integers named parameters after the C name), its template parameters as named
 * parameters, the launch shape of the file's own <<<...>>> where it can be read
 * (else 1-D), and small stated sizes. The text is checked by the config reader
 * before it is written, so `gpulab plan` reads what init writes.
 * Must not compile or run the kernels, nor overwrite a file unless asked. */
#include "commands.h"
#include "config.h"
#include "fileutil.h"
#include "ksource.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_1D "1<<16"
#define N_2D "256"

/* A growing text. */
struct text {
    char *s;
    size_t n, cap;
    int oom;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int m = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (m < 0) {
            t->oom = 1;
            return;
        }
        if (t->s && t->n + (size_t)m < t->cap) {
            t->n += (size_t)m;
            return;
        }
        size_t nc = t->cap ? 2 * t->cap : 4096;
        while (nc < t->n + (size_t)m + 1)
            nc *= 2;
        char *ns = realloc(t->s, nc);
        if (!ns) {
            t->oom = 1;
            return;
        }
        t->s = ns;
        t->cap = nc;
    }
}

/* A scalar integer parameter that holds the problem's size. */
static int size_like(const char *name)
{
    static const char *const names[] = { "n", "N", "size", "len", "length", "count", "num",
        "numElements", "num_elements", "nelem", "nelems", "n_elements", "width", "height",
        "rows", "cols", "dim", "m", "M", "K", "k", "nx", "ny", "total", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* A template parameter that reads as a block size. */
static int block_like(const char *name)
{
    static const char *const parts[] = { "BLOCK", "THREAD", "TPB", "BS", "NT", NULL };
    char up[GL_KS_NAME];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof up; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[i] = '\0';
    for (int k = 0; parts[k]; k++)
        if (strstr(up, parts[k]))
            return 1;
    return 0;
}

/* gpulab's scalar type for a C scalar type, or NULL. */
static const char *scalar_type(const char *elem, int *is_float)
{
    *is_float = 0;
    if (strcmp(elem, "float") == 0 || strcmp(elem, "double") == 0 || strcmp(elem, "__half") == 0 ||
        strcmp(elem, "half") == 0 || strcmp(elem, "__nv_bfloat16") == 0 ||
        strcmp(elem, "nv_bfloat16") == 0) {
        *is_float = 1;
        return gl_ks_buffer_type(elem);
    }
    if (strcmp(elem, "bool") == 0 || strcmp(elem, "short") == 0 || strcmp(elem, "char") == 0)
        return "int";
    if (strcmp(elem, "long") == 0 || strcmp(elem, "long int") == 0)
        return "int64";
    if (strcmp(elem, "unsigned long") == 0)
        return "uint64";
    return gl_ks_buffer_type(elem);
}

/* A scalar parameter's gpulab type: a template type parameter is float. */
static const char *scalar_of(const struct gl_ks_kernel *k, const char *elem, int *is_float)
{
    for (int i = 0; i < k->ntparams; i++)
        if (k->tparams[i].is_type && strcmp(k->tparams[i].name, elem) == 0) {
            *is_float = 1;
            return "float";
        }
    return scalar_type(elem, is_float);
}

/* The element type of a pointer parameter: a template type parameter is float. */
static const char *pointee(const struct gl_ks_kernel *k, const char *elem)
{
    for (int i = 0; i < k->ntparams; i++)
        if (k->tparams[i].is_type && strcmp(k->tparams[i].name, elem) == 0)
            return "float";
    return gl_ks_buffer_type(elem);
}

/* A parameter passed as an object's handle (docs/kernels.md): 1 a texture,
 * 2 a surface, 3 a tensor map; 0 for any other. */
static int object_kind(const struct gl_ks_param *p)
{
    if (p->is_ptr)
        return 0;
    if (strcmp(p->elem, "cudaTextureObject_t") == 0)
        return 1;
    if (strcmp(p->elem, "cudaSurfaceObject_t") == 0)
        return 2;
    return strcmp(p->elem, "CUtensorMap") == 0 || strcmp(p->elem, "CUtensorMap_st") == 0 ? 3 : 0;
}

/* Why kernel k cannot get a section, or NULL. */
static const char *cannot(const struct gl_ks_kernel *k, char *buf, size_t len)
{
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        int fl;
        if (object_kind(p))
            continue;
        if (p->is_ptr ? !pointee(k, p->elem) : !scalar_of(k, p->elem, &fl)) {
            int is_t = 0;
            for (int t = 0; t < k->ntparams; t++)
                is_t |= k->tparams[t].is_type && strcmp(k->tparams[t].name, p->elem) == 0;
            if (is_t)
                continue;
            snprintf(buf, len, "parameter %d, %s %s: gpulab has no %s of type '%s'", i + 1,
                     p->type, p->name, p->is_ptr ? "buffer" : "scalar", p->elem);
            return buf;
        }
    }
    return NULL;
}

/* A named parameter's name for C name s, not one of gpulab's own words. */
static void param_name(const char *s, char *out, size_t len)
{
    /* the keys of a section (a built-in parameter's name, N or BS, is a parameter:
     * kept); a name too close to a key is refused as a typo, so these get a suffix
     * far from any key */
    static const char *const taken[] = { "mem", "grid", "cache", "source", "family", "variants",
        "args", "block", "smem", "verify", "defines", "options", "compiler", "flops", "bytes",
        "where", "zip", "metrics", "warmup", "timeout", "noise", "tolerance", "study",
        "description", "threads", "seed", NULL };
    for (int i = 0; taken[i]; i++)
        if (strcasecmp(s, taken[i]) == 0) {
            snprintf(out, len, "%s_VALUE", s);
            return;
        }
    snprintf(out, len, "%s", s);
}

static void section(struct text *t, const struct gl_ks_kernel *k, const char *src, int nvcc,
                    const struct gl_ks_file *f)
{
    int two_d = k->two_d;
    const char *count = two_d ? "N*N" : "N";
    char block_param[GL_KS_NAME + 2] = "";
    put(t, "\n[%s]\n", k->name);
    put(t, "source = %s\n", src);
    if (nvcc)
        put(t, "compiler = nvcc                 # the file has host code (main(), runtime calls)\n");
    /* the variant: the kernel, or its template instantiated with named parameters */
    if (k->ntparams == 0) {
        put(t, "variants = %s\n", k->name);
    } else {
        put(t, "variants = %s = %s<", k->name, k->name);
        for (int i = 0; i < k->ntparams; i++) {
            char pn[GL_KS_NAME + 2];
            if (k->tparams[i].is_type) {
                put(t, "%sfloat", i ? ", " : "");
                continue;
            }
            param_name(k->tparams[i].name, pn, sizeof pn);
            put(t, "%s%s", i ? ", " : "", pn);
        }
        put(t, ">\n");
    }
    put(t, "N = %s                       # %s\n", two_d ? N_2D : N_1D,
        two_d ? "a small N x N problem: check the buffers' sizes below"
              : "a small problem: every buffer holds N elements");
    for (int i = 0; i < k->ntparams; i++) {
        if (k->tparams[i].is_type)
            continue;
        char pn[GL_KS_NAME + 2];
        param_name(k->tparams[i].name, pn, sizeof pn);
        int blk = !two_d && !block_param[0] && block_like(k->tparams[i].name);
        long v = blk ? (k->launch_block > 0 ? k->launch_block : 256) : 4;
        put(t, "%s = %ld%s\n", pn, v, blk ? "                        # the block size (template parameter)"
                                        : "                          # template parameter");
        if (blk)
            snprintf(block_param, sizeof block_param, "%s", pn);
    }
    /* the macros the file wants on the command line: named parameters, defined */
    for (int i = 0; i < f->nmacros; i++)
        put(t, "%s = 16%*s# the file wants -D %s=...\n", f->macros[i],
            (int)(30 - strlen(f->macros[i]) > 1 ? 30 - strlen(f->macros[i]) : 1), "",
            f->macros[i]);
    if (f->nmacros) {
        put(t, "defines = ");
        for (int i = 0; i < f->nmacros; i++)
            put(t, "%s%s", i ? ", " : "", f->macros[i]);
        put(t, "\n");
    }
    /* the integer scalars that are not sizes: named parameters */
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        int fl;
        if (p->is_ptr || !scalar_of(k, p->elem, &fl) || fl || size_like(p->name))
            continue;
        char pn[GL_KS_NAME + 2];
        param_name(p->name, pn, sizeof pn);
        put(t, "%s = 1                           # %s %s\n", pn, p->type, p->name);
    }
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        if (!p->is_ptr)
            continue;
        const char *ty = pointee(k, p->elem);
        if (p->is_const || !p->written)
            put(t, "buffer.%s = %s[%s] random\n", p->name, ty, count);
        else if (p->accumulated)
            put(t, "buffer.%s = %s[%s] zero output     # accumulated into: starts from zeros\n",
                p->name, ty, count);
        else if (p->read)
            put(t, "buffer.%s = %s[%s] random output   # read and written: starts from random\n",
                p->name, ty, count);
        else
            put(t, "buffer.%s = %s[%s] output\n", p->name, ty, count);
    }
    /* an output with an init has no poison for a run to find: without a
     * reference nothing checks it, which the section must say (docs/kernels.md) */
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        if (p->is_ptr && !p->is_const && p->written && (p->accumulated || p->read)) {
            put(t, "verify = none                    # nothing checks %s yet: name a reference "
                "(verify = VARIANT or c:FILE:FUNC)\n", p->name);
            break;
        }
    }
    /* textures and surfaces over arrays of their own, tensor maps over buffers */
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        switch (object_kind(p)) {
        case 1:
            put(t, "array.%s_data = float[N, N] random\ntexture.%s = %s_data\n", p->name, p->name,
                p->name);
            break;
        case 2:
            put(t, "array.%s_data = float[N, N] output\nsurface.%s = %s_data\n", p->name, p->name,
                p->name);
            break;
        case 3:
            put(t, "buffer.%s_data = float[N*N] random\ntensormap.%s = %s_data dims(N, N) "
                "box(32, 32)\n", p->name, p->name, p->name);
            break;
        }
    }
    put(t, "args = ");
    for (int i = 0; i < k->nparams; i++) {
        const struct gl_ks_param *p = &k->params[i];
        put(t, "%s", i ? ", " : "");
        if (p->is_ptr || object_kind(p)) {
            put(t, "%s", p->name);
            continue;
        }
        int fl;
        const char *st = scalar_of(k, p->elem, &fl);
        if (fl) {
            put(t, "%s 1", st);
        } else if (size_like(p->name)) {
            put(t, "%s N", st);
        } else {
            char pn[GL_KS_NAME + 2];
            param_name(p->name, pn, sizeof pn);
            put(t, "%s %s", st, pn);
        }
    }
    if (k->nparams == 0)
        put(t, "int 0                      # (a kernel without parameters)");
    put(t, "\n");
    if (two_d) {
        put(t, "grid = ceil(N/16), ceil(N/16)\nblock = 16, 16\n");
    } else {
        char b[GL_KS_NAME + 16];
        if (block_param[0])
            snprintf(b, sizeof b, "%s", block_param);
        else
            snprintf(b, sizeof b, "%ld", k->launch_block > 0 ? k->launch_block : 256);
        if (k->grid_sync_line)   /* a grid-wide sync: one resident wave, launched cooperatively */
            put(t, "launch = cooperative            # %s at line %d waits for the whole grid\n"
                "grid = sm_count * occupancy(%s, 0)   # every block resident at once\n"
                "block = %s\n", k->grid_sync, k->grid_sync_line, b, b);
        else
            put(t, "grid = ceil(N/%s)\nblock = %s%s\n", b, b,
                k->launch_block > 0 ? "                     # as the file's own launch" : "");
    }
}

int gl_cmd_init(const char *cu, const char *out, int force)
{
    char err[1024];
    size_t len;
    char *text = gl_file_read(cu, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "gpulab: init: %s\n", err);
        return 2;
    }
    struct gl_ks_file f;
    char nvcc_why[128];
    int nvcc = gl_ks_needs_nvcc(text, nvcc_why, sizeof nvcc_why);   /* as compiler = auto decides */
    if (gl_ks_scan(text, &f, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: init: %s:%s\n", cu, err);
        free(text);
        return 2;
    }
    free(text);
    if (f.nkernels == 0) {
        fprintf(stderr, "gpulab: init: %s has no __global__ function\n", cu);
        gl_ks_free(&f);
        return 2;
    }
    /* where the config goes, and the source's path from there */
    char outpath[PATH_MAX], src[PATH_MAX];
    char cucopy[PATH_MAX];
    snprintf(cucopy, sizeof cucopy, "%s", cu);
    const char *base = basename(cucopy);
    char stem[NAME_MAX + 1];
    snprintf(stem, sizeof stem, "%s", base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    int to_stdout = out && strcmp(out, "-") == 0;
    if (out && !to_stdout) {
        snprintf(outpath, sizeof outpath, "%s", out);
    } else {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s", cu);
        snprintf(outpath, sizeof outpath, "%s/%s.conf", dirname(d), stem);
    }
    {
        char od[PATH_MAX], cd[PATH_MAX], rod[PATH_MAX], rcd[PATH_MAX];
        snprintf(od, sizeof od, "%s", outpath);
        snprintf(cd, sizeof cd, "%s", cu);
        const char *odir = to_stdout ? "." : dirname(od);
        const char *cdir = dirname(cd);
        if (realpath(odir, rod) && realpath(cdir, rcd) && strcmp(rod, rcd) == 0)
            snprintf(src, sizeof src, "%s", base);
        else if (!realpath(cu, src))
            snprintf(src, sizeof src, "%s", cu);
    }
    struct text t = { 0 };
    put(&t, "# %s.conf - a starter config that `gpulab init %s` wrote from the file's kernels:\n",
        stem, base);
    put(&t, "# one section per kernel, small sizes, buffers of N elements (N*N for 2-D kernels),\n");
    put(&t, "# every scalar 1 or N. Check sizes, inits, scalars and the launch shape against\n");
    put(&t, "# your main(), add `verify =` (docs/kernels.md), then: gpulab plan %s.conf\n", stem);
    put(&t, "study = %s\n", stem);
    int nsec = 0;
    for (int i = 0; i < f.nkernels; i++) {
        char why[256];
        const struct gl_ks_kernel *k = &f.kernels[i];
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= strcmp(f.kernels[j].name, k->name) == 0;   /* an overload: the first */
        if (dup)
            continue;
        if (cannot(k, why, sizeof why)) {
            put(&t, "\n# [%s] (line %d) left out: %s\n", k->name, k->line, why);
            continue;
        }
        section(&t, k, src, nvcc, &f);
        nsec++;
    }
    gl_ks_free(&f);
    if (t.oom) {
        free(t.s);
        fprintf(stderr, "gpulab: init: out of memory\n");
        return 2;
    }
    if (nsec == 0) {
        fprintf(stderr, "gpulab: init: no kernel of %s has parameters gpulab can pass:\n%s", cu,
                t.s);
        free(t.s);
        return 2;
    }
    /* what plan will read: the config reader on the text, from where it will stand */
    struct gl_config c;
    char at[PATH_MAX];
    snprintf(at, sizeof at, "%s", to_stdout ? "./stdin.conf" : outpath);
    if (gl_config_parse(at, t.s, &c, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: init: the config made for %s does not read (a gpulab bug, "
                "please report it): %s\n%s", cu, err, t.s);
        free(t.s);
        return 1;
    }
    gl_config_free(&c);
    if (to_stdout) {
        fputs(t.s, stdout);
        free(t.s);
        return 0;
    }
    struct stat st;
    if (!force && stat(outpath, &st) == 0) {
        fprintf(stderr, "gpulab: init: %s exists; not overwritten (--force to replace it, or "
                "-o PATH, -o - for standard output)\n", outpath);
        free(t.s);
        return 2;
    }
    FILE *o = fopen(outpath, "w");
    int bad = !o;
    if (o) {
        bad = fputs(t.s, o) == EOF;
        bad |= fclose(o) != 0;
    }
    if (bad) {
        fprintf(stderr, "gpulab: init: cannot write %s: %s\n", outpath, strerror(errno));
        free(t.s);
        return 3;
    }
    printf("wrote %s: %d section%s; next: gpulab plan %s\n", outpath, nsec, nsec == 1 ? "" : "s",
           outpath);
    free(t.s);
    return 0;
}

/* config_kernel.c - a kernel section: a [section] with `source =`, read into a
 * struct gl_kernel and one struct gl_kernel_variant per item of `variants`
 * (src/core/kernel.h), owned by the section. Keys: source, family, variants,
 * defines, buffer.NAME, args, grid, block, smem, verify, verify_reads,
 * tolerance, flops, bytes, the built-in parameters, where, zip, metrics and the timing keys
 * (launch.NAME lines instead of args, grid, block and smem: config_launches.c); any
 * other identifier is a named parameter (integer values, lists and ranges as
 * usual) - unless it is a near miss of a known key (a typo), or nothing reads
 * it; `options` and `compiler` are config_options.c's. The source file is read
 * from the config's folder and hashed with the user headers it includes
 * (src/core/deps.h) and the section's own lines (kernel->hash, part of every
 * run's resume key), with `verify = c:FILE:FUNC`'s file (a C reference).
 * Every mistake is "path:line: message" naming the text.
 * Must not compile, run or check launches (src/registry/kernel_variant.c checks them
 * per point; the GPU plugin compiles and runs). */
#include "config_int.h"
#include "deps.h"
#include "fileutil.h"
#include "kobject.h"
#include "kernel_variant.h"
#include "ksource.h"
#include "nearest.h"
#include "registry.h"
#include "sha256.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* What reading one kernel section gathers. */
struct kread {
    struct ctx *x;
    const struct block *b;
    struct gl_section *s;
    struct gl_kernel *k;
    struct gl_expr_scope sc;        /* every parameter; collects the ones named */
    int uline[GL_MAX_UPARAMS];      /* line of each named parameter */
    int buffer_line[GL_KERNEL_MAX_BUFFERS];
    struct gl_ks_file ks;           /* the source's kernels as its text declares them */
};

/* The kernel `name` of the source's text (its template parameters), or NULL. */
static const struct gl_ks_kernel *ks_kernel(const struct kread *r, const char *name)
{
    for (int i = 0; i < r->ks.nkernels; i++)
        if (strcmp(r->ks.kernels[i].name, name) == 0)
            return &r->ks.kernels[i];
    return NULL;
}

/* ---- small text helpers ---------------------------------------------------- */




static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}


/* ", did you mean 'x'?" style suffix: " (did you mean 'x'?)" or "". */
static void suggest(char *buf, size_t len, const char *near)
{
    if (near)
        snprintf(buf, len, " (did you mean '%s'?)", near);
    else
        buf[0] = '\0';
}


/* A named parameter's name is close to a known key: the "did you mean" rule
 * by edit distance alone (case-insensitive, a third of the longer name), not
 * its prefix rule, so that BLOCK_ROWS is not taken for a misspelt `block`. */
static const char *typo_of(const char *name)
{
    const char *const *lists[] = { cfg_section_keys, cfg_kernel_keys };
    const char *best = NULL;
    int bestd = -1;
    char a[GL_UPARAM_NAME + 1], b[64];
    size_t i;
    for (i = 0; name[i] && i < sizeof a - 1; i++)
        a[i] = (char)tolower((unsigned char)name[i]);
    a[i] = '\0';
    for (int pass = 0; pass < 3; pass++) {
        int n = pass < 2 ? 64 : GL_NPARAMS;
        for (int j = 0; j < n; j++) {
            const char *key = pass < 2 ? lists[pass][j] : gl_param_table[j].name;
            if (!key)
                break;
            for (i = 0; key[i] && i < sizeof b - 1; i++)
                b[i] = (char)tolower((unsigned char)key[i]);
            b[i] = '\0';
            size_t la = strlen(a), lb = strlen(b), longer = la > lb ? la : lb;
            int d = gl_edit_distance(a, b);
            if ((size_t)d * 3 <= longer && (bestd < 0 || d < bestd)) {
                best = key;
                bestd = d;
            }
        }
    }
    return best;
}

int cfg_kernel_check_expr(struct ctx *x, int line, const char *what, const char *e,
                          struct gl_expr_scope *sc, const struct gl_section *s, char *out)
{
    char msg[512];
    if (!*e)
        return cfg_err(x, line, "%s: empty expression", what);
    if (strlen(e) >= GL_KEXPR)
        return cfg_err(x, line, "%s: expression '%.40s...' is longer than %d characters", what,
                       e, GL_KEXPR - 1);
    struct gl_expr_scope one = *sc;   /* what this expression names, alone */
    one.used_params = one.used_names = 0;
    int bad = gl_expr_check_scope(e, &one, msg, sizeof msg);
    sc->used_params |= one.used_params;
    sc->used_names |= one.used_names;
    if (bad != 0)
        return cfg_err(x, line, "%s '%s': %s", what, e, msg);
    if (cfg_kernel_no_types(x, line, what, s, 0, one.used_names) != 0)
        return -1;
    if (out)
        snprintf(out, GL_KEXPR, "%s", e);
    return 0;
}

static int check_expr(struct kread *r, int line, const char *what, const char *e, char *out)
{
    return cfg_kernel_check_expr(r->x, line, what, e, &r->sc, r->s, out);
}

/* ---- source, family, named parameters -------------------------------------- */

static int read_source(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "source");
    struct gl_kernel *k = r->k;
    char err[600];
    const char *slash = strrchr(r->x->path, '/');
    int n;
    if (e->val[0] == '/' || !slash)
        n = snprintf(k->source, sizeof k->source, "%s", e->val);
    else
        n = snprintf(k->source, sizeof k->source, "%.*s/%s", (int)(slash - r->x->path), r->x->path,
                     e->val);
    if (n < 0 || (size_t)n >= sizeof k->source)
        return cfg_err(r->x, e->line, "source: path '%.60s...' is too long", e->val);
    k->source_line = e->line;
    size_t len = 0;
    k->text = gl_file_read_max(k->source, GL_TEXT_MAX, 0, &len, err, sizeof err);
    if (!k->text)
        return cfg_err(r->x, e->line, "source: cannot read the kernel file %s", err);
    /* CUDA C++ is text: a NUL byte means a binary (an object file, a cubin, an
     * image) named by mistake, which is said here, not as "no function" later */
    const char *nul = memchr(k->text, '\0', len);
    if (nul)
        return cfg_err(r->x, e->line, "source: the kernel file %s is not text (a NUL byte at "
                       "byte %zu): name the .cu file", k->source, (size_t)(nul - k->text));
    return 0;
}

static int section_family(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "family");
    const char *f = e ? e->val : r->s->name;
    if (strlen(f) >= sizeof r->s->family)
        return cfg_err(r->x, e ? e->line : r->b->line, "family '%s' is longer than %zu characters",
                       f, sizeof r->s->family - 1);
    if (e && !cfg_is_ident(f) && strspn(f, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-") != strlen(f))
        return cfg_err(r->x, e->line, "bad family '%s' (letters, digits, _ and - only)", f);
    snprintf(r->s->family, sizeof r->s->family, "%s", f);
    return 0;
}

static int known_in_kernel(const char *key)
{
    return gl_param_by_name(key) || in_list(cfg_section_keys, key) || cfg_is_kernel_key(key) ||
           strcmp(key, "study") == 0 || strcmp(key, "description") == 0;
}

static int named_params(struct kread *r)
{
    struct gl_section *s = r->s;
    for (int i = 0; i < r->b->n; i++) {
        const struct entry *e = &r->b->e[i];
        if (known_in_kernel(e->key))
            continue;
        /* a near miss of a key is a typo, unless the kernel file itself uses the
         * name (a macro, a template parameter, an identifier: BLOCKS, Block) */
        const char *near = cfg_has_ident(r->k->text, e->key) ? NULL : typo_of(e->key);
        if (near)
            return cfg_err(r->x, e->line, "unknown key '%s' (did you mean '%s'?)", e->key, near);
        if (!cfg_is_ident(e->key))
            return cfg_err(r->x, e->line, "unknown key '%s'", e->key);
        if (strlen(e->key) >= GL_UPARAM_NAME)
            return cfg_err(r->x, e->line, "named parameter '%s' is longer than %d characters",
                           e->key, GL_UPARAM_NAME - 1);
        if (strcmp(e->key, "sm_count") == 0)
            return cfg_err(r->x, e->line, "'sm_count' is the GPU's number of SMs in expressions "
                           "(grid = sm_count), not a parameter name");
        if (in_list(cfg_function_names, e->key))
            return cfg_err(r->x, e->line, "'%s' is a function of expressions, not a parameter name",
                           e->key);
        if (s->nuser == GL_MAX_UPARAMS)
            return cfg_err(r->x, e->line, "more than %d named parameters in section [%s]",
                           GL_MAX_UPARAMS, s->name);
        struct gl_param_def d = { GL_P_N, e->key, NULL, 0, NULL, -0x7fffffffffffffffL - 1, NULL,
                                  "" };
        int u = s->nuser++;
        snprintf(s->uname[u], sizeof s->uname[u], "%s", e->key);
        r->uline[u] = e->line;
        int types = cfg_type_param(r->x, e, &s->uvalues[u]);   /* T = float, double */
        char first[GL_KEXPR];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(e->val, ","), e->val);
        cfg_trim(first);
        if (types == 0 && cfg_is_ident(first) && !in_list(cfg_function_names, first) &&
            !gl_param_by_name(first))
            return cfg_err(r->x, e->line, "unknown key '%s' (not a key of a kernel section; as a "
                           "named parameter its values would be integers or types, and '%s' is "
                           "neither)", e->key, first);
        if (types < 0 || (types == 0 && (cfg_parse_values(r->x, &d, e, &s->uvalues[u]) != 0 ||
                                         cfg_check_not_type_value(r->x, e, &s->uvalues[u]) != 0)))
            return -1;
    }
    return 0;
}

/* ---- variants -------------------------------------------------------------- */



/* kv's expression: a function name, or a template-id f<ARGS> whose argument
 * tokens that name parameters count as used. */
static int variant_expr(struct kread *r, int line, struct gl_kernel_variant *kv)
{
    const char *e = kv->expr, *lt = strchr(e, '<');
    char func[GL_KEXPR];
    if (!cfg_kernel_expr(e, func, sizeof func))
        return cfg_err(r->x, line, "variants: '%s' is neither a kernel function's name nor a "
                       "template-id such as %s<TILE>", e, func[0] ? func : "kernel");
    const char *base = strrchr(func, ':');
    base = base ? base + 1 : func;
    char names[64][GL_KNAME];
    int n = 0;
    if (!cfg_kernel_has_ident(r->k, base, names, 64, &n)) {
        struct gl_nearest near;
        gl_nearest_init(&near, base);
        for (int i = 0; i < n; i++)
            gl_nearest_offer(&near, names[i]);
        char list[512] = "";
        for (int i = 0; i < n; i++)
            cfg_add_to_list(list, sizeof list, names[i]);
        if (near.best)
            return cfg_err(r->x, line, "variants: no function '%s' in %s (did you mean '%s'?)",
                           base, r->k->source, near.best);
        return cfg_err(r->x, line, "variants: no function '%s' in %s (__global__ functions: %s)",
                       base, r->k->source, n ? list : "none found");
    }
    cfg_mark_names(lt, r->s, &r->sc);   /* template arguments naming parameters: used */
    return 0;
}

static int section_variants(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "variants");
    struct gl_section *s = r->s;
    if (!e && cfg_has_launches(r->b))   /* one variant: the launch lines' kernels */
        return cfg_kernel_launch_variants(r->x, r->b, s, r->k);
    if (!e)
        return cfg_err(r->x, r->b->line, "kernel section [%s] has no 'variants' (the __global__ "
                       "functions of %s to run, or NAME = f<TILE>)", s->name, r->k->source);
    s->variants_line = e->line;
    char buf[4096];
    if (strlen(e->val) >= sizeof buf)
        return cfg_err(r->x, e->line, "variants list is too long");
    snprintf(buf, sizeof buf, "%s", e->val);
    s->kvs = calloc(GL_MAX_VARIANTS, sizeof *s->kvs);
    if (!s->kvs)
        return cfg_err(r->x, e->line, "out of memory");
    /* the names every item would have (a template-id without `NAME =` its
     * template's), to tell which of those would collide */
    char names[GL_MAX_VARIANTS * 2][GL_KNAME];
    int nnames = 0;
    {
        char pre[4096];
        snprintf(pre, sizeof pre, "%s", e->val);
        for (char *p = pre; p && nnames < GL_MAX_VARIANTS * 2;) {
            char *item = cfg_next_item(&p, 1), *eq = strchr(item, '=');
            char func[GL_KEXPR];
            if (eq) {
                *eq = '\0';
                snprintf(names[nnames++], GL_KNAME, "%s", cfg_trim(item));
            } else if (cfg_kernel_expr(item, func, sizeof func)) {
                const char *base = strrchr(func, ':');
                snprintf(names[nnames++], GL_KNAME, "%.63s", base ? base + 1 : func);
            }
        }
    }
    for (char *p = buf; p;) {
        char *item = cfg_next_item(&p, 1), *name = item, *expr = item;
        char auto_name[GL_KNAME];
        if (!*item)
            return cfg_err(r->x, e->line, "empty item in variants list '%s'", e->val);
        char *eq = strchr(item, '=');
        if (eq) {
            *eq = '\0';
            name = cfg_trim(item);
            expr = cfg_trim(eq + 1);
        } else if (strchr(item, '<')) {
            /* scale<BLOCK>: named scale, or scale_BLOCK where two would be scale */
            char func[GL_KEXPR];
            if (!cfg_kernel_expr(item, func, sizeof func))
                return cfg_err(r->x, e->line, "variants: '%s' is neither a kernel function's "
                               "name nor a template-id such as %s<TILE>", item,
                               func[0] ? func : "kernel");
            const char *base = strrchr(func, ':');
            base = base ? base + 1 : func;
            int same = 0;
            for (int i = 0; i < nnames; i++)
                same += strcmp(names[i], base) == 0;
            size_t o = (size_t)snprintf(auto_name, sizeof auto_name, "%.63s", base);
            if (same > 1) {
                for (const char *c = strchr(item, '<'); *c && o + 1 < sizeof auto_name; c++) {
                    if (cfg_ident_char(*c))
                        auto_name[o++] = *c;
                    else if (auto_name[o - 1] != '_')
                        auto_name[o++] = '_';
                }
                while (o > 0 && auto_name[o - 1] == '_')
                    o--;
                auto_name[o] = '\0';
            }
            name = auto_name;
        }
        if (strcmp(name, "all") == 0 || strcmp(name, "cpu") == 0 || strcmp(name, "gpu") == 0)
            return cfg_err(r->x, e->line, "variants: '%s' means nothing in a kernel section: name "
                           "the kernels of %s", name, r->k->source);
        if (!cfg_is_ident(name) || strlen(name) >= GL_KNAME)
            return cfg_err(r->x, e->line, "variants: bad variant name '%s' (a C identifier of at "
                           "most %d characters)", name, GL_KNAME - 1);
        if (!*expr || strlen(expr) >= GL_KEXPR)
            return cfg_err(r->x, e->line, "variants: '%s' needs a kernel (NAME = function or "
                           "f<ARGS>, at most %d characters)", name, GL_KEXPR - 1);
        for (int i = 0; i < s->nvariants; i++)
            if (strcmp(s->variants[i], name) == 0)
                return cfg_err(r->x, e->line, "variant '%s' is listed twice in section [%s]", name,
                               s->name);
        if (s->nvariants == GL_MAX_VARIANTS)
            return cfg_err(r->x, e->line, "more than %d variants in section [%s]", GL_MAX_VARIANTS,
                           s->name);
        if (gl_variant_find(s->family, name))
            return cfg_err(r->x, e->line, "variant '%s' of family %s is a built-in variant: give "
                           "yours another name or family", name, s->family);
        struct gl_kernel_variant *kv = &s->kvs[s->nvariants];
        snprintf(s->variants[s->nvariants++], sizeof s->variants[0], "%s", name);
        kv->k = r->k;
        snprintf(kv->family, sizeof kv->family, "%s", s->family);
        snprintf(kv->name, sizeof kv->name, "%s", name);
        snprintf(kv->expr, sizeof kv->expr, "%s", expr);
        if (variant_expr(r, e->line, kv) != 0)
            return -1;
        if (!strchr(expr, '<')) {   /* a template named without its arguments */
            char func[GL_KEXPR];
            cfg_kernel_expr(expr, func, sizeof func);
            const char *base = strrchr(func, ':');
            const struct gl_ks_kernel *kk = ks_kernel(r, base ? base + 1 : func);
            if (kk && kk->ntparams > 0) {
                char args[256] = "";
                for (int t = 0; t < kk->ntparams; t++)
                    cfg_add_to_list(args, sizeof args, kk->tparams[t].name);
                return cfg_err(r->x, e->line, "variants: '%s' is a template (line %d of %s: "
                               "template <%s>): name an instance, with parameters as its "
                               "arguments: %s<%s> (and a named parameter %s = values)", expr,
                               kk->line, r->k->source, args, expr, args, kk->tparams[0].name);
            }
        }
    }
    return 0;
}

/* ---- defines, buffers, args, shape ----------------------------------------- */

/* A -D NAME that is also a template parameter's name in the source: the macro
 * would replace the parameter's name and the template stops compiling. */
static int define_clash(struct kread *r, int line, const char *name)
{
    for (int i = 0; i < r->ks.nkernels; i++) {
        const struct gl_ks_kernel *kk = &r->ks.kernels[i];
        for (int t = 0; t < kk->ntparams; t++)
            if (strcmp(kk->tparams[t].name, name) == 0)
                return cfg_err(r->x, line, "defines: '%s' is also a template parameter of %s "
                               "(line %d of %s): -D %s=... would replace that name and the "
                               "template would not compile; pass it as the template argument "
                               "instead (%s<%s> in variants, without defines), or rename the "
                               "template parameter", name, kk->name, kk->line, r->k->source,
                               name, kk->name, name);
    }
    return 0;
}

static int section_defines(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "defines");
    struct gl_kernel *k = r->k;
    if (!e)
        return 0;
    if (strcmp(e->val, "all") == 0) {
        k->all_defines = 1;
        for (int i = 0; i < GL_NPARAMS; i++)
            if (cfg_find(r->b, gl_param_table[i].name) &&
                define_clash(r, e->line, gl_param_table[i].name) != 0)
                return -1;
        for (int u = 0; u < r->s->nuser; u++)
            if (!cfg_is_type_param(r->s, u) && define_clash(r, e->line, r->s->uname[u]) != 0)
                return -1;
        return 0;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", e->val);
    for (char *p = buf; p;) {
        char *name = cfg_next_item(&p, 0);
        if (!*name)
            return cfg_err(r->x, e->line, "empty item in defines '%s'", e->val);
        const struct gl_param_def *d = gl_param_by_name(name);
        int u = -1;
        for (int i = 0; i < r->s->nuser; i++)
            if (strcmp(r->s->uname[i], name) == 0)
                u = i;
        if ((!d || d->is_text) && u < 0) {
            struct gl_nearest near;
            gl_nearest_init(&near, name);
            for (int i = 0; i < r->s->nuser; i++)
                gl_nearest_offer(&near, r->s->uname[i]);
            for (int i = 0; i < GL_NPARAMS; i++)
                if (!gl_param_table[i].is_text)
                    gl_nearest_offer(&near, gl_param_table[i].name);
            char sug[96];
            suggest(sug, sizeof sug, near.best);
            return cfg_err(r->x, e->line, "defines: '%s' is not an integer parameter of section "
                           "[%s]%s", name, r->s->name, sug);
        }
        if (cfg_is_type_param(r->s, u))
            return cfg_err(r->x, e->line, "defines: '%s' is a type parameter: it stands in a "
                           "buffer's or a scalar's type or a template argument, not in -D", name);
        for (int i = 0; i < k->ndefines; i++)
            if (strcmp(k->defines[i], name) == 0)
                return cfg_err(r->x, e->line, "defines: '%s' is named twice", name);
        if (k->ndefines == GL_KERNEL_MAX_DEFINES)
            return cfg_err(r->x, e->line, "defines: more than %d names", GL_KERNEL_MAX_DEFINES);
        if (define_clash(r, e->line, name) != 0)
            return -1;
        snprintf(k->defines[k->ndefines++], GL_UPARAM_NAME, "%s", name);
        if (d)
            r->sc.used_params |= GL_PBIT(d->id);
        else
            r->sc.used_names |= 1u << u;
    }
    return 0;
}

/* array.NAME's [W, H, D]: 1 to 3 extents, count their product. */
static int array_extents(struct kread *r, const struct entry *e, const char *what, char *dims,
                         struct gl_kbuffer *bf)
{
    char count[GL_KEXPR * 4] = "";
    for (char *p = dims; p;) {
        char *item = cfg_next_item(&p, 0);
        if (bf->nextent == 3)
            return cfg_err(r->x, e->line, "%s: more than 3 extents in [%s] (a cudaArray is 1D "
                           "[W], 2D [W, H] or 3D [W, H, D])", what, e->val);
        if (check_expr(r, e->line, what, item, bf->extent[bf->nextent]) != 0)
            return -1;
        size_t u = strlen(count);
        snprintf(count + u, sizeof count - u, "%s(%s)", bf->nextent ? "*" : "", item);
        bf->nextent++;
    }
    if (strlen(count) >= GL_KEXPR)
        return cfg_err(r->x, e->line, "%s: extents '%s' are too long", what, e->val);
    snprintf(bf->count, sizeof bf->count, "%s", count);
    if (!gl_kobj_array_type(bf->type) && !bf->tparam[0])
        return cfg_err(r->x, e->line, "%s: a cudaArray holds float, half, int, uint, int8 or "
                       "uint8 elements, not %s", what, gl_ktype_name(bf->type));
    if (bf->tparam[0])
        return cfg_err(r->x, e->line, "%s: an array's type is a type, not the type parameter "
                       "%s", what, bf->tparam);
    return 0;
}

/* buffer.NAME = TYPE[COUNT] [INIT] [output], symbol.NAME = ... (config_kinit.c)
 * or array.NAME = TYPE[W, H] ... */
static int parse_buffer(struct kread *r, const struct entry *e, int *nrandom)
{
    struct gl_kernel *k = r->k;
    int is_array = strncmp(e->key, "array.", 6) == 0;
    const char *name = e->key + (is_array ? 6 : 7);
    char what[96], val[1024];
    snprintf(what, sizeof what, "%s", e->key);
    if (strlen(name) >= GL_KNAME)
        return cfg_err(r->x, e->line, "%s: buffer name longer than %d characters", what,
                       GL_KNAME - 1);
    /* a parameter's name (K) is allowed: args tell a buffer (a bare name) from a
     * scalar (TYPE EXPR), and expressions read only parameters; unless the
     * parameter is passed with -D (same_names, once defines are read) */
    if (in_list(cfg_function_names, name))
        return cfg_err(r->x, e->line, "%s: '%s' is a function of expressions", what, name);
    if (k->nbuffers == GL_KERNEL_MAX_BUFFERS)
        return cfg_err(r->x, e->line, "more than %d buffers in section [%s]",
                       GL_KERNEL_MAX_BUFFERS, r->s->name);
    for (int i = 0; i < k->nbuffers; i++)
        if (strcmp(k->buffers[i].name, name) == 0)
            return cfg_err(r->x, e->line, "%s: '%s' is declared twice (line %d)", what, name,
                           k->buffers[i].line);
    snprintf(val, sizeof val, "%s", e->val);
    char *lb = strchr(val, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (!lb || !rb)
        return cfg_err(r->x, e->line, "%s = '%s': want TYPE[COUNT] [INIT] [output], e.g. "
                       "float[N*N] random", what, e->val);
    *lb = *rb = '\0';
    struct gl_kbuffer *bf = &k->buffers[k->nbuffers];
    memset(bf, 0, sizeof *bf);
    snprintf(bf->name, sizeof bf->name, "%s", name);
    bf->line = e->line;
    if (cfg_kernel_type(r->x, e->line, what, r->s, cfg_trim(val), &bf->type, bf->tparam,
                        &r->sc.used_names) != 0)
        return -1;
    bf->array = is_array;
    if (is_array ? array_extents(r, e, what, lb + 1, bf) != 0
                 : check_expr(r, e->line, what, cfg_trim(lb + 1), bf->count) != 0)
        return -1;
    bf->symbol = strncmp(e->key, "symbol.", 7) == 0;
    if (cfg_kbuffer_inits(r->x, e->line, what, rb + 1, bf, nrandom) != 0)
        return -1;
    for (int i = 0; i < 2; i++)   /* randint(0, VOCAB): its parameters count as read */
        if (bf->bound[i][0] && check_expr(r, e->line, what, bf->bound[i], NULL) != 0)
            return -1;
    r->buffer_line[k->nbuffers] = e->line;
    k->nbuffers++;
    return 0;
}

static int find_buffer(const struct gl_kernel *k, const char *name)
{
    for (int i = 0; i < k->nbuffers; i++)
        if (strcmp(k->buffers[i].name, name) == 0)
            return i;
    return -1;
}

/* args (key "args") into r->k, or a variant's args.NAME into dst. */
static int section_args_into(struct kread *r, const char *key, struct gl_kernel *dst)
{
    const struct entry *e = cfg_find(r->b, key);
    struct gl_kernel *k = r->k;
    if (!e) {
        /* a kernel without parameters (its buffers all symbols): no args; the
         * signature check of plan (kernel_sig.h) then reports on the section's
         * line a kernel that has parameters after all */
        if (k->nobjects)
            return cfg_err(r->x, r->b->line, "kernel section [%s] has no 'args', but '%s' (line "
                           "%d) must be passed", r->s->name, k->objects[0].name,
                           k->objects[0].line);
        for (int i = 0; i < k->nbuffers; i++)
            if (!k->buffers[i].symbol)
                return cfg_err(r->x, r->b->line, "kernel section [%s] has no 'args' (the "
                               "kernel's arguments in order: buffer names, or TYPE EXPR), but "
                               "buffer '%s' (line %d) must be passed", r->s->name,
                               k->buffers[i].name, k->buffers[i].line);
        dst->args_line = r->b->line;
        return 0;
    }
    char buf[4096], list[512] = "";
    if (strlen(e->val) >= sizeof buf)
        return cfg_err(r->x, e->line, "%s list is too long", key);
    snprintf(buf, sizeof buf, "%s", e->val);
    for (int i = 0; i < k->nbuffers; i++)
        cfg_add_to_list(list, sizeof list, k->buffers[i].name);
    int passed[GL_KERNEL_MAX_BUFFERS] = { 0 }, opassed[GL_KERNEL_MAX_OBJECTS] = { 0 };
    dst->args_line = e->line;
    for (char *p = buf; p;) {
        char *item = cfg_next_item(&p, 0);
        if (!*item)
            return cfg_err(r->x, e->line, "empty item in args '%s'", e->val);
        if (dst->nargs == GL_KERNEL_MAX_ARGS)
            return cfg_err(r->x, e->line, "more than %d args", GL_KERNEL_MAX_ARGS);
        struct gl_karg *a = &dst->args[dst->nargs];
        memset(a, 0, sizeof *a);
        int bi = find_buffer(k, item);
        for (int o = 0; o < k->nobjects; o++)
            if (strcmp(k->objects[o].name, item) == 0) {
                a->buffer = -1;
                a->object = o + 1;
                opassed[o] = 1;
                break;
            }
        if (a->object) {
            dst->nargs++;
            continue;
        }
        if (bi >= 0 && k->buffers[bi].array)
            return cfg_err(r->x, e->line, "args: '%s' is an array (line %d): the kernel reads it "
                           "through a texture or a surface over it (texture.NAME = %s, "
                           "surface.NAME = %s), passed instead", item, k->buffers[bi].line, item,
                           item);
        if (bi >= 0 && k->buffers[bi].symbol)
            return cfg_err(r->x, e->line, "args: '%s' is a symbol (line %d): the kernel reads "
                           "it by its name, it is not passed", item, k->buffers[bi].line);
        if (bi >= 0) {
            a->buffer = bi;
            passed[bi] = 1;
            dst->nargs++;
            continue;
        }
        a->buffer = -1;
        size_t w = strcspn(item, " \t");
        if (!item[w]) {
            struct gl_nearest near;
            gl_nearest_init(&near, item);
            for (int i = 0; i < k->nbuffers; i++)
                gl_nearest_offer(&near, k->buffers[i].name);
            for (int i = 0; i < GL_KT_COUNT; i++)
                gl_nearest_offer(&near, gl_ktype_name(i));
            for (int i = 0; i < k->nobjects; i++)
                gl_nearest_offer(&near, k->objects[i].name);
            char sug[96];
            suggest(sug, sizeof sug, near.best);
            return cfg_err(r->x, e->line, "args: '%s' is not a buffer (buffers: %s) nor 'TYPE "
                           "EXPR'%s", item, list[0] ? list : "none", sug);
        }
        item[w] = '\0';
        if (cfg_kernel_scalar(r->x, e->line, r->s, &r->sc, item, cfg_trim(item + w + 1), a) != 0)
            return -1;
        dst->nargs++;
    }
    /* a buffer or an array reached through a passed object counts as passed */
    for (int o = 0; o < k->nobjects; o++) {
        const struct gl_kobject *ob = &k->objects[o];
        static const char *const kind[] = { "tensormap", "texture", "surface" };
        if (!opassed[o])
            return cfg_err(r->x, ob->line, "%s '%s' is not passed to the kernel (args on line "
                           "%d: %s)", kind[ob->kind], ob->name, e->line, e->val);
        passed[ob->source] = 1;
    }
    for (int i = 0; i < k->nbuffers; i++) {
        if (passed[i] || k->buffers[i].symbol)
            continue;
        if (k->buffers[i].array)
            return cfg_err(r->x, r->buffer_line[i], "array '%s' is read by no texture or surface "
                           "(texture.NAME = %s, surface.NAME = %s, passed in args)",
                           k->buffers[i].name, k->buffers[i].name, k->buffers[i].name);
        return cfg_err(r->x, r->buffer_line[i], "buffer '%s' is not passed to the kernel "
                       "(args on line %d: %s)", k->buffers[i].name, e->line, e->val);
    }
    return 0;
}

static int section_args(struct kread *r)
{
    return section_args_into(r, "args", r->k);
}

/* grid or block: 1 to 3 expressions. */
static int shape(struct kread *r, const char *key, char out[3][GL_KEXPR], int *n)
{
    const struct entry *e = cfg_find(r->b, key);
    if (!e)
        return cfg_err(r->x, r->b->line, "kernel section [%s] has no '%s' (%s per dimension, 1 "
                       "to 3 expressions)", r->s->name, key,
                       strcmp(key, "grid") == 0 ? "blocks" : "threads");
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", e->val);
    *n = 0;
    for (char *p = buf; p;) {
        char *item = cfg_next_item(&p, 0);
        if (*n == 3)
            return cfg_err(r->x, e->line, "%s: more than 3 dimensions in '%s'", key, e->val);
        if (check_expr(r, e->line, key, item, out[(*n)++]) != 0)
            return -1;
    }
    return 0;
}

/* `cluster = X, Y, Z`: blocks per cluster, 1 to 3 expressions (none: 0). */
static int cluster_shape(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "cluster");
    if (!e)
        return 0;
    r->k->cluster_line = e->line;
    return shape(r, "cluster", r->k->cluster, &r->k->ncluster);
}

static int optional_expr(struct kread *r, const char *key, char *out)
{
    const struct entry *e = cfg_find(r->b, key);
    out[0] = '\0';
    return e ? check_expr(r, e->line, key, e->val, out) : 0;
}

/* ---- a variant's own launch: grid.NAME, block.NAME, smem.NAME, args.NAME ---- */

enum { VS_GRID = 1, VS_BLOCK = 2, VS_SMEM = 4, VS_ARGS = 8 };
static const char *const vs_keys[] = { "grid", "block", "smem", "args" };

/* Each variant key names a variant of the section (not in a section of launch
 * lines); the variants with any get their own kernel, its shape read here (the
 * rest is copied from the section's kernel by variant_kernels_done). own[v]: the
 * VS_ bits variant v sets. */
static int variant_shapes(struct kread *r, int seq, unsigned own[GL_MAX_VARIANTS])
{
    struct gl_section *s = r->s;
    memset(own, 0, GL_MAX_VARIANTS * sizeof *own);
    for (int i = 0; i < r->b->n; i++) {
        const struct entry *e = &r->b->e[i];
        if (!cfg_is_variant_key(e->key))
            continue;
        const char *vname = strchr(e->key, '.') + 1;
        if (seq)
            return cfg_err(r->x, e->line, "%s: a section of launch lines gives each launch its "
                           "shape and arguments on its own line", e->key);
        int v = -1;
        for (int j = 0; j < s->nvariants; j++)
            if (strcmp(s->variants[j], vname) == 0)
                v = j;
        if (v < 0) {
            struct gl_nearest near;
            char list[512] = "", sug[96];
            gl_nearest_init(&near, vname);
            for (int j = 0; j < s->nvariants; j++) {
                gl_nearest_offer(&near, s->variants[j]);
                cfg_add_to_list(list, sizeof list, s->variants[j]);
            }
            suggest(sug, sizeof sug, near.best);
            return cfg_err(r->x, e->line, "%s: section [%s] has no variant '%s'%s (variants: %s)",
                           e->key, s->name, vname, sug, list);
        }
        for (int b = 0; b < 4; b++)
            if (strncmp(e->key, vs_keys[b], strlen(vs_keys[b])) == 0 &&
                e->key[strlen(vs_keys[b])] == '.')
                own[v] |= 1u << b;
    }
    for (int v = 0; v < s->nvariants; v++) {
        if (!own[v])
            continue;
        struct gl_kernel *c = s->kshape[v] = calloc(1, sizeof *c);
        char key[GL_KNAME + 8];
        if (!c)
            return cfg_err(r->x, r->b->line, "out of memory");
        snprintf(key, sizeof key, "grid.%s", s->variants[v]);
        if ((own[v] & VS_GRID) && shape(r, key, c->grid, &c->ngrid) != 0)
            return -1;
        snprintf(key, sizeof key, "block.%s", s->variants[v]);
        if ((own[v] & VS_BLOCK) && shape(r, key, c->block, &c->nblock) != 0)
            return -1;
        snprintf(key, sizeof key, "smem.%s", s->variants[v]);
        if ((own[v] & VS_SMEM) && optional_expr(r, key, c->smem) != 0)
            return -1;
        snprintf(key, sizeof key, "args.%s", s->variants[v]);
        if ((own[v] & VS_ARGS) && section_args_into(r, key, c) != 0)
            return -1;
    }
    return 0;
}

/* 1 when every variant sets the VS_ bit: the section's own key may be absent. */
static int all_own(const struct gl_section *s, const unsigned own[GL_MAX_VARIANTS], unsigned bit)
{
    for (int v = 0; v < s->nvariants; v++)
        if (!(own[v] & bit))
            return 0;
    return s->nvariants > 0;
}

/* Once the section's kernel is complete: each variant kernel is a copy of it
 * with the variant's own shape, and the variant runs it. */
static int variant_kernels_done(struct kread *r, const unsigned own[GL_MAX_VARIANTS])
{
    struct gl_section *s = r->s;
    struct gl_kernel *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return cfg_err(r->x, r->b->line, "out of memory");
    for (int v = 0; v < s->nvariants; v++) {
        struct gl_kernel *c = s->kshape[v];
        if (!c)
            continue;
        *tmp = *c;
        *c = *r->k;   /* text, seq: the section's (owned by r->k) */
        if (own[v] & VS_GRID) {
            memcpy(c->grid, tmp->grid, sizeof c->grid);
            c->ngrid = tmp->ngrid;
        }
        if (own[v] & VS_BLOCK) {
            memcpy(c->block, tmp->block, sizeof c->block);
            c->nblock = tmp->nblock;
        }
        if (own[v] & VS_SMEM)
            memcpy(c->smem, tmp->smem, sizeof c->smem);
        if (own[v] & VS_ARGS) {
            memcpy(c->args, tmp->args, sizeof c->args);
            c->nargs = tmp->nargs;
            c->args_line = tmp->args_line;
        }
        s->kvs[v].k = c;
    }
    free(tmp);
    /* a variant verified against another of the section runs that one's kernel */
    return 0;
}

/* sha256 (hex) of a file's bytes, a regular file of at most max bytes: 0, or
 * -1 with "path: why" in err. */
static int hash_file(const char *path, size_t max, char hex[65], char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (gl_file_check(path, &st, max, 0, err, errlen) != 0)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct gl_sha256 h;
    unsigned char d[32], buf[65536];
    size_t n, total = 0;
    gl_sha256_init(&h);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && (total += n) <= max)
        gl_sha256_update(&h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad || total > max) {   /* total > max: it grew while read */
        snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "grew over the limit while read");
        return -1;
    }
    gl_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a > b && strcmp(s + a - b, tail) == 0;
}

static int outputs_to_compare(struct kread *r, const struct entry *e)
{
    for (int i = 0; i < r->k->nbuffers; i++)
        if (r->k->buffers[i].output)
            return 0;
    return cfg_err(r->x, e->line, "verify: no buffer is marked 'output': nothing to compare");
}

/* Without a reference, an output is checked only for being written (the poison
 * gone); an output with an init has no poison, so nothing checks it: refused,
 * unless the section says `verify = none` (its runs are then stored with check
 * 'none', not verified). */
static int unverifiable_outputs(struct kread *r, const struct entry *none)
{
    if (none)
        return 0;
    for (int i = 0; i < r->k->nbuffers; i++) {
        const struct gl_kbuffer *bf = &r->k->buffers[i];
        if (!bf->output || bf->init == GL_KI_POISON)
            continue;
        return cfg_err(r->x, bf->line, "%s.%s is an output with an init, so a run cannot tell "
                       "whether the kernel wrote it, and section [%s] has no reference: nothing "
                       "would check it. Add verify = VARIANT (a kernel that computes it too) or "
                       "verify = c:FILE:FUNC (a C reference), drop the init if the kernel "
                       "writes every element, or say verify = none to store its runs as not "
                       "verified", bf->symbol ? "symbol" : "buffer", bf->name, r->s->name);
    }
    return 0;
}

/* `verify = c:FILE:FUNC`: a C function computes the expected outputs (kernel.h).
 * FILE (.c or .so) is found from the config's folder and hashed; a .c file's
 * build in the kernel cache is named now (the worker is forked before it is
 * compiled, and must know where to load it from). */
static int verify_c(struct kread *r, const struct entry *e)
{
    struct gl_kernel *k = r->k;
    const char *spec = e->val + 2, *colon = strrchr(spec, ':');
    char file[1024], func[GL_KNAME];
    if (!colon || colon == spec || !cfg_is_ident(colon + 1) || strlen(colon + 1) >= sizeof func ||
        (size_t)(colon - spec) >= sizeof file)
        return cfg_err(r->x, e->line, "verify = '%s': want c:FILE:FUNC (a .c or .so file beside "
                       "the config and the name of its C function)", e->val);
    snprintf(file, sizeof file, "%.*s", (int)(colon - spec), spec);
    snprintf(func, sizeof func, "%s", colon + 1);
    cfg_trim(file);
    int is_c = ends_with(file, ".c");
    if (!is_c && !ends_with(file, ".so"))
        return cfg_err(r->x, e->line, "verify: '%s' is neither a .c file nor a .so (c:FILE:FUNC)",
                       file);
    const char *slash = strrchr(r->x->path, '/');
    int n;
    if (file[0] == '/' || !slash)
        n = snprintf(k->verify_c_path, sizeof k->verify_c_path, "%s", file);
    else
        n = snprintf(k->verify_c_path, sizeof k->verify_c_path, "%.*s/%s",
                     (int)(slash - r->x->path), r->x->path, file);
    if (n < 0 || (size_t)n >= sizeof k->verify_c_path)
        return cfg_err(r->x, e->line, "verify: path '%.60s...' is too long", file);
    char why[1200];
    if (hash_file(k->verify_c_path, is_c ? GL_TEXT_MAX : GL_SO_MAX, k->verify_c_hash, why,
                  sizeof why) != 0)
        return cfg_err(r->x, e->line, "verify: cannot read the C reference %s", why);
    if (outputs_to_compare(r, e) != 0)
        return -1;
    snprintf(k->verify_c_func, sizeof k->verify_c_func, "%s", func);
    k->verify_c_compile = is_c;
    if (!is_c) {
        snprintf(k->verify_c_so, sizeof k->verify_c_so, "%s", k->verify_c_path);
    } else {
        char dir[1024];
        if (gl_kernel_cache_dir(dir, sizeof dir) != 0)
            return cfg_err(r->x, e->line, "verify: no kernel cache to build %s into: set "
                           "GPULAB_CACHE (HOME is not set)", k->verify_c_path);
        /* cref2: built with GL_CREF_BUILD (plugin.h), so an older build is not taken */
        n = snprintf(k->verify_c_so, sizeof k->verify_c_so, "%s/cref2-%s.so", dir,
                     k->verify_c_hash);
        if (n < 0 || (size_t)n >= sizeof k->verify_c_so)
            return cfg_err(r->x, e->line, "verify: the kernel cache's path is too long");
    }
    for (int i = 0; i < r->s->nvariants; i++)
        r->s->kvs[i].reference = NULL;
    return 0;
}

static int section_verify(struct kread *r)
{
    struct gl_section *s = r->s;
    struct gl_kernel *k = r->k;
    const struct entry *e = cfg_find(r->b, "verify");
    const struct entry *t = cfg_find(r->b, "tolerance");
    if (t) {
        char *end;
        errno = 0;
        double v = strtod(t->val, &end);
        if (errno || end == t->val || *cfg_trim(end) || !isfinite(v) || v < 0)
            return cfg_err(r->x, t->line, "tolerance = '%s': want a relative tolerance such as "
                           "1e-5", t->val);
        k->tolerance = v;
    }
    if (!e || strcmp(e->val, "none") == 0) {
        k->verify_none = e != NULL;
        if (e)
            k->verify_line = e->line;
        return unverifiable_outputs(r, e);
    }
    k->verify_line = e->line;
    if (strncmp(e->val, "c:", 2) == 0)
        return verify_c(r, e);
    int ref = -1;
    for (int i = 0; i < s->nvariants; i++)
        if (strcmp(s->variants[i], e->val) == 0)
            ref = i;
    if (ref < 0 && cfg_is_ident(e->val) + (strchr(e->val, '.') != NULL) > 0 &&
        strlen(e->val) < sizeof k->verify) {
        /* another section's variant (SECTION.NAME, or NAME): cfg_kernel_cross_verify
         * finds it once every section is read */
        if (outputs_to_compare(r, e) != 0)
            return -1;
        snprintf(k->verify, sizeof k->verify, "%s", e->val);
        k->verify_cross = 1;
        return 0;
    }
    if (ref < 0) {
        struct gl_nearest near;
        gl_nearest_init(&near, e->val);
        char list[512] = "";
        for (int i = 0; i < s->nvariants; i++) {
            gl_nearest_offer(&near, s->variants[i]);
            cfg_add_to_list(list, sizeof list, s->variants[i]);
        }
        if (near.best)
            return cfg_err(r->x, e->line, "verify: unknown variant '%s' of section [%s] (did you "
                           "mean '%s'?)", e->val, s->name, near.best);
        return cfg_err(r->x, e->line, "verify: unknown variant '%s' of section [%s] (variants: "
                       "%s)", e->val, s->name, list);
    }
    if (outputs_to_compare(r, e) != 0)
        return -1;
    snprintf(k->verify, sizeof k->verify, "%s", e->val);
    for (int i = 0; i < s->nvariants; i++)
        s->kvs[i].reference = i == ref ? NULL : &s->kvs[ref];
    return 0;
}

/* `verify_reads = PER, N`: the parameters the C reference reads besides its
 * buffers. They count as read, and the reference is handed only them
 * (experiments/cref.h). Without the key a C reference reads every parameter
 * (verify_reads_all: the safe default; its expected outputs are then shared
 * only by the variants of one point). Only a C reference reads parameters. */
static int section_verify_reads(struct kread *r)
{
    const struct entry *e = cfg_find(r->b, "verify_reads");
    struct gl_kernel *k = r->k;
    struct gl_section *s = r->s;
    if (!k->verify_c_func[0]) {
        if (!e)
            return 0;
        if (k->verify[0])
            return cfg_err(r->x, e->line, "verify_reads: only a C reference (verify = "
                           "c:FILE:FUNC) is handed parameters; section [%s] is verified against "
                           "variant '%s', which reads what its kernel reads", s->name, k->verify);
        return cfg_err(r->x, e->line, "verify_reads: section [%s] has no C reference (verify = "
                       "c:FILE:FUNC) to read parameters", s->name);
    }
    if (!e) {
        k->verify_reads_all = 1;
        return 0;
    }
    char buf[1024];
    if (strlen(e->val) >= sizeof buf)
        return cfg_err(r->x, e->line, "verify_reads list is too long");
    snprintf(buf, sizeof buf, "%s", e->val);
    for (char *p = buf; p;) {
        char *name = cfg_next_item(&p, 0);
        if (!*name)
            return cfg_err(r->x, e->line, "empty item in verify_reads '%s'", e->val);
        const struct gl_param_def *d = gl_param_by_name(name);
        int u = -1;
        for (int i = 0; i < s->nuser; i++)
            if (strcmp(s->uname[i], name) == 0)
                u = i;
        if ((!d || d->is_text) && u < 0) {
            struct gl_nearest near;
            gl_nearest_init(&near, name);
            for (int i = 0; i < s->nuser; i++)
                gl_nearest_offer(&near, s->uname[i]);
            for (int i = 0; i < GL_NPARAMS; i++)
                if (!gl_param_table[i].is_text && i != GL_P_GRID)
                    gl_nearest_offer(&near, gl_param_table[i].name);
            char sug[96];
            suggest(sug, sizeof sug, near.best);
            return cfg_err(r->x, e->line, "verify_reads: '%s' is not an integer parameter of "
                           "section [%s]%s", name, s->name, sug);
        }
        if (d) {
            if (k->verify_reads_params & GL_PBIT(d->id))
                return cfg_err(r->x, e->line, "verify_reads: '%s' is named twice", name);
            k->verify_reads_params |= GL_PBIT(d->id);
            r->sc.used_params |= GL_PBIT(d->id);
            continue;
        }
        for (int i = 0; i < k->nverify_reads; i++)
            if (strcmp(k->verify_reads[i], name) == 0)
                return cfg_err(r->x, e->line, "verify_reads: '%s' is named twice", name);
        snprintf(k->verify_reads[k->nverify_reads++], GL_UPARAM_NAME, "%s", name);
        r->sc.used_names |= 1u << u;
    }
    return 0;
}

/* ---- built-in parameters --------------------------------------------------- */

/* The section's own built-in parameters, and the defaults' that its
 * expressions read. `grid` is the launch grid here, not the parameter. */
static int builtin_params(struct kread *r, const struct block *top, struct top_use *use)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        const struct gl_param_def *d = &gl_param_table[i];
        const struct entry *e;
        if (i == GL_P_GRID)
            continue;
        if ((e = cfg_find(r->b, d->name))) {
            if (i == GL_P_MEM)
                return cfg_err(r->x, e->line, "parameter 'mem' does not apply to a kernel section "
                               "(its buffers are device memory)");
        } else if ((r->sc.used_params & GL_PBIT(i)) && (e = cfg_find(top, d->name))) {
            use->param[i] = 1;
        } else {
            continue;
        }
        if (cfg_parse_values(r->x, d, e, &r->s->values[i]) != 0)
            return -1;
    }
    return 0;
}

/* After every reader has been seen: a parameter nothing reads is an error. */
static int unused_params(struct kread *r, unsigned *reads)
{
    struct gl_section *s = r->s;
    unsigned always = GL_PBIT(GL_P_SEED) | GL_PBIT(GL_P_CACHE);
    /* `defines = all` passes, and a C reference without verify_reads reads,
     * every parameter the section sets */
    if (r->k->all_defines || r->k->verify_reads_all) {
        r->sc.used_names = s->nuser ? (1u << s->nuser) - 1 : 0;
        for (int i = 0; i < GL_NPARAMS; i++)
            if (s->values[i].set && !gl_param_table[i].is_text)
                r->sc.used_params |= GL_PBIT(i);
    }
    for (int i = 0; i < GL_NPARAMS; i++) {
        const struct gl_param_def *d = &gl_param_table[i];
        if (s->values[i].set && !(r->sc.used_params & GL_PBIT(i)) && !(always & GL_PBIT(i)))
            return cfg_err(r->x, s->values[i].line, "parameter '%s' is read by nothing in kernel "
                           "section [%s] (defines, args, grid, block, smem, buffer counts, flops, "
                           "bytes, where, template arguments or verify_reads)", d->name, s->name);
        if ((r->sc.used_params & GL_PBIT(i)) && !s->values[i].set && !d->deflt)
            return cfg_err(r->x, r->b->line, "kernel section [%s] reads %s, which it does not set",
                           s->name, d->name);
    }
    for (int u = 0; u < s->nuser; u++)
        if (!(r->sc.used_names & (1u << u)))
            return cfg_err(r->x, r->uline[u], "named parameter '%s' is read by nothing (defines, "
                           "args, grid, block, smem, buffer counts, flops, bytes, where, template "
                           "arguments or verify_reads)", s->uname[u]);
    *reads = (r->sc.used_params | always) & ~GL_PBIT(GL_P_MEM) & ~GL_PBIT(GL_P_GRID);
    return 0;
}

/* A buffer named like a parameter (buffer.K beside K = 64) is told apart from
 * it everywhere in the config, but not in the kernel's source once the
 * parameter is passed as -D K=64: the macro would replace the kernel's own
 * parameter name K. That case is an error saying so. */
static int same_names(struct kread *r)
{
    const struct gl_kernel *k = r->k;
    const struct gl_section *s = r->s;
    for (int b = 0; b < k->nbuffers; b++) {
        const char *name = k->buffers[b].name;
        const struct gl_param_def *d = gl_param_by_name(name);
        int u = -1, defined = 0;
        for (int i = 0; i < s->nuser; i++)
            if (strcmp(s->uname[i], name) == 0)
                u = i;
        if (!d && u < 0)
            continue;
        for (int i = 0; i < k->ndefines; i++)
            defined |= strcmp(k->defines[i], name) == 0;
        if (k->all_defines)
            defined |= u >= 0 || (d && !d->is_text && s->values[d->id].set);
        if (defined)
            return cfg_err(r->x, k->buffers[b].line, "buffer '%s' has the name of parameter %s, "
                           "which defines passes as -D %s=...: the macro would replace the "
                           "kernel's parameter name %s; rename the buffer or leave %s out of "
                           "defines", name, name, name, name, name);
    }
    return 0;
}

/* ---- hash ------------------------------------------------------------------ */

/* sha256 of the source, the user headers it includes (src/core/deps.h: one scan
 * with the GPU plugin's cache key) and the section's lines. */
static int kernel_hash(struct kread *r)
{
    struct gl_kernel *k = r->k;
    struct gl_sha256 h;
    unsigned char d[32];
    char err[1200];
    gl_sha256_init(&h);
    gl_sha256_update(&h, k->text, strlen(k->text) + 1);
    if (gl_kernel_deps_hash(k, &h, NULL, err, sizeof err) != 0)
        return cfg_err(r->x, k->source_line, "source: %s", err);
    for (int i = 0; i < r->b->n; i++) {
        const struct entry *e = &r->b->e[i];
        if (cfg_is_search_key(e->key))
            continue;   /* how points are chosen is not what a point runs */
        gl_sha256_update(&h, e->key, strlen(e->key));
        gl_sha256_update(&h, " = ", 3);
        gl_sha256_update(&h, e->val, strlen(e->val));
        gl_sha256_update(&h, "\n", 1);
    }
    for (int i = 0; i < k->nbuffers; i++)   /* file(PATH) inits: their contents */
        if (k->buffers[i].init == GL_KI_FILE) {
            gl_sha256_update(&h, "file ", 5);
            gl_sha256_update(&h, k->buffers[i].file_hash, strlen(k->buffers[i].file_hash));
        }
    if (k->verify_c_hash[0]) {   /* the C reference's contents: editing it runs again */
        gl_sha256_update(&h, "cref ", 5);
        gl_sha256_update(&h, k->verify_c_hash, strlen(k->verify_c_hash));
    }
    gl_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(k->hash + 2 * i, 3, "%02x", d[i]);
    return 0;
}

/* ---- the section ----------------------------------------------------------- */

/* where lines (config.c), where a type parameter has no place. */
static int section_where(struct kread *r, const struct block *top, struct top_use *use)
{
    struct gl_expr_scope one = r->sc;   /* what the where lines name, alone */
    one.used_params = one.used_names = 0;
    if (cfg_section_where(r->x, r->b, top, use, r->s, &one) != 0)
        return -1;
    r->sc.used_params |= one.used_params;
    r->sc.used_names |= one.used_names;
    const struct entry *e = cfg_find(r->b, "where");
    return cfg_kernel_no_types(r->x, e ? e->line : r->b->line, "where", r->s, 0, one.used_names);
}

static int kernel_section(struct kread *rp, struct ctx *x, const struct block *b,
                          const struct block *top, struct top_use *use, struct gl_section *s);

int cfg_kernel_section(struct ctx *x, const struct block *b, const struct block *top,
                       struct top_use *use, struct gl_section *s)
{
    struct kread *r = calloc(1, sizeof *r);
    if (!r)
        return cfg_err(x, b->line, "out of memory");
    int rc = kernel_section(r, x, b, top, use, s);
    gl_ks_free(&r->ks);
    free(r);
    return rc;
}

static int kernel_section(struct kread *rp, struct ctx *x, const struct block *b,
                          const struct block *top, struct top_use *use, struct gl_section *s)
{
#define r (*rp)
    memset(&r, 0, sizeof r);
    r.x = x;
    r.b = b;
    r.s = s;
    if (!(r.k = s->kernel = calloc(1, sizeof *s->kernel)))
        return cfg_err(x, b->line, "out of memory");
    for (int i = 0; i < GL_NPARAMS; i++)
        if (!gl_param_table[i].is_text)
            r.sc.params |= GL_PBIT(i);
    char kerr[256];
    if (section_family(&r) != 0 || read_source(&r) != 0)
        return -1;
    if (gl_ks_scan(r.k->text, &r.ks, kerr, sizeof kerr) != 0)
        memset(&r.ks, 0, sizeof r.ks);   /* only hints are lost: the compiler judges the file */
    if (cfg_kernel_compile_keys(x, b, r.k) != 0 || named_params(&r) != 0)
        return -1;
    r.sc.nnames = s->nuser;
    r.sc.names = (const char (*)[GL_UPARAM_NAME])s->uname;
    int nrandom = 0;
    for (int i = 0; i < b->n; i++)
        if ((strncmp(b->e[i].key, "buffer.", 7) == 0 || strncmp(b->e[i].key, "array.", 6) == 0 ||
             cfg_is_symbol_key(b->e[i].key)) &&
            parse_buffer(&r, &b->e[i], &nrandom) != 0)
            return -1;
    struct gl_kernel *k = r.k;
    unsigned reads = 0, own[GL_MAX_VARIANTS];
    int seq = cfg_has_launches(b);   /* launch.NAME lines instead of args, grid, block, smem */
    if (cfg_kernel_objects(x, b, s, k, &r.sc) != 0)
        return -1;
    for (int i = 0; seq && i < k->nbuffers; i++)
        if (k->buffers[i].array)
            return cfg_err(x, k->buffers[i].line, "array '%s': arrays are read through textures "
                           "and surfaces passed in args, not in launch.NAME lines",
                           k->buffers[i].name);
    if (seq && k->nobjects)
        return cfg_err(x, k->objects[0].line, "%s '%s': tensor maps, textures and surfaces are "
                       "passed in args, not in launch.NAME lines", k->objects[0].kind ==
                       GL_KO_TENSORMAP ? "tensormap" : k->objects[0].kind == GL_KO_TEXTURE ?
                       "texture" : "surface", k->objects[0].name);
    if (section_variants(&r) != 0 || section_defines(&r) != 0 ||
        variant_shapes(&r, seq, own) != 0 ||
        (seq && cfg_kernel_launches(x, b, s, k, &r.sc) != 0) ||
        (!seq && (((cfg_find(b, "args") || !all_own(s, own, VS_ARGS)) && section_args(&r) != 0) ||
                  ((cfg_find(b, "grid") || !all_own(s, own, VS_GRID)) &&
                   shape(&r, "grid", k->grid, &k->ngrid) != 0) ||
                  ((cfg_find(b, "block") || !all_own(s, own, VS_BLOCK)) &&
                   shape(&r, "block", k->block, &k->nblock) != 0) ||
                  optional_expr(&r, "smem", k->smem) != 0)) ||
        cluster_shape(&r) != 0 || cfg_kernel_targets(x, b, s, k) != 0 ||
        optional_expr(&r, "flops", k->flops) != 0 || optional_expr(&r, "bytes", k->bytes) != 0 ||
        section_verify(&r) != 0 || section_verify_reads(&r) != 0 ||
        builtin_params(&r, top, use) != 0 ||
        cfg_section_zip(x, b, top, use, s) != 0 || section_where(&r, top, use) != 0 ||
        unused_params(&r, &reads) != 0 || same_names(&r) != 0 || kernel_hash(&r) != 0 ||
        cfg_section_timing(x, b, top, s) != 0 || variant_kernels_done(&r, own) != 0)
        return -1;
    for (int i = 0; i < s->nvariants; i++) {
        gl_kernel_variant_init(&s->kvs[i]);
        s->kvs[i].v.params = reads;
    }
    return cfg_section_size(x, s);
#undef r
}

void cfg_kernel_free(struct gl_section *s)
{
    for (int v = 0; v < GL_MAX_VARIANTS; v++) {
        free(s->kshape[v]);   /* copies: their text and seq are s->kernel's */
        s->kshape[v] = NULL;
    }
    if (s->kernel) {
        free(s->kernel->text);
        free(s->kernel->seq);
    }
    free(s->kernel);
    free(s->kvs);
    s->kernel = NULL;
    s->kvs = NULL;
}

/* ---- verify = a variant of another section ----------------------------------- */

/* What differs between two sections' buffer i, or NULL when they are the same. */
static const char *buffer_differs(const struct gl_kbuffer *a, const struct gl_kbuffer *b)
{
    if (strcmp(a->name, b->name) != 0)
        return "name";
    if (a->type != b->type || strcmp(a->tparam, b->tparam) != 0)
        return "type";
    if (strcmp(a->count, b->count) != 0)
        return "count";
    if (a->init != b->init || a->value != b->value || a->value2 != b->value2 ||
        strcmp(a->bound[0], b->bound[0]) != 0 || strcmp(a->bound[1], b->bound[1]) != 0 ||
        strcmp(a->file_hash, b->file_hash) != 0)
        return "init";
    if (a->output != b->output)
        return "output";
    if (a->symbol != b->symbol)
        return "kind (buffer or symbol)";
    return NULL;
}

static int cross_one(struct ctx *x, struct gl_config *c, struct gl_section *s)
{
    struct gl_kernel *k = s->kernel;
    const char *want = k->verify, *dot = strchr(want, '.');
    char sec[64] = "";
    const char *vname = want;
    if (dot) {
        snprintf(sec, sizeof sec, "%.*s", (int)(dot - want), want);
        vname = dot + 1;
    }
    struct gl_section *rs = NULL;
    int rv = -1, nfound = 0;
    char where[256] = "", best[160];
    struct gl_nearest near;
    gl_nearest_init(&near, want);
    for (int i = 0; i < c->nsections; i++) {
        struct gl_section *o = &c->sections[i];
        if (!o->kernel)
            continue;
        for (int v = 0; v < o->nvariants; v++) {
            char full[160];
            snprintf(full, sizeof full, "%s.%s", o->name, o->variants[v]);
            if (gl_nearest_offer(&near, o == s ? o->variants[v] : full)) {
                snprintf(best, sizeof best, "%s", near.best);
                near.best = best;
            }
            if (strcmp(o->variants[v], vname) != 0 || (sec[0] && strcmp(o->name, sec) != 0) ||
                (!sec[0] && o == s))
                continue;
            rs = o;
            rv = v;
            nfound++;
            char item[80];
            snprintf(item, sizeof item, "[%s]", o->name);
            cfg_add_to_list(where, sizeof where, item);
        }
    }
    if (nfound == 0) {
        char list[512] = "";
        for (int v = 0; v < s->nvariants; v++)
            cfg_add_to_list(list, sizeof list, s->variants[v]);
        if (near.best)
            return cfg_err(x, k->verify_line, "verify: unknown variant '%s' of section [%s] (did "
                           "you mean '%s'?)", want, s->name, near.best);
        return cfg_err(x, k->verify_line, "verify: unknown variant '%s' of section [%s] "
                       "(variants: %s; a variant of another section is SECTION.NAME)", want,
                       s->name, list);
    }
    if (nfound > 1)
        return cfg_err(x, k->verify_line, "verify: variant '%s' is in sections %s: say which, "
                       "verify = SECTION.%s", vname, where, vname);
    const struct gl_kernel *rk = rs->kernel;
    if (k->seq || rk->seq)
        return cfg_err(x, k->verify_line, "verify: [%s] or [%s] runs launch lines: a reference "
                       "from another section must be one launch, in a section without them",
                       s->name, rs->name);
    if (rk->nbuffers != k->nbuffers)
        return cfg_err(x, k->verify_line, "verify: [%s] has %d buffers and [%s] %d: the "
                       "reference must take the same buffers", s->name, k->nbuffers, rs->name,
                       rk->nbuffers);
    for (int i = 0; i < k->nbuffers; i++) {
        const char *d = buffer_differs(&k->buffers[i], &rk->buffers[i]);
        if (d)
            return cfg_err(x, k->verify_line, "verify: buffer %d of [%s] (%s, line %d) and of "
                           "[%s] (%s, line %d) differ in %s: the reference must take the same "
                           "buffers, declared alike", i + 1, s->name, k->buffers[i].name,
                           k->buffers[i].line, rs->name, rk->buffers[i].name,
                           rk->buffers[i].line, d);
    }
    /* it runs at this section's points: what it reads must be set here */
    const struct gl_variant *rvv = &rs->kvs[rv].v;
    for (int i = 0; i < GL_NPARAMS; i++)
        if ((rvv->params & GL_PBIT(i)) && rs->values[i].set && !s->values[i].set &&
            !gl_param_table[i].deflt)
            return cfg_err(x, k->verify_line, "verify: %s.%s reads %s, which section [%s] does "
                           "not set", rs->name, vname, gl_param_table[i].name, s->name);
    for (int u = 0; u < rs->nuser; u++) {
        int have = 0;
        for (int w = 0; w < s->nuser; w++)
            have |= strcmp(rs->uname[u], s->uname[w]) == 0;
        if (!have)
            return cfg_err(x, k->verify_line, "verify: %s.%s reads the named parameter %s, "
                           "which section [%s] does not set", rs->name, vname, rs->uname[u],
                           s->name);
    }
    for (int v = 0; v < s->nvariants; v++)
        s->kvs[v].reference = &rs->kvs[rv];
    return 0;
}

int cfg_kernel_cross_verify(struct ctx *x, struct gl_config *c)
{
    for (int i = 0; i < c->nsections; i++)
        if (c->sections[i].kernel && c->sections[i].kernel->verify_cross &&
            cross_one(x, c, &c->sections[i]) != 0)
            return -1;
    return 0;
}

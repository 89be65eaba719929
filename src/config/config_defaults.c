/* config_defaults.c - the keys before the first section as defaults of kernel
 * sections: `source`, `compiler`, `options`, `variants`, `family`, buffers,
 * symbols, `args`, `grid`, `block`, `smem`, launch lines, `verify`, ... and named
 * parameters. A kernel section (its own `source =`, or the defaults') is read
 * from its own lines plus every default it does not set itself and can use
 * (cfg_kernel_block): a key set in both places takes the section's value.
 * What "can use" means:
 *   - `args`, `block`, `smem` and per-variant shapes: not in a section of launch
 *     lines; launch lines: not in a section with its own args or launch lines;
 *   - `grid`: a value made only of the built-in parameter's words (2d, 1d,
 *     block) is that parameter's default (config_parse.c), never a launch grid;
 *     any other value is a kernel section's launch grid;
 *   - buffer.NAME: a section whose args or launch lines pass NAME; symbols: all;
 *   - a named parameter: a section whose lines name it (args, grid, a buffer's
 *     count, a template argument, ...), or that reads every parameter
 *     (`defines = all`, a C reference without `verify_reads`).
 * A default that no section uses is an error naming its key (cfg_top_unused).
 * The defaults a section takes come first among its lines (the order a buffer
 * is declared in), then its own; a section that takes none reads exactly its
 * own lines, so a config written before defaults could hold kernel keys plans
 * the same points with the same kernel hash.
 * Must not interpret a value beyond telling what names it holds. */
#include "config_int.h"

#include <stdlib.h>
#include <string.h>

static int is_shape_key(const char *k)
{
    return strcmp(k, "args") == 0 || strcmp(k, "block") == 0 || strcmp(k, "smem") == 0 ||
           strcmp(k, "grid") == 0 || strncmp(k, "args.", 5) == 0 ||
           strncmp(k, "block.", 6) == 0 || strncmp(k, "smem.", 5) == 0 ||
           strncmp(k, "grid.", 5) == 0;
}

int cfg_grid_is_param(const char *val)
{
    char buf[256];
    if (strlen(val) >= sizeof buf)
        return 0;
    strcpy(buf, val);
    for (char *p = buf; p;) {
        char *item = cfg_next_item(&p, 0);
        if (strcmp(item, "2d") != 0 && strcmp(item, "1d") != 0 && strcmp(item, "block") != 0)
            return 0;
    }
    return 1;
}

/* A default that a kernel section may take: a kernel key (not `grid` holding
 * the built-in parameter's words), `family`, `variants`, or a named parameter. */
int cfg_is_kernel_default(const struct entry *e)
{
    if (strcmp(e->key, "grid") == 0)
        return !cfg_grid_is_param(e->val);
    if (strcmp(e->key, "family") == 0 || strcmp(e->key, "variants") == 0)
        return 1;
    if (cfg_is_kernel_key(e->key))
        return 1;
    return !cfg_is_known_key(e->key);   /* a named parameter (cfg_check_top let it stand) */
}

static int has_launches(const struct block *b)
{
    for (int i = 0; i < b->n; i++)
        if (strncmp(b->e[i].key, "launch.", 7) == 0)
            return 1;
    return 0;
}

static int has_shape(const struct block *b)
{
    for (int i = 0; i < b->n; i++)
        if (is_shape_key(b->e[i].key))
            return 1;
    return 0;
}

static int add(struct block *m, const struct entry *e)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 32;
        struct entry *ne = realloc(m->e, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        m->e = ne;
        m->cap = cap;
    }
    m->e[m->n++] = *e;
    return 0;
}

/* 1 when some line of m other than the named parameters' own (and, for a
 * buffer, other than buffer lines) names `name`. */
static int names_it(const struct block *m, const char *name, int only_passing)
{
    for (int i = 0; i < m->n; i++) {
        const char *k = m->e[i].key;
        if (only_passing) {
            if (strcmp(k, "args") != 0 && strncmp(k, "args.", 5) != 0 &&
                strncmp(k, "launch.", 7) != 0)
                continue;
        } else if (!cfg_is_known_key(k) && !cfg_is_kernel_key(k) && strncmp(k, "grid.", 5) != 0 &&
                   strncmp(k, "block.", 6) != 0 && strncmp(k, "smem.", 5) != 0 &&
                   strncmp(k, "args.", 5) != 0) {
            continue;   /* another named parameter's values name no parameter */
        }
        if (cfg_has_ident(m->e[i].val, name))
            return 1;
    }
    return 0;
}

static int reads_all(const struct block *m)
{
    const struct entry *d = cfg_find(m, "defines"), *v = cfg_find(m, "verify");
    if (d && strcmp(d->val, "all") == 0)
        return 1;
    return v && strncmp(v->val, "c:", 2) == 0 && !cfg_find(m, "verify_reads");
}

int cfg_kernel_block(struct ctx *x, const struct block *top, const struct block *b, int *used,
                     struct block *m)
{
    memset(m, 0, sizeof *m);
    memcpy(m->name, b->name, sizeof m->name);
    m->line = b->line;
    int own_seq = has_launches(b), own_shape = has_shape(b);
    int seq = own_seq || (!own_shape && has_launches(top));
    char take[4096];   /* per top entry: 1 taken */
    if (top->n > (int)sizeof take)
        return cfg_err(x, top->line, "too many keys before the first section");
    memset(take, 0, (size_t)top->n);
    /* first the keys, then buffers and named parameters, which depend on them */
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < top->n; i++) {
            const struct entry *e = &top->e[i];
            int buf = strncmp(e->key, "buffer.", 7) == 0;
            int named = !cfg_is_known_key(e->key) && !cfg_is_kernel_key(e->key) &&
                        strncmp(e->key, "grid.", 5) != 0 && strncmp(e->key, "block.", 6) != 0 &&
                        strncmp(e->key, "smem.", 5) != 0 && strncmp(e->key, "args.", 5) != 0;
            if (!take[i] && cfg_is_kernel_default(e) && cfg_find(b, e->key))
                used[i] = 1;   /* the section's own value replaces it: not a stray default */
            if (take[i] || !cfg_is_kernel_default(e) || cfg_find(b, e->key) ||
                (pass == 0) != (!buf && !named) || (pass == 1 && !buf) || (pass == 2 && !named))
                continue;
            if (pass == 0) {
                if (strncmp(e->key, "launch.", 7) == 0 && (own_seq || own_shape))
                    continue;
                if (is_shape_key(e->key) && seq)
                    continue;
                take[i] = 1;
                continue;
            }
            /* buffers and named parameters: against the section as it will be */
            struct block view;
            memset(&view, 0, sizeof view);
            for (int j = 0; j < top->n; j++)
                if (take[j] && add(&view, &top->e[j]) != 0) {
                    free(view.e);
                    return cfg_err(x, b->line, "out of memory");
                }
            for (int j = 0; j < b->n; j++)
                if (add(&view, &b->e[j]) != 0) {
                    free(view.e);
                    return cfg_err(x, b->line, "out of memory");
                }
            if (pass == 1)
                take[i] = names_it(&view, e->key + 7, 1);
            else
                take[i] = reads_all(&view) || names_it(&view, e->key, 0);
            free(view.e);
        }
    }
    for (int i = 0; i < top->n; i++)
        if (take[i]) {
            used[i] = 1;
            if (add(m, &top->e[i]) != 0)
                return cfg_err(x, b->line, "out of memory");
        }
    for (int i = 0; i < b->n; i++)
        if (add(m, &b->e[i]) != 0)
            return cfg_err(x, b->line, "out of memory");
    return 0;
}

int cfg_top_unused(struct ctx *x, const struct block *top, const int *used, int nkernel)
{
    for (int i = 0; i < top->n; i++) {
        const struct entry *e = &top->e[i];
        if (used[i] || !cfg_is_kernel_default(e))
            continue;
        if (strcmp(e->key, "family") == 0 || strcmp(e->key, "variants") == 0) {
            if (!nkernel)
                continue;   /* the plain sections' (config_parse.c) */
            return cfg_err(x, e->line, "'%s' before the first section is set by every kernel "
                           "section itself: the default is used by none", e->key);
        }
        if (!cfg_is_known_key(e->key) && !cfg_is_kernel_key(e->key))
            return cfg_err(x, e->line, "named parameter '%s' before the first section is read by "
                           "no kernel section (none names it in its args, grid, block, buffer "
                           "counts, template arguments, defines, where, flops, bytes or "
                           "verify_reads)", e->key);
        if (strncmp(e->key, "buffer.", 7) == 0)
            return cfg_err(x, e->line, "'%s' before the first section is passed by no kernel "
                           "section (no args or launch line names '%s')", e->key, e->key + 7);
        return cfg_err(x, e->line, "'%s' before the first section is used by no kernel section "
                       "(each sets its own%s)", e->key,
                       is_shape_key(e->key) || strncmp(e->key, "launch.", 7) == 0
                           ? ", or launches its kernels another way" : "");
    }
    return 0;
}

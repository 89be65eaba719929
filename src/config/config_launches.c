/* config_launches.c - a kernel section's launch sequence: its `launch.NAME`
 * lines read into k->seq (src/core/launches.h), in the order written:
 *
 *   launch.NAME = KERNEL<<<GRID, BLOCK[, SMEM]>>>(ARGS) [for VAR < COUNT]
 *
 * KERNEL is a __global__ function or template-id of the section's file, or
 * `variant` (the kernel of the variant being run); GRID and BLOCK are an
 * expression or dim3(x[, y[, z]]); ARGS as the section's `args` (a buffer's
 * name, or TYPE EXPR); `for VAR < COUNT` launches it COUNT times with VAR = 0,
 * 1, ... in its grid, block, smem and scalar arguments. A section with launch
 * lines has no `args`, `grid`, `block` or `smem` of its own; without `variants`
 * it has one variant, named like the section. Every mistake is "path:line:
 * message" naming the text, with the nearest valid name where there is one.
 * Must not evaluate launches at a point (src/kernel_launches.c checks them per
 * point) nor compile or run anything. */
#include "config_int.h"
#include "launches.h"
#include "nearest.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* What reading the launch lines needs of the section. */
struct lread {
    struct ctx *x;
    const struct block *b;
    struct gl_section *s;
    struct gl_kernel *k;
    struct gl_expr_scope *sc;     /* the section's: collects what the lines read */
};





int cfg_has_launches(const struct block *b)
{
    for (int i = 0; i < b->n; i++)
        if (strncmp(b->e[i].key, "launch.", 7) == 0)
            return 1;
    return 0;
}


/* ---- the kernel ------------------------------------------------------------------ */



/* The kernel of a launch: `variant`, a function name or a template-id f<ARGS>
 * (its argument tokens that name parameters count as read). */
static int launch_kernel(struct lread *r, const struct entry *e, struct gl_klaunch *l,
                         const char *kern)
{
    const char *lt = strchr(kern, '<');
    char func[GL_KEXPR];
    if (strcmp(kern, "variant") == 0) {
        l->variant = 1;
        return 0;
    }
    if (strlen(kern) >= GL_KEXPR)
        return cfg_err(r->x, e->line, "%s: kernel '%.40s...' is longer than %d characters",
                       e->key, kern, GL_KEXPR - 1);
    if (!cfg_kernel_expr(kern, func, sizeof func))
        return cfg_err(r->x, e->line, "%s: '%s' is neither a kernel function's name, a "
                       "template-id such as %s<BS>, nor 'variant'", e->key, kern,
                       func[0] && cfg_ident_start(func[0]) ? func : "kernel");
    const char *base = strrchr(func, ':');
    base = base ? base + 1 : func;
    char names[64][GL_KNAME];
    int n = 0;
    if (!cfg_kernel_has_ident(r->k, base, names, 64, &n)) {
        char list[512] = "";
        struct gl_nearest near;
        gl_nearest_init(&near, base);
        gl_nearest_offer(&near, "variant");
        for (int i = 0; i < n; i++) {
            gl_nearest_offer(&near, names[i]);
            cfg_add_to_list(list, sizeof list, names[i]);
        }
        if (near.best)
            return cfg_err(r->x, e->line, "%s: no kernel '%s' in %s (did you mean '%s'?)",
                           e->key, base, r->k->source, near.best);
        return cfg_err(r->x, e->line, "%s: no kernel '%s' in %s (__global__ functions: %s)",
                       e->key, base, r->k->source, n ? list : "none found");
    }
    snprintf(l->expr, sizeof l->expr, "%s", kern);
    cfg_mark_names(lt, r->s, r->sc);   /* template arguments naming parameters */
    return 0;
}

/* ---- expressions: the section's parameters and the launch's loop variable ------------ */

/* Check e in the section's scope plus l's loop variable (when it has one). */
static int check_expr(struct lread *r, const struct entry *e, const struct gl_klaunch *l,
                      const char *what, const char *text, char *out)
{
    char names[GL_MAX_UPARAMS + 1][GL_UPARAM_NAME], msg[512];
    struct gl_expr_scope sc = *r->sc;
    int n = r->s->nuser;
    if (!*text)
        return cfg_err(r->x, e->line, "%s: %s: empty expression", e->key, what);
    if (strlen(text) >= GL_KEXPR)
        return cfg_err(r->x, e->line, "%s: %s '%.40s...' is longer than %d characters", e->key,
                       what, text, GL_KEXPR - 1);
    memcpy(names, r->s->uname, (size_t)n * sizeof names[0]);
    if (l && l->loop[0])
        snprintf(names[n++], GL_UPARAM_NAME, "%s", l->loop);
    sc.nnames = n;
    sc.names = (const char (*)[GL_UPARAM_NAME])names;
    int rc = gl_expr_check_scope(text, &sc, msg, sizeof msg);
    r->sc->used_params = sc.used_params;
    r->sc->used_names = sc.used_names & (r->s->nuser ? (1u << r->s->nuser) - 1 : 0);
    if (rc != 0)
        return cfg_err(r->x, e->line, "%s: %s '%s': %s", e->key, what, text, msg);
    if (out)
        snprintf(out, GL_KEXPR, "%s", text);
    return 0;
}

/* GRID or BLOCK of the chevrons: an expression, or dim3(x[, y[, z]]). */
static int launch_dims(struct lread *r, const struct entry *e, const struct gl_klaunch *l,
                       const char *what, char *item, char out[3][GL_KEXPR], int *n)
{
    *n = 0;
    if (strncmp(item, "dim3", 4) == 0 && cfg_trim(item + 4)[0] == '(') {
        char *open = strchr(item, '('), *close = strrchr(item, ')');
        if (!close || close < open || *cfg_trim(close + 1))
            return cfg_err(r->x, e->line, "%s: %s '%s': want dim3(x[, y[, z]])", e->key, what,
                           item);
        *close = '\0';
        for (char *p = open + 1; p;) {
            char *d = cfg_next_item(&p, 0);
            if (*n == 3)
                return cfg_err(r->x, e->line, "%s: %s has more than 3 dimensions", e->key, what);
            if (check_expr(r, e, l, what, d, out[(*n)++]) != 0)
                return -1;
        }
        return 0;
    }
    *n = 1;
    return check_expr(r, e, l, what, item, out[0]);
}

/* ---- arguments ------------------------------------------------------------------------ */

static int parse_type(struct lread *r, const struct entry *e, const char *word,
                      enum gl_ktype *t)
{
    struct gl_nearest near;
    char list[256] = "";
    gl_nearest_init(&near, word);
    for (int i = 0; i < GL_KT_COUNT; i++) {
        if (strcmp(gl_ktype_name(i), word) == 0) {
            *t = (enum gl_ktype)i;
            return 0;
        }
        gl_nearest_offer(&near, gl_ktype_name(i));
        cfg_add_to_list(list, sizeof list, gl_ktype_name(i));
    }
    if (near.best)
        return cfg_err(r->x, e->line, "%s: unknown type '%s' (did you mean '%s'?)", e->key, word,
                       near.best);
    return cfg_err(r->x, e->line, "%s: unknown type '%s' (types: %s)", e->key, word, list);
}

static int launch_args(struct lread *r, const struct entry *e, struct gl_klaunch *l, char *text,
                       int *passed)
{
    char blist[512] = "";
    for (int i = 0; i < r->k->nbuffers; i++)
        cfg_add_to_list(blist, sizeof blist, r->k->buffers[i].name);
    if (!*cfg_trim(text))
        return 0;   /* a kernel without arguments */
    for (char *p = text; p;) {
        char *item = cfg_next_item(&p, 0);
        if (!*item)
            return cfg_err(r->x, e->line, "%s: empty item in the arguments", e->key);
        if (l->nargs == GL_KERNEL_MAX_ARGS)
            return cfg_err(r->x, e->line, "%s: more than %d arguments", e->key,
                           GL_KERNEL_MAX_ARGS);
        struct gl_karg *a = &l->args[l->nargs];
        memset(a, 0, sizeof *a);
        a->buffer = -1;
        for (int i = 0; i < r->k->nbuffers; i++)
            if (strcmp(r->k->buffers[i].name, item) == 0)
                a->buffer = i;
        if (a->buffer >= 0) {
            passed[a->buffer] = 1;
            l->nargs++;
            continue;
        }
        size_t w = strcspn(item, " \t");
        if (!item[w]) {
            struct gl_nearest near;
            gl_nearest_init(&near, item);
            for (int i = 0; i < r->k->nbuffers; i++)
                gl_nearest_offer(&near, r->k->buffers[i].name);
            if (near.best)
                return cfg_err(r->x, e->line, "%s: '%s' is not a buffer (did you mean '%s'?) nor "
                               "'TYPE EXPR'", e->key, item, near.best);
            return cfg_err(r->x, e->line, "%s: '%s' is not a buffer (buffers: %s) nor 'TYPE "
                           "EXPR'", e->key, item, blist[0] ? blist : "none");
        }
        item[w] = '\0';
        char what[96];
        snprintf(what, sizeof what, "argument '%s %.60s'", item, cfg_trim(item + w + 1));
        if (parse_type(r, e, item, &a->type) != 0 ||
            check_expr(r, e, l, what, cfg_trim(item + w + 1), a->expr) != 0)
            return -1;
        l->nargs++;
    }
    return 0;
}

/* ---- `for VAR < COUNT` ------------------------------------------------------------------ */

static int launch_loop(struct lread *r, const struct entry *e, struct gl_klaunch *l, char *text)
{
    char *t = cfg_trim(text);
    if (!*t)
        return 0;
    if (strncmp(t, "for", 3) != 0 || cfg_ident_char(t[3]))
        return cfg_err(r->x, e->line, "%s: unexpected '%s' after the arguments (want nothing, "
                       "or 'for VAR < COUNT')", e->key, t);
    char *lt = strchr(t + 3, '<');
    if (!lt)
        return cfg_err(r->x, e->line, "%s: '%s': want 'for VAR < COUNT' (VAR = 0, 1, ..., "
                       "COUNT - 1)", e->key, t);
    *lt = '\0';
    char *var = cfg_trim(t + 3), *count = cfg_trim(lt + 1);
    if (*count == '=')
        return cfg_err(r->x, e->line, "%s: 'for %s <= ...': write 'for %s < COUNT' (COUNT "
                       "launches, %s = 0 to COUNT - 1)", e->key, var, var, var);
    if (!cfg_is_ident(var) || strlen(var) >= GL_UPARAM_NAME)
        return cfg_err(r->x, e->line, "%s: loop variable '%s' is not a name (a C identifier of "
                       "at most %d characters)", e->key, var, GL_UPARAM_NAME - 1);
    const struct gl_param_def *d = gl_param_by_name(var);
    if (d)
        return cfg_err(r->x, e->line, "%s: loop variable '%s' is a built-in parameter's name",
                       e->key, var);
    for (int u = 0; u < r->s->nuser; u++)
        if (strcmp(r->s->uname[u], var) == 0)
            return cfg_err(r->x, e->line, "%s: loop variable '%s' is a named parameter of the "
                           "section too", e->key, var);
    for (int i = 0; cfg_function_names[i]; i++)
        if (strcmp(cfg_function_names[i], var) == 0)
            return cfg_err(r->x, e->line, "%s: loop variable '%s' is a function's name", e->key,
                           var);
    for (int i = 0; i < r->k->nbuffers; i++)
        if (strcmp(r->k->buffers[i].name, var) == 0)
            return cfg_err(r->x, e->line, "%s: loop variable '%s' is a buffer's name", e->key,
                           var);
    if (r->s->nuser >= GL_MAX_UPARAMS)
        return cfg_err(r->x, e->line, "%s: a loop needs a free named-parameter slot: section "
                       "[%s] has %d named parameters (at most %d with a loop)", e->key,
                       r->s->name, r->s->nuser, GL_MAX_UPARAMS - 1);
    /* the count: an expression of the point (not of the loop variable) */
    struct gl_expr_scope before = *r->sc;
    if (check_expr(r, e, NULL, "repeat count", count, l->count) != 0)
        return -1;
    snprintf(l->loop, sizeof l->loop, "%s", var);
    if (r->sc->used_params == before.used_params && r->sc->used_names == before.used_names) {
        /* no parameter in it (or only ones already read): try it without any */
        struct gl_params none;
        long long n;
        char msg[256];
        gl_params_init(&none);
        if (gl_expr_value(count, &none, &n, msg, sizeof msg) == 0 &&
            gl_klaunch_count(l, &none, &n, msg, sizeof msg) != 0)
            return cfg_err(r->x, e->line, "%s: %s", e->key, msg);
    }
    return 0;
}

/* ---- one line, and the section ---------------------------------------------------------- */

static int launch_line(struct lread *r, const struct entry *e, struct gl_klaunch *l, int *passed)
{
    const char *label = e->key + 7;
    char buf[4096];
    if (!cfg_is_ident(label) || strlen(label) >= GL_KNAME)
        return cfg_err(r->x, e->line, "%s: bad launch name '%s' (a C identifier of at most %d "
                       "characters)", e->key, label, GL_KNAME - 1);
    snprintf(l->label, sizeof l->label, "%s", label);
    l->line = e->line;
    if (strlen(e->val) >= sizeof buf)
        return cfg_err(r->x, e->line, "%s: the line is too long", e->key);
    snprintf(buf, sizeof buf, "%s", e->val);
    char *open = strstr(buf, "<<<"), *close = open ? strstr(open + 3, ">>>") : NULL;
    if (!open || !close)
        return cfg_err(r->x, e->line, "%s = '%s': want KERNEL<<<GRID, BLOCK[, SMEM]>>>(ARGS) "
                       "[for VAR < COUNT]", e->key, e->val);
    *open = '\0';
    *close = '\0';
    char *kern = cfg_trim(buf), *chev = open + 3, *rest = cfg_trim(close + 3);
    if (!*kern)
        return cfg_err(r->x, e->line, "%s: no kernel before '<<<'", e->key);
    char *args = rest, *end = NULL;
    if (*args != '(')
        return cfg_err(r->x, e->line, "%s: want the kernel's arguments in '(...)' after '>>>'",
                       e->key);
    int depth = 0;
    for (char *c = args; *c; c++) {
        if (*c == '(')
            depth++;
        else if (*c == ')' && --depth == 0) {
            end = c;
            break;
        }
    }
    if (!end)
        return cfg_err(r->x, e->line, "%s: the arguments' '(' is not closed", e->key);
    *end = '\0';
    /* the loop first: the shape and arguments may read its variable */
    if (launch_kernel(r, e, l, kern) != 0 || launch_loop(r, e, l, end + 1) != 0)
        return -1;
    char *items[4];
    int n = 0;
    for (char *p = chev; p && n < 4;)
        items[n++] = cfg_next_item(&p, 0);
    if (n < 2 || n > 3 || !*items[0] || !*items[1])
        return cfg_err(r->x, e->line, "%s: '<<<%s>>>': want <<<GRID, BLOCK>>> or <<<GRID, "
                       "BLOCK, SMEM>>> (the stream is gpulab's)", e->key, open + 3);
    if (launch_dims(r, e, l, "grid", items[0], l->grid, &l->ngrid) != 0 ||
        launch_dims(r, e, l, "block", items[1], l->block, &l->nblock) != 0)
        return -1;
    if (n == 3 && check_expr(r, e, l, "smem", items[2], l->smem) != 0)
        return -1;
    return launch_args(r, e, l, args + 1, passed);
}

/* A section with launch lines and no `variants`: one variant, named like the
 * section, whose kernels the launch lines name. */
static int only_variant(struct lread *r)
{
    struct gl_section *s = r->s;
    if (strlen(s->name) >= GL_KNAME)
        return cfg_err(r->x, s->line, "section name '%s' is too long for a variant's name",
                       s->name);
    if (gl_variant_find(s->family, s->name))
        return cfg_err(r->x, s->line, "variant '%s' of family %s is a built-in variant: give "
                       "the section another name or family", s->name, s->family);
    s->kvs = calloc(GL_MAX_VARIANTS, sizeof *s->kvs);
    if (!s->kvs)
        return cfg_err(r->x, s->line, "out of memory");
    struct gl_kernel_variant *kv = &s->kvs[0];
    snprintf(s->variants[0], sizeof s->variants[0], "%s", s->name);
    s->nvariants = 1;
    s->variants_line = s->line;
    kv->k = r->k;
    snprintf(kv->family, sizeof kv->family, "%s", s->family);
    snprintf(kv->name, sizeof kv->name, "%s", s->name);
    kv->expr[0] = '\0';
    return 0;
}

int cfg_kernel_launch_variants(struct ctx *x, const struct block *b, struct gl_section *s,
                               struct gl_kernel *k)
{
    struct lread r = { x, b, s, k, NULL };
    return only_variant(&r);
}

int cfg_kernel_launches(struct ctx *x, const struct block *b, struct gl_section *s,
                        struct gl_kernel *k, struct gl_expr_scope *sc)
{
    struct lread r = { x, b, s, k, sc };
    static const char *const single[] = { "args", "grid", "block", "smem", NULL };
    const struct entry *first = NULL;
    int passed[GL_KERNEL_MAX_BUFFERS] = { 0 }, uses_variant = 0;
    for (int i = 0; i < b->n && !first; i++)
        if (strncmp(b->e[i].key, "launch.", 7) == 0)
            first = &b->e[i];
    for (int i = 0; single[i]; i++) {
        const struct entry *e = cfg_find(b, single[i]);
        if (e)
            return cfg_err(x, e->line, "'%s' is for a section of one launch; with launch.NAME "
                           "lines (%s on line %d) each launch has its own, as in "
                           "KERNEL<<<GRID, BLOCK, SMEM>>>(ARGS)", single[i], first->key,
                           first->line);
    }
    if (!(k->seq = calloc(1, sizeof *k->seq)))
        return cfg_err(x, first->line, "out of memory");
    for (int i = 0; i < b->n; i++) {
        const struct entry *e = &b->e[i];
        if (strncmp(e->key, "launch.", 7) != 0)
            continue;
        if (k->seq->n == GL_KSEQ_MAX)
            return cfg_err(x, e->line, "more than %d launch lines in section [%s]", GL_KSEQ_MAX,
                           s->name);
        struct gl_klaunch *l = &k->seq->l[k->seq->n];
        if (launch_line(&r, e, l, passed) != 0)
            return -1;
        uses_variant |= l->variant;
        k->seq->n++;
        size_t used = strlen(k->seq->desc);
        if (used + strlen(l->label) + 4 < sizeof k->seq->desc)
            snprintf(k->seq->desc + used, sizeof k->seq->desc - used, "%s%s", used ? " + " : "",
                     l->label);
    }
    const struct entry *ve = cfg_find(b, "variants");
    if (ve && !uses_variant)
        return cfg_err(x, ve->line, "variants: no launch line runs the variant's kernel: write "
                       "'variant<<<GRID, BLOCK>>>(ARGS)' in the launch that runs it, or remove "
                       "'variants' (the section is then one variant, [%s])", s->name);
    if (!ve && uses_variant)
        for (int i = 0; i < k->seq->n; i++)
            if (k->seq->l[i].variant)
                return cfg_err(x, k->seq->l[i].line, "launch.%s: 'variant' is the kernel of the "
                               "variant being run, and section [%s] lists no 'variants'",
                               k->seq->l[i].label, s->name);
    for (int i = 0; i < k->nbuffers; i++)
        if (!passed[i])
            return cfg_err(x, k->buffers[i].line, "buffer '%s' is passed to no launch (launch "
                           "lines from line %d)", k->buffers[i].name, first->line);
    return 0;
}

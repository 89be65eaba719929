/* config_scalar.c - the types and scalars of a kernel section: a type parameter
 * (`T = float, double`: a named parameter whose values are element types,
 * ktype.h), the type word of a buffer or a scalar argument (a type's name or a
 * type parameter), a scalar argument `TYPE EXPR` (src/core/scalar.h: checked
 * now, and evaluated now when it names no parameter, so that `half 1e6` is an
 * error of the config, not of a run), and the rule that a type parameter
 * stands only where a type can (a buffer's or scalar's type, a template
 * argument), never in an expression or `defines`. Every mistake is
 * "path:line: message" with the nearest valid name.
 * Must not read other keys of the section (config_kernel.c does) nor compile. */
#include "config_int.h"
#include "nearest.h"
#include "scalar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int type_index(const char *word)
{
    for (int t = 0; t < GL_KT_COUNT; t++)
        if (strcmp(gl_ktype_name(t), word) == 0)
            return t;
    return -1;
}

static int is_ident(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static void type_list(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int t = 0; t < GL_KT_COUNT; t++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", t ? ", " : "", gl_ktype_name(t));
}

int cfg_is_type_param(const struct gl_section *s, int u)
{
    return u >= 0 && u < s->nuser && s->uvalues[u].n > 0 && s->uvalues[u].ints &&
           gl_ktype_of_param(s->uvalues[u].ints[0]) >= 0;
}

unsigned cfg_type_params(const struct gl_section *s)
{
    unsigned m = 0;
    for (int u = 0; u < s->nuser; u++)
        if (cfg_is_type_param(s, u))
            m |= 1u << u;
    return m;
}

/* The types a type parameter takes, "float, double". */
static void param_types(const struct gl_section *s, int u, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < s->uvalues[u].n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "",
                 gl_ktype_name(gl_ktype_of_param(s->uvalues[u].ints[i])));
}

int cfg_type_param(struct ctx *x, const struct entry *e, struct gl_values *vals)
{
    char buf[1024], list[160];
    int ntypes = 0, nother = 0, cap = 0;
    const char *other = NULL;
    if (strlen(e->val) >= sizeof buf)
        return 0;   /* the integer reader says it is too long */
    snprintf(buf, sizeof buf, "%s", e->val);
    type_list(list, sizeof list);
    /* first pass: what the items are */
    for (char *p = buf, *next; p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        char *item = cfg_trim(p);
        if (type_index(item) >= 0) {
            ntypes++;
            continue;
        }
        nother++;
        if (!other)
            other = e->val + (item - buf);
        if (is_ident(item)) {
            struct gl_nearest near;
            gl_nearest_init(&near, item);
            for (int t = 0; t < GL_KT_COUNT; t++)
                gl_nearest_offer(&near, gl_ktype_name(t));
            if (near.best)
                return cfg_err(x, e->line, "%s: unknown type '%s' (did you mean '%s'?)", e->key,
                               item, near.best);
        }
    }
    if (ntypes == 0)
        return 0;
    if (nother) {
        size_t n = strcspn(other, ",");
        return cfg_err(x, e->line, "%s = %s: a parameter is either a type parameter (types: %s) "
                       "or an integer one, and '%.*s' is no type", e->key, e->val, list, (int)n,
                       other);
    }
    memset(vals, 0, sizeof *vals);
    vals->set = 1;
    vals->line = e->line;
    snprintf(buf, sizeof buf, "%s", e->val);
    for (char *p = buf, *next; p; p = next) {
        next = strchr(p, ',');
        if (next)
            *next++ = '\0';
        long v = GL_KT_PARAM_BASE + type_index(cfg_trim(p));
        for (int i = 0; i < vals->n; i++)
            if (vals->ints[i] == v)
                return cfg_err(x, e->line, "%s: type '%s' is listed twice", e->key, cfg_trim(p));
        if (vals->n == cap) {
            cap = cap ? 2 * cap : 8;
            long *ints = realloc(vals->ints, (size_t)cap * sizeof *ints);
            if (!ints)
                return cfg_err(x, e->line, "out of memory");
            vals->ints = ints;
        }
        vals->ints[vals->n++] = v;
    }
    return 1;
}

int cfg_check_not_type_value(struct ctx *x, const struct entry *e, const struct gl_values *vals)
{
    for (int i = 0; i < vals->n; i++)
        if (gl_ktype_of_param(vals->ints[i]) >= 0)
            return cfg_err(x, e->line, "%s: value %ld is reserved (gpulab's mark of a type)",
                           e->key, vals->ints[i]);
    return 0;
}

int cfg_kernel_type(struct ctx *x, int line, const char *what, const struct gl_section *s,
                    const char *word, enum gl_ktype *t, char *tparam, unsigned *used_names)
{
    char list[160], sug[96] = "";
    int i = type_index(word);
    tparam[0] = '\0';
    if (i >= 0) {
        *t = (enum gl_ktype)i;
        return 0;
    }
    for (int u = 0; u < s->nuser; u++) {
        if (strcmp(s->uname[u], word) != 0)
            continue;
        if (!cfg_is_type_param(s, u))
            return cfg_err(x, line, "%s: '%s' is an integer parameter, not a type (a type "
                           "parameter takes types: %s = float, double)", what, word, word);
        *t = (enum gl_ktype)gl_ktype_of_param(s->uvalues[u].ints[0]);
        snprintf(tparam, GL_UPARAM_NAME, "%s", word);
        *used_names |= 1u << u;
        return 0;
    }
    struct gl_nearest near;
    gl_nearest_init(&near, word);
    for (int k = 0; k < GL_KT_COUNT; k++)
        gl_nearest_offer(&near, gl_ktype_name(k));
    for (int u = 0; u < s->nuser; u++)
        if (cfg_is_type_param(s, u))
            gl_nearest_offer(&near, s->uname[u]);
    if (near.best)
        snprintf(sug, sizeof sug, " (did you mean '%s'?)", near.best);
    type_list(list, sizeof list);
    return cfg_err(x, line, "%s: unknown type '%s'%s (types: %s; or a type parameter such as "
                   "T = float, double)", what, word, sug, list);
}

int cfg_kernel_no_types(struct ctx *x, int line, const char *what, const struct gl_section *s,
                        unsigned before, unsigned after)
{
    unsigned bad = (after & ~before) & cfg_type_params(s);
    for (int u = 0; u < s->nuser && bad; u++) {
        if (!(bad & (1u << u)))
            continue;
        char types[160];
        param_types(s, u, types, sizeof types);
        return cfg_err(x, line, "%s: '%s' is a type parameter (%s): it stands only where a type "
                       "does (a buffer's or a scalar's type, a template argument), not in an "
                       "expression", what, s->uname[u], types);
    }
    return 0;
}

int cfg_kernel_scalar(struct ctx *x, int line, const struct gl_section *s,
                      struct gl_expr_scope *sc, const char *word, const char *expr,
                      struct gl_karg *a)
{
    char what[GL_KEXPR + 80], msg[400];
    snprintf(what, sizeof what, "args: '%s %s'", word, expr);
    if (cfg_kernel_type(x, line, what, s, word, &a->type, a->tparam, &sc->used_names) != 0)
        return -1;
    if (!*expr)
        return cfg_err(x, line, "%s: empty expression", what);
    if (strlen(expr) >= GL_KEXPR)
        return cfg_err(x, line, "%s: expression '%.40s...' is longer than %d characters", what,
                       expr, GL_KEXPR - 1);
    /* every type the argument may take (a type parameter's each) */
    int types[GL_KT_COUNT], ntypes = 0;
    if (!a->tparam[0]) {
        types[ntypes++] = a->type;
    } else {
        for (int u = 0; u < s->nuser; u++)
            if (strcmp(s->uname[u], a->tparam) == 0)
                for (int i = 0; i < s->uvalues[u].n && ntypes < GL_KT_COUNT; i++)
                    types[ntypes++] = gl_ktype_of_param(s->uvalues[u].ints[i]);
    }
    struct gl_expr_scope one = *sc;   /* what the expression names, alone */
    one.used_params = one.used_names = 0;
    for (int i = 0; i < ntypes; i++) {
        if (gl_scalar_check(types[i], expr, &one, msg, sizeof msg) != 0) {
            if (a->tparam[0])
                return cfg_err(x, line, "%s at %s = %s: %s", what, a->tparam,
                               gl_ktype_name(types[i]), msg);
            return cfg_err(x, line, "%s: %s", what, msg);
        }
    }
    sc->used_params |= one.used_params;
    sc->used_names |= one.used_names;
    if (cfg_kernel_no_types(x, line, what, s, 0, one.used_names) != 0)
        return -1;
    snprintf(a->expr, sizeof a->expr, "%s", expr);
    /* a constant is known now: out of range for its type is the config's mistake */
    if (!gl_scalar_is_constant(expr))
        return 0;
    for (int i = 0; i < ntypes; i++) {
        struct gl_scalar v;
        if (gl_scalar_eval(types[i], expr, NULL, &v, msg, sizeof msg) != 0) {
            if (a->tparam[0])
                return cfg_err(x, line, "args: at %s = %s: %s", a->tparam,
                               gl_ktype_name(types[i]), msg);
            return cfg_err(x, line, "args: %s", msg);
        }
    }
    return 0;
}

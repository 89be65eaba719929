/* config_section.c - the keys every section has, for plain and kernel sections
 * alike: a section's variant by index and which parameters each variant bit
 * reads, zip groups, where-expressions (checked, not evaluated), the timing
 * policy and the size of a section's product. config_parse.c (plain sections)
 * and config_kernel.c (kernel sections) both call these.
 * Must not read a section's variants or parameters (config_parse.c), run
 * anything, touch the database or know about CUDA. */
#include "config_int.h"
#include "nearest.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct entry *cfg_pick(const struct block *b, const struct block *top, const char *key)
{
    const struct entry *e = cfg_find(b, key);
    return e ? e : cfg_find(top, key);
}

const struct gl_variant *gl_section_variant(const struct gl_section *s, int i)
{
    if (s->kernel)
        return i >= 0 && i < s->nvariants ? &s->kvs[i].v : NULL;
    return gl_variant_find(s->family, s->variants[i]);
}

const struct gl_values *gl_section_values(const struct gl_section *s, int bit, const char **name)
{
    if (bit < GL_NPARAMS) {
        if (name)
            *name = gl_param_table[bit].name;
        return &s->values[bit];
    }
    if (name)
        *name = s->uname[bit - GL_NPARAMS];
    return &s->uvalues[bit - GL_NPARAMS];
}

/* Bit of a parameter's name (built-in: its id; named: GL_NPARAMS + index), or -1. */
static int name_bit(const struct gl_section *s, const char *name)
{
    const struct gl_param_def *d = gl_param_by_name(name);
    if (d)
        return (int)d->id;
    for (int u = 0; u < s->nuser; u++)
        if (strcmp(s->uname[u], name) == 0)
            return GL_NPARAMS + u;
    return -1;
}

static unsigned set_mask(const struct gl_section *s)
{
    unsigned m = 0;
    for (int i = 0; i < GL_NPARAMS; i++)
        if (s->values[i].set)
            m |= GL_PBIT(i);
    return m;
}

/* Parse one zip line into the section's groups; *mask is the group. is_default:
 * a default zip naming a parameter the section does not set is not applied
 * (*mask = 0, no error). */
static int parse_zip(struct ctx *x, struct gl_section *s, const struct entry *e, int is_default,
                     unsigned *mask)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", e->val);
    unsigned m = 0;
    int n = 0, missing = 0, nbits = GL_NPARAMS + s->nuser;
    char *save = NULL;
    *mask = 0;
    for (char *p = buf; p; p = save) {
        save = strchr(p, ',');
        if (save)
            *save++ = '\0';
        char *name = cfg_trim(p);
        if (!*name)
            return cfg_err(x, e->line, "empty item in zip '%s'", e->val);
        int bit = name_bit(s, name);
        if (bit < 0) {
            struct gl_nearest near;
            gl_nearest_init(&near, name);
            for (int i = 0; i < GL_NPARAMS; i++)
                gl_nearest_offer(&near, gl_param_table[i].name);
            for (int u = 0; u < s->nuser; u++)
                gl_nearest_offer(&near, s->uname[u]);
            if (near.best)
                return cfg_err(x, e->line, "zip: unknown parameter '%s' (did you mean '%s'?)", name,
                            near.best);
            return cfg_err(x, e->line, "zip: unknown parameter '%s'", name);
        }
        if (m & (1u << bit))
            return cfg_err(x, e->line, "zip: parameter '%s' is named twice", name);
        m |= 1u << bit;
        n++;
        const char *pname;
        if (!gl_section_values(s, bit, &pname)->set) {
            if (!is_default)
                return cfg_err(x, e->line, "zip: parameter '%s' is not set in section [%s]", name,
                            s->name);
            missing = 1;
        }
    }
    if (n < 2)
        return cfg_err(x, e->line, "zip needs at least two parameters, got '%s'", e->val);
    if (missing)
        return 0;
    int len = -1;
    const char *first = NULL;
    for (int i = 0; i < nbits; i++) {
        if (!(m & (1u << i)))
            continue;
        const char *pname;
        const struct gl_values *v = gl_section_values(s, i, &pname);
        for (int z = 0; z < s->nzip; z++)
            if (s->zip[z] & (1u << i))
                return cfg_err(x, e->line, "zip: parameter '%s' is already zipped on line %d",
                            pname, s->zip_line[z]);
        if (len < 0) {
            len = v->n;
            first = pname;
        } else if (v->n != len) {
            return cfg_err(x, e->line, "zip: %s has %d values but %s has %d (zipped lists must be "
                        "equally long)", first, len, pname, v->n);
        }
    }
    if (s->nzip == GL_MAX_ZIP)
        return cfg_err(x, e->line, "more than %d zip lines in section [%s]", GL_MAX_ZIP, s->name);
    s->zip[s->nzip] = m;
    s->zip_line[s->nzip] = e->line;
    s->nzip++;
    *mask = m;
    return 0;
}

static int add_where(struct ctx *x, struct gl_section *s, const struct entry *e)
{
    if (s->nwhere == GL_MAX_WHERE)
        return cfg_err(x, e->line, "more than %d where lines in section [%s]", GL_MAX_WHERE, s->name);
    s->where[s->nwhere] = strdup(e->val);
    if (!s->where[s->nwhere])
        return cfg_err(x, e->line, "out of memory");
    s->where_line[s->nwhere++] = e->line;
    return 0;
}

/* Timing policy and metrics text: the section's keys, else the defaults block's. */
int cfg_section_timing(struct ctx *x, const struct block *b, const struct block *top,
                       struct gl_section *s)
{
    const struct entry *e;
    struct gl_timing *t = &s->timing;
    gl_timing_defaults(t);
    if ((e = cfg_pick(b, top, "warmup")) && cfg_parse_int_key(x, e, 0, 1000000, &t->warmup) != 0)
        return -1;
    const struct entry *emin = cfg_pick(b, top, "samples_min");
    if (emin && cfg_parse_int_key(x, emin, 1, GL_MAX_SAMPLES, &t->min_samples) != 0)
        return -1;
    const struct entry *emax = cfg_pick(b, top, "samples_max");
    if (emax && cfg_parse_int_key(x, emax, 1, GL_MAX_SAMPLES, &t->max_samples) != 0)
        return -1;
    if (t->min_samples > t->max_samples)
        return cfg_err(x, emax ? emax->line : emin->line,
                    "samples_min = %d is more than samples_max = %d", t->min_samples,
                    t->max_samples);
    if ((e = cfg_pick(b, top, "noise")) && cfg_parse_noise(x, e, &t->max_noise) != 0)
        return -1;
    if ((e = cfg_pick(b, top, "time_cap")) && cfg_parse_seconds(x, e, &t->max_seconds) != 0)
        return -1;
    s->time_cap_given = e != NULL;
    if ((e = cfg_pick(b, top, "timeout")) && cfg_parse_seconds(x, e, &t->timeout_s) != 0)
        return -1;
    if ((e = cfg_pick(b, top, "metrics"))) {
        if (strlen(e->val) >= sizeof s->metrics)
            return cfg_err(x, e->line, "metrics list is longer than %zu characters",
                        sizeof s->metrics - 1);
        snprintf(s->metrics, sizeof s->metrics, "%s", e->val);
        s->metrics_line = e->line;
    } else {
        snprintf(s->metrics, sizeof s->metrics, "default");
    }
    return 0;
}

/* family and variants; *reads is the union of the parameters the variants read. */
int cfg_section_zip(struct ctx *x, const struct block *b, const struct block *top,
                    struct top_use *use, struct gl_section *s)
{
    int own = 0;
    unsigned m;
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->e[i].key, "zip") != 0)
            continue;
        own = 1;
        if (parse_zip(x, s, &b->e[i], 0, &m) != 0)
            return -1;
    }
    for (int i = 0; i < top->n && !own; i++) {
        if (strcmp(top->e[i].key, "zip") != 0)
            continue;
        if (parse_zip(x, s, &top->e[i], 1, &m) != 0)
            return -1;
        if (m)
            use->zip[i] = 1;
    }
    return 0;
}

/* where: the defaults that name only parameters the section sets, then its own. */
int cfg_section_where(struct ctx *x, const struct block *b, const struct block *top,
                      struct top_use *use, struct gl_section *s, struct gl_expr_scope *used)
{
    unsigned set = set_mask(s);
    char msg[512];
    struct gl_expr_scope sc;
    memset(&sc, 0, sizeof sc);
    sc.params = set;
    sc.nnames = s->nuser;
    sc.names = (const char (*)[GL_UPARAM_NAME])s->uname;
    for (int i = 0; i < top->n; i++) {
        const struct entry *e = &top->e[i];
        if (strcmp(e->key, "where") != 0)
            continue;
        /* not this section's (it names a parameter the section does not set, or
         * one of another section's): a where no section takes is an error at the
         * end, with the expression's own mistake if it has one (config_parse.c) */
        if (gl_expr_check_scope(e->val, &sc, msg, sizeof msg) != 0)
            continue;
        use->where[i] = 1;
        if (add_where(x, s, e) != 0)
            return -1;
    }
    for (int i = 0; i < b->n; i++) {
        const struct entry *e = &b->e[i];
        if (strcmp(e->key, "where") != 0)
            continue;
        if (gl_expr_check_scope(e->val, &sc, msg, sizeof msg) != 0)
            return cfg_err(x, e->line, "where '%.80s%s': %s", e->val,
                           strlen(e->val) > 80 ? "..." : "", msg);
        if (add_where(x, s, e) != 0)
            return -1;
    }
    if (used) {
        used->used_params |= sc.used_params;
        used->used_names |= sc.used_names;
    }
    return 0;
}

/* The number of points of the product (each zip group counts once) is capped. */
int cfg_section_size(struct ctx *x, const struct gl_section *s)
{
    double points = 1;
    for (int i = 0; i < GL_NPARAMS + s->nuser; i++) {
        const char *name;
        const struct gl_values *v = gl_section_values(s, i, &name);
        if (!v->set)
            continue;
        int lead = 1;
        for (int z = 0; z < s->nzip; z++)
            if ((s->zip[z] & (1u << i)) && (s->zip[z] & ((1u << i) - 1)))
                lead = 0;   /* a lower-numbered parameter of its group counted it */
        if (lead)
            points *= v->n;
    }
    if (points > (double)MAX_POINTS)
        return cfg_err(x, s->line, "section [%s] sweeps %.0f points, more than %ld", s->name, points,
                    MAX_POINTS);
    return 0;
}

void cfg_mark_names(const char *text, const struct gl_section *s, struct gl_expr_scope *sc)
{
    for (const char *c = text ? text : ""; *c; c++) {
        if (!cfg_ident_start(*c) || (c > text && cfg_ident_char(c[-1])))
            continue;
        const char *w = c;
        while (cfg_ident_char(*c))
            c++;
        char name[GL_KEXPR];
        snprintf(name, sizeof name, "%.*s", (int)(c - w), w);
        const struct gl_param_def *d = gl_param_by_name(name);
        if (d && !d->is_text)
            sc->used_params |= GL_PBIT(d->id);
        for (int u = 0; u < s->nuser; u++)
            if (strcmp(s->uname[u], name) == 0)
                sc->used_names |= 1u << u;
        c--;
    }
}

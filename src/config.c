/* config.c - read an experiment config (see config.h) into struct gl_config:
 * sections, value lists and ranges, zip groups, where-expressions (checked, not
 * evaluated), timing policy and metrics text. Every error is "path:line: message"
 * naming the offending text. Expansion into jobs is expand.c.
 *
 * Keys before the first section are study, description, and defaults for every
 * section: a section's own key replaces the default. A default parameter only
 * applies to sections with a variant that reads it; default where and zip lines
 * only to sections that set every parameter they name (each must apply somewhere).
 * Must not run anything, touch the database or know about CUDA. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 1000000L   /* per section, and per range */

/* ---- one parsed line, and the blocks of lines ------------------------------ */

struct entry {
    char key[32];
    char *val;      /* points into the parser's copy of the text */
    int line;
};

struct block {
    char name[64];  /* "" for the keys before the first section */
    int line;
    int n, cap;
    struct entry *e;
};

struct ctx {
    const char *path;
    char *err;
    size_t errlen;
};

static int cerr(struct ctx *x, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(x->err, x->errlen, "%s:%d: %s", x->path, line, msg);
    return -1;
}

static const char *const section_keys[] = {
    "family", "variants", "where", "zip", "metrics", "warmup", "samples_min", "samples_max",
    "noise", "time_cap", "timeout", NULL
};
static const char *const top_only_keys[] = { "study", "description", NULL };

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

static int known_key(const char *k)
{
    return gl_param_by_name(k) || in_list(section_keys, k) || in_list(top_only_keys, k);
}

/* How far a typed name is from a known one for "did you mean", by the rule of
 * gl_param_nearest: case-insensitive edit distance of at most a third of the
 * longer name, or one a prefix (3+ characters) of the other. -1 = too far. */
static int near_distance(const char *typed, const char *known)
{
    char a[64], b[64];
    size_t la, lb;
    for (la = 0; typed[la] && la + 1 < sizeof a; la++)
        a[la] = (char)(typed[la] >= 'A' && typed[la] <= 'Z' ? typed[la] - 'A' + 'a' : typed[la]);
    a[la] = '\0';
    for (lb = 0; known[lb] && lb + 1 < sizeof b; lb++)
        b[lb] = (char)(known[lb] >= 'A' && known[lb] <= 'Z' ? known[lb] - 'A' + 'a' : known[lb]);
    b[lb] = '\0';
    int d = gl_edit_distance(a, b);
    size_t longer = la > lb ? la : lb, shorter = la < lb ? la : lb;
    if ((size_t)d * 3 <= longer || (shorter >= 3 && strncmp(a, b, shorter) == 0))
        return d;
    return -1;
}

/* Closest known key or parameter; *is_param says which it is (ties: parameter). */
static const char *nearest_key(const char *k, int *is_param)
{
    const char *best = NULL;
    int bestd = -1;
    *is_param = 0;
    for (int i = 0; i < GL_NPARAMS; i++) {
        int d = near_distance(k, gl_param_table[i].name);
        if (d >= 0 && (bestd < 0 || d < bestd)) {
            best = gl_param_table[i].name;
            bestd = d;
            *is_param = 1;
        }
    }
    const char *const *lists[] = { section_keys, top_only_keys };
    for (int l = 0; l < 2; l++)
        for (const char *const *c = lists[l]; *c; c++) {
            int d = near_distance(k, *c);
            if (d >= 0 && (bestd < 0 || d < bestd)) {
                best = *c;
                bestd = d;
                *is_param = 0;
            }
        }
    return best;
}

static struct entry *find(const struct block *b, const char *key)
{
    for (int i = 0; i < b->n; i++)
        if (strcmp(b->e[i].key, key) == 0)
            return &b->e[i];
    return NULL;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Cut a '#' comment that is not inside a quoted string. */
static void strip_comment(char *s)
{
    char quote = 0;
    for (; *s; s++) {
        if (quote) {
            if (*s == quote)
                quote = 0;
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        } else if (*s == '#') {
            *s = '\0';
            return;
        }
    }
}

static int valid_section_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return 0;
    return 1;
}

static int add_entry(struct block *b, const char *key, char *val, int line)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        struct entry *e = realloc(b->e, (size_t)cap * sizeof *e);
        if (!e)
            return -1;
        b->e = e;
        b->cap = cap;
    }
    struct entry *e = &b->e[b->n++];
    snprintf(e->key, sizeof e->key, "%s", key);
    e->val = val;
    e->line = line;
    return 0;
}

/* Split the text (in place) into blocks; check the syntax of every line, that
 * every key is known, allowed where it stands and not repeated. */
static int read_blocks(struct ctx *x, char *text, struct block **out, int *nout)
{
    struct block *b = calloc(1, sizeof *b);
    int nb = 1;
    if (!b)
        return cerr(x, 0, "out of memory");
    *out = b;
    *nout = 1;
    b[0].line = 1;
    int line = 0;
    char *s = text;
    while (s) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char *l = s;
        s = nl ? nl + 1 : NULL;
        strip_comment(l);
        l = trim(l);
        if (!*l)
            continue;
        struct block *cur = &(*out)[nb - 1];
        if (*l == '[') {
            char *close = strchr(l, ']');
            if (!close)
                return cerr(x, line, "unterminated section header '%s'", l);
            *close = '\0';
            char *name = trim(l + 1), *rest = trim(close + 1);
            if (*rest)
                return cerr(x, line, "unexpected text '%s' after section header [%s]", rest, name);
            if (!valid_section_name(name))
                return cerr(x, line, "bad section name '[%s]' (letters, digits, _ and - only)",
                            name);
            if (strlen(name) >= sizeof b->name)
                return cerr(x, line, "section name '%s' is too long", name);
            for (int i = 1; i < nb; i++)
                if (strcmp((*out)[i].name, name) == 0)
                    return cerr(x, line, "section [%s] is already defined on line %d", name,
                                (*out)[i].line);
            struct block *nbk = realloc(*out, (size_t)(nb + 1) * sizeof *nbk);
            if (!nbk)
                return cerr(x, line, "out of memory");
            *out = nbk;
            memset(&nbk[nb], 0, sizeof nbk[nb]);
            snprintf(nbk[nb].name, sizeof nbk[nb].name, "%s", name);
            nbk[nb].line = line;
            nb++;
            *nout = nb;
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq)
            return cerr(x, line, "expected 'key = value', got '%s'", l);
        *eq = '\0';
        char *key = trim(l), *val = trim(eq + 1);
        if (!*key)
            return cerr(x, line, "missing key before '= %s'", val);
        if (!known_key(key)) {
            int is_param = 0;
            const char *near = nearest_key(key, &is_param);
            if (near)
                return cerr(x, line, "unknown %s '%s' (did you mean '%s'?)",
                            is_param ? "parameter" : "key", key, near);
            return cerr(x, line, "unknown key '%s'", key);
        }
        if (!*val)
            return cerr(x, line, "'%s' has no value", key);
        if (nb > 1 && in_list(top_only_keys, key))
            return cerr(x, line, "'%s' is allowed only before the first section (it is in [%s])",
                        key, cur->name);
        if (strcmp(key, "where") != 0 && strcmp(key, "zip") != 0) {
            const struct entry *prev = find(cur, key);
            if (prev) {
                if (nb > 1)
                    return cerr(x, line, "duplicate key '%s' in section [%s] (first set on line "
                                "%d)", key, cur->name, prev->line);
                return cerr(x, line, "duplicate key '%s' before the first section (first set on "
                            "line %d)", key, prev->line);
            }
        }
        if (add_entry(cur, key, val, line) != 0)
            return cerr(x, line, "out of memory");
    }
    return 0;
}

static void free_blocks(struct block *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].e);
    free(b);
}

/* ---- values ---------------------------------------------------------------- */

/* One integer: "123", "-4" or "1<<20". */
static int parse_atom(const char *s, long *out)
{
    char *end;
    errno = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return -1;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s)
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    if (end[0] == '<' && end[1] == '<') {
        const char *t = end + 2;
        long long sh = strtoll(t, &end, 10);
        if (errno || end == t || sh < 0 || sh > 62 || v < 0 || v > (INT64_MAX >> sh))
            return -1;
        v <<= sh;
        while (*end == ' ' || *end == '\t')
            end++;
    }
    if (*end)
        return -1;
    *out = (long)v;
    return 0;
}

static int push_int(struct gl_values *vals, long v, int *cap)
{
    if (vals->n == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        long *p = realloc(vals->ints, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        vals->ints = p;
        *cap = nc;
    }
    vals->ints[vals->n++] = v;
    return 0;
}

static int check_min(struct ctx *x, int line, const struct gl_param_def *d, long v)
{
    if (v < d->min)
        return cerr(x, line, "value %ld for %s is out of range (%s >= %ld)", v, d->name, d->name,
                    d->min);
    return 0;
}

static int choices_text(const struct gl_param_def *d, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *const *c = d->choices; *c; c++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", *c);
    return 0;
}

/* start:end:step or start:end:*factor, inclusive. */
static int parse_range(struct ctx *x, int line, const struct gl_param_def *d, char *item,
                       struct gl_values *vals, int *cap)
{
    char copy[256];
    if (strlen(item) >= sizeof copy)
        return cerr(x, line, "malformed range '%.40s...' (too long)", item);
    snprintf(copy, sizeof copy, "%s", item);
    char *c1 = strchr(copy, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return cerr(x, line, "malformed range '%s' (want start:end:step or start:end:*factor)",
                    item);
    *c1 = *c2 = '\0';
    long a, b, step;
    char *st = trim(c2 + 1);
    int geo = *st == '*';
    if (parse_atom(copy, &a) != 0)
        return cerr(x, line, "malformed range '%s' (bad start '%s')", item, trim(copy));
    if (parse_atom(c1 + 1, &b) != 0)
        return cerr(x, line, "malformed range '%s' (bad end '%s')", item, trim(c1 + 1));
    if (parse_atom(geo ? st + 1 : st, &step) != 0)
        return cerr(x, line, "malformed range '%s' (bad %s '%s')", item, geo ? "factor" : "step",
                    geo ? st + 1 : st);
    if (a > b)
        return cerr(x, line, "malformed range '%s' (start > end)", item);
    if (geo && step < 2)
        return cerr(x, line, "malformed range '%s' (factor must be >= 2)", item);
    if (!geo && step <= 0)
        return cerr(x, line, "malformed range '%s' (step must be > 0)", item);
    if (geo && a < 1)
        return cerr(x, line, "malformed range '%s' (a geometric range must start at 1 or more)",
                    item);
    if (!geo && (b - a) / step >= MAX_POINTS)
        return cerr(x, line, "range '%s' has more than %ld values", item, MAX_POINTS);
    if (check_min(x, line, d, a) != 0)
        return -1;
    for (long v = a;;) {
        if (push_int(vals, v, cap) != 0)
            return cerr(x, line, "out of memory");
        if (geo ? v > b / step : v > b - step)
            break;
        v = geo ? v * step : v + step;
        if (v > b)
            break;
    }
    return 0;
}

/* A parameter's value list: comma-separated items, each a value or a range. */
static int parse_values(struct ctx *x, const struct gl_param_def *d, const struct entry *e,
                        struct gl_values *vals)
{
    char buf[4096];
    int cap = 0;
    if (strlen(e->val) >= sizeof buf)
        return cerr(x, e->line, "value list for %s is too long", d->name);
    snprintf(buf, sizeof buf, "%s", e->val);
    memset(vals, 0, sizeof *vals);
    vals->set = 1;
    vals->line = e->line;
    char *save = NULL;
    int nitems = 0;
    for (char *p = buf; p; p = save) {
        save = strchr(p, ',');
        if (save)
            *save++ = '\0';
        char *item = trim(p);
        nitems++;
        if (!*item)
            return cerr(x, e->line, "empty item %d in the list for %s: '%s'", nitems, d->name,
                        e->val);
        if (d->is_text) {
            int ok = 0;
            for (const char *const *c = d->choices; *c; c++)
                if (strcmp(*c, item) == 0)
                    ok = 1;
            if (!ok) {
                char list[128];
                const char *near = NULL;
                int bestd = -1;
                for (const char *const *c = d->choices; *c; c++) {
                    int dist = near_distance(item, *c);
                    if (dist >= 0 && (bestd < 0 || dist < bestd)) {
                        near = *c;
                        bestd = dist;
                    }
                }
                choices_text(d, list, sizeof list);
                if (near)
                    return cerr(x, e->line, "'%s' is not a choice for %s (did you mean '%s'?)",
                                item, d->name, near);
                return cerr(x, e->line, "'%s' is not a choice for %s (%s)", item, d->name, list);
            }
            char (*w)[GL_WORD] = realloc(vals->words, (size_t)(vals->n + 1) * sizeof *w);
            if (!w)
                return cerr(x, e->line, "out of memory");
            vals->words = w;
            memset(w[vals->n], 0, GL_WORD);
            memcpy(w[vals->n], item, strlen(item));
            vals->n++;
        } else if (strchr(item, ':')) {
            if (parse_range(x, e->line, d, item, vals, &cap) != 0)
                return -1;
        } else {
            long v;
            if (parse_atom(item, &v) != 0)
                return cerr(x, e->line, "bad number '%s' for %s", item, d->name);
            if (check_min(x, e->line, d, v) != 0)
                return -1;
            if (push_int(vals, v, &cap) != 0)
                return cerr(x, e->line, "out of memory");
        }
        if (vals->n > MAX_POINTS)
            return cerr(x, e->line, "%s has more than %ld values", d->name, MAX_POINTS);
    }
    return 0;
}

static void free_values(struct gl_values *v)
{
    free(v->ints);
    free(v->words);
    memset(v, 0, sizeof *v);
}

/* ---- timing ---------------------------------------------------------------- */

void gl_timing_defaults(struct gl_timing *t)
{
    t->warmup = 2;
    t->min_samples = 10;
    t->max_samples = 1000;
    t->max_noise = 0.005;
    t->max_seconds = 2.0;
    t->timeout_s = 600;
}

static int parse_double(const char *s, double *out, const char **rest)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v))
        return -1;
    *out = v;
    *rest = end;
    return 0;
}

static int parse_int_key(struct ctx *x, const struct entry *e, long lo, long hi, int *out)
{
    long v;
    if (parse_atom(e->val, &v) != 0)
        return cerr(x, e->line, "bad number '%s' for %s", e->val, e->key);
    if (v < lo || v > hi)
        return cerr(x, e->line, "%s = %ld is out of range (%ld..%ld)", e->key, v, lo, hi);
    *out = (int)v;
    return 0;
}

/* "2s", "500ms", "2": seconds, > 0. */
static int parse_seconds(struct ctx *x, const struct entry *e, double *out)
{
    double v;
    const char *rest;
    if (parse_double(e->val, &v, &rest) != 0)
        return cerr(x, e->line, "bad duration '%s' for %s (seconds: 2s, 0.5s or 500ms)", e->val,
                    e->key);
    if (strcmp(rest, "ms") == 0)
        v /= 1000.0;
    else if (*rest && strcmp(rest, "s") != 0)
        return cerr(x, e->line, "bad duration '%s' for %s (seconds: 2s, 0.5s or 500ms)", e->val,
                    e->key);
    if (v <= 0)
        return cerr(x, e->line, "%s = %s must be more than 0", e->key, e->val);
    *out = v;
    return 0;
}

/* "0.5%" or "0.005": a fraction in [0, 1). */
static int parse_noise(struct ctx *x, const struct entry *e, double *out)
{
    double v;
    const char *rest;
    if (parse_double(e->val, &v, &rest) != 0 || (*rest && strcmp(rest, "%") != 0))
        return cerr(x, e->line, "bad noise '%s' (a fraction such as 0.005, or 0.5%%)", e->val);
    if (*rest)
        v /= 100.0;
    if (v < 0 || v >= 1)
        return cerr(x, e->line, "noise = %s is out of range (0 to under 100%%)", e->val);
    *out = v;
    return 0;
}

/* ---- sections -------------------------------------------------------------- */

/* Parameters without a default: a variant that reads one needs it set. */
static const unsigned no_default = GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_R);

/* What the defaults block provided, and whether each default found a use. */
struct top_use {
    int param[GL_NPARAMS];
    int *where, *zip;      /* per entry of the top block */
};

static const struct entry *pick(const struct block *b, const struct block *top, const char *key)
{
    const struct entry *e = find(b, key);
    return e ? e : find(top, key);
}

static int add_variant(struct ctx *x, struct gl_section *s, const char *name, int line)
{
    if (s->nvariants == GL_MAX_VARIANTS)
        return cerr(x, line, "more than %d variants in section [%s]", GL_MAX_VARIANTS, s->name);
    snprintf(s->variants[s->nvariants++], sizeof s->variants[0], "%s", name);
    return 0;
}

static int has_variant(const struct gl_section *s, const char *name)
{
    for (int i = 0; i < s->nvariants; i++)
        if (strcmp(s->variants[i], name) == 0)
            return 1;
    return 0;
}

static int parse_variants(struct ctx *x, struct gl_section *s, const struct entry *e)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", e->val);
    s->variants_line = e->line;
    char *save = NULL;
    for (char *p = buf; p; p = save) {
        save = strchr(p, ',');
        if (save)
            *save++ = '\0';
        char *name = trim(p);
        if (!*name)
            return cerr(x, e->line, "empty item in variants list '%s'", e->val);
        if (strcmp(name, "all") == 0 || strcmp(name, "cpu") == 0 || strcmp(name, "gpu") == 0) {
            for (int i = 0; i < gl_nvariants; i++) {
                const struct gl_variant *v = &gl_variants[i];
                if (strcmp(v->family, s->family) != 0 || has_variant(s, v->name))
                    continue;
                if (strcmp(name, "all") == 0 || strcmp(name, v->device) == 0)
                    if (add_variant(x, s, v->name, e->line) != 0)
                        return -1;
            }
            continue;
        }
        if (!gl_variant_find(s->family, name)) {
            const char *near = gl_variant_nearest(s->family, name);
            if (near)
                return cerr(x, e->line, "unknown variant '%s' of family %s (did you mean '%s'?)",
                            name, s->family, near);
            char list[512] = "";
            for (int i = 0; i < gl_nvariants; i++)
                if (strcmp(gl_variants[i].family, s->family) == 0)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                             list[0] ? ", " : "", gl_variants[i].name);
            return cerr(x, e->line, "unknown variant '%s' of family %s (variants: %s)", name,
                        s->family, list);
        }
        if (has_variant(s, name))
            return cerr(x, e->line, "variant '%s' is listed twice in section [%s]", name, s->name);
        if (add_variant(x, s, name, e->line) != 0)
            return -1;
    }
    if (s->nvariants == 0)
        return cerr(x, e->line, "no variants of family %s match '%s'", s->family, e->val);
    return 0;
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
    int n = 0, missing = 0;
    char *save = NULL;
    *mask = 0;
    for (char *p = buf; p; p = save) {
        save = strchr(p, ',');
        if (save)
            *save++ = '\0';
        char *name = trim(p);
        if (!*name)
            return cerr(x, e->line, "empty item in zip '%s'", e->val);
        const struct gl_param_def *d = gl_param_by_name(name);
        if (!d) {
            const char *near = gl_param_nearest(name);
            if (near)
                return cerr(x, e->line, "zip: unknown parameter '%s' (did you mean '%s'?)", name,
                            near);
            return cerr(x, e->line, "zip: unknown parameter '%s'", name);
        }
        if (m & GL_PBIT(d->id))
            return cerr(x, e->line, "zip: parameter '%s' is named twice", name);
        m |= GL_PBIT(d->id);
        n++;
        if (!s->values[d->id].set) {
            if (!is_default)
                return cerr(x, e->line, "zip: parameter '%s' is not set in section [%s]", name,
                            s->name);
            missing = 1;
        }
    }
    if (n < 2)
        return cerr(x, e->line, "zip needs at least two parameters, got '%s'", e->val);
    if (missing)
        return 0;
    int len = -1;
    const char *first = NULL;
    for (int i = 0; i < GL_NPARAMS; i++) {
        if (!(m & GL_PBIT(i)))
            continue;
        for (int z = 0; z < s->nzip; z++)
            if (s->zip[z] & GL_PBIT(i))
                return cerr(x, e->line, "zip: parameter '%s' is already zipped on line %d",
                            gl_param_table[i].name, s->zip_line[z]);
        if (len < 0) {
            len = s->values[i].n;
            first = gl_param_table[i].name;
        } else if (s->values[i].n != len) {
            return cerr(x, e->line, "zip: %s has %d values but %s has %d (zipped lists must be "
                        "equally long)", first, len, gl_param_table[i].name, s->values[i].n);
        }
    }
    if (s->nzip == GL_MAX_ZIP)
        return cerr(x, e->line, "more than %d zip lines in section [%s]", GL_MAX_ZIP, s->name);
    s->zip[s->nzip] = m;
    s->zip_line[s->nzip] = e->line;
    s->nzip++;
    *mask = m;
    return 0;
}

static int add_where(struct ctx *x, struct gl_section *s, const struct entry *e)
{
    if (s->nwhere == GL_MAX_WHERE)
        return cerr(x, e->line, "more than %d where lines in section [%s]", GL_MAX_WHERE, s->name);
    s->where[s->nwhere] = strdup(e->val);
    if (!s->where[s->nwhere])
        return cerr(x, e->line, "out of memory");
    s->where_line[s->nwhere++] = e->line;
    return 0;
}

/* Timing policy and metrics text: the section's keys, else the defaults block's. */
static int section_timing(struct ctx *x, const struct block *b, const struct block *top,
                          struct gl_section *s)
{
    const struct entry *e;
    struct gl_timing *t = &s->timing;
    gl_timing_defaults(t);
    if ((e = pick(b, top, "warmup")) && parse_int_key(x, e, 0, 1000000, &t->warmup) != 0)
        return -1;
    const struct entry *emin = pick(b, top, "samples_min");
    if (emin && parse_int_key(x, emin, 1, GL_MAX_SAMPLES, &t->min_samples) != 0)
        return -1;
    const struct entry *emax = pick(b, top, "samples_max");
    if (emax && parse_int_key(x, emax, 1, GL_MAX_SAMPLES, &t->max_samples) != 0)
        return -1;
    if (t->min_samples > t->max_samples)
        return cerr(x, emax ? emax->line : emin->line,
                    "samples_min = %d is more than samples_max = %d", t->min_samples,
                    t->max_samples);
    if ((e = pick(b, top, "noise")) && parse_noise(x, e, &t->max_noise) != 0)
        return -1;
    if ((e = pick(b, top, "time_cap")) && parse_seconds(x, e, &t->max_seconds) != 0)
        return -1;
    if ((e = pick(b, top, "timeout")) && parse_seconds(x, e, &t->timeout_s) != 0)
        return -1;
    if ((e = pick(b, top, "metrics"))) {
        if (strlen(e->val) >= sizeof s->metrics)
            return cerr(x, e->line, "metrics list is longer than %zu characters",
                        sizeof s->metrics - 1);
        snprintf(s->metrics, sizeof s->metrics, "%s", e->val);
        s->metrics_line = e->line;
    } else {
        snprintf(s->metrics, sizeof s->metrics, "default");
    }
    return 0;
}

/* family and variants; *reads is the union of the parameters the variants read. */
static int section_variants(struct ctx *x, const struct block *b, const struct block *top,
                            struct gl_section *s, unsigned *reads)
{
    static const char *const fams[] = { "matmul", "stencil", "vecadd" };
    const struct entry *e = pick(b, top, "family");
    if (!e)
        return cerr(x, b->line, "section [%s] has no 'family' (matmul, stencil or vecadd)",
                    s->name);
    if (!gl_family_known(e->val)) {
        const char *near = NULL;
        int bestd = -1;
        for (int i = 0; i < 3; i++) {
            int d = near_distance(e->val, fams[i]);
            if (d >= 0 && (bestd < 0 || d < bestd)) {
                near = fams[i];
                bestd = d;
            }
        }
        if (near)
            return cerr(x, e->line, "unknown family '%s' (did you mean '%s'?)", e->val, near);
        return cerr(x, e->line, "unknown family '%s' (matmul, stencil or vecadd)", e->val);
    }
    snprintf(s->family, sizeof s->family, "%s", e->val);
    if (!(e = pick(b, top, "variants")))
        return cerr(x, b->line, "section [%s] has no 'variants' (names, or all, cpu, gpu)",
                    s->name);
    if (parse_variants(x, s, e) != 0)
        return -1;
    *reads = 0;
    for (int i = 0; i < s->nvariants; i++)
        *reads |= gl_variant_find(s->family, s->variants[i])->params;
    return 0;
}

/* Parameters: the section's own (an error if no variant reads it), else the
 * default where a variant reads it; then every parameter without a default
 * that a variant reads must be set. */
static int section_params(struct ctx *x, const struct block *b, const struct block *top,
                          unsigned reads, struct top_use *use, struct gl_section *s)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        const struct gl_param_def *d = &gl_param_table[i];
        const struct entry *e;
        if ((reads & GL_PBIT(i)) && find(top, d->name))
            use->param[i] = 1;
        if ((e = find(b, d->name))) {
            if (!(reads & GL_PBIT(i)))
                return cerr(x, e->line, "parameter '%s' is not read by any variant of section "
                            "[%s]", d->name, s->name);
        } else if (!(reads & GL_PBIT(i)) || !(e = find(top, d->name))) {
            continue;
        }
        if (parse_values(x, d, e, &s->values[i]) != 0)
            return -1;
    }
    for (int i = 0; i < s->nvariants; i++) {
        const struct gl_variant *v = gl_variant_find(s->family, s->variants[i]);
        for (int p = 0; p < GL_NPARAMS; p++)
            if ((v->params & no_default & GL_PBIT(p)) && !s->values[p].set)
                return cerr(x, s->variants_line, "variant '%s' reads %s, which section [%s] does "
                            "not set", v->name, gl_param_table[p].name, s->name);
    }
    return 0;
}

/* zip: the section's own lines, else the defaults whose parameters it sets. */
static int section_zip(struct ctx *x, const struct block *b, const struct block *top,
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
static int section_where(struct ctx *x, const struct block *b, const struct block *top,
                         struct top_use *use, struct gl_section *s)
{
    unsigned set = set_mask(s);
    char msg[512];
    for (int i = 0; i < top->n; i++) {
        const struct entry *e = &top->e[i];
        if (strcmp(e->key, "where") != 0)
            continue;
        if (gl_expr_check(e->val, ~0u, msg, sizeof msg) != 0)
            return cerr(x, e->line, "where '%s': %s", e->val, msg);
        if (gl_expr_check(e->val, set, msg, sizeof msg) != 0)
            continue;
        use->where[i] = 1;
        if (add_where(x, s, e) != 0)
            return -1;
    }
    for (int i = 0; i < b->n; i++) {
        const struct entry *e = &b->e[i];
        if (strcmp(e->key, "where") != 0)
            continue;
        if (gl_expr_check(e->val, set, msg, sizeof msg) != 0)
            return cerr(x, e->line, "where '%s': %s", e->val, msg);
        if (add_where(x, s, e) != 0)
            return -1;
    }
    return 0;
}

/* The number of points of the product (each zip group counts once) is capped. */
static int section_size(struct ctx *x, const struct gl_section *s)
{
    double points = 1;
    for (int i = 0; i < GL_NPARAMS; i++) {
        if (!s->values[i].set)
            continue;
        int lead = 1;
        for (int z = 0; z < s->nzip; z++)
            if ((s->zip[z] & GL_PBIT(i)) && (s->zip[z] & (GL_PBIT(i) - 1)))
                lead = 0;   /* a lower-numbered parameter of its group counted it */
        if (lead)
            points *= s->values[i].n;
    }
    if (points > (double)MAX_POINTS)
        return cerr(x, s->line, "section [%s] sweeps %.0f points, more than %ld", s->name, points,
                    MAX_POINTS);
    return 0;
}

static int build_section(struct ctx *x, const struct block *b, const struct block *top,
                         struct top_use *use, struct gl_section *s)
{
    unsigned reads = 0;
    snprintf(s->name, sizeof s->name, "%s", b->name);
    s->line = b->line;
    if (section_variants(x, b, top, s, &reads) != 0 ||
        section_params(x, b, top, reads, use, s) != 0 || section_zip(x, b, top, use, s) != 0 ||
        section_where(x, b, top, use, s) != 0 || section_timing(x, b, top, s) != 0)
        return -1;
    return section_size(x, s);
}

static void free_section(struct gl_section *s)
{
    for (int i = 0; i < GL_NPARAMS; i++)
        free_values(&s->values[i]);
    for (int i = 0; i < s->nwhere; i++)
        free(s->where[i]);
    s->nwhere = 0;
}

void gl_config_free(struct gl_config *c)
{
    for (int i = 0; i < c->nsections; i++)
        free_section(&c->sections[i]);
    free(c->sections);
    free(c->text);
    memset(c, 0, sizeof *c);
}

static void default_study(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".conf") == 0)
        n -= 5;
    snprintf(out, len, "%.*s", (int)n, base);
}

static int parse_blocks(struct ctx *x, struct gl_config *c, struct block *bl, int nb)
{
    const struct block *top = &bl[0];
    struct top_use use;
    memset(&use, 0, sizeof use);
    int rc = -1;
    use.where = calloc((size_t)top->n + 1, sizeof *use.where);
    use.zip = calloc((size_t)top->n + 1, sizeof *use.zip);
    if (!use.where || !use.zip) {
        cerr(x, 0, "out of memory");
        goto out;
    }
    const struct entry *e;
    if ((e = find(top, "study"))) {
        if (strlen(e->val) >= sizeof c->study) {
            cerr(x, e->line, "study name '%s' is longer than %zu characters", e->val,
                 sizeof c->study - 1);
            goto out;
        }
        snprintf(c->study, sizeof c->study, "%s", e->val);
    } else {
        default_study(c->path, c->study, sizeof c->study);
    }
    if ((e = find(top, "description"))) {
        if (strlen(e->val) >= sizeof c->description) {
            cerr(x, e->line, "description is longer than %zu characters",
                 sizeof c->description - 1);
            goto out;
        }
        snprintf(c->description, sizeof c->description, "%s", e->val);
    }
    if (nb < 2) {
        cerr(x, 1, "no [section] in the config: nothing to run");
        goto out;
    }
    c->sections = calloc((size_t)(nb - 1), sizeof *c->sections);
    if (!c->sections) {
        cerr(x, 0, "out of memory");
        goto out;
    }
    for (int i = 1; i < nb; i++) {
        c->nsections = i;
        if (build_section(x, &bl[i], top, &use, &c->sections[i - 1]) != 0)
            goto out;
    }
    /* every default must have applied somewhere */
    for (int i = 0; i < top->n; i++) {
        const struct entry *t = &top->e[i];
        const struct gl_param_def *d = gl_param_by_name(t->key);
        if (d && !use.param[d->id]) {
            cerr(x, t->line, "parameter '%s' is not read by any variant of any section", d->name);
            goto out;
        }
        if (strcmp(t->key, "where") == 0 && !use.where[i]) {
            cerr(x, t->line, "where '%s' applies to no section (none sets every parameter it "
                 "names)", t->val);
            goto out;
        }
        if (strcmp(t->key, "zip") == 0 && !use.zip[i]) {
            int own = 1;
            for (int s = 1; s < nb && own; s++)
                own = find(&bl[s], "zip") != NULL;
            cerr(x, t->line, "zip '%s' applies to no section (%s)", t->val,
                 own ? "every section has its own zip" : "none sets every parameter it names");
            goto out;
        }
    }
    rc = 0;
out:
    free(use.where);
    free(use.zip);
    return rc;
}

int gl_config_parse(const char *path, const char *text, struct gl_config *c, char *err,
                    size_t errlen)
{
    struct ctx x = { path, err, errlen };
    struct block *bl = NULL;
    int nb = 0;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->text = strdup(text);
    char *work = strdup(text);
    if (!c->text || !work) {
        free(work);
        gl_config_free(c);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = read_blocks(&x, work, &bl, &nb);
    if (rc == 0)
        rc = parse_blocks(&x, c, bl, nb);
    free_blocks(bl, nb);
    free(work);
    if (rc != 0)
        gl_config_free(c);
    return rc;
}

int gl_config_load(const char *path, struct gl_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *nb = cap > (1u << 24) ? NULL : realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        snprintf(err, errlen, "%s: cannot read%s", path,
                 buf ? "" : " (over 16 MiB or out of memory)");
        return -1;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        free(buf);
        snprintf(err, errlen, "%s: not a text file (contains a NUL byte)", path);
        return -1;
    }
    int rc = gl_config_parse(path, buf, c, err, errlen);
    free(buf);
    return rc;
}

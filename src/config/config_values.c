/* config_values.c - one config value at a time: a parameter's list of values
 * and ranges (1<<20, 16:64:*2, 8:32:8, choices), and the timing keys (counts,
 * seconds, noise), with the policy a config gets when it says nothing.
 * Must not know about sections or variants: config_parse.c does. */
#include "config_int.h"
#include "expr.h"
#include "nearest.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---------------------------------------------------------------- */

/* An integer constant expression (no parameter named): 0 with *out, or -1
 * with the expression's error in why. */
static int parse_const_expr(const char *s, long *out, char *why, size_t whylen)
{
    static const struct gl_params none;   /* a constant names nothing */
    struct gl_expr_scope sc;
    long long v;
    memset(&sc, 0, sizeof sc);
    sc.params = (1u << GL_NPARAMS) - 1;
    if (gl_expr_check_scope(s, &sc, why, whylen) != 0)
        return -1;
    if (sc.used_params) {
        snprintf(why, whylen, "a value is a number or a constant expression; it names no parameter");
        return -1;
    }
    if (gl_expr_value(s, &none, &v, why, whylen) != 0)
        return -1;
    if (v < LONG_MIN || v > LONG_MAX) {
        snprintf(why, whylen, "out of range");
        return -1;
    }
    *out = (long)v;
    return 0;
}

/* One integer: "123", "-4", "1<<20", or an integer constant expression as a
 * program's main() writes a size: "8*1024*768", "768*4", "(1<<20) + 3" (the
 * expression language of where-lines, src/core/expr.h, naming no parameter: 64-bit
 * integers, division truncates). */
static int parse_atom(const char *s, long *out, char *why, size_t whylen)
{
    why[0] = '\0';
    char *end;
    errno = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return -1;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s)
        return parse_const_expr(s, out, why, whylen);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end[0] == '<' && end[1] == '<') {
        const char *t = end + 2;
        long long sh = strtoll(t, &end, 10);
        if (errno || end == t || sh < 0 || sh > 62 || v < 0 || v > (INT64_MAX >> sh))
            return parse_const_expr(s, out, why, whylen);
        v <<= sh;
        while (*end == ' ' || *end == '\t')
            end++;
    }
    if (*end)
        return parse_const_expr(s, out, why, whylen);
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

/* Does text name a device value (src/core/target.h)? */
static int names_device(const char *text)
{
    static const char *const names[] = { "sm_count", "occupancy", NULL };
    for (int i = 0; names[i]; i++) {
        size_t n = strlen(names[i]);
        for (const char *p = text; (p = strstr(p, names[i])) != NULL; p += n)
            if ((p == text || !cfg_ident_char(p[-1])) && !cfg_ident_char(p[n]))
                return 1;
    }
    return 0;
}

/* After push_int: the text of the value just pushed, kept when it names a
 * device value (vals->dev grows with vals->ints: cap entries). 0 or -1. */
static int keep_device_text(struct gl_values *vals, const char *item, int cap)
{
    if (!names_device(item) && !vals->dev)
        return 0;
    char **d = realloc(vals->dev, (size_t)cap * sizeof *d);
    if (!d)
        return -1;
    if (!vals->dev)
        memset(d, 0, (size_t)cap * sizeof *d);
    else
        for (int i = vals->n - 1; i < cap; i++)
            d[i] = NULL;
    vals->dev = d;
    if (names_device(item) && !(d[vals->n - 1] = strdup(item)))
        return -1;
    return 0;
}

static int check_min(struct ctx *x, int line, const struct gl_param_def *d, long v)
{
    if (v < d->min)
        return cfg_err(x, line, "value %ld for %s is out of range (%s >= %ld)", v, d->name, d->name,
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
        return cfg_err(x, line, "malformed range '%.40s...' (too long)", item);
    snprintf(copy, sizeof copy, "%s", item);
    char *c1 = strchr(copy, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return cfg_err(x, line, "malformed range '%s' (want start:end:step or start:end:*factor)",
                    item);
    *c1 = *c2 = '\0';
    long a, b, step;
    char *st = cfg_trim(c2 + 1);
    int geo = *st == '*';
    char why[160];
    if (parse_atom(copy, &a, why, sizeof why) != 0)
        return cfg_err(x, line, "malformed range '%s' (bad start '%s')", item, cfg_trim(copy));
    if (parse_atom(c1 + 1, &b, why, sizeof why) != 0)
        return cfg_err(x, line, "malformed range '%s' (bad end '%s')", item, cfg_trim(c1 + 1));
    if (parse_atom(geo ? st + 1 : st, &step, why, sizeof why) != 0)
        return cfg_err(x, line, "malformed range '%s' (bad %s '%s')", item, geo ? "factor" : "step",
                    geo ? st + 1 : st);
    if (a > b)
        return cfg_err(x, line, "malformed range '%s' (start > end)", item);
    if (geo && step < 2)
        return cfg_err(x, line, "malformed range '%s' (factor must be >= 2)", item);
    if (!geo && step <= 0)
        return cfg_err(x, line, "malformed range '%s' (step must be > 0)", item);
    if (geo && a < 1)
        return cfg_err(x, line, "malformed range '%s' (a geometric range must start at 1 or more)",
                    item);
    if (!geo && (b - a) / step >= MAX_POINTS)
        return cfg_err(x, line, "range '%s' has more than %ld values", item, MAX_POINTS);
    if (check_min(x, line, d, a) != 0)
        return -1;
    for (long v = a;;) {
        if (push_int(vals, v, cap) != 0)
            return cfg_err(x, line, "out of memory");
        if (geo ? v > b / step : v > b - step)
            break;
        v = geo ? v * step : v + step;
        if (v > b)
            break;
    }
    return 0;
}

/* A parameter's value list: comma-separated items, each a value or a range. */
int cfg_parse_values(struct ctx *x, const struct gl_param_def *d, const struct entry *e,
                        struct gl_values *vals)
{
    char buf[4096];
    int cap = 0;
    if (strlen(e->val) >= sizeof buf)
        return cfg_err(x, e->line, "value list for %s is too long", d->name);
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
        char *item = cfg_trim(p);
        nitems++;
        if (!*item)
            return cfg_err(x, e->line, "empty item %d in the list for %s: '%s'", nitems, d->name,
                        e->val);
        if (d->is_text) {
            int ok = 0;
            for (const char *const *c = d->choices; *c; c++)
                if (strcmp(*c, item) == 0)
                    ok = 1;
            if (!ok) {
                char list[128];
                struct gl_nearest nc;
                gl_nearest_init(&nc, item);
                for (const char *const *c = d->choices; *c; c++)
                    gl_nearest_offer(&nc, *c);
                const char *near = nc.best;
                choices_text(d, list, sizeof list);
                if (near)
                    return cfg_err(x, e->line, "'%s' is not a choice for %s (did you mean '%s'?)",
                                item, d->name, near);
                return cfg_err(x, e->line, "'%s' is not a choice for %s (%s)", item, d->name, list);
            }
            char (*w)[GL_WORD] = realloc(vals->words, (size_t)(vals->n + 1) * sizeof *w);
            if (!w)
                return cfg_err(x, e->line, "out of memory");
            vals->words = w;
            memset(w[vals->n], 0, GL_WORD);
            memcpy(w[vals->n], item, strlen(item));
            vals->n++;
        } else if (strchr(item, ':')) {
            if (parse_range(x, e->line, d, item, vals, &cap) != 0)
                return -1;
        } else {
            long v;
            char why[160];
            if (parse_atom(item, &v, why, sizeof why) != 0)
                return cfg_err(x, e->line, "bad number '%s' for %s%s%s%s", item, d->name,
                               why[0] ? " (" : "", why, why[0] ? ")" : "");
            if (check_min(x, e->line, d, v) != 0)
                return -1;
            if (push_int(vals, v, &cap) != 0 || keep_device_text(vals, item, cap) != 0)
                return cfg_err(x, e->line, "out of memory");
        }
        if (vals->n > MAX_POINTS)
            return cfg_err(x, e->line, "%s has more than %ld values", d->name, MAX_POINTS);
    }
    return 0;
}

void cfg_free_values(struct gl_values *v)
{
    for (int i = 0; v->dev && i < v->n; i++)
        free(v->dev[i]);
    free(v->dev);
    free(v->ints);
    free(v->words);
    memset(v, 0, sizeof *v);
}

/* ---- timing ---------------------------------------------------------------- */

void gl_timing_defaults(struct gl_timing *t)
{
    memset(t, 0, sizeof *t);   /* padding too: timings are compared and sent whole */
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

int cfg_parse_int_key(struct ctx *x, const struct entry *e, long lo, long hi, int *out)
{
    long v;
    char why[160];
    if (parse_atom(e->val, &v, why, sizeof why) != 0)
        return cfg_err(x, e->line, "bad number '%s' for %s%s%s%s", e->val, e->key,
                       why[0] ? " (" : "", why, why[0] ? ")" : "");
    if (v < lo || v > hi)
        return cfg_err(x, e->line, "%s = %ld is out of range (%ld..%ld)", e->key, v, lo, hi);
    *out = (int)v;
    return 0;
}

/* "2s", "500ms", "2": seconds, > 0. */
int cfg_parse_seconds(struct ctx *x, const struct entry *e, double *out)
{
    double v;
    const char *rest;
    if (parse_double(e->val, &v, &rest) != 0)
        return cfg_err(x, e->line, "bad duration '%s' for %s (seconds: 2s, 0.5s or 500ms)", e->val,
                    e->key);
    if (strcmp(rest, "ms") == 0)
        v /= 1000.0;
    else if (*rest && strcmp(rest, "s") != 0)
        return cfg_err(x, e->line, "bad duration '%s' for %s (seconds: 2s, 0.5s or 500ms)", e->val,
                    e->key);
    if (v <= 0)
        return cfg_err(x, e->line, "%s = %s must be more than 0", e->key, e->val);
    *out = v;
    return 0;
}

/* "0.5%" or "0.005": a fraction in [0, 1). */
int cfg_parse_noise(struct ctx *x, const struct entry *e, double *out)
{
    double v;
    const char *rest;
    if (parse_double(e->val, &v, &rest) != 0 || (*rest && strcmp(rest, "%") != 0))
        return cfg_err(x, e->line, "bad noise '%s' (a fraction such as 0.005, or 0.5%%)", e->val);
    if (*rest)
        v /= 100.0;
    if (v < 0 || v >= 1)
        return cfg_err(x, e->line, "noise = %s is out of range (0 to under 100%%)", e->val);
    *out = v;
    return 0;
}

/* One parameter's device-valued items evaluated again. 1 some, 0 none, -1 err. */
static int device_values(const char *path, const char *name, struct gl_values *v, char *err,
                         size_t errlen)
{
    static const struct gl_params none;
    int some = 0;
    for (int i = 0; v->dev && i < v->n; i++) {
        long long x;
        char why[200];
        if (!v->dev[i])
            continue;
        some = 1;
        if (gl_expr_value(v->dev[i], &none, &x, why, sizeof why) != 0 || x < 1 || x > LONG_MAX) {
            snprintf(err, errlen, "%s:%d: %s = %s: %s", path, v->line, name, v->dev[i],
                     why[0] ? why : "must be at least 1 on this GPU");
            return -1;
        }
        v->ints[i] = (long)x;
    }
    return some;
}

int gl_config_device_values(struct gl_config *c, char *err, size_t errlen)
{
    int some = 0;
    for (int si = 0; si < c->nsections; si++) {
        struct gl_section *s = &c->sections[si];
        for (int i = 0; i < GL_NPARAMS; i++) {
            int r = device_values(c->path, gl_param_table[i].name, &s->values[i], err, errlen);
            if (r < 0)
                return -1;
            some |= r;
        }
        for (int u = 0; u < s->nuser; u++) {
            int r = device_values(c->path, s->uname[u], &s->uvalues[u], err, errlen);
            if (r < 0)
                return -1;
            some |= r;
        }
    }
    return some;
}

/* cmd_compare.c - `gpulab compare A B`: did B make it faster than A, and why.
 * Each side is a selection of ok runs (terms: all, session=, study=, family=,
 * variant=, device=, code=, a parameter or a named parameter =, where= SQL;
 * docs/cli.md#compare) in its database (--db once: both; twice: A's, then B's).
 * Points are matched on what identifies them (study, family, variant, device
 * model, every parameter, the named ones) less the dimensions a side names or
 * --ignore drops; per point the ratio of medians B/A with its bootstrap
 * interval, the verdict against the threshold (default: the noise floor the
 * runs measure), the ratio of cycles when the SM clocks are known and the
 * counter changes; then the geometric mean and the count per verdict.
 * Exit: 0, 1 some point is slower beyond the threshold, 2 bad input (nothing
 * written), 3 the saved comparison could not be written.
 * Must not write to a database it reads (they are opened read-only), compute
 * statistics itself (src/core/compare.c) or hold SQL beyond the selection's
 * WHERE terms (src/store/store_select.c). */
#include "commands.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "nearest.h"
#include "params.h"
#include "tabfmt.h"
#include "util.h"

#define MAX_TERMS 32
#define MAX_NAMED 64
#define MAX_TOKS (GL_SEL_NDIMS + GL_MAX_UPARAMS)

/* the results columns the counters come from (in this order) */
static const char *const counter_cols[] = {
    "dram_read_bytes", "dram_write_bytes", "l1_hit_pct", "l2_hit_pct", "achieved_occupancy_pct",
    "smem_excess_ld", "smem_excess_st", "inst_executed", "energy_j",
};
#define NCOUNTER_COLS (int)(sizeof counter_cols / sizeof counter_cols[0])

static const char *const plain_terms[] = { "all", "session", "code", "where" };

struct side {
    char name;                 /* 'A' or 'B' */
    const char *spec;          /* as given */
    const char *db;
    FILE *wf;                  /* the WHERE clause being written */
    char *where;
    size_t wlen;
    int nb;
    struct gl_sel_bind b[2 * MAX_TERMS];
    char *texts[2 * MAX_TERMS];   /* owned texts of b */
    int ntexts;
    unsigned named_dims;       /* bit d: the side names dimension d */
    int nnamed;                /* named parameters the side names */
    char named[MAX_NAMED][GL_UPARAM_NAME];
    gl_store *store;
    int own_store;
    struct gl_selection sel;
};

/* one run of one side, with its point */
struct entry {
    struct gl_sel_run *run;
    int side;
    char *key;
    char *ubuf;                /* the run's uparams, split in place */
    int ntok;
    const char *tname[MAX_TOKS], *tval[MAX_TOKS];
};

struct ignore {
    unsigned dims;
    int nnamed;
    char named[MAX_NAMED][GL_UPARAM_NAME];
};

static int fail2(struct side *s, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "gpulab compare: side %c (%s): ", s->name, s->spec);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 2;
}

static int dim_of(const char *name)
{
    for (int d = 0; d < GL_SEL_NDIMS; d++)
        if (strcasecmp(gl_sel_dim_name(d), name) == 0)
            return d;
    const struct gl_param_def *p = gl_param_by_name(name);
    return p ? GL_SEL_FIXED + (int)p->id : -1;
}

static int is_int_text(const char *v)
{
    const char *p = v;
    if (*p == '-')
        p++;
    if (!*p)
        return 0;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p))
            return 0;
    return 1;
}

static int bind_text(struct side *s, const char *t)
{
    char *c = strdup(t);
    if (!c)
        return -1;
    s->texts[s->ntexts++] = c;
    s->b[s->nb].is_int = 0;
    s->b[s->nb++].t = c;
    return 0;
}

static void bind_int(struct side *s, long long v)
{
    s->b[s->nb].is_int = 1;
    s->b[s->nb++].i = v;
}

/* The named parameters a file knows, for "did you mean" and to tell a named
 * parameter from a typo. */
struct names {
    int n;
    char name[MAX_NAMED][GL_UPARAM_NAME];
};
static void add_name(void *arg, const char *name)
{
    struct names *ns = arg;
    if (ns->n < MAX_NAMED && name)
        snprintf(ns->name[ns->n++], GL_UPARAM_NAME, "%s", name);
}

static int unknown_term(struct side *s, const char *name, const struct names *ns)
{
    struct gl_nearest n;
    gl_nearest_init(&n, name);
    for (size_t i = 0; i < sizeof plain_terms / sizeof plain_terms[0]; i++)
        gl_nearest_offer(&n, plain_terms[i]);
    for (int d = 0; d < GL_SEL_NDIMS; d++)
        gl_nearest_offer(&n, gl_sel_dim_name(d));
    for (int i = 0; i < ns->n; i++)
        gl_nearest_offer(&n, ns->name[i]);
    if (n.best)
        return fail2(s, "unknown term '%s' (did you mean '%s'?)", name, n.best);
    return fail2(s, "unknown term '%s' (terms: all, session=, study=, family=, variant=, "
                    "device=, code=, a parameter such as n= or bs=, a named parameter, where=)%s",
                 name, "");
}

/* One term NAME=VALUE of a side into its WHERE clause. 0 or an exit code. */
static int add_term(struct side *s, const char *name, const char *val, const struct names *ns)
{
    FILE *w = s->wf;
    if (s->nb >= 2 * MAX_TERMS - 2)
        return fail2(s, "too many terms%s%s", "", "");
    if (strcmp(name, "session") == 0) {
        if (is_int_text(val)) {
            fputs(" AND r.session_id = ?", w);
            bind_int(s, atoll(val));
        } else if (strncmp(val, "latest", 6) == 0 &&
                   (val[6] == '\0' || (val[6] == '-' && is_int_text(val + 7)))) {
            fputs(" AND r.session_id = (SELECT session_id FROM (SELECT DISTINCT session_id FROM run "
                  "ORDER BY session_id DESC LIMIT 1 OFFSET ?))", w);
            bind_int(s, val[6] ? atoll(val + 7) : 0);
        } else {
            return fail2(s, "session=%s: a session id, latest or latest-N%s", val, "");
        }
        return 0;
    }
    if (strcmp(name, "code") == 0) {
        size_t n = strlen(val);
        if (n < 4 || strspn(val, "0123456789abcdefABCDEF") != n)
            return fail2(s, "code=%s: the start of a code hash, 4 or more hex digits%s", val, "");
        char pat[80];
        snprintf(pat, sizeof pat, "%.64s%%", val);
        for (char *p = pat; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        fputs(" AND r.code_hash LIKE ?", w);
        return bind_text(s, pat) ? 2 : 0;
    }
    int d = dim_of(name);
    if (d >= 0) {
        s->named_dims |= 1u << d;
        if (*val == '\0')
            return fail2(s, "%s= has no value%s", name, "");
        if (d == 3) {   /* device: model id, cpu | gpu, a name or a glob */
            if (is_int_text(val)) {
                fputs(" AND r.device_id = ?", w);
                bind_int(s, atoll(val));
                return 0;
            }
            if (strcmp(val, "cpu") == 0 || strcmp(val, "gpu") == 0)
                fputs(" AND r.device_kind = ?", w);
            else if (strpbrk(val, "*?["))
                fputs(" AND r.device_name GLOB ?", w);
            else
                fputs(" AND r.device_name = ?", w);
            return bind_text(s, val) ? 2 : 0;
        }
        fprintf(w, " AND r.%s = ?", gl_sel_dim_name(d));
        if (d >= GL_SEL_FIXED && is_int_text(val) &&
            !gl_param_table[d - GL_SEL_FIXED].is_text)
            bind_int(s, atoll(val));
        else if (bind_text(s, val))
            return 2;
        return 0;
    }
    /* a named parameter of users' kernels */
    int known = 0;
    for (int i = 0; i < ns->n; i++)
        known |= strcmp(ns->name[i], name) == 0;
    if (!known)
        return unknown_term(s, name, ns);
    if (!is_int_text(val))
        return fail2(s, "%s=%s: a named parameter's value is an integer", name, val);
    if (s->nnamed < MAX_NAMED)
        snprintf(s->named[s->nnamed++], GL_UPARAM_NAME, "%s", name);
    fputs(" AND EXISTS (SELECT 1 FROM run_param p WHERE p.run_id = r.run_id AND p.name = ? "
          "AND p.value = ?)", w);
    if (bind_text(s, name))
        return 2;
    bind_int(s, atoll(val));
    return 0;
}

/* The side's terms, "t1,t2,...", a where= taking the rest of the text. */
static int parse_side(struct side *s, const struct names *ns)
{
    s->wf = open_memstream(&s->where, &s->wlen);
    if (!s->wf) {
        fprintf(stderr, "gpulab compare: out of memory\n");
        return 2;
    }
    fputs("1", s->wf);
    char *text = strdup(s->spec);
    if (!text) {
        fclose(s->wf);
        s->wf = NULL;
        fprintf(stderr, "gpulab compare: out of memory\n");
        return 2;
    }
    int rc = 0;
    char *p = text;
    if (*p == '\0')
        rc = fail2(s, "empty selection (`all` selects every ok run)%s%s", "", "");
    while (rc == 0 && *p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        if (strncmp(p, "where=", 6) == 0) {
            const char *e = p + 6;
            if (strspn(e, " \t") == strlen(e))
                rc = fail2(s, "where= has no expression%s%s", "", "");
            else
                fprintf(s->wf, " AND (%s\n)", e);
            break;
        }
        char *end = p + strcspn(p, ",");
        char save = *end;
        *end = '\0';
        char *t = p;
        size_t tl = strlen(t);
        while (tl && t[tl - 1] == ' ')
            t[--tl] = '\0';
        char *eq = strchr(t, '=');
        if (!eq) {
            if (strcmp(t, "all") != 0)
                rc = unknown_term(s, t, ns);
        } else {
            *eq = '\0';
            rc = add_term(s, t, eq + 1, ns);
        }
        *end = save;
        p = end;
    }
    free(text);
    if (fclose(s->wf) != 0 && rc == 0) {
        fprintf(stderr, "gpulab compare: out of memory\n");
        rc = 2;
    }
    s->wf = NULL;
    return rc;
}

static void side_free(struct side *s)
{
    for (int i = 0; i < s->ntexts; i++)
        free(s->texts[i]);
    free(s->where);
    gl_selection_free(&s->sel);
    if (s->own_store)
        gl_store_close(s->store);
}

/* ---- points ---------------------------------------------------------------- */

static int dropped(const struct side *sa, const struct side *sb, const struct ignore *ig,
                   int d, const char *named)
{
    if (!named)
        return ((sa->named_dims | sb->named_dims | ig->dims) >> d) & 1;
    for (int i = 0; i < sa->nnamed; i++)
        if (strcmp(sa->named[i], named) == 0)
            return 1;
    for (int i = 0; i < sb->nnamed; i++)
        if (strcmp(sb->named[i], named) == 0)
            return 1;
    for (int i = 0; i < ig->nnamed; i++)
        if (strcmp(ig->named[i], named) == 0)
            return 1;
    return 0;
}

/* The entry's tokens (name, value) and key text. 0 or -1 (out of memory). */
static int make_key(struct entry *e, const struct side *sa, const struct side *sb,
                    const struct ignore *ig)
{
    struct gl_sel_run *r = e->run;
    e->ntok = 0;
    for (int d = 0; d < GL_SEL_NDIMS; d++)
        if (r->dim[d] && !dropped(sa, sb, ig, d, NULL)) {
            e->tname[e->ntok] = gl_sel_dim_name(d);
            e->tval[e->ntok++] = r->dim[d];
        }
    if (r->uparams && *r->uparams) {
        if (!(e->ubuf = strdup(r->uparams)))
            return -1;
        for (char *tok = strtok(e->ubuf, " "); tok && e->ntok < MAX_TOKS; tok = strtok(NULL, " ")) {
            char *eq = strchr(tok, '=');
            if (!eq)
                continue;
            *eq = '\0';
            if (dropped(sa, sb, ig, -1, tok))
                continue;
            e->tname[e->ntok] = tok;
            e->tval[e->ntok++] = eq + 1;
        }
    }
    size_t n = 1;
    for (int i = 0; i < e->ntok; i++)
        n += strlen(e->tname[i]) + strlen(e->tval[i]) + 2;
    if (!(e->key = malloc(n)))
        return -1;
    e->key[0] = '\0';
    for (int i = 0; i < e->ntok; i++) {
        if (i)
            strcat(e->key, " ");
        strcat(e->key, e->tname[i]);
        strcat(e->key, "=");
        strcat(e->key, e->tval[i]);
    }
    return 0;
}

static int cmp_entry(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (b->run->run_id > a->run->run_id) - (b->run->run_id < a->run->run_id);  /* newest first */
}

/* Keep the newest run of each key (sorted entries); returns the count kept. */
static int dedupe(struct entry *e, int n, int *left_out)
{
    int m = 0;
    *left_out = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && strcmp(e[m - 1].key, e[i].key) == 0) {
            (*left_out)++;
            free(e[i].key);
            free(e[i].ubuf);
            continue;
        }
        e[m++] = e[i];
    }
    return m;
}

static const char *tok_value(const struct entry *e, const char *name)
{
    for (int i = 0; i < e->ntok; i++)
        if (strcmp(e->tname[i], name) == 0)
            return e->tval[i];
    return NULL;
}

/* Why no point is in common: the dimensions whose values on one side never
 * occur on the other. */
static void explain_disjoint(const struct entry *ea, int na, const struct entry *eb, int nb)
{
    int said = 0;
    const char *names[MAX_TOKS * 2];
    int nn = 0;
    for (int side = 0; side < 2; side++) {
        const struct entry *e = side ? eb : ea;
        int n = side ? nb : na;
        for (int i = 0; i < n; i++)
            for (int t = 0; t < e[i].ntok; t++) {
                int seen = 0;
                for (int k = 0; k < nn; k++)
                    seen |= strcmp(names[k], e[i].tname[t]) == 0;
                if (!seen && nn < MAX_TOKS * 2)
                    names[nn++] = e[i].tname[t];
            }
    }
    for (int k = 0; k < nn; k++) {
        /* does some value (or its absence) of A occur in B? */
        int common = 0;
        for (int i = 0; i < na && !common; i++) {
            const char *va = tok_value(&ea[i], names[k]);
            for (int j = 0; j < nb && !common; j++) {
                const char *vb = tok_value(&eb[j], names[k]);
                common = (!va && !vb) || (va && vb && strcmp(va, vb) == 0);
            }
        }
        if (common)
            continue;
        fprintf(stderr, "gpulab compare:   %s differs: A has", names[k]);
        for (int s = 0; s < 2; s++) {
            const struct entry *e = s ? eb : ea;
            int n = s ? nb : na, shown = 0;
            if (s)
                fprintf(stderr, "; B has");
            for (int i = 0; i < n && shown < 4; i++) {
                const char *v = tok_value(&e[i], names[k]);
                int dup = 0;
                for (int j = 0; j < i; j++) {
                    const char *w = tok_value(&e[j], names[k]);
                    dup |= (!v && !w) || (v && w && strcmp(v, w) == 0);
                }
                if (dup)
                    continue;
                fprintf(stderr, "%s %s", shown ? "," : "", v ? v : "(none)");
                shown++;
            }
        }
        fprintf(stderr, "\n");
        said++;
    }
    if (said)
        fprintf(stderr, "gpulab compare: name the dimension on both sides (e.g. variant=x and "
                        "variant=y) or leave it out of the match with --ignore NAME\n");
    else
        fprintf(stderr, "gpulab compare:   every dimension has values on both sides, but no "
                        "combination of them is on both\n");
}

/* The label of each point: the tokens whose values are not the same at every point. */
static int make_labels(struct gl_cmp_result *r, struct entry *pa, int np)
{
    for (int p = 0; p < np; p++) {
        const struct entry *e = &pa[p];
        size_t n = 1;
        for (int t = 0; t < e->ntok; t++)
            n += strlen(e->tname[t]) + strlen(e->tval[t]) + 2;
        char *l = malloc(n);
        if (!l)
            return -1;
        l[0] = '\0';
        for (int t = 0; t < e->ntok; t++) {
            int varies = 0;
            for (int q = 0; q < np && !varies; q++) {
                const char *v = tok_value(&pa[q], e->tname[t]);
                varies = !v || strcmp(v, e->tval[t]) != 0;
            }
            if (!varies && np > 1)
                continue;
            if (l[0])
                strcat(l, " ");
            strcat(l, e->tname[t]);
            strcat(l, "=");
            strcat(l, e->tval[t]);
        }
        r->points[p].label = l;
    }
    return 0;
}

static void counters_of(const struct gl_sel_run *run, double *c)
{
    const double *v = run->counter;
    c[GL_CMPC_DRAM] = v[0] + v[1];   /* NaN unless both */
    c[GL_CMPC_L1HIT] = v[2];
    c[GL_CMPC_L2HIT] = v[3];
    c[GL_CMPC_OCC] = v[4];
    c[GL_CMPC_EXCESS] = isnan(v[5]) && isnan(v[6]) ? NAN
                        : (isnan(v[5]) ? 0 : v[5]) + (isnan(v[6]) ? 0 : v[6]);
    c[GL_CMPC_INST] = v[7];
    c[GL_CMPC_ENERGY] = v[8];
}

/* ---- the comparison ---------------------------------------------------------- */

struct order {
    double ratio;
    int idx;
    const char *key;
};
static int cmp_order(const void *x, const void *y)
{
    const struct order *a = x, *b = y;
    if (a->ratio != b->ratio) {
        if (isnan(a->ratio))
            return 1;
        if (isnan(b->ratio))
            return -1;
        return a->ratio < b->ratio ? 1 : -1;   /* largest B/A first */
    }
    return strcmp(a->key, b->key);
}

static void note(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Compute the comparison of the two selected sides into r. 0, 2 (bad input,
 * said), or -1 (out of memory). */
static int compare_sides(struct side *sa, struct side *sb, const struct ignore *ig,
                         const struct gl_compare_opts *o, struct gl_cmp_result *r)
{
    int na = sa->sel.nruns, nb = sb->sel.nruns, rc = -1;
    struct entry *ea = calloc((size_t)na + 1, sizeof *ea), *eb = calloc((size_t)nb + 1, sizeof *eb);
    double *reps = NULL, *reach = NULL;
    struct entry *pa = NULL, *pb = NULL;
    char *notes = NULL;
    size_t notes_len = 0;
    FILE *nf = open_memstream(&notes, &notes_len);
    if (!ea || !eb || !nf)
        goto out;
    for (int i = 0; i < na; i++) {
        ea[i].run = &sa->sel.runs[i];
        if (make_key(&ea[i], sa, sb, ig) != 0)
            goto out;
    }
    for (int i = 0; i < nb; i++) {
        eb[i].run = &sb->sel.runs[i];
        eb[i].side = 1;
        if (make_key(&eb[i], sa, sb, ig) != 0)
            goto out;
    }
    qsort(ea, (size_t)na, sizeof *ea, cmp_entry);
    qsort(eb, (size_t)nb, sizeof *eb, cmp_entry);
    int old_a, old_b;
    int ka = dedupe(ea, na, &old_a), kb = dedupe(eb, nb, &old_b);
    na = ka;
    nb = kb;
    if (sa->sel.contaminated)
        note(nf, "side A: %d runs marked contaminated were left out", sa->sel.contaminated);
    if (sb->sel.contaminated)
        note(nf, "side B: %d runs marked contaminated were left out", sb->sel.contaminated);
    if (old_a)
        note(nf, "side A: %d older runs of points it selects more than once were left out "
                 "(each point's newest run is compared)", old_a);
    if (old_b)
        note(nf, "side B: %d older runs of points it selects more than once were left out "
                 "(each point's newest run is compared)", old_b);

    /* merge */
    pa = calloc((size_t)(na < nb ? na : nb) + 1, sizeof *pa);
    pb = calloc((size_t)(na < nb ? na : nb) + 1, sizeof *pb);
    r->only_a = calloc((size_t)na + 1, sizeof *r->only_a);
    r->only_b = calloc((size_t)nb + 1, sizeof *r->only_b);
    if (!pa || !pb || !r->only_a || !r->only_b)
        goto out;
    int np = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ea[i].key, eb[j].key);
        if (c == 0) {
            pa[np] = ea[i++];
            pb[np++] = eb[j++];
        } else if (c < 0) {
            if (!(r->only_a[r->nonly_a++] = strdup(ea[i++].key)))
                goto out;
        } else {
            if (!(r->only_b[r->nonly_b++] = strdup(eb[j++].key)))
                goto out;
        }
    }
    if (np == 0) {
        fprintf(stderr, "gpulab compare: no point in common: side A (%s) has %d, side B (%s) "
                        "has %d, and none matches\n", sa->spec, na, sb->spec, nb);
        explain_disjoint(ea, na, eb, nb);
        rc = 2;
        goto out;
    }

    r->points = calloc((size_t)np, sizeof *r->points);
    if (!r->points)
        goto out;
    r->npoints = np;
    int R = o->resamples;
    reps = malloc((size_t)np * (size_t)R * sizeof *reps);
    reach = malloc((size_t)np * 2 * sizeof *reach);
    if (!reps || !reach)
        goto out;
    struct gl_cmp_point *tmp = r->points;
    int clocks_apart = 0;
    for (int p = 0; p < np; p++) {
        struct gl_cmp_point *pt = &tmp[p];
        const struct gl_sel_run *ra = pa[p].run, *rb = pb[p].run;
        if (!(pt->key = strdup(pa[p].key)))
            goto out;
        pt->run_a = ra->run_id;
        pt->run_b = rb->run_id;
        pt->na = ra->nsamples;
        pt->nb = rb->nsamples;
        struct gl_rng rng;
        gl_rng_seed(&rng, o->seed, pt->key);
        if (gl_bootstrap_ratio(ra->samples, ra->nsamples, rb->samples, rb->nsamples, R, &rng,
                               reps + (size_t)p * R, &pt->ci) != 0) {
            pt->ci.ratio = pt->ci.lo = pt->ci.hi = NAN;
            snprintf(pt->note, sizeof pt->note, "no samples, or a median of 0");
        }
        pt->med_a = pt->med_b = NAN;
        if (ra->nsamples > 0) {
            double *x = malloc((size_t)ra->nsamples * sizeof *x);
            if (!x)
                goto out;
            memcpy(x, ra->samples, (size_t)ra->nsamples * sizeof *x);
            pt->med_a = gl_median_inplace(x, ra->nsamples);
            free(x);
        }
        if (rb->nsamples > 0) {
            double *x = malloc((size_t)rb->nsamples * sizeof *x);
            if (!x)
                goto out;
            memcpy(x, rb->samples, (size_t)rb->nsamples * sizeof *x);
            pt->med_b = gl_median_inplace(x, rb->nsamples);
            free(x);
        }
        /* the noise floor: each run's halves */
        size_t kl = strlen(pt->key) + 4;
        char *k2 = malloc(kl);
        if (!k2)
            goto out;
        snprintf(k2, kl, "%s #A", pt->key);
        gl_rng_seed(&rng, o->seed, k2);
        reach[2 * p] = gl_split_reach(ra->samples, ra->nsamples, R, &rng);
        snprintf(k2, kl, "%s #B", pt->key);
        gl_rng_seed(&rng, o->seed, k2);
        reach[2 * p + 1] = gl_split_reach(rb->samples, rb->nsamples, R, &rng);
        free(k2);
        pt->clock_a = ra->clock_mhz > 0 ? ra->clock_mhz : NAN;
        pt->clock_b = rb->clock_mhz > 0 ? rb->clock_mhz : NAN;
        pt->clk.ratio = pt->clk.lo = pt->clk.hi = NAN;
        if (!isnan(pt->clock_a) && !isnan(pt->clock_b)) {
            double f = pt->clock_b / pt->clock_a;
            pt->clk.ratio = pt->ci.ratio * f;
            pt->clk.lo = pt->ci.lo * f;
            pt->clk.hi = pt->ci.hi * f;
            clocks_apart += fabs(f - 1.0) > 0.01;
        }
        counters_of(ra, pt->ca);
        counters_of(rb, pt->cb);
    }

    /* the threshold */
    if (o->threshold >= 0) {
        r->threshold = o->threshold;
        snprintf(r->threshold_src, sizeof r->threshold_src, "given (--threshold)");
    } else {
        int m = 0;
        for (int k = 0; k < 2 * np; k++)
            m += !isnan(reach[k]);
        double t = gl_noise_floor(reach, 2 * np);
        if (isnan(t)) {
            r->threshold = GL_CMP_FALLBACK_THRESHOLD;
            snprintf(r->threshold_src, sizeof r->threshold_src,
                     "fallback: no run has %d samples to measure the noise floor",
                     GL_CMP_MIN_SAMPLES);
        } else {
            r->threshold = t;
            snprintf(r->threshold_src, sizeof r->threshold_src,
                     "noise floor: 95th percentile of %d runs' second-half/first-half "
                     "intervals", m);
        }
    }

    /* verdicts, the geometric mean, the order */
    double *vr = malloc((size_t)np * sizeof *vr);
    struct order *ord = malloc((size_t)np * sizeof *ord);
    double *vreps = malloc((size_t)np * (size_t)R * sizeof *vreps);
    if (!vr || !ord || !vreps) {
        free(vr);
        free(ord);
        free(vreps);
        goto out;
    }
    int nv = 0;
    for (int p = 0; p < np; p++) {
        struct gl_cmp_point *pt = &tmp[p];
        int clk = o->by_clock && !isnan(pt->clk.ratio);
        const struct gl_ratio_ci *c = clk ? &pt->clk : &pt->ci;
        pt->verdict = gl_verdict_of(c->lo, c->hi, r->threshold);
        if (pt->na < GL_CMP_MIN_SAMPLES || pt->nb < GL_CMP_MIN_SAMPLES) {
            pt->verdict = GL_UNSURE;
            if (!pt->note[0])
                snprintf(pt->note, sizeof pt->note, "fewer than %d samples", GL_CMP_MIN_SAMPLES);
        }
        r->counts[pt->verdict]++;
        ord[p].ratio = c->ratio;
        ord[p].idx = p;
        ord[p].key = pt->key;
        if (!isnan(c->ratio) && c->ratio > 0) {
            double f = clk ? pt->clock_b / pt->clock_a : 1.0;
            vr[nv] = c->ratio;
            for (int k = 0; k < R; k++)
                vreps[(size_t)nv * R + k] = reps[(size_t)p * R + k] * f;
            nv++;
        }
    }
    r->geo.ratio = r->geo.lo = r->geo.hi = NAN;
    if (nv > 0 && gl_geomean_ci(vr, vreps, nv, R, &r->geo) != 0) {
        free(vr);
        free(ord);
        free(vreps);
        goto out;
    }
    free(vr);
    free(vreps);
    qsort(ord, (size_t)np, sizeof *ord, cmp_order);
    struct gl_cmp_point *sorted = malloc((size_t)np * sizeof *sorted);
    struct entry *spa = malloc((size_t)np * sizeof *spa);
    if (!sorted || !spa) {
        free(sorted);
        free(spa);
        free(ord);
        goto out;
    }
    for (int p = 0; p < np; p++) {
        sorted[p] = tmp[ord[p].idx];
        spa[p] = pa[ord[p].idx];
    }
    free(ord);
    free(tmp);
    r->points = sorted;
    memcpy(pa, spa, (size_t)np * sizeof *pa);
    free(spa);
    if (make_labels(r, pa, np) != 0)
        goto out;
    if (clocks_apart)
        note(nf, "%d point(s) ran at SM clocks more than 1 %% apart: B/A per clock is the ratio of "
                 "cycles (time x SM clock); --clock-normalise bases the verdicts on it",
             clocks_apart);
    if (o->by_clock)
        note(nf, "verdicts on the ratio of cycles where both clocks are known (--clock-normalise)");
    for (int k = 0; k < NCOUNTER_COLS; k++)
        if (sa->sel.present[k] != sb->sel.present[k])
            note(nf, "counter column %s is in side %c's database only", counter_cols[k],
                 sa->sel.present[k] ? 'A' : 'B');
    rc = 0;
out:
    if (nf) {
        if (fclose(nf) != 0 && rc == 0)
            rc = -1;
        size_t l = notes ? strlen(notes) : 0;
        if (l && notes[l - 1] == '\n')
            notes[l - 1] = '\0';
        r->notes = notes;
    }
    for (int k = 0; k < na; k++) {
        free(ea[k].key);
        free(ea[k].ubuf);
    }
    for (int k = 0; k < nb; k++) {
        free(eb[k].key);
        free(eb[k].ubuf);
    }
    free(ea);
    free(eb);
    free(pa);
    free(pb);
    free(reps);
    free(reach);
    return rc;
}

/* ---- output ------------------------------------------------------------------ */

static void fmt_real(char *buf, size_t len, const char *f, double v)
{
    if (isnan(v))
        buf[0] = '\0';
    else
        snprintf(buf, len, f, v);
}

static int any_clock(const struct gl_cmp_result *r)
{
    for (int p = 0; p < r->npoints; p++)
        if (!isnan(r->points[p].clk.ratio) &&
            fabs(r->points[p].clock_b / r->points[p].clock_a - 1.0) > 1e-9)
            return 1;
    return 0;
}

static int add_text(struct gl_table *t, const char *s)
{
    return gl_table_add_text(t, s, strlen(s));
}

static int add_real(struct gl_table *t, double v)
{
    return isnan(v) ? gl_table_add_null(t) : gl_table_add_real(t, v);
}

/* The points table: for people (aligned text, Markdown) or for programs (CSV,
 * every column at full precision). */
static int points_table(const struct gl_cmp_result *r, enum gl_format fmt, struct gl_table *t)
{
    int full = fmt == GL_FMT_CSV || fmt == GL_FMT_TSV || fmt == GL_FMT_JSON;
    int clk = any_clock(r);
    const char *names[64];
    int nc = 0;
    if (full) {
        static const char *const base[] = {
            "rank", "key", "label", "run_a", "run_b", "samples_a", "samples_b", "median_a_ms",
            "median_b_ms", "ratio", "lo", "hi", "clock_a_mhz", "clock_b_mhz", "ratio_clk",
            "lo_clk", "hi_clk", "verdict", "threshold", "note", "why",
        };
        static char cn[GL_CMP_NCOUNTERS * 2][64];
        for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
            names[nc++] = base[i];
        for (int k = 0; k < GL_CMP_NCOUNTERS; k++) {
            snprintf(cn[2 * k], sizeof cn[0], "%s_a", gl_cmp_counters[k].name);
            snprintf(cn[2 * k + 1], sizeof cn[0], "%s_b", gl_cmp_counters[k].name);
            names[nc++] = cn[2 * k];
            names[nc++] = cn[2 * k + 1];
        }
    } else {
        names[nc++] = "point";
        names[nc++] = "A ms";
        names[nc++] = "B ms";
        names[nc++] = "B/A";
        names[nc++] = "95 % CI";
        if (clk)
            names[nc++] = "B/A per clock";
        names[nc++] = "verdict";
        names[nc++] = "counters B vs A";
    }
    if (gl_table_init(t, nc, names) != 0)
        return -1;
    int bad = 0;
    for (int p = 0; p < r->npoints && !bad; p++) {
        const struct gl_cmp_point *pt = &r->points[p];
        char why[512], b1[64], b2[64];
        gl_cmp_why(pt->ca, pt->cb, why, sizeof why);
        if (pt->note[0]) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, "%s%s", l ? "; " : "", pt->note);
        }
        if (full) {
            bad |= gl_table_add_int(t, p + 1);
            bad |= add_text(t, pt->key);
            bad |= add_text(t, pt->label);
            bad |= gl_table_add_int(t, pt->run_a);
            bad |= gl_table_add_int(t, pt->run_b);
            bad |= gl_table_add_int(t, pt->na);
            bad |= gl_table_add_int(t, pt->nb);
            bad |= add_real(t, pt->med_a);
            bad |= add_real(t, pt->med_b);
            bad |= add_real(t, pt->ci.ratio);
            bad |= add_real(t, pt->ci.lo);
            bad |= add_real(t, pt->ci.hi);
            bad |= add_real(t, pt->clock_a);
            bad |= add_real(t, pt->clock_b);
            bad |= add_real(t, pt->clk.ratio);
            bad |= add_real(t, pt->clk.lo);
            bad |= add_real(t, pt->clk.hi);
            bad |= add_text(t, gl_verdict_name(pt->verdict));
            bad |= add_real(t, r->threshold);
            bad |= add_text(t, pt->note);
            gl_cmp_why(pt->ca, pt->cb, why, sizeof why);
            bad |= add_text(t, why);
            for (int k = 0; k < GL_CMP_NCOUNTERS; k++) {
                bad |= add_real(t, pt->ca[k]);
                bad |= add_real(t, pt->cb[k]);
            }
            continue;
        }
        bad |= add_text(t, pt->label);
        fmt_real(b1, sizeof b1, "%.4g", pt->med_a);
        bad |= add_text(t, b1);
        fmt_real(b1, sizeof b1, "%.4g", pt->med_b);
        bad |= add_text(t, b1);
        fmt_real(b1, sizeof b1, "%.4f", pt->ci.ratio);
        bad |= add_text(t, b1);
        b2[0] = '\0';
        if (!isnan(pt->ci.lo))
            snprintf(b2, sizeof b2, "%.4f - %.4f", pt->ci.lo, pt->ci.hi);
        bad |= add_text(t, b2);
        if (clk) {
            b2[0] = '\0';
            if (!isnan(pt->clk.ratio))
                snprintf(b2, sizeof b2, "%.4f (%.0f/%.0f MHz)", pt->clk.ratio, pt->clock_b,
                         pt->clock_a);
            bad |= add_text(t, b2);
        }
        snprintf(b1, sizeof b1, "%s", gl_verdict_name(pt->verdict));
        if (fmt == GL_FMT_MD && (pt->verdict == GL_SLOWER || pt->verdict == GL_FASTER))
            snprintf(b1, sizeof b1, "**%s**", gl_verdict_name(pt->verdict));
        bad |= add_text(t, b1);
        bad |= add_text(t, why);
    }
    if (bad) {
        gl_table_free(t);
        return -1;
    }
    return 0;
}

static void list_keys(FILE *f, const char *what, char **keys, int n, const char *pre)
{
    if (n == 0)
        return;
    fprintf(f, "%s%d point%s only in %s:", pre, n, n == 1 ? "" : "s", what);
    for (int i = 0; i < n && i < 8; i++)
        fprintf(f, "%s %s", i ? ";" : "", keys[i]);
    if (n > 8)
        fprintf(f, "; and %d more", n - 8);
    fputc('\n', f);
}

static void summary(const struct gl_cmp_result *r, FILE *f, int md)
{
    const char *pre = md ? "- " : "";
    fprintf(f, "%sB against A: ratio = median(B) / median(A) of the raw samples; below 1 B is "
               "faster\n", pre);
    fprintf(f, "%sA: %s in %s (%d ok runs)\n", pre, r->a_spec, r->a_db, r->a_runs);
    fprintf(f, "%sB: %s in %s (%d ok runs)\n", pre, r->b_spec, r->b_db, r->b_runs);
    fprintf(f, "%spoints: %d compared, %d only in A, %d only in B\n", pre, r->npoints, r->nonly_a,
            r->nonly_b);
    fprintf(f, "%sthreshold: %.3g %% (%s): same within [1/(1+t), 1+t]\n", pre, r->threshold * 100,
            r->threshold_src);
    if (!isnan(r->geo.ratio))
        fprintf(f, "%sgeometric mean of B/A: %.4f (95 %% CI %.4f - %.4f; percentile bootstrap, "
                   "%d resamples, seed %llu)\n", pre, r->geo.ratio, r->geo.lo, r->geo.hi,
                r->resamples, r->seed);
    fprintf(f, "%sverdicts: %d slower, %d faster, %d same, %d unsure\n", pre,
            r->counts[GL_SLOWER], r->counts[GL_FASTER], r->counts[GL_SAME], r->counts[GL_UNSURE]);
    if (r->notes && *r->notes) {
        const char *p = r->notes;
        while (*p) {
            size_t n = strcspn(p, "\n");
            fprintf(f, "%snote: %.*s\n", pre, (int)n, p);
            p += n;
            if (*p)
                p++;
        }
    }
    list_keys(f, "A", r->only_a, r->nonly_a, pre);
    list_keys(f, "B", r->only_b, r->nonly_b, pre);
}

/* Print r in fmt; the exit code: 1 when a point is slower, else 0; 3 on a write error. */
static int render(const struct gl_cmp_result *r, enum gl_format fmt)
{
    struct gl_table t;
    if (points_table(r, fmt, &t) != 0) {
        fprintf(stderr, "gpulab compare: out of memory\n");
        return 3;
    }
    int rc = 0;
    if (fmt == GL_FMT_CSV || fmt == GL_FMT_TSV || fmt == GL_FMT_JSON) {
        rc = gl_table_print(&t, fmt, stdout);
        summary(r, stderr, 0);
    } else {
        if (fmt == GL_FMT_MD) {
            summary(r, stdout, 1);
            fputc('\n', stdout);
        }
        rc = gl_table_print(&t, fmt, stdout);
        if (fmt != GL_FMT_MD) {
            fputc('\n', stdout);
            summary(r, stdout, 0);
        }
    }
    gl_table_free(&t);
    if (rc != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "gpulab compare: cannot write the output\n");
        return 3;
    }
    return r->counts[GL_SLOWER] > 0 ? 1 : 0;
}

/* ---- the command ------------------------------------------------------------- */

static int open_side(struct side *s, struct side *other)
{
    char err[1400];
    if (other && other->store && strcmp(other->db, s->db) == 0) {
        s->store = other->store;
        return 0;
    }
    if (gl_store_open_readonly(s->db, &s->store, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab compare: side %c: %s\n", s->name, err);
        return 2;
    }
    s->own_store = 1;
    return 0;
}

static int select_side(struct side *s)
{
    char err[1400];
    struct names ns = { 0 };
    if (gl_store_named_param_names(s->store, add_name, &ns) != 0) {
        fprintf(stderr, "gpulab compare: side %c: %s\n", s->name, gl_store_errmsg(s->store));
        return 2;
    }
    int rc = parse_side(s, &ns);
    if (rc)
        return rc;
    if (gl_store_select(s->store, s->where, s->b, s->nb, counter_cols, NCOUNTER_COLS, &s->sel,
                        err, sizeof err) != 0) {
        fprintf(stderr, "gpulab compare: side %c (%s): %s\n", s->name, s->spec, err);
        return 2;
    }
    if (s->sel.nruns == 0) {
        fprintf(stderr, "gpulab compare: side %c (%s) selects no ok runs in %s\n", s->name, s->spec,
                s->db);
        return 2;
    }
    return 0;
}

static int parse_ignore(const char *list, struct ignore *ig)
{
    char *text = strdup(list);
    if (!text)
        return 2;
    int rc = 0;
    for (char *tok = strtok(text, ", "); tok; tok = strtok(NULL, ", ")) {
        int d = dim_of(tok);
        if (d >= 0)
            ig->dims |= 1u << d;
        else if (ig->nnamed < MAX_NAMED)
            snprintf(ig->named[ig->nnamed++], GL_UPARAM_NAME, "%s", tok);
    }
    free(text);
    return rc;
}

int gl_cmd_compare(const struct gl_compare_opts *o)
{
    struct gl_cmp_result r;
    memset(&r, 0, sizeof r);
    if (o->load) {
        char err[1200];
        if (gl_cmpfile_load(o->load, &r, err, sizeof err) != 0) {
            fprintf(stderr, "gpulab compare: %s\n", err);
            return 2;
        }
        int rc = render(&r, o->fmt);
        gl_cmp_result_free(&r);
        return rc;
    }
    struct side sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    sa.name = 'A';
    sb.name = 'B';
    sa.spec = o->a;
    sb.spec = o->b;
    sa.db = o->db_a;
    sb.db = o->db_b;
    if (o->save && (same_file(o->save, sa.db) || same_file(o->save, sb.db))) {
        fprintf(stderr, "gpulab compare: --save %s is a database this comparison reads: a "
                        "comparison never writes to them\n", o->save);
        return 2;
    }
    if (o->save && gl_cmpfile_is(o->save) == 0) {
        fprintf(stderr, "gpulab compare: --save %s exists and is not a saved comparison: not "
                        "replaced\n", o->save);
        return 2;
    }
    struct ignore ig;
    memset(&ig, 0, sizeof ig);
    int rc = o->ignore ? parse_ignore(o->ignore, &ig) : 0;
    if (rc == 0)
        rc = open_side(&sa, NULL);
    if (rc == 0)
        rc = open_side(&sb, &sa);
    if (rc == 0)
        rc = select_side(&sa);
    if (rc == 0)
        rc = select_side(&sb);
    if (rc == 0) {
        char now[40];
        gl_utc_now(now, sizeof now);
        char tool[160];
        snprintf(tool, sizeof tool, "gpulab %s (%s)", GL_VERSION, gl_git_revision());
        r.a_spec = strdup(sa.spec);
        r.b_spec = strdup(sb.spec);
        r.a_db = strdup(sa.db);
        r.b_db = strdup(sb.db);
        r.created_at = strdup(now);
        r.tool = strdup(tool);
        r.a_runs = sa.sel.nruns;
        r.b_runs = sb.sel.nruns;
        r.resamples = o->resamples;
        r.seed = o->seed;
        r.by_clock = o->by_clock;
        if (!r.a_spec || !r.b_spec || !r.a_db || !r.b_db || !r.created_at || !r.tool)
            rc = -1;
        else
            rc = compare_sides(&sa, &sb, &ig, o, &r);
        if (rc < 0) {
            fprintf(stderr, "gpulab compare: out of memory\n");
            rc = 2;
        }
    }
    side_free(&sb);
    side_free(&sa);
    if (rc == 0 && o->save) {
        char err[1400];
        if (gl_cmpfile_save(o->save, &r, err, sizeof err) != 0) {
            fprintf(stderr, "gpulab compare: %s\n", err);
            rc = 3;
        }
    }
    if (rc == 0)
        rc = render(&r, o->fmt);
    gl_cmp_result_free(&r);
    return rc;
}

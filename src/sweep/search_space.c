/* search_space.c - see search_space.h. Must not know the store or run anything. */
#include "search_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The axes in expand.c's order (gl_section_axes), each named after its first
 * parameter, then the variant's when there are several. */
static void build_axes(struct gl_space *sp)
{
    const struct gl_section *s = sp->s;
    struct gl_axis ax[GL_MAX_AXES];
    sp->naxes = gl_section_axes(s, ax);
    for (int a = 0; a < sp->naxes; a++) {
        const char *name;
        sp->bits[a] = ax[a].params;
        sp->len[a] = ax[a].len;
        (void)gl_section_values(s, __builtin_ctz(ax[a].params), &name);
        snprintf(sp->name[a], sizeof sp->name[a], "%s", name);
    }
    sp->variant_axis = -1;
    if (s->nvariants > 1) {
        int a = sp->naxes++;
        sp->variant_axis = a;
        sp->bits[a] = 0;
        sp->len[a] = s->nvariants;
        snprintf(sp->name[a], sizeof sp->name[a], "variant");
    }
}

/* The index of parameter bit i's value in p among its values; -1 unset. */
static int value_index(const struct gl_section *s, int i, const struct gl_params *p)
{
    const struct gl_values *v = gl_section_values(s, i, NULL);
    if (i >= GL_NPARAMS) {
        const struct gl_uparam *u = gl_params_user_find(p, s->uname[i - GL_NPARAMS]);
        if (!u)
            return -1;
        for (int k = 0; k < v->n; k++)
            if (v->ints[k] == u->v)
                return k;
        return -1;
    }
    if (!gl_params_is_set(p, (enum gl_param_id)i))
        return -1;
    for (int k = 0; k < v->n; k++) {
        if (gl_param_table[i].is_text ? strcmp(v->words[k], gl_params_get_text(p, (enum gl_param_id)i)) == 0
                                      : v->ints[k] == gl_params_get(p, (enum gl_param_id)i))
            return k;
    }
    return -1;
}

void gl_space_coords(const struct gl_space *sp, int ji, int *coords)
{
    const struct gl_job *j = &sp->e->jobs[ji];
    memset(coords, 0, GL_SEARCH_AXES * sizeof *coords);
    for (int a = 0; a < sp->naxes; a++) {
        if (a == sp->variant_axis) {
            for (int vi = 0; vi < sp->s->nvariants; vi++)
                if (gl_section_variant(sp->s, vi) == j->v)
                    coords[a] = vi;
            continue;
        }
        for (int i = 0; i < GL_NPARAMS + sp->s->nuser; i++) {
            if (!(sp->bits[a] & (1u << i)))
                continue;
            int k = value_index(sp->s, i, &j->p);
            if (k >= 0) {
                coords[a] = k;
                break;
            }
        }
    }
}

static long long code_of(const struct gl_space *sp, const int *c)
{
    long long k = 0;
    for (int a = 0; a < sp->naxes; a++)
        k += (long long)c[a] * sp->stride[a];
    return k;
}

/* Axes a point's variant does not read are 0. */
static long long norm_code(const struct gl_space *sp, const int *c)
{
    int v = sp->variant_axis >= 0 ? c[sp->variant_axis] : 0;
    int n[GL_SEARCH_AXES];
    for (int a = 0; a < sp->naxes; a++) {
        if (c[a] < 0 || c[a] >= sp->len[a])
            return -1;
        n[a] = (sp->vreads[v] >> a) & 1 ? c[a] : 0;
    }
    return code_of(sp, n);
}

int gl_space_job(const struct gl_space *sp, const int *coords)
{
    long long k = norm_code(sp, coords);
    long lo = 0, hi = sp->njobs;
    if (k < 0)
        return -1;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (sp->code[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sp->njobs && sp->code[lo] == k ? sp->code_job[lo] : -1;
}

static void view_feasible_at(void *ctx, long k, int *coords)
{
    const struct gl_space *sp = ctx;
    gl_space_coords(sp, sp->feasible[k], coords);
}

static int view_feasible(void *ctx, const int *coords)
{
    struct gl_space *sp = ctx;
    int ji = gl_space_job(sp, coords);
    if (ji < 0)
        return 0;
    if (sp->e->jobs[ji].skip[0]) {
        if (!sp->met[ji]) {
            sp->met[ji] = 1;
            sp->nmet++;
        }
        return 0;
    }
    return 1;
}

struct pair {
    long long code;
    int job;
};

static int pair_cmp(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return x->code < y->code ? -1 : x->code > y->code;
}

int gl_space_build(struct gl_space *sp, const struct gl_config *c, int si,
                   const struct gl_expansion *e)
{
    memset(sp, 0, sizeof *sp);
    sp->s = &c->sections[si];
    sp->e = e;
    sp->si = si;
    build_axes(sp);
    long long st = 1;
    for (int a = 0; a < sp->naxes; a++) {
        sp->stride[a] = st;
        st *= sp->len[a];
    }
    sp->product = (long)st;
    for (int ji = 0; ji < e->njobs; ji++)
        sp->njobs += e->jobs[ji].section == si;
    long n = sp->njobs > 0 ? sp->njobs : 1;
    struct pair *pr = malloc((size_t)n * sizeof *pr);
    sp->job = malloc((size_t)n * sizeof *sp->job);
    sp->code = malloc((size_t)n * sizeof *sp->code);
    sp->code_job = malloc((size_t)n * sizeof *sp->code_job);
    sp->feasible = malloc((size_t)n * sizeof *sp->feasible);
    sp->met = calloc((size_t)(e->njobs > 0 ? e->njobs : 1), 1);
    if (!pr || !sp->job || !sp->code || !sp->code_job || !sp->feasible || !sp->met) {
        free(pr);
        gl_space_free(sp);
        return -1;
    }
    long k = 0;
    int coords[GL_SEARCH_AXES];
    for (int ji = 0; ji < e->njobs; ji++) {
        const struct gl_job *j = &e->jobs[ji];
        if (j->section != si)
            continue;
        sp->job[k++] = ji;
        /* an axis a variant reads: some job of it has the parameter set */
        gl_space_coords(sp, ji, coords);
        int v = sp->variant_axis >= 0 ? coords[sp->variant_axis] : 0;
        for (int a = 0; a < sp->naxes; a++) {
            if (a == sp->variant_axis) {
                sp->vreads[v] |= 1ull << a;
                continue;
            }
            for (int i = 0; i < GL_NPARAMS + sp->s->nuser; i++)
                if ((sp->bits[a] & (1u << i)) && value_index(sp->s, i, &j->p) >= 0)
                    sp->vreads[v] |= 1ull << a;
        }
        if (j->skip[0])
            sp->nrejected++;
        else
            sp->feasible[sp->nfeasible++] = ji;
    }
    for (long i = 0; i < sp->njobs; i++) {
        gl_space_coords(sp, sp->job[i], coords);
        pr[i].code = norm_code(sp, coords);
        pr[i].job = sp->job[i];
    }
    qsort(pr, (size_t)sp->njobs, sizeof *pr, pair_cmp);
    for (long i = 0; i < sp->njobs; i++) {
        sp->code[i] = pr[i].code;
        sp->code_job[i] = pr[i].job;
    }
    free(pr);
    sp->view.naxes = sp->naxes;
    memcpy(sp->view.len, sp->len, sizeof sp->len);
    sp->view.nfeasible = sp->nfeasible;
    sp->view.feasible_at = view_feasible_at;
    sp->view.feasible = view_feasible;
    sp->view.ctx = sp;
    return 0;
}

void gl_space_describe(const struct gl_space *sp, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int a = 0; a < sp->naxes && o < len; a++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s %d", a ? ", " : "", sp->name[a], sp->len[a]);
}

void gl_space_free(struct gl_space *sp)
{
    free(sp->job);
    free(sp->code);
    free(sp->code_job);
    free(sp->feasible);
    free(sp->met);
    memset(sp, 0, sizeof *sp);
}

/* expand.c - turn a parsed config into the jobs of a sweep (see gl_expand in
 * config.h): per section, the cartesian product of the parameter values (zip
 * groups advance together; the first parameter in table order varies slowest),
 * filtered by the section's where-expressions on the section's own values, then
 * per variant completed with defaults (a point that asks for every core says so
 * in threads_all, for the shard key) and masked to what it reads, de-duplicated,
 * and check()ed against the device. A kernel section's named parameters are axes
 * like the built-in ones (after them) and every point carries them in p.user.
 * Job order: sections; in each, variants as listed, each variant's points in
 * product order - except a kernel section with a C reference, whose points
 * come in product order with every variant of a point after the other (its
 * expected outputs are cached per point: points_outer).
 * Must not parse files, run anything or touch the database. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOBS 1000000

static int set_err(const struct gl_config *c, int line, char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s:%d: %s", c->path, line, msg);
    return -1;
}

int gl_section_axes(const struct gl_section *s, struct gl_axis *ax)
{
    int n = 0;
    unsigned done = 0;
    for (int i = 0; i < GL_NPARAMS + s->nuser; i++) {
        if (!gl_section_values(s, i, NULL)->set || (done & (1u << i)))
            continue;
        unsigned group = 1u << i;
        for (int z = 0; z < s->nzip; z++)
            if (s->zip[z] & (1u << i))
                group = s->zip[z];
        ax[n].params = group;
        ax[n].len = gl_section_values(s, i, NULL)->n;
        done |= group;
        n++;
    }
    return n;
}

/* The section's values at product index idx (last axis fastest). */
static void point_at(const struct gl_section *s, const struct gl_axis *ax, int nax, long idx,
                     struct gl_params *p)
{
    gl_params_init(p);
    for (int a = nax - 1; a >= 0; a--) {
        int k = (int)(idx % ax[a].len);
        idx /= ax[a].len;
        for (int i = 0; i < GL_NPARAMS + s->nuser; i++) {
            if (!(ax[a].params & (1u << i)))
                continue;
            const struct gl_values *v = gl_section_values(s, i, NULL);
            if (i >= GL_NPARAMS)
                gl_params_user_set(p, s->uname[i - GL_NPARAMS], v->ints[k]);
            else if (gl_param_table[i].is_text)
                gl_params_set_text(p, (enum gl_param_id)i, v->words[k]);
            else
                gl_params_set(p, (enum gl_param_id)i, v->ints[k]);
        }
    }
}

static uint64_t hash_params(const struct gl_params *p)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *p; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The point, before gl_variant_complete turns threads = 0 (or unset: its
 * default is 0) into this machine's core count, asks for every core. */
static int asks_all_cores(const struct gl_variant *v, const struct gl_params *p)
{
    struct gl_params asked = *p;
    gl_params_complete(&asked, v->params);
    return gl_params_is_set(&asked, GL_P_THREADS) && asked.threads == 0;
}

static int add_reject(struct gl_expansion *e, int section, const char *variant, const char *where)
{
    char reason[GL_REASON_MAX];
    snprintf(reason, sizeof reason, "where: %s", where);
    for (int i = e->nrejects - 1; i >= 0; i--) {
        struct gl_reject *r = &e->rejects[i];
        if (r->section != section)
            break;   /* rejects are appended section by section */
        if (strcmp(r->variant, variant) == 0 && strcmp(r->reason, reason) == 0) {
            r->count++;
            return 0;
        }
    }
    struct gl_reject *nr = realloc(e->rejects, (size_t)(e->nrejects + 1) * sizeof *nr);
    if (!nr)
        return -1;
    e->rejects = nr;
    struct gl_reject *r = &nr[e->nrejects++];
    memset(r, 0, sizeof *r);
    r->section = section;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    r->count = 1;
    return 0;
}

static int add_job(struct gl_expansion *e, int *cap, const struct gl_job *j)
{
    if (e->njobs == *cap) {
        int nc = *cap ? 2 * *cap : 256;
        struct gl_job *nj = realloc(e->jobs, (size_t)nc * sizeof *nj);
        if (!nj)
            return -1;
        e->jobs = nj;
        *cap = nc;
    }
    e->jobs[e->njobs++] = *j;
    return 0;
}

/* Index of the first where that rejects each point (-1 = kept). */
static int filter_points(const struct gl_config *c, const struct gl_section *s,
                         const struct gl_axis *ax, int nax, long npoints, int *fails, char *err,
                         size_t errlen)
{
    for (long i = 0; i < npoints; i++) {
        struct gl_params p;
        fails[i] = -1;
        if (s->nwhere == 0)
            continue;
        point_at(s, ax, nax, i, &p);
        for (int w = 0; w < s->nwhere; w++) {
            char msg[512], at[256], full[1024];
            int r = gl_expr_eval(s->where[w], &p, msg, sizeof msg);
            if (r < 0) {
                gl_params_format(&p, at, sizeof at);
                snprintf(full, sizeof full, "where '%.200s': %s (at %s)", s->where[w], msg, at);
                return set_err(c, s->where_line[w], err, errlen, full);
            }
            if (r == 0) {
                fails[i] = w;
                break;
            }
        }
    }
    return 0;
}

/* Points outer, variants inner for a kernel section verified against a C
 * reference: its expected outputs are computed once per point (more exactly,
 * per key: experiments/cref.h) and kept in a cache of one or two entries in
 * the worker (gpu/harness_expected.cu), which only sees them again if the
 * variants of a point run one after the other. Everywhere else variants are
 * outer (a variant's points together). */
static int points_outer(const struct gl_section *s)
{
    return s->kernel && s->kernel->verify_c_func[0];
}

static int expand_section(const struct gl_config *c, int si, const struct gl_device *gpu,
                          const char *only, struct gl_expansion *e, int *cap, char *err,
                          size_t errlen)
{
    const struct gl_section *s = &c->sections[si];
    struct gl_axis ax[GL_MAX_AXES];
    int nax = gl_section_axes(s, ax);
    long npoints = 1;
    for (int a = 0; a < nax; a++)
        npoints *= ax[a].len;   /* the parser capped this at 1e6 */
    int *fails = malloc((size_t)npoints * sizeof *fails);
    size_t njobs_max = (size_t)npoints * (size_t)(s->nvariants > 0 ? s->nvariants : 1), nslots = 16;
    if (njobs_max > MAX_JOBS + 1)   /* more stops the expansion */
        njobs_max = MAX_JOBS + 1;
    while (nslots < 2 * njobs_max)
        nslots *= 2;
    int *slots = calloc(nslots, sizeof *slots);   /* job index + 1, 0 = empty */
    int rc = -1, outer = points_outer(s);
    const struct gl_variant *vs[GL_MAX_VARIANTS];
    if (!fails || !slots) {
        set_err(c, s->line, err, errlen, "out of memory expanding the sweep");
        goto out;
    }
    if (filter_points(c, s, ax, nax, npoints, fails, err, errlen) != 0)
        goto out;
    for (int vi = 0; vi < s->nvariants; vi++) {
        if (!(vs[vi] = gl_section_variant(s, vi))) {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown variant '%s' of family %s", s->variants[vi],
                     s->family);
            set_err(c, s->variants_line, err, errlen, msg);
            goto out;
        }
    }
    /* variant vi at point i, in either order: step k of nvariants * npoints */
    long nsteps = (long)s->nvariants * npoints;
    for (long step = 0; step < nsteps; step++) {
        int vi = (int)(outer ? step % s->nvariants : step / npoints);
        long i = outer ? step / s->nvariants : step % npoints;
        const struct gl_variant *v = vs[vi];
        if (only && strcmp(only, v->name) != 0)
            continue;
        if (fails[i] >= 0) {
            if (add_reject(e, si, v->name, s->where[fails[i]]) != 0) {
                set_err(c, s->line, err, errlen, "out of memory");
                goto out;
            }
            continue;
        }
        struct gl_job j;
        memset(&j, 0, sizeof j);
        j.section = si;
        j.v = v;
        j.t = s->timing;
        if (!s->time_cap_given && strcmp(v->device, "cpu") == 0)
            j.t.max_seconds = GL_TIME_CAP_CPU;
        j.metrics = s->metrics;
        j.study = c->study;
        point_at(s, ax, nax, i, &j.p);
        j.threads_all = asks_all_cores(v, &j.p);
        j.searched = s->search.strategy != GL_SEARCH_EXHAUSTIVE;
        gl_variant_complete(v, &j.p);
        /* a variant's points that its parameters make equal are one job */
        size_t h = (size_t)(hash_params(&j.p) ^ ((uint64_t)vi * 0x9E3779B97F4A7C15ull)) &
                   (nslots - 1);
        int dup = 0;
        while (slots[h]) {
            const struct gl_job *o = &e->jobs[slots[h] - 1];
            if (o->v == v && memcmp(&o->p, &j.p, sizeof j.p) == 0) {
                dup = 1;
                break;
            }
            h = (h + 1) & (nslots - 1);
        }
        if (dup) {
            e->nduplicates++;
            continue;
        }
        if (v->check) {
            char buf[GL_REASON_MAX];
            const char *why = v->check(v, &j.p, gpu, buf, sizeof buf);
            if (why)
                snprintf(j.skip, sizeof j.skip, "%s", why);
        }
        if (e->njobs >= MAX_JOBS) {
            char msg[128];
            snprintf(msg, sizeof msg, "the sweep has more than %d jobs", MAX_JOBS);
            set_err(c, s->line, err, errlen, msg);
            goto out;
        }
        if (add_job(e, cap, &j) != 0) {
            set_err(c, s->line, err, errlen, "out of memory");
            goto out;
        }
        slots[h] = e->njobs;
    }
    rc = 0;
out:
    free(fails);
    free(slots);
    return rc;
}

int gl_expand(const struct gl_config *c, const struct gl_device *gpu, const char *only,
              struct gl_expansion *out, char *err, size_t errlen)
{
    int cap = 0;
    memset(out, 0, sizeof *out);
    for (int si = 0; si < c->nsections; si++) {
        if (expand_section(c, si, gpu, only, out, &cap, err, errlen) != 0) {
            gl_expansion_free(out);
            return -1;
        }
    }
    return 0;
}

void gl_expansion_free(struct gl_expansion *e)
{
    free(e->jobs);
    free(e->rejects);
    memset(e, 0, sizeof *e);
}

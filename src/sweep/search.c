/* search.c - see search.h. Must not print runs' results or take device locks. */
#include "search.h"
#include "search_plan.h"
#include "interrupt.h"
#include "search_space.h"
#include "search_strategy.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AX GL_SEARCH_AXES
#define IDLE_MAX 1000   /* asks in a row with nothing new: the strategy has seen its space */

/* The point's parameters, "M=9 P=4" (the variant's name first when several). */
static void point_text(const struct gl_expansion *e, int ji, const struct gl_section *s,
                       char *buf, size_t len)
{
    char params[256];
    gl_params_format(&e->jobs[ji].p, params, sizeof params);
    if (s->nvariants > 1)
        snprintf(buf, len, "%s %s", e->jobs[ji].v->name, params);
    else
        snprintf(buf, len, "%s", params);
}

/* A point's objective as the search minimises it: +inf when it has none. */
static double objective(const struct gl_search *g, const struct gl_search_point *pt)
{
    if (strcmp(pt->status, "ok") != 0 || !(pt->value == pt->value))
        return INFINITY;
    return g->maximize ? -pt->value : pt->value;
}

struct search_run {
    struct gl_run_loop *rl;
    const struct gl_section *s;
    const struct gl_search *g;
    const struct gl_expansion *e;
    struct gl_space sp;
    double *val;             /* per job of the config: its value once known */
    unsigned char *known;    /* per job: 1 evaluated in this search, 2 in the batch to run */
    long evals, replayed, ran, budget;
    double seconds;
    double best;
    int best_job;
};

/* Job ji's stored point (a replayed evaluation, or one just run). 1 found, 0
 * none, -1 a storage error (said). */
static int read_point(struct search_run *r, int ji, struct gl_search_point *pt)
{
    struct gl_run_key k;
    gl_sweep_key(r->rl->sw, &r->e->jobs[ji], &k);
    int f = gl_store_search_point(r->rl->store, &k, r->g->objective, pt);
    if (f < 0) {
        gl_run_storage_message(r->rl, " (reading a searched point)");
        r->rl->storage_error++;
    }
    return f;
}

static void evaluated(struct search_run *r, int ji, double v, double seconds)
{
    r->val[ji] = v;
    r->known[ji] = 1;
    r->evals++;
    r->seconds += seconds;
    if (v < r->best) {
        r->best = v;
        r->best_job = ji;
    }
}

/* One ask of the strategy, its points evaluated and told. 1 go on, 0 the
 * strategy has nothing more, -1 stop the sweep. *fresh: points new to the
 * search. */
static int step(struct search_run *r, struct gl_strat *st, int cap, int *fresh)
{
    static int coords[GL_SEARCH_BATCH * AX];
    int jid[GL_SEARCH_BATCH], torun[GL_SEARCH_BATCH], nrun = 0;
    long before = r->evals;
    long left = r->budget - r->evals;
    int max = left < cap ? (int)left : cap;
    int k = gl_strategy_ask(st, coords, max);
    *fresh = 0;
    if (k <= 0)
        return 0;
    for (int i = 0; i < k; i++) {
        int ji = gl_space_job(&r->sp, &coords[i * AX]);
        jid[i] = -1;
        if (ji < 0 || r->e->jobs[ji].skip[0]) {
            if (ji >= 0 && !r->sp.met[ji]) {
                r->sp.met[ji] = 1;
                r->sp.nmet++;
            }
            continue;   /* not launchable: costs nothing */
        }
        jid[i] = ji;
        if (r->known[ji])
            continue;
        struct gl_search_point pt;
        int f = r->rl->sw->force ? 0 : read_point(r, ji, &pt);
        if (f < 0)
            return -1;
        if (f == 1) {
            evaluated(r, ji, objective(r->g, &pt), pt.seconds);
            r->replayed++;
            continue;
        }
        r->known[ji] = 2;
        torun[nrun++] = ji;
    }
    if (nrun > 0) {
        /* the points' kernels in parallel, not one by one in the worker (a failure
         * here costs nothing: the worker compiles what is missing) */
        (void)gl_sweep_compile_ahead(r->rl->sw, r->rl->ci, torun, nrun);
        if (gl_run_jobs(r->rl, torun, nrun) != 0)
            return -1;
        for (int i = 0; i < nrun; i++) {
            struct gl_search_point pt;
            int f = read_point(r, torun[i], &pt);
            if (f < 0)
                return -1;
            /* not stored (another process holds it): a failed evaluation */
            evaluated(r, torun[i], f == 1 ? objective(r->g, &pt) : INFINITY,
                      f == 1 ? pt.seconds : 0);
            r->ran++;
        }
    }
    for (int i = 0; i < k; i++)
        gl_strategy_tell(st, i, jid[i] < 0 ? NAN : r->val[jid[i]]);
    *fresh = (int)(r->evals - before);
    return 1;
}

static void summary(struct search_run *r, int si)
{
    char line[1400], at[320] = "", val[64] = "none";
    const struct gl_search *g = r->g;
    if (r->best_job >= 0) {
        point_text(r->e, r->best_job, r->s, at, sizeof at);
        snprintf(val, sizeof val, "%.6g", g->maximize ? -r->best : r->best);
    }
    snprintf(line, sizeof line,
             "gpulab: search [%s] (%s, search_seed %llu): %ld evaluation%s (%ld ran, %ld from "
             "stored runs) in %.1f s of runs; best %s%s = %s%s%s; %ld point%s met rejected "
             "by check (not run)",
             r->s->name, gl_strategy_names[g->strategy], (unsigned long long)g->seed, r->evals,
             r->evals == 1 ? "" : "s", r->ran, r->replayed, r->seconds, g->maximize ? "-" : "",
             g->objective, val, at[0] ? " at " : "", at, r->sp.nmet, r->sp.nmet == 1 ? "" : "s");
    (void)si;
    gl_progress_note(&r->rl->pg, line);
}

int gl_search_section(struct gl_run_loop *rl, int si)
{
    struct gl_sweep *sw = rl->sw;
    struct search_run r;
    memset(&r, 0, sizeof r);
    r.rl = rl;
    r.s = &rl->c->sections[si];
    r.g = &r.s->search;
    r.e = &sw->exps[rl->ci];
    r.best = INFINITY;
    r.best_job = -1;
    char note[400];
    if (sw->shard.count > 0 && sw->shard.index != 0) {
        snprintf(note, sizeof note, "gpulab: search [%s]: run by shard 0/%d (a search does not "
                 "split)", r.s->name, sw->shard.count);
        gl_progress_note(&rl->pg, note);
        return 0;
    }
    if (gl_space_build(&r.sp, rl->c, si, r.e) != 0) {
        gl_progress_note(&rl->pg, "gpulab: out of memory");
        rl->worker_error = 1;
        return -1;
    }
    int gpu = 0;
    for (long i = 0; i < r.sp.nfeasible && !gpu; i++)
        gpu = strcmp(r.e->jobs[r.sp.feasible[i]].v->device, "gpu") == 0;
    if (r.sp.nfeasible == 0 || (gpu && !sw->gpu_ok)) {
        snprintf(note, sizeof note, "gpulab: search [%s]: not run: %s", r.s->name,
                 r.sp.nfeasible == 0 ? "no launchable point" : sw->gpu_why);
        gl_progress_note(&rl->pg, note);
        gl_space_free(&r.sp);
        return 0;
    }
    r.budget = gl_search_budget_evals(r.g, r.sp.nfeasible);
    if (r.budget > r.sp.nfeasible)
        r.budget = r.sp.nfeasible;
    r.val = malloc((size_t)(r.e->njobs > 0 ? r.e->njobs : 1) * sizeof *r.val);
    r.known = calloc((size_t)(r.e->njobs > 0 ? r.e->njobs : 1), 1);
    struct gl_strat *st = gl_strategy_new(r.g->strategy, &r.sp.view, r.g->seed,
                                             r.g->budget_seconds > 0 ? 0 : r.budget);
    if (!r.val || !r.known || !st) {
        free(r.val);
        free(r.known);
        gl_strategy_free(st);
        gl_space_free(&r.sp);
        gl_progress_note(&rl->pg, "gpulab: out of memory");
        rl->worker_error = 1;
        return -1;
    }
    /* the search runs whole in this process, whatever the shards */
    struct gl_shard shard = sw->shard;
    sw->shard.count = 0;
    int cap = r.g->strategy == GL_SEARCH_RANDOM ? 16 : GL_SEARCH_BATCH, rc = 0, idle = 0;
    while (r.evals < r.budget) {
        if (r.g->budget_seconds > 0) {
            if (r.seconds >= r.g->budget_seconds)
                break;
            gl_strategy_progress(st, r.seconds / r.g->budget_seconds);
        }
        if (gl_interrupt_signal()) {
            rl->interrupted = 1;
            rc = -1;
            break;
        }
        int fresh = 0, s = step(&r, st, cap, &fresh);
        if (s < 0)
            rc = -1;
        if (s <= 0)
            break;
        idle = fresh ? 0 : idle + 1;
        if (idle >= IDLE_MAX)
            break;
    }
    sw->shard = shard;
    if (rc == 0)
        summary(&r, si);
    free(r.val);
    free(r.known);
    gl_strategy_free(st);
    gl_space_free(&r.sp);
    return rc;
}

void gl_search_plan(struct gl_sweep *sw, gl_store *store, int ci, int si, FILE *out)
{
    const struct gl_config *c = &sw->configs[ci];
    const struct gl_section *s = &c->sections[si];
    const struct gl_search *g = &s->search;
    struct gl_space sp;
    if (gl_space_build(&sp, c, si, &sw->exps[ci]) != 0) {
        fprintf(out, "    search: out of memory\n");
        return;
    }
    char axes[512];
    gl_space_describe(&sp, axes, sizeof axes);
    long dropped = 0;
    for (int ri = 0; ri < sw->exps[ci].nrejects; ri++)
        if (sw->exps[ci].rejects[ri].section == si)
            dropped += sw->exps[ci].rejects[ri].count;
    fprintf(out, "    search: strategy %s, search_seed %llu, objective %s (%s, %s is better)\n",
            gl_strategy_names[g->strategy], (unsigned long long)g->seed, g->objective_text,
            g->objective, g->maximize ? "larger" : "smaller");
    fprintf(out, "      %s\n", gl_strategy_about(g->strategy));
    fprintf(out, "      space: %ld points (%s): %ld launchable, %ld dropped by where, %ld "
            "rejected by check", sp.product, axes, sp.nfeasible, dropped, sp.nrejected);
    if (sw->exps[ci].nduplicates)
        fprintf(out, " (some points collapsed: parameters a variant does not read)");
    fprintf(out, "\n");
    long b = gl_search_budget_evals(g, sp.nfeasible);
    if (g->budget_seconds > 0 && b == LONG_MAX)
        fprintf(out, "      budget: %g s of runs (at most every launchable point)\n",
                g->budget_seconds);
    else
        fprintf(out, "      budget: %ld evaluations (%.2g%% of the launchable points)%s\n",
                b < sp.nfeasible ? b : sp.nfeasible,
                100.0 * (double)(b < sp.nfeasible ? b : sp.nfeasible) /
                    (double)(sp.nfeasible > 0 ? sp.nfeasible : 1),
                g->budget_seconds > 0 ? ", or its seconds, whichever ends first" : "");
    long long stored = store ? gl_store_section_runs(store, c->study, s->name) : 0;
    if (stored > 0)
        fprintf(out, "      stored: %lld runs of this section: evaluated points are read back, "
                "never run again\n", stored);
    gl_space_free(&sp);
}

/* handout.c - see handout.h. Must not know the store, the workers or the configs. */
#include "handout.h"

#include <stdlib.h>
#include <string.h>

/* Where a job goes in the cost order: what will not run, the CPU, the GPU. */
static int group(const struct gl_handout_job *j)
{
    if (j->flags & GL_HANDOUT_NORUN)
        return 0;
    return (j->flags & GL_HANDOUT_CPU) ? 1 : 2;
}

/* The rank of each job's spec, by the caller's job index: the order in which
 * the specs first appear in the plan (filled by rank_specs before a sort). */
static int *spec_rank;

static int by_cost_cmp(const void *pa, const void *pb)
{
    const struct gl_handout_job *a = pa, *b = pb;
    int ga = group(a), gb = group(b);
    if (ga != gb)
        return ga - gb;
    if (ga == 2 && spec_rank) {
        int ra = a->job >= 0 ? spec_rank[a->job] : 0, rb = b->job >= 0 ? spec_rank[b->job] : 0;
        if (ra != rb)
            return ra - rb;                  /* one spec after the other */
    }
    if (ga == 2 && a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;   /* largest first */
    return a->job - b->job;                  /* else plan order */
}

/* Each job's spec rank into spec_rank[job]. 0, or -1 out of memory. */
static int rank_specs(struct gl_handout *s)
{
    int maxjob = 0;
    for (int i = 0; i < s->n; i++)
        if (s->q[i].job > maxjob)
            maxjob = s->q[i].job;
    int *first = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *first);
    spec_rank = calloc((size_t)maxjob + 1, sizeof *spec_rank);
    if (!first || !spec_rank) {
        free(first);
        free(spec_rank);
        spec_rank = NULL;
        return -1;
    }
    int nspecs = 0;
    for (int i = 0; i < s->n; i++) {
        int r = -1;
        for (int k = 0; k < nspecs && r < 0; k++)
            if (first[k] == s->q[i].spec)
                r = k;
        if (r < 0) {
            r = nspecs;
            first[nspecs++] = s->q[i].spec;
        }
        if (s->q[i].job >= 0)
            spec_rank[s->q[i].job] = r;
    }
    free(first);
    return 0;
}

/* Plan order with the batched GPU jobs grouped by spec: they keep their places
 * among the other jobs, but those places are filled with the jobs of the
 * first spec, then of the next, each in plan order, so that a worker changes
 * its counter configuration once per spec, not once per section that
 * alternates between them. */
static int group_batched(struct gl_handout *s)
{
    int *pos = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *pos);
    struct gl_handout_job *b = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *b);
    if (!pos || !b) {
        free(pos);
        free(b);
        return -1;
    }
    int nb = 0;
    for (int i = 0; i < s->n; i++)
        if (s->q[i].flags & GL_HANDOUT_BATCH) {
            pos[nb] = i;
            b[nb++] = s->q[i];
        }
    /* stable: by spec rank, then plan position */
    int at = 0;
    for (int r = 0; at < nb; r++)
        for (int k = 0; k < nb; k++)
            if ((b[k].job >= 0 ? spec_rank[b[k].job] : 0) == r)
                s->q[pos[at++]] = b[k];
    free(pos);
    free(b);
    return 0;
}

int gl_handout_init(struct gl_handout *s, const struct gl_handout_job *jobs, int n, int nworkers,
                  int batch_max, int by_cost, double min_unit, gl_handout_claim_fn claim,
                  void *arg)
{
    memset(s, 0, sizeof *s);
    s->q = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->q);
    s->taken = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!s->q || !s->taken) {
        gl_handout_free(s);
        return -1;
    }
    if (n > 0)
        memcpy(s->q, jobs, (size_t)n * sizeof *jobs);
    s->n = n;
    s->nworkers = nworkers < 1 ? 1 : nworkers > GL_HANDOUT_SLOTS ? GL_HANDOUT_SLOTS : nworkers;
    s->batch_max = batch_max < 1 ? 1 : batch_max > GL_BATCH_MAX ? GL_BATCH_MAX : batch_max;
    s->by_cost = by_cost;
    s->min_unit = min_unit > 0 ? min_unit : 0;
    s->alone_slot = -1;
    for (int i = 0; i < GL_HANDOUT_SLOTS; i++)
        s->on_spec[i] = -1;
    s->claim = claim;
    s->arg = arg;
    if (n > 1) {
        int rc = rank_specs(s);
        if (rc == 0 && by_cost)
            qsort(s->q, (size_t)n, sizeof *s->q, by_cost_cmp);
        else if (rc == 0)
            rc = group_batched(s);
        free(spec_rank);
        spec_rank = NULL;
        if (rc != 0) {
            gl_handout_free(s);
            return -1;
        }
    }
    for (int i = 0; i < n; i++)
        if (group(&s->q[i]) == 2)
            s->left += s->q[i].cost;
    return 0;
}

/* Mark q[i] taken (handed out or dropped). */
static void take(struct gl_handout *s, int i)
{
    s->taken[i] = 1;
    if (group(&s->q[i]) == 2)
        s->left -= s->q[i].cost;
    while (s->cursor < s->n && s->taken[s->cursor])
        s->cursor++;
}

/* Claim q[i] for slot (the caller's claim function) and take it off the queue:
 * 1 claimed, 0 not to run (taken all the same), -1 stop (not taken; the
 * handout is stopped). */
static int claim_take(struct gl_handout *s, int i, int slot)
{
    int c = s->claim(s->arg, s->q[i].job, slot);
    if (c < 0) {
        s->stopped = 1;
        return -1;
    }
    take(s, i);
    return c;
}

/* A unit of k jobs goes to slot. */
static int hand_out(struct gl_handout *s, int k)
{
    if (k > 0)
        s->inflight++;
    return k;
}

static int redo_next(struct gl_handout *s, int slot, int *out)
{
    int k = s->redo_single[slot] ? 1 : s->nredo[slot];
    memcpy(out, s->redo[slot], (size_t)k * sizeof *out);
    s->nredo[slot] -= k;
    memmove(s->redo[slot], s->redo[slot] + k, (size_t)s->nredo[slot] * sizeof *out);
    return hand_out(s, k);
}

/* Plan order: today's walk, one worker. */
static int next_in_order(struct gl_handout *s, int slot, int *out)
{
    while (s->cursor < s->n) {
        int i = s->cursor;
        const struct gl_handout_job *j = &s->q[i];
        int c = claim_take(s, i, slot);
        if (c < 0)
            return -1;
        if (c == 0)
            continue;
        if (!(j->flags & GL_HANDOUT_BATCH)) {
            out[0] = j->job;
            return hand_out(s, 1);   /* at once, ahead of the batch being gathered */
        }
        if (s->npend > 0 && (s->npend >= s->batch_max || j->spec != s->pend_spec)) {
            int k = s->npend;
            memcpy(out, s->pend, (size_t)k * sizeof *out);
            s->pend[0] = j->job;
            s->npend = 1;
            s->pend_spec = j->spec;
            return hand_out(s, k);
        }
        if (s->npend == 0)
            s->pend_spec = j->spec;
        s->pend[s->npend++] = j->job;
    }
    int k = s->npend;
    memcpy(out, s->pend, (size_t)k * sizeof *out);
    s->npend = 0;
    return hand_out(s, k);
}

void gl_handout_set_spec_cost(struct gl_handout *s, double cost)
{
    s->spec_cost = cost > 0 ? cost : 0;
}

/* Several workers: where worker slot's next GPU unit starts (the largest job
 * left of the spec it should take: the queue holds each spec's jobs largest
 * first), -1 when no GPU job is left, -2 when it should wait. */
static int pick_spec(struct gl_handout *s, int slot)
{
    enum { SPECS = 64 };
    int spec[SPECS], first[SPECS], on[SPECS], ns = 0, any = -1;
    double left[SPECS];
    for (int i = s->cursor; i < s->n; i++) {
        if (s->taken[i] || group(&s->q[i]) != 2)
            continue;
        if (any < 0)
            any = i;
        int k = 0;
        while (k < ns && spec[k] != s->q[i].spec)
            k++;
        if (k == ns) {
            if (ns == SPECS)
                return any;   /* more specs than kept apart: the queue's order */
            spec[ns] = s->q[i].spec;
            first[ns] = i;
            left[ns] = 0;
            on[ns++] = 0;
        }
        left[k] += s->q[i].cost;
    }
    if (any < 0)
        return -1;
    for (int k = 0; k < ns; k++) {
        if (spec[k] == s->on_spec[slot])
            return first[k];   /* keep to its spec */
        for (int w = 0; w < s->nworkers; w++)
            on[k] += w != slot && s->on_spec[w] == spec[k];   /* busy or about to ask */
    }
    int best = -1;   /* a spec nobody is on: the most cost left */
    for (int k = 0; k < ns; k++)
        if (on[k] == 0 && (best < 0 || left[k] > left[best]))
            best = k;
    if (best >= 0)
        return first[best];
    for (int k = 0; k < ns; k++)   /* else share the one with most left per worker */
        if (best < 0 || left[k] / (on[k] + 1) > left[best] / (on[best] + 1))
            best = k;
    /* worth a second start only when its share of the rest is more than that */
    unsigned fl = s->q[first[best]].flags;
    if (!(fl & GL_HANDOUT_BATCH) || (fl & GL_HANDOUT_LIGHT) ||
        left[best] / (on[best] + 1) > s->spec_cost)
        return first[best];
    return -2;
}

/* By cost: what does not run, the CPU jobs alone, then the GPU jobs largest
 * first (with several workers, each keeping to a spec: pick_spec). */
static int next_by_cost(struct gl_handout *s, int slot, int *out)
{
    for (;;) {
        int i = s->cursor;
        if (i >= s->n)
            return 0;
        if (s->nworkers > 1 && group(&s->q[i]) == 2) {
            i = pick_spec(s, slot);
            if (i == -1)
                return 0;
            if (i == -2)
                return 0;   /* the others end the rest */
        }
        const struct gl_handout_job *j = &s->q[i];
        if ((j->flags & GL_HANDOUT_CPU) && !(j->flags & GL_HANDOUT_NORUN) && s->inflight > 0)
            return 0;   /* a CPU job waits for the workers to be idle */
        int c = claim_take(s, i, slot);
        if (c < 0)
            return -1;
        if (c == 0)
            continue;
        out[0] = j->job;
        if (j->flags & GL_HANDOUT_CPU) {
            s->alone_slot = slot;
            return hand_out(s, 1);
        }
        if (!(j->flags & GL_HANDOUT_BATCH))
            return hand_out(s, 1);
        int k = 1;
        double sum = j->cost, budget = 1e300;
        if (s->nworkers > 1) {
            budget = (s->left + j->cost) / (2.0 * s->nworkers);
            if (budget < s->min_unit && !(j->flags & GL_HANDOUT_LIGHT))
                budget = s->min_unit;   /* a session's worth (none without counters) */
            if (budget < j->cost)
                budget = j->cost;
        }
        for (int m = i + 1; m < s->n && k < s->batch_max; m++) {
            const struct gl_handout_job *o = &s->q[m];
            if (s->taken[m] || !(o->flags & GL_HANDOUT_BATCH) || (o->flags & GL_HANDOUT_NORUN) ||
                o->spec != j->spec || sum + o->cost > budget)
                continue;
            int oc = claim_take(s, m, slot);
            if (oc < 0)
                return hand_out(s, k);   /* the caller sees the stop on its next call */
            if (oc == 0)
                continue;
            out[k++] = o->job;
            sum += o->cost;
        }
        return hand_out(s, k);
    }
}

int gl_handout_next(struct gl_handout *s, int slot, int *out)
{
    if (s->stopped)
        return -1;
    if (slot < 0 || slot >= GL_HANDOUT_SLOTS)
        return 0;
    if (s->alone_slot >= 0)
        return 0;   /* a CPU job runs alone */
    int k;
    if (s->nredo[slot] > 0)
        k = redo_next(s, slot, out);
    else
        k = s->by_cost ? next_by_cost(s, slot, out) : next_in_order(s, slot, out);
    if (k > 0 && s->by_cost) {
        for (int i = 0; i < s->n; i++)   /* the spec it is on now */
            if (s->q[i].job == out[0] && group(&s->q[i]) == 2 &&
                (s->q[i].flags & GL_HANDOUT_BATCH)) {
                s->on_spec[slot] = s->q[i].spec;
                break;
            }
    }
    return k;
}

void gl_handout_finished(struct gl_handout *s, int slot)
{
    if (s->inflight > 0)
        s->inflight--;
    if (s->alone_slot == slot)
        s->alone_slot = -1;
}

void gl_handout_redo(struct gl_handout *s, int slot, const int *jobs, int n, int single)
{
    if (slot < 0 || slot >= GL_HANDOUT_SLOTS || n <= 0)
        return;
    if (n > GL_BATCH_MAX - s->nredo[slot])
        n = GL_BATCH_MAX - s->nredo[slot];
    memcpy(s->redo[slot] + s->nredo[slot], jobs, (size_t)n * sizeof *jobs);
    s->nredo[slot] += n;
    s->redo_single[slot] = single;
}

int gl_handout_empty(const struct gl_handout *s)
{
    if (s->cursor < s->n || s->npend > 0)
        return 0;
    for (int i = 0; i < GL_HANDOUT_SLOTS; i++)
        if (s->nredo[i] > 0)
            return 0;
    return 1;
}

void gl_handout_free(struct gl_handout *s)
{
    free(s->q);
    free(s->taken);
    s->q = NULL;
    s->taken = NULL;
}

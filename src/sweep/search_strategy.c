/* search_strategy.c - see search_strategy.h: random sampling, iterated local
 * search, simulated annealing and a genetic algorithm over coordinates.
 * Every random number comes from the strategy's own generator (splitmix64 of
 * the seed), so a search is the same given the same seed and values.
 * Must not know the store, the sweep or the configs. */
#include "search_strategy.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POP 20
#define ELITE 2
#define AX GL_SEARCH_AXES

/* A set of points (their mixed-radix codes), open addressing. */
struct codeset {
    size_t cap, n;
    long long *slot;   /* code + 1; 0 = empty */
};

struct gl_strat {
    enum gl_strategy which;
    const struct gl_space_view *sp;
    uint64_t rng;
    long budget;
    long told;                     /* points told a value (not NAN) */
    double spent;                  /* share of a seconds budget spent; < 0: use told/budget */
    long long stride[AX];
    int nasked;
    int asked[GL_SEARCH_BATCH * AX];
    double val[GL_SEARCH_BATCH];
    int ntold;                     /* of the last ask */
    /* random */
    long *perm;
    long next;
    /* local and annealing */
    int cur[AX], best[AX];
    double curv, bestv;
    int have_cur, have_best, restarts, stale;
    int starting;                  /* the last ask was a start point */
    /* genetic */
    int pop[POP][AX];
    double popv[POP];
    int npop;
    struct codeset proposed;       /* every point asked for */
};

/* ---- random numbers ------------------------------------------------------- */

static uint64_t next_u64(struct gl_strat *st)
{
    uint64_t z = (st->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n >= 1). */
static long below(struct gl_strat *st, long n)
{
    return (long)(next_u64(st) % (uint64_t)n);
}

static double unit(struct gl_strat *st)
{
    return (double)(next_u64(st) >> 11) / 9007199254740992.0;
}

/* ---- points ----------------------------------------------------------------- */

static long long code_of(const struct gl_strat *st, const int *c)
{
    long long k = 0;
    for (int a = 0; a < st->sp->naxes; a++)
        k += (long long)c[a] * st->stride[a];
    return k;
}

static int codeset_add(struct codeset *cs, long long code)
{
    if (2 * (cs->n + 1) > cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 256;
        long long *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return -1;
        for (size_t i = 0; i < cs->cap; i++) {
            if (!cs->slot[i])
                continue;
            size_t h = (size_t)((uint64_t)cs->slot[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
            while (slot[h])
                h = (h + 1) & (cap - 1);
            slot[h] = cs->slot[i];
        }
        free(cs->slot);
        cs->slot = slot;
        cs->cap = cap;
    }
    size_t h = (size_t)((uint64_t)(code + 1) * 0x9E3779B97F4A7C15ull) & (cs->cap - 1);
    while (cs->slot[h]) {
        if (cs->slot[h] == code + 1)
            return 0;
        h = (h + 1) & (cs->cap - 1);
    }
    cs->slot[h] = code + 1;
    cs->n++;
    return 1;
}

static int codeset_has(const struct codeset *cs, long long code)
{
    if (!cs->cap)
        return 0;
    size_t h = (size_t)((uint64_t)(code + 1) * 0x9E3779B97F4A7C15ull) & (cs->cap - 1);
    while (cs->slot[h]) {
        if (cs->slot[h] == code + 1)
            return 1;
        h = (h + 1) & (cs->cap - 1);
    }
    return 0;
}

static void random_point(struct gl_strat *st, int *c)
{
    memset(c, 0, AX * sizeof *c);
    st->sp->feasible_at(st->sp->ctx, below(st, st->sp->nfeasible), c);
}

/* A random launchable point not asked for before, when a few tries find one. */
static void fresh_point(struct gl_strat *st, int *c)
{
    for (int t = 0; t < 32; t++) {
        random_point(st, c);
        if (!codeset_has(&st->proposed, code_of(st, c)))
            return;
    }
}

static int feasible(const struct gl_strat *st, const int *c)
{
    return st->sp->feasible(st->sp->ctx, c);
}

/* An axis with more than one value, at random; -1 when there is none. */
static int random_axis(struct gl_strat *st)
{
    int movable[AX], n = 0;
    for (int a = 0; a < st->sp->naxes; a++)
        if (st->sp->len[a] > 1)
            movable[n++] = a;
    return n ? movable[below(st, n)] : -1;
}

/* c moved along one axis: a step of one (or, with probability wide, to any
 * other value). 0 when no axis can move. */
static int move(struct gl_strat *st, int *c, double wide)
{
    int a = random_axis(st);
    if (a < 0)
        return 0;
    int len = st->sp->len[a];
    if (unit(st) < wide || len == 2) {
        int v = (int)below(st, len - 1);
        c[a] = v >= c[a] ? v + 1 : v;
    } else {
        int up = c[a] == 0 ? 1 : c[a] == len - 1 ? 0 : (int)below(st, 2);
        c[a] += up ? 1 : -1;
    }
    return 1;
}

/* A launchable neighbour of from into c, one not asked for before when a few
 * tries find one; 0 if none is launchable. */
static int neighbour(struct gl_strat *st, const int *from, int *c, double wide)
{
    int got = 0, seen[AX];
    for (int t = 0; t < 32; t++) {
        memcpy(c, from, AX * sizeof *c);
        if (!move(st, c, wide))
            break;
        if (!feasible(st, c))
            continue;
        if (!codeset_has(&st->proposed, code_of(st, c)))
            return 1;
        memcpy(seen, c, sizeof seen);
        got = 1;
    }
    if (got)
        memcpy(c, seen, sizeof seen);
    return got;
}

static int *slot_of(struct gl_strat *st, int i)
{
    return &st->asked[i * AX];
}

/* ---- the strategies' asks ----------------------------------------------------- */

static int ask_random(struct gl_strat *st, int max)
{
    long n = st->sp->nfeasible;
    int k = 0;
    if (!st->perm) {
        if (!(st->perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *st->perm)))
            return 0;
        for (long i = 0; i < n; i++)
            st->perm[i] = i;
    }
    for (; k < max && st->next < n; k++) {
        long j = st->next + below(st, n - st->next);
        long t = st->perm[j];
        st->perm[j] = st->perm[st->next];
        st->perm[st->next++] = t;
        memset(slot_of(st, k), 0, AX * sizeof(int));
        st->sp->feasible_at(st->sp->ctx, t, slot_of(st, k));
    }
    return k;
}

/* A start for local search: the first at random, then a perturbation of the
 * best point (2 axes anywhere), every third restart at random. */
static void restart_point(struct gl_strat *st, int *c)
{
    st->restarts++;
    if (st->have_best && st->restarts % 3 != 0) {
        for (int t = 0; t < 32; t++) {
            memcpy(c, st->best, AX * sizeof *c);
            move(st, c, 1.0);
            move(st, c, 1.0);
            if (feasible(st, c) && !codeset_has(&st->proposed, code_of(st, c)))
                return;
        }
    }
    fresh_point(st, c);
}

static int ask_local(struct gl_strat *st, int max)
{
    if (!st->have_cur) {
        restart_point(st, slot_of(st, 0));
        st->starting = 1;
        return 1;
    }
    st->starting = 0;
    int k = 0;
    for (int a = 0; a < st->sp->naxes && k < max; a++)
        for (int d = -1; d <= 1 && k < max; d += 2) {
            int v = st->cur[a] + d;
            if (v < 0 || v >= st->sp->len[a])
                continue;
            int *c = slot_of(st, k);
            memcpy(c, st->cur, AX * sizeof *c);
            c[a] = v;
            if (feasible(st, c))
                k++;
        }
    if (k == 0) {   /* an isolated point: start again */
        st->have_cur = 0;
        return ask_local(st, max);
    }
    return k;
}

static double temperature(const struct gl_strat *st)
{
    double f = st->spent >= 0 ? st->spent : st->budget > 0 ? (double)st->told / st->budget : 0.5;
    if (f > 1)
        f = 1;
    return 0.5 * pow(0.002 / 0.5, f);
}

static int ask_annealing(struct gl_strat *st, int max)
{
    if (!st->have_cur) {
        fresh_point(st, slot_of(st, 0));
        st->starting = 1;
        return 1;
    }
    st->starting = 0;
    if (st->stale >= 30 && st->have_best) {   /* stuck: back to the best point, or anew */
        st->stale = 0;
        if (++st->restarts % 2 == 0) {
            st->have_cur = 0;
            return ask_annealing(st, max);
        }
        memcpy(st->cur, st->best, sizeof st->cur);
        st->curv = st->bestv;
    }
    int k = 0, want = max < 4 ? max : 4;
    for (int t = 0; t < want; t++)
        if (neighbour(st, st->cur, slot_of(st, k), 0.15))
            k++;
    if (k == 0) {
        st->have_cur = 0;
        return ask_annealing(st, max);
    }
    return k;
}

/* A child of the population: tournament parents, uniform crossover, mutation;
 * one the GA has not asked for before when it can find one. */
static void child(struct gl_strat *st, int *c)
{
    for (int t = 0; t < 64; t++) {
        int p[2];
        for (int i = 0; i < 2; i++) {
            int a = (int)below(st, st->npop), b = (int)below(st, st->npop);
            p[i] = st->popv[a] <= st->popv[b] ? a : b;
        }
        for (int a = 0; a < st->sp->naxes; a++)
            c[a] = st->pop[p[below(st, 2)]][a];
        double rate = 1.0 / (st->sp->naxes > 0 ? st->sp->naxes : 1);
        for (int a = 0; a < st->sp->naxes; a++) {
            if (st->sp->len[a] < 2 || unit(st) >= rate * (1 + t / 8))
                continue;
            int len = st->sp->len[a];
            if (unit(st) < 0.3) {
                c[a] = (int)below(st, len);
            } else {
                int up = c[a] == 0 ? 1 : c[a] == len - 1 ? 0 : (int)below(st, 2);
                c[a] += up ? 1 : -1;
            }
        }
        if (feasible(st, c) && !codeset_has(&st->proposed, code_of(st, c)))
            return;
    }
    for (int t = 0; t < 64; t++) {
        random_point(st, c);
        if (!codeset_has(&st->proposed, code_of(st, c)))
            return;
    }
}

static int ask_genetic(struct gl_strat *st, int max)
{
    int k = 0;
    if (st->npop == 0) {   /* the first generation: random, distinct */
        int want = max < POP ? max : POP;
        for (int t = 0; k < want && t < 16 * POP; t++) {
            random_point(st, slot_of(st, k));
            if (codeset_add(&st->proposed, code_of(st, slot_of(st, k))) > 0)
                k++;
        }
        return k;
    }
    int want = POP - ELITE < max ? POP - ELITE : max;
    for (; k < want; k++) {
        child(st, slot_of(st, k));
        codeset_add(&st->proposed, code_of(st, slot_of(st, k)));
    }
    return k;
}

int gl_strategy_ask(struct gl_strat *st, int *out, int max)
{
    if (max > GL_SEARCH_BATCH)
        max = GL_SEARCH_BATCH;
    if (max < 1 || st->sp->nfeasible < 1)
        return 0;
    int k = 0;
    switch (st->which) {
    case GL_SEARCH_RANDOM: k = ask_random(st, max); break;
    case GL_SEARCH_LOCAL: k = ask_local(st, max); break;
    case GL_SEARCH_ANNEALING: k = ask_annealing(st, max); break;
    case GL_SEARCH_GENETIC: k = ask_genetic(st, max); break;
    default: k = ask_random(st, max); break;
    }
    st->nasked = k;
    st->ntold = 0;
    for (int i = 0; i < k; i++)
        codeset_add(&st->proposed, code_of(st, slot_of(st, i)));
    memcpy(out, st->asked, (size_t)k * AX * sizeof *out);
    return k;
}

/* ---- the strategies' tells ------------------------------------------------------ */

static void note_best(struct gl_strat *st, const int *c, double v)
{
    if (v < st->bestv || !st->have_best) {
        if (!(v < INFINITY))
            return;
        memcpy(st->best, c, sizeof st->best);
        st->bestv = v;
        st->have_best = 1;
    }
}

/* Every value of the last ask is in: move. */
static void batch_told(struct gl_strat *st)
{
    int n = st->nasked;
    if (st->which == GL_SEARCH_LOCAL || st->which == GL_SEARCH_ANNEALING) {
        if (st->starting) {
            if (st->val[0] < INFINITY) {   /* finite (NAN and +inf fail the test) */
                memcpy(st->cur, slot_of(st, 0), sizeof st->cur);
                st->curv = st->val[0];
                st->have_cur = 1;
                st->stale = 0;
            }
            return;
        }
        int bi = -1;
        for (int i = 0; i < n; i++)
            if (st->val[i] < INFINITY && (bi < 0 || st->val[i] < st->val[bi]))
                bi = i;
        if (st->which == GL_SEARCH_LOCAL) {
            if (bi >= 0 && st->val[bi] < st->curv) {
                memcpy(st->cur, slot_of(st, bi), sizeof st->cur);
                st->curv = st->val[bi];
            } else {
                st->have_cur = 0;   /* a local minimum: restart */
            }
            return;
        }
        /* annealing: the best of the neighbours by the Metropolis rule */
        if (bi >= 0) {
            double loss = (st->val[bi] - st->curv) / (fabs(st->curv) > 1e-300 ? fabs(st->curv) : 1);
            if (loss <= 0 || unit(st) < exp(-loss / temperature(st))) {
                memcpy(st->cur, slot_of(st, bi), sizeof st->cur);
                st->stale = loss < 0 ? 0 : st->stale + 1;
                st->curv = st->val[bi];
                return;
            }
        }
        st->stale++;
        return;
    }
    if (st->which == GL_SEARCH_GENETIC) {
        /* the new population: the elites and the children, best first */
        int np = 0, keep = st->npop ? (st->npop < ELITE ? st->npop : ELITE) : 0;
        int npop[POP][AX];
        double nv[POP];
        for (int i = 0; i < keep; i++) {
            memcpy(npop[np], st->pop[i], sizeof npop[np]);
            nv[np++] = st->popv[i];
        }
        for (int i = 0; i < n && np < POP; i++) {
            memcpy(npop[np], slot_of(st, i), sizeof npop[np]);
            nv[np++] = st->val[i] == st->val[i] ? st->val[i] : INFINITY;
        }
        if (np < 2 && st->npop >= 2)
            return;   /* a generation cut short by the budget: nothing to breed */
        for (int i = 1; i < np; i++) {   /* insertion sort, stable */
            double v = nv[i];
            int c[AX];
            memcpy(c, npop[i], sizeof c);
            int j = i - 1;
            for (; j >= 0 && nv[j] > v; j--) {
                nv[j + 1] = nv[j];
                memcpy(npop[j + 1], npop[j], sizeof npop[j]);
            }
            nv[j + 1] = v;
            memcpy(npop[j + 1], c, sizeof c);
        }
        memcpy(st->pop, npop, sizeof npop);
        memcpy(st->popv, nv, sizeof nv);
        st->npop = np;
    }
}

void gl_strategy_tell(struct gl_strat *st, int i, double value)
{
    if (i < 0 || i >= st->nasked)
        return;
    st->val[i] = value;
    if (value == value)
        st->told++;
    note_best(st, slot_of(st, i), value);
    if (++st->ntold == st->nasked)
        batch_told(st);
}

void gl_strategy_progress(struct gl_strat *st, double spent)
{
    st->spent = spent;
}

struct gl_strat *gl_strategy_new(enum gl_strategy which, const struct gl_space_view *sp,
                                    unsigned long long seed, long budget)
{
    struct gl_strat *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->which = which;
    st->sp = sp;
    st->rng = seed * 0x2545F4914F6CDD1Dull + 0x1234567ull;
    st->budget = budget;
    st->spent = -1;
    long long s = 1;
    for (int a = 0; a < sp->naxes; a++) {
        st->stride[a] = s;
        s *= sp->len[a] > 0 ? sp->len[a] : 1;
    }
    st->curv = st->bestv = INFINITY;
    return st;
}

void gl_strategy_free(struct gl_strat *st)
{
    if (!st)
        return;
    free(st->perm);
    free(st->proposed.slot);
    free(st);
}

const char *gl_strategy_about(enum gl_strategy which)
{
    switch (which) {
    case GL_SEARCH_RANDOM:
        return "random: points drawn at random without replacement, 16 at a time";
    case GL_SEARCH_LOCAL:
        return "local: best-improvement hill climbing over the neighbours (one parameter one "
               "value up or down), restarted from a perturbed best point, every third time "
               "from a random one";
    case GL_SEARCH_ANNEALING:
        return "annealing: simulated annealing, 4 random neighbours a step, the best of them "
               "accepted when better or with probability exp(-relative loss / T), T from 0.5 "
               "to 0.002 over the budget";
    case GL_SEARCH_GENETIC:
        return "genetic: a population of 20 (tournament of 2, uniform crossover, mutation of "
               "each parameter with probability 1/parameters, the best 2 kept), the first "
               "generation random";
    default:
        return "exhaustive: every point of the product";
    }
}

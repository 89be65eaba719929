/* search_strategy.h - the strategies of a search (config.h enum gl_strategy)
 * over a space of points given as coordinates: one index per axis (a
 * parameter, a zip group, the variant), each in 0..len-1. A strategy asks for
 * a batch of points, then is told the value of each (lower is better; +inf:
 * the point ran and failed; NAN: the point cannot be run - dropped by a
 * `where`, rejected by check - which costs no evaluation), in the batch's
 * order, before it asks again. It is deterministic: the same seed and the same
 * values give the same points, which is how a search resumes (search.c replays
 * it against the stored results).
 *   random     points drawn without replacement from the launchable ones
 *   local      best-improvement hill climbing over the neighbours (one axis one
 *              step up or down), restarted from a perturbed best (iterated local
 *              search) or, every third time, from a random point
 *   annealing  simulated annealing: one random neighbour per step, accepted
 *              when better, or worse with probability exp(-relative loss / T),
 *              T cooling geometrically over the budget from 0.5 to 0.002
 *   genetic    a population of 20 (tournament of 2, uniform crossover, mutation
 *              of each axis with probability 1/axes by one step or at random,
 *              the best 2 kept), the first generation random
 * Must not know the store, the sweep or the configs (search.c does). */
#ifndef GL_SEARCH_STRATEGY_H
#define GL_SEARCH_STRATEGY_H

#include "config.h"

#define GL_SEARCH_AXES (GL_NPARAMS + GL_MAX_UPARAMS + 1)
#define GL_SEARCH_BATCH 64   /* points asked at once, at most */

/* The space as the strategy sees it. */
struct gl_space_view {
    int naxes;
    int len[GL_SEARCH_AXES];
    long nfeasible;                  /* launchable points */
    /* the k-th launchable point's coordinates (0 <= k < nfeasible) */
    void (*feasible_at)(void *ctx, long k, int *coords);
    /* 1 when coords is a launchable point */
    int (*feasible)(void *ctx, const int *coords);
    void *ctx;
};

struct gl_strat;

/* A strategy over sp (kept by pointer). budget: the evaluations it is given
 * (the annealing schedule; 0 = unknown). NULL when out of memory. */
struct gl_strat *gl_strategy_new(enum gl_strategy which, const struct gl_space_view *sp,
                                    unsigned long long seed, long budget);
/* Up to max (<= GL_SEARCH_BATCH) points into out[i * GL_SEARCH_AXES + a]; 0
 * when it has nothing more to propose (random: every point drawn). */
int gl_strategy_ask(struct gl_strat *st, int *out, int max);
/* The value of the i-th point of the last ask, each told once, in order. */
void gl_strategy_tell(struct gl_strat *st, int i, double value);
/* The search's progress for annealing's temperature: the share of the budget
 * spent (0..1), when the budget is in seconds. */
void gl_strategy_progress(struct gl_strat *st, double spent);
void gl_strategy_free(struct gl_strat *st);
/* One line saying what the strategy does (for `plan`). */
const char *gl_strategy_about(enum gl_strategy which);

#endif

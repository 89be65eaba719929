/* search.h - a searched section (config.h struct gl_search: `strategy =` other
 * than exhaustive) run by `gpulab run`: its strategy (search_strategy.h) asks
 * for a batch of points of its space (search_space.h), the points already
 * stored are read from the database (the latest run of each key: never run
 * again), the others run as a batch through the run loop (gl_run_jobs: claimed,
 * timed, verified, profiled and stored as any run), and the strategy is told
 * each point's objective, until the budget (evaluations, a share of the
 * launchable points, or seconds) is spent. A point is one evaluation however
 * it ended (ok, wrong, failed: +inf); points dropped by a `where` or rejected
 * by check are never run and cost none (they are counted). Resuming replays
 * the strategy from its seed against the stored results, so an interrupted
 * search goes on where it stopped without repeating a point.
 * Must not print results of runs (the run loop does) or take device locks. */
#ifndef GL_SEARCH_H
#define GL_SEARCH_H

#include <stdio.h>

#include "run_loop.h"

/* (What a search will do before it runs, its check and its budget: search_plan.h.) */
/* Run the search of section si of the run loop's current config. 0, or -1
 * when the sweep must stop (interrupted, a storage error, no worker). */
int gl_search_section(struct gl_run_loop *rl, int si);
/* `plan` of a searched section: the strategy, the space (points, launchable,
 * dropped by where, rejected by check), the budget and what is stored. */
void gl_search_plan(struct gl_sweep *sw, gl_store *store, int ci, int si, FILE *out);

#endif

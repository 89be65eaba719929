/* search_plan.h - what a searched section will do, known before anything runs:
 * whether a section is searched, its launchable points, its budget in
 * evaluations, the evaluations a config's searches make at most (the progress's
 * total), and the check that each objective names a numeric column of the
 * results view. Called by the sweep's preparation (sweep.c), the run loop and
 * the search itself (search.c).
 * Must not run, claim or store anything, nor know about sweeps or run loops. */
#ifndef GL_SEARCH_PLAN_H
#define GL_SEARCH_PLAN_H

#include "config.h"
#include "store.h"

int gl_search_is_searched(const struct gl_section *s);
/* The launchable points of section si of expansion e. */
long gl_search_launchable(const struct gl_expansion *e, int si);
/* The evaluations the budget allows (LONG_MAX: a budget in seconds only). */
long gl_search_budget_evals(const struct gl_search *g, long nfeasible);
/* The objective of every searched section of configs[0..n) names a numeric
 * column of the results view (checked against this gpulab's schema, in
 * memory). 0, or 2 with "file:line: ..." in err, or 1 (the check itself failed). */
int gl_search_check(const struct gl_config *configs, int nconfigs, char *err, size_t errlen);
/* The evaluations the searches of config c (expanded into e) make at most
 * (their evaluation budgets; a budget in seconds counts none). */
int gl_search_expected(const struct gl_config *c, const struct gl_expansion *e);

#endif

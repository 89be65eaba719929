/* search_plan.c - see search_plan.h. Must not run, claim or store anything,
 * nor know about sweeps or run loops. */
#include "search_plan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gl_search_is_searched(const struct gl_section *s)
{
    return s->search.strategy != GL_SEARCH_EXHAUSTIVE;
}

/* A new database of this gpulab's schema in a scratch file (removed at once:
 * the open handle keeps it), for the results view's columns. 0, or -1 with err. */
static int scratch_store(gl_store **out, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    char path[600], side[620];
    snprintf(path, sizeof path, "%s/gpulab-objective-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(path);   /* an empty file would not be new to the store: it makes it */
    int rc = gl_store_open(path, out, err, errlen);
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return rc == 0 ? 0 : -1;
}

int gl_search_check(const struct gl_config *configs, int nconfigs, char *err, size_t errlen)
{
    gl_store *mem = NULL;
    int rc = 0;
    for (int ci = 0; ci < nconfigs && rc == 0; ci++) {
        const struct gl_config *c = &configs[ci];
        for (int si = 0; si < c->nsections && rc == 0; si++) {
            const struct gl_search *g = &c->sections[si].search;
            if (!gl_search_is_searched(&c->sections[si]))
                continue;
            if (!mem && scratch_store(&mem, err, errlen) != 0) {
                char why[512];
                snprintf(why, sizeof why, "%s", err);
                snprintf(err, errlen, "checking the objective of [%s]: %s", c->sections[si].name,
                         why);
                return 1;
            }
            char near[64];
            int r = gl_store_results_column(mem, g->objective, near, sizeof near);
            int line = g->objective_line ? g->objective_line : c->sections[si].line;
            if (r < 0) {
                snprintf(err, errlen, "checking the objective of [%s]: %s", c->sections[si].name,
                         gl_store_errmsg(mem));
                rc = 1;
            } else if (r == 0 && near[0]) {
                snprintf(err, errlen, "%s:%d: objective '%s': the results view has no column '%s' "
                         "(did you mean '%s'?)", c->path, line, g->objective_text, g->objective,
                         near);
                rc = 2;
            } else if (r == 0) {
                snprintf(err, errlen, "%s:%d: objective '%s': the results view has no column '%s' "
                         "(time, energy, gflops, or another numeric column: docs/database.md)",
                         c->path, line, g->objective_text, g->objective);
                rc = 2;
            } else if (r == 2) {
                snprintf(err, errlen, "%s:%d: objective '%s': column '%s' holds text, not a number",
                         c->path, line, g->objective_text, g->objective);
                rc = 2;
            }
        }
    }
    gl_store_close(mem);
    return rc;
}

/* The launchable points of section si of expansion e. */
long gl_search_launchable(const struct gl_expansion *e, int si)
{
    long n = 0;
    for (int ji = 0; ji < e->njobs; ji++)
        n += e->jobs[ji].section == si && !e->jobs[ji].skip[0];
    return n;
}

/* The evaluations the budget allows (LONG_MAX: a budget in seconds only). */
long gl_search_budget_evals(const struct gl_search *g, long nfeasible)
{
    long b = LONG_MAX;
    if (g->budget_evals > 0)
        b = g->budget_evals;
    else if (g->budget_pct > 0)
        b = (long)ceil(g->budget_pct / 100.0 * (double)nfeasible);
    return b < 1 ? 1 : b;
}

int gl_search_expected(const struct gl_config *c, const struct gl_expansion *e)
{
    long n = 0;
    for (int si = 0; si < c->nsections; si++) {
        if (!gl_search_is_searched(&c->sections[si]) || c->sections[si].search.budget_seconds > 0)
            continue;
        long f = gl_search_launchable(e, si), b = gl_search_budget_evals(&c->sections[si].search, f);
        n += b < f ? b : f;
    }
    return n > INT_MAX / 2 ? INT_MAX / 2 : (int)n;
}

/* config_search.c - a section's search keys, read into s->search: `strategy`
 * (exhaustive, the default: the whole product; random; annealing; genetic;
 * local), `budget` (evaluations "200", a share of the launchable points "5%",
 * or seconds of the search's runs "600s", "10min", "1h"), `objective` (a
 * numeric column of the results view, `time` for median_ms and `energy` for
 * energy_j; a leading '-' maximises it: `-gflops`) and `search_seed` (the
 * strategy's random numbers: the same seed and the same stored results choose
 * the same points). A section's own key, else the defaults'.
 * Whether the objective names a column is checked by the sweep against the
 * database's schema (src/sweep/search_space.c), not here.
 * Must not run anything, touch the database or choose points. */
#include "config_int.h"
#include "nearest.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gl_strategy_names[GL_SEARCH_STRATEGIES] = {
    "exhaustive", "random", "annealing", "genetic", "local"
};

static const char *const search_keys[] = { "strategy", "budget", "objective", "search_seed",
                                           NULL };

int cfg_is_search_key(const char *k)
{
    for (const char *const *s = search_keys; *s; s++)
        if (strcmp(*s, k) == 0)
            return 1;
    return 0;
}

static int parse_strategy(struct ctx *x, const struct entry *e, struct gl_search *g)
{
    struct gl_nearest near;
    gl_nearest_init(&near, e->val);
    for (int i = 0; i < GL_SEARCH_STRATEGIES; i++) {
        if (strcmp(e->val, gl_strategy_names[i]) == 0) {
            g->strategy = (enum gl_strategy)i;
            g->strategy_line = e->line;
            return 0;
        }
        gl_nearest_offer(&near, gl_strategy_names[i]);
    }
    if (near.best)
        return cfg_err(x, e->line, "unknown strategy '%s' (did you mean '%s'?)", e->val, near.best);
    return cfg_err(x, e->line, "unknown strategy '%s' (exhaustive, random, annealing, genetic or "
                   "local)", e->val);
}

#define BUDGET_HELP "evaluations such as 200, a share of the space such as 5%, or seconds such " \
                    "as 600s or 10min"

static int parse_budget(struct ctx *x, const struct entry *e, struct gl_search *g)
{
    char *end;
    errno = 0;
    double v = strtod(e->val, &end);
    if (end == e->val || errno != 0 || !isfinite(v))
        return cfg_err(x, e->line, "bad budget '%s' (%s)", e->val, BUDGET_HELP);
    while (*end == ' ')
        end++;
    if (v <= 0)
        return cfg_err(x, e->line, "budget = %s must be more than 0 (%s)", e->val, BUDGET_HELP);
    g->budget_line = e->line;
    if (*end == '\0') {
        if (v != floor(v) || v > 1e9)
            return cfg_err(x, e->line, "budget = %s: evaluations are a whole number up to 1e9",
                           e->val);
        g->budget_evals = (long)v;
        return 0;
    }
    if (strcmp(end, "%") == 0) {
        if (v > 100)
            return cfg_err(x, e->line, "budget = %s is more than the whole space (100%%)", e->val);
        g->budget_pct = v;
        return 0;
    }
    static const struct { const char *unit; double s; } units[] = {
        { "ms", 1e-3 }, { "s", 1 }, { "min", 60 }, { "h", 3600 }
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            g->budget_seconds = v * units[i].s;
            return 0;
        }
    return cfg_err(x, e->line, "bad budget '%s': unknown unit '%s' (%s)", e->val, end, BUDGET_HELP);
}

static int is_ident(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

static int parse_objective(struct ctx *x, const struct entry *e, struct gl_search *g)
{
    const char *col = e->val;
    g->maximize = 0;
    if (*col == '-') {
        g->maximize = 1;
        col++;
        while (*col == ' ')
            col++;
    }
    if (!is_ident(col) || strlen(col) >= sizeof g->objective)
        return cfg_err(x, e->line, "bad objective '%s' (a column of the results view, such as "
                       "time, energy or median_ms; '-gflops' maximises gflops)", e->val);
    if (strcmp(col, "time") == 0)
        col = "median_ms";
    else if (strcmp(col, "energy") == 0)
        col = "energy_j";
    snprintf(g->objective, sizeof g->objective, "%s", col);
    snprintf(g->objective_text, sizeof g->objective_text, "%s", e->val);
    g->objective_line = e->line;
    return 0;
}

int cfg_section_search(struct ctx *x, const struct block *b, const struct block *top,
                       struct gl_section *s)
{
    struct gl_search *g = &s->search;
    const struct entry *e;
    memset(g, 0, sizeof *g);
    g->strategy = GL_SEARCH_EXHAUSTIVE;
    snprintf(g->objective, sizeof g->objective, "median_ms");
    snprintf(g->objective_text, sizeof g->objective_text, "time");
    g->seed = 1;
    if ((e = cfg_pick(b, top, "strategy")) && parse_strategy(x, e, g) != 0)
        return -1;
    if ((e = cfg_pick(b, top, "budget")) && parse_budget(x, e, g) != 0)
        return -1;
    if ((e = cfg_pick(b, top, "objective")) && parse_objective(x, e, g) != 0)
        return -1;
    if ((e = cfg_pick(b, top, "search_seed"))) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(e->val, &end, 10);
        if (end == e->val || *end || errno != 0 || e->val[0] == '-')
            return cfg_err(x, e->line, "bad search_seed '%s' (a whole number, 0 or more)", e->val);
        g->seed = v;
        g->seed_line = e->line;
    }
    if (g->strategy == GL_SEARCH_EXHAUSTIVE) {
        /* a section's own search key without a search is a mistake, not a default */
        for (const char *const *k = search_keys + 1; *k; k++)
            if ((e = cfg_find(b, *k)))
                return cfg_err(x, e->line, "'%s' belongs to a search, and section [%s] runs its "
                               "whole product (strategy = exhaustive): set strategy = random, "
                               "annealing, genetic or local", *k, s->name);
        return 0;
    }
    if (!g->budget_line)
        g->budget_evals = 100;
    return 0;
}

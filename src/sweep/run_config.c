/* run_config.c - see run_config.h. Must not hand out jobs itself. */
#include "run_config.h"
#include "search.h"
#include "search_plan.h"

int gl_run_config(struct gl_run_loop *rl, int ci, long long session)
{
    int rc = gl_run_config_jobs(rl, ci, session);
    for (int si = 0; rc == 0 && si < rl->c->nsections; si++)
        if (gl_search_is_searched(&rl->c->sections[si]))
            rc = gl_search_section(rl, si);
    return rc;
}

/* launches.c - see launches.h: a launch's repeat count and loop variable at a
 * point, and the number of launches of a whole sequence. Shared by the plan's
 * checks and the GPU plugin, so both count the same launches.
 * Must not parse config text nor know about devices. */
#include "launches.h"
#include "expr.h"
#include "fileutil.h"

#include <stdio.h>
#include <string.h>

int gl_klaunch_count(const struct gl_klaunch *l, const struct gl_params *p, long long *n,
                     char *err, size_t errlen)
{
    char msg[200];
    *n = 1;
    if (!l->count[0])
        return 0;
    if (gl_expr_value(l->count, p, n, msg, sizeof msg) != 0) {
        gl_say(err, errlen, "repeat count '%s': %s", l->count, msg);
        return -1;
    }
    if (*n < 0 || *n > GL_KSEQ_MAX_REPEAT) {
        gl_say(err, errlen, "repeat count %s = %lld (must be 0 to %d)", l->count, *n,
               GL_KSEQ_MAX_REPEAT);
        return -1;
    }
    return 0;
}

int gl_klaunch_params(const struct gl_klaunch *l, const struct gl_params *p, long iter,
                      struct gl_params *q, char *err, size_t errlen)
{
    *q = *p;
    if (!l->loop[0])
        return 0;
    if (gl_params_user_set(q, l->loop, iter) != 0) {
        gl_say(err, errlen, "no room for the loop variable %s among %d named parameters",
               l->loop, p->nuser);
        return -1;
    }
    return 0;
}

int gl_kseq_total(const struct gl_kseq *s, const struct gl_params *p, int *total, char *err,
                  size_t errlen)
{
    char msg[256];
    long long sum = 0;
    *total = 0;
    for (int i = 0; i < s->n; i++) {
        long long n;
        if (gl_klaunch_count(&s->l[i], p, &n, msg, sizeof msg) != 0) {
            gl_say(err, errlen, "launch.%s: %s", s->l[i].label, msg);
            return -1;
        }
        sum += n;
    }
    if (sum < 1) {
        gl_say(err, errlen, "the launch sequence launches no kernel at this point (every "
               "repeat count is 0)");
        return -1;
    }
    if (sum > GL_MAX_LAUNCHES) {
        gl_say(err, errlen, "the launch sequence makes %lld launches at this point (at most %d)",
               sum, GL_MAX_LAUNCHES);
        return -1;
    }
    *total = (int)sum;
    return 0;
}

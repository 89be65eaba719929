/* kinit.c - see kinit.h. */
#include "kinit.h"

#include <stdio.h>

#include "expr.h"
#include "ktype.h"

int gl_kbuffer_values(const struct gl_kbuffer *b, const struct gl_params *p, double *a,
                      double *v2, char *err, size_t errlen)
{
    double v[2] = { b->value, b->value2 };
    int any = 0;
    for (int i = 0; i < 2; i++) {
        long long x;
        char msg[200];
        if (b->init != GL_KI_RANDINT || !b->bound[i][0])
            continue;
        any = 1;
        if (gl_expr_value(b->bound[i], p, &x, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "buffer.%s: randint bound '%s': %s", b->name, b->bound[i], msg);
            return -1;
        }
        v[i] = (double)x;
    }
    *a = v[0];
    *v2 = v[1];
    /* plain random with no range above its start (a buffer described before
     * ranges existed: a plugin's, or a struct filled by hand): [0, 1), as
     * `random` means in a config (which refuses random(lo, hi) with hi <= lo) */
    if (b->init == GL_KI_RANDOM && !(*v2 > *a)) {
        *a = 0.0;
        *v2 = 1.0;
    }
    if (!any)
        return 0;
    double lo, hi;
    gl_ktype_int_range(b->type, &lo, &hi);
    if (!(v[0] < v[1])) {
        snprintf(err, errlen, "buffer.%s: randint(%.0f, %.0f): lo must be below hi", b->name,
                 v[0], v[1]);
        return -1;
    }
    if (v[0] < lo || v[1] - 1 > hi || v[0] < -9007199254740992.0 || v[1] > 9007199254740992.0) {
        snprintf(err, errlen, "buffer.%s: randint(%.0f, %.0f): outside what %s holds", b->name,
                 v[0], v[1], gl_ktype_name(b->type));
        return -1;
    }
    return 0;
}

/* half_ref.c - the C reference of half.conf's [half_c]: out = 3 x + y in
 * double from the half inputs (ktype.h reads their bits). in[] follows the
 * declaration order: out (poisoned), x, y. */
#include <stdint.h>

#include "ktype.h"
#include "plugin.h"

int axpy_ref(const struct gl_params *p, const void *const *in, double *const *expected,
             char *err, size_t errlen)
{
    const uint16_t *x = in[1], *y = in[2];
    (void)err;
    (void)errlen;
    for (long i = 0; i < p->n; i++)
        expected[0][i] = 3.0 * gl_from_half(x[i]) + gl_from_half(y[i]);
    return 0;
}

/* reduce_passes_ref.c - the C reference of reduce_passes.conf: the sum of the N
 * floats of buffer `in` (in[0]), in double, as the expected value of `sum`. */
#include "plugin.h"

#include <stdio.h>

int sum_ref(const struct gl_params *p, const void *const *in, double *const *expected, char *err,
            size_t errlen)
{
    const float *x = (const float *)in[0];
    double s = 0.0;
    if (p->n < 1) {
        snprintf(err, errlen, "N = %ld", p->n);
        return -1;
    }
    for (long i = 0; i < p->n; i++)
        s += x[i];
    expected[0][0] = s;
    return 0;
}

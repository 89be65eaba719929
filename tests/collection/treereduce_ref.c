/* treereduce_ref.c - the C reference of treereduce.conf: the sum of the input
 * (in[0], as made from the seed, before the kernel folds it in place) into
 * the one element of the output (in[1], zeroed). */
#include <stdio.h>

#include "plugin.h"

int treereduce_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                   char *err, size_t errlen)
{
    const float *x = in[0];
    double sum = 0.0;
    if (p->n == GL_UNSET) {
        snprintf(err, errlen, "N is unset (verify_reads)");
        return -1;
    }
    for (long i = 0; i < p->n; i++)
        sum += x[i];
    expected[0][0] = sum;
    return 0;
}

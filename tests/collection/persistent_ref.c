/* persistent_ref.c - y = 2 x + y in double (a = 2 as persistent.conf passes it). */
#include "plugin.h"

int persistent_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                   char *err, size_t errlen)
{
    const float *x = in[0], *y = in[1];
    long n = p->n;   /* N is the built-in parameter */
    (void)err;
    (void)errlen;
    for (long i = 0; i < n; i++)
        expected[0][i] = 2.0 * (double)x[i] + (double)y[i];
    return 0;
}

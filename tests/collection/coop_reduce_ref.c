/* coop_reduce_ref.c - the sum of in[0..N) in double. */
#include "plugin.h"

int coop_reduce_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                    char *err, size_t errlen)
{
    const float *x = in[0];
    long n = p->n;   /* N is the built-in parameter */
    double s = 0;
    (void)err;
    (void)errlen;
    for (long i = 0; i < n; i++)
        s += x[i];
    expected[0][0] = s;
    return 0;
}

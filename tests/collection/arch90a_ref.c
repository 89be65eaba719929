/* arch90a_ref.c - out = 3 in (3 as arch90a.conf passes it). */
#include "plugin.h"

int arch90a_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                char *err, size_t errlen)
{
    const float *x = in[0];
    long n = p->n;   /* N is the built-in parameter */
    (void)err;
    (void)errlen;
    for (long i = 0; i < n; i++)
        expected[0][i] = 3.0 * (double)x[i];
    return 0;
}

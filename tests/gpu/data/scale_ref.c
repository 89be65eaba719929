/* scale_ref.c - the C reference of cref.conf: out = FACTOR * in, built by
 * gpulab (verify = c:scale_ref.c:scale_ref). in[0] is `in`, in[1] the poisoned
 * `out`; expected[0] is out's. */
#include "plugin.h"

int scale_ref(const struct gl_params *p, const void *const *in, double *const *expected,
              char *err, size_t errlen)
{
    const float *x = in[0];
    long f = gl_param_value(p, "FACTOR");
    (void)err;
    (void)errlen;
    for (long i = 0; i < p->n; i++)
        expected[0][i] = (double)f * (double)x[i];
    return 0;
}

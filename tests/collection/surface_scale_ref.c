/* surface_scale_ref.c - surface_scale.conf's expected output array: the input
 * times 2 (the config's scale; exact in float). in[0] is the input buffer. */
#include "plugin.h"

int surface_scale_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                      char *err, size_t errlen)
{
    const long n = gl_param_value(p, "W") * gl_param_value(p, "H");
    const float *x = in[0];
    (void)err;
    (void)errlen;
    for (long i = 0; i < n; i++)
        expected[0][i] = 2.0 * x[i];
    return 0;
}

/* cluster_pairs_ref.c - out[b*TILE + t] = the sum over the blocks q of b's
 * cluster of in[q*TILE + t], clusters of CS consecutive blocks (pair_sum's
 * section sets no CS: its clusters are pairs). */
#include "plugin.h"

int cluster_pairs_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                      char *err, size_t errlen)
{
    const float *x = in[0];
    long tile = gl_param_value(p, "TILE"), blocks = gl_param_value(p, "NB");
    long cs = gl_param_value(p, "CS");
    (void)err;
    (void)errlen;
    if (cs == GL_UNSET)
        cs = 2;
    for (long b = 0; b < blocks; b++)
        for (long t = 0; t < tile; t++) {
            long first = b / cs * cs;
            double s = 0;
            for (long q = first; q < first + cs; q++)
                s += x[q * tile + t];
            expected[0][b * tile + t] = s;
        }
    return 0;
}

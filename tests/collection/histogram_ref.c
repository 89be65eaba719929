/* histogram_ref.c - the C reference of histogram.conf: the 256-bin histogram of
 * the N floats of buffer `data` (in[0]), binned as the kernels bin them
 * (floor(x * 256) in float, clamped), into the expected counts of `hist`. */
#include "plugin.h"

#include <stdio.h>

int histogram_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                  char *err, size_t errlen)
{
    const float *data = (const float *)in[0];
    double *hist = expected[0];
    long n = p->n;
    if (n < 1) {
        snprintf(err, errlen, "N = %ld", n);
        return -1;
    }
    for (int b = 0; b < 256; b++)
        hist[b] = 0.0;
    for (long i = 0; i < n; i++) {
        int b = (int)(data[i] * 256.0f);
        hist[b < 0 ? 0 : b > 255 ? 255 : b] += 1.0;
    }
    return 0;
}

/* convsep_ref.c - the C references of convsep.conf: one pass of the separable
 * convolution of convsep.cu, in double, zero outside the image:
 * dst(x, y) = sum over j in [-R, R] of k[R - j] * src(x + j, y) (rows) or
 * src(x, y + j) (columns). in[0] is the filter (the symbol c_Kernel, 2R + 1
 * taps), in[1] the output (poisoned), in[2] the source image. */
#include <stdio.h>

#include "plugin.h"

static int conv(const struct gl_params *p, const void *const *in, double *const *expected,
                int rows, char *err, size_t errlen)
{
    long w = gl_param_value(p, "W"), h = gl_param_value(p, "H");
    long r = gl_param_value(p, "KERNEL_RADIUS");
    const float *k = in[0], *src = in[2];
    if (w == GL_UNSET || h == GL_UNSET || r == GL_UNSET) {
        snprintf(err, errlen, "W, H or KERNEL_RADIUS is unset (verify_reads)");
        return -1;
    }
#pragma omp parallel for
    for (long y = 0; y < h; y++)
        for (long x = 0; x < w; x++) {
            double sum = 0.0;
            for (long j = -r; j <= r; j++) {
                long sx = rows ? x + j : x, sy = rows ? y : y + j;
                if (sx >= 0 && sx < w && sy >= 0 && sy < h)
                    sum += (double)k[r - j] * (double)src[sy * w + sx];
            }
            expected[0][y * w + x] = sum;
        }
    return 0;
}

int conv_rows_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                  char *err, size_t errlen)
{
    return conv(p, in, expected, 1, err, errlen);
}

int conv_cols_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                  char *err, size_t errlen)
{
    return conv(p, in, expected, 0, err, errlen);
}

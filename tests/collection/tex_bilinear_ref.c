/* tex_bilinear_ref.c - the expected 2x bilinear upscale of tex_bilinear.cu, in
 * double: texel centres at i + 0.5, clamped at the edges. The sample positions
 * fall a quarter or three quarters between texels, weights the texture unit's
 * 8-bit fractions hold exactly. */
#include "plugin.h"

static double at(const float *img, int W, int H, int i, int j)
{
    i = i < 0 ? 0 : i >= W ? W - 1 : i;
    j = j < 0 ? 0 : j >= H ? H - 1 : j;
    return img[(long)j * W + i];
}

int tex_bilinear_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                     char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    int W = (int)gl_param_value(p, "W"), H = (int)gl_param_value(p, "H");
    const float *img = in[1];
    double *out = expected[0];
    for (int y = 0; y < 2 * H; y++)
        for (int x = 0; x < 2 * W; x++) {
            double u = (x + 0.5) * 0.5 - 0.5, v = (y + 0.5) * 0.5 - 0.5;
            int i = u < 0 ? -1 : (int)u, j = v < 0 ? -1 : (int)v;   /* u, v >= -0.25 */
            double a = u - i, b = v - j;
            out[(long)y * 2 * W + x] = (1 - a) * (1 - b) * at(img, W, H, i, j) +
                                       a * (1 - b) * at(img, W, H, i + 1, j) +
                                       (1 - a) * b * at(img, W, H, i, j + 1) +
                                       a * b * at(img, W, H, i + 1, j + 1);
        }
    return 0;
}

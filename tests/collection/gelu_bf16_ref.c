/* gelu_bf16_ref.c - the C reference of gelu_bf16.conf: y = gelu(alpha x + bias)
 * with GELU's tanh approximation, in double from the bfloat16 inputs (ktype.h
 * reads their bits). alpha is the config's (-2.5, exact in bfloat16). in[] is y
 * (poisoned), x, bias in declaration order. */
#include <math.h>
#include <stdint.h>

#include "ktype.h"
#include "plugin.h"

int gelu_ref(const struct gl_params *p, const void *const *in, double *const *expected,
             char *err, size_t errlen)
{
    const uint16_t *x = in[1], *bias = in[2];
    const long rows = gl_param_value(p, "ROWS"), cols = gl_param_value(p, "COLS");
    const double alpha = -2.5, k = sqrt(2.0 / M_PI);
    (void)err;
    (void)errlen;
#pragma omp parallel for
    for (long i = 0; i < rows * cols; i++) {
        double v = alpha * gl_from_bf16(x[i]) + gl_from_bf16(bias[i % cols]);
        expected[0][i] = 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v)));
    }
    return 0;
}

/* adamw_ref.c - the C reference of adamw.conf: one AdamW step in double from the
 * float inputs (param, m, v arrive with their init: in[] is param, grad, m, v in
 * declaration order; the outputs are param, m, v in that order). The
 * hyperparameters are the config's, rounded to float as the kernel receives them. */
#include <math.h>

#include "plugin.h"

int adamw_ref(const struct gl_params *p, const void *const *in, double *const *expected,
              char *err, size_t errlen)
{
    const float *param = in[0], *grad = in[1], *m0 = in[2], *v0 = in[3];
    const double lr = (float)1e-3, beta1 = (float)0.9, beta2 = (float)0.999;
    const double eps = (float)1e-8, wd = (float)0.01;
    const long step = gl_param_value(p, "STEP");
    const double bc1 = 1.0 - pow(beta1, (double)step), bc2 = 1.0 - pow(beta2, (double)step);
    (void)err;
    (void)errlen;
#pragma omp parallel for
    for (long i = 0; i < p->n; i++) {
        double g = grad[i];
        double m = beta1 * m0[i] + (1.0 - beta1) * g;
        double v = beta2 * v0[i] + (1.0 - beta2) * g * g;
        double mhat = m / bc1, vhat = v / bc2;
        expected[0][i] = param[i] - lr * (mhat / (sqrt(vhat) + eps) + wd * param[i]);
        expected[1][i] = m;
        expected[2][i] = v;
    }
    return 0;
}

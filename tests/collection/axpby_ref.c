/* axpby_ref.c - the C reference of axpby.conf: y = a x + b y in double, for
 * T = float or double (the type parameter: a C reference is always handed it;
 * ktype.h says which type it stands for). a and b are the config's 1/3 and 1.5,
 * rounded to T as the kernel receives them. in[] is x, y (its init). */
#include <stdio.h>

#include "ktype.h"
#include "plugin.h"

int axpby_ref(const struct gl_params *p, const void *const *in, double *const *expected,
              char *err, size_t errlen)
{
    const int t = gl_ktype_of_param(gl_param_value(p, "T"));
    const double b = 1.5;
    if (t != GL_KT_FLOAT && t != GL_KT_DOUBLE) {
        snprintf(err, errlen, "T is %s, not float or double", gl_ktype_name(t));
        return -1;
    }
    if (t == GL_KT_FLOAT) {
        const float *x = in[0], *y = in[1];
        const double a = (float)(1.0 / 3.0);
        for (long i = 0; i < p->n; i++)
            expected[0][i] = a * x[i] + b * y[i];
    } else {
        const double *x = in[0], *y = in[1];
        const double a = 1.0 / 3.0;
        for (long i = 0; i < p->n; i++)
            expected[0][i] = a * x[i] + b * y[i];
    }
    return 0;
}

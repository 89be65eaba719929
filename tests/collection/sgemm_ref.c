/* sgemm_ref.c - the C reference of sgemm.conf: C = alpha A B + beta C in double,
 * from the float inputs; C's own values are its init (in[2] holds them: an
 * output with an init arrives as it is before the run). alpha and beta are the
 * config's (1.5 and 0.5: both exact in float). in[] follows the buffers'
 * declaration order: A, B, C. */
#include "plugin.h"

int sgemm_ref(const struct gl_params *p, const void *const *in, double *const *expected,
              char *err, size_t errlen)
{
    const long n = gl_param_value(p, "S");
    const float *A = in[0], *B = in[1], *C = in[2];
    const double alpha = 1.5, beta = 0.5;
    (void)err;
    (void)errlen;
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double acc = 0;
            for (long k = 0; k < n; k++)
                acc += (double)A[i * n + k] * B[k * n + j];
            expected[0][i * n + j] = alpha * acc + beta * C[i * n + j];
        }
    return 0;
}

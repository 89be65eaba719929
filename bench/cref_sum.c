/* cref_sum.c - the C reference of bench/cref_reduction.conf: the sum of the
 * N floats of `in` (in[0]) in double, into out[0] (expected[0][0]). It reads N
 * only (verify_reads = N), so every block size, grid and kernel of one N
 * shares one computation. OpenMP, as a user's reference may be. */
#include "plugin.h"

int sum_ref(const struct gl_params *p, const void *const *in, double *const *expected, char *err,
            size_t errlen)
{
    const float *x = in[0];
    double s = 0.0;
    (void)err;
    (void)errlen;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < p->n; i++)
        s += x[i];
    expected[0][0] = s;
    return 0;
}

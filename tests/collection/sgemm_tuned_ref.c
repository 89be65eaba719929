/* sgemm_tuned_ref.c - the C reference of sgemm_tuned.conf: C = A * B in double,
 * N x N row-major (in[0] is C, poisoned; in[1] A; in[2] B; expected[0] is C's).
 * It reads only N (verify_reads = N), so every tile shape of one N shares it. */
#include "plugin.h"

#include <stdlib.h>

int sgemm_tuned_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                    char *err, size_t errlen)
{
    const float *a = in[1], *b = in[2];
    long n = p->n;
    double *c = expected[0];
    (void)err;
    (void)errlen;
    for (long i = 0; i < n * n; i++)
        c[i] = 0.0;
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++) {
            double aik = a[i * n + k];
            const float *brow = b + k * n;
            double *crow = c + i * n;
            for (long j = 0; j < n; j++)
                crow[j] += aik * (double)brow[j];
        }
    return 0;
}

/* buckets_ref.c - the C reference of buckets.conf: each bucket's count is the
 * number of keys that fall in it. in[0] the counts (zeros), in[1] the slots,
 * in[2] the keys (randint below B). */
#include <stdio.h>

#include "plugin.h"

int buckets_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                char *err, size_t errlen)
{
    long nb = gl_param_value(p, "B"), cap = gl_param_value(p, "CAP");
    const int *keys = in[2];
    if (nb == GL_UNSET || cap == GL_UNSET || p->n == GL_UNSET) {
        snprintf(err, errlen, "N, B or CAP is unset (verify_reads)");
        return -1;
    }
    for (long b = 0; b < nb; b++)
        expected[0][b] = 0.0;
    for (long i = 0; i < p->n; i++)
        expected[0][keys[i]] += 1.0;
    for (long b = 0; b < nb; b++)
        if (expected[0][b] > (double)cap) {
            snprintf(err, errlen, "bucket %ld gets %.0f keys, more than CAP = %ld", b,
                     expected[0][b], cap);
            return -1;
        }
    return 0;
}

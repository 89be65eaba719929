/* compact_ref.c - compact.conf's expected outputs: the kept elements (above
 * 500, the config's threshold) in input order, then zeros (the output's init:
 * the slots no element reaches), and their count. `output unordered` compares
 * `out` as a multiset, so any order the atomics choose passes. */
#include "plugin.h"

int compact_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                char *err, size_t errlen)
{
    const long n = p->n;   /* N is the built-in parameter */
    const int *x = in[0];
    long kept = 0;
    (void)err;
    (void)errlen;
    for (long i = 0; i < n; i++)
        if (x[i] > 500)
            expected[0][kept++] = x[i];
    for (long i = kept; i < n; i++)
        expected[0][i] = 0;
    expected[1][0] = (double)kept;
    return 0;
}

/* embedding_ref.c - the C reference of embedding.conf. Buffers in order:
 * in[0] the table (VOCAB x DIM, normal), in[1] the token ids (randint below
 * VOCAB), in[2] out, in[3] d_tokens, in[4] d_bad. Expected: out's rows, the
 * number of tokens, and no bad id (an id outside [0, VOCAB) fails the
 * reference: the inputs are not what the config says). */
#include <stdio.h>

#include "plugin.h"

int embedding_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                  char *err, size_t errlen)
{
    long vocab = gl_param_value(p, "VOCAB"), dim = gl_param_value(p, "DIM");
    long tokens = gl_param_value(p, "TOKENS");
    const float *table = in[0];
    const int *ids = in[1];
    if (vocab == GL_UNSET || dim == GL_UNSET || tokens == GL_UNSET) {
        snprintf(err, errlen, "VOCAB, DIM or TOKENS is unset (verify_reads)");
        return -1;
    }
    for (long t = 0; t < tokens; t++) {
        if (ids[t] < 0 || ids[t] >= vocab) {
            snprintf(err, errlen, "token %ld has id %d, outside [0, %ld)", t, ids[t], vocab);
            return -1;
        }
        for (long d = 0; d < dim; d++)
            expected[0][t * dim + d] = table[(long)ids[t] * dim + d];
    }
    expected[1][0] = (double)tokens;
    expected[2][0] = 0.0;
    return 0;
}

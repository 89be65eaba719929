/* crefcache_ref.c - the C reference of crefcache.conf: out = 2 in + FACTOR.
 * It declares what it reads (verify_reads = N, FACTOR) and, when CREF_LOG is
 * set, appends one line per call with what it was handed, so that the GPU
 * suite can count its calls (once per key with the cache, once per run
 * without) and see BS, REP and the seed unset. in[0] is out (poisoned), in[1]
 * the input. */
#include <stdio.h>
#include <stdlib.h>

#include "plugin.h"

#include <string.h>

/* What p holds for name, read directly (the log shows what the reference was
 * handed; gl_param_value would fail the run for a name verify_reads omits). */
static long handed(const struct gl_params *p, const char *name)
{
    for (int i = 0; i < p->nuser; i++)
        if (strcmp(p->user[i].name, name) == 0)
            return p->user[i].v;
    return GL_UNSET;
}

int crefcache_ref(const struct gl_params *p, const void *const *in, double *const *expected,
                  char *err, size_t errlen)
{
    const float *x = in[1];
    long factor = gl_param_value(p, "FACTOR");
    const char *log = getenv("CREF_LOG");
    if (factor == GL_UNSET) {
        snprintf(err, errlen, "FACTOR is unset");
        return -1;
    }
    for (long i = 0; i < p->n; i++)
        expected[0][i] = 2.0 * x[i] + (double)factor;
    if (log) {
        FILE *f = fopen(log, "a");
        if (!f) {
            snprintf(err, errlen, "cannot open %s", log);
            return -1;
        }
        fprintf(f, "n=%ld factor=%ld bs=%ld rep=%ld seed=%ld\n", p->n, factor, p->bs,
                handed(p, "REP"), p->seed);
        fclose(f);
    }
    return 0;
}

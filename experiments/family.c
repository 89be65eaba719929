/* family.c - see family.h. */
#include "family.h"

#include <stdio.h>
#include <string.h>

/* A problem size from the params, with M and P falling back to N (square runs). */
static double dim(const struct gl_params *p, long v)
{
    return (double)(v == GL_UNSET ? p->n : v);
}

double gl_matmul_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 2.0 * dim(p, p->m) * (double)p->n * dim(p, p->p);
}

double gl_matmul_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    double m = dim(p, p->m), n = (double)p->n, k = dim(p, p->p);
    return 4.0 * (m * k + k * n + m * n);
}

double gl_stencil_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    double w = (double)(p->n - 2 * p->r), taps = (double)(2 * p->r + 1);
    return w > 0 ? w * w * taps * taps : 0.0;
}

double gl_stencil_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    double n = (double)p->n, w = (double)(p->n - 2 * p->r);
    return 4.0 * (n * n + (w > 0 ? w * w : 0.0));
}

const char *gl_stencil_check_size(const struct gl_params *p, char *buf, size_t len)
{
    if (p->n > 2 * p->r)
        return NULL;
    snprintf(buf, len, "N=%ld must exceed 2R=%ld", p->n, 2 * p->r);
    return buf;
}

double gl_vecadd_flops(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return (double)p->n;
}

double gl_vecadd_bytes(const struct gl_variant *v, const struct gl_params *p)
{
    (void)v;
    return 12.0 * (double)p->n;
}

int gl_join_tables(const struct gl_family_table *tables, int ntables, struct gl_variant *out,
                   int max)
{
    int n = 0;
    for (int i = 0; i < ntables; i++) {
        int m = *tables[i].n;
        if (m < 0 || m > max - n)
            return -1;
        memcpy(&out[n], tables[i].rows, (size_t)m * sizeof out[0]);
        n += m;
    }
    return n;
}

/* host_buffers.c - see host_buffers.h. Random values are the float stream of
 * reference.h (multiples of 2^-24 in [0, 1)); integers get u * 2^24. */
#include "host_buffers.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

size_t gl_hb_esize(enum gl_ktype t)
{
    switch (t) {
    case GL_KT_FLOAT:
    case GL_KT_INT:
    case GL_KT_UINT:
        return 4;
    case GL_KT_DOUBLE:
    case GL_KT_INT64:
    case GL_KT_UINT64:
        return 8;
    }
    return 0;
}

int gl_hb_is_float(enum gl_ktype t)
{
    return t == GL_KT_FLOAT || t == GL_KT_DOUBLE;
}

static const char *bname(const struct gl_host_buffer *b, int i, char *buf, size_t len)
{
    if (b->name && b->name[0])
        return b->name;
    snprintf(buf, len, "#%d", i);
    return buf;
}

const char *gl_hb_validate(const struct gl_host_job *j, char *buf, size_t len)
{
    char nb[16];
    int nout = 0;
    if (!j->buffers || j->nbuffers < 1 || j->nbuffers > GL_HOST_MAX_BUFFERS) {
        snprintf(buf, len, "plugin job: %d buffers (1 to %d)", j->nbuffers, GL_HOST_MAX_BUFFERS);
        return buf;
    }
    if (!j->enqueue)
        return "plugin job: no enqueue function";
    if (j->ctx_size > GL_HOST_CTX_MAX || (j->ctx_size > 0 && !j->ctx)) {
        snprintf(buf, len, "plugin job: ctx of %zu bytes (at most %d, and ctx set)", j->ctx_size,
                 GL_HOST_CTX_MAX);
        return buf;
    }
    for (int i = 0; i < j->nbuffers; i++) {
        const struct gl_host_buffer *b = &j->buffers[i];
        size_t es = gl_hb_esize(b->type);
        if (es == 0 || (unsigned)b->init > (unsigned)GL_KI_RAMP) {
            snprintf(buf, len, "plugin job: buffer %s: unknown type %d or init %d",
                     bname(b, i, nb, sizeof nb), (int)b->type, (int)b->init);
            return buf;
        }
        if (b->count < 1 || b->count > ((size_t)1 << 40) / es) {
            snprintf(buf, len, "buffer %s: %zu elements (1 to 2^40 bytes)",
                     bname(b, i, nb, sizeof nb), b->count);
            return buf;
        }
        nout += b->output != 0;
    }
    if (nout == 0)
        return "plugin job: no output buffer";
    return NULL;
}

enum gl_kinit gl_hb_init(const struct gl_host_buffer *b)
{
    return !b->output && b->init == GL_KI_POISON ? GL_KI_RANDOM : b->init;
}

unsigned long long gl_hb_stream(const struct gl_host_job *j, int b)
{
    unsigned long long k = 0;
    for (int i = 0; i < b; i++)
        k += gl_hb_init(&j->buffers[i]) == GL_KI_RANDOM;
    return k;
}

double gl_hb_get(const void *a, enum gl_ktype t, size_t i)
{
    switch (t) {
    case GL_KT_FLOAT:
        return ((const float *)a)[i];
    case GL_KT_DOUBLE:
        return ((const double *)a)[i];
    case GL_KT_INT:
        return ((const int32_t *)a)[i];
    case GL_KT_UINT:
        return ((const uint32_t *)a)[i];
    case GL_KT_INT64:
        return (double)((const int64_t *)a)[i];
    case GL_KT_UINT64:
        return (double)((const uint64_t *)a)[i];
    }
    return 0.0;
}

void gl_hb_set(void *a, enum gl_ktype t, size_t i, double v)
{
    switch (t) {
    case GL_KT_FLOAT:
        ((float *)a)[i] = (float)v;
        break;
    case GL_KT_DOUBLE:
        ((double *)a)[i] = v;
        break;
    case GL_KT_INT:
        ((int32_t *)a)[i] = (int32_t)v;
        break;
    case GL_KT_UINT:
        ((uint32_t *)a)[i] = (uint32_t)v;
        break;
    case GL_KT_INT64:
        ((int64_t *)a)[i] = (int64_t)v;
        break;
    case GL_KT_UINT64:
        ((uint64_t *)a)[i] = (uint64_t)v;
        break;
    }
}

int gl_hb_fill(void *host, enum gl_ktype t, size_t n, enum gl_kinit init, double value,
               unsigned long long seed, unsigned long long stream)
{
    switch (init) {
    case GL_KI_POISON:
        memset(host, 0xff, n * gl_hb_esize(t));
        return 0;
    case GL_KI_ZERO:
        memset(host, 0, n * gl_hb_esize(t));
        return 0;
    case GL_KI_CONST:
        for (size_t i = 0; i < n; i++)
            gl_hb_set(host, t, i, value);
        return 0;
    case GL_KI_RAMP:
        for (size_t i = 0; i < n; i++)
            gl_hb_set(host, t, i, (double)i);
        return 0;
    case GL_KI_RANDOM:
        break;
    }
    if (t == GL_KT_FLOAT) {
        gl_fill_random((float *)host, n, seed, stream);
        return 0;
    }
    float *u = malloc(n * sizeof(float));
    if (!u)
        return -1;
    gl_fill_random(u, n, seed, stream);
    for (size_t i = 0; i < n; i++)
        gl_hb_set(host, t, i, gl_hb_is_float(t) ? (double)u[i] : (double)u[i] * 16777216.0);
    free(u);
    return 0;
}

int gl_hb_unwritten(const void *a, enum gl_ktype t, size_t i)
{
    if (gl_hb_is_float(t) && isnan(gl_hb_get(a, t, i)))
        return 1;
    return gl_hb_esize(t) == 8 ? ((const uint64_t *)a)[i] == UINT64_MAX
                               : ((const uint32_t *)a)[i] == UINT32_MAX;
}

static void wrong(struct gl_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wrong(struct gl_result *r, const char *fmt, ...)
{
    if (r->status != GL_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    r->status = GL_WRONG;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

void gl_hb_check(struct gl_result *r, const struct gl_host_buffer *b, const void *got,
                 const double *want, double tol)
{
    const char *name = b->name && b->name[0] ? b->name : "?";
    size_t n = b->count, nbad = 0, first = 0;
    double maxerr = 0.0, atol = tol / 10.0;   /* absolute floor for values near zero */
    int fl = gl_hb_is_float(b->type);
    if (!want) {   /* no reference: every element written (poison left = unwritten) */
        if (b->init != GL_KI_POISON)
            return;
        if (!r->check[0])
            snprintf(r->check, sizeof r->check, "%s", GL_CHECK_WRITTEN);
        for (size_t i = 0; i < n; i++)
            if (gl_hb_unwritten(got, b->type, i) && nbad++ == 0)
                first = i;
        if (nbad)
            wrong(r, "output '%s': %zu of %zu elements not written (first at %zu)", name, nbad, n,
                  first);
        return;
    }
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
    r->check_points += (long long)n;
    for (size_t i = 0; i < n; i++) {
        double g = gl_hb_get(got, b->type, i), w = want[i], d = fabs(g - w), err;
        int bad;
        if (fl) {
            err = isnan(g) || isnan(w) ? INFINITY : g == w ? 0.0 : w != 0.0 ? d / fabs(w) : d;
            bad = isnan(g) || isnan(w) || !(g == w || d <= atol + tol * fabs(w));
        } else {
            bad = isnan(w) || g != w;
            err = !bad ? 0.0 : w != 0.0 ? d / fabs(w) : d;
            if (bad && !(err > 0.0))
                err = INFINITY;
        }
        if (err > maxerr)
            maxerr = err;
        if (bad && nbad++ == 0)
            first = i;
    }
    if (maxerr > r->max_rel_err)
        r->max_rel_err = maxerr;
    if (nbad) {
        char tl[40] = "";
        if (fl)
            snprintf(tl, sizeof tl, " (tolerance %.1e)", tol);
        wrong(r, "output '%s': %zu of %zu elements differ from the reference%s; first at %zu: "
                 "got %.9g want %.9g", name, nbad, n, tl, first, gl_hb_get(got, b->type, first),
              want[first]);
    }
}

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
#include "rng.h"

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
        size_t es = gl_ty_esize(b->type);
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

int gl_hb_fill(void *host, enum gl_ktype t, size_t n, enum gl_kinit init, double value,
               unsigned long long seed, unsigned long long stream)
{
    if (init == GL_KI_RANDOM)
        return gl_hb_fill2(host, t, n, init, 0.0, 1.0, seed, stream);
    return gl_hb_fill2(host, t, n, init, value, 0.0, seed, stream);
}

int gl_hb_fill2(void *host, enum gl_ktype t, size_t n, enum gl_kinit init, double a, double b,
                unsigned long long seed, unsigned long long stream)
{
    if (init == GL_KI_POISON || init == GL_KI_ZERO) {
        memset(host, init == GL_KI_ZERO ? 0 : 0xff, n * gl_ty_esize(t));
        return 0;
    }
    if (init == GL_KI_FILE)
        return -1;   /* the harness reads the file itself */
    if (init == GL_KI_RANDOM && t == GL_KT_FLOAT && a == 0.0 && b == 1.0) {
        gl_fill_random((float *)host, n, seed, stream);   /* the common case, as the families fill */
        return 0;
    }
    unsigned long long s0 = gl_rng_state(seed, stream);
    for (size_t i = 0; i < n; i++)
        gl_ty_set(host, t, i, gl_ty_init_value2(t, init, a, b, s0, i));
    return 0;
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

void gl_hb_verdict(struct gl_result *r, const char *name, enum gl_ktype t, size_t n,
                   const char *ref, double tol, const struct gl_hb_found *f)
{
    if (!ref) {
        if (!r->check[0])
            snprintf(r->check, sizeof r->check, "%s", GL_CHECK_WRITTEN);
        if (f->nbad)
            wrong(r, "output '%s': %llu of %zu elements not written (first at %llu)", name,
                  f->nbad, n, f->first);
        return;
    }
    snprintf(r->check, sizeof r->check, "%s", GL_CHECK_FULL);
    r->check_points += (long long)n;
    if (f->maxerr > r->max_rel_err)
        r->max_rel_err = f->maxerr;
    if (f->nbad) {
        char tl[40] = "";
        if (gl_ty_is_float(t))
            snprintf(tl, sizeof tl, " (tolerance %.1e)", tol);
        wrong(r, "output '%s': %llu of %zu elements differ from %s%s; first at %llu: got %.9g "
                 "want %.9g", name, f->nbad, n, ref, tl, f->first, f->got, f->want);
    }
}

void gl_hb_check(struct gl_result *r, const struct gl_host_buffer *b, const void *got,
                 const double *want, double tol)
{
    const char *name = b->name && b->name[0] ? b->name : "?";
    struct gl_hb_found f = { 0, 0, 0.0, 0.0, 0.0 };
    size_t n = b->count;
    if (!want && b->init != GL_KI_POISON)   /* no reference, and no poison to find */
        return;
    if (!(tol > 0.0))
        tol = gl_ty_default_tol(b->type);
    for (size_t i = 0; i < n; i++) {
        double err = 0.0;
        int bad = want ? gl_ty_bad(got, b->type, i, want, GL_KT_DOUBLE, tol, &err)
                       : gl_ty_unwritten(got, b->type, i);
        if (err > f.maxerr)
            f.maxerr = err;
        if (bad && f.nbad++ == 0) {
            f.first = i;
            f.got = gl_ty_get(got, b->type, i);
            f.want = want ? want[i] : 0.0;
        }
    }
    gl_hb_verdict(r, name, b->type, n, want ? "the reference" : NULL, tol, &f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);   /* NaN last */
    return x < y ? -1 : x > y;
}

int gl_hb_unordered(const void *got, int t, const void *want, int wt, size_t n, double tol,
                    struct gl_hb_found *f)
{
    double *g = malloc(n * sizeof *g), *w = malloc(n * sizeof *w);
    if (!g || !w) {
        free(g);
        free(w);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        g[i] = gl_ty_get(got, t, i);
        w[i] = gl_ty_get(want, wt, i);
    }
    qsort(g, n, sizeof *g, cmp_double);
    qsort(w, n, sizeof *w, cmp_double);
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        double err = 0.0;
        int bad;
        /* both sorted copies are doubles now: the float rule for a float type,
         * equality of values for an integer one (as gl_ty_bad against doubles) */
        if (gl_ty_is_float(t)) {
            bad = gl_ty_bad(g, GL_KT_DOUBLE, i, w, GL_KT_DOUBLE, tol, &err);
        } else {
            bad = isnan(w[i]) || g[i] != w[i];
            double d = fabs(g[i] - w[i]);
            err = !bad ? 0.0 : w[i] != 0.0 ? d / fabs(w[i]) : d;
            if (bad && !(err > 0.0))
                err = INFINITY;
        }
        if (err > f->maxerr)
            f->maxerr = err;
        if (bad && f->nbad++ == 0) {
            f->first = i;
            f->got = g[i];
            f->want = w[i];
        }
    }
    free(g);
    free(w);
    return 0;
}

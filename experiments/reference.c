/* reference.c - see reference.h: random inputs, float64 references, their
 * cache, poisoning and verification. Compiled into the driver and into the GPU
 * plugin. Must not time anything nor decide a run's status. */
#include "reference.h"
#include "rng.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- inputs ------------------------------------------------------------------ */

void gl_fill_random(float *x, size_t n, unsigned long long seed, unsigned long long stream)
{
    const unsigned long long s0 = gl_rng_state(seed, stream);
    long long count = (long long)n;
#pragma omp parallel for schedule(static) if (count >= 65536)
    for (long long i = 0; i < count; i++)
        x[i] = gl_rng_float(s0, (unsigned long long)i);
}

void gl_fill_nan(float *x, size_t n)
{
    long long count = (long long)n;
#pragma omp parallel for schedule(static) if (count >= 65536)
    for (long long i = 0; i < count; i++)
        x[i] = NAN;
}

void gl_fill_zero(void *p, size_t bytes)
{
    unsigned char *b = p;
    long long chunks = (long long)((bytes + 65535) / 65536);
#pragma omp parallel for schedule(static) if (chunks >= 16)
    for (long long c = 0; c < chunks; c++) {
        size_t at = (size_t)c * 65536, len = bytes - at < 65536 ? bytes - at : 65536;
        memset(b + at, 0, len);
    }
}

void gl_fill_nan64(double *x, size_t n)
{
    long long count = (long long)n;
#pragma omp parallel for schedule(static) if (count >= 65536)
    for (long long i = 0; i < count; i++)
        x[i] = NAN;
}

/* ---- float64 references --------------------------------------------------------- */

void gl_ref_matmul_into(const float *A, const float *B, double *C, long M, long N, long P)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < M; i++) {
        double *c = C + (size_t)i * (size_t)N;
        for (long j = 0; j < N; j++)
            c[j] = 0.0;
        for (long k = 0; k < P; k++) {
            const double a = A[(size_t)i * (size_t)P + (size_t)k];
            const float *b = B + (size_t)k * (size_t)N;
            for (long j = 0; j < N; j++)
                c[j] += a * (double)b[j];
        }
    }
}

void gl_ref_stencil_into(const float *in, double *out, long N, long R)
{
    const long W = N - 2 * R, D = 2 * R + 1;
    if (R < 0 || W <= 0)
        return;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < W; i++)
        for (long j = 0; j < W; j++) {
            double s = 0.0;
            for (long a = 0; a < D; a++) {
                const float *row = in + (size_t)(i + a) * (size_t)N + (size_t)j;
                for (long b = 0; b < D; b++)
                    s += (double)row[b];
            }
            out[(size_t)i * (size_t)W + (size_t)j] = s;
        }
}

void gl_ref_vecadd_into(const float *a, const float *b, double *c, long N)
{
#pragma omp parallel for schedule(static) if (N >= 65536)
    for (long i = 0; i < N; i++)
        c[i] = (double)a[i] + (double)b[i];
}

/* ---- cache ------------------------------------------------------------------------- */

/* A fingerprint of the inputs' bits: FNV-1a over 32-bit words in a fixed number
 * of chunks (hashed in parallel), the chunk hashes folded in order, so the
 * value does not depend on the thread count. */
#define FP_CHUNKS 64

static unsigned long long fingerprint(const float *x, size_t n, unsigned long long h)
{
    unsigned long long part[FP_CHUNKS];
    const size_t per = (n + FP_CHUNKS - 1) / FP_CHUNKS;
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (int c = 0; c < FP_CHUNKS; c++) {
        unsigned long long f = 0xCBF29CE484222325ull;
        size_t lo = (size_t)c * per, hi = lo + per < n ? lo + per : n;
        for (size_t i = lo; i < hi; i++) {
            uint32_t w;
            memcpy(&w, &x[i], sizeof w);
            f = (f ^ w) * 0x100000001B3ull;
        }
        part[c] = f;
    }
    h = gl_rng_mix(h ^ (unsigned long long)n);
    for (int c = 0; c < FP_CHUNKS; c++)
        h = gl_rng_mix(h ^ part[c]);
    return h;
}

enum ref_family { REF_MATMUL, REF_STENCIL, REF_VECADD };

struct ref_key {
    enum ref_family family;
    long d0, d1, d2;            /* matmul M N P; stencil N R; vecadd N */
    long seed;
    unsigned long long fp;      /* fingerprint of the inputs */
};

struct ref_entry {
    int used;
    struct ref_key key;
    double *data;
    size_t count;
    unsigned long long last_use;
};

static struct {
    struct ref_entry e[GL_REF_CACHE_SLOTS];
    size_t limit;               /* 0 = not set yet: the default */
    size_t bytes;
    unsigned long long clock;
    long hits, misses;
} cache;

static size_t cache_limit(void)
{
    return cache.limit ? cache.limit : (size_t)GL_REF_CACHE_DEFAULT_BYTES;
}

static void entry_free(struct ref_entry *e)
{
    if (!e->used)
        return;
    free(e->data);
    cache.bytes -= e->count * sizeof(double);
    memset(e, 0, sizeof *e);
}

void gl_ref_cache_set_limit(size_t bytes)
{
    cache.limit = bytes ? bytes : 1;
}

void gl_ref_cache_clear(void)
{
    for (int i = 0; i < GL_REF_CACHE_SLOTS; i++)
        entry_free(&cache.e[i]);
}

void gl_ref_cache_stats(struct gl_ref_cache_stats *s)
{
    s->hits = cache.hits;
    s->misses = cache.misses;
    s->bytes = cache.bytes;
    s->entries = 0;
    for (int i = 0; i < GL_REF_CACHE_SLOTS; i++)
        s->entries += cache.e[i].used;
}

static int key_equal(const struct ref_key *a, const struct ref_key *b)
{
    return a->family == b->family && a->d0 == b->d0 && a->d1 == b->d1 && a->d2 == b->d2 &&
           a->seed == b->seed && a->fp == b->fp;
}

static struct ref_entry *cache_find(const struct ref_key *k)
{
    for (int i = 0; i < GL_REF_CACHE_SLOTS; i++)
        if (cache.e[i].used && key_equal(&cache.e[i].key, k))
            return &cache.e[i];
    return NULL;
}

static struct ref_entry *cache_lru(void)
{
    struct ref_entry *old = NULL;
    for (int i = 0; i < GL_REF_CACHE_SLOTS; i++)
        if (cache.e[i].used && (!old || cache.e[i].last_use < old->last_use))
            old = &cache.e[i];
    return old;
}

/* Make room for a new entry of bytes: evict least recently used entries until
 * a slot is free and the new one fits the limit (or the cache is empty). */
static struct ref_entry *cache_make_room(size_t bytes)
{
    for (;;) {
        struct ref_entry *free_slot = NULL;
        for (int i = 0; i < GL_REF_CACHE_SLOTS && !free_slot; i++)
            if (!cache.e[i].used)
                free_slot = &cache.e[i];
        if (free_slot && (cache.bytes == 0 || cache.bytes + bytes <= cache_limit()))
            return free_slot;
        entry_free(cache_lru());
    }
}

/* count values, or 0 when a product overflows size_t. */
static size_t count_of(long a, long b)
{
    if (a < 1 || b < 1 || (unsigned long)a > SIZE_MAX / sizeof(double) / (unsigned long)b)
        return 0;
    return (size_t)a * (size_t)b;
}

/* Look the key up; on a miss allocate an entry of count values (the caller
 * computes into it). *fresh says which. NULL with err when out of memory. */
static struct ref_entry *cache_get(const struct ref_key *k, size_t count,
                                   int *fresh, char *err, size_t errlen)
{
    struct ref_entry *e = cache_find(k);
    cache.clock++;
    if (e) {
        cache.hits++;
        e->last_use = cache.clock;
        *fresh = 0;
        return e;
    }
    cache.misses++;
    size_t bytes = count * sizeof(double);
    double *data = malloc(bytes);
    if (!data) {   /* the cache itself may be what fills memory: empty it, try once more */
        gl_ref_cache_clear();
        data = malloc(bytes);
    }
    if (!data) {
        snprintf(err, errlen, "out of memory for the float64 reference (%zu bytes)", bytes);
        return NULL;
    }
    e = cache_make_room(bytes);
    e->used = 1;
    e->key = *k;
    e->data = data;
    e->count = count;
    e->last_use = cache.clock;
    cache.bytes += bytes;
    *fresh = 1;
    return e;
}

const double *gl_ref_matmul(const float *A, const float *B, long M, long N, long P, long seed,
                            char *err, size_t errlen)
{
    size_t count = count_of(M, N);
    if (count == 0 || count_of(M, P) == 0 || count_of(P, N) == 0) {
        snprintf(err, errlen, "matmul reference: sizes out of range (M=%ld N=%ld P=%ld)", M, N,
                 P);
        return NULL;
    }
    struct ref_key k = { REF_MATMUL, M, N, P, seed, 0 };
    k.fp = fingerprint(B, (size_t)P * (size_t)N, fingerprint(A, (size_t)M * (size_t)P, 1));
    int fresh;
    struct ref_entry *e = cache_get(&k, count, &fresh, err, errlen);
    if (!e)
        return NULL;
    if (fresh)
        gl_ref_matmul_into(A, B, e->data, M, N, P);
    return e->data;
}

const double *gl_ref_stencil(const float *in, long N, long R, long seed, char *err,
                             size_t errlen)
{
    if (R < 0 || N <= 2 * R || count_of(N, N) == 0) {
        snprintf(err, errlen, "stencil reference: need R >= 0 and N > 2R (N=%ld R=%ld)", N, R);
        return NULL;
    }
    const long W = N - 2 * R;
    struct ref_key k = { REF_STENCIL, N, R, 0, seed, 0 };
    k.fp = fingerprint(in, (size_t)N * (size_t)N, 2);
    int fresh;
    struct ref_entry *e = cache_get(&k, (size_t)W * (size_t)W, &fresh, err, errlen);
    if (!e)
        return NULL;
    if (fresh)
        gl_ref_stencil_into(in, e->data, N, R);
    return e->data;
}

const double *gl_ref_vecadd(const float *a, const float *b, long N, long seed, char *err,
                            size_t errlen)
{
    if (count_of(N, 1) == 0) {
        snprintf(err, errlen, "vecadd reference: size out of range (N=%ld)", N);
        return NULL;
    }
    struct ref_key k = { REF_VECADD, N, 0, 0, seed, 0 };
    k.fp = fingerprint(b, (size_t)N, fingerprint(a, (size_t)N, 3));
    int fresh;
    struct ref_entry *e = cache_get(&k, (size_t)N, &fresh, err, errlen);
    if (!e)
        return NULL;
    if (fresh)
        gl_ref_vecadd_into(a, b, e->data, N);
    return e->data;
}

/* ---- verification -------------------------------------------------------------- */

double gl_tolerance(long reduction_len)
{
    if (reduction_len < 1)
        reduction_len = 1;
    return (double)reduction_len * FLT_EPSILON + 1e-6;
}

static double rel_err(float got, double want)
{
    if (!isfinite(got))
        return INFINITY;
    double d = fabs((double)got - want);
    return want != 0.0 ? d / fabs(want) : d;
}

double gl_verify_full(const float *out, const double *ref, size_t n, long row_len, double tol,
                      struct gl_verify_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->n = n;
    rep->tol = tol;
    if (row_len <= 0)
        row_len = n > 0 ? (long)n : 1;
    for (size_t i = 0; i < n; i++) {
        double e = rel_err(out[i], ref[i]);
        if (isnan(e))          /* a NaN reference: nothing can match it */
            e = INFINITY;
        if (e > rep->max_rel_err)
            rep->max_rel_err = e;
        if (e <= tol)
            continue;
        if (rep->nfirst < GL_VERIFY_FIRST) {
            struct gl_verify_mismatch *m = &rep->first[rep->nfirst++];
            m->row = (long)(i / (size_t)row_len);
            m->col = (long)(i % (size_t)row_len);
            m->got = out[i];
            m->want = ref[i];
        }
        rep->nbad++;
    }
    if (rep->nbad == 0)
        snprintf(rep->summary, sizeof rep->summary,
                 "all %zu outputs within tolerance %.1e (max relative error %.2e)", n, tol,
                 rep->max_rel_err);
    else
        snprintf(rep->summary, sizeof rep->summary,
                 "%zu of %zu outputs outside tolerance %.1e; first at (%ld,%ld): got %.9g want "
                 "%.9g",
                 rep->nbad, n, tol, rep->first[0].row, rep->first[0].col,
                 (double)rep->first[0].got, rep->first[0].want);
    return rep->max_rel_err;
}

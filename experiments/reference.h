/* reference.h - what CPU baselines and GPU kernels are checked against: the
 * deterministic random inputs, the float64 references of each family, a small
 * cache of references, NaN poisoning, and the element-by-element verification
 * with its tolerance. The CPU baselines use all of it; the GPU plugin (which
 * checks on the device) its inputs for host memory and the tolerance. Plain C
 * (callable from C++). Must not time anything nor decide a run's status. */
#ifndef GL_REFERENCE_H
#define GL_REFERENCE_H

#include <stddef.h>

#include "gpulab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- inputs ---------------------------------------------------------------- */

/* x[0..n) = uniform floats in [0,1), each a multiple of 2^-24 (so that sums of
 * a few thousand of them are exact in double). Element i of (seed, stream) is
 * a pure function of the three, the same on every machine and thread count:
 * the (i+1)-th output of splitmix64 started from a state mixed from seed and
 * stream, top 24 bits. Different streams give independent sequences: use
 * stream 0 for A (or the stencil input) and 1 for B. */
void gl_fill_random(float *x, size_t n, unsigned long long seed, unsigned long long stream);

/* x[0..n) = quiet NaN: an output element that a run leaves unwritten fails
 * verification. */
void gl_fill_nan(float *x, size_t n);
void gl_fill_nan64(double *x, size_t n);
/* bytes of p set to 0 on all cores (a new block's pages touched in parallel). */
void gl_fill_zero(void *p, size_t bytes);

/* ---- float64 references, into the caller's buffer ---------------------------- */

/* C = A.B with A M x P, B P x N, C M x N, all row-major; every product and sum
 * in double (i-k-j order, rows in parallel with OpenMP). */
void gl_ref_matmul_into(const float *A, const float *B, double *C, long M, long N, long P);
/* out[(N-2R) x (N-2R)]: out[i][j] = sum of in[i+a][j+b], a, b in 0..2R, where
 * in is N x N. Nothing is written when N <= 2R. */
void gl_ref_stencil_into(const float *in, double *out, long N, long R);
/* c[i] = a[i] + b[i] in double. */
void gl_ref_vecadd_into(const float *a, const float *b, double *c, long N);

/* ---- cached references ----------------------------------------------------------- */

/* The reference of the given inputs, from the cache when the family, sizes,
 * seed and a fingerprint of the inputs' bits all match, else computed and
 * cached. seed is part of the key only (pass the seed the inputs were filled
 * with); the fingerprint makes a reuse with other inputs impossible. The
 * returned array (M x N, (N-2R)^2, N values) belongs to the cache: valid until
 * the next gl_ref_* or gl_ref_cache_* call, never freed by the caller. NULL
 * with err (sizes out of range, out of memory) on failure. Not thread-safe:
 * call from one thread. */
const double *gl_ref_matmul(const float *A, const float *B, long M, long N, long P, long seed,
                            char *err, size_t errlen);
const double *gl_ref_stencil(const float *in, long N, long R, long seed, char *err,
                             size_t errlen);
const double *gl_ref_vecadd(const float *a, const float *b, long N, long seed, char *err,
                            size_t errlen);

/* The cache holds at most GL_REF_CACHE_SLOTS references and, beyond the most
 * recent one (always kept, whatever its size), at most the byte limit; the
 * least recently used go first. Default limit: GL_REF_CACHE_DEFAULT_BYTES. */
#define GL_REF_CACHE_SLOTS 8
#define GL_REF_CACHE_DEFAULT_BYTES (1024ull << 20)

void gl_ref_cache_set_limit(size_t bytes);   /* 0: keep only the most recent */
/* Free every cached reference (pointers handed out become invalid). */
void gl_ref_cache_clear(void);
struct gl_ref_cache_stats {
    long hits, misses;
    int entries;
    size_t bytes;
};
void gl_ref_cache_stats(struct gl_ref_cache_stats *s);

/* ---- verification -------------------------------------------------------------- */

/* Tolerance on the relative error for a reduction of len terms in float:
 * len * FLT_EPSILON + 1e-6 (len < 1 counts as 1). Reduction lengths: P for
 * matmul, (2R+1)^2 for stencil, 1 for vecadd. */
double gl_tolerance(long reduction_len);

#define GL_VERIFY_FIRST 4   /* mismatches reported one by one */

struct gl_verify_mismatch {
    long row, col;
    float got;
    double want;
};

struct gl_verify_report {
    size_t n;              /* outputs checked */
    size_t nbad;           /* outside tolerance; NaN and infinite outputs count */
    double tol;
    double max_rel_err;    /* INFINITY when any output is NaN or infinite */
    int nfirst;            /* entries of first[] used */
    struct gl_verify_mismatch first[GL_VERIFY_FIRST];
    char summary[GL_REASON_MAX];  /* one line, fits gl_result.reason */
};

/* Check out[0..n) against ref element by element. The relative error of an
 * element is |got - want| / |want|, or |got| where want is 0; an element is bad
 * unless that error is <= tol. row_len (> 0) only places the mismatches as
 * (row, col); <= 0 means one row. Fills rep (summary like "3 of 4194304
 * outputs outside tolerance 3.7e-04; first at (12,7): got 1.5 want 3.25") and
 * returns rep->max_rel_err. */
double gl_verify_full(const float *out, const double *ref, size_t n, long row_len, double tol,
                      struct gl_verify_report *rep);


#ifdef __cplusplus
}
#endif

#endif

/* host_buffers.h - the typed buffers of a user's plugin job (struct
 * gl_host_job, plugin.h), shared by the two adapters that run such jobs
 * through a harness (cpu/cpu_host.c, gpu/host_gpu.cu): validating a job's
 * buffers, the random stream of each, and, for the CPU path, filling and
 * poisoning host memory of any element type and checking an output against
 * the expected values in double (typed.h's rules, which the GPU path applies
 * on the device).
 * Plain C, callable from C++. Must not allocate device memory, time anything
 * or decide anything but an output's verdict. */
#ifndef GL_HOST_BUFFERS_H
#define GL_HOST_BUFFERS_H

#include <stddef.h>

#include "plugin.h"
#include "typed.h"   /* element sizes, access and verdicts (gl_ty_*) */

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when the job's buffers can be run (1..GL_HOST_MAX_BUFFERS, known types
 * and inits, counts >= 1 that fit in 2^40 bytes, at least one output, an
 * enqueue, ctx_size <= GL_HOST_CTX_MAX), else why not (written into buf). */
const char *gl_hb_validate(const struct gl_host_job *j, char *buf, size_t len);

/* The init buffer b starts from: an input's GL_KI_POISON means random. */
enum gl_kinit gl_hb_init(const struct gl_host_buffer *b);
/* The random stream of buffer b: k for the k-th buffer whose init is random
 * (in order, inputs and outputs), as kernel sections number them. */
unsigned long long gl_hb_stream(const struct gl_host_job *j, int b);

/* host[0..n) of type t as init says (random: stream of seed); GL_KI_POISON
 * sets every bit (NaN for floats). 0, or -1 when out of host memory. */
int gl_hb_fill(void *host, enum gl_ktype t, size_t n, enum gl_kinit init, double value,
               unsigned long long seed, unsigned long long stream);
/* The same with a kernel section's bounds (typed.h gl_ty_init_value2): const
 * a; random in [a, b) (floats); randint in [a, b); normal with mean a and
 * deviation b. -1 for GL_KI_FILE (not a function of the seed). */
int gl_hb_fill2(void *host, enum gl_ktype t, size_t n, enum gl_kinit init, double a, double b,
                unsigned long long seed, unsigned long long stream);

/* What a check of one output found, on the host or on the device. */
struct gl_hb_found {
    unsigned long long nbad;    /* bad elements (the written-only check: unwritten ones) */
    unsigned long long first;   /* the first of them */
    double got, want;           /* element `first`: the output's, the reference's */
    double maxerr;              /* the largest relative error */
};

/* Record in r the check of output `name` (type t, n elements): the check
 * method and points, the maximum error; a mismatch makes r wrong, with the
 * first mismatch as reason (the first wrong output's). ref names the reference
 * in that reason ("the reference", "'naive'"); NULL: the written-only check. */
void gl_hb_verdict(struct gl_result *r, const char *name, enum gl_ktype t, size_t n,
                   const char *ref, double tol, const struct gl_hb_found *f);

/* Check output b (got, count elements, just computed) against want (count
 * doubles), within tol relative (typed.h's gl_ty_bad; tol 0: the type's
 * default, gl_ty_default_tol). Without want, an output
 * without init only has to be written (no poison left). Through gl_hb_verdict. */
void gl_hb_check(struct gl_result *r, const struct gl_host_buffer *b, const void *got,
                 const double *want, double tol);

/* An output compared as a multiset (`output unordered`): got (type t) and
 * want (type wt: t, or GL_KT_DOUBLE for a host reference's values), n elements
 * each, read as doubles and sorted (NaN last), then compared element by
 * element with gl_ty_bad's rules (floats within tol, integers exactly), into f
 * (f->first: the index in sorted order). 0, or -1 when out of memory. */
int gl_hb_unordered(const void *got, int t, const void *want, int wt, size_t n, double tol,
                    struct gl_hb_found *f);

#ifdef __cplusplus
}
#endif

#endif

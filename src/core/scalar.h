/* scalar.h - a kernel section's scalar arguments as C writes them (`args = y,
 * x, float 1/sqrt(N), int N`): the value of `TYPE EXPR` at a point, in the
 * bytes the kernel receives. An integer type's expression is the config's
 * integer language (expr.h: division truncates) and must fit the type. A
 * floating type's (float, double, half, bfloat16) is evaluated in double: real
 * division, decimal and hexadecimal floating literals (0.5, 1e-3, 0x1.8p-3, an
 * optional f suffix), + - * /, parentheses, the point's integer parameters
 * (built-in and named) and the functions sqrt, exp, log, pow, min and max; the
 * result is rounded once to the type (to nearest, ties to even). A result that
 * is not a number, overflows the type or is non-zero and rounds to zero is an
 * error. A type parameter (ktype.h) is no number: naming one is an error.
 * Shared by the config reader (parse-time checks, constants evaluated at once),
 * the plan's checks, the store (the values of a run) and the GPU plugin (the
 * launch). Must not know about files, sections or variants: callers add
 * file:line. */
#ifndef GL_SCALAR_H
#define GL_SCALAR_H

#include <stddef.h>

#include "expr.h"
#include "ktype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One scalar at a point. */
struct gl_scalar {
    int type;                /* enum gl_ktype */
    long long i;             /* integer types: the value */
    double d;                /* floating types: the value after rounding (exact) */
    size_t size;             /* bytes the kernel receives (gl_ktype_size) */
    unsigned char bytes[8];  /* those bytes (16-bit floats: their bits) */
};

/* 1 for float, double, half and bfloat16. */
int gl_scalar_is_float(int type);

/* Check expr's syntax and names for a scalar of type at parse time: 0, or -1
 * with a message. Adds what it names to sc->used_params / used_names. */
int gl_scalar_check(int type, const char *expr, struct gl_expr_scope *sc, char *err,
                    size_t errlen);

/* 1 when expr names no parameter (its value is known when the config is read). */
int gl_scalar_is_constant(const char *expr);

/* The scalar of type at p (p may be NULL for a constant): 0 with *out, or -1
 * with a message (out of range for the type, not a number, a parameter p lacks). */
int gl_scalar_eval(int type, const char *expr, const struct gl_params *p, struct gl_scalar *out,
                   char *err, size_t errlen);

/* The value as text: an integer in decimal, a floating value in the fewest
 * digits that read back as the same value of its type ("0.1", "1e-08"). */
void gl_scalar_format(const struct gl_scalar *s, char *buf, size_t len);

/* The element type of a buffer or scalar declared with type t, or with the
 * type parameter tparam when it is not "" (kernel.h), at p: the type, or -1
 * when p gives tparam no type. */
int gl_ktype_at(int t, const char *tparam, const struct gl_params *p);

#ifdef __cplusplus
}
#endif

#endif

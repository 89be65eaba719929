/* expr.h - the expression language of configs: `where` constraints, and (in
 * kernel sections) launch shapes, buffer sizes, arguments and counts. 64-bit
 * integers, parameter names (built-in ones, and a kernel section's named ones,
 * read from gl_params.user), "strings", + - * / % << >>, comparisons, && || !,
 * parentheses, with C precedence, and the functions ceil(a/b) (ceiling division
 * when its argument is a division, else the value), cdiv(a,b) (ceiling), div(a,b)
 * (floor), min(a,b), max(a,b), log2(a) (floor, a >= 1), pow(a,b) (b >= 0). Nesting is limited to GL_EXPR_MAX_DEPTH levels. Shared by the driver (parse-time checks,
 * expansion, plan-time checks) and the GPU plugin (a user kernel's launch).
 * Must not know about files, sections or variants: callers add file:line. */
#ifndef GL_EXPR_H
#define GL_EXPR_H

#include <stddef.h>

#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_EXPR_MAX_DEPTH 256

/* What names an expression may use, and (filled by the check) what it used. */
struct gl_expr_scope {
    unsigned params;                       /* GL_PBIT() of the built-in parameters */
    int nnames;                            /* named parameters (kernel sections) */
    const char (*names)[GL_UPARAM_NAME];
    unsigned used_params;                  /* out: GL_PBIT() of built-in ones named */
    unsigned used_names;                   /* out: bit i = names[i] named */
};

/* Check syntax and names at parse time: 0, or -1 with a message (no file:line).
 * set_params: GL_PBIT() of the parameters a name may refer to. */
int gl_expr_check(const char *expr, unsigned set_params, char *err, size_t errlen);
/* The same with named parameters; adds what the expression names to
 * sc->used_params and sc->used_names (also when it fails). */
int gl_expr_check_scope(const char *expr, struct gl_expr_scope *sc, char *err, size_t errlen);
/* Evaluate against p: 1 true, 0 false, -1 error (message in err). A name that
 * is not a built-in parameter is looked up in p->user. */
int gl_expr_eval(const char *expr, const struct gl_params *p, char *err, size_t errlen);
/* Evaluate to a number (launch shapes, sizes, counts): 0 with *out, or -1 with
 * a message (division by zero, overflow, text where a number is needed...). */
int gl_expr_value(const char *expr, const struct gl_params *p, long long *out, char *err,
                  size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

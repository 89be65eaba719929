/* expr.h - the expression language of configs: `where` constraints, and (in
 * kernel sections) launch shapes, buffer sizes, arguments and counts. 64-bit
 * integers, parameter names, "strings", + - * / % << >>, comparisons, && || !,
 * parentheses, with C precedence. Shared by the driver (parse-time checks,
 * expansion, plan-time checks) and the GPU plugin (a user kernel's launch).
 * Must not know about files, sections or variants: callers add file:line. */
#ifndef GL_EXPR_H
#define GL_EXPR_H

#include <stddef.h>

#include "params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check syntax and names at parse time: 0, or -1 with a message (no file:line).
 * set_params: GL_PBIT() of the parameters a name may refer to. */
int gl_expr_check(const char *expr, unsigned set_params, char *err, size_t errlen);
/* Evaluate against p: 1 true, 0 false, -1 error (message in err). */
int gl_expr_eval(const char *expr, const struct gl_params *p, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

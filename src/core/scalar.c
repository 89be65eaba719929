/* scalar.c - a kernel section's scalar arguments (see scalar.h): integer types
 * through the config's integer language (expr.c), floating types through a
 * small recursive-descent evaluator in double of its own, then rounded once to
 * the type. The evaluator is checked (names, syntax) by the same code that
 * evaluates, as expr.c does; its nesting depth is bounded.
 * Must not know about files, sections or variants: callers add file:line. */
#include "scalar.h"
#include "nearest.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const functions[] = { "sqrt", "exp", "log", "pow", "min", "max", NULL };

struct fx {
    const char *s;
    size_t pos;
    int eval;                        /* 1: compute against p */
    const struct gl_params *p;
    struct gl_expr_scope *sc;        /* check: the names a name may be, and what was used */
    int names;                       /* out: a parameter was named */
    char *err;
    size_t errlen;
    int depth;
};

static int fail(struct fx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_space(struct fx *x)
{
    while (x->s[x->pos] == ' ' || x->s[x->pos] == '\t')
        x->pos++;
}

static const char *where_at(struct fx *x, char *buf, size_t len)
{
    if (!x->s[x->pos])
        snprintf(buf, len, "at the end");
    else
        snprintf(buf, len, "at column %zu ('%.12s')", x->pos + 1, x->s + x->pos);
    return buf;
}

static int accept(struct fx *x, char c)
{
    skip_space(x);
    if (x->s[x->pos] != c)
        return 0;
    x->pos++;
    return 1;
}

static int is_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_char(char c)
{
    return is_start(c) || (c >= '0' && c <= '9');
}

static int parse_add(struct fx *x, double *v);

static int enter(struct fx *x)
{
    if (++x->depth > GL_EXPR_MAX_DEPTH)
        return fail(x, "expression nested deeper than %d", GL_EXPR_MAX_DEPTH);
    return 0;
}

/* A parameter's value: built-in integer ones and named ones; a type parameter
 * or a text one is an error. */
static int param(struct fx *x, const char *name, double *v)
{
    const struct gl_param_def *d = gl_param_by_name(name);
    x->names = 1;
    *v = 0;
    if (d && d->is_text)
        return fail(x, "'%s' is text, not a number", name);
    if (!x->eval) {
        if (d && x->sc && (x->sc->params & GL_PBIT(d->id))) {
            x->sc->used_params |= GL_PBIT(d->id);
            return 0;
        }
        if (d && !x->sc)
            return 0;
        for (int i = 0; x->sc && i < x->sc->nnames; i++)
            if (strcmp(x->sc->names[i], name) == 0) {
                x->sc->used_names |= 1u << i;
                return 0;
            }
        if (d)
            return fail(x, "parameter '%s' is not set in this section", name);
    } else {
        long pv = GL_UNSET;
        const struct gl_uparam *u = x->p ? gl_params_user_find(x->p, name) : NULL;
        if (u) {
            if (gl_ktype_of_param(u->v) >= 0)
                return fail(x, "'%s' is a type parameter, not a number", name);
            *v = (double)u->v;
            return 0;
        }
        if (d && x->p)
            pv = gl_params_get(x->p, d->id);
        if (d && pv != GL_UNSET) {
            *v = (double)pv;
            return 0;
        }
        if (d)
            return fail(x, "parameter '%s' is not set", name);
    }
    struct gl_nearest near;
    gl_nearest_init(&near, name);
    for (int i = 0; functions[i]; i++)
        gl_nearest_offer(&near, functions[i]);
    for (int i = 0; i < GL_NPARAMS; i++)
        if (!gl_param_table[i].is_text)
            gl_nearest_offer(&near, gl_param_table[i].name);
    for (int i = 0; x->sc && i < x->sc->nnames; i++)
        gl_nearest_offer(&near, x->sc->names[i]);
    for (int i = 0; x->eval && x->p && i < x->p->nuser; i++)
        gl_nearest_offer(&near, x->p->user[i].name);
    if (near.best)
        return fail(x, "unknown name '%s' (did you mean '%s'?)", name, near.best);
    return fail(x, "unknown name '%s' (a parameter, or a function: sqrt, exp, log, pow, min, "
                "max)", name);
}

static int call(struct fx *x, const char *name, double *v)
{
    char at[64];
    int f = -1;
    for (int i = 0; functions[i]; i++)
        if (strcmp(functions[i], name) == 0)
            f = i;
    if (f < 0) {
        struct gl_nearest near;
        gl_nearest_init(&near, name);
        for (int i = 0; functions[i]; i++)
            gl_nearest_offer(&near, functions[i]);
        if (near.best)
            return fail(x, "unknown function '%s' (did you mean '%s'?)", name, near.best);
        return fail(x, "unknown function '%s' (functions: sqrt, exp, log, pow, min, max)", name);
    }
    int two = f >= 3;
    double b = 0;
    if (enter(x) != 0 || parse_add(x, v) != 0)
        return -1;
    if (two && !accept(x, ','))
        return fail(x, "%s takes two arguments: expected ',' %s", name, where_at(x, at, sizeof at));
    if (two && parse_add(x, &b) != 0)
        return -1;
    if (!accept(x, ')'))
        return fail(x, "%s takes %s: expected ')' %s", name, two ? "two arguments" : "one argument",
                    where_at(x, at, sizeof at));
    x->depth--;
    if (!x->eval)
        return 0;
    double a = *v;
    switch (f) {
    case 0:
        if (a < 0)
            return fail(x, "sqrt(%g): the square root of a negative number", a);
        *v = sqrt(a);
        break;
    case 1:
        *v = exp(a);
        break;
    case 2:
        if (a <= 0)
            return fail(x, "log(%g): the logarithm of a number that is not positive", a);
        *v = log(a);
        break;
    case 3:
        *v = pow(a, b);
        if (isnan(*v))
            return fail(x, "pow(%g, %g) is not a number", a, b);
        break;
    case 4:
        *v = a < b ? a : b;
        break;
    default:
        *v = a > b ? a : b;
        break;
    }
    return 0;
}

static int parse_primary(struct fx *x, double *v)
{
    char at[64];
    skip_space(x);
    char c = x->s[x->pos];
    if (c == '(') {
        x->pos++;
        if (enter(x) != 0 || parse_add(x, v) != 0)
            return -1;
        if (!accept(x, ')'))
            return fail(x, "expected ')' %s", where_at(x, at, sizeof at));
        x->depth--;
        return 0;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && x->s[x->pos + 1] >= '0' && x->s[x->pos + 1] <= '9')) {
        char *end;
        errno = 0;
        double d = strtod(x->s + x->pos, &end);
        size_t start = x->pos;
        x->pos = (size_t)(end - x->s);
        if (x->s[x->pos] == 'f' || x->s[x->pos] == 'F') {   /* C's float suffix: 0.1f */
            d = (double)(float)d;
            x->pos++;
        }
        if (is_char(x->s[x->pos]) || x->s[x->pos] == '.')
            return fail(x, "malformed number '%.*s' at column %zu", (int)(x->pos - start + 1),
                        x->s + start, start + 1);
        if (!isfinite(d))
            return fail(x, "number '%.*s' at column %zu is too large for a double",
                        (int)(x->pos - start), x->s + start, start + 1);
        *v = d;
        return 0;
    }
    if (is_start(c)) {
        char name[GL_UPARAM_NAME + 32];
        size_t start = x->pos, n;
        while (is_char(x->s[x->pos]))
            x->pos++;
        n = x->pos - start;
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name - 1 ? n : sizeof name - 1),
                 x->s + start);
        skip_space(x);
        if (x->s[x->pos] == '(') {
            x->pos++;
            return call(x, name, v);
        }
        return param(x, name, v);
    }
    if (!c)
        return fail(x, "expected a value at the end");
    return fail(x, "expected a number, a parameter, a function or '(' %s",
                where_at(x, at, sizeof at));
}

static int parse_unary(struct fx *x, double *v)
{
    if (accept(x, '-') || accept(x, '+')) {
        int neg = x->s[x->pos - 1] == '-';
        if (enter(x) != 0 || parse_unary(x, v) != 0)
            return -1;
        x->depth--;
        if (neg)
            *v = -*v;
        return 0;
    }
    return parse_primary(x, v);
}

static int parse_mul(struct fx *x, double *v)
{
    if (parse_unary(x, v) != 0)
        return -1;
    for (;;) {
        char op;
        if (accept(x, '*'))
            op = '*';
        else if (accept(x, '/'))
            op = '/';
        else
            return 0;
        double b;
        if (parse_unary(x, &b) != 0)
            return -1;
        if (!x->eval)
            continue;
        if (op == '/' && b == 0)
            return fail(x, "division by zero (%g / 0)", *v);
        *v = op == '*' ? *v * b : *v / b;
    }
}

static int parse_add(struct fx *x, double *v)
{
    if (parse_mul(x, v) != 0)
        return -1;
    for (;;) {
        char op;
        if (accept(x, '+'))
            op = '+';
        else if (accept(x, '-'))
            op = '-';
        else
            return 0;
        double b;
        if (parse_mul(x, &b) != 0)
            return -1;
        if (x->eval)
            *v = op == '+' ? *v + b : *v - b;
    }
}

static int run(struct fx *x, double *out)
{
    char at[64];
    *out = 0;
    if (!x->s || !x->s[0])
        return fail(x, "empty expression");
    if (parse_add(x, out) != 0)
        return -1;
    skip_space(x);
    if (x->s[x->pos] == '%')
        return fail(x, "'%%' is for integers: a floating argument's expression has + - * / "
                    "and the functions sqrt, exp, log, pow, min, max");
    if (x->s[x->pos])
        return fail(x, "unexpected text %s", where_at(x, at, sizeof at));
    return 0;
}

int gl_scalar_is_float(int type)
{
    return gl_ktype_is_float(type);
}

int gl_scalar_check(int type, const char *expr, struct gl_expr_scope *sc, char *err,
                    size_t errlen)
{
    if (!gl_scalar_is_float(type)) {
        if (gl_expr_check_scope(expr, sc, err, errlen) == 0)
            return 0;
        /* a floating value where an integer is wanted: say so */
        struct fx x = { expr, 0, 0, NULL, NULL, 0, err, errlen, 0 };
        char msg[200];
        double v;
        x.err = msg;
        x.errlen = sizeof msg;
        if (run(&x, &v) == 0)
            snprintf(err, errlen, "%s is an integer type: its expression is an integer one "
                     "(division truncates), and '%s' is not (a floating parameter takes "
                     "float %s or double %s)", gl_ktype_name(type), expr, expr, expr);
        return -1;
    }
    struct fx x = { expr, 0, 0, NULL, sc, 0, err, errlen, 0 };
    double v;
    return run(&x, &v);
}

int gl_scalar_is_constant(const char *expr)
{
    char msg[200];
    struct fx x = { expr, 0, 0, NULL, NULL, 0, msg, sizeof msg, 0 };
    double v;
    if (run(&x, &v) != 0)
        return 0;   /* not a floating expression: integer ones name parameters alike */
    return !x.names;
}

/* The value d rounded to the floating type t into s; 0, or -1 with why. */
static int round_to(int t, double d, const char *expr, struct gl_scalar *s, char *err,
                    size_t errlen)
{
    double r, largest, smallest;
    switch (t) {
    case GL_KT_FLOAT: {
        float f = (float)d;
        r = f;
        memcpy(s->bytes, &f, sizeof f);
        largest = FLT_MAX;
        smallest = FLT_TRUE_MIN;
        break;
    }
    case GL_KT_DOUBLE:
        r = d;
        memcpy(s->bytes, &d, sizeof d);
        largest = DBL_MAX;
        smallest = DBL_TRUE_MIN;
        break;
    case GL_KT_HALF: {
        uint16_t h = gl_to_half(d);
        r = gl_from_half(h);
        memcpy(s->bytes, &h, sizeof h);
        largest = 65504.0;
        smallest = gl_pow2(-24);
        break;
    }
    case GL_KT_FP8E4M3:
    case GL_KT_FP8E5M2: {
        int e4 = t == GL_KT_FP8E4M3;
        int eb = e4 ? GL_FP8E4M3_E : GL_FP8E5M2_E, mb = e4 ? GL_FP8E4M3_M : GL_FP8E5M2_M;
        uint8_t h = gl_to_fp8(d, eb, mb);
        r = gl_from_fp8(h, eb, mb);
        memcpy(s->bytes, &h, sizeof h);
        largest = e4 ? 448.0 : 57344.0;
        smallest = gl_pow2(e4 ? -9 : -16);
        if (fabs(d) > largest) {   /* saturated: out of range all the same */
            snprintf(err, errlen, "%s %s = %g is out of range for %s (largest %g)",
                     gl_ktype_name(t), expr, d, gl_ktype_name(t), largest);
            return -1;
        }
        break;
    }
    default: {
        uint16_t h = gl_to_bf16(d);
        r = gl_from_bf16(h);
        memcpy(s->bytes, &h, sizeof h);
        largest = gl_from_bf16(0x7f7f);
        smallest = gl_pow2(-133);
        break;
    }
    }
    if (isnan(d)) {
        snprintf(err, errlen, "%s %s is not a number", gl_ktype_name(t), expr);
        return -1;
    }
    if (isinf(r)) {
        snprintf(err, errlen, "%s %s = %g is out of range for %s (largest %g)", gl_ktype_name(t),
                 expr, d, gl_ktype_name(t), largest);
        return -1;
    }
    if (r == 0 && d != 0) {
        snprintf(err, errlen, "%s %s = %g rounds to 0 in %s (smallest %g)", gl_ktype_name(t),
                 expr, d, gl_ktype_name(t), smallest);
        return -1;
    }
    s->d = r;
    return 0;
}

int gl_scalar_eval(int type, const char *expr, const struct gl_params *p, struct gl_scalar *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->type = type;
    out->size = gl_ktype_size(type);
    if (out->size == 0) {
        snprintf(err, errlen, "unknown scalar type %d", type);
        return -1;
    }
    if (gl_scalar_is_float(type)) {
        struct fx x = { expr, 0, 1, p, NULL, 0, err, errlen, 0 };
        double d;
        if (run(&x, &d) != 0)
            return -1;
        return round_to(type, d, expr, out, err, errlen);
    }
    static const struct gl_params none = { 0 };
    long long v;
    if (gl_expr_value(expr, p ? p : &none, &v, err, errlen) != 0)
        return -1;
    for (int i = 0; p && i < p->nuser; i++)
        if (gl_ktype_of_param(p->user[i].v) >= 0 && v == p->user[i].v) {
            snprintf(err, errlen, "%s %s names the type parameter %s, not a number",
                     gl_ktype_name(type), expr, p->user[i].name);
            return -1;
        }
    double lo, hi;
    gl_ktype_int_range(type, &lo, &hi);
    int bad = (type == GL_KT_UINT64 && v < 0) ||
              (type != GL_KT_UINT64 && type != GL_KT_INT64 && (v < lo || v > hi));
    if (bad) {
        snprintf(err, errlen, "%s %s = %lld does not fit in %s", gl_ktype_name(type), expr, v,
                 gl_ktype_name(type));
        return -1;
    }
    out->i = v;
    if (out->size == 1) {
        uint8_t w = (uint8_t)v;
        memcpy(out->bytes, &w, sizeof w);
    } else if (type == GL_KT_INT || type == GL_KT_UINT) {
        uint32_t w = (uint32_t)v;
        memcpy(out->bytes, &w, sizeof w);
    } else {
        uint64_t w = (uint64_t)v;
        memcpy(out->bytes, &w, sizeof w);
    }
    return 0;
}

void gl_scalar_format(const struct gl_scalar *s, char *buf, size_t len)
{
    if (!gl_scalar_is_float(s->type)) {
        if (s->type == GL_KT_UINT64)
            snprintf(buf, len, "%llu", (unsigned long long)s->i);
        else
            snprintf(buf, len, "%lld", s->i);
        return;
    }
    /* the fewest significant digits that read back as the same value of the type */
    for (int digits = 1; digits <= 17; digits++) {
        char t[64];
        snprintf(t, sizeof t, "%.*g", digits, s->d);
        double back = strtod(t, NULL);
        int same;
        switch (s->type) {
        case GL_KT_FLOAT: same = (float)back == (float)s->d; break;
        case GL_KT_HALF: same = gl_to_half(back) == gl_to_half(s->d); break;
        case GL_KT_BF16: same = gl_to_bf16(back) == gl_to_bf16(s->d); break;
        case GL_KT_FP8E4M3: same = gl_to_fp8(back, 4, 3) == gl_to_fp8(s->d, 4, 3); break;
        case GL_KT_FP8E5M2: same = gl_to_fp8(back, 5, 2) == gl_to_fp8(s->d, 5, 2); break;
        default: same = back == s->d; break;
        }
        if (same || digits == 17) {
            snprintf(buf, len, "%s", t);
            return;
        }
    }
}

int gl_ktype_at(int t, const char *tparam, const struct gl_params *p)
{
    if (!tparam || !tparam[0])
        return t;
    const struct gl_uparam *u = p ? gl_params_user_find(p, tparam) : NULL;
    return u ? gl_ktype_of_param(u->v) : -1;
}

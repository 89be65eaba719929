/* expr.c - the expression language of configs (see expr.h): 64-bit
 * integers, parameter names (built-in and named), "strings", + - * / % << >>,
 * comparisons, && || !, parentheses, with C precedence, and the functions ceil,
 * cdiv, div, min, max, log2 (floor) and pow. One recursive-descent parser serves both the
 * parse-time check (syntax, names, types) and evaluation against a point of the
 * sweep; && and || short-circuit, so `BS != 0 && N % BS == 0` is safe. The
 * nesting depth is bounded (GL_EXPR_MAX_DEPTH), so no text overflows the stack.
 * Must not know about files, sections or variants: callers add file:line. */
#include "expr.h"
#include "target.h"
#include "nearest.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct ex {
    const char *s;
    size_t pos;
    int eval;                    /* 1 = compute values against p (2: a number is wanted) */
    const struct gl_params *p;
    unsigned set;                /* check mode: the parameters a name may refer to */
    char *err;
    size_t errlen;
    struct gl_expr_scope *sc;    /* check mode: named parameters, and what was used */
    int depth;                   /* nesting of parentheses, calls and unary operators */
};

enum { T_INT, T_STR };

struct val {
    int type;
    long long i;
    const char *str;             /* T_STR: not terminated, slen bytes */
    size_t slen;
    int param;                   /* T_STR from a text parameter: its id, else -1 */
    int divided;                 /* the last operation was a division num / den (for ceil) */
    long long num, den;
};

static int fail(struct ex *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, x->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_space(struct ex *x)
{
    while (x->s[x->pos] == ' ' || x->s[x->pos] == '\t')
        x->pos++;
}

/* "at column 7 ('== 0')" or "at the end" for syntax messages. */
static const char *where_at(struct ex *x, char *buf, size_t len)
{
    if (!x->s[x->pos])
        snprintf(buf, len, "at the end");
    else
        snprintf(buf, len, "at column %zu ('%.12s')", x->pos + 1, x->s + x->pos);
    return buf;
}

/* Consume op if it is next (and, for one-character ops, not the start of a
 * longer one given in not_before). */
static int accept(struct ex *x, const char *op, const char *not_before)
{
    skip_space(x);
    size_t n = strlen(op);
    if (strncmp(x->s + x->pos, op, n) != 0)
        return 0;
    if (not_before && x->s[x->pos + n] && strchr(not_before, x->s[x->pos + n]))
        return 0;
    x->pos += n;
    return 1;
}

static int is_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static int parse_or(struct ex *x, struct val *v, int live);
static int need_int(struct ex *x, const struct val *v, const char *op);

/* One level deeper; an error past GL_EXPR_MAX_DEPTH. Callers leave() on success. */
static int enter(struct ex *x)
{
    if (++x->depth > GL_EXPR_MAX_DEPTH)
        return fail(x, "expression nested deeper than %d", GL_EXPR_MAX_DEPTH);
    return 0;
}

static void leave(struct ex *x)
{
    x->depth--;
}

/* Quotient rounded up (ceil) or down (floor); b != 0, no INT64_MIN / -1. */
static long long div_round(long long a, long long b, int up)
{
    long long q = a / b, r = a % b;
    if (r != 0 && up && ((r > 0) == (b > 0)))
        q++;
    if (r != 0 && !up && ((r > 0) != (b > 0)))
        q--;
    return q;
}

static const char *const functions[] = { "ceil", "cdiv", "div", "min", "max", "log2", "pow",
                                         "occupancy", NULL };

/* A call of a function: name and '(' are consumed. */
static int parse_call(struct ex *x, const char *name, struct val *v, int live)
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
        return fail(x, "unknown function '%s' (functions: ceil, cdiv, div, min, max, log2, "
                    "pow, occupancy)", name);
    }
    if (enter(x) != 0)
        return -1;
    struct val b;
    if (parse_or(x, v, live) != 0 || need_int(x, v, name) != 0)
        return -1;
    if (f == 0) {
        if (!accept(x, ")", NULL))
            return fail(x, "ceil takes one argument: expected ')' %s", where_at(x, at, sizeof at));
        if (live && x->eval && v->divided)
            v->i = div_round(v->num, v->den, 1);
        v->divided = 0;
        leave(x);
        return 0;
    }
    if (f == 5) {   /* log2(a): floor of the base-2 logarithm, a >= 1 */
        if (!accept(x, ")", NULL))
            return fail(x, "log2 takes one argument: expected ')' %s", where_at(x, at, sizeof at));
        leave(x);
        v->divided = 0;
        v->param = -1;
        if (!live || !x->eval) {
            v->i = 0;
            return 0;
        }
        if (v->i < 1)
            return fail(x, "log2(%lld): the argument must be at least 1", v->i);
        long long e = 0;
        for (long long a = v->i; a > 1; a >>= 1)
            e++;
        v->i = e;
        return 0;
    }
    if (!accept(x, ",", NULL))
        return fail(x, "%s takes two arguments: expected ',' %s", name, where_at(x, at, sizeof at));
    if (parse_or(x, &b, live) != 0 || need_int(x, &b, name) != 0)
        return -1;
    if (!accept(x, ")", NULL))
        return fail(x, "%s takes two arguments: expected ')' %s", name, where_at(x, at, sizeof at));
    leave(x);
    v->divided = 0;
    v->param = -1;
    if (!live || !x->eval) {
        v->i = 0;
        return 0;
    }
    if (f == 1 || f == 2) {
        if (b.i == 0)
            return fail(x, "division by zero (%s(%lld, 0))", name, v->i);
        if (v->i == INT64_MIN && b.i == -1)
            return fail(x, "integer overflow in %s(%lld, -1)", name, v->i);
        v->i = div_round(v->i, b.i, f == 1);
    } else if (f == 6) {   /* pow(a, b): a to the power b >= 0, overflow checked */
        if (b.i < 0)
            return fail(x, "pow(%lld, %lld): the exponent must be 0 or more", v->i, b.i);
        long long r = 1;
        if (v->i == 0 || v->i == 1)
            r = b.i == 0 ? 1 : v->i;
        else if (v->i == -1)
            r = b.i % 2 ? -1 : 1;
        else   /* |a| >= 2: overflows within 63 steps */
            for (long long k = 0; k < b.i; k++)
                if (__builtin_mul_overflow(r, v->i, &r))
                    return fail(x, "integer overflow in pow(%lld, %lld)", v->i, b.i);
        v->i = r;
    } else if (f == 7) {   /* occupancy(block, smem): blocks per SM (target.h) */
        char why[200];
        long long n = gl_devvals_occupancy(v->i, b.i, why, sizeof why);
        if (n < 0)
            return fail(x, "%s", why);
        char name[64];
        snprintf(name, sizeof name, "occupancy(%lld,%lld)", v->i, b.i);
        gl_devvals_trace_add(name, n);
        v->i = n;
    } else if (f == 3) {
        v->i = v->i < b.i ? v->i : b.i;
    } else {
        v->i = v->i > b.i ? v->i : b.i;
    }
    return 0;
}

/* A name that is not a built-in parameter: a named one (check: in the scope;
 * evaluation: in p->user). */
static int named_param(struct ex *x, const char *name, struct val *v, int live)
{
    v->type = T_INT;
    v->i = 0;
    if (x->eval) {
        const struct gl_uparam *u = x->p ? gl_params_user_find(x->p, name) : NULL;
        if (u) {
            if (live)
                v->i = u->v;
            return 0;
        }
    } else if (x->sc) {
        for (int i = 0; i < x->sc->nnames; i++)
            if (strcmp(x->sc->names[i], name) == 0) {
                x->sc->used_names |= 1u << i;
                return 0;
            }
    }
    struct gl_nearest near;
    gl_nearest_init(&near, name);
    for (int i = 0; i < GL_NPARAMS; i++)
        gl_nearest_offer(&near, gl_param_table[i].name);
    if (x->eval && x->p)
        for (int i = 0; i < x->p->nuser; i++)
            gl_nearest_offer(&near, x->p->user[i].name);
    if (!x->eval && x->sc)
        for (int i = 0; i < x->sc->nnames; i++)
            gl_nearest_offer(&near, x->sc->names[i]);
    if (near.best)
        return fail(x, "unknown parameter '%s' (did you mean '%s'?)", name, near.best);
    return fail(x, "unknown parameter '%s' (text values need quotes: \"%s\")", name, name);
}

static int need_int(struct ex *x, const struct val *v, const char *op)
{
    if (v->type != T_INT)
        return fail(x, "'%s' needs numbers, not text", op);
    return 0;
}

static int parse_primary(struct ex *x, struct val *v, int live)
{
    char at[64];
    skip_space(x);
    char c = x->s[x->pos];
    v->param = -1;
    v->divided = 0;
    if (c == '(') {
        x->pos++;
        if (enter(x) != 0 || parse_or(x, v, live) != 0)
            return -1;
        if (!accept(x, ")", NULL))
            return fail(x, "expected ')' %s", where_at(x, at, sizeof at));
        leave(x);
        return 0;
    }
    if (c >= '0' && c <= '9') {
        long long n = 0;
        while (x->s[x->pos] >= '0' && x->s[x->pos] <= '9') {
            int d = x->s[x->pos] - '0';
            if (n > (INT64_MAX - d) / 10)
                return fail(x, "number too large %s", where_at(x, at, sizeof at));
            n = n * 10 + d;
            x->pos++;
        }
        if (is_name_char(x->s[x->pos]))
            return fail(x, "malformed number %s", where_at(x, at, sizeof at));
        v->type = T_INT;
        v->i = n;
        return 0;
    }
    if (c == '"' || c == '\'') {
        size_t start = ++x->pos;
        while (x->s[x->pos] && x->s[x->pos] != c)
            x->pos++;
        if (!x->s[x->pos])
            return fail(x, "unterminated string starting at column %zu", start);
        v->type = T_STR;
        v->str = x->s + start;
        v->slen = x->pos - start;
        x->pos++;
        return 0;
    }
    if (is_name_start(c)) {
        char name[64];
        size_t start = x->pos, n;
        while (is_name_char(x->s[x->pos]))
            x->pos++;
        n = x->pos - start;
        snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), x->s + start);
        skip_space(x);
        if (x->s[x->pos] == '(') {
            x->pos++;
            return parse_call(x, name, v, live);
        }
        if (strcmp(name, "sm_count") == 0) {   /* the GPU's SMs (target.h) */
            v->type = T_INT;
            v->i = 0;
            if (x->eval && live) {
                v->i = gl_devvals_get()->sm_count;
                gl_devvals_trace_add("sm_count", v->i);
            }
            return 0;
        }
        const struct gl_param_def *d = gl_param_by_name(name);
        if (!d)
            return named_param(x, name, v, live);
        if (!x->eval && !(x->set & GL_PBIT(d->id)))
            return fail(x, "parameter '%s' is not set in this section", name);
        if (!x->eval && x->sc)
            x->sc->used_params |= GL_PBIT(d->id);
        if (d->is_text) {
            v->type = T_STR;
            v->param = (int)d->id;
            v->str = "";
            v->slen = 0;
            if (x->eval && live) {
                v->str = gl_params_get_text(x->p, d->id);
                v->slen = strlen(v->str);
                if (!v->slen)
                    return fail(x, "parameter '%s' is not set", name);
            }
        } else {
            v->type = T_INT;
            v->i = 0;
            if (x->eval && live) {
                long pv = gl_params_get(x->p, d->id);
                if (pv == GL_UNSET)
                    return fail(x, "parameter '%s' is not set", name);
                v->i = pv;
            }
        }
        return 0;
    }
    if (!c)
        return fail(x, "expected a value at the end");
    return fail(x, "expected a number, a parameter, a string or '(' %s",
                where_at(x, at, sizeof at));
}

static int parse_unary(struct ex *x, struct val *v, int live)
{
    if (accept(x, "!", "=")) {
        if (enter(x) != 0 || parse_unary(x, v, live) != 0 || need_int(x, v, "!") != 0)
            return -1;
        leave(x);
        v->i = !v->i;
        v->divided = 0;
        return 0;
    }
    if (accept(x, "-", NULL)) {
        if (enter(x) != 0 || parse_unary(x, v, live) != 0 || need_int(x, v, "-") != 0)
            return -1;
        leave(x);
        if (live && v->i == INT64_MIN)
            return fail(x, "integer overflow");
        v->i = -v->i;
        v->divided = 0;
        return 0;
    }
    if (accept(x, "+", NULL)) {
        if (enter(x) != 0 || parse_unary(x, v, live) != 0 || need_int(x, v, "+") != 0)
            return -1;
        leave(x);
        return 0;
    }
    return parse_primary(x, v, live);
}

/* Apply an arithmetic operator with overflow and division checks (when live). */
static int arith(struct ex *x, char op, struct val *a, const struct val *b, int live)
{
    long long r = 0;
    a->divided = 0;
    if (!live || !x->eval) {
        a->i = 0;
        return 0;
    }
    switch (op) {
    case '+':
        if (__builtin_add_overflow(a->i, b->i, &r))
            return fail(x, "integer overflow in %lld + %lld", a->i, b->i);
        break;
    case '-':
        if (__builtin_sub_overflow(a->i, b->i, &r))
            return fail(x, "integer overflow in %lld - %lld", a->i, b->i);
        break;
    case '*':
        if (__builtin_mul_overflow(a->i, b->i, &r))
            return fail(x, "integer overflow in %lld * %lld", a->i, b->i);
        break;
    case '/':
    case '%':
        if (b->i == 0)
            return fail(x, "division by zero (%lld %c 0)", a->i, op);
        if (a->i == INT64_MIN && b->i == -1)
            return fail(x, "integer overflow in %lld %c -1", a->i, op);
        r = op == '/' ? a->i / b->i : a->i % b->i;
        if (op == '/') {
            a->divided = 1;
            a->num = a->i;
            a->den = b->i;
        }
        break;
    case '<':
    case '>':
        if (b->i < 0 || b->i > 62)
            return fail(x, "shift by %lld is out of range 0..62", b->i);
        if (op == '>')
            r = a->i >> b->i;
        else if (a->i < 0 || a->i > (INT64_MAX >> b->i))
            return fail(x, "integer overflow in %lld << %lld", a->i, b->i);
        else
            r = a->i << b->i;
        break;
    }
    a->i = r;
    return 0;
}

static int parse_mul(struct ex *x, struct val *v, int live)
{
    if (parse_unary(x, v, live) != 0)
        return -1;
    for (;;) {
        char op;
        if (accept(x, "*", NULL))
            op = '*';
        else if (accept(x, "/", NULL))
            op = '/';
        else if (accept(x, "%", NULL))
            op = '%';
        else
            return 0;
        struct val b;
        char name[2] = { op, 0 };
        if (need_int(x, v, name) != 0 || parse_unary(x, &b, live) != 0 ||
            need_int(x, &b, name) != 0)
            return -1;
        if (arith(x, op, v, &b, live) != 0)
            return -1;
    }
}

static int parse_add(struct ex *x, struct val *v, int live)
{
    if (parse_mul(x, v, live) != 0)
        return -1;
    for (;;) {
        char op;
        if (accept(x, "+", NULL))
            op = '+';
        else if (accept(x, "-", NULL))
            op = '-';
        else
            return 0;
        struct val b;
        char name[2] = { op, 0 };
        if (need_int(x, v, name) != 0 || parse_mul(x, &b, live) != 0 || need_int(x, &b, name) != 0)
            return -1;
        if (arith(x, op, v, &b, live) != 0)
            return -1;
    }
}

static int parse_shift(struct ex *x, struct val *v, int live)
{
    if (parse_add(x, v, live) != 0)
        return -1;
    for (;;) {
        char op;
        const char *name;
        if (accept(x, "<<", NULL)) {
            op = '<';
            name = "<<";
        } else if (accept(x, ">>", NULL)) {
            op = '>';
            name = ">>";
        } else {
            return 0;
        }
        struct val b;
        if (need_int(x, v, name) != 0 || parse_add(x, &b, live) != 0 || need_int(x, &b, name) != 0)
            return -1;
        if (arith(x, op, v, &b, live) != 0)
            return -1;
    }
}

/* A text parameter compared with a literal: the literal must be one of its choices. */
static int check_choice(struct ex *x, const struct val *param, const struct val *lit)
{
    if (param->param < 0 || lit->param >= 0)
        return 0;
    const struct gl_param_def *d = &gl_param_table[param->param];
    char list[128] = "";
    for (const char *const *c = d->choices; *c; c++) {
        if (strlen(*c) == lit->slen && strncmp(*c, lit->str, lit->slen) == 0)
            return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", *c);
    }
    return fail(x, "\"%.*s\" is not a choice for %s (%s)", (int)lit->slen, lit->str, d->name, list);
}

static int parse_cmp(struct ex *x, struct val *v, int live)
{
    static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };
    if (parse_shift(x, v, live) != 0)
        return -1;
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (accept(x, ops[i], i >= 4 ? "<>=" : NULL))
            op = i;
    if (op < 0)
        return 0;
    struct val b;
    if (parse_shift(x, &b, live) != 0)
        return -1;
    if (v->type != b.type)
        return fail(x, "'%s' compares text with a number", ops[op]);
    int r = 0;
    if (v->type == T_STR) {
        if (op > 1)
            return fail(x, "text compares only with == and !=, not '%s'", ops[op]);
        if (check_choice(x, v, &b) != 0 || check_choice(x, &b, v) != 0)
            return -1;
        int eq = v->slen == b.slen && strncmp(v->str, b.str, v->slen) == 0;
        r = op == 0 ? eq : !eq;
    } else {
        switch (op) {
        case 0: r = v->i == b.i; break;
        case 1: r = v->i != b.i; break;
        case 2: r = v->i <= b.i; break;
        case 3: r = v->i >= b.i; break;
        case 4: r = v->i < b.i; break;
        default: r = v->i > b.i; break;
        }
    }
    v->type = T_INT;
    v->i = r;
    v->param = -1;
    v->divided = 0;
    skip_space(x);
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(x->s + x->pos, ops[i], n) == 0)
            return fail(x, "comparisons do not chain: use && at column %zu", x->pos + 1);
    }
    return 0;
}

static int parse_and(struct ex *x, struct val *v, int live)
{
    if (parse_cmp(x, v, live) != 0)
        return -1;
    while (accept(x, "&&", NULL)) {
        struct val b;
        if (need_int(x, v, "&&") != 0)
            return -1;
        int go = live && (!x->eval || v->i != 0);
        if (parse_cmp(x, &b, go) != 0 || need_int(x, &b, "&&") != 0)
            return -1;
        v->i = go ? (b.i != 0) : 0;
        v->divided = 0;
    }
    return 0;
}

static int parse_or(struct ex *x, struct val *v, int live)
{
    if (parse_and(x, v, live) != 0)
        return -1;
    while (accept(x, "||", NULL)) {
        struct val b;
        if (need_int(x, v, "||") != 0)
            return -1;
        int go = live && (!x->eval || v->i == 0);
        if (parse_and(x, &b, go) != 0 || need_int(x, &b, "||") != 0)
            return -1;
        v->i = go ? (b.i != 0) : 1;
        v->divided = 0;
    }
    return 0;
}

static int run(struct ex *x, long long *out)
{
    struct val v;
    char at[64];
    if (parse_or(x, &v, 1) != 0)
        return -1;
    skip_space(x);
    if (x->s[x->pos] == ')')
        return fail(x, "unexpected text %s: ')' closes nothing", where_at(x, at, sizeof at));
    if (x->s[x->pos] == '=')
        return fail(x, "'=' at column %zu is not a comparison: use ==", x->pos + 1);
    if (x->s[x->pos])
        return fail(x, "unexpected text %s", where_at(x, at, sizeof at));
    if (v.type != T_INT && x->eval == 2)
        return fail(x, "the expression is text, not a number");
    if (v.type != T_INT)
        return fail(x, "the expression is text, not a condition (compare it with == or !=)");
    *out = v.i;
    return 0;
}

int gl_expr_check(const char *expr, unsigned set_params, char *err, size_t errlen)
{
    struct ex x = { expr, 0, 0, NULL, set_params, err, errlen, NULL, 0 };
    long long r;
    return run(&x, &r);
}

int gl_expr_check_scope(const char *expr, struct gl_expr_scope *sc, char *err, size_t errlen)
{
    struct ex x = { expr, 0, 0, NULL, sc->params, err, errlen, sc, 0 };
    long long r;
    return run(&x, &r);
}

int gl_expr_eval(const char *expr, const struct gl_params *p, char *err, size_t errlen)
{
    struct ex x = { expr, 0, 1, p, 0, err, errlen, NULL, 0 };
    long long r;
    if (run(&x, &r) != 0)
        return -1;
    return r != 0;
}

int gl_expr_value(const char *expr, const struct gl_params *p, long long *out, char *err,
                  size_t errlen)
{
    struct ex x = { expr, 0, 2, p, 0, err, errlen, NULL, 0 };   /* eval 2: a number */
    return run(&x, out);
}

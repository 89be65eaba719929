/* kernel_sig.c - see kernel_sig.h: a reader of the Itanium C++ ABI's mangled
 * function names, enough for kernels (nested and template names, builtin and
 * class types, pointers, references, cv-qualifiers, template parameters and
 * substitutions, integer template arguments), the parameter names of a
 * __global__ function's definition in its source, and the check of a kernel
 * section's args against both. What it cannot read makes it give up (no check),
 * never guess.
 * Must not know about configs beyond struct gl_kernel, nor compile anything. */
#include "kernel_sig.h"
#include "scalar.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- the mangled name -------------------------------------------------------------- */

#define MAX_SUBS 128
#define MAX_TARGS 32

struct ty {
    char s[GL_KSIG_TYPE];     /* as C++ writes it */
    int pointer;              /* a pointer or a reference */
    int elem;                 /* enum gl_ktype of a scalar, or of a pointer's element; -1 */
    int scalar;               /* a scalar type (builtin or class), cv-qualified or not */
};

struct dm {
    const char *s;
    size_t pos;
    struct ty subs[MAX_SUBS];
    int nsubs;
    struct ty targs[MAX_TARGS];   /* the function's template arguments */
    int ntargs;
    int depth;
};

static char peek(const struct dm *d)
{
    return d->s[d->pos];
}

static void add_sub(struct dm *d, const struct ty *t)
{
    if (d->nsubs < MAX_SUBS)
        d->subs[d->nsubs++] = *t;
}

/* dst = a b c, cut to len - 1 bytes (the inputs must not overlap dst). */
static void cat3(char *dst, size_t len, const char *a, const char *b, const char *c)
{
    const char *parts[3] = { a, b, c };
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        for (const char *p = parts[i]; *p && n + 1 < len; p++)
            dst[n++] = *p;
    dst[n] = '\0';
}

/* dst += a b, cut to len - 1 bytes. */
static void append2(char *dst, size_t len, const char *a, const char *b)
{
    size_t n = strlen(dst);
    char tmp[GL_KSIG_TYPE * 2];
    cat3(tmp, sizeof tmp, a, b, "");
    cat3(dst + n, len - n, tmp, "", "");
}

static void set_text(struct ty *t, const char *a, const char *b, const char *c)
{
    char tmp[GL_KSIG_TYPE];
    cat3(tmp, sizeof tmp, a, b, c);
    memcpy(t->s, tmp, sizeof tmp);
}

/* <number> of a source name's length, or a base-36 sequence id before '_'. */
static int source_name(struct dm *d, char *out, size_t len)
{
    if (!isdigit((unsigned char)peek(d)))
        return -1;
    long n = 0;
    while (isdigit((unsigned char)peek(d))) {
        n = n * 10 + (peek(d) - '0');
        if (n > 1000)
            return -1;
        d->pos++;
    }
    if (n <= 0 || strlen(d->s + d->pos) < (size_t)n || (size_t)n >= len)
        return -1;
    memcpy(out, d->s + d->pos, (size_t)n);
    out[n] = '\0';
    d->pos += (size_t)n;
    return 0;
}

/* "S_" -> 0, "S0_" -> 1, "SA_" -> 11 (after the letter); -1 on anything else. */
static int seq_id(struct dm *d)
{
    long n = 0;
    if (peek(d) == '_') {
        d->pos++;
        return 0;
    }
    while (isdigit((unsigned char)peek(d)) || isupper((unsigned char)peek(d))) {
        char c = peek(d);
        n = n * 36 + (isdigit((unsigned char)c) ? c - '0' : c - 'A' + 10);
        if (n > 100000)
            return -1;
        d->pos++;
    }
    if (peek(d) != '_')
        return -1;
    d->pos++;
    return (int)n + 1;
}

static int elem_of_class(const char *name)
{
    if (strcmp(name, "__half") == 0)
        return GL_KT_HALF;
    if (strcmp(name, "__nv_bfloat16") == 0)
        return GL_KT_BF16;
    if (strcmp(name, "__nv_fp8_e4m3") == 0)
        return GL_KT_FP8E4M3;
    if (strcmp(name, "__nv_fp8_e5m2") == 0)
        return GL_KT_FP8E5M2;
    return -1;
}

static int parse_type(struct dm *d, struct ty *t);

/* I <template-arg>+ E: the arguments into out (when not NULL) and "<a, b>" into text. */
static int template_args(struct dm *d, struct ty *out, int *nout, char *text, size_t len)
{
    if (peek(d) != 'I')
        return -1;
    d->pos++;
    int n = 0;
    snprintf(text, len, "<");
    while (peek(d) != 'E') {
        struct ty a;
        memset(&a, 0, sizeof a);
        a.elem = -1;
        if (peek(d) == 'L') {   /* L <type> <value> E: an integer or bool argument */
            struct ty lt;
            d->pos++;
            if (peek(d) == 'Z' || parse_type(d, &lt) != 0)
                return -1;
            int neg = peek(d) == 'n';
            if (neg)
                d->pos++;
            size_t s = d->pos;
            while (isdigit((unsigned char)peek(d)))
                d->pos++;
            if (peek(d) != 'E' || d->pos == s)
                return -1;
            if (strcmp(lt.s, "bool") == 0)
                snprintf(a.s, sizeof a.s, "%s", d->s[s] == '0' ? "false" : "true");
            else
                snprintf(a.s, sizeof a.s, "%s%.*s", neg ? "-" : "", (int)(d->pos - s), d->s + s);
            d->pos++;
        } else if (peek(d) == 'X' || peek(d) == 'J' || !peek(d)) {
            return -1;           /* expressions and packs: not read */
        } else if (parse_type(d, &a) != 0) {
            return -1;
        }
        if (out && n < MAX_TARGS)
            out[n] = a;
        n++;
        size_t u = strlen(text);
        snprintf(text + u, len - u, "%s%s", n > 1 ? ", " : "", a.s);
    }
    d->pos++;
    size_t u = strlen(text);
    snprintf(text + u, len - u, ">");
    if (nout)
        *nout = n < MAX_TARGS ? n : MAX_TARGS;
    return 0;
}

/* A class type named by a source name (and maybe template arguments). */
static int class_type(struct dm *d, const char *prefix, struct ty *t)
{
    char name[GL_KSIG_TYPE], args[GL_KSIG_TYPE];
    if (source_name(d, name, sizeof name) != 0)
        return -1;
    memset(t, 0, sizeof *t);
    set_text(t, prefix, name, "");
    t->elem = prefix[0] ? -1 : elem_of_class(name);
    t->scalar = 1;
    add_sub(d, t);
    if (peek(d) == 'I') {
        if (template_args(d, NULL, NULL, args, sizeof args) != 0)
            return -1;
        set_text(t, prefix, name, args);
        t->elem = -1;
        add_sub(d, t);
    }
    return 0;
}

static const struct { char code; const char *name; int elem; } builtins[] = {
    { 'v', "void", -1 }, { 'b', "bool", -1 }, { 'c', "char", -1 }, { 'a', "signed char", GL_KT_INT8 },
    { 'h', "unsigned char", GL_KT_UINT8 }, { 's', "short", -1 }, { 't', "unsigned short", -1 },
    { 'i', "int", GL_KT_INT }, { 'j', "unsigned int", GL_KT_UINT }, { 'l', "long", GL_KT_INT64 },
    { 'm', "unsigned long", GL_KT_UINT64 }, { 'x', "long long", GL_KT_INT64 },
    { 'y', "unsigned long long", GL_KT_UINT64 }, { 'n', "__int128", -1 },
    { 'o', "unsigned __int128", -1 }, { 'f', "float", GL_KT_FLOAT }, { 'd', "double", GL_KT_DOUBLE },
    { 'e', "long double", -1 }, { 'g', "__float128", -1 }, { 'w', "wchar_t", -1 },
};

static int parse_type_in(struct dm *d, struct ty *t)
{
    char c = peek(d);
    memset(t, 0, sizeof *t);
    t->elem = -1;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (builtins[i].code == c) {
            d->pos++;
            snprintf(t->s, sizeof t->s, "%s", builtins[i].name);
            t->elem = builtins[i].elem;
            t->scalar = 1;
            return 0;
        }
    if (c == 'D') {   /* a few vendor-neutral extras: _Float16, nullptr_t */
        d->pos++;
        if (peek(d) == 'h' || peek(d) == 'n') {
            snprintf(t->s, sizeof t->s, "%s", peek(d) == 'h' ? "_Float16" : "std::nullptr_t");
            d->pos++;
            t->scalar = 1;
            return 0;
        }
        return -1;
    }
    if (c == 'P' || c == 'R' || c == 'O') {
        struct ty in;
        d->pos++;
        if (parse_type(d, &in) != 0)
            return -1;
        const char *mark = c == 'P' ? "*" : c == 'R' ? "&" : "&&";
        int glue = in.s[0] && (in.s[strlen(in.s) - 1] == '*' || in.s[strlen(in.s) - 1] == '&');
        set_text(t, in.s, glue ? "" : " ", mark);
        t->pointer = 1;
        t->elem = in.scalar && !in.pointer ? in.elem : -1;
        add_sub(d, t);
        return 0;
    }
    if (c == 'K' || c == 'V' || c == 'r') {
        int k = 0, v = 0;
        while (peek(d) == 'r' || peek(d) == 'V' || peek(d) == 'K') {
            k |= peek(d) == 'K';
            v |= peek(d) == 'V';
            d->pos++;
        }
        struct ty in;
        if (parse_type(d, &in) != 0)
            return -1;
        char q[32];
        snprintf(q, sizeof q, "%s%s", k ? "const" : "", v ? (k ? " volatile" : "volatile") : "");
        *t = in;
        if (in.pointer)
            set_text(t, in.s, q[0] ? " " : "", q);
        else
            set_text(t, q, q[0] ? " " : "", in.s);
        add_sub(d, t);
        return 0;
    }
    if (isdigit((unsigned char)c))
        return class_type(d, "", t);
    if (c == 'N') {   /* a nested class name: N prefix... name E */
        char text[GL_KSIG_TYPE] = "", part[GL_KSIG_TYPE], args[GL_KSIG_TYPE];
        d->pos++;
        while (peek(d) != 'E') {
            if (peek(d) == 'S' && d->s[d->pos + 1] == 't') {
                d->pos += 2;
                snprintf(text, sizeof text, "std");
                continue;
            }
            if (peek(d) == 'S') {
                d->pos++;
                int id = seq_id(d);
                if (id < 0 || id >= d->nsubs)
                    return -1;
                snprintf(text, sizeof text, "%s", d->subs[id].s);
                continue;
            }
            if (peek(d) == 'I') {
                if (template_args(d, NULL, NULL, args, sizeof args) != 0)
                    return -1;
                size_t u = strlen(text);
                snprintf(text + u, sizeof text - u, "%s", args);
            } else if (source_name(d, part, sizeof part) == 0) {
                append2(text, sizeof text, text[0] ? "::" : "", part);
            } else {
                return -1;
            }
            struct ty pre;
            memset(&pre, 0, sizeof pre);
            pre.elem = -1;
            pre.scalar = 1;
            snprintf(pre.s, sizeof pre.s, "%s", text);
            add_sub(d, &pre);
        }
        d->pos++;
        snprintf(t->s, sizeof t->s, "%s", text);
        t->scalar = 1;
        return 0;
    }
    if (c == 'S') {
        d->pos++;
        if (peek(d) == 't') {
            d->pos++;
            return class_type(d, "std::", t);
        }
        int id = seq_id(d);
        if (id < 0 || id >= d->nsubs)
            return -1;
        *t = d->subs[id];
        if (peek(d) == 'I') {   /* a substituted template name with its arguments */
            char args[GL_KSIG_TYPE];
            if (template_args(d, NULL, NULL, args, sizeof args) != 0)
                return -1;
            size_t u = strlen(t->s);
            snprintf(t->s + u, sizeof t->s - u, "%s", args);
            t->elem = -1;
            add_sub(d, t);
        }
        return 0;
    }
    if (c == 'T') {
        d->pos++;
        int id = seq_id(d);
        if (id < 0 || id >= d->ntargs)
            return -1;
        *t = d->targs[id];
        add_sub(d, t);
        return 0;
    }
    return -1;   /* arrays, functions, member pointers, vendor qualifiers... */
}

static int parse_type(struct dm *d, struct ty *t)
{
    if (++d->depth > 64)
        return -1;
    int rc = parse_type_in(d, t);
    d->depth--;
    return rc;
}

int gl_ksig_parse(const char *lowered, struct gl_ksig *sig)
{
    static struct dm d;   /* large; callers are single-threaded */
    char part[GL_KSIG_TYPE], args[GL_KSIG_TYPE];
    int is_template = 0;
    memset(sig, 0, sizeof *sig);
    memset(&d, 0, sizeof d);
    if (!lowered || strncmp(lowered, "_Z", 2) != 0)
        return -1;
    d.s = lowered;
    d.pos = 2;
    if (peek(&d) == 'N') {
        d.pos++;
        while (peek(&d) == 'K' || peek(&d) == 'V' || peek(&d) == 'r' || peek(&d) == 'R' ||
               peek(&d) == 'O')
            d.pos++;
        while (peek(&d) != 'E') {
            if (peek(&d) == 'S' && d.s[d.pos + 1] == 't') {
                d.pos += 2;
                snprintf(sig->name, sizeof sig->name, "std");
                continue;
            }
            if (peek(&d) == 'S') {
                d.pos++;
                int id = seq_id(&d);
                if (id < 0 || id >= d.nsubs)
                    return -1;
                snprintf(sig->name, sizeof sig->name, "%s", d.subs[id].s);
                continue;
            }
            if (source_name(&d, part, sizeof part) != 0)
                return -1;
            append2(sig->name, sizeof sig->name, sig->name[0] ? "::" : "", part);
            struct ty pre;
            memset(&pre, 0, sizeof pre);
            pre.elem = -1;
            pre.scalar = 1;
            snprintf(pre.s, sizeof pre.s, "%s", sig->name);
            if (peek(&d) == 'E')
                break;           /* the function's own name: no substitution */
            add_sub(&d, &pre);   /* a prefix, or a template's name */
            if (peek(&d) == 'I') {
                if (template_args(&d, d.targs, &d.ntargs, args, sizeof args) != 0)
                    return -1;
                if (peek(&d) == 'E') {
                    is_template = 1;
                    break;
                }
                append2(pre.s, sizeof pre.s, args, "");
                add_sub(&d, &pre);
            }
        }
        d.pos++;
    } else {
        const char *prefix = "";
        if (peek(&d) == 'S' && d.s[d.pos + 1] == 't') {
            d.pos += 2;
            prefix = "std::";
        }
        if (source_name(&d, part, sizeof part) != 0)
            return -1;
        cat3(sig->name, sizeof sig->name, prefix, part, "");
        if (peek(&d) == 'I') {
            struct ty tn;
            memset(&tn, 0, sizeof tn);
            tn.elem = -1;
            snprintf(tn.s, sizeof tn.s, "%s", sig->name);
            add_sub(&d, &tn);
            if (template_args(&d, d.targs, &d.ntargs, args, sizeof args) != 0)
                return -1;
            is_template = 1;
        }
    }
    if (is_template) {   /* a template instance's encoding has its return type first */
        struct ty ret;
        if (parse_type(&d, &ret) != 0)
            return -1;
    }
    if (peek(&d) == 'v' && d.s[d.pos + 1] == '\0')
        return 0;        /* no parameters */
    while (peek(&d)) {
        struct ty t;
        if (sig->nparams == GL_KSIG_MAX || parse_type(&d, &t) != 0)
            return -1;
        struct gl_ksig_param *p = &sig->params[sig->nparams++];
        snprintf(p->type, sizeof p->type, "%s", t.s);
        p->pointer = t.pointer;
        p->elem = t.scalar || t.pointer ? t.elem : -1;
    }
    return sig->nparams > 0 ? 0 : -1;
}

/* ---- the names in the source ------------------------------------------------------- */

static int is_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_char(char c)
{
    return is_start(c) || (c >= '0' && c <= '9');
}

/* Words that are no parameter's name. */
static int is_type_word(const char *w)
{
    static const char *const words[] = {
        "const", "volatile", "__restrict__", "__restrict", "restrict", "unsigned", "signed",
        "int", "long", "short", "char", "float", "double", "bool", "void", "size_t", "half",
        "__half", "__nv_bfloat16", "nv_bfloat16", "struct", "__grid_constant__", NULL
    };
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], w) == 0)
            return 1;
    return 0;
}

/* The name of one parameter's declaration text [s, e): its last identifier
 * outside brackets and a default value, unless that is a type's word or the
 * only word. */
static void param_name(const char *s, const char *e, char *out)
{
    char last[GL_KSIG_NAME] = "";
    int words = 0, depth = 0;
    out[0] = '\0';
    for (const char *c = s; c < e; c++) {
        if (*c == '=' && depth == 0)
            break;
        if (*c == '[' || *c == '<' || *c == '(')
            depth++;
        else if ((*c == ']' || *c == '>' || *c == ')') && depth > 0)
            depth--;
        else if (depth == 0 && is_start(*c) && (c == s || !is_char(c[-1]))) {
            const char *w = c;
            while (c < e && is_char(*c))
                c++;
            snprintf(last, sizeof last, "%.*s", (int)(c - w), w);
            words++;
            c--;
        }
    }
    if (words > 1 && !is_type_word(last))
        snprintf(out, GL_KSIG_NAME, "%s", last);
}

int gl_ksig_names(const char *text, const char *func, int nparams, char names[][GL_KSIG_NAME])
{
    size_t fl = strlen(func);
    for (int i = 0; i < nparams; i++)
        names[i][0] = '\0';
    if (!text || !fl)
        return 0;
    for (const char *p = strstr(text, func); p; p = strstr(p + 1, func)) {
        if ((p > text && is_char(p[-1])) || is_char(p[fl]))
            continue;
        const char *q = p + fl;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q != '(')
            continue;
        /* a definition of a __global__ function: __global__ between the start
         * of its declaration and the name */
        const char *b = p;
        while (b > text && b[-1] != ';' && b[-1] != '}' && b[-1] != '{')
            b--;
        const char *g = strstr(b, "__global__");
        if (!g || g > p)
            continue;
        /* its parameter list, split at the top level's commas */
        const char *s = q + 1, *c;
        int depth = 0, n = 0;
        char got[GL_KSIG_MAX][GL_KSIG_NAME];
        for (c = s; *c; c++) {
            if (*c == '(' || *c == '<' || *c == '[')
                depth++;
            else if ((*c == ')' || *c == '>' || *c == ']') && depth > 0)
                depth--;
            else if ((*c == ',' && depth == 0) || (*c == ')' && depth == 0)) {
                if (n < GL_KSIG_MAX)
                    param_name(s, c, got[n]);
                if (c > s || n > 0 || *c == ',')
                    n++;
                s = c + 1;
                if (*c == ')')
                    break;
            }
        }
        if (*c != ')' || n != nparams)
            continue;   /* another overload, or a declaration we cannot split */
        for (int i = 0; i < n; i++)
            memcpy(names[i], got[i], GL_KSIG_NAME);
        return 1;
    }
    return 0;
}

/* ---- the check ---------------------------------------------------------------------- */

static const char *ordinal(int i, char *buf, size_t len)
{
    int n = i + 1;
    const char *suf = "th";
    if (n % 100 < 11 || n % 100 > 13)
        suf = n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    snprintf(buf, len, "%d%s", n, suf);
    return buf;
}

/* "float a", "const float *x", or the type alone when it has no name. */
static void describe(const struct gl_ksig_param *p, const char *name, char *buf, size_t len)
{
    size_t n = strlen(p->type);
    int glue = n && (p->type[n - 1] == '*' || p->type[n - 1] == '&');
    if (name && name[0])
        snprintf(buf, len, "%s%s%s", p->type, glue ? "" : " ", name);
    else
        snprintf(buf, len, "%s", p->type);
}

/* "(float *y, const float *x, float a, int n)" */
static void param_list(const struct gl_ksig *sig, char names[][GL_KSIG_NAME], char *buf,
                       size_t len)
{
    snprintf(buf, len, "(");
    for (int i = 0; i < sig->nparams; i++) {
        char one[GL_KSIG_TYPE + GL_KSIG_NAME + 4];
        describe(&sig->params[i], names[i], one, sizeof one);
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, "%s%s", i ? ", " : "", one);
    }
    size_t u = strlen(buf);
    snprintf(buf + u, len - u, ")");
}

/* The argument as the config wrote it: 'x' or 'int N'. */
static void arg_text(const struct gl_kernel *k, int i, int type, char *buf, size_t len)
{
    const struct gl_karg *a = &k->args[i];
    static const char *const what[] = { "a tensor map: CUtensorMap", "a texture: "
                                        "cudaTextureObject_t", "a surface: cudaSurfaceObject_t" };
    if (a->object)
        snprintf(buf, len, "'%s' (%s)", k->objects[a->object - 1].name,
                 what[k->objects[a->object - 1].kind]);
    else if (a->buffer >= 0)
        snprintf(buf, len, "'%s' (a %s buffer)", k->buffers[a->buffer].name, gl_ktype_name(type));
    else
        snprintf(buf, len, "'%s %s'", a->tparam[0] ? a->tparam : gl_ktype_name(a->type), a->expr);
}

int gl_ksig_check(const struct gl_kernel *k, const struct gl_params *p, const char *display,
                  const struct gl_ksig *sig, char names[][GL_KSIG_NAME], char *msg, size_t len)
{
    char list[1024], o[16], one[GL_KSIG_TYPE + GL_KSIG_NAME + 4], arg[GL_KEXPR + 80];
    if (k->nargs != sig->nparams) {
        param_list(sig, names, list, sizeof list);
        if (k->nargs < sig->nparams) {
            describe(&sig->params[k->nargs], names[k->nargs], one, sizeof one);
            snprintf(msg, len, "args: %d argument%s but %s has %d parameter%s %s: the %s, %s, "
                     "has none", k->nargs, k->nargs == 1 ? "" : "s", display, sig->nparams,
                     sig->nparams == 1 ? "" : "s", list, ordinal(k->nargs, o, sizeof o), one);
        } else {
            snprintf(msg, len, "args: %d arguments but %s has %d parameter%s %s", k->nargs,
                     display, sig->nparams, sig->nparams == 1 ? "" : "s", list);
        }
        return -1;
    }
    for (int i = 0; i < k->nargs; i++) {
        const struct gl_karg *a = &k->args[i];
        const struct gl_ksig_param *q = &sig->params[i];
        if (a->object) {   /* a handle by value: CUtensorMap, or an unsigned long long */
            int ok = k->objects[a->object - 1].kind == GL_KO_TENSORMAP
                         ? !q->pointer && strstr(q->type, "CUtensorMap") != NULL
                         : !q->pointer && q->elem == GL_KT_UINT64;
            if (ok)
                continue;
            arg_text(k, i, 0, arg, sizeof arg);
            describe(q, names[i], one, sizeof one);
            ordinal(i, o, sizeof o);
            snprintf(msg, len, "args: %s argument %s but %s's %s parameter is %s", o, arg,
                     display, o, one);
            return -1;
        }
        int type = a->buffer >= 0 ? gl_ktype_at(k->buffers[a->buffer].type,
                                                k->buffers[a->buffer].tparam, p)
                                  : gl_ktype_at(a->type, a->tparam, p);
        if (type < 0)
            continue;   /* a type parameter without a type here: the run says so */
        int ok;
        if (a->buffer >= 0)   /* a pointer; to a type gpulab has no buffer of (void *, float4 *): as it is */
            ok = q->pointer && (q->elem < 0 || q->elem == type);
        else
            ok = !q->pointer && q->elem == type;
        if (ok)
            continue;
        arg_text(k, i, type, arg, sizeof arg);
        describe(q, names[i], one, sizeof one);
        ordinal(i, o, sizeof o);
        snprintf(msg, len, "args: %s argument %s but %s's %s parameter is %s", o, arg, display, o,
                 one);
        return -1;
    }
    return 0;
}

int gl_ksig_check_lowered(const struct gl_kernel *k, const struct gl_params *p,
                          const char *display, const char *lowered, char *msg, size_t len)
{
    static struct gl_ksig sig;
    static char names[GL_KSIG_MAX][GL_KSIG_NAME];
    if (k->args_line <= 0)
        return 0;   /* no `args` line: a kernel built without a config, nothing to check */
    if (gl_ksig_parse(lowered, &sig) != 0)
        return 0;   /* extern "C", or a name this reader does not know: not checked */
    const char *base = strrchr(sig.name, ':');
    base = base ? base + 1 : sig.name;
    gl_ksig_names(k->text, base, sig.nparams, names);
    return gl_ksig_check(k, p, display, &sig, names, msg, len);
}

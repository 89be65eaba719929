/* ksource.c - a kernel file's __global__ functions read from its text (see
 * ksource.h): comments and literals blanked first, then each __global__ with
 * its template parameters, parameters and body, and the launches of the file's
 * own host code. A reader of the common forms, not a C++ parser: what it cannot
 * tell, it leaves unknown (0, empty), never guessed.
 * Must not compile, run or open anything. */
#include "ksource.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_id(int c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* text with comments, string and character literals blanked (newlines kept),
 * malloc'd; NULL when out of memory. */
static char *blank(const char *text)
{
    size_t n = strlen(text);
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memcpy(s, text, n + 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                s[i++] = ' ';
        } else if (s[i] == '/' && s[i + 1] == '*') {
            s[i] = s[i + 1] = ' ';
            i += 2;
            while (i < n && !(s[i] == '*' && s[i + 1] == '/')) {
                if (s[i] != '\n')
                    s[i] = ' ';
                i++;
            }
            if (i < n)
                s[i] = s[i + 1] = ' ', i++;
        } else if (s[i] == '"' || (s[i] == '\'' && !(i > 0 && isxdigit((unsigned char)s[i - 1])))) {
            char q = s[i++];   /* (a ' after a hex digit is C++14's 1'000 separator) */
            while (i < n && s[i] != q && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < n)
                    s[i++] = ' ';
                s[i++] = ' ';
            }
        }
    }
    return s;
}

/* The word at s (an identifier), copied into out; its length (0: none). */
static size_t word(const char *s, char *out, size_t len)
{
    size_t k = 0;
    while (is_id(s[k]))
        k++;
    if (out && len) {
        size_t c = k < len - 1 ? k : len - 1;
        memcpy(out, s, c);
        out[c] = '\0';
    }
    return k;
}

/* src into out[len], cut to fit (a name longer than gpulab keeps is cut, not refused). */
static void copy(char *out, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(out, src, n);
    out[n] = '\0';
}

static const char *skip_ws(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The bracket matching the one at p ('(' '[' '{' '<'), or NULL. '<' counts
 * only angle brackets and stops at ';' '{' '}' (a comparison is no template). */
static const char *match(const char *p)
{
    char o = *p, c = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
    int depth = 0;
    for (const char *q = p; *q; q++) {
        if (o == '<' && (*q == ';' || *q == '{' || *q == '}'))
            return NULL;
        if (*q == o)
            depth++;
        else if (*q == c && --depth == 0)
            return q;
    }
    return NULL;
}

static int line_of(const char *start, const char *p)
{
    int l = 1;
    for (const char *q = start; q < p; q++)
        l += *q == '\n';
    return l;
}

/* s[0..n) trimmed, spaces folded, into out. */
static void fold(const char *s, size_t n, char *out, size_t len)
{
    size_t k = 0;
    int sp = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        if (isspace((unsigned char)s[i])) {
            sp = k > 0;
            continue;
        }
        if (sp && k + 1 < len)
            out[k++] = ' ';
        sp = 0;
        out[k++] = s[i];
    }
    out[k] = '\0';
}

/* The element type of a declared type: qualifiers, '*' and '&' dropped. */
static void element_of(const char *type, char *out, size_t len)
{
    static const char *const drop[] = { "const", "volatile", "__restrict__", "__restrict",
        "restrict", "struct", "__grid_constant__", NULL };
    char buf[128];
    size_t k = 0;
    out[0] = '\0';
    for (const char *p = type; *p;) {
        if (is_id(*p)) {
            char w[64];
            size_t n = word(p, w, sizeof w);
            int skip = 0;
            for (int i = 0; drop[i]; i++)
                skip |= strcmp(w, drop[i]) == 0;
            if (!skip) {
                int m = snprintf(buf + k, sizeof buf - k, "%s%s", k ? " " : "", w);
                if (m > 0 && (size_t)m < sizeof buf - k)
                    k += (size_t)m;
            }
            p += n;
        } else if (*p == ':' && p[1] == ':') {
            if (k > 0 && k + 2 < sizeof buf)   /* keep "cuda::std::x" together */
                buf[k++] = ':', buf[k++] = ':', buf[k] = '\0';
            p += 2;
            while (*p == ' ')
                p++;
            if (is_id(*p) && k > 0 && buf[k - 1] == ':') {
                char w[64];
                size_t n = word(p, w, sizeof w);
                int m = snprintf(buf + k, sizeof buf - k, "%s", w);
                if (m > 0 && (size_t)m < sizeof buf - k)
                    k += (size_t)m;
                p += n;
            }
        } else {
            p++;
        }
    }
    buf[k] = '\0';
    copy(out, len, buf);
}

const char *gl_ks_buffer_type(const char *elem)
{
    static const struct { const char *c, *gl; } map[] = {
        { "float", "float" }, { "double", "double" }, { "int", "int" }, { "int32_t", "int" },
        { "signed int", "int" }, { "unsigned", "uint" }, { "unsigned int", "uint" },
        { "uint32_t", "uint" }, { "uint", "uint" }, { "long long", "int64" },
        { "long long int", "int64" }, { "int64_t", "int64" }, { "unsigned long long", "uint64" },
        { "unsigned long long int", "uint64" }, { "uint64_t", "uint64" }, { "size_t", "uint64" },
        { "__half", "half" }, { "half", "half" }, { "__nv_bfloat16", "bfloat16" },
        { "nv_bfloat16", "bfloat16" }, { "signed char", "int8" }, { "int8_t", "int8" },
        { "unsigned char", "uint8" }, { "uint8_t", "uint8" }, { "__nv_fp8_e4m3", "fp8e4m3" },
        { "__nv_fp8_e5m2", "fp8e5m2" }, { NULL, NULL } };
    for (int i = 0; map[i].c; i++)
        if (strcmp(elem, map[i].c) == 0)
            return map[i].gl;
    return NULL;
}

/* One parameter "const float *__restrict__ x" (s[0..n)) into p. */
static void one_param(const char *s, size_t n, struct gl_ks_param *p)
{
    char decl[256];
    memset(p, 0, sizeof *p);
    fold(s, n, decl, sizeof decl);
    char *eq = strchr(decl, '=');   /* a default argument */
    if (eq)
        *eq = '\0';
    size_t len = strlen(decl);
    while (len && decl[len - 1] == ' ')
        decl[--len] = '\0';
    while (len && decl[len - 1] == ']') {   /* float x[] : a pointer */
        char *lb = strrchr(decl, '[');
        if (!lb)
            break;
        *lb = '\0';
        len = strlen(decl);
        while (len && decl[len - 1] == ' ')
            decl[--len] = '\0';
        p->is_ptr = 1;
    }
    size_t e = len;
    while (e && is_id(decl[e - 1]))
        e--;
    copy(p->name, sizeof p->name, decl + e);
    decl[e] = '\0';
    fold(decl, strlen(decl), p->type, sizeof p->type);
    if (strchr(p->type, '*'))
        p->is_ptr = 1;
    /* const before the '*' (or no '*': a const scalar) */
    const char *star = strchr(p->type, '*');
    const char *c = strstr(p->type, "const");
    p->is_const = c && (!star || c < star);
    element_of(p->type, p->elem, sizeof p->elem);
}

/* Split s[0..n) at top-level commas; calls f on each piece. */
static void split_top(const char *s, size_t n, void (*f)(const char *, size_t, void *), void *ctx)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        char ch = i < n ? s[i] : ',';
        if (ch == '(' || ch == '<' || ch == '[' || ch == '{')
            depth++;
        else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0)
            depth--;
        else if (ch == ',' && depth == 0) {
            f(s + start, i - start, ctx);
            start = i + 1;
        }
    }
}

static void add_param(const char *s, size_t n, void *ctx)
{
    struct gl_ks_kernel *k = ctx;
    char t[256];
    fold(s, n, t, sizeof t);
    if (!t[0] || strcmp(t, "void") == 0)
        return;
    if (k->nparams >= GL_KS_MAXP) {
        k->nparams = GL_KS_MAXP + 1;   /* too many: said by the caller */
        return;
    }
    one_param(s, n, &k->params[k->nparams++]);
}

static void add_tparam(const char *s, size_t n, void *ctx)
{
    struct gl_ks_kernel *k = ctx;
    char t[256];
    fold(s, n, t, sizeof t);
    char *eq = strchr(t, '=');
    if (eq)
        *eq = '\0';
    size_t len = strlen(t);
    while (len && t[len - 1] == ' ')
        t[--len] = '\0';
    if (!len || k->ntparams >= GL_KS_MAXT)
        return;
    size_t e = len;
    while (e && is_id(t[e - 1]))
        e--;
    struct gl_ks_tparam *tp = &k->tparams[k->ntparams++];
    copy(tp->name, sizeof tp->name, t + e);
    tp->is_type = strncmp(t, "typename", 8) == 0 || strncmp(t, "class", 5) == 0;
}

/* The template parameter list just before pos (after "template"), or none. */
static void template_before(const char *start, const char *pos, struct gl_ks_kernel *k)
{
    const char *q = pos;
    /* skip words such as static, inline, extern (its "C" is blanked) */
    for (;;) {
        while (q > start && isspace((unsigned char)q[-1]))
            q--;
        if (q > start && is_id(q[-1])) {
            const char *w = q;
            while (w > start && is_id(w[-1]))
                w--;
            if ((q - w == 6 && strncmp(w, "static", 6) == 0) ||
                (q - w == 6 && strncmp(w, "inline", 6) == 0) ||
                (q - w == 6 && strncmp(w, "extern", 6) == 0)) {
                q = w;
                continue;
            }
        }
        break;
    }
    if (q <= start || q[-1] != '>')
        return;
    int depth = 0;
    const char *gt = q - 1, *lt = NULL;
    for (const char *r = gt; r >= start; r--) {
        if (*r == '>')
            depth++;
        else if (*r == '<' && --depth == 0) {
            lt = r;
            break;
        }
    }
    if (!lt)
        return;
    const char *t = lt;
    while (t > start && isspace((unsigned char)t[-1]))
        t--;
    if (t - start < 8 || strncmp(t - 8, "template", 8) != 0)
        return;
    split_top(lt + 1, (size_t)(gt - lt - 1), add_tparam, k);
}

/* 1 when the argument that ends before `at` is the first of an atomic call:
 * "atomicAdd(" just before it. */
static int atomic_arg(const char *b, const char *at)
{
    const char *q = at;
    while (q > b && isspace((unsigned char)q[-1]))
        q--;
    if (q <= b || q[-1] != '(')
        return 0;
    q--;
    while (q > b && isspace((unsigned char)q[-1]))
        q--;
    const char *w = q;
    while (w > b && is_id(w[-1]))
        w--;
    return q - w > 6 && strncmp(w, "atomic", 6) == 0;
}

/* What the body [b, e) does with each pointer parameter. */
static void body_uses(const char *b, const char *e, struct gl_ks_kernel *k)
{
    static const char *const dims[] = { "blockIdx.y", "threadIdx.y", "blockDim.y", "gridDim.y",
        NULL };
    for (int i = 0; dims[i]; i++) {
        const char *hit = strstr(b, dims[i]);
        if (hit && hit < e)
            k->two_d = 1;
    }
    for (int i = 0; i < k->nparams; i++) {
        struct gl_ks_param *p = &k->params[i];
        if (!p->is_ptr)
            continue;
        size_t n = strlen(p->name);
        for (const char *q = b; q < e; q++) {
            if (strncmp(q, p->name, n) != 0 || (q > b && is_id(q[-1])) || is_id(q[n]))
                continue;
            const char *before = q;
            while (before > b && isspace((unsigned char)before[-1]))
                before--;
            const char *r = skip_ws(q + n);
            if (*r == '[') {
                const char *rb = match(r);
                if (!rb || rb >= e)
                    continue;
                r = skip_ws(rb + 1);
            } else if (!(before > b && before[-1] == '*')) {
                /* passed on whole (to a function, an atomic, an alias): both, unless const */
                p->read = 1;
                if (!p->is_const)
                    p->written = 1;
                if (!p->is_const && atomic_arg(b, before))
                    p->accumulated = 1;
                continue;
            }
            if (before > b && before[-1] == '&') {   /* &x[i]: atomicAdd(&x[i], v) */
                p->read = 1;
                if (!p->is_const)
                    p->written = p->accumulated = 1;
            } else if (r[0] == '=' && r[1] != '=') {
                p->written = 1;
            } else if (strchr("+-*/%&|^", r[0]) && r[0] && r[1] == '=') {
                p->written = p->read = p->accumulated = 1;
            } else if ((r[0] == '+' && r[1] == '+') || (r[0] == '-' && r[1] == '-')) {
                p->written = p->read = 1;
            } else {
                p->read = 1;
            }
        }
    }
}

/* The first grid-wide sync of the body [b, e) (s: the whole blanked text, for
 * the line): this_grid().sync(), or NAME.sync() / sync(NAME) of a NAME bound
 * to this_grid() or declared a grid_group in the body. */
static void grid_sync(const char *s, const char *b, const char *e, struct gl_ks_kernel *k)
{
    char names[8][GL_KS_NAME];
    int nn = 0;
    for (const char *q = b; q < e && (q = strstr(q, "this_grid")) != NULL && q < e; q += 9) {
        if (is_id(q[-1]) || is_id(q[9]))
            continue;
        const char *r = skip_ws(q + 9);
        if (*r != '(')
            continue;
        r = skip_ws(r + 1);
        if (*r != ')')
            continue;
        r = skip_ws(r + 1);
        if (*r == '.' && strncmp(skip_ws(r + 1), "sync", 4) == 0) {
            k->grid_sync_line = line_of(s, q);
            snprintf(k->grid_sync, sizeof k->grid_sync, "this_grid().sync()");
            return;
        }
        /* NAME = [cg::]this_grid() or NAME(this_grid()) or NAME{...} */
        const char *p = q;
        while (p > b && (is_id(p[-1]) || p[-1] == ':'))
            p--;
        while (p > b && isspace((unsigned char)p[-1]))
            p--;
        if (p > b && (p[-1] == '=' || p[-1] == '(' || p[-1] == '{')) {
            p--;
            while (p > b && isspace((unsigned char)p[-1]))
                p--;
            const char *w = p;
            while (w > b && is_id(w[-1]))
                w--;
            if (w < p && nn < 8)
                snprintf(names[nn++], GL_KS_NAME, "%.*s", (int)(p - w), w);
        }
    }
    for (const char *q = b; q < e && (q = strstr(q, "grid_group")) != NULL && q < e; q += 10) {
        if (is_id(q[-1]) || is_id(q[10]))
            continue;
        const char *r = skip_ws(q + 10);
        if (*r == '&')
            r = skip_ws(r + 1);
        if (is_id(*r) && nn < 8)
            word(r, names[nn++], GL_KS_NAME);
    }
    for (int i = 0; i < nn; i++) {
        size_t n = strlen(names[i]);
        for (const char *q = b; q < e; q++) {
            if (strncmp(q, names[i], n) != 0 || is_id(q[-1]) || is_id(q[n]))
                continue;
            const char *r = skip_ws(q + n);
            const char *before = q;
            while (before > b && isspace((unsigned char)before[-1]))
                before--;
            int member = *r == '.' && strncmp(skip_ws(r + 1), "sync", 4) == 0 &&
                         !is_id(skip_ws(r + 1)[4]);
            int call = *r == ')' && before > b && before[-1] == '(';
            if (call) {   /* sync(NAME) or cg::sync(NAME) */
                const char *w = before - 1;
                while (w > b && isspace((unsigned char)w[-1]))
                    w--;
                call = w - b >= 4 && strncmp(w - 4, "sync", 4) == 0 && !is_id(w[-5]);
            }
            if (member || call) {
                k->grid_sync_line = line_of(s, q);
                snprintf(k->grid_sync, sizeof k->grid_sync, member ? "%s.sync()" : "sync(%s)",
                         names[i]);
                return;
            }
        }
    }
}

/* __cluster_dims__(X[, Y[, Z]]) of integer literals at p (its '('), into d. */
static void cluster_dims(const char *p, int d[3])
{
    char *end;
    d[0] = d[1] = d[2] = 1;
    for (int i = 0; i < 3; i++) {
        p = skip_ws(p + 1);
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1024) {
            d[0] = d[1] = d[2] = 0;
            return;
        }
        d[i] = (int)v;
        p = skip_ws(end);
        if (*p == ')')
            return;
        if (*p != ',') {
            d[0] = d[1] = d[2] = 0;
            return;
        }
    }
    d[0] = d[1] = d[2] = 0;
}

/* The integer value of a name the file defines (#define N 256, const int N = 256,
 * constexpr int N = 256), or 0. */
static long defined_value(const char *s, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = s; (q = strstr(q, name)) != NULL; q += n) {
        if ((q > s && is_id(q[-1])) || is_id(q[n]))
            continue;
        const char *line = q;
        while (line > s && line[-1] != '\n')
            line--;
        const char *r = skip_ws(q + n);
        const char *l = skip_ws(line);
        int is_define = strncmp(l, "#", 1) == 0 && strstr(l, "define") && strstr(l, "define") < q;
        if (!is_define) {
            if (*r != '=')
                continue;
            char head[128];
            fold(line, (size_t)(q - line), head, sizeof head);
            if (!strstr(head, "const") && !strstr(head, "constexpr"))
                continue;
            r = skip_ws(r + 1);
        }
        char *end;
        long v = strtol(r, &end, 0);
        if (end != r && v > 0) {
            while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
                end++;
            while (*end == ' ' || *end == '\t' || *end == '\r')
                end++;
            if (*end == ';' || *end == '\n' || *end == '\0' || *end == ')')
                return v;
        }
    }
    return 0;
}

static void find_launch(const char *s, struct gl_ks_kernel *k)
{
    size_t n = strlen(k->name);
    for (const char *q = s; (q = strstr(q, k->name)) != NULL; q += n) {
        if ((q > s && is_id(q[-1])) || is_id(q[n]))
            continue;
        const char *r = skip_ws(q + n);
        if (*r == '<' && strncmp(r, "<<<", 3) != 0) {   /* name<T, 256><<<...>>> */
            const char *gt = match(r);
            if (!gt)
                continue;
            r = skip_ws(gt + 1);
        }
        if (strncmp(r, "<<<", 3) != 0)
            continue;
        const char *end = strstr(r + 3, ">>>");
        if (!end)
            continue;
        /* the second argument */
        int depth = 0;
        const char *a2 = NULL, *a2e = end;
        for (const char *c = r + 3; c < end; c++) {
            if (*c == '(' || *c == '{')
                depth++;
            else if (*c == ')' || *c == '}')
                depth--;
            else if (*c == ',' && depth == 0) {
                if (!a2)
                    a2 = c + 1;
                else {
                    a2e = c;
                    break;
                }
            }
        }
        if (!a2)
            continue;
        char arg[64];
        fold(a2, (size_t)(a2e - a2), arg, sizeof arg);
        char *e2;
        long v = strtol(arg, &e2, 0);
        if (e2 != arg && *e2 == '\0' && v > 0) {
            k->launch_block = v;
            return;
        }
        char w[GL_KS_NAME];
        if (word(arg, w, sizeof w) == strlen(arg) && arg[0] && !isdigit((unsigned char)arg[0])) {
            long d = defined_value(s, w);
            if (d > 0) {
                k->launch_block = d;
                return;
            }
        }
    }
}

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *q = s; (q = strstr(q, w)) != NULL; q += n)
        if (!(q > s && is_id(q[-1])) && !is_id(q[n]))
            return 1;
    return 0;
}

/* The macros the file wants from the command line: `#ifndef X` or `#if
 * !defined(X)` whose next line is an `#error`. */
static void required_macros(const char *s, struct gl_ks_file *f)
{
    for (const char *l = s; *l; ) {
        const char *e = strchr(l, '\n');
        const char *next = e ? e + 1 : l + strlen(l);
        const char *p = skip_ws(l);
        char names[GL_KS_MAXM][GL_KS_NAME];
        int n = 0;
        if (*p == '#') {
            p = skip_ws(p + 1);
            if (strncmp(p, "ifndef", 6) == 0 && !is_id(p[6])) {
                if (word(skip_ws(p + 6), names[0], GL_KS_NAME))
                    n = 1;
            } else if (strncmp(p, "if", 2) == 0 && !is_id(p[2])) {
                /* every !defined(X) or !defined X of the line */
                for (const char *d = p + 2; d < next && n < GL_KS_MAXM; d++) {
                    if (*d != '!')
                        continue;
                    const char *w = skip_ws(d + 1);
                    if (strncmp(w, "defined", 7) != 0 || is_id(w[7]))
                        continue;
                    w = skip_ws(w + 7);
                    if (*w == '(')
                        w = skip_ws(w + 1);
                    if (word(w, names[n], GL_KS_NAME))
                        n++;
                }
            }
        }
        if (n && *next) {
            const char *n2 = skip_ws(next);
            if (*n2 == '#' && strncmp(skip_ws(n2 + 1), "error", 5) == 0) {
                for (int j = 0; j < n && f->nmacros < GL_KS_MAXM; j++) {
                    int dup = 0;
                    for (int i = 0; i < f->nmacros; i++)
                        dup |= strcmp(f->macros[i], names[j]) == 0;
                    if (!dup)
                        copy(f->macros[f->nmacros++], GL_KS_NAME, names[j]);
                }
            }
        }
        l = next;
    }
}

int gl_ks_needs_nvcc(const char *text, char *why, size_t whylen)
{
    /* headers of the C and C++ libraries and of the runtime that NVRTC has no copy of
     * (it has CCCL, cuda_fp16.h, cuda_bf16.h, cooperative_groups, cuda/std/...) */
    static const char *const hosted[] = { "stdio.h", "cstdio", "stdlib.h", "cstdlib", "string.h",
        "cstring", "iostream", "vector", "string", "algorithm", "memory", "chrono", "fstream",
        "sstream", "iomanip", "map", "unordered_map", "random", "thread", "time.h", "ctime",
        "math.h", "cmath", "assert.h", "cassert", "cuda_runtime.h", "cuda_runtime_api.h",
        "cuda.h", "helper_cuda.h", "helper_functions.h", "cublas_v2.h", "curand.h", NULL };
    static const char *const runtime[] = { "cudaMalloc", "cudaMemcpy", "cudaFree",
        "cudaDeviceSynchronize", "cudaEventCreate", "cudaMallocManaged", "cudaMallocHost",
        "cudaStreamCreate", "cudaGetDeviceProperties", "cudaLaunchKernel", NULL };
    char *s = blank(text);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return 1;
    }
    int r = 0;
    const char *hit = NULL;
    if (has_word(s, "main")) {
        for (const char *q = s; (q = strstr(q, "main")) != NULL; q += 4)
            if (!(q > s && is_id(q[-1])) && !is_id(q[4]) && *skip_ws(q + 4) == '(') {
                snprintf(why, whylen, "main() at line %d", line_of(s, q));
                r = 1;
                break;
            }
    }
    if (!r && (hit = strstr(s, "<<<")) != NULL) {
        snprintf(why, whylen, "a host launch <<<...>>> at line %d", line_of(s, hit));
        r = 1;
    }
    for (int i = 0; !r && runtime[i]; i++)
        for (const char *q = s; (q = strstr(q, runtime[i])) != NULL; q++)
            if (!(q > s && is_id(q[-1])) && !is_id(q[strlen(runtime[i])])) {
                snprintf(why, whylen, "%s() at line %d", runtime[i], line_of(s, q));
                r = 1;
                break;
            }
    /* #include <X> (quotes blanked: a "x.h" include is the user's own) */
    for (const char *l = text; !r && *l; ) {
        const char *e = strchr(l, '\n');
        const char *next = e ? e + 1 : l + strlen(l);
        const char *p = skip_ws(l);
        size_t off = (size_t)(p - text);
        if (*p == '#' && s[off] == '#') {   /* not inside a comment */
            p = skip_ws(p + 1);
            if (strncmp(p, "include", 7) == 0) {
                p = skip_ws(p + 7);
                if (*p == '<') {
                    const char *gt = strchr(p, '>');
                    if (gt && gt < next) {
                        for (int i = 0; hosted[i]; i++) {
                            size_t n = strlen(hosted[i]);
                            if ((size_t)(gt - p - 1) == n && strncmp(p + 1, hosted[i], n) == 0) {
                                snprintf(why, whylen, "#include <%s> at line %d", hosted[i],
                                         line_of(text, l));
                                r = 1;
                                break;
                            }
                        }
                    }
                }
            }
        }
        l = next;
    }
    free(s);
    return r;
}

int gl_ks_scan(const char *text, struct gl_ks_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    char *s = blank(text);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int cap = 0;
    for (const char *q = s; (q = strstr(q, "__global__")) != NULL; q += 10) {
        if ((q > s && is_id(q[-1])) || is_id(q[10]))
            continue;
        struct gl_ks_kernel k;
        memset(&k, 0, sizeof k);
        k.line = line_of(s, q);
        template_before(s, q, &k);
        /* up to the name's '(' : attributes' parentheses skipped */
        const char *p = q + 10, *open = NULL;
        char last[GL_KS_NAME] = "";
        while (*p) {
            p = skip_ws(p);
            if (is_id(*p)) {
                char w[GL_KS_NAME];
                p += word(p, w, sizeof w);
                const char *r = skip_ws(p);
                if (*r == '(' && (strncmp(w, "__", 2) == 0 || strcmp(w, "alignas") == 0)) {
                    const char *m = match(r);   /* __launch_bounds__(256), __cluster_dims__(...) */
                    if (!m)
                        break;
                    if (strcmp(w, "__cluster_dims__") == 0)
                        cluster_dims(r, k.cluster_dims);
                    p = m + 1;
                    continue;
                }
                copy(last, sizeof last, w);
            } else if (*p == '(') {
                open = p;
                break;
            } else if (*p == ':' || *p == '*' || *p == '&' || *p == '<' || *p == '>') {
                p++;
            } else {
                break;
            }
        }
        if (!open || !last[0])
            continue;
        const char *close = match(open);
        if (!close)
            continue;
        const char *after = skip_ws(close + 1);
        while (is_id(*after)) {   /* trailing attributes */
            char w[GL_KS_NAME];
            after += word(after, w, sizeof w);
            after = skip_ws(after);
            if (*after == '(') {
                const char *m = match(after);
                if (!m)
                    break;
                after = skip_ws(m + 1);
            }
        }
        if (*after != '{')
            continue;   /* a declaration */
        const char *body_end = match(after);
        if (!body_end)
            continue;
        copy(k.name, sizeof k.name, last);
        split_top(open + 1, (size_t)(close - open - 1), add_param, &k);
        if (k.nparams > GL_KS_MAXP) {
            snprintf(err, errlen, "line %d: kernel %s has more than %d parameters", k.line,
                     k.name, GL_KS_MAXP);
            free(s);
            gl_ks_free(f);
            return -1;
        }
        body_uses(after, body_end, &k);
        grid_sync(s, after, body_end, &k);
        find_launch(s, &k);
        if (f->nkernels == cap) {
            int nc = cap ? 2 * cap : 8;
            struct gl_ks_kernel *nk = realloc(f->kernels, (size_t)nc * sizeof *nk);
            if (!nk) {
                snprintf(err, errlen, "out of memory");
                free(s);
                gl_ks_free(f);
                return -1;
            }
            f->kernels = nk;
            cap = nc;
        }
        f->kernels[f->nkernels++] = k;
        q = body_end - 10 > q ? body_end - 10 : q;
    }
    required_macros(s, f);
    free(s);
    return 0;
}

void gl_ks_free(struct gl_ks_file *f)
{
    free(f->kernels);
    memset(f, 0, sizeof *f);
}

/* kernel_names.c - a user kernel's name expression at a point (its template
 * arguments the point's values: transpose_tiled<32, 8>), its -D list, and the
 * key of the program it compiles in: what the compile keys (kernel_variant.c)
 * and a launch sequence's kernels (kernel_launches.c) are made of.
 * Must not compile, check or run anything. */
#include "kernel_variant.h"
#include "kinit.h"
#include "expr.h"
#include "launches.h"
#include "registry.h"
#include "scalar.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_char(char c)
{
    return is_start(c) || (c >= '0' && c <= '9');
}

/* The value of parameter name at p: 1 with *v, 0 when it is no parameter of p. */
static int param_value(const struct gl_params *p, const char *name, long *v)
{
    const struct gl_uparam *u = gl_params_user_find(p, name);
    if (u) {
        *v = u->v;
        return 1;
    }
    const struct gl_param_def *d = gl_param_by_name(name);
    if (d && !d->is_text && gl_params_get(p, d->id) != GL_UNSET) {
        *v = gl_params_get(p, d->id);
        return 1;
    }
    return 0;
}

/* Append text to buf (used bytes in *n). 0, or -1 when it does not fit. */
static int append(char *buf, size_t len, size_t *n, const char *text, size_t tlen)
{
    if (*n + tlen + 1 > len)
        return -1;
    memcpy(buf + *n, text, tlen);
    *n += tlen;
    buf[*n] = '\0';
    return 0;
}

int gl_kernel_name_expr(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                        size_t len)
{
    const char *s = kv->expr, *lt = strchr(s, '<');
    size_t n = 0;
    if (len == 0)
        return -1;
    buf[0] = '\0';
    if (!lt)
        return append(buf, len, &n, s, strlen(s));
    if (append(buf, len, &n, s, (size_t)(lt - s)) != 0)
        return -1;
    for (s = lt; *s;) {
        if (!is_start(*s) || (s > lt && is_char(s[-1]))) {
            if (append(buf, len, &n, s, 1) != 0)
                return -1;
            s++;
            continue;
        }
        const char *e = s;
        while (is_char(*e))
            e++;
        char name[GL_KEXPR], num[32];
        long v;
        snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
        if (param_value(p, name, &v)) {
            if (gl_ktype_of_param(v) >= 0)   /* a type parameter: saxpy<float> */
                snprintf(num, sizeof num, "%s", gl_ktype_cname(gl_ktype_of_param(v)));
            else
                snprintf(num, sizeof num, "%ld", v);
            if (append(buf, len, &n, num, strlen(num)) != 0)
                return -1;
        } else if (append(buf, len, &n, s, (size_t)(e - s)) != 0) {
            return -1;
        }
        s = e;
    }
    return 0;
}

static int define(char *buf, size_t len, size_t *n, const char *name, long v)
{
    char d[GL_UPARAM_NAME + 40];
    int w = snprintf(d, sizeof d, "%s-D%s=%ld", *n ? " " : "", name, v);
    return append(buf, len, n, d, (size_t)w);
}

int gl_kernel_defines(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                      size_t len)
{
    const struct gl_kernel *k = kv->k;
    size_t n = 0;
    long v;
    if (len == 0)
        return -1;
    buf[0] = '\0';
    if (k->all_defines) {
        for (int i = 0; i < GL_NPARAMS; i++) {
            const struct gl_param_def *d = &gl_param_table[i];
            if (!d->is_text && param_value(p, d->name, &v) && define(buf, len, &n, d->name, v) != 0)
                return -1;
        }
        for (int i = 0; i < p->nuser; i++)   /* type parameters are no -D */
            if (gl_ktype_of_param(p->user[i].v) < 0 &&
                define(buf, len, &n, p->user[i].name, p->user[i].v) != 0)
                return -1;
        return 0;
    }
    for (int i = 0; i < k->ndefines; i++) {
        if (!param_value(p, k->defines[i], &v) || define(buf, len, &n, k->defines[i], v) != 0)
            return -1;
    }
    return 0;
}

int gl_kernel_program_key(const struct gl_kernel_variant *kv, const struct gl_params *p,
                          char *buf, size_t len)
{
    char defs[2048];
    if (gl_kernel_defines(kv, p, defs, sizeof defs) != 0)
        return -1;
    int w = snprintf(buf, len, "%s|%s|%s|%s", kv->k->source,
                     kv->k->compiler == GL_KC_NVCC ? "nvcc" : "nvrtc", kv->k->options_text, defs);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

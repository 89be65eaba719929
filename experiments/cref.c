/* cref.c - see cref.h. */
#include "cref.h"
#include "kinit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr.h"
#include "ktype.h"
#include "scalar.h"

void gl_cref_params(const struct gl_kernel *k, const struct gl_params *p, struct gl_params *q)
{
    if (k->verify_reads_all) {
        *q = *p;
        return;
    }
    gl_params_init(q);
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        if (!(k->verify_reads_params & GL_PBIT(i)) || !gl_params_is_set(p, id))
            continue;
        if (gl_param_table[i].is_text)
            (void)gl_params_set_text(q, id, gl_params_get_text(p, id));
        else
            gl_params_set(q, id, gl_params_get(p, id));
    }
    for (int u = 0; u < k->nverify_reads; u++) {
        const struct gl_uparam *up = gl_params_user_find(p, k->verify_reads[u]);
        if (up)
            (void)gl_params_user_set(q, up->name, up->v);
    }
    /* the types of its buffers: a type parameter is always handed over */
    for (int u = 0; u < p->nuser; u++)
        if (gl_ktype_of_param(p->user[u].v) >= 0)
            (void)gl_params_user_set(q, p->user[u].name, p->user[u].v);
}

/* Append to the key; 0, or -1 once it no longer fits. */
static int add(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int add(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    if (*used >= len)
        return -1;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= len - *used) {
        *used = len;
        return -1;
    }
    *used += (size_t)w;
    return 0;
}

static const char *init_name(enum gl_kinit i)
{
    switch (i) {
    case GL_KI_POISON:
        return "poison";
    case GL_KI_RANDOM:
        return "random";
    case GL_KI_ZERO:
        return "zero";
    case GL_KI_CONST:
        return "const";
    case GL_KI_RAMP:
        return "ramp";
    case GL_KI_RANDINT:
        return "randint";
    case GL_KI_NORMAL:
        return "normal";
    case GL_KI_FILE:
        return "file";
    }
    return "?";
}

int gl_cref_key(const struct gl_kernel *k, const struct gl_params *p, char *buf, size_t len,
                char *err, size_t errlen)
{
    size_t used = 0;
    int bad = 0;
    struct gl_params q;
    if (len == 0) {
        snprintf(err, errlen, "no room for the reference's key");
        return -1;
    }
    buf[0] = '\0';
    bad |= add(buf, len, &used, "cref %s:%s sha256=%s; buffers", k->verify_c_so, k->verify_c_func,
               k->verify_c_hash);
    for (int b = 0; b < k->nbuffers; b++) {
        const struct gl_kbuffer *kb = &k->buffers[b];
        long long n;
        char msg[200];
        if (gl_expr_value(kb->count, p, &n, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "buffer %s count '%s': %s", kb->name, kb->count, msg);
            return -1;
        }
        /* an input without init is random, as the harness makes it */
        enum gl_kinit init = !kb->output && kb->init == GL_KI_POISON ? GL_KI_RANDOM : kb->init;
        bad |= add(buf, len, &used, " %s=%s[%lld] %s", kb->name,
                   gl_ktype_name(gl_ktype_at(kb->type, kb->tparam, p)), n, init_name(init));
        if (init == GL_KI_CONST)
            bad |= add(buf, len, &used, "(%a)", kb->value);
        double va = kb->value, vb = kb->value2;
        if (gl_kbuffer_values(kb, p, &va, &vb, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s", msg);
            return -1;
        }
        if (init == GL_KI_RANDOM && (va != 0.0 || vb != 1.0))
            bad |= add(buf, len, &used, "(%a, %a)", va, vb);
        if (init == GL_KI_RANDINT || init == GL_KI_NORMAL)
            bad |= add(buf, len, &used, "(%a, %a)", va, vb);
        if (init == GL_KI_RANDOM || init == GL_KI_RANDINT || init == GL_KI_NORMAL)
            bad |= add(buf, len, &used, "(stream %d)", kb->stream);
        if (init == GL_KI_FILE)
            bad |= add(buf, len, &used, "(sha256 %s)", kb->file_hash);
        if (kb->symbol)
            bad |= add(buf, len, &used, " symbol");
        if (kb->output)
            bad |= add(buf, len, &used, " output");
        bad |= add(buf, len, &used, ",");
    }
    bad |= add(buf, len, &used, " seed=%lld; reads",
               p->seed == GL_UNSET ? 42LL : (long long)p->seed);
    gl_cref_params(k, p, &q);
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        if (!gl_params_is_set(&q, id))
            continue;
        if (gl_param_table[i].is_text)
            bad |= add(buf, len, &used, " %s=%s", gl_param_table[i].name,
                       gl_params_get_text(&q, id));
        else
            bad |= add(buf, len, &used, " %s=%ld", gl_param_table[i].name, gl_params_get(&q, id));
    }
    for (int u = 0; u < q.nuser; u++)
        bad |= add(buf, len, &used, " %s=%ld", q.user[u].name, q.user[u].v);
    if (bad) {
        snprintf(err, errlen, "the reference's key is longer than %zu characters", len - 1);
        return -1;
    }
    return 0;
}

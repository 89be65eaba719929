/* kernel_scalars.c - see kernel_scalars.h. */
#include "kernel_scalars.h"
#include "scalar.h"

#include <stdio.h>
#include <string.h>

void gl_kernel_scalars(const struct gl_kernel_variant *kv, const struct gl_params *p,
                       struct gl_kernel_scalars *out)
{
    const struct gl_kernel *k = kv->k;
    char func[GL_KEXPR];
    memset(out, 0, sizeof *out);
    /* the function's own name: before any template arguments, after any namespace */
    snprintf(func, sizeof func, "%s", kv->expr[0] ? kv->expr : kv->name);
    func[strcspn(func, "<")] = '\0';
    const char *base = strrchr(func, ':');
    base = base ? base + 1 : func;
    while (*base == ' ')
        base++;
    size_t bl = strcspn(base, " \t");
    char name[GL_KEXPR];
    snprintf(name, sizeof name, "%.*s", (int)bl, base);
    if (k->nargs <= GL_KSIG_MAX)
        gl_ksig_names(k->text, name, k->nargs, out->names);
    for (int i = 0; i < k->nargs; i++) {
        const struct gl_karg *a = &k->args[i];
        struct gl_scalar v;
        char err[300];
        if (a->buffer >= 0 || a->object)
            continue;
        int t = gl_ktype_at(a->type, a->tparam, p);
        if (t < 0 || gl_scalar_eval(t, a->expr, p, &v, err, sizeof err) != 0)
            continue;
        struct gl_run_scalar *r = &out->row[out->n++];
        snprintf(out->types[i], sizeof out->types[i], "%s", gl_ktype_name(t));
        r->idx = i + 1;
        r->name = i < GL_KSIG_MAX ? out->names[i] : NULL;
        r->type = out->types[i];
        r->expr = a->expr;
        r->is_real = gl_scalar_is_float(t);
        r->i = v.i;
        r->d = v.d;
    }
}

/* kernel_launches.c - the plan's side of a kernel section's launch sequence
 * (src/core/launches.h): every launch of the sequence evaluated at a point
 * (repeat counts, and each pass's grid, block, dynamic shared memory and
 * scalar arguments with its loop variable) against the device's limits, and
 * the kernels of the sequence as compilation keys. Called from
 * kernel_variant.c's check and compile key.
 * Must not compile or launch anything, nor parse configs. */
#include "kernel_launches.h"
#include "expr.h"
#include "kernel_variant.h"
#include "launches.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The limits of the given GPU, or of every CUDA GPU when none is known (as
 * kernel_variant.c's check of one launch). */
static long lim(int have, long v, long deflt)
{
    return have && v > 0 ? v : deflt;
}

/* One launch at q (its loop variable set): NULL, or the reason in buf. */
static const char *one(const struct gl_klaunch *l, long iter, const struct gl_params *q,
                       const struct gl_device *d, char *buf, size_t len)
{
    static const char axis[3] = { 'x', 'y', 'z' };
    static const long bmax[3] = { 1024, 1024, 64 }, gmax[3] = { 0x7fffffffL, 65535, 65535 };
    long long g[3] = { 1, 1, 1 }, b[3] = { 1, 1, 1 }, smem = 0, v;
    char msg[200], at[64] = "";
    if (l->loop[0])
        snprintf(at, sizeof at, " (%s = %ld)", l->loop, iter);
    for (int i = 0; i < l->ngrid; i++) {
        if (gl_expr_value(l->grid[i], q, &g[i], msg, sizeof msg) != 0) {
            snprintf(buf, len, "launch.%s%s: grid '%s': %s", l->label, at, l->grid[i], msg);
            return buf;
        }
        if (g[i] < 1 || g[i] > lim(d != NULL, d ? d->max_grid[i] : 0, gmax[i])) {
            snprintf(buf, len, "launch.%s%s: grid %c = %s = %lld blocks (must be 1 to %ld)",
                     l->label, at, axis[i], l->grid[i], g[i],
                     lim(d != NULL, d ? d->max_grid[i] : 0, gmax[i]));
            return buf;
        }
    }
    for (int i = 0; i < l->nblock; i++) {
        if (gl_expr_value(l->block[i], q, &b[i], msg, sizeof msg) != 0) {
            snprintf(buf, len, "launch.%s%s: block '%s': %s", l->label, at, l->block[i], msg);
            return buf;
        }
        if (b[i] < 1 || b[i] > lim(d != NULL, d ? d->max_block[i] : 0, bmax[i])) {
            snprintf(buf, len, "launch.%s%s: block %c = %s = %lld threads (must be 1 to %ld)",
                     l->label, at, axis[i], l->block[i], b[i],
                     lim(d != NULL, d ? d->max_block[i] : 0, bmax[i]));
            return buf;
        }
    }
    long tmax = lim(d != NULL, d ? d->max_threads_per_block : 0, 1024);
    if (b[0] * b[1] * b[2] > tmax) {
        snprintf(buf, len, "launch.%s%s: block of %lld threads exceeds the device limit of %ld",
                 l->label, at, b[0] * b[1] * b[2], tmax);
        return buf;
    }
    if (l->smem[0] && gl_expr_value(l->smem, q, &smem, msg, sizeof msg) != 0) {
        snprintf(buf, len, "launch.%s%s: smem '%s': %s", l->label, at, l->smem, msg);
        return buf;
    }
    long smax = d && d->smem_per_block_optin > 0 ? d->smem_per_block_optin
                : d && d->smem_per_block > 0 ? d->smem_per_block : 48L * 1024;
    if (smem < 0 || smem > smax) {
        snprintf(buf, len, "launch.%s%s: dynamic shared memory of %lld bytes (must be 0 to %ld)",
                 l->label, at, smem, smax);
        return buf;
    }
    for (int i = 0; i < l->nargs; i++) {
        const struct gl_karg *a = &l->args[i];
        if (a->buffer >= 0)
            continue;
        if (gl_expr_value(a->expr, q, &v, msg, sizeof msg) != 0) {
            snprintf(buf, len, "launch.%s%s: argument '%s': %s", l->label, at, a->expr, msg);
            return buf;
        }
        int bad = (a->type == GL_KT_INT && (v < INT32_MIN || v > INT32_MAX)) ||
                  (a->type == GL_KT_UINT && (v < 0 || v > (long long)UINT32_MAX)) ||
                  (a->type == GL_KT_UINT64 && v < 0) ||
                  (a->type == GL_KT_HALF && (v < -65504 || v > 65504)) ||
                  ((a->type == GL_KT_INT8 || a->type == GL_KT_UINT8) &&
                   (v < (a->type == GL_KT_INT8 ? -128 : 0) || v > (a->type == GL_KT_INT8 ? 127 : 255)));
        if (bad) {
            snprintf(buf, len, "launch.%s%s: argument %s %s = %lld does not fit in %s", l->label,
                     at, gl_ktype_name(a->type), a->expr, v, gl_ktype_name(a->type));
            return buf;
        }
    }
    return NULL;
}

const char *gl_kseq_check(const struct gl_kernel_variant *kv, const struct gl_params *p,
                          const struct gl_device *dev, char *buf, size_t len)
{
    const struct gl_kseq *s = kv->k->seq;
    int total;
    if (gl_kseq_total(s, p, &total, buf, len) != 0)
        return buf;
    for (int i = 0; i < s->n; i++) {
        const struct gl_klaunch *l = &s->l[i];
        long long n;
        if (gl_klaunch_count(l, p, &n, buf, len) != 0)
            return buf;
        for (long long it = 0; it < n; it++) {
            struct gl_params q;
            const char *why;
            if (gl_klaunch_params(l, p, (long)it, &q, buf, len) != 0)
                return buf;
            if ((why = one(l, (long)it, &q, dev, buf, len)))
                return why;
        }
    }
    return NULL;
}

int gl_kseq_name_exprs(const struct gl_kernel_variant *kv, const struct gl_params *p, char *buf,
                       size_t len)
{
    const struct gl_kseq *s = kv->k->seq;
    size_t used = 0;
    if (len == 0)
        return -1;
    buf[0] = '\0';
    for (int i = 0; i < s->n; i++) {
        struct gl_kernel_variant one_kv = *kv;
        char name[1024];
        snprintf(one_kv.expr, sizeof one_kv.expr, "%s", gl_klaunch_kernel(kv, &s->l[i]));
        if (gl_kernel_name_expr(&one_kv, p, name, sizeof name) != 0)
            return -1;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ";" : "", name);
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

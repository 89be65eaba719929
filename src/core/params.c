/* params.c - the one table of run parameters (see params.h) and the accessors
 * that read and write struct gl_params through it. Linked into the driver and
 * every plugin.
 * Must not know about configs, variants, storage or CUDA. */
#include "params.h"
#include "ktype.h"
#include "nearest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mem_choices[] = { "device", "zerocopy", "managed", NULL };
static const char *const grid_choices[] = { "2d", "1d", "block", NULL };
static const char *const cache_choices[] = { "cold", "warm", NULL };

const struct gl_param_def gl_param_table[GL_NPARAMS] = {
    { GL_P_N, "N", "n", 0, NULL, 1, NULL,
      "problem size: matrix side, vector length; columns of C for non-square products" },
    { GL_P_M, "M", "m", 0, NULL, 1, "N", "rows of A and C (non-square matmul; default N)" },
    { GL_P_P, "P", "p", 0, NULL, 1, "N",
      "inner dimension: columns of A, rows of B (non-square matmul; default N)" },
    { GL_P_BS, "BS", "bs", 0, NULL, 1, NULL,
      "block side: blocks of BS x BS threads (K*BS x BS for matmul with K outputs)" },
    { GL_P_K, "K", "k", 0, NULL, 1, "1", "outputs computed by one thread (default 1)" },
    { GL_P_R, "R", "r", 0, NULL, 1, NULL, "stencil radius" },
    { GL_P_G, "G", "g", 0, NULL, 0, "0", "blocks of a grid-stride kernel (0 = 4 x SM count, default)" },
    { GL_P_THREADS, "threads", "threads", 0, NULL, 0, "0",
      "OpenMP threads of CPU baselines (0 = all cores, default; the real count is stored)" },
    { GL_P_SEED, "seed", "seed", 0, NULL, 0, "42", "seed of the random inputs (default 42)" },
    { GL_P_MEM, "mem", "mem", 1, mem_choices, 0, "device",
      "device (default), zerocopy (pinned mapped host memory) or managed" },
    { GL_P_GRID, "grid", "grid", 1, grid_choices, 0, "2d",
      "2d (one launch, default), 1d (one launch per block-row), block (one launch per tile)" },
    { GL_P_CACHE, "cache", "cache", 1, cache_choices, 0, "cold",
      "cold (L2 flushed before every sample, default) or warm" },
};

const struct gl_param_def *gl_param_by_name(const char *name)
{
    for (int i = 0; i < GL_NPARAMS; i++)
        if (strcmp(gl_param_table[i].name, name) == 0)
            return &gl_param_table[i];
    return NULL;
}

const char *gl_param_nearest(const char *name)
{
    struct gl_nearest near;
    gl_nearest_init(&near, name);
    for (int i = 0; i < GL_NPARAMS; i++)
        gl_nearest_offer(&near, gl_param_table[i].name);
    return near.best;
}

void gl_params_init(struct gl_params *p)
{
    memset(p, 0, sizeof *p);
    p->n = p->m = p->p = p->bs = p->k = p->r = p->g = p->threads = p->seed = GL_UNSET;
}

static long *int_field(struct gl_params *p, enum gl_param_id id)
{
    switch (id) {
    case GL_P_N: return &p->n;
    case GL_P_M: return &p->m;
    case GL_P_P: return &p->p;
    case GL_P_BS: return &p->bs;
    case GL_P_K: return &p->k;
    case GL_P_R: return &p->r;
    case GL_P_G: return &p->g;
    case GL_P_THREADS: return &p->threads;
    case GL_P_SEED: return &p->seed;
    default: return NULL;
    }
}

static char *text_field(struct gl_params *p, enum gl_param_id id)
{
    switch (id) {
    case GL_P_MEM: return p->mem;
    case GL_P_GRID: return p->grid;
    case GL_P_CACHE: return p->cache;
    default: return NULL;
    }
}

long gl_params_get(const struct gl_params *p, enum gl_param_id id)
{
    long *f = int_field((struct gl_params *)p, id);
    return f ? *f : GL_UNSET;
}

/* Text parameters are set with gl_params_set_text; this ignores them. */
void gl_params_set(struct gl_params *p, enum gl_param_id id, long v)
{
    long *f = int_field(p, id);
    if (f)
        *f = v;
}

const char *gl_params_get_text(const struct gl_params *p, enum gl_param_id id)
{
    const char *f = text_field((struct gl_params *)p, id);
    return f ? f : "";
}

/* The field is zero-filled first so that two equal parameter sets are equal
 * byte for byte (expand.c de-duplicates with memcmp). "" unsets. */
int gl_params_set_text(struct gl_params *p, enum gl_param_id id, const char *v)
{
    char *f = text_field(p, id);
    if (!f)
        return -1;
    if (v[0]) {
        int ok = 0;
        for (const char *const *c = gl_param_table[id].choices; *c; c++)
            if (strcmp(*c, v) == 0)
                ok = 1;
        if (!ok)
            return -1;
    }
    memset(f, 0, GL_WORD);
    memcpy(f, v, strlen(v));
    return 0;
}

int gl_params_is_set(const struct gl_params *p, enum gl_param_id id)
{
    if (gl_param_table[id].is_text)
        return gl_params_get_text(p, id)[0] != '\0';
    return gl_params_get(p, id) != GL_UNSET;
}

void gl_params_complete(struct gl_params *p, unsigned mask)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        const char *d = gl_param_table[i].deflt;
        if (!(mask & GL_PBIT(i)) || !d || gl_params_is_set(p, id))
            continue;
        const struct gl_param_def *from = gl_param_by_name(d);
        if (from)
            gl_params_set(p, id, gl_params_get(p, from->id));
        else if (gl_param_table[i].is_text)
            gl_params_set_text(p, id, d);
        else
            gl_params_set(p, id, strtol(d, NULL, 10));
    }
    gl_params_mask(p, mask);
}

void gl_params_mask(struct gl_params *p, unsigned mask)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        if (mask & GL_PBIT(i))
            continue;
        if (gl_param_table[i].is_text)
            memset(text_field(p, (enum gl_param_id)i), 0, GL_WORD);
        else
            gl_params_set(p, (enum gl_param_id)i, GL_UNSET);
    }
}

int gl_params_user_set(struct gl_params *p, const char *name, long v)
{
    size_t n = strlen(name);
    if (n == 0 || n >= GL_UPARAM_NAME)
        return -1;
    int i = 0;
    while (i < p->nuser && strcmp(p->user[i].name, name) < 0)
        i++;
    if (i < p->nuser && strcmp(p->user[i].name, name) == 0) {
        p->user[i].v = v;
        return 0;
    }
    if (p->nuser == GL_MAX_UPARAMS)
        return -1;
    memmove(&p->user[i + 1], &p->user[i], (size_t)(p->nuser - i) * sizeof p->user[0]);
    memset(&p->user[i], 0, sizeof p->user[i]);
    memcpy(p->user[i].name, name, n);
    p->user[i].v = v;
    p->nuser++;
    return 0;
}

const struct gl_uparam *gl_params_user_find(const struct gl_params *p, const char *name)
{
    for (int i = 0; i < p->nuser; i++)
        if (strcmp(p->user[i].name, name) == 0)
            return &p->user[i];
    return NULL;
}

/* Append "NAME=v" for each named parameter to buf (used bytes in *used). */
static void user_append(const struct gl_params *p, char *buf, size_t len, size_t *used)
{
    for (int i = 0; i < p->nuser && *used < len; i++) {
        int t = gl_ktype_of_param(p->user[i].v);   /* a type parameter: T=float */
        int w = t >= 0 ? snprintf(buf + *used, len - *used, "%s%s=%s", *used ? " " : "",
                                  p->user[i].name, gl_ktype_name(t))
                       : snprintf(buf + *used, len - *used, "%s%s=%ld", *used ? " " : "",
                                  p->user[i].name, p->user[i].v);
        if (w < 0 || (size_t)w >= len - *used)
            return;   /* truncated: snprintf left a terminated prefix */
        *used += (size_t)w;
    }
}

void gl_params_user_format(const struct gl_params *p, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    user_append(p, buf, len, &used);
}

void gl_params_format(const struct gl_params *p, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        if (!gl_params_is_set(p, id))
            continue;
        int w;
        if (gl_param_table[i].is_text)
            w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", gl_param_table[i].name,
                         gl_params_get_text(p, id));
        else
            w = snprintf(buf + used, len - used, "%s%s=%ld", used ? " " : "",
                         gl_param_table[i].name, gl_params_get(p, id));
        if (w < 0 || (size_t)w >= len - used)
            return;   /* truncated: snprintf left a terminated prefix */
        used += (size_t)w;
    }
    user_append(p, buf, len, &used);
}

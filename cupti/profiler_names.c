/* profiler_names.c - metric names as the chip knows them: every name
 * (glc_list), each asked-for name tried one by one so that a refused one is
 * named, with the nearest valid names as suggestions.
 * Must not build the configuration that is collected (profiler_setup.c). */
#include "profiler_int.h"

#include <stdlib.h>
#include <string.h>

#define SUGGESTIONS 3

struct name_cb {
    void (*cb)(const char *name, void *ctx);
    void *ctx;
};

static void join_and_call(const char *base, const char *suffix, void *c)
{
    struct name_cb *x = c;
    char name[512];
    glc_fmt(name, sizeof name, "%s%s", base, suffix);
    x->cb(name, x->ctx);
}

/* Every name, from a host object of its own (the configuration's may hold a
 * failed addition). */
static int each_name(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen)
{
    glh_host *h = NULL;
    int rc = glh_create(glc_st.chip, glc_st.avail, &h);
    if (rc != 0) {
        glc_fmt(err, errlen, "cannot list metrics (cuptiProfilerHostInitialize: %s)",
            glc_cupti_str((CUptiResult)rc));
        return -1;
    }
    struct name_cb x = { cb, ctx };
    rc = glh_each_metric(h, join_and_call, &x);
    glh_destroy(h);
    if (rc != 0) {
        glc_fmt(err, errlen, "cannot list metrics (%s)", glc_cupti_str((CUptiResult)rc));
        return -1;
    }
    return 0;
}

/* All names in one buffer, for suggestions. */
struct name_list {
    char *buf;
    size_t used, cap;
    size_t *off;
    int n, capn;
    int oom;
};

static void collect(const char *name, void *c)
{
    struct name_list *l = c;
    size_t len = strlen(name) + 1;
    if (l->oom)
        return;
    if (l->used + len > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : (size_t)1 << 20;
        while (cap < l->used + len)
            cap *= 2;
        char *b = realloc(l->buf, cap);
        if (!b) {
            l->oom = 1;
            return;
        }
        l->buf = b;
        l->cap = cap;
    }
    if (l->n == l->capn) {
        int capn = l->capn ? l->capn * 2 : 4096;
        size_t *o = realloc(l->off, (size_t)capn * sizeof *o);
        if (!o) {
            l->oom = 1;
            return;
        }
        l->off = o;
        l->capn = capn;
    }
    memcpy(l->buf + l->used, name, len);
    l->off[l->n++] = l->used;
    l->used += len;
}

/* Append to err why name was refused: unknown (with the nearest names), or known
 * but not collectable. */
static void explain_bad_name(const char *name, int rc, const struct name_list *l,
                             const char *const *known, char *err, size_t errlen)
{
    size_t used = strlen(err);
    if (used + 4 >= errlen)
        return;
    char *p = err + used;
    size_t left = errlen - used;
    if (used) {
        glc_fmt(p, left, "; ");
        p += 2;
        left -= 2;
    }
    int is_known = 0;
    for (int i = 0; known && i < l->n; i++)
        if (strcmp(known[i], name) == 0) {
            is_known = 1;
            break;
        }
    if (strncmp(name, "launch__", 8) == 0) {
        glc_fmt(p, left, "'%s' is a launch attribute, not a counter metric: gpulab stores "
            "registers, shared memory and occupancy from the CUDA runtime", name);
        return;
    }
    if (is_known) {
        glc_fmt(p, left, "metric '%s' cannot be collected by the range profiler on %s (%s)", name,
            glc_st.chip, glc_cupti_str((CUptiResult)rc));
        return;
    }
    const char *near[SUGGESTIONS];
    int nn = known ? gl_metric_suggest(name, known, l->n, near, SUGGESTIONS) : 0;
    if (nn == 0) {
        glc_fmt(p, left, "unknown metric '%s' on %s", name, glc_st.chip);
        return;
    }
    glc_fmt(p, left, "unknown metric '%s' on %s (nearest: %s%s%s%s%s)", name, glc_st.chip, near[0],
        nn > 1 ? ", " : "", nn > 1 ? near[1] : "", nn > 2 ? ", " : "", nn > 2 ? near[2] : "");
}

/* Add every name to a scratch host object one by one, to say which ones CUPTI
 * refuses. A refused name leaves the host object refusing every later one (seen
 * with CUPTI 13.0), so after a refusal the object is made again with the names
 * accepted so far. The configuration itself is built elsewhere with all names
 * in one call (fewer passes). 0, -1 (no host object) or -2 with err naming each
 * refused name. */
int glc_validate_names(char *err, size_t errlen)
{
    int bad[GL_MAX_METRICS], badrc[GL_MAX_METRICS], nbad = 0;
    int good[GL_MAX_METRICS], ngood = 0;
    glh_host *h = NULL;
    int rc = glh_create(glc_st.chip, glc_st.avail, &h);
    for (int i = 0; rc == 0 && i < glc_st.n; i++) {
        int arc = glh_add_metric(h, glc_st.names[i]);
        if (arc == 0) {
            good[ngood++] = i;
            continue;
        }
        bad[nbad] = i;
        badrc[nbad++] = arc;
        glh_destroy(h);
        h = NULL;
        rc = glh_create(glc_st.chip, glc_st.avail, &h);
        for (int j = 0; rc == 0 && j < ngood; j++)
            rc = glh_add_metric(h, glc_st.names[good[j]]);
    }
    glh_destroy(h);
    if (rc != 0) {
        glc_fmt(err, errlen, "CUPTI profiler host unavailable (%s)",
                glc_cupti_str((CUptiResult)rc));
        return -1;
    }
    if (nbad == 0)
        return 0;
    struct name_list l;
    memset(&l, 0, sizeof l);
    char lerr[GL_REASON_MAX] = "";
    const char **known = NULL;
    if (each_name(collect, &l, lerr, sizeof lerr) == 0 && !l.oom && l.n > 0) {
        known = malloc((size_t)l.n * sizeof *known);
        for (int i = 0; known && i < l.n; i++)
            known[i] = l.buf + l.off[i];
    }
    if (errlen)
        err[0] = '\0';
    for (int i = 0; i < nbad; i++)
        explain_bad_name(glc_st.names[bad[i]], badrc[i], &l, known, err, errlen);
    free(known);
    free(l.buf);
    free(l.off);
    return -2;
}

int glc_list(void (*cb)(const char *name, void *ctx), void *ctx, char *err, size_t errlen)
{
    if (!cb) {
        glc_fmt(err, errlen, "internal: no callback");
        return -1;
    }
    (void)glc_ensure_init();   /* the chip is all a listing needs */
    if (!glc_st.chip[0]) {
        glc_fmt(err, errlen, "%s", glc_st.unavailable ? glc_st.why : "GPU chip unknown");
        return -1;
    }
    return each_name(cb, ctx, err, errlen);
}

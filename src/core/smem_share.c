/* smem_share.c - the exact shared-memory conflicts of a run measured once and
 * shared with the runs that differ from it only in their memory kind (why that
 * holds: smem_share.h). Plans a batch before it is profiled and copies the
 * values after. Must not decide whether a run can be instrumented, nor run
 * anything: the harness does both. */
#include "smem_share.h"

#include <stdio.h>
#include <string.h>

#include "metric_sets.h"

void gl_smem_key_set(struct gl_smem_key *k, const void *kernel, const unsigned grid[3],
                     const unsigned block[3], size_t dyn_smem, int launches,
                     const struct gl_params *p)
{
    memset(k, 0, sizeof *k);
    k->id.kernel = kernel;
    for (int d = 0; d < 3; d++) {
        k->id.grid[d] = grid[d];
        k->id.block[d] = block[d];
    }
    k->id.dyn_smem = dyn_smem;
    k->id.launches = launches;
    k->id.p = *p;
    memset(k->id.p.mem, 0, sizeof k->id.p.mem);
    snprintf(k->mem, sizeof k->mem, "%s", p->mem[0] ? p->mem : "device");
}

int gl_smem_key_same(const struct gl_smem_key *a, const struct gl_smem_key *b)
{
    return memcmp(&a->id, &b->id, sizeof a->id) == 0;
}

static int is_excess(const char *name)
{
    return strcmp(name, GL_METRIC_SMEM_EXCESS_LD) == 0 ||
           strcmp(name, GL_METRIC_SMEM_EXCESS_ST) == 0;
}

/* The exact-conflict metrics of r (at most 2) into m; how many. */
static int excess_of(const struct gl_result *r, struct gl_metric m[2])
{
    int nm = 0;
    for (int i = 0; i < r->nmetrics && nm < 2; i++)
        if (is_excess(r->metrics[i].name))
            m[nm++] = r->metrics[i];
    return nm;
}

/* The entry of key k holding values, or -1. */
static int memo_find(const struct gl_smem_memo *m, const struct gl_smem_key *k)
{
    for (int e = 0; e < GL_SMEM_MEMO_KEYS; e++)
        if (m->e[e].used && m->e[e].nm > 0 && gl_smem_key_same(&m->e[e].key, k))
            return e;
    return -1;
}

static void memo_put(struct gl_smem_memo *m, const struct gl_smem_key *k,
                     const struct gl_metric v[2], int nm)
{
    int e = memo_find(m, k);
    if (e < 0) {   /* a free entry, else the one unused longest */
        e = 0;
        for (int i = 0; i < GL_SMEM_MEMO_KEYS; i++) {
            if (!m->e[i].used) {
                e = i;
                break;
            }
            if (m->e[i].age < m->e[e].age)
                e = i;
        }
    }
    struct gl_smem_memo_entry *x = &m->e[e];
    x->used = 1;
    x->key = *k;
    x->nm = nm;
    memcpy(x->m, v, sizeof x->m);
    x->age = ++m->clock;
}

static void note(const struct gl_smem_key *source, char *buf, size_t len)
{
    snprintf(buf, len, "shared: measured on the same point's mem=%s run (same kernel, launch and "
             "inputs; the memory kind moves no shared-memory access; GPULAB_SMEM=each measures "
             "every run)", source->mem);
}

void gl_smem_share_plan(const struct gl_smem_memo *m, const struct gl_smem_key *k,
                        const int *want, int n, int *from, struct gl_result *const *r)
{
    for (int i = 0; i < n; i++) {
        from[i] = -1;
        if (want[i] == GL_SMEM_NONE)
            continue;
        int e = m ? memo_find(m, &k[i]) : -1;
        if (e >= 0) {
            from[i] = n + e;
            continue;
        }
        /* the first run of the key to be measured is measured (nothing earlier to
         * take from): a run to be measured takes its values when it comes later,
         * a run too long to be measured whichever comes first */
        int j_end = want[i] == GL_SMEM_MEASURE ? i : n;
        for (int j = 0; j < j_end; j++)
            if (j != i && want[j] == GL_SMEM_MEASURE && gl_smem_key_same(&k[j], &k[i])) {
                from[i] = j;
                break;
            }
    }
    for (int i = 0; i < n; i++)
        if (from[i] >= 0)
            note(from[i] < n ? &k[from[i]] : &m->e[from[i] - n].key, r[i]->smem_reason,
                 sizeof r[i]->smem_reason);
}

void gl_smem_share_apply(struct gl_smem_memo *m, const struct gl_smem_key *k, const int *want,
                         const int *from, struct gl_result *const *r, int n)
{
    struct gl_metric v[2];
    for (int i = 0; i < n; i++) {
        int nm;
        if (from[i] == -1 && want[i] == GL_SMEM_MEASURE && (nm = excess_of(r[i], v)) > 0)
            memo_put(m, &k[i], v, nm);
    }
    for (int i = 0; i < n; i++) {
        if (from[i] < 0)
            continue;
        struct gl_result *x = r[i];
        const struct gl_smem_key *src;
        int nm;
        if (from[i] < n) {
            src = &k[from[i]];
            nm = excess_of(r[from[i]], v);
        } else {
            struct gl_smem_memo_entry *e = &m->e[from[i] - n];
            src = &e->key;
            nm = e->nm;
            memcpy(v, e->m, sizeof v);
            e->age = ++m->clock;
        }
        char n_[GL_REASON_MAX];
        note(src, n_, sizeof n_);
        if (strcmp(x->smem_reason, n_) != 0)
            continue;   /* the engine said why not itself (the conflicts not asked for) */
        /* no metrics and a reason other than the note: its other counters failed */
        if (x->nmetrics == 0 && strcmp(x->metrics_reason, n_) != 0) {
            snprintf(x->smem_reason, sizeof x->smem_reason,
                     "not measured: the run's other counters failed (metrics_reason)");
            continue;
        }
        if (nm == 0) {
            char why[GL_REASON_MAX];
            snprintf(why, sizeof why, "%s", from[i] < n ? r[from[i]]->smem_reason : "");
            snprintf(x->smem_reason, sizeof x->smem_reason,
                     "not measured: the same point's mem=%s run, whose values it would share, "
                     "has none (%.150s)", src->mem, why);
            if (x->nmetrics == 0)
                snprintf(x->metrics_reason, sizeof x->metrics_reason, "%s", x->smem_reason);
            continue;
        }
        if (x->nmetrics + nm > GL_MAX_METRICS) {
            snprintf(x->smem_reason, sizeof x->smem_reason,
                     "not measured: no room for more metrics in the run");
            continue;
        }
        if (x->nmetrics == 0)
            x->metrics_reason[0] = '\0';   /* it held the note */
        for (int a = 0; a < nm; a++)
            x->metrics[x->nmetrics++] = v[a];
    }
}

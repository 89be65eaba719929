/* test_smem_share.c - the exact shared-memory conflicts shared between runs that
 * differ only in their memory kind (src/core/smem_share.c): the key (memory kind
 * ignored, everything else compared), a batch's plan (the first run of a key
 * measured, later ones and runs too long to instrument take its values, other
 * keys and runs left alone untouched), the values and notes after the batch,
 * the memo across batches, and the cases where nothing may be shared (the source
 * has no values, the run's own counters failed, the engine said why not).
 * Must not need a GPU. */
#include <stdio.h>
#include <string.h>

#include "metric_sets.h"
#include "smem_share.h"
#include "t.h"

static const int kern_a = 1, kern_b = 2;   /* two "kernels": their addresses */

static void key(struct gl_smem_key *k, const void *kernel, long n, long bs, const char *mem)
{
    struct gl_params p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.bs = bs;
    p.seed = 42;
    snprintf(p.mem, sizeof p.mem, "%s", mem);
    unsigned g[3] = { (unsigned)(n / bs), (unsigned)(n / bs), 1 }, b[3] = { (unsigned)bs,
                                                                          (unsigned)bs, 1 };
    gl_smem_key_set(k, kernel, g, b, 0, 1, &p);
}

/* a profiled run: its range-profiler counters, then (measured) the exact conflicts */
static void profiled(struct gl_result *r, int with_excess, double ld, double st)
{
    memset(r, 0, sizeof *r);
    r->passes = 2;
    r->nmetrics = 1;
    snprintf(r->metrics[0].name, sizeof r->metrics[0].name, "gpu__time_duration.sum");
    r->metrics[0].value = 1000;
    if (with_excess) {
        snprintf(r->metrics[1].name, sizeof r->metrics[1].name, "%s", GL_METRIC_SMEM_EXCESS_LD);
        r->metrics[1].value = ld;
        snprintf(r->metrics[2].name, sizeof r->metrics[2].name, "%s", GL_METRIC_SMEM_EXCESS_ST);
        r->metrics[2].value = st;
        r->nmetrics = 3;
    }
}

static double value(const struct gl_result *r, const char *name)
{
    for (int i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0)
            return r->metrics[i].value;
    return -1;
}

static void test_key(void)
{
    struct gl_smem_key a, b;
    key(&a, &kern_a, 1024, 16, "device");
    key(&b, &kern_a, 1024, 16, "zerocopy");
    CHECK(gl_smem_key_same(&a, &b));
    CHECK_STR(b.mem, "zerocopy");
    key(&b, &kern_a, 1024, 16, "");
    CHECK(gl_smem_key_same(&a, &b) && strcmp(b.mem, "device") == 0);   /* unset: device */
    key(&b, &kern_b, 1024, 16, "device");
    CHECK(!gl_smem_key_same(&a, &b));   /* another kernel */
    key(&b, &kern_a, 1024, 32, "device");
    CHECK(!gl_smem_key_same(&a, &b));   /* another block */
    key(&b, &kern_a, 2048, 16, "managed");
    CHECK(!gl_smem_key_same(&a, &b));   /* another size */
    struct gl_params p;
    memset(&p, 0, sizeof p);
    p.n = 1024;
    p.bs = 16;
    p.seed = 7;   /* other inputs */
    unsigned g[3] = { 64, 64, 1 }, bl[3] = { 16, 16, 1 };
    gl_smem_key_set(&b, &kern_a, g, bl, 0, 1, &p);
    CHECK(!gl_smem_key_same(&a, &b));
    p.seed = 42;
    gl_smem_key_set(&b, &kern_a, g, bl, 0, 1, &p);
    CHECK(gl_smem_key_same(&a, &b));
    gl_smem_key_set(&b, &kern_a, g, bl, 0, 64, &p);   /* another launch count */
    CHECK(!gl_smem_key_same(&a, &b));
    gl_smem_key_set(&b, &kern_a, g, bl, 512, 1, &p);  /* dynamic shared memory */
    CHECK(!gl_smem_key_same(&a, &b));
}

static void test_batch(void)
{
    static struct gl_smem_memo memo;   /* zeroed: a worker's first batch */
    enum { N = 7 };
    struct gl_smem_key k[N];
    struct gl_result res[N], *r[N];
    int from[N];
    /* a matmul point in three memory kinds, the zero-copy run too long to
     * instrument and before the device run; another kernel's point; a run of
     * the first key's kernel at another size; a run without shared memory */
    key(&k[0], &kern_a, 1024, 16, "zerocopy");
    key(&k[1], &kern_a, 1024, 16, "device");
    key(&k[2], &kern_a, 1024, 16, "managed");
    key(&k[3], &kern_b, 1024, 16, "device");
    key(&k[4], &kern_b, 1024, 16, "managed");
    key(&k[5], &kern_a, 2048, 16, "device");
    key(&k[6], &kern_a, 1024, 16, "device");
    int want[N] = { GL_SMEM_TOO_LONG, GL_SMEM_MEASURE, GL_SMEM_MEASURE, GL_SMEM_MEASURE,
                    GL_SMEM_MEASURE, GL_SMEM_MEASURE, GL_SMEM_NONE };
    for (int i = 0; i < N; i++) {
        memset(&res[i], 0, sizeof res[i]);
        r[i] = &res[i];
    }
    snprintf(res[0].smem_reason, sizeof res[0].smem_reason, "not measured: too long");
    snprintf(res[6].smem_reason, sizeof res[6].smem_reason, "not measured: no shared memory");
    gl_smem_share_plan(&memo, k, want, N, from, r);
    CHECK(from[0] == 1 && from[1] == -1 && from[2] == 1);
    CHECK(from[3] == -1 && from[4] == 3 && from[5] == -1 && from[6] == -1);
    CHECK(strstr(res[0].smem_reason, "mem=device run") != NULL);
    CHECK(strstr(res[2].smem_reason, "mem=device run") != NULL);
    CHECK(res[1].smem_reason[0] == '\0' && res[3].smem_reason[0] == '\0');
    CHECK_STR(res[6].smem_reason, "not measured: no shared memory");

    /* the engine profiles: measured runs get their values, the others only their
     * own counters (the note stays where it was) */
    char n0[GL_REASON_MAX], n2[GL_REASON_MAX], n4[GL_REASON_MAX];
    snprintf(n0, sizeof n0, "%s", res[0].smem_reason);
    snprintf(n2, sizeof n2, "%s", res[2].smem_reason);
    snprintf(n4, sizeof n4, "%s", res[4].smem_reason);
    profiled(&res[0], 0, 0, 0);
    profiled(&res[1], 1, 4096, 0);
    profiled(&res[2], 0, 0, 0);
    profiled(&res[3], 1, 0, 128);
    profiled(&res[4], 0, 0, 0);
    profiled(&res[5], 1, 8192, 0);
    profiled(&res[6], 0, 0, 0);
    snprintf(res[0].smem_reason, sizeof res[0].smem_reason, "%s", n0);
    snprintf(res[2].smem_reason, sizeof res[2].smem_reason, "%s", n2);
    snprintf(res[4].smem_reason, sizeof res[4].smem_reason, "%s", n4);
    gl_smem_share_apply(&memo, k, want, from, r, N);
    CHECK(value(&res[0], GL_METRIC_SMEM_EXCESS_LD) == 4096 &&
          value(&res[0], GL_METRIC_SMEM_EXCESS_ST) == 0 && res[0].nmetrics == 3);
    CHECK(value(&res[2], GL_METRIC_SMEM_EXCESS_LD) == 4096 && res[2].nmetrics == 3);
    CHECK(value(&res[4], GL_METRIC_SMEM_EXCESS_ST) == 128 &&
          value(&res[4], GL_METRIC_SMEM_EXCESS_LD) == 0);
    CHECK(value(&res[1], GL_METRIC_SMEM_EXCESS_LD) == 4096 && res[1].nmetrics == 3);
    CHECK(value(&res[6], GL_METRIC_SMEM_EXCESS_LD) == -1 && res[6].nmetrics == 1);
    CHECK(strncmp(res[2].smem_reason, "shared: ", 8) == 0);
    CHECK(res[2].metrics_reason[0] == '\0');

    /* the next batch: the same point's runs take the remembered values without
     * a run measured; a new key is measured */
    enum { M = 3 };
    struct gl_smem_key k2[M];
    struct gl_result res2[M], *r2[M];
    int from2[M], want2[M] = { GL_SMEM_MEASURE, GL_SMEM_MEASURE, GL_SMEM_MEASURE };
    key(&k2[0], &kern_a, 1024, 16, "managed");
    key(&k2[1], &kern_a, 2048, 16, "zerocopy");
    key(&k2[2], &kern_a, 4096, 16, "device");
    for (int i = 0; i < M; i++) {
        memset(&res2[i], 0, sizeof res2[i]);
        r2[i] = &res2[i];
    }
    gl_smem_share_plan(&memo, k2, want2, M, from2, r2);
    CHECK(from2[0] >= M && from2[1] >= M && from2[2] == -1);
    /* a run whose only metrics are the exact conflicts (metrics = smem_excess):
     * the engine put the note in its metrics_reason; it goes with the values */
    memset(&res2[0].metrics, 0, sizeof res2[0].metrics);
    snprintf(res2[0].metrics_reason, sizeof res2[0].metrics_reason, "%s", res2[0].smem_reason);
    /* a run whose own counters failed gets nothing */
    snprintf(res2[1].metrics_reason, sizeof res2[1].metrics_reason, "profiled replay failed");
    profiled(&res2[2], 1, 1, 2);
    gl_smem_share_apply(&memo, k2, want2, from2, r2, M);
    CHECK(res2[0].nmetrics == 2 && value(&res2[0], GL_METRIC_SMEM_EXCESS_LD) == 4096);
    CHECK(res2[0].metrics_reason[0] == '\0');
    CHECK(res2[1].nmetrics == 0 && strstr(res2[1].smem_reason, "other counters failed") != NULL);

    /* the engine's own reason (the conflicts not asked for) is left as it is */
    struct gl_smem_key k3[2];
    struct gl_result res3[2], *r3[2] = { &res3[0], &res3[1] };
    int from3[2], want3[2] = { GL_SMEM_MEASURE, GL_SMEM_MEASURE };
    key(&k3[0], &kern_b, 512, 8, "device");
    key(&k3[1], &kern_b, 512, 8, "managed");
    memset(res3, 0, sizeof res3);
    gl_smem_share_plan(&memo, k3, want3, 2, from3, r3);
    CHECK(from3[0] == -1 && from3[1] == 0);
    for (int i = 0; i < 2; i++) {
        profiled(&res3[i], 0, 0, 0);
        snprintf(res3[i].smem_reason, sizeof res3[i].smem_reason, "not requested: ...");
    }
    gl_smem_share_apply(&memo, k3, want3, from3, r3, 2);
    CHECK_STR(res3[1].smem_reason, "not requested: ...");
    CHECK(res3[1].nmetrics == 1);

    /* a source without values (its instrumented replay failed): the run says so */
    memset(res3, 0, sizeof res3);
    key(&k3[0], &kern_b, 256, 8, "device");
    key(&k3[1], &kern_b, 256, 8, "zerocopy");
    gl_smem_share_plan(&memo, k3, want3, 2, from3, r3);
    CHECK(from3[1] == 0);
    char note[GL_REASON_MAX];
    snprintf(note, sizeof note, "%s", res3[1].smem_reason);
    profiled(&res3[0], 0, 0, 0);
    snprintf(res3[0].smem_reason, sizeof res3[0].smem_reason, "not measured: replay failed");
    profiled(&res3[1], 0, 0, 0);
    snprintf(res3[1].smem_reason, sizeof res3[1].smem_reason, "%s", note);
    gl_smem_share_apply(&memo, k3, want3, from3, r3, 2);
    CHECK(strstr(res3[1].smem_reason, "has none (not measured: replay failed)") != NULL);
    CHECK(res3[1].nmetrics == 1);
    /* and nothing was remembered for it: the next batch measures again */
    gl_smem_share_plan(&memo, k3, want3, 2, from3, r3);
    CHECK(from3[0] == -1);

    /* no memo (NULL): sharing within the batch only */
    gl_smem_share_plan(NULL, k, want, N, from, r);
    CHECK(from[1] == -1 && from[2] == 1 && from[0] == 1);
}

/* A batch of one run (kernel a, N = n, BS = 16, memory kind mem) planned
 * against the memo: where it takes its values from. */
static int plan_one(struct gl_smem_memo *memo, long n, const char *mem, struct gl_smem_key *k,
                    struct gl_result *res)
{
    struct gl_result *r = res;
    int from, want = GL_SMEM_MEASURE;
    memset(res, 0, sizeof *res);
    key(k, &kern_a, n, 16, mem);
    gl_smem_share_plan(memo, k, &want, 1, &from, &r);
    return from;
}

/* the memo keeps the most recent GL_SMEM_MEMO_KEYS keys */
static void test_memo_bound(void)
{
    static struct gl_smem_memo memo;
    enum { K = GL_SMEM_MEMO_KEYS + 4 };
    for (int i = 0; i < K; i++) {
        struct gl_smem_key k;
        struct gl_result res, *r = &res;
        int from = plan_one(&memo, 64 * (i + 1), "device", &k, &res), want = GL_SMEM_MEASURE;
        CHECK(from == -1);
        profiled(&res, 1, i, 0);
        gl_smem_share_apply(&memo, &k, &want, &from, &r, 1);
    }
    int kept_new = 0, kept_old = 0;
    for (int i = 0; i < K; i++) {
        struct gl_smem_key k;
        struct gl_result res;
        int from = plan_one(&memo, 64 * (i + 1), "managed", &k, &res);
        if (from >= 1) {
            kept_new += i >= 4;
            kept_old += i < 4;
            CHECK(memo.e[from - 1].m[0].value == i);
        }
    }
    CHECK(kept_new == GL_SMEM_MEMO_KEYS && kept_old == 0);
}

int main(void)
{
    test_key();
    test_batch();
    test_memo_bound();
    return t_done("test_smem_share");
}

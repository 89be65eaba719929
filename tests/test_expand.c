/* test_expand.c - sweep expansion (src/config/expand.c), the where language
 * (src/expr.c) and the variant registry (src/registry/registry.c and its plugins): product order,
 * zip, where filtering and reject counts, de-duplication, defaults and masking,
 * check() skips with their reasons, analytic counts, the points-outer order of
 * a kernel section with a C reference, and every shipped config
 * (every configs/NAME.conf, run from the repository root) parsing and expanding.
 * Must not run any variant. */
#include <glob.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "t.h"

static struct gl_config cfg;
static struct gl_expansion ex;
static char err[2048];

static int load(const char *text)
{
    err[0] = '\0';
    if (gl_config_parse("t.conf", text, &cfg, err, sizeof err) != 0) {
        printf("  parse: %s\n", err);
        return -1;
    }
    if (gl_expand(&cfg, NULL, NULL, &ex, err, sizeof err) != 0) {
        printf("  expand: %s\n", err);
        gl_config_free(&cfg);
        return -1;
    }
    return 0;
}

static void done(void)
{
    gl_expansion_free(&ex);
    gl_config_free(&cfg);
}

static int count_variant(const struct gl_expansion *e, const char *device, const char *name)
{
    int n = 0;
    for (int i = 0; i < e->njobs; i++)
        if (strcmp(e->jobs[i].v->name, name) == 0 && strcmp(e->jobs[i].v->device, device) == 0)
            n++;
    return n;
}

static const char *label(const struct gl_job *j)
{
    static char buf[256];
    gl_params_format(&j->p, buf, sizeof buf);
    return buf;
}

/* A fake H100-like device for check(). */
static struct gl_device h100(void)
{
    struct gl_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.kind, sizeof d.kind, "gpu");
    d.max_threads_per_block = 1024;
    d.smem_per_block = 49152;
    d.smem_per_block_optin = 232448;
    d.max_grid[0] = 2147483647;
    d.max_grid[1] = 65535;
    d.max_grid[2] = 65535;
    d.sm_count = 132;
    return d;
}

/* ---- where expressions ------------------------------------------------------- */

static void test_expr(void)
{
    struct gl_params p;
    char msg[256];
    gl_params_init(&p);
    p.n = 96;
    p.bs = 16;
    p.k = 2;
    gl_params_set_text(&p, GL_P_MEM, "zerocopy");
    static const struct { const char *e; int want; } cases[] = {
        { "1 + 2 * 3 == 7", 1 }, { "(1 + 2) * 3 == 9", 1 }, { "10 - 2 - 3 == 5", 1 },
        { "2 * 3 % 4 == 2", 1 }, { "-7 / 2 == -3", 1 }, { "-7 % 3 == -1", 1 },
        { "1 << 20 == 1048576", 1 }, { "1 + 1 << 2 == 8", 1 }, { "!0 && 1", 1 }, { "!5", 0 },
        { "!N == 0", 1 }, { "0 || 0", 0 }, { "1 || 0 && 0", 1 }, { "(1 || 0) && 0", 0 },
        { "N % (K*BS) == 0", 1 }, { "N % (4*BS) == 0", 0 }, { "N >= 96 && N <= 96", 1 },
        { "N > 96", 0 }, { "N < 97", 1 }, { "N != 96", 0 }, { "N", 1 }, { "N - 96", 0 },
        { "mem == \"zerocopy\"", 1 }, { "mem != 'device'", 1 }, { "\"a\" == \"a\"", 1 },
        { "mem == \"device\" || N / BS == 6", 1 }, { "1 || 1 / 0", 1 }, { "0 && N % 0", 0 },
        { "BS != 0 && N % BS == 0", 1 }, { "- -3 == 3", 1 }, { "+3 == 3", 1 },
        { "9223372036854775807 > 0", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = gl_expr_eval(cases[i].e, &p, msg, sizeof msg);
        if (!CHECK(r == cases[i].want))
            printf("  '%s' = %d (%s), want %d\n", cases[i].e, r, r < 0 ? msg : "", cases[i].want);
        CHECK(gl_expr_check(cases[i].e, ~0u, msg, sizeof msg) == 0);
    }
    /* evaluation errors */
    CHECK(gl_expr_eval("N / (BS - 16) > 1", &p, msg, sizeof msg) == -1 &&
          strstr(msg, "division by zero"));
    CHECK(gl_expr_eval("N % 0", &p, msg, sizeof msg) == -1 && strstr(msg, "division by zero"));
    CHECK(gl_expr_eval("9223372036854775807 + 1 > 0", &p, msg, sizeof msg) == -1 &&
          strstr(msg, "overflow"));
    CHECK(gl_expr_eval("N * 100000000000000000 > 0", &p, msg, sizeof msg) == -1 &&
          strstr(msg, "overflow"));
    CHECK(gl_expr_eval("1 << 70", &p, msg, sizeof msg) == -1 && strstr(msg, "shift"));
    CHECK(gl_expr_eval("R > 1", &p, msg, sizeof msg) == -1 && strstr(msg, "'R' is not set"));
    CHECK(gl_expr_eval("grid == \"2d\"", &p, msg, sizeof msg) == -1 &&
          strstr(msg, "'grid' is not set"));
    /* check-time errors */
    static const struct { const char *e; const char *msg; } bad[] = {
        { "N ==", "at the end" }, { "(N", "expected ')'" }, { "N == 5)", "unexpected text" },
        { "N = 5", "use ==" }, { "1 < 2 < 3", "do not chain" },
        { "mem < \"device\"", "only with ==" },
        { "mem + 1", "needs numbers" }, { "N == \"x\"", "text with a number" },
        { "mem == \"dev\"", "not a choice for mem" }, { "Bs > 1", "did you mean 'BS'" },
        { "device == mem", "quotes" }, { "99999999999999999999 > 1", "too large" },
        { "\"abc", "unterminated string" }, { "mem", "not a condition" }, { "", "at the end" },
        { "N $ 2", "unexpected text" }, { "12ab > 1", "malformed number" },
        { "!mem", "needs numbers" },
        { "N && mem", "needs numbers" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        int r = gl_expr_check(bad[i].e, ~0u, msg, sizeof msg);
        if (!CHECK(r == -1 && strstr(msg, bad[i].msg)))
            printf("  check '%s' = %d [%s], want [%s]\n", bad[i].e, r, msg, bad[i].msg);
    }
    CHECK(gl_expr_check("N % BS == 0", GL_PBIT(GL_P_N), msg, sizeof msg) == -1 &&
          strstr(msg, "'BS' is not set"));
    CHECK(gl_expr_check("N % BS == 0", GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS), msg, sizeof msg) == 0);
}

/* ---- registry ------------------------------------------------------------------ */

static void test_registry_table(void)
{
    static const char *const names[] = {
        "matmul/seq_ijk/cpu", "matmul/omp_ikj/cpu", "matmul/omp_ijk/cpu", "matmul/omp_rect/cpu",
        "matmul/omp_blocked/cpu", "matmul/omp_blocked_rect/cpu", "matmul/openblas/cpu",
        "matmul/openblas_rect/cpu", "matmul/global/gpu", "matmul/shared/gpu", "matmul/naive_rect/gpu",
        "matmul/tiled_rect/gpu", "matmul/cublas/gpu", "stencil/seq/cpu", "stencil/omp/cpu",
        "stencil/global/gpu", "stencil/shared/gpu", "vecadd/seq/cpu", "vecadd/omp/cpu",
        "vecadd/global/gpu", "vecadd/gridstride/gpu",
    };
    /* every declared variant once; within each family in the order of names[] */
    int nnames = (int)(sizeof names / sizeof names[0]);
    CHECK(gl_registry_count() == nnames);
    for (int k = 0; k < nnames; k++) {
        size_t flen = (size_t)(strchr(names[k], '/') - names[k]);
        int want = 0, got = -1, rank = 0;
        for (int j = 0; j < k; j++)
            want += strncmp(names[j], names[k], flen + 1) == 0;
        for (int i = 0; i < gl_registry_count(); i++) {
            const struct gl_variant *v = gl_registry_at(i);
            char id[96];
            snprintf(id, sizeof id, "%s/%s/%s", v->family, v->name, v->device);
            if (strncmp(id, names[k], flen + 1) != 0)
                continue;
            if (strcmp(id, names[k]) == 0)
                got = rank;
            rank++;
        }
        if (!CHECK(got == want))
            printf("  %s is variant %d of its family, want %d\n", names[k], got, want);
    }
    for (int i = 0; i < gl_registry_count(); i++) {
        const struct gl_variant *v = gl_registry_at(i);
        CHECK(gl_variant_find(v->family, v->name) == v);
        CHECK(v->desc && v->desc[0] && !strchr(v->desc, '\n'));
        CHECK(v->flops && v->min_bytes && v->run);
        CHECK(v->params & GL_PBIT(GL_P_N));
        CHECK(v->params & GL_PBIT(GL_P_SEED));
        CHECK((strcmp(v->device, "cpu") == 0) == ((v->params & GL_PBIT(GL_P_CACHE)) == 0));
        CHECK((strcmp(v->device, "gpu") == 0) == ((v->params & GL_PBIT(GL_P_THREADS)) == 0) ||
              strcmp(v->name, "seq_ijk") == 0 || strcmp(v->name, "seq") == 0);
    }
    unsigned sq = GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_K) | GL_PBIT(GL_P_GRID) |
                  GL_PBIT(GL_P_MEM) | GL_PBIT(GL_P_CACHE) | GL_PBIT(GL_P_SEED);
    CHECK(gl_variant_find("matmul", "global")->params == sq);
    CHECK(gl_variant_find("matmul", "shared")->params == sq);
    CHECK(gl_variant_find("vecadd", "gridstride")->params ==
          (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_BS) | GL_PBIT(GL_P_G) | GL_PBIT(GL_P_CACHE) |
           GL_PBIT(GL_P_SEED)));
    CHECK(gl_variant_find("stencil", "omp")->params ==
          (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_R) | GL_PBIT(GL_P_THREADS) | GL_PBIT(GL_P_SEED)));
    CHECK(gl_variant_find("matmul", "omp_rect")->params ==
          (GL_PBIT(GL_P_M) | GL_PBIT(GL_P_N) | GL_PBIT(GL_P_P) | GL_PBIT(GL_P_THREADS) |
           GL_PBIT(GL_P_SEED)));
    CHECK(gl_variant_find("matmul", "cuBLAS") == NULL);
    CHECK(gl_variant_find("stencil", "seq_ijk") == NULL);
    CHECK(gl_family_known("matmul") && gl_family_known("stencil") && gl_family_known("vecadd"));
    CHECK(!gl_family_known("fft") && !gl_family_known(""));
    const char *s;
    CHECK((s = gl_variant_nearest("matmul", "globl")) && strcmp(s, "global") == 0);
    CHECK((s = gl_variant_nearest("matmul", "cuBLAS")) && strcmp(s, "cublas") == 0);
    CHECK((s = gl_variant_nearest("vecadd", "grid_stride")) && strcmp(s, "gridstride") == 0);
    CHECK(gl_variant_nearest("matmul", "fft") == NULL);
    CHECK(gl_variant_nearest("nofamily", "global") == NULL);
}

static void test_counts(void)
{
    struct gl_params p;
    const struct gl_variant *mm = gl_variant_find("matmul", "global");
    const struct gl_variant *rect = gl_variant_find("matmul", "omp_rect");
    const struct gl_variant *st = gl_variant_find("stencil", "seq");
    const struct gl_variant *va = gl_variant_find("vecadd", "omp");
    gl_params_init(&p);
    p.n = 2;
    CHECK(mm->flops(mm, &p) == 16 && mm->min_bytes(mm, &p) == 48);
    p.m = 2;
    p.n = 3;
    p.p = 4;
    CHECK(rect->flops(rect, &p) == 48 && rect->min_bytes(rect, &p) == 4 * (8 + 12 + 6));
    gl_params_init(&p);
    p.n = 10;
    p.r = 1;
    CHECK(st->flops(st, &p) == 64 * 9 && st->min_bytes(st, &p) == 4 * (100 + 64));
    p.n = 2048;
    p.r = 16;
    CHECK(st->flops(st, &p) == 2016.0 * 2016 * 33 * 33);
    gl_params_init(&p);
    p.n = 100;
    CHECK(va->flops(va, &p) == 100 && va->min_bytes(va, &p) == 1200);
}

static void test_complete(void)
{
    struct gl_params p;
    gl_params_init(&p);
    p.n = 64;
    p.bs = 16;
    p.r = 3;
    p.threads = 0;
    gl_variant_complete(gl_variant_find("matmul", "omp_ikj"), &p);
    CHECK(p.n == 64 && p.threads == omp_get_num_procs() && p.threads > 0 && p.seed == 42);
    CHECK(p.bs == GL_UNSET && p.r == GL_UNSET && p.k == GL_UNSET && p.m == GL_UNSET);
    CHECK(!p.mem[0] && !p.grid[0] && !p.cache[0]);

    gl_params_init(&p);
    p.n = 64;
    p.bs = 16;
    p.seed = 7;
    gl_variant_complete(gl_variant_find("matmul", "global"), &p);
    CHECK(p.k == 1 && p.seed == 7 && p.threads == GL_UNSET && p.g == GL_UNSET);
    CHECK(strcmp(p.mem, "device") == 0 && strcmp(p.grid, "2d") == 0);
    CHECK(strcmp(p.cache, "cold") == 0);
    CHECK(p.m == GL_UNSET && p.p == GL_UNSET);

    gl_params_init(&p);
    p.n = 70;
    p.m = 100;
    gl_variant_complete(gl_variant_find("matmul", "cublas"), &p);
    CHECK(p.m == 100 && p.n == 70 && p.p == 70);   /* P = N when unset */

    gl_params_init(&p);
    p.n = 1 << 20;
    p.bs = 256;
    gl_variant_complete(gl_variant_find("vecadd", "gridstride"), &p);
    CHECK(p.g == 0 && p.k == GL_UNSET);
    gl_params_init(&p);
    p.n = 100;
    p.threads = 3;
    gl_variant_complete(gl_variant_find("vecadd", "omp"), &p);
    CHECK(p.threads == 3);
}

static const char *run_check(const char *fam, const char *var, const struct gl_device *gpu,
                             long n, long bs, long k, long r, const char *grid)
{
    static char buf[GL_REASON_MAX];
    struct gl_params p;
    gl_params_init(&p);
    p.n = n;
    p.bs = bs;
    p.k = k;
    p.r = r;
    if (grid)
        gl_params_set_text(&p, GL_P_GRID, grid);
    const struct gl_variant *v = gl_variant_find(fam, var);
    gl_variant_complete(v, &p);
    if (!v->check)
        return NULL;
    return v->check(v, &p, gpu, buf, sizeof buf);
}

static int has(const char *reason, const char *a, const char *b)
{
    int ok = reason && strstr(reason, a) && (!b || strstr(reason, b));
    if (!ok)
        printf("  reason [%s], want [%s] [%s]\n", reason ? reason : "(none)", a, b ? b : "");
    return ok;
}

static void test_checks(void)
{
    struct gl_device d = h100();
    struct gl_device small = h100();
    small.max_threads_per_block = 512;
    small.smem_per_block = small.smem_per_block_optin = 16384;
    const char *sq[] = { "global", "shared" };
    for (int i = 0; i < 2; i++) {
        CHECK(run_check("matmul", sq[i], NULL, 1024, 16, 1, GL_UNSET, NULL) == NULL);
        CHECK(run_check("matmul", sq[i], &d, 1024, 32, 1, GL_UNSET, NULL) == NULL);
        CHECK(has(run_check("matmul", sq[i], NULL, 1024, 64, 1, GL_UNSET, NULL), "4096 threads",
                  "limit of 1024"));
        CHECK(has(run_check("matmul", sq[i], &small, 1024, 32, 1, GL_UNSET, NULL), "1024 threads",
                  "limit of 512"));
        CHECK(has(run_check("matmul", sq[i], &d, 1024, 32, 2, GL_UNSET, NULL), "K*BS*BS=2048",
                  NULL));
        CHECK(has(run_check("matmul", sq[i], &d, 1000, 16, 2, GL_UNSET, NULL),
                  "N=1000 is not a multiple of K*BS=32", NULL));
        CHECK(has(run_check("matmul", sq[i], &d, 1024, 8, 5, GL_UNSET, NULL), "K=5 is not in 1..4",
                  NULL));
        CHECK(run_check("matmul", sq[i], &d, 2048, 1, 2, GL_UNSET, "block") == NULL);
        CHECK(has(run_check("matmul", sq[i], &d, 4096, 1, 2, GL_UNSET, "block"),
                  "grid=block needs (N/(K*BS))^2=4194304 launches", "1048576"));
        CHECK(run_check("matmul", sq[i], &d, 4096, 1, 2, GL_UNSET, "1d") == NULL);
        CHECK(has(run_check("matmul", sq[i], &d, 65536 * 2, 1, 1, GL_UNSET, "2d"),
                  "131072 block rows", "65535"));
    }
    /* shared's static tile 2*K*BS*BS*4 against a small per-block limit */
    CHECK(run_check("matmul", "global", &small, 1024, 16, 1, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "shared", &small, 1024, 16, 1, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "shared", &small, 1024, 16, 2, GL_UNSET, NULL) == NULL);
    small.smem_per_block = 4096;   /* 2*2*16*16*4 = 4096 bytes: fits exactly */
    CHECK(run_check("matmul", "shared", &small, 1024, 16, 2, GL_UNSET, NULL) == NULL);
    small.smem_per_block = 4095;
    CHECK(has(run_check("matmul", "shared", &small, 1024, 16, 2, GL_UNSET, NULL),
              "2*K*BS*BS*4=4096 bytes", "limit of 4095"));
    CHECK(run_check("matmul", "global", &small, 1024, 16, 2, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "global", &small, 1024, 16, 1, GL_UNSET, NULL) == NULL);
    /* rect */
    CHECK(run_check("matmul", "naive_rect", NULL, 70, 32, GL_UNSET, GL_UNSET, NULL) == NULL);
    CHECK(has(run_check("matmul", "naive_rect", NULL, 70, 33, GL_UNSET, GL_UNSET, NULL),
              "BS*BS=1089 threads", NULL));
    CHECK(run_check("matmul", "tiled_rect", &d, 70, 32, GL_UNSET, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "tiled_rect", &small, 70, 16, GL_UNSET, GL_UNSET, NULL) == NULL);
    small.smem_per_block = 2047;
    CHECK(has(run_check("matmul", "tiled_rect", &small, 70, 16, GL_UNSET, GL_UNSET, NULL),
              "2*BS*BS*4=2048", "2047"));
    CHECK(run_check("matmul", "naive_rect", &small, 70, 16, GL_UNSET, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "cublas", &d, 70, GL_UNSET, GL_UNSET, GL_UNSET, NULL) == NULL);
    CHECK(run_check("matmul", "omp_ikj", NULL, 1000, GL_UNSET, GL_UNSET, GL_UNSET, NULL) == NULL);
    /* stencil */
    CHECK(run_check("stencil", "global", &d, 1000, 32, 16, 16, NULL) == NULL);
    /* 64*544*4 = 139264 bytes: over 48 KiB, within the 227 KiB opt-in */
    CHECK(run_check("stencil", "shared", &d, 1000, 32, 16, 16, NULL) == NULL);
    CHECK(has(run_check("stencil", "shared", NULL, 1000, 32, 16, 16, NULL),
              "(BS+2R)*(K*BS+2R)*4=139264 bytes", "49152"));
    CHECK(run_check("stencil", "shared", NULL, 1000, 16, 4, 8, NULL) == NULL);   /* 32*80*4 */
    CHECK(has(run_check("stencil", "global", &d, 32, 16, 1, 16, NULL), "N=32 must exceed 2R=32",
              NULL));
    CHECK(has(run_check("stencil", "seq", NULL, 10, GL_UNSET, GL_UNSET, 5, NULL), "N=10", "2R=10"));
    CHECK(run_check("stencil", "omp", NULL, 11, GL_UNSET, GL_UNSET, 5, NULL) == NULL);
    CHECK(has(run_check("stencil", "global", NULL, 1000, 64, 1, 2, NULL), "4096 threads", NULL));
    /* vecadd */
    CHECK(run_check("vecadd", "global", &d, 1000, 1024, GL_UNSET, GL_UNSET, NULL) == NULL);
    CHECK(has(run_check("vecadd", "gridstride", &d, 1000, 2048, GL_UNSET, GL_UNSET, NULL),
              "BS=2048 threads", "1024"));
    CHECK(run_check("vecadd", "seq", NULL, 1000, GL_UNSET, GL_UNSET, GL_UNSET, NULL) == NULL);
}

/* ---- expansion ------------------------------------------------------------------- */

static void test_order_and_zip(void)
{
    CHECK(load("[a]\nfamily = matmul\nvariants = shared, global\nN = 64, 128\nBS = 8, 16\n"
               "grid = 1d, 2d\nmem = device, managed\nzip = grid, mem\n"
               "[b]\nfamily = vecadd\nvariants = seq\nN = 5\n") == 0);
    CHECK(ex.njobs == 2 * 2 * 2 * 2 + 1);
    static const char *const want[] = {
        "N=64 BS=8 K=1 seed=42 mem=device grid=1d cache=cold",
        "N=64 BS=8 K=1 seed=42 mem=managed grid=2d cache=cold",
        "N=64 BS=16 K=1 seed=42 mem=device grid=1d cache=cold",
        "N=64 BS=16 K=1 seed=42 mem=managed grid=2d cache=cold",
        "N=128 BS=8 K=1 seed=42 mem=device grid=1d cache=cold",
        "N=128 BS=8 K=1 seed=42 mem=managed grid=2d cache=cold",
        "N=128 BS=16 K=1 seed=42 mem=device grid=1d cache=cold",
        "N=128 BS=16 K=1 seed=42 mem=managed grid=2d cache=cold",
    };
    for (int i = 0; i < 16 && i < ex.njobs; i++) {
        const struct gl_job *j = &ex.jobs[i];
        CHECK(j->section == 0);
        CHECK_STR(j->v->name, i < 8 ? "shared" : "global");   /* variants in listed order */
        if (!CHECK(strcmp(label(j), want[i % 8]) == 0))
            printf("  job %d: %s\n", i, label(j));
        CHECK(j->skip[0] == '\0');
        CHECK_STR(j->metrics, "default");
        CHECK(j->t.min_samples == 10);
    }
    if (ex.njobs == 17) {
        CHECK(ex.jobs[16].section == 1);
        CHECK_STR(label(&ex.jobs[16]), "N=5 seed=42");
    }
    CHECK(ex.nduplicates == 0 && ex.nrejects == 0);
    done();

    /* zip group whose lead is not the first parameter: BS slowest, then (K, R) together */
    CHECK(load("[a]\nfamily = stencil\nvariants = global\nN = 100\nR = 1, 2\nBS = 8, 16\n"
               "K = 4, 1\nzip = K, R\n") == 0);
    static const char *const w2[] = { "N=100 BS=8 K=4 R=1 seed=42 cache=cold",
                                      "N=100 BS=8 K=1 R=2 seed=42 cache=cold",
                                      "N=100 BS=16 K=4 R=1 seed=42 cache=cold",
                                      "N=100 BS=16 K=1 R=2 seed=42 cache=cold" };
    CHECK(ex.njobs == 4);
    for (int i = 0; i < 4 && i < ex.njobs; i++)
        if (!CHECK(strcmp(label(&ex.jobs[i]), w2[i]) == 0))
            printf("  job %d: %s\n", i, label(&ex.jobs[i]));
    done();
}

static void test_where_dedupe(void)
{
    /* N=80 fails for every BS, so the CPU variant (which does not read BS) gets no
     * N=80 job; N=96 passes only with BS=16. */
    CHECK(load("[a]\nfamily = matmul\nvariants = omp_ikj, global\nN = 64, 80, 96\nBS = 16, 32\n"
               "where = N % (2*BS) == 0\nwhere = N > 0\nthreads = 2\n") == 0);
    CHECK(count_variant(&ex, "cpu", "omp_ikj") == 2);
    CHECK(count_variant(&ex, "gpu", "global") == 3);
    CHECK(ex.njobs == 5);
    if (ex.njobs == 5) {
        CHECK_STR(label(&ex.jobs[0]), "N=64 threads=2 seed=42");
        CHECK_STR(label(&ex.jobs[1]), "N=96 threads=2 seed=42");
        CHECK(strncmp(label(&ex.jobs[2]), "N=64 BS=16 ", 11) == 0);
        CHECK(strncmp(label(&ex.jobs[3]), "N=64 BS=32 ", 11) == 0);
        CHECK(strncmp(label(&ex.jobs[4]), "N=96 BS=16 ", 11) == 0);
    }
    CHECK(ex.nduplicates == 1);   /* N=64 BS=32 collapsed into N=64 for omp_ikj */
    CHECK(ex.nrejects == 2);
    for (int i = 0; i < ex.nrejects; i++) {
        CHECK(ex.rejects[i].section == 0);
        CHECK(ex.rejects[i].count == 3);   /* (80,16) (80,32) (96,32) */
        CHECK_STR(ex.rejects[i].reason, "where: N % (2*BS) == 0");
    }
    if (ex.nrejects == 2) {
        CHECK_STR(ex.rejects[0].variant, "omp_ikj");
        CHECK_STR(ex.rejects[1].variant, "global");
    }
    done();

    /* rejects are counted per where text; the first false one takes the blame */
    CHECK(load("[a]\nfamily = vecadd\nvariants = global\nN = 1:10:1\nBS = 32\n"
               "where = N > 3\nwhere = N % 2 == 0\n") == 0);
    CHECK(ex.njobs == 4);   /* 4 6 8 10 */
    CHECK(ex.nrejects == 2);
    if (ex.nrejects == 2) {
        CHECK(ex.rejects[0].count == 3 && strcmp(ex.rejects[0].reason, "where: N > 3") == 0);
        CHECK(ex.rejects[1].count == 3 && strcmp(ex.rejects[1].reason, "where: N % 2 == 0") == 0);
    }
    done();

    /* strings in where */
    CHECK(load("[a]\nfamily = matmul\nvariants = global\nN = 64\nBS = 16\n"
               "mem = device, zerocopy, managed\ngrid = 2d, block\n"
               "where = mem == \"device\" || grid != \"block\"\n") == 0);
    CHECK(ex.njobs == 4);
    for (int i = 0; i < ex.njobs; i++)
        CHECK(strcmp(ex.jobs[i].p.mem, "device") == 0 || strcmp(ex.jobs[i].p.grid, "2d") == 0);
    done();

    /* a CPU variant in a section that sweeps BS and K runs once per N */
    CHECK(load("[a]\nfamily = stencil\nvariants = seq, global\nN = 100, 200\nR = 2\n"
               "BS = 8, 16, 32\nK = 1, 4\n") == 0);
    CHECK(count_variant(&ex, "cpu", "seq") == 2 && count_variant(&ex, "gpu", "global") == 12);
    CHECK(ex.nduplicates == 10);
    done();

    /* a where that divides by zero is an expansion error with file:line and the point */
    CHECK(gl_config_parse("t.conf", "[a]\nfamily = vecadd\nvariants = global\nN = 64\n"
                                    "BS = 16, 32\nwhere = N / (BS - 32) < 0\n",
                          &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, NULL, NULL, &ex, err, sizeof err) == -1);
    CHECK(strncmp(err, "t.conf:6: where 'N / (BS - 32) < 0': division by zero", 53) == 0);
    CHECK(strstr(err, "N=64 BS=32") != NULL);
    CHECK(ex.njobs == 0 && ex.jobs == NULL);
    gl_config_free(&cfg);
}

static void test_skip_and_only(void)
{
    struct gl_device d = h100();
    CHECK(load("[a]\nfamily = matmul\nvariants = global, shared, omp_ikj\nN = 1024\n"
               "BS = 16, 64\n") == 0);
    CHECK(ex.njobs == 5);
    int skipped = 0;
    for (int i = 0; i < ex.njobs; i++) {
        const struct gl_job *j = &ex.jobs[i];
        if (j->p.bs == 64) {
            CHECK(strstr(j->skip, "4096 threads") != NULL);
            skipped++;
        } else {
            CHECK(j->skip[0] == '\0');
        }
    }
    CHECK(skipped == 2);
    gl_expansion_free(&ex);
    CHECK(gl_expand(&cfg, &d, "shared", &ex, err, sizeof err) == 0);
    CHECK(ex.njobs == 2 && count_variant(&ex, "gpu", "shared") == 2);
    gl_expansion_free(&ex);
    CHECK(gl_expand(&cfg, &d, "nosuch", &ex, err, sizeof err) == 0 && ex.njobs == 0);
    done();

    /* the device matters: stencil shared with opt-in shared memory */
    CHECK(gl_config_load("configs/stencil.conf", &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, NULL, NULL, &ex, err, sizeof err) == 0);
    int sk_null = 0, sk_dev = 0;
    for (int i = 0; i < ex.njobs; i++)
        sk_null += ex.jobs[i].skip[0] != 0;
    gl_expansion_free(&ex);
    CHECK(gl_expand(&cfg, &d, NULL, &ex, err, sizeof err) == 0);
    for (int i = 0; i < ex.njobs; i++)
        sk_dev += ex.jobs[i].skip[0] != 0;
    CHECK(sk_null > 0 && sk_dev == 0);
    done();
}

static void test_stencil_conf(void)
{
    CHECK(gl_config_load("configs/stencil.conf", &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, NULL, NULL, &ex, err, sizeof err) == 0);
    CHECK(count_variant(&ex, "gpu", "global") == 81);
    CHECK(count_variant(&ex, "gpu", "shared") == 81);
    CHECK(count_variant(&ex, "cpu", "seq") == 9);
    CHECK(count_variant(&ex, "cpu", "omp") == 9);
    CHECK(ex.njobs == 2 * 81 + 2 * 9);
    /* 81 distinct (N, R, BS, K) per GPU variant */
    for (int i = 0; i < ex.njobs; i++)
        for (int j = i + 1; j < ex.njobs; j++)
            if (ex.jobs[i].v == ex.jobs[j].v && ex.jobs[i].section == ex.jobs[j].section)
                CHECK(memcmp(&ex.jobs[i].p, &ex.jobs[j].p, sizeof ex.jobs[i].p) != 0);
    done();
}

static void test_shipped_configs(void)
{
    glob_t g;
    struct gl_device d = h100();
    CHECK(glob("configs/*.conf", 0, NULL, &g) == 0);
    CHECK(g.gl_pathc >= 6);
    int names = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        int ok = gl_config_load(path, &cfg, err, sizeof err) == 0;
        if (!CHECK(ok)) {
            printf("  %s\n", err);
            continue;
        }
        for (int pass = 0; pass < 2; pass++) {
            ok = gl_expand(&cfg, pass ? &d : NULL, NULL, &ex, err, sizeof err) == 0;
            if (!CHECK(ok))
                printf("  %s\n", err);
            CHECK(ex.njobs > 0);
            for (int j = 0; j < ex.njobs; j++)
                CHECK(ex.jobs[j].v != NULL && ex.jobs[j].p.n >= 1);
            gl_expansion_free(&ex);
        }
        CHECK(cfg.description[0] != '\0');
        const char *base = strrchr(path, '/') + 1;
        names += strcmp(base, "smoke.conf") == 0 || strcmp(base, "matmul.conf") == 0 ||
                 strcmp(base, "stencil.conf") == 0 || strcmp(base, "geometry.conf") == 0 ||
                 strcmp(base, "vecadd.conf") == 0 || strcmp(base, "tiled.conf") == 0;
        gl_config_free(&cfg);
    }
    CHECK(names == 6);
    globfree(&g);

    /* smoke.conf covers every variant of the registry, each CPU one in one section only */
    CHECK(gl_config_load("configs/smoke.conf", &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, &d, NULL, &ex, err, sizeof err) == 0);
    for (int v = 0; v < gl_registry_count(); v++) {
        const struct gl_variant *var = gl_registry_at(v);
        int n = 0, skips = 0, sections = 0, last = -1;
        for (int j = 0; j < ex.njobs; j++) {
            if (ex.jobs[j].v != var)
                continue;
            n++;
            skips += ex.jobs[j].skip[0] != 0;
            if (ex.jobs[j].section != last)
                sections++;
            last = ex.jobs[j].section;
        }
        if (!CHECK(n > 0 && skips == 0))
            printf("  smoke: %s/%s has %d jobs, %d skipped\n", var->family, var->name, n, skips);
        if (strcmp(var->device, "cpu") == 0)
            CHECK(sections == 1);
    }
    done();

    /* the studies' shapes: S3 has the 12 geometry variants over the paper's 25
     * sizes (160..1760 step 160, 2080..6240 step 320) */
    CHECK(gl_config_load("configs/geometry.conf", &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, &d, NULL, &ex, err, sizeof err) == 0);
    int sq = 0, big = 0;
    for (int j = 0; j < ex.njobs; j++) {
        sq += ex.jobs[j].section == 0;
        long n = ex.jobs[j].p.n;
        big += ex.jobs[j].section == 0 && n > 1760 && (n - 2080) % 320 != 0;
    }
    CHECK(sq == 25 * 12);
    CHECK(big == 0);
    done();
}

/* ---- kernel sections: named parameters ------------------------------------------- */

static void test_named_params(void)
{
    char dir[] = "/tmp/gl_xtest_XXXXXX", src[64], text[2048];
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    snprintf(src, sizeof src, "%s/k.cu", dir);
    FILE *f = fopen(src, "w");
    if (!CHECK(f != NULL))
        return;
    fputs("template <int T> __global__ void tiled(float *o, int n) { }\n"
          "__global__ void plain(float *o, int n) { }\n", f);
    fclose(f);
    const char *body = "[k]\nsource = %s\nvariants = plain, t = tiled<TILE>\n"
                       "N = 64, 128\nTILE = 16, 32, 16\nWPT = 1, 2, 4\nzip = TILE, WPT\n"
                       "buffer.o = float[N] output\nargs = o, int N\ngrid = cdiv(N, TILE*WPT)\n"
                       "block = TILE\nwhere = %s\n";
    /* zip on named parameters; the duplicate (TILE, WPT) = (16, ...) differs in WPT */
    snprintf(text, sizeof text, body, src, "N >= TILE * WPT");
    if (CHECK(load(text) == 0)) {
        /* points: N x (16,1) (32,2) (16,4); N=64 drops none (64 >= 64) */
        CHECK(count_variant(&ex, "gpu", "plain") == 6 && count_variant(&ex, "gpu", "t") == 6);
        CHECK(ex.nrejects == 0 && ex.nduplicates == 0);
        CHECK(ex.jobs[0].p.nuser == 2);
        CHECK_STR(label(&ex.jobs[0]), "N=64 seed=42 cache=cold TILE=16 WPT=1");
        CHECK_STR(label(&ex.jobs[1]), "N=64 seed=42 cache=cold TILE=32 WPT=2");
        CHECK_STR(label(&ex.jobs[5]), "N=128 seed=42 cache=cold TILE=16 WPT=4");
        CHECK(ex.jobs[0].v == gl_section_variant(&cfg.sections[0], 0));
        CHECK(ex.jobs[0].skip[0] == '\0');
        done();
    }
    /* where on named parameters rejects points, counted per variant */
    snprintf(text, sizeof text, body, src, "TILE * WPT < 64");
    if (CHECK(load(text) == 0)) {
        CHECK(ex.njobs == 4 && ex.nrejects == 2 && ex.rejects[0].count == 4);
        CHECK_STR(ex.rejects[0].reason, "where: TILE * WPT < 64");
        done();
    }
    /* dedupe: equal named values collapse (params compare whole) */
    snprintf(text, sizeof text,
             "[k]\nsource = %s\nvariants = plain\nN = 64, 64\nTILE = 16, 16, 32\n"
             "buffer.o = float[N] output\nargs = o, int N\ngrid = 1\nblock = TILE\n", src);
    if (CHECK(load(text) == 0)) {
        CHECK(ex.njobs == 2 && ex.nduplicates == 4);
        done();
    }
    /* --only with a kernel variant's name; check's skip reason */
    snprintf(text, sizeof text,
             "[k]\nsource = %s\nvariants = plain, t = tiled<TILE>\nN = 64\nTILE = 512, 2048\n"
             "buffer.o = float[N] output\nargs = o, int N\ngrid = 1\nblock = TILE\n", src);
    CHECK(gl_config_parse("t.conf", text, &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, NULL, "t", &ex, err, sizeof err) == 0);
    CHECK(ex.njobs == 2 && count_variant(&ex, "gpu", "t") == 2);
    if (ex.njobs == 2) {
        CHECK(ex.jobs[0].skip[0] == '\0');
        CHECK(strstr(ex.jobs[1].skip, "block x = 2048 threads exceeds the device limit") != NULL);
    }
    done();
    /* a C reference: points outer, the variants of a point one after the other
     * (its expected outputs are cached per point in the worker); rejects,
     * duplicates and --only as before */
    char so[96];
    snprintf(so, sizeof so, "%s/ref.so", dir);
    f = fopen(so, "w");
    if (!CHECK(f != NULL))
        return;
    fputs("not loaded here\n", f);
    fclose(f);
    const char *cbody = "[k]\nsource = %s\nvariants = plain, t = tiled<TILE>, u = tiled<TILE>\n"
                        "N = 64, 128\nTILE = 16, 32, 16\nbuffer.o = float[N] output\n"
                        "args = o, int N\ngrid = 1\nblock = TILE\nverify = c:%s:f\n"
                        "where = N > 64 || TILE < 32\n";
    snprintf(text, sizeof text, cbody, src, so);
    if (CHECK(load(text) == 0)) {
        /* points (64,16) (64,32: rejected) (64,16: duplicate) (128,16) (128,32) (128,16) */
        static const char *const order[][2] = {
            { "plain", "N=64 seed=42 cache=cold TILE=16" }, { "t", "N=64 seed=42 cache=cold TILE=16" },
            { "u", "N=64 seed=42 cache=cold TILE=16" }, { "plain", "N=128 seed=42 cache=cold TILE=16" },
            { "t", "N=128 seed=42 cache=cold TILE=16" }, { "u", "N=128 seed=42 cache=cold TILE=16" },
            { "plain", "N=128 seed=42 cache=cold TILE=32" }, { "t", "N=128 seed=42 cache=cold TILE=32" },
            { "u", "N=128 seed=42 cache=cold TILE=32" },
        };
        CHECK(ex.njobs == 9 && ex.nduplicates == 6 && ex.nrejects == 3 &&
              ex.rejects[0].count == 1);
        for (int i = 0; i < 9 && i < ex.njobs; i++)
            if (!CHECK(strcmp(ex.jobs[i].v->name, order[i][0]) == 0 &&
                       strcmp(label(&ex.jobs[i]), order[i][1]) == 0))
                printf("  job %d: %s %s\n", i, ex.jobs[i].v->name, label(&ex.jobs[i]));
        done();
    }
    CHECK(gl_config_parse("t.conf", text, &cfg, err, sizeof err) == 0);
    CHECK(gl_expand(&cfg, NULL, "u", &ex, err, sizeof err) == 0);
    CHECK(ex.njobs == 3 && count_variant(&ex, "gpu", "u") == 3 && ex.nrejects == 1);
    done();
    remove(so);
    remove(src);
    rmdir(dir);
}

int main(void)
{
    t_need_gpu_plugin("test_expand");
    if (!t_load_plugins())
        return t_done("test_expand");
    test_expr();
    test_registry_table();
    test_counts();
    test_complete();
    test_checks();
    test_order_and_zip();
    test_where_dedupe();
    test_skip_and_only();
    test_stencil_conf();
    test_shipped_configs();
    test_named_params();
    return t_done("test_expand");
}

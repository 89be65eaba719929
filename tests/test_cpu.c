/* test_cpu.c - the CPU plugin declares every CPU baseline once, completely
 * and as the loader needs it; every CPU baseline variant runs, times and
 * verifies on small sizes (the blocked kernel also across its blocks and
 * edges, at every instruction-set level this CPU has) and records what ran
 * (code_path: the level picked, the lowest for the stencil, which is not
 * dispatched, or OpenBLAS's build); GPULAB_CPU_ISA forces a level of the
 * dispatched rows or skips them with a reason; OpenBLAS is found, runs with the run's
 * threads, and without it (GPULAB_OPENBLAS at a missing file, or at a library
 * that is not OpenBLAS) check() and run() say why; impossible sizes and thread
 * counts are skipped and internal errors fail, always with a reason and with
 * run() returning 0; the shared harness poisons the output before every run,
 * so a kernel that stops writing is caught, honours the sampling policy, hands
 * each thread its scratch, and splits rows among threads exactly once each.
 * Variants are found through gpulab_plugin(). Needs OpenBLAS installed (make
 * deps). Must stay fast (< 3 s). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "cpu_dispatch.h"
#include "cpu_harness.h"
#include "cpu_openblas.h"
#include "family.h"
#include "params.h"
#include "plugin.h"
#include "reference.h"
#include "t.h"

/* Exactly 4 samples: noise never low enough, time cap far away. */
static const struct gl_timing quick = { 1, 2, 4, -1.0, 30.0, 60.0 };

static struct gl_result res;   /* large: keep it off the stack */

static void check_ok(const char *what, int rc, long tol_len)
{
    int ok = rc == 0 && res.status == GL_OK;
    if (!ok)
        printf("  %s: rc %d status %d reason '%s'\n", what, rc, res.status, res.reason);
    CHECK(ok);
    CHECK(res.reason[0] == '\0');
    CHECK(res.nsamples == 4);
    int times_ok = 1;
    for (int i = 0; i < res.nsamples; i++)
        if (!(res.samples_ms[i] >= 0.0 && res.samples_ms[i] < 10000.0))
            times_ok = 0;
    CHECK(times_ok);
    CHECK(res.max_rel_err >= 0.0 && res.max_rel_err <= gl_tolerance(tol_len));
    CHECK(res.h2d_ms == -1.0 && res.d2h_ms == -1.0);
}

/* A skip (or failure) with a reason, no samples, and run() returning 0. */
static void check_not_run(const char *what, int rc, int status)
{
    int ok = rc == 0 && res.status == status && res.reason[0] != '\0' && res.nsamples == 0;
    if (!ok)
        printf("  %s: rc %d status %d reason '%s'\n", what, rc, res.status, res.reason);
    CHECK(ok);
}

static int run(const struct gl_variant *v, const struct gl_params *p)
{
    return v->run(v, p, &quick, &res);
}

static int reads(const struct gl_variant *v, enum gl_param_id id)
{
    return (v->params & GL_PBIT(id)) != 0;
}

/* The plugin's variant of family/name, or NULL. */
static const struct gl_variant *find(const char *family, const char *name)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    for (int i = 0; pl && i < pl->nvariants; i++)
        if (strcmp(pl->variants[i].family, family) == 0 &&
            strcmp(pl->variants[i].name, name) == 0)
            return &pl->variants[i];
    return NULL;
}

/* How many of the plugin's variants are of this family. */
static int count(const char *family)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    int n = 0;
    for (int i = 0; pl && i < pl->nvariants; i++)
        n += strcmp(pl->variants[i].family, family) == 0;
    return n;
}

static void test_plugin(void)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    if (!CHECK(pl != NULL))
        return;
    CHECK(pl == gpulab_plugin(NULL));
    CHECK(pl->api == GL_PLUGIN_API);
    CHECK_STR(pl->name, "cpu");
    CHECK(pl->device == NULL);
    /* the old registry's CPU rows (4 matmul, 2 stencil, 2 vecadd), the blocked
     * and the OpenBLAS matmul rows, square and non-square */
    CHECK(pl->nvariants == 12);
    CHECK(count("matmul") == 8 && count("stencil") == 2 && count("vecadd") == 2);

    /* the families' tables end to end, in order */
    CHECK(pl->nvariants ==
          gl_cpu_matmul_nvariants + gl_cpu_stencil_nvariants + gl_cpu_vecadd_nvariants);
    int same = pl->nvariants >= gl_cpu_matmul_nvariants + gl_cpu_stencil_nvariants;
    const struct gl_variant *v = pl->variants;
    for (int i = 0; same && i < gl_cpu_matmul_nvariants; i++)
        same = memcmp(&v[i], &gl_cpu_matmul_variants[i], sizeof v[i]) == 0;
    v += gl_cpu_matmul_nvariants;
    for (int i = 0; same && i < gl_cpu_stencil_nvariants; i++)
        same = memcmp(&v[i], &gl_cpu_stencil_variants[i], sizeof v[i]) == 0;
    v += gl_cpu_stencil_nvariants;
    for (int i = 0; same && i < gl_cpu_vecadd_nvariants; i++)
        same = memcmp(&v[i], &gl_cpu_vecadd_variants[i], sizeof v[i]) == 0;
    CHECK(same);

    /* every row complete, CPU only, named once within its family, reading the
     * seed and N, and counting with its family's rules */
    int complete = 1, unique = 1, counts = 1;
    for (int i = 0; i < pl->nvariants; i++) {
        v = &pl->variants[i];
        if (!v->family || !v->name || !v->name[0] || !v->device || strcmp(v->device, "cpu") ||
            !v->desc || !v->desc[0] || !v->run || !v->impl || !reads(v, GL_P_N) ||
            !reads(v, GL_P_SEED) || reads(v, GL_P_BS) || reads(v, GL_P_CACHE))
            complete = 0;
        for (int k = 0; k < i; k++)
            if (strcmp(pl->variants[k].family, v->family) == 0 &&
                strcmp(pl->variants[k].name, v->name) == 0)
                unique = 0;
        if (strcmp(v->family, "matmul") == 0)   /* only OpenBLAS's rows can be refused */
            counts &= v->flops == gl_matmul_flops && v->min_bytes == gl_matmul_bytes &&
                      (v->check != NULL) == (strncmp(v->name, "openblas", 8) == 0);
        else if (strcmp(v->family, "stencil") == 0)
            counts &= v->flops == gl_stencil_flops && v->min_bytes == gl_stencil_bytes &&
                      v->check != NULL;
        else if (strcmp(v->family, "vecadd") == 0)
            counts &= v->flops == gl_vecadd_flops && v->min_bytes == gl_vecadd_bytes &&
                      v->check == NULL;
        else
            counts = 0;
    }
    CHECK(complete);
    CHECK(unique);
    CHECK(counts);

    /* unknown names (and GPU variants) are not the CPU plugin's */
    CHECK(find("matmul", "omp_kij") == NULL);
    CHECK(find("nosuch", "seq") == NULL);
}

/* The level the dispatched rows use here: the best this CPU has, or the one
 * the environment forces (the suite runs under GPULAB_CPU_ISA too). */
static int picked(void)
{
    char err[GL_REASON_MAX];
    return gl_isa_pick(err, sizeof err);
}

/* The code path an ok run of v must record: OpenBLAS's build, or the level
 * the dispatch picks on this CPU. */
static int code_path_right(const struct gl_variant *v)
{
    if (strncmp(v->name, "openblas", 8) == 0)
        return strncmp(res.code_path, "OpenBLAS ", 9) == 0 &&
               strstr(res.code_path, GL_OPENBLAS_SONAME) != NULL;
    return strcmp(res.code_path, gl_isa_label(picked())) == 0;
}

static void test_matmul(void)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    struct gl_params p;
    int nsquare = 0, nrect = 0, paths = 1;
    for (int i = 0; pl && i < pl->nvariants; i++) {
        const struct gl_variant *v = &pl->variants[i];
        if (strcmp(v->family, "matmul") != 0)
            continue;
        if (!reads(v, GL_P_M)) {   /* N x N */
            nsquare++;
            for (int th = 0; th < 3; th++) {   /* threads unset, 0 (all) and 3 */
                gl_params_init(&p);
                p.n = 33;
                p.seed = 42;
                if (th > 0)
                    p.threads = th == 1 ? 0 : 3;
                check_ok(v->name, run(v, &p), 33);
                paths &= code_path_right(v);
            }
            gl_params_init(&p);
            p.n = 0;
            check_not_run(v->name, run(v, &p), GL_SKIPPED);
            continue;
        }
        nrect++;   /* M x P . P x N */
        CHECK(reads(v, GL_P_P) && reads(v, GL_P_THREADS));
        gl_params_init(&p);
        p.m = 17;
        p.n = 9;
        p.p = 23;
        p.threads = 2;
        check_ok(v->name, run(v, &p), 23);
        paths &= code_path_right(v);
        p.seed = 7;
        p.m = 1;
        p.p = 1;
        check_ok("rect 1x1x9", run(v, &p), 1);
        gl_params_init(&p);
        p.n = 8;   /* M and P unset */
        check_not_run("rect M, P unset", run(v, &p), GL_SKIPPED);
    }
    CHECK(nsquare == 5 && nrect == 3);
    CHECK(paths);
}

/* What the environment of the test held when it started (GPULAB_CPU_ISA,
 * GPULAB_CPU_ISA_MAX, OPENBLAS_CORETYPE; NULL: unset): the suite must pass
 * with a level forced or capped, so the tests that change them put them back. */
static const char *outer_isa, *outer_cap, *outer_core;

static void save_env(void)
{
    outer_isa = getenv(GL_CPU_ISA_ENV) ? strdup(getenv(GL_CPU_ISA_ENV)) : NULL;
    outer_cap = getenv(GL_CPU_ISA_MAX_ENV) ? strdup(getenv(GL_CPU_ISA_MAX_ENV)) : NULL;
    outer_core = getenv("OPENBLAS_CORETYPE") ? strdup(getenv("OPENBLAS_CORETYPE")) : NULL;
}

static void restore_env(void)
{
    if (outer_isa)
        setenv(GL_CPU_ISA_ENV, outer_isa, 1);
    else
        unsetenv(GL_CPU_ISA_ENV);
    if (outer_cap)
        setenv(GL_CPU_ISA_MAX_ENV, outer_cap, 1);
    else
        unsetenv(GL_CPU_ISA_MAX_ENV);
}

/* omp_blocked across its blocks (rows past one 96-row block per thread,
 * columns past one 1024-wide block, an inner dimension past one 256-deep
 * slice, none a multiple of its tile) at every level this CPU has, each
 * recorded as the run's code path; GPULAB_CPU_ISA naming an unknown level
 * skips with the reason, and a level the CPU lacks too. */
static void test_levels(void)
{
    const struct gl_variant *blk = find("matmul", "omp_blocked_rect");
    const struct gl_variant *ikj = find("matmul", "omp_rect");
    if (!CHECK(blk != NULL && ikj != NULL))
        return;
    /* the levels nest, and the best is one the CPU has */
    CHECK(gl_isa_supported(GL_ISA_BASE));
    CHECK(!gl_isa_supported(GL_ISA_V4) || gl_isa_supported(GL_ISA_V3));
    CHECK(gl_isa_supported(gl_isa_best()));
    struct gl_params p;
    gl_params_init(&p);
    p.m = 203;
    p.n = 1030;
    p.p = 301;
    p.threads = 1;
    p.seed = 5;
    for (int i = 0; i < GL_ISA_COUNT; i++) {
        if (!gl_isa_supported((enum gl_isa)i)) {
            printf("  (this CPU lacks %s: that level is not run)\n", gl_isa_label((enum gl_isa)i));
            setenv(GL_CPU_ISA_ENV, gl_isa_name((enum gl_isa)i), 1);
            check_not_run("level the CPU lacks", run(blk, &p), GL_SKIPPED);
            CHECK(strstr(res.reason, "cannot run") != NULL);
            continue;
        }
        setenv(GL_CPU_ISA_ENV, gl_isa_name((enum gl_isa)i), 1);
        check_ok(gl_isa_name((enum gl_isa)i), run(blk, &p), 301);
        CHECK_STR(res.code_path, gl_isa_label((enum gl_isa)i));
        CHECK_STR(res.check, GL_CHECK_FULL);
        struct gl_params q = p;
        q.threads = 3;   /* rows split unevenly among threads */
        q.m = 100;
        q.n = 45;
        q.p = 17;
        check_ok("blocked 3 threads", run(blk, &q), 17);
        check_ok("i-k-j", run(ikj, &q), 17);
        CHECK_STR(res.code_path, gl_isa_label((enum gl_isa)i));
    }
    setenv(GL_CPU_ISA_ENV, "x86-64-v9", 1);
    check_not_run("unknown level", run(ikj, &p), GL_SKIPPED);
    CHECK(strstr(res.reason, "GPULAB_CPU_ISA=x86-64-v9: unknown level") != NULL);
    /* empty is unset: the best level */
    setenv(GL_CPU_ISA_ENV, "", 1);
    p.m = 30;
    check_ok("level unset", run(ikj, &p), 301);
    CHECK_STR(res.code_path, gl_isa_label(gl_isa_best()));
    restore_env();

    /* GPULAB_CPU_ISA_MAX: this CPU taken as one of a lower level, whatever it
     * is: the lowest is its best, a higher level forced is refused (and none
     * of its code runs), and an unknown cap is refused by name */
    unsetenv(GL_CPU_ISA_ENV);
    setenv(GL_CPU_ISA_MAX_ENV, gl_isa_name(GL_ISA_BASE), 1);
    CHECK(gl_isa_best() == GL_ISA_BASE && !gl_isa_supported(GL_ISA_V3) &&
          !gl_isa_supported(GL_ISA_V4));
    check_ok("capped", run(ikj, &p), 301);
    CHECK_STR(res.code_path, gl_isa_label(GL_ISA_BASE));
#if defined(__x86_64__)
    for (int i = GL_ISA_V3; i < GL_ISA_COUNT; i++) {
        setenv(GL_CPU_ISA_ENV, gl_isa_name((enum gl_isa)i), 1);
        check_not_run("forced above the cap", run(ikj, &p), GL_SKIPPED);
        CHECK(strstr(res.reason, "cannot run") && strstr(res.reason, "GPULAB_CPU_ISA_MAX"));
    }
    unsetenv(GL_CPU_ISA_ENV);
#endif
    setenv(GL_CPU_ISA_MAX_ENV, "x86-64-v9", 1);
    check_not_run("unknown cap", run(ikj, &p), GL_SKIPPED);
    CHECK(strstr(res.reason, "GPULAB_CPU_ISA_MAX=x86-64-v9: unknown level") != NULL);
    restore_env();
    CHECK(gl_isa_supported(gl_isa_best()));
}

/* The OpenBLAS core type of each level: the one that uses the level's
 * instruction set, none (OpenBLAS's own choice) for the lowest. */
static void test_coretype(void)
{
    CHECK(gl_openblas_coretype(GL_ISA_BASE) == NULL);
    CHECK_STR(gl_openblas_coretype(GL_ISA_V3), "Haswell");
    CHECK_STR(gl_openblas_coretype(GL_ISA_V4), "SkylakeX");
    CHECK(gl_openblas_coretype(-1) == NULL && gl_openblas_coretype(GL_ISA_COUNT) == NULL);
}

/* OpenBLAS: found (beside the plugin, or the system's), its SGEMM verified with
 * the run's threads and its build recorded; a forced level picks its core type
 * (refused when it cannot be had); GPULAB_OPENBLAS at a missing file or at a library that is not OpenBLAS:
 * check() and run() refuse with the reason, and setting it back finds it again. */
static void test_openblas(void)
{
    const struct gl_variant *ob = find("matmul", "openblas");
    const struct gl_variant *obr = find("matmul", "openblas_rect");
    if (!CHECK(ob != NULL && obr != NULL))
        return;
    char buf[GL_REASON_MAX], err[GL_REASON_MAX];
    struct gl_params p;
    gl_params_init(&p);
    p.n = 100;
    p.threads = 2;
    p.seed = 3;
    unsetenv(GL_OPENBLAS_ENV);
    const struct gl_openblas *lib = gl_openblas_get(err, sizeof err);
    if (!CHECK(lib != NULL)) {
        printf("  OpenBLAS: %s (install it: make deps)\n", err);
        return;
    }
    CHECK(ob->check(ob, &p, NULL, buf, sizeof buf) == NULL);
    check_ok("openblas", run(ob, &p), 100);
    CHECK_STR(res.code_path, lib->describe);
    CHECK(lib->get_num_threads() == 2);   /* the run's threads reached OpenBLAS */
    p.threads = 1;
    /* OpenBLAS's core type follows the level: one that cannot be had refuses
     * it with the dispatched rows' reason, and (loaded once per process) one
     * of another core type than it was loaded with too */
    setenv(GL_CPU_ISA_ENV, "x86-64-v9", 1);
    if (outer_core) {   /* the user's core type: the level does not concern it */
        check_ok("openblas, the user's core type", run(ob, &p), 100);
    } else {
        CHECK(ob->check(ob, &p, NULL, buf, sizeof buf) == buf &&
              strstr(buf, "GPULAB_CPU_ISA=x86-64-v9: unknown level"));
        check_not_run("openblas, unknown level", run(ob, &p), GL_SKIPPED);
    }
    restore_env();
    char e2[GL_REASON_MAX];
    const int loaded = gl_isa_pick(e2, sizeof e2);   /* the level it was loaded for */
    for (int i = 0; i < GL_ISA_COUNT; i++) {
        if (!gl_isa_supported((enum gl_isa)i))
            continue;
        setenv(GL_CPU_ISA_ENV, gl_isa_name((enum gl_isa)i), 1);
        const char *want = gl_openblas_coretype(i), *had = gl_openblas_coretype(loaded);
        if (outer_core || strcmp(want ? want : "", had ? had : "") == 0) {
            check_ok("openblas, level of its core type", run(ob, &p), 100);
            CHECK(lib->get_num_threads() == 1);
        } else {
            check_not_run("openblas, another core type", run(ob, &p), GL_SKIPPED);
            CHECK(strstr(res.reason, "OpenBLAS is loaded in this process with") != NULL);
        }
    }
    restore_env();
    /* sizes past an int: refused by check */
    p.n = 3000000000L;
    CHECK(ob->check(ob, &p, NULL, buf, sizeof buf) == buf && strstr(buf, "sizes up to") != NULL);

    /* the copy make places in build/openblas, named explicitly */
    setenv(GL_OPENBLAS_ENV, "build/" GL_OPENBLAS_COPY, 1);
    gl_params_init(&p);
    p.m = 37;
    p.n = 11;
    p.p = 301;
    p.threads = 3;
    CHECK(obr->check(obr, &p, NULL, buf, sizeof buf) == NULL);
    check_ok("openblas_rect, build's copy", run(obr, &p), 301);
    /* the build's copy: its path, then the end or what gpulab set (";") */
    const char *copy = strstr(res.code_path, "(build/openblas/libopenblas.so.0");
    CHECK(copy && (copy[32] == ')' || copy[32] == ';'));

    /* no OpenBLAS: the check and the run say why, nothing runs */
    setenv(GL_OPENBLAS_ENV, "/nonexistent/libopenblas.so.0", 1);
    const char *why = obr->check(obr, &p, NULL, buf, sizeof buf);
    CHECK(why == buf && strstr(buf, "OpenBLAS not found: install libopenblas0 or rebuild with "
                                    "it present") && strstr(buf, "/nonexistent"));
    check_not_run("openblas missing", run(obr, &p), GL_SKIPPED);
    CHECK(strstr(res.reason, "OpenBLAS not found") != NULL && res.code_path[0] == '\0');
    /* a library that is not OpenBLAS */
    setenv(GL_OPENBLAS_ENV, "libm.so.6", 1);
    CHECK(obr->check(obr, &p, NULL, buf, sizeof buf) == buf && strstr(buf, "is not OpenBLAS"));
    unsetenv(GL_OPENBLAS_ENV);
    CHECK(obr->check(obr, &p, NULL, buf, sizeof buf) == NULL);
}

static void test_stencil(void)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    struct gl_params p;
    char buf[GL_REASON_MAX];
    int n = 0;
    for (int i = 0; pl && i < pl->nvariants; i++) {
        const struct gl_variant *v = &pl->variants[i];
        if (strcmp(v->family, "stencil") != 0)
            continue;
        n++;
        gl_params_init(&p);
        p.n = 20;
        p.r = 3;
        p.seed = 42;
        CHECK(v->check(v, &p, NULL, buf, sizeof buf) == NULL);
        check_ok(v->name, run(v, &p), 49);
        /* not dispatched: built for the lowest level, whatever GPULAB_CPU_ISA says */
        CHECK_STR(res.code_path, gl_isa_label(GL_ISA_BASE));
        setenv(GL_CPU_ISA_ENV, "x86-64-v9", 1);
        check_ok("stencil, level forced", run(v, &p), 49);
        CHECK_STR(res.code_path, gl_isa_label(GL_ISA_BASE));
        restore_env();
        p.n = 7;   /* one output */
        check_ok("stencil 7 3", run(v, &p), 49);
        p.n = 12;
        p.r = 0;
        p.threads = 2;
        check_ok("stencil R=0", run(v, &p), 1);

        gl_params_init(&p);
        p.n = 6;
        p.r = 3;
        /* the plan-time check and the run agree */
        CHECK(v->check(v, &p, NULL, buf, sizeof buf) == buf && strstr(buf, "2R") != NULL);
        check_not_run("stencil 6 3", run(v, &p), GL_SKIPPED);
    }
    CHECK(n == 2);
}

static void test_vecadd(void)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    struct gl_params p;
    int n = 0;
    for (int i = 0; pl && i < pl->nvariants; i++) {
        const struct gl_variant *v = &pl->variants[i];
        if (strcmp(v->family, "vecadd") != 0)
            continue;
        n++;
        gl_params_init(&p);
        p.n = 1000;
        p.seed = 42;
        check_ok(v->name, run(v, &p), 1);
        CHECK_STR(res.code_path, gl_isa_label(picked()));
        p.n = 1;
        p.threads = 4;
        check_ok("vecadd N=1", run(v, &p), 1);

        gl_params_init(&p);
        p.n = -5;
        check_not_run("vecadd N=-5", run(v, &p), GL_SKIPPED);
        p.n = 10;
        p.threads = GL_CPU_MAX_THREADS + 1;
        check_not_run("vecadd too many threads", run(v, &p), GL_SKIPPED);
        CHECK(strstr(res.reason, "threads") != NULL);
        /* threads are checked first, as before the harness was shared */
        p.n = -5;
        check_not_run("vecadd N=-5, too many threads", run(v, &p), GL_SKIPPED);
        CHECK(strstr(res.reason, "threads") != NULL);

        /* out of memory: failed with the reason, and run() still returns 0
         * (-1 would tell the worker that the device is unusable) */
        gl_params_init(&p);
        p.n = (long)(PTRDIFF_MAX / sizeof(double));
        check_not_run("vecadd out of memory", run(v, &p), GL_FAILED);
        CHECK(strstr(res.reason, "out of memory") != NULL);
    }
    CHECK(n == 2);
}

/* ---- the harness itself -------------------------------------------------- */

struct fake {
    int calls;
    int write_until;   /* writes the output only on calls < write_until */
};

static void fake_kernel(const struct gl_cpu_job *j)
{
    struct fake *f = (struct fake *)j->ctx;   /* test-only: counts its calls */
    if (f->calls++ < f->write_until)
        for (size_t i = 0; i < j->out_count; i++)
            j->out[i] = (float)i;
}

/* A job as gl_cpu_execute would hand it to gl_cpu_time. */
static struct gl_cpu_job fake_job(struct fake *f, float *out, size_t n, const struct gl_timing *t)
{
    struct gl_cpu_job j = { 0 };
    j.t = t;
    j.r = &res;
    j.kernel = fake_kernel;
    j.ctx = f;
    j.out = out;
    j.out_count = n;
    return j;
}

static void test_harness(void)
{
    enum { N = 64 };
    static float out[N];
    static double ref[N];
    for (int i = 0; i < N; i++)
        ref[i] = i;

    /* warm-up + exactly max_samples runs, and a right output passes */
    struct fake f = { 0, 1000 };
    struct gl_cpu_job j = fake_job(&f, out, N, &quick);
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(f.calls == 1 + 4 && res.nsamples == 4);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 1 && res.status == GL_OK);
    CHECK(res.max_rel_err == 0.0);

    /* a kernel that stops writing after the warm-up: the poisoned output of the
     * last run is caught even though an earlier run was right */
    struct fake g = { 0, 1 };
    j = fake_job(&g, out, N, &quick);
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 0 && res.status == GL_WRONG);
    CHECK(isinf(res.max_rel_err));
    CHECK(strstr(res.reason, "64 of 64 outputs") != NULL);

    /* the time cap stops sampling after the first sample */
    struct gl_timing capped = { 0, 10, 100, -1.0, 0.0, 60.0 };
    struct fake h = { 0, 1000 };
    j = fake_job(&h, out, N, &capped);
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(res.nsamples == 1 && h.calls == 1);

    /* quiet samples stop at min_samples under a generous noise limit */
    struct gl_timing loose = { 0, 3, 100, 10.0, 30.0, 60.0 };
    j = fake_job(&h, out, N, &loose);
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(res.nsamples == 3);

    /* a wrong element in an otherwise right output: GL_WRONG, placed by row */
    for (int i = 0; i < N; i++)
        out[i] = (float)i;
    out[19] = -1.0f;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 0 && res.status == GL_WRONG);
    CHECK(strstr(res.reason, "1 of 64") && strstr(res.reason, "first at (2,3)"));
}

/* ---- gl_cpu_execute, with a family of its own: out = in[1] ---------------- */

enum { XN = 50 };
static int inputs_ok;   /* the inputs were filled from the seed, one stream each */

static void copy_kernel(const struct gl_cpu_job *j)
{
    for (size_t i = 0; i < j->out_count; i++)
        j->out[i] = j->in[1][i];
}

static const double *copy_reference(const struct gl_cpu_job *j, char *err, size_t errlen)
{
    static double ref[XN];
    static float want[XN];
    (void)err;
    (void)errlen;
    inputs_ok = j->seed == 9 && j->threads >= 1;
    for (int i = 0; i < j->nin; i++) {
        gl_fill_random(want, j->in_count[i], 9, (unsigned long long)i);
        inputs_ok &= memcmp(want, j->in[i], j->in_count[i] * sizeof want[0]) == 0;
    }
    for (int i = 0; i < XN; i++)
        ref[i] = j->in[1][i];
    return ref;
}

static const double *no_reference(const struct gl_cpu_job *j, char *err, size_t errlen)
{
    (void)j;
    snprintf(err, errlen, "cache full");
    return NULL;
}

static struct gl_cpu_job copy_job(const struct gl_params *p)
{
    struct gl_cpu_job j = { 0 };
    j.p = p;
    j.t = &quick;
    j.r = &res;
    j.kernel = copy_kernel;
    j.reference = copy_reference;
    j.nin = 2;
    j.in_count[0] = 7;
    j.in_count[1] = XN;
    j.in_stream[0] = 0;
    j.in_stream[1] = 1;
    j.out_count = XN;
    j.tol_len = 1;
    j.row_len = 10;
    return j;
}

/* A kernel that writes each thread's scratch whole and copies in[1]: the
 * harness must hand every thread work_count floats of its own. */
static int scratch_ok;
static void scratch_kernel(const struct gl_cpu_job *j)
{
    int ok = 1;
#pragma omp parallel num_threads(j->threads) reduction(& : ok)
    {
        float *w = j->work + (size_t)omp_get_thread_num() * j->work_count;
        for (size_t i = 0; i < j->work_count; i++)
            w[i] = (float)omp_get_thread_num();
#pragma omp barrier
        for (size_t i = 0; i < j->work_count; i++)
            ok &= w[i] == (float)omp_get_thread_num();
    }
    scratch_ok = ok;
    copy_kernel(j);
}

/* gl_cpu_rows_omp: every row exactly once, whatever the threads and rows. */
static int visits[100];
static void count_rows(const struct gl_cpu_job *j, long i0, long i1)
{
    (void)j;
    for (long i = i0; i < i1; i++) {
#pragma omp atomic
        visits[i]++;
    }
}

static void test_rows(void)
{
    static const struct gl_cpu_rows counter = { { count_rows, count_rows, count_rows } };
    static const long ns[] = { 100, 7, 2, 1, 0 };
    static const int ths[] = { 1, 3, 4, 16 };
    struct gl_cpu_job j = { 0 };
    int once = 1;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ths / sizeof ths[0]; b++) {
            memset(visits, 0, sizeof visits);
            j.threads = ths[b];
            j.isa = GL_ISA_BASE;
            gl_cpu_rows_omp(&j, &counter, ns[a]);
            for (long i = 0; i < 100; i++)
                once &= visits[i] == (i < ns[a]);
        }
    CHECK(once);
    memset(visits, 0, sizeof visits);
    gl_cpu_rows_seq(&j, &counter, 50);
    CHECK(visits[0] == 1 && visits[49] == 1 && visits[50] == 0);
}

static void test_execute(void)
{
    struct gl_params p;
    gl_params_init(&p);
    p.seed = 9;
    p.threads = 2;
    struct gl_cpu_job j = copy_job(&p);
    inputs_ok = 0;
    check_ok("copy", gl_cpu_execute(&j), 1);
    CHECK(inputs_ok);
    CHECK(j.threads == 2 && j.in[0] == NULL && j.in[1] == NULL && j.out == NULL);   /* freed */

    /* sizes out of range: skipped with the family's reason, after the threads */
    j = copy_job(&p);
    snprintf(j.size_err, sizeof j.size_err, "N too small");
    check_not_run("size_err", gl_cpu_execute(&j), GL_SKIPPED);
    CHECK_STR(res.reason, "N too small");
    p.threads = GL_CPU_MAX_THREADS + 1;
    check_not_run("size_err + threads", gl_cpu_execute(&j), GL_SKIPPED);
    CHECK(strstr(res.reason, "threads=4097") != NULL);
    p.threads = 2;

    /* a reference that fails: failed, with its reason */
    j = copy_job(&p);
    j.reference = no_reference;
    check_not_run("no reference", gl_cpu_execute(&j), GL_FAILED);
    CHECK_STR(res.reason, "reference: cache full");

    /* a malformed job is an internal error, not a crash, and still returns 0 */
    j = copy_job(&p);
    j.nin = GL_CPU_MAX_IN + 1;
    check_not_run("3 inputs", gl_cpu_execute(&j), GL_FAILED);
    CHECK(strstr(res.reason, "internal") != NULL);
    j = copy_job(&p);
    j.out_count = 0;
    check_not_run("no output", gl_cpu_execute(&j), GL_FAILED);

    /* scratch per thread, freed afterwards; a dispatched job records its level */
    p.threads = 3;
    j = copy_job(&p);
    j.kernel = scratch_kernel;
    j.work_count = 1000;
    j.dispatched = 1;
    scratch_ok = 0;
    check_ok("scratch", gl_cpu_execute(&j), 1);
    CHECK(scratch_ok && j.work == NULL);
    CHECK_STR(res.code_path, gl_isa_label(picked()));
    CHECK(j.isa == (int)picked());
    /* one that is not dispatched runs and records the lowest level */
    j = copy_job(&p);
    check_ok("not dispatched", gl_cpu_execute(&j), 1);
    CHECK_STR(res.code_path, gl_isa_label(GL_ISA_BASE));
    CHECK(j.isa == GL_ISA_BASE);
    /* scratch that cannot be had: out of memory, reported */
    j = copy_job(&p);
    j.work_count = SIZE_MAX / 2;
    check_not_run("scratch too large", gl_cpu_execute(&j), GL_FAILED);
    CHECK(strstr(res.reason, "out of memory") != NULL);
    /* a library job records the library, whatever GPULAB_CPU_ISA says */
    setenv(GL_CPU_ISA_ENV, "nonsense", 1);
    j = copy_job(&p);
    j.library = "SomeBLAS 1.0 (here)";
    check_ok("library", gl_cpu_execute(&j), 1);
    CHECK_STR(res.code_path, "SomeBLAS 1.0 (here)");
    j = copy_job(&p);
    j.dispatched = 1;
    check_not_run("dispatched, level unknown", gl_cpu_execute(&j), GL_SKIPPED);
    CHECK(res.code_path[0] == '\0' && strstr(res.reason, "nonsense") != NULL);
    /* a job that is not dispatched ignores it */
    j = copy_job(&p);
    check_ok("not dispatched, level unknown", gl_cpu_execute(&j), 1);
    CHECK_STR(res.code_path, gl_isa_label(GL_ISA_BASE));
    restore_env();
}


/* ---- long runs and the sampled check ------------------------------------- */

static void slow_kernel(const struct gl_cpu_job *j)
{
    struct fake *f = (struct fake *)j->ctx;
    struct timespec ts = { 0, 30 * 1000 * 1000 };   /* 30 ms */
    f->calls++;
    nanosleep(&ts, NULL);
    for (size_t i = 0; i < j->out_count; i++)
        j->out[i] = (float)i;
}

static double ramp_at(const struct gl_cpu_job *j, size_t i)
{
    (void)j;
    return (double)i;
}

static void test_long_and_sampled(void)
{
    enum { N = 100000 };
    static float out[N];

    /* a run whose first execution lasts the time cap executes once: that run
     * is the sample (no warm-up, no second run) */
    struct gl_timing cap20 = { 2, 10, 100, 0.005, 0.020, 60.0 };
    struct fake f = { 0, 1000 };
    struct gl_cpu_job j = fake_job(&f, out, 64, &cap20);
    j.kernel = slow_kernel;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(f.calls == 1 && res.nsamples == 1 && res.samples_ms[0] >= 20.0);
    CHECK(res.busy_ms >= 20.0 && res.phase_ms[GL_PH_SAMPLES] >= 20.0);
    /* under a cap it does not reach, it is warmed up and sampled */
    struct gl_timing cap10s = { 2, 3, 3, 0.005, 10.0, 60.0 };
    struct fake g = { 0, 1000 };
    j = fake_job(&g, out, 64, &cap10s);
    j.kernel = slow_kernel;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(&j) == 0);
    CHECK(g.calls == 2 + 3 && res.nsamples == 3);

    /* the sampled check: a right output passes and says what was checked */
    struct fake h = { 0, 1000 };
    j = fake_job(&h, out, N, &quick);
    j.ref_at = ramp_at;
    j.row_len = 1000;
    j.tol_len = 1;
    j.seed = 42;
    for (int i = 0; i < N; i++)
        out[i] = (float)i;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_check_sampled(&j, GL_CPU_CHECK_POINTS) == 1 && res.status == GL_OK);
    CHECK(strcmp(res.check, GL_CHECK_SAMPLED) == 0 && res.check_points == GL_CPU_CHECK_POINTS);
    CHECK(res.max_rel_err == 0.0);
    /* one element never written (NaN) anywhere is caught by the full scan */
    out[77777] = NAN;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_check_sampled(&j, GL_CPU_CHECK_POINTS) == 0 && res.status == GL_WRONG);
    CHECK(strstr(res.reason, "1 of 100000 outputs not written") && strstr(res.reason, "(77,777)"));
    out[77777] = 77777.0f;
    /* 5 % of the elements wrong: 1024 points miss them all with probability
     * 0.95^1024 (1e-23) */
    for (int i = 0; i < N; i += 20)
        out[i] += 1.0f;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_check_sampled(&j, GL_CPU_CHECK_POINTS) == 0 && res.status == GL_WRONG);
    CHECK(strstr(res.reason, "sampled outputs outside tolerance") != NULL);
    for (int i = 0; i < N; i += 20)
        out[i] -= 1.0f;

    /* a real baseline past GL_CPU_FULL_WORK is checked sampled, one under it fully */
    const struct gl_variant *ikj = find("matmul", "omp_ikj");
    if (!CHECK(ikj != NULL))
        return;
    struct gl_params p;
    gl_params_init(&p);
    p.threads = 2;
    p.seed = 42;
    p.n = 520;   /* 520^3 > 2^27 */
    CHECK(ikj->run(ikj, &p, &quick, &res) == 0 && res.status == GL_OK);
    CHECK(strcmp(res.check, GL_CHECK_SAMPLED) == 0 && res.check_points == GL_CPU_CHECK_POINTS);
    p.n = 64;
    CHECK(ikj->run(ikj, &p, &quick, &res) == 0 && res.status == GL_OK);
    CHECK(strcmp(res.check, GL_CHECK_FULL) == 0 && res.check_points == 64 * 64);
}

int main(void)
{
    save_env();
    test_plugin();
    test_matmul();
    test_levels();
    test_coretype();
    test_openblas();
    test_stencil();
    test_vecadd();
    test_harness();
    test_rows();
    test_long_and_sampled();
    test_execute();
    gl_ref_cache_clear();
    return t_done("test_cpu");
}

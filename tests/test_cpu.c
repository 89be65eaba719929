/* test_cpu.c - every CPU baseline variant runs, times and verifies on small
 * sizes; unknown variants and impossible sizes are reported; the shared
 * harness poisons the output before every run, so a kernel that stops writing
 * is caught, and it honours the sampling policy. Must stay fast (< 2 s). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "cpu_harness.h"
#include "params.h"
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

static void test_matmul(void)
{
    const char *square[] = { "seq_ijk", "omp_ikj", "omp_ijk" };
    struct gl_params p;
    for (int i = 0; i < 3; i++) {
        gl_params_init(&p);
        p.n = 33;
        p.seed = 42;
        if (i > 0)
            p.threads = i == 1 ? 0 : 3;
        check_ok(square[i], gl_cpu_matmul(square[i], &p, &quick, &res), 33);
    }
    gl_params_init(&p);
    p.m = 17;
    p.n = 9;
    p.p = 23;
    p.threads = 2;
    check_ok("omp_rect", gl_cpu_matmul("omp_rect", &p, &quick, &res), 23);
    p.seed = 7;
    p.m = 1;
    p.p = 1;
    check_ok("omp_rect 1x1x9", gl_cpu_matmul("omp_rect", &p, &quick, &res), 1);

    gl_params_init(&p);
    p.n = 0;
    CHECK(gl_cpu_matmul("seq_ijk", &p, &quick, &res) == 0 && res.status == GL_SKIPPED);
    CHECK(res.reason[0] != '\0' && res.nsamples == 0);
    p.n = 8;
    CHECK(gl_cpu_matmul("omp_rect", &p, &quick, &res) == 0 && res.status == GL_SKIPPED);
    CHECK(gl_cpu_matmul("omp_kij", &p, &quick, &res) == -1 && res.status == GL_FAILED);
    CHECK(strstr(res.reason, "omp_kij") != NULL);
}

static void test_stencil(void)
{
    const char *names[] = { "seq", "omp" };
    struct gl_params p;
    for (int i = 0; i < 2; i++) {
        gl_params_init(&p);
        p.n = 20;
        p.r = 3;
        p.seed = 42;
        check_ok(names[i], gl_cpu_stencil(names[i], &p, &quick, &res), 49);
        p.n = 7;   /* one output */
        check_ok("stencil 7 3", gl_cpu_stencil(names[i], &p, &quick, &res), 49);
        p.n = 12;
        p.r = 0;
        p.threads = 2;
        check_ok("stencil R=0", gl_cpu_stencil(names[i], &p, &quick, &res), 1);
    }
    gl_params_init(&p);
    p.n = 6;
    p.r = 3;
    CHECK(gl_cpu_stencil("seq", &p, &quick, &res) == 0 && res.status == GL_SKIPPED);
    CHECK(gl_cpu_stencil("shared", &p, &quick, &res) == -1 && res.status == GL_FAILED);
}

static void test_vecadd(void)
{
    const char *names[] = { "seq", "omp" };
    struct gl_params p;
    for (int i = 0; i < 2; i++) {
        gl_params_init(&p);
        p.n = 1000;
        p.seed = 42;
        check_ok(names[i], gl_cpu_vecadd(names[i], &p, &quick, &res), 1);
        p.n = 1;
        p.threads = 4;
        check_ok("vecadd N=1", gl_cpu_vecadd(names[i], &p, &quick, &res), 1);
    }
    gl_params_init(&p);
    p.n = -5;
    CHECK(gl_cpu_vecadd("omp", &p, &quick, &res) == 0 && res.status == GL_SKIPPED);
    CHECK(gl_cpu_vecadd("gridstride", &p, &quick, &res) == -1 && res.status == GL_FAILED);
    p.n = 10;
    p.threads = GL_CPU_MAX_THREADS + 1;
    CHECK(gl_cpu_vecadd("omp", &p, &quick, &res) == 0 && res.status == GL_SKIPPED);
    CHECK(strstr(res.reason, "threads") != NULL);
}

/* ---- the harness itself -------------------------------------------------- */

struct fake {
    float *out;
    size_t n;
    int calls;
    int write_until;   /* writes the output only on calls < write_until */
};

static void fake_kernel(const void *x)
{
    struct fake *f = (struct fake *)x;   /* test-only: counts its calls */
    if (f->calls++ < f->write_until)
        for (size_t i = 0; i < f->n; i++)
            f->out[i] = (float)i;
}

static void test_harness(void)
{
    enum { N = 64 };
    static float out[N];
    static double ref[N];
    for (int i = 0; i < N; i++)
        ref[i] = i;

    /* warm-up + exactly max_samples runs, and a right output passes */
    struct fake f = { out, N, 0, 1000 };
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(fake_kernel, &f, out, N, &quick, &res) == 0);
    CHECK(f.calls == 1 + 4 && res.nsamples == 4);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 1 && res.status == GL_OK);
    CHECK(res.max_rel_err == 0.0);

    /* a kernel that stops writing after the warm-up: the poisoned output of the
     * last run is caught even though an earlier run was right */
    struct fake g = { out, N, 0, 1 };
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(fake_kernel, &g, out, N, &quick, &res) == 0);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 0 && res.status == GL_WRONG);
    CHECK(isinf(res.max_rel_err));
    CHECK(strstr(res.reason, "64 of 64 outputs") != NULL);

    /* the time cap stops sampling after the first sample */
    struct gl_timing capped = { 0, 10, 100, -1.0, 0.0, 60.0 };
    struct fake h = { out, N, 0, 1000 };
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(fake_kernel, &h, out, N, &capped, &res) == 0);
    CHECK(res.nsamples == 1 && h.calls == 1);

    /* quiet samples stop at min_samples under a generous noise limit */
    struct gl_timing loose = { 0, 3, 100, 10.0, 30.0, 60.0 };
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_time(fake_kernel, &h, out, N, &loose, &res) == 0);
    CHECK(res.nsamples == 3);

    /* a wrong element in an otherwise right output: GL_WRONG, placed by row */
    for (int i = 0; i < N; i++)
        out[i] = (float)i;
    out[19] = -1.0f;
    gl_cpu_result_init(&res);
    CHECK(gl_cpu_check(&res, out, ref, N, 8, 1) == 0 && res.status == GL_WRONG);
    CHECK(strstr(res.reason, "1 of 64") && strstr(res.reason, "first at (2,3)"));
}

int main(void)
{
    test_matmul();
    test_stencil();
    test_vecadd();
    test_harness();
    gl_ref_cache_clear();
    return t_done("test_cpu");
}

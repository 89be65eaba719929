/* test_cpu.c - the CPU plugin declares every CPU baseline once, completely
 * and as the loader needs it; every CPU baseline variant runs, times and
 * verifies on small sizes; impossible sizes and thread counts are skipped and
 * internal errors fail, always with a reason and with run() returning 0; the
 * shared harness poisons the output before every run, so a kernel that stops
 * writing is caught, and it honours the sampling policy. Variants are found
 * through gpulab_plugin(), never by name. Must stay fast (< 2 s). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "cpu_harness.h"
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
    /* the old registry's CPU rows: 4 matmul, 2 stencil, 2 vecadd */
    CHECK(pl->nvariants == 8);
    CHECK(count("matmul") == 4 && count("stencil") == 2 && count("vecadd") == 2);

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
        if (strcmp(v->family, "matmul") == 0)
            counts &= v->flops == gl_matmul_flops && v->min_bytes == gl_matmul_bytes &&
                      v->check == NULL;
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

static void test_matmul(void)
{
    const struct gl_plugin *pl = gpulab_plugin(NULL);
    struct gl_params p;
    int nsquare = 0, nrect = 0;
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
        p.seed = 7;
        p.m = 1;
        p.p = 1;
        check_ok("rect 1x1x9", run(v, &p), 1);
        gl_params_init(&p);
        p.n = 8;   /* M and P unset */
        check_not_run("rect M, P unset", run(v, &p), GL_SKIPPED);
    }
    CHECK(nsquare == 3 && nrect == 1);
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
    test_plugin();
    test_matmul();
    test_stencil();
    test_vecadd();
    test_harness();
    test_long_and_sampled();
    test_execute();
    gl_ref_cache_clear();
    return t_done("test_cpu");
}

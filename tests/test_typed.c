/* test_typed.c - typed.h, the rules users' buffers follow on both sides, and
 * host_buffers.c, which applies them on the CPU: what each init kind makes for
 * every element type (random floats the families' stream, integers that value
 * times 2^24, ramp and const converted as C converts), poison, and each
 * verdict: floats within the relative tolerance or its absolute floor, NaN
 * never, integers exact (bit for bit against a typed array, past 2^53 too),
 * the written-only check, and the reason and stored check that follow.
 * The GPU side applies the same functions on the device (test_devcheck.cu).
 * Must not depend on timing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_buffers.h"
#include "reference.h"
#include "typed.h"
#include "t.h"

static const int types[] = { GL_KT_FLOAT, GL_KT_DOUBLE, GL_KT_INT, GL_KT_UINT, GL_KT_INT64,
                             GL_KT_UINT64 };

static void test_sizes(void)
{
    CHECK(gl_ty_esize(GL_KT_FLOAT) == 4 && gl_ty_esize(GL_KT_INT) == 4 &&
          gl_ty_esize(GL_KT_UINT) == 4);
    CHECK(gl_ty_esize(GL_KT_DOUBLE) == 8 && gl_ty_esize(GL_KT_INT64) == 8 &&
          gl_ty_esize(GL_KT_UINT64) == 8);
    CHECK(gl_ty_esize(99) == 0);
    CHECK(gl_ty_is_float(GL_KT_FLOAT) && gl_ty_is_float(GL_KT_DOUBLE) &&
          !gl_ty_is_float(GL_KT_INT) && !gl_ty_is_float(GL_KT_UINT64));
}

/* Every init kind of every type: random is the families' float stream (times
 * 2^24 for integers), ramp i, const the value converted; the same seed and
 * stream give the same buffer, another stream another. */
static void test_fill(void)
{
    enum { N = 5000 };
    float *u = malloc(N * sizeof *u);
    void *a = malloc(N * 8), *b = malloc(N * 8);
    if (!CHECK(u && a && b))
        return;
    gl_fill_random(u, N, 42, 3);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        int t = types[k], same = 1, ramp = 1, cnst = 1;
        CHECK(gl_hb_fill(a, t, N, GL_KI_RANDOM, 0.0, 42, 3) == 0);
        for (int i = 0; i < N; i++) {
            double want = gl_ty_is_float(t) ? (double)u[i] : (double)u[i] * 16777216.0;
            if (gl_ty_get(a, t, i) != want)
                same = 0;
        }
        CHECK(same);
        CHECK(gl_hb_fill(b, t, N, GL_KI_RANDOM, 0.0, 42, 4) == 0);
        CHECK(memcmp(a, b, N * gl_ty_esize(t)) != 0);
        CHECK(gl_hb_fill(a, t, N, GL_KI_RAMP, 0.0, 42, 3) == 0);
        for (int i = 0; i < N; i++)
            ramp &= gl_ty_get(a, t, i) == (double)i;
        CHECK(ramp);
        CHECK(gl_hb_fill(a, t, N, GL_KI_CONST, 7.5, 42, 3) == 0);
        for (int i = 0; i < N; i++)
            cnst &= gl_ty_get(a, t, i) == (gl_ty_is_float(t) ? 7.5 : 7.0);
        CHECK(cnst);
        CHECK(gl_hb_fill(a, t, N, GL_KI_POISON, 0.0, 42, 3) == 0);
        CHECK(gl_ty_unwritten(a, t, 0) && gl_ty_unwritten(a, t, N - 1));
        CHECK(gl_hb_fill(a, t, N, GL_KI_ZERO, 0.0, 42, 3) == 0);
        CHECK(gl_ty_get(a, t, 17) == 0.0 && !gl_ty_unwritten(a, t, 17));
    }
    /* element by element, as the device makes them */
    unsigned long long s0 = gl_rng_state(42, 3);
    CHECK(gl_ty_init_value(GL_KT_FLOAT, GL_KI_RANDOM, 0.0, s0, 1234) == (double)u[1234]);
    CHECK(gl_ty_init_value(GL_KT_UINT, GL_KI_RANDOM, 0.0, s0, 99) == (double)u[99] * 16777216.0);
    free(u);
    free(a);
    free(b);
}

static void test_float_rule(void)
{
    double err;
    float got[6] = { 1.0f, 1.00001f, 1.001f, NAN, 0.0f, 1e-7f };
    double want[6] = { 1.0, 1.0, 1.0, 1.0, 1e-7, 0.0 };
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 0, want, 1, 1e-4, &err) && err == 0.0);
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 1, want, 1, 1e-4, &err) && err > 0.0 && err < 1e-4);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 2, want, 1, 1e-4, &err) && fabs(err - 1e-3) < 1e-6);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 3, want, 1, 1e-4, &err) && isinf(err));
    /* near zero: within the absolute floor tol/10 */
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 4, want, 1, 1e-4, &err));
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 5, want, 1, 1e-4, &err) && err > 0.0);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 5, want, 1, 1e-7, &err));
    /* a NaN expected value is never matched, not even by NaN */
    double nanw = NAN;
    float nang = NAN;
    CHECK(gl_ty_bad(&nang, GL_KT_FLOAT, 0, &nanw, 1, 1.0, &err) && isinf(err));
    /* against a typed array of the same type */
    double dg[2] = { 2.0, 3.0 }, dw[2] = { 2.0, 3.1 };
    CHECK(!gl_ty_bad(dg, GL_KT_DOUBLE, 0, dw, 0, 1e-5, &err));
    CHECK(gl_ty_bad(dg, GL_KT_DOUBLE, 1, dw, 0, 1e-5, &err) && err > 0.03 && err < 0.033);
}

static void test_int_rule(void)
{
    double err;
    int32_t g[3] = { 5, 6, -7 };
    int32_t w[3] = { 5, 7, -7 };
    double wd[3] = { 5.0, 6.5, NAN };
    CHECK(!gl_ty_bad(g, GL_KT_INT, 0, w, 0, 1e-5, &err) && err == 0.0);
    CHECK(gl_ty_bad(g, GL_KT_INT, 1, w, 0, 0.5, &err) && fabs(err - 1.0 / 7.0) < 1e-12);
    CHECK(!gl_ty_bad(g, GL_KT_INT, 2, w, 0, 1e-5, &err));
    CHECK(!gl_ty_bad(g, GL_KT_INT, 0, wd, 1, 1e-5, &err));
    CHECK(gl_ty_bad(g, GL_KT_INT, 1, wd, 1, 1.0, &err));   /* no tolerance for integers */
    CHECK(gl_ty_bad(g, GL_KT_INT, 2, wd, 1, 1e-5, &err) && isinf(err));
    /* 64-bit values one apart above 2^53: the same double, different bits */
    uint64_t a = (1ull << 60) + 1, b = (1ull << 60);
    CHECK((double)a == (double)b);
    CHECK(gl_ty_bad(&a, GL_KT_UINT64, 0, &b, 0, 1e-5, &err) && isinf(err));
    CHECK(!gl_ty_bad(&a, GL_KT_UINT64, 0, &a, 0, 1e-5, &err));
    /* poison: every bit set */
    uint32_t p32 = UINT32_MAX, z32 = 0;
    int64_t p64 = -1;
    CHECK(gl_ty_unwritten(&p32, GL_KT_UINT, 0) && !gl_ty_unwritten(&z32, GL_KT_UINT, 0));
    CHECK(gl_ty_unwritten(&p64, GL_KT_INT64, 0));
}

/* gl_hb_check through gl_hb_verdict: the run's status, reason, check method,
 * points and maximum error. */
static void test_check(void)
{
    enum { N = 1000 };
    float got[N];
    double want[N];
    struct gl_host_buffer b = { "out", GL_KT_FLOAT, N, GL_KI_POISON, 0.0, 1 };
    struct gl_result r;
    for (int i = 0; i < N; i++) {
        want[i] = i * 0.5;
        got[i] = (float)(i * 0.5);
    }
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_check(&r, &b, got, want, 1e-5);
    CHECK(r.status == GL_OK && strcmp(r.check, GL_CHECK_FULL) == 0 && r.check_points == N);
    got[700] = 1.0f;
    got[900] = 2.0f;
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_check(&r, &b, got, want, 1e-5);
    CHECK(r.status == GL_WRONG);
    CHECK(strstr(r.reason, "output 'out': 2 of 1000 elements differ from the reference "
                           "(tolerance 1.0e-05); first at 700: got 1 want 350") != NULL);
    CHECK(fabs(r.max_rel_err - (350.0 - 1.0) / 350.0) < 1e-12);
    /* no reference: only written */
    memset(got, 0xff, sizeof got);
    for (int i = 0; i < N - 1; i++)
        got[i] = 0.0f;
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_check(&r, &b, got, NULL, 1e-5);
    CHECK(r.status == GL_WRONG && strcmp(r.check, GL_CHECK_WRITTEN) == 0 &&
          strstr(r.reason, "1 of 1000 elements not written (first at 999)") != NULL);
    /* an output with an init and no reference is not checked */
    b.init = GL_KI_ZERO;
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_check(&r, &b, got, NULL, 1e-5);
    CHECK(r.status == GL_OK && r.check[0] == '\0');
    /* the verdict as the device reports it, naming a reference kernel */
    struct gl_hb_found f = { 3, 12, 4.0, 5.0, 0.25 };
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_verdict(&r, "c", GL_KT_INT, 64, "'naive'", 1e-5, &f);
    CHECK(r.status == GL_WRONG && r.check_points == 64 && r.max_rel_err == 0.25);
    CHECK(strcmp(r.reason, "output 'c': 3 of 64 elements differ from 'naive'; first at 12: "
                           "got 4 want 5") == 0);
    /* the first wrong output's reason stays */
    gl_hb_verdict(&r, "d", GL_KT_INT, 64, "'naive'", 1e-5, &f);
    CHECK(strstr(r.reason, "output 'c'") != NULL && r.check_points == 128);
}

int main(void)
{
    test_sizes();
    test_fill();
    test_float_rule();
    test_int_rule();
    test_check();
    return t_done("test_typed");
}

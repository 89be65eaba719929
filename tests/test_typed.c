/* test_typed.c - typed.h, the rules users' buffers follow on both sides, and
 * host_buffers.c, which applies them on the CPU: what each init kind makes for
 * every element type (random floats the families' stream, integers that value
 * times 2^24, ramp and const converted as C converts), poison, and each
 * verdict: floats within the relative tolerance or its absolute floor, NaN
 * never, integers exact (bit for bit against a typed array, past 2^53 too),
 * the written-only check, and the reason and stored check that follow.
 * half and bfloat16: ktype.h's conversions bit for bit against independent
 * ones (the compiler's _Float16 where it has one; bfloat16 as a float's top
 * bits rounded by the classic integer trick; for doubles, the nearest value
 * with ties to even found by search), every pattern read back, the inits
 * (ramp past the exact integers, 65520 to infinity in half), the poison, the
 * default tolerances and verdicts against doubles, the type itself and float.
 * The GPU side applies the same functions on the device (test_devcheck.cu).
 * Must not depend on timing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_buffers.h"
#include "kinit.h"
#include "reference.h"
#include "typed.h"
#include "t.h"

static const int types[] = { GL_KT_FLOAT, GL_KT_DOUBLE, GL_KT_INT, GL_KT_UINT, GL_KT_INT64,
                             GL_KT_UINT64, GL_KT_HALF, GL_KT_BF16 };

/* v as element type t holds it (16-bit floats round). */
static double as_type(int t, double v)
{
    unsigned char buf[8];
    gl_ty_set(buf, t, 0, v);
    return gl_ty_get(buf, t, 0);
}

static void test_sizes(void)
{
    CHECK(gl_ty_esize(GL_KT_FLOAT) == 4 && gl_ty_esize(GL_KT_INT) == 4 &&
          gl_ty_esize(GL_KT_UINT) == 4);
    CHECK(gl_ty_esize(GL_KT_DOUBLE) == 8 && gl_ty_esize(GL_KT_INT64) == 8 &&
          gl_ty_esize(GL_KT_UINT64) == 8);
    CHECK(gl_ty_esize(GL_KT_HALF) == 2 && gl_ty_esize(GL_KT_BF16) == 2);
    CHECK(gl_ty_esize(99) == 0);
    CHECK(gl_ty_is_float(GL_KT_FLOAT) && gl_ty_is_float(GL_KT_DOUBLE) &&
          gl_ty_is_float(GL_KT_HALF) && gl_ty_is_float(GL_KT_BF16) &&
          !gl_ty_is_float(GL_KT_INT) && !gl_ty_is_float(GL_KT_UINT64));
    /* ktype.h's names and sizes: one per type of the enum */
    CHECK(strcmp(gl_ktype_name(GL_KT_HALF), "half") == 0 &&
          strcmp(gl_ktype_name(GL_KT_BF16), "bfloat16") == 0 &&
          strcmp(gl_ktype_name(GL_KT_UINT64), "uint64") == 0 && strcmp(gl_ktype_name(GL_KT_COUNT), "?") == 0 &&
          strcmp(gl_ktype_name(GL_KT_FP8E5M2), "fp8e5m2") == 0 && gl_ktype_size(GL_KT_INT8) == 1);
    int sized = 1;
    for (int t = 0; t < GL_KT_COUNT; t++)
        sized &= gl_ktype_size(t) > 0 && gl_ty_esize(t) == gl_ktype_size(t);
    CHECK(sized && gl_ktype_size(GL_KT_COUNT) == 0);
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
            double want = gl_ty_is_float(t) ? as_type(t, u[i]) : (double)u[i] * 16777216.0;
            if (gl_ty_get(a, t, i) != want)
                same = 0;
        }
        CHECK(same);
        CHECK(gl_hb_fill(b, t, N, GL_KI_RANDOM, 0.0, 42, 4) == 0);
        CHECK(memcmp(a, b, N * gl_ty_esize(t)) != 0);
        CHECK(gl_hb_fill(a, t, N, GL_KI_RAMP, 0.0, 42, 3) == 0);
        for (int i = 0; i < N; i++)   /* exact but in 16-bit floats past 2048 / 256 */
            ramp &= gl_ty_get(a, t, i) == as_type(t, (double)i) &&
                    (gl_ty_get(a, t, i) == (double)i || (t == GL_KT_HALF && i > 2048) ||
                     (t == GL_KT_BF16 && i > 256));
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
    /* 16-bit random inputs: the float stream rounded to the type */
    CHECK(gl_hb_fill(a, GL_KT_HALF, N, GL_KI_RANDOM, 0.0, 42, 3) == 0);
    CHECK(((uint16_t *)a)[1234] == gl_to_half(u[1234]));
    CHECK(gl_hb_fill(a, GL_KT_BF16, N, GL_KI_RANDOM, 0.0, 42, 3) == 0);
    CHECK(((uint16_t *)a)[77] == gl_to_bf16(u[77]));
    free(u);
    free(a);
    free(b);
}

/* The inits with two numbers: random(lo, hi) in [lo, hi) and random(0, 1) the
 * plain stream; randint(lo, hi) integers in [lo, hi) reaching both ends, the
 * same for every integer type; normal(mu, sigma) with about that mean and
 * deviation; each the same for the same seed and stream, another for another
 * stream; typed.h's logarithm close to libm's. */
static void test_fill2(void)
{
    enum { N = 200000 };
    float *u = malloc(N * sizeof *u);
    double *a = malloc(N * 8), *b = malloc(N * 8);
    int32_t *ia = malloc(N * 4);
    int64_t *la = malloc(N * 8);
    if (!CHECK(u && a && b && ia && la))
        return;
    gl_fill_random(u, N, 42, 3);
    int in = 1;
    CHECK(gl_hb_fill2(a, GL_KT_DOUBLE, N, GL_KI_RANDOM, -2.0, 6.0, 42, 3) == 0);
    for (int i = 0; i < N; i++)
        in &= a[i] >= -2.0 && a[i] < 6.0 && a[i] == -2.0 + 8.0 * (double)u[i];
    CHECK(in);
    CHECK(gl_hb_fill2(a, GL_KT_FLOAT, N, GL_KI_RANDOM, 0.0, 1.0, 42, 3) == 0);
    CHECK(memcmp(a, u, N * sizeof(float)) == 0);
    /* randint: the bounds, both ends reached, every type alike */
    int lo_seen = 0, hi_seen = 0, same64 = 1;
    in = 1;
    CHECK(gl_hb_fill2(ia, GL_KT_INT, N, GL_KI_RANDINT, -3.0, 5.0, 42, 1) == 0);
    CHECK(gl_hb_fill2(la, GL_KT_INT64, N, GL_KI_RANDINT, -3.0, 5.0, 42, 1) == 0);
    for (int i = 0; i < N; i++) {
        in &= ia[i] >= -3 && ia[i] < 5;
        lo_seen |= ia[i] == -3;
        hi_seen |= ia[i] == 4;
        same64 &= la[i] == ia[i];
    }
    CHECK(in && lo_seen && hi_seen && same64);
    CHECK(gl_hb_fill2(ia, GL_KT_INT, N, GL_KI_RANDINT, 0.0, 32000.0, 42, 1) == 0);
    long hist[4] = { 0 };
    in = 1;
    for (int i = 0; i < N; i++) {
        in &= ia[i] >= 0 && ia[i] < 32000;
        hist[ia[i] / 8000 & 3]++;
    }
    CHECK(in);
    for (int q = 0; q < 4; q++)   /* each quarter about N / 4 (50000 +- 5 sigma = 1000) */
        CHECK(labs(hist[q] - N / 4) < 1000);
    /* normal: mean and deviation (5 standard errors), and a few beyond 3 sigma */
    CHECK(gl_hb_fill2(a, GL_KT_DOUBLE, N, GL_KI_NORMAL, 3.0, 2.0, 42, 7) == 0);
    double sum = 0.0, sq = 0.0;
    long far = 0;
    for (int i = 0; i < N; i++) {
        sum += a[i];
        sq += (a[i] - 3.0) * (a[i] - 3.0);
        far += fabs(a[i] - 3.0) > 6.0;
    }
    double mean = sum / N, sd = sqrt(sq / N);
    CHECK(fabs(mean - 3.0) < 5 * 2.0 / sqrt(N));
    CHECK(fabs(sd - 2.0) < 0.02);
    CHECK(far > 2700L * N / 1000000 / 2 && far < 2700L * N / 1000000 * 2);   /* 0.27 % beyond 3 sigma */
    /* the same seed and stream: the same numbers; another stream: others */
    CHECK(gl_hb_fill2(b, GL_KT_DOUBLE, N, GL_KI_NORMAL, 3.0, 2.0, 42, 7) == 0);
    CHECK(memcmp(a, b, N * 8) == 0);
    CHECK(gl_hb_fill2(b, GL_KT_DOUBLE, N, GL_KI_NORMAL, 3.0, 2.0, 42, 8) == 0);
    CHECK(memcmp(a, b, N * 8) != 0);
    CHECK(gl_hb_fill2(b, GL_KT_DOUBLE, N, GL_KI_FILE, 0.0, 0.0, 42, 8) == -1);
    /* the logarithm the normal init uses */
    double worst = 0.0;
    for (double x = 1e-300; x < 1e300; x *= 1.37)
        worst = fmax(worst, fabs(gl_ty_log(x) - log(x)) / fmax(1.0, fabs(log(x))));
    for (double x = 0.5; x < 2.0; x += 1.0 / 1024)
        worst = fmax(worst, fabs(gl_ty_log(x) - log(x)));
    CHECK(worst < 1e-15);
    free(u);
    free(a);
    free(b);
    free(ia);
    free(la);
}

/* ---- half and bfloat16 ------------------------------------------------------------ */

static double f32_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Every pattern read back: half against the compiler's _Float16 where it has
 * one (and by its definition: (-1)^s 2^(e-15) 1.f, subnormals 2^-14 0.f),
 * bfloat16 as the float with those top bits. */
static void test_16bit_read(void)
{
    int half_ok = 1, bf_ok = 1;
    for (uint32_t u = 0; u < 65536; u++) {
        double h = gl_from_half((uint16_t)u), b = gl_from_bf16((uint16_t)u);
        int e = (u >> 10) & 31, f = u & 1023;
        double def = e == 31 ? (f ? NAN : INFINITY)
                             : e == 0 ? ldexp(f, -24) : ldexp(1024 + f, e - 25);
        if (u & 0x8000)
            def = -def;
        half_ok &= (isnan(h) && isnan(def)) || h == def;
#ifdef __FLT16_MAX__
        _Float16 x;
        uint16_t v = (uint16_t)u;
        memcpy(&x, &v, 2);
        half_ok &= (isnan(h) && isnan((double)x)) || h == (double)x;
#endif
        double fb = f32_of_bits(u << 16);
        bf_ok &= (isnan(b) && isnan(fb)) || b == fb;
    }
    CHECK(half_ok);
    CHECK(bf_ok);
    CHECK(gl_from_half(0x3c00) == 1.0 && gl_from_half(0x7bff) == 65504.0 &&
          gl_from_half(0x0001) == ldexp(1, -24) && isinf(gl_from_half(0xfc00)) &&
          gl_from_half(0xfc00) < 0 && isnan(gl_from_half(0xffff)));
    CHECK(gl_from_bf16(0x3f80) == 1.0 && isnan(gl_from_bf16(0xffff)));
}

/* The nearest 16-bit value to v, ties to the even pattern, found by search
 * over the neighbours of typed.h's answer r: 1 when r is it. */
static int nearest_even(double v, uint16_t r, double (*from)(uint16_t), double maxfin, uint16_t inf)
{
    if (isnan(v))
        return isnan(from(r));
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    double halfway_up = maxfin + (maxfin - from((uint16_t)((inf - 1) - 1))) / 2;   /* to infinity */
    if (a >= halfway_up)
        return r == (sign | inf);
    if ((r & 0x7fff) >= inf)
        return 0;
    double got = fabs(from(r));
    if ((r & 0x8000) != sign && got != 0.0)
        return 0;
    uint16_t m = r & 0x7fff;
    double dn = m > 0 ? from((uint16_t)(m - 1)) : -1.0, up = m + 1 < inf ? from((uint16_t)(m + 1)) : INFINITY;
    double d = fabs(a - got);
    if (dn >= 0 && fabs(a - dn) < d)
        return 0;
    if (fabs(a - up) < d)
        return 0;
    if (dn >= 0 && fabs(a - dn) == d && (m & 1))
        return 0;   /* a tie: the even one */
    if (fabs(a - up) == d && (m & 1))
        return 0;
    return 1;
}

/* Rounding: from floats (every 127th pattern) against the compiler's _Float16
 * and the classic bfloat16 trick; from doubles (ties between every pair of
 * neighbours, just beside them, random bit patterns) against the search. */
static void test_16bit_round(void)
{
    int half_f = 1, bf_f = 1, half_d = 1, bf_d = 1;
    for (uint64_t b = 0; b < 0x100000000ull; b += 127) {
        double f = f32_of_bits((uint32_t)b);
        uint16_t h = gl_to_half(f), bf = gl_to_bf16(f);
#ifdef __FLT16_MAX__
        _Float16 x = (_Float16)(float)f;
        uint16_t xv;
        memcpy(&xv, &x, 2);
        half_f &= isnan(f) ? isnan(gl_from_half(h)) : h == xv;
#else
        half_f &= nearest_even(f, h, gl_from_half, 65504.0, 0x7c00);
#endif
        uint32_t u = (uint32_t)b;
        uint16_t want = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
        bf_f &= isnan(f) ? isnan(gl_from_bf16(bf)) : bf == want;
    }
    CHECK(half_f);
    CHECK(bf_f);
    unsigned long long s0 = gl_rng_state(5, 5);
    for (uint32_t u = 0; u < 65535; u++) {
        double v[4];
        int n = 0;
        double a = gl_from_half((uint16_t)u), b = gl_from_half((uint16_t)(u + 1));
        if (isfinite(a) && isfinite(b) && (u & 0x7fff) != 0x7fff) {
            v[n++] = (a + b) / 2;
            v[n++] = nextafter((a + b) / 2, INFINITY);
        }
        uint64_t bits = ((uint64_t)(gl_rng_float(s0, u) * 16777216.0f) << 40) ^
                        ((uint64_t)(gl_rng_float(s0, u + 70000) * 16777216.0f) << 16) ^ u;
        memcpy(&v[n++], &bits, sizeof v[0]);
        for (int k = 0; k < n; k++) {
            uint16_t h = gl_to_half(v[k]);
            if (!nearest_even(v[k], h, gl_from_half, 65504.0, 0x7c00)) {
                if (half_d)
                    printf("  half of %a: %04x\n", v[k], h);
                half_d = 0;
            }
#ifdef __FLT16_MAX__
            _Float16 x = (_Float16)v[k];
            uint16_t xv;
            memcpy(&xv, &x, 2);
            half_d &= isnan(v[k]) || h == xv;
#endif
        }
        n = 0;
        a = gl_from_bf16((uint16_t)u);
        b = gl_from_bf16((uint16_t)(u + 1));
        if (isfinite(a) && isfinite(b) && (u & 0x7fff) != 0x7fff) {
            v[n++] = (a + b) / 2;
            v[n++] = nextafter((a + b) / 2, -INFINITY);
        }
        memcpy(&v[n++], &bits, sizeof v[0]);
        for (int k = 0; k < n; k++) {
            uint16_t h = gl_to_bf16(v[k]);
            if (!nearest_even(v[k], h, gl_from_bf16, gl_from_bf16(0x7f7f), 0x7f80)) {
                if (bf_d)
                    printf("  bfloat16 of %a: %04x\n", v[k], h);
                bf_d = 0;
            }
        }
    }
    CHECK(half_d);
    CHECK(bf_d);
    /* by hand: ties to even, overflow, the smallest subnormal, NaN, signed zero */
    CHECK(gl_to_half(1.0) == 0x3c00 && gl_to_half(1.0 + ldexp(1, -11)) == 0x3c00 &&
          gl_to_half(1.0 + 3 * ldexp(1, -11)) == 0x3c02);
    CHECK(gl_to_half(65504.0) == 0x7bff && gl_to_half(65519.99) == 0x7bff &&
          gl_to_half(65520.0) == 0x7c00 && gl_to_half(-1e10) == 0xfc00);
    CHECK(gl_to_half(ldexp(1, -24)) == 0x0001 && gl_to_half(ldexp(1, -25)) == 0x0000 &&
          gl_to_half(ldexp(1.5, -25)) == 0x0001);
    CHECK(isnan(gl_from_half(gl_to_half(NAN))) && gl_to_half(-0.0) == 0x8000);
    CHECK(gl_to_bf16(1.0) == 0x3f80 && gl_to_bf16(1.0 + ldexp(1, -8)) == 0x3f80 &&
          gl_to_bf16(1.0 + 3 * ldexp(1, -8)) == 0x3f82 && gl_to_bf16(1e39) == 0x7f80);
    /* from a double, not through a float: 1 + 2^-11 + 2^-40 is above the tie in
     * half, but as a float it would be the tie itself (and round down) */
    CHECK(gl_to_half(1.0 + ldexp(1, -11) + ldexp(1, -40)) == 0x3c01);
}

/* The inits in 16-bit floats: const rounded, ramp exact up to 2048 (half) and
 * 256 (bfloat16), rounded past them, half's infinite from 65520; the poison is
 * every bit set, a NaN in both. */
static void test_16bit_inits(void)
{
    enum { N = 70000 };
    uint16_t *a = malloc(N * sizeof *a);
    if (!CHECK(a))
        return;
    CHECK(gl_hb_fill(a, GL_KT_HALF, N, GL_KI_RAMP, 0.0, 42, 0) == 0);
    CHECK(gl_ty_get(a, GL_KT_HALF, 2048) == 2048.0 && gl_ty_get(a, GL_KT_HALF, 2049) == 2048.0 &&
          gl_ty_get(a, GL_KT_HALF, 2051) == 2052.0 && gl_ty_get(a, GL_KT_HALF, 65519) == 65504.0 &&
          isinf(gl_ty_get(a, GL_KT_HALF, 65520)));
    CHECK(gl_hb_fill(a, GL_KT_BF16, N, GL_KI_RAMP, 0.0, 42, 0) == 0);
    CHECK(gl_ty_get(a, GL_KT_BF16, 256) == 256.0 && gl_ty_get(a, GL_KT_BF16, 257) == 256.0 &&
          gl_ty_get(a, GL_KT_BF16, 259) == 260.0 && gl_ty_get(a, GL_KT_BF16, 69999) == 70144.0);
    CHECK(gl_hb_fill(a, GL_KT_HALF, N, GL_KI_CONST, 0.1, 42, 0) == 0);
    CHECK(a[0] == 0x2e66 && a[N - 1] == 0x2e66);
    CHECK(gl_hb_fill(a, GL_KT_BF16, N, GL_KI_CONST, 0.1, 42, 0) == 0);
    CHECK(a[5] == 0x3dcd);
    CHECK(gl_hb_fill(a, GL_KT_BF16, N, GL_KI_POISON, 0.0, 42, 0) == 0);
    CHECK(a[3] == 0xffff && gl_ty_unwritten(a, GL_KT_BF16, 3) && gl_ty_unwritten(a, GL_KT_HALF, 3));
    a[3] = 0x7e00;   /* any NaN counts as unwritten, as for float */
    CHECK(gl_ty_unwritten(a, GL_KT_HALF, 3) && !gl_ty_unwritten(a, GL_KT_BF16, 3));
    a[3] = 0;
    CHECK(!gl_ty_unwritten(a, GL_KT_HALF, 3));
    free(a);
}

/* Verdicts on 16-bit outputs and their default tolerances. */
static void test_16bit_rule(void)
{
    double err;
    CHECK(gl_ty_default_tol(GL_KT_HALF) == ldexp(1, -9) &&
          gl_ty_default_tol(GL_KT_BF16) == ldexp(1, -6) &&
          gl_ty_default_tol(GL_KT_FLOAT) == 1e-5 && gl_ty_default_tol(GL_KT_DOUBLE) == 1e-5);
    double tol = gl_ty_default_tol(GL_KT_HALF);
    uint16_t g[4];
    double want[4] = { 1.0 / 3, 1000.1, 2.0, 0.0 };
    for (int i = 0; i < 4; i++)
        gl_ty_set(g, GL_KT_HALF, i, want[i]);   /* correctly rounded: within a unit */
    for (int i = 0; i < 4; i++)
        CHECK(!gl_ty_bad(g, GL_KT_HALF, i, want, GL_KT_DOUBLE, tol, &err) &&
              err <= ldexp(1, -11));
    gl_ty_set(g, GL_KT_HALF, 2, 2.0 * (1 + 4 * tol));
    CHECK(gl_ty_bad(g, GL_KT_HALF, 2, want, GL_KT_DOUBLE, tol, &err) && err > tol);
    /* against a half reference (the same type: compared as values), and a float one */
    uint16_t w16[4];
    float wf[4];
    for (int i = 0; i < 4; i++) {
        gl_ty_set(w16, GL_KT_HALF, i, want[i] * (1 + ldexp(1, -10)));   /* two units off */
        wf[i] = (float)want[i];
    }
    CHECK(!gl_ty_bad(g, GL_KT_HALF, 0, w16, GL_KT_HALF, tol, &err) && err > 0.0);
    CHECK(gl_ty_bad(g, GL_KT_HALF, 2, w16, GL_KT_HALF, tol, &err));
    CHECK(!gl_ty_bad(g, GL_KT_HALF, 1, wf, GL_KT_FLOAT, tol, &err));
    CHECK(gl_ty_bad(g, GL_KT_HALF, 2, wf, GL_KT_FLOAT, tol, &err));
    g[1] = 0x7e00;
    CHECK(gl_ty_bad(g, GL_KT_HALF, 1, want, GL_KT_DOUBLE, 1.0, &err) && isinf(err));
    /* bfloat16 within its default, not within half's */
    uint16_t b[1];
    double wb[1] = { 3.0 };
    gl_ty_set(b, GL_KT_BF16, 0, 3.0 * (1 + 0.008));
    CHECK(!gl_ty_bad(b, GL_KT_BF16, 0, wb, GL_KT_DOUBLE, gl_ty_default_tol(GL_KT_BF16), &err));
    CHECK(gl_ty_bad(b, GL_KT_BF16, 0, wb, GL_KT_DOUBLE, tol, &err));
    /* gl_hb_check: tolerance 0 is the type's default, named in the reason */
    struct gl_host_buffer hb = { "h", GL_KT_HALF, 4, GL_KI_POISON, 0.0, 1 };
    struct gl_result r;
    memset(&r, 0, sizeof r);
    r.status = GL_OK;
    gl_hb_check(&r, &hb, g, want, 0.0);
    CHECK(r.status == GL_WRONG && strstr(r.reason, "output 'h': 2 of 4 elements differ from the "
                                                   "reference (tolerance 2.0e-03); first at 1") != NULL);
}

static void test_float_rule(void)
{
    double err;
    float got[6] = { 1.0f, 1.00001f, 1.001f, NAN, 0.0f, 1e-7f };
    double want[6] = { 1.0, 1.0, 1.0, 1.0, 1e-7, 0.0 };
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 0, want, GL_KT_DOUBLE, 1e-4, &err) && err == 0.0);
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 1, want, GL_KT_DOUBLE, 1e-4, &err) && err > 0.0 && err < 1e-4);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 2, want, GL_KT_DOUBLE, 1e-4, &err) && fabs(err - 1e-3) < 1e-6);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 3, want, GL_KT_DOUBLE, 1e-4, &err) && isinf(err));
    /* near zero: within the absolute floor tol/10 */
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 4, want, GL_KT_DOUBLE, 1e-4, &err));
    CHECK(!gl_ty_bad(got, GL_KT_FLOAT, 5, want, GL_KT_DOUBLE, 1e-4, &err) && err > 0.0);
    CHECK(gl_ty_bad(got, GL_KT_FLOAT, 5, want, GL_KT_DOUBLE, 1e-7, &err));
    /* a NaN expected value is never matched, not even by NaN */
    double nanw = NAN;
    float nang = NAN;
    CHECK(gl_ty_bad(&nang, GL_KT_FLOAT, 0, &nanw, GL_KT_DOUBLE, 1.0, &err) && isinf(err));
    /* against a typed array of the same type */
    double dg[2] = { 2.0, 3.0 }, dw[2] = { 2.0, 3.1 };
    CHECK(!gl_ty_bad(dg, GL_KT_DOUBLE, 0, dw, GL_KT_DOUBLE, 1e-5, &err));
    CHECK(gl_ty_bad(dg, GL_KT_DOUBLE, 1, dw, GL_KT_DOUBLE, 1e-5, &err) && err > 0.03 && err < 0.033);
}

static void test_int_rule(void)
{
    double err;
    int32_t g[3] = { 5, 6, -7 };
    int32_t w[3] = { 5, 7, -7 };
    double wd[3] = { 5.0, 6.5, NAN };
    CHECK(!gl_ty_bad(g, GL_KT_INT, 0, w, GL_KT_INT, 1e-5, &err) && err == 0.0);
    CHECK(gl_ty_bad(g, GL_KT_INT, 1, w, GL_KT_INT, 0.5, &err) && fabs(err - 1.0 / 7.0) < 1e-12);
    CHECK(!gl_ty_bad(g, GL_KT_INT, 2, w, GL_KT_INT, 1e-5, &err));
    CHECK(!gl_ty_bad(g, GL_KT_INT, 0, wd, GL_KT_DOUBLE, 1e-5, &err));
    CHECK(gl_ty_bad(g, GL_KT_INT, 1, wd, GL_KT_DOUBLE, 1.0, &err));   /* no tolerance for integers */
    CHECK(gl_ty_bad(g, GL_KT_INT, 2, wd, GL_KT_DOUBLE, 1e-5, &err) && isinf(err));
    /* 64-bit values one apart above 2^53: the same double, different bits */
    uint64_t a = (1ull << 60) + 1, b = (1ull << 60);
    CHECK((double)a == (double)b);
    CHECK(gl_ty_bad(&a, GL_KT_UINT64, 0, &b, GL_KT_UINT64, 1e-5, &err) && isinf(err));
    CHECK(!gl_ty_bad(&a, GL_KT_UINT64, 0, &a, GL_KT_UINT64, 1e-5, &err));
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

/* A random buffer described without a range (value2 not above value: a plugin's,
 * or a struct filled by hand as tests/gpu/test_kernels.c does) is [0, 1), not
 * the empty range [0, 0) that would make every element 0. */
static void test_random_range_default(void)
{
    struct gl_kbuffer b;
    struct gl_params p;
    char err[256];
    double lo = -1, hi = -1;
    memset(&b, 0, sizeof b);
    gl_params_init(&p);
    b.type = GL_KT_FLOAT;
    b.init = GL_KI_RANDOM;
    CHECK(gl_kbuffer_values(&b, &p, &lo, &hi, err, sizeof err) == 0 && lo == 0.0 && hi == 1.0);
    b.value = 2.0;
    b.value2 = 5.0;   /* random(2, 5) keeps its range */
    CHECK(gl_kbuffer_values(&b, &p, &lo, &hi, err, sizeof err) == 0 && lo == 2.0 && hi == 5.0);
    b.init = GL_KI_CONST;
    b.value = 3.0;
    b.value2 = 0.0;   /* const(3): its value as it is */
    CHECK(gl_kbuffer_values(&b, &p, &lo, &hi, err, sizeof err) == 0 && lo == 3.0);
}

/* The 8-bit types: fp8 conversions (CUDA's satfinite rounding), 8-bit integer
 * fills over the type's range, wrap, poison, and the multiset comparison. */
static void test_8bit(void)
{
    CHECK(gl_to_fp8(1.0, 4, 3) == 0x38 && gl_to_fp8(448.0, 4, 3) == 0x7e &&
          gl_to_fp8(500.0, 4, 3) == 0x7e && gl_to_fp8(-1e9, 4, 3) == 0xfe &&
          gl_to_fp8(NAN, 4, 3) == 0x7f && gl_to_fp8(0.001953125, 4, 3) == 0x01 &&
          gl_to_fp8(0.0009765625, 4, 3) == 0x00 /* half the smallest: ties to even */);
    CHECK(gl_to_fp8(1.0, 5, 2) == 0x3c && gl_to_fp8(57344.0, 5, 2) == 0x7b &&
          gl_to_fp8(INFINITY, 5, 2) == 0x7b && gl_to_fp8(1.125, 5, 2) == 0x3c &&
          gl_to_fp8(1.375, 5, 2) == 0x3e /* halfway between 1.25 and 1.5: to even */);
    CHECK(gl_from_fp8(0x7e, 4, 3) == 448.0 && isnan(gl_from_fp8(0xff, 4, 3)) &&
          gl_from_fp8(0x78, 4, 3) == 256.0 && isinf(gl_from_fp8(0x7c, 5, 2)) &&
          gl_from_fp8(0x01, 5, 2) == 1.0 / 65536.0);
    for (int b = 0; b < 256; b++) {   /* every finite value reads back exactly */
        double v = gl_from_fp8((uint8_t)b, 4, 3);
        if (!isnan(v) && gl_to_fp8(v, 4, 3) != (b == 0x80 ? 0x80 : b))
            CHECK(!"e4m3 round trip");
        v = gl_from_fp8((uint8_t)b, 5, 2);
        if (!isnan(v) && !isinf(v) && gl_to_fp8(v, 5, 2) != b)
            CHECK(!"e5m2 round trip");
    }
    int8_t q[512];
    uint8_t u[512];
    int lo = 0, hi = 0;
    for (size_t i = 0; i < 512; i++) {
        gl_ty_set(q, GL_KT_INT8, i, gl_ty_init_value(GL_KT_INT8, GL_KI_RANDOM, 0, 7, i));
        gl_ty_set(u, GL_KT_UINT8, i, gl_ty_init_value(GL_KT_UINT8, GL_KI_RANDOM, 0, 7, i));
        lo |= q[i] < -100;
        hi |= u[i] > 200;
    }
    CHECK(lo && hi);   /* the whole range, not 0..2^24 wrapped */
    gl_ty_set(q, GL_KT_INT8, 0, 300.0);   /* wraps modulo 256 */
    CHECK(q[0] == 44 && gl_ty_get(q, GL_KT_INT8, 0) == 44.0);
    q[1] = -1;
    CHECK(gl_ty_unwritten(q, GL_KT_INT8, 1) && !gl_ty_unwritten(q, GL_KT_INT8, 0));
    CHECK(gl_ty_default_tol(GL_KT_FP8E4M3) == 0.25 && gl_ty_is_float(GL_KT_FP8E5M2) &&
          !gl_ty_is_float(GL_KT_UINT8));
    /* output unordered: the same multiset in another order passes, another fails */
    int got[5] = { 3, 1, 2, 2, 9 };
    double want[5] = { 9, 2, 1, 3, 2 }, want2[5] = { 9, 2, 1, 3, 3 };
    struct gl_hb_found f;
    CHECK(gl_hb_unordered(got, GL_KT_INT, want, GL_KT_DOUBLE, 5, 0.0, &f) == 0 && f.nbad == 0);
    CHECK(gl_hb_unordered(got, GL_KT_INT, want2, GL_KT_DOUBLE, 5, 0.0, &f) == 0 && f.nbad == 1 &&
          f.got == 2 && f.want == 3);
    float fg[3] = { 1.0f, 2.0f, 3.0f }, fw[3] = { 3.0f, 1.0f, 2.00001f };
    CHECK(gl_hb_unordered(fg, GL_KT_FLOAT, fw, GL_KT_FLOAT, 3, 1e-4, &f) == 0 && f.nbad == 0);
}

int main(void)
{
    test_sizes();
    test_8bit();
    test_random_range_default();
    test_fill();
    test_fill2();
    test_16bit_read();
    test_16bit_round();
    test_16bit_inits();
    test_16bit_rule();
    test_float_rule();
    test_int_rule();
    test_check();
    return t_done("test_typed");
}

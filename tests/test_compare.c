/* test_compare.c - the statistics of `gpulab compare` (src/core/compare.c): the
 * random stream against MRG32k3a's published first number, medians and
 * quantiles, the bootstrap of a ratio of medians (exact cases, and its
 * coverage over simulated A/A pairs), verdicts, the noise floor and the
 * geometric mean. Deterministic: every stream is seeded. */
#include <math.h>
#include <stdlib.h>

#include "compare.h"
#include "t.h"

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_rng(void)
{
    /* L'Ecuyer's seed (all 12345): the first number is 545508589 / (m1 + 1) = 0.127011122 */
    struct gl_rng r = { { 12345, 12345, 12345 }, { 12345, 12345, 12345 } };
    CHECK(near(gl_rng_uniform(&r), 545508589 * 2.328306549295727688e-10, 1e-15));
    /* the same (seed, key) gives the same stream; another key another */
    struct gl_rng a, b, c;
    gl_rng_seed(&a, 1, "n=1024");
    gl_rng_seed(&b, 1, "n=1024");
    gl_rng_seed(&c, 1, "n=2048");
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
        double x = gl_rng_uniform(&a), y = gl_rng_uniform(&b), z = gl_rng_uniform(&c);
        same &= x == y;
        differ += x != z;
        CHECK(x > 0.0 && x < 1.0);
    }
    CHECK(same);
    CHECK(differ > 90);
    CHECK(gl_rng_key_hash("") == 0);
    CHECK(gl_rng_key_hash("ab") == (97ULL * 31 + 98));
    /* the mean of many draws is near 1/2 */
    double s = 0;
    for (int i = 0; i < 100000; i++)
        s += gl_rng_uniform(&a);
    CHECK(fabs(s / 100000 - 0.5) < 0.005);
}

static void test_median_quantile(void)
{
    double odd[] = { 5, 1, 4, 2, 3 };
    CHECK(gl_median_inplace(odd, 5) == 3);
    double even[] = { 10, 2, 8, 4 };
    CHECK(gl_median_inplace(even, 4) == 6);
    double dup[] = { 2, 2, 1, 2, 3, 3 };
    CHECK(gl_median_inplace(dup, 6) == 2);
    double one[] = { 7 };
    CHECK(gl_median_inplace(one, 1) == 7);
    CHECK(isnan(gl_median_inplace(one, 0)));
    /* many sizes against a full sort */
    struct gl_rng r;
    gl_rng_seed(&r, 7, "median");
    for (int n = 1; n < 60; n++) {
        double x[60], y[60];
        for (int i = 0; i < n; i++)
            x[i] = y[i] = floor(gl_rng_uniform(&r) * 10);   /* many ties */
        for (int i = 1; i < n; i++)   /* insertion sort of y */
            for (int j = i; j > 0 && y[j - 1] > y[j]; j--) {
                double t = y[j];
                y[j] = y[j - 1];
                y[j - 1] = t;
            }
        double m = n % 2 ? y[n / 2] : 0.5 * (y[n / 2 - 1] + y[n / 2]);
        CHECK(gl_median_inplace(x, n) == m);
    }
    double q[] = { 1, 2, 3, 4, 5 };
    CHECK(gl_quantile_sorted(q, 5, 0.0) == 1);
    CHECK(gl_quantile_sorted(q, 5, 1.0) == 5);
    CHECK(gl_quantile_sorted(q, 5, 0.5) == 3);
    CHECK(near(gl_quantile_sorted(q, 5, 0.025), 1.1, 1e-12));   /* position 0.1 */
    CHECK(near(gl_quantile_sorted(q, 5, 0.975), 4.9, 1e-12));
}

/* n samples of base * exp(sd * z), z roughly normal (sum of 12 uniforms - 6) */
static void draw(struct gl_rng *r, double *x, int n, double base, double sd)
{
    for (int i = 0; i < n; i++) {
        double z = -6;
        for (int k = 0; k < 12; k++)
            z += gl_rng_uniform(r);
        x[i] = base * exp(sd * z);
    }
}

static void test_bootstrap(void)
{
    struct gl_rng r;
    struct gl_ratio_ci ci;
    double a[] = { 1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.02 };
    /* identical samples: ratio 1, interval [1, 1] */
    gl_rng_seed(&r, 1, "x");
    CHECK(gl_bootstrap_ratio(a, 7, a, 7, 500, &r, NULL, &ci) == 0);
    CHECK(ci.ratio == 1.0);
    CHECK(ci.lo <= 1.0 && ci.hi >= 1.0);
    double c[] = { 3.0, 3.0, 3.0 }, d[] = { 3.3, 3.3, 3.3, 3.3 };
    CHECK(gl_bootstrap_ratio(c, 3, d, 4, 100, &r, NULL, &ci) == 0);
    CHECK(near(ci.ratio, 1.1, 1e-12) && near(ci.lo, 1.1, 1e-12) && near(ci.hi, 1.1, 1e-12));
    /* b = a * 1.1 exactly: the ratio of medians is 1.1, inside its interval */
    double b[7];
    for (int i = 0; i < 7; i++)
        b[i] = a[i] * 1.1;
    double reps[300];
    CHECK(gl_bootstrap_ratio(a, 7, b, 7, 300, &r, reps, &ci) == 0);
    CHECK(near(ci.ratio, 1.1, 1e-12));
    CHECK(ci.lo < 1.1 && ci.hi > 1.1 && ci.lo > 0.9 && ci.hi < 1.35);
    int in = 1;
    for (int i = 0; i < 300; i++)
        in &= reps[i] >= ci.lo * 0.5 && reps[i] <= ci.hi * 2;
    CHECK(in);
    /* refused: no samples, a zero median */
    double z[] = { 0, 0, 0 };
    CHECK(gl_bootstrap_ratio(a, 0, b, 7, 10, &r, NULL, &ci) == -1 && isnan(ci.ratio));
    CHECK(gl_bootstrap_ratio(z, 3, b, 7, 10, &r, NULL, &ci) == -1);
    /* the same seed and key give the same interval */
    struct gl_rng r1, r2;
    struct gl_ratio_ci c1, c2;
    gl_rng_seed(&r1, 5, "k");
    gl_rng_seed(&r2, 5, "k");
    gl_bootstrap_ratio(a, 7, b, 7, 200, &r1, NULL, &c1);
    gl_bootstrap_ratio(a, 7, b, 7, 200, &r2, NULL, &c2);
    CHECK(c1.lo == c2.lo && c1.hi == c2.hi);

    /* coverage: 200 A/A pairs of 40 samples each from one distribution; the
     * 95 % interval holds 1 in most of them (percentile intervals of a median
     * run a little short at this size: 85 % to 99.5 % is accepted) */
    struct gl_rng gen;
    gl_rng_seed(&gen, 42, "coverage");
    int hold = 0;
    for (int k = 0; k < 200; k++) {
        double x[40], y[40];
        draw(&gen, x, 40, 1.0, 0.03);
        draw(&gen, y, 40, 1.0, 0.03);
        gl_rng_seed(&r, 1, "pair");
        gl_bootstrap_ratio(x, 40, y, 40, 500, &r, NULL, &ci);
        hold += ci.lo <= 1.0 && ci.hi >= 1.0;
    }
    CHECK(hold >= 170 && hold <= 199);
    /* and a 3 % shift with 40 samples of 0.3 % spread is found every time */
    int found = 0;
    for (int k = 0; k < 50; k++) {
        double x[40], y[40];
        draw(&gen, x, 40, 1.0, 0.003);
        draw(&gen, y, 40, 1.03, 0.003);
        gl_rng_seed(&r, 1, "shift");
        gl_bootstrap_ratio(x, 40, y, 40, 500, &r, NULL, &ci);
        found += gl_verdict_of(ci.lo, ci.hi, 0.01) == GL_SLOWER;
    }
    CHECK(found == 50);
}

static void test_verdict(void)
{
    double t = 0.02;   /* band [1/1.02, 1.02] */
    CHECK(gl_verdict_of(0.99, 1.01, t) == GL_SAME);
    CHECK(gl_verdict_of(1.0 / 1.02, 1.02, t) == GL_SAME);     /* ends included */
    CHECK(gl_verdict_of(1.021, 1.05, t) == GL_SLOWER);
    CHECK(gl_verdict_of(1.01, 1.05, t) == GL_UNSURE);          /* straddles 1 + t */
    CHECK(gl_verdict_of(0.90, 0.97, t) == GL_FASTER);
    CHECK(gl_verdict_of(0.97, 0.99, t) == GL_UNSURE);          /* straddles 1/(1+t) */
    CHECK(gl_verdict_of(0.9, 1.1, t) == GL_UNSURE);            /* wider than the band */
    CHECK(gl_verdict_of(NAN, 1.1, t) == GL_UNSURE);
    CHECK(gl_verdict_of(1.0, 1.0, 0.0) == GL_SAME);
    CHECK(gl_verdict_of(1.0001, 1.0002, 0.0) == GL_SLOWER);
    /* swapping A and B (the interval inverted) swaps faster and slower */
    double iv[][2] = { { 1.021, 1.05 }, { 1.01, 1.05 }, { 0.99, 1.01 }, { 0.5, 0.97 } };
    for (int i = 0; i < 4; i++) {
        enum gl_verdict v = gl_verdict_of(iv[i][0], iv[i][1], t);
        enum gl_verdict w = gl_verdict_of(1 / iv[i][1], 1 / iv[i][0], t);
        CHECK((v == GL_SLOWER && w == GL_FASTER) || (v == GL_FASTER && w == GL_SLOWER) ||
              (v == w && (v == GL_SAME || v == GL_UNSURE)));
    }
    CHECK_STR(gl_verdict_name(GL_SLOWER), "slower");
    CHECK_STR(gl_verdict_name(GL_UNSURE), "unsure");
}

static void test_noise_floor(void)
{
    /* nearest rank: of 20 reaches, the 19th smallest; NaN skipped */
    double reach[21];
    for (int i = 0; i < 20; i++)
        reach[i] = (20 - i) * 0.001;   /* 0.020 .. 0.001 */
    reach[20] = NAN;
    CHECK(near(gl_noise_floor(reach, 21), exp(0.019) - 1, 1e-12));
    double few[] = { 0.01, 0.03, NAN };
    CHECK(near(gl_noise_floor(few, 3), exp(0.03) - 1, 1e-12));   /* under 20: the largest */
    double none[] = { NAN };
    CHECK(isnan(gl_noise_floor(none, 1)));
    /* a run's halves: too few samples -> NaN; steady samples -> a small reach;
     * a run that drifts 10 % between its halves -> a reach of about ln 1.1 */
    struct gl_rng r;
    gl_rng_seed(&r, 1, "split");
    double x[3] = { 1, 1, 1 };
    CHECK(isnan(gl_split_reach(x, 3, 100, &r)));
    double steady[40], drift[40];
    struct gl_rng gen;
    gl_rng_seed(&gen, 3, "gen");
    draw(&gen, steady, 40, 1.0, 0.002);
    draw(&gen, drift, 40, 1.0, 0.002);
    for (int i = 20; i < 40; i++)
        drift[i] *= 1.1;
    double rs = gl_split_reach(steady, 40, 500, &r), rd = gl_split_reach(drift, 40, 500, &r);
    CHECK(rs > 0 && rs < 0.01);
    CHECK(rd > log(1.09) && rd < log(1.12));
}

static void test_geomean(void)
{
    double ratios[] = { 2.0, 0.5, 1.0 };
    double reps[3 * 4] = { 2, 2, 2, 2, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1 };
    struct gl_ratio_ci g;
    CHECK(gl_geomean_ci(ratios, reps, 3, 4, &g) == 0);
    CHECK(near(g.ratio, 1.0, 1e-12) && near(g.lo, 1.0, 1e-12) && near(g.hi, 1.0, 1e-12));
    double r2[] = { 1.1, 1.21 };
    double reps2[2 * 2] = { 1.0, 1.21, 1.21, 1.0 };   /* replicate 0: 1.0, 1.21; 1: 1.21, 1.0 */
    CHECK(gl_geomean_ci(r2, reps2, 2, 2, &g) == 0);
    CHECK(near(g.ratio, 1.1 * sqrt(1.1), 1e-12));
    CHECK(near(g.lo, 1.1, 1e-12) && near(g.hi, 1.1, 1e-12));
    CHECK(gl_geomean_ci(r2, reps2, 0, 2, &g) == -1);
}

int main(void)
{
    test_rng();
    test_median_quantile();
    test_bootstrap();
    test_verdict();
    test_noise_floor();
    test_geomean();
    return t_done("test_compare");
}

/* test_reference.c - the random inputs (determinism, range, independence of
 * streams), the float64 references on hand-computed cases, the reference
 * cache (hits, misses, fingerprint, limits) and the verification (a correct
 * output passes, one wrong or unwritten element is caught and placed).
 * Must not depend on timing. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "t.h"

static void test_random(void)
{
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (!CHECK(x && y))
        return;

    gl_fill_random(x, N, 42, 0);
    gl_fill_random(y, N, 42, 0);
    CHECK(memcmp(x, y, N * sizeof *x) == 0);          /* deterministic */

    int in_range = 1, on_grid = 1;
    double sum = 0.0;
    for (int i = 0; i < N; i++) {
        if (!(x[i] >= 0.0f && x[i] < 1.0f))
            in_range = 0;
        double scaled = (double)x[i] * 16777216.0;
        if (scaled != floor(scaled))
            on_grid = 0;
        sum += x[i];
    }
    CHECK(in_range);
    CHECK(on_grid);                                     /* multiples of 2^-24 */
    CHECK(fabs(sum / N - 0.5) < 0.01);                  /* uniform: mean 1/2 */

    /* element i depends on (seed, stream, i) only: a shorter fill is a prefix */
    float head[10];
    gl_fill_random(head, 10, 42, 0);
    CHECK(memcmp(head, x, sizeof head) == 0);

    int same_stream = 0, same_seed = 0;
    gl_fill_random(y, N, 42, 1);
    for (int i = 0; i < N; i++)
        same_stream += x[i] == y[i];
    gl_fill_random(y, N, 43, 0);
    for (int i = 0; i < N; i++)
        same_seed += x[i] == y[i];
    /* independent sequences agree by chance about N / 2^24 times */
    CHECK(same_stream < 20);
    CHECK(same_seed < 20);

    gl_fill_nan(x, N);
    int all_nan = 1;
    for (int i = 0; i < N; i++)
        if (!isnan(x[i]))
            all_nan = 0;
    CHECK(all_nan);
    free(x);
    free(y);
}

static void test_matmul_ref(void)
{
    /* [1 2 3; 4 5 6] . [7 8; 9 10; 11 12] = [58 64; 139 154] */
    const float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 7, 8, 9, 10, 11, 12 };
    double C[4];
    gl_ref_matmul_into(A, B, C, 2, 2, 3);
    CHECK(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);

    /* M=1, N=3, P=2: [1 2] . [1 2 3; 4 5 6] = [9 12 15] */
    const float a[2] = { 1, 2 }, b[6] = { 1, 2, 3, 4, 5, 6 };
    double c[3];
    gl_ref_matmul_into(a, b, c, 1, 3, 2);
    CHECK(c[0] == 9 && c[1] == 12 && c[2] == 15);

    /* random 17 x 23 . 23 x 9 against the textbook triple loop in double */
    enum { M = 17, P = 23, N = 9 };
    float ra[M * P], rb[P * N];
    double rc[M * N];
    gl_fill_random(ra, M * P, 7, 0);
    gl_fill_random(rb, P * N, 7, 1);
    gl_ref_matmul_into(ra, rb, rc, M, N, P);
    double worst = 0.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int k = 0; k < P; k++)
                s += (double)ra[i * P + k] * (double)rb[k * N + j];
            double d = fabs(s - rc[i * N + j]);
            if (d > worst)
                worst = d;
        }
    CHECK(worst < 1e-12);
}

static void test_stencil_ref(void)
{
    /* in[i][j] = 5i + j: a 3x3 box sum is 9 times its centre */
    float in[25];
    for (int i = 0; i < 25; i++)
        in[i] = (float)i;
    double out[9];
    gl_ref_stencil_into(in, out, 5, 1);
    const double want[9] = { 54, 63, 72, 99, 108, 117, 144, 153, 162 };
    int ok = 1;
    for (int i = 0; i < 9; i++)
        if (out[i] != want[i])
            ok = 0;
    CHECK(ok);

    double whole;   /* R=2 on 5x5: one output, the sum of 0..24 */
    gl_ref_stencil_into(in, &whole, 5, 2);
    CHECK(whole == 300);

    double copy[25];   /* R=0: the identity */
    gl_ref_stencil_into(in, copy, 5, 0);
    CHECK(copy[0] == 0 && copy[7] == 7 && copy[24] == 24);

    char err[256] = "";
    CHECK(gl_ref_stencil(in, 4, 2, 1, err, sizeof err) == NULL);   /* N <= 2R */
    CHECK(strstr(err, "N > 2R") != NULL);
}

static void test_vecadd_ref(void)
{
    const float a[3] = { 1.5f, 0.25f, 0.0f }, b[3] = { 2.0f, 0.5f, 0.0f };
    double c[3];
    gl_ref_vecadd_into(a, b, c, 3);
    CHECK(c[0] == 3.5 && c[1] == 0.75 && c[2] == 0.0);
    char err[256] = "";
    CHECK(gl_ref_vecadd(a, b, 0, 1, err, sizeof err) == NULL);
    CHECK(err[0] != '\0');
    CHECK(gl_ref_matmul(a, b, 0, 1, 1, 1, err, sizeof err) == NULL);
}

static void test_tolerance(void)
{
    CHECK(gl_tolerance(1) == FLT_EPSILON + 1e-6);
    CHECK(gl_tolerance(0) == gl_tolerance(1));
    CHECK(fabs(gl_tolerance(2048) - (2048 * FLT_EPSILON + 1e-6)) < 1e-15);
}

static void test_verify(void)
{
    const double ref[6] = { 1.0, 2.0, 3.0, 4.0, 5.0, 3.25 };
    float out[6] = { 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 3.25f };
    double tol = gl_tolerance(1);
    struct gl_verify_report rep;

    CHECK(gl_verify_full(out, ref, 6, 3, tol, &rep) == 0.0);
    CHECK(rep.nbad == 0 && rep.nfirst == 0 && rep.n == 6);
    CHECK(strncmp(rep.summary, "all 6 outputs within tolerance", 30) == 0);

    /* within tolerance but not exact: passes, error reported */
    out[2] = 3.0f * (1.0f + 4 * FLT_EPSILON);
    CHECK(gl_verify_full(out, ref, 6, 3, tol, &rep) > 0.0);
    CHECK(rep.nbad == 0);
    out[2] = 3.0f;

    /* one wrong element at (1,2) */
    out[5] = 1.5f;
    double e = gl_verify_full(out, ref, 6, 3, tol, &rep);
    CHECK(fabs(e - 1.75 / 3.25) < 1e-12);
    CHECK(rep.nbad == 1 && rep.nfirst == 1);
    CHECK(rep.first[0].row == 1 && rep.first[0].col == 2);
    CHECK(rep.first[0].got == 1.5f && rep.first[0].want == 3.25);
    CHECK_STR(rep.summary,
              "1 of 6 outputs outside tolerance 1.1e-06; first at (1,2): got 1.5 want 3.25");
    out[5] = 3.25f;

    /* an unwritten (NaN) element is bad, and its error is infinite */
    out[1] = NAN;
    e = gl_verify_full(out, ref, 6, 3, tol, &rep);
    CHECK(isinf(e) && rep.nbad == 1 && rep.first[0].row == 0 && rep.first[0].col == 1);
    CHECK(strstr(rep.summary, "got nan") != NULL);
    out[1] = 2.0f;

    /* a zero reference: exact zero passes, anything else is an absolute error */
    const double zref[2] = { 0.0, 0.0 };
    float zout[2] = { 0.0f, 0.0f };
    CHECK(gl_verify_full(zout, zref, 2, 0, tol, &rep) == 0.0 && rep.nbad == 0);
    zout[1] = 1e-3f;
    gl_verify_full(zout, zref, 2, 0, tol, &rep);
    CHECK(rep.nbad == 1 && rep.first[0].row == 0 && rep.first[0].col == 1);

    /* many bad elements: all counted, the first few listed in order */
    float bad[10];
    double bref[10];
    for (int i = 0; i < 10; i++) {
        bad[i] = (float)NAN;
        bref[i] = i;
    }
    gl_verify_full(bad, bref, 10, 5, tol, &rep);
    CHECK(rep.nbad == 10 && rep.nfirst == GL_VERIFY_FIRST);
    CHECK(rep.first[GL_VERIFY_FIRST - 1].row == 0 && rep.first[GL_VERIFY_FIRST - 1].col == 3);

    /* a wrong reference is reported as wrong: the float output of 2x3.3x2 */
    const float A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 7, 8, 9, 10, 11, 12 };
    double C[4];
    gl_ref_matmul_into(A, B, C, 2, 2, 3);
    float got[4] = { 58, 64, 139, 154 };
    CHECK(gl_verify_full(got, C, 4, 2, gl_tolerance(3), &rep) == 0.0 && rep.nbad == 0);
    C[3] = 155;   /* deliberately wrong */
    gl_verify_full(got, C, 4, 2, gl_tolerance(3), &rep);
    CHECK(rep.nbad == 1 && rep.first[0].row == 1 && rep.first[0].col == 1);
}

static void test_cache(void)
{
    enum { N = 40, R = 3, W = N - 2 * R };
    static float in[N * N], out[W * W];
    char err[256];
    struct gl_ref_cache_stats st;

    gl_ref_cache_clear();
    gl_ref_cache_set_limit(GL_REF_CACHE_DEFAULT_BYTES);
    gl_ref_cache_stats(&st);
    long hits0 = st.hits, misses0 = st.misses;
    CHECK(st.entries == 0 && st.bytes == 0);

    gl_fill_random(in, N * N, 5, 0);
    const double *r1 = gl_ref_stencil(in, N, R, 5, err, sizeof err);
    const double *r2 = gl_ref_stencil(in, N, R, 5, err, sizeof err);
    gl_ref_cache_stats(&st);
    CHECK(r1 && r1 == r2);
    CHECK(st.misses == misses0 + 1 && st.hits == hits0 + 1);
    CHECK(st.entries == 1 && st.bytes == W * W * sizeof(double));

    /* the cached reference is right, and mismatches are placed by its rows */
    static double direct[W * W];
    gl_ref_stencil_into(in, direct, N, R);
    CHECK(memcmp(direct, r1, sizeof direct) == 0);
    for (int i = 0; i < W * W; i++)
        out[i] = (float)r1[i];
    double tol = gl_tolerance((2 * R + 1) * (2 * R + 1));
    struct gl_verify_report rep;
    CHECK(gl_verify_full(out, r1, W * W, W, tol, &rep) <= tol);
    out[2 * W + 1] += 1.0f;
    CHECK(gl_verify_full(out, r1, W * W, W, tol, &rep) > tol);
    CHECK(strstr(rep.summary, "1 of 1156 outputs") && strstr(rep.summary, "first at (2,1)"));

    /* same seed, other inputs: the fingerprint refuses the cached one */
    in[0] += 0.5f;
    const double *r3 = gl_ref_stencil(in, N, R, 5, err, sizeof err);
    CHECK(r3 && r3[0] == direct[0] + 0.5);
    in[0] -= 0.5f;
    /* other seed label, other family: misses too */
    gl_ref_cache_stats(&st);
    long m = st.misses;
    CHECK(gl_ref_stencil(in, N, R, 6, err, sizeof err) != NULL);
    CHECK(gl_ref_vecadd(in, in, N, 5, err, sizeof err) != NULL);
    gl_ref_cache_stats(&st);
    CHECK(st.misses == m + 2);

    /* never more than the slots */
    for (int s = 0; s < GL_REF_CACHE_SLOTS + 3; s++)
        CHECK(gl_ref_vecadd(in, in, 10 + s, 100 + s, err, sizeof err) != NULL);
    gl_ref_cache_stats(&st);
    CHECK(st.entries == GL_REF_CACHE_SLOTS);

    /* a byte limit below one reference: only the newest is kept, and it is usable */
    gl_ref_cache_set_limit(100);
    const double *v = gl_ref_vecadd(in, in, 500, 1, err, sizeof err);
    gl_ref_cache_stats(&st);
    CHECK(v && v[499] == 2.0 * (double)in[499]);
    CHECK(st.entries == 1 && st.bytes == 500 * sizeof(double));
    /* a limit of two references keeps the two most recent */
    gl_ref_cache_set_limit(2 * 500 * sizeof(double));
    gl_ref_vecadd(in, in, 500, 2, err, sizeof err);
    gl_ref_vecadd(in, in, 500, 3, err, sizeof err);
    gl_ref_cache_stats(&st);
    CHECK(st.entries == 2 && st.bytes == 2 * 500 * sizeof(double));
    long h = st.hits;
    gl_ref_vecadd(in, in, 500, 3, err, sizeof err);
    gl_ref_vecadd(in, in, 500, 2, err, sizeof err);
    gl_ref_cache_stats(&st);
    CHECK(st.hits == h + 2);

    gl_ref_cache_clear();
    gl_ref_cache_stats(&st);
    CHECK(st.entries == 0 && st.bytes == 0);
    gl_ref_cache_set_limit(GL_REF_CACHE_DEFAULT_BYTES);
}

int main(void)
{
    test_random();
    test_matmul_ref();
    test_stencil_ref();
    test_vecadd_ref();
    test_tolerance();
    test_verify();
    test_cache();
    return t_done("test_reference");
}

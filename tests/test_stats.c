/* test_stats.c - gl_summarize on samples with known statistics, and every case
 * of the sampling stop rule. Must not time anything. */
#include <math.h>

#include "stats.h"
#include "t.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1);
}

static struct gl_timing policy(int min_s, int max_s, double noise, double secs)
{
    struct gl_timing t = { 0, min_s, max_s, noise, secs, 60.0 };
    return t;
}

static void test_summary(void)
{
    struct gl_summary s;

    /* odd count, unsorted: median is the middle value, input order kept */
    double odd[5] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
    gl_summarize(odd, 5, &s);
    CHECK(s.count == 5);
    CHECK(near(s.median, 3.0));
    CHECK(near(s.mean, 3.0));
    CHECK(near(s.min, 1.0));
    CHECK(near(s.max, 5.0));
    CHECK(near(s.stddev, sqrt(2.5)));               /* sum of squares 10, n-1 = 4 */
    CHECK(near(s.rel_se, sqrt(2.5) / sqrt(5.0) / 3.0));
    CHECK(odd[0] == 5.0 && odd[1] == 1.0 && odd[4] == 3.0);

    /* even count: mean of the two middle values */
    double even[4] = { 10.0, 2.0, 8.0, 4.0 };
    gl_summarize(even, 4, &s);
    CHECK(near(s.median, 6.0));
    CHECK(near(s.mean, 6.0));
    CHECK(near(s.stddev, sqrt(40.0 / 3.0)));        /* 16+16+4+4 over 3 */

    /* identical samples: no spread */
    double same[3] = { 2.5, 2.5, 2.5 };
    gl_summarize(same, 3, &s);
    CHECK(s.stddev == 0.0 && s.rel_se == 0.0 && s.median == 2.5);

    /* one sample: median etc. known, spread undefined (NaN, stored as NULL) */
    double one[1] = { 7.0 };
    gl_summarize(one, 1, &s);
    CHECK(s.count == 1 && s.median == 7.0 && s.min == 7.0 && s.max == 7.0 && s.mean == 7.0);
    CHECK(isnan(s.stddev) && isnan(s.rel_se));

    /* no samples: nothing defined, nothing read */
    gl_summarize(NULL, 0, &s);
    CHECK(s.count == 0);
    CHECK(isnan(s.median) && isnan(s.mean) && isnan(s.min) && isnan(s.max));
    CHECK(isnan(s.stddev) && isnan(s.rel_se));
}

static void test_stop_rule(void)
{
    double quiet[10] = { 1.0, 1.001, 0.999, 1.0, 1.0, 1.001, 0.999, 1.0, 1.0, 1.0 };
    double noisy[10] = { 1.0, 2.0, 1.0, 3.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0 };
    struct gl_timing t = policy(5, 10, 0.005, 100.0);

    CHECK(!gl_sampling_done(quiet, 0, 0.0, &t));     /* never before the first sample */
    CHECK(!gl_sampling_done(quiet, 4, 0.1, &t));     /* quiet but under min_samples */
    CHECK(gl_sampling_done(quiet, 5, 0.1, &t));      /* quiet and min_samples reached */
    CHECK(!gl_sampling_done(noisy, 5, 0.1, &t));     /* noisy: keep going */
    CHECK(!gl_sampling_done(noisy, 9, 0.1, &t));
    CHECK(gl_sampling_done(noisy, 10, 0.1, &t));     /* max_samples */
    CHECK(gl_sampling_done(noisy, 2, 100.0, &t));    /* time cap */
    CHECK(gl_sampling_done(noisy, 1, 150.0, &t));

    struct gl_timing zero = policy(0, 0, 0.005, 0.0);
    CHECK(!gl_sampling_done(quiet, 0, 5.0, &zero));  /* still at least one sample */
    CHECK(gl_sampling_done(quiet, 1, 0.0, &zero));

    /* one sample has no spread: min_samples 1 does not stop on noise */
    struct gl_timing min1 = policy(1, 10, 0.5, 100.0);
    CHECK(!gl_sampling_done(quiet, 1, 0.0, &min1));
    CHECK(gl_sampling_done(quiet, 2, 0.0, &min1));

    /* the noise threshold itself: rel_se of {1, 3} is sqrt(2)/sqrt(2)/2 = 0.5 */
    double two[2] = { 1.0, 3.0 };
    struct gl_timing lo = policy(2, 10, 0.49, 100.0), hi = policy(2, 10, 0.51, 100.0);
    CHECK(!gl_sampling_done(two, 2, 0.0, &lo));
    CHECK(gl_sampling_done(two, 2, 0.0, &hi));

    /* GL_MAX_SAMPLES caps even a larger max_samples */
    static double many[GL_MAX_SAMPLES];
    for (int i = 0; i < GL_MAX_SAMPLES; i++)
        many[i] = (i % 2) ? 1.0 : 9.0;
    struct gl_timing big = policy(5, 5 * GL_MAX_SAMPLES, 1e-9, 1e9);
    CHECK(!gl_sampling_done(many, GL_MAX_SAMPLES - 1, 0.0, &big));
    CHECK(gl_sampling_done(many, GL_MAX_SAMPLES, 0.0, &big));

    /* all-zero samples: rel_se undefined, so only the caps stop */
    double zeros[6] = { 0, 0, 0, 0, 0, 0 };
    CHECK(!gl_sampling_done(zeros, 6, 0.0, &t));
}

/* A batch's wall time: each run's own part, the rest split evenly. */
static void test_share_batch(void)
{
    double own[3], share[3];
    /* one slow run (900 of 1000 ms) and two fast ones: the 60 ms left go evenly */
    double est[3] = { 900.0, 20.0, 20.0 };
    gl_share_batch(est, 3, 1000.0, own, share);
    CHECK(own[0] == 900.0 && own[1] == 20.0 && own[2] == 20.0);
    CHECK(fabs(share[0] - 920.0) < 1e-9 && fabs(share[1] - 40.0) < 1e-9 && fabs(share[2] - 40.0) < 1e-9);
    CHECK(fabs(share[0] + share[1] + share[2] - 1000.0) < 1e-9);
    /* estimates over the total: scaled down to it, nothing left to split */
    double over[2] = { 300.0, 100.0 };
    gl_share_batch(over, 2, 200.0, own, share);
    CHECK(fabs(own[0] - 150.0) < 1e-9 && fabs(own[1] - 50.0) < 1e-9);
    CHECK(fabs(share[0] - 150.0) < 1e-9 && fabs(share[1] - 50.0) < 1e-9);
    /* no estimates (no samples): an even split, nothing counted as kernels */
    double none[2] = { 0.0, 0.0 };
    gl_share_batch(none, 2, 10.0, own, share);
    CHECK(own[0] == 0.0 && own[1] == 0.0 && share[0] == 5.0 && share[1] == 5.0);
}

/* A batch's time: the sessions' shares and the instrumented replays are each
 * run's own, the rest (outside the sessions) even; the kernel time is the
 * estimate, never more than the run's session share. */
static void test_share_sessions(void)
{
    double smem[3] = { 0.0, 40.0, 0.0 }, prof[3] = { 10.0, 20.0, 400.0 };
    double own[3] = { 7.0, 25.0, 1.0 }, est[3] = { 4.0, 30.0, 1.0 };
    double counters[3], busy[3], ranges[3];
    /* 500 ms: 40 instrumented, 430 in sessions, 30 outside: 10 each */
    gl_share_sessions(3, 500.0, smem, prof, own, est, counters, busy, ranges);
    CHECK(near(counters[0], 20.0) && near(counters[1], 30.0) && near(counters[2], 410.0));
    CHECK(near(counters[0] + counters[1] + counters[2] + smem[1], 500.0));
    CHECK(near(busy[0], 4.0));     /* its estimate */
    CHECK(near(busy[1], 20.0));    /* the estimate capped at its session share */
    CHECK(near(busy[2], 1.0));     /* the user session's fresh object is not kernel time */
    CHECK(near(ranges[0], 3.0));   /* measured 7 ms of replays, 4 of them kernels */
    CHECK(ranges[1] == 0.0);       /* replays capped at its share, all kernel time */
    CHECK(ranges[2] == 0.0);       /* estimated replays: nothing beyond the kernels */
    for (int i = 0; i < 3; i++)    /* the parts never exceed the whole */
        CHECK(busy[i] + ranges[i] <= counters[i] + 1e-12);
    /* sessions and replays longer than the batch's clock: nothing outside, no negative share */
    gl_share_sessions(3, 400.0, smem, prof, own, est, counters, busy, ranges);
    CHECK(near(counters[0], 10.0) && near(counters[1], 20.0) && near(counters[2], 400.0));
    /* no session (metrics = smem_excess only): the rest evenly, nothing counted as kernels */
    double zero[2] = { 0.0, 0.0 }, sm[2] = { 5.0, 0.0 }, c2[2], b2[2], r2[2];
    gl_share_sessions(2, 9.0, sm, zero, zero, zero, c2, b2, r2);
    CHECK(near(c2[0], 2.0) && near(c2[1], 2.0) && b2[0] == 0.0 && b2[1] == 0.0);
    CHECK(r2[0] == 0.0 && r2[1] == 0.0);
}

static void test_session_runs(void)
{
    /* auto ranges: the flush before the first run, then each run and the flush
     * after it, one more flush after a restore between the runs (not the
     * opening run's, nor one made at the pass's start) */
    int first[64], need[64];
    for (int i = 0; i < 64; i++) {
        first[i] = 1 + 2;
        need[i] = 2 + 1;   /* every run restores */
    }
    CHECK(gl_session_runs(first, need, 64, 3 * 64 + 1) == 64);   /* a batch: one session */
    CHECK(gl_session_runs(first, need, 64, 25) == 8);            /* 3 + 7 x 3 = 24 */
    for (int i = 0; i < 64; i++)
        need[i] = 2;
    CHECK(gl_session_runs(first, need, 64, 25) == 12);           /* 1 + 12 x 2 = 25 */
    CHECK(gl_session_runs(first + 60, need + 60, 4, 25) == 4);   /* the batch's end */
    /* user ranges: a run and its drain, a split run's launches too */
    int uf[4] = { 2, 6, 2, 2 }, un[4] = { 2, 6, 2, 2 };
    CHECK(gl_session_runs(uf, un, 4, 7) == 1);    /* 2 + 6 > 7: the split run waits */
    CHECK(gl_session_runs(uf, un, 4, 10) == 3);   /* 2 + 6 + 2 */
    CHECK(gl_session_runs(uf + 1, un + 1, 3, 9) == 2);
    CHECK(gl_session_runs(uf + 1, un + 1, 3, 4) == 1);   /* alone over the cap: still a session */
    CHECK(gl_session_runs(uf, un, 0, 9) == 0);
}

int main(void)
{
    test_summary();
    test_stop_rule();
    test_share_batch();
    test_share_sessions();
    test_session_runs();
    return t_done("test_stats");
}

/* stats.c - see stats.h: summary statistics of timing samples and the stopping
 * rule of the sampling loops. A value that the samples cannot define (anything
 * of zero samples, the spread of one sample, a relative error over a zero mean)
 * is NaN, so that it is stored as NULL and never plotted as a number.
 * Must not time anything, nor keep state between calls. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean, sample standard deviation (n-1) and relative standard error of the
 * mean; NaN where undefined. Two passes, so large means lose no precision. */
static void spread(const double *x, int n, double *mean, double *stddev, double *rel_se)
{
    *mean = *stddev = *rel_se = NAN;
    if (n < 1)
        return;
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / n;
    if (n < 2)
        return;
    double ss = 0.0;
    for (int i = 0; i < n; i++) {
        double d = x[i] - *mean;
        ss += d * d;
    }
    *stddev = sqrt(ss / (n - 1));
    if (*mean > 0.0)
        *rel_se = *stddev / sqrt((double)n) / *mean;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gl_summarize(const double *samples, int n, struct gl_summary *s)
{
    s->count = n > 0 ? n : 0;
    s->median = s->min = s->max = NAN;
    spread(samples, s->count, &s->mean, &s->stddev, &s->rel_se);
    if (n < 1)
        return;

    s->min = s->max = samples[0];
    for (int i = 1; i < n; i++) {
        if (samples[i] < s->min)
            s->min = samples[i];
        if (samples[i] > s->max)
            s->max = samples[i];
    }

    /* The median sorts a copy: the caller's samples keep their order. */
    double local[GL_MAX_SAMPLES];
    double *copy = local;
    if (n > GL_MAX_SAMPLES) {
        copy = malloc((size_t)n * sizeof *copy);
        if (!copy)
            return;   /* median stays NaN: unknown, not invented */
    }
    memcpy(copy, samples, (size_t)n * sizeof *copy);
    qsort(copy, (size_t)n, sizeof *copy, cmp_double);
    if (n % 2)
        s->median = copy[n / 2];
    else
        s->median = 0.5 * (copy[n / 2 - 1] + copy[n / 2]);
    if (copy != local)
        free(copy);
}

/* No stop before the first sample, whatever the policy says: a run always has
 * at least one. The noise test needs two samples (one has no spread); NaN
 * compares false, so an undefined rel_se never ends sampling by itself. */
int gl_sampling_done(const double *samples, int n, double elapsed_s, const struct gl_timing *t)
{
    if (n < 1)
        return 0;
    if (n >= GL_MAX_SAMPLES || n >= t->max_samples)
        return 1;
    if (elapsed_s >= t->max_seconds)
        return 1;
    if (n < t->min_samples || n < 2)
        return 0;
    double mean, stddev, rel_se;
    spread(samples, n, &mean, &stddev, &rel_se);
    return rel_se <= t->max_noise;
}

void gl_share_batch(const double *est, int n, double total_ms, double *own, double *share)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += est[i];
    double scale = 1.0, rest = total_ms - sum;
    if (rest < 0.0) {
        scale = sum > 0.0 ? total_ms / sum : 0.0;
        rest = 0.0;
    }
    for (int i = 0; i < n; i++) {
        own[i] = est[i] * scale;
        share[i] = own[i] + rest / n;
    }
}

int gl_session_runs(const int *first, const int *need, int n, int cap)
{
    if (n <= 0)
        return 0;
    int ranges = first[0], k = 1;
    while (k < n && ranges + need[k] <= cap)
        ranges += need[k++];
    return k;
}

void gl_share_sessions(int n, double total_ms, const double *smem_ms, const double *prof_ms,
                       const double *own_ms, const double *est_ms, double *counters,
                       double *busy, double *ranges)
{
    double rest = total_ms;
    for (int i = 0; i < n; i++)
        rest -= smem_ms[i] + prof_ms[i];
    if (rest < 0.0)
        rest = 0.0;
    for (int i = 0; i < n; i++) {
        counters[i] = prof_ms[i] + rest / n;
        busy[i] = est_ms[i] < prof_ms[i] ? est_ms[i] : prof_ms[i];
        double own = own_ms[i] < prof_ms[i] ? own_ms[i] : prof_ms[i];
        ranges[i] = own > busy[i] ? own - busy[i] : 0.0;
    }
}

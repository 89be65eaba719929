/* compare.c - see compare.h: the statistics of `gpulab compare`. Every number
 * here must be reproducible by the awk check of tests/integration/compare.sh:
 * plain double arithmetic in a fixed order, no long double, no fused
 * multiply-add that changes a result (the RNG's products are exact integers).
 * Must not keep state between calls, read files or print. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M1 4294967087.0
#define M2 4294944443.0
#define A12 1403580.0
#define A13N 810728.0
#define A21 527612.0
#define A23N 1370589.0
#define NORM 2.328306549295727688e-10
#define HASH_MOD 2147483647ULL

unsigned long long gl_rng_key_hash(const char *key)
{
    unsigned long long h = 0;
    for (const unsigned char *p = (const unsigned char *)key; key && *p; p++)
        h = (h * 31 + *p) % HASH_MOD;
    return h;
}

void gl_rng_seed(struct gl_rng *r, unsigned long long seed, const char *key)
{
    double s = (double)(seed % HASH_MOD), h = (double)gl_rng_key_hash(key);
    r->s1[0] = s;
    r->s1[1] = h;
    r->s1[2] = 12345.0;
    r->s2[0] = h;
    r->s2[1] = s;
    r->s2[2] = 12345.0;
    for (int i = 0; i < 10; i++)
        (void)gl_rng_uniform(r);
}

double gl_rng_uniform(struct gl_rng *r)
{
    double p1 = A12 * r->s1[1] - A13N * r->s1[0];
    long long k = (long long)(p1 / M1);
    p1 -= (double)k * M1;
    if (p1 < 0.0)
        p1 += M1;
    r->s1[0] = r->s1[1];
    r->s1[1] = r->s1[2];
    r->s1[2] = p1;
    double p2 = A21 * r->s2[2] - A23N * r->s2[0];
    k = (long long)(p2 / M2);
    p2 -= (double)k * M2;
    if (p2 < 0.0)
        p2 += M2;
    r->s2[0] = r->s2[1];
    r->s2[1] = r->s2[2];
    r->s2[2] = p2;
    return p1 <= p2 ? (p1 - p2 + M1) * NORM : (p1 - p2) * NORM;
}

/* The k-th smallest of x[0..n) (from 0), reordering x: Hoare's selection. */
static double select_kth(double *x, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return x[k];
}

double gl_median_inplace(double *x, int n)
{
    if (n < 1)
        return NAN;
    if (n % 2)
        return select_kth(x, n, n / 2);
    double hi = select_kth(x, n, n / 2);
    /* everything below position n/2 is <= hi now: the largest of them */
    double lo = x[0];
    for (int i = 1; i < n / 2; i++)
        if (x[i] > lo)
            lo = x[i];
    return 0.5 * (lo + hi);
}

double gl_quantile_sorted(const double *x, int n, double p)
{
    if (n < 1)
        return NAN;
    double h = (n - 1) * p;
    int i = (int)floor(h);
    if (i >= n - 1)
        return x[n - 1];
    return x[i] + (h - i) * (x[i + 1] - x[i]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The interval of replicates rep[0..R), sorted in place. */
static void interval(double *rep, int R, struct gl_ratio_ci *out)
{
    qsort(rep, (size_t)R, sizeof *rep, cmp_double);
    double alpha = (1.0 - GL_CMP_CONFIDENCE) / 2.0;
    out->lo = gl_quantile_sorted(rep, R, alpha);
    out->hi = gl_quantile_sorted(rep, R, 1.0 - alpha);
}

int gl_bootstrap_ratio(const double *a, int na, const double *b, int nb, int resamples,
                       struct gl_rng *rng, double *reps, struct gl_ratio_ci *out)
{
    out->ratio = out->lo = out->hi = NAN;
    if (na < 1 || nb < 1 || resamples < 1)
        return -1;
    int n = na > nb ? na : nb;
    double *buf = malloc((size_t)n * sizeof *buf);
    double *rep = malloc((size_t)resamples * sizeof *rep);
    if (!buf || !rep) {
        free(buf);
        free(rep);
        return -1;
    }
    memcpy(buf, a, (size_t)na * sizeof *buf);
    double ma = gl_median_inplace(buf, na);
    memcpy(buf, b, (size_t)nb * sizeof *buf);
    double mb = gl_median_inplace(buf, nb);
    int rc = -1;
    if (ma > 0.0 && mb > 0.0) {
        out->ratio = mb / ma;
        for (int r = 0; r < resamples; r++) {
            for (int i = 0; i < na; i++)
                buf[i] = a[(int)floor(gl_rng_uniform(rng) * na)];
            double ra = gl_median_inplace(buf, na);
            for (int i = 0; i < nb; i++)
                buf[i] = b[(int)floor(gl_rng_uniform(rng) * nb)];
            double rb = gl_median_inplace(buf, nb);
            rep[r] = rb / ra;
        }
        if (reps)
            memcpy(reps, rep, (size_t)resamples * sizeof *rep);
        interval(rep, resamples, out);
        rc = 0;
    }
    free(buf);
    free(rep);
    return rc;
}

double gl_split_reach(const double *x, int n, int resamples, struct gl_rng *rng)
{
    if (n < GL_CMP_MIN_SAMPLES)
        return NAN;
    int h = n / 2;
    struct gl_ratio_ci ci;
    if (gl_bootstrap_ratio(x, h, x + (n - h), h, resamples, rng, NULL, &ci) != 0)
        return NAN;
    double l = fabs(log(ci.lo)), u = fabs(log(ci.hi));
    return l > u ? l : u;
}

double gl_noise_floor(double *reach, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(reach[i]))
            reach[m++] = reach[i];
    if (m == 0)
        return NAN;
    qsort(reach, (size_t)m, sizeof *reach, cmp_double);
    int rank = (int)ceil(0.95 * m);   /* 1-based */
    if (rank < 1)
        rank = 1;
    return exp(reach[rank - 1]) - 1.0;
}

enum gl_verdict gl_verdict_of(double lo, double hi, double t)
{
    if (isnan(lo) || isnan(hi) || isnan(t))
        return GL_UNSURE;
    double up = 1.0 + t, down = 1.0 / (1.0 + t);
    if (lo > up)
        return GL_SLOWER;
    if (hi < down)
        return GL_FASTER;
    if (lo >= down && hi <= up)
        return GL_SAME;
    return GL_UNSURE;
}

const char *gl_verdict_name(enum gl_verdict v)
{
    switch (v) {
    case GL_SAME: return "same";
    case GL_FASTER: return "faster";
    case GL_SLOWER: return "slower";
    default: return "unsure";
    }
}

int gl_geomean_ci(const double *ratios, const double *reps, int np, int resamples,
                  struct gl_ratio_ci *out)
{
    out->ratio = out->lo = out->hi = NAN;
    if (np < 1 || resamples < 1)
        return -1;
    double *g = malloc((size_t)resamples * sizeof *g);
    if (!g)
        return -1;
    double s = 0.0;
    for (int p = 0; p < np; p++)
        s += log(ratios[p]);
    out->ratio = exp(s / np);
    for (int r = 0; r < resamples; r++) {
        double t = 0.0;
        for (int p = 0; p < np; p++)
            t += log(reps[(size_t)p * resamples + r]);
        g[r] = exp(t / np);
    }
    interval(g, resamples, out);
    free(g);
    return 0;
}

const struct gl_cmp_counter gl_cmp_counters[GL_CMP_NCOUNTERS] = {
    [GL_CMPC_DRAM] = { "dram_bytes", "DRAM bytes", 0 },
    [GL_CMPC_L1HIT] = { "l1_hit_pct", "L1 hit", 1 },
    [GL_CMPC_L2HIT] = { "l2_hit_pct", "L2 hit", 1 },
    [GL_CMPC_OCC] = { "achieved_occupancy_pct", "occupancy", 1 },
    [GL_CMPC_EXCESS] = { "excess_wavefronts", "excess wavefronts", 0 },
    [GL_CMPC_INST] = { "inst_executed", "instructions", 0 },
    [GL_CMPC_ENERGY] = { "energy_j", "energy", 0 },
};

void gl_cmp_why(const double *ca, const double *cb, char *buf, size_t len)
{
    size_t n = 0;
    int known = 0;
    buf[0] = '\0';
    for (int i = 0; i < GL_CMP_NCOUNTERS; i++) {
        double a = ca[i], b = cb[i];
        if (isnan(a) || isnan(b))
            continue;
        known++;
        const struct gl_cmp_counter *c = &gl_cmp_counters[i];
        char item[96];
        if (c->points) {
            if (fabs(b - a) < 0.5)
                continue;
            snprintf(item, sizeof item, "%s %+.1f pp", c->label, b - a);
        } else if (a == 0.0) {
            if (b == 0.0)
                continue;
            snprintf(item, sizeof item, "%s 0 -> %.4g", c->label, b);
        } else {
            double rel = (b - a) / fabs(a) * 100.0;
            if (fabs(rel) < 0.5)
                continue;
            snprintf(item, sizeof item, "%s %+.1f %%", c->label, rel);
        }
        int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "; " : "", item);
        if (w > 0)
            n += (size_t)w;
        if (n >= len) {
            buf[len - 1] = '\0';
            return;
        }
    }
    if (n == 0 && known)
        snprintf(buf, len, "counters unchanged");
}

void gl_cmp_result_free(struct gl_cmp_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->npoints; i++) {
        free(r->points[i].key);
        free(r->points[i].label);
    }
    for (int i = 0; i < r->nonly_a; i++)
        free(r->only_a[i]);
    for (int i = 0; i < r->nonly_b; i++)
        free(r->only_b[i]);
    free(r->points);
    free(r->only_a);
    free(r->only_b);
    free(r->a_spec);
    free(r->b_spec);
    free(r->a_db);
    free(r->b_db);
    free(r->notes);
    free(r->created_at);
    free(r->tool);
    memset(r, 0, sizeof *r);
}

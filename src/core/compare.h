/* compare.h - the statistics of `gpulab compare` (docs/cli.md#compare): a
 * seeded random stream (L'Ecuyer's MRG32k3a, in doubles, so that a check in awk
 * draws the same numbers), medians and quantiles, the percentile bootstrap of
 * the ratio of two medians, the verdict against a threshold, the noise floor
 * from each run's two halves, and the geometric mean of ratios with its
 * interval. Must not read databases, parse arguments or print.
 *
 * The bootstrap, exactly (tests/integration/compare.sh repeats it in awk):
 * for r = 0 .. R-1: draw na indices floor(u * na) into a (in that order), take
 * the median of those samples, then nb indices into b likewise; the r-th
 * replicate is median(b*) / median(a*). The interval is the 2.5 % and 97.5 %
 * quantiles of the R replicates (linear between order statistics: position
 * (R - 1) p from 0, as R's type 7). The estimate is median(b) / median(a). */
#ifndef GL_COMPARE_H
#define GL_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GL_CMP_RESAMPLES 2000     /* default bootstrap replicates */
#define GL_CMP_MIN_SAMPLES 4      /* fewer on either side: no verdict (unsure) */
#define GL_CMP_CONFIDENCE 0.95
#define GL_CMP_FALLBACK_THRESHOLD 0.02   /* when no run can measure the noise floor */

/* MRG32k3a: two components of three values each. */
struct gl_rng {
    double s1[3], s2[3];
};
/* The stream of (seed, key): key is hashed (h = (31 h + byte) mod 2^31 - 1),
 * s1 = {seed mod 2^31-1, h, 12345}, s2 = {h, seed mod 2^31-1, 12345}, and the
 * first 10 numbers are dropped. */
void gl_rng_seed(struct gl_rng *r, unsigned long long seed, const char *key);
unsigned long long gl_rng_key_hash(const char *key);
/* Uniform in (0, 1). */
double gl_rng_uniform(struct gl_rng *r);

/* Median of x[0..n) (n >= 1), reordering x (a selection, not a full sort). */
double gl_median_inplace(double *x, int n);
/* Quantile p of sorted x[0..n): linear between order statistics at (n - 1) p. */
double gl_quantile_sorted(const double *x, int n, double p);

/* A ratio and its interval. */
struct gl_ratio_ci {
    double ratio, lo, hi;
};

/* The bootstrap of median(b) / median(a) above with R = resamples (>= 1).
 * reps, when not NULL, receives the R replicates in the order drawn (for the
 * geometric mean's interval). 0, or -1 when out of memory or na, nb < 1 or a
 * median <= 0 (then out is NaN). */
int gl_bootstrap_ratio(const double *a, int na, const double *b, int nb, int resamples,
                       struct gl_rng *rng, double *reps, struct gl_ratio_ci *out);

/* A run compared with itself: the second half of its samples (in the order
 * taken; the middle one of an odd count left out) against the first, by
 * gl_bootstrap_ratio; returns how far that interval reaches from 1,
 * max(|ln lo|, |ln hi|), or NaN when n < GL_CMP_MIN_SAMPLES. */
double gl_split_reach(const double *x, int n, int resamples, struct gl_rng *rng);
/* The noise floor from the reaches of the runs (NaN ones skipped): the 95th
 * percentile (nearest rank: the ceil(0.95 m)-th smallest of m) as a relative
 * threshold, exp(reach) - 1; NaN when there is none. Sorts reach. */
double gl_noise_floor(double *reach, int n);

enum gl_verdict { GL_SAME = 0, GL_FASTER = 1, GL_SLOWER = 2, GL_UNSURE = 3 };
/* B against A from the interval [lo, hi] of B/A and threshold t >= 0, with the
 * band [1 / (1 + t), 1 + t]: slower when lo > 1 + t, faster when hi < 1/(1 + t),
 * same when the interval lies within the band (ends included), else unsure.
 * The band is symmetric in ln, so swapping A and B swaps faster and slower. */
enum gl_verdict gl_verdict_of(double lo, double hi, double t);
const char *gl_verdict_name(enum gl_verdict v);

/* The geometric mean of np ratios, with the interval of the same quantiles
 * over the R joint replicates: replicate r is the geometric mean of
 * reps[p * resamples + r] over p. 0, or -1 (out of memory, np < 1). */
int gl_geomean_ci(const double *ratios, const double *reps, int np, int resamples,
                  struct gl_ratio_ci *out);

/* ---- what a comparison found (src/cli/cmd_compare.c fills it, the store saves
 * and loads it, one renderer prints it) ---- */

/* The counters whose change is shown beside a ratio, B against A: bytes,
 * instructions, wavefronts and joules as a relative change, percentages as a
 * difference in points. */
enum { GL_CMPC_DRAM, GL_CMPC_L1HIT, GL_CMPC_L2HIT, GL_CMPC_OCC, GL_CMPC_EXCESS, GL_CMPC_INST,
       GL_CMPC_ENERGY, GL_CMP_NCOUNTERS };
struct gl_cmp_counter {
    const char *name;     /* column of the saved comparison and of --csv (_a, _b) */
    const char *label;    /* in the `why` text */
    int points;           /* 1: a percentage, its change in points; 0: relative change */
};
extern const struct gl_cmp_counter gl_cmp_counters[GL_CMP_NCOUNTERS];
/* The `why` text of a point: each counter known on both sides that moved by at
 * least 0.5 % (or 0.5 points), "DRAM bytes -48.0 %; L2 hit +12.1 pp"; "counters
 * unchanged" when none moved; "" when no counter is known on both sides. */
void gl_cmp_why(const double *ca, const double *cb, char *buf, size_t len);

struct gl_cmp_point {
    char *key;              /* every dimension of the point: "study=s variant=v n=1024" */
    char *label;            /* the dimensions that differ between points */
    long long run_a, run_b;
    int na, nb;             /* samples */
    double med_a, med_b;    /* ms */
    struct gl_ratio_ci ci;  /* median(B) / median(A) */
    double clock_a, clock_b;      /* MHz, NaN unknown */
    struct gl_ratio_ci clk;       /* the ratio of cycles (ci * clock_b / clock_a); NaN
                                     unless both clocks are known */
    enum gl_verdict verdict;
    char note[96];          /* why there is no verdict ("fewer than 4 samples"), else "" */
    double ca[GL_CMP_NCOUNTERS], cb[GL_CMP_NCOUNTERS];   /* NaN unknown */
};

struct gl_cmp_result {
    char *a_spec, *b_spec, *a_db, *b_db;   /* the sides as given, and their files */
    int a_runs, b_runs;                    /* ok runs each side selected */
    double threshold;                      /* relative (0.01 = 1 %) */
    char threshold_src[200];               /* where it came from */
    int resamples;
    unsigned long long seed;
    int by_clock;                          /* verdicts on the ratio of cycles */
    struct gl_ratio_ci geo;                /* geometric mean of the verdicts' ratios */
    int counts[4];                         /* per enum gl_verdict */
    int npoints;
    struct gl_cmp_point *points;           /* sorted: B/A largest first */
    int nonly_a, nonly_b;
    char **only_a, **only_b;               /* keys of points one side lacks */
    char *notes;                           /* lines for the reader ("" none) */
    char *created_at, *tool;
};
void gl_cmp_result_free(struct gl_cmp_result *r);

#ifdef __cplusplus
}
#endif

#endif

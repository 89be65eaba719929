/* stats.h - summary statistics of timing samples and the stopping rule of the
 * sampling loop, shared by the CPU harness, the GPU harness and the store, and
 * how a batch's shared wall time is split among its runs (the self-profile).
 * Must not time anything itself. */
#ifndef GL_STATS_H
#define GL_STATS_H

#include "gpulab.h"

struct gl_summary {
    int count;
    double median, mean, min, max, stddev;  /* ms; stddev is the sample stddev (n-1) */
    double rel_se;                          /* stddev / sqrt(n) / mean */
};

void gl_summarize(const double *samples, int n, struct gl_summary *s);
/* 1 when sampling should stop: n >= max_samples, elapsed >= max_seconds (with at
 * least one sample), or n >= min_samples and the relative standard error of the
 * mean is <= max_noise. */
int gl_sampling_done(const double *samples, int n, double elapsed_s, const struct gl_timing *t);
/* Share total_ms, the wall time of a batch of n runs handled together, among
 * them: run i's own part est[i] (what its kernels took, an estimate >= 0) plus
 * an even share of the rest. Where the estimates add up to more than the total
 * they are scaled down to it. Writes own[i] (the part of est[i] counted) and
 * share[i] (own[i] + the even share); the shares add up to total_ms. */
void gl_share_batch(const double *est, int n, double total_ms, double *own, double *share);
/* How many of the runs 0..n (n >= 1) go into one profiling session whose pass
 * holds at most cap ranges: the run that opens it takes first[i] ranges, a run
 * after it need[i]. At least one (a run that alone takes more than cap is a
 * session of its own: the profiler says what it lost). */
int gl_session_runs(const int *first, const int *need, int n, int cap);
/* A profiled batch of n runs that took total_ms: each run's instrumented
 * replay smem_ms[i] and its share of its collection sessions prof_ms[i] (of
 * which own_ms[i] is its own replays' time, measured or estimated, and
 * est_ms[i], its replays' estimated device time, is kernel time) are its own;
 * the rest of total_ms, what the batch did outside its sessions, is split
 * evenly (none when they add up to more). Writes counters[i] (prof_ms[i] + the
 * even share), busy[i] (the kernel time in it: est_ms[i], at most prof_ms[i])
 * and ranges[i] (what its own replays took beyond that: own_ms[i], at most
 * prof_ms[i], less busy[i], never below 0); counters[i] - busy[i] - ranges[i]
 * is then its share of the sessions' and the batch's own work. */
void gl_share_sessions(int n, double total_ms, const double *smem_ms, const double *prof_ms,
                       const double *own_ms, const double *est_ms, double *counters,
                       double *busy, double *ranges);

#endif

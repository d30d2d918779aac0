/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/stats.h - is a difference between two runs real?  Two answers from
 * the per-second throughput samples of each run:
 *
 *  - the two-sided Mann-Whitney U test (normal approximation with the tie
 *    correction and a continuity correction, as SciPy's
 *    mannwhitneyu(method="asymptotic") and R's wilcox.test(exact=FALSE)):
 *    a p-value that makes no assumption about the distributions' shape;
 *  - a percentile bootstrap confidence interval of the difference of the
 *    medians (B - A), from a fixed-seed generator so that the same files give
 *    the same interval every time.
 *
 * No state outside the caller's: the generator is a value the caller owns.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Below this many samples in either group the normal approximation is not
 * trusted, and hsmbench says "too few samples" instead of a verdict. */
#define BENCH_STATS_MIN_N       8
#define BENCH_STATS_RESAMPLES   2000
#define BENCH_STATS_SEED        0x68736d62656e6368ULL   /* "hsmbench" */

typedef struct bench_mw {
    size_t n1, n2;
    double u1;      /* U of the first sample: pairs (a, b) with a > b, ties counting 1/2 */
    double u2;      /* n1 * n2 - u1 */
    double z;       /* standardised statistic (continuity-corrected, >= 0) */
    double p;       /* two-sided p-value, 0..1 */
} bench_mw;

/*
 * Mann-Whitney U of a[0..na) against b[0..nb).  Returns 0; -1 when either
 * group has fewer than BENCH_STATS_MIN_N values (the figures are still
 * computed when both groups have at least one, but are not to be trusted for
 * a verdict); -2 when out of memory.  When every value is equal, p is 1.
 */
int bench_mann_whitney(const double *a, size_t na, const double *b, size_t nb, bench_mw *out);

/* Median of v[0..n) (mean of the two middle values for even n); 0 for n = 0.
 * v is not changed. */
double bench_median(const double *v, size_t n);

/* A small fast generator (xoshiro256**), seeded through splitmix64. */
typedef struct bench_rng {
    uint64_t s[4];
} bench_rng;

void     bench_rng_seed(bench_rng *r, uint64_t seed);
uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint64_t bench_rng_below(bench_rng *r, uint64_t n);

typedef struct bench_ci {
    double point;   /* median(b) - median(a) */
    double lo, hi;  /* the interval */
    double level;   /* 0.95 */
} bench_ci;

/*
 * Percentile bootstrap of median(b) - median(a): `resamples` times, draw na
 * values from a and nb from b with replacement, take the difference of the
 * medians; the interval is the (1-level)/2 and (1+level)/2 quantiles of those
 * differences.  Returns 0, -1 when a group is empty or level is not in
 * (0, 1), -2 when out of memory.
 */
int bench_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
                                unsigned resamples, double level, uint64_t seed, bench_ci *out);

/* ---- two runs' operations, from what each run kept of all of them -------------- */

/* A two-sample test of one figure: the difference (B - A), its standard
 * error and the two-sided p-value of the normal statistic. */
typedef struct bench_ztest {
    double diff, se, z, p;
} bench_ztest;

/*
 * Welch's two-sample test of means from each sample's mean, standard
 * deviation and count (a latency summary: mean_us, stddev_us, count), with
 * the normal approximation (the counts are those of a run's operations).
 * Returns 0; -1 when a count is below 2.
 */
int bench_mean_test(double ma, double sa, uint64_t na, double mb, double sb, uint64_t nb,
                    bench_ztest *out);

/*
 * The throughput of two closed-loop runs, from their latency histograms:
 * ops / duration of a run is a renewal process's rate, whose relative
 * standard error is the latency's coefficient of variation over the root of
 * the count (cv / sqrt(n); the caller gives one thread's count: the threads
 * of a closed loop stall together); the difference of the two rates is
 * tested with the normal approximation.  Returns 0; -1 when a count is below 2 or a
 * rate or mean is not positive.
 */
int bench_rate_test(double rate_a, double cv_a, uint64_t na, double rate_b, double cv_b, uint64_t nb,
                    bench_ztest *out);

/*
 * Quantile q (0 < q < 1) of two histograms: each one's standard error from
 * its distribution-free 95% interval (the order statistics at ranks
 * nq -+ 1.96 sqrt(nq(1-q))), the slot's width added as a uniform rounding
 * error, the difference tested with the normal approximation.  diff is in
 * the histograms' unit (ns).  Returns 0; -1 when either histogram holds too
 * few values for that quantile (n min(q, 1-q) < BENCH_STATS_MIN_TAIL).
 */
#define BENCH_STATS_MIN_TAIL 5
struct bench_hist;
int bench_quantile_test(const struct bench_hist *a, const struct bench_hist *b, double q, bench_ztest *out);

/*
 * Two proportions (errors of attempts): the pooled two-proportion z test.
 * Returns 0 (p = 1 when neither has any or both are all); -1 when a count
 * of attempts is 0.
 */
int bench_prop_test(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb, bench_ztest *out);

#endif

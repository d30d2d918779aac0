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

#endif

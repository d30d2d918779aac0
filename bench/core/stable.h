/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/stable.h - when is a run's throughput stable? (--until-stable)
 *
 * The sampler keeps, for the measured part, the successes/s of every
 * BENCH_STABLE_TICK_NS sub-interval; after each measured second it asks
 * bench_stable_eval whether the steady state is known well enough:
 *
 *  - warm-up from the data, MSER-5: the series in batches of 5 sub-intervals,
 *    the truncation d (in batches, over the first half) that minimises
 *    MSER(d) = sum_{j>d} (z_j - mean_d)^2 / (b - d)^2; ties keep the smaller d;
 *  - the interval by batch means on what follows: batches of 5 sub-intervals
 *    (0.5 s), doubled while there are more than BENCH_STABLE_MAX_BATCHES, and
 *    doubled again while the batch means' lag-1 autocorrelation is above
 *    BENCH_STABLE_MAX_LAG1 and BENCH_STABLE_MIN_BATCHES would remain; the
 *    latest whole batches are used; mean ± t(0.975, k-1) s / sqrt(k), the
 *    half-width widened by sqrt((1 + r) / (1 - r)) (r the lag-1
 *    autocorrelation, at most 0.95) when r is still above the bound;
 *  - stable when there are at least BENCH_STABLE_MIN_BATCHES batches and the
 *    half-width is at most the target percentage of the mean (the sampler
 *    also waits for BENCH_STABLE_MIN_NS of measured run).
 *
 * Pure arithmetic on an array: no clock, no pool (tests/unit/test_stable.c).
 */
#ifndef BENCH_STABLE_H
#define BENCH_STABLE_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_STABLE_TICK_NS    (100ULL * 1000 * 1000)   /* a sub-interval: 100 ms */
#define BENCH_STABLE_MSER_BATCH 5                        /* MSER-5 */
#define BENCH_STABLE_MIN_BATCHES 10
#define BENCH_STABLE_MAX_BATCHES 30
#define BENCH_STABLE_MAX_LAG1   0.2
#define BENCH_STABLE_MIN_NS     (5ULL * 1000000000ULL)   /* measured run before a stop */
#define BENCH_STABLE_BOUND_NS   (60ULL * 1000000000ULL)  /* --duration's default with it */
#define BENCH_STABLE_MAX_PCT    50.0

/* The results file's name of the method ("stable".method). */
#define BENCH_STABLE_METHOD "MSER-5 + batch means"
/* What the interval covers ("stable".covers, and every view's line): the
 * noise inside one run, not the token's rate from run to run. */
#define BENCH_STABLE_COVERS "this run's steady state"

/* How a run with --until-stable ended. */
typedef enum {
    BENCH_STABLE_OFF = 0,        /* no --until-stable */
    BENCH_STABLE_STOPPED,        /* the interval reached the target */
    BENCH_STABLE_BOUND,          /* ran to --duration first */
    BENCH_STABLE_CUT,            /* ended otherwise: a signal, an abort, a stuck call */
} bench_stable_stop;

/* The steady state as far as the series goes. */
typedef struct bench_stable {
    size_t warmup_n;       /* sub-intervals of warm-up found (MSER-5: 5 d) */
    size_t batch_n;        /* sub-intervals a batch */
    size_t batches;        /* k: batch means in the interval (0: too few for one) */
    double mean;           /* successes/s, the mean of the batch means */
    double half_width;     /* of the 95 % interval, successes/s (k >= 2) */
    double half_width_pct; /* of the mean; < 0 when the mean is 0 */
    double lag1;           /* the batch means' lag-1 autocorrelation */
    int    widened;        /* lag1 above BENCH_STABLE_MAX_LAG1: half_width widened */
    int    stable;         /* meets target_pct (min batches, lag-1, half-width) */
} bench_stable;

/* MSER-m truncation of x[0..n): d, in batches of m (so d*m values). */
size_t bench_stable_mser(const double *x, size_t n, size_t m);

/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1). */
double bench_stable_t975(unsigned df);

/*
 * The steady state of x[0..n) (successes/s per sub-interval) against
 * target_pct (0 < target_pct <= 50; 0: judge nothing, stable stays 0).
 */
void bench_stable_eval(const double *x, size_t n, double target_pct, bench_stable *out);

/* The same with batches that start at `batch` sub-intervals instead of
 * BENCH_STABLE_MSER_BATCH (0: that): a short run (a datasheet's step) gets
 * BENCH_STABLE_MIN_BATCHES batches sooner; the lag-1 check doubles them
 * where that is too short.  MSER keeps its batches of 5. */
void bench_stable_eval_batch(const double *x, size_t n, double target_pct, size_t batch,
                             bench_stable *out);

#endif

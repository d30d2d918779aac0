/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/verdict.h - has a run changed?  The verdict of one pair of
 * runs (a base A and a run B of the same test and setup), figure by figure,
 * from their run models: what `compare` prints and gates on, and what a
 * comparison of two datasheets calls test by test.
 *
 * Each figure gets its change (percent, or points for a percentage), the
 * test that judged it, its p-value and a verdict word:
 *  - ops_per_s: with BENCH_STATS_MIN_N per-second rates or more in each run,
 *    the Mann-Whitney U test of those rates (with a bootstrap interval of the
 *    difference of their medians); otherwise, closed loop, the rate test of
 *    the operations (bench_rate_test, the latency's coefficient of variation,
 *    one thread's count);
 *  - mean, p50, p99 of latency: Welch's test of the means; the quantile test
 *    of the two histograms (bench_quantile_test);
 *  - error_pct: the two-proportion test of errors among attempts;
 *  - each distribution of a workload section (a REST run's phases), by its
 *    threshold name: Welch's test of its means.
 * A figure changed (faster, slower, more or fewer errors) when its test says
 * p < BENCH_VERDICT_ALPHA and, but for error_pct, its change is at least
 * min_change_pct (compare --min-change, BENCH_VERDICT_MIN_CHANGE_PCT by
 * default: the tests see the noise within each run, not the run-to-run
 * noise of a machine doing other things); else "no change".  "not comparable" names why
 * (a run not measured, a latency incomplete, too few operations, no
 * histogram).  Nothing here prints.
 */
#ifndef BENCH_VERDICT_H
#define BENCH_VERDICT_H

#include <stddef.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/section.h"

#define BENCH_VERDICT_ALPHA          0.05
#define BENCH_VERDICT_MIN_CHANGE_PCT 3.0
#define BENCH_VERDICT_MAX_FIGS       24

typedef enum bench_change {
    BENCH_CHANGE_NONE = 0,        /* no change (within noise) */
    BENCH_CHANGE_BETTER,          /* faster, fewer errors */
    BENCH_CHANGE_WORSE,           /* slower, more errors */
    BENCH_CHANGE_NA,              /* not comparable (why says why) */
} bench_change;

/* What a figure is measured in. */
typedef enum bench_fig_unit { BENCH_UNIT_RATE, BENCH_UNIT_US, BENCH_UNIT_PCT } bench_fig_unit;

typedef struct bench_fig_cmp {
    char   name[48];          /* as a rule names it: ops_per_s, p99, a section's metric */
    char   label[48];         /* as people read it: "ops/s", "p99", "SECTION DIST" (its mean) */
    bench_fig_unit unit;
    int    lower_is_better;
    double a, b;              /* the figure in A and in B */
    int    has_pct;           /* a is not 0: pct holds the change in percent */
    double pct;               /* 100 (b - a) / a */
    double delta;             /* b - a, in the figure's unit (points for error_pct) */
    int    tested;            /* a test judged it: p, method */
    double p;
    int    significant;       /* tested and p < alpha */
    char   method[256];       /* "Mann-Whitney U of 9 and 9 per-second rates; 95% CI ..." */
    bench_change verdict;
    char   why[160];          /* not comparable: why; "" otherwise */
} bench_fig_cmp;

typedef struct bench_pair_cmp {
    double        min_change_pct;
    bench_fig_cmp figs[BENCH_VERDICT_MAX_FIGS];
    size_t        n;
} bench_pair_cmp;

/*
 * Compare run b with its base a (models of measured or unmeasured runs of
 * the same test and setup; the caller matches them).  run_a and run_b are
 * the runs' elements (for the sections' distributions; NULL: none), sections
 * the NULL-terminated workload sections (or NULL), min_change_pct the
 * smallest relative change a verdict calls a change.  Returns 0, -1 when
 * out of memory (a bootstrap).
 */
int bench_pair_compare(const bench_run_model *a, const bench_run_model *b, const json_t *run_a,
                       const json_t *run_b, const bench_section *const *sections, double min_change_pct,
                       bench_pair_cmp *out);

/* "faster", "slower", "more errors", "fewer errors", "no change", "not comparable". */
const char *bench_change_word(const bench_fig_cmp *f);

/* The figure named name, or NULL. */
const bench_fig_cmp *bench_pair_fig(const bench_pair_cmp *p, const char *name);

#endif

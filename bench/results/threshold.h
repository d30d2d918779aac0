/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/threshold.h - pass/fail criteria on a run's results, in the style of
 * k6's thresholds: `--threshold 'p99<50ms'`, repeatable.
 *
 *   EXPR   := [TEST ":"] METRIC OP VALUE
 *   METRIC := avg | med | min | max | pNN | p(NN) | rate | errors
 *             (pNN / p(NN): any percentile 0 < NN <= 100, "p99.9", "p(99.9)";
 *              "p999" is the results file's name for p(99.9))
 *   OP     := < | <= | > | >= | == | !=
 *   VALUE  := latency metrics: a number and a unit ns, us, µs, ms or s
 *             (no unit: ms, as in k6);
 *             rate: operations per second ("1000" or "1000/s");
 *             errors: a percentage of operations ("0.1%") or a count ("5").
 *
 * Side metrics of a workload section (section.h), by the section's names,
 * on runs that hold the section:
 *
 *   METRIC := ... | DIST ":" STAT | PCT | PCT ":rate" | COUNT | COUNT ":rate"
 *                 | COUNT ":count"
 *   STAT   := avg | med | min | max | pNN | p(NN), NN one of the percentiles
 *             a results file keeps: 50, 90, 95, 99, 99.9, 100
 *
 *   DIST:p95<200ms    a distribution's statistic; the value a latency (no
 *                     unit: ms), printed in the same unit
 *   PCT<1%            a percentage of the section's count ('%' required);
 *   PCT:rate<0.01     the same as a fraction 0..1
 *   COUNT>1000        the count per second of the run's duration; also :rate
 *   COUNT:count>=5000 the count itself
 *
 * A section's k6-shaped metrics (section.h's k6 kinds), by the section's
 * names, and a tag the section splits a metric by (its `tagged` hook):
 *
 *   METRIC := ... | NAME [ "{" TAG ":" VALUE "}" ] [ ":" STAT ]
 *
 *   RATE:rate>0.99        a rate: a fraction (or RATE>99%)
 *   TREND:p(95)<600       a trend: as DIST:STAT
 *   COUNTER>1000          a counter: per second, or COUNTER:count>100
 *   GAUGE:value<=70       a gauge: value (also bare), min or max
 *   NAME{TAG:VALUE}:STAT  the figure the hook names (its own kind)
 *
 * A tag the section does not split the metric by is refused, naming it.
 *
 * EXPR ":abort" or EXPR ":abort=TIME" (k6's abortOnFail, delayAbortEval):
 * the run driver judges the threshold on the run so far once a second,
 * from TIME into the measured run on, and stops the run when it fails
 * ('p99<1s:abort', 'errors<1%:abort=10s'); only for the run's own metrics
 * (latency, rate, errors), which it has while the run goes on.
 * A side threshold on a run without the section cannot be evaluated and
 * fails, with the section's reason in the block.
 *
 * Spaces around the parts are allowed.  TEST limits the threshold to the runs
 * of that test (rsa-pkcs-sign:p99<10ms); without it the
 * threshold applies to every measured run.
 */
#ifndef BENCH_THRESHOLD_H
#define BENCH_THRESHOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/section.h"

#define BENCH_THRESHOLD_EXPR_MAX 160
#define BENCH_THRESHOLD_TEST_MAX 64

typedef enum {
    BENCH_TM_AVG,          /* latency_us.mean */
    BENCH_TM_MED,          /* latency_us.p50 */
    BENCH_TM_MIN,
    BENCH_TM_MAX,
    BENCH_TM_PCT,          /* any percentile: pct */
    BENCH_TM_RATE,         /* ops_per_s */
    BENCH_TM_ERROR_PCT,    /* error_pct */
    BENCH_TM_ERROR_COUNT,  /* errors */
    BENCH_TM_SIDE_PCT,     /* a section's percentage (BENCH_SM_PCT) */
    BENCH_TM_SIDE_RATE,    /* a section's count / duration_s (BENCH_SM_COUNT) */
    BENCH_TM_SIDE_COUNT,   /* a section's count */
    BENCH_TM_SIDE_VALUE,   /* a gauge's value, min or max (BENCH_SM_GAUGE): gauge */
} bench_threshold_metric;

typedef enum { BENCH_OP_LT, BENCH_OP_LE, BENCH_OP_GT, BENCH_OP_GE, BENCH_OP_EQ, BENCH_OP_NE } bench_threshold_op;

typedef struct bench_threshold {
    char   expr[BENCH_THRESHOLD_EXPR_MAX];   /* as given */
    char   test[BENCH_THRESHOLD_TEST_MAX];   /* "" = every test */
    bench_threshold_metric metric;
    double pct;                              /* BENCH_TM_PCT: 0 < pct <= 100 */
    bench_threshold_op op;
    double value;      /* latency in µs, rate in ops/s, errors in % or a count */
    /* A side metric: its section and its entry there (NULL, NULL: the
     * run's own figures); the unit the expression gave (what the block
     * prints a distribution's figure in: "ms" when none), as a factor to
     * µs; for PCT:rate, fraction (printed 0..1, not in %). */
    const bench_section        *section;
    const bench_section_metric *side;
    char   unit[16];
    double unit_us;
    int    fraction;
    /* A k6 metric (BENCH_SM_TREND, _RATE, _COUNTER, _GAUGE), tagged or
     * not: the path of its figure in the section (bench_section_tagged's),
     * its kind, a counter's noun and rate unit, the metric as written
     * without blanks ("NAME{TAG:VALUE}"), and a
     * gauge's statistic ("value", "min", "max").  path "" otherwise. */
    char          path[128];
    bench_sm_kind kind;
    const char   *noun, *rate_unit;
    char          name[176];
    const char   *gauge;
    /* k6's abortOnFail (EXPR:abort) and delayAbortEval (EXPR:abort=TIME):
     * judged once a second on the run so far, after the delay, and the
     * run stopped when it fails (the run's own metrics only). */
    int           abort;
    uint64_t      abort_delay_ns;
} bench_threshold;

/*
 * Parse one expression; sections (NULL-terminated, or NULL) give the side
 * metrics it may name.  Returns 0, or -1 with a one-line reason in err that
 * names the expression: "--threshold 'p99<5xs': unknown unit 'xs' (use ns,
 * us, µs, ms or s)".
 */
int bench_threshold_parse(const char *expr, const bench_section *const *sections, bench_threshold *out,
                          char *err, size_t errlen);

/* True when the threshold applies to runs of this test. */
int bench_threshold_applies(const bench_threshold *t, const char *test);

/*
 * Evaluate a threshold on a run's model (bench_model_from_run of an element
 * of "runs"; the document may be NULL).  The run's own metrics are the
 * model's figures; a side metric is read from its section's object in the
 * element the model was read from (m->run).  Returns 1 when it holds,
 * 0 when it does not, -1 when it cannot be evaluated (the run was not
 * measured, or a percentile other than the stored ones is asked of a run
 * without a histogram, or a side metric of a run without its section or
 * with a zero count).  *observed receives the run's figure in the
 * threshold's unit (µs for latency, ops/s, % or a count of errors).
 */
int bench_threshold_eval(const bench_threshold *t, const bench_run_model *m, double *observed);

/* "p(99)=4.66ms", "rate=2877.77/s", "errors=0.00%": the observed value as k6
 * shows it.  Side metrics: a distribution in the expression's unit
 * ("p(95)=0.3131ms" for 'DIST:p95<200ms'), "PCT=0.00%", "rate=0.0000"
 * (PCT:rate), "rate=1234.50/s" and "count=5000" (COUNT). */
const char *bench_threshold_observed_text(const bench_threshold *t, double observed, char *buf,
                                          size_t len);

/*
 * Evaluate every threshold on every run of `runs` it applies to (each run
 * read once into its model, bench_threshold_eval's), add to each
 * such run a "thresholds" array of {"expr", "test", "ok", "observed"}
 * ("test" is the threshold's TEST part, or null; "observed" null when it
 * could not be evaluated, which counts as a failure), and, when f is not
 * NULL, print the k6-style block:
 *
 *     █ THRESHOLDS
 *
 *       rsa-pkcs-sign
 *       ✓ 'p99<50ms' p(99)=4.66ms
 *       ✗ 'rate>5000' rate=2877.77/s
 *
 * A threshold naming a test of which `runs` holds no run fails too; so
 * does a latency threshold (of the run's latency or a side distribution)
 * on a run whose latency_complete is false (a schedule not kept: more of
 * its requests never started than its bound), observed null, the block
 * saying "latency incomplete: N of M scheduled requests never started".
 * When failed_f is not NULL (--quiet: f is then NULL), each threshold that
 * failed is also one line there, the run's test, the expression and the
 * block's figure or reason:
 *
 *     hsmbench: threshold failed: rsa-pkcs-sign 'rate>5000' rate=2877.77/s
 *
 * Returns the number of failed checks (0: all passed), or -1 when out of
 * memory.  The caller exits BENCH_EXIT_THRESHOLD (99, as k6) when it is
 * not 0.
 */
int bench_thresholds_apply(const bench_threshold *ths, size_t n, json_t *runs, FILE *f, FILE *failed_f);

#endif

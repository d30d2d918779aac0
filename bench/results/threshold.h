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
 * HTTP metrics, with k6's names, on REST runs (their "http" object):
 *
 *   METRIC := ... | PHASE ":" STAT | http_req_failed | http_req_failed:rate
 *                 | http_reqs | http_reqs:rate | http_reqs:count
 *   PHASE  := http_req_blocked | http_req_connecting | http_req_tls_handshaking
 *             | http_req_sending | http_req_waiting | http_req_receiving
 *             | http_req_duration            (http.phases_us)
 *   STAT   := avg | med | min | max | pNN | p(NN), NN one of the percentiles
 *             a results file keeps: 50, 90, 95, 99, 99.9, 100
 *
 *   http_req_duration:p95<200ms   a phase's statistic; the value a latency
 *                                 (no unit: ms), printed in the same unit
 *   http_req_failed<1%            http.failed_pct, a percentage ('%' required);
 *   http_req_failed:rate<0.01     the same as k6 writes it, a fraction 0..1
 *   http_reqs>1000                requests per second over the run's duration
 *                                 (http.requests / duration_s); also :rate
 *   http_reqs:count>=5000         http.requests
 *
 * An HTTP threshold on a run without an "http" object (a PKCS#11 run) cannot
 * be evaluated and fails, named "no HTTP requests" in the block.
 *
 * Spaces around the parts are allowed.  TEST limits the threshold to the runs
 * of that test (ekm-wrap:http_req_duration:p99<10ms); without it the
 * threshold applies to every measured run.
 */
#ifndef BENCH_THRESHOLD_H
#define BENCH_THRESHOLD_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

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
    BENCH_TM_HTTP_FAILED,  /* http.failed_pct */
    BENCH_TM_HTTP_RATE,    /* http.requests / duration_s */
    BENCH_TM_HTTP_COUNT,   /* http.requests */
} bench_threshold_metric;

/* The k6 request phases, in the order of http.phases_us. */
#define BENCH_HTTP_PHASES 7
extern const char *const bench_http_phase_key[BENCH_HTTP_PHASES];   /* "blocked", ... "duration" */

typedef enum { BENCH_OP_LT, BENCH_OP_LE, BENCH_OP_GT, BENCH_OP_GE, BENCH_OP_EQ, BENCH_OP_NE } bench_threshold_op;

typedef struct bench_threshold {
    char   expr[BENCH_THRESHOLD_EXPR_MAX];   /* as given */
    char   test[BENCH_THRESHOLD_TEST_MAX];   /* "" = every test */
    bench_threshold_metric metric;
    double pct;                              /* BENCH_TM_PCT: 0 < pct <= 100 */
    bench_threshold_op op;
    double value;      /* latency in µs, rate in ops/s, errors in % or a count */
    /* HTTP: the phase of a latency metric (index into bench_http_phase_key),
     * -1 for the operations' latency; the unit the expression gave (what
     * the block prints the figure in: "ms" when none), as a factor to µs;
     * for http_req_failed:rate, fraction (printed 0..1, not in %). */
    int    phase;
    char   unit[16];
    double unit_us;
    int    fraction;
} bench_threshold;

/*
 * Parse one expression.  Returns 0, or -1 with a one-line reason in err that
 * names the expression: "--threshold 'p99<5xs': unknown unit 'xs' (use ns,
 * us, µs, ms or s)".
 */
int bench_threshold_parse(const char *expr, bench_threshold *out, char *err, size_t errlen);

/* True when the threshold applies to runs of this test. */
int bench_threshold_applies(const bench_threshold *t, const char *test);

/*
 * Evaluate a threshold on one element of "runs".  Returns 1 when it holds,
 * 0 when it does not, -1 when it cannot be evaluated (the run was not
 * measured, or a percentile other than the stored ones is asked of a run
 * without a histogram, or an HTTP metric of a run without "http" or without
 * requests).  *observed receives the run's figure in the
 * threshold's unit (µs for latency, ops/s, % or a count of errors).
 */
int bench_threshold_eval(const bench_threshold *t, const json_t *run, double *observed);

/* "p(99)=4.66ms", "rate=2877.77/s", "errors=0.00%": the observed value as k6
 * shows it.  HTTP metrics: in the expression's unit ("p(95)=0.3131ms" for
 * 'http_req_duration:p95<200ms'), "http_req_failed=0.00%", "rate=0.0000"
 * (:rate), "rate=1234.50/s" and "count=5000" (http_reqs). */
const char *bench_threshold_observed_text(const bench_threshold *t, double observed, char *buf,
                                          size_t len);

/*
 * Evaluate every threshold on every run of `runs` it applies to, add to each
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
 * A threshold naming a test of which `runs` holds no run fails too.
 * Returns the number of failed checks (0: all passed), or -1 when out of
 * memory.  The caller exits 1 when it is not 0.
 */
int bench_thresholds_apply(const bench_threshold *ths, size_t n, json_t *runs, FILE *f);

#endif

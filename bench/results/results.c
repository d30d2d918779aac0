/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/results.c - hsmbench.result/3 documents (and /2, /1, upgraded) after the run: loading,
 * validation, matching runs, and merging the files of several load
 * generators into one, exactly (see results.h).
 */
#include "bench/results/results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bench/util/cli.h"
#include "bench/util/outfile.h"
#include "bench/core/hist.h"
#include "bench/results/model.h"
#include "bench/results/repeat.h"
#include "bench/results/codec.h"
#include "bench/results/series.h"
#include "bench/results/target.h"

#define SCHEMA_FAMILY "hsmbench.result/"
/* No merged series may span more than this many seconds (8 days). */
#define MAX_SERIES_SECONDS (8LL * 24 * 3600)

/* ---- validation --------------------------------------------------------- */

/* What a field must be. */
enum { F_INT, F_UINT, F_NUM, F_NNUM, F_STR, F_OBJ, F_ARR };

static const char *kind_text(int kind)
{
    switch (kind) {
    case F_INT:  return "an integer";
    case F_UINT: return "a non-negative integer";
    case F_NUM:  return "a number";
    case F_NNUM: return "a non-negative number";
    case F_STR:  return "a string";
    case F_OBJ:  return "an object";
    case F_ARR:  return "an array";
    }
    return "valid";
}

static int kind_ok(const json_t *v, int kind)
{
    switch (kind) {
    case F_INT:  return json_is_integer(v);
    case F_UINT: return json_is_integer(v) && json_integer_value(v) >= 0;
    case F_NUM:  return json_is_number(v);
    case F_NNUM: return json_is_number(v) && json_number_value(v) >= 0;
    case F_STR:  return json_is_string(v);
    case F_OBJ:  return json_is_object(v);
    case F_ARR:  return json_is_array(v);
    }
    return 0;
}

/* obj[key] must exist and be of `kind`; where is the path of obj. */
static int need(const json_t *obj, const char *where, const char *key, int kind, char *err,
                size_t len)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || !kind_ok(v, kind)) {
        bench_seterr(err, len, "%s%s%s: %s %s", where, *where ? "." : "", key, v ? "is not" : "missing; expected",
               kind_text(kind));
        return -1;
    }
    return 0;
}

static int check_latency(const json_t *lat, const char *where, char *err, size_t len)
{
    static const char *const keys[] = { "min", "mean", "stddev", "p50", "p90", "p95", "p99", "p999", "max" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (need(lat, where, keys[i], F_NNUM, err, len) != 0)
            return -1;
    return need(lat, where, "count", F_UINT, err, len);
}

/* One second's place and counts against the run's: check_series' rule. */
static int second_fits(long long t, long long o, long long e, long long *sum_ops, long long *sum_errors,
                       const char *where, const char *at, long long max_t, long long ops, long long errors,
                       char *err, size_t len)
{
    if (max_t && t > max_t) {
        bench_seterr(err, len, "%s.t: second %lld is past the run's end (its duration_s ends in second %lld)",
                     at, t, max_t);
        return -1;
    }
    if (o > ops - *sum_ops || e > errors - *sum_errors) {
        bench_seterr(err, len, "%s: the series counts more %s than the run (%lld)", where,
                     o > ops - *sum_ops ? "operations" : "errors", o > ops - *sum_ops ? ops : errors);
        return -1;
    }
    *sum_ops += o;
    *sum_errors += e;
    return 0;
}

/*
 * The per-second series of a measured run: each second well formed, no
 * second past the run's own end (max_t; 0 when the run spans several
 * generators' clocks, as a merged one does), and its operations and errors
 * no more than the run's (they are the measured part's, so they add up to
 * at most its totals: a series is checked as strictly as a histogram, so
 * that merge cannot add a billion operations a file's run never had).
 */
static int check_series(const json_t *run, const char *where, long long max_t, long long ops,
                        long long errors, char *err, size_t len)
{
    long long sum_ops = 0, sum_errors = 0;
    size_t i;
    json_t *s;
    char at[160];
    if (bench_run_seconds_compact(run)) {
        /* read from the text: each second's form and range already checked */
        bench_seconds sec;
        if (bench_run_seconds(run, &sec) != 0) {
            bench_seterr(err, len, "out of memory");
            return -1;
        }
        int rc = 0;
        for (i = 0; rc == 0 && i < sec.n; i++) {
            const bench_model_second *x = &sec.s[i];
            snprintf(at, sizeof at, "%s[%zu]", where, i);
            rc = second_fits((long long)x->t, (long long)x->ops, (long long)x->errors, &sum_ops, &sum_errors,
                             where, at, max_t, ops, errors, err, len);
        }
        bench_seconds_release(&sec);
        return rc;
    }
    json_array_foreach(json_object_get(run, "per_second"), i, s) {
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        if (!json_is_object(s)) {
            bench_seterr(err, len, "%s: is not an object", at);
            return -1;
        }
        if (need(s, at, "t", F_UINT, err, len) || need(s, at, "span_s", F_NNUM, err, len) ||
            need(s, at, "ops", F_UINT, err, len) || need(s, at, "errors", F_UINT, err, len) ||
            need(s, at, "p50_us", F_NNUM, err, len) || need(s, at, "p99_us", F_NNUM, err, len))
            return -1;
        const json_t *target = json_object_get(s, "target");
        if (target && !json_is_null(target) && !kind_ok(target, F_NNUM)) {
            bench_seterr(err, len, "%s.target: is not a non-negative number", at);
            return -1;
        }
        if (second_fits(bench_json_int(s, "t", 0), bench_json_int(s, "ops", 0), bench_json_int(s, "errors", 0),
                        &sum_ops, &sum_errors, where, at, max_t, ops, errors, err, len) != 0)
            return -1;
    }
    return 0;
}

static int check_errors_by_code(const json_t *by, const char *where, char *err, size_t len)
{
    const char *code;
    json_t *v;
    json_object_foreach((json_t *)by, code, v) {
        if (!kind_ok(v, F_UINT)) {
            bench_seterr(err, len, "%s.%s: is not a non-negative integer", where, code);
            return -1;
        }
    }
    return 0;
}

static int check_histogram(const json_t *hj, bench_hist *scratch, const char *where, char *err,
                           size_t len)
{
    if (need(hj, where, "total", F_UINT, err, len) || need(hj, where, "counts", F_ARR, err, len))
        return -1;
    const char *unit = bench_json_str(hj, "unit", "ns");
    if (strcmp(unit, "ns") != 0) {
        bench_seterr(err, len, "%s.unit: \"%s\" is not \"ns\"", where, unit);
        return -1;
    }
    /* The counts, one by one: whole, non-negative, and a sum that fits. */
    size_t i;
    json_t *pair;
    uint64_t sum = 0;
    json_array_foreach(json_object_get(hj, "counts"), i, pair) {
        const json_t *cnt = json_array_get(pair, 1);
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(json_array_get(pair, 0)) ||
            !kind_ok(cnt, F_UINT)) {
            bench_seterr(err, len, "%s.counts[%zu]: is not an [index, count] pair of non-negative integers", where, i);
            return -1;
        }
        if (__builtin_add_overflow(sum, (uint64_t)json_integer_value(cnt), &sum) ||
            sum > BENCH_RESULTS_MAX_VALUE) {
            bench_seterr(err, len, "%s.counts: the counts add up past 2^53", where);
            return -1;
        }
    }
    if (bench_hist_from_json(hj, scratch) != 0) {
        bench_seterr(err, len, "%s: not a histogram this hsmbench can read (layout or counts)", where);
        return -1;
    }
    long long total = bench_json_int(hj, "total", -1);
    if ((unsigned long long)total != (unsigned long long)bench_hist_count(scratch)) {
        bench_seterr(err, len, "%s.total: %lld, but its counts add up to %llu", where, total,
               (unsigned long long)bench_hist_count(scratch));
        return -1;
    }
    return 0;
}

/* A run's "breakdown": per dimension an array of classes, each with the
 * run's own figures; their operations and errors add up to the run's. */
static int check_breakdown(const json_t *run, const char *at, bench_hist *scratch, char *err,
                           size_t len)
{
    const json_t *bd = json_object_get(run, "breakdown");
    char where[128], sub[256];
    if (!bd)
        return 0;
    snprintf(where, sizeof where, "%s.breakdown", at);
    if (!json_is_object(bd)) {
        bench_seterr(err, len, "%s: is not an object", where);
        return -1;
    }
    const char *dim;
    json_t *classes;
    json_object_foreach((json_t *)bd, dim, classes) {
        snprintf(where, sizeof where, "%s.breakdown.%s", at, dim);
        if (!json_is_array(classes) || json_array_size(classes) == 0) {
            bench_seterr(err, len, "%s: is not a non-empty array", where);
            return -1;
        }
        long long ops = 0, errors = 0;
        size_t j;
        json_t *cl;
        json_array_foreach(classes, j, cl) {
            char one[192];
            snprintf(one, sizeof one, "%s[%zu]", where, j);
            if (!json_is_object(cl)) {
                bench_seterr(err, len, "%s: is not an object", one);
                return -1;
            }
            if (need(cl, one, "class", F_STR, err, len) || need(cl, one, "ops", F_UINT, err, len) ||
                need(cl, one, "errors", F_UINT, err, len) ||
                need(cl, one, "ops_per_s", F_NNUM, err, len) ||
                need(cl, one, "latency_us", F_OBJ, err, len) ||
                need(cl, one, "errors_by_code", F_OBJ, err, len) ||
                need(cl, one, "histogram", F_OBJ, err, len))
                return -1;
            const json_t *wt = json_object_get(cl, "weight");
            if (wt && !kind_ok(wt, F_NNUM)) {
                bench_seterr(err, len, "%s.weight: is not a non-negative number", one);
                return -1;
            }
            snprintf(sub, sizeof sub, "%s.latency_us", one);
            if (check_latency(json_object_get(cl, "latency_us"), sub, err, len))
                return -1;
            snprintf(sub, sizeof sub, "%s.errors_by_code", one);
            if (check_errors_by_code(json_object_get(cl, "errors_by_code"), sub, err, len))
                return -1;
            snprintf(sub, sizeof sub, "%s.histogram", one);
            if (check_histogram(json_object_get(cl, "histogram"), scratch, sub, err, len))
                return -1;
            /* each is at most 2^53, so 64 bits hold the sum of any number of them */
            ops += bench_json_int(cl, "ops", 0);
            errors += bench_json_int(cl, "errors", 0);
            if (ops > (long long)BENCH_RESULTS_MAX_VALUE || errors > (long long)BENCH_RESULTS_MAX_VALUE)
                break;
        }
        if (ops != bench_json_int(run, "ops", 0) || errors != bench_json_int(run, "errors", 0)) {
            bench_seterr(err, len, "%s: its classes' operations and errors (%lld, %lld) are not the run's",
                   where, ops, errors);
            return -1;
        }
    }
    return 0;
}

static int check_stable(const json_t *run, const char *at, char *err, size_t len);
static int check_repeat(const json_t *run, const char *at, char *err, size_t len);

static int check_run(const json_t *run, size_t i, int version, int merged, bench_hist *scratch,
                     char *err, size_t len)
{
    char at[64], sub[96];
    snprintf(at, sizeof at, "runs[%zu]", i);
    if (!json_is_object(run)) {
        bench_seterr(err, len, "%s: is not an object", at);
        return -1;
    }
    if (need(run, at, "test", F_STR, err, len) || need(run, at, "mode", F_STR, err, len) ||
        need(run, at, "threads", F_UINT, err, len) || need(run, at, "data_size", F_UINT, err, len) ||
        need(run, at, "status", F_STR, err, len))
        return -1;
    static const char *const statuses[] = { "ok", "errors", "skipped", "interrupted", "failed" };
    const char *status = bench_json_str(run, "status", "");
    int known = 0;
    for (size_t k = 0; k < sizeof statuses / sizeof statuses[0]; k++)
        known |= strcmp(status, statuses[k]) == 0;
    if (!known) {
        bench_seterr(err, len, "%s.status: \"%s\" is not ok, errors, skipped, interrupted or failed", at,
                     status);
        return -1;
    }
    const json_t *key = json_object_get(run, "key");
    if (key && !json_is_null(key)) {
        snprintf(sub, sizeof sub, "%s.key", at);
        if (!json_is_object(key)) {
            bench_seterr(err, len, "%s: is not an object or null", sub);
            return -1;
        }
        if (need(key, sub, "type", F_STR, err, len) || need(key, sub, "bits", F_UINT, err, len))
            return -1;
    }
    const json_t *settings = json_object_get(run, "settings");
    if (settings) {
        snprintf(sub, sizeof sub, "%s.settings", at);
        if (!json_is_object(settings)) {
            bench_seterr(err, len, "%s: is not an object", sub);
            return -1;
        }
        if (need(settings, sub, "duration_s", F_NNUM, err, len) ||
            need(settings, sub, "iterations", F_UINT, err, len))
            return -1;
    }
    const json_t *ms = json_object_get(run, "measure_start_epoch_ms");
    if (ms && !kind_ok(ms, F_UINT)) {
        bench_seterr(err, len, "%s.measure_start_epoch_ms: is not a non-negative integer", at);
        return -1;
    }
    const json_t *cpu = json_object_get(run, "client_cpu");
    if (cpu && !kind_ok(cpu, F_NNUM)) {
        bench_seterr(err, len, "%s.client_cpu: is not a non-negative number", at);
        return -1;
    }
    if (check_repeat(run, at, err, len))
        return -1;
    if (!bench_run_measured(run))
        return 0;

    if (need(run, at, "duration_s", F_NNUM, err, len) || need(run, at, "ops", F_UINT, err, len) ||
        need(run, at, "errors", F_UINT, err, len) || need(run, at, "error_pct", F_NNUM, err, len) ||
        need(run, at, "ops_per_s", F_NNUM, err, len) || need(run, at, "bytes_per_s", F_NNUM, err, len) ||
        need(run, at, "latency_us", F_OBJ, err, len) || need(run, at, "errors_by_code", F_OBJ, err, len) ||
        need(run, at, "per_second", F_ARR, err, len) || need(run, at, "histogram", F_OBJ, err, len))
        return -1;
    if (version >= 3) {
        /* ops are the successes: attempts count the errors too */
        if (need(run, at, "attempts", F_UINT, err, len))
            return -1;
        if (bench_json_int(run, "attempts", 0) !=
            bench_json_int(run, "ops", 0) + bench_json_int(run, "errors", 0)) {
            bench_seterr(err, len, "%s.attempts: %lld is not ops + errors (%lld + %lld)", at,
                   bench_json_int(run, "attempts", 0), bench_json_int(run, "ops", 0),
                   bench_json_int(run, "errors", 0));
            return -1;
        }
    } else if (bench_json_int(run, "errors", 0) > bench_json_int(run, "ops", 0)) {
        /* /2 and /1: ops counted attempts */
        bench_seterr(err, len, "%s.errors: more errors than operations", at);
        return -1;
    }
    snprintf(sub, sizeof sub, "%s.latency_us", at);
    if (check_latency(json_object_get(run, "latency_us"), sub, err, len))
        return -1;
    snprintf(sub, sizeof sub, "%s.errors_by_code", at);
    if (check_errors_by_code(json_object_get(run, "errors_by_code"), sub, err, len))
        return -1;
    snprintf(sub, sizeof sub, "%s.per_second", at);
    /* ops counted the attempts before /3; a merged run's seconds are on
     * several generators' clocks, bounded by merge's own span check. */
    const long long ops = bench_json_int(run, "ops", 0), errors = bench_json_int(run, "errors", 0);
    const long long max_t = merged ? 0 : (long long)ceil(bench_json_num(run, "duration_s", 0)) + 2;
    if (check_series(run, sub, max_t,
                     version >= 3 ? ops : ops + errors, errors, err, len))
        return -1;
    snprintf(sub, sizeof sub, "%s.histogram", at);
    if (check_histogram(json_object_get(run, "histogram"), scratch, sub, err, len))
        return -1;
    if (check_breakdown(run, at, scratch, err, len))
        return -1;
    return check_stable(run, at, err, len);
}


/* obj[key], when there, is of `kind` and within [lo, hi]. */
static int may(const json_t *obj, const char *where, const char *key, int kind, double lo, double hi,
               char *err, size_t len)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!kind_ok(v, kind) || json_number_value(v) < lo || json_number_value(v) > hi) {
        bench_seterr(err, len, "%s.%s: %s is not %s from %g to %g", where, key,
                     json_is_number(v) ? "the value" : "it", kind_text(kind), lo, hi);
        return -1;
    }
    return 0;
}

/*
 * --until-stable's object, as the summary and the page show it: a target
 * from 0 to 50 %, how it stopped, times and counts that are not negative,
 * an interval in order around its mean (a file that says "stable" with a
 * low above the high, or a target of -3 %, is refused, not printed).
 */
static int check_stable(const json_t *run, const char *at, char *err, size_t len)
{
    const json_t *st = json_object_get(run, "stable");
    char sub[96];
    if (!st)
        return 0;
    snprintf(sub, sizeof sub, "%s.stable", at);
    if (!json_is_object(st)) {
        bench_seterr(err, len, "%s: is not an object", sub);
        return -1;
    }
    const double big = 1e15;
    if (need(st, sub, "target_pct", F_NUM, err, len) || need(st, sub, "stopped", F_STR, err, len) ||
        need(st, sub, "method", F_STR, err, len) || need(st, sub, "batches", F_UINT, err, len) ||
        may(st, sub, "target_pct", F_NUM, 1e-9, BENCH_STABLE_MAX_PCT, err, len) ||
        may(st, sub, "bound_s", F_NNUM, 0, big, err, len) || may(st, sub, "warmup_s", F_NNUM, 0, big, err, len) ||
        may(st, sub, "batch_s", F_NNUM, 0, big, err, len) || may(st, sub, "lag1", F_NUM, -1, 1, err, len) ||
        may(st, sub, "mean_ops_per_s", F_NNUM, 0, big, err, len) ||
        may(st, sub, "ci95_low", F_NUM, -big, big, err, len) || may(st, sub, "ci95_high", F_NUM, -big, big, err, len) ||
        may(st, sub, "half_width_pct", F_NNUM, 0, big, err, len))
        return -1;
    const char *stopped = json_string_value(json_object_get(st, "stopped"));
    if (strcmp(stopped, "stable") != 0 && strcmp(stopped, "bound") != 0 && strcmp(stopped, "interrupted") != 0) {
        bench_seterr(err, len, "%s.stopped: '%.40s' is not stable, bound or interrupted", sub, stopped);
        return -1;
    }
    const json_t *mean = json_object_get(st, "mean_ops_per_s");
    if (mean) {
        const json_t *lo = json_object_get(st, "ci95_low"), *hi = json_object_get(st, "ci95_high");
        if (!json_is_number(lo) || !json_is_number(hi) || json_number_value(lo) > json_number_value(mean) ||
            json_number_value(mean) > json_number_value(hi)) {
            bench_seterr(err, len, "%s: ci95_low, mean_ops_per_s and ci95_high are not three rates in order", sub);
            return -1;
        }
    }
    return 0;
}

/* run --repeat's mark: run k of n, 1 <= k <= n, 2 <= n <= BENCH_REPEAT_MAX
 * (what bench_repeats groups by). */
static int check_repeat(const json_t *run, const char *at, char *err, size_t len)
{
    const json_t *rp = json_object_get(run, "repeat");
    char sub[96];
    if (!rp)
        return 0;
    snprintf(sub, sizeof sub, "%s.repeat", at);
    if (!json_is_object(rp)) {
        bench_seterr(err, len, "%s: is not an object", sub);
        return -1;
    }
    if (need(rp, sub, "run", F_UINT, err, len) || need(rp, sub, "of", F_UINT, err, len) ||
        may(rp, sub, "of", F_UINT, 2, BENCH_REPEAT_MAX, err, len) ||
        may(rp, sub, "run", F_UINT, 1, (double)json_integer_value(json_object_get(rp, "of")), err, len))
        return -1;
    return 0;
}

/*
 * The capacity search's object, as report and the page show it: a thread
 * count of at least 1, a precision and a step that make sense, rates that
 * are not negative, bounds in order, steps that are objects with their
 * rate and verdict.  (A file that says -3 threads or a precision of -100 %
 * was printed as written before.)
 */
static int check_capacity(const json_t *cap, char *err, size_t len)
{
    if (!cap)
        return 0;
    if (!json_is_object(cap)) {
        bench_seterr(err, len, "capacity: is not an object");
        return -1;
    }
    const double big = 1e15;
    if (may(cap, "capacity", "threads", F_UINT, 1, 1e6, err, len) ||
        may(cap, "capacity", "precision", F_NUM, 1e-6, 1, err, len) ||
        may(cap, "capacity", "step_s", F_NUM, 1e-3, 1e7, err, len) ||
        may(cap, "capacity", "ops_per_s", F_NNUM, 0, big, err, len) ||
        may(cap, "capacity", "start_rate", F_NNUM, 0, big, err, len) ||
        may(cap, "capacity", "probe_ops_per_s", F_NNUM, 0, big, err, len))
        return -1;
    const json_t *b = json_object_get(cap, "bounds");
    if (b && !json_is_null(b)) {
        /* null where the search has none: no rate passed (low), or none
         * failed (high), as the driver writes them */
        const json_t *lo = json_array_get(b, 0), *hi = json_array_get(b, 1);
        if (!json_is_array(b) || json_array_size(b) != 2 || !(json_is_null(lo) || kind_ok(lo, F_NNUM)) ||
            !(json_is_null(hi) || kind_ok(hi, F_NNUM)) ||
            (kind_ok(lo, F_NNUM) && kind_ok(hi, F_NNUM) && json_number_value(lo) > json_number_value(hi))) {
            bench_seterr(err, len, "capacity.bounds: is not [low, high], two rates in order");
            return -1;
        }
    }
    const json_t *steps = json_object_get(cap, "steps");
    if (steps && !json_is_array(steps)) {
        bench_seterr(err, len, "capacity.steps: is not an array");
        return -1;
    }
    size_t i;
    const json_t *st;
    char at[64];
    json_array_foreach(steps, i, st) {
        snprintf(at, sizeof at, "capacity.steps[%zu]", i);
        if (!json_is_object(st)) {
            bench_seterr(err, len, "%s: is not an object", at);
            return -1;
        }
        if (need(st, at, "rate", F_NNUM, err, len) || may(st, at, "achieved", F_NNUM, 0, big, err, len) ||
            may(st, at, "error_pct", F_NNUM, 0, 100, err, len) ||
            may(st, at, "p50_us", F_NNUM, 0, big, err, len) || may(st, at, "p99_us", F_NNUM, 0, big, err, len) ||
            may(st, at, "scheduled", F_UINT, 0, big, err, len) || may(st, at, "late", F_UINT, 0, big, err, len) ||
            may(st, at, "dropped", F_UINT, 0, big, err, len))
            return -1;
        const json_t *pass = json_object_get(st, "pass");
        if (pass && !json_is_boolean(pass)) {
            bench_seterr(err, len, "%s.pass: is not true or false", at);
            return -1;
        }
    }
    return 0;
}

/* 3, 2 or 1 for the schemas this reads; 0 for another. */
static int schema_version(const char *s)
{
    if (strcmp(s, BENCH_RESULT_SCHEMA) == 0)
        return 3;
    if (strcmp(s, BENCH_RESULT_SCHEMA_V2) == 0)
        return 2;
    return strcmp(s, BENCH_RESULT_SCHEMA_V1) == 0 ? 1 : 0;
}

int bench_results_check(const json_t *doc, char *err, size_t len)
{
    if (!json_is_object(doc)) {
        bench_seterr(err, len, "not an hsmbench results file (not a JSON object)");
        return -1;
    }
    const json_t *schema = json_object_get(doc, "schema");
    if (!json_is_string(schema)) {
        bench_seterr(err, len, "not an hsmbench results file (no \"schema\")");
        return -1;
    }
    const char *s = json_string_value(schema);
    const int version = schema_version(s);
    if (!version) {
        if (strncmp(s, SCHEMA_FAMILY, strlen(SCHEMA_FAMILY)) == 0)
            bench_seterr(err, len, "schema %.64s is not supported; this hsmbench reads %s, %s and %s", s,
                   BENCH_RESULT_SCHEMA_V1, BENCH_RESULT_SCHEMA_V2, BENCH_RESULT_SCHEMA);
        else
            bench_seterr(err, len, "not an hsmbench results file (schema \"%.64s\")", s);
        return -1;
    }
    const json_t *env = json_object_get(doc, "environment");
    if (env && !json_is_object(env)) {
        bench_seterr(err, len, "environment: is not an object");
        return -1;
    }
    if (bench_target_check(env, err, len) != 0)
        return -1;
    const json_t *start = json_object_get(doc, "started_at_epoch_ms");
    if (start && !kind_ok(start, F_UINT)) {
        bench_seterr(err, len, "started_at_epoch_ms: is not a non-negative integer");
        return -1;
    }
    if (check_capacity(json_object_get(doc, "capacity"), err, len) != 0)
        return -1;
    const json_t *runs = json_object_get(doc, "runs");
    if (!json_is_array(runs)) {
        bench_seterr(err, len, "runs: %s", runs ? "is not an array" : "missing");
        return -1;
    }
    if (json_array_size(runs) == 0) {
        bench_seterr(err, len, "no runs");
        return -1;
    }
    bench_hist *scratch = bench_hist_new();
    if (!scratch) {
        bench_seterr(err, len, "out of memory");
        return -1;
    }
    const int merged = json_object_get(doc, "generators") != NULL || json_object_get(doc, "merged_from") != NULL;
    int rc = 0;
    size_t i;
    json_t *run;
    json_array_foreach(runs, i, run) {
        if (check_run(run, i, version, merged, scratch, err, len) != 0) {
            rc = -1;
            break;
        }
    }
    bench_hist_free(scratch);
    return rc;
}

/* ---- screening: numbers in range, text safe to print -------------------- */

/* Append "key" or "[i]" to a path being walked; returns the old length. */
static size_t path_push(char *path, size_t cap, const char *key, size_t index)
{
    size_t n = strlen(path);
    if (key)
        snprintf(path + n, cap - n, "%s%s", n ? "." : "", key);
    else
        snprintf(path + n, cap - n, "[%zu]", index);
    return n;
}

/* Whether text holds a control character a terminal acts on: C0, DEL,
 * C1 (U+0080..U+009F as UTF-8), or a NUL inside the string. */
static int needs_escape(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < n && (unsigned char)t[i + 1] < 0xa0 &&
                                      (unsigned char)t[i + 1] >= 0x80))
            return 1;
    }
    return 0;
}

/* A copy of text with each such character written as \xNN (U+0080..U+009F
 * as \u0080..); NULL when out of memory. */
static char *escape_text(const char *t, size_t n)
{
    char *out = malloc(n * 6 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x20 || c == 0x7f) {
            o += sprintf(o, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < n && (unsigned char)t[i + 1] >= 0x80 &&
                   (unsigned char)t[i + 1] < 0xa0) {
            o += sprintf(o, "\\u%04x", (unsigned char)t[i + 1]);
            i++;
        } else {
            *o++ = (char)c;
        }
    }
    *o = 0;
    return out;
}

/*
 * Walk the whole document: every number must be finite and at most
 * BENCH_RESULTS_MAX_VALUE in size (then no sum of a file's counts, nor of
 * 4096 files' rates, can overflow what reads it); every string and key
 * with a control character is replaced by its escaped copy, so report,
 * compare and merge never print an ESC or CR from a file.
 */
static int screen(json_t *v, char *path, size_t cap, char *err, size_t len)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x > (json_int_t)BENCH_RESULTS_MAX_VALUE || x < -(json_int_t)BENCH_RESULTS_MAX_VALUE) {
            bench_seterr(err, len, "%s: %lld is out of range (at most 2^53)", *path ? path : "(document)",
                   (long long)x);
            return -1;
        }
        return 0;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v);
        if (!isfinite(x) || fabs(x) > (double)BENCH_RESULTS_MAX_VALUE) {
            bench_seterr(err, len, "%s: %g is out of range (at most 2^53)", *path ? path : "(document)", x);
            return -1;
        }
        return 0;
    }
    if (json_is_string(v)) {
        const char *t = json_string_value(v);
        size_t n = json_string_length(v);
        if (!needs_escape(t, n))
            return 0;
        char *safe = escape_text(t, n);
        if (!safe || json_string_set(v, safe) != 0) {
            free(safe);
            bench_seterr(err, len, "out of memory");
            return -1;
        }
        free(safe);
        return 0;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            size_t keep = path_push(path, cap, NULL, i);
            int rc = screen(e, path, cap, err, len);
            path[keep] = 0;
            if (rc != 0)
                return -1;
        }
        return 0;
    }
    if (json_is_object(v)) {
        const char *key;
        json_t *e, *tmp;
        json_object_foreach_safe(v, tmp, key, e) {
            size_t keep = path_push(path, cap, key, 0);
            int rc = screen(e, path, cap, err, len);
            path[keep] = 0;
            if (rc != 0)
                return -1;
            if (needs_escape(key, strlen(key))) {
                char *safe = escape_text(key, strlen(key));
                if (!safe || json_object_set(v, safe, e) != 0 || json_object_del(v, key) != 0) {
                    free(safe);
                    bench_seterr(err, len, "out of memory");
                    return -1;
                }
                free(safe);
            }
        }
    }
    return 0;
}

/*
 * A /1 file's ops_per_s counted every operation, failed ones included; /2
 * counts successes there and adds attempts and attempts_per_s.  A /2 file's
 * ops (of a run, of each second, of each class) still counted attempts; /3
 * makes them the successes (ops - errors) and keeps attempts beside them.
 * Read an older file as /3 says, so that compare, merge, report and
 * thresholds mean one thing; "upgraded_from" keeps the file's own schema.
 */
static int ops_to_successes(json_t *obj)
{
    const long long ops = bench_json_int(obj, "ops", 0), errs = bench_json_int(obj, "errors", 0);
    return json_object_set_new(obj, "ops", json_integer(ops >= errs ? ops - errs : 0)) ||
           json_object_set_new(obj, "attempts", json_integer(ops));
}

/* The same for a series read compactly: each second's ops less its errors. */
static int compact_to_successes(json_t *run)
{
    bench_seconds sec;
    if (!bench_run_seconds_compact(run))
        return 0;
    if (bench_run_seconds(run, &sec) != 0)
        return -1;
    const size_t n = sec.n;
    bench_model_second *up = malloc(n * sizeof *up);
    for (size_t k = 0; up && k < n; k++) {
        up[k] = sec.s[k];
        up[k].ops = up[k].ops >= up[k].errors ? up[k].ops - up[k].errors : 0;
    }
    bench_seconds_release(&sec);
    const int rc = up ? bench_run_seconds_set(run, up, n) : -1;
    free(up);
    return rc;
}

static int upgrade(json_t *doc)
{
    const char *schema = bench_json_str(doc, "schema", "");
    const int version = schema_version(schema);
    if (version >= 3)
        return 0;
    int bad = json_object_set_new(doc, "upgraded_from", json_string(schema));
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run) {
        if (!bench_run_measured(run))
            continue;
        const long long ops = bench_json_int(run, "ops", 0), errs = bench_json_int(run, "errors", 0);
        if (version == 1 && !json_object_get(run, "attempts")) {
            const double d = bench_json_num(run, "duration_s", 0);
            bad |= json_object_set_new(run, "attempts_per_s", json_real(bench_json_num(run, "ops_per_s", 0)));
            bad |= json_object_set_new(
                run, "ops_per_s",
                json_real(d > 0 && ops >= errs ? round((double)(ops - errs) / d * 100) / 100 : 0));
        }
        bad |= ops_to_successes(run);
        size_t k;
        json_t *sec;
        json_array_foreach(json_object_get(run, "per_second"), k, sec) {
            const long long so = bench_json_int(sec, "ops", 0), se = bench_json_int(sec, "errors", 0);
            bad |= json_object_set_new(sec, "ops", json_integer(so >= se ? so - se : 0));
        }
        bad |= compact_to_successes(run);
        const char *dim;
        json_t *classes;
        json_object_foreach(json_object_get(run, "breakdown"), dim, classes) {
            json_t *cl;
            json_array_foreach(classes, k, cl)
                bad |= ops_to_successes(cl);
        }
    }
    bad |= json_object_set_new(doc, "schema", json_string(BENCH_RESULT_SCHEMA));
    return bad ? -1 : 0;
}

/* A parsed document screened, given its compact series and checked, or
 * NULL with why in err; t is emptied either way. */
static json_t *checked(json_t *doc, const json_error_t *je, bench_series_table *t, const char *name, char *err,
                       size_t len)
{
    /* jansson reports some failed allocations as out_of_memory and others
     * not at all (no text, line -1): neither is the file's fault. */
    if (!doc && (json_error_code(je) == json_error_out_of_memory || !je->text[0])) {
        bench_series_table_free(t);
        bench_seterr(err, len, "out of memory reading %s", name);
        return NULL;
    }
    if (!doc) {
        bench_series_table_free(t);
        bench_seterr(err, len, "%s: bad JSON at line %d, column %d: %s", name, je->line, je->column, je->text);
        return NULL;
    }
    char why[512], where[256] = "";
    /* The series after the screen: they were screened as they were read,
     * and their bytes are not text. */
    if (screen(doc, where, sizeof where, why, sizeof why) != 0) {
        bench_series_table_free(t);
        bench_seterr(err, len, "%s: %s", name, why);
        json_decref(doc);
        return NULL;
    }
    if (bench_series_attach(doc, t) != 0) {
        bench_seterr(err, len, "out of memory reading %s", name);
        json_decref(doc);
        return NULL;
    }
    if (bench_results_check(doc, why, sizeof why) != 0) {
        bench_seterr(err, len, "%s: %s", name, why);
        json_decref(doc);
        return NULL;
    }
    if (upgrade(doc) != 0) {
        bench_seterr(err, len, "out of memory reading %s", name);
        json_decref(doc);
        return NULL;
    }
    /* Files written before issue 41 said ok of runs with failed operations. */
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run) {
        if (bench_model_settle_status(run) != 0) {
            bench_seterr(err, len, "out of memory reading %s", name);
            json_decref(doc);
            return NULL;
        }
    }
    return doc;
}

/*
 * The document in buf[0..n-1] (taken: freed here): its runs' series read
 * out of the text first (series.h), then the rest, much smaller, parsed by
 * jansson, then the text freed before anything else is allocated.
 */
static json_t *parse_text(const char *name, char *buf, size_t n, char *err, size_t len)
{
    bench_series_table t;
    if (bench_series_extract(buf, n, &t) != 0) {
        bench_series_table_free(&t);
        free(buf);
        bench_seterr(err, len, "out of memory reading %s", name);
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
    free(buf);
    return checked(doc, &je, &t, name, err, len);
}

/* All of f, up to one byte past the size limit; size is the file's when
 * known (a pipe has none).  0, -1 out of memory, -2 a read error. */
static int read_all(FILE *f, size_t size, char **out, size_t *n)
{
    size_t cap = size ? size + 1 : 1 << 16, have = 0;
    char *buf = malloc(cap);
    *out = NULL;
    *n = 0;
    if (!buf)
        return -1;
    for (;;) {
        if (have == cap) {
            if (cap > BENCH_RESULTS_MAX_BYTES)
                break;       /* past the limit: the caller says so */
            size_t more = cap * 2 > (size_t)BENCH_RESULTS_MAX_BYTES + 1 ? (size_t)BENCH_RESULTS_MAX_BYTES + 1 : cap * 2;
            char *p = realloc(buf, more);
            if (!p) {
                free(buf);
                return -1;
            }
            buf = p;
            cap = more;
        }
        const size_t got = fread(buf + have, 1, cap - have, f);
        have += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        return -2;
    }
    *out = buf;
    *n = have;
    return 0;
}

json_t *bench_results_load(const char *path, char *err, size_t len)
{
    char why[128];
    const int fd = bench_open_input(path, 0, why, sizeof why);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        bench_seterr(err, len, "%s: %s", path, fd >= 0 ? strerror(errno) : why);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct stat st;
    const int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (regular && st.st_size > (off_t)BENCH_RESULTS_MAX_BYTES) {
        bench_seterr(err, len, "%s: %lld bytes, larger than the %d MiB a results file may be", path,
               (long long)st.st_size, BENCH_RESULTS_MAX_BYTES >> 20);
        fclose(f);
        return NULL;
    }
    /* The whole file in one buffer: its series are read out of the text
     * before jansson sees it (a long run's file is mostly its series). */
    char *buf;
    size_t n;
    const int rc = read_all(f, regular ? (size_t)st.st_size : 0, &buf, &n);
    if (fclose(f) != 0 || rc == -2) {
        free(buf);
        bench_seterr(err, len, "%s: cannot read the file", path);
        return NULL;
    }
    if (rc == -1) {
        bench_seterr(err, len, "out of memory reading %s", path);
        return NULL;
    }
    if (n > BENCH_RESULTS_MAX_BYTES) {
        free(buf);
        bench_seterr(err, len, "%s: larger than the %d MiB a results file may be", path,
               BENCH_RESULTS_MAX_BYTES >> 20);
        return NULL;
    }
    return parse_text(path, buf, n, err, len);
}

json_t *bench_results_parse(const char *name, const char *buf, size_t n, char *err, size_t len)
{
    if (n > BENCH_RESULTS_MAX_BYTES) {
        bench_seterr(err, len, "%s: larger than the %d MiB a results file may be", name,
               BENCH_RESULTS_MAX_BYTES >> 20);
        return NULL;
    }
    char *copy = malloc(n ? n : 1);     /* the series are blanked in the text */
    if (!copy) {
        bench_seterr(err, len, "out of memory reading %s", name);
        return NULL;
    }
    if (n)
        memcpy(copy, buf, n);
    return parse_text(name, copy, n, err, len);
}

/* ---- merging ------------------------------------------------------------ */

/* One input run taking part in a merge. */
typedef struct mrun {
    const json_t *run;
    const char   *name;    /* its file */
    long long     start_ms;
    char          field[32];     /* "runs[3]": where the run sits in its file */
} mrun;

/* One wall-clock second of the merged series. */
typedef struct msec {
    long long ops, errors;
    double   span_s, p50, p99, target;
    int      used, has_target;
} msec;

static double us2(double ns)
{
    return round(ns / 10.0) / 100.0;   /* µs with two decimals, as report.c writes them */
}

/* latency_us exactly as bench/results/report.c computes it from a histogram. */
static json_t *latency_from_hist(const bench_hist *h)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}",
                     "min", us2((double)bench_hist_min(h)), "mean", us2(bench_hist_mean(h)),
                     "stddev", us2(bench_hist_stddev(h)),
                     "p50", us2((double)bench_hist_percentile(h, 50)),
                     "p90", us2((double)bench_hist_percentile(h, 90)),
                     "p95", us2((double)bench_hist_percentile(h, 95)),
                     "p99", us2((double)bench_hist_percentile(h, 99)),
                     "p999", us2((double)bench_hist_percentile(h, 99.9)),
                     "max", us2((double)bench_hist_max(h)),
                     "count", (json_int_t)bench_hist_count(h));
}

typedef struct code_count {
    const char *code;
    long long   count;
} code_count;

static int cmp_code_count(const void *a, const void *b)
{
    const code_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;     /* most frequent first */
    return strcmp(x->code, y->code);
}

/* *acc += v, refused when the sum passes BENCH_RESULTS_MAX_VALUE (inputs
 * are each at most that, so the addition itself cannot overflow). */
static int add_count(long long *acc, long long v, const char *name, const char *field, char *err,
                     size_t len)
{
    if (v < 0 || *acc > (long long)BENCH_RESULTS_MAX_VALUE - v) {
        bench_seterr(err, len, "%s: %s: the merged sum passes 2^53", name, field);
        return -1;
    }
    *acc += v;
    return 0;
}

static int cmp_code_name(const void *a, const void *b)
{
    return strcmp(((const code_count *)a)->code, ((const code_count *)b)->code);
}

int bench_merge_add(long long *acc, long long v, const char *name, const char *field, char *err,
                    size_t len)
{
    return add_count(acc, v, name, field, err, len);
}

json_t *bench_merge_counts(const bench_merge_in *in, size_t n, const char *key, int by_count,
                           char *err, size_t len)
{
    json_t *sum = json_object(), *out = NULL;
    code_count *list = NULL;
    if (!sum)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *from = in[i].obj;
        const char *code;
        json_t *v;
        json_object_foreach(json_object_get(from, key), code, v) {
            if (!json_is_integer(v))
                continue;
            long long acc = bench_json_int(sum, code, 0);
            char field[200];
            snprintf(field, sizeof field, "%s.%s.%s", in[i].field, key, code);
            if (add_count(&acc, (long long)json_integer_value(v), in[i].name, field, err, len) != 0) {
                json_decref(sum);
                return NULL;
            }
            if (json_object_set_new(sum, code, json_integer(acc)) != 0)
                goto done;
        }
    }
    size_t k = json_object_size(sum), j = 0;
    list = calloc(k ? k : 1, sizeof *list);
    if (!list)
        goto done;
    const char *code;
    json_t *v;
    json_object_foreach(sum, code, v) {
        list[j].code = code;
        list[j].count = (long long)json_integer_value(v);
        j++;
    }
    qsort(list, k, sizeof *list, by_count ? cmp_code_count : cmp_code_name);
    out = json_object();
    for (j = 0; out && j < k; j++) {
        if (json_object_set_new(out, list[j].code, json_integer(list[j].count)) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
done:
    free(list);
    json_decref(sum);
    return out;
}

/* The counts of object `key` of every input run summed by name
 * (bench_merge_counts).  NULL when out of memory or a sum passes 2^53. */
static json_t *merge_counts(const mrun *in, size_t n, const char *key, int by_count, char *err, size_t len)
{
    bench_merge_in *m = calloc(n ? n : 1, sizeof *m);
    if (!m) {
        bench_seterr(err, len, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        m[i] = (bench_merge_in){ in[i].run, in[i].name, in[i].field };
    json_t *out = bench_merge_counts(m, n, key, by_count, err, len);
    free(m);
    return out;
}

/* errors_by_code of all inputs summed, most frequent first. */
static json_t *merge_codes(const mrun *in, size_t n, char *err, size_t len)
{
    return merge_counts(in, n, "errors_by_code", 1, err, len);
}

static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The input runs' series (bench_run_seconds), released with release_series. */
static bench_seconds *input_series(const mrun *in, size_t n)
{
    bench_seconds *sec = calloc(n ? n : 1, sizeof *sec);
    for (size_t i = 0; sec && i < n; i++)
        if (bench_run_seconds(in[i].run, &sec[i]) != 0) {
            while (i--)
                bench_seconds_release(&sec[i]);
            free(sec);
            sec = NULL;
        }
    return sec;
}

static void release_series(bench_seconds *sec, size_t n)
{
    for (size_t i = 0; sec && i < n; i++)
        bench_seconds_release(&sec[i]);
    free(sec);
}

/* The per-second series of all inputs, aligned by wall-clock second, into
 * out, compactly (its "per_second"); 0, or -1 with err set. */
static int merge_series(json_t *out, const mrun *in, size_t n, char *err, size_t len)
{
    long long lo = 0, hi = 0;
    size_t lo_in = 0, hi_in = 0;     /* which input holds each end */
    int any = 0;
    bench_seconds *sec = input_series(in, n);
    if (!sec) {
        bench_seterr(err, len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sec[i].n; k++) {
            long long at = floor_div(in[i].start_ms + (long long)sec[i].s[k].t * 1000, 1000);
            if (!any || at < lo) {
                lo = at;
                lo_in = i;
            }
            if (!any || at > hi) {
                hi = at;
                hi_in = i;
            }
            any = 1;
        }
    if (!any) {
        release_series(sec, n);
        if (bench_run_seconds_set(out, NULL, 0) == 0)
            return 0;
        bench_seterr(err, len, "out of memory");
        return -1;
    }
    if (hi - lo >= MAX_SERIES_SECONDS) {
        bench_seterr(err, len, "%s and %s: %s: their per-second series are more than 8 days of wall-clock "
                     "time apart (measurement starts far apart?)",
                     in[lo_in].name, in[hi_in].name, bench_json_str(in[0].run, "test", "?"));
        release_series(sec, n);
        return -1;
    }
    size_t nsec = (size_t)(hi - lo + 1);
    msec *secs = calloc(nsec, sizeof *secs);
    bench_model_second *series = secs ? calloc(nsec, sizeof *series) : NULL;
    if (!series) {
        bench_seterr(err, len, "out of memory");
        free(secs);
        release_series(sec, n);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        for (size_t k = 0; k < sec[i].n; k++) {
            const bench_model_second *s = &sec[i].s[k];
            msec *m = &secs[floor_div(in[i].start_ms + (long long)s->t * 1000, 1000) - lo];
            long long ops = (long long)s->ops, errors = (long long)s->errors;
            char field[96];
            snprintf(field, sizeof field, "%s.per_second[%zu].ops", in[i].field, k);
            if (add_count(&m->ops, ops, in[i].name, field, err, len) != 0 ||
                add_count(&m->errors, errors, in[i].name, field, err, len) != 0) {
                rc = -1;
                break;
            }
            m->used = 1;
            m->span_s = fmax(m->span_s, s->span_s);
            if (ops > 0) {     /* ops are the successes, which the percentiles are of */
                m->p50 = fmax(m->p50, s->p50_us);
                m->p99 = fmax(m->p99, s->p99_us);
            }
            if (s->has_target) {
                m->target += s->target;
                m->has_target = 1;
            }
        }
    }
    release_series(sec, n);
    for (size_t k = 0; rc == 0 && k < nsec; k++) {
        const msec *m = &secs[k];
        series[k] = (bench_model_second){ .t = (double)(k + 1),
                                          .span_s = m->used ? round(m->span_s * 1000) / 1000 : 1.0,
                                          .ops = (uint64_t)m->ops, .errors = (uint64_t)m->errors,
                                          .p50_us = m->p50, .p99_us = m->p99,
                                          .has_target = m->has_target, .target = m->target };
    }
    free(secs);
    if (rc == 0 && bench_run_seconds_set(out, series, nsec) != 0) {
        bench_seterr(err, len, "out of memory");
        rc = -1;
    }
    free(series);
    return rc;
}

/* The measured part of the merged run: counts, rates, latency, series, histogram. */
static int merge_measured(json_t *out, const mrun *in, size_t n, char *err, size_t len)
{
    bench_hist *sum = bench_hist_new(), *one = bench_hist_new();
    int rc = -1;
    if (!sum || !one) {
        bench_seterr(err, len, "out of memory");
        goto done;
    }
    long long ops = 0, errors = 0, clamped = 0, start = 0, total = 0;
    double duration = 0, rate = 0, arate = 0, bps = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *r = in[i].run;
        const json_t *hj = json_object_get(r, "histogram");
        if (bench_hist_from_json(hj, one) != 0) {
            bench_seterr(err, len, "%s: %s: unreadable histogram", in[i].name, bench_json_str(r, "test", "?"));
            goto done;
        }
        char f_hist[96], f_ops[96], f_err[96], f_cl[96];
        snprintf(f_hist, sizeof f_hist, "%s.histogram.total", in[i].field);
        snprintf(f_ops, sizeof f_ops, "%s.ops", in[i].field);
        snprintf(f_err, sizeof f_err, "%s.errors", in[i].field);
        snprintf(f_cl, sizeof f_cl, "%s.histogram.clamped", in[i].field);
        if (add_count(&total, bench_json_int(hj, "total", 0), in[i].name, f_hist, err, len) != 0 ||
            add_count(&clamped, bench_json_int(hj, "clamped", 0), in[i].name, f_cl, err, len) != 0 ||
            add_count(&ops, bench_json_int(r, "ops", 0), in[i].name, f_ops, err, len) != 0 ||
            add_count(&errors, bench_json_int(r, "errors", 0), in[i].name, f_err, err, len) != 0)
            goto done;
        bench_hist_add(sum, one);     /* no slot can pass the total's 2^53 */
        duration = fmax(duration, bench_json_num(r, "duration_s", 0));
        rate += bench_json_num(r, "ops_per_s", 0);
        arate += bench_json_num(r, "attempts_per_s", bench_json_num(r, "ops_per_s", 0));
        bps += bench_json_num(r, "bytes_per_s", 0);
        if (i == 0 || in[i].start_ms < start)
            start = in[i].start_ms;
    }
    /* bench_hist_from_json leaves clamped at 0: restore the exact sum. */
    atomic_store_explicit(&sum->clamped, (uint64_t)clamped, memory_order_relaxed);

    json_t *codes = merge_codes(in, n, err, len);
    json_t *lat = latency_from_hist(sum);
    json_t *hist = bench_hist_to_json(sum);
    if (!codes || !lat || !hist) {
        /* merge_codes explains its own failures; the rest is memory. */
        if (err && !*err)
            bench_seterr(err, len, "out of memory");
        json_decref(codes);
        json_decref(lat);
        json_decref(hist);
        goto done;
    }
    if (json_object_set_new(out, "duration_s", json_real(round(duration * 1e6) / 1e6)) ||
        json_object_set_new(out, "ops", json_integer(ops)) ||
        json_object_set_new(out, "errors", json_integer(errors)) ||
        json_object_set_new(out, "error_pct",
                            json_real(ops + errors ? 100.0 * (double)errors / (double)(ops + errors) : 0.0)) ||
        json_object_set_new(out, "ops_per_s", json_real(round(rate * 100) / 100)) ||
        json_object_set_new(out, "attempts", json_integer(ops + errors)) ||
        json_object_set_new(out, "attempts_per_s", json_real(round(arate * 100) / 100)) ||
        json_object_set_new(out, "bytes_per_s", json_real(round(bps))) ||
        json_object_set_new(out, "latency_us", lat) ||
        json_object_set_new(out, "errors_by_code", codes) ||
        json_object_set_new(out, "per_second", json_array()) ||    /* its place: merge_series fills it */
        /* a merged second's p50/p99 are the largest of its inputs': an upper bound */
        json_object_set_new(out, BENCH_MODEL_UPPER_BOUND_KEY, json_true()) ||
        json_object_set_new(out, "histogram", hist) ||
        json_object_set_new(out, "measure_start_epoch_ms", json_integer(start))) {
        bench_seterr(err, len, "out of memory");
        goto done;
    }
    if (merge_series(out, in, n, err, len) != 0)
        goto done;
    rc = 0;
done:
    bench_hist_free(sum);
    bench_hist_free(one);
    return rc;
}

/* Whether dimension `dim` has the same classes, in the same order, in every
 * input run. */
static int same_classes(const mrun *in, size_t n, const char *dim)
{
    const json_t *first = json_object_get(json_object_get(in[0].run, "breakdown"), dim);
    for (size_t i = 1; i < n; i++) {
        const json_t *other = json_object_get(json_object_get(in[i].run, "breakdown"), dim);
        if (json_array_size(other) != json_array_size(first))
            return 0;
        for (size_t j = 0; j < json_array_size(first); j++)
            if (strcmp(bench_json_str(json_array_get(first, j), "class", ""),
                       bench_json_str(json_array_get(other, j), "class", "?")) != 0)
                return 0;
    }
    return 1;
}

/* Class j of dimension dim, every input's merged exactly (counts, errors by
 * code, histogram; rates added as the run's are).  NULL with err set. */
static json_t *merge_class(const mrun *in, size_t n, const char *dim, size_t j, bench_hist *sum,
                           bench_hist *one, char *err, size_t len)
{
    mrun *cls = calloc(n, sizeof *cls);
    json_t *out = NULL;
    long long ops = 0, errors = 0, clamped = 0;
    double rate = 0, arate = 0;
    if (!cls) {
        bench_seterr(err, len, "out of memory");
        return NULL;
    }
    bench_hist_reset(sum);
    const json_t *base = NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(json_object_get(json_object_get(in[i].run, "breakdown"), dim), j);
        char f[160];
        if (!base)
            base = c;
        cls[i] = in[i];      /* its field names the run, for merge_counts' messages */
        cls[i].run = c;
        snprintf(f, sizeof f, "%s.breakdown.%s[%zu]", in[i].field, dim, j);
        const json_t *hj = json_object_get(c, "histogram");
        if (bench_hist_from_json(hj, one) != 0) {
            bench_seterr(err, len, "%s: %s: unreadable histogram", in[i].name, f);
            goto done;
        }
        if (add_count(&ops, bench_json_int(c, "ops", 0), in[i].name, f, err, len) ||
            add_count(&errors, bench_json_int(c, "errors", 0), in[i].name, f, err, len) ||
            add_count(&clamped, bench_json_int(hj, "clamped", 0), in[i].name, f, err, len))
            goto done;
        bench_hist_add(sum, one);
        rate += bench_json_num(c, "ops_per_s", 0);
        arate += bench_json_num(c, "attempts_per_s", 0);
    }
    atomic_store_explicit(&sum->clamped, (uint64_t)clamped, memory_order_relaxed);
    json_t *codes = merge_counts(cls, n, "errors_by_code", 1, err, len);
    if (!codes)
        goto done;
    out = json_object();
    int bad = !out || json_object_set_new(out, "class", json_string(bench_json_str(base, "class", "")));
    const json_t *wt = json_object_get(base, "weight");
    if (!bad && wt)
        bad = json_object_set(out, "weight", (json_t *)wt);
    if (!bad) {
        bad |= json_object_set_new(out, "ops", json_integer(ops));
        bad |= json_object_set_new(out, "attempts", json_integer(ops + errors));
        bad |= json_object_set_new(out, "errors", json_integer(errors));
        bad |= json_object_set_new(out, "error_pct",
                                   json_real(ops + errors ? 100.0 * (double)errors / (double)(ops + errors)
                                                          : 0.0));
        bad |= json_object_set_new(out, "ops_per_s", json_real(round(rate * 100) / 100));
        bad |= json_object_set_new(out, "attempts_per_s", json_real(round(arate * 100) / 100));
        bad |= json_object_set_new(out, "latency_us", latency_from_hist(sum));
        bad |= json_object_set_new(out, "errors_by_code", codes);
        codes = NULL;
        bad |= json_object_set_new(out, "histogram", bench_hist_to_json(sum));
    }
    json_decref(codes);
    if (bad) {
        json_decref(out);
        out = NULL;
        bench_seterr(err, len, "out of memory");
    }
done:
    free(cls);
    return out;
}

/*
 * The breakdowns of merged runs: a dimension every input has with the same
 * classes in the same order is merged class by class, exactly; one that
 * differs (another token's label) is left out of the merged run.  0, or -1
 * with err set.
 */
static int merge_breakdowns(json_t *out, const mrun *in, size_t n, char *err, size_t len)
{
    const json_t *bd0 = json_object_get(in[0].run, "breakdown");
    if (!json_object_size(bd0))
        return 0;
    bench_hist *sum = bench_hist_new(), *one = bench_hist_new();
    json_t *merged = json_object();
    int rc = -1;
    if (!sum || !one || !merged) {
        bench_seterr(err, len, "out of memory");
        goto done;
    }
    const char *dim;
    json_t *classes;
    json_object_foreach((json_t *)bd0, dim, classes) {
        if (!same_classes(in, n, dim))
            continue;
        json_t *arr = json_array();
        if (!arr || json_object_set_new(merged, dim, arr) != 0) {
            bench_seterr(err, len, "out of memory");
            goto done;
        }
        for (size_t j = 0; j < json_array_size(classes); j++) {
            json_t *c = merge_class(in, n, dim, j, sum, one, err, len);
            if (!c || json_array_append_new(arr, c) != 0) {
                if (!*err)
                    bench_seterr(err, len, "out of memory");
                goto done;
            }
        }
    }
    if (json_object_size(merged) && json_object_set(out, "breakdown", merged) != 0) {
        bench_seterr(err, len, "out of memory");
        goto done;
    }
    rc = 0;
done:
    json_decref(merged);
    bench_hist_free(sum);
    bench_hist_free(one);
    return rc;
}

/*
 * The workload sections of merged runs: a section every input run holds is
 * merged by its own hook (bench_section.merge); one that some input lacks is
 * left out.  Returns 0, -1 with err set.
 */
static int merge_sections(json_t *out, const mrun *in, size_t n, const bench_section *const *sections,
                          char *err, size_t len)
{
    bench_merge_in *m = calloc(n ? n : 1, sizeof *m);
    char (*field)[64] = calloc(n ? n : 1, sizeof *field);
    int rc = -1;
    if (!m || !field) {
        bench_seterr(err, len, "out of memory");
        goto done;
    }
    for (; sections && *sections; sections++) {
        const bench_section *sec = *sections;
        size_t have = 0;
        for (size_t i = 0; i < n; i++) {
            const json_t *obj = json_object_get(in[i].run, sec->key);
            if (!json_is_object(obj))
                break;
            snprintf(field[i], sizeof field[i], "%s.%s", in[i].field, sec->key);
            m[i] = (bench_merge_in){ obj, in[i].name, field[i] };
            have++;
        }
        if (have < n || !sec->merge)
            continue;
        json_t *merged = NULL;
        if (sec->merge(m, n, &merged, err, len) != 0)
            goto done;
        if (merged && json_object_set_new(out, sec->key, merged) != 0) {
            bench_seterr(err, len, "out of memory");
            goto done;
        }
    }
    rc = 0;
done:
    free(m);
    free(field);
    return rc;
}

/* The wall-clock start of a measured run: its own, or for a file's first
 * run the file's; -1 with a message when there is none. */
static long long run_start_ms(const json_t *doc, size_t index, const char *name, char *err, size_t len)
{
    const json_t *run = json_array_get(json_object_get(doc, "runs"), index);
    long long ms = bench_json_int(run, "measure_start_epoch_ms", -1);
    if (ms >= 0)
        return ms;
    if (index == 0) {
        ms = bench_json_int(doc, "started_at_epoch_ms", -1);
        if (ms >= 0)
            return ms;
        bench_seterr(err, len, "%s: no wall-clock start; re-run with a newer hsmbench", name);
        return -1;
    }
    bench_seterr(err, len, "%s: runs[%zu] (%s) has no wall-clock start (measure_start_epoch_ms); "
           "re-run with a newer hsmbench", name, index, bench_json_str(run, "test", "?"));
    return -1;
}

/* Settings every generator must share for a run: what bounded it. */
static int same_bounds(const json_t *a, const json_t *b, const char *an, const char *bn, char *err,
                       size_t len)
{
    const json_t *sa = json_object_get(a, "settings"), *sb = json_object_get(b, "settings");
    const char *test = bench_json_str(a, "test", "?");
    double da = bench_json_num(sa, "duration_s", 0), db = bench_json_num(sb, "duration_s", 0);
    long long ia = bench_json_int(sa, "iterations", 0), ib = bench_json_int(sb, "iterations", 0);
    if (fabs(da - db) > 1e-9) {
        bench_seterr(err, len, "%s: %s: duration %gs vs %gs in %s", bn, test, db, da, an);
        return -1;
    }
    if (ia != ib) {
        bench_seterr(err, len, "%s: %s: iterations %lld vs %lld in %s", bn, test, ib, ia, an);
        return -1;
    }
    return 0;
}

/* The inputs' schedules, when every one has one: target rates, scheduled,
 * late and dropped requests added.  0, or -1 when out of memory. */
static int merge_schedules(json_t *out, const mrun *in, size_t n)
{
    double target = 0;
    long long counts[3] = { 0, 0, 0 };
    static const char *const keys[3] = { "scheduled", "late", "dropped" };
    for (size_t i = 0; i < n; i++) {
        const json_t *sch = json_object_get(in[i].run, "schedule");
        if (!json_is_object(sch))
            return 0;
        target += bench_json_num(sch, "target_ops_per_s", 0);
        for (size_t k = 0; k < 3; k++)
            counts[k] += bench_json_int(sch, keys[k], 0);
    }
    json_t *m = json_pack("{s:f,s:I,s:I,s:I}", "target_ops_per_s", round(target * 100) / 100, keys[0],
                          (json_int_t)counts[0], keys[1], (json_int_t)counts[1], keys[2], (json_int_t)counts[2]);
    return m && json_object_set_new(out, "schedule", m) == 0 ? 0 : -1;
}

/* The merged element of runs for base run `j`, matched in every input. */
static json_t *merge_run(json_t *const *docs, const char *const *names, size_t n, size_t j,
                         size_t *const *match, const bench_section *const *sections, char *err, size_t len)
{
    const json_t *base = json_array_get(json_object_get(docs[0], "runs"), j);
    mrun *in = calloc(n, sizeof *in);
    json_t *out = NULL;
    if (!in) {
        bench_seterr(err, len, "out of memory");
        return NULL;
    }
    int measured = bench_run_measured(base), interrupted_in = -1;
    long long threads = 0, iterations = 0;
    for (size_t i = 0; i < n; i++) {
        size_t idx = match[i][j];
        in[i].run = json_array_get(json_object_get(docs[i], "runs"), idx);
        in[i].name = names[i];
        snprintf(in[i].field, sizeof in[i].field, "runs[%zu]", idx);
        char f_thr[96], f_it[96];
        snprintf(f_thr, sizeof f_thr, "%s.threads", in[i].field);
        snprintf(f_it, sizeof f_it, "%s.settings.iterations", in[i].field);
        if (add_count(&threads, bench_json_int(in[i].run, "threads", 0), names[i], f_thr, err, len) != 0 ||
            add_count(&iterations, bench_json_int(json_object_get(in[i].run, "settings"), "iterations", 0),
                      names[i], f_it, err, len) != 0)
            goto fail;
        if (bench_run_measured(in[i].run) != measured) {
            const json_t *un = measured ? in[i].run : base;
            bench_seterr(err, len, "%s: %s was %s (%s) in %s but measured in %s", names[i],
                   bench_json_str(base, "test", "?"), bench_json_str(un, "status", "?"),
                   bench_json_str(un, "reason", "no reason given"), measured ? names[i] : names[0],
                   measured ? names[0] : names[i]);
            goto fail;
        }
        if (measured) {
            in[i].start_ms = run_start_ms(docs[i], idx, names[i], err, len);
            if (in[i].start_ms < 0)
                goto fail;
            if (strcmp(bench_json_str(in[i].run, "status", ""), "interrupted") == 0 && interrupted_in < 0)
                interrupted_in = (int)i;
        }
    }
    if (measured) {
        /* Merging adds rates: that is only true of runs that ran together. */
        double a0 = (double)in[0].start_ms, a1 = a0 + 1000.0 * bench_json_num(in[0].run, "duration_s", 0);
        for (size_t i = 1; i < n; i++) {
            double b0 = (double)in[i].start_ms, b1 = b0 + 1000.0 * bench_json_num(in[i].run, "duration_s", 0);
            if (b0 > a1 + 1000.0 || a0 > b1 + 1000.0) {
                bench_seterr(err, len, "%s: %s did not run at the same time as in %s (no overlap in wall-clock "
                       "time); merge combines concurrent runs", names[i], bench_json_str(base, "test", "?"),
                       names[0]);
                goto fail;
            }
        }
    }

    const char *status = bench_json_str(base, "status", "failed");
    if (interrupted_in >= 0)
        status = "interrupted";
    out = json_pack("{s:s,s:s,s:I,s:I,s:s}", "test", bench_json_str(base, "test", ""), "mode",
                    bench_json_str(base, "mode", ""), "threads", (json_int_t)threads, "data_size",
                    (json_int_t)bench_json_int(base, "data_size", 0), "status", status);
    if (!out)
        goto oom;
    const json_t *mech = json_object_get(base, "mechanism");
    if (mech && json_object_set(out, "mechanism", (json_t *)mech) != 0)
        goto oom;
    const json_t *key = json_object_get(base, "key");
    if (json_object_set_new(out, "key", key ? json_deep_copy(key) : json_null()) != 0)
        goto oom;
    const json_t *mixed = json_object_get(base, "mix");
    if (mixed && json_object_set(out, "mix", (json_t *)mixed) != 0)
        goto oom;
    const json_t *settings = json_object_get(base, "settings");
    if (settings) {
        json_t *s = json_deep_copy(settings);
        if (!s || json_object_set_new(s, "iterations", json_integer(iterations)) != 0 ||
            json_object_set_new(out, "settings", s) != 0)
            goto oom;
    }
    if (interrupted_in >= 0) {
        char why[300];
        snprintf(why, sizeof why, "%s in %s", bench_json_str(in[interrupted_in].run, "reason", "interrupted"),
                 names[interrupted_in]);
        if (json_object_set_new(out, "reason", json_string(why)) != 0)
            goto oom;
    } else if (json_object_get(base, "reason")) {
        if (json_object_set(out, "reason", json_object_get(base, "reason")) != 0)
            goto oom;
    }
    /* A generator that did not keep its schedule leaves a hole in the merged
     * latency too; the schedules' counts add up (their latencies' lower
     * bounds, without histograms, do not). */
    for (size_t i = 0; measured && i < n; i++)
        if (json_is_false(json_object_get(in[i].run, "latency_complete"))) {
            if (json_object_set_new(out, "latency_complete", json_false()) != 0)
                goto oom;
            break;
        }
    if (measured && merge_schedules(out, in, n) != 0)
        goto oom;
    if (measured && (merge_measured(out, in, n, err, len) != 0 || merge_sections(out, in, n, sections, err, len) != 0 ||
                     merge_breakdowns(out, in, n, err, len) != 0)) {
        json_decref(out);
        out = NULL;
    }
    /* The generators' errors added up: the merged run's own status word. */
    if (out && measured && bench_model_settle_status(out) != 0) {
        bench_seterr(err, len, "out of memory");
        json_decref(out);
        out = NULL;
    }
    free(in);
    return out;
oom:
    bench_seterr(err, len, "out of memory");
fail:
    json_decref(out);
    free(in);
    return NULL;
}

/* Which run of docs[i] matches each run of docs[0]: match[i][j]. */
static int match_runs(json_t *const *docs, const char *const *names, size_t n, size_t **match,
                      char *err, size_t len)
{
    const json_t *base = json_object_get(docs[0], "runs");
    size_t nr = json_array_size(base);
    for (size_t i = 0; i < n; i++) {
        const json_t *runs = json_object_get(docs[i], "runs");
        if (json_array_size(runs) != nr) {
            bench_seterr(err, len, "%s: %zu run%s, but %s has %zu: the files must hold the same tests", names[i],
                   json_array_size(runs), json_array_size(runs) == 1 ? "" : "s", names[0], nr);
            return -1;
        }
        char *used = calloc(nr ? nr : 1, 1);
        if (!used) {
            bench_seterr(err, len, "out of memory");
            return -1;
        }
        for (size_t j = 0; j < nr; j++) {
            const json_t *want = json_array_get(base, j);
            size_t found = nr;
            char why[160] = "";
            /* The same position first, then anywhere: files list runs in order. */
            for (size_t step = 0; step < nr && found == nr; step++) {
                size_t k = (j + step) % nr;
                char w[160];
                if (used[k])
                    continue;
                if (bench_run_same_setup(want, json_array_get(runs, k), 1, w, sizeof w))
                    found = k;
                else if (step == 0)
                    memcpy(why, w, sizeof why);
            }
            if (found == nr) {
                char kd[64];
                bench_seterr(err, len, "%s: no run of %s (%s, data %lld B, %s) as in %s%s%s", names[i],
                       bench_json_str(want, "test", "?"), bench_run_key_desc(want, kd, sizeof kd),
                       bench_json_int(want, "data_size", 0), bench_json_str(want, "mode", "?"), names[0],
                       *why ? "; differs: " : "", why);
                free(used);
                return -1;
            }
            used[found] = 1;
            match[i][j] = found;
            if (same_bounds(want, json_array_get(runs, found), names[0], names[i], err, len) != 0) {
                free(used);
                return -1;
            }
        }
        free(used);
    }
    return 0;
}

/* The earliest of the inputs' "started_at" strings (ISO 8601 UTC sorts as text). */
static const char *earliest_started_at(json_t *const *docs, size_t n)
{
    const char *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *s = bench_json_str(docs[i], "started_at", NULL);
        if (s && (!best || strcmp(s, best) < 0))
            best = s;
    }
    return best;
}

/* The top level of the merged document around its runs. */
static json_t *merged_doc(json_t *const *docs, const char *const *names, size_t n, json_t *runs)
{
    json_t *doc = json_pack("{s:s,s:{s:s},s:[s,s]}", "schema", BENCH_RESULT_SCHEMA, "tool", "version",
                            HSMBENCH_VERSION, "command", "hsmbench", "merge");
    json_t *from = json_array(), *envs = json_array();
    json_t *command = json_object_get(doc, "command");
    long long epoch = -1;
    int bad = !doc || !from || !envs;
    for (size_t i = 0; !bad && i < n; i++) {
        const json_t *env = json_object_get(docs[i], "environment");
        long long e = bench_json_int(docs[i], "started_at_epoch_ms", -1);
        if (e >= 0 && (epoch < 0 || e < epoch))
            epoch = e;
        bad = json_array_append_new(command, json_string(names[i])) ||
              json_array_append_new(from, json_string(names[i])) ||
              json_array_append_new(envs, env ? json_deep_copy(env) : json_null());
    }
    const char *started = earliest_started_at(docs, n);
    const json_t *env0 = json_object_get(docs[0], "environment");
    if (!bad)
        bad = (started && json_object_set_new(doc, "started_at", json_string(started))) ||
              (epoch >= 0 && json_object_set_new(doc, "started_at_epoch_ms", json_integer(epoch))) ||
              (env0 && json_object_set_new(doc, "environment", json_deep_copy(env0))) ||
              json_object_set(doc, "merged_from", from) ||
              json_object_set(doc, "merged_environments", envs) ||
              json_object_set(doc, "runs", runs);
    json_decref(from);
    json_decref(envs);
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

json_t *bench_results_merge(json_t *const *docs, const char *const *names, size_t n,
                            const bench_section *const *sections, char *err, size_t len)
{
    if (err && len)
        *err = '\0';
    if (n == 0) {
        bench_seterr(err, len, "nothing to merge");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char why[512];
        if (bench_results_check(docs[i], why, sizeof why) != 0) {
            bench_seterr(err, len, "%s: %s", names[i], why);
            return NULL;
        }
    }
    size_t nr = json_array_size(json_object_get(docs[0], "runs"));
    size_t **match = calloc(n, sizeof *match);
    json_t *doc = NULL, *runs = NULL;
    if (!match) {
        bench_seterr(err, len, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        match[i] = calloc(nr, sizeof **match);
        if (!match[i]) {
            bench_seterr(err, len, "out of memory");
            goto done;
        }
    }
    if (match_runs(docs, names, n, match, err, len) != 0)
        goto done;

    runs = json_array();
    if (!runs)
        goto oom;
    for (size_t j = 0; j < nr; j++) {
        json_t *r = merge_run(docs, names, n, j, (size_t *const *)match, sections, err, len);
        if (!r || json_array_append_new(runs, r) != 0) {
            if (err && !*err)
                bench_seterr(err, len, "out of memory");
            goto done;
        }
    }

    doc = merged_doc(docs, names, n, runs);
    if (!doc)
        goto oom;
    goto done;
oom:
    bench_seterr(err, len, "out of memory");
done:
    json_decref(runs);
    for (size_t i = 0; i < n; i++)
        free(match[i]);
    free(match);
    return doc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/repeat.c - the interval between runs of run --repeat N. */
#include "bench/results/repeat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/stable.h"
#include "bench/util/cli.h"
#include "bench/results/codec.h"

/* A run's place in its group: k of n (1 <= k <= n, n >= 2), or 0. */
static long long repeat_run(const json_t *run, long long *of)
{
    const json_t *r = json_object_get(run, "repeat");
    const long long k = bench_json_int(r, "run", 0), n = bench_json_int(r, "of", 0);
    if (!json_is_object(r) || n < 2 || n > BENCH_REPEAT_MAX || k < 1 || k > n)
        return 0;
    *of = n;
    return k;
}

/* {"mean", "sd", "ci95_low", "ci95_high", "half_width_pct"} of v[0..n),
 * n >= 2; NULL when out of memory. */
static json_t *interval(const double *v, size_t n)
{
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    const double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    const double sd = sqrt(ss / (double)(n - 1));
    const double half = bench_stable_t975((unsigned)(n - 1)) * sd / sqrt((double)n);
    json_t *j = json_pack("{s:f,s:f,s:f,s:f}", "mean", mean, "sd", sd, "ci95_low", mean - half,
                          "ci95_high", mean + half);
    if (j && mean > 0 && json_object_set_new(j, "half_width_pct", json_real(100 * half / mean)) != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* The element of the group runs[first..first+k); NULL when out of memory. */
static json_t *analyse(const json_t *runs, size_t first, size_t k, long long of)
{
    const json_t *r0 = json_array_get(runs, first);
    const json_t *key = json_object_get(r0, "key");
    double *x = calloc(3 * k, sizeof *x);
    json_t *idx = json_array();
    json_t *el = json_pack("{s:s,s:s,s:O,s:I,s:I,s:I,s:s}", "test", bench_json_str(r0, "test", "?"), "mode",
                           bench_json_str(r0, "mode", "?"), "key", json_is_object(key) ? (json_t *)key : json_null(),
                           "threads", (json_int_t)bench_json_int(r0, "threads", 0), "data_size",
                           (json_int_t)bench_json_int(r0, "data_size", 0), "of", (json_int_t)of, "method",
                           BENCH_REPEAT_METHOD);
    if (!x || !idx || !el)
        goto oom;
    double *p50 = x + k, *p99 = x + 2 * k;
    size_t n = 0, nlat = 0;
    for (size_t i = 0; i < k; i++) {
        const json_t *run = json_array_get(runs, first + i);
        if (json_array_append_new(idx, json_integer((json_int_t)(first + i))) != 0)
            goto oom;
        if (strcmp(bench_json_str(run, "status", ""), "ok") != 0)
            continue;     /* failed, interrupted, skipped: not a sample of the token */
        const json_t *lat = json_object_get(run, "latency_us");
        if (bench_json_int(lat, "count", 0) > 0) {
            p50[nlat] = bench_json_num(lat, "p50", 0);
            p99[nlat++] = bench_json_num(lat, "p99", 0);
        }
        x[n++] = bench_json_num(run, "ops_per_s", 0);
    }
    if (json_object_set(el, "runs", idx) != 0 ||
        json_object_set_new(el, "n", json_integer((json_int_t)n)) != 0 ||
        json_object_set_new(el, "left_out", json_integer((json_int_t)(k - n))) != 0)
        goto oom;
    /* Latency's intervals only when every run counted has latency. */
    if ((n >= 2 && json_object_set_new(el, "ops_per_s", interval(x, n)) != 0) ||
        (n >= 2 && nlat == n && (json_object_set_new(el, "p50_us", interval(p50, n)) != 0 ||
                                 json_object_set_new(el, "p99_us", interval(p99, n)) != 0)))
        goto oom;
    free(x);
    json_decref(idx);
    return el;
oom:
    free(x);
    json_decref(idx);
    json_decref(el);
    return NULL;
}

json_t *bench_repeats(const json_t *runs)
{
    const size_t n = json_array_size(runs);
    json_t *out = json_array();
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        long long of = 0, of_next = 0;
        if (repeat_run(json_array_get(runs, i), &of) != 1) {
            i++;
            continue;
        }
        /* run 1, then 2, 3 ... of the same N; a group cut short (Ctrl-C) ends early */
        size_t k = 1;
        while (i + k < n && (long long)k < of &&
               repeat_run(json_array_get(runs, i + k), &of_next) == (long long)k + 1 && of_next == of)
            k++;
        json_t *el = analyse(runs, i, k, of);
        if (!el || json_array_append_new(out, el) != 0) {
            json_decref(out);
            return NULL;
        }
        i += k;
    }
    return out;
}

/* " ±1.20 %" of an interval, or "" without its half-width. */
static const char *pm(const json_t *iv, char *buf, size_t len)
{
    const json_t *h = json_object_get(iv, "half_width_pct");
    if (json_is_number(h))
        snprintf(buf, len, " \xc2\xb1%.2f %%", json_number_value(h));
    else
        snprintf(buf, len, " (%.2f to %.2f)", bench_json_num(iv, "ci95_low", 0), bench_json_num(iv, "ci95_high", 0));
    return buf;
}

const char *bench_repeat_text(const json_t *el, char *buf, size_t len)
{
    char key[64], who[200], a[32], b[32], pa[48], pb[48], pc[48], lat[200] = "";
    const long long th = bench_json_int(el, "threads", 0), n = bench_json_int(el, "n", 0),
                    of = bench_json_int(el, "of", 0), runs = (long long)json_array_size(json_object_get(el, "runs"));
    bench_run_key_desc(el, key, sizeof key);
    snprintf(who, sizeof who, "%s%s%s, %lld thread%s", bench_json_str(el, "test", "?"), strcmp(key, "-") ? ", " : "",
             strcmp(key, "-") ? key : "", th, th == 1 ? "" : "s");
    const json_t *ops = json_object_get(el, "ops_per_s");
    if (!json_is_object(ops)) {
        snprintf(buf, len, "%s: %lld of %lld run%s ok (of the %lld asked): too few for an interval between runs",
                 who, n, runs, runs == 1 ? "" : "s", of);
        return buf;
    }
    const json_t *l50 = json_object_get(el, "p50_us"), *l99 = json_object_get(el, "p99_us");
    if (json_is_object(l50) && json_is_object(l99))
        snprintf(lat, sizeof lat, "; p50 %s%s, p99 %s%s", bench_fmt_ns(bench_json_num(l50, "mean", 0) * 1e3, a, sizeof a),
                 pm(l50, pb, sizeof pb), bench_fmt_ns(bench_json_num(l99, "mean", 0) * 1e3, b, sizeof b),
                 pm(l99, pc, sizeof pc));
    snprintf(buf, len, "%s: ops/s over %lld runs: %.2f%s (95 %%, t, between runs: %.2f to %.2f)%s%s", who, n,
             bench_json_num(ops, "mean", 0), pm(ops, pa, sizeof pa), bench_json_num(ops, "ci95_low", 0),
             bench_json_num(ops, "ci95_high", 0), lat, n < runs ? " (runs not ok left out)" : "");
    return buf;
}

void bench_repeats_print(FILE *f, const json_t *reps)
{
    size_t i;
    const json_t *el;
    if (!json_array_size(reps))
        return;
    fputs("\nBetween runs (--repeat; the token's rate run to run, not one run's steady state):\n", f);
    json_array_foreach(reps, i, el) {
        char line[640];
        fprintf(f, "  %s\n", bench_repeat_text(el, line, sizeof line));
    }
}

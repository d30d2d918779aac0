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

/* One interval's element (anything: a file may say anything) into iv. */
static void read_interval(const json_t *j, bench_repeat_interval *iv)
{
    const json_t *h = json_object_get(j, "half_width_pct");
    iv->present = json_is_object(j);
    iv->mean = bench_json_num(j, "mean", 0);
    iv->low = bench_json_num(j, "ci95_low", 0);
    iv->high = bench_json_num(j, "ci95_high", 0);
    iv->has_half = json_is_number(h);
    iv->half_width_pct = iv->has_half ? json_number_value(h) : 0;
}

int bench_repeat_groups_read(const json_t *reps, bench_repeat_groups *g)
{
    const size_t n = json_is_array(reps) ? json_array_size(reps) : 0;
    g->n = 0;
    g->v = n ? calloc(n, sizeof *g->v) : NULL;
    if (n && !g->v)
        return -1;
    for (; g->n < n; g->n++) {
        const json_t *el = json_array_get(reps, g->n);
        bench_repeat_group *r = &g->v[g->n];
        snprintf(r->test, sizeof r->test, "%s", bench_json_str(el, "test", "?"));
        bench_run_key_desc(el, r->key, sizeof r->key);
        r->threads = bench_json_int(el, "threads", 0);
        r->n = bench_json_int(el, "n", 0);
        r->of = bench_json_int(el, "of", 0);
        r->runs = (long long)json_array_size(json_object_get(el, "runs"));
        read_interval(json_object_get(el, "ops_per_s"), &r->ops_per_s);
        read_interval(json_object_get(el, "p50_us"), &r->p50_us);
        read_interval(json_object_get(el, "p99_us"), &r->p99_us);
    }
    return 0;
}

int bench_repeat_groups_of(const json_t *runs, bench_repeat_groups *g)
{
    json_t *reps = bench_repeats(runs);
    if (!reps) {
        g->v = NULL;
        g->n = 0;
        return -1;
    }
    const int rc = bench_repeat_groups_read(reps, g);
    json_decref(reps);
    return rc;
}

void bench_repeat_groups_free(bench_repeat_groups *g)
{
    free(g->v);
    g->v = NULL;
    g->n = 0;
}

/* " ±1.20 %" of an interval, or its ends without its half-width. */
static const char *pm(const bench_repeat_interval *iv, char *buf, size_t len)
{
    if (iv->has_half)
        snprintf(buf, len, " \xc2\xb1%.2f %%", iv->half_width_pct);
    else
        snprintf(buf, len, " (%.2f to %.2f)", iv->low, iv->high);
    return buf;
}

const char *bench_repeat_text(const bench_repeat_group *g, char *buf, size_t len)
{
    char who[200], a[32], b[32], pa[48], pb[48], pc[48], lat[200] = "";
    const long long th = g->threads, n = g->n, runs = g->runs;
    const int keyed = strcmp(g->key, "-") != 0;
    snprintf(who, sizeof who, "%s%s%s, %lld thread%s", g->test, keyed ? ", " : "", keyed ? g->key : "", th,
             th == 1 ? "" : "s");
    if (!g->ops_per_s.present) {
        snprintf(buf, len, "%s: %lld of %lld run%s ok (of the %lld asked): too few for an interval between runs",
                 who, n, runs, runs == 1 ? "" : "s", g->of);
        return buf;
    }
    const bench_repeat_interval *l50 = &g->p50_us, *l99 = &g->p99_us, *ops = &g->ops_per_s;
    if (l50->present && l99->present)
        snprintf(lat, sizeof lat, "; p50 %s%s, p99 %s%s", bench_fmt_ns(l50->mean * 1e3, a, sizeof a),
                 pm(l50, pb, sizeof pb), bench_fmt_ns(l99->mean * 1e3, b, sizeof b), pm(l99, pc, sizeof pc));
    snprintf(buf, len, "%s: ops/s over %lld runs: %.2f%s (95 %%, t, between runs: %.2f to %.2f)%s%s", who, n,
             ops->mean, pm(ops, pa, sizeof pa), ops->low, ops->high, lat,
             n < runs ? " (runs not ok left out)" : "");
    return buf;
}

void bench_repeats_print(FILE *f, const bench_repeat_groups *g)
{
    if (!g->n)
        return;
    fputs("\nBetween runs (--repeat; the token's rate run to run, not one run's steady state):\n", f);
    for (size_t i = 0; i < g->n; i++) {
        char line[640];
        fprintf(f, "  %s\n", bench_repeat_text(&g->v[i], line, sizeof line));
    }
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_metrics.c - bench/results/metrics.c without a pool: synthetic
 * samples and outcomes in, the exposition text out.  Counters add up over
 * the runs of one series and only grow; the final figures are the run model's;
 * every series carries the fleet's labels (run, generator, target, test,
 * threads, mode) and a thread count is a series of its own; label values
 * are escaped, codes have no spaces and no duplicated status; the gauges
 * are 0 after the run; the le boundaries are HDR slot tops 2^(1/16) apart
 * from 1 us to 60 s; a NULL server is a no-op; bad options fail.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 * tsan: yes (the metrics endpoint's server threads answer scrapes of the counters the test writes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/hist.h"
#include "bench/results/metrics.h"
#include "bench/results/model.h"
#include "bench/results/report.h"
#include "tests/unit/check.h"

/* n equal values, one at a time as the engines record them. */
static void record_n(bench_hist *h, uint64_t value_ns, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        bench_hist_record(h, value_ns);
}

static void namer(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, code == 7 ? "E\"7\" x" : "CKR_%llu", (unsigned long long)code);
}

#define L "run_id=\"r1\",generator=\"g7\",target_kind=\"pkcs11\",target_id=\"m.so serial=1\"," \
          "test=\"t\\\\1\",threads=\"2\",mode=\"blocking\""

/* The cumulative count of the first bucket whose le is at least `at`
 * seconds (le_out: that boundary), or of the last one below it (below). */
static double bucket_at(const char *text, double at, int below, double *le_out)
{
    double best = -1, best_le = 0;
    const char *key = "hsmbench_latency_seconds_bucket{" L ",le=\"";
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        const char *q = p + strlen(key);
        double le = strncmp(q, "+Inf", 4) == 0 ? 1e300 : strtod(q, NULL);
        const char *v = strstr(q, "} ");
        if (!v)
            break;
        double n = strtod(v + 2, NULL);
        if (below ? le < at : le >= at) {
            if (below || best < 0) {
                best = n;
                best_le = le;
            }
            if (!below)
                break;
        }
    }
    if (le_out)
        *le_out = best_le;
    return best;
}

/* The le boundaries: from 1 us, 2^(1/16) apart (within an HDR slot), to 60 s. */
static void check_boundaries(const char *text)
{
    const char *key = "hsmbench_latency_seconds_bucket{" L ",le=\"";
    double prev = 0, first = 0, last = 0, worst = 0;
    size_t n = 0;
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        const char *q = p + strlen(key);
        if (strncmp(q, "+Inf", 4) == 0)
            break;
        double le = strtod(q, NULL);
        if (!n)
            first = le;
        else if (le / prev > worst)
            worst = le / prev;
        prev = last = le;
        n++;
    }
    CHECK_MSG(first > 0.999e-6 && first < 1.001e-6, "first le %g", first);
    CHECK_MSG(last >= 60 && last < 63, "last le %g", last);
    CHECK_MSG(worst > 1.0 && worst < 1.0443 * 1.001, "widest step %g", worst);   /* 2^(1/16) = 1.0443 */
    CHECK_MSG(n > 400 && n < 420, "%zu boundaries", n);
}

/* The value of the series `line` (name and labels, exactly), or -1. */
static double value(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, line, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return -1;
}

static bench_metrics *server(int fine)
{
    bench_metrics_opts o;
    bench_metrics *m = NULL;
    bench_metrics_opts_init(&o);
    o.fine = fine;
    o.listen = "127.0.0.1:0";
    o.linger_ns = 0;
    return bench_metrics_start(&o, &m) == 0 ? m : NULL;
}

static void test_runs_add_up(void)
{
    bench_metrics *m = server(1);
    CHECK(m != NULL);
    if (!m)
        return;
    bench_workload w = { .code_name = namer };
    bench_load load = { .threads = 2, .duration_ns = 1 };
    bench_metrics_fleet(m, "r1", "g7");
    bench_metrics_target(m, json_pack("{s:{s:s,s:s,s:s}}", "target", "kind", "pkcs11", "name", "M", "id",
                                      "m.so serial=1"));
    bench_hist *h = bench_hist_new();
    bench_err errs[2] = { { 7, 3 }, { 0x30, 1 } };
    for (int run = 0; run < 2; run++) {
        bench_metrics_begin(m, "t\\1", &load, &w);
        record_n(h, 2000000, 10);       /* 2 ms */
        bench_sample s = { .t = 1, .span_s = 1, .ops = 14, .errors = 4, .hist_so_far = h,
                           .errs_so_far = errs, .nerrs_so_far = 2 };
        bench_metrics_second(m, &s);
        char *mid = bench_metrics_render(m);
        CHECK(mid != NULL);
        if (mid) {
            /* operations are the successes, attempts count the errors too */
            CHECK_MSG(value(mid, "hsmbench_operations_total{" L "}") == 10 + run * 16, "%s", mid);
            CHECK(value(mid, "hsmbench_attempts_total{" L "}") == 14 + run * 20);
            CHECK(value(mid, "hsmbench_phase{" L ",phase=\"measured\"}") == 1);
            CHECK(value(mid, "hsmbench_threads{" L "}") == 2);
        }
        free(mid);
        record_n(h, 20000, 10);         /* 20 us, before the end */
        bench_outcome out = { .ops = 20, .errors = 4, .hist = h, .errs = errs, .nerrs = 2, .duration_s = 1 };
        /* the final figures come from the run model, as the results file's do */
        const bench_run_desc d = { .test = "t\\1", .mode = "blocking", .threads = 2 };
        json_t *rj = bench_report_run_json(&d, &out, &w, "ok", NULL);
        bench_run_model model;
        CHECK(rj && bench_model_from_run(rj, NULL, &model) == 0);
        bench_metrics_end(m, &model);
        bench_model_free(&model);
        json_decref(rj);
        bench_hist_reset(h);
    }
    char *text = bench_metrics_render(m);
    CHECK(text != NULL);
    if (text) {
        CHECK(value(text, "hsmbench_operations_total{" L "}") == 32);
        CHECK(value(text, "hsmbench_attempts_total{" L "}") == 40);
        /* the provider's name, spaces as underscores; no status label beside it */
        CHECK_MSG(value(text, "hsmbench_errors_total{" L ",code=\"E\\\"7\\\"_x\"}") == 6, "%s", text);
        CHECK(value(text, "hsmbench_errors_total{" L ",code=\"CKR_48\"}") == 2);
        CHECK(strstr(text, "status=") == NULL);
        double le;
        CHECK(bucket_at(text, 19.9e-6, 1, NULL) == 0);
        CHECK(bucket_at(text, 20e-6, 0, &le) == 20 && le < 20e-6 * 1.045);
        CHECK(bucket_at(text, 1.99e-3, 1, NULL) == 20);
        CHECK(bucket_at(text, 2e-3, 0, &le) == 40 && le < 2e-3 * 1.045);
        CHECK(value(text, "hsmbench_latency_seconds_bucket{" L ",le=\"+Inf\"}") == 40);
        CHECK(value(text, "hsmbench_latency_seconds_count{" L "}") == 40);
        double sum = value(text, "hsmbench_latency_seconds_sum{" L "}");
        CHECK_MSG(sum > 0.0403 && sum < 0.0405, "sum %g", sum);
        CHECK(value(text, "hsmbench_phase{" L ",phase=\"done\"}") == 1);
        /* the run ended: nothing runs any more */
        CHECK(value(text, "hsmbench_threads{" L "}") == 0);
        CHECK(value(text, "hsmbench_in_flight{" L "}") == 0);
        CHECK(value(text, "hsmbench_run_info{run_id=\"r1\",generator=\"g7\",target_kind=\"pkcs11\","
                          "target_id=\"m.so serial=1\"}") == 1);
        check_boundaries(text);
        /* the process's own figures, by the client libraries' names */
        CHECK(strstr(text, "# TYPE process_cpu_seconds_total counter\n") != NULL);
        CHECK(value(text, "process_resident_memory_bytes") > 1e5);
        CHECK(value(text, "process_open_fds") >= 3);
        CHECK(value(text, "process_start_time_seconds") > 1.6e9);
        /* the client CPU, as the results file has it once the run ended */
        CHECK(value(text, "hsmbench_client_cpu{" L "}") == 0);   /* the outcome's 0 */
        CHECK(strstr(text, "# TYPE hsmbench_latency_seconds histogram\n") != NULL);
    }
    free(text);
    /* another thread count: a series of its own, the first one's untouched */
    load.threads = 4;
    bench_metrics_begin(m, "t\\1", &load, &w);
    text = bench_metrics_render(m);
    CHECK(text && strstr(text, "test=\"t\\\\1\",threads=\"4\",mode=\"blocking\"} 0\n") != NULL);
    CHECK(text && value(text, "hsmbench_operations_total{" L "}") == 32);
    CHECK(text && value(text, "hsmbench_threads{" L "}") == 0);
    free(text);
    bench_metrics_end(m, NULL);
    bench_metrics_served(m, "/hello", 200);
    bench_metrics_served(m, "/hello", 200);
    text = bench_metrics_render(m);
    CHECK(text && value(text, "hsmbench_serve_requests_total{route=\"/hello\",status=\"200\"}") == 2);
    free(text);
    bench_hist_free(h);
    bench_metrics_stop(m, NULL);
}

/* The default buckets: 25, from 10 us, 10^(1/4) apart, to 10 s. */
static void test_coarse_buckets(void)
{
    bench_metrics *m = server(0);
    CHECK(m != NULL);
    if (!m)
        return;
    bench_workload w = { .code_name = namer };
    bench_load load = { .threads = 1, .duration_ns = 1 };
    bench_metrics_begin(m, "c", &load, &w);
    char *text = bench_metrics_render(m);
    double prev = 0, worst = 0, first = 0;
    size_t n = 0;
    const char *key = "hsmbench_latency_seconds_bucket{";
    for (const char *p = text ? strstr(text, key) : NULL; p; p = strstr(p + 1, key)) {
        const char *q = strstr(p, ",le=\"") + 5;
        if (strncmp(q, "+Inf", 4) == 0)
            break;
        const double le = strtod(q, NULL);
        if (!n)
            first = le;
        else if (le / prev > worst)
            worst = le / prev;
        prev = le;
        n++;
    }
    CHECK_MSG(n == BENCH_METRICS_COARSE_COUNT, "%zu boundaries", n);
    CHECK_MSG(first >= 10e-6 && first < 10.02e-6, "first %g", first);
    CHECK_MSG(prev >= 10 && prev < 10.02, "last %g", prev);
    CHECK_MSG(worst < 1.7783 * 1.002, "widest step %g", worst);
    /* the same help as the fine buckets' (a Pushgateway holds generators of both) */
    CHECK(text && strstr(text, "# HELP hsmbench_latency_seconds Latency of successful measured operations "
                               "(hsmbench's HDR histogram; buckets: --metrics-buckets).\n") != NULL);
    free(text);
    bench_metrics_end(m, NULL);
    bench_metrics_stop(m, NULL);
}

static void test_null_and_bad_options(void)
{
    bench_load load = { .threads = 1 };
    bench_sample s = { .t = 1 };
    bench_metrics_begin(NULL, "x", &load, NULL);
    bench_metrics_second(NULL, &s);
    bench_metrics_end(NULL, NULL);
    bench_metrics_fleet(NULL, "r", "0");
    bench_metrics_target(NULL, NULL);
    bench_metrics_served(NULL, "/", 200);
    bench_metrics_stop(NULL, NULL);

    bench_metrics_opts o;
    bench_metrics *m = NULL;
    bench_metrics_opts_init(&o);
    CHECK(bench_metrics_start(&o, &m) == 0 && m == NULL);   /* not asked for */
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_LINGER, "2s") == 1 && o.linger_ns == 2000000000ULL);
    CHECK(bench_metrics_opt(&o, 'x', "2s") == 0);
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_LINGER, "soon") == -1);
    char fine[] = "fine", wrong[] = "medium";
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_BUCKETS, fine) == 1 && o.fine == 1);
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_BUCKETS, wrong) == -1);
    char url[] = "http://user:pw@127.0.0.1:9/p";
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_PUSH, url) == 1 && o.push && strcmp(o.push, "http://user:pw@127.0.0.1:9/p") == 0);
    CHECK(strstr(url, "pw") == NULL);   /* masked in argv */
    o.push = "ftp://h/x";
    CHECK(bench_metrics_start(&o, &m) == -1 && m == NULL);
    o.push = NULL;
    o.listen = "not-an-address";
    CHECK(bench_metrics_start(&o, &m) == -1 && m == NULL);
}

int main(void)
{
    RUN(test_runs_add_up);
    RUN(test_coarse_buckets);
    RUN(test_null_and_bad_options);
    return check_finish();
}

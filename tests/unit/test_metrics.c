/*
 * tests/unit/test_metrics.c - bench/results/metrics.c without a pool: synthetic
 * samples and outcomes in, the exposition text out.  Counters add up over
 * the runs of one test and only grow; the final figures are the run model's;
 * label values are escaped; a NULL server is a no-op; bad options fail.
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
    snprintf(buf, len, code == 7 ? "E\"7\"" : "CKR_%llu", (unsigned long long)code);
}

static long status_of(bench_code code)
{
    return code == 7 ? 503 : 0;
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

static bench_metrics *server(void)
{
    bench_metrics_opts o;
    bench_metrics *m = NULL;
    bench_metrics_opts_init(&o);
    o.listen = "127.0.0.1:0";
    o.linger_ns = 0;
    return bench_metrics_start(&o, &m) == 0 ? m : NULL;
}

static void test_runs_add_up(void)
{
    bench_metrics *m = server();
    CHECK(m != NULL);
    if (!m)
        return;
    bench_workload w = { .code_name = namer };
    bench_load load = { .threads = 2, .duration_ns = 1 };
    bench_hist *h = bench_hist_new();
    bench_err errs[2] = { { 7, 3 }, { 0x30, 1 } };
    for (int run = 0; run < 2; run++) {
        bench_metrics_begin(m, "t\\1", &load, &w, status_of);
        record_n(h, 2000000, 10);       /* 2 ms */
        bench_sample s = { .t = 1, .span_s = 1, .ops = 14, .errors = 4, .hist_so_far = h,
                           .errs_so_far = errs, .nerrs_so_far = 2 };
        bench_metrics_second(m, &s);
        char *mid = bench_metrics_render(m);
        CHECK(mid != NULL);
        if (mid) {
            /* operations are the successes, attempts count the errors too */
            CHECK(value(mid, "hsmbench_operations_total{test=\"t\\\\1\"}") == 10 + run * 16);
            CHECK(value(mid, "hsmbench_attempts_total{test=\"t\\\\1\"}") == 14 + run * 20);
            CHECK(value(mid, "hsmbench_phase{test=\"t\\\\1\",phase=\"measured\"}") == 1);
        }
        free(mid);
        record_n(h, 20000, 10);         /* 20 us, before the end */
        bench_outcome out = { .ops = 20, .errors = 4, .hist = h, .errs = errs, .nerrs = 2, .duration_s = 1 };
        /* the final figures come from the run model, as the results file's do */
        const bench_run_desc d = { .test = "t\\1", .mode = "blocking", .threads = 2 };
        json_t *rj = bench_report_run_json(&d, &out, &w, "ok", NULL);
        bench_run_model model;
        CHECK(rj && bench_model_from_run(rj, NULL, &model) == 0);
        bench_metrics_end(m, &model, &out);
        bench_model_free(&model);
        json_decref(rj);
        bench_hist_reset(h);
    }
    char *text = bench_metrics_render(m);
    CHECK(text != NULL);
    if (text) {
        CHECK(value(text, "hsmbench_operations_total{test=\"t\\\\1\"}") == 32);
        CHECK(value(text, "hsmbench_attempts_total{test=\"t\\\\1\"}") == 40);
        CHECK_MSG(value(text, "hsmbench_errors_total{test=\"t\\\\1\",code=\"E\\\"7\\\"\",status=\"503\"}") == 6,
                  "%s", text);
        CHECK(value(text, "hsmbench_errors_total{test=\"t\\\\1\",code=\"CKR_48\"}") == 2);
        CHECK(value(text, "hsmbench_latency_seconds_bucket{test=\"t\\\\1\",le=\"2.5e-05\"}") == 20);
        CHECK(value(text, "hsmbench_latency_seconds_bucket{test=\"t\\\\1\",le=\"0.001\"}") == 20);
        CHECK(value(text, "hsmbench_latency_seconds_bucket{test=\"t\\\\1\",le=\"0.0025\"}") == 40);
        CHECK(value(text, "hsmbench_latency_seconds_bucket{test=\"t\\\\1\",le=\"+Inf\"}") == 40);
        CHECK(value(text, "hsmbench_latency_seconds_count{test=\"t\\\\1\"}") == 40);
        double sum = value(text, "hsmbench_latency_seconds_sum{test=\"t\\\\1\"}");
        CHECK_MSG(sum > 0.0403 && sum < 0.0405, "sum %g", sum);
        CHECK(value(text, "hsmbench_phase{test=\"t\\\\1\",phase=\"done\"}") == 1);
        CHECK(value(text, "hsmbench_threads{test=\"t\\\\1\"}") == 2);
        CHECK(strstr(text, "# TYPE hsmbench_latency_seconds histogram\n") != NULL);
    }
    free(text);
    bench_metrics_served(m, "/hello", 200);
    bench_metrics_served(m, "/hello", 200);
    text = bench_metrics_render(m);
    CHECK(text && value(text, "hsmbench_serve_requests_total{route=\"/hello\",status=\"200\"}") == 2);
    free(text);
    bench_hist_free(h);
    bench_metrics_stop(m, NULL);
}

static void test_null_and_bad_options(void)
{
    bench_load load = { .threads = 1 };
    bench_sample s = { .t = 1 };
    bench_metrics_begin(NULL, "x", &load, NULL, NULL);
    bench_metrics_second(NULL, &s);
    bench_metrics_end(NULL, NULL, NULL);
    bench_metrics_served(NULL, "/", 200);
    bench_metrics_stop(NULL, NULL);

    bench_metrics_opts o;
    bench_metrics *m = NULL;
    bench_metrics_opts_init(&o);
    CHECK(bench_metrics_start(&o, &m) == 0 && m == NULL);   /* not asked for */
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_LINGER, "2s") == 1 && o.linger_ns == 2000000000ULL);
    CHECK(bench_metrics_opt(&o, 'x', "2s") == 0);
    CHECK(bench_metrics_opt(&o, BENCH_OPT_METRICS_LINGER, "soon") == -1);
    o.listen = "not-an-address";
    CHECK(bench_metrics_start(&o, &m) == -1 && m == NULL);
}

int main(void)
{
    RUN(test_runs_add_up);
    RUN(test_null_and_bad_options);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_threshold.c - bench/results/threshold.c: every expression form,
 * the invalid ones, evaluation on synthetic run objects (the JSON a run
 * writes), and the summary block with the "thresholds" array.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/threshold.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdlib.h>

#include "bench/core/hist.h"
#include "bench/results/model.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "rest/transport/phases.h"
#include "rest/views/views.h"

/* The workload sections the parser knows: the REST floor's, as cli/main.c gives them. */
#define SECTIONS rest_sections()

/* ---- parsing -------------------------------------------------------------- */

typedef struct form {
    const char *expr;
    bench_threshold_metric metric;
    double pct;
    bench_threshold_op op;
    double value;
    const char *test;
} form;

static void test_parse_forms(void)
{
    static const form forms[] = {
        { "p99<50ms", BENCH_TM_PCT, 99, BENCH_OP_LT, 50000, "" },
        { "p95<=20ms", BENCH_TM_PCT, 95, BENCH_OP_LE, 20000, "" },
        { "avg<10ms", BENCH_TM_AVG, 0, BENCH_OP_LT, 10000, "" },
        { "med<5ms", BENCH_TM_MED, 0, BENCH_OP_LT, 5000, "" },
        { "p(99.9)<100ms", BENCH_TM_PCT, 99.9, BENCH_OP_LT, 100000, "" },
        { "p99.9<100ms", BENCH_TM_PCT, 99.9, BENCH_OP_LT, 100000, "" },
        { "p999<1ms", BENCH_TM_PCT, 99.9, BENCH_OP_LT, 1000, "" },
        { "p(50)>1us", BENCH_TM_PCT, 50, BENCH_OP_GT, 1, "" },
        { "p100<=2s", BENCH_TM_PCT, 100, BENCH_OP_LE, 2e6, "" },
        { "max<1s", BENCH_TM_MAX, 0, BENCH_OP_LT, 1e6, "" },
        { "min>500ns", BENCH_TM_MIN, 0, BENCH_OP_GT, 0.5, "" },
        { "min>=2\xc2\xb5s", BENCH_TM_MIN, 0, BENCH_OP_GE, 2, "" },
        { "min>=2\xce\xbcs", BENCH_TM_MIN, 0, BENCH_OP_GE, 2, "" },
        { "avg<1.5", BENCH_TM_AVG, 0, BENCH_OP_LT, 1500, "" },   /* no unit: ms, as k6 */
        { "rate>1000", BENCH_TM_RATE, 0, BENCH_OP_GT, 1000, "" },
        { "rate>=2500.5/s", BENCH_TM_RATE, 0, BENCH_OP_GE, 2500.5, "" },
        { "errors<0.1%", BENCH_TM_ERROR_PCT, 0, BENCH_OP_LT, 0.1, "" },
        { "errors<5", BENCH_TM_ERROR_COUNT, 0, BENCH_OP_LT, 5, "" },
        { "errors==0", BENCH_TM_ERROR_COUNT, 0, BENCH_OP_EQ, 0, "" },
        { "errors!=3", BENCH_TM_ERROR_COUNT, 0, BENCH_OP_NE, 3, "" },
        { "errors===0", BENCH_TM_ERROR_COUNT, 0, BENCH_OP_EQ, 0, "" },
        { "rsa-pkcs-sign:p99<5ms", BENCH_TM_PCT, 99, BENCH_OP_LT, 5000, "rsa-pkcs-sign" },
        { "  sha256-digest : p(95) <  200 us ", BENCH_TM_PCT, 95, BENCH_OP_LT, 200, "sha256-digest" },
        { "aes-gcm-encrypt:rate>1e3", BENCH_TM_RATE, 0, BENCH_OP_GT, 1000, "aes-gcm-encrypt" },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const form *fm = &forms[i];
        bench_threshold t;
        char err[256] = "";
        int rc = bench_threshold_parse(fm->expr, SECTIONS, &t, err, sizeof err);
        CHECK_MSG(rc == 0, "'%s' refused: %s", fm->expr, err);
        if (rc != 0)
            continue;
        CHECK_MSG(t.metric == fm->metric, "'%s': metric %d, want %d", fm->expr, (int)t.metric, (int)fm->metric);
        CHECK_MSG(t.op == fm->op, "'%s': op %d, want %d", fm->expr, (int)t.op, (int)fm->op);
        CHECK_MSG(fabs(t.value - fm->value) < 1e-9 * fmax(1, fm->value), "'%s': value %g, want %g", fm->expr,
                  t.value, fm->value);
        if (fm->metric == BENCH_TM_PCT)
            CHECK_MSG(t.pct == fm->pct, "'%s': pct %g, want %g", fm->expr, t.pct, fm->pct);
        CHECK_MSG(strcmp(t.test, fm->test) == 0, "'%s': test '%s', want '%s'", fm->expr, t.test, fm->test);
    }
    /* The expression is kept as given, without surrounding blanks. */
    bench_threshold t;
    char err[256];
    CHECK(bench_threshold_parse("  p99<50ms ", SECTIONS, &t, err, sizeof err) == 0 && strcmp(t.expr, "p99<50ms") == 0);
}

static void test_parse_invalid(void)
{
    static const char *const bad[] = {
        "", "   ", "p99", "p99<", "p99<abc", "p99<5xs", "foo<1ms", "p101<1ms", "p0<1ms", "p(99<1ms",
        "p()<1ms", "p<1ms", "rate>5ms", "errors<0.5", "errors<150%", "errors<5ms", ":p99<1ms", "a b:p99<1ms",
        "p99<-1ms", "p99<nan", "p99<inf", "p99<<1ms", "p99=>1ms", "p99 1ms", "avg<1ms extra", "p99e1<1ms",
        "rate>0x10", "pct99<1ms",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bench_threshold t;
        char err[256] = "";
        int rc = bench_threshold_parse(bad[i], SECTIONS, &t, err, sizeof err);
        CHECK_MSG(rc == -1, "'%s' accepted", bad[i]);
        /* One line that names the flag; and the expression, when there is one. */
        CHECK_MSG(strncmp(err, "--threshold", 11) == 0 && !strchr(err, '\n'), "'%s': message '%s'", bad[i], err);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        if (strspn(bad[i], " ") != strlen(bad[i]) && bad[i][0] != ' ')
            CHECK_MSG(strstr(err, quoted) != NULL, "'%s': message does not name it: %s", bad[i], err);
    }
    char err[256];
    bench_threshold t;
    CHECK(bench_threshold_parse(NULL, SECTIONS, &t, err, sizeof err) == -1);
    CHECK(bench_threshold_parse("p99<5xs", SECTIONS, &t, err, sizeof err) == -1 && strstr(err, "unknown unit 'xs'"));
    CHECK(bench_threshold_parse("foo<1", SECTIONS, &t, err, sizeof err) == -1 && strstr(err, "unknown metric 'foo'"));
}

/* ---- evaluation ------------------------------------------------------------ */

/*
 * A measured run like the one hsmbench writes: latencies of 1..1000 ns, one
 * of each (below 2048 ns the histogram is exact, so p99 is 990 ns, p(12.5)
 * 125 ns, the mean 500.5 ns), 2000 ops/s, 10 errors in 1010 attempts (ops
 * are the successes, as results /3 counts them).  latency_us
 * holds ns * 0.001, which is what an "ns" threshold computes too, so the
 * boundaries below compare equal doubles.
 */
static json_t *make_run(const char *test, int with_ops)
{
    bench_hist *h = bench_hist_new();
    if (!h)
        return NULL;
    if (with_ops)
        for (uint64_t v = 1; v <= 1000; v++)
            bench_hist_record(h, v);
    double us = 0.001;
    json_t *run = json_pack("{s:s,s:s,s:i,s:i,s:s,s:f,s:I,s:I,s:I,s:f,s:f,s:f}", "test", test, "mode", "blocking",
                            "threads", 2, "data_size", 32, "status", "ok", "duration_s", 0.505, "ops",
                            (json_int_t)(with_ops ? 1000 : 0), "attempts", (json_int_t)(with_ops ? 1010 : 10),
                            "errors", (json_int_t)10, "error_pct",
                            with_ops ? 100.0 * 10 / 1010 : 100.0, "ops_per_s", with_ops ? 2000.0 : 19.8,
                            "bytes_per_s", 0.0);
    json_object_set_new(run, "latency_us",
                        json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "min",
                                  (double)bench_hist_min(h) * us, "mean", bench_hist_mean(h) * us, "stddev",
                                  bench_hist_stddev(h) * us, "p50", (double)bench_hist_percentile(h, 50) * us,
                                  "p90", (double)bench_hist_percentile(h, 90) * us, "p95",
                                  (double)bench_hist_percentile(h, 95) * us, "p99",
                                  (double)bench_hist_percentile(h, 99) * us, "p999",
                                  (double)bench_hist_percentile(h, 99.9) * us, "max", (double)bench_hist_max(h) * us,
                                  "count", (json_int_t)bench_hist_count(h)));
    json_object_set_new(run, "errors_by_code", json_pack("{s:i}", "CKR_DEVICE_ERROR", 10));
    json_object_set_new(run, "per_second", json_array());
    json_object_set_new(run, "histogram", bench_hist_to_json(h));
    bench_hist_free(h);
    return run;
}

/* bench_threshold_eval on the run model read from run; -9 when out of memory. */
static int eval_on(const bench_threshold *t, const json_t *run, double *observed)
{
    bench_run_model m;
    if (bench_model_from_run(run, NULL, &m) != 0)
        return -9;
    const int rc = bench_threshold_eval(t, &m, observed);
    bench_model_free(&m);
    return rc;
}

static int eval(const char *expr, const json_t *run, double *observed)
{
    bench_threshold t;
    char err[256];
    if (bench_threshold_parse(expr, SECTIONS, &t, err, sizeof err) != 0) {
        printf("  (parse of '%s' failed: %s)\n", expr, err);
        return -9;
    }
    return eval_on(&t, run, observed);
}

static void test_eval_pass_fail(void)
{
    json_t *run = make_run("rsa-pkcs-sign", 1);
    double obs;
    CHECK(run != NULL);
    if (!run)
        return;
    /* Each form both ways, with the figure it saw. */
    static const struct { const char *pass, *fail; double observed; } cases[] = {
        { "p99<1us", "p99<990ns", 0.99 },
        { "p99<=990ns", "p99<989ns", 0.99 },
        { "p95<=950ns", "p95<950ns", 0.95 },
        { "med<=500ns", "med<500ns", 0.5 },
        { "p(99.9)<1us", "p(99.9)>1us", 0.999 },
        { "p999<=999ns", "p999<999ns", 0.999 },
        { "p(99.99)<=1us", "p(99.99)<1us", 1.0 },      /* not stored: from the histogram */
        { "p(12.5)<126ns", "p(12.5)<125ns", 0.125 },   /* ditto */
        { "p100<=1000ns", "p100<1000ns", 1.0 },
        { "max<=1\xc2\xb5s", "max<1us", 1.0 },
        { "max<=0.001ms", "max>0.000001s", 1.0 },
        { "min>=1ns", "min>1ns", 0.001 },
        { "min<2ns", "min>=2ns", 0.001 },
        { "avg<0.501us", "avg<0.5us", 0.5005 },
        { "rate>1999", "rate>2000", 2000 },
        { "rate>=2000/s", "rate<2000", 2000 },
        { "errors<1%", "errors<0.99%", 100.0 * 10 / 1010 },
        { "errors<=10", "errors<10", 10 },
        { "errors!=0", "errors==0", 10 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = eval(cases[i].pass, run, &obs);
        CHECK_MSG(rc == 1, "'%s' should pass: rc %d, observed %g", cases[i].pass, rc, obs);
        CHECK_MSG(fabs(obs - cases[i].observed) < 1e-9 * fmax(1, cases[i].observed), "'%s': observed %.9g, want %g",
                  cases[i].pass, obs, cases[i].observed);
        rc = eval(cases[i].fail, run, &obs);
        CHECK_MSG(rc == 0, "'%s' should fail: rc %d, observed %g", cases[i].fail, rc, obs);
        CHECK_MSG(fabs(obs - cases[i].observed) < 1e-6 * fmax(1, cases[i].observed), "'%s': observed %.9g, want %g",
                  cases[i].fail, obs, cases[i].observed);
    }
    json_decref(run);
}

static void test_eval_not_measured(void)
{
    double obs;
    json_t *skipped = json_pack("{s:s,s:s,s:i,s:i,s:s,s:s}", "test", "ecdsa-sign", "mode", "blocking", "threads", 1,
                                "data_size", 32, "status", "skipped", "reason", "CKM_ECDSA not offered");
    CHECK(eval("p99<1s", skipped, &obs) == -1);
    CHECK(eval("rate>0", skipped, &obs) == -1);
    json_decref(skipped);

    /* Every operation failed: no latency to hold to a limit, but a rate and errors. */
    json_t *failing = make_run("aes-gcm-encrypt", 0);
    CHECK(eval("p99<1s", failing, &obs) == -1);
    CHECK(eval("avg<1s", failing, &obs) == -1);
    CHECK(eval("rate>10", failing, &obs) == 1 && obs == 19.8);
    CHECK(eval("errors<50%", failing, &obs) == 0 && obs == 100.0);
    json_decref(failing);
}

static void test_applies(void)
{
    bench_threshold t;
    char err[256];
    CHECK(bench_threshold_parse("rsa-pkcs-sign:p99<5ms", SECTIONS, &t, err, sizeof err) == 0);
    CHECK(bench_threshold_applies(&t, "rsa-pkcs-sign"));
    CHECK(!bench_threshold_applies(&t, "ecdsa-sign"));
    CHECK(bench_threshold_parse("p99<5ms", SECTIONS, &t, err, sizeof err) == 0);
    CHECK(bench_threshold_applies(&t, "rsa-pkcs-sign") && bench_threshold_applies(&t, "ecdsa-sign"));
}

static void test_observed_text(void)
{
    bench_threshold t;
    char err[256], buf[64];
    CHECK(bench_threshold_parse("p99<5ms", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 4657.15, buf, sizeof buf), "p(99)=4.657ms") == 0, "%s", buf);
    CHECK(bench_threshold_parse("p(99.9)<5ms", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 812, buf, sizeof buf), "p(99.9)=812\xc2\xb5s") == 0, "%s", buf);
    CHECK(bench_threshold_parse("rate>5", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 2877.774, buf, sizeof buf), "rate=2877.77/s") == 0, "%s", buf);
    CHECK(bench_threshold_parse("errors<1%", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 0.5, buf, sizeof buf), "errors=0.50%") == 0, "%s", buf);
    CHECK(bench_threshold_parse("errors<1", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 3, buf, sizeof buf), "errors=3") == 0, "%s", buf);
    CHECK(bench_threshold_parse("avg<1", SECTIONS, &t, err, sizeof err) == 0);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, 694.23, buf, sizeof buf), "avg=694.2\xc2\xb5s") == 0, "%s", buf);
}

/* ---- the block and the JSON -------------------------------------------------- */

/* Parse exprs[0..n) and apply them to runs; the block printed (free it),
 * NULL when an expression is refused or memory runs out.  *failed: what
 * bench_thresholds_apply returned. */
static char *apply_block(const char *const *exprs, size_t n, json_t *runs, int *failed)
{
    bench_threshold ths[8];
    char err[256], *text = NULL;
    size_t len = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        if (bench_threshold_parse(exprs[i], SECTIONS, &ths[i], err, sizeof err) != 0)
            return NULL;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    *failed = bench_thresholds_apply(ths, n < 8 ? n : 8, runs, f, NULL);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_apply(void)
{
    json_t *runs = json_array();
    json_array_append_new(runs, make_run("rsa-pkcs-sign", 1));
    json_array_append_new(runs, make_run("sha256-digest", 1));
    json_array_append_new(runs, json_pack("{s:s,s:s,s:i,s:i,s:s,s:s}", "test", "ecdsa-sign", "mode", "blocking",
                                          "threads", 1, "data_size", 32, "status", "skipped", "reason", "no EC"));
    const char *exprs[] = { "p99<1ms", "sha256-digest:rate>5000", "hmac-sha256:p99<1ms", "ecdsa-sign:p99<1ms" };
    bench_threshold ths[4];
    char err[256];
    for (size_t i = 0; i < 4; i++)
        CHECK(bench_threshold_parse(exprs[i], SECTIONS, &ths[i], err, sizeof err) == 0);

    int failed = 0;
    char *text = apply_block(exprs, 4, runs, &failed);
    CHECK(text != NULL);
    if (!text)
        return;
    /* Fails: the rate of sha256-digest, hmac-sha256 (no run), ecdsa-sign (skipped). */
    CHECK_MSG(failed == 3, "failed %d", failed);
    CHECK_MSG(strstr(text, "\xe2\x96\x88 THRESHOLDS") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "    rsa-pkcs-sign\n    \xe2\x9c\x93 'p99<1ms' p(99)=990ns\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\xe2\x9c\x97 'sha256-digest:rate>5000' rate=2000.00/s") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\xe2\x9c\x97 'hmac-sha256:p99<1ms' no run of this test") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\xe2\x9c\x97 'ecdsa-sign:p99<1ms' not measured") != NULL, "%s", text);
    free(text);

    /* Each run carries the thresholds that applied to it. */
    const json_t *t0 = json_object_get(json_array_get(runs, 0), "thresholds");
    CHECK(json_array_size(t0) == 1);
    const json_t *e = json_array_get(t0, 0);
    CHECK(strcmp(json_string_value(json_object_get(e, "expr")), "p99<1ms") == 0);
    CHECK(json_is_null(json_object_get(e, "test")));
    CHECK(json_is_true(json_object_get(e, "ok")));
    CHECK(fabs(json_real_value(json_object_get(e, "observed")) - 0.99) < 1e-12);

    const json_t *t1 = json_object_get(json_array_get(runs, 1), "thresholds");
    CHECK(json_array_size(t1) == 2);
    e = json_array_get(t1, 1);
    CHECK(strcmp(json_string_value(json_object_get(e, "test")), "sha256-digest") == 0);
    CHECK(json_is_false(json_object_get(e, "ok")));
    CHECK(json_real_value(json_object_get(e, "observed")) == 2000.0);

    /* The skipped run: the global threshold left it alone, its own one failed unmeasured. */
    const json_t *t2 = json_object_get(json_array_get(runs, 2), "thresholds");
    CHECK(json_array_size(t2) == 1);
    e = json_array_get(t2, 0);
    CHECK(json_is_false(json_object_get(e, "ok")) && json_is_null(json_object_get(e, "observed")));

    /* All passing, no output stream: 0 and nothing printed. */
    CHECK(bench_thresholds_apply(ths, 1, runs, NULL, NULL) == 0);
    CHECK(bench_thresholds_apply(ths, 0, runs, NULL, NULL) == 0);
    json_decref(runs);
}

static void test_apply_no_measured_run(void)
{
    json_t *runs = json_array();
    json_array_append_new(runs, json_pack("{s:s,s:s,s:i,s:i,s:s}", "test", "ecdsa-sign", "mode", "blocking",
                                          "threads", 1, "data_size", 32, "status", "failed"));
    bench_threshold t;
    char err[256];
    CHECK(bench_threshold_parse("p99<1ms", SECTIONS, &t, err, sizeof err) == 0);
    CHECK(bench_thresholds_apply(&t, 1, runs, NULL, NULL) == 1);
    json_decref(runs);
}


/* ---- HTTP metrics ------------------------------------------------------------ */

static void test_parse_http_forms(void)
{
    static const struct {
        const char *expr;
        bench_threshold_metric metric;
        const char *side;
        double pct, value;
        const char *test, *unit;
        int fraction;
    } forms[] = {
        { "http_req_duration:p95<200ms", BENCH_TM_PCT, "duration", 95, 200000, "", "ms", 0 },
        { "http_req_duration:p(95)<200", BENCH_TM_PCT, "duration", 95, 200000, "", "ms", 0 },   /* k6: ms */
        { "http_req_waiting:p99<50ms", BENCH_TM_PCT, "waiting", 99, 50000, "", "ms", 0 },
        { "http_req_blocked:max<1s", BENCH_TM_MAX, "blocked", 0, 1e6, "", "s", 0 },
        { "http_req_connecting:avg<=10us", BENCH_TM_AVG, "connecting", 0, 10, "", "us", 0 },
        { "http_req_tls_handshaking:med<5ms", BENCH_TM_MED, "tls_handshaking", 0, 5000, "", "ms", 0 },
        { "http_req_sending:min>=0", BENCH_TM_MIN, "sending", 0, 0, "", "ms", 0 },
        { "http_req_receiving:p(99.9)<1s", BENCH_TM_PCT, "receiving", 99.9, 1e6, "", "s", 0 },
        { "http_req_duration:p100<2s", BENCH_TM_PCT, "duration", 100, 2e6, "", "s", 0 },
        { " http_req_duration : p(90) < 20 ms ", BENCH_TM_PCT, "duration", 90, 20000, "", "ms", 0 },
        { "ekm-wrap:http_req_duration:p99<10ms", BENCH_TM_PCT, "duration", 99, 10000, "ekm-wrap", "ms", 0 },
        { "http-get:http_req_failed<1%", BENCH_TM_SIDE_PCT, "failed_pct", 0, 1, "http-get", "", 0 },
        { "http_req_failed<1%", BENCH_TM_SIDE_PCT, "failed_pct", 0, 1, "", "", 0 },
        { "http_req_failed:rate<0.01", BENCH_TM_SIDE_PCT, "failed_pct", 0, 1, "", "", 1 },
        { "http_req_failed:rate<=5%", BENCH_TM_SIDE_PCT, "failed_pct", 0, 5, "", "", 1 },
        { "http_reqs>1000", BENCH_TM_SIDE_RATE, "requests", 0, 1000, "", "", 0 },
        { "http_reqs:rate>=1000/s", BENCH_TM_SIDE_RATE, "requests", 0, 1000, "", "", 0 },
        { "http_reqs:count>5000", BENCH_TM_SIDE_COUNT, "requests", 0, 5000, "", "", 0 },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        bench_threshold t;
        char err[256] = "";
        int rc = bench_threshold_parse(forms[i].expr, SECTIONS, &t, err, sizeof err);
        CHECK_MSG(rc == 0, "'%s' refused: %s", forms[i].expr, err);
        if (rc != 0)
            continue;
        CHECK_MSG(t.metric == forms[i].metric && t.section == &rest_http_section && t.side &&
                  strcmp(t.side->key, forms[i].side) == 0, "'%s': metric %d member %s", forms[i].expr,
                  (int)t.metric, t.side ? t.side->key : "none");
        CHECK_MSG(fabs(t.value - forms[i].value) < 1e-9 * fmax(1, forms[i].value), "'%s': value %g", forms[i].expr,
                  t.value);
        if (t.metric == BENCH_TM_PCT)
            CHECK_MSG(t.pct == forms[i].pct, "'%s': pct %g", forms[i].expr, t.pct);
        CHECK_MSG(strcmp(t.test, forms[i].test) == 0, "'%s': test '%s'", forms[i].expr, t.test);
        if (t.side && t.side->kind == BENCH_SM_DIST)
            CHECK_MSG(strcmp(t.unit, forms[i].unit) == 0, "'%s': unit '%s'", forms[i].expr, t.unit);
        CHECK_MSG(t.fraction == forms[i].fraction, "'%s': fraction %d", forms[i].expr, t.fraction);
    }
    /* The old forms are not HTTP thresholds. */
    bench_threshold t;
    char err[256];
    CHECK(bench_threshold_parse("p99<5ms", SECTIONS, &t, err, sizeof err) == 0 && !t.section && !t.side);
}

static void test_parse_http_invalid(void)
{
    static const struct { const char *expr, *says; } bad[] = {
        { "http_req_duration<200ms", "needs a statistic" },
        { "http_req_duration:<200ms", "takes avg, min, med, max" },
        { "http_req_duration:rate>1", "takes avg, min, med, max" },
        { "http_req_duration:errors<1", "takes avg, min, med, max" },
        { "http_req_duration:p97<1s", "p(97) of http_req_duration is not kept" },
        { "http_req_waiting:p(99.99)<1s", "is not kept" },
        { "http_req_duration:p95<5xs", "unknown unit 'xs'" },
        { "http_req_duration:p95<-1ms", "non-negative number" },
        { "http_req_failed<1", "is a percentage of requests" },
        { "http_req_failed<1ms", "is a percentage of requests" },
        { "http_req_failed<101%", "more than 100%" },
        { "http_req_failed:rate<2", "more than 1" },
        { "http_req_failed:p95<1%", "takes a percentage" },
        { "http_reqs:p95<1", "http_reqs takes rate or count" },
        { "http_reqs>5ms", "unknown unit 'ms' for http_reqs" },
        { "http_reqs:count>1.5", "whole number" },
        { "http_reqs:count>5%", "whole number" },
        { "http_req_foo:p95<1", "unknown HTTP metric 'http_req_foo'" },
        { "http_req_durations:p95<1", "unknown HTTP metric" },
        { "ekm-wrap:http_req_duration<1", "needs a statistic" },
        /* k6's other metrics, tags and :abort */
        { "checks:p95<1", "checks takes a percentage" },
        { "checks<0.99", "checks is a percentage of checks" },
        { "iteration_duration<600", "iteration_duration needs a statistic" },
        { "vus_max:p95<1", "vus_max takes value, min or max" },
        { "vus_max<1.5", "whole number of VUs" },
        { "iterations>5ms", "unknown unit 'ms' for iterations" },
        { "http_req_duration{method:GET}:p(95)<200", "http_req_duration is not split by tag 'method' (its tags: expected_response)" },
        { "http_req_waiting{expected_response:true}:p95<1", "http_req_waiting is not split by tag 'expected_response'" },
        { "http_req_duration{expected_response:maybe}:p95<1", "expected_response is true or false, not 'maybe'" },
        { "http_reqs{status:42}:count>1", "status is an HTTP status" },
        { "checks{check:nope}:rate>0.9", "check 'nope' is not one hsmbench makes" },
        { "http_req_duration{expected_response}:p95<1", "a tag is {TAG:VALUE}" },
        { "http_req_duration{expected_response:true:p95<1", "a tag is {TAG:VALUE}" },
        { "http_req_duration{a:b,c:d}:p95<1", "one tag at a time" },
        { "checks:rate>0.99:abort", ":abort judges the run's own figures" },
        { "p99<1s:abort=soon", "delayAbortEval" },
        { "p99<1s:abortive", "is not a test name" },
        { "p99<1s:abort now", "expected :abort or :abort=TIME" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bench_threshold t;
        char err[512] = "";
        int rc = bench_threshold_parse(bad[i].expr, SECTIONS, &t, err, sizeof err);
        CHECK_MSG(rc == -1, "'%s' accepted", bad[i].expr);
        char quoted[80];
        snprintf(quoted, sizeof quoted, "--threshold '%s': ", bad[i].expr);
        CHECK_MSG(strncmp(err, quoted, strlen(quoted)) == 0 && !strchr(err, '\n'), "'%s': message '%s'",
                  bad[i].expr, err);
        CHECK_MSG(strstr(err, bad[i].says) != NULL, "'%s': message '%s' does not say '%s'", bad[i].expr, err,
                  bad[i].says);
    }
}

/* A REST run: make_run's operations plus the "http" object a REST run
 * writes, 2000 requests over 0.5 s, 10 failed; duration phase p95 1500 µs. */
static json_t *make_rest_run(const char *test)
{
    json_t *run = make_run(test, 1);
    json_t *phases = json_object();
    for (int i = 0; i < REST_PH_COUNT; i++) {
        double k = (double)(i + 1);   /* every phase its own figures */
        json_object_set_new(phases, rest_phase_name(i),
                            json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "min", 1.0 * k, "mean", 10.0 * k,
                                      "stddev", 3.0, "p50", 8.0 * k, "p90", 20.0 * k, "p95", 30.0 * k, "p99",
                                      50.0 * k, "p999", 90.0 * k, "max", 100.0 * k, "count", (json_int_t)1990));
    }
    json_object_set_new(run, "duration_s", json_real(0.5));
    json_object_set_new(run, "http", json_pack("{s:I,s:{s:I,s:I},s:I,s:f,s:o}", "requests", (json_int_t)2000,
                                               "status_counts", "200", (json_int_t)1990, "503", (json_int_t)10,
                                               "failed", (json_int_t)10, "failed_pct", 0.5, "phases_us", phases));
    return run;
}

static void test_eval_http(void)
{
    json_t *rest = make_rest_run("ekm-wrap"), *p11 = make_run("rsa-pkcs-sign", 1);
    double obs;
    static const struct { const char *pass, *fail; double observed; } cases[] = {
        { "http_req_duration:p95<=210us", "http_req_duration:p95<210us", 210 },   /* 30 x 7 */
        { "http_req_duration:p(95)<0.211", "http_req_duration:p(95)>0.21", 210 },   /* ms */
        { "http_req_waiting:p99<=250us", "http_req_waiting:p99<250us", 250 },      /* 50 x 5 */
        { "http_req_blocked:avg==10us", "http_req_blocked:avg!=10us", 10 },
        { "http_req_connecting:med>=16us", "http_req_connecting:med>16us", 16 },
        { "http_req_tls_handshaking:min<=3us", "http_req_tls_handshaking:min<3us", 3 },
        { "http_req_sending:max<=400us", "http_req_sending:max<400us", 400 },
        { "http_req_receiving:p(99.9)<=540us", "http_req_receiving:p(99.9)<540us", 540 },
        { "http_req_duration:p100<=700us", "http_req_duration:p100<700us", 700 },
        { "http_req_failed<1%", "http_req_failed<0.5%", 0.5 },
        { "http_req_failed:rate<=0.005", "http_req_failed:rate<0.005", 0.5 },
        { "http_reqs>=4000", "http_reqs>4000", 4000 },
        { "http_reqs:count==2000", "http_reqs:count>2000", 2000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = eval(cases[i].pass, rest, &obs);
        CHECK_MSG(rc == 1 && fabs(obs - cases[i].observed) < 1e-9, "'%s' should pass: rc %d, observed %g",
                  cases[i].pass, rc, obs);
        rc = eval(cases[i].fail, rest, &obs);
        CHECK_MSG(rc == 0 && fabs(obs - cases[i].observed) < 1e-9, "'%s' should fail: rc %d, observed %g",
                  cases[i].fail, rc, obs);
        /* A PKCS#11 run has no HTTP figures: not evaluated (a failure). */
        rc = eval(cases[i].pass, p11, &obs);
        CHECK_MSG(rc == -1, "'%s' on a PKCS#11 run: rc %d", cases[i].pass, rc);
    }
    /* The old forms still read the operations, REST run or not. */
    CHECK(eval("p99<=990ns", rest, &obs) == 1 && fabs(obs - 0.99) < 1e-12);
    /* No request measured: nothing to judge. */
    json_object_set_new(json_object_get(rest, "http"), "requests", json_integer(0));
    CHECK(eval("http_req_failed<1%", rest, &obs) == -1);
    json_decref(rest);
    json_decref(p11);
}

static void test_http_observed_text(void)
{
    static const struct { const char *expr; double observed; const char *text; } cases[] = {
        { "http_req_duration:p95<200ms", 313.1, "p(95)=0.3131ms" },
        { "http_req_duration:p95<200", 154300, "p(95)=154.3ms" },
        { "http_req_duration:p(95)<10s", 313.1, "p(95)=0.0003131s" },
        { "http_req_waiting:p99<500us", 75.01, "p(99)=75.01us" },
        { "http_req_waiting:avg<500\xc2\xb5s", 75.01, "avg=75.01\xc2\xb5s" },
        { "http_req_blocked:max<1ns", 4.772, "max=4772ns" },
        { "http_req_duration:med<1ms", 1234567, "med=1235ms" },
        { "http_req_failed<1%", 0.5, "http_req_failed=0.50%" },
        { "http_req_failed:rate<0.01", 0.5, "rate=0.0050" },
        { "http_reqs>1000", 12278.754, "rate=12278.75/s" },
        { "http_reqs:count>1", 24577, "count=24577" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_threshold t;
        char err[256], buf[64];
        CHECK(bench_threshold_parse(cases[i].expr, SECTIONS, &t, err, sizeof err) == 0);
        bench_threshold_observed_text(&t, cases[i].observed, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, cases[i].text) == 0, "'%s': '%s', want '%s'", cases[i].expr, buf, cases[i].text);
    }
}

/* The block says why an HTTP threshold failed on a PKCS#11 run; the JSON
 * entry has its unit. */
static void test_apply_http(void)
{
    json_t *runs = json_array();
    json_array_append_new(runs, make_rest_run("ekm-wrap"));
    json_array_append_new(runs, make_run("rsa-pkcs-sign", 1));
    const char *exprs[] = { "ekm-wrap:http_req_duration:p95<1ms", "http_req_failed<1%" };
    int failed = 0;
    char *text = apply_block(exprs, 2, runs, &failed);
    CHECK(text != NULL);
    if (!text) {
        json_decref(runs);
        return;
    }
    CHECK_MSG(failed == 1, "failed %d", failed);   /* http_req_failed on the PKCS#11 run */
    CHECK_MSG(strstr(text, "\xe2\x9c\x93 'ekm-wrap:http_req_duration:p95<1ms' p(95)=0.21ms\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\xe2\x9c\x93 'http_req_failed<1%' http_req_failed=0.50%\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "    rsa-pkcs-sign\n    \xe2\x9c\x97 'http_req_failed<1%' no HTTP requests (not a REST run)\n")
              != NULL, "%s", text);
    free(text);
    const json_t *e = json_array_get(json_object_get(json_array_get(runs, 0), "thresholds"), 0);
    CHECK(strcmp(json_string_value(json_object_get(e, "unit")), "us") == 0);
    CHECK(fabs(json_real_value(json_object_get(e, "observed")) - 210) < 1e-9);
    e = json_array_get(json_object_get(json_array_get(runs, 0), "thresholds"), 1);
    CHECK(strcmp(json_string_value(json_object_get(e, "unit")), "%") == 0);
    e = json_array_get(json_object_get(json_array_get(runs, 1), "thresholds"), 0);
    CHECK(json_is_false(json_object_get(e, "ok")) && json_is_null(json_object_get(e, "observed")));
    json_decref(runs);
}

/* ---- any workload section ------------------------------------------------------ */

/* A section of no real workload: the parser, the evaluation and the block
 * read its names, members and reasons from its table alone. */
static const bench_section_metric queue_metrics[] = {
    { "q_wait", BENCH_SM_DIST, "wait", NULL, NULL },
    { "q_dropped", BENCH_SM_PCT, "dropped_pct", NULL, NULL },
    { "q_msgs", BENCH_SM_COUNT, "messages", NULL, NULL },
};
static const bench_section queue_section = {
    .key = "queue", .title = "queue", .prefix = "q_", .metrics = queue_metrics, .nmetrics = 3,
    .count_key = "messages", .count_noun = "messages", .rate_unit = "msg/s", .dists = "stages_us",
    .dist_noun = "queue stage", .absent = "no queue here", .empty = "no message measured",
    .no_dists = "no stage figures",
};

/* ---- k6's other metrics, tags, :abort, --quiet's lines ------------------------- */

/* A REST run with the k6 object its writer makes (rest/views/k6.c). */
static json_t *make_k6_run(const char *test)
{
    json_t *run = make_rest_run(test);
    json_t *trend = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "min", 400.0, "mean", 510.0, "p50", 500.0,
                              "p90", 560.0, "p95", 580.0, "p99", 650.0, "p999", 690.0, "max", 700.0, "count",
                              (json_int_t)1000);
    json_t *k6 = json_pack("{s:{s:f,s:I,s:I,s:{s:{s:f,s:I,s:I}}},s:o,s:O,s:{s:f,s:I,s:I},s:{s:I,s:f},"
                           "s:{s:I,s:f},s:{s:I,s:I,s:I},s:{s:I,s:I,s:I},s:{s:I,s:f,s:f,s:f,s:I}}",
                           "checks", "rate", 0.995, "passes", (json_int_t)1990, "fails", (json_int_t)10,
                           "by_check", "status", "rate", 0.995, "passes", (json_int_t)1990, "fails", (json_int_t)10,
                           "iteration_duration", trend, "http_req_duration{expected_response:true}", trend,
                           "http_req_failed", "rate", 0.005, "passes", (json_int_t)10, "fails", (json_int_t)1990,
                           "iterations", "count", (json_int_t)1000, "rate", 2000.0,
                           "data_sent", "count", (json_int_t)500000, "rate", 1e6,
                           "vus", "value", (json_int_t)3, "min", (json_int_t)1, "max", (json_int_t)70,
                           "vus_max", "value", (json_int_t)70, "min", (json_int_t)70, "max", (json_int_t)70,
                           "http_req_duration{expected_response:false}", "count", (json_int_t)0, "mean", 0.0,
                           "p50", 0.0, "p95", 0.0, "max", (json_int_t)0);
    json_object_set_new(json_object_get(run, "http"), "k6", k6);
    return run;
}

static void test_k6_metrics(void)
{
    json_t *run = make_k6_run("ekm-wrap"), *p11 = make_run("rsa-pkcs-sign", 1);
    double obs;
    /* the forms (seeds 000, 003), both ways, with the figure seen */
    static const struct { const char *pass, *fail; double observed; } cases[] = {
        { "checks:rate>0.99", "checks:rate>0.996", 99.5 },
        { "checks>99%", "checks>99.6%", 99.5 },
        { "iteration_duration:p(95)<600", "iteration_duration:p(95)<0.5", 580 },
        { "iteration_duration:avg<=510us", "iteration_duration:avg<510us", 510 },
        { "http_req_failed:rate<0.01", "http_req_failed:rate<0.005", 0.5 },
        { "http_reqs:count>1999", "http_reqs:count>2000", 2000 },
        { "http_req_duration{expected_response:true}:p(95)<200", "http_req_duration{expected_response:true}:p(95)<0.58", 580 },
        { "http_req_duration{ expected_response : true }:p99<=650us", "http_req_duration{expected_response:true}:p99<650us", 650 },
        { "iterations:count==1000", "iterations:count>1000", 1000 },
        { "iterations>=2000", "iterations>2000", 2000 },                  /* 1000 in 0.5 s */
        { "data_sent:rate>=1000000B/s", "data_sent>1e6", 1e6 },
        { "vus_max<=70", "vus_max<70", 70 },
        { "vus:max==70", "vus:max<70", 70 },
        { "vus:min==1", "vus:value==1", 1 },
        { "http_reqs{status:200}:count==1990", "http_reqs{status:200}:count<1990", 1990 },
        { "http_reqs{status:404}:count==0", "http_reqs{status:404}:count>0", 0 },   /* none answered */
        { "http_reqs{expected_response:false}:count==10", "http_reqs{expected_response:false}:count<10", 10 },
        { "http_reqs{expected_response:true}:count==1990", "http_reqs{expected_response:true}:count!=1990", 1990 },
        { "checks{check:status code}:rate>=0.995", "checks{check:status}:rate>0.995", 99.5 },
        { "dropped_iterations:count==0", "dropped_iterations:count>0", 0 },  /* none dropped: no member */
        { "ekm-wrap:checks:rate>0.99", "ekm-wrap:checks:rate>0.999", 99.5 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = eval(cases[i].pass, run, &obs);
        CHECK_MSG(rc == 1 && fabs(obs - cases[i].observed) < 1e-9 * fmax(1, cases[i].observed),
                  "'%s' should pass: rc %d, observed %g", cases[i].pass, rc, obs);
        rc = eval(cases[i].fail, run, &obs);
        CHECK_MSG(rc == 0, "'%s' should fail: rc %d, observed %g", cases[i].fail, rc, obs);
        CHECK_MSG(eval(cases[i].pass, p11, &obs) == -1, "'%s' on a PKCS#11 run", cases[i].pass);
    }
    /* no data: a trend without values, a merged file without its k6 object */
    CHECK(eval("http_req_duration{expected_response:false}:p95<1s", run, &obs) == -1);
    json_t *merged = make_rest_run("ekm-wrap");
    CHECK(eval("checks:rate>0.5", merged, &obs) == -1);
    /* the block says why, and --quiet's line names test, expression and reason */
    bench_threshold t[2];
    char err[256];
    CHECK(bench_threshold_parse("checks:rate>0.5", SECTIONS, &t[0], err, sizeof err) == 0);
    CHECK(bench_threshold_parse("http_req_duration{expected_response:false}:p95<1s", SECTIONS, &t[1], err,
                                sizeof err) == 0);
    json_t *runs = json_pack("[O,O]", merged, run);
    char *buf = NULL, *qbuf = NULL;
    size_t blen = 0, qlen = 0;
    FILE *f = open_memstream(&buf, &blen), *q = open_memstream(&qbuf, &qlen);
    CHECK(runs && f && q);
    if (runs && f && q) {
        CHECK(bench_thresholds_apply(t, 2, runs, f, q) == 3);
        fclose(f);
        fclose(q);
        f = q = NULL;
        CHECK_MSG(strstr(buf, "'checks:rate>0.5' no k6 summary figures (a merged file keeps none)") != NULL, "%s", buf);
        CHECK_MSG(strstr(buf, "no data (as in k6") != NULL, "%s", buf);
        CHECK_MSG(strstr(qbuf, "hsmbench: threshold failed: ekm-wrap 'checks:rate>0.5' no k6 summary figures") &&
                      !strstr(qbuf, "ekm-wrap 'checks:rate>0.5' rate=") &&
                      strstr(qbuf, "hsmbench: threshold failed: ekm-wrap "
                                   "'http_req_duration{expected_response:false}:p95<1s' no data"),
                  "%s", qbuf);
    }
    if (f)
        fclose(f);
    if (q)
        fclose(q);
    free(buf);
    free(qbuf);
    json_decref(runs);
    json_decref(merged);
    json_decref(run);
    json_decref(p11);
}

/* :abort and :abort=TIME (k6's abortOnFail, delayAbortEval); the refused
 * forms are in test_parse_http_invalid. */
static void test_k6_abort_parse(void)
{
    /* :abort and :abort=TIME parse, the expression kept as given */
    bench_threshold t;
    char err[256] = "";
    CHECK(bench_threshold_parse("p99<1s:abort", SECTIONS, &t, err, sizeof err) == 0 && t.abort &&
          t.abort_delay_ns == 0 && t.value == 1e6 && strcmp(t.expr, "p99<1s:abort") == 0);
    CHECK(bench_threshold_parse("rsa-pkcs-sign:errors<1%:abort=1m30s", SECTIONS, &t, err, sizeof err) == 0 &&
          t.abort && t.abort_delay_ns == 90000000000ULL && strcmp(t.test, "rsa-pkcs-sign") == 0 &&
          t.metric == BENCH_TM_ERROR_PCT);
    CHECK(bench_threshold_parse("p99<1s", SECTIONS, &t, err, sizeof err) == 0 && !t.abort);
}

static void test_any_section(void)
{
    const bench_section *const only[] = { &queue_section, NULL };
    bench_threshold t;
    char err[512] = "", buf[64];
    /* Its names parse, a NAME:STAT is no TEST: part, the rest is as before. */
    CHECK(bench_threshold_parse("q_wait:p99<2ms", only, &t, err, sizeof err) == 0 && t.section == &queue_section &&
          t.side == &queue_metrics[0] && t.metric == BENCH_TM_PCT && t.pct == 99 && !t.test[0]);
    CHECK(bench_threshold_parse("relay:q_dropped:rate<0.1", only, &t, err, sizeof err) == 0 &&
          t.metric == BENCH_TM_SIDE_PCT && t.fraction && strcmp(t.test, "relay") == 0 && t.value == 10);
    CHECK(bench_threshold_parse("q_msgs>3msg/s", only, &t, err, sizeof err) == 0 && t.metric == BENCH_TM_SIDE_RATE);
    CHECK(bench_threshold_parse("p99<1ms", only, &t, err, sizeof err) == 0 && !t.section);
    CHECK_MSG(bench_threshold_parse("q_lag:p99<1", only, &t, err, sizeof err) == -1 &&
              strcmp(err, "--threshold 'q_lag:p99<1': unknown queue metric 'q_lag' (use q_wait, q_dropped "
                     "or q_msgs)") == 0, "%s", err);
    CHECK_MSG(bench_threshold_parse("q_msgs:count>1.5", only, &t, err, sizeof err) == -1 &&
              strstr(err, "q_msgs:count takes a whole number of messages"), "%s", err);
    CHECK_MSG(bench_threshold_parse("q_wait:p97<1", only, &t, err, sizeof err) == -1 &&
              strstr(err, "and max of each queue stage"), "%s", err);
    /* Without the section in the list its names are no metric: NAME:STAT reads as TEST:EXPR. */
    CHECK(bench_threshold_parse("q_wait:p99<2ms", NULL, &t, err, sizeof err) == 0 && !t.section &&
          strcmp(t.test, "q_wait") == 0);
    CHECK(bench_threshold_parse("q_dropped<4%", NULL, &t, err, sizeof err) == -1 &&
          strstr(err, "unknown metric 'q_dropped'"));
    /* No HTTP name is known unless the REST floor's section is given. */
    CHECK(bench_threshold_parse("http_req_failed<1%", only, &t, err, sizeof err) == -1 &&
          strstr(err, "unknown metric 'http_req_failed'"));

    json_t *run = make_run("relay", 1);
    json_object_set_new(run, "duration_s", json_real(2));
    json_object_set_new(run, "queue", json_pack("{s:I,s:f,s:{s:{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}}}",
                                                "messages", (json_int_t)50, "dropped_pct", 4.0, "stages_us",
                                                "wait", "min", 1.0, "mean", 5.0, "p50", 4.0, "p90", 8.0, "p95",
                                                9.0, "p99", 12.0, "p999", 20.0, "max", 30.0, "count",
                                                (json_int_t)50));
    double obs = 0;
    CHECK(bench_threshold_parse("q_wait:p99<=12us", only, &t, err, sizeof err) == 0 &&
          eval_on(&t, run, &obs) == 1 && obs == 12);
    CHECK(bench_threshold_parse("q_dropped<4%", only, &t, err, sizeof err) == 0 &&
          eval_on(&t, run, &obs) == 0 && obs == 4);
    CHECK_MSG(strcmp(bench_threshold_observed_text(&t, obs, buf, sizeof buf), "q_dropped=4.00%") == 0, "%s", buf);
    CHECK(bench_threshold_parse("q_msgs>=25", only, &t, err, sizeof err) == 0 &&
          eval_on(&t, run, &obs) == 1 && obs == 25);
    CHECK(bench_threshold_parse("q_msgs:count==50", only, &t, err, sizeof err) == 0 &&
          eval_on(&t, run, &obs) == 1 && obs == 50);

    /* The block gives the section's own reasons for a missing figure. */
    json_t *runs = json_array(), *bare = make_run("plain", 1), *nodist = json_deep_copy(run);
    json_object_del(json_object_get(nodist, "queue"), "stages_us");
    json_object_set_new(nodist, "test", json_string("nodist"));
    json_array_append_new(runs, run);
    json_array_append_new(runs, bare);
    json_array_append_new(runs, nodist);
    bench_threshold th;
    CHECK(bench_threshold_parse("q_wait:max<1s", only, &th, err, sizeof err) == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK(bench_thresholds_apply(&th, 1, runs, f, NULL) == 2);
        fclose(f);
        CHECK_MSG(text && strstr(text, "\xe2\x9c\x93 'q_wait:max<1s' max=3e-05s") &&
                  strstr(text, "\xe2\x9c\x97 'q_wait:max<1s' no queue here") &&
                  strstr(text, "\xe2\x9c\x97 'q_wait:max<1s' no stage figures"), "%s", text ? text : "");
    }
    free(text);
    const json_t *e = json_array_get(json_object_get(json_array_get(runs, 0), "thresholds"), 0);
    CHECK(e && strcmp(bench_json_str(e, "unit", ""), "us") == 0);
    json_decref(runs);
}

int main(void)
{
    RUN(test_parse_forms);
    RUN(test_parse_invalid);
    RUN(test_eval_pass_fail);
    RUN(test_eval_not_measured);
    RUN(test_applies);
    RUN(test_observed_text);
    RUN(test_apply);
    RUN(test_apply_no_measured_run);
    RUN(test_parse_http_forms);
    RUN(test_parse_http_invalid);
    RUN(test_eval_http);
    RUN(test_http_observed_text);
    RUN(test_apply_http);
    RUN(test_any_section);
    RUN(test_k6_metrics);
    RUN(test_k6_abort_parse);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_model.c - bench/results/model.c: a run's figures computed
 * once, from the run element, and named once: ops are the successes,
 * attempts the successes and errors, rates and bytes from the successes;
 * a /2 file (whose ops counted attempts) reads as the same model; TLS over
 * plain http is none; every token of a run is named; a capacity step
 * carries its verdict; a merge's per-second percentiles are upper bounds.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/model.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdlib.h>

#include "bench/core/hist.h"
#include "bench/results/report.h"
#include "bench/results/results.h"

static void code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "E%u", (unsigned)code);
}

/* 100 attempts over 2 s: 90 successes (1..90 µs), 7 E1 and 3 E2. */
static json_t *sample_run(uint64_t bytes_per_op)
{
    bench_outcome o;
    memset(&o, 0, sizeof o);
    o.status = BENCH_RUN_OK;
    o.duration_s = 2.0;
    o.ops = 100;
    o.errors = 10;
    o.hist = bench_hist_new();
    for (uint64_t i = 1; i <= 90; i++)
        bench_hist_record(o.hist, i * 1000);
    bench_err errs[2] = { { 2, 3 }, { 1, 7 } };   /* the writer keeps the order it is given */
    o.errs = errs;
    o.nerrs = 2;
    o.client_cpu = -1;
    bench_sample s[2];
    memset(s, 0, sizeof s);
    s[0] = (bench_sample){ .t = 1, .span_s = 1, .ops = 60, .errors = 6 };
    s[1] = (bench_sample){ .t = 2, .span_s = 1, .ops = 40, .errors = 4 };
    o.samples = s;
    o.nsamples = 2;
    bench_workload w;
    memset(&w, 0, sizeof w);
    w.code_name = code_name;
    w.bytes_per_op = bytes_per_op;
    bench_run_desc d = { .test = "aes-gcm-encrypt", .mode = "blocking", .threads = 2, .data_size = 32,
                         .duration_s = 2 };
    json_t *run = bench_report_run_json(&d, &o, &w, "ok", NULL);
    bench_hist_free(o.hist);
    return run;
}

static json_t *doc_of(json_t *run, const char *schema)
{
    return json_pack("{s:s,s:{},s:[o]}", "schema", schema, "environment", "runs", run);
}

static void check_counts(const bench_run_model *m)
{
    CHECK_MSG(m->ops == 90, "ops %llu", (unsigned long long)m->ops);
    CHECK(m->attempts == 100);
    CHECK(m->errors == 10);
    CHECK(fabs(m->error_pct - 10.0) < 1e-9);
    CHECK(fabs(m->ops_per_s - 45.0) < 1e-9);
    CHECK(fabs(m->attempts_per_s - 50.0) < 1e-9);
    CHECK_MSG(fabs(m->bytes_per_s - 45.0 * 32) < 1e-6, "bytes/s %g", m->bytes_per_s);
    CHECK(fabs(m->bytes - 90.0 * 32) < 1e-6);
    CHECK(m->latency.present && m->latency.count == 90);
    CHECK(m->hist && bench_hist_count(m->hist) == 90);
    CHECK(m->ncodes == 2 && strcmp(m->codes[0].name, "E1") == 0 && m->codes[0].count == 7);
    CHECK(m->nseconds == 2 && m->seconds[0].ops == 54 && m->seconds[0].errors == 6);
    CHECK(!m->seconds_upper_bound);
    /* 10 of 100 failed: errors, never ok (issue 41), whoever wrote the run. */
    CHECK_MSG(strcmp(m->status, "errors") == 0 && m->measured &&
                  strcmp(m->reason, "10 of 100 attempts failed (10.00 %), most often E1") == 0,
              "%s: %s", m->status, m->reason);
}

/* The figures of a live run, through its run JSON. */
static void test_counts_named_once(void)
{
    json_t *run = sample_run(32);
    CHECK(bench_json_int(run, "ops", -1) == 90);
    CHECK(bench_json_int(run, "attempts", -1) == 100);
    json_t *doc = doc_of(run, BENCH_RESULT_SCHEMA);
    char err[256] = "";
    CHECK_MSG(bench_results_check(doc, err, sizeof err) == 0, "%s", err);
    bench_run_model m;
    CHECK(bench_model_from_run(run, doc, &m) == 0);
    check_counts(&m);
    bench_model_free(&m);
    json_decref(doc);
}

/* A /2 file's ops counted attempts: it loads as the same model. */
static void test_v2_upgraded(void)
{
    json_t *run = sample_run(32);
    json_object_set_new(run, "ops", json_integer(100));
    json_t *ps = json_object_get(run, "per_second");
    json_object_set_new(json_array_get(ps, 0), "ops", json_integer(60));
    json_object_set_new(json_array_get(ps, 1), "ops", json_integer(40));
    json_t *doc = doc_of(run, BENCH_RESULT_SCHEMA_V2);
    char *text = json_dumps(doc, 0), err[256] = "";
    json_decref(doc);
    json_t *up = bench_results_parse("v2.json", text, strlen(text), err, sizeof err);
    free(text);
    CHECK_MSG(up != NULL, "%s", err);
    if (!up)
        return;
    CHECK(strcmp(bench_json_str(up, "schema", ""), BENCH_RESULT_SCHEMA) == 0);
    bench_run_model m;
    CHECK(bench_model_from_run(json_array_get(json_object_get(up, "runs"), 0), up, &m) == 0);
    check_counts(&m);
    bench_model_free(&m);
    json_decref(up);
}

/* A /3 file whose attempts are not ops + errors is refused by name. */
static void test_attempts_checked(void)
{
    json_t *run = sample_run(0);
    json_object_set_new(run, "attempts", json_integer(99));
    json_t *doc = doc_of(run, BENCH_RESULT_SCHEMA);
    char err[256] = "";
    CHECK(bench_results_check(doc, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "runs[0].attempts") != NULL, "%s", err);
    json_decref(doc);
}

static bench_model_tls tls_for(const char *url, int verify)
{
    json_t *doc = json_pack("{s:s,s:{s:{s:s,s:s,s:{s:b,s:b,s:b}}},s:[o]}", "schema", BENCH_RESULT_SCHEMA,
                            "environment", "endpoint", "service", "ekm", "url", url, "tls", "verify", verify,
                            "custom_ca", 0, "client_cert", 0, "runs", sample_run(0));
    bench_run_model m;
    bench_model_tls t = { 0 };
    if (bench_model_from_run(json_array_get(json_object_get(doc, "runs"), 0), doc, &m) == 0) {
        t = m.tls;
        bench_model_free(&m);
    }
    json_decref(doc);
    return t;
}

/* Plain http has no TLS, whatever an older file's "tls" object says. */
static void test_tls_plain_http(void)
{
    char buf[160];
    bench_model_tls t = tls_for("http://127.0.0.1:8080/ekm", 1);
    CHECK(t.kind == BENCH_TLS_NONE && strcmp(t.scheme, "http") == 0);
    CHECK(strcmp(bench_model_tls_text(&t, buf, sizeof buf), "none (plain HTTP)") == 0);
    t = tls_for("https://127.0.0.1:8443/ekm", 1);
    CHECK(t.kind == BENCH_TLS_ON && t.verified == 1);
    CHECK(strstr(bench_model_tls_text(&t, buf, sizeof buf), "certificate verified: yes") != NULL);
    t = tls_for("https://127.0.0.1:8443/ekm", 0);
    CHECK(t.verified == 0);
}

/* A run over two tokens names both. */
static void test_every_token(void)
{
    json_t *doc = json_pack("{s:s,s:{s:[{s:s,s:s},{s:s,s:s}]},s:[o]}", "schema", BENCH_RESULT_SCHEMA,
                            "environment", "tokens", "label", "alpha", "serial", "1", "label", "beta",
                            "serial", "2", "runs", sample_run(0));
    bench_run_model m;
    CHECK(bench_model_from_run(json_array_get(json_object_get(doc, "runs"), 0), doc, &m) == 0);
    CHECK(m.ntokens == 2 && strstr(m.tokens[0], "alpha") && strstr(m.tokens[1], "beta"));
    bench_model_free(&m);
    json_decref(doc);
}

/* A capacity step carries the objectives' verdict; the probe is step 0. */
static void test_capacity_step(void)
{
    json_t *probe = sample_run(0), *step = sample_run(0);
    json_object_set_new(probe, "capacity_step", json_integer(0));
    json_object_set_new(step, "capacity_step", json_integer(1));
    json_t *doc = json_pack("{s:s,s:{s:[{s:b,s:s,s:s}]},s:[o,o]}", "schema", BENCH_RESULT_SCHEMA, "capacity",
                            "steps", "pass", 0, "why", "p99 12 ms > 10 ms", "limit", "latency", "runs", probe,
                            step);
    bench_run_model m;
    CHECK(bench_model_from_run(json_array_get(json_object_get(doc, "runs"), 0), doc, &m) == 0);
    CHECK(m.capacity_step == 0 && !m.step_judged);
    bench_model_free(&m);
    CHECK(bench_model_from_run(json_array_get(json_object_get(doc, "runs"), 1), doc, &m) == 0);
    CHECK(m.capacity_step == 1 && m.step_judged && !m.step_pass);
    CHECK_MSG(strstr(m.step_why, "p99 12 ms") != NULL, "%s", m.step_why);
    bench_model_free(&m);
    json_decref(doc);
}

/* A merge's per-second p50/p99 are the largest of the inputs': flagged. */
static void test_merge_upper_bound(void)
{
    json_t *a = doc_of(sample_run(32), BENCH_RESULT_SCHEMA), *b = doc_of(sample_run(32), BENCH_RESULT_SCHEMA);
    json_object_set_new(a, "started_at_epoch_ms", json_integer(1000));
    json_object_set_new(b, "started_at_epoch_ms", json_integer(1000));
    json_t *docs[2] = { a, b };
    const char *names[2] = { "a.json", "b.json" };
    char err[256] = "";
    json_t *mdoc = bench_results_merge(docs, names, 2, NULL, err, sizeof err);
    CHECK_MSG(mdoc != NULL, "%s", err);
    if (mdoc) {
        bench_run_model m;
        CHECK(bench_model_from_run(json_array_get(json_object_get(mdoc, "runs"), 0), mdoc, &m) == 0);
        CHECK(m.seconds_upper_bound);
        CHECK(m.ops == 180 && m.attempts == 200 && m.errors == 20);
        CHECK(fabs(m.ops_per_s - 90.0) < 1e-9);
        bench_model_free(&m);
        json_decref(mdoc);
    }
    json_decref(a);
    json_decref(b);
}

int main(void)
{
    RUN(test_counts_named_once);
    RUN(test_v2_upgraded);
    RUN(test_attempts_checked);
    RUN(test_tls_plain_http);
    RUN(test_every_token);
    RUN(test_capacity_step);
    RUN(test_merge_upper_bound);
    return check_finish();
}

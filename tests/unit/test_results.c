/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_results.c - bench/results/results.c and the reports: loading and
 * validating results files, merging several generators' files exactly, the
 * CSV and HTML writers, environment.target (built, read, derived for older
 * files), and the progress bar (drawn on a terminal only).
 *
 * The merge check is the one that matters: two histograms are built from
 * known values, serialised with bench_hist_to_json into two results
 * documents, merged, and the merged percentiles must equal those of one
 * histogram fed every value.
 */
#include "bench/util/outfile.h"
#include "bench/results/jsondump.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/report_csv.h"
#include "bench/results/report_html.h"
#include "tests/unit/check.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "bench/driver/outopts.h"
#include "bench/driver/progress.h"
#include "bench/results/report.h"
#include "bench/results/series.h"
#include "bench/driver/session.h"
#include "bench/results/stats.h"
#include "bench/results/target.h"
#include "rest/views/views.h"

/* ---- building documents --------------------------------------------------- */

static double us2(double ns)
{
    return round(ns / 10.0) / 100.0;
}

static json_t *latency_json(const bench_hist *h)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "min", us2((double)bench_hist_min(h)),
                     "mean", us2(bench_hist_mean(h)), "stddev", us2(bench_hist_stddev(h)),
                     "p50", us2((double)bench_hist_percentile(h, 50)), "p90", us2((double)bench_hist_percentile(h, 90)),
                     "p95", us2((double)bench_hist_percentile(h, 95)), "p99", us2((double)bench_hist_percentile(h, 99)),
                     "p999", us2((double)bench_hist_percentile(h, 99.9)), "max", us2((double)bench_hist_max(h)),
                     "count", (json_int_t)bench_hist_count(h));
}

/* A measured run as hsmbench writes it: `secs` whole seconds, the
 * operations spread evenly over them. */
static json_t *mk_run(const char *test, int threads, const bench_hist *h, long long errors, int secs)
{
    long long ops = (long long)bench_hist_count(h);   /* the successes; attempts add the errors */
    json_t *run = json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:{s:s,s:i},s:{s:f,s:f,s:i}}", "test", test, "mode",
                            "blocking", "threads", threads, "data_size", 32, "status", "ok", "mechanism",
                            "CKM_SHA256_RSA_PKCS", "key", "type", "RSA", "bits", 2048, "settings", "warmup_s", 0.0,
                            "duration_s", (double)secs, "iterations", 0);
    json_object_set_new(run, "duration_s", json_real(secs + 0.001));
    json_object_set_new(run, "ops", json_integer(ops));
    json_object_set_new(run, "attempts", json_integer(ops + errors));
    json_object_set_new(run, "errors", json_integer(errors));
    json_object_set_new(run, "error_pct", json_real(ops + errors ? 100.0 * (double)errors / (double)(ops + errors) : 0));
    json_object_set_new(run, "ops_per_s", json_real(round((double)ops / (secs + 0.001) * 100) / 100));
    json_object_set_new(run, "bytes_per_s", json_real(0));
    json_object_set_new(run, "latency_us", latency_json(h));
    json_object_set_new(run, "errors_by_code", json_object());
    json_t *ps = json_array();
    long long left = ops, left_err = errors;
    for (int t = 1; t <= secs; t++) {
        long long o = t == secs ? left : ops / secs, e = t == secs ? left_err : errors / secs;
        left -= o;
        left_err -= e;
        json_array_append_new(ps, json_pack("{s:i,s:f,s:I,s:I,s:f,s:f}", "t", t, "span_s", 1.0, "ops", (json_int_t)o,
                                            "errors", (json_int_t)e, "p50_us", us2((double)bench_hist_percentile(h, 50)),
                                            "p99_us", us2((double)bench_hist_percentile(h, 99)) + t));
    }
    json_object_set_new(run, "per_second", ps);
    json_object_set_new(run, "histogram", bench_hist_to_json(h));
    return run;
}

static json_t *mk_doc(json_t *run, long long started_ms, const char *serial)
{
    json_t *doc = json_pack("{s:s,s:{s:s},s:[s,s],s:s,s:{s:{s:s,s:s},s:{s:s,s:s},s:{s:s,s:i}},s:[]}", "schema",
                            BENCH_RESULT_SCHEMA, "tool", "version", "0.1.0", "command", "hsmbench", "run", "started_at",
                            "2026-11-30T06:39:02Z", "environment", "module", "name", "libsofthsm2.so", "path",
                            "/usr/lib/softhsm/libsofthsm2.so", "token", "label", "t", "serial", serial, "host",
                            "hostname", "vm", "cpus", 2, "runs");
    if (started_ms >= 0)
        json_object_set_new(doc, "started_at_epoch_ms", json_integer(started_ms));
    if (run)
        json_array_append_new(json_object_get(doc, "runs"), run);
    return doc;
}

/* Log-normal latencies around 50 µs with a long tail, from a fixed seed. */
static uint64_t lognormal_ns(bench_rng *r, double scale)
{
    double u1 = ((double)(bench_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(bench_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return (uint64_t)llround(exp(log(50000.0 * scale) + 1.0 * z));
}

/* ---- loading and validation -------------------------------------------------- */

static char *write_tmp(const char *content, char *path, size_t len)
{
    snprintf(path, len, "/tmp/hsmbench-test-results.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    size_t n = strlen(content);
    ssize_t w = write(fd, content, n);
    close(fd);
    return w == (ssize_t)n ? path : NULL;
}

/* Load `content` from a file; return the error ("" when it loaded). */
static const char *load_error(const char *content, char *err, size_t len)
{
    char path[64];
    err[0] = '\0';
    if (!write_tmp(content, path, sizeof path)) {
        snprintf(err, len, "(cannot write a temporary file)");
        return err;
    }
    json_t *doc = bench_results_load(path, err, len);
    if (doc) {
        err[0] = '\0';
        json_decref(doc);
    } else if (strncmp(err, path, strlen(path)) == 0) {
        /* Messages start with the path: drop it, the cases give the rest. */
        memmove(err, err + strlen(path), strlen(err + strlen(path)) + 1);
    } else {
        snprintf(err, len, "(message does not start with the path)");
    }
    unlink(path);
    return err;
}

static void test_load_errors(void)
{
    char err[600];
    json_t *doc = bench_results_load("/nonexistent/r.json", err, sizeof err);
    CHECK(doc == NULL);
    CHECK_MSG(strcmp(err, "/nonexistent/r.json: No such file or directory") == 0, "%s", err);

    static const struct { const char *content, *want; } cases[] = {
        { "{\"schema\": ", ": bad JSON at line 1" },
        { "[1, 2]", ": not an hsmbench results file (not a JSON object)" },
        { "{\"runs\": []}", ": not an hsmbench results file (no \"schema\")" },
        { "{\"schema\": \"k6.summary/1\", \"runs\": []}", ": not an hsmbench results file (schema \"k6.summary/1\")" },
        { "{\"schema\": \"hsmbench.result/4\", \"runs\": []}",
          ": schema hsmbench.result/4 is not supported; this hsmbench reads hsmbench.result/1, hsmbench.result/2 and hsmbench.result/3" },
        { "{\"schema\": \"hsmbench.result/1\"}", ": runs: missing" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": {}}", ": runs: is not an array" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": []}", ": no runs" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": [7]}", ": runs[0]: is not an object" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": [{\"mode\": \"blocking\"}]}",
          ": runs[0].test: missing; expected a string" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": [{\"test\": \"x\", \"mode\": \"blocking\", \"threads\": "
          "\"2\", \"data_size\": 1, \"status\": \"ok\"}]}", ": runs[0].threads: is not a non-negative integer" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": [{\"test\": \"x\", \"mode\": \"blocking\", \"threads\": "
          "1, \"data_size\": 1, \"status\": \"done\"}]}",
          ": runs[0].status: \"done\" is not ok, errors, skipped, interrupted or failed" },
        { "{\"schema\": \"hsmbench.result/1\", \"runs\": [{\"test\": \"x\", \"mode\": \"blocking\", \"threads\": "
          "1, \"data_size\": 1, \"status\": \"ok\"}]}", ": runs[0].duration_s: missing; expected a non-negative number" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        load_error(cases[i].content, err, sizeof err);
        CHECK_MSG(strncmp(err, cases[i].want, strlen(cases[i].want)) == 0, "case %zu: got '%s', want '%s'", i, err,
                  cases[i].want);
        CHECK_MSG(!strchr(err, '\n'), "case %zu: more than one line", i);
    }
}

/* A valid document that one edit breaks. */
static void test_validate_measured(void)
{
    bench_hist *h = bench_hist_new();
    char err[600];
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1000; v < 2000; v++)
        bench_hist_record(h, v * 7);
    json_t *doc = mk_doc(mk_run("rsa-pkcs-sign", 1, h, 0, 3), 1, "s");
    CHECK_MSG(bench_results_check(doc, err, sizeof err) == 0, "%s", err);
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);

    json_t *copy = json_deep_copy(doc);
    json_t *r = json_array_get(json_object_get(copy, "runs"), 0);
    json_object_del(json_object_get(r, "latency_us"), "p99");
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strcmp(err, "runs[0].latency_us.p99: missing; expected a non-negative number") == 0, "%s", err);
    json_decref(copy);

    copy = json_deep_copy(doc);
    r = json_array_get(json_object_get(copy, "runs"), 0);
    json_object_set_new(json_object_get(r, "histogram"), "total", json_integer(5));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].histogram.total: 5, but its counts add up to 1000") != NULL, "%s", err);
    json_decref(copy);

    copy = json_deep_copy(doc);
    r = json_array_get(json_object_get(copy, "runs"), 0);
    json_array_append_new(json_object_get(json_object_get(r, "histogram"), "counts"), json_pack("[i,i]", 999999, 1));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].histogram: not a histogram") != NULL, "%s", err);
    json_decref(copy);

    copy = json_deep_copy(doc);
    r = json_array_get(json_object_get(copy, "runs"), 0);
    json_object_set_new(r, "errors", json_integer(5000));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].attempts: 1000 is not ops + errors (1000 + 5000)") != NULL, "%s", err);
    /* A /2 file's ops counted attempts: fewer of them than errors is refused. */
    json_object_set_new(copy, "schema", json_string(BENCH_RESULT_SCHEMA_V2));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].errors: more errors than operations") != NULL, "%s", err);
    json_decref(copy);

    copy = json_deep_copy(doc);
    r = json_array_get(json_object_get(copy, "runs"), 0);
    json_object_set_new(json_array_get(json_object_get(r, "per_second"), 1), "ops", json_real(1.5));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].per_second[1].ops: is not a non-negative integer") != NULL, "%s", err);
    json_decref(copy);

    copy = json_deep_copy(doc);
    r = json_array_get(json_object_get(copy, "runs"), 0);
    json_object_set_new(r, "client_cpu", json_real(1.25));
    CHECK_MSG(bench_results_check(copy, err, sizeof err) == 0, "%s", err);
    json_object_set_new(r, "client_cpu", json_real(-0.5));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "runs[0].client_cpu: is not a non-negative number") != NULL, "%s", err);
    json_object_set_new(r, "client_cpu", json_string("1.2"));
    CHECK(bench_results_check(copy, err, sizeof err) == -1);
    json_decref(copy);

    /* Unknown fields are ignored (additive changes keep /1); a skipped run needs no figures. */
    copy = json_deep_copy(doc);
    json_object_set_new(copy, "future_field", json_true());
    json_array_append_new(json_object_get(copy, "runs"),
                          json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:n}", "test", "ecdsa-sign", "mode", "blocking", "threads",
                                    1, "data_size", 32, "status", "skipped", "reason", "no EC", "key"));
    CHECK_MSG(bench_results_check(copy, err, sizeof err) == 0, "%s", err);
    CHECK(!bench_run_measured(json_array_get(json_object_get(copy, "runs"), 1)));
    CHECK(bench_run_measured(run));
    json_decref(copy);

    /* An interrupted run counts as measured only with its figures. */
    json_t *intr = json_pack("{s:s}", "status", "interrupted");
    CHECK(!bench_run_measured(intr));
    json_object_set_new(intr, "ops", json_integer(3));
    CHECK(bench_run_measured(intr));
    json_decref(intr);
    json_decref(doc);
    bench_hist_free(h);
}

static void test_same_setup(void)
{
    json_t *a = json_pack("{s:s,s:s,s:i,s:i,s:{s:s,s:i}}", "test", "rsa-pkcs-sign", "mode", "blocking", "threads", 1,
                          "data_size", 32, "key", "type", "RSA", "bits", 2048);
    json_t *b = json_deep_copy(a);
    char why[160];
    char kd[64];
    CHECK(bench_run_same_setup(a, b, 0, why, sizeof why) == 1);
    CHECK(strcmp(bench_run_key_desc(a, kd, sizeof kd), "RSA 2048") == 0);
    json_object_set_new(b, "threads", json_integer(2));
    CHECK(bench_run_same_setup(a, b, 0, why, sizeof why) == 0 && strcmp(why, "threads 2 vs 1") == 0);
    CHECK(bench_run_same_setup(a, b, 1, why, sizeof why) == 1);
    json_object_set_new(b, "key", json_pack("{s:s,s:i}", "type", "RSA", "bits", 3072));
    CHECK(bench_run_same_setup(a, b, 1, why, sizeof why) == 0 && strcmp(why, "key RSA 3072 vs RSA 2048") == 0);
    json_object_set_new(b, "key", json_null());
    CHECK(bench_run_same_setup(a, b, 1, why, sizeof why) == 0 && strcmp(why, "key - vs RSA 2048") == 0);
    json_object_set_new(b, "key", json_pack("{s:s,s:i,s:s}", "type", "EC", "bits", 256, "curve", "P-256"));
    CHECK(strcmp(bench_run_key_desc(b, kd, sizeof kd), "EC P-256") == 0);
    json_object_set(b, "key", json_object_get(a, "key"));
    json_object_set_new(b, "data_size", json_integer(64));
    CHECK(bench_run_same_setup(a, b, 1, why, sizeof why) == 0 && strcmp(why, "data size 64 vs 32") == 0);
    json_object_set_new(b, "test", json_string("ecdsa-sign"));
    CHECK(bench_run_same_setup(a, b, 1, why, sizeof why) == 0 && strcmp(why, "test ecdsa-sign vs rsa-pkcs-sign") == 0);
    json_decref(a);
    json_decref(b);
}

/* ---- merging --------------------------------------------------------------- */

static void test_merge_exact(void)
{
    bench_hist *ha = bench_hist_new(), *hb = bench_hist_new(), *all = bench_hist_new(), *got = bench_hist_new();
    bench_rng rng;
    char err[600];
    if (!ha || !hb || !all || !got) {
        CHECK(!"out of memory");
        goto out;
    }
    bench_rng_seed(&rng, 2024);
    for (int i = 0; i < 30000; i++) {
        uint64_t v = lognormal_ns(&rng, 1.0);
        bench_hist_record(ha, v);
        bench_hist_record(all, v);
    }
    for (int i = 0; i < 20000; i++) {
        uint64_t v = lognormal_ns(&rng, 1.7);    /* the second generator sees a slower HSM */
        bench_hist_record(hb, v);
        bench_hist_record(all, v);
    }
    bench_hist_record(ha, 150000000000ULL);      /* one value past 100 s: clamped */
    bench_hist_record(all, 150000000000ULL);

    json_t *ra = mk_run("rsa-pkcs-sign", 2, ha, 5, 5), *rb = mk_run("rsa-pkcs-sign", 3, hb, 4, 5);
    json_object_set_new(ra, "errors_by_code", json_pack("{s:i,s:i}", "CKR_DEVICE_ERROR", 3, "CKR_GENERAL_ERROR", 2));
    json_object_set_new(rb, "errors_by_code", json_pack("{s:i}", "CKR_GENERAL_ERROR", 4));
    json_object_set_new(rb, "bytes_per_s", json_real(1000));
    /* B started 1.5 s after A: A's second t lands in wall-clock second
     * 1700000000 + t, B's in 1700000001 + t. */
    json_t *docs[2] = { mk_doc(ra, 1700000000400LL, "s1"), mk_doc(rb, -1, "s1") };
    json_object_set_new(rb, "measure_start_epoch_ms", json_integer(1700000001900LL));
    const char *names[2] = { "a.json", "b.json" };

    json_t *m = bench_results_merge(docs, names, 2, rest_sections(), err, sizeof err);
    CHECK_MSG(m != NULL, "merge failed: %s", err);
    if (!m)
        goto docs;
    CHECK_MSG(bench_results_check(m, err, sizeof err) == 0, "merged document invalid: %s", err);
    const json_t *r = json_array_get(json_object_get(m, "runs"), 0);

    /* The histogram: exactly the one fed every value. */
    CHECK(bench_hist_from_json(json_object_get(r, "histogram"), got) == 0);
    CHECK_MSG(bench_hist_count(got) == bench_hist_count(all), "count %llu vs %llu",
              (unsigned long long)bench_hist_count(got), (unsigned long long)bench_hist_count(all));
    CHECK(bench_hist_min(got) == bench_hist_min(all) && bench_hist_max(got) == bench_hist_max(all));
    int same = 1;
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++)
        same &= atomic_load(&got->counts[i]) == atomic_load(&all->counts[i]);
    CHECK_MSG(same, "slot counts differ");
    static const double ps[] = { 0, 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 100 };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        CHECK_MSG(bench_hist_percentile(got, ps[i]) == bench_hist_percentile(all, ps[i]), "p%g: %llu vs %llu", ps[i],
                  (unsigned long long)bench_hist_percentile(got, ps[i]),
                  (unsigned long long)bench_hist_percentile(all, ps[i]));
    CHECK(bench_json_int(json_object_get(r, "histogram"), "clamped", -1) == 1);

    /* latency_us: recomputed from the merged histogram, the way run writes it. */
    json_t *want = latency_json(all);
    CHECK_MSG(json_equal(json_object_get(r, "latency_us"), want), "latency_us differs from the single histogram's");
    json_decref(want);

    /* Counts add; rates of concurrent runs add; the longest duration. */
    CHECK(bench_json_int(r, "ops", 0) == 30001 + 20000);
    CHECK(bench_json_int(r, "attempts", 0) == 30001 + 5 + 20000 + 4);
    CHECK(bench_json_int(r, "errors", 0) == 9);
    CHECK(fabs(bench_json_num(r, "error_pct", 0) - 100.0 * 9 / 50010) < 1e-9);
    CHECK(bench_json_int(r, "threads", 0) == 5);
    double rate = bench_json_num(ra, "ops_per_s", 0) + bench_json_num(rb, "ops_per_s", 0);
    CHECK_MSG(fabs(bench_json_num(r, "ops_per_s", 0) - round(rate * 100) / 100) < 1e-9, "ops_per_s %g vs %g",
              bench_json_num(r, "ops_per_s", 0), rate);
    CHECK(bench_json_num(r, "bytes_per_s", 0) == 1000);
    CHECK(bench_json_num(r, "duration_s", 0) == 5.001);
    /* 9 of the generators' operations failed: the merged run says errors. */
    CHECK_MSG(strcmp(bench_json_str(r, "status", ""), "errors") == 0 &&
                  strcmp(bench_json_str(r, "reason", ""), "9 of 50010 attempts failed (0.02 %), most often CKR_GENERAL_ERROR") == 0,
              "%s: %s", bench_json_str(r, "status", ""), bench_json_str(r, "reason", ""));
    CHECK(bench_json_int(r, "measure_start_epoch_ms", 0) == 1700000000400LL);
    CHECK(bench_json_int(m, "started_at_epoch_ms", 0) == 1700000000400LL);

    /* errors_by_code summed, most frequent first. */
    const json_t *by = json_object_get(r, "errors_by_code");
    void *it = json_object_iter((json_t *)by);
    CHECK(it && strcmp(json_object_iter_key(it), "CKR_GENERAL_ERROR") == 0 &&
          json_integer_value(json_object_iter_value(it)) == 6);
    it = json_object_iter_next((json_t *)by, it);
    CHECK(it && strcmp(json_object_iter_key(it), "CKR_DEVICE_ERROR") == 0 &&
          json_integer_value(json_object_iter_value(it)) == 3);

    /* Per-second series aligned by wall-clock second: [A1] [A2+B1] ... [A5+B4] [B5];
     * the merged one held compactly (series.h), the inputs' as jansson arrays. */
    bench_seconds ps_m, psa, psb;
    CHECK(bench_run_seconds_compact(r) && bench_run_seconds(r, &ps_m) == 0 && bench_run_seconds(ra, &psa) == 0 &&
          bench_run_seconds(rb, &psb) == 0);
    CHECK_MSG(ps_m.n == 6 && psa.n == 5 && psb.n == 5, "%zu seconds", ps_m.n);
    long long total = 0;
    for (size_t k = 0; k < ps_m.n && k < 6 && psa.n == 5 && psb.n == 5; k++) {
        long long want_ops = (k < 5 ? (long long)psa.s[k].ops : 0) + (k >= 1 ? (long long)psb.s[k - 1].ops : 0);
        const bench_model_second *e = &ps_m.s[k];
        CHECK_MSG(e->t == (double)k + 1, "t %g", e->t);
        CHECK_MSG((long long)e->ops == want_ops, "second %zu: %llu ops, want %lld", k + 1,
                  (unsigned long long)e->ops, want_ops);
        total += (long long)e->ops;
    }
    CHECK(total == bench_json_int(r, "ops", 0));
    /* A merged second's p99 is the larger of its inputs'. */
    CHECK(ps_m.n > 1 && psa.n > 1 && psb.n > 0 && ps_m.s[1].p99_us == fmax(psa.s[1].p99_us, psb.s[0].p99_us));
    bench_seconds_release(&ps_m);
    bench_seconds_release(&psa);
    bench_seconds_release(&psb);

    /* The document says where it came from. */
    const json_t *from = json_object_get(m, "merged_from");
    CHECK(json_array_size(from) == 2 && strcmp(json_string_value(json_array_get(from, 1)), "b.json") == 0);
    CHECK(json_array_size(json_object_get(m, "merged_environments")) == 2);
    CHECK(strcmp(bench_json_str(m, "schema", ""), BENCH_RESULT_SCHEMA) == 0);
    json_decref(m);
docs:
    json_decref(docs[0]);
    json_decref(docs[1]);
out:
    bench_hist_free(ha);
    bench_hist_free(hb);
    bench_hist_free(all);
    bench_hist_free(got);
}

/* Two small documents that merge, for the refusal cases to break. */
static void merge_pair(json_t **a, json_t **b)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        *a = *b = NULL;
        return;
    }
    for (uint64_t v = 1; v <= 100; v++)
        bench_hist_record(h, v * 1000);
    *a = mk_doc(mk_run("rsa-pkcs-sign", 1, h, 0, 3), 1700000000000LL, "s1");
    *b = mk_doc(mk_run("rsa-pkcs-sign", 1, h, 0, 3), 1700000000300LL, "s1");
    bench_hist_free(h);
}

static json_t *run0(json_t *doc)
{
    return json_array_get(json_object_get(doc, "runs"), 0);
}

/* REST runs: the HTTP counts add up, statuses in order, no phases. */
static void test_merge_http(void)
{
    bench_hist *h = bench_hist_new();
    char err[600];
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1; v <= 100; v++)
        bench_hist_record(h, v * 1000);
    json_t *ra = mk_run("sdkms-encrypt", 1, h, 0, 2), *rb = mk_run("sdkms-encrypt", 1, h, 0, 2);
    json_object_set_new(ra, "http", json_pack("{s:i,s:{s:i,s:i},s:i,s:f,s:i,s:{}}", "requests", 100, "status_counts",
                                              "200", 98, "503", 2, "failed", 2, "failed_pct", 2.0, "reauth", 1,
                                              "phases_us"));
    json_object_set_new(rb, "http", json_pack("{s:i,s:{s:i,s:i,s:i},s:i,s:f,s:i}", "requests", 300, "status_counts",
                                              "other", 1, "401", 1, "200", 298, "failed", 2, "failed_pct", 0.67,
                                              "reauth", 2));
    json_t *docs[2] = { mk_doc(ra, 1700000000000LL, "s"), mk_doc(rb, 1700000000100LL, "s") };
    const char *names[2] = { "a.json", "b.json" };
    json_t *m = bench_results_merge(docs, names, 2, rest_sections(), err, sizeof err);
    CHECK_MSG(m != NULL, "%s", err);
    const json_t *http = json_object_get(run0(m), "http");
    CHECK(bench_json_int(http, "requests", 0) == 400 && bench_json_int(http, "failed", 0) == 4);
    CHECK(fabs(bench_json_num(http, "failed_pct", 0) - 1.0) < 1e-12 && bench_json_int(http, "reauth", 0) == 3);
    CHECK(json_object_get(http, "phases_us") == NULL);
    char *codes = json_dumps(json_object_get(http, "status_counts"), JSON_PRESERVE_ORDER | JSON_COMPACT);
    CHECK_MSG(codes && strcmp(codes, "{\"200\":396,\"401\":1,\"503\":2,\"other\":1}") == 0, "%s", codes);
    free(codes);
    json_decref(m);
    /* One input without "http": the merged run has none. */
    json_object_del(ra, "http");
    m = bench_results_merge(docs, names, 2, rest_sections(), err, sizeof err);
    CHECK(m && json_object_get(run0(m), "http") == NULL);
    json_decref(m);
    json_decref(docs[0]);
    json_decref(docs[1]);
    bench_hist_free(h);
}

/* A section of no real workload: merge and page go through its hooks alone. */
typedef struct hook_log {
    int    merges, pages;
    char   fields[2][64];
} hook_log;
static hook_log hooks_seen;   /* what the hooks below saw (a test's record) */

static int queue_merge(const bench_merge_in *in, size_t n, json_t **out, char *err, size_t len)
{
    long long msgs = 0;
    hooks_seen.merges++;
    for (size_t i = 0; i < n && i < 2; i++) {
        snprintf(hooks_seen.fields[i], sizeof hooks_seen.fields[i], "%s %s", in[i].name, in[i].field);
        if (bench_merge_add(&msgs, bench_json_int(in[i].obj, "messages", 0), in[i].name, in[i].field, err, len))
            return -1;
    }
    json_t *by = bench_merge_counts(in, n, "by_kind", 1, err, len);
    *out = by ? json_pack("{s:I,s:o}", "messages", (json_int_t)msgs, "by_kind", by) : NULL;
    return *out ? 0 : -1;
}

static void queue_html(FILE *f, const json_t *section)
{
    hooks_seen.pages++;
    fprintf(f, "<p>queue messages %lld</p>", bench_json_int(section, "messages", 0));
}

static void test_section_hooks(void)
{
    static const bench_section queue = { .key = "queue", .title = "queue", .merge = queue_merge,
                                         .html = queue_html };
    const bench_section *const only[] = { &queue, NULL };
    bench_hist *h = bench_hist_new();
    char err[600] = "";
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1; v <= 100; v++)
        bench_hist_record(h, v * 1000);
    json_t *ra = mk_run("relay", 1, h, 0, 2), *rb = mk_run("relay", 1, h, 0, 2);
    json_object_set_new(ra, "queue", json_pack("{s:i,s:{s:i,s:i}}", "messages", 7, "by_kind", "a", 1, "b", 6));
    json_object_set_new(rb, "queue", json_pack("{s:i,s:{s:i}}", "messages", 5, "by_kind", "a", 9));
    json_t *docs[2] = { mk_doc(ra, 1700000000000LL, "s"), mk_doc(rb, 1700000000100LL, "s") };
    const char *names[2] = { "a.json", "b.json" };
    memset(&hooks_seen, 0, sizeof hooks_seen);
    json_t *m = bench_results_merge(docs, names, 2, only, err, sizeof err);
    CHECK_MSG(m != NULL, "%s", err);
    const json_t *q = json_object_get(run0(m), "queue");
    char *text = json_dumps(q, JSON_PRESERVE_ORDER | JSON_COMPACT);
    CHECK_MSG(hooks_seen.merges == 1 && text &&
              strcmp(text, "{\"messages\":12,\"by_kind\":{\"a\":10,\"b\":6}}") == 0, "%s", text ? text : "");
    CHECK_MSG(strcmp(hooks_seen.fields[0], "a.json runs[0].queue") == 0 &&
              strcmp(hooks_seen.fields[1], "b.json runs[0].queue") == 0, "%s / %s", hooks_seen.fields[0],
              hooks_seen.fields[1]);
    free(text);
    /* The page: the section's own part, once for the one run holding it. */
    char *page = NULL;
    size_t plen = 0;
    FILE *f = open_memstream(&page, &plen);
    bench_doc_model dm;
    CHECK(bench_doc_model_of(m, &dm) == 0);
    CHECK(f && bench_html_write(f, &dm, only) == 0);
    bench_doc_model_free(&dm);
    if (f)
        fclose(f);
    CHECK(hooks_seen.pages == 1 && page && strstr(page, "<p>queue messages 12</p>"));
    free(page);
    /* Without the section in the list, nothing of it: no merge, no page part. */
    json_decref(m);
    m = bench_results_merge(docs, names, 2, NULL, err, sizeof err);
    CHECK(m && !json_object_get(run0(m), "queue") && hooks_seen.merges == 1);
    json_decref(m);
    /* One input without it: left out, the hook not called. */
    json_object_del(rb, "queue");
    m = bench_results_merge(docs, names, 2, only, err, sizeof err);
    CHECK(m && !json_object_get(run0(m), "queue") && hooks_seen.merges == 1);
    json_decref(m);
    json_decref(docs[0]);
    json_decref(docs[1]);
    bench_hist_free(h);
}

static const char *merge_err(json_t *a, json_t *b, char *err, size_t len)
{
    json_t *docs[2] = { a, b };
    const char *names[2] = { "a.json", "b.json" };
    err[0] = '\0';
    json_t *m = bench_results_merge(docs, names, 2, rest_sections(), err, len);
    if (m) {
        snprintf(err, len, "(merged)");
        json_decref(m);
    }
    json_decref(a);
    json_decref(b);
    return err;
}

static void test_merge_refusals(void)
{
    json_t *a, *b;
    char err[600];

    merge_pair(&a, &b);
    json_object_del(a, "started_at_epoch_ms");
    CHECK_MSG(strcmp(merge_err(a, b, err, sizeof err), "a.json: no wall-clock start; re-run with a newer hsmbench") == 0,
              "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(run0(b), "data_size", json_integer(64));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: no run of rsa-pkcs-sign (RSA 2048, data 32 B, "
                     "blocking) as in a.json; differs: data size 64 vs 32") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(json_object_get(run0(b), "settings"), "duration_s", json_real(10));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: rsa-pkcs-sign: duration 10s vs 3s in a.json") != NULL,
              "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(json_object_get(run0(b), "settings"), "iterations", json_integer(1000));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "iterations 1000 vs 0") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(run0(b), "mode", json_string("nonblocking"));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "differs: mode nonblocking vs blocking") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(run0(b), "key", json_pack("{s:s,s:i}", "type", "RSA", "bits", 4096));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "differs: key RSA 4096 vs RSA 2048") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_array_append(json_object_get(b, "runs"), run0(b));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: 2 runs, but a.json has 1") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_array_set_new(json_object_get(b, "runs"), 0,
                       json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:{s:s,s:i},s:{s:f,s:f,s:i}}", "test", "rsa-pkcs-sign",
                                 "mode", "blocking", "threads", 1, "data_size", 32, "status", "skipped", "reason",
                                 "no RSA", "key", "type", "RSA", "bits", 2048, "settings", "warmup_s", 0.0,
                                 "duration_s", 3.0, "iterations", 0));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: rsa-pkcs-sign was skipped (no RSA)") != NULL, "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(b, "started_at_epoch_ms", json_integer(1700000100000LL));   /* 100 s later */
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: rsa-pkcs-sign did not run at the same time") != NULL,
              "%s", err);

    merge_pair(&a, &b);
    json_object_set_new(b, "schema", json_string("hsmbench.result/4"));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "b.json: schema hsmbench.result/4 is not supported") != NULL,
              "%s", err);

    /* A second run needs a start of its own. */
    merge_pair(&a, &b);
    json_array_append(json_object_get(a, "runs"), run0(a));
    json_array_append(json_object_get(b, "runs"), run0(b));
    CHECK_MSG(strstr(merge_err(a, b, err, sizeof err), "a.json: runs[1] (rsa-pkcs-sign) has no wall-clock start") != NULL,
              "%s", err);

    /* Threads may differ: they add up. */
    merge_pair(&a, &b);
    json_object_set_new(run0(b), "threads", json_integer(4));
    CHECK_MSG(strcmp(merge_err(a, b, err, sizeof err), "(merged)") == 0, "%s", err);
}

/* ---- the closing table ----------------------------------------------------------- */

/* Byte offset of the column holding `word` on each line: all equal. */
static int column_of(const char *line, const char *word)
{
    const char *p = strstr(line, word);
    return p ? (int)(p - line) : -1;
}

/* Long test and key names widen their columns: DATA and STATUS stay aligned. */
static void test_session_table_long_names(void)
{
    static const char *const tests[] = { "a", "rsa-pss-verify-prehashed-with-a-very-long-name",
                                         "sha256-digest" };
    static const char *const keys[] = { "RSA 2048", "Ed25519", "a key description of 30 chars" };
    bench_out_opts out;
    bench_flag intr = 0;
    bench_session s;
    memset(&out, 0, sizeof out);
    out.quiet = 1;
    if (bench_session_init(&s, &out, &intr) != 0) {
        CHECK(!"bench_session_init");
        return;
    }
    for (size_t i = 0; i < 3; i++) {
        bench_run_desc d;
        memset(&d, 0, sizeof d);
        d.test = tests[i];
        d.key_desc = keys[i];
        d.mode = "blocking";
        d.threads = 1;
        d.data_size = 32;
        bench_session_not_run(&s, &d, "skipped", "not offered", NULL);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        CHECK(!"open_memstream");
        bench_session_free(&s);
        return;
    }
    bench_session_table(&s, f);
    CHECK(fclose(f) == 0);
    bench_session_free(&s);
    /* Lines: "", header, three rows. */
    char *lines[5] = { NULL };
    size_t n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 5; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    CHECK_MSG(n == 4, "%zu lines", n);
    if (n == 4) {
        int key = column_of(lines[0], "KEY"), status = column_of(lines[0], "STATUS");
        CHECK_MSG(key == (int)strlen(tests[1]) + 1, "KEY at %d", key);
        for (size_t i = 1; i < 4; i++) {
            CHECK_MSG(column_of(lines[i], keys[i - 1]) == key, "row %zu: key at %d, header %d", i,
                      column_of(lines[i], keys[i - 1]), key);
            CHECK_MSG(column_of(lines[i], "skipped") == status, "row %zu: status at %d, header %d", i,
                      column_of(lines[i], "skipped"), status);
        }
    }
    free(text);
}

/* ---- CSV ----------------------------------------------------------------------- */

/* The page as cli/main.c has it written: with the REST floor's sections. */
static int html_write(FILE *f, const json_t *doc)
{
    bench_doc_model d;
    if (bench_doc_model_of(doc, &d) != 0)
        return -1;
    const int rc = bench_html_write(f, &d, rest_sections());
    bench_doc_model_free(&d);
    return rc;
}

static char *render(int (*fn)(FILE *, const json_t *), const json_t *doc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = fn(f, doc);
    if (fclose(f) != 0 || rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* A CSV layout's text of doc, checked to start with header (NULL, said,
 * when it could not be made). */
/* A CSV layout's view of doc's run models, built once (text.h). */
static char *render_csv(int (*write)(FILE *, const bench_doc_model *), const json_t *doc, const char *header)
{
    bench_doc_model d;
    char *text = NULL;
    if (bench_doc_model_of(doc, &d) == 0) {
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        const int rc = f ? write(f, &d) : -1;
        if (f && (fclose(f) != 0 || rc != 0)) {
            free(text);
            text = NULL;
        }
        bench_doc_model_free(&d);
    }
    CHECK(text != NULL);
    if (text)
        CHECK_MSG(strncmp(text, header, strlen(header)) == 0, "header: %s", text);
    return text;
}

/* The CSV tests' latencies: 1 µs .. 1 ms, a thousand of them (NULL, said,
 * when out of memory). */
static bench_hist *csv_hist(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return NULL;
    }
    for (uint64_t v = 1; v <= 1000; v++)
        bench_hist_record(h, v * 1000);
    return h;
}

/* The CSV tests' document: an RSA signature run of 1000 successes and 10
 * failures in 4 s, a run of data_test that processes 2 MB a second, and a
 * skipped run. */
static json_t *csv_doc(const bench_hist *h, const char *data_test)
{
    json_t *doc = mk_doc(mk_run("rsa-pkcs-sign", 2, h, 10, 4), 1, "s");
    json_object_set_new(run0(doc), "attempts_per_s", json_real(252.44));
    json_t *data = mk_run(data_test, 1, h, 0, 4);
    json_object_set_new(data, "bytes_per_s", json_real(2048000));
    json_array_append_new(json_object_get(doc, "runs"), data);
    json_array_append_new(json_object_get(doc, "runs"),
                          json_pack("{s:s,s:s,s:i,s:i,s:s,s:s}", "test", "ecdsa-sign", "mode", "blocking", "threads", 4,
                                    "data_size", 32, "status", "skipped", "reason", "no EC"));
    return doc;
}

static void test_csv(void)
{
    bench_hist *h = csv_hist();
    if (!h)
        return;
    json_t *doc = csv_doc(h, "say \"hi\", digest");
    /* Its 10 failures took 2 ms each: every attempt's latency is another
     * distribution, and the bench's columns are every attempt's (JMeter's). */
    bench_hist *all = bench_hist_new();
    if (!all) {
        CHECK(!"out of memory");
        json_decref(doc);
        bench_hist_free(h);
        return;
    }
    bench_hist_add(all, h);
    for (int k = 0; k < 10; k++)
        bench_hist_record(all, 2000000);
    json_object_set_new(run0(doc), "attempts_latency_us", latency_json(all));
    char *text = render_csv(bench_csv_write, doc,
                            "operation,threads,duration(sec),total operations,average latency(ms),p90 latency(ms),"
                            "p99 latency(ms),min latency (ms),max latency (ms),Error %,Throughput per sec,"
                            "capacity (kb/s),p50 latency(ms),p95 latency(ms),attempts,successes,successes per sec,"
                            "success average latency(ms),success p99 latency(ms)\r\n");
    if (text) {
        char row1[512];
        const json_t *lat = json_object_get(run0(doc), "attempts_latency_us");
        const json_t *ok = json_object_get(run0(doc), "latency_us");
        /* total operations, the latencies, Throughput per sec: every attempt's;
         * then successes, their rate and latency. */
        snprintf(row1, sizeof row1,
                 "rsa-pkcs-sign,2,4.00,1010,%.5f,%.5f,%.5f,%.5f,%.5f,0.99%%,252.44,NA,%.5f,%.5f,1010,1000,%.2f,"
                 "%.5f,%.5f\r\n",
                 bench_json_num(lat, "mean", 0) / 1000, bench_json_num(lat, "p90", 0) / 1000,
                 bench_json_num(lat, "p99", 0) / 1000, bench_json_num(lat, "min", 0) / 1000,
                 bench_json_num(lat, "max", 0) / 1000, bench_json_num(lat, "p50", 0) / 1000,
                 bench_json_num(lat, "p95", 0) / 1000, bench_json_num(run0(doc), "ops_per_s", 0),
                 bench_json_num(ok, "mean", 0) / 1000, bench_json_num(ok, "p99", 0) / 1000);
        CHECK_MSG(bench_json_num(lat, "max", 0) >= 2000 * 0.99, "the failures' 2 ms in the attempts' max");
        CHECK_MSG(strstr(text, row1) != NULL, "want row %s in:\n%s", row1, text);
        CHECK_MSG(strstr(text, "\r\n\"say \"\"hi\"\", digest\",1,4.00,1000,") != NULL, "quoted name: %s", text);
        CHECK_MSG(strstr(text, ",2000.00,") != NULL, "capacity 2048000/1024: %s", text);
        CHECK_MSG(strstr(text, "\r\necdsa-sign,4,,,,,,,,,,,,,,,,,\r\n") != NULL, "skipped row: %s", text);
        /* Every line ends in CRLF, and there are 4. */
        int lines = 0, bare = 0;
        for (const char *p = text; *p; p++) {
            lines += *p == '\n';
            bare += *p == '\n' && (p == text || p[-1] != '\r');
        }
        CHECK_MSG(lines == 4 && bare == 0, "%d lines, %d without CR", lines, bare);
        free(text);
    }
    json_decref(doc);
    bench_hist_free(all);
    bench_hist_free(h);
}

/* The tidy layout (report --csv-layout tidy): one row a run, a column each,
 * plain numbers (no "0.99%"), an empty cell for nothing (issue 39, item 13). */
static void test_csv_tidy(void)
{
    bench_hist *h = csv_hist();
    if (!h)
        return;
    json_t *doc = csv_doc(h, "sha256-digest");
    json_object_set_new(run0(doc), "status", json_string("errors"));
    json_object_set_new(run0(doc), "reason", json_string("10 of 1010 attempts failed (0.99 %): CKR_DEVICE_ERROR"));
    json_object_set_new(json_array_get(json_object_get(doc, "runs"), 1), "key", json_null());
    char *text = render_csv(bench_csv_tidy_write, doc,
                            "test,variant,key,data_size_bytes,threads,mode,status,reason,duration_s,attempts,successes,"
                            "errors,error_pct,attempts_per_s,successes_per_s,bytes_per_s,latency_mean_ms,"
                            "latency_min_ms,latency_p50_ms,latency_p90_ms,latency_p95_ms,latency_p99_ms,"
                            "latency_max_ms,success_latency_mean_ms,success_latency_p99_ms\r\n");
    if (text) {
        char head[256];
        /* The reason as the model words it; no attempts_latency_us in this file
         * and 10 failures: no every-attempt latency (empty), the successes' in
         * the success_ columns. */
        snprintf(head, sizeof head,
                 "\r\nrsa-pkcs-sign,,RSA 2048,32,2,blocking,errors,10 of 1010 attempts failed (0.99 %%),"
                 "4.001000,1010,1000,10,0.9901,252.44,%.2f,,,,,,,,,",
                 bench_json_num(run0(doc), "ops_per_s", 0));
        CHECK_MSG(strstr(text, head) != NULL, "want %s in:\n%s", head, text);
        CHECK_MSG(strstr(text, "\r\nsha256-digest,,,32,1,blocking,ok,,") != NULL, "no key: empty: %s", text);
        CHECK_MSG(strstr(text, ",2048000,") != NULL, "bytes_per_s in bytes: %s", text);
        CHECK_MSG(strstr(text, "\r\necdsa-sign,,,32,4,blocking,skipped,no EC,,,,,,,,,,,,,,,,,\r\n") != NULL,
                  "skipped row: %s", text);
        CHECK_MSG(strchr(strchr(text, '\n'), '%') == strstr(text, "%)"), "one percent sign, the reason's: %s", text);
        free(text);
    }
    json_decref(doc);
    bench_hist_free(h);
}

/* ---- HTML ---------------------------------------------------------------------- */

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_html(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1; v <= 5000; v++)
        bench_hist_record(h, v * 300);
    const char *evil = "<script>alert(\"x\")</script>&'";
    json_t *r1 = mk_run("rsa-pkcs-sign", 1, h, 3, 6), *r2 = mk_run("rsa-pkcs-sign", 4, h, 0, 6);
    json_t *r3 = mk_run(evil, 1, h, 0, 3);
    json_object_set_new(r1, "errors_by_code", json_pack("{s:i}", evil, 3));
    json_t *ps = json_object_get(r2, "per_second");
    for (size_t i = 0; i < json_array_size(ps); i++)
        json_object_set_new(json_array_get(ps, i), "target", json_real(900));
    json_t *doc = mk_doc(r1, 1, evil);
    json_array_append_new(json_object_get(doc, "runs"), r2);
    json_array_append_new(json_object_get(doc, "runs"), r3);
    json_array_append_new(json_object_get(doc, "runs"),
                          json_pack("{s:s,s:s,s:i,s:i,s:s,s:s}", "test", "ecdsa-sign", "mode", "blocking", "threads", 1,
                                    "data_size", 32, "status", "skipped", "reason", evil));
    json_object_set_new(r2, "thresholds", json_pack("[{s:s,s:n,s:b,s:f,s:s}]", "expr", "p99<1ms", "test", "ok", 1,
                                                       "observed", 990.0, "unit", "us"));

    char *text = render(html_write, doc);
    CHECK(text != NULL);
    if (text) {
        CHECK(strncmp(text, "<!DOCTYPE html>", 15) == 0);
        CHECK(strstr(text, "Content-Security-Policy") != NULL);
        /* Nothing executable or fetched: no script element, no external URL. */
        CHECK_MSG(strstr(text, "<script") == NULL, "unescaped <script>");
        CHECK(strstr(text, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;") != NULL);
        CHECK(strstr(text, " src=") == NULL && strstr(text, "href=\"http") == NULL && strstr(text, "url(") == NULL);
        CHECK(count(text, "http") == count(text, "http://www.w3.org/2000/svg") + 1);   /* + the CSP meta's http-equiv */
        /* 4 charts for each of the 3 measured runs, 2 for the threads sweep;
         * one quantity an axis: run 1's errors per second, run 2's threads
         * (a blocking run's target is its --stages threads) each on its own. */
        CHECK_MSG(count(text, "<svg ") == 16, "%zu charts", count(text, "<svg "));
        CHECK(strstr(text, "Throughput by threads") != NULL && strstr(text, "id=\"sweeps\"") != NULL);
        CHECK(strstr(text, "<title>Threads (--stages)</title>") != NULL);
        CHECK(strstr(text, ">threads (the stages&#39; target)</text>") != NULL);
        CHECK(strstr(text, "<title>Errors per second</title>") != NULL);
        CHECK(strstr(text, ">errors/s</text>") != NULL);        /* run 1 had errors */
        CHECK(strstr(text, "Latency by percentile") != NULL && strstr(text, ">99.9%</text>") != NULL);
        CHECK(strstr(text, "\xe2\x9c\x93 <code>p99&lt;1ms</code>") != NULL);
        CHECK(count(text, "<section class=\"run\"") == 4);
        CHECK(strstr(text, "NaN") == NULL && strstr(text, "nan") == NULL && strstr(text, "inf\"") == NULL);
        CHECK(strstr(text, "</html>\n") != NULL);
        free(text);
    }
    json_decref(doc);
    bench_hist_free(h);
}



/* A REST run's page: the endpoint, the phases' table and chart, the statuses,
 * every string from the file escaped. */
static void test_html_rest(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1; v <= 2000; v++)
        bench_hist_record(h, v * 500);
    const char *evil = "<b>x</b>";
    json_t *run = mk_run("ekm-wrap", 2, h, 0, 3);
    json_t *phases = json_object();
    static const char *const keys[] = { "blocked", "connecting", "tls_handshaking", "sending", "waiting",
                                        "receiving", "duration" };
    for (size_t i = 0; i < 7; i++)
        json_object_set_new(phases, keys[i], json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}", "min", 1.0, "mean",
                                                       20.0, "stddev", 2.0, "p50", 18.0, "p90", 30.0, "p95", 40.0,
                                                       "p99", 60.0, "p999", 90.0, "max", 120.0, "count",
                                                       (json_int_t)2000));
    json_t *sc = json_pack("{s:I,s:I}", "200", (json_int_t)1990, "503", (json_int_t)10);
    json_object_set_new(sc, evil, json_integer(1));
    json_object_set_new(run, "http", json_pack("{s:I,s:o,s:I,s:f,s:o}", "requests", (json_int_t)2001,
                                               "status_counts", sc, "failed", (json_int_t)11, "failed_pct", 0.55,
                                               "phases_us", phases));
    json_t *doc = json_pack("{s:s,s:{s:{s:s,s:s,s:{s:b,s:b,s:b},s:s,s:b,s:f},s:{s:s,s:s}},s:[o]}", "schema",
                            BENCH_RESULT_SCHEMA, "environment", "endpoint", "service", "ekm", "url",
                            "https://kms.example/v0/keys/<k1>", "tls", "verify", 1, "custom_ca", 1, "client_cert", 0,
                            "http_version", "1.1", "connection_reuse", 1, "timeout_s", 10.0, "client", "libcurl",
                            "7.88.1", "tls_library", "OpenSSL/3.0", "runs", run);
    char *text = render(html_write, doc);
    CHECK(text != NULL);
    if (text) {
        CHECK(strstr(text, "<th>target</th><td><b>ekm https://kms.example/v0/keys/&lt;k1&gt;</b>") != NULL);
        CHECK(strstr(text, "<th>endpoint</th><td><code>https://kms.example/v0/keys/&lt;k1&gt;</code>") != NULL);
        CHECK(strstr(text, "certificate verified: yes \xc2\xb7 own CA (--cacert): yes \xc2\xb7 client certificate: no"));
        CHECK(strstr(text, "HTTP 1.1 \xc2\xb7 connection reuse: yes \xc2\xb7 timeout 10s") != NULL);
        CHECK(strstr(text, "libcurl 7.88.1 \xc2\xb7 OpenSSL/3.0") != NULL);
        CHECK(count(text, "<tr><td><code>http_req_") == 7);
        CHECK(strstr(text, "<td class=\"n\">2001</td><th>failed</th><td class=\"n\">11 (0.55%)</td>") != NULL);
        CHECK(strstr(text, "HTTP phases by statistic") != NULL && strstr(text, "Requests by HTTP status") != NULL);
        CHECK(strstr(text, "class=\"bar good\"") != NULL && strstr(text, "class=\"bar\"") != NULL);   /* 200, 503 */
        CHECK(strstr(text, "<b>x</b>") == NULL && strstr(text, "&lt;b&gt;x&lt;/b&gt;") != NULL);
        CHECK_MSG(count(text, "<svg ") == 6, "%zu charts", count(text, "<svg "));
        CHECK(strstr(text, "NaN") == NULL && strstr(text, "nan") == NULL);
        free(text);
    }
    json_decref(doc);
    bench_hist_free(h);
}

/* ---- environment.target ------------------------------------------------------------ */

static void test_target_build(void)
{
    json_t *t = bench_target_pkcs11_json("softhsm2", "/usr/lib/softhsm/libsofthsm2.so", "SoftHSM", "hsmbench-demo",
                                         "1234abcd");
    CHECK(t && strcmp(bench_json_str(t, "kind", ""), "pkcs11") == 0);
    CHECK_MSG(strcmp(bench_json_str(t, "name", ""), "SoftHSM \xc2\xb7 token hsmbench-demo") == 0, "%s",
              bench_json_str(t, "name", ""));
    CHECK_MSG(strcmp(bench_json_str(t, "id", ""), "libsofthsm2.so serial=1234abcd") == 0, "%s",
              bench_json_str(t, "id", ""));
    json_decref(t);
    /* No manufacturer: the module's name; no serial: the label. */
    t = bench_target_pkcs11_json("libx.so", "/opt/x/libx.so", "", "tok", "");
    CHECK(t && strcmp(bench_json_str(t, "name", ""), "libx.so \xc2\xb7 token tok") == 0);
    CHECK(t && strcmp(bench_json_str(t, "id", ""), "libx.so label=tok") == 0);
    json_decref(t);
    bench_url url;
    CHECK(bench_url_parse(&url, "https://user:pw@KMS.example:443/v0/keys/k1?sig=S3CRET#f", NULL, 0) == 0);
    t = bench_target_rest_json("ekm", &url);
    bench_url_free(&url);
    CHECK(t && strcmp(bench_json_str(t, "kind", ""), "rest") == 0);
    CHECK_MSG(t && strcmp(bench_json_str(t, "name", ""), "ekm https://kms.example/v0/keys/k1?\xe2\x80\xa6") == 0, "%s",
              bench_json_str(t, "name", ""));
    CHECK(t && strcmp(bench_json_str(t, "id", ""), "ekm:https://kms.example/v0/keys/k1") == 0);
    json_decref(t);
}

static void test_target_of(void)
{
    bench_target t;
    /* Written: read as it is. */
    json_t *doc = mk_doc(NULL, 1, "s1");
    json_t *env = json_object_get(doc, "environment");
    json_object_set_new(env, "target", json_pack("{s:s,s:s,s:s}", "kind", "pkcs11", "name", "N", "id", "I"));
    CHECK(bench_target_of(doc, &t) == 1 && strcmp(t.name, "N") == 0 && strcmp(t.id, "I") == 0);
    /* An id no PKCS#11 URI look-alike; the old one read as the new (issue 40). */
    static const char *const olds[][2] = {
        { "pkcs11:libsofthsm2.so:serial=s1", "libsofthsm2.so serial=s1" },
        { "pkcs11:libx.so:label=my tok", "libx.so label=my tok" },
        { "pkcs11:m.so:serial=a,serial=b", "m.so serial=a,serial=b" },
        { "pkcs11:token=x", "pkcs11:token=x" },   /* not one this tool wrote: as it is */
    };
    for (size_t i = 0; i < sizeof olds / sizeof olds[0]; i++) {
        json_object_set_new(env, "target", json_pack("{s:s,s:s,s:s}", "kind", "pkcs11", "name", "N", "id", olds[i][0]));
        CHECK_MSG(bench_target_of(doc, &t) == 1 && strcmp(t.id, olds[i][1]) == 0, "%s: %s", olds[i][0], t.id);
    }
    json_object_set_new(env, "target", json_pack("{s:s,s:s,s:s}", "kind", "rest", "name", "N", "id", "ekm:https://h/k"));
    CHECK(bench_target_of(doc, &t) == 1 && strcmp(t.id, "ekm:https://h/k") == 0);
    /* Older PKCS#11 file: derived from module and token, as the writer makes it. */
    json_object_del(env, "target");
    CHECK(bench_target_of(doc, &t) == 0 && strcmp(t.kind, "pkcs11") == 0);
    CHECK_MSG(strcmp(t.id, "libsofthsm2.so serial=s1") == 0, "%s", t.id);
    CHECK_MSG(strcmp(t.name, "libsofthsm2.so \xc2\xb7 token t") == 0, "%s", t.name);
    bench_target t2;
    json_t *other = mk_doc(NULL, 1, "s2");
    CHECK(bench_target_of(other, &t2) == 0 && bench_target_differs(&t, &t2));
    CHECK(!bench_target_differs(&t, &t));
    json_decref(other);
    json_decref(doc);

    /* Older REST file: from environment.endpoint; a run's own URL (a TLS matrix variant) wins. */
    doc = json_pack("{s:{s:{s:s,s:s}},s:[]}", "environment", "endpoint", "service", "http", "url",
                    "https://h.example:8443/hello", "runs");
    CHECK(bench_target_of(doc, &t) == 0 && strcmp(t.kind, "rest") == 0);
    CHECK(strcmp(t.id, "http:https://h.example:8443/hello") == 0 && strcmp(t.name, "http https://h.example:8443/hello") == 0);
    json_t *run = json_pack("{s:{s:s,s:s}}", "rest", "service", "http", "url", "http://h.example:8080/hello");
    CHECK(bench_target_of_run(doc, run, &t) == 0 && strcmp(t.id, "http:http://h.example:8080/hello") == 0);
    json_t *plain = json_pack("{s:s}", "test", "http-get");
    CHECK(bench_target_of_run(doc, plain, &t) == 0 && strcmp(t.id, "http:https://h.example:8443/hello") == 0);
    json_decref(run);
    json_decref(plain);
    json_decref(doc);

    /* Nothing said: unknown, and never "different" from anything. */
    doc = json_pack("{s:[]}", "runs");
    CHECK(bench_target_of(doc, &t) == -1 && strcmp(t.name, "?") == 0 && t.id[0] == '\0');
    CHECK(!bench_target_differs(&t, &t2));
    json_decref(doc);
}

static json_t *skipped_run(void)
{
    return json_pack("{s:s,s:s,s:i,s:i,s:s,s:s}", "test", "ecdsa-sign", "mode", "blocking", "threads", 1, "data_size",
                     32, "status", "skipped", "reason", "no EC");
}

static void test_target_check(void)
{
    static const struct { const char *target, *says; } bad[] = {
        { "[]", "environment.target: is not an object" },
        { "{\"name\": \"n\", \"id\": \"i\"}", "environment.target.kind: missing; expected a string" },
        { "{\"kind\": \"rest\", \"name\": 3, \"id\": \"i\"}", "environment.target.name: is not a string" },
        { "{\"kind\": \"rest\", \"name\": \"n\"}", "environment.target.id: missing; expected a string" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *doc = mk_doc(skipped_run(), 1, "s");
        json_object_set_new(json_object_get(doc, "environment"), "target", json_loads(bad[i].target, 0, NULL));
        char err[256] = "";
        CHECK_MSG(bench_results_check(doc, err, sizeof err) == -1 && strcmp(err, bad[i].says) == 0, "%s: '%s'",
                  bad[i].target, err);
        json_decref(doc);
    }
    /* A kind this hsmbench does not know is a later addition: read. */
    json_t *doc = mk_doc(skipped_run(), 1, "s");
    json_object_set_new(json_object_get(doc, "environment"), "target",
                        json_pack("{s:s,s:s,s:s}", "kind", "kmip", "name", "n", "id", "i"));
    char err[256] = "";
    CHECK_MSG(bench_results_check(doc, err, sizeof err) == 0, "%s", err);
    json_decref(doc);
}

/* ---- writing files --------------------------------------------------------------- */

static void test_write_file(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    bench_hist_record(h, 5000);
    json_t *doc = mk_doc(mk_run("rsa-pkcs-sign", 1, h, 0, 1), 1, "s");
    char dir[] = "/tmp/hsmbench-test-write.XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.csv", dir);
    CHECK(bench_csv_write_file(path, doc, "--csv") == 0);
    CHECK(access(path, R_OK) == 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/r.html", dir);
    CHECK(bench_html_write_file(path, doc, "--html", rest_sections()) == 0);
    CHECK(access(path, R_OK) == 0);
    unlink(path);
    rmdir(dir);
    json_decref(doc);
    bench_hist_free(h);
}

/* Issue 13: numbers past 2^53, sums that overflow, text with control
 * characters, the size limit; the regressions of the fuzzing corpus. */
static void test_hostile_documents(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    bench_hist_record(h, 5000);
    char err[512];
    json_t *doc = mk_doc(mk_run("rsa-pkcs-sign\x1b[2J\r", 1, h, 0, 1), 1, "s\xc2\x9b" "1m");
    char *text = json_dumps(doc, 0);
    json_t *ok = text ? bench_results_parse("e.json", text, strlen(text), err, sizeof err) : NULL;
    CHECK_MSG(ok != NULL, "%s", err);
    if (ok) {
        const json_t *r = json_array_get(json_object_get(ok, "runs"), 0);
        CHECK_MSG(strcmp(bench_json_str(r, "test", ""), "rsa-pkcs-sign\\x1b[2J\\x0d") == 0, "test is '%s'",
                  bench_json_str(r, "test", ""));
        const json_t *tok = json_object_get(json_object_get(ok, "environment"), "token");
        CHECK(strcmp(bench_json_str(tok, "serial", ""), "s\\u009b1m") == 0);
        json_decref(ok);
    }
    free(text);

    json_t *r0 = json_array_get(json_object_get(doc, "runs"), 0);
    json_object_set_new(r0, "test", json_string("rsa-pkcs-sign"));
    json_object_set_new(r0, "ops", json_integer(INT64_MAX));
    text = json_dumps(doc, 0);
    CHECK(text && !bench_results_parse("o.json", text, strlen(text), err, sizeof err) &&
          strstr(err, "runs[0].ops: 9223372036854775807 is out of range"));
    free(text);
    json_object_set_new(r0, "ops", json_integer(1));
    json_object_set_new(r0, "errors", json_integer(0));
    json_object_set_new(r0, "attempts", json_integer(1));
    json_object_set_new(json_object_get(r0, "latency_us"), "p99", json_real(1e308));
    text = json_dumps(doc, 0);
    CHECK(text && !bench_results_parse("h.json", text, strlen(text), err, sizeof err) &&
          strstr(err, "runs[0].latency_us.p99: 1e+308 is out of range"));
    free(text);
    CHECK(!bench_results_parse("big.json", "{}", (size_t)BENCH_RESULTS_MAX_BYTES + 1, err, sizeof err) &&
          strstr(err, "larger than the 64 MiB"));

    /* Two files of 2^53 - 1 operations: the merged sum is refused, naming it. */
    json_object_set_new(json_object_get(r0, "latency_us"), "p99", json_real(5));
    json_object_set_new(r0, "ops", json_integer((json_int_t)(BENCH_RESULTS_MAX_VALUE - 1)));
    json_object_set_new(r0, "attempts", json_integer((json_int_t)(BENCH_RESULTS_MAX_VALUE - 1)));
    json_t *const docs[2] = { doc, doc };
    const char *const names[2] = { "a.json", "b.json" };
    json_t *m = bench_results_merge(docs, names, 2, rest_sections(), err, sizeof err);
    CHECK_MSG(!m && strstr(err, "runs[0].ops: the merged sum passes 2^53"), "merge: %s", m ? "merged" : err);
    json_decref(m);
    json_decref(doc);
    bench_hist_free(h);
}

static int write_x(FILE *f, const void *ctx)
{
    return fputs((const char *)ctx, f) == EOF ? -1 : 0;
}

/* Issue 13: a link is written through, never replaced; a FIFO or device is
 * written in place; a link to nothing is refused. */
static void test_outfile_rules(void)
{
    char dir[] = "/tmp/hsmbench-test-out.XXXXXX", real[128], link[128], dangling[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling", dir);
    FILE *f = fopen(real, "w");
    CHECK(f && fputs("old", f) != EOF && fclose(f) == 0);
    CHECK(symlink("real", link) == 0 && symlink("nowhere/x", dangling) == 0);
    CHECK(bench_out_write("--json", link, write_x, "one") == 0);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 3);
    CHECK(bench_out_write("--json", dangling, write_x, "x") == -1);
    CHECK(bench_path_writable("--json", dangling) == 0);
    CHECK(bench_path_writable("--json", "/dev/null") == 1);
    CHECK(bench_out_write("--json", "/dev/null", write_x, "gone") == 0);
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    CHECK(bench_out_write("--json", dir, write_x, "x") == -1);     /* a directory */
    unlink(real);
    unlink(link);
    unlink(dangling);
    CHECK(rmdir(dir) == 0);                                        /* nothing left behind */
}

/* ---- progress bar ------------------------------------------------------------------ */

static size_t drain(int fd, char *buf, size_t len)
{
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return n;
}

static void test_progress_pipe(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    CHECK(w != NULL);
    if (!w)
        return;
    bench_progress p;
    bench_progress_begin(&p, w, 30, 1);
    bench_progress_update(&p, 5, 1000);
    bench_progress_clear(&p);
    bench_progress_end(&p);
    fclose(w);
    char buf[256];
    size_t n = drain(fds[0], buf, sizeof buf);
    CHECK_MSG(n == 0, "a pipe got %zu bytes: %s", n, buf);
    close(fds[0]);
}

static void test_progress_tty(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        if (master >= 0)
            close(master);
        SKIP("no pseudo-terminal here (posix_openpt): nothing to draw on");
    }
    const char *name = ptsname(master);
    int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    CHECK(slave >= 0);
    FILE *tty = slave >= 0 ? fdopen(slave, "w") : NULL;
    if (!tty) {
        close(master);
        if (slave >= 0)
            close(slave);
        return;
    }
    CHECK(fcntl(master, F_SETFL, O_NONBLOCK) == 0);
    char buf[4096];
    bench_progress p;

    bench_progress_begin(&p, tty, 30, 1);
    bench_progress_update(&p, 12, 5123);
    drain(master, buf, sizeof buf);
    CHECK_MSG(strstr(buf, "12s/30s") && strstr(buf, "40%") && strstr(buf, "5123 ops/s"), "drawn: %s", buf);
    bench_progress_clear(&p);
    drain(master, buf, sizeof buf);
    CHECK_MSG(strstr(buf, "\033[K") != NULL, "cleared: %s", buf);
    bench_progress_end(&p);
    bench_progress_update(&p, 13, 5000);
    CHECK(drain(master, buf, sizeof buf) == 0);    /* ended: silent */

    bench_progress_begin(&p, tty, 30, 0);          /* --quiet */
    bench_progress_update(&p, 12, 5123);
    CHECK(drain(master, buf, sizeof buf) == 0);

    bench_progress_begin(&p, tty, 1, 1);           /* too short to need one */
    bench_progress_update(&p, 0.5, 5123);
    CHECK(drain(master, buf, sizeof buf) == 0);

    bench_progress_begin(&p, tty, 0, 1);           /* unknown length: after a few seconds */
    bench_progress_update(&p, 1, 5123);
    CHECK(drain(master, buf, sizeof buf) == 0);
    bench_progress_update(&p, 65, 5123);
    drain(master, buf, sizeof buf);
    CHECK_MSG(strstr(buf, "1m05s") && strstr(buf, "5123 ops/s"), "unknown length: %s", buf);
    bench_progress_end(&p);

    fclose(tty);
    close(master);
}

/* ---- per-second series read compactly (series.h) ----------------------------- */

static int same_seconds(const bench_seconds *a, const bench_seconds *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const bench_model_second *x = &a->s[i], *y = &b->s[i];
        if (x->t != y->t || x->span_s != y->span_s || x->ops != y->ops || x->errors != y->errors ||
            x->p50_us != y->p50_us || x->p99_us != y->p99_us || x->has_target != y->has_target ||
            x->target != y->target || x->has_in_flight != y->has_in_flight || x->in_flight != y->in_flight)
            return 0;
    }
    return 1;
}

/* doc as merge -o writes it (bench_series_dumpf); NULL on failure. */
static char *series_dump(const json_t *doc)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    const int rc = bench_series_dumpf(doc, f);
    if (fclose(f) != 0 || rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* text parsed as a results file; err says why not. */
static json_t *parse_text(const char *text, char *err, size_t len)
{
    err[0] = '\0';
    return bench_results_parse("s.json", text, strlen(text), err, len);
}

/*
 * A file's per_second arrays are read out of the text into structs: the
 * same series as jansson's path, the same messages for a bad second or a
 * broken array (line and column), a run whose seconds hold anything else
 * left to jansson whole, and merge's writer byte for byte jansson's.
 */
static void test_series_compact(void)
{
    bench_hist *h = bench_hist_new();
    if (!h) {
        CHECK(!"out of memory");
        return;
    }
    for (uint64_t v = 1; v <= 600; v++)
        bench_hist_record(h, v * 1000);
    json_t *run = mk_run("rsa-pkcs-sign", 2, h, 3, 6);
    /* its status as this hsmbench writes it (loading settles an older file's) */
    CHECK(bench_model_settle_status(run) == 0);
    json_t *ps = json_object_get(run, "per_second");
    json_object_set_new(json_array_get(ps, 1), "target", json_real(1000.5));
    json_object_set_new(json_array_get(ps, 2), "in_flight", json_integer(7));
    json_t *doc = mk_doc(run, 1796299484004LL, "s1");
    /* a string that looks like a series, escapes and all, before the runs */
    json_object_set_new(json_object_get(doc, "environment"), "note", json_string("\"per_second\": [ {\\\"t\": 1"));
    const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
    char *text = bench_json_dumps(doc, flags), err[600];
    json_t *loaded = parse_text(text, err, sizeof err);
    CHECK_MSG(loaded != NULL, "%s", err);
    const json_t *lr = json_array_get(json_object_get(loaded, "runs"), 0);
    bench_seconds a, b;
    CHECK(bench_run_seconds_compact(lr) && json_array_size(json_object_get(lr, "per_second")) == 0);
    CHECK(bench_run_seconds(lr, &a) == 0 && bench_run_seconds(run, &b) == 0);
    CHECK_MSG(same_seconds(&a, &b), "%zu vs %zu seconds, or their figures differ", a.n, b.n);
    CHECK(a.n == 6 && a.s[1].has_target && a.s[1].target == 1000.5 && a.s[2].has_in_flight && a.s[2].in_flight == 7);
    bench_seconds_release(&a);
    bench_seconds_release(&b);

    /* merge -o's writer: the series written back where they were, as the whole document's dump writes them */
    char *back = loaded ? series_dump(loaded) : NULL;
    CHECK_MSG(back && strcmp(back, text) == 0, "the dump differs from bench_json_dumps'");
    free(back);
    /* a string of the document that holds the placeholder: the long way, the same bytes */
    json_object_set_new(json_object_get(loaded, "environment"), "x", json_string("\x01series 0"));
    json_object_set_new(json_object_get(doc, "environment"), "x", json_string("\x01series 0"));
    char *want = bench_json_dumps(doc, flags);
    back = loaded ? series_dump(loaded) : NULL;
    CHECK_MSG(back && want && strcmp(back, want) == 0, "the dump with a placeholder in a string differs");
    free(back);
    free(want);
    json_object_del(json_object_get(doc, "environment"), "x");
    json_decref(loaded);

    /* a member a struct does not hold: the run's array kept as the file has it */
    json_object_set_new(json_array_get(ps, 3), "gc_ms", json_real(1.5));
    char *t2 = json_dumps(doc, flags);
    loaded = parse_text(t2, err, sizeof err);
    lr = json_array_get(json_object_get(loaded, "runs"), 0);
    CHECK_MSG(loaded && !bench_run_seconds_compact(lr) && json_array_size(json_object_get(lr, "per_second")) == 6 &&
              bench_json_num(json_array_get(json_object_get(lr, "per_second"), 3), "gc_ms", 0) == 1.5, "%s", err);
    json_decref(loaded);
    free(t2);
    json_object_del(json_array_get(ps, 3), "gc_ms");

    /* the messages of jansson's path */
    json_object_set_new(json_array_get(ps, 4), "ops", json_real(1.5));
    t2 = json_dumps(doc, flags);
    CHECK(!parse_text(t2, err, sizeof err));
    CHECK_MSG(strstr(err, "runs[0].per_second[4].ops: is not a non-negative integer"), "%s", err);
    free(t2);
    json_object_set_new(json_array_get(ps, 4), "ops", json_integer(1000000));
    t2 = json_dumps(doc, flags);
    CHECK(!parse_text(t2, err, sizeof err));
    CHECK_MSG(strstr(err, "runs[0].per_second: the series counts more operations than the run (600)"), "%s", err);
    free(t2);
    json_object_set_new(json_array_get(ps, 4), "ops", json_integer(100));
    json_object_set_new(json_array_get(ps, 5), "t", json_integer(99));
    t2 = json_dumps(doc, flags);
    CHECK(!parse_text(t2, err, sizeof err));
    CHECK_MSG(strstr(err, "runs[0].per_second[5].t: second 99 is past the run's end"), "%s", err);
    free(t2);
    /* a broken array, and a document broken past a series taken: jansson's line and column */
    static const char *const cuts[] = { "\"p99_us\"", "\"histogram\"" };
    for (size_t k = 0; k < 2; k++) {
        char *cut = strdup(text), *at = cut ? strstr(cut, cuts[k]) : NULL;
        if (!at) {
            CHECK(!"no place to cut");
            free(cut);
            continue;
        }
        at[0] = '}';      /* an object closed where a key was */
        json_error_t je;
        json_t *plain = json_loads(cut, JSON_REJECT_DUPLICATES, &je);
        char line[300];
        snprintf(line, sizeof line, "s.json: bad JSON at line %d, column %d: %s", je.line, je.column, je.text);
        CHECK(!plain && !parse_text(cut, err, sizeof err));
        CHECK_MSG(strcmp(err, line) == 0, "%s, not %s", err, line);
        json_decref(plain);
        free(cut);
    }
    free(text);
    json_decref(doc);
    bench_hist_free(h);
}

int main(void)
{
    RUN(test_load_errors);
    RUN(test_validate_measured);
    RUN(test_same_setup);
    RUN(test_merge_exact);
    RUN(test_series_compact);
    RUN(test_merge_refusals);
    RUN(test_merge_http);
    RUN(test_section_hooks);
    RUN(test_session_table_long_names);
    RUN(test_csv);
    RUN(test_csv_tidy);
    RUN(test_html);
    RUN(test_write_file);
    RUN(test_html_rest);
    RUN(test_target_build);
    RUN(test_target_of);
    RUN(test_target_check);
    RUN(test_hostile_documents);
    RUN(test_outfile_rules);
    RUN(test_progress_pipe);
    RUN(test_progress_tty);
    return check_finish();
}

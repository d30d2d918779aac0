/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_sweep_read.c - a thread sweep's "scalability" element read into
 * its struct once (bench/results/scalability.c), and the doc model carrying it. */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/scalability.h"
#include "tests/unit/check.h"

/* What bench_scal_sweep_print writes of sw, in buf; NULL when it does not fit. */
static const char *printed(const bench_scal_sweep *sw, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    if (!f)
        return NULL;
    bench_scal_sweep_print(f, sw);
    return fclose(f) == 0 && memchr(buf, 0, len) ? buf : NULL;
}

static const char *FULL =
    "[{\"test\": \"rsa-pkcs-sign\", \"mode\": \"blocking\", \"key\": {\"type\": \"RSA\", \"bits\": 2048},"
    " \"data_size\": 32, \"think_s\": 0.001,"
    " \"points\": [{\"threads\": 1, \"ops_per_s\": 500}, {\"threads\": 2, \"ops_per_s\": 950},"
    "             {\"threads\": 4, \"ops_per_s\": 1700}, {\"threads\": 8, \"ops_per_s\": 1900}],"
    " \"left_out\": 1, \"model\": \"usl\","
    " \"fit\": {\"lambda\": 512.5, \"sigma\": 0.05, \"kappa\": 0.002, \"dof\": 1, \"r2\": 0.9876},"
    " \"peak\": {\"threads\": 21.79, \"ops_per_s\": 2460.5},"
    " \"knee\": {\"threads\": 4, \"ops_per_s\": 1700, \"latency_us\": {\"mean\": 2300, \"p50\": 2250, \"p99\": 4000},"
    "          \"fitted_threads\": 5.5}}]";

/* Every part the views show, from a whole element. */
static void test_full(void)
{
    json_t *scal = json_loads(FULL, 0, NULL);
    bench_scal_sweeps s;
    CHECK(scal && bench_scal_sweeps_read(scal, NULL, &s) == 0);
    CHECK(s.n == 1 && s.of_run == NULL && s.nruns == 0);
    if (s.n == 1) {
        const bench_scal_sweep *sw = &s.v[0];
        CHECK(strcmp(sw->test, "rsa-pkcs-sign") == 0);
        CHECK(sw->has_key && strcmp(sw->key, "RSA 2048") == 0);
        CHECK(sw->data_size == 32 && sw->think_s == 0.001);
        CHECK(sw->npoints == 4 && sw->points[0].threads == 1 && sw->points[0].ops_per_s == 500 &&
              sw->points[3].threads == 8 && sw->points[3].ops_per_s == 1900);
        CHECK(sw->max_threads == 8 && sw->left_out == 1);
        CHECK(sw->has_fit && sw->lambda == 512.5 && sw->sigma == 0.05 && sw->kappa == 0.002);
        CHECK(sw->has_r2 && sw->r2 == 0.9876 && sw->drawable);
        CHECK(sw->has_peak && sw->peak_threads == 21.79 && sw->peak_ops_per_s == 2460.5);
        CHECK(sw->has_knee && sw->knee_threads == 4 && sw->knee_ops_per_s == 1700 && sw->knee_p50_us == 2250);
        CHECK(sw->has_knee_fitted && sw->knee_fitted_threads == 5.5);
        char out[1024];
        const char *text = printed(sw, out, sizeof out);
        CHECK_MSG(text && strcmp(text,
                                 "scalability of rsa-pkcs-sign (RSA 2048, data 32 B, think 1ms): Universal "
                                 "Scalability Law fit over 4 runs, R² 0.988; 1 run not ok left out\n"
                                 "  contention σ 0.05, coherency κ 0.002, one thread λ 512.5 ops/s\n"
                                 "  predicted peak 21.8 threads → 2460.5 ops/s (beyond the threads measured)\n"
                                 "  knee (best throughput per latency, max X²/N) at 4 threads: 1700.0 ops/s, "
                                 "p50 2.25ms (fitted curve: 5.5 threads)\n") == 0,
                  "printed: %s", text ? text : "(null)");
    }
    bench_scal_sweeps_free(&s);
    CHECK(s.v == NULL && s.n == 0);
    json_decref(scal);
}

/* A sweep without a fit: the reason, and no peak, knee or curve. */
static void test_no_fit(void)
{
    json_t *scal = json_loads("[{\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"key\": null, \"data_size\": 1024,"
                         " \"points\": [{\"threads\": 1, \"ops_per_s\": 10}, {\"threads\": 2, \"ops_per_s\": 20}],"
                         " \"left_out\": 0, \"model\": \"usl\", \"fit\": null, \"peak\": null, \"knee\": null,"
                         " \"reason\": \"2 distinct thread counts; the fit needs 3\"}]", 0, NULL);
    bench_scal_sweeps s;
    CHECK(scal && bench_scal_sweeps_read(scal, NULL, &s) == 0 && s.n == 1);
    if (s.n == 1) {
        const bench_scal_sweep *sw = &s.v[0];
        CHECK(!sw->has_key && strcmp(sw->key, "-") == 0);
        CHECK(!sw->has_fit && !sw->drawable && !sw->has_peak && !sw->has_knee && !sw->has_r2);
        CHECK(strcmp(sw->reason, "2 distinct thread counts; the fit needs 3") == 0);
        CHECK(sw->npoints == 2 && sw->max_threads == 2 && sw->think_s == 0);
        char out[1024];
        const char *text = printed(sw, out, sizeof out);
        CHECK_MSG(text && strcmp(text, "scalability of sha256-digest (data 1024 B): no analysis: 2 distinct thread "
                                       "counts; the fit needs 3\n") == 0,
                  "printed: %s", text ? text : "(null)");
    }
    bench_scal_sweeps_free(&s);
    json_decref(scal);
}

/* Whatever a file says: no crash, and each missing part marked absent. */
static void test_malformed(void)
{
    bench_scal_sweeps s;
    CHECK(bench_scal_sweeps_read(NULL, NULL, &s) == 0 && s.n == 0 && s.v == NULL);
    bench_scal_sweeps_free(&s);
    json_t *obj = json_loads("{\"test\": \"x\"}", 0, NULL);
    CHECK(obj && bench_scal_sweeps_read(obj, NULL, &s) == 0 && s.n == 0);
    bench_scal_sweeps_free(&s);
    json_decref(obj);

    json_t *scal = json_loads("[\"a string\", {\"test\": 7, \"points\": {\"threads\": 1}, \"fit\": {\"lambda\": 100,"
                         " \"kappa\": 0, \"r2\": null}, \"peak\": [], \"knee\": {\"threads\": \"4\"}},"
                         " {\"points\": [1, {\"threads\": 3.5}], \"fit\": {\"lambda\": 100, \"sigma\": 0.1,"
                         " \"kappa\": 0}}]", 0, NULL);
    CHECK(scal && bench_scal_sweeps_read(scal, NULL, &s) == 0 && s.n == 3);
    if (s.n == 3) {
        const bench_scal_sweep *a = &s.v[0], *b = &s.v[1], *c = &s.v[2];
        CHECK(strcmp(a->test, "?") == 0 && !a->has_key && a->npoints == 0 && !a->has_fit && !a->drawable);
        CHECK(strcmp(a->reason, "?") == 0 && !a->has_peak && !a->has_knee);
        /* no sigma: a fit, but not one to draw; no points, no R², no peak */
        CHECK(strcmp(b->test, "?") == 0 && b->has_fit && !b->drawable && !b->has_r2 && b->npoints == 0);
        CHECK(!b->has_peak && b->has_knee && b->knee_threads == 0 && !b->has_knee_fitted);
        /* points that are not objects, or not integers, read as 0 threads */
        CHECK(c->npoints == 2 && c->points[0].threads == 0 && c->points[1].threads == 0 && c->max_threads == 0);
        CHECK(c->has_fit && c->drawable);
        char out[1024];
        const char *text = printed(b, out, sizeof out);
        CHECK(text && strstr(text, "fit over 0 runs, no degrees of freedom") != NULL);
    }
    bench_scal_sweeps_free(&s);
    json_decref(scal);
}

/* Each run of a document finds its sweep (same test, mode, key, data size
 * and think time), through the doc model; a run of another setup finds none. */
static void test_doc_model(void)
{
    json_t *doc = json_loads(
        "{\"schema\": \"hsmbench.result/3\","
        " \"runs\": [{\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"data_size\": 1024, \"threads\": 1,"
        "            \"status\": \"ok\", \"ops_per_s\": 10},"
        "           {\"test\": \"sha256-digest\", \"mode\": \"nonblocking\", \"data_size\": 1024, \"threads\": 1,"
        "            \"status\": \"ok\", \"ops_per_s\": 10},"
        "           {\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"data_size\": 1024, \"threads\": 2,"
        "            \"status\": \"ok\", \"ops_per_s\": 20, \"settings\": {\"think_s\": 0.5}},"
        "           {\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"data_size\": 1024, \"threads\": 4,"
        "            \"status\": \"ok\", \"ops_per_s\": 40, \"settings\": {\"think_s\": 0.5}}],"
        " \"scalability\": [{\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"key\": null, \"data_size\": 1024,"
        "                   \"points\": [], \"fit\": null, \"reason\": \"one\"},"
        "                  {\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"key\": null, \"data_size\": 1024,"
        "                   \"think_s\": 0.5, \"points\": [], \"fit\": null, \"reason\": \"two\"}]}", 0, NULL);
    bench_doc_model d;
    CHECK(doc && bench_doc_model_of(doc, &d) == 0);
    CHECK(d.nruns == 4 && d.sweeps.n == 2 && d.sweeps.nruns == 4);
    if (d.nruns == 4 && d.sweeps.n == 2) {
        CHECK(bench_doc_model_sweep(&d, &d.runs[0]) == &d.sweeps.v[0]);
        CHECK(bench_doc_model_sweep(&d, &d.runs[1]) == NULL);
        CHECK(bench_doc_model_sweep(&d, &d.runs[2]) == &d.sweeps.v[1]);
        CHECK(bench_doc_model_sweep(&d, &d.runs[3]) == &d.sweeps.v[1]);
        bench_run_model other;
        memset(&other, 0, sizeof other);
        CHECK(bench_doc_model_sweep(&d, &other) == NULL);   /* not one of the document's runs */
    }
    bench_doc_model_free(&d);
    /* No "scalability" in the document: no sweep for any run. */
    CHECK(json_object_del(doc, "scalability") == 0 && bench_doc_model_of(doc, &d) == 0);
    CHECK(d.sweeps.n == 0 && d.nruns == 4 && bench_doc_model_sweep(&d, &d.runs[0]) == NULL);
    bench_doc_model_free(&d);
    json_decref(doc);
}

/* The analysis' own element (bench_scalability) reads back as it was written. */
static void test_analysis_round_trip(void)
{
    json_t *runs = json_array();
    static const int threads[] = { 1, 2, 4, 8 };
    static const double x[] = { 1000, 1900, 3400, 4200 };
    for (size_t i = 0; i < 4; i++)
        CHECK(json_array_append_new(runs, json_pack("{s:s,s:s,s:I,s:I,s:s,s:f,s:{s:f,s:f,s:f}}", "test", "aes-cbc-encrypt",
                                                    "mode", "blocking", "data_size", (json_int_t)16, "threads",
                                                    (json_int_t)threads[i], "status", "ok", "ops_per_s", x[i],
                                                    "latency_us", "mean", 1000.0, "p50", 900.0, "p99", 2000.0)) == 0);
    json_t *scal = bench_scalability(runs);
    bench_scal_sweeps s;
    CHECK(scal && bench_scal_sweeps_read(scal, runs, &s) == 0 && s.n == 1 && s.nruns == 4);
    if (s.n == 1) {
        const json_t *el = json_array_get(scal, 0), *fit = json_object_get(el, "fit");
        const bench_scal_sweep *sw = &s.v[0];
        CHECK(sw->npoints == 4 && sw->max_threads == 8 && sw->has_fit == json_is_object(fit));
        CHECK(sw->lambda == json_number_value(json_object_get(fit, "lambda")));
        CHECK(sw->has_knee == json_is_object(json_object_get(el, "knee")));
        CHECK(sw->knee_p50_us == (sw->has_knee ? 900.0 : 0));
        for (size_t i = 0; i < 4; i++)
            CHECK(s.of_run[i] == 0);
    }
    bench_scal_sweeps_free(&s);
    json_decref(scal);
    json_decref(runs);
}

int main(void)
{
    RUN(test_full);
    RUN(test_no_fit);
    RUN(test_malformed);
    RUN(test_doc_model);
    RUN(test_analysis_round_trip);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_compare_model.c - the compare model (bench/results/compare.c):
 * two small results documents in, through the same load as compare's files
 * (bench_results_parse, bench_doc_model_of); the pairs out, with their
 * figures, verdicts and --fail-on results, a run of other settings (not
 * comparable, and why), a run missing in B, a run only B has, and the
 * hsmbench.compare/1 document and HTML page written from the model.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/compare.h"
#include "bench/results/compare_html.h"
#include "bench/results/codec.h"
#include "bench/core/hist.h"
#include "bench/results/results.h"
#include "tests/unit/check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A measured run of test: 10 seconds at about rate ops/s each. */
static json_t *run_of(const char *test, int threads, double rate)
{
    json_t *ps = json_array();
    long long ops = 0;
    for (int t = 1; t <= 10; t++) {
        const long long o = (long long)(rate + (t % 3) * rate / 100);   /* a little noise */
        ops += o;
        json_array_append_new(ps, json_pack("{s:i,s:f,s:I,s:I,s:f,s:f}", "t", t, "span_s", 1.0, "ops", (json_int_t)o,
                                            "errors", (json_int_t)0, "p50_us", 1e6 / rate, "p99_us", 2e6 / rate));
    }
    const double lat = 1e6 / rate;
    bench_hist *h = bench_hist_new();
    for (long long i = 0; h && i < ops; i++)
        bench_hist_record(h, (uint64_t)(lat * 1000 * (0.8 + 0.4 * (double)(i % 100) / 100)));
    json_t *hist = h ? bench_hist_to_json(h) : NULL;
    bench_hist_free(h);
    return json_pack("{s:s,s:s,s:i,s:i,s:s,s:n,s:f,s:I,s:I,s:f,s:f,s:f,"
                     "s:{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I},s:{},s:o,s:o*}",
                     "test", test, "mode", "blocking", "threads", threads, "data_size", 32, "status", "ok", "key",
                     "duration_s", 10.0, "ops", (json_int_t)ops, "errors", (json_int_t)0, "error_pct", 0.0,
                     "ops_per_s", (double)ops / 10, "bytes_per_s", 3.2 * (double)ops, "latency_us", "min", lat / 2, "mean", lat, "stddev", lat / 10,
                     "p50", lat, "p90", lat * 1.5, "p95", lat * 1.7, "p99", lat * 2, "p999", lat * 3, "max",
                     lat * 4, "count", (json_int_t)ops, "errors_by_code", "per_second", ps, "histogram", hist);
}

/* A results document of runs, as compare loads a file. */
static json_t *doc_of(json_t *runs, const char *host)
{
    json_t *d = json_pack("{s:s,s:{s:s},s:s,s:{s:{s:s,s:s},s:{s:s,s:s},s:{s:s,s:i}},s:o}", "schema",
                          "hsmbench.result/1", "tool", "version", "0.1.0", "started_at", "2026-12-01T09:56:31Z",
                          "environment", "module", "name", "null", "path", "/x/null.so", "token", "label", "null",
                          "serial", "1", "host", "hostname", host, "cpus", 2, "runs", runs);
    char *text = d ? json_dumps(d, 0) : NULL;
    char err[256] = "";
    json_t *doc = text ? bench_results_parse("t.json", text, strlen(text), err, sizeof err) : NULL;
    if (!doc)
        printf("# %s\n", err);
    free(text);
    json_decref(d);
    return doc;
}

typedef struct two {
    json_t         *raw[2];
    bench_doc_model docs[2];
    int             nd;
    bench_rule      rule;
    bench_compare   c;
    int             built;
} two;

/* A: sha256-digest, rsa-pkcs-sign, ecdsa-sign; B: sha256-digest at half
 * the rate, rsa-pkcs-sign with 2 threads, aes-gcm-encrypt. */
static int two_open(two *t)
{
    static const char *const paths[2] = { "a.json", "b.json" };
    char err[256];
    memset(t, 0, sizeof *t);
    t->raw[0] = doc_of(json_pack("[o,o,o]", run_of("sha256-digest", 1, 1000), run_of("rsa-pkcs-sign", 1, 500),
                                 run_of("ecdsa-sign", 1, 800)), "vm");
    t->raw[1] = doc_of(json_pack("[o,o,o]", run_of("sha256-digest", 1, 500), run_of("rsa-pkcs-sign", 2, 900),
                                 run_of("aes-gcm-encrypt", 1, 2000)), "other");
    if (!t->raw[0] || !t->raw[1] || bench_rule_parse("ops_per_s<-5%", NULL, &t->rule, err, sizeof err) != 0)
        return -1;
    for (; t->nd < 2; t->nd++)
        if (bench_doc_model_of(t->raw[t->nd], &t->docs[t->nd]) != 0)
            return -1;
    if (bench_compare_build(t->docs, paths, 2, NULL, &t->rule, 1, BENCH_VERDICT_MIN_CHANGE_PCT, &t->c) != 0)
        return -1;
    t->built = 1;
    return 0;
}

static void two_close(two *t)
{
    if (t->built)
        bench_compare_free(&t->c);
    for (int i = 0; i < t->nd; i++)
        bench_doc_model_free(&t->docs[i]);
    json_decref(t->raw[0]);
    json_decref(t->raw[1]);
}

/* two_open checked: 1, or 0 when it failed (closed then). */
static int opened(two *t)
{
    CHECK(two_open(t) == 0);
    if (!t->built)
        two_close(t);
    return t->built;
}

static void test_pairs(void)
{
    two t;
    if (!opened(&t))
        return;
    const bench_compare *c = &t.c;
    CHECK(c->nfiles == 2 && strcmp(c->files[1].label, "B") == 0 && strcmp(c->files[1].path, "b.json") == 0);
    CHECK(c->files[1].env.host_differs && strcmp(c->files[1].env.hostname, "other") == 0);
    CHECK(!c->files[1].env.module_differs && !c->files[1].env.machine_differs);
    CHECK(c->npairs == 3);
    CHECK(c->ngroups == 4);                      /* A's three runs, and B's run not in A */
    if (c->npairs == 3 && c->ngroups == 4) {
        const bench_cmp_pair *p = &c->pairs[0];
        CHECK(p->match == BENCH_CMP_COMPARED && strcmp(p->a->test, "sha256-digest") == 0);
        CHECK(strcmp(p->verdict, "slower") == 0);
        const bench_fig_cmp *ops = bench_pair_fig(&p->cmp, "ops_per_s");
        CHECK(ops && ops->verdict == BENCH_CHANGE_WORSE && ops->significant);
        CHECK_MSG(ops && ops->has_pct && ops->pct < -45 && ops->pct > -55, "ops/s change %.2f%%",
                  ops ? ops->pct : 0.0);
        CHECK(ops && ops->a == p->a->ops_per_s && ops->b == p->b->ops_per_s);
        CHECK(p->nrules == 1 && p->rules[0].result == BENCH_RULE_FAIL);
        CHECK(c->failed == 1 && bench_compare_exit(c) == 1);

        CHECK(c->pairs[1].match == BENCH_CMP_OTHER_SETUP && strcmp(c->pairs[1].why, "threads 2 vs 1") == 0);
        CHECK(c->pairs[1].b && c->pairs[1].b->threads == 2 && c->pairs[1].nrules == 0);
        CHECK(c->pairs[2].match == BENCH_CMP_MISSING && !c->pairs[2].b);
        CHECK(strcmp(c->pairs[2].why, "no run of this test") == 0);
        CHECK(c->groups[3].file == 1 && strcmp(c->groups[3].run->test, "aes-gcm-encrypt") == 0);
        CHECK(c->groups[3].npairs == 0 && c->groups[0].npairs == 1);
        CHECK(!c->datasheet && c->nds == 0);
    }
    two_close(&t);
}

/* A file against itself: every figure no change, no rule fails. */
static void test_same(void)
{
    two t;
    if (!opened(&t))
        return;
    bench_compare self;
    static const char *const paths[2] = { "a.json", "a.json" };
    const bench_doc_model docs[2] = { t.docs[0], t.docs[0] };
    CHECK(bench_compare_build(docs, paths, 2, NULL, &t.rule, 1, 3.0, &self) == 0);
    CHECK(self.npairs == 3 && self.ngroups == 3 && self.failed == 0);
    for (size_t i = 0; i < self.npairs; i++) {
        CHECK(self.pairs[i].match == BENCH_CMP_COMPARED);
        CHECK(strcmp(self.pairs[i].verdict, "no change (within noise)") == 0);
    }
    bench_compare_free(&self);
    two_close(&t);
}

/* The document and the page, written from the model. */
static void test_outputs(void)
{
    two t;
    CHECK(two_open(&t) == 0);
    json_t *doc = t.built ? bench_compare_json(&t.c) : NULL;
    CHECK(doc != NULL);
    if (doc) {
        const json_t *pairs = json_object_get(doc, "comparisons"), *p0 = json_array_get(pairs, 0);
        CHECK(strcmp(json_string_value(json_object_get(doc, "schema")), BENCH_COMPARE_SCHEMA) == 0);
        CHECK(json_integer_value(json_object_get(doc, "exit_status")) == 1);
        CHECK(json_array_size(pairs) == 3 && json_is_true(json_object_get(p0, "comparable")));
        CHECK(strcmp(json_string_value(json_object_get(p0, "verdict")), "slower") == 0);
        CHECK(strcmp(json_string_value(json_object_get(json_array_get(json_object_get(p0, "rules"), 0), "result")),
                     "fail") == 0);
        CHECK(json_is_false(json_object_get(json_array_get(pairs, 1), "comparable")));
        CHECK(!json_object_get(doc, "datasheet"));
    }
    json_decref(doc);
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    CHECK(f != NULL);
    if (f && t.built) {
        CHECK(bench_compare_html_write(f, &t.c) == 0);
        CHECK(fclose(f) == 0);
        CHECK(page && strstr(page, "<span class=\"bad\">1 rule check failed</span>"));
        CHECK(page && strstr(page, "sha256-digest \xc2\xb7 1 thread \xc2\xb7 blocking \xc2\xb7 B vs A: "
                                   "<span class=\"bad\">slower</span>"));
        CHECK(page && strstr(page, "<p class=\"warn\">threads 2 vs 1</p>"));
    } else if (f) {
        (void)fclose(f);
    }
    free(page);
    two_close(&t);
}

int main(void)
{
    RUN(test_pairs);
    RUN(test_same);
    RUN(test_outputs);
    return check_finish();
}

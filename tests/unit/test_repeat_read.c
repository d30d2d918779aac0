/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_repeat_read.c - a --repeat group's "repeats" element read into
 * its struct once (bench/results/repeat.c), its line, and the doc model carrying it. */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/repeat.h"
#include "tests/unit/check.h"

/* A group with its three intervals: every figure, and the line. */
static void test_full(void)
{
    json_t *reps = json_loads(
        "[{\"test\": \"rsa-pkcs-sign\", \"mode\": \"blocking\", \"key\": {\"type\": \"RSA\", \"bits\": 2048},"
        "  \"threads\": 4, \"data_size\": 32, \"of\": 4, \"method\": \"Student t, 95 %, between runs\","
        "  \"runs\": [0, 1, 2, 3], \"n\": 3, \"left_out\": 1,"
        "  \"ops_per_s\": {\"mean\": 1997.14, \"sd\": 9.6, \"ci95_low\": 1973.2, \"ci95_high\": 2021.08,"
        "                \"half_width_pct\": 1.2},"
        "  \"p50_us\": {\"mean\": 1990, \"sd\": 4, \"ci95_low\": 1980, \"ci95_high\": 2000, \"half_width_pct\": 0.5},"
        "  \"p99_us\": {\"mean\": 2510, \"sd\": 30, \"ci95_low\": 2432, \"ci95_high\": 2588, \"half_width_pct\": 3.1}}]", 0, NULL);
    bench_repeat_groups g;
    CHECK(reps && bench_repeat_groups_read(reps, &g) == 0 && g.n == 1);
    if (g.n == 1) {
        const bench_repeat_group *r = &g.v[0];
        CHECK(strcmp(r->test, "rsa-pkcs-sign") == 0 && strcmp(r->key, "RSA 2048") == 0);
        CHECK(r->threads == 4 && r->n == 3 && r->of == 4 && r->runs == 4);
        CHECK(r->ops_per_s.present && r->ops_per_s.mean == 1997.14 && r->ops_per_s.low == 1973.2 &&
              r->ops_per_s.high == 2021.08 && r->ops_per_s.has_half && r->ops_per_s.half_width_pct == 1.2);
        CHECK(r->p50_us.present && r->p50_us.mean == 1990 && r->p99_us.present && r->p99_us.half_width_pct == 3.1);
        char line[640];
        const char *want = "rsa-pkcs-sign, RSA 2048, 4 threads: ops/s over 3 runs: 1997.14 \xc2\xb1" "1.20 % (95 %, t, "
                           "between runs: 1973.20 to 2021.08); p50 1.99ms \xc2\xb1" "0.50 %, p99 2.51ms \xc2\xb1"
                           "3.10 % (runs not ok left out)";
        CHECK_MSG(strcmp(bench_repeat_text(r, line, sizeof line), want) == 0, "line: %s", line);
    }
    bench_repeat_groups_free(&g);
    CHECK(g.v == NULL && g.n == 0);
    json_decref(reps);
}

/* Too few runs ok: no interval, and the line says so. */
static void test_too_few(void)
{
    json_t *reps = json_loads("[{\"test\": \"sha256-digest\", \"key\": null, \"threads\": 1, \"of\": 3, \"runs\": [4, 5],"
                         " \"n\": 1, \"left_out\": 1}]", 0, NULL);
    bench_repeat_groups g;
    CHECK(reps && bench_repeat_groups_read(reps, &g) == 0 && g.n == 1);
    if (g.n == 1) {
        const bench_repeat_group *r = &g.v[0];
        CHECK(strcmp(r->key, "-") == 0 && !r->ops_per_s.present && !r->p50_us.present && !r->p99_us.present);
        char line[640];
        CHECK_MSG(strcmp(bench_repeat_text(r, line, sizeof line),
                         "sha256-digest, 1 thread: 1 of 2 runs ok (of the 3 asked): too few for an interval "
                         "between runs") == 0,
                  "line: %s", line);
    }
    bench_repeat_groups_free(&g);
    json_decref(reps);
}

/* Whatever a file says: no crash, and each missing part marked absent. */
static void test_malformed(void)
{
    bench_repeat_groups g;
    CHECK(bench_repeat_groups_read(NULL, &g) == 0 && g.n == 0 && g.v == NULL);
    bench_repeat_groups_free(&g);
    json_t *obj = json_loads("{\"test\": \"x\"}", 0, NULL);
    CHECK(obj && bench_repeat_groups_read(obj, &g) == 0 && g.n == 0);
    bench_repeat_groups_free(&g);
    json_decref(obj);
    json_t *reps = json_loads("[42, {\"test\": [], \"runs\": {}, \"ops_per_s\": {\"mean\": \"x\", \"ci95_low\": 1,"
                         " \"ci95_high\": 3}, \"p50_us\": {}, \"p99_us\": 5}]", 0, NULL);
    CHECK(reps && bench_repeat_groups_read(reps, &g) == 0 && g.n == 2);
    if (g.n == 2) {
        const bench_repeat_group *a = &g.v[0], *b = &g.v[1];
        CHECK(strcmp(a->test, "?") == 0 && strcmp(a->key, "-") == 0 && a->runs == 0 && !a->ops_per_s.present);
        CHECK(strcmp(b->test, "?") == 0 && b->runs == 0 && b->ops_per_s.present && b->ops_per_s.mean == 0);
        CHECK(!b->ops_per_s.has_half && b->p50_us.present && !b->p99_us.present);
        char line[640];
        /* without a half-width, the interval's ends; no latency without both */
        CHECK_MSG(strcmp(bench_repeat_text(b, line, sizeof line),
                         "?, 0 threads: ops/s over 0 runs: 0.00 (1.00 to 3.00) (95 %, t, between runs: 1.00 to "
                         "3.00)") == 0,
                  "line: %s", line);
    }
    bench_repeat_groups_free(&g);
    json_decref(reps);
}

/* The doc model's groups are the analysis of its runs (as every view made
 * them), whatever the document's own "repeats" says. */
static void test_doc_model(void)
{
    json_t *doc = json_loads(
        "{\"schema\": \"hsmbench.result/3\", \"repeats\": [{\"test\": \"stale\"}],"
        " \"runs\": [{\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"data_size\": 1024, \"threads\": 2,"
        "            \"status\": \"ok\", \"ops_per_s\": 100, \"repeat\": {\"run\": 1, \"of\": 2}},"
        "           {\"test\": \"sha256-digest\", \"mode\": \"blocking\", \"data_size\": 1024, \"threads\": 2,"
        "            \"status\": \"ok\", \"ops_per_s\": 110, \"repeat\": {\"run\": 2, \"of\": 2}}]}", 0, NULL);
    bench_doc_model d;
    CHECK(doc && bench_doc_model_of(doc, &d) == 0);
    CHECK(d.repeats.n == 1);
    if (d.repeats.n == 1) {
        const bench_repeat_group *r = &d.repeats.v[0];
        CHECK(strcmp(r->test, "sha256-digest") == 0 && r->n == 2 && r->of == 2 && r->runs == 2);
        CHECK(r->ops_per_s.present && r->ops_per_s.mean == 105 && r->ops_per_s.has_half);
        CHECK(!r->p50_us.present && !r->p99_us.present);   /* the runs have no latency */
    }
    bench_doc_model_free(&d);
    json_decref(doc);
}

int main(void)
{
    RUN(test_full);
    RUN(test_too_few);
    RUN(test_malformed);
    RUN(test_doc_model);
    return check_finish();
}

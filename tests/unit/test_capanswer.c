/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_capanswer.c - the readers of a capacity search's answer
 * (bench/results/capanswer.h) and of a datasheet's own facts
 * (bench/results/dsfacts.h): a JSON element in, the fields every view shows
 * out; a missing or malformed element read as absent or as "not said",
 * never a crash; the document model carrying both.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/results/capanswer.h"
#include "bench/results/dsfacts.h"
#include "bench/results/model.h"
#include "tests/unit/check.h"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static json_t *found_search(void)
{
    return json_pack("{s:[s,s],s:f,s:i,s:s,s:f,s:[f,f],s:f,s:{s:f,s:f,s:f,s:f},s:f,s:s,s:["
                     "{s:f,s:f,s:f,s:f,s:f,s:b,s:n},{s:f,s:f,s:f,s:f,s:f,s:b,s:s}]}",
                     "objectives", "p99<20ms", "errors<1%", "precision", 0.02, "threads", 8, "result", "found",
                     "ops_per_s", 2000.0, "bounds", 2000.0, 2031.25, "bracket_pct", 1.6, "uncertainty", "low",
                     1990.0, "high", 2062.5, "minus_pct", 0.5, "plus_pct", 3.1, "start_rate", 1000.0,
                     "limited_by", "target", "steps", "rate", 1000.0, "achieved", 999.5, "p50_us", 1100.0,
                     "p99_us", 1500.0, "error_pct", 0.0, "pass", 1, "why", "rate", 4000.0, "achieved", 2004.0,
                     "p50_us", 250000.0, "p99_us", 497000.0, "error_pct", 0.25, "pass", 0, "why",
                     "'p99<20ms' p(99)=497ms");
}

static void test_answer_fields(void)
{
    json_t *cap = found_search();
    bench_cap_answer a;
    CHECK(cap && bench_cap_answer_of(cap, &a) == 0);
    CHECK(a.present && a.nobjectives == 2 && strcmp(a.objectives[0], "p99<20ms") == 0 &&
          strcmp(a.objectives[1], "errors<1%") == 0);
    CHECK(a.result && strcmp(a.result, "found") == 0 && a.has_ops_per_s && near(a.ops_per_s, 2000));
    CHECK(a.threads == 8 && near(a.precision, 0.02) && near(a.start_rate, 1000));
    CHECK(a.has_hi && near(a.hi, 2031.25) && a.has_bracket && near(a.bracket_pct, 1.6));
    CHECK(a.has_uncertainty && near(a.low, 1990) && near(a.high, 2062.5) && near(a.minus_pct, 0.5) &&
          near(a.plus_pct, 3.1));
    CHECK(!a.has_against && a.limited_by && strcmp(a.limited_by, "target") == 0);
    /* the interval compare judges by: the bracket widened by the repeats */
    CHECK(a.has_interval && near(a.interval_lo, 1990) && near(a.interval_hi, 2062.5));
    CHECK(a.nsteps == 2 && near(a.steps[0].rate, 1000) && near(a.steps[0].achieved, 999.5) &&
          near(a.steps[0].p50_us, 1100) && near(a.steps[0].p99_us, 1500) && a.steps[0].pass &&
          a.steps[0].why == NULL);
    CHECK(!a.steps[1].pass && near(a.steps[1].error_pct, 0.25) && a.steps[1].why &&
          strcmp(a.steps[1].why, "'p99<20ms' p(99)=497ms") == 0);
    char buf[600];
    CHECK_MSG(strcmp(bench_cap_answer_text(&a, buf, sizeof buf),
                     "capacity 2 000 ops/s at p99 < 20 ms, errors < 1 %, 8 threads, -0.5 %/+3.1 % by repeated "
                     "steps (1 990 to 2 062 ops/s); bracket 1.6 %") == 0, "%s", buf);
    /* a shorter buffer holds the start of the same text */
    char small[12];
    CHECK_MSG(strcmp(bench_cap_objectives_text(&a, small, sizeof small), "p99 < 20 ms") == 0, "%s", small);
    bench_cap_answer_free(&a);
    CHECK(!a.present && !a.steps && !a.objectives);

    /* unsettled against a rate; bounds without a failing rate */
    json_object_set_new(cap, "result", json_string("unsettled"));
    json_object_set_new(cap, "against", json_pack("{s:f,s:b}", "rate", 2100.0, "pass", 1));
    json_object_set_new(cap, "bounds", json_pack("[f,n]", 2000.0));
    CHECK(bench_cap_answer_of(cap, &a) == 0);
    CHECK(a.has_against && near(a.against_rate, 2100) && a.against_pass && !a.has_hi && a.hi == 0);
    CHECK(!a.has_interval);          /* only a found answer has one */
    CHECK_MSG(strstr(bench_cap_answer_text(&a, buf, sizeof buf), "but 2 100/s passed, beyond") != NULL, "%s",
              buf);
    bench_cap_answer_free(&a);
    json_decref(cap);
}

static void test_answer_absent_or_malformed(void)
{
    bench_cap_answer a;
    char buf[300];
    /* no element, or not an object: absent, and the texts still say something */
    CHECK(bench_cap_answer_of(NULL, &a) == 0 && !a.present && a.nsteps == 0 && a.nobjectives == 0);
    CHECK_MSG(strcmp(bench_cap_answer_text(&a, buf, sizeof buf),
                     "no rate met the objectives: no step was measured") == 0, "%s", buf);
    CHECK(strcmp(bench_cap_objectives_text(&a, buf, sizeof buf), "") == 0);
    bench_cap_answer_free(&a);
    json_t *odd = json_pack("[i,s]", 1, "capacity");
    CHECK(bench_cap_answer_of(odd, &a) == 0 && !a.present);
    bench_cap_answer_free(&a);
    json_decref(odd);
    json_t *doc = json_pack("{s:s}", "capacity", "lots");
    CHECK(bench_cap_answer_of_doc(doc, &a) == 0 && !a.present);
    bench_cap_answer_free(&a);
    json_decref(doc);

    /* members of the wrong kind read as not said */
    odd = json_pack("{s:[s,i],s:i,s:s,s:s,s:s,s:s,s:[s,i,{s:s,s:s}]}", "objectives", "p99<5ms", 7, "result", 3,
                    "ops_per_s", "fast", "threads", "8", "bounds", "wide", "uncertainty", "none", "steps", "x",
                    4, "rate", "high", "pass", "yes");
    CHECK(odd && bench_cap_answer_of(odd, &a) == 0 && a.present);
    CHECK(a.result == NULL && !a.has_ops_per_s && a.ops_per_s == 0 && a.threads == 0 && !a.has_hi);
    CHECK(a.has_uncertainty && a.low == 0 && !a.has_interval && !a.has_bracket);
    CHECK(a.nobjectives == 2 && a.objectives[1] == NULL);
    CHECK_MSG(strcmp(bench_cap_objectives_text(&a, buf, sizeof buf), "p99 < 5 ms, ?") == 0, "%s", buf);
    CHECK(a.nsteps == 3 && a.steps[0].rate == 0 && !a.steps[0].pass && !a.steps[2].pass &&
          a.steps[2].why == NULL);
    CHECK_MSG(strcmp(bench_cap_answer_text(&a, buf, sizeof buf),
                     "no rate met the objectives: even 0/s failed p99 < 5 ms, ? (?)") == 0, "%s", buf);
    bench_cap_answer_free(&a);
    json_decref(odd);
}

static void test_same_objectives(void)
{
    json_t *x = json_pack("{s:[s,s]}", "objectives", "p99<20ms", "errors<1%");
    json_t *y = json_pack("{s:[s,s]}", "objectives", "p99<20ms", "errors<1%");
    json_t *z = json_pack("{s:[s,s]}", "objectives", "errors<1%", "p99<20ms");
    json_t *none = json_object();
    bench_cap_answer a, b, c, n1, n2;
    CHECK(bench_cap_answer_of(x, &a) == 0 && bench_cap_answer_of(y, &b) == 0 && bench_cap_answer_of(z, &c) == 0 &&
          bench_cap_answer_of(none, &n1) == 0 && bench_cap_answer_of(none, &n2) == 0);
    CHECK(bench_cap_same_objectives(&a, &b));
    CHECK(!bench_cap_same_objectives(&a, &c));          /* the order is part of them */
    CHECK(!bench_cap_same_objectives(&a, &n1));
    CHECK(!bench_cap_same_objectives(&n1, &n2));        /* two files that give none: not comparable */
    bench_cap_answer_free(&a);
    bench_cap_answer_free(&b);
    bench_cap_answer_free(&c);
    bench_cap_answer_free(&n1);
    bench_cap_answer_free(&n2);
    json_decref(x);
    json_decref(y);
    json_decref(z);
    json_decref(none);
}

static json_t *datasheet_doc(void)
{
    json_t *doc = json_pack("{s:[],s:{s:{s:[s,s,s],s:f,s:i,s:[i,i,f],s:s},s:f,s:f,s:[{s:s,s:s},{s:s,s:s,s:o}]}}",
                            "runs", "datasheet", "plan", "steps", "a", "b", "c", "step_time_s", 0.4,
                            "max_threads", 16, "data_sizes", 16, 8192, 1.5, "capacity", "p99<20ms",
                            "announced_s", 28.66, "took_s", 18.2, "capacity", "test", "sha256-digest", "key",
                            "-", "test", "rsa-pkcs-sign", "key", "RSA 2048", "search", found_search());
    return doc;
}

static void test_datasheet_fields(void)
{
    json_t *doc = datasheet_doc();
    bench_ds_facts ds;
    CHECK(doc && bench_ds_facts_of(doc, &ds) == 0);
    CHECK(ds.present && ds.nplan_steps == 3 && near(ds.step_time_s, 0.4) && ds.max_threads == 16);
    CHECK(ds.ndata_sizes == 3 && ds.data_sizes[0] == 16 && ds.data_sizes[1] == 8192 && ds.data_sizes[2] == 0);
    CHECK(ds.objective && strcmp(ds.objective, "p99<20ms") == 0);
    CHECK(near(ds.announced_s, 28.66) && ds.has_took && near(ds.took_s, 18.2));
    CHECK(ds.ncapacity == 2 && strcmp(ds.capacity[0].test, "sha256-digest") == 0 &&
          !ds.capacity[0].search.present && ds.capacity[1].search.present);
    /* each test's answer, by test and key; an element without a search has none */
    const bench_cap_answer *a = bench_ds_capacity_of(&ds, "rsa-pkcs-sign", "RSA 2048", 1);
    CHECK(a && a->has_ops_per_s && near(a->ops_per_s, 2000) && strcmp(a->result, "found") == 0);
    CHECK(bench_ds_capacity_of(&ds, "sha256-digest", "-", 1) == NULL);
    CHECK(bench_ds_capacity_of(&ds, "rsa-pkcs-sign", "RSA 4096", 1) == NULL);
    bench_ds_facts_free(&ds);
    CHECK(!ds.present && !ds.capacity && !ds.data_sizes);

    /* two elements of one test: the first, or the last */
    json_array_append_new(json_object_get(json_object_get(doc, "datasheet"), "capacity"),
                          json_pack("{s:s,s:s,s:{s:f,s:s}}", "test", "rsa-pkcs-sign", "key", "RSA 2048", "search",
                                    "ops_per_s", 1234.5, "result", "steps"));
    CHECK(bench_ds_facts_of(doc, &ds) == 0);
    CHECK(near(bench_ds_capacity_of(&ds, "rsa-pkcs-sign", "RSA 2048", 1)->ops_per_s, 2000));
    CHECK(near(bench_ds_capacity_of(&ds, "rsa-pkcs-sign", "RSA 2048", 0)->ops_per_s, 1234.5));
    bench_ds_facts_free(&ds);

    /* the document model carries both, read once */
    json_object_set_new(doc, "capacity", found_search());
    bench_doc_model d;
    CHECK(bench_doc_model_of(doc, &d) == 0);
    CHECK(d.capacity.present && d.capacity.nsteps == 2 && d.datasheet.present && d.datasheet.ncapacity == 3);
    bench_doc_model_free(&d);
    json_decref(doc);
}

static void test_datasheet_absent_or_malformed(void)
{
    bench_ds_facts ds;
    CHECK(bench_ds_facts_of(NULL, &ds) == 0 && !ds.present);
    bench_ds_facts_free(&ds);
    json_t *doc = json_pack("{s:[],s:[i]}", "runs", "datasheet", 1);
    CHECK(bench_ds_facts_of(doc, &ds) == 0 && !ds.present && ds.ncapacity == 0);
    bench_ds_facts_free(&ds);
    bench_doc_model d;
    CHECK(bench_doc_model_of(doc, &d) == 0 && !d.capacity.present && !d.datasheet.present);
    bench_doc_model_free(&d);
    json_decref(doc);
    /* an object whose members are of the wrong kind: present, nothing said */
    doc = json_pack("{s:{s:s,s:s,s:{}}}", "datasheet", "plan", "all", "took_s", "long", "capacity");
    CHECK(bench_ds_facts_of(doc, &ds) == 0 && ds.present);
    CHECK(ds.nplan_steps == 0 && ds.ndata_sizes == 0 && ds.objective == NULL && ds.step_time_s == 0 &&
          ds.has_took && ds.took_s == 0 && ds.ncapacity == 0);
    CHECK(bench_ds_capacity_of(&ds, "sha256-digest", "-", 0) == NULL);
    bench_ds_facts_free(&ds);
    json_decref(doc);
    /* a capacity element that is no object: test and key "", no search */
    doc = json_pack("{s:{s:[s]}}", "datasheet", "capacity", "sha256-digest");
    CHECK(bench_ds_facts_of(doc, &ds) == 0 && ds.ncapacity == 1 && strcmp(ds.capacity[0].test, "") == 0 &&
          !ds.capacity[0].search.present);
    bench_ds_facts_free(&ds);
    json_decref(doc);
}

int main(void)
{
    RUN(test_answer_fields);
    RUN(test_answer_absent_or_malformed);
    RUN(test_same_objectives);
    RUN(test_datasheet_fields);
    RUN(test_datasheet_absent_or_malformed);
    return check_finish();
}

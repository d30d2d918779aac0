/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_breakdown.c - a run's breakdown by class (workload.h's
 * bench_breakdown) recorded by every engine and reported.
 *
 * A synthetic workload names each operation's class from its own call
 * count, so the test knows exactly how many operations and errors each
 * class must get: per class counts are exact, add up to the run's, leave
 * warm-up out, and come out the same in the JSON, its validation and the
 * CSV.  Built under TSan too.
 * tsan: yes (every engine's workers record the per-class counts the run adds up)
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/util/clock.h"
#include "bench/core/pool.h"
#include "bench/results/model.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "bench/results/report_csv.h"
#include "bench/util/signals.h"
#include "tests/unit/check.h"

#define NCLS 3

typedef struct cstate {
    uint64_t calls;
    unsigned error_every;     /* the k-th calls fail with 0x30 (0: never) */
    int      busy;            /* asynchronous: an operation in flight */
    uint64_t due;
} cstate;

/* The class of the operation that just ended: its call number mod 3. */
static unsigned class_of(const void *state)
{
    return (unsigned)((((const cstate *)state)->calls - 1) % NCLS);
}

static int c_open(void *ctx, unsigned index, void **state, char *err, size_t len)
{
    (void)index;
    (void)err;
    (void)len;
    cstate *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->error_every = *(const unsigned *)ctx;
    *state = s;
    return 0;
}

static bench_code c_result(cstate *s)
{
    return s->error_every && s->calls % s->error_every == 0 ? 0x30 : BENCH_OK;
}

static bench_code c_do(void *state)
{
    cstate *s = state;
    s->calls++;
    return c_result(s);
}

static void c_close(void *state)
{
    free(state);
}

static void c_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "E%llu", (unsigned long long)code);
}

/* Asynchronous slots: each operation completes 1 ms after it started. */
static int a_open(void *actx, void *engine, unsigned index, void **slot, char *err, size_t len)
{
    (void)engine;
    return c_open(actx, index, slot, err, len);
}

static int a_submit(void *slot, bench_code *done)
{
    (void)done;
    cstate *s = slot;
    s->calls++;
    s->busy = 1;
    s->due = bench_now_ns() + 1000000;
    return 1;
}

static int a_poll(void *slot, bench_code *done)
{
    cstate *s = slot;
    if (bench_now_ns() < s->due)
        return 1;
    s->busy = 0;
    *done = c_result(s);
    return 0;
}

static const char *const labels[NCLS] = { "alpha", "beta", "gamma" };
static const double weights[NCLS] = { 0.5, 0.3, 0.2 };
static const bench_breakdown by_type = { "type", NCLS, labels, weights, class_of, NULL };

static bench_workload workload(unsigned *error_every)
{
    bench_workload w = { .ctx = error_every, .open = c_open, .do_one = c_do, .close = c_close,
                         .code_name = c_name };
    w.breakdown[0] = &by_type;
    return w;
}

static bench_flag no_interrupt;

/* Per class sums against the run's, and every class's histogram holding
 * exactly its successes. */
static void check_adds_up(const bench_outcome *o)
{
    uint64_t ops = 0, errors = 0, hist = 0;
    CHECK(o->by[0] && o->nby[0] == NCLS && !o->by[1]);
    for (unsigned c = 0; o->by[0] && c < NCLS; c++) {
        const bench_class_outcome *x = &o->by[0][c];
        ops += x->ops;
        errors += x->errors;
        hist += bench_hist_count(x->hist);
        CHECK_MSG(bench_hist_count(x->hist) == x->ops - x->errors, "class %u: %llu in hist, %llu ok", c,
                  (unsigned long long)bench_hist_count(x->hist),
                  (unsigned long long)(x->ops - x->errors));
        uint64_t coded = 0;
        for (size_t j = 0; j < x->nerrs; j++)
            coded += x->errs[j].count;
        CHECK(coded == x->errors);
    }
    CHECK_MSG(ops == o->ops && errors == o->errors && hist == bench_hist_count(o->hist),
              "classes %llu/%llu/%llu, run %llu/%llu/%llu", (unsigned long long)ops,
              (unsigned long long)errors, (unsigned long long)hist, (unsigned long long)o->ops,
              (unsigned long long)o->errors, (unsigned long long)bench_hist_count(o->hist));
}

/* Blocking, one thread, 30 warm-up operations then 300 measured: calls
 * 31..330, each class's operations and errors known exactly. */
static void test_blocking_exact(void)
{
    unsigned every = 5;
    bench_workload w = workload(&every);
    bench_load load = { .threads = 1, .iterations = 300, .warmup_ops = 30 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == 0);
    CHECK(o.ops == 300);
    uint64_t want_ops[NCLS] = { 0 }, want_err[NCLS] = { 0 };
    for (uint64_t call = 31; call <= 330; call++) {
        want_ops[(call - 1) % NCLS]++;
        want_err[(call - 1) % NCLS] += call % every == 0;
    }
    for (unsigned c = 0; o.by[0] && c < NCLS; c++) {
        CHECK_MSG(o.by[0][c].ops == want_ops[c] && o.by[0][c].errors == want_err[c],
                  "class %u: %llu ops %llu errors, want %llu %llu", c,
                  (unsigned long long)o.by[0][c].ops, (unsigned long long)o.by[0][c].errors,
                  (unsigned long long)want_ops[c], (unsigned long long)want_err[c]);
        CHECK(o.by[0][c].nerrs == 1 && o.by[0][c].errs[0].code == 0x30);
    }
    check_adds_up(&o);
    bench_outcome_free(&o);
    CHECK(o.by[0] == NULL);
}

/* Several threads, bounded by time: still exact sums. */
static void test_blocking_threads(void)
{
    unsigned every = 7;
    bench_workload w = workload(&every);
    bench_load load = { .threads = 3, .duration_ns = BENCH_NS_PER_S / 5,
                        .warmup_ns = BENCH_NS_PER_S / 20, .think_ns = 20000 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == 0);
    CHECK(o.ops > 100);
    check_adds_up(&o);
    bench_outcome_free(&o);
}

/* Non-blocking, the worker pool: a rate, latency from the scheduled time. */
static void test_open_loop(void)
{
    unsigned every = 4;
    bench_workload w = workload(&every);
    bench_load load = { .threads = 2, .duration_ns = BENCH_NS_PER_S / 2,
                        .warmup_ns = BENCH_NS_PER_S / 10, .mode = BENCH_MODE_NONBLOCKING,
                        .rate = 600 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == 0);
    CHECK_MSG(o.ops >= 250 && o.ops <= 330, "ops %llu", (unsigned long long)o.ops);
    check_adds_up(&o);
    bench_outcome_free(&o);
}

/* Non-blocking on asynchronous slots: no slot names its class, so a
 * breakdown is refused before the run; without one the slots run. */
static void test_async_slots(void)
{
    static const bench_async_ops ops = { .open = a_open, .submit = a_submit, .poll = a_poll, .close = c_close };
    unsigned every = 3;
    bench_workload w = workload(&every);
    w.async = (bench_async){ &ops, &every, 4, 0 };
    bench_load load = { .threads = 2, .duration_ns = BENCH_NS_PER_S / 2,
                        .mode = BENCH_MODE_NONBLOCKING, .inflight = 4 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == -1);
    CHECK(o.status == BENCH_RUN_FAILED);
    bench_outcome_free(&o);
    w.breakdown[0] = NULL;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == 0);
    CHECK_MSG(o.ops > 200, "ops %llu", (unsigned long long)o.ops);
    CHECK(o.errors > 0);
    bench_outcome_free(&o);
}

/* A breakdown without its class_of is refused before the run. */
static void test_bad_breakdown(void)
{
    unsigned every = 0;
    bench_workload w = workload(&every);
    const bench_breakdown bad = { "type", NCLS, labels, NULL, NULL, NULL };
    w.breakdown[0] = &bad;
    bench_load load = { .threads = 1, .iterations = 10 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == -1);
    CHECK(o.status == BENCH_RUN_FAILED);
    bench_outcome_free(&o);
}

/* The run's JSON: "breakdown" per class, valid, adding up; the CSV rows;
 * the summary's table. */
static void test_reported(void)
{
    unsigned every = 5;
    bench_workload w = workload(&every);
    bench_load load = { .threads = 1, .iterations = 300 };
    bench_outcome o;
    CHECK(bench_pool_run(&w, &load, &no_interrupt, NULL, NULL, &o) == 0);
    bench_run_desc d = { .test = "mix", .mode = "blocking", .threads = 1, .iterations = 300 };
    json_t *run = bench_report_run_json(&d, &o, &w, "ok", NULL);
    CHECK(run != NULL);
    const json_t *classes = json_object_get(json_object_get(run, "breakdown"), "type");
    CHECK(json_array_size(classes) == NCLS);
    long long ops = 0;
    for (size_t c = 0; c < json_array_size(classes); c++) {
        const json_t *cl = json_array_get(classes, c);
        CHECK(strcmp(bench_json_str(cl, "class", ""), labels[c]) == 0);
        CHECK(bench_json_num(cl, "weight", -1) == weights[c]);
        CHECK(bench_json_int(cl, "ops", -1) == (long long)(o.by[0][c].ops - o.by[0][c].errors));
        CHECK(bench_json_int(cl, "attempts", -1) == (long long)o.by[0][c].ops);
        CHECK(bench_json_int(json_object_get(cl, "errors_by_code"), "E48", -1) ==
              (long long)o.by[0][c].errors);
        CHECK(bench_json_int(json_object_get(cl, "histogram"), "total", -1) ==
              (long long)(o.by[0][c].ops - o.by[0][c].errors));
        ops += bench_json_int(cl, "attempts", 0);
    }
    CHECK(ops == 300);

    json_t *doc = json_pack("{s:s,s:[O]}", "schema", BENCH_RESULT_SCHEMA, "runs", run);
    char err[256] = "";
    CHECK_MSG(doc && bench_results_check(doc, err, sizeof err) == 0, "check: %s", err);
    /* A class that does not add up is refused by name. */
    json_t *bad = json_deep_copy(doc);
    json_t *first = json_array_get(json_object_get(json_object_get(json_array_get(
                                       json_object_get(bad, "runs"), 0), "breakdown"), "type"), 0);
    json_object_set_new(first, "ops", json_integer(1));
    CHECK(bench_results_check(bad, err, sizeof err) != 0 && strstr(err, "breakdown.type"));
    json_decref(bad);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bench_doc_model dm;
    CHECK(bench_doc_model_of(doc, &dm) == 0);
    CHECK(f && bench_csv_write(f, &dm) == 0);
    bench_doc_model_free(&dm);
    fclose(f);
    CHECK(buf && strstr(buf, ",class\r\n") && strstr(buf, ",type=alpha\r\n") &&
          strstr(buf, ",type=gamma\r\n"));
    free(buf);

    f = open_memstream(&buf, &len);
    bench_run_model m;
    CHECK(bench_model_from_run(json_array_get(json_object_get(doc, "runs"), 0), doc, &m) == 0);
    bench_report_summary(f, &d, &m);
    bench_model_free(&m);
    fclose(f);
    CHECK_MSG(buf && strstr(buf, "by type") && strstr(buf, "alpha") && strstr(buf, "50.00%") &&
                  strstr(buf, "E48"), "summary: %s", buf ? buf : "");
    free(buf);
    json_decref(doc);
    json_decref(run);
    bench_outcome_free(&o);
}

int main(void)
{
    RUN(test_blocking_exact);
    RUN(test_blocking_threads);
    RUN(test_open_loop);
    RUN(test_async_slots);
    RUN(test_bad_breakdown);
    RUN(test_reported);
    return check_finish();
}

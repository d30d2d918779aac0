/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_capsearch.c - the capacity search as a pure state machine,
 * a step's verdict from a run's JSON, the flags and the answer's text.
 *
 * The search is driven against simulated targets: a knee (every rate up to
 * K passes), nothing passing, everything passing; it must converge within
 * the precision, bracket the knee, keep to its step cap and end the way
 * its result says.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/driver/capacity.h"
#include "tests/unit/check.h"

/* Run the search against "passes when rate <= knee"; returns the steps. */
static unsigned drive(bench_capsearch *c, double knee, double *rates, unsigned cap)
{
    unsigned n = 0;
    double r;
    while ((r = bench_capsearch_next(c)) > 0) {
        if (n < cap)
            rates[n] = r;
        n++;
        bench_capsearch_record(c, r, r <= knee);
        if (n > 1000)
            break;          /* a runaway search: the test fails below */
    }
    return n;
}

static void test_converges_within_precision(void)
{
    const double knees[] = { 2000, 3720, 70, 999999, 150, 1000 };
    for (size_t i = 0; i < sizeof knees / sizeof knees[0]; i++) {
        bench_capsearch c;
        double rates[64];
        bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 40);
        unsigned n = drive(&c, knees[i], rates, 64);
        CHECK_MSG(c.end == BENCH_CAP_FOUND, "knee %g: end %d after %u steps", knees[i], c.end, n);
        CHECK_MSG(c.lo <= knees[i] && c.hi > knees[i], "knee %g: [%g, %g]", knees[i], c.lo, c.hi);
        CHECK_MSG((c.hi - c.lo) / c.lo <= 0.02, "knee %g: [%g, %g]", knees[i], c.lo, c.hi);
        CHECK_MSG(knees[i] - c.lo <= 0.02 * c.lo, "knee %g: answer %g", knees[i], c.lo);
        CHECK(n == c.steps);
    }
}

static void test_sequence_grows_then_bisects(void)
{
    bench_capsearch c;
    double rates[32];
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 20);
    unsigned n = drive(&c, 2000, rates, 32);
    /* 1000 pass, 2000 pass, 4000 fail, then midpoints down towards 2000. */
    CHECK(n >= 4);
    CHECK(rates[0] == 1000 && rates[1] == 2000 && rates[2] == 4000 && rates[3] == 3000);
    /* 4000 is far above 2000: its one failure is taken; the rest bisect, and
     * the bracket's two rates are repeated at the end. */
    for (unsigned i = 3; i < n && i < 32; i++)
        CHECK_MSG(rates[i] >= 2000 && rates[i] < 4000, "step %u at %g", i, rates[i]);
    CHECK(n >= 6 && rates[n - 1] == 2000 && rates[n - 2] == c.hi && rates[n - 3] == c.hi);
    CHECK(c.lo == 2000);
    CHECK(c.end == BENCH_CAP_FOUND);
}

static void test_precision_sets_the_steps(void)
{
    bench_capsearch a, b;
    double rates[64];
    bench_capsearch_init(&a, 1000, 0.10, BENCH_CAP_MAX_RATE, 60);
    bench_capsearch_init(&b, 1000, 0.005, BENCH_CAP_MAX_RATE, 60);
    unsigned na = drive(&a, 2500, rates, 64), nb = drive(&b, 2500, rates, 64);
    CHECK_MSG(na < nb, "10%%: %u steps, 0.5%%: %u", na, nb);
    CHECK((a.hi - a.lo) / a.lo <= 0.10);
    CHECK((b.hi - b.lo) / b.lo <= 0.005);
    CHECK(a.end == BENCH_CAP_FOUND && b.end == BENCH_CAP_FOUND);
}

static void test_step_cap(void)
{
    bench_capsearch c;
    double rates[16];
    bench_capsearch_init(&c, 1000, 0.001, BENCH_CAP_MAX_RATE, 5);
    unsigned n = drive(&c, 2500, rates, 16);
    CHECK_MSG(n == 5, "%u steps", n);      /* 1000 2000 4000 3000 2500 */
    CHECK(c.end == BENCH_CAP_STEPS);
    CHECK(c.lo > 0 && c.lo <= 2500 && c.hi > 2500);
    CHECK(bench_capsearch_next(&c) == 0);    /* over stays over */
}

static void test_nothing_passes(void)
{
    bench_capsearch c;
    double rates[16];
    bench_capsearch_init(&c, 800, 0.02, BENCH_CAP_MAX_RATE, 20);
    unsigned n = drive(&c, 0, rates, 16);
    CHECK(c.end == BENCH_CAP_NONE);
    CHECK(c.lo == 0);
    /* The start, then halved at most BENCH_CAP_MAX_HALVINGS times; with no
     * pass yet, every failure is confirmed by a re-run. */
    CHECK_MSG(n == 2 * (1 + BENCH_CAP_MAX_HALVINGS), "%u steps", n);
    CHECK(rates[1] == 800 && rates[2] == 400 && rates[3] == 400 && rates[4] == 200);
    CHECK(c.lowest == 800.0 / (1 << BENCH_CAP_MAX_HALVINGS));
}

static void test_halving_finds_a_low_knee(void)
{
    bench_capsearch c;
    double rates[32];
    bench_capsearch_init(&c, 800, 0.02, BENCH_CAP_MAX_RATE, 30);
    drive(&c, 120, rates, 32);     /* 800, 400, 200 fail; 100 passes */
    CHECK(c.end == BENCH_CAP_FOUND);
    CHECK(c.lo <= 120 && c.hi > 120 && (c.hi - c.lo) / c.lo <= 0.02);
}

static void test_everything_passes_up_to_the_ceiling(void)
{
    bench_capsearch c;
    double rates[32];
    bench_capsearch_init(&c, 1000, 0.02, 50000, 20);
    unsigned n = drive(&c, 1e12, rates, 32);
    CHECK(c.end == BENCH_CAP_CEILING);
    CHECK(c.lo == 50000 && c.hi == 0);
    CHECK(rates[n - 1] == 50000);   /* the ceiling itself was tried, not passed over */
    CHECK_MSG(n == 7, "%u steps", n);  /* 1k 2k 4k 8k 16k 32k 50k */

    /* With too few steps for the ceiling, the cap ends it with no upper bound. */
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 4);
    n = drive(&c, 1e12, rates, 32);
    CHECK(n == 4 && c.end == BENCH_CAP_STEPS && c.hi == 0 && c.lo == 8000);
}

static void test_start_is_clamped(void)
{
    bench_capsearch c;
    bench_capsearch_init(&c, 1e9, 0.02, 1000, 20);
    CHECK(bench_capsearch_next(&c) == 1000);
    bench_capsearch_init(&c, 0, 0, 0, 0);
    CHECK(bench_capsearch_next(&c) == 1);
    CHECK(c.max_steps == BENCH_CAP_DEFAULT_STEPS && c.precision == BENCH_CAP_DEFAULT_PRECISION);
}

/* ---- noise: confirmation, repeats, the measured uncertainty ---- */

/* xorshift64*: the test's own transients. */
static double uniform(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return (double)((*x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

/* The knee, and a transient that fails any step with probability q (a stall
 * in it); fail_step: one step (1-based) that fails whatever its rate. */
typedef struct { double knee, q; unsigned fail_step; uint64_t rng; } target;

static int judge(target *t, double rate, unsigned step)
{
    if (step == t->fail_step)
        return 0;
    if (t->q > 0 && uniform(&t->rng) < t->q)
        return 0;
    return rate <= t->knee;
}

static unsigned drive_noisy(bench_capsearch *c, target *t, double *rates, unsigned cap)
{
    unsigned n = 0;
    double r;
    while ((r = bench_capsearch_next(c)) > 0 && n < 1000) {
        if (n < cap)
            rates[n] = r;
        n++;
        bench_capsearch_record(c, r, judge(t, r, n));
    }
    return n;
}

static void test_one_transient_is_overruled(void)
{
    /* The case: step 1 fails (one 60 ms service time), and the
     * search used to halve for good and answer half the capacity. */
    for (unsigned k = 1; k <= 8; k++) {
        bench_capsearch c;
        bench_cap_spread sp;
        double rates[64];
        target t = { 4000, 0, k, 1 };
        bench_capsearch_init(&c, 2000, 0.02, BENCH_CAP_MAX_RATE, 40);
        unsigned n = drive_noisy(&c, &t, rates, 64);
        bench_capsearch_spread(&c, &sp);
        CHECK_MSG(c.end == BENCH_CAP_FOUND && c.lo <= 4000 && c.hi > 4000 &&
                  (c.hi - c.lo) / c.lo <= 0.02, "failing step %u: end %d, [%g, %g] in %u steps",
                  k, c.end, c.lo, c.hi, n);
        CHECK_MSG(sp.settled && sp.low <= 4000 && sp.high > 4000, "failing step %u: [%g, %g]", k,
                  sp.low, sp.high);
        /* A failing run below the knee: re-run at once (or, far above the
         * highest pass, taken and then corrected by the boundary repeats). */
        if (rates[k - 1] <= 4000)
            CHECK_MSG(sp.overruled == 1 || sp.disputed == 1, "failing step %u at %g: overruled %u",
                      k, rates[k - 1], sp.overruled);
    }
    /* Step 1 failing: confirmed by step 2 at the same rate. */
    bench_capsearch c;
    double rates[64];
    target t = { 4000, 0, 1, 1 };
    bench_capsearch_init(&c, 2000, 0.02, BENCH_CAP_MAX_RATE, 40);
    drive_noisy(&c, &t, rates, 64);
    CHECK(rates[0] == 2000 && rates[1] == 2000 && rates[2] == 4000);
}

static void test_transients_stay_within_the_uncertainty(void)
{
    /* 1000 searches, each step failing with probability 0.18 (a 1-in-10 000
     * stall in a step of 2000 requests): the knee stays inside [L, H]. */
    unsigned inside = 0, settled = 0, total_steps = 0, worst = 0;
    const unsigned N = 1000;
    for (unsigned i = 0; i < N; i++) {
        bench_capsearch c;
        bench_cap_spread sp;
        double rates[64];
        target t = { 3950, 0.18, 0, 0x9E3779B97F4A7C15ULL ^ (i + 1) * 0xBF58476D1CE4E5B9ULL };
        bench_capsearch_init(&c, 2000, 0.02, BENCH_CAP_MAX_RATE, BENCH_CAP_DEFAULT_STEPS - 1);
        unsigned n = drive_noisy(&c, &t, rates, 64);
        bench_capsearch_spread(&c, &sp);
        total_steps += n;
        worst = n > worst ? n : worst;
        settled += sp.settled;
        inside += sp.low > 0 && sp.low <= t.knee && (sp.high == 0 || sp.high > t.knee);
    }
    printf("  %u of %u searches hold the knee within [L, H], %u settled; %.1f steps on average, "
           "%u at most\n", inside, N, settled, (double)total_steps / N, worst);
    /* (Every step below the knee at 18 %: harsher than the mock, whose stalls
     * break a step near the capacity only.) */
    CHECK_MSG(inside >= N * 975 / 1000, "%u of %u", inside, N);
    CHECK_MSG(worst < BENCH_CAP_DEFAULT_STEPS, "a search took %u steps", worst);
}

static void test_disputed_boundary_widens_the_uncertainty(void)
{
    /* The bracket's upper rate fails twice, then passes one repeat of two: it
     * stays a failure (one pass in four), but the uncertainty reaches past it. */
    bench_capsearch c;
    bench_cap_spread sp;
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 40);
    double r;
    unsigned n = 0, edges = 0;
    while ((r = bench_capsearch_next(&c)) > 0 && n++ < 100) {
        int pass = r <= 2000;
        if (c.role == BENCH_CAP_ROLE_REPEAT && r > 2000 && !edges++)
            pass = 1;              /* hi's first boundary repeat passes */
        bench_capsearch_record(&c, r, pass);
    }
    bench_capsearch_spread(&c, &sp);
    CHECK_MSG(c.end == BENCH_CAP_FOUND && c.lo == 2000, "end %d lo %g", c.end, c.lo);
    CHECK_MSG(sp.disputed == 1 && sp.high > c.hi && sp.settled && sp.low == 2000,
              "edges %u disputed %u [%g, %g] hi %g", edges, sp.disputed, sp.low, sp.high, c.hi);
    /* H: the next clean failure above, or an edge step 4 % past hi. */
    CHECK_MSG((sp.high - c.hi) / c.hi <= 0.041, "[%g, %g] hi %g", sp.low, sp.high, c.hi);

    /* The answer's rate fails its repeat: -x % reaches down to a clean pass. */
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 40);
    n = 0;
    while ((r = bench_capsearch_next(&c)) > 0 && n++ < 100)
        bench_capsearch_record(&c, r, r <= 2000 && !(c.role == BENCH_CAP_ROLE_REPEAT && r == 2000));
    bench_capsearch_spread(&c, &sp);
    CHECK_MSG(c.end == BENCH_CAP_FOUND && c.lo == 2000 && sp.low < 2000 && sp.low >= 2000 / 1.05 &&
              sp.settled, "lo %g [%g, %g]", c.lo, sp.low, sp.high);
}

static void test_disagreement_is_unsettled(void)
{
    bench_capsearch c;
    bench_cap_spread sp;
    /* A verdict beyond [L, H]: a rate below L that failed (a drifting
     * target, recorded by hand). */
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 40);
    bench_capsearch_record(&c, 500, 0);
    bench_capsearch_record(&c, 500, 0);
    bench_capsearch_record(&c, 2000, 1);
    bench_capsearch_record(&c, 2030, 0);
    bench_capsearch_record(&c, 2030, 0);
    bench_capsearch_spread(&c, &sp);
    CHECK_MSG(!sp.settled && sp.against == 500 && !sp.against_pass && sp.low == 2000,
              "settled %d against %g", sp.settled, sp.against);

    /* The answer's rate and every rate below it tried disagree: no L. */
    bench_capsearch_init(&c, 1000, 0.02, BENCH_CAP_MAX_RATE, 40);
    bench_capsearch_record(&c, 2000, 0);
    bench_capsearch_record(&c, 2000, 1);
    bench_capsearch_record(&c, 2030, 0);
    bench_capsearch_record(&c, 2030, 0);
    bench_capsearch_spread(&c, &sp);
    CHECK_MSG(!sp.settled && sp.low == 0 && sp.high == 2030 && c.lo == 2000, "settled %d [%g, %g]",
              sp.settled, sp.low, sp.high);
}

/* ---- a step's verdict ---- */

static json_t *step_run(double rate, double achieved, double p99_us, double err_pct,
                        double service_p50, long long dropped, long long late)
{
    const long long scheduled = (long long)rate;
    /* the errors err_pct says of the attempts (ops are the successes) */
    const long long errors = llround(achieved * err_pct / (100 - err_pct));
    return json_pack("{s:s,s:i,s:f,s:f,s:I,s:I,s:{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I},"
                     "s:{s:f,s:f},s:{s:I,s:I,s:I},s:{s:f}}",
                     "status", "ok", "threads", 8, "ops_per_s", achieved, "error_pct", err_pct,
                     "ops", (json_int_t)(achieved * 1), "errors", (json_int_t)errors, "latency_us",
                     "min", 100.0, "mean", p99_us / 2, "stddev", 1.0, "p50", p99_us / 2, "p90",
                     p99_us * 0.9, "p95", p99_us * 0.95, "p99", p99_us, "p999", p99_us, "max", p99_us,
                     "count", (json_int_t)achieved, "service_us", "p50", service_p50, "mean",
                     service_p50, "schedule", "scheduled", (json_int_t)scheduled, "late",
                     (json_int_t)late, "dropped", (json_int_t)dropped, "settings", "rate", rate);
}

static void parse(const char *e, bench_threshold *t)
{
    char err[200];
    CHECK_MSG(bench_threshold_parse(e, NULL, t, err, sizeof err) == 0, "%s: %s", e, err);
}

static void test_judge(void)
{
    bench_threshold obj[2];
    bench_cap_step st;
    parse("p99<20ms", &obj[0]);
    parse("errors<1%", &obj[1]);

    json_t *ok = step_run(1000, 999, 9000, 0, 2000, 0, 0);
    bench_cap_judge(obj, 2, ok, 1000, 0, 0, &st);
    CHECK_MSG(st.pass && !st.why[0] && !st.limit, "%s", st.why);
    CHECK(st.achieved == 999 && st.p99_us == 9000);
    /* 999/s x 2 ms over 8 threads: a quarter busy */
    CHECK(fabs(st.utilisation - 0.24975) < 1e-6);
    json_decref(ok);

    /* p99 broken, the target's service time doubled: the target. */
    json_t *slow = step_run(4000, 3990, 48000, 0, 4000, 0, 0);
    bench_cap_judge(obj, 2, slow, 4000, 2000, 0, &st);
    CHECK(!st.pass && strstr(st.why, "'p99<20ms' p(99)=48") && st.limit &&
          strcmp(st.limit, "target") == 0);
    json_decref(slow);

    /* Busy threads, service time flat, achieved short: the threads. */
    json_t *thr = step_run(4000, 3000, 15000, 0, 2100, 0, 0);
    json_object_set_new(json_object_get(thr, "service_us"), "mean", json_real(2666));
    bench_cap_judge(obj, 2, thr, 4000, 2000, 0, &st);
    CHECK_MSG(!st.pass && strstr(st.why, "achieved 75 % of the offered rate"), "%s", st.why);
    CHECK(st.limit && strcmp(st.limit, "threads") == 0);
    json_decref(thr);

    /* Idle threads, requests late and dropped: the generator. */
    json_t *gen = step_run(100000, 50000, 5000, 0, 10, 50000, 60000);
    bench_cap_judge(obj, 2, gen, 100000, 10, 0, &st);
    CHECK(!st.pass && strstr(st.why, "never started") && st.limit &&
          strcmp(st.limit, "generator") == 0);
    json_decref(gen);

    /* The client saturated the machine (client_cpu 1.9 of 2 CPUs): the
     * generator, whatever the service time did; unknown CPUs judge as before. */
    json_t *cpu = step_run(4000, 3990, 48000, 0, 4000, 0, 0);
    json_object_set_new(cpu, "client_cpu", json_real(1.9));
    bench_cap_judge(obj, 2, cpu, 4000, 2000, 2, &st);
    CHECK_MSG(!st.pass && st.limit && strcmp(st.limit, "generator") == 0 &&
              strstr(st.why, "hsmbench kept 1.9 of 2 CPUs busy"), "%s [%s]", st.why, st.limit ? st.limit : "?");
    CHECK(fabs(st.client_cpu - 1.9) < 1e-9);
    bench_cap_judge(obj, 2, cpu, 4000, 2000, 0, &st);
    CHECK(st.limit && strcmp(st.limit, "target") == 0 && !strstr(st.why, "CPUs busy"));
    bench_cap_judge(obj, 2, cpu, 4000, 2000, 4, &st);   /* 1.9 of 4: not saturated */
    CHECK(st.limit && strcmp(st.limit, "target") == 0);
    json_decref(cpu);

    /* A few requests the stop caught, no more than the threads hold: no failure. */
    json_t *few = step_run(100, 100, 5000, 0, 2000, 2, 0);
    bench_cap_judge(obj, 2, few, 100, 2000, 0, &st);
    CHECK_MSG(st.pass, "%s", st.why);
    json_decref(few);

    /* Errors over the objective. */
    json_t *err = step_run(1000, 980, 5000, 2.0, 2000, 0, 0);
    bench_cap_judge(obj, 2, err, 1000, 0, 0, &st);
    CHECK_MSG(!st.pass && strstr(st.why, "'errors<1%'"), "%s", st.why);
    json_decref(err);

    /* An interrupted step is no verdict. */
    json_t *intr = step_run(1000, 999, 9000, 0, 2000, 0, 0);
    json_object_set_new(intr, "status", json_string("interrupted"));
    bench_cap_judge(obj, 2, intr, 1000, 0, 0, &st);
    CHECK(st.interrupted && !st.pass);
    json_decref(intr);
}

/* ---- the flags ---- */

static void test_flags(void)
{
    bench_cap_opts o;
    bench_load_opts lo;
    bench_cap_opts_init(&o, NULL);
    bench_load_opts_init(&lo);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "p99<20ms") == 1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "errors<0.1%") == 1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_PRECISION, "5%") == 1 && fabs(o.precision - 0.05) < 1e-12);
    CHECK(bench_cap_opt(&o, BENCH_OPT_STEP, "1s") == 1 && o.step_ns == 1000000000ULL);
    CHECK(bench_cap_opt(&o, BENCH_OPT_THREADS, "4") == 0);   /* not ours */
    CHECK(o.nobjectives == 2);
    fprintf(stderr, "(the next six errors are expected)\n");
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "rate>100") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "p99>1ms") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "sha256-digest:p99<1ms") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "p99<5xs") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_PRECISION, "0") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_PRECISION, "60%") == -1);
    CHECK(o.nobjectives == 2);
    /* Issue 38, item 11: ':abort' means nothing to a search; with no
     * sections (PKCS#11), a REST metric is no objective. */
    fprintf(stderr, "(the next two errors are expected)\n");
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "p99<20ms:abort") == -1);
    CHECK(bench_cap_opt(&o, BENCH_OPT_FIND_CAPACITY, "http_req_failed<1%") == -1);
    CHECK(o.nobjectives == 2);

    lo.load.rate = 500;
    CHECK(bench_cap_finish(&o, &lo) == 0);
    CHECK(o.start_rate == 500 && lo.load.mode == BENCH_MODE_NONBLOCKING);
    CHECK(lo.load.duration_ns == 1000000000ULL && lo.has_duration);
    CHECK(bench_load_finish(&lo, 10000000000ULL) == 0);

    /* The contradictions. */
    bench_load_opts_init(&lo);
    lo.stages_text = "5s:10";
    fprintf(stderr, "(the next two errors are expected)\n");
    CHECK(bench_cap_finish(&o, &lo) == -1);
    bench_load_opts_init(&lo);
    CHECK(bench_load_opt(&lo, BENCH_OPT_MODE, "blocking") == 1);
    CHECK(bench_cap_finish(&o, &lo) == -1);

    /* --step alone. */
    bench_cap_opts_init(&o, NULL);
    bench_load_opts_init(&lo);
    CHECK(bench_cap_opt(&o, BENCH_OPT_STEP, "2s") == 1);
    fprintf(stderr, "(the next error is expected)\n");
    CHECK(bench_cap_finish(&o, &lo) == -1);
}

/* The texts of a "capacity" object, read as every view reads it
 * (bench_cap_answer_of; its fields: tests/unit/test_capanswer.c). */
static const char *answer_text(const json_t *cap, char *buf, size_t len)
{
    bench_cap_answer a;
    buf[0] = 0;
    if (bench_cap_answer_of(cap, &a) == 0)
        bench_cap_answer_text(&a, buf, len);
    bench_cap_answer_free(&a);
    return buf;
}

static const char *objectives_text(json_t *objs, char *buf, size_t len)
{
    json_t *cap = json_pack("{s:O}", "objectives", objs);
    bench_cap_answer a;
    buf[0] = 0;
    if (cap && bench_cap_answer_of(cap, &a) == 0)
        bench_cap_objectives_text(&a, buf, len);
    bench_cap_answer_free(&a);
    json_decref(cap);
    return buf;
}

static void test_texts(void)
{
    char buf[600];
    json_t *objs = json_pack("[s,s]", "p99<20ms", "errors<0.1%");
    CHECK_MSG(strcmp(objectives_text(objs, buf, sizeof buf),
                     "p99 < 20 ms, errors < 0.1 %") == 0, "%s", buf);
    json_t *big = json_pack("[s,s]", "p99<1e308ms", "avg<2.5E-3s");    /* issue 38, item 11 */
    CHECK_MSG(strcmp(objectives_text(big, buf, sizeof buf),
                     "p99 < 1e308 ms, avg < 2.5E-3 s") == 0, "%s", buf);
    json_decref(big);
    json_t *cap = json_pack("{s:O,s:f,s:i,s:s,s:f,s:[f,f],s:[]}", "objectives", objs, "precision",
                            0.02, "threads", 8, "result", "found", "ops_per_s", 3720.0, "bounds",
                            3720.0, 3790.0, "steps");
    CHECK_MSG(strcmp(answer_text(cap, buf, sizeof buf),
                     "capacity 3 720 ops/s at p99 < 20 ms, errors < 0.1 %, 8 threads, \xc2\xb1" "2 %")
                  == 0, "%s", buf);
    json_object_set_new(cap, "result", json_string("none"));
    json_object_set_new(cap, "ops_per_s", json_null());
    json_array_append_new(json_object_get(cap, "steps"),
                          json_pack("{s:f,s:s}", "rate", 62.5, "why", "'p99<20ms' p(99)=48ms"));
    json_array_append_new(json_object_get(cap, "steps"),
                          json_pack("{s:f,s:s}", "rate", 125.0, "why", "other"));
    CHECK_MSG(strcmp(answer_text(cap, buf, sizeof buf),
                     "no rate met the objectives: even 62.5/s failed p99 < 20 ms, errors < 0.1 % "
                     "('p99<20ms' p(99)=48ms)") == 0, "%s", buf);
    json_decref(cap);
    json_decref(objs);
}

int main(void)
{
    RUN(test_converges_within_precision);
    RUN(test_sequence_grows_then_bisects);
    RUN(test_precision_sets_the_steps);
    RUN(test_step_cap);
    RUN(test_nothing_passes);
    RUN(test_halving_finds_a_low_knee);
    RUN(test_everything_passes_up_to_the_ceiling);
    RUN(test_start_is_clamped);
    RUN(test_one_transient_is_overruled);
    RUN(test_transients_stay_within_the_uncertainty);
    RUN(test_disputed_boundary_widens_the_uncertainty);
    RUN(test_disagreement_is_unsettled);
    RUN(test_judge);
    RUN(test_flags);
    RUN(test_texts);
    return check_finish();
}

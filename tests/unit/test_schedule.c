/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_schedule.c - the non-blocking schedule as a pure function.
 *
 * bench_schedule_next_due() decides every due time of a --rate or --stages
 * run.  No threads and no clock here: constant spacing, truncation to the
 * nanosecond, ramps up and down integrated (arrivals follow the area under
 * the rate), a stage of rate 0 leaves a gap, and `end` bounds the search;
 * recorded arrivals (hsmbench replay) by index, ties kept, looped by a
 * period, counted by time.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/util/clock.h"
#include "bench/core/schedule.h"
#include "tests/unit/check.h"

#define MS 1000000ULL
#define S  BENCH_NS_PER_S

/* Every due time from `start` up to `end`, as the dispatcher walks them
 * (its first one for a ramp is next_due(start); then each from the last).
 * Returns how many; at most cap are stored. */
static size_t walk(double rate, const bench_stages *st, uint64_t start, uint64_t end,
                   uint64_t *due, size_t cap)
{
    size_t n = 0;
    uint64_t t = bench_schedule_next_due(rate, st, start, start, end);
    while (t != UINT64_MAX && t < end) {
        if (n < cap)
            due[n] = t;
        n++;
        t = bench_schedule_next_due(rate, st, start, t, end);
    }
    return n;
}

/* Due times of `due[0..n)` at or before `t`. */
static size_t due_by(const uint64_t *due, size_t n, uint64_t t)
{
    size_t k = 0;
    while (k < n && due[k] <= t)
        k++;
    return k;
}

static void add_stage(bench_stages *st, uint64_t duration_ns, double target)
{
    st->s[st->n].duration_ns = duration_ns;
    st->s[st->n].target = target;
    st->n++;
}

static void test_constant_rate_spacing(void)
{
    /* At or above 1000/s the next request is due within the first step:
     * exactly 1/rate later (to the nanosecond), wherever `from` is. */
    const double rates[] = { 1000, 2000, 5000, 1e6 };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        const uint64_t gap = (uint64_t)(1e9 / rates[i] + 0.5);
        for (uint64_t from = 0; from < 5 * S; from += 777 * MS + 13) {
            uint64_t t = bench_schedule_next_due(rates[i], NULL, 0, from, UINT64_MAX);
            CHECK_MSG(t + 1 >= from + gap && t <= from + gap, "rate %.0f from %llu: %llu",
                      rates[i], (unsigned long long)from, (unsigned long long)t);
        }
    }
    /* Below it the rate is integrated over 1 ms steps: 100/s is 10 ms. */
    uint64_t t = bench_schedule_next_due(100, NULL, 0, 3 * S, UINT64_MAX);
    CHECK_MSG(t + 1 >= 3 * S + 10 * MS && t <= 3 * S + 10 * MS + 1, "100/s: %llu",
              (unsigned long long)t);
    /* A whole second at a constant rate holds that many requests. */
    static uint64_t due[4096];
    const double counts[] = { 1, 7, 100, 999, 1000, 2500 };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t n = walk(counts[i], NULL, 0, S + 1, due, 4096);
        CHECK_MSG(n == (size_t)counts[i], "rate %.0f: %zu in 1 s", counts[i], n);
    }
}

static void test_rounding(void)
{
    /* 1/rate is truncated to the nanosecond: 3e6/s is every 333 ns, not
     * 333.33, so 3000 requests come 1 µs early over their millisecond. */
    CHECK(bench_schedule_next_due(3e6, NULL, 0, 0, UINT64_MAX) == 333);
    CHECK(bench_schedule_next_due(3e6, NULL, 0, 1000, UINT64_MAX) == 1333);
    CHECK(bench_schedule_next_due(3000, NULL, 0, 0, UINT64_MAX) == 333333);
    uint64_t t = 0;
    for (int i = 0; i < 3000; i++)
        t = bench_schedule_next_due(3e6, NULL, 0, t, UINT64_MAX);
    CHECK_MSG(t == 3000 * 333ULL, "3000 at 3e6/s end at %llu", (unsigned long long)t);
    /* Integrated rates lose at most a nanosecond a request too: 7/s. */
    t = 0;
    for (int i = 0; i < 7; i++)
        t = bench_schedule_next_due(7, NULL, 0, t, UINT64_MAX);
    CHECK_MSG(t + 7 >= S && t <= S + 7, "7 at 7/s end at %llu", (unsigned long long)t);
}

static void test_ramp_up_integrated(void)
{
    /* 0 -> 1000/s over 1 s: by time T, 500 T^2 requests are due (the area
     * under the ramp), not 1/rate steps from its foot, which would jump. */
    bench_stages st = { .n = 0 };
    add_stage(&st, S, 1000);
    static uint64_t due[4096];
    size_t n = walk(0, &st, 0, S, due, 4096);
    CHECK_MSG(n >= 498 && n <= 500, "%zu requests in the ramp", n);
    for (int q = 1; q <= 4; q++) {
        const double T = q / 4.0;
        const size_t k = due_by(due, n, (uint64_t)(T * 1e9));
        const double want = 500 * T * T;
        CHECK_MSG(fabs((double)k - want) <= 2, "by %.2f s: %zu, want %.1f", T, k, want);
    }
    /* The first request: where the area reaches 1, sqrt(1/500) s = 44.7 ms. */
    CHECK_MSG(n > 0 && due[0] >= 44 * MS && due[0] <= 46 * MS, "first at %llu",
              (unsigned long long)due[0]);
    /* Due times only grow. */
    for (size_t i = 1; i < n; i++)
        CHECK_MSG(due[i] > due[i - 1], "due[%zu] %llu after %llu", i,
                  (unsigned long long)due[i], (unsigned long long)due[i - 1]);
}

static void test_ramp_down_and_end(void)
{
    /* Up to 1000/s over 1 s, down to 0 over the next: 500 requests each
     * half, and nothing once the rate is 0, however far `end` is. */
    bench_stages st = { .n = 0 };
    add_stage(&st, S, 1000);
    add_stage(&st, S, 0);
    static uint64_t due[4096];
    size_t n = walk(0, &st, 0, 4 * S, due, 4096);
    CHECK_MSG(n >= 997 && n <= 1001, "%zu requests up and down", n);
    const size_t up = due_by(due, n, S);
    CHECK_MSG(up >= 498 && up <= 501, "%zu in the first second", up);
    const size_t down = n - up;
    CHECK_MSG(down >= 498 && down <= 501, "%zu in the second", down);
    /* In the ramp down, by 1.5 s: 500 + (1000 + 500)/2 * 0.5 = 875. */
    const size_t k = due_by(due, n, 3 * S / 2);
    CHECK_MSG(k >= 873 && k <= 877, "%zu by 1.5 s", k);
    CHECK_MSG(n == 0 || due[n - 1] < 2 * S, "last at %llu", (unsigned long long)due[n - 1]);
    CHECK(bench_schedule_next_due(0, &st, 0, 2 * S, 10 * S) == UINT64_MAX);
}

static void test_zero_rate_gap(void)
{
    /* 1000/s for 1 s, 0 for 1 s, 1000/s for 1 s (0-length stages jump). */
    bench_stages st = { .n = 0 };
    add_stage(&st, 0, 1000);
    add_stage(&st, S, 1000);
    add_stage(&st, 0, 0);
    add_stage(&st, S, 0);
    add_stage(&st, 0, 1000);
    add_stage(&st, S, 1000);
    static uint64_t due[4096];
    size_t n = walk(0, &st, 0, 3 * S, due, 4096);
    const size_t first = due_by(due, n, S);
    CHECK_MSG(first >= 999 && first <= 1000, "%zu in the first second", first);
    CHECK_MSG(due_by(due, n, 2 * S - 1) == first, "%zu due inside the gap",
              due_by(due, n, 2 * S - 1) - first);
    CHECK_MSG(first < n && due[first] >= 2 * S && due[first] <= 2 * S + 2 * MS,
              "first after the gap at %llu", first < n ? (unsigned long long)due[first] : 0ULL);
    CHECK_MSG(n - first >= 999 && n - first <= 1001, "%zu after the gap", n - first);
    /* A fixed rate of 0 never falls due. */
    CHECK(bench_schedule_next_due(0, NULL, 0, 0, 10 * S) == UINT64_MAX);
}

static void test_end_bound(void)
{
    /* Nothing is searched from `end` on. */
    CHECK(bench_schedule_next_due(1000, NULL, 0, 5 * S, 5 * S) == UINT64_MAX);
    CHECK(bench_schedule_next_due(1000, NULL, 0, 6 * S, 5 * S) == UINT64_MAX);
    /* 10/s: the next is 100 ms on, beyond an end 50 ms on. */
    CHECK(bench_schedule_next_due(10, NULL, 0, 0, 50 * MS) == UINT64_MAX);
    uint64_t t = bench_schedule_next_due(10, NULL, 0, 0, 150 * MS);
    CHECK_MSG(t + 1 >= 100 * MS && t <= 100 * MS + 1, "10/s: %llu", (unsigned long long)t);
    /* A step that starts before `end` may find a due time past it, by less
     * than a step: the dispatcher's horizon is 1 s past the run. */
    CHECK(bench_schedule_next_due(1000, NULL, 0, 0, 1) == 1 * MS);
    t = bench_schedule_next_due(10, NULL, 0, 0, 100 * MS - 1);
    CHECK_MSG(t == UINT64_MAX || t < 100 * MS + BENCH_SCHEDULE_STEP_NS, "%llu",
              (unsigned long long)t);
}

static void test_start_offset(void)
{
    /* A ramp is timed from `start`: the same run started 7 s later has the
     * same due times, 7 s later, to the nanosecond; before `start` the
     * ramp's rate is its value at 0. */
    bench_stages st = { .n = 0 };
    add_stage(&st, S, 1000);
    add_stage(&st, S, 0);
    static uint64_t a[4096], b[4096];
    size_t na = walk(0, &st, 0, 3 * S, a, 4096);
    size_t nb = walk(0, &st, 7 * S, 10 * S, b, 4096);
    CHECK_MSG(na == nb, "%zu and %zu", na, nb);
    for (size_t i = 0; i < na && i < nb; i++)
        CHECK_MSG(b[i] == a[i] + 7 * S, "due[%zu]: %llu and %llu", i, (unsigned long long)a[i],
                  (unsigned long long)b[i]);
    CHECK(bench_schedule_rate_at(0, &st, 7 * S, 2 * S) == 0);
    CHECK(bench_schedule_rate_at(0, &st, 7 * S, 7 * S + S / 2) == 500);
    CHECK(bench_schedule_rate_at(0, &st, 7 * S, 20 * S) == 0);
    /* A fixed rate has no time origin. */
    CHECK(bench_schedule_rate_at(250, NULL, 7 * S, 0) == 250);
    CHECK(bench_schedule_rate_at(250, NULL, 7 * S, 20 * S) == 250);
}

/* bench_schedule_count counts what walking next_due would, interval by
 * interval, and leaves *next where the walk would be: a fixed rate above
 * and below one request a step (counted without walking, and walked), a
 * ramp, intervals that cut between due times, and the end. */
static void test_count_matches_walk(void)
{
    bench_stages ramp = { 0 };
    add_stage(&ramp, 2 * S, 3000);
    add_stage(&ramp, 1 * S, 0);
    const struct { double rate; const bench_stages *st; } cases[] = {
        { 5000, NULL }, { 3000, NULL }, { 1000, NULL }, { 333.3, NULL }, { 7, NULL }, { 0, &ramp },
    };
    const uint64_t start = 123456789, end = start + 3 * S;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const double r = cases[c].rate;
        const bench_stages *st = cases[c].st;
        uint64_t walked = st ? bench_schedule_next_due(r, st, start, start, end) : start;
        uint64_t next = walked, total = 0, wtotal = 0;
        /* ticks 0.3 s apart, then one past the end */
        for (uint64_t until = start + 300 * MS + 7; ; until += 300 * MS + 7) {
            const uint64_t u = until > end + S / 2 ? end + S / 2 : until;
            uint64_t n = bench_schedule_count(r, st, start, &next, u, end);
            uint64_t w = 0;
            while (walked != UINT64_MAX && walked < u) {
                w++;
                walked = bench_schedule_next_due(r, st, start, walked, end);
            }
            CHECK_MSG(n == w && next == walked, "rate %g until +%llu: counted %llu, walked %llu; next %llu vs %llu",
                      r, (unsigned long long)(u - start), (unsigned long long)n, (unsigned long long)w,
                      (unsigned long long)next, (unsigned long long)walked);
            total += n;
            wtotal += w;
            if (u == end + S / 2)
                break;
        }
        CHECK(total == wtotal);
        if (!st)   /* a fixed rate: about rate x 3 s (one more at the end, due at `end`) */
            CHECK_MSG(fabs((double)total - r * 3) <= 2, "rate %g: %llu in 3 s", r, (unsigned long long)total);
        else       /* the ramp's area: 3000 + 1500 */
            CHECK_MSG(fabs((double)total - 4500) <= 3, "ramp: %llu", (unsigned long long)total);
    }
    /* Nothing to count: before *next, and once the schedule is over. */
    uint64_t next = 10 * S;
    CHECK(bench_schedule_count(1000, NULL, 0, &next, 5 * S, 20 * S) == 0 && next == 10 * S);
    next = UINT64_MAX;
    CHECK(bench_schedule_count(1000, NULL, 0, &next, 5 * S, 20 * S) == 0);
}

/* Recorded arrivals: each due at its own offset, ties apart (by index),
 * a single pass ending, a period repeating it, and the count before a time
 * agreeing with the due times, across passes. */
static void test_arrivals(void)
{
    const uint64_t at[] = { 0, 10 * MS, 10 * MS, 10 * MS, 250 * MS, 900 * MS };
    bench_arrivals once = { at, 6, 0 };
    CHECK(bench_arrivals_valid(&once));
    for (uint64_t i = 0; i < 6; i++)
        CHECK(bench_arrivals_due(&once, i) == at[i]);
    CHECK(bench_arrivals_due(&once, 6) == UINT64_MAX);
    CHECK(bench_arrivals_before(&once, 0) == 0);
    CHECK(bench_arrivals_before(&once, 1) == 1);
    CHECK(bench_arrivals_before(&once, 10 * MS) == 1);       /* the ties: all at once */
    CHECK(bench_arrivals_before(&once, 10 * MS + 1) == 4);
    CHECK(bench_arrivals_before(&once, 900 * MS + 1) == 6);
    CHECK(bench_arrivals_before(&once, 100 * S) == 6);

    bench_arrivals loop = { at, 6, S };
    CHECK(bench_arrivals_valid(&loop));
    CHECK(bench_arrivals_due(&loop, 6) == S);
    CHECK(bench_arrivals_due(&loop, 9) == S + 10 * MS);
    CHECK(bench_arrivals_due(&loop, 6 * 5 + 4) == 5 * S + 250 * MS);
    CHECK(bench_arrivals_before(&loop, S) == 6);
    CHECK(bench_arrivals_before(&loop, 3 * S + 10 * MS + 1) == 3 * 6 + 4);
    /* before() is the index of the first due at or after t, at every t
     * around every due time of four passes. */
    for (uint64_t i = 0; i < 24; i++) {
        const uint64_t d = bench_arrivals_due(&loop, i);
        const uint64_t first = bench_arrivals_before(&loop, d);
        CHECK_MSG(first <= i && bench_arrivals_due(&loop, first) == d,
                  "due %llu of #%llu: before() %llu", (unsigned long long)d,
                  (unsigned long long)i, (unsigned long long)first);
        CHECK(bench_arrivals_before(&loop, d + 1) > i);
    }
    /* What the core refuses: nothing, out of order, a period within the pass. */
    const uint64_t back[] = { 5, 3 };
    bench_arrivals bad = { back, 2, 0 };
    CHECK(!bench_arrivals_valid(&bad));
    bad = (bench_arrivals){ at, 0, 0 };
    CHECK(!bench_arrivals_valid(&bad));
    bad = (bench_arrivals){ at, 6, 900 * MS };
    CHECK(!bench_arrivals_valid(&bad));
    CHECK(!bench_arrivals_valid(NULL));
}

int main(void)
{
    RUN(test_arrivals);
    RUN(test_constant_rate_spacing);
    RUN(test_rounding);
    RUN(test_ramp_up_integrated);
    RUN(test_ramp_down_and_end);
    RUN(test_zero_rate_gap);
    RUN(test_end_bound);
    RUN(test_start_offset);
    RUN(test_count_matches_walk);
    return check_finish();
}

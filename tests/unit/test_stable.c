/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_stable.c - bench/core/stable.c (--until-stable) on
 * synthetic series: MSER-5 cuts a known warm-up ramp, within a batch in
 * most series, and finds none in a flat series; batch means on independent normal data with a
 * known mean contain it about 95 % of the time (at least 90 % of 200 seeded
 * trials); AR(1) data (phi 0.8) get wider intervals than independent data
 * of the same spread; too short or empty series judge nothing.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/core/stable.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A seeded generator (xorshift64*) and normal draws (Box-Muller). */
static uint64_t rng_state;

static double uniform01(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return ((double)((x * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) * 0x1.0p-53;
}

static double normal01(void)
{
    const double u1 = uniform01(), u2 = uniform01();
    return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

#define N 200   /* 20 s of 100 ms sub-intervals */

static void test_mser_ramp(void)
{
    double x[N];
    int within = 0;
    /* 2 s of warm-up rising to 1000/s, then 1000/s with 1 % noise: MSER
     * never keeps part of the ramp and cuts it within a batch in most
     * series (71 of these 100); noise alone sometimes makes a later cut
     * look better, which costs data, not truth. */
    for (int t = 0; t < 100; t++) {
        rng_state = 11 + (uint64_t)t;
        for (int i = 0; i < N; i++)
            x[i] = i < 20 ? 50.0 * i : 1000.0 + 10.0 * normal01();
        const size_t d = bench_stable_mser(x, N, BENCH_STABLE_MSER_BATCH) * BENCH_STABLE_MSER_BATCH;
        CHECK_MSG(d >= 20 && d <= N / 2, "seed %d: warm-up found: %zu values, the ramp is 20", t, d);
        within += d <= 20 + BENCH_STABLE_MSER_BATCH;
        bench_stable st;
        bench_stable_eval(x, N, 2, &st);
        CHECK_MSG(st.warmup_n == d, "eval's warm-up %zu, mser's %zu", st.warmup_n, d);
        CHECK(st.stable);
        CHECK_MSG(fabs(st.mean - 1000) < 5, "mean %g", st.mean);
    }
    CHECK_MSG(within >= 65, "the ramp cut within a batch in %d of 100 series", within);
}

static void test_mser_flat(void)
{
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = 500.0;
    CHECK(bench_stable_mser(x, N, BENCH_STABLE_MSER_BATCH) == 0);
    bench_stable st;
    bench_stable_eval(x, N, 2, &st);
    /* A constant rate (a kept schedule): no warm-up, no width, stable. */
    CHECK(st.warmup_n == 0);
    CHECK(st.half_width == 0 && st.half_width_pct == 0);
    CHECK(st.batches >= BENCH_STABLE_MIN_BATCHES && st.batches <= BENCH_STABLE_MAX_BATCHES);
    CHECK(st.stable);
}

static void test_t975(void)
{
    CHECK(fabs(bench_stable_t975(1) - 12.706) < 1e-9);
    CHECK(fabs(bench_stable_t975(9) - 2.262) < 1e-9);
    CHECK(fabs(bench_stable_t975(29) - 2.045) < 1e-9);
    CHECK(bench_stable_t975(1000) > 1.96 && bench_stable_t975(1000) < 1.963);
}

/* Coverage of the true mean over seeded trials of x_i = mu + sd * e_i,
 * e_i AR(1) with coefficient phi (0: independent), marginal sd as given. */
static int covered(double phi, int trials, double *mean_hw)
{
    const double mu = 1000, sd = 50;
    int in = 0;
    double hw = 0;
    for (int t = 0; t < trials; t++) {
        double x[N], e = normal01();
        rng_state = 1000 + (uint64_t)t;
        for (int i = 0; i < N; i++) {
            e = phi * e + sqrt(1 - phi * phi) * normal01();
            x[i] = mu + sd * e;
        }
        bench_stable st;
        bench_stable_eval(x, N, 50, &st);
        if (st.batches >= 2 && fabs(st.mean - mu) <= st.half_width)
            in++;
        hw += st.half_width;
    }
    *mean_hw = hw / trials;
    return in;
}

static void test_cover_iid(void)
{
    double hw;
    const int in = covered(0, 200, &hw);
    /* About 95 %: at least 90 %, and not an interval so wide it always covers. */
    CHECK_MSG(in >= 180 && in <= 199, "%d of 200 intervals contain the mean", in);
}

static void test_ar1_wider(void)
{
    double hw_iid, hw_ar;
    (void)covered(0, 100, &hw_iid);
    const int in = covered(0.8, 100, &hw_ar);
    CHECK_MSG(hw_ar > 1.5 * hw_iid, "AR(1) half-width %g, independent %g", hw_ar, hw_iid);
    /* The check on the batch means keeps the coverage near its level. */
    CHECK_MSG(in >= 80, "AR(1): %d of 100 intervals contain the mean", in);
}

static void test_short_and_empty(void)
{
    double x[N];
    bench_stable st;
    for (int i = 0; i < N; i++)
        x[i] = 0;
    bench_stable_eval(x, 8, 2, &st);
    CHECK(st.batches == 0 && !st.stable && st.half_width_pct < 0);
    /* Nothing succeeded: a mean of 0 is never stable. */
    bench_stable_eval(x, N, 2, &st);
    CHECK(!st.stable && st.half_width_pct < 0);
    /* Fewer than 10 batches: an interval, but no stop. */
    for (int i = 0; i < N; i++)
        x[i] = 100;
    bench_stable_eval(x, 45, 2, &st);
    CHECK_MSG(st.batches == 9 && !st.stable, "batches %zu stable %d", st.batches, st.stable);
    /* No target: judged, never stable. */
    bench_stable_eval(x, N, 0, &st);
    CHECK(!st.stable && st.batches >= BENCH_STABLE_MIN_BATCHES);
}

/* A datasheet's short step: batches of one sub-interval give a second of
 * run its ten batch means, where the default batches give two. */
static void test_batch_of_one(void)
{
    double x[10];
    bench_stable st;
    for (int i = 0; i < 10; i++)
        x[i] = 1000;       /* MSER finds no warm-up in a constant series */
    bench_stable_eval(x, 10, 5, &st);
    CHECK_MSG(st.batches == 2 && !st.stable, "default batches: %zu, stable %d", st.batches, st.stable);
    bench_stable_eval_batch(x, 10, 5, 1, &st);
    CHECK_MSG(st.batch_n == 1 && st.batches == 10 && st.stable && st.half_width_pct < 5,
              "batches of one: %zu of %zu, stable %d, ±%g %%", st.batches, st.batch_n, st.stable,
              st.half_width_pct);
}

int main(void)
{
    RUN(test_mser_ramp);
    RUN(test_mser_flat);
    RUN(test_t975);
    RUN(test_cover_iid);
    RUN(test_ar1_wider);
    RUN(test_short_and_empty);
    RUN(test_batch_of_one);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_stats.c - bench/results/stats.c against known answers.
 *
 * Mann-Whitney reference values: SciPy's documented example
 * (mannwhitneyu(males, females, method="asymptotic") gives U = 17,
 * p = 0.11134688653314041), two completely separated groups of ten
 * (U = 0, p = 0.00018267179...), and a case with ties whose U was counted pair
 * by pair and whose p comes from an independent implementation of the
 * tie-corrected normal approximation.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/stats.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdlib.h>

static int close_to(double got, double want, double tol)
{
    return fabs(got - want) <= tol;
}

static void test_mw_scipy_example(void)
{
    const double males[] = { 19, 22, 16, 29, 24 };
    const double females[] = { 20, 11, 17, 12 };
    bench_mw mw;
    int rc = bench_mann_whitney(males, 5, females, 4, &mw);
    /* Fewer than 8 samples: computed, but flagged as too few for a verdict. */
    CHECK(rc == -1);
    CHECK_MSG(mw.u1 == 17 && mw.u2 == 3, "u1 %g u2 %g", mw.u1, mw.u2);
    CHECK_MSG(close_to(mw.p, 0.11134688653314041, 1e-12), "p %.17g", mw.p);
}

static void test_mw_separated(void)
{
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i;
        b[i] = 10 + i;
    }
    bench_mw mw;
    CHECK(bench_mann_whitney(a, 10, b, 10, &mw) == 0);
    CHECK_MSG(mw.u1 == 0 && mw.u2 == 100, "u1 %g u2 %g", mw.u1, mw.u2);
    CHECK_MSG(close_to(mw.z, 3.7418482827913495, 1e-9), "z %.17g", mw.z);
    CHECK_MSG(close_to(mw.p, 0.0001826717911095504, 1e-12), "p %.17g", mw.p);
    /* Symmetric: swapping the groups swaps U and keeps p. */
    bench_mw sw;
    CHECK(bench_mann_whitney(b, 10, a, 10, &sw) == 0);
    CHECK(sw.u1 == 100 && sw.u2 == 0 && close_to(sw.p, mw.p, 1e-15));
}

static void test_mw_ties(void)
{
    const double a[] = { 7, 3, 6, 2, 4, 3, 5, 5 };
    const double b[] = { 3, 5, 6, 4, 6, 5, 7, 5, 8, 9 };
    /* U1 by its definition: pairs with a > b, ties counting one half. */
    double u = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 10; j++)
            u += a[i] > b[j] ? 1.0 : a[i] == b[j] ? 0.5 : 0.0;
    bench_mw mw;
    CHECK(bench_mann_whitney(a, 8, b, 10, &mw) == 0);
    CHECK_MSG(mw.u1 == u && u == 23, "u1 %g, by pairs %g", mw.u1, u);
    CHECK_MSG(close_to(mw.z, 1.4892988894471877, 1e-9), "z %.17g", mw.z);
    CHECK_MSG(close_to(mw.p, 0.13640868004886877, 1e-12), "p %.17g", mw.p);
}

static void test_mw_identical_and_equal(void)
{
    double a[12], c[12];
    for (int i = 0; i < 12; i++) {
        a[i] = 1000 + (i * 37) % 11;
        c[i] = 5;
    }
    bench_mw mw;
    CHECK(bench_mann_whitney(a, 12, a, 12, &mw) == 0);
    CHECK_MSG(mw.p == 1.0 && mw.u1 == 72, "same sample twice: p %g u1 %g", mw.p, mw.u1);
    CHECK(bench_mann_whitney(c, 12, c, 12, &mw) == 0);
    CHECK_MSG(mw.p == 1.0 && mw.z == 0, "all equal: p %g", mw.p);
}

static void test_mw_too_few(void)
{
    const double a[] = { 1, 2, 3, 4, 5, 6, 7 }, b[] = { 10, 11, 12, 13, 14, 15, 16, 17 };
    bench_mw mw;
    CHECK(bench_mann_whitney(a, 7, b, 8, &mw) == -1);
    CHECK(mw.n1 == 7 && mw.n2 == 8);
    CHECK(bench_mann_whitney(b, 8, a, 7, &mw) == -1);
    CHECK(bench_mann_whitney(a, 0, b, 8, &mw) == -1 && mw.p == 1.0);
    CHECK(bench_mann_whitney(a, 7, b, 0, &mw) == -1);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void test_median(void)
{
    const double odd[] = { 5, 1, 4, 2, 3 }, even[] = { 4, 1, 3, 2 }, dup[] = { 2, 2, 2, 1, 2, 3 };
    CHECK(bench_median(odd, 5) == 3);
    CHECK(bench_median(even, 4) == 2.5);
    CHECK(bench_median(dup, 6) == 2);
    CHECK(bench_median(odd, 1) == 5);
    CHECK(bench_median(odd, 0) == 0);
    CHECK(odd[0] == 5 && odd[4] == 3);   /* the input is left as it was */

    /* Random arrays full of repeats against a sort. */
    bench_rng rng;
    bench_rng_seed(&rng, 42);
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)bench_rng_below(&rng, 301);
        double *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s);
        if (!v || !s) {
            CHECK(!"out of memory");
            free(v);
            free(s);
            return;
        }
        for (size_t i = 0; i < n; i++)
            v[i] = s[i] = (double)bench_rng_below(&rng, round % 2 ? 5 : 100000);
        qsort(s, n, sizeof *s, cmp_double);
        double want = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        double got = bench_median(v, n);
        CHECK_MSG(got == want, "n %zu: median %g, sorted says %g", n, got, want);
        free(v);
        free(s);
    }
}

static void test_rng(void)
{
    bench_rng a, b;
    bench_rng_seed(&a, 7);
    bench_rng_seed(&b, 7);
    int same = 1, inrange = 1;
    unsigned hist[10] = { 0 };
    for (int i = 0; i < 100000; i++) {
        same &= bench_rng_next(&a) == bench_rng_next(&b);
        uint64_t x = bench_rng_below(&a, 10);
        inrange &= x < 10;
        if (x < 10)
            hist[x]++;
        (void)bench_rng_below(&b, 10);
    }
    CHECK(same);
    CHECK(inrange);
    for (int i = 0; i < 10; i++)
        CHECK_MSG(hist[i] > 9500 && hist[i] < 10500, "bucket %d: %u of 100000", i, hist[i]);
    bench_rng_seed(&b, 8);
    CHECK(bench_rng_next(&a) != bench_rng_next(&b));
}

/* Two clearly separated throughput series: the interval holds the true
 * difference of the medians and excludes 0. */
static void test_bootstrap_separated(void)
{
    double a[30], b[30];
    bench_rng rng;
    bench_rng_seed(&rng, 1);
    for (int i = 0; i < 30; i++) {
        a[i] = 1000 + (double)bench_rng_below(&rng, 21) - 10;   /* 990..1010 */
        b[i] = 1200 + (double)bench_rng_below(&rng, 21) - 10;   /* 1190..1210 */
    }
    bench_ci ci;
    CHECK(bench_bootstrap_median_diff(a, 30, b, 30, BENCH_STATS_RESAMPLES, 0.95, BENCH_STATS_SEED, &ci) == 0);
    CHECK_MSG(ci.lo <= 200 && 200 <= ci.hi, "CI %g..%g lacks 200", ci.lo, ci.hi);
    CHECK_MSG(ci.lo > 0, "CI %g..%g includes 0", ci.lo, ci.hi);
    CHECK_MSG(ci.lo <= ci.point && ci.point <= ci.hi, "point %g outside %g..%g", ci.point, ci.lo, ci.hi);
    CHECK(ci.point == bench_median(b, 30) - bench_median(a, 30));
    CHECK(ci.level == 0.95);

    /* Fixed seed: the same interval every time. */
    bench_ci again;
    CHECK(bench_bootstrap_median_diff(a, 30, b, 30, BENCH_STATS_RESAMPLES, 0.95, BENCH_STATS_SEED, &again) == 0);
    CHECK(again.lo == ci.lo && again.hi == ci.hi);

    /* The other way round: the same interval, negated. */
    bench_ci rev;
    CHECK(bench_bootstrap_median_diff(b, 30, a, 30, BENCH_STATS_RESAMPLES, 0.95, 99, &rev) == 0);
    CHECK_MSG(rev.hi < 0 && rev.lo <= -200 && -200 <= rev.hi, "reverse CI %g..%g", rev.lo, rev.hi);
}

static void test_bootstrap_same(void)
{
    double a[20];
    for (int i = 0; i < 20; i++)
        a[i] = 500 + (i * 7) % 13;
    bench_ci ci;
    CHECK(bench_bootstrap_median_diff(a, 20, a, 20, BENCH_STATS_RESAMPLES, 0.95, BENCH_STATS_SEED, &ci) == 0);
    CHECK_MSG(ci.lo <= 0 && 0 <= ci.hi && ci.point == 0, "CI %g..%g point %g", ci.lo, ci.hi, ci.point);
    CHECK(bench_bootstrap_median_diff(a, 0, a, 20, 100, 0.95, 1, &ci) == -1);
    CHECK(bench_bootstrap_median_diff(a, 20, a, 20, 100, 1.5, 1, &ci) == -1);
    CHECK(bench_bootstrap_median_diff(a, 20, a, 20, 0, 0.95, 1, &ci) == -1);
}

int main(void)
{
    RUN(test_mw_scipy_example);
    RUN(test_mw_separated);
    RUN(test_mw_ties);
    RUN(test_mw_identical_and_equal);
    RUN(test_mw_too_few);
    RUN(test_median);
    RUN(test_rng);
    RUN(test_bootstrap_separated);
    RUN(test_bootstrap_same);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_verdict.c - the tests compare judges two runs with
 * (bench/results/stats.c's two-sample tests from what a run keeps of every
 * operation: histograms, means, counts), the verdict of a pair
 * (bench/results/verdict.c) and the --fail-on rules (bench/results/rule.c).
 *
 * False positives: two samples drawn from one distribution, TRIALS times
 * (a fixed seed: the same draws every time), must be called different at a
 * rate near alpha (0.05: within 0.02..0.09, about three binomial standard
 * deviations); a known 10% shift must be found nearly every time.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/rule.h"
#include "bench/results/stats.h"
#include "bench/results/verdict.h"
#include "bench/core/hist.h"
#include "tests/unit/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRIALS 400
#define N      2000

/* A uniform in (0, 1) and a log-normal latency around median_ns. */
static double uniform(bench_rng *r)
{
    return ((double)(bench_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double lognormal(bench_rng *r, double median_ns, double sigma)
{
    double z = sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));   /* Box-Muller */
    return median_ns * exp(sigma * z);
}

/* n latencies into h (reset first) and their mean, stddev and rate
 * (one closed-loop thread: n over their sum). */
typedef struct draw {
    double mean, sd, rate;
} draw;

static draw fill(bench_hist *h, bench_rng *r, size_t n, double median_ns, double scale)
{
    bench_hist_reset(h);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        double v = lognormal(r, median_ns, 0.3) * scale;
        bench_hist_record(h, (uint64_t)v);
        sum += v;
        sq += v * v;
    }
    draw d;
    d.mean = sum / (double)n;
    d.sd = sqrt(fmax(0, sq / (double)n - d.mean * d.mean));
    d.rate = (double)n / (sum * 1e-9);
    return d;
}

typedef struct rates {
    double p50, p99, mean, rate;
} rates;

/* The share of TRIALS pairs each test calls different (p < 0.05), B's
 * latencies scaled by scale. */
static rates rejections(double scale, uint64_t seed, size_t n)
{
    bench_hist *a = bench_hist_new(), *b = bench_hist_new();
    rates r = { 0, 0, 0, 0 };
    if (!a || !b) {
        bench_hist_free(a);
        bench_hist_free(b);
        r.p50 = -1;
        return r;
    }
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    for (int t = 0; t < TRIALS; t++) {
        draw da = fill(a, &rng, n, 1e6, 1.0), db = fill(b, &rng, n, 1e6, scale);
        bench_ztest z;
        if (bench_quantile_test(a, b, 0.50, &z) == 0 && z.p < 0.05)
            r.p50++;
        if (bench_quantile_test(a, b, 0.99, &z) == 0 && z.p < 0.05)
            r.p99++;
        if (bench_mean_test(da.mean, da.sd, n, db.mean, db.sd, n, &z) == 0 && z.p < 0.05)
            r.mean++;
        if (bench_rate_test(da.rate, da.sd / da.mean, n, db.rate, db.sd / db.mean, n, &z) == 0 && z.p < 0.05)
            r.rate++;
    }
    bench_hist_free(a);
    bench_hist_free(b);
    r.p50 /= TRIALS;
    r.p99 /= TRIALS;
    r.mean /= TRIALS;
    r.rate /= TRIALS;
    return r;
}

static int near_alpha(double rate)
{
    return rate >= 0.02 && rate <= 0.09;
}

static void test_false_positive_rate(void)
{
    rates r = rejections(1.0, 0x5eed, N);
    CHECK(r.p50 >= 0);
    CHECK_MSG(near_alpha(r.p50), "p50 rejected %.3f of same-distribution pairs", r.p50);
    CHECK_MSG(near_alpha(r.p99), "p99 rejected %.3f of same-distribution pairs", r.p99);
    CHECK_MSG(near_alpha(r.mean), "mean rejected %.3f of same-distribution pairs", r.mean);
    CHECK_MSG(near_alpha(r.rate), "rate rejected %.3f of same-distribution pairs", r.rate);
    printf("     same distribution, %d pairs of %d: changed p50 %.3f, p99 %.3f, mean %.3f, rate %.3f\n",
           TRIALS, N, r.p50, r.p99, r.mean, r.rate);
}

static void test_detects_ten_percent(void)
{
    rates r = rejections(1.10, 0xfeed, N);
    CHECK_MSG(r.p50 >= 0.95, "p50 found a 10%% shift in %.3f", r.p50);
    /* A p99 is the noisiest figure: 2000 operations find a 10% shift in
     * it about 60% of the time, 10000 nearly always. */
    CHECK_MSG(r.p99 >= 0.40, "p99 found a 10%% shift in %.3f", r.p99);
    CHECK_MSG(r.mean >= 0.95, "mean found a 10%% shift in %.3f", r.mean);
    CHECK_MSG(r.rate >= 0.95, "rate found a 10%% shift in %.3f", r.rate);
    printf("     10%% slower, %d pairs of %d: found p50 %.3f, p99 %.3f, mean %.3f, rate %.3f\n",
           TRIALS, N, r.p50, r.p99, r.mean, r.rate);
    rates big = rejections(1.10, 0xbeef, 5 * N);
    CHECK_MSG(big.p99 >= 0.95, "p99 found a 10%% shift in %.3f of pairs of %d", big.p99, 5 * N);
    printf("     10%% slower, %d pairs of %d: found p99 %.3f\n", TRIALS, 5 * N, big.p99);
}

static void test_prop_alpha(void)
{
    bench_rng rng;
    bench_rng_seed(&rng, 77);
    int rej = 0;
    for (int t = 0; t < TRIALS; t++) {
        uint64_t xa = 0, xb = 0;
        for (int i = 0; i < N; i++) {
            xa += uniform(&rng) < 0.02;
            xb += uniform(&rng) < 0.02;
        }
        bench_ztest z;
        CHECK(bench_prop_test(xa, N, xb, N, &z) == 0);
        rej += z.p < 0.05;
    }
    CHECK_MSG(near_alpha((double)rej / TRIALS), "errors: %d of %d pairs changed", rej, TRIALS);
    bench_ztest z;
    CHECK(bench_prop_test(0, 100, 0, 100, &z) == 0 && z.p == 1.0);
    CHECK(bench_prop_test(0, 0, 0, 100, &z) == -1);
}

static void test_too_few(void)
{
    bench_hist *a = bench_hist_new();
    CHECK(a != NULL);
    if (!a)
        return;
    for (int i = 0; i < 400; i++)
        bench_hist_record(a, 1000 + (uint64_t)i);
    bench_ztest z;
    CHECK(bench_quantile_test(a, a, 0.50, &z) == 0 && z.p == 1.0);
    CHECK(bench_quantile_test(a, a, 0.99, &z) == -1);    /* 400 * 0.01 < 5 */
    CHECK(bench_mean_test(1, 1, 1, 1, 1, 10, &z) == -1);
    bench_hist_free(a);
}

/* ---- the pair's verdict and the rules ------------------------------------------- */

static bench_hist *model_of(bench_run_model *m, bench_rng *rng, double scale)
{
    memset(m, 0, sizeof *m);
    m->measured = 1;
    m->latency_complete = 1;
    snprintf(m->status, sizeof m->status, "ok");
    bench_hist *h = bench_hist_new();
    if (!h)
        return NULL;
    draw d = fill(h, rng, N, 1e6, scale);
    m->hist = h;
    m->ops = m->attempts = N;
    m->threads = 1;
    m->ops_per_s = d.rate;
    m->latency.present = 1;
    m->latency.count = N;
    m->latency.mean = d.mean / 1e3;
    m->latency.stddev = d.sd / 1e3;
    m->latency.p50 = (double)bench_hist_percentile(h, 50) / 1e3;
    m->latency.p99 = (double)bench_hist_percentile(h, 99) / 1e3;
    return h;
}

static void test_pair_words(void)
{
    bench_rng rng;
    bench_rng_seed(&rng, 2024);
    bench_run_model a, b;
    bench_hist *ha = model_of(&a, &rng, 1.0), *hb = model_of(&b, &rng, 1.10);
    CHECK(ha && hb);
    if (!ha || !hb) {
        bench_hist_free(ha);
        bench_hist_free(hb);
        return;
    }
    bench_pair_cmp p;
    CHECK(bench_pair_compare(&a, &a, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    for (size_t i = 0; i < p.n; i++)
        CHECK_MSG(p.figs[i].verdict == BENCH_CHANGE_NONE, "%s vs itself: %s", p.figs[i].name,
                  bench_change_word(&p.figs[i]));
    CHECK(bench_pair_compare(&a, &b, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    const bench_fig_cmp *ops = bench_pair_fig(&p, "ops_per_s"), *p50 = bench_pair_fig(&p, "p50");
    CHECK(ops && p50);
    if (ops && p50) {
        CHECK_MSG(strcmp(bench_change_word(ops), "slower") == 0, "ops/s: %s", bench_change_word(ops));
        CHECK_MSG(strcmp(bench_change_word(p50), "slower") == 0, "p50: %s", bench_change_word(p50));
        CHECK(strstr(ops->method, "rate test") != NULL);   /* no per-second rates: the histogram's */
    }
    CHECK(bench_pair_compare(&b, &a, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    ops = bench_pair_fig(&p, "ops_per_s");
    CHECK(ops && strcmp(bench_change_word(ops), "faster") == 0);

    /* Rules: beyond the bound and significant. */
    bench_rule r;
    char err[256], why[256];
    CHECK(bench_pair_compare(&a, &b, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    CHECK(bench_rule_parse("ops_per_s<-5%", NULL, &r, err, sizeof err) == 0);
    CHECK_MSG(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_FAIL, "%s", why);
    CHECK(bench_rule_parse("ops_per_s<-20%", NULL, &r, err, sizeof err) == 0);
    CHECK_MSG(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_PASS, "%s", why);
    CHECK(bench_rule_parse("p50>+50us", NULL, &r, err, sizeof err) == 0 && r.bound == 50);
    CHECK_MSG(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_FAIL, "%s", why);
    CHECK(bench_rule_parse("http_req_waiting>+10%", NULL, &r, err, sizeof err) == -1);   /* no sections */
    CHECK(bench_pair_compare(&a, &a, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    CHECK(bench_rule_parse("p99>-1%", NULL, &r, err, sizeof err) == 0);   /* beyond, but no change at all */
    CHECK_MSG(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_PASS, "%s", why);
    CHECK(bench_rule_parse("p99>-1%!", NULL, &r, err, sizeof err) == 0 && r.any);
    CHECK_MSG(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_FAIL, "%s", why);

    /* Not measured: not comparable, and a rule on it fails. */
    b.measured = 0;
    snprintf(b.status, sizeof b.status, "skipped");
    CHECK(bench_pair_compare(&a, &b, NULL, NULL, NULL, BENCH_VERDICT_MIN_CHANGE_PCT, &p) == 0);
    CHECK(p.n == 1 && p.figs[0].verdict == BENCH_CHANGE_NA && strstr(p.figs[0].why, "B not measured"));
    CHECK(bench_rule_parse("ops_per_s<-5%", NULL, &r, err, sizeof err) == 0);
    CHECK(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_FAIL);
    CHECK(bench_rule_parse("p99>+10%", NULL, &r, err, sizeof err) == 0);
    CHECK(bench_rule_check(&r, &p, why, sizeof why) == BENCH_RULE_NOT_JUDGED);
    bench_hist_free(ha);
    bench_hist_free(hb);
}

static void test_rule_parse_errors(void)
{
    static const char *const bad[] = { "ops_per_s", "<5%", "bogus<5%", "p99>=10%", "p99>+10", "p99>+10xs",
                                       "error_pct>+1%", "ops_per_s<-5%%", "p99>ten%", "ops_per_s<-5ms" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bench_rule r;
        char err[256] = "";
        CHECK_MSG(bench_rule_parse(bad[i], NULL, &r, err, sizeof err) == -1, "'%s' taken", bad[i]);
        CHECK_MSG(strncmp(err, "--fail-on '", 11) == 0 && !strchr(err, '\n'), "'%s': %s", bad[i], err);
    }
    bench_rule r;
    char err[256];
    CHECK(bench_rule_parse("error_pct>+1", NULL, &r, err, sizeof err) == 0 && !r.pct && r.bound == 1 && r.above);
    CHECK(bench_rule_parse("p99>+2ms", NULL, &r, err, sizeof err) == 0 && r.bound == 2000);
    CHECK(bench_rule_parse("mean>+10%", NULL, &r, err, sizeof err) == 0 && r.pct);
}

int main(void)
{
    RUN(test_false_positive_rate);
    RUN(test_detects_ten_percent);
    RUN(test_prop_alpha);
    RUN(test_too_few);
    RUN(test_pair_words);
    RUN(test_rule_parse_errors);
    return check_finish();
}

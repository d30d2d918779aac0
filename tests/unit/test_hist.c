/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_hist.c - bench/core/hist.c against exact answers.
 *
 * Reference percentiles come from sorted arrays with the same definition the
 * histogram documents: the value of rank ceil(p/100 * n) (at least 1), here
 * computed in integers so the reference does not share the code's rounding.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 * tsan: yes (one thread records into a histogram while another takes its deltas, as the sampler does)
 */
#include "bench/core/hist.h"
#include "tests/unit/check.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

/* ---- helpers ------------------------------------------------------------ */

/* xorshift64*: fixed seed, same numbers on every platform and libc. */
/* n equal values, one at a time as the engines record them. */
static void record_n(bench_hist *h, uint64_t value_ns, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        bench_hist_record(h, value_ns);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Uniform in (0, 1): 53 random bits, never exactly 0 (log() below). */
static double rng_unit(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

/* Log-normal latency around 50 us with a long tail (Box-Muller normal). */
static uint64_t lognormal_ns(void)
{
    double z = sqrt(-2.0 * log(rng_unit())) * cos(6.283185307179586 * rng_unit());
    return (uint64_t)llround(exp(log(50000.0) + 1.0 * z));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Exact percentile of a sorted array; p given in hundredths of a percent
 * (9999 = 99.99) so the rank ceil(p/100 * n) is computed exactly. */
static uint64_t exact_pct(const uint64_t *sorted, size_t n, uint64_t p_x100)
{
    uint64_t rank = (p_x100 * n + 9999) / 10000;
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

static double rel_err(double got, double want)
{
    return want == 0 ? fabs(got) : fabs(got - want) / fabs(want);
}

/* The percentiles the comparisons walk, in hundredths of a percent. */
static const uint64_t pcts_x100[] = { 0, 100, 1000, 2500, 5000, 7500, 9000, 9500, 9900, 9990, 9999, 10000 };
#define NPCTS (sizeof(pcts_x100) / sizeof(pcts_x100[0]))

/* Two histograms hold the same data: every counter and summary equal. */
static int same_hist(const bench_hist *a, const bench_hist *b)
{
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++)
        if (atomic_load(&a->counts[i]) != atomic_load(&b->counts[i]))
            return 0;
    return bench_hist_count(a) == bench_hist_count(b) &&
           bench_hist_min(a) == bench_hist_min(b) &&
           bench_hist_max(a) == bench_hist_max(b) &&
           atomic_load(&a->clamped) == atomic_load(&b->clamped);
}

#define LOGN 200000
static uint64_t logn_vals[LOGN];       /* in recording order */
static uint64_t logn_sorted[LOGN];

static void make_lognormal(void)
{
    rng_state = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < LOGN; i++)
        logn_vals[i] = logn_sorted[i] = lognormal_ns();
    qsort(logn_sorted, LOGN, sizeof(logn_sorted[0]), cmp_u64);
}

/* ---- cases -------------------------------------------------------------- */

/* 0..2047 are stored exactly: every percentile is the exact order statistic. */
static void test_exact_small(void)
{
    bench_hist *h = bench_hist_new();
    CHECK(h != NULL);
    for (uint64_t v = 0; v < 2048; v++) {
        CHECK_MSG(bench_hist_index(v) == v, "index(%llu) = %zu", (unsigned long long)v, bench_hist_index(v));
        CHECK(bench_hist_slot_lowest(v) == v && bench_hist_slot_highest(v) == v);
        bench_hist_record(h, v);
    }
    CHECK(bench_hist_count(h) == 2048);
    CHECK(bench_hist_min(h) == 0 && bench_hist_max(h) == 2047);
    /* p = k/2048 * 100 is exact in binary; rank k holds the value k - 1. */
    for (uint64_t k = 1; k <= 2048; k++) {
        double p = (double)k * 100.0 / 2048.0;
        uint64_t got = bench_hist_percentile(h, p);
        CHECK_MSG(got == k - 1, "p%.6f = %llu, want %llu", p, (unsigned long long)got, (unsigned long long)(k - 1));
    }
    CHECK(bench_hist_percentile(h, 0) == 0);
    CHECK(bench_hist_percentile(h, 50) == 1023);
    CHECK(bench_hist_percentile(h, 100) == 2047);
    CHECK(bench_hist_mean(h) == 1023.5);
    double sd = sqrt((2048.0 * 2048.0 - 1.0) / 12.0);  /* discrete uniform */
    CHECK_MSG(rel_err(bench_hist_stddev(h), sd) < 1e-12, "stddev %f want %f", bench_hist_stddev(h), sd);

    /* The documented ceil convention: p50 of {1, 2} is 1, p100 is the max. */
    bench_hist_reset(h);
    bench_hist_record(h, 1);
    bench_hist_record(h, 2);
    CHECK(bench_hist_percentile(h, 50) == 1);
    CHECK(bench_hist_percentile(h, 50.1) == 2);
    CHECK(bench_hist_percentile(h, 100) == 2);
    CHECK(bench_hist_percentile(h, 0) == 1);
    bench_hist_free(h);
}

/* One value's slot must contain it, be narrow, and map back to itself. */
static void check_slot_of(uint64_t v)
{
    size_t i = bench_hist_index(v);
    uint64_t lo = bench_hist_slot_lowest(i), hi = bench_hist_slot_highest(i);
    CHECK_MSG(i < BENCH_HIST_SLOTS, "index(%llu) = %zu out of range", (unsigned long long)v, i);
    CHECK_MSG(lo <= v && v <= hi, "%llu not in slot %zu [%llu, %llu]",
              (unsigned long long)v, i, (unsigned long long)lo, (unsigned long long)hi);
    CHECK_MSG((hi - lo) * 1024 < (lo > 0 ? lo : 1), "slot %zu [%llu, %llu] too wide",
              i, (unsigned long long)lo, (unsigned long long)hi);
    CHECK(bench_hist_index(lo) == i && bench_hist_index(hi) == i);
}

static void test_index_roundtrip(void)
{
    for (uint64_t v = 0; v < 200000; v++)
        check_slot_of(v);
    for (int b = 1; b < 37; b++) {          /* around every power of two in range */
        uint64_t p2 = (uint64_t)1 << b;
        check_slot_of(p2 - 1);
        check_slot_of(p2);
        check_slot_of(p2 + 1);
    }
    for (double v = 1; v <= (double)BENCH_HIST_HIGHEST; v *= 1.001)
        check_slot_of((uint64_t)v);
    rng_state = 12345;
    for (int n = 0; n < 1000000; n++)
        check_slot_of(rng_next() % (BENCH_HIST_HIGHEST + 1));
    check_slot_of(BENCH_HIST_HIGHEST);

    /* Slots tile the range: each starts one past the previous one's end. */
    for (size_t i = 0; i + 1 < BENCH_HIST_SLOTS; i++)
        CHECK_MSG(bench_hist_slot_highest(i) + 1 == bench_hist_slot_lowest(i + 1), "gap after slot %zu", i);
    CHECK(bench_hist_slot_highest(BENCH_HIST_SLOTS - 1) >= BENCH_HIST_HIGHEST);
    /* Out-of-range values share HIGHEST's slot, as record() clamps them. */
    CHECK(bench_hist_index(UINT64_MAX) == bench_hist_index(BENCH_HIST_HIGHEST));
}

static void test_uniform(void)
{
    bench_hist *h = bench_hist_new();
    CHECK(h != NULL);
    for (uint64_t v = 1; v <= 100000; v++)
        bench_hist_record(h, v);
    /* Value of rank ceil(p% of 100000) is the rank itself. */
    static const struct { double p; double want; } cases[] = {
        { 50, 50000 }, { 90, 90000 }, { 99, 99000 }, { 99.9, 99900 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double got = (double)bench_hist_percentile(h, cases[i].p);
        CHECK_MSG(rel_err(got, cases[i].want) <= 0.001, "p%g = %.0f, want %.0f", cases[i].p, got, cases[i].want);
    }
    CHECK(bench_hist_percentile(h, 0) == 1);
    CHECK(bench_hist_percentile(h, 100) == 100000);
    CHECK(bench_hist_min(h) == 1 && bench_hist_max(h) == 100000);
    CHECK(rel_err(bench_hist_mean(h), 50000.5) <= 0.001);
    bench_hist_free(h);
}

static void test_lognormal_vs_sorted(void)
{
    bench_hist *h = bench_hist_new();
    CHECK(h != NULL);
    make_lognormal();
    double sum = 0;
    for (size_t i = 0; i < LOGN; i++) {
        bench_hist_record(h, logn_vals[i]);
        sum += (double)logn_vals[i];
    }
    double mean = sum / LOGN, sq = 0;
    for (size_t i = 0; i < LOGN; i++)
        sq += ((double)logn_vals[i] - mean) * ((double)logn_vals[i] - mean);
    double sd = sqrt(sq / LOGN);

    CHECK(bench_hist_count(h) == LOGN);
    CHECK(bench_hist_min(h) == logn_sorted[0]);
    CHECK(bench_hist_max(h) == logn_sorted[LOGN - 1]);
    for (size_t k = 0; k < NPCTS; k++) {
        uint64_t want = exact_pct(logn_sorted, LOGN, pcts_x100[k]);
        uint64_t got = bench_hist_percentile(h, (double)pcts_x100[k] / 100.0);
        CHECK_MSG(rel_err((double)got, (double)want) <= 1.0 / 1024,
                  "p%g = %llu, want %llu", (double)pcts_x100[k] / 100.0,
                  (unsigned long long)got, (unsigned long long)want);
        CHECK_MSG(got <= bench_hist_max(h), "p%g above max", (double)pcts_x100[k] / 100.0);
    }
    CHECK_MSG(rel_err(bench_hist_mean(h), mean) <= 0.001, "mean %f, want %f", bench_hist_mean(h), mean);
    CHECK_MSG(rel_err(bench_hist_stddev(h), sd) <= 0.001, "stddev %f, want %f", bench_hist_stddev(h), sd);
    bench_hist_free(h);
}

static void test_merge(void)
{
    bench_hist *a = bench_hist_new(), *b = bench_hist_new(), *all = bench_hist_new(), *e = bench_hist_new();
    CHECK(a && b && all && e);
    make_lognormal();
    for (size_t i = 0; i < LOGN; i++) {
        bench_hist_record(i < LOGN / 2 ? a : b, logn_vals[i]);
        bench_hist_record(all, logn_vals[i]);
    }
    bench_hist_record(b, BENCH_HIST_HIGHEST + 7);   /* clamped counts merge too */
    bench_hist_record(all, BENCH_HIST_HIGHEST + 7);

    bench_hist_add(a, b);
    CHECK(same_hist(a, all));
    for (size_t k = 0; k < NPCTS; k++) {
        double p = (double)pcts_x100[k] / 100.0;
        CHECK_MSG(bench_hist_percentile(a, p) == bench_hist_percentile(all, p), "p%g differs", p);
    }
    CHECK(bench_hist_mean(a) == bench_hist_mean(all));

    /* Adding into an empty histogram copies; adding an empty one changes nothing. */
    bench_hist_add(e, all);
    CHECK(same_hist(e, all));
    bench_hist_reset(b);
    bench_hist_add(e, b);
    CHECK(same_hist(e, all));
    bench_hist_free(a);
    bench_hist_free(b);
    bench_hist_free(all);
    bench_hist_free(e);
}

static void test_delta(void)
{
    bench_hist *cur = bench_hist_new(), *prev = bench_hist_new(), *dst = bench_hist_new();
    CHECK(cur && prev && dst);
    record_n(dst, 777, 5);   /* stale content that delta must overwrite */

    record_n(cur, 1000, 100);
    bench_hist_delta(dst, cur, prev);
    CHECK(bench_hist_count(dst) == 100);
    CHECK(atomic_load(&dst->counts[bench_hist_index(777)]) == 0);
    CHECK(bench_hist_min(dst) == 1000 && bench_hist_max(dst) == 1000);   /* exact range */
    CHECK(bench_hist_percentile(dst, 50) == 1000);
    CHECK(bench_hist_count(prev) == 100);

    record_n(cur, 5000, 50);
    bench_hist_record(cur, BENCH_HIST_HIGHEST * 2);
    bench_hist_delta(dst, cur, prev);
    size_t i5 = bench_hist_index(5000);
    CHECK_MSG(bench_hist_count(dst) == 51, "delta count %llu", (unsigned long long)bench_hist_count(dst));
    CHECK(atomic_load(&dst->counts[bench_hist_index(1000)]) == 0);
    CHECK(atomic_load(&dst->counts[i5]) == 50);
    CHECK(atomic_load(&dst->clamped) == 1);
    CHECK(bench_hist_min(dst) == bench_hist_slot_lowest(i5));   /* bucket precision */
    CHECK(bench_hist_max(dst) == BENCH_HIST_HIGHEST);
    CHECK(rel_err((double)bench_hist_percentile(dst, 50), 5000) <= 1.0 / 1024);

    /* prev tracks cur; cur itself is untouched. */
    CHECK(bench_hist_count(prev) == 151 && bench_hist_count(cur) == 151);
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++)
        CHECK(atomic_load(&prev->counts[i]) == atomic_load(&cur->counts[i]));
    CHECK(bench_hist_min(cur) == 1000 && bench_hist_max(cur) == BENCH_HIST_HIGHEST);

    /* Nothing new: an empty delta. */
    bench_hist_delta(dst, cur, prev);
    CHECK(bench_hist_count(dst) == 0 && bench_hist_min(dst) == 0 && bench_hist_max(dst) == 0);
    CHECK(bench_hist_percentile(dst, 99) == 0 && atomic_load(&dst->clamped) == 0);
    bench_hist_free(cur);
    bench_hist_free(prev);
    bench_hist_free(dst);
}

static void test_clamp(void)
{
    bench_hist *h = bench_hist_new();
    CHECK(h != NULL);
    bench_hist_record(h, BENCH_HIST_HIGHEST);
    bench_hist_record(h, BENCH_HIST_HIGHEST + 1);
    bench_hist_record(h, UINT64_MAX);
    CHECK(bench_hist_count(h) == 3);
    CHECK(atomic_load(&h->clamped) == 2);
    CHECK(atomic_load(&h->counts[bench_hist_index(BENCH_HIST_HIGHEST)]) == 3);
    CHECK(bench_hist_max(h) == BENCH_HIST_HIGHEST && bench_hist_min(h) == BENCH_HIST_HIGHEST);
    CHECK(bench_hist_percentile(h, 100) == BENCH_HIST_HIGHEST);
    CHECK(bench_hist_percentile(h, 1) == BENCH_HIST_HIGHEST);
    bench_hist_free(h);
}

static int count_visit(void *arg, size_t index, uint64_t count)
{
    (*(size_t *)arg)++;
    return 0;
}

static void check_empty(const bench_hist *h)
{
    size_t visits = 0;
    CHECK(bench_hist_count(h) == 0);
    CHECK(bench_hist_min(h) == 0 && bench_hist_max(h) == 0);
    CHECK(bench_hist_mean(h) == 0 && bench_hist_stddev(h) == 0);
    CHECK(bench_hist_percentile(h, 0) == 0 && bench_hist_percentile(h, 50) == 0 &&
          bench_hist_percentile(h, 100) == 0);
    bench_hist_foreach(h, count_visit, &visits);
    CHECK(visits == 0);
}

static void test_empty(void)
{
    bench_hist *h = bench_hist_new();
    CHECK(h != NULL);
    check_empty(h);
    record_n(h, 123456, 9);
    bench_hist_record(h, BENCH_HIST_HIGHEST + 1);
    bench_hist_reset(h);
    check_empty(h);
    CHECK(atomic_load(&h->clamped) == 0);
    bench_hist_free(h);
    bench_hist_free(NULL);
}

struct slot_list {
    size_t n, last;
    size_t index[BENCH_HIST_SLOTS];
    uint64_t count[BENCH_HIST_SLOTS];
    int ordered;
};

static int collect_visit(void *arg, size_t index, uint64_t count)
{
    struct slot_list *l = arg;
    if (l->n > 0 && index <= l->last)
        l->ordered = 0;
    l->last = index;
    l->index[l->n] = index;
    l->count[l->n] = count;
    l->n++;
    return 0;
}

static int stop_visit(void *arg, size_t index, uint64_t count)
{
    (*(size_t *)arg)++;
    return 1;
}

static void test_serialise_roundtrip(void)
{
    bench_hist *h = bench_hist_new(), *r = bench_hist_new(), *d = bench_hist_new();
    struct slot_list *l = calloc(1, sizeof(*l));
    CHECK(h && r && d && l);
    make_lognormal();
    for (size_t i = 0; i < LOGN; i++)
        bench_hist_record(h, logn_vals[i]);

    l->ordered = 1;
    bench_hist_foreach(h, collect_visit, l);
    CHECK(l->ordered);
    for (size_t k = 0; k < l->n; k++) {
        CHECK(l->count[k] > 0);
        CHECK(bench_hist_load_slot(r, l->index[k], l->count[k]) == 0);
        CHECK(bench_hist_load_slot(d, l->index[k], l->count[k]) == 0);
    }
    bench_hist_set_extrema(r, bench_hist_min(h), bench_hist_max(h));
    CHECK(same_hist(r, h));
    for (size_t k = 0; k < NPCTS; k++) {
        double p = (double)pcts_x100[k] / 100.0;
        CHECK_MSG(bench_hist_percentile(r, p) == bench_hist_percentile(h, p), "p%g differs", p);
    }
    CHECK(bench_hist_mean(r) == bench_hist_mean(h) && bench_hist_stddev(r) == bench_hist_stddev(h));

    /* 0/0 derives extrema from the slots, at slot precision. */
    bench_hist_set_extrema(d, 0, 0);
    CHECK(bench_hist_min(d) == bench_hist_slot_lowest(l->index[0]));
    CHECK(bench_hist_max(d) == bench_hist_slot_highest(l->index[l->n - 1]));
    CHECK(bench_hist_min(d) <= bench_hist_min(h) && bench_hist_max(d) >= bench_hist_max(h));

    CHECK(bench_hist_load_slot(r, BENCH_HIST_SLOTS, 1) == -1);
    CHECK(bench_hist_count(r) == LOGN);

    size_t visits = 0;                         /* non-zero return stops the walk */
    bench_hist_foreach(h, stop_visit, &visits);
    CHECK(visits == 1);
    free(l);
    bench_hist_free(h);
    bench_hist_free(r);
    bench_hist_free(d);
}

/*
 * The sampler's pattern: one thread records while another takes deltas.
 * The deltas must add up to exactly what was recorded (and ThreadSanitizer
 * must find no race).
 */
#define CONC_N 300000
static _Atomic int conc_done;

static uint64_t conc_value(size_t i)
{
    return (i * 2654435761u) % 5000000;   /* spread over many buckets */
}

static void *conc_recorder(void *arg)
{
    bench_hist *cur = arg;
    for (size_t i = 0; i < CONC_N; i++)
        bench_hist_record(cur, conc_value(i));
    atomic_store(&conc_done, 1);
    return NULL;
}

static void test_concurrent_delta(void)
{
    bench_hist *cur = bench_hist_new(), *prev = bench_hist_new(), *dst = bench_hist_new();
    bench_hist *sum = bench_hist_new(), *want = bench_hist_new();
    pthread_t t;
    CHECK(cur && prev && dst && sum && want);
    atomic_store(&conc_done, 0);
    CHECK(pthread_create(&t, NULL, conc_recorder, cur) == 0);
    int samples = 0;
    while (!atomic_load(&conc_done)) {
        bench_hist_delta(dst, cur, prev);
        bench_hist_add(sum, dst);
        (void)bench_hist_percentile(cur, 99);   /* readers on the live histogram */
        (void)bench_hist_mean(cur);
        samples++;
    }
    pthread_join(t, NULL);
    bench_hist_delta(dst, cur, prev);
    bench_hist_add(sum, dst);

    for (size_t i = 0; i < CONC_N; i++)
        bench_hist_record(want, conc_value(i));
    CHECK_MSG(bench_hist_count(sum) == CONC_N, "deltas sum to %llu after %d samples",
              (unsigned long long)bench_hist_count(sum), samples);
    int same = 1;
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++)
        same &= atomic_load(&sum->counts[i]) == atomic_load(&want->counts[i]);
    CHECK(same);
    bench_hist_free(cur);
    bench_hist_free(prev);
    bench_hist_free(dst);
    bench_hist_free(sum);
    bench_hist_free(want);
}

int main(void)
{
    RUN(test_exact_small);
    RUN(test_index_roundtrip);
    RUN(test_uniform);
    RUN(test_lognormal_vs_sorted);
    RUN(test_merge);
    RUN(test_delta);
    RUN(test_clamp);
    RUN(test_empty);
    RUN(test_serialise_roundtrip);
    RUN(test_concurrent_delta);
    return check_finish();
}

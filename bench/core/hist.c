/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/hist.c - constant-memory log-linear latency histogram.
 *
 * HdrHistogram's layout with a fixed configuration (see hist.h): 1 ns
 * resolution, 1e11 ns range, 3 significant digits.  Bucket b covers
 * [1024 << b, 2048 << b) in 1024 slots of width 1 << b; bucket 0 also owns
 * the values below 1024, so values 0..2047 sit in the slot of the same
 * number and are exact.
 *
 * Every counter is a relaxed atomic.  Only the owner writes, so it does a
 * load and a store instead of a read-modify-write: no lock prefix, the same
 * code as plain integers on x86-64, yet a concurrent reader never sees a
 * torn value and the program has no data race.
 */
#include "bench/core/hist.h"

#include <math.h>
#include <stdlib.h>

#define LOAD(p)     atomic_load_explicit((p), memory_order_relaxed)
#define STORE(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)

/* Owner-only increment: see the top of the file for why not fetch_add. */
static void add_relaxed(_Atomic uint64_t *p, uint64_t n)
{
    STORE(p, LOAD(p) + n);
}

/* ---- slot layout -------------------------------------------------------- */

/*
 * Bucket of a value: how far its top bit lies above the 11 bits a sub-bucket
 * holds.  OR-ing in 2047 puts every value below 2048 in bucket 0 (and keeps
 * the argument of clz non-zero).
 */
static unsigned bucket_of(uint64_t v)
{
    return (unsigned)(64 - __builtin_clzll(v | (BENCH_HIST_SUB_BUCKETS - 1))) -
           (BENCH_HIST_HALF_LOG2 + 1);
}

size_t bench_hist_index(uint64_t value_ns)
{
    /* Clamp like record does, so every value has a valid slot. */
    uint64_t v = value_ns > BENCH_HIST_HIGHEST ? BENCH_HIST_HIGHEST : value_ns;
    unsigned b = bucket_of(v);
    uint64_t sub = v >> b;        /* 1024..2047, or 0..1023 in bucket 0 */

    /* Slots of bucket b start at (b + 1) * 1024; bucket 0's low half,
     * sub < 1024, wraps down to indices 0..1023 through the same formula. */
    return ((size_t)(b + 1) << BENCH_HIST_HALF_LOG2) + (size_t)sub - BENCH_HIST_HALF;
}

/* Bucket of a slot: indices below 2048 all belong to bucket 0. */
static unsigned slot_bucket(size_t index)
{
    size_t top = index >> BENCH_HIST_HALF_LOG2;
    return top == 0 ? 0 : (unsigned)(top - 1);
}

/* Indices past the end are treated as the last slot rather than shifting
 * by an out-of-range amount. */
static size_t valid_index(size_t index)
{
    return index < BENCH_HIST_SLOTS ? index : BENCH_HIST_SLOTS - 1;
}

uint64_t bench_hist_slot_lowest(size_t index)
{
    index = valid_index(index);
    unsigned b = slot_bucket(index);
    /* Inverse of bench_hist_index; added before subtracting so that
     * bucket 0's low half (index < 1024) gives sub = index without wrapping. */
    uint64_t sub = (uint64_t)(index + BENCH_HIST_HALF - ((size_t)(b + 1) << BENCH_HIST_HALF_LOG2));
    return sub << b;
}

uint64_t bench_hist_slot_highest(size_t index)
{
    index = valid_index(index);
    return bench_hist_slot_lowest(index) + ((uint64_t)1 << slot_bucket(index)) - 1;
}

/* Slot midpoint: the representative value for mean and stddev (exact for
 * the one-value slots below 2048). */
static double slot_mid(size_t index)
{
    return ((double)bench_hist_slot_lowest(index) + (double)bench_hist_slot_highest(index)) / 2.0;
}

/* ---- lifetime ----------------------------------------------------------- */

bench_hist *bench_hist_new(void)
{
    /* calloc leaves every counter, total, max and clamped at zero. */
    bench_hist *h = calloc(1, sizeof(*h));
    if (h)
        STORE(&h->min, UINT64_MAX);
    return h;
}

void bench_hist_free(bench_hist *h)
{
    free(h);
}

void bench_hist_reset(bench_hist *h)
{
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++)
        STORE(&h->counts[i], 0);
    STORE(&h->total, 0);
    STORE(&h->min, UINT64_MAX);
    STORE(&h->max, 0);
    STORE(&h->clamped, 0);
}

/* ---- recording ---------------------------------------------------------- */


/* ---- combining ---------------------------------------------------------- */

void bench_hist_add(bench_hist *dst, const bench_hist *src)
{
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        uint64_t c = LOAD(&src->counts[i]);
        if (c)
            add_relaxed(&dst->counts[i], c);
    }
    add_relaxed(&dst->total, LOAD(&src->total));
    add_relaxed(&dst->clamped, LOAD(&src->clamped));
    /* An empty src has min UINT64_MAX and max 0, so it changes neither. */
    uint64_t mn = LOAD(&src->min), mx = LOAD(&src->max);
    if (mn < LOAD(&dst->min))
        STORE(&dst->min, mn);
    if (mx > LOAD(&dst->max))
        STORE(&dst->max, mx);
}

/*
 * min/max from the first and last non-empty slots, for histograms whose exact
 * extrema are unknown.  Nothing above BENCH_HIST_HIGHEST is ever stored, so the
 * top slot's upper edge is clipped to it.  Empty gives UINT64_MAX / 0.
 */
static void derive_extrema(bench_hist *h)
{
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        if (LOAD(&h->counts[i]) == 0)
            continue;
        if (mn == UINT64_MAX)
            mn = bench_hist_slot_lowest(i);
        mx = bench_hist_slot_highest(i);
    }
    STORE(&h->min, mn);
    STORE(&h->max, mx > BENCH_HIST_HIGHEST ? BENCH_HIST_HIGHEST : mx);
}

void bench_hist_delta(bench_hist *dst, const bench_hist *cur, bench_hist *prev)
{
    uint64_t dsum = 0, csum = 0;

    bench_hist_reset(dst);
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        /* One relaxed load per counter of cur: the owner may be recording
         * into it right now.  Counters only grow, unless the owner reset
         * cur; then everything now in the slot is new. */
        uint64_t c = LOAD(&cur->counts[i]);
        uint64_t p = LOAD(&prev->counts[i]);
        uint64_t d = c >= p ? c - p : c;
        STORE(&dst->counts[i], d);
        STORE(&prev->counts[i], c);
        dsum += d;
        csum += c;
    }
    /* Totals come from the counters just read, not from cur->total, which
     * the owner updates separately and may be a record ahead or behind. */
    STORE(&dst->total, dsum);
    STORE(&prev->total, csum);

    uint64_t cc = LOAD(&cur->clamped), pc = LOAD(&prev->clamped);
    STORE(&dst->clamped, cc >= pc ? cc - pc : cc);
    STORE(&prev->clamped, cc);

    derive_extrema(dst);
}

/* ---- statistics --------------------------------------------------------- */

uint64_t bench_hist_count(const bench_hist *h)
{
    return LOAD(&h->total);
}

uint64_t bench_hist_min(const bench_hist *h)
{
    uint64_t mn = LOAD(&h->min);
    return mn == UINT64_MAX ? 0 : mn;
}

uint64_t bench_hist_max(const bench_hist *h)
{
    return LOAD(&h->max);
}

double bench_hist_mean(const bench_hist *h)
{
    double sum = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        uint64_t c = LOAD(&h->counts[i]);
        if (c) {
            sum += (double)c * slot_mid(i);
            n += c;
        }
    }
    /* Divide by the counts actually summed, so a concurrent record cannot
     * skew the result. */
    return n ? sum / (double)n : 0.0;
}

double bench_hist_stddev(const bench_hist *h)
{
    double mean = bench_hist_mean(h), sq = 0;
    uint64_t n = 0;
    /* Two passes (mean first) rather than sum of squares: no cancellation. */
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        uint64_t c = LOAD(&h->counts[i]);
        if (c) {
            double dev = slot_mid(i) - mean;
            sq += (double)c * dev * dev;
            n += c;
        }
    }
    return n ? sqrt(sq / (double)n) : 0.0;
}

/*
 * Rank of the value at percentile p: ceil(p/100 * total), at least 1.  Ceil
 * (not round) makes p100 the max and p50 of {1, 2} equal 1: the smallest v
 * with at least p% of values <= v.  Like HdrHistogram we first step p one ulp
 * down, and multiply before dividing, so that a p like 99.9 (not exact in
 * binary) cannot push an exact rank such as 99900 of 100000 up to 99901.
 */
static uint64_t percentile_rank(double p, uint64_t total)
{
    double r = ceil(nextafter(p, 0.0) * (double)total / 100.0);
    if (r < 1.0)
        return 1;
    if (r >= (double)total)
        return total;
    return (uint64_t)r;
}

uint64_t bench_hist_percentile(const bench_hist *h, double p)
{
    uint64_t total = LOAD(&h->total);
    if (total == 0)
        return 0;
    if (!(p > 0.0))          /* also catches NaN */
        return bench_hist_min(h);
    if (p > 100.0)
        p = 100.0;

    uint64_t target = percentile_rank(p, total), seen = 0;
    uint64_t max = LOAD(&h->max);
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        seen += LOAD(&h->counts[i]);
        if (seen >= target) {
            /* The slot's upper edge may lie above every recorded value;
             * a percentile must never exceed the true maximum. */
            uint64_t v = bench_hist_slot_highest(i);
            return v < max ? v : max;
        }
    }
    /* Only reachable when the owner bumped total before we saw the count. */
    return max;
}

/* ---- serialisation ------------------------------------------------------ */

void bench_hist_foreach(const bench_hist *h, bench_hist_visit_fn fn, void *arg)
{
    for (size_t i = 0; i < BENCH_HIST_SLOTS; i++) {
        uint64_t c = LOAD(&h->counts[i]);
        if (c && fn(arg, i, c))
            return;
    }
}

int bench_hist_load_slot(bench_hist *h, size_t index, uint64_t count)
{
    if (index >= BENCH_HIST_SLOTS)
        return -1;
    add_relaxed(&h->counts[index], count);
    add_relaxed(&h->total, count);
    return 0;
}

void bench_hist_set_extrema(bench_hist *h, uint64_t min, uint64_t max)
{
    /* 0/0 is unambiguous: a histogram holding only zeros derives 0/0 too,
     * because slot 0 holds exactly the value 0. */
    if (min == 0 && max == 0) {
        derive_extrema(h);
        return;
    }
    STORE(&h->min, min);
    STORE(&h->max, max);
}

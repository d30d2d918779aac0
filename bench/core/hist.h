/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/hist.h - constant-memory log-linear latency histogram.
 *
 * The layout follows HdrHistogram's scheme: values below 2048 are exact, and
 * above that each power of two is split into 1024 equal slots, so any value
 * is stored with a relative error below 1/1024 (three significant digits).
 * The range is fixed at compile time: 1 ns .. 100 s, values are nanoseconds.
 * Memory is BENCH_HIST_SLOTS counters (224 KiB), whatever the run length.
 *
 * Threading: one thread records into a histogram it owns.  Counters are
 * relaxed atomics written only by the owner, so another thread (the per-second
 * sampler) may read them while the owner records: the reader sees each counter
 * at some recent value, never a torn one.  On x86-64 a relaxed load/store pair
 * compiles to plain moves, so the owner pays nothing for this.
 */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_HIST_SIG_FIGS     3
#define BENCH_HIST_SUB_BUCKETS  2048               /* 2^ceil(log2(2*10^3)) */
#define BENCH_HIST_HALF         1024
#define BENCH_HIST_HALF_LOG2    10
#define BENCH_HIST_LOWEST       1ULL               /* ns */
#define BENCH_HIST_HIGHEST      100000000000ULL    /* 100 s in ns */
#define BENCH_HIST_BUCKETS      27                 /* 2048 << 26 > 1e11 */
#define BENCH_HIST_SLOTS        ((BENCH_HIST_BUCKETS + 1) * BENCH_HIST_HALF)

typedef struct bench_hist {
    _Atomic uint64_t counts[BENCH_HIST_SLOTS];
    _Atomic uint64_t total;       /* number of recorded values */
    _Atomic uint64_t min;         /* smallest recorded value (UINT64_MAX when empty) */
    _Atomic uint64_t max;         /* largest recorded value (0 when empty) */
    _Atomic uint64_t clamped;     /* values above BENCH_HIST_HIGHEST, stored as HIGHEST */
} bench_hist;

/* Allocate an empty histogram; NULL when out of memory. */
bench_hist *bench_hist_new(void);
void bench_hist_free(bench_hist *h);
void bench_hist_reset(bench_hist *h);

/* dst += src, exactly (same fixed layout, so nothing is ever dropped). */
void bench_hist_add(bench_hist *dst, const bench_hist *src);

/*
 * dst = cur - prev for the counters, and prev = cur afterwards: used by the
 * sampler to get "what was recorded since the last call" from a histogram
 * another thread is still recording into.  min/max of dst are derived from
 * its non-empty slots (bucket-precision).
 */
void bench_hist_delta(bench_hist *dst, const bench_hist *cur, bench_hist *prev);

uint64_t bench_hist_count(const bench_hist *h);
uint64_t bench_hist_min(const bench_hist *h);        /* 0 when empty */
uint64_t bench_hist_max(const bench_hist *h);        /* 0 when empty */
double   bench_hist_mean(const bench_hist *h);       /* 0 when empty */
double   bench_hist_stddev(const bench_hist *h);     /* population stddev; 0 when empty */

/*
 * Value at percentile p (0..100): the smallest recorded value v such that at
 * least p% of values are <= v, reported as the highest value equivalent to
 * v's slot (HdrHistogram convention), clipped to the recorded max.  p = 0
 * gives the min.  0 when empty.
 */
uint64_t bench_hist_percentile(const bench_hist *h, double p);

/* Slot layout, exposed for serialisation and tests. */
size_t   bench_hist_index(uint64_t value_ns);
uint64_t bench_hist_slot_lowest(size_t index);   /* smallest value stored in slot */
uint64_t bench_hist_slot_highest(size_t index);  /* largest value stored in slot */

/*
 * Walk the non-empty slots in increasing order; fn returns non-zero to stop.
 * Used by the JSON writer (sparse [index, count] pairs) and reporters.
 */
typedef int (*bench_hist_visit_fn)(void *arg, size_t index, uint64_t count);
void bench_hist_foreach(const bench_hist *h, bench_hist_visit_fn fn, void *arg);

/*
 * Rebuild from serialised data: set slot `index` to `count` (adds to it).
 * Returns -1 when index is out of range.  Call bench_hist_set_extrema after
 * all slots are loaded to restore exact min/max (from the file) or, with
 * 0/0, derive them from the slots.
 */
int  bench_hist_load_slot(bench_hist *h, size_t index, uint64_t count);
void bench_hist_set_extrema(bench_hist *h, uint64_t min, uint64_t max);

/*
 * Record one value.  Owner thread only.  Inline: every engine records each
 * operation's latency, and a workload's side metrics use it too.  The slot of
 * a value is its bucket b (how far its top bit lies above the 11 bits a
 * sub-bucket holds; values below 2048 are bucket 0) and its top 11 bits:
 * bucket b's slots start at (b + 1) * 1024 (see hist.c).
 */
static inline void bench_hist_record(bench_hist *h, uint64_t value_ns)
{
    uint64_t v = value_ns;
    if (v > BENCH_HIST_HIGHEST) {
        v = BENCH_HIST_HIGHEST;
        atomic_store_explicit(&h->clamped, atomic_load_explicit(&h->clamped, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    const unsigned b = (unsigned)(64 - __builtin_clzll(v | (BENCH_HIST_SUB_BUCKETS - 1))) -
                       (BENCH_HIST_HALF_LOG2 + 1);
    _Atomic uint64_t *const c =
        &h->counts[((size_t)(b + 1) << BENCH_HIST_HALF_LOG2) + (size_t)(v >> b) - BENCH_HIST_HALF];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
    atomic_store_explicit(&h->total, atomic_load_explicit(&h->total, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (v < atomic_load_explicit(&h->min, memory_order_relaxed))
        atomic_store_explicit(&h->min, v, memory_order_relaxed);
    if (v > atomic_load_explicit(&h->max, memory_order_relaxed))
        atomic_store_explicit(&h->max, v, memory_order_relaxed);
}

#endif

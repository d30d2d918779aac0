/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/side.h - side metrics: what a workload measures beside each
 * operation's latency (the stages of a request, a server's own timings,
 * counts by outcome), recorded through the core.  How the results show
 * them (names, units, views) is the workload's: bench/results/section.h.
 *
 * A workload declares how many distributions and counters it keeps
 * (bench_side_spec).  The pool gives every worker thread its own recorder
 * (bench_side), which the workload's states get through side_bind() before
 * the clock starts; the workload notes what an operation did in its own
 * state while the operation runs and records it from side_flush(), which
 * the core calls after the operation, outside the timed path, with the
 * recorder switched on only when the operation belongs to the measured part
 * of the run: one warm-up rule for every figure.  A recorder is owned by one
 * thread, so recording takes no lock; the pool merges the recorders after
 * the threads are joined (bench_outcome.side).
 */
#ifndef BENCH_SIDE_H
#define BENCH_SIDE_H

#include <stdint.h>

#include "bench/core/hist.h"

typedef struct bench_side_spec {
    unsigned nhist;        /* distributions, in nanoseconds */
    unsigned ncount;       /* counters */
} bench_side_spec;

typedef struct bench_side {
    int          on;       /* set by the core: the current operation is measured */
    unsigned     nhist, ncount;
    bench_hist **hist;     /* made on first use: a distribution never recorded costs nothing */
    uint64_t    *count;
    int          lost;     /* a distribution could not be made (out of memory) */
} bench_side;

/* 0, or -1 when out of memory.  A zero spec gives an empty recorder. */
int  bench_side_init(bench_side *s, const bench_side_spec *spec);
void bench_side_free(bench_side *s);

/* Make distribution i on its first value: 0, or -1 when out of memory
 * (then s->lost is set).  For bench_side_record. */
int bench_side_make(bench_side *s, unsigned i);

/* Record a value of distribution i (ns), when the recorder is on. */
static inline void bench_side_record(bench_side *s, unsigned i, uint64_t ns)
{
    if (!s->on || i >= s->nhist || (!s->hist[i] && bench_side_make(s, i) != 0))
        return;
    bench_hist_record(s->hist[i], ns);
}

/* Add n to counter i, when the recorder is on. */
static inline void bench_side_add(bench_side *s, unsigned i, uint64_t n)
{
    if (s->on && i < s->ncount)
        s->count[i] += n;
}

/* Distribution i, or NULL when nothing was recorded in it. */
static inline const bench_hist *bench_side_hist(const bench_side *s, unsigned i)
{
    return s && i < s->nhist ? s->hist[i] : NULL;
}

static inline uint64_t bench_side_count(const bench_side *s, unsigned i)
{
    return s && i < s->ncount ? s->count[i] : 0;
}

/* Merge `from` into `into` (same spec): exact.  0, or -1 when out of memory. */
int bench_side_merge(bench_side *into, const bench_side *from);

#endif

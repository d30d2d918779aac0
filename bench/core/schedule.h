/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/schedule.h - when a non-blocking run's requests fall due.
 *
 * A pure function of its parameters (no pool, no clock): the dispatcher
 * asks it for each next due time, and the unit tests ask it directly.
 * The schedule is a fixed rate, or a ramp of rates (bench/core/stages.h) whose
 * time 0 is `start_ns`, or recorded arrivals (bench_arrivals: hsmbench
 * replay), each request due at its own offset from the run's start.
 */
#ifndef BENCH_SCHEDULE_H
#define BENCH_SCHEDULE_H

#include <stdint.h>

#include "bench/core/stages.h"

/* Steps in which the schedule's rate is integrated (1 ms). */
#define BENCH_SCHEDULE_STEP_NS 1000000ULL

/*
 * The rate (requests/s) at time t: the ramp's value t - start_ns into it
 * (0 into it before start_ns) when `stages` is not NULL, else `rate`.
 */
double bench_schedule_rate_at(double rate, const bench_stages *stages, uint64_t start_ns,
                              uint64_t t);

/*
 * When the next request falls due after one due at `from`: where the rate
 * accumulates one more request, integrated from `from` in steps of 1 ms
 * (at the foot of a ramp the rate is tiny, and 1/rate there would skip the
 * whole ramp).  Within a step the due time is truncated to the nanosecond.
 * UINT64_MAX when no step starting before `end` reaches it (a due time may
 * lie up to one step past `end`).
 */
uint64_t bench_schedule_next_due(double rate, const bench_stages *stages, uint64_t start_ns,
                                 uint64_t from, uint64_t end);

/*
 * How many requests fall due before `until`, from the one due at *next on
 * (bench_schedule_next_due's times, none skipped); *next becomes the first
 * due time at or after `until` (UINT64_MAX when the schedule ends first,
 * `end` bounding it as for next_due).  A fixed rate of one request a step
 * or more is counted without walking each due time.  What the schedule
 * asked for in an interval, whatever was issued: the per-second target.
 */
uint64_t bench_schedule_count(double rate, const bench_stages *stages, uint64_t start_ns,
                              uint64_t *next, uint64_t until, uint64_t end);

/*
 * Recorded arrivals: the run's requests fall due at these offsets from its
 * start (ascending, ties allowed, already divided by any speed factor),
 * once, or again every period_ns (pass q's request j at at_ns[j] + q *
 * period_ns; the period is longer than the last offset).  Requests are
 * counted by index, not by time, so ties are kept apart.
 */
typedef struct bench_arrivals {
    const uint64_t *at_ns;
    size_t          n;          /* at least 1 */
    uint64_t        period_ns;  /* 0: one pass */
} bench_arrivals;

/* Whether a holds a schedule the core can run: n > 0, ascending, and a
 * period (when any) past the last offset. */
int bench_arrivals_valid(const bench_arrivals *a);

/* The i-th request's due time (from the run's start, 0-based); UINT64_MAX
 * past the last of a single pass. */
uint64_t bench_arrivals_due(const bench_arrivals *a, uint64_t i);

/* How many requests fall due before t (from the run's start): the index of
 * the first due at or after it. */
uint64_t bench_arrivals_before(const bench_arrivals *a, uint64_t t);

#endif

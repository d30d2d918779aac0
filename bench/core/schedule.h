/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/schedule.h - when a non-blocking run's requests fall due.
 *
 * A pure function of its parameters (no pool, no clock): the dispatcher
 * asks it for each next due time, and the unit tests ask it directly.
 * The schedule is a fixed rate, or a ramp of rates (bench/core/stages.h) whose
 * time 0 is `start_ns`.
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

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/clock.h - the one clock every measurement uses. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

#define BENCH_NS_PER_S 1000000000ULL

/* CLOCK_MONOTONIC in nanoseconds: a vDSO call (~20 ns), never a syscall on
 * machines with a TSC clocksource. */
static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * BENCH_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* This process's CPU time (user + system, every thread) in nanoseconds, or
 * 0 when the clock cannot be read. */
static inline uint64_t bench_process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * BENCH_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Sleep until an absolute CLOCK_MONOTONIC time; returns early on a signal. */
static inline void bench_sleep_until_ns(uint64_t t)
{
    struct timespec ts = { (time_t)(t / BENCH_NS_PER_S), (long)(t % BENCH_NS_PER_S) };
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/schedule.c - due times of a rate, a ramp of rates or recorded
 * arrivals (schedule.h).
 */
#include "bench/core/schedule.h"

double bench_schedule_rate_at(double rate, const bench_stages *stages, uint64_t start_ns,
                              uint64_t t)
{
    if (stages)
        return bench_stages_at(stages, t > start_ns ? t - start_ns : 0);
    return rate;
}

uint64_t bench_schedule_next_due(double rate, const bench_stages *stages, uint64_t start_ns,
                                 uint64_t from, uint64_t end)
{
    const uint64_t step = BENCH_SCHEDULE_STEP_NS;
    double need = 1.0;
    uint64_t t = from;
    while (t < end) {
        double r = bench_schedule_rate_at(rate, stages, start_ns, t);
        if (r > 0 && need / r * 1e9 <= (double)step)
            return t + (uint64_t)(need / r * 1e9);
        need -= r * ((double)step / 1e9);
        t += step;
    }
    return UINT64_MAX;
}

uint64_t bench_schedule_count(double rate, const bench_stages *stages, uint64_t start_ns,
                              uint64_t *next, uint64_t until, uint64_t end)
{
    uint64_t n = 0;
    if (*next >= until || *next == UINT64_MAX)
        return 0;
    if (!stages && rate > 0 && until <= end) {
        /* Every gap is the same whole number of ns (next_due's, from 0);
         * before `end` each due time has its successor. */
        const uint64_t gap = bench_schedule_next_due(rate, NULL, 0, 0, 1);
        if (gap != UINT64_MAX && gap > 0 && gap <= BENCH_SCHEDULE_STEP_NS) {
            n = (until - *next + gap - 1) / gap;
            *next += n * gap;
            return n;
        }
    }
    while (*next < until) {
        n++;
        *next = bench_schedule_next_due(rate, stages, start_ns, *next, end);
    }
    return n;
}

int bench_arrivals_valid(const bench_arrivals *a)
{
    if (!a || !a->at_ns || a->n == 0)
        return 0;
    for (size_t i = 1; i < a->n; i++)
        if (a->at_ns[i] < a->at_ns[i - 1])
            return 0;
    return a->period_ns == 0 || a->period_ns > a->at_ns[a->n - 1];
}

uint64_t bench_arrivals_due(const bench_arrivals *a, uint64_t i)
{
    if (!a->period_ns)
        return i < a->n ? a->at_ns[i] : UINT64_MAX;
    const uint64_t pass = i / a->n;
    if (pass > (UINT64_MAX - a->at_ns[a->n - 1]) / a->period_ns)
        return UINT64_MAX;   /* past what a clock reads */
    return a->at_ns[i % a->n] + pass * a->period_ns;
}

/* Offsets of one pass before t: the first index whose offset is >= t. */
static uint64_t pass_before(const bench_arrivals *a, uint64_t t)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (a->at_ns[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t bench_arrivals_before(const bench_arrivals *a, uint64_t t)
{
    if (!a->period_ns)
        return pass_before(a, t);
    return (t / a->period_ns) * a->n + pass_before(a, t % a->period_ns);
}

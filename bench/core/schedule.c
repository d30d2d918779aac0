/*
 * bench/core/schedule.c - due times of a rate or a ramp of rates (schedule.h).
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

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/stages.h - load profiles in k6's stage syntax: "5s:70,30s:70,5s:0"
 * ramps linearly to 70 over 5 s, holds 70 for 30 s, ramps to 0 over 5 s.
 * The target is threads in blocking mode and operations/s in non-blocking
 * mode; the profile starts from 0.
 */
#ifndef BENCH_STAGES_H
#define BENCH_STAGES_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_STAGES_MAX 64

typedef struct bench_stage {
    uint64_t duration_ns;
    double   target;
} bench_stage;

typedef struct bench_stages {
    bench_stage s[BENCH_STAGES_MAX];
    size_t      n;
} bench_stages;

/* Parse; -1 with a one-line message naming the flag on error.  Targets
 * must be in [0, max_target]. */
int bench_stages_parse(const char *flag, const char *text, double max_target, bench_stages *out);

/* Sum of the stage durations. */
uint64_t bench_stages_total_ns(const bench_stages *st);

/* The target at time t (ns since the profile began); the last target after
 * the end. */
double bench_stages_at(const bench_stages *st, uint64_t t_ns);

/* The largest target anywhere in the profile. */
double bench_stages_peak(const bench_stages *st);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/progress.h - a one-line progress bar for long runs on a terminal:
 *
 *   [██████████░░░░░░░░░░░░░░]  12s/30s  40%   5123 ops/s
 *
 * It draws only when enabled (not --quiet), the stream is a terminal, and the
 * run is long enough to want one (BENCH_PROGRESS_MIN_S or more, or of unknown
 * length once that much time has passed).  Otherwise every call does nothing,
 * so a caller can call it unconditionally.  Not thread-safe: call it from one
 * thread (the sampler).
 *
 * Other output to the same terminal must not be written over the bar: call
 * bench_progress_clear before printing (the per-second line, say) and
 * bench_progress_update after to draw it again.
 */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdio.h>

#define BENCH_PROGRESS_MIN_S 3.0

typedef struct bench_progress {
    FILE  *f;
    double total_s;     /* 0: unknown (iterations bound the run) */
    int    active;      /* enabled and a terminal */
    int    shown;       /* a bar is on the screen now */
    int    width;       /* terminal columns */
} bench_progress;

/* Start: total_s is the run's expected length in seconds (warm-up included
 * if the caller counts it), or 0 when unknown. */
void bench_progress_begin(bench_progress *p, FILE *f, double total_s, int enabled);

/* Draw the bar for elapsed_s seconds and the current rate. */
void bench_progress_update(bench_progress *p, double elapsed_s, double ops_per_s);

/* Erase the bar (if shown) so that other output can be printed. */
void bench_progress_clear(bench_progress *p);

/* Erase the bar for good. */
void bench_progress_end(bench_progress *p);

#endif

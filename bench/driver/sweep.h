/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/sweep.h - a load's sweep: one run at each thread count of a
 * --threads list and each data size of a list, each run once or --repeat N
 * times in a row, until the session stops.  The command says what one
 * point runs; the driver walks the points.
 */
#ifndef BENCH_SWEEP_H
#define BENCH_SWEEP_H

#include <stddef.h>

#include "bench/core/pool.h"
#include "bench/driver/loadopts.h"
#include "bench/driver/session.h"

/* One run of a point: the load already at its thread count; data, the
 * index of its data size (0..ndata-1). */
typedef void (*bench_sweep_point)(void *arg, size_t data);

/*
 * For every thread count of lo's list (load->threads set to it: the list
 * holds the counts, a blocking --stages's peak included) and, at each,
 * every one of ndata data sizes (1: none swept): point, repeat times in a
 * row (0: once), the session's repeat_run numbering them; a point's
 * repeats stop at the first that measured nothing (skipped, or failed
 * before its pool: so would the others be), and the sweep stops when the
 * session is interrupted or a worker is stuck.
 */
void bench_sweep_run(bench_session *s, const bench_load_opts *lo, bench_load *load, size_t ndata,
                     unsigned repeat, bench_sweep_point point, void *arg);

#endif

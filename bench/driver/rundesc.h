/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/rundesc.h - the run description's load fields, from the load.
 *
 * Every command that drives the core describes each run (bench_run_desc,
 * bench/results/report.h) for the header, the summary and the results;
 * what it says of the load (mode, threads, bounds, warm-up, schedule,
 * ramp, think time, engine) is taken from the bench_load the run is given,
 * here and nowhere else.
 */
#ifndef BENCH_RUNDESC_H
#define BENCH_RUNDESC_H

#include "bench/core/pool.h"
#include "bench/results/report.h"

/*
 * Set d's load fields from l; the others (test, mechanism, key, data size)
 * are the caller's.  stages_text is the --stages text (shown when l has
 * stages); engine and slots say how a non-blocking run executes ("worker
 * pool", "curl multi"; slots in flight at most) and are dropped for a
 * blocking one, as are the rate and the window.
 */
void bench_run_desc_load(bench_run_desc *d, const bench_load *l, const char *stages_text,
                         const char *engine, unsigned slots);

#endif

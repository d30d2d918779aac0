/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/scalability.h - the analysis of a blocking thread sweep: the runs of
 * a results document that differ only in thread count, fitted with the
 * Universal Scalability Law (bench/results/usl.h), with the predicted peak and the
 * knee.  Works on the "runs" array of the JSON document, so a live run (the
 * run driver, after the closing table), `hsmbench report` and the HTML page
 * share it, whatever workload wrote the runs.
 *
 * A sweep is a group of runs in blocking mode, without --stages, with the
 * same test, key, data size and --think, and at least two distinct thread
 * counts.  Its points are the runs whose status is "ok" (failed and
 * interrupted runs are left out and counted); with fewer than 3 distinct
 * thread counts among them there is no fit, and the element says why.
 *
 * The knee is where throughput stops paying for its latency: the measured
 * point with the largest Kleinrock power X/R, R the mean time a thread spends
 * per operation, which in a closed loop is N/X (Little's law), so power =
 * X²/N; ties go to fewer threads.  The same maximum on the fitted curve is
 * given too ("fitted_threads").
 */
#ifndef BENCH_SCALABILITY_H
#define BENCH_SCALABILITY_H

#include <stdio.h>
#include <jansson.h>

/*
 * One element per sweep, in the order of each sweep's first run
 * (docs/results-schema.md, "scalability"); an empty array when the runs hold
 * no sweep; NULL when out of memory.
 */
json_t *bench_scalability(const json_t *runs);

/* The analysis for people, a few lines per element of scal. */
void bench_scalability_print(FILE *f, const json_t *scal);

/* The element of scal for the sweep run belongs to (same test, mode, key and
 * data size), or NULL. */
const json_t *bench_scalability_find(const json_t *scal, const json_t *run);

#endif

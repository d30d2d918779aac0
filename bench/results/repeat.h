/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/repeat.h - the interval between runs of run --repeat N.
 *
 * --until-stable's interval (a run's "stable") is of one run's steady
 * state: batch means inside it.  Run to run a token differs more than
 * that (its caches, its other clients, the host's clock and cores), so a
 * question about the token is answered by several full runs of the same
 * load: run --repeat N runs each test N times in a row, each its own run
 * element marked "repeat": {"run": k, "of": N}, and this is their
 * figure: over the group's runs whose status is "ok", the mean of their
 * ops_per_s (and of their latency_us p50 and p99) with its 95 % Student t
 * interval, mean ± t(0.975, n - 1) s / sqrt(n), s the runs' standard
 * deviation.
 *
 * Works on the "runs" array of a results document, as the thread sweeps'
 * analysis does (scalability.h): the run driver after the closing table,
 * `hsmbench report`, the HTML page and `compare` all call it, so the
 * figure is computed here and only here (docs/results-schema.md,
 * "repeats").
 */
#ifndef BENCH_REPEAT_H
#define BENCH_REPEAT_H

#include <stdio.h>
#include <jansson.h>

/* --repeat N: 2 to this many runs of each test. */
#define BENCH_REPEAT_MAX 1000

/* The "repeats" element's name of the method. */
#define BENCH_REPEAT_METHOD "Student t, 95 %, between runs"

/*
 * One element per group of repeated runs (a run marked "repeat" with run 1
 * and the runs that follow it, run 2, 3, ... of the same "of"), in the
 * order of the runs; an empty array when there is none; NULL when out of
 * memory.
 */
json_t *bench_repeats(const json_t *runs);

/*
 * A group's answer for people, from its element: "rsa-pkcs-sign, RSA 2048,
 * 4 threads: ops/s over 3 runs: 1997.14 ±1.20 % (95 %, t, between runs:
 * 1973.20 to 2021.08); p50 1.99ms ±0.50 %, p99 2.51ms ±3.10 %", or the
 * group's runs and why there is no interval.
 */
const char *bench_repeat_text(const json_t *el, char *buf, size_t len);

/* Every element of reps, a line each after a heading; nothing when reps is
 * empty. */
void bench_repeats_print(FILE *f, const json_t *reps);

#endif

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
 * "repeats"); its views take bench_repeat_groups, read from the elements
 * once, here.
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

/* One interval of a group (ops_per_s, p50_us, p99_us). */
typedef struct bench_repeat_interval {
    int    present;          /* 0: the element has none */
    double mean, low, high;  /* the mean and its 95 % interval */
    int    has_half;         /* 0: no half-width (a mean of 0) */
    double half_width_pct;   /* of the mean */
} bench_repeat_interval;

/* A group as its views show it, read once from its "repeats" element
 * (bench_repeat_groups_read). */
typedef struct bench_repeat_group {
    char      test[96];
    char      key[64];       /* "RSA 2048"; "-" without a key */
    long long threads;
    long long n;             /* runs counted (status ok) */
    long long of;            /* runs asked (--repeat N) */
    long long runs;          /* runs of the group in the file */
    bench_repeat_interval ops_per_s, p50_us, p99_us;
} bench_repeat_group;

typedef struct bench_repeat_groups {
    bench_repeat_group *v;
    size_t              n;
} bench_repeat_groups;

/* Read reps (an array of "repeats" elements; anything else reads as no
 * group) into g: 0, or -1 when out of memory (g is then empty).  Release
 * with bench_repeat_groups_free. */
int  bench_repeat_groups_read(const json_t *reps, bench_repeat_groups *g);

/* The groups of runs (bench_repeats) read into g: 0, or -1 when out of
 * memory. */
int  bench_repeat_groups_of(const json_t *runs, bench_repeat_groups *g);
void bench_repeat_groups_free(bench_repeat_groups *g);

/*
 * A group's answer for people: "rsa-pkcs-sign, RSA 2048, 4 threads: ops/s
 * over 3 runs: 1997.14 ±1.20 % (95 %, t, between runs: 1973.20 to
 * 2021.08); p50 1.99ms ±0.50 %, p99 2.51ms ±3.10 %", or the group's runs
 * and why there is no interval.
 */
const char *bench_repeat_text(const bench_repeat_group *g, char *buf, size_t len);

/* Every group, a line each after a heading; nothing when there is none. */
void bench_repeats_print(FILE *f, const bench_repeat_groups *g);

#endif

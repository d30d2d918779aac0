/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/loadopts.h - the load flags every command that drives the core
 * shares (run, rest): threads, bounds, warm-up, mode, schedule, stages,
 * think time.  One parser, one set of rules, one help text.
 */
#ifndef BENCH_LOADOPTS_H
#define BENCH_LOADOPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/results/metrics.h"
#include "bench/core/pool.h"
#include "bench/core/stages.h"
#include "bench/util/options.h"

#define BENCH_MAX_THREADS 1024
#define BENCH_MAX_SWEEP   32

typedef struct bench_load_opts {
    bench_load   load;
    bench_stages stages;
    const char  *stages_text;
    char         stages_buf[512];   /* k6's --stage A --stage B: "A,B" (stages_text) */
    /* The thread counts (--threads 1,2,4; after bench_load_finish, the one
     * count, or a blocking --stages's peak, when no list was given): their
     * one owner; load.threads is the count the load runs at, set from it. */
    unsigned     threads_list[BENCH_MAX_SWEEP];
    size_t       nthreads;
    int          threads_given, has_duration, iter_total;
    const char  *per_thread_flag;                 /* "--loops" or "--iterations-per-thread" given */
    int          mode_given;                      /* --mode blocking|nonblocking given */
    int          max_unstarted_given;             /* --max-unstarted given */
    int          stuck_given;                     /* --stuck-after given */
    bench_metrics_opts metrics;                   /* --metrics-listen, --metrics-linger */
} bench_load_opts;

enum {
    BENCH_OPT_THREADS = 1100, BENCH_OPT_DURATION, BENCH_OPT_ITERATIONS, BENCH_OPT_ITER_THREAD,
    BENCH_OPT_WARMUP, BENCH_OPT_MODE, BENCH_OPT_RATE, BENCH_OPT_INFLIGHT, BENCH_OPT_STAGES,
    BENCH_OPT_THINK, BENCH_OPT_ABORT, BENCH_OPT_MAX_UNSTARTED, BENCH_OPT_STUCK,
    BENCH_OPT_LOOPS, BENCH_OPT_RAMP_UP, BENCH_OPT_UNTIL_STABLE,
};

/* --stuck-after: by default a worker inside one call for 10 s is stuck
 * (bench_load.stuck_ns); a command whose calls have their own bound
 * (rest's --timeout) takes that bound plus this margin when it is longer. */
#define BENCH_STUCK_DEFAULT_NS (10ULL * 1000000000ULL)
#define BENCH_STUCK_MARGIN_NS  (5ULL * 1000000000ULL)

/* --abort-on-errors: by default a run stops once this long a stretch of
 * measured seconds had nothing but failures. */
#define BENCH_ABORT_DEFAULT_NS (3ULL * 1000000000ULL)

/* The Load and Metrics groups of the option table (bench/util/options.h);
 * --mode is in Load: rest sdkms takes cipher modes there too. */
extern const bench_opt_group bench_load_group;
extern const bench_opt_group bench_metrics_group;

void bench_load_opts_init(bench_load_opts *o);

/* Take one load option: 1 taken, 0 not a load option, -1 bad value (printed);
 * arg is argv's own text (bench_metrics_opt masks a push URL's secrets in it). */
int bench_load_opt(bench_load_opts *o, int code, char *arg);

/* Is this --mode value a load mode (blocking, nonblocking)? */
int bench_load_is_mode(const char *value);

/* --until-stable's PCT ("2%" or "2"): more than 0 and at most
 * BENCH_STABLE_MAX_PCT, or 0 too (off) when zero_off; -1 (printed, naming
 * the flag and the range) otherwise. */
int bench_parse_stable_pct(const char *text, int zero_off, double *pct);

/* A command whose every call is bounded by call_bound_ns (--timeout):
 * --stuck-after, when not given, is at least that plus BENCH_STUCK_MARGIN_NS. */
void bench_load_stuck_floor(bench_load_opts *o, uint64_t call_bound_ns);

/*
 * After parsing: check the flags agree, apply stages and defaults
 * (default_duration_ns when nothing bounds the run).  -1 (printed) when
 * they contradict each other.
 */
int bench_load_finish(bench_load_opts *o, uint64_t default_duration_ns);

/*
 * Before a run: are there file descriptors enough for its load?  About
 * BENCH_FDS_BASE (the process's own: stdio, the module or libcurl, output
 * files, metrics) + per_thread for each thread of the largest count (a
 * --threads list's, or a blocking --stages's peak) + per_slot for each
 * connection (a blocking thread's one; a non-blocking run's --inflight,
 * else 16 a thread).  When the soft limit (ulimit -n) is short and the hard
 * one would do, the soft one is raised to it, with a warning saying so;
 * otherwise -1 with "--threads 500 needs about 532 file descriptors; the
 * limit (ulimit -n) is 64" printed (the caller exits 2).
 */
#define BENCH_FDS_BASE 32
int bench_load_check_fds(const bench_load_opts *o, unsigned per_thread, unsigned per_slot);

#endif

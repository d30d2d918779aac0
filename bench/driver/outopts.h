/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/outopts.h - the output flags every command that runs load shares
 * (run, menu's equivalent command, rest ekm|sdkms|http): results files,
 * thresholds, the --start-at gate, --quiet.  One parser, one set of checks,
 * one help text; the run driver (session.h) acts on them.
 */
#ifndef BENCH_OUTOPTS_H
#define BENCH_OUTOPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/results/threshold.h"
#include "bench/util/options.h"

#define BENCH_MAX_THRESHOLDS 32

typedef struct bench_out_opts {
    /* Set by the command before parsing: the workload sections whose side
     * metrics --threshold may name and the HTML page shows (NULL: none). */
    const bench_section *const *sections;
    const char     *json, *csv, *html;        /* NULL: not asked; "-": stdout (one of them) */
    bench_threshold thresholds[BENCH_MAX_THRESHOLDS];
    size_t          nthresholds;
    uint64_t        start_at_ms;               /* --start-at: wall clock to begin at (0: now) */
    double          start_window_s;            /* --start-window: how late a generator may join */
    int             start_window_set;          /* given (else BENCH_START_WINDOW_DEFAULT_S) */
    const char     *run_id;                    /* --run-id; bench_out_finish fills the default */
    const char     *generator;                 /* --generator; "0" when not given */
    const char     *jsonl;                     /* --out jsonl=FILE: the per-second stream (NULL: none) */
    const char     *jtl;                       /* --out jtl=FILE: a JMeter CSV line a request (NULL: none) */
    char            run_id_buf[64];            /* the default run id */
    int             quiet;
} bench_out_opts;

/* A generator that gets to the --start-at gate later than this joins no more. */
#define BENCH_START_WINDOW_DEFAULT_S 10.0

enum {
    BENCH_OPT_JSON = 1300, BENCH_OPT_CSV, BENCH_OPT_HTML, BENCH_OPT_THRESHOLD, BENCH_OPT_START_AT,
    BENCH_OPT_QUIET, BENCH_OPT_START_WINDOW, BENCH_OPT_RUN_ID, BENCH_OPT_GENERATOR, BENCH_OPT_OUT,
};

/* The Output group of the option table (without -h, which each command lists). */
extern const bench_opt_group bench_out_group;

/* For bench_opts_help_more: after --threshold, the side metrics of the
 * sections (a const bench_section *const *, NULL-terminated) it may name. */
void bench_out_help_more(const void *sections, int code, FILE *f);

/* Take one output option: 1 taken, 0 not an output option, -1 bad value (printed). */
int bench_out_opt(bench_out_opts *o, int code, const char *arg);

/*
 * After parsing: every output file can be written, at most one of them is
 * standard output ("-"), and every TEST:EXPR
 * threshold names one of the `ntests` tests this command will run.
 * -1 (printed) when not.  Fills the defaults: the start window, the run id
 * (the --start-at time, so that every generator of a fleet has the same
 * one, else the UTC start time 20260102T030405Z), the generator (0).
 */
int bench_out_finish(bench_out_opts *o, const char *const *tests, size_t ntests);

/* True when one of the documents, or the --out stream, goes to standard
 * output ("-"): the run's human output then goes to standard error
 * (bench_session_init). */
int bench_out_to_stdout(const bench_out_opts *o);

#endif

/*
 * p11/runner.h - run catalogue tests on an open token, one after another,
 * collecting their JSON and a row each for the closing table.  Shared by
 * "hsmbench run" and the interactive menu.
 */
#ifndef P11_RUNNER_H
#define P11_RUNNER_H

#include <signal.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/metrics.h"
#include "bench/pool.h"
#include "bench/progress.h"
#include "p11/target.h"
#include "p11/tests.h"

typedef struct p11_row {
    char     test[40], key[32], status[16], reason[200];
    uint64_t data_size;
    unsigned threads;
    double   ops_per_s, p50_us, p99_us, error_pct;
    int      deprecated;
} p11_row;

typedef struct p11_runner {
    p11_target                  *target;
    bench_load                   load;
    bench_stages                 stages;      /* load.stages points here when given */
    const char                  *stages_text; /* as the user wrote it */
    int                          quiet;
    const bench_flag            *interrupt;
    bench_second_fn              on_second;   /* NULL: pkpspeed's line on stdout unless quiet */
    void                        *arg;
    bench_metrics               *metrics;     /* --metrics-listen, or NULL */
    json_t                      *runs;        /* the "runs" array of the results file */
    p11_row                     *rows;
    size_t                       nrows, cap;
    int                          any_failed, any_errors, interrupted;
    uint64_t                     start_at_ms; /* --start-at: wall clock to begin at (0: now) */
    uint64_t                     first_epoch_ms;  /* measuring start of the first run */
    bench_progress               progress;    /* on stderr, on a terminal, unless quiet */
    /* Keys and input of the last test, kept for the next run when only the
     * thread count changes (a sweep shares its keys). */
    p11_test_ctx                *kept;
    const p11_test_def          *kept_def;
    p11_test_params              kept_params;
    double                       progress_elapsed;
} p11_runner;

/* 0, or -1 when out of memory. */
int  p11_runner_init(p11_runner *r, p11_target *t, const bench_load *load,
                     const char *stages_text, int quiet, const bench_flag *interrupt);
/* Check, prepare, run, report and clean up one test (params already resolved or not). */
void p11_runner_test(p11_runner *r, const p11_test_def *def, const p11_test_params *params);
/* Destroy the keys kept for a next run (before the token is closed). */
void p11_runner_release(p11_runner *r);
/* The closing table of every test run so far. */
void p11_runner_table(const p11_runner *r, FILE *f);
void p11_runner_free(p11_runner *r);

#endif

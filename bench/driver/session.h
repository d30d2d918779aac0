/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/session.h - the run driver: everything around a run, written once
 * for every workload.
 *
 * A command (run, menu, rest ekm|sdkms|http) parses its flags, opens its
 * target and makes a workload; the session does the rest: the run's header,
 * the --start-at gate, the progress bar, the per-second lines, the summary,
 * the run's JSON element, the closing table, the thresholds, the results
 * document (JSON, CSV, HTML), the exit status.  A workload adds its own
 * summary lines and JSON fields through hooks; it never owns the lifecycle.
 *
 *   bench_session_init(&s, &out_opts, interrupt);
 *   for each run:  bench_session_run(&s, &desc, &workload, &load, &hooks)
 *              or  bench_session_not_run(&s, &desc, "skipped", why, &hooks)
 *   rc = bench_session_finish(&s, environment, command);
 *   bench_session_free(&s);
 */
#ifndef BENCH_SESSION_H
#define BENCH_SESSION_H

#include <stdio.h>
#include <time.h>
#include <jansson.h>

#include "bench/results/metrics.h"
#include "bench/driver/outopts.h"
#include "bench/core/pool.h"
#include "bench/driver/progress.h"
#include "bench/results/report.h"
#include "bench/results/jtl.h"
#include "bench/results/stream.h"

/* A row of the closing table. */
typedef struct bench_row {
    char     test[48], key[40], status[16], reason[200];
    uint64_t data_size;
    unsigned threads;
    int      measured, has_latency, deprecated;
    double   ops_per_s, p50_ns, p99_ns, error_pct;
} bench_row;

/* What a workload adds to a run; every member may be NULL / 0. */
typedef struct bench_run_hooks {
    void *arg;
    /* A line printed after the header ("(3des-... is deprecated ...)"). */
    const char *note;
    int         deprecated;       /* marked so in the closing table */
    /* Fields of the run's JSON element; o is NULL for a run not measured.
     * The one place a workload computes figures of its own (its sections,
     * from the outcome's side metrics), before the run model is read from
     * the element.  0, or -1 when out of memory (the run then counts as
     * failed). */
    int  (*json)(void *arg, json_t *run, const bench_outcome *o);
    /* Lines after the core's summary (the HTTP block): rendered from the
     * run's element, its fields included, and its model, as every view is. */
    void (*summary)(void *arg, FILE *f, const json_t *run, const bench_run_model *m);
    /* After a measured run, quiet or not (JMeter's summary line), from the
     * same element and model; non-zero counts as a failure. */
    int  (*done)(void *arg, const json_t *run, const bench_run_model *m);
    /* The run's name in the live metrics (NULL: the test's). */
    const char *series;
    /* Each measured interval as the sampler took it (every second, and the
     * last, partial one however short), quiet or not: views that keep
     * running totals (JMeter's summariser).  On the sampler's thread. */
    void (*second)(void *arg, const bench_sample *smp);
} bench_run_hooks;

/* How a generator met the --start-at gate. */
enum { BENCH_GATE_NONE = 0, BENCH_GATE_ON_TIME, BENCH_GATE_LATE, BENCH_GATE_MISSED };

typedef struct bench_session bench_session;
/* The closing table, when a command prints its own (the TLS matrix). */
typedef void (*bench_table_fn)(void *arg, FILE *f, const json_t *runs);

struct bench_session {
    const bench_out_opts *out;
    const bench_flag     *interrupt;
    /* Per-second lines go here instead of pkpspeed's line on stdout (the
     * menu); no progress bar then. */
    bench_second_fn       on_second;
    void                 *arg;
    /* --metrics-listen: the live endpoint each run feeds (NULL: none). */
    bench_metrics        *metrics;
    bench_table_fn        table;          /* NULL: the standard closing table */
    void                 *table_arg;
    /* No header, note, per-second lines or summary for each run (a capacity
     * search prints its own line per step); the progress bar stays. */
    int                   brief;
    /* run --repeat N: the next run recorded is run repeat_run (1..N) of
     * repeat_of runs of the same load in a row, its element marked so
     * ("repeat"); 0: not repeated.  The command sets both before each run. */
    unsigned              repeat_run, repeat_of;
    /* Members added to the results document beside "runs" ("capacity"),
     * or NULL. */
    json_t               *doc_extra;
    json_t               *runs;           /* the "runs" array of the results file */
    bench_row            *rows;
    size_t                nrows, cap;
    int                   any_failed;     /* a run could not be measured, a file not written */
    int                   any_errors;     /* a measured run had errors */
    /* A checkpoint's results file could not be written: the command stops,
     * and bench_session_finish does not try (and say) it again. */
    int                   checkpoint_failed;
    int                   json_written;   /* the results file holds this session's runs */
    int                   interrupted;
    /* Workers a run abandoned inside a call (bench_outcome.stuck): their
     * threads may still be in the workload, so the command runs nothing
     * more, bounds its clean-up and never unloads what they use. */
    unsigned              stuck;
    int                   setup_failed;   /* the target failed at set-up: exit 3 */
    uint64_t              start_at_ms;    /* pending --start-at (only the first run waits) */
    /* The start gate's outcome, for the results file's "fleet": */
    int                   gate;           /* BENCH_GATE_*: how this generator met --start-at */
    double                late_s;         /* how late it joined (BENCH_GATE_LATE, _MISSED) */
    /* --out jsonl=FILE: the per-second stream (NULL: none) and the run its
     * lines belong to */
    FILE                 *stream;
    bench_stream_run      stream_run;
    int                   stream_failed;
    bench_jtl            *jtl;            /* --out jtl=FILE (NULL: none) */
    uint64_t              first_epoch_ms; /* measuring start of the first measured run */
    time_t                started;
    const bench_run_hooks *hooks;         /* the run's, while its pool runs */
    bench_progress        progress;
    double                progress_elapsed;
    /* Thresholds with :abort (k6's abortOnFail): the run's test, its
     * successes and errors so far, the flag that stops the pool
     * (bench_load.stop), which threshold stopped it, when and why. */
    const char           *abort_test;
    uint64_t              abort_ok, abort_errors;
    bench_flag            abort_stop;
    const bench_threshold *aborted_by;
    double                aborted_at_s;
    char                  aborted_why[96];
    int                   threshold_aborted;  /* a run stopped so: exit 99 */
    /* A document asked on standard output (--json -, --csv -, --html -):
     * the real standard output, kept for it while the run's human output
     * goes to standard error (fd 1 points there); -1 otherwise. */
    int                   doc_fd;
};

/* 0, or -1 when out of memory (printed).  When a document goes to standard
 * output ("-"), the run's human output (header, per-second lines, summary,
 * closing table) goes to standard error from here on, so that standard
 * output holds the document alone. */
int  bench_session_init(bench_session *s, const bench_out_opts *out, const bench_flag *interrupt);
void bench_session_free(bench_session *s);

/*
 * One measured run: header, gate, progress, the pool, summary, JSON
 * element, closing-table row.  Returns 0 when it was measured (its status
 * may still be interrupted), -1 when it could not start: then it was
 * recorded as failed (reason printed), after Ctrl-C as interrupted, or as
 * skipped when this generator missed the --start-at window (every run of
 * it then is).
 *
 * The gate (the first run): ready before --start-at, it waits; up to
 * --start-window late, it joins at the next whole second after the start
 * and, for a run bounded by a duration (not stages), measures until the
 * others end (the duration less the seconds it missed); later, it missed.
 */
int  bench_session_run(bench_session *s, const bench_run_desc *d, const bench_workload *w,
                       const bench_load *load, const bench_run_hooks *h);

/* A run that was not measured: skipped, failed (before the pool), interrupted. */
void bench_session_not_run(bench_session *s, const bench_run_desc *d, const char *status,
                           const char *reason, const bench_run_hooks *h);

/* Whether the last run recorded was measured (not skipped, failed before
 * its pool, or interrupted before it started): a --repeat group goes on
 * only while it is. */
int  bench_session_last_measured(const bench_session *s);

/* The closing table of every run so far. */
void bench_session_table(const bench_session *s, FILE *f);

/*
 * After the last run: the closing table (more than one run, not quiet),
 * the thread sweeps' analysis and the interval between repeated runs
 * (bench/results/repeat.h), thresholds, the results document (when asked,
 * and when a run was
 * recorded), the interruption notice; returns the exit status: 130
 * interrupted, 3 set-up failure, 1 a run failed or had errors, a threshold
 * failed or a file could not be written, else 0.  Takes environment and
 * command (either may be NULL).
 */
int  bench_session_finish(bench_session *s, json_t *environment, json_t *command);

/*
 * The results file (--json) as it stands, written now (atomically, as at
 * the end) with the runs so far: a command of many runs that can be
 * resumed (datasheet) calls it after each.  environment and command are
 * borrowed.  0, or -1 (printed) when it could not be written.
 */
int  bench_session_checkpoint(bench_session *s, json_t *environment, json_t *command);

/* ---- the command line in a results file ---- */

/* How word `i` of argv appears in the results file: NULL as it is, or its
 * redacted text written into buf. */
typedef const char *(*bench_redact_fn)(void *arg, int i, const char *word, char *buf, size_t len);

/* Marks for bench_redact_marks: what a word of argv hides. */
enum { BENCH_MARK_NONE = 0, BENCH_MARK_WHOLE, BENCH_MARK_VALUE, BENCH_MARK_HEADER, BENCH_MARK_URL,
       BENCH_MARK_URL_VALUE };

/* arg is an array of marks indexed like argv: WHOLE "***", VALUE
 * "--flag=***", HEADER "--header=Name: ***" / "Name: ***"; URL a URL
 * without its credentials, query and fragment (bench_url_identity_of),
 * URL_VALUE the same after "--flag=". */
const char *bench_redact_marks(void *arg, int i, const char *word, char *buf, size_t len);

/* The mark of the argv word that holds an option's value: mark (WHOLE,
 * URL) for "--flag VALUE"'s second word, its twin (VALUE, URL_VALUE) for
 * "--flag=VALUE". */
unsigned char bench_mark_of(const char *word, unsigned char mark);

/* ["hsmbench", argv...] with secrets redacted; NULL when out of memory. */
json_t *bench_command_json(int argc, char *const *argv, bench_redact_fn redact, void *arg);

#endif

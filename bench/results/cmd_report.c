/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/cmd_report.c - "hsmbench report RESULT.json": the CSV and HTML
 * reports (and thresholds) from a saved results file, the same code a live
 * run uses.  With no output option, a table of the runs on stdout.
 */
#include "bench/results/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/results/capanswer.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/report_csv.h"
#include "bench/results/report_html.h"
#include "bench/results/repeat.h"
#include "bench/results/scalability.h"
#include "bench/results/target.h"
#include "bench/results/threshold.h"

#define MAX_THRESHOLDS 64

static const char report_usage[] =
    "Usage: hsmbench report RESULT.json [--html FILE] [--csv FILE [--csv-layout sdkms|tidy]]\n"
    "                       [--threshold EXPR]... [--quiet]\n"
    "\n"
    "Reports from a results file written by hsmbench run --json (or merge).\n"
    "With no --html or --csv, prints a table of the runs.\n"
    "\n";

static const char report_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 a report could not be written; 2 bad usage or input\n"
    "(missing file, bad JSON, not a results file, no runs); 99 a threshold failed\n"
    "(as k6).\n";

enum { OPT_HTML = 3000, OPT_CSV, OPT_CSV_LAYOUT, OPT_THRESHOLD, OPT_QUIET };

static const bench_option report_rows[] = {
    { "html", 0, BENCH_ARG_REQUIRED, "FILE", OPT_HTML,
      "one self-contained HTML page with charts (\"-\": stdout)", NULL },
    { "csv", 0, BENCH_ARG_REQUIRED, "FILE", OPT_CSV,
      "one CSV row per run, SDKMS test bench columns (\"-\": stdout)", NULL },
    { "csv-layout", 0, BENCH_ARG_REQUIRED, "sdkms|tidy", OPT_CSV_LAYOUT,
      "--csv's columns: sdkms (the default: the SDKMS bench's,\n"
      "counting failed requests as JMeter does) or tidy (one\n"
      "row a run, a column each, plain numbers, for analysis)", NULL },
    { "threshold", 0, BENCH_ARG_REPEATED, "EXPR", OPT_THRESHOLD,
      "pass/fail criterion, repeatable: p99<50ms, avg<10ms,\n"
      "p(99.9)<100ms, rate>1000, errors<0.1%, TEST:EXPR, ...;", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, OPT_QUIET, "print nothing but errors, and each failed threshold", NULL },
};
static const bench_opt_group report_group = BENCH_OPT_OUTPUTS(NULL, report_rows, NULL);
static const bench_opt_group *const report_groups[] = { &report_group, &bench_help_group, NULL };
const bench_cmd_opts bench_report_options = { "report", 0, report_groups };

typedef struct report_opts {
    const char     *input, *html, *csv;
    int             tidy;                /* --csv-layout tidy */
    int             layout_given;        /* --csv-layout, which needs --csv */
    bench_threshold ths[MAX_THRESHOLDS];
    size_t          nths;
    int             quiet;
    const bench_section *const *sections;   /* the workload sections --threshold knows */
} report_opts;

/* --help: the sections' metrics under --threshold. */
static void threshold_help(const void *sections, int code, FILE *f)
{
    if (code == OPT_THRESHOLD)
        bench_sections_help(sections, f);
}

/* Take one option, its value only stored: 1 taken, 0 not one of report's,
 * -1 bad value (printed). */
static int take_option(void *opts, int c, char *arg)
{
    report_opts *o = opts;
    char err[512];
    switch (c) {
    case OPT_HTML:
        o->html = arg;
        return 1;
    case OPT_CSV:
        o->csv = arg;
        return 1;
    case OPT_CSV_LAYOUT:
        if (strcmp(arg, "tidy") != 0 && strcmp(arg, "sdkms") != 0) {
            bench_error("--csv-layout %s: the layouts are 'sdkms' and 'tidy'", arg);
            return -1;
        }
        o->tidy = strcmp(arg, "tidy") == 0;
        o->layout_given = 1;
        return 1;
    case OPT_THRESHOLD:
        if (o->nths == MAX_THRESHOLDS) {
            bench_error("--threshold: at most %d thresholds", MAX_THRESHOLDS);
            return -1;
        }
        if (bench_threshold_parse(arg, o->sections, &o->ths[o->nths], err, sizeof err) != 0) {
            bench_error("%s", err);
            return -1;
        }
        o->nths++;
        return 1;
    case OPT_QUIET:
        o->quiet = 1;
        return 1;
    default:
        return 0;
    }
}

/* 0 to go on, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, const bench_section *const *sections, report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sections = sections;
    bench_opts_parser parser;
    const bench_cmd_help help = { report_usage, report_usage_tail, threshold_help, sections };
    const int rc = bench_opts_take_all(&parser, &bench_report_options, &help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind >= argc) {
        bench_error("report: a results file is required (see: hsmbench report --help)");
        return BENCH_EXIT_USAGE;
    }
    if (argc - optind > 1) {
        bench_error("%s: unexpected argument; report reads one results file (see: hsmbench report --help)",
                    argv[optind + 1]);
        return BENCH_EXIT_USAGE;
    }
    o->input = argv[optind];
    if (bench_opts_add_file(&parser, "the results file", o->input, 0) != 0 ||
        bench_opts_check_files(&parser) != 0)
        return BENCH_EXIT_USAGE;
    if (o->html && strcmp(o->html, "-") != 0 && !bench_path_writable("--html", o->html))
        return BENCH_EXIT_USAGE;
    if (o->csv && strcmp(o->csv, "-") != 0 && !bench_path_writable("--csv", o->csv))
        return BENCH_EXIT_USAGE;
    if (o->layout_given && !o->csv) {
        bench_error("--csv-layout needs --csv FILE (the layout of that file)");
        return BENCH_EXIT_USAGE;
    }
    if (o->html && o->csv && strcmp(o->html, "-") == 0 && strcmp(o->csv, "-") == 0) {
        bench_error("--html - and --csv -: only one report can go to standard output");
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

#define NCOLS 11

/* Run i's cells in the table of print_table, and the reason of a run that
 * was not measured ("" else), from its run model. */
static void table_cells(const json_t *doc, size_t i, char cell[NCOLS][160], char *reason, size_t rlen)
{
    memset(cell, 0, sizeof cell[0] * NCOLS);
    reason[0] = '\0';
    bench_run_model m;
    if (bench_model_from_doc(doc, i, &m) != 0) {
        snprintf(cell[0], sizeof cell[0], "%s", "(out of memory)");
        return;
    }
    snprintf(cell[0], sizeof cell[0], "%s", m.name);
    snprintf(cell[1], sizeof cell[1], "%s", m.key);
    snprintf(cell[2], sizeof cell[2], "%s", m.data_text);
    snprintf(cell[3], sizeof cell[3], "%u", m.threads);
    snprintf(cell[4], sizeof cell[4], "%s", m.status);
    if (m.measured) {
        snprintf(cell[5], sizeof cell[5], "%llu", (unsigned long long)m.ops);
        snprintf(cell[6], sizeof cell[6], "%llu", (unsigned long long)m.attempts);
        snprintf(cell[7], sizeof cell[7], "%.2f", m.ops_per_s);
        if (m.latency.count) {       /* no success, no latency: 0 would be a claim */
            bench_fmt_ns(m.latency.p50 * 1000, cell[8], sizeof cell[8]);
            bench_fmt_ns(m.latency.p99 * 1000, cell[9], sizeof cell[9]);
        } else {
            snprintf(cell[8], sizeof cell[8], "-");
            snprintf(cell[9], sizeof cell[9], "-");
        }
        snprintf(cell[10], sizeof cell[10], "%.2f%%", m.error_pct);
    } else {
        snprintf(reason, rlen, "%s", m.reason);
    }
    bench_model_free(&m);
}

/* The runs as a table, for a quick look at a file, and a capacity search's
 * answer.  Each run's model is made, used and freed in turn (a file of many
 * seconds is never held as models all at once).  -1 when out of memory. */
static int print_table(FILE *f, const char *path, const json_t *doc, const bench_cap_answer *cap)
{
    bench_doc_facts facts;
    if (bench_doc_facts_of(doc, &facts) != 0)
        return -1;
    /* the file's own schema: an older one is read as the current one says */
    fprintf(f, "%s: %s", path, facts.schema ? facts.schema : "?");
    if (facts.has_environment) {
        bench_target t;
        (void)bench_target_of(doc, &t);   /* "?" when the file names none */
        fprintf(f, " \xc2\xb7 %s \xc2\xb7 host %s", t.name, facts.hostname ? facts.hostname : "?");
    }
    if (facts.started_at)
        fprintf(f, " \xc2\xb7 %s", facts.started_at);
    fputs("\n\n", f);
    bench_doc_facts_free(&facts);

    /* OPS are the successes, ATTEMPTS the successes and the errors */
    static const char *const head[NCOLS] = { "TEST", "KEY", "DATA", "THREADS", "STATUS", "OPS", "ATTEMPTS",
                                             "OPS/S", "P50", "P99", "ERRORS" };
    static const int right[NCOLS] = { 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1 };
    int width[NCOLS] = { 18, 10, 8, 8, 12, 12, 10, 12, 10, 10, 8 };
    char cell[NCOLS][160], reason[512];
    const size_t nruns = bench_doc_nruns(doc);
    /* Every column at least as wide as its longest cell: long test and
     * key names keep the columns after them aligned. */
    for (size_t i = 0; i < nruns; i++) {
        table_cells(doc, i, cell, reason, sizeof reason);
        for (size_t c = 0; c < NCOLS; c++)
            width[c] = bench_col_fit(width[c], cell[c]);
    }
    for (size_t c = 0; c < NCOLS; c++) {
        fputs(c ? " " : "  ", f);
        bench_fput_cell(f, head[c], width[c], right[c]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < nruns; i++) {
        table_cells(doc, i, cell, reason, sizeof reason);
        for (size_t c = 0; c < NCOLS; c++) {
            fputs(c ? " " : "  ", f);
            bench_fput_cell(f, cell[c], width[c], right[c]);
        }
        if (reason[0])
            fprintf(f, " %s", reason);
        fputc('\n', f);
    }
    /* Runs that did not keep their schedule: their latency leaves out the
     * requests that would have waited longest (the run model's figures). */
    int noted = 0;
    for (size_t i = 0; i < nruns; i++) {
        bench_run_model m;
        if (bench_model_from_doc(doc, i, &m) != 0)
            continue;
        if (m.measured && !m.latency_complete) {
            if (!noted++)
                fputs("\n  latency incomplete (target saturated: the schedule was not kept):\n", f);
            fprintf(f, "    %s \xc2\xb7 %u thread%s: %llu of %llu scheduled requests never started\n", m.name, m.threads,
                    m.threads == 1 ? "" : "s", (unsigned long long)m.dropped, (unsigned long long)m.scheduled);
        }
        bench_model_free(&m);
    }
    /* A capacity search's file: its answer after the steps. */
    if (cap->present) {
        char line[1200];
        fprintf(f, "\n%s\n", bench_cap_answer_text(cap, line, sizeof line));
        if (cap->limited_by)
            fprintf(f, "limited by: %s\n", cap->limited_by);
    }
    return 0;
}

int bench_cmd_report(int argc, char **argv, const bench_section *const *sections)
{
    report_opts *o = calloc(1, sizeof *o);
    if (!o) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    int rc = parse_args(argc, argv, sections, o);
    if (rc != 0) {
        free(o);
        return rc < 0 ? BENCH_EXIT_OK : rc;
    }
    char err[600];
    json_t *doc = bench_results_load(o->input, err, sizeof err);
    if (!doc) {
        bench_error("%s", err);
        free(o);
        return BENCH_EXIT_USAGE;
    }
    /* The thread sweeps' analysis, made afresh from the runs (older files
     * and merged ones get it too), for the table and the HTML page. */
    json_t *scal = bench_scalability(json_object_get(doc, "runs"));
    int oom = !scal;
    if (scal && json_array_size(scal))
        oom = json_object_set(doc, "scalability", scal) != 0;
    else if (scal)
        (void)json_object_del(doc, "scalability");   /* -1 when there was none: nothing to do */
    if (oom) {
        bench_error("out of memory");
        json_decref(scal);
        json_decref(doc);
        free(o);
        return BENCH_EXIT_FAILED;
    }
    rc = BENCH_EXIT_OK;
    if (o->nths) {
        /* Thresholds go into the document first, so the HTML shows them. */
        int to_stdout = (o->csv && strcmp(o->csv, "-") == 0) || (o->html && strcmp(o->html, "-") == 0);
        FILE *out = o->quiet ? NULL : to_stdout ? stderr : stdout;
        int failed = bench_thresholds_apply(o->ths, o->nths, json_object_get(doc, "runs"), out,
                                            o->quiet ? stderr : NULL);
        if (failed < 0) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
        } else if (failed > 0) {
            bench_error("%d threshold check%s failed", failed, failed == 1 ? "" : "s");
            rc = BENCH_EXIT_THRESHOLD;
        }
    }
    if (o->csv && (o->tidy ? bench_csv_tidy_write_file(o->csv, doc, "--csv")
                           : bench_csv_write_file(o->csv, doc, "--csv")) != 0)
        rc = BENCH_EXIT_FAILED;
    if (o->html && bench_html_write_file(o->html, doc, "--html", sections) != 0)
        rc = BENCH_EXIT_FAILED;
    if (!o->csv && !o->html && !o->nths && !o->quiet) {
        /* The capacity answer read as the document model reads it (not
         * the whole model: every run's histogram at once, for one line). */
        bench_cap_answer cap;
        if (bench_cap_answer_of_doc(doc, &cap) != 0) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
        }
        if (print_table(stdout, o->input, doc, &cap) != 0) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
        }
        bench_cap_answer_free(&cap);
        /* The sweeps as analysed above, and --repeat's intervals, made
         * afresh from the runs' marks as the sweeps' are. */
        bench_scal_sweeps sw = { 0 };
        bench_repeat_groups reps = { 0 };
        if (bench_scal_sweeps_read(scal, NULL, &sw) != 0 ||
            bench_repeat_groups_of(json_object_get(doc, "runs"), &reps) != 0) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
        }
        bench_scalability_print(stdout, &sw);
        bench_repeats_print(stdout, &reps);
        bench_scal_sweeps_free(&sw);
        bench_repeat_groups_free(&reps);
        if (bench_stdout_check("report") != 0)
            rc = BENCH_EXIT_FAILED;
    }
    json_decref(scal);
    json_decref(doc);
    free(o);
    return rc;
}

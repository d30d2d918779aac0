/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/cmd_compare.c - "hsmbench compare A.json B.json [C.json ...]": the
 * runs of several results files side by side, each against the first file,
 * with a verdict on whether a throughput difference is real.
 *
 * Runs are matched by test, key, data size, threads and mode.  A run of the
 * same test with other settings is shown but not compared ("not comparable:
 * threads 2 vs 1"); a different target (environment.target: another module
 * or token, another service or URL) is flagged at the top and on every row
 * it concerns.  Each compared pair gets the verdict of verdict.c (figure by
 * figure: throughput, latency, errors, a workload section's distributions), the
 * --fail-on rules of rule.c are judged on it.  The files are read once into
 * their document models and the comparison once into the compare model
 * (compare.c), which this file prints, and which --json (hsmbench.compare/1)
 * and --html (compare_html.c) write: no view here reads JSON.
 */
#include "bench/results/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/compare.h"
#include "bench/results/compare_html.h"
#include "bench/results/jsondump.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/text.h"

#define MAX_FILES 26
#define MAX_RULES 32

static const char compare_usage[] =
    "Usage: hsmbench compare A.json B.json [C.json ...] [--fail-on RULE]... [--json FILE] [--html FILE]\n"
    "\n"
    "Show the runs of several results files side by side: ops/s, p50, p99 and\n"
    "error rate, and each file's change against the first.  Runs are matched by\n"
    "test, key, data size, threads and mode; other differences are flagged, and\n"
    "so is a different target (module and token, or REST service and URL).\n"
    "Each pair gets a verdict, figure by figure (faster, slower, no change,\n"
    "not comparable): throughput by the Mann-Whitney U test of the per-second\n"
    "rates with 8 or more each, else by a rate test of the operations; mean,\n"
    "p50 and p99 from the latency histograms; errors by a two-proportion test;\n"
    "a REST run's phases by Welch's test.  A change is significant at\n"
    "p < 0.05, and a verdict needs a change of --min-change (3%) or more too.\n"
    "\n";

static const char compare_usage_tail[] =
    "\n"
    "Exit codes: 0 success (without --fail-on, whatever changed); 1 a --fail-on\n"
    "rule failed, or an output could not be written; 2 bad usage or input (a bad\n"
    "rule, missing file, bad JSON, not a results file, no runs).\n";

enum { OPT_FAIL_ON = 3100, OPT_MIN_CHANGE, OPT_JSON, OPT_HTML };

static const bench_option compare_rows[] = {
    { "fail-on", 0, BENCH_ARG_REPEATED, "RULE", OPT_FAIL_ON,
      "fail (exit 1) when a compared pair's change is beyond RULE and\n"
      "significant, repeatable: 'ops_per_s<-5%', 'p99>+10%', 'p50>+2ms',\n"
      "'error_pct>+1' (points), a REST run's phase by its threshold\n"
      "name; a trailing ! fails without significance ('p99>+10%!')", NULL },
    { "min-change", 0, BENCH_ARG_REQUIRED, "PCT", OPT_MIN_CHANGE,
      "the smallest change a verdict calls faster or slower (default 3%):\n"
      "the run-to-run noise the tests within each run cannot see", NULL },
    { "json", 0, BENCH_ARG_REQUIRED, "FILE", OPT_JSON,
      "the comparison as JSON, hsmbench.compare/1 (\"-\": stdout)", NULL },
    { "html", 0, BENCH_ARG_REQUIRED, "FILE", OPT_HTML,
      "the comparison as one self-contained HTML page (\"-\": stdout)", NULL },
};
static const bench_opt_group compare_group = BENCH_OPT_OUTPUTS(NULL, compare_rows, NULL);
static const bench_opt_group *const compare_groups[] = { &compare_group, &bench_help_group, NULL };
const bench_cmd_opts bench_compare_options = { "compare", 0, compare_groups };

/* What compare was asked, and what it found so far. */
/* ---- environment ----------------------------------------------------------- */

/* Flag a file whose target, host or machine is not the first file's. */
static void env_flags(FILE *f, const bench_compare *c)
{
    for (size_t i = 1; i < c->nfiles; i++) {
        const bench_cmp_env *e = &c->files[i].env;
        const char *label = c->files[i].label;
        if (e->module_differs)
            fprintf(f, "  \xe2\x9a\xa0 %s: different module: %s vs %s\n", label, e->module, e->base_module);
        if (e->token_differs)
            fprintf(f, "  \xe2\x9a\xa0 %s: different token: %s (serial %s) vs %s (serial %s)\n", label,
                    e->token_label, e->token_serial, e->base_label, e->base_serial);
        if (e->target == BENCH_CMP_TARGET_TLS_PAIR)
            fprintf(f, "  %s: the same endpoint with TLS %s (%s vs %s): compared as a setting\n", label,
                    e->tls_on ? "on" : "off", e->target_text, e->base_target_text);
        else if (e->target == BENCH_CMP_TARGET_DIFFERS)
            fprintf(f, "  \xe2\x9a\xa0 %s: different target: %s vs %s\n", label, e->target_text, e->base_target_text);
        if (e->host_differs)
            fprintf(f, "  \xe2\x9a\xa0 %s: different host: %s vs %s\n", label, e->hostname, e->base_hostname);
        if (e->machine_differs)
            fprintf(f, "  \xe2\x9a\xa0 %s: different machine: %s vs %s\n", label, e->machine, e->base_machine);
    }
}

/* ---- figures ------------------------------------------------------------------ */

static const char *pct_change(double base, double v, char *buf, size_t len)
{
    if (base <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.2f%%", 100.0 * (v - base) / base);
    return buf;
}

/* A latency figure of l; "-" when nothing succeeded (0 would be a claim). */
static const char *fmt_lat(const bench_model_latency *l, double us, char *buf, size_t len)
{
    if (!l->count) {
        snprintf(buf, len, "-");
        return buf;
    }
    return bench_fmt_ns(us * 1000.0, buf, (unsigned)len);
}

#define NCOL 9
static const int col_w[NCOL] = { 4, 14, 10, 10, 10, 10, 10, 8, 9 };

static void print_cells(FILE *f, char cells[NCOL][48])
{
    size_t last = NCOL;
    while (last > 1 && !cells[last - 1][0])
        last--;             /* no trailing blanks after the last figure */
    for (size_t c = 0; c < last; c++) {
        fputs(c ? " " : "  ", f);
        bench_fput_cell(f, cells[c], col_w[c], c != 0);
    }
}

static void print_header(FILE *f)
{
    char cells[NCOL][48] = { "", "ops/s", "change", "p50", "change", "p99", "change", "errors", "change" };
    print_cells(f, cells);
    fputc('\n', f);
}

/* One file's row of run m; b the base run's model when its changes are
 * shown, else NULL; other_target flags a row whose target is not the base
 * row's. */
static void print_row(FILE *f, const char *label, const bench_run_model *m, const bench_run_model *b,
                      int other_target)
{
    char cells[NCOL][48];
    memset(cells, 0, sizeof cells);
    snprintf(cells[0], sizeof cells[0], "%s", label);
    if (!m->measured) {
        fprintf(f, "  %-4s  %s: %s\n", label, m->status, *m->reason ? m->reason : "not measured");
        return;
    }
    snprintf(cells[1], sizeof cells[1], "%.2f", m->ops_per_s);
    fmt_lat(&m->latency, m->latency.p50, cells[3], sizeof cells[3]);
    fmt_lat(&m->latency, m->latency.p99, cells[5], sizeof cells[5]);
    snprintf(cells[7], sizeof cells[7], "%.2f%%", m->error_pct);
    if (b) {
        pct_change(b->ops_per_s, m->ops_per_s, cells[2], sizeof cells[2]);
        if (b->latency.count && m->latency.count) {
            pct_change(b->latency.p50, m->latency.p50, cells[4], sizeof cells[4]);
            pct_change(b->latency.p99, m->latency.p99, cells[6], sizeof cells[6]);
        }
        snprintf(cells[8], sizeof cells[8], "%+.2fpp", m->error_pct - b->error_pct);
    }
    print_cells(f, cells);
    if (other_target && b)
        fputs("  \xe2\x9a\xa0 different target", f);
    /* A schedule not kept: its latency leaves out the longest waits. */
    if (!m->latency_complete)
        fprintf(f, "  \xe2\x9a\xa0 latency incomplete: %llu of %llu scheduled requests never started",
                (unsigned long long)m->dropped, (unsigned long long)m->scheduled);
    fputc('\n', f);
}

/* Under a row, each section's peer latency (a peer load tool's request
 * duration), against the base row's when it has it too. */
static void print_peer_rows(FILE *f, const bench_cmp_peer *peers, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const bench_model_latency *l = &peers[i].l, *b = &peers[i].base;
        char p50[32], p99[32], c50[32] = "", c99[32] = "";
        bench_fmt_ns(l->p50 * 1000.0, p50, sizeof p50);
        bench_fmt_ns(l->p99 * 1000.0, p99, sizeof p99);
        if (b->present && b->count) {
            c50[0] = c99[0] = ' ';
            pct_change(b->p50, l->p50, c50 + 1, sizeof c50 - 1);
            pct_change(b->p99, l->p99, c99 + 1, sizeof c99 - 1);
        }
        fprintf(f, "        %s: p50 %s%s, p99 %s%s\n", peers[i].name, p50, c50, p99, c99);
    }
}

/* ---- verdicts ------------------------------------------------------------------ */

static const char *fig_change(const bench_fig_cmp *x, char *buf, size_t len)
{
    if (x->unit == BENCH_UNIT_PCT)
        snprintf(buf, len, "%+.2fpp", x->delta);
    else if (x->has_pct)
        snprintf(buf, len, "%+.2f%%", x->pct);
    else if (x->delta == 0)
        snprintf(buf, len, "+0.00%%");
    else
        snprintf(buf, len, "from 0");
    return buf;
}

/* The pair's changed figures after its word: " (p50 +58.32%, ...)". */
static void print_changed(FILE *f, const bench_pair_cmp *p)
{
    const char *sep = " (";
    char c[32];
    for (size_t i = 0; i < p->n; i++) {
        const bench_fig_cmp *x = &p->figs[i];
        if (x->verdict != BENCH_CHANGE_WORSE && x->verdict != BENCH_CHANGE_BETTER)
            continue;
        fprintf(f, "%s%s %s", sep, x->label, fig_change(x, c, sizeof c));
        sep = ", ";
    }
    fputs(*sep == ',' ? ")\n" : "\n", f);
}

/* A compared pair: its word, its figures, its rules and its classes. */
static void print_verdict(FILE *f, const bench_compare *c, const bench_cmp_pair *p)
{
    const char *a = c->files[p->base_file].label, *b = c->files[p->run_file].label;
    char ch[32];
    fprintf(f, "       %s vs %s: %s", b, a, p->verdict);
    print_changed(f, &p->cmp);
    for (size_t i = 0; i < p->cmp.n; i++) {
        const bench_fig_cmp *x = &p->cmp.figs[i];
        fprintf(f, "         %-22s %9s  %-14s %s\n", x->label, x->verdict == BENCH_CHANGE_NA ? "-" : fig_change(x, ch, sizeof ch),
                bench_change_word(x), x->verdict == BENCH_CHANGE_NA ? x->why : x->method);
    }
    for (size_t i = 0; i < p->nrules; i++)
        fprintf(f, "       %s vs %s: --fail-on %s: %s\n", b, a, p->rules[i].rule, p->rules[i].why);
    for (size_t i = 0; i < p->nclasses; i++) {
        const bench_cmp_class *x = &p->classes[i];
        fprintf(f, "       %s vs %s, %s %s: %s", b, a, x->dimension, x->name, x->verdict);
        print_changed(f, &x->cmp);
    }
}

static void run_heading(FILE *f, const bench_cmp_group *g)
{
    const bench_run_model *m = g->run;
    fprintf(f, "\n%s", m->test);
    if (g->mechanism)
        fprintf(f, " \xc2\xb7 %s", g->mechanism);
    if (strcmp(m->key, "-") != 0)
        fprintf(f, " \xc2\xb7 %s", m->key);
    fprintf(f, " \xc2\xb7 data %llu B \xc2\xb7 %u thread%s \xc2\xb7 %s\n", (unsigned long long)m->data_size,
            m->threads, m->threads == 1 ? "" : "s", m->mode);
}

/* A pair's rows under its heading. */
static void print_pair(FILE *f, const bench_compare *c, const bench_cmp_pair *p)
{
    const char *label = c->files[p->run_file].label;
    switch (p->match) {
    case BENCH_CMP_MISSING:
        if (p->ds_id)
            fprintf(f, "  %-4s  (missing: no such step)\n", label);
        else
            fprintf(f, "  %-4s  (no run of %s)\n", label, p->a->test);
        break;
    case BENCH_CMP_OTHER_SETUP:
        print_row(f, label, p->b, NULL, 0);
        fprintf(f, "       %s vs %s: \xe2\x9a\xa0 not comparable: %s\n", label, c->files[p->base_file].label, p->why);
        break;
    case BENCH_CMP_COMPARED:
        print_row(f, label, p->b, p->a, p->different_target);
        print_peer_rows(f, p->peers, p->npeers);
        print_verdict(f, c, p);
        break;
    }
}

/* Two datasheets, test by test, each file against A. */
static void print_datasheets(FILE *f, const bench_compare *c)
{
    if (!c->datasheet)
        return;
    for (size_t fi = 1; fi < c->nfiles; fi++) {
        fprintf(f, "\nDatasheets, test by test (%s against %s):\n", c->files[fi].label, c->files[0].label);
        for (size_t i = 0; i < c->nds; i++) {
            const bench_cmp_ds_test *t = &c->ds[i];
            if (t->file != fi)
                continue;
            fprintf(f, "  %-28s %-10s %-10s (%zu step%s: %zu slower, %zu faster, %zu no change, %zu missing)%s%s\n",
                    t->test, t->key, t->verdict, t->steps, t->steps == 1 ? "" : "s", t->slower, t->faster, t->same,
                    t->missing, t->cap_verdict ? "; " : "", t->cap_verdict ? t->cap_line : "");
        }
    }
}

/* The comparison on the terminal. */
static void print_compare(FILE *f, const bench_compare *c)
{
    fputs("Files (changes are against A):\n", f);
    for (size_t i = 0; i < c->nfiles; i++) {
        const bench_cmp_file *cf = &c->files[i];
        fprintf(f, "  %s  %s  (%s \xc2\xb7 host %s", cf->label, cf->path, cf->target.name, cf->hostname);
        if (cf->started_at)
            fprintf(f, " \xc2\xb7 %s", cf->started_at);
        fputs(")\n", f);
    }
    env_flags(f, c);
    for (size_t gi = 0; gi < c->ngroups; gi++) {
        const bench_cmp_group *g = &c->groups[gi];
        run_heading(f, g);
        if (g->file)
            fprintf(f, "  (not in A)\n");
        print_header(f);
        print_row(f, c->files[g->file].label, g->run, NULL, 0);
        print_peer_rows(f, g->peers, g->npeers);
        for (size_t k = 0; k < g->npairs; k++)
            print_pair(f, c, &c->pairs[g->first_pair + k]);
    }
    print_datasheets(f, c);
    int heading = 0;
    for (size_t i = 0; i < c->nfiles; i++)
        for (size_t k = 0; k < c->files[i].nrepeats; k++) {
            if (!heading++)
                fputs("\nBetween runs (--repeat; 95 % Student t over each file's runs):\n", f);
            fprintf(f, "  %s  %s\n", c->files[i].label, c->files[i].repeats[k]);
        }
    if (c->nrules) {
        const size_t checks = c->nrules * c->npairs;
        fprintf(f, "\n%zu of %zu rule check%s failed", c->failed, checks, checks == 1 ? "" : "s");
        fputs(c->failed ? " (exit status 1)\n" : "\n", f);
    }
}

static int write_json(FILE *f, const json_t *doc)
{
    if (bench_json_dumpf(doc, f, JSON_INDENT(2)) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

typedef struct compare_opts {
    const bench_section *const *sections;   /* the workload sections --fail-on knows */
    bench_rule  rules[MAX_RULES];           /* --fail-on */
    size_t      nrules;
    const char *json_path, *html_path;
    double      min_change;                 /* --min-change, in percent */
    int         to_stdout;                  /* an output is "-" */
} compare_opts;

/* Take one option, its value only stored: 1 taken, 0 not one of compare's,
 * -1 bad value (printed). */
static int take_option(void *opts, int c, char *arg)
{
    compare_opts *o = opts;
    char err[600];
    switch (c) {
    case OPT_FAIL_ON:
        if (o->nrules == MAX_RULES) {
            bench_error("--fail-on: at most %d rules", MAX_RULES);
            return -1;
        }
        if (bench_rule_parse(arg, o->sections, &o->rules[o->nrules], err, sizeof err) != 0) {
            bench_error("%s", err);
            return -1;
        }
        o->nrules++;
        return 1;
    case OPT_MIN_CHANGE:
        if (bench_parse_pct("--min-change", arg, 0, 100, "3%", &o->min_change) != 0)
            return -1;
        o->min_change *= 100;
        return 1;
    case OPT_JSON:
        o->json_path = arg;
        return 1;
    case OPT_HTML:
        o->html_path = arg;
        return 1;
    default:
        return 0;
    }
}

/* The options and the n files from argv[first] together: 0, or -1 (printed). */
static int check_args(compare_opts *o, bench_opts_parser *parser, char **argv, int first, int n)
{
    if (n < 2) {
        bench_error("compare: at least two results files are needed (see: hsmbench compare --help)");
        return -1;
    }
    if (n > MAX_FILES) {
        bench_error("compare: at most %d files", MAX_FILES);
        return -1;
    }
    o->to_stdout = (o->json_path && strcmp(o->json_path, "-") == 0) +
                   (o->html_path && strcmp(o->html_path, "-") == 0);
    if (o->to_stdout > 1) {
        bench_error("--json - and --html -: only one output can go to standard output");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (bench_opts_add_file(parser, "a results file", argv[first + i], 0) != 0)
            return -1;
    if (bench_opts_check_files(parser) != 0)
        return -1;
    if ((o->json_path && strcmp(o->json_path, "-") != 0 && !bench_path_writable("--json", o->json_path)) ||
        (o->html_path && strcmp(o->html_path, "-") != 0 && !bench_path_writable("--html", o->html_path)))
        return -1;
    return 0;
}

static const bench_cmd_help compare_help = { compare_usage, compare_usage_tail, NULL, NULL };

static int write_html(FILE *f, const void *c)
{
    return bench_compare_html_write(f, c);
}

/* The comparison's outputs: the table on standard output (nowhere when an
 * output goes there), --json, --html.  An exit status. */
static int compare_out(const compare_opts *o, const bench_compare *c)
{
    int rc = BENCH_EXIT_OK;
    json_t *doc = NULL;
    FILE *txt = o->to_stdout ? fopen("/dev/null", "w") : stdout;
    if (!txt) {
        bench_error("compare: out of memory (or /dev/null cannot be opened)");
        return BENCH_EXIT_FAILED;
    }
    print_compare(txt, c);
    if (o->json_path && !(doc = bench_compare_json(c))) {
        bench_error("compare: out of memory");
        rc = BENCH_EXIT_FAILED;
    } else if (txt == stdout ? bench_stdout_check("compare") != 0 : fflush(txt) != 0) {
        if (txt != stdout)
            bench_error("compare: cannot write to /dev/null");
        rc = BENCH_EXIT_FAILED;
    }
    if (txt != stdout)
        (void)fclose(txt);
    if (rc == BENCH_EXIT_OK && o->json_path &&
        bench_results_write_text(o->json_path, doc, "--json", write_json) != 0)
        rc = BENCH_EXIT_FAILED;
    if (rc == BENCH_EXIT_OK && o->html_path && bench_results_write_ctx(o->html_path, "--html", write_html, c) != 0)
        rc = BENCH_EXIT_FAILED;
    json_decref(doc);
    return rc;
}

int bench_cmd_compare(int argc, char **argv, const bench_section *const *sections)
{
    char err[600];
    bench_opts_parser parser;
    compare_opts o;
    memset(&o, 0, sizeof o);
    o.sections = sections;
    o.min_change = BENCH_VERDICT_MIN_CHANGE_PCT;
    int rc = bench_opts_take_all(&parser, &bench_compare_options, &compare_help, argc, argv, take_option, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    const int n = argc - optind;
    if (check_args(&o, &parser, argv, optind, n) != 0)
        return BENCH_EXIT_USAGE;
    json_t *raw[MAX_FILES] = { NULL };
    const char *paths[MAX_FILES];
    bench_doc_model docs[MAX_FILES];
    bench_compare c;
    int nd = 0;
    memset(&c, 0, sizeof c);
    rc = BENCH_EXIT_OK;
    for (int i = 0; i < n; i++) {
        paths[i] = argv[optind + i];
        if (!(raw[i] = bench_results_load(paths[i], err, sizeof err))) {
            bench_error("%s", err);
            rc = BENCH_EXIT_USAGE;
            goto cleanup;
        }
        if (bench_doc_model_of(raw[i], &docs[i]) != 0) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
            goto cleanup;
        }
        nd = i + 1;
    }
    if (bench_compare_build(docs, paths, (size_t)n, sections, o.rules, o.nrules, o.min_change, &c) != 0) {
        bench_error("compare: out of memory");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    rc = compare_out(&o, &c);
    if (rc == BENCH_EXIT_OK)
        rc = bench_compare_exit(&c);
cleanup:
    bench_compare_free(&c);
    for (int i = 0; i < nd; i++)
        bench_doc_model_free(&docs[i]);
    for (int i = 0; i < n; i++)
        json_decref(raw[i]);
    return rc;
}

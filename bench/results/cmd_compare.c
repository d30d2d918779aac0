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
 * --fail-on rules of rule.c are judged on it, and the comparison is also a
 * document (hsmbench.compare/1: --json, and --html from it).
 */
#include "bench/results/cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/capanswer.h"
#include "bench/results/dsfacts.h"
#include "bench/results/jsondump.h"
#include "bench/results/model.h"
#include "bench/results/compare_html.h"
#include "bench/results/repeat.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/rule.h"
#include "bench/results/target.h"
#include "bench/results/verdict.h"

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
typedef struct compare_ctx {
    const bench_section *const *sections;
    const bench_rule *rules;
    size_t            nrules;
    double            min_change_pct;  /* --min-change */
    size_t            failed;      /* rules failed, over every pair */
    json_t           *pairs;       /* the document's "comparisons" */
    json_t           *extra;       /* more members of the document (two datasheets' "datasheet") */
} compare_ctx;

typedef struct cfile {
    const char *path;
    char        label[2];
    json_t     *doc;
    char       *used;       /* runs already shown */
    bench_target target;    /* what the file measured */
} cfile;

/* ---- environment ----------------------------------------------------------- */

static const json_t *env_part(const json_t *doc, const char *part)
{
    return json_object_get(json_object_get(doc, "environment"), part);
}

/* The machine a file's figures come from, as a reader compares machines:
 * "4 CPUs, Intel(R) Xeon(R) ... (m5.xlarge)" (model and product when known). */
static void machine_of(const json_t *h, char *buf, size_t len)
{
    const char *model = bench_json_str(h, "cpu_model", NULL), *product = bench_json_str(h, "product", NULL);
    snprintf(buf, len, "%lld CPUs%s%s%s%s%s", bench_json_int(h, "cpus", 0), model ? ", " : "", model ? model : "",
             product ? " (" : "", product ? product : "", product ? ")" : "");
}

/* Two known values that differ (an absent one differs from nothing). */
static int fact_differs(const json_t *a, const json_t *b, const char *key)
{
    const char *x = bench_json_str(a, key, NULL), *y = bench_json_str(b, key, NULL);
    return x && y && strcmp(x, y) != 0;
}

/* Flag a file whose target, host or machine is not the first file's.  Between two
 * PKCS#11 files the module and the token are named apart. */
static void env_flags(FILE *f, const cfile *files, size_t n)
{
    const json_t *m0 = env_part(files[0].doc, "module"), *t0 = env_part(files[0].doc, "token");
    const json_t *h0 = env_part(files[0].doc, "host");
    const bench_target *g0 = &files[0].target;
    for (size_t i = 1; i < n; i++) {
        const json_t *m = env_part(files[i].doc, "module"), *t = env_part(files[i].doc, "token");
        const json_t *h = env_part(files[i].doc, "host");
        const bench_target *g = &files[i].target;
        int flagged = 0;
        if (strcmp(g0->kind, "pkcs11") == 0 && strcmp(g->kind, "pkcs11") == 0) {
            const char *mp0 = bench_json_str(m0, "path", bench_json_str(m0, "name", "?"));
            const char *mp = bench_json_str(m, "path", bench_json_str(m, "name", "?"));
            if (strcmp(mp0, mp) != 0) {
                fprintf(f, "  \xe2\x9a\xa0 %s: different module: %s vs %s\n", files[i].label, mp, mp0);
                flagged = 1;
            }
            const char *l0 = bench_json_str(t0, "label", "?"), *l = bench_json_str(t, "label", "?");
            const char *s0 = bench_json_str(t0, "serial", "?"), *s = bench_json_str(t, "serial", "?");
            if (strcmp(l0, l) != 0 || strcmp(s0, s) != 0) {
                fprintf(f, "  \xe2\x9a\xa0 %s: different token: %s (serial %s) vs %s (serial %s)\n",
                        files[i].label, l, s, l0, s0);
                flagged = 1;
            }
        }
        if (!flagged && bench_target_tls_pair(g0, g)) {
            fprintf(f, "  %s: the same endpoint with TLS %s (%s vs %s): compared as a setting\n", files[i].label,
                    strstr(g->id, ":https://") ? "on" : "off", g->name, g0->name);
        } else if (!flagged && bench_target_differs(g0, g)) {
            int same_name = strcmp(g0->name, g->name) == 0;   /* then only the ids tell them apart */
            fprintf(f, "  \xe2\x9a\xa0 %s: different target: %s vs %s\n", files[i].label,
                    same_name ? g->id : g->name, same_name ? g0->id : g0->name);
        }
        const char *hn0 = bench_json_str(h0, "hostname", "?"), *hn = bench_json_str(h, "hostname", "?");
        if (strcmp(hn0, hn) != 0)
            fprintf(f, "  \xe2\x9a\xa0 %s: different host: %s vs %s\n", files[i].label, hn, hn0);
        /* The figures of 4 CPUs against 2 (seed 004's two instance sizes)
         * are the machines' as much as the target's: said, whatever the names. */
        if (bench_json_int(h0, "cpus", 0) != bench_json_int(h, "cpus", 0) || fact_differs(h0, h, "cpu_model") ||
            fact_differs(h0, h, "product")) {
            char ma[384], mb[384];
            machine_of(h0, ma, sizeof ma);
            machine_of(h, mb, sizeof mb);
            fprintf(f, "  \xe2\x9a\xa0 %s: different machine: %s vs %s\n", files[i].label, mb, ma);
        }
    }
}

/* What run r of cf measured differs from what base (of A) measured: the
 * files' targets, or with rest http --tls-matrix the variants' URLs. */
static int run_target_differs(const cfile *a, const json_t *base, const cfile *cf, const json_t *r)
{
    bench_target ta, tb;
    (void)bench_target_of_run(a->doc, base, &ta);
    (void)bench_target_of_run(cf->doc, r, &tb);
    return bench_target_differs(&ta, &tb) && !bench_target_tls_pair(&ta, &tb);
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

/* One file's row; base is the first file's run when comparable, else NULL;
 * other_target flags a row whose target is not the base row's.  Figures
 * from the run models. */
static void print_row(FILE *f, const cfile *cf, const json_t *run, const json_t *base, int other_target)
{
    char cells[NCOL][48];
    memset(cells, 0, sizeof cells);
    snprintf(cells[0], sizeof cells[0], "%s", cf->label);
    bench_run_model m, b;
    if (bench_model_from_run(run, NULL, &m) != 0) {
        fprintf(f, "  %-4s  out of memory\n", cf->label);
        return;
    }
    if (!m.measured) {
        fprintf(f, "  %-4s  %s: %s\n", cf->label, m.status, *m.reason ? m.reason : "not measured");
        bench_model_free(&m);
        return;
    }
    snprintf(cells[1], sizeof cells[1], "%.2f", m.ops_per_s);
    fmt_lat(&m.latency, m.latency.p50, cells[3], sizeof cells[3]);
    fmt_lat(&m.latency, m.latency.p99, cells[5], sizeof cells[5]);
    snprintf(cells[7], sizeof cells[7], "%.2f%%", m.error_pct);
    if (base && base != run && bench_model_from_run(base, NULL, &b) == 0) {
        pct_change(b.ops_per_s, m.ops_per_s, cells[2], sizeof cells[2]);
        if (b.latency.count && m.latency.count) {
            pct_change(b.latency.p50, m.latency.p50, cells[4], sizeof cells[4]);
            pct_change(b.latency.p99, m.latency.p99, cells[6], sizeof cells[6]);
        }
        snprintf(cells[8], sizeof cells[8], "%+.2fpp", m.error_pct - b.error_pct);
        bench_model_free(&b);
    }
    print_cells(f, cells);
    if (other_target && base && base != run)
        fputs("  \xe2\x9a\xa0 different target", f);
    /* A schedule not kept: its latency leaves out the longest waits. */
    if (!m.latency_complete)
        fprintf(f, "  \xe2\x9a\xa0 latency incomplete: %llu of %llu scheduled requests never started",
                (unsigned long long)m.dropped, (unsigned long long)m.scheduled);
    bench_model_free(&m);
    fputc('\n', f);
}

/* Under a row, each section's peer latency (a peer load tool's request
 * duration) where the run has it, against base's when base has it too:
 * what that tool's summary of the same run would have compared. */
static void print_peer_rows(FILE *f, const bench_section *const *sections, const json_t *run, const json_t *base)
{
    for (size_t s = 0; sections && sections[s]; s++) {
        const bench_section *sec = sections[s];
        if (!sec->peer_latency)
            continue;
        bench_model_latency l, b;
        bench_model_latency_of(json_object_get(json_object_get(json_object_get(run, sec->key), sec->dists),
                                               sec->peer_latency), &l);
        if (!l.present || !l.count)
            continue;
        memset(&b, 0, sizeof b);
        if (base && base != run)
            bench_model_latency_of(json_object_get(json_object_get(json_object_get(base, sec->key), sec->dists),
                                                   sec->peer_latency), &b);
        char p50[32], p99[32], c50[32] = "", c99[32] = "";
        bench_fmt_ns(l.p50 * 1000.0, p50, sizeof p50);
        bench_fmt_ns(l.p99 * 1000.0, p99, sizeof p99);
        if (b.present && b.count) {
            c50[0] = c99[0] = ' ';
            pct_change(b.p50, l.p50, c50 + 1, sizeof c50 - 1);
            pct_change(b.p99, l.p99, c99 + 1, sizeof c99 - 1);
        }
        fprintf(f, "        %s: p50 %s%s, p99 %s%s\n", sec->peer_latency_name, p50, c50, p99, c99);
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

/* The pair's word over its figures: slower when one is worse and none is
 * better, faster the other way, mixed when both; no change otherwise. */
static const char *pair_word(const bench_pair_cmp *p)
{
    int worse = 0, better = 0;
    for (size_t i = 0; i < p->n; i++) {
        worse |= p->figs[i].verdict == BENCH_CHANGE_WORSE;
        better |= p->figs[i].verdict == BENCH_CHANGE_BETTER;
    }
    if (p->n == 1 && p->figs[0].verdict == BENCH_CHANGE_NA)
        return "not comparable";
    return worse && better ? "mixed" : worse ? "slower" : better ? "faster" : "no change (within noise)";
}

static json_t *num_or_null(int has, double v)
{
    return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *fig_json(const bench_fig_cmp *x)
{
    static const char *const units[] = { "ops/s", "us", "%" };
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "name", x->name, "label", x->label,
                          "unit", units[x->unit], "a", num_or_null(1, x->a), "b", num_or_null(1, x->b),
                          "change_pct", num_or_null(x->has_pct, x->pct), "delta", num_or_null(1, x->delta),
                          "verdict", bench_change_word(x));
    if (!o)
        return NULL;
    json_t *t = x->tested ? json_pack("{s:s, s:f, s:b}", "method", x->method, "p", x->p, "significant",
                                      x->significant)
                          : json_null();
    if (json_object_set_new(o, "test", t) != 0 ||
        (*x->why && json_object_set_new(o, "why", json_string(x->why)) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
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

/* Two runs' models and their pair's verdict: 0, or -1 when out of memory. */
static int pair_of(compare_ctx *cx, const cfile *a, const json_t *ra, const cfile *b, const json_t *rb,
                   bench_pair_cmp *p)
{
    bench_run_model ma, mb;
    if (bench_model_from_run(ra, a->doc, &ma) != 0)
        return -1;
    if (bench_model_from_run(rb, b->doc, &mb) != 0) {
        bench_model_free(&ma);
        return -1;
    }
    int rc = bench_pair_compare(&ma, &mb, ra, rb, cx->sections, cx->min_change_pct, p);
    bench_model_free(&ma);
    bench_model_free(&mb);
    return rc;
}

/* A class of a run's breakdown as a run of its own: the run's element with
 * the class's counts, rates, latency and histogram, without the per-second
 * series and the parts that are the whole run's.  NULL when out of memory. */
static json_t *class_as_run(const json_t *run, const json_t *cls)
{
    static const char *const whole[] = { "breakdown", "per_second", "attempts_latency_us", "service_us",
                                         "queue_us", "replay", "mix" };
    static const char *const own[] = { "ops", "attempts", "errors", "error_pct", "ops_per_s",
                                       "attempts_per_s", "latency_us", "errors_by_code", "histogram" };
    json_t *x = json_copy((json_t *)run);
    if (!x)
        return NULL;
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        json_object_del(x, whole[i]);
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        json_t *v = json_object_get(cls, own[i]);
        if (!v) {
            (void)json_object_del(x, own[i]);   /* -1: it was not there either */
        } else if (json_object_set(x, own[i], v) != 0) {
            json_decref(x);
            return NULL;
        }
    }
    return x;
}

/*
 * Each class both runs' breakdowns have (a replay's transactions, a mix's
 * types, a run's tokens): its own verdict, from its figures as a run's, a
 * line each and the pair's "classes".  -1 when out of memory.
 */
static int class_verdicts(FILE *f, compare_ctx *cx, const cfile *a, const json_t *ra, const cfile *b,
                          const json_t *rb, json_t *pair)
{
    const json_t *bb = json_object_get(rb, "breakdown"), *arr;
    const char *dim;
    json_t *out = json_array();
    if (!out || json_object_set_new(pair, "classes", out) != 0)
        return -1;
    json_object_foreach((json_t *)json_object_get(ra, "breakdown"), dim, arr) {
        size_t i, k;
        const json_t *ca, *cb = NULL, *c;
        json_array_foreach(arr, i, ca) {
            const char *name = bench_json_str(ca, "class", "?");
            cb = NULL;
            json_array_foreach(json_object_get(bb, dim), k, c)
                if (!cb && strcmp(bench_json_str(c, "class", ""), name) == 0)
                    cb = c;
            if (!cb)
                continue;
            json_t *xa = class_as_run(ra, ca), *xb = class_as_run(rb, cb), *figs = json_array();
            bench_pair_cmp p;
            int rc = !xa || !xb || !figs || pair_of(cx, a, xa, b, xb, &p) != 0;
            json_decref(xa);
            json_decref(xb);
            if (rc) {
                json_decref(figs);
                return -1;
            }
            fprintf(f, "       %s vs %s, %s %s: %s", b->label, a->label, dim, name, pair_word(&p));
            print_changed(f, &p);
            for (size_t j = 0; j < p.n; j++)
                rc |= json_array_append_new(figs, fig_json(&p.figs[j]));
            if (rc || json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:o}", "dimension", dim, "class",
                                                           name, "verdict", pair_word(&p), "figures",
                                                           figs)) != 0)
                return -1;
        }
    }
    return 0;
}

/* B against A (both measured, same setup): the figures, the rules, and
 * the pair's element of the document; -1 when out of memory. */
static int print_verdict(FILE *f, compare_ctx *cx, const cfile *a, const json_t *ra, const cfile *b,
                         const json_t *rb, json_t *pair)
{
    bench_pair_cmp p;
    if (pair_of(cx, a, ra, b, rb, &p) != 0)
        return -1;

    const char *word = pair_word(&p);
    char c[32];
    fprintf(f, "       %s vs %s: %s", b->label, a->label, word);
    print_changed(f, &p);
    json_t *figs = json_array();
    if (!figs || json_object_set_new(pair, "figures", figs) != 0 ||
        json_object_set_new(pair, "verdict", json_string(word)) != 0)
        return -1;
    for (size_t i = 0; i < p.n; i++) {
        const bench_fig_cmp *x = &p.figs[i];
        fprintf(f, "         %-22s %9s  %-14s %s\n", x->label, x->verdict == BENCH_CHANGE_NA ? "-" : fig_change(x, c, sizeof c),
                bench_change_word(x), x->verdict == BENCH_CHANGE_NA ? x->why : x->method);
        if (json_array_append_new(figs, fig_json(x)) != 0)
            return -1;
    }
    json_t *rules = json_array();
    if (!rules || json_object_set_new(pair, "rules", rules) != 0)
        return -1;
    static const char *const results[] = { "pass", "fail", "not judged" };
    for (size_t i = 0; i < cx->nrules; i++) {
        char why[256];
        bench_rule_result r = bench_rule_check(&cx->rules[i], &p, why, sizeof why);
        if (r == BENCH_RULE_FAIL)
            cx->failed++;
        fprintf(f, "       %s vs %s: --fail-on %s: %s\n", b->label, a->label, cx->rules[i].text, why);
        if (json_array_append_new(rules, json_pack("{s:s, s:s, s:s}", "rule", cx->rules[i].text, "result",
                                                   results[r], "why", why)) != 0)
            return -1;
    }
    return class_verdicts(f, cx, a, ra, b, rb, pair);
}

static void run_heading(FILE *f, const json_t *run)
{
    char key[64];
    long long th = bench_json_int(run, "threads", 0);
    bench_run_key_desc(run, key, sizeof key);
    fprintf(f, "\n%s", bench_json_str(run, "test", "?"));
    if (json_object_get(run, "mechanism"))
        fprintf(f, " \xc2\xb7 %s", bench_json_str(run, "mechanism", "?"));
    if (strcmp(key, "-") != 0)
        fprintf(f, " \xc2\xb7 %s", key);
    fprintf(f, " \xc2\xb7 data %lld B \xc2\xb7 %lld thread%s \xc2\xb7 %s\n", bench_json_int(run, "data_size", 0), th,
            th == 1 ? "" : "s", bench_json_str(run, "mode", "?"));
}

/* A datasheet's step of a run (runs[i].datasheet.id), or NULL. */
static const char *ds_id(const json_t *run)
{
    return bench_json_str(json_object_get(run, "datasheet"), "id", NULL);
}

/* Same datasheet step, or neither of a datasheet. */
static int same_step(const json_t *a, const json_t *b)
{
    const char *x = ds_id(a), *y = ds_id(b);
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* A run of file cf matching `want` exactly (a datasheet's: the same step
 * too), else one of the same test (not for a datasheet's step: it is
 * missing); -1 if none. */
static long find_run(const cfile *cf, const json_t *want, int *exact)
{
    const json_t *runs = json_object_get(cf->doc, "runs");
    size_t n = json_array_size(runs);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            const json_t *r = json_array_get(runs, k);
            if (cf->used[k])
                continue;
            if (pass == 0 && same_step(want, r) && bench_run_same_setup(want, r, 0, NULL, 0)) {
                *exact = 1;
                return (long)k;
            }
            if (pass == 1 && !ds_id(want) && strcmp(bench_json_str(want, "test", ""), bench_json_str(r, "test", "")) == 0) {
                *exact = 0;
                return (long)k;
            }
        }
    }
    return -1;
}

/* The pair's element of the document: its setup, which files; NULL when out of memory. */
static json_t *pair_json(const json_t *base, const cfile *a, const cfile *b)
{
    char key[64];
    bench_run_key_desc(base, key, sizeof key);
    json_t *pair = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s}", "test", bench_json_str(base, "test", "?"),
                             "mechanism", bench_json_str(base, "mechanism", ""), "key", key, "data_size",
                             (json_int_t)bench_json_int(base, "data_size", 0), "threads",
                             (json_int_t)bench_json_int(base, "threads", 0), "mode",
                             bench_json_str(base, "mode", "?"), "base", a->label, "run", b->label);
    const json_t *tag = json_object_get(base, "datasheet");
    if (pair && tag && json_object_set_new(pair, "datasheet_step",
                                           json_string(bench_json_str(tag, "step", "?"))) != 0) {
        json_decref(pair);
        return NULL;
    }
    return pair;
}

/*
 * The capacity answers of a test in A and B (with --capacity): "slower"
 * when B's interval is wholly below A's and the change is beyond
 * --min-change, "faster" the other way, "no change" when the intervals
 * overlap or the change is within it; "missing" when B has no answer,
 * "not comparable" when the objectives differ or either found no rate.
 * NULL when A has no answer.  The JSON element (NULL when out of memory)
 * in *out, the printed words in line.
 */
static const char *cap_verdict(const bench_cap_answer *a, const bench_cap_answer *b, double min_change_pct,
                               json_t **out, char *line, size_t len)
{
    if (!a)
        return NULL;
    char objs[160];
    bench_cap_objectives_text(a, objs, sizeof objs);
    /* a found answer's interval (capanswer.h); fa, fb: none found */
    const int fa = !a->has_interval, fb = !b || !b->has_interval;
    const double ra = a->ops_per_s, la = a->interval_lo, ha = a->interval_hi;
    const double rb = b ? b->ops_per_s : 0, lb = b ? b->interval_lo : 0, hb = b ? b->interval_hi : 0;
    const char *word;
    double pct = 0;
    if (!b) {
        word = "missing";
        snprintf(line, len, "capacity at %s: missing", objs);
    } else if (!bench_cap_same_objectives(a, b)) {
        word = "not comparable";
        snprintf(line, len, "capacity at %s: not comparable (other objectives)", objs);
    } else if (fa || fb) {
        word = "not comparable";
        const char *result = (fa ? a : b)->result;
        snprintf(line, len, "capacity at %s: not comparable (%s: %s)", objs, fa ? "A" : "B", result ? result : "?");
    } else {
        pct = 100 * (rb - ra) / ra;
        const int below = hb < la, above = lb > ha;
        word = fabs(pct) <= min_change_pct ? "no change" : below ? "slower" : above ? "faster" : "no change";
        snprintf(line, len, "capacity at %s: %.0f to %.0f ops/s (%+.1f%%), %s: %s", objs, ra, rb, pct,
                 below || above ? "the intervals apart" : "the intervals overlap", word);
    }
    *out = json_pack("{s:s,s:o,s:o,s:o}", "verdict", word, "base_ops_per_s", fa ? json_null() : json_real(ra),
                     "ops_per_s", fb ? json_null() : json_real(rb), "change_pct",
                     fa || fb ? json_null() : json_real(round(pct * 100) / 100));
    return word;
}

/*
 * Two datasheets, test by test: each test (and key) of A against each
 * other file, from the pairs of its steps: slower when a step is slower and
 * none faster, faster the other way, mixed when both, missing when no step
 * of it is in the other file, else no change.  Printed, and the document's
 * "datasheet" array; -1 when out of memory.
 */
static int datasheet_verdicts(FILE *f, compare_ctx *cx, const cfile *files, size_t n)
{
    /* The datasheets' own facts (dsfacts.h): A's, and each later file's in turn. */
    bench_ds_facts base, later;
    json_t *out;
    int rc = -1;
    memset(&later, 0, sizeof later);
    if (bench_ds_facts_of(files[0].doc, &base) != 0)
        return -1;
    if (!base.present) {
        rc = 0;
        goto cleanup;
    }
    out = json_array();
    if (!out || json_object_set_new(cx->extra, "datasheet", out) != 0)
        goto cleanup;
    for (size_t fi = 1; fi < n; fi++) {
        bench_ds_facts_free(&later);
        if (bench_ds_facts_of(files[fi].doc, &later) != 0)
            goto cleanup;
        fprintf(f, "\nDatasheets, test by test (%s against %s):\n", files[fi].label, files[0].label);
        size_t i;
        json_t *p;
        json_array_foreach(cx->pairs, i, p) {
            if (strcmp(bench_json_str(p, "run", ""), files[fi].label) != 0 || !json_object_get(p, "datasheet_step"))
                continue;
            const char *test = bench_json_str(p, "test", ""), *key = bench_json_str(p, "key", "");
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++) {
                const json_t *q = json_array_get(cx->pairs, k);
                seen = strcmp(bench_json_str(q, "run", ""), files[fi].label) == 0 &&
                       strcmp(bench_json_str(q, "test", ""), test) == 0 &&
                       strcmp(bench_json_str(q, "key", ""), key) == 0;
            }
            if (seen)
                continue;      /* its test was summed up at its first step */
            size_t slower = 0, faster = 0, same = 0, missing = 0, other = 0, k;
            json_t *q;
            json_array_foreach(cx->pairs, k, q) {
                if (strcmp(bench_json_str(q, "run", ""), files[fi].label) != 0 ||
                    strcmp(bench_json_str(q, "test", ""), test) != 0 || strcmp(bench_json_str(q, "key", ""), key) != 0)
                    continue;
                const char *v = bench_json_str(q, "verdict", "");
                if (!json_is_true(json_object_get(q, "comparable")))
                    missing++;
                else if (strcmp(v, "slower") == 0)
                    slower++;
                else if (strcmp(v, "faster") == 0)
                    faster++;
                else if (strcmp(v, "mixed") == 0)
                    slower++, faster++;
                else if (strncmp(v, "no change", 9) == 0)
                    same++;
                else
                    other++;
            }
            char capline[320] = "";
            json_t *capj = NULL;
            const char *cw = cap_verdict(bench_ds_capacity_of(&base, test, key, 1),
                                         bench_ds_capacity_of(&later, test, key, 1), cx->min_change_pct, &capj,
                                         capline, sizeof capline);
            if (cw && !capj)
                goto cleanup;
            const size_t cap_slower = cw && strcmp(cw, "slower") == 0, cap_faster = cw && strcmp(cw, "faster") == 0;
            const size_t sl = slower + cap_slower, fa = faster + cap_faster;
            const char *word = sl && fa ? "mixed" : sl ? "slower" : fa ? "faster"
                               : same || (cw && strcmp(cw, "no change") == 0) ? "no change" : "missing";
            const size_t steps = slower + faster + same + missing + other;
            fprintf(f, "  %-28s %-10s %-10s (%zu step%s: %zu slower, %zu faster, %zu no change, %zu missing)%s%s\n",
                    test, key, word, steps, steps == 1 ? "" : "s", slower, faster, same, missing,
                    cw ? "; " : "", capline);
            json_t *el = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I}", "test", test, "key", key, "run",
                                   files[fi].label, "verdict", word, "slower", (json_int_t)slower, "faster",
                                   (json_int_t)faster, "no_change", (json_int_t)same, "missing",
                                   (json_int_t)missing);
            if (!el || (capj && json_object_set_new(el, "capacity", capj) != 0) ||
                json_array_append_new(out, el) != 0) {
                if (!el)
                    json_decref(capj);
                goto cleanup;
            }
        }
    }
    rc = 0;
cleanup:
    bench_ds_facts_free(&base);
    bench_ds_facts_free(&later);
    return rc;
}

/* Each file's --repeat groups (bench/results/repeat.c), a line each: two
 * intervals between runs that do not overlap are a difference of the
 * token, not of one run.  0, or -1 when out of memory. */
static int repeats_lines(FILE *f, const cfile *files, size_t n)
{
    int heading = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *reps = bench_repeats(json_object_get(files[i].doc, "runs"));
        size_t k;
        const json_t *el;
        if (!reps)
            return -1;
        json_array_foreach(reps, k, el) {
            char line[640];
            if (!heading++)
                fputs("\nBetween runs (--repeat; 95 % Student t over each file's runs):\n", f);
            fprintf(f, "  %s  %s\n", files[i].label, bench_repeat_text(el, line, sizeof line));
        }
        json_decref(reps);
    }
    return 0;
}

/* Print the comparison to f, and add its pairs to cx->pairs; -1 when out of memory. */
static int compare_all(FILE *f, compare_ctx *cx, cfile *files, size_t n)
{
    fputs("Files (changes are against A):\n", f);
    for (size_t i = 0; i < n; i++) {
        const json_t *d = files[i].doc;
        fprintf(f, "  %s  %s  (%s \xc2\xb7 host %s", files[i].label, files[i].path, files[i].target.name,
                bench_json_str(env_part(d, "host"), "hostname", "?"));
        const char *started = bench_json_str(d, "started_at", NULL);
        if (started)
            fprintf(f, " \xc2\xb7 %s", started);
        fputs(")\n", f);
    }
    env_flags(f, files, n);

    const json_t *base_runs = json_object_get(files[0].doc, "runs");
    size_t j;
    json_t *base;
    json_array_foreach(base_runs, j, base) {
        files[0].used[j] = 1;
        run_heading(f, base);
        print_header(f);
        print_row(f, &files[0], base, base, 0);
        print_peer_rows(f, cx->sections, base, NULL);
        for (size_t i = 1; i < n; i++) {
            int exact = 0;
            long k = find_run(&files[i], base, &exact);
            json_t *pair = pair_json(base, &files[0], &files[i]);
            if (!pair || json_array_append_new(cx->pairs, pair) != 0)
                return -1;
            if (k < 0) {
                if (ds_id(base))
                    fprintf(f, "  %-4s  (missing: no such step)\n", files[i].label);
                else
                    fprintf(f, "  %-4s  (no run of %s)\n", files[i].label, bench_json_str(base, "test", "?"));
                if (json_object_set_new(pair, "comparable", json_false()) != 0 ||
                    json_object_set_new(pair, "why", json_string(ds_id(base) ? "missing: no such step"
                                                                             : "no run of this test")) != 0)
                    return -1;
                continue;
            }
            files[i].used[k] = 1;
            const json_t *r = json_array_get(json_object_get(files[i].doc, "runs"), (size_t)k);
            if (!exact) {
                char why[160];
                (void)bench_run_same_setup(base, r, 0, why, sizeof why);   /* 0: we want the why */
                print_row(f, &files[i], r, NULL, 0);
                fprintf(f, "       %s vs %s: \xe2\x9a\xa0 not comparable: %s\n", files[i].label, files[0].label, why);
                if (json_object_set_new(pair, "comparable", json_false()) != 0 ||
                    json_object_set_new(pair, "why", json_string(why)) != 0)
                    return -1;
                continue;
            }
            int other = run_target_differs(&files[0], base, &files[i], r);
            print_row(f, &files[i], r, base, other);
            print_peer_rows(f, cx->sections, r, base);
            if (json_object_set_new(pair, "comparable", json_true()) != 0 ||
                json_object_set_new(pair, "different_target", json_boolean(other)) != 0 ||
                print_verdict(f, cx, &files[0], base, &files[i], r, pair) != 0)
                return -1;
        }
    }
    /* Runs only the other files have. */
    for (size_t i = 1; i < n; i++) {
        const json_t *runs = json_object_get(files[i].doc, "runs");
        size_t k;
        json_t *r;
        json_array_foreach(runs, k, r) {
            if (files[i].used[k])
                continue;
            run_heading(f, r);
            fprintf(f, "  (not in A)\n");
            print_header(f);
            print_row(f, &files[i], r, NULL, 0);
        }
    }
    if (datasheet_verdicts(f, cx, files, n) != 0)
        return -1;
    if (repeats_lines(f, files, n) != 0)
        return -1;
    if (cx->nrules) {
        fprintf(f, "\n%zu of %zu rule check%s failed", cx->failed, cx->nrules * json_array_size(cx->pairs),
                cx->nrules * json_array_size(cx->pairs) == 1 ? "" : "s");
        fputs(cx->failed ? " (exit status 1)\n" : "\n", f);
    }
    return 0;
}

/* The comparison as a document: hsmbench.compare/1 (docs/results-schema.md). */
static json_t *compare_doc(const compare_ctx *cx, const cfile *files, size_t n)
{
    json_t *fl = json_array(), *rules = json_array();
    for (size_t i = 0; fl && i < n; i++) {
        const json_t *d = files[i].doc;
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "label", files[i].label, "path", files[i].path,
                              "target", files[i].target.name, "host",
                              bench_json_str(env_part(d, "host"), "hostname", "?"));
        const char *started = bench_json_str(d, "started_at", NULL);
        if (o && started && json_object_set_new(o, "started_at", json_string(started)) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (json_array_append_new(fl, o) != 0) {
            json_decref(fl);
            fl = NULL;
        }
    }
    for (size_t i = 0; rules && i < cx->nrules; i++)
        if (json_array_append_new(rules, json_string(cx->rules[i].text)) != 0) {
            json_decref(rules);
            rules = NULL;
        }
    if (!fl || !rules) {
        json_decref(fl);
        json_decref(rules);
        return NULL;
    }
    return json_pack("{s:s, s:{s:s, s:s}, s:f, s:f, s:o, s:O, s:o, s:I, s:i}", "schema", BENCH_COMPARE_SCHEMA,
                     "tool", "name", "hsmbench", "version", HSMBENCH_VERSION, "alpha", BENCH_VERDICT_ALPHA,
                     "min_change_pct", cx->min_change_pct, "files", fl, "comparisons", cx->pairs,
                     "rules", rules, "failed_rules", (json_int_t)cx->failed, "exit_status",
                     cx->failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK);
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
    const char *const json_path = o.json_path, *const html_path = o.html_path;
    cfile files[MAX_FILES];
    memset(files, 0, sizeof files);
    rc = BENCH_EXIT_OK;
    for (int i = 0; i < n; i++) {
        files[i].path = argv[optind + i];
        files[i].label[0] = (char)('A' + i);
        files[i].doc = bench_results_load(files[i].path, err, sizeof err);
        if (!files[i].doc) {
            bench_error("%s", err);
            rc = BENCH_EXIT_USAGE;
            break;
        }
        (void)bench_target_of(files[i].doc, &files[i].target);   /* "?" when the file names none */
        size_t nr = json_array_size(json_object_get(files[i].doc, "runs"));
        files[i].used = calloc(nr ? nr : 1, 1);
        if (!files[i].used) {
            bench_error("out of memory");
            rc = BENCH_EXIT_FAILED;
            break;
        }
    }
    compare_ctx cx = { sections, o.rules, o.nrules, o.min_change, 0, NULL, json_object() };
    json_t *doc = NULL;
    if (rc == BENCH_EXIT_OK) {
        /* With an output on standard output, the table goes nowhere. */
        FILE *txt = o.to_stdout ? fopen("/dev/null", "w") : stdout;
        if (!txt || !cx.extra || !(cx.pairs = json_array()) || compare_all(txt, &cx, files, (size_t)n) != 0 ||
            !(doc = compare_doc(&cx, files, (size_t)n)) || json_object_update(doc, cx.extra) != 0) {
            bench_error("compare: out of memory%s", txt ? "" : " (or /dev/null cannot be opened)");
            rc = BENCH_EXIT_FAILED;
        } else if (txt == stdout ? bench_stdout_check("compare") != 0 : fflush(txt) != 0) {
            if (txt != stdout)
                bench_error("compare: cannot write to /dev/null");
            rc = BENCH_EXIT_FAILED;
        }
        if (txt && txt != stdout)
            (void)fclose(txt);
    }
    if (rc == BENCH_EXIT_OK && json_path && bench_results_write_text(json_path, doc, "--json", write_json) != 0)
        rc = BENCH_EXIT_FAILED;
    if (rc == BENCH_EXIT_OK && html_path &&
        bench_results_write_text(html_path, doc, "--html", bench_compare_html_write) != 0)
        rc = BENCH_EXIT_FAILED;
    if (rc == BENCH_EXIT_OK && cx.failed)
        rc = BENCH_EXIT_FAILED;
    json_decref(cx.pairs);     /* the document holds its own reference */
    json_decref(cx.extra);
    json_decref(doc);
    for (int i = 0; i < n; i++) {
        json_decref(files[i].doc);
        free(files[i].used);
    }
    return rc;
}

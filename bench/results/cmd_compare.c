/*
 * bench/results/cmd_compare.c - "hsmbench compare A.json B.json [C.json ...]": the
 * runs of several results files side by side, each against the first file,
 * with a verdict on whether a throughput difference is real.
 *
 * Runs are matched by test, key, data size, threads and mode.  A run of the
 * same test with other settings is shown but not compared ("not comparable:
 * threads 2 vs 1"); a different target (environment.target: another module
 * or token, another service or URL) is flagged at the top and on every row
 * it concerns.  The verdict uses each run's per-second throughput
 * samples: the Mann-Whitney U test decides (p < 0.05), and a bootstrap 95%
 * interval of the difference of the medians says how large it is.
 */
#include "bench/results/cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/stats.h"
#include "bench/results/target.h"

#define MAX_FILES 26
#define ALPHA 0.05
#define CI_LEVEL 0.95
/* Per-second intervals shorter than this (the tail of a run) are too noisy
 * to be a throughput sample. */
#define MIN_SPAN_S 0.5

static const char compare_usage[] =
    "Usage: hsmbench compare A.json B.json [C.json ...]\n"
    "\n"
    "Show the runs of several results files side by side: ops/s, p50, p99 and\n"
    "error rate, and each file's change against the first.  Runs are matched by\n"
    "test, key, data size, threads and mode; other differences are flagged, and\n"
    "so is a different target (module and token, or REST service and URL).\n"
    "Whether a throughput change is significant is judged from the per-second\n"
    "samples: two-sided Mann-Whitney U test (p < 0.05), with a bootstrap 95%\n"
    "confidence interval of the difference of the medians (2000 resamples).\n"
    "\n";

static const char compare_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 2 bad usage or input (missing file, bad JSON, not a\n"
    "results file, no runs).\n";

static const bench_opt_group *const compare_groups[] = { &bench_help_group, NULL };
const bench_cmd_opts bench_compare_options = { "compare", 0, compare_groups };

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

/* Flag a file whose target or host is not the first file's.  Between two
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
        if (!flagged && bench_target_differs(g0, g)) {
            int same_name = strcmp(g0->name, g->name) == 0;   /* then only the ids tell them apart */
            fprintf(f, "  \xe2\x9a\xa0 %s: different target: %s vs %s\n", files[i].label,
                    same_name ? g->id : g->name, same_name ? g0->id : g0->name);
        }
        const char *hn0 = bench_json_str(h0, "hostname", "?"), *hn = bench_json_str(h, "hostname", "?");
        if (strcmp(hn0, hn) != 0)
            fprintf(f, "  \xe2\x9a\xa0 %s: different host: %s vs %s\n", files[i].label, hn, hn0);
    }
}

/* What run r of cf measured differs from what base (of A) measured: the
 * files' targets, or with rest http --tls-matrix the variants' URLs. */
static int run_target_differs(const cfile *a, const json_t *base, const cfile *cf, const json_t *r)
{
    bench_target ta, tb;
    (void)bench_target_of_run(a->doc, base, &ta);
    (void)bench_target_of_run(cf->doc, r, &tb);
    return bench_target_differs(&ta, &tb);
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

/* The run's per-second throughput samples (successes / span), short tails left out. */
static double *samples_of(const json_t *run, size_t *n)
{
    bench_run_model m;
    *n = 0;
    if (bench_model_from_run(run, NULL, &m) != 0)
        return NULL;
    double *v = malloc((m.nseconds ? m.nseconds : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < m.nseconds; i++)
        if (m.seconds[i].span_s >= MIN_SPAN_S)
            v[k++] = (double)m.seconds[i].ops / m.seconds[i].span_s;
    bench_model_free(&m);
    *n = k;
    return v;
}

static const char *fmt_delta(double v, double scale, char *buf, size_t len)
{
    if (scale >= 100)
        snprintf(buf, len, "%+.0f", v);
    else
        snprintf(buf, len, "%+.2f", v);
    return buf;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
    if (p < 0.0001)
        snprintf(buf, len, "p<0.0001");
    else
        snprintf(buf, len, "p=%.2g", p);
    return buf;
}

/* "B vs A: significant (Mann-Whitney p=0.001; 95% CI of Δmedian +120..+180 ops/s)" */
static void print_verdict(FILE *f, const cfile *a, const json_t *ra, const cfile *b, const json_t *rb)
{
    size_t na = 0, nb = 0;
    double *sa = samples_of(ra, &na), *sb = samples_of(rb, &nb);
    fprintf(f, "       %s vs %s: ", b->label, a->label);
    if (!sa || !sb) {
        fputs("out of memory\n", f);
        goto done;
    }
    bench_mw mw;
    int rc = bench_mann_whitney(sa, na, sb, nb, &mw);
    if (rc == -1) {
        fprintf(f, "too few samples (%s: %zu, %s: %zu per-second samples; need %d each for a verdict)\n",
                a->label, na, b->label, nb, BENCH_STATS_MIN_N);
        goto done;
    }
    bench_ci ci;
    if (rc != 0 || bench_bootstrap_median_diff(sa, na, sb, nb, BENCH_STATS_RESAMPLES, CI_LEVEL,
                                               BENCH_STATS_SEED, &ci) != 0) {
        fputs("out of memory\n", f);
        goto done;
    }
    char p[32], lo[32], hi[32];
    double scale = fmax(fabs(ci.lo), fabs(ci.hi));
    fmt_p(mw.p, p, sizeof p);
    fmt_delta(ci.lo, scale, lo, sizeof lo);
    fmt_delta(ci.hi, scale, hi, sizeof hi);
    int sig = mw.p < ALPHA;
    int ci_zero = ci.lo <= 0 && ci.hi >= 0;
    const char *mwname = "Mann\xe2\x80\x93Whitney";
    if (sig && !ci_zero)
        fprintf(f, "significant (%s %s; 95%% CI of \xce\x94median %s..%s ops/s)\n", mwname, p, lo, hi);
    else if (!sig && ci_zero)
        fprintf(f, "not significant (%s %s; 95%% CI of \xce\x94median %s..%s ops/s)\n", mwname, p, lo, hi);
    else if (sig)
        fprintf(f, "significant by %s (%s), borderline: the 95%% CI of \xce\x94median %s..%s ops/s "
                "includes 0\n", mwname, p, lo, hi);
    else
        fprintf(f, "not significant by %s (%s), borderline: the 95%% CI of \xce\x94median %s..%s ops/s "
                "excludes 0\n", mwname, p, lo, hi);
done:
    free(sa);
    free(sb);
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

/* A run of file cf matching `want` exactly, else one of the same test; -1 if none. */
static long find_run(const cfile *cf, const json_t *want, int *exact)
{
    const json_t *runs = json_object_get(cf->doc, "runs");
    size_t n = json_array_size(runs);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            const json_t *r = json_array_get(runs, k);
            if (cf->used[k])
                continue;
            if (pass == 0 && bench_run_same_setup(want, r, 0, NULL, 0)) {
                *exact = 1;
                return (long)k;
            }
            if (pass == 1 && strcmp(bench_json_str(want, "test", ""), bench_json_str(r, "test", "")) == 0) {
                *exact = 0;
                return (long)k;
            }
        }
    }
    return -1;
}

static void compare_all(FILE *f, cfile *files, size_t n)
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
        for (size_t i = 1; i < n; i++) {
            int exact = 0;
            long k = find_run(&files[i], base, &exact);
            if (k < 0) {
                fprintf(f, "  %-4s  (no run of %s)\n", files[i].label, bench_json_str(base, "test", "?"));
                continue;
            }
            files[i].used[k] = 1;
            const json_t *r = json_array_get(json_object_get(files[i].doc, "runs"), (size_t)k);
            if (!exact) {
                char why[160];
                (void)bench_run_same_setup(base, r, 0, why, sizeof why);   /* 0: we want the why */
                print_row(f, &files[i], r, NULL, 0);
                fprintf(f, "       %s vs %s: \xe2\x9a\xa0 not comparable: %s\n", files[i].label, files[0].label, why);
                continue;
            }
            print_row(f, &files[i], r, base, run_target_differs(&files[0], base, &files[i], r));
            if (bench_run_measured(base) && bench_run_measured(r))
                print_verdict(f, &files[0], base, &files[i], r);
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
}

int bench_cmd_compare(int argc, char **argv)
{
    char err[600];
    int c;
    bench_opts_parser parser;
    if (bench_opts_begin(&parser, &bench_compare_options) != 0)
        return BENCH_EXIT_USAGE;
    while ((c = bench_opts_next(&parser, argc, argv)) != -1) {
        if (c == 'h') {
            fputs(compare_usage, stdout);
            bench_opts_help(&bench_compare_options, stdout);
            fputs(compare_usage_tail, stdout);
            return BENCH_EXIT_OK;
        }
        return bench_option_error(argv, c, "compare");
    }
    int n = argc - optind;
    if (n < 2) {
        bench_error("compare: at least two results files are needed (see: hsmbench compare --help)");
        return BENCH_EXIT_USAGE;
    }
    if (n > MAX_FILES) {
        bench_error("compare: at most %d files", MAX_FILES);
        return BENCH_EXIT_USAGE;
    }
    cfile files[MAX_FILES];
    memset(files, 0, sizeof files);
    int rc = BENCH_EXIT_OK;
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
    if (rc == BENCH_EXIT_OK) {
        compare_all(stdout, files, (size_t)n);
        if (bench_stdout_check("compare") != 0)
            rc = BENCH_EXIT_FAILED;
    }
    for (int i = 0; i < n; i++) {
        json_decref(files[i].doc);
        free(files[i].used);
    }
    return rc;
}

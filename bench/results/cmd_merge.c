/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/cmd_merge.c - "hsmbench merge A.json B.json ... -o ALL.json": the
 * results of several load generators that ran the same tests at the same
 * time, as one results file (see bench_results_merge for the arithmetic).
 */
#include "bench/results/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/outfile.h"
#include "bench/util/exit.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/results/series.h"
#include "bench/results/target.h"

#define MAX_INPUTS 4096

static const char merge_usage[] =
    "Usage: hsmbench merge A.json B.json [...] -o ALL.json [--quiet]\n"
    "\n"
    "Combine the results files of several load generators that ran the same\n"
    "tests at the same time (hsmbench run --start-at) into one results file:\n"
    "operations, errors and histograms are added exactly, latency percentiles\n"
    "recomputed from the merged histogram, per-second series aligned by\n"
    "wall-clock second.  Files must hold the same tests with the same key, data\n"
    "size, mode and duration or iterations; threads may differ (they add up).\n"
    "A warning names any generator that measured another target (module and\n"
    "token, or REST service and URL) than the first file's.  A generator that\n"
    "missed its --start-at window (its file's fleet.joined is false) is left\n"
    "out; the merged file's \"generators\" says how many joined, which were left\n"
    "out, which joined late and, with --expect, which sent no file.\n"
    "\n";

static const char merge_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 the output could not be written, or merged\n"
    "without every generator (one missed the start window, fewer joined than\n"
    "--expect); 2 bad usage or input (missing file, bad JSON, not a results\n"
    "file, files that differ, no generator joined).\n";

enum { OPT_QUIET = 3100, OPT_EXPECT };

static const bench_option merge_rows[] = {
    { "output", 'o', BENCH_ARG_REQUIRED, "FILE", 'o', "the merged results file (required)", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, OPT_QUIET, "print nothing but errors", NULL },
    { "expect", 0, BENCH_ARG_REQUIRED, "N", OPT_EXPECT,
      "the number of generators started: fewer joined is said and\n"
      "makes the exit status 1 (a fleet's collection step)", NULL },
};
static const bench_opt_group merge_group = BENCH_OPT_OUTPUTS(NULL, merge_rows, NULL);
static const bench_opt_group *const merge_groups[] = { &merge_group, &bench_help_group, NULL };
const bench_cmd_opts bench_merge_options = { "merge", 0, merge_groups };

static int dump_json(FILE *f, const json_t *doc)
{
    if (bench_series_dumpf(doc, f) != 0)     /* the merged series are held compactly */
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* Warn when the generators did not all measure the same target (the same
 * token of the same module, or the same service at the same URL). */
static void warn_targets(json_t *const *docs, const char *const *names, size_t n)
{
    bench_target t0;
    (void)bench_target_of(docs[0], &t0);
    for (size_t i = 1; i < n; i++) {
        bench_target t;
        (void)bench_target_of(docs[i], &t);
        if (!bench_target_differs(&t0, &t))
            continue;
        int same_name = strcmp(t0.name, t.name) == 0;   /* then only the ids tell them apart */
        bench_warn("%s: target %s is not %s's %s; merging anyway", names[i], same_name ? t.id : t.name,
                   names[0], same_name ? t0.id : t0.name);
    }
}

/* The generators of 0 .. expect-1 (a Kubernetes Indexed Job's completion
 * indexes, --generator "$JOB_COMPLETION_INDEX") that no file names, as
 * strings into missing; 0 when one was, -1 when out of memory.  When a file
 * names a generator that is not such an index, which are missing cannot be
 * told, and none is listed (the count of files still says how many). */
static int missing_indexes(json_t *const *docs, size_t n, long expect, json_t *missing)
{
    if (expect <= 0 || (size_t)expect <= n)
        return 0;
    unsigned char *seen = calloc((size_t)expect, 1);
    if (!seen)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const char *g = bench_json_str(json_object_get(docs[i], "fleet"), "generator", "");
        char *end;
        long k = strtol(g, &end, 10);
        if (!*g || *end || k < 0 || k >= expect || (g[0] == '0' && g[1])) {
            free(seen);
            return 0;
        }
        seen[k] = 1;
    }
    for (long k = 0; rc == 0 && k < expect; k++) {
        char name[24];
        snprintf(name, sizeof name, "%ld", k);
        if (!seen[k])
            rc = json_array_append_new(missing, json_string(name)) != 0 ? -1 : 0;
    }
    free(seen);
    return rc;
}

/* The merged file's "generators": joined (the files merged), expected
 * (--expect, else the files given), left_out and late (file and why or by
 * how much), missing (the generators of --expect with no file, when the
 * files name them by index).  Files that missed the start window are moved
 * out of docs and names; returns the count left, or -1 when out of memory. */
static long generators(json_t **docs, const char **names, size_t n, long expect, json_t **out)
{
    json_t *g = json_object(), *left = json_array(), *late = json_array(), *missing = json_array();
    size_t kept = 0;
    int bad = !g || !left || !late || !missing || missing_indexes(docs, n, expect, missing) != 0;
    for (size_t i = 0; !bad && i < n; i++) {
        const json_t *f = json_object_get(docs[i], "fleet");
        const json_t *joined = json_object_get(f, "joined");
        if (json_is_false(joined)) {
            char why[200];
            const double late_s = bench_json_num(f, "late_s", 0), window = bench_json_num(f, "start_window_s", 0);
            /* Ready within the window, it joined at the next whole second,
             * after the others' run of a second or two had ended: not a
             * missed window, which "0.1 s late, --start-window 10 s" read as. */
            if (late_s <= window)
                snprintf(why, sizeof why, "joined after the others' runs ended (%.1f s late, within "
                         "--start-window %g s: start generators further ahead, or run longer)", late_s, window);
            else
                snprintf(why, sizeof why, "missed the start window (%.1f s late, --start-window %g s)", late_s,
                         window);
            bad = json_array_append_new(left, json_pack("{s:s,s:s}", "file", names[i], "reason", why)) != 0;
            json_decref(docs[i]);
            continue;
        }
        if (bench_json_num(f, "late_s", 0) > 0)
            bad = json_array_append_new(late, json_pack("{s:s,s:f}", "file", names[i], "late_s",
                                                        bench_json_num(f, "late_s", 0))) != 0;
        docs[kept] = docs[i];
        names[kept] = names[i];
        kept++;
    }
    for (size_t i = kept; i < n; i++)
        docs[i] = NULL;
    if (!bad)
        bad = json_object_set_new(g, "joined", json_integer((json_int_t)kept)) ||
              json_object_set_new(g, "expected", json_integer(expect > 0 ? expect : (json_int_t)n)) ||
              json_object_set(g, "left_out", left) || json_object_set(g, "late", late) ||
              json_object_set(g, "missing", missing);
    json_decref(left);
    json_decref(late);
    json_decref(missing);
    if (bad) {
        json_decref(g);
        return -1;
    }
    *out = g;
    return (long)kept;
}

/*
 * Two files that hold the same run: the same start (the document's and each
 * run's measurement start, to the millisecond), host and generator, and
 * each run the same operations, errors and latency.  Two generators of a
 * fleet differ in at least their host or generator name, or their process
 * start, and never share every latency figure; a file given twice (a copy,
 * another spelling of its path) shares them all.  Merging it would count
 * every operation twice.
 */
static int same_run(const json_t *a, const json_t *b)
{
    const json_t *ha = json_object_get(json_object_get(a, "environment"), "host");
    const json_t *hb = json_object_get(json_object_get(b, "environment"), "host");
    const json_t *ra = json_object_get(a, "runs"), *rb = json_object_get(b, "runs");
    if (bench_json_int(a, "started_at_epoch_ms", -1) != bench_json_int(b, "started_at_epoch_ms", -2) ||
        strcmp(bench_json_str(ha, "hostname", ""), bench_json_str(hb, "hostname", "")) != 0 ||
        strcmp(bench_json_str(json_object_get(a, "fleet"), "generator", ""),
               bench_json_str(json_object_get(b, "fleet"), "generator", "")) != 0 ||
        json_array_size(ra) != json_array_size(rb))
        return 0;
    static const char *const counts[] = { "measure_start_epoch_ms", "ops", "errors" };
    static const char *const lat[] = { "min", "mean", "max", "p50", "p99" };
    for (size_t i = 0; i < json_array_size(ra); i++) {
        const json_t *x = json_array_get(ra, i), *y = json_array_get(rb, i);
        if (strcmp(bench_json_str(x, "test", ""), bench_json_str(y, "test", "")) != 0)
            return 0;
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            if (bench_json_int(x, counts[k], -1) != bench_json_int(y, counts[k], -2))
                return 0;
        const json_t *lx = json_object_get(x, "latency_us"), *ly = json_object_get(y, "latency_us");
        for (size_t k = 0; k < sizeof lat / sizeof lat[0]; k++)
            if (bench_json_num(lx, lat[k], -1) != bench_json_num(ly, lat[k], -2))
                return 0;
    }
    return 1;
}

typedef struct merge_opts {
    const char *output;     /* -o FILE */
    int         quiet;
    long        expect;     /* --expect N (0: the files given) */
} merge_opts;

/* Take one option, its value only stored: 1 taken, 0 not one of merge's,
 * -1 bad value (printed). */
static int take_option(void *opts, int c, char *arg)
{
    merge_opts *o = opts;
    switch (c) {
    case 'o':
        o->output = arg;
        return 1;
    case OPT_QUIET:
        o->quiet = 1;
        return 1;
    case OPT_EXPECT: {
        char *end;
        o->expect = strtol(arg, &end, 10);
        if (!*arg || *end || o->expect < 1 || o->expect > MAX_INPUTS) {
            bench_error("--expect %s: a number of generators, 1 to %d", arg, MAX_INPUTS);
            return -1;
        }
        return 1;
    }
    default:
        return 0;
    }
}

/* The options and the files (argv[first..argc)) together: 0, or -1 (printed). */
static int check_args(const merge_opts *o, int argc, char **argv, int first)
{
    const size_t n = (size_t)(argc - first);
    if (!o->output) {
        bench_error("merge: -o FILE is required: where to write the merged results (see: hsmbench merge --help)");
        return -1;
    }
    if (n == 0) {
        bench_error("merge: no results files given (see: hsmbench merge --help)");
        return -1;
    }
    if (n < 2 && !o->expect) {
        /* with --expect, a fleet of which one generator's file arrived */
        bench_error("merge: at least two results files are needed (see: hsmbench merge --help)");
        return -1;
    }
    if (n > MAX_INPUTS) {
        bench_error("merge: at most %d files", MAX_INPUTS);
        return -1;
    }
    if (strcmp(o->output, "-") == 0)
        return 0;
    if (!bench_path_writable("-o", o->output))
        return -1;
    /* -o must not be one of the files it merges (it would be replaced). */
    bench_file_id out, in;
    if (bench_file_id_of(o->output, &out) == 0)
        for (int i = first; i < argc; i++)
            if (bench_file_id_of(argv[i], &in) == 0 && bench_file_id_same(&out, &in)) {
                bench_error("-o %s: the same file as the results file %s: refusing to overwrite an input",
                            o->output, argv[i]);
                return -1;
            }
    return 0;
}

static const bench_cmd_help merge_help = { merge_usage, merge_usage_tail, NULL, NULL };

/* 0, -1 after --help, or an exit code (printed); the files from optind. */
static int parse_args(int argc, char **argv, merge_opts *o)
{
    memset(o, 0, sizeof *o);
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &bench_merge_options, &merge_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    return check_args(o, argc, argv, optind) == 0 ? 0 : BENCH_EXIT_USAGE;
}

/* Every file read, no run given twice: 0, or the exit code (printed). */
static int load_docs(json_t **docs, const char *const *names, size_t n)
{
    char err[600];
    for (size_t i = 0; i < n; i++) {
        docs[i] = bench_results_load(names[i], err, sizeof err);
        if (!docs[i]) {
            bench_error("%s", err);
            return BENCH_EXIT_USAGE;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (same_run(docs[j], docs[i])) {
                bench_error("merge: %s holds the same run as %s (the same start, host, generator, "
                            "operations and latency): a file given twice would count every operation twice",
                            names[i], names[j]);
                return BENCH_EXIT_USAGE;
            }
    return 0;
}

/* n of the wanted generators joined: which did not, and why. */
static void warn_joined(const json_t *gens, size_t n, size_t wanted, size_t given)
{
    size_t k;
    json_t *lo;
    if (n >= wanted)
        return;
    bench_warn("%zu of %zu generators joined", n, wanted);
    json_array_foreach(json_object_get(gens, "left_out"), k, lo)
        bench_warn("%s: %s", bench_json_str(lo, "file", "?"), bench_json_str(lo, "reason", "?"));
    json_array_foreach(json_object_get(gens, "missing"), k, lo)
        bench_warn("generator %s: no results file (it failed, or never started)", json_string_value(lo));
    if (wanted > given && json_array_size(json_object_get(gens, "missing")) == 0)
        bench_warn("%zu generators sent no results file", wanted - given);
}

/* The merged file's summary on standard output: 0, or -1 when it could
 * not be written (printed). */
static int print_merged(const json_t *merged, const json_t *gens, const char *output, size_t n, size_t wanted)
{
    const json_t *runs = json_object_get(merged, "runs");
    size_t i, k;
    json_t *run, *lt;
    printf("merged %zu files into %s: %zu of %zu generators joined", n, output, n, wanted);
    json_array_foreach(json_object_get(gens, "late"), k, lt)
        printf("%s %s %.1f s late", k ? "," : ";", bench_json_str(lt, "file", "?"), bench_json_num(lt, "late_s", 0));
    printf("\n");
    json_array_foreach(runs, i, run) {
        if (!bench_run_measured(run)) {
            printf("  %-18s %s\n", bench_json_str(run, "test", "?"), bench_json_str(run, "status", "?"));
            continue;
        }
        char p99[32];
        bench_fmt_ns(bench_json_num(json_object_get(run, "latency_us"), "p99", 0) * 1000, p99, sizeof p99);
        printf("  %-18s %lld threads  %lld ops  %.2f ops/s  p99 %s  errors %.2f%%\n",
               bench_json_str(run, "test", "?"), bench_json_int(run, "threads", 0), bench_json_int(run, "ops", 0),
               bench_json_num(run, "ops_per_s", 0), p99, bench_json_num(run, "error_pct", 0));
    }
    return bench_stdout_check("merge");
}

/* The command that made the file, as run's "command" records its own,
 * then the file written: 0, or the exit code (printed). */
static int write_merged(json_t *merged, const merge_opts *o, int argc, char **argv)
{
    json_t *command = json_array();
    int bad = !command || json_array_append_new(command, json_string("hsmbench")) != 0;
    for (int i = 0; !bad && i < argc; i++)
        bad = json_array_append_new(command, json_string(argv[i])) != 0;
    if (bad || json_object_set_new(merged, "command", command) != 0) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    return bench_results_write_text(o->output, merged, "-o", dump_json) != 0 ? BENCH_EXIT_FAILED : 0;
}

int bench_cmd_merge(int argc, char **argv, const bench_section *const *sections)
{
    merge_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    size_t n = (size_t)(argc - optind);
    const char **names = calloc(n, sizeof *names);
    json_t **docs = calloc(n, sizeof *docs);
    json_t *gens = NULL, *merged = NULL;
    char err[600];
    for (size_t i = 0; names && i < n; i++)
        names[i] = argv[optind + (int)i];
    if (!docs || !names) {
        free(names);
        free(docs);
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    if ((rc = load_docs(docs, names, n)) != 0)
        goto done;
    const size_t given = n;
    const long joined = generators(docs, names, n, o.expect, &gens);
    if (joined < 0) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
        goto done;
    }
    n = (size_t)joined;
    if (n == 0) {
        bench_error("merge: no generator joined: every file missed its start window");
        rc = BENCH_EXIT_USAGE;
        goto done;
    }
    merged = bench_results_merge(docs, names, n, sections, err, sizeof err);
    if (!merged || json_object_set(merged, "generators", gens) != 0) {
        bench_error("%s", merged ? "out of memory" : err);
        rc = merged ? BENCH_EXIT_FAILED : BENCH_EXIT_USAGE;
        goto done;
    }
    warn_targets(docs, names, n);
    const size_t wanted = o.expect > 0 ? (size_t)o.expect : given;
    warn_joined(gens, n, wanted, given);
    rc = write_merged(merged, &o, argc, argv);
    if (rc == BENCH_EXIT_OK && !o.quiet && strcmp(o.output, "-") != 0 &&
        print_merged(merged, gens, o.output, n, wanted) != 0)
        rc = BENCH_EXIT_FAILED;
    if (rc == BENCH_EXIT_OK && n < wanted)
        rc = BENCH_EXIT_FAILED;
done:
    json_decref(merged);
    json_decref(gens);
    for (size_t i = 0; i < n; i++)
        json_decref(docs[i]);
    free(docs);
    free(names);
    return rc;
}

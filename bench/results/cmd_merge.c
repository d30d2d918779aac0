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
#include "bench/util/exit.h"
#include "bench/results/results.h"
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
    "token, or REST service and URL) than the first file's.\n"
    "\n";

static const char merge_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 the output could not be written; 2 bad usage or\n"
    "input (missing file, bad JSON, not a results file, files that differ).\n";

enum { OPT_QUIET = 3100 };

static const bench_option merge_rows[] = {
    { "output", 'o', BENCH_ARG_REQUIRED, "FILE", 'o', "the merged results file (required)", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, OPT_QUIET, "print nothing but errors", NULL },
};
static const bench_opt_group merge_group = BENCH_OPT_GROUP(NULL, merge_rows, NULL);
static const bench_opt_group *const merge_groups[] = { &merge_group, &bench_help_group, NULL };
const bench_cmd_opts bench_merge_options = { "merge", 0, merge_groups };

static int dump_json(FILE *f, const json_t *doc)
{
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* Warn when the generators did not all measure the same target (the same
 * token of the same module, or the same service at the same URL). */
static void warn_targets(json_t *const *docs, char *const *names, size_t n)
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

int bench_cmd_merge(int argc, char **argv, const bench_section *const *sections)
{
    const char *output = NULL;
    int quiet = 0, c;
    bench_opts_parser parser;
    if (bench_opts_begin(&parser, &bench_merge_options) != 0)
        return BENCH_EXIT_USAGE;
    while ((c = bench_opts_next(&parser, argc, argv)) != -1) {
        switch (c) {
        case 'h':
            fputs(merge_usage, stdout);
            bench_opts_help(&bench_merge_options, stdout);
            fputs(merge_usage_tail, stdout);
            return BENCH_EXIT_OK;
        case 'o':
            output = optarg;
            break;
        case OPT_QUIET:
            quiet = 1;
            break;
        default:
            return bench_option_error(argv, c, "merge");
        }
    }
    size_t n = (size_t)(argc - optind);
    if (!output) {
        bench_error("merge: -o FILE is required: where to write the merged results (see: hsmbench merge --help)");
        return BENCH_EXIT_USAGE;
    }
    if (n < 2) {
        bench_error("merge: at least two results files are needed (see: hsmbench merge --help)");
        return BENCH_EXIT_USAGE;
    }
    if (n > MAX_INPUTS) {
        bench_error("merge: at most %d files", MAX_INPUTS);
        return BENCH_EXIT_USAGE;
    }
    if (strcmp(output, "-") != 0 && !bench_path_writable("-o", output))
        return BENCH_EXIT_USAGE;

    char *const *names = argv + optind;
    json_t **docs = calloc(n, sizeof *docs);
    if (!docs) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    int rc = BENCH_EXIT_OK;
    char err[600];
    json_t *merged = NULL;
    for (size_t i = 0; i < n; i++) {
        docs[i] = bench_results_load(names[i], err, sizeof err);
        if (!docs[i]) {
            bench_error("%s", err);
            rc = BENCH_EXIT_USAGE;
            goto done;
        }
    }
    merged = bench_results_merge(docs, (const char *const *)names, n, sections, err, sizeof err);
    if (!merged) {
        bench_error("%s", err);
        rc = BENCH_EXIT_USAGE;
        goto done;
    }
    warn_targets(docs, names, n);

    /* The command that made the file, as run's "command" records its own. */
    json_t *command = json_array();
    int bad = !command || json_array_append_new(command, json_string("hsmbench")) != 0;
    for (int i = 0; !bad && i < argc; i++)
        bad = json_array_append_new(command, json_string(argv[i])) != 0;
    if (bad || json_object_set_new(merged, "command", command) != 0) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
    } else if (bench_results_write_text(output, merged, "-o", dump_json) != 0) {
        rc = BENCH_EXIT_FAILED;
    } else if (!quiet && strcmp(output, "-") != 0) {
        const json_t *runs = json_object_get(merged, "runs");
        size_t i;
        json_t *run;
        printf("merged %zu files into %s\n", n, output);
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
        if (fflush(stdout) != 0) {
            bench_error("merge: cannot write to standard output");
            rc = BENCH_EXIT_FAILED;
        }
    }
done:
    json_decref(merged);
    for (size_t i = 0; i < n; i++)
        json_decref(docs[i]);
    free(docs);
    return rc;
}

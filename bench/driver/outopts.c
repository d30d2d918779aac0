/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/outopts.c - the output flags of every command that runs load. */
#include "bench/driver/outopts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/results/report.h"
#include "bench/util/cli.h"
#include "bench/util/clock.h"

static const bench_option out_rows[] = {
    { "json", 0, BENCH_ARG_REQUIRED, "FILE", BENCH_OPT_JSON,
      "write results (schema " BENCH_RESULT_SCHEMA "; - for stdout: the\n"
      "run's own output then goes to stderr, as with --csv/--html -)", NULL },
    { "csv", 0, BENCH_ARG_REQUIRED, "FILE", BENCH_OPT_CSV,
      "one row per run, the SDKMS test bench's columns (- for stdout)", NULL },
    { "html", 0, BENCH_ARG_REQUIRED, "FILE", BENCH_OPT_HTML,
      "a self-contained page with charts (- for stdout)", NULL },
    { "threshold", 0, BENCH_ARG_REPEATED, "EXPR", BENCH_OPT_THRESHOLD,
      "k6-style gate, repeatable: p99<50ms, p(99.9)<1s, avg<10ms,\n"
      "rate>1000, errors<0.1%, TEST:EXPR for one test; EXPR:abort\n"
      "[=TIME] stops the run when it fails (k6's abortOnFail\n"
      "[, delayAbortEval]); a failed threshold makes the exit\n"
      "status 99, as k6's", NULL },
    { "start-at", 0, BENCH_ARG_REQUIRED, "EPOCH", BENCH_OPT_START_AT,
      "wait until this Unix time (seconds) to start measuring, so\n"
      "several load generators start together (hsmbench merge)", NULL },
    { "start-window", 0, BENCH_ARG_REQUIRED, "SECONDS", BENCH_OPT_START_WINDOW,
      "with --start-at: a generator ready up to this late joins at\n"
      "the next whole second after EPOCH and ends with the others;\n"
      "later, its runs are skipped (missed the start window) and\n"
      "merge leaves it out (default 10)", NULL },
    { "run-id", 0, BENCH_ARG_REQUIRED, "ID", BENCH_OPT_RUN_ID,
      "the run_id label of the live metrics and the results file's\n"
      "fleet.run_id (letters, digits, . _ : -; default: the\n"
      "--start-at time, else the start time)", NULL },
    { "generator", 0, BENCH_ARG_REQUIRED, "NAME", BENCH_OPT_GENERATOR,
      "this load generator's name in a fleet, e.g. its index\n"
      "(letters, digits, . _ -; default 0): the generator label", NULL },
    { "out", 0, BENCH_ARG_REPEATED, "KIND=FILE", BENCH_OPT_OUT,
      "jsonl=FILE: stream a JSON line per second of each run to\n"
      "FILE as it goes (- for stdout), for other tools;\n"
      "jtl=FILE: a line per measured request in JMeter's CSV\n"
      "results format (jmeter -g FILE -o DIR reads it); each\n"
      "kind once", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, BENCH_OPT_QUIET,
      "no per-second lines and no summary; errors only, and\n"
      "each failed threshold, one line on stderr", NULL },
};
const bench_opt_group bench_out_group = BENCH_OPT_OUTPUTS("Output:", out_rows, NULL);

void bench_out_help_more(const void *sections, int code, FILE *f)
{
    if (code == BENCH_OPT_THRESHOLD)
        bench_sections_help(sections, f);
}

static int parse_start_at(bench_out_opts *o, const char *arg)
{
    char *end = NULL;
    const double at = bench_strtod(arg, &end);
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    const double now = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9;
    if (end == arg || *end || !(at > 0)) {
        bench_error("--start-at %s: a Unix time in seconds, e.g. from date +%%s", arg);
        return -1;
    }
    /* Later than the start window, a generator is recorded as having
     * missed it (bench_session_run); a day away, it is a mistake. */
    if (at < now - 86400 || at > now + 86400) {
        bench_error("--start-at %s: %s; give a time within the next 24 hours", arg,
                    at < now ? "more than 24 hours in the past" : "more than 24 hours away");
        return -1;
    }
    o->start_at_ms = (uint64_t)(at * 1000.0);
    return 0;
}

/* --run-id, --generator: a label value a person can read, and a file name part. */
static int parse_name(const char *flag, const char *arg, size_t max, const char *extra, const char **out)
{
    size_t n = strlen(arg);
    int ok = n > 0 && n <= max;
    for (size_t i = 0; ok && i < n; i++)
        ok = (arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= 'A' && arg[i] <= 'Z') ||
             (arg[i] >= '0' && arg[i] <= '9') || strchr(extra, arg[i]) != NULL;
    if (!ok) {
        bench_error("%s %s: expected 1 to %zu letters, digits or %s", flag, arg, max, extra);
        return -1;
    }
    *out = arg;
    return 0;
}

static int parse_out(bench_out_opts *o, const char *arg)
{
    const char **kind = NULL;
    if (strncmp(arg, "jsonl=", 6) == 0)
        kind = &o->jsonl;
    else if (strncmp(arg, "jtl=", 4) == 0)
        kind = &o->jtl;
    const char *path = kind ? strchr(arg, '=') + 1 : NULL;
    if (!kind || !*path) {
        bench_error("--out %s: expected jsonl=FILE (a JSON line per second; - for stdout) or jtl=FILE "
                    "(a JMeter CSV line per request)", arg);
        return -1;
    }
    if (*kind) {
        bench_error("--out %s: --out %.*s given twice; each kind once", arg, (int)(path - arg), arg);
        return -1;
    }
    if (kind == &o->jtl && strcmp(path, "-") == 0) {
        bench_error("--out jtl=-: a file, not standard output (the run's summary goes there)");
        return -1;
    }
    *kind = path;
    return 0;
}

int bench_out_opt(bench_out_opts *o, int code, const char *arg)
{
    char err[200];
    switch (code) {
    case BENCH_OPT_START_WINDOW: {
        uint64_t ns;
        if (bench_parse_duration("--start-window", arg, 0, 3600ULL * BENCH_NS_PER_S, &ns) != 0)
            return -1;
        o->start_window_s = (double)ns / 1e9;
        o->start_window_set = 1;
        return 1;
    }
    case BENCH_OPT_RUN_ID:
        return parse_name("--run-id", arg, sizeof o->run_id_buf - 1, "._:-", &o->run_id) == 0 ? 1 : -1;
    case BENCH_OPT_GENERATOR:
        return parse_name("--generator", arg, 31, "._-", &o->generator) == 0 ? 1 : -1;
    case BENCH_OPT_OUT:
        return parse_out(o, arg) == 0 ? 1 : -1;
    case BENCH_OPT_JSON:
        o->json = arg;
        return 1;
    case BENCH_OPT_CSV:
        o->csv = arg;
        return 1;
    case BENCH_OPT_HTML:
        o->html = arg;
        return 1;
    case BENCH_OPT_QUIET:
        o->quiet = 1;
        return 1;
    case BENCH_OPT_START_AT:
        return parse_start_at(o, arg) == 0 ? 1 : -1;
    case BENCH_OPT_THRESHOLD:
        if (o->nthresholds == BENCH_MAX_THRESHOLDS) {
            bench_error("--threshold: at most %d", BENCH_MAX_THRESHOLDS);
            return -1;
        }
        if (bench_threshold_parse(arg, o->sections, &o->thresholds[o->nthresholds], err, sizeof err) != 0) {
            bench_error("%s", err);
            return -1;
        }
        o->nthresholds++;
        return 1;
    default:
        return 0;
    }
}

int bench_out_to_stdout(const bench_out_opts *o)
{
    return (o->json && strcmp(o->json, "-") == 0) || (o->csv && strcmp(o->csv, "-") == 0) ||
           (o->html && strcmp(o->html, "-") == 0) || (o->jsonl && strcmp(o->jsonl, "-") == 0);
}

int bench_out_finish(bench_out_opts *o, const char *const *tests, size_t ntests)
{
    if (!o->start_window_set)
        o->start_window_s = BENCH_START_WINDOW_DEFAULT_S;
    else if (!o->start_at_ms) {
        bench_error("--start-window: only with --start-at");
        return -1;
    }
    if (!o->generator)
        o->generator = "0";
    if (!o->run_id) {
        if (o->start_at_ms % 1000)
            snprintf(o->run_id_buf, sizeof o->run_id_buf, "%llu.%03llu",
                     (unsigned long long)(o->start_at_ms / 1000), (unsigned long long)(o->start_at_ms % 1000));
        else if (o->start_at_ms)
            snprintf(o->run_id_buf, sizeof o->run_id_buf, "%llu", (unsigned long long)(o->start_at_ms / 1000));
        else {
            const time_t now = time(NULL);
            struct tm tmv;
            if (!gmtime_r(&now, &tmv) || strftime(o->run_id_buf, sizeof o->run_id_buf, "%Y%m%dT%H%M%SZ", &tmv) == 0)
                snprintf(o->run_id_buf, sizeof o->run_id_buf, "%lld", (long long)now);
        }
        o->run_id = o->run_id_buf;
    }
    if (o->jsonl && strcmp(o->jsonl, "-") != 0 && !bench_path_writable("--out jsonl=", o->jsonl))
        return -1;
    if (o->jtl && !bench_path_writable("--out jtl=", o->jtl))
        return -1;
    for (size_t i = 0; i < o->nthresholds; i++) {
        const char *name = o->thresholds[i].test;
        int known = !name[0];
        for (size_t t = 0; t < ntests && !known; t++)
            known = strcmp(tests[t], name) == 0;
        if (!known) {
            bench_error("--threshold %s: %s is not among the tests of this run",
                        o->thresholds[i].expr, name);
            return -1;
        }
    }
    const int to_stdout = (o->json && strcmp(o->json, "-") == 0) + (o->csv && strcmp(o->csv, "-") == 0) +
                          (o->html && strcmp(o->html, "-") == 0) + (o->jsonl && strcmp(o->jsonl, "-") == 0);
    if (to_stdout > 1) {
        bench_error("%s: only one document can go to standard output",
                    o->json && strcmp(o->json, "-") == 0    ? "--json -"
                    : o->jsonl && strcmp(o->jsonl, "-") == 0 ? "--out jsonl=-"
                                                             : "--csv - and --html -");
        return -1;
    }
    if (o->json && strcmp(o->json, "-") != 0 && !bench_path_writable("--json", o->json))
        return -1;
    if (o->csv && strcmp(o->csv, "-") != 0 && !bench_path_writable("--csv", o->csv))
        return -1;
    if (o->html && strcmp(o->html, "-") != 0 && !bench_path_writable("--html", o->html))
        return -1;
    return 0;
}

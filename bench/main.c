/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/main.c - the hsmbench command: dispatch to a subcommand.
 *
 * This is the composition root, the one file in bench/ that names the
 * workloads (p11/, rest/); the timing core itself never does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/results/cmd.h"
#include "bench/util/exit.h"
#include "bench/util/heap.h"
#include "bench/util/secret.h"
#include "p11/cmd.h"
#include "rest/cmd.h"
#include "rest/views/views.h"
#include "serve/cmd.h"

static const char usage[] =
    "Usage: hsmbench COMMAND [options]\n"
    "\n"
    "Benchmark PKCS#11 modules (HSMs, tokens, software providers).\n"
    "\n"
    "Commands:\n"
    "  run      batch benchmark: one or more tests on a token  (hsmbench run --help)\n"
    "  datasheet a token's datasheet: every test's latency, thread sweep, bytes/s\n"
    "           in an announced time, one results file and page (hsmbench datasheet --help)\n"
    "  list     modules | slots | mechanisms | tests            (hsmbench list --help)\n"
    "  menu     interactive, pkpspeed-style: tests from a lettered menu (hsmbench menu --help)\n"
    "  keys     create | list | destroy benchmark keys on a token (hsmbench keys --help)\n"
    "  report   RESULT.json --html F --csv F: reports from a results file\n"
    "  compare  A.json B.json [...]: runs side by side, with significance\n"
    "  trace    RECORDING: what an application did at the module boundary, from\n"
    "           the call recorder libhsmbench-trace.so   (hsmbench trace --help)\n"
    "  replay   FILE: an application's recorded traffic or a scenario, replayed at\n"
    "           N x speed against a module, with its headroom (hsmbench replay --help)\n"
    "  merge    A.json B.json [...] -o ALL.json: several load generators as one\n"
    "  rest     ekm | sdkms: benchmark a key-management REST service (hsmbench rest --help)\n"
    "  rest     http --url URL: benchmark any HTTP(S) endpoint   (hsmbench rest http --help)\n"
    "  serve    local EKM/SDKMS/HTTP test endpoint over a PKCS#11 module (hsmbench serve --help)\n"
    "  help     this help; help COMMAND: that command's help\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "With no --module, hsmbench uses its own SoftHSM token, created on first use\n"
    "under $HSMBENCH_HOME (default ~/.local/state/hsmbench).  See hsmbench(1).\n"
    "With no command, on a terminal, hsmbench starts the menu.\n"
    "\n"
    "Exit codes: 0 success; 1 the run finished but operations failed, or standard\n"
    "output could not be written; 2 bad usage or input; 3 module, token or login\n"
    "failure; 99 a --threshold failed (as k6); 130 interrupted (Ctrl-C, SIGTERM, or\n"
    "standard output closed).\n"
    "Long options are known by their whole names only; an option taking a value\n"
    "is given once (--threshold and --header may repeat).\n";

static const bench_option top_rows[] = {
    { "version", 'V', BENCH_ARG_NONE, NULL, 'V', "print the version", NULL },
};
static const bench_opt_group top_group = BENCH_OPT_GROUP(NULL, top_rows, NULL);
static const bench_opt_group *const top_groups[] = { &bench_help_group, &top_group, NULL };
static const bench_cmd_opts top_options = { "hsmbench", 0, top_groups };

static void print_usage(FILE *f)
{
    fputs(usage, f);
    bench_opts_help(&top_options, f);
    fputs(usage_tail, f);
}

/* Every command's option table, by the words that name the command. */
static const struct {
    const char           *words;
    const bench_cmd_opts *opts;
} tables[] = {
    { "hsmbench", &top_options },       { "run", &p11_run_options },
    { "datasheet", &p11_datasheet_options },
    { "list", &p11_list_options },      { "keys", &p11_keys_options },
    { "menu", &p11_menu_options },      { "trace", &p11_trace_options },
    { "replay", &p11_replay_options },
    { "report", &bench_report_options },
    { "compare", &bench_compare_options }, { "merge", &bench_merge_options },
    { "rest", &rest_options },          { "rest http", &rest_http_options },
    { "serve", &serve_options },
};

/*
 * "hsmbench __options": the commands, one a line; "hsmbench __options rest
 * http": that command's table, one option a line.  An internal command, for
 * tests/e2e/test_options.sh, which checks --help, the manual pages and the
 * bash completion against the table; not in the usage.
 */
static int dump_options(int argc, char **argv)
{
    char words[64] = "";
    for (int i = 1; i < argc; i++) {
        size_t used = strlen(words);
        snprintf(words + used, sizeof words - used, "%s%s", i > 1 ? " " : "", argv[i]);
    }
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        if (argc < 2)
            printf("%s\n", tables[i].words);
        else if (strcmp(words, tables[i].words) == 0) {
            bench_opts_dump(tables[i].opts, stdout);
            return BENCH_EXIT_OK;
        }
    }
    if (argc < 2)
        return BENCH_EXIT_OK;
    bench_error("__options %s: no such command", words);
    return BENCH_EXIT_USAGE;
}

/* argv[0] is the command's name. */
static int dispatch(int argc, char **argv, const bench_section *const *sections)
{
    const char *cmd = argv[0];
    if (strcmp(cmd, "run") == 0)
        return p11_cmd_run(argc, argv, sections);
    if (strcmp(cmd, "datasheet") == 0)
        return p11_cmd_datasheet(argc, argv, sections);
    if (strcmp(cmd, "list") == 0)
        return p11_cmd_list(argc, argv);
    if (strcmp(cmd, "rest") == 0)
        return rest_cmd_rest(argc, argv);
    if (strcmp(cmd, "serve") == 0)
        return serve_cmd(argc, argv);
    if (strcmp(cmd, "menu") == 0)
        return p11_cmd_menu(argc, argv);
    if (strcmp(cmd, "keys") == 0)
        return p11_cmd_keys(argc, argv);
    if (strcmp(cmd, "trace") == 0)
        return p11_cmd_trace(argc, argv);
    if (strcmp(cmd, "replay") == 0)
        return p11_cmd_replay(argc, argv);
    if (strcmp(cmd, "report") == 0)
        return bench_cmd_report(argc, argv, sections);
    if (strcmp(cmd, "compare") == 0)
        return bench_cmd_compare(argc, argv, sections);
    if (strcmp(cmd, "merge") == 0)
        return bench_cmd_merge(argc, argv, sections);
    if (strcmp(cmd, "__options") == 0)
        return dump_options(argc, argv);
    bench_error("%s: unknown command (see: hsmbench --help)", cmd);
    return BENCH_EXIT_USAGE;
}

static int run_command(int argc, char **argv)
{
    /* Before any thread: no page faults for memory freed and used again
     * while measuring (bench/util/heap.c); without it only slower. */
    (void)bench_heap_keep_freed();
    /* A closed standard output ("| head -1") must never kill hsmbench:
     * writes fail with EPIPE instead, and run and rest, which install
     * bench/util/signals.c's handler, stop as if interrupted. */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        bench_warn("cannot ignore SIGPIPE");
    if (argc < 2) {
        if (isatty(STDIN_FILENO)) {
            char name[] = "menu";
            char *menu_argv[] = { name, NULL };
            return p11_cmd_menu(1, menu_argv);
        }
        print_usage(stderr);
        return BENCH_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* The workload sections the results views know: built here, passed down. */
    const bench_section *const *sections = rest_sections();
    if (strcmp(cmd, "help") == 0 && argc > 2 && argc <= 4) {
        /* "help run", "help rest http": the command's own --help. */
        char flag[] = "--help";
        char *help_argv[4] = { argv[2], argc > 3 ? argv[3] : flag, flag, NULL };
        return dispatch(argc - 1, help_argv, sections);
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return BENCH_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("hsmbench %s\n", HSMBENCH_VERSION);
        return BENCH_EXIT_OK;
    }
    /* Secrets taken out of argv (bench_secret_keep) are wiped at the end. */
    const int rc = dispatch(argc - 1, argv + 1, sections);
    bench_secret_forget();
    return rc;
}

/*
 * Every command's standard output is checked once here, at its end: the
 * summaries, tables and listings printed with printf are only known to
 * have reached a full disk or /dev/full when they are flushed.  A write
 * that failed turns a success into 1 (a file could not be written: the
 * command did its work, its output is lost), or 130 when the reader went
 * away (EPIPE, as run and rest do on SIGPIPE); a failure code the command
 * returned stands, being the more specific.
 */
int main(int argc, char **argv)
{
    int rc = run_command(argc, argv);
    int e = bench_stdout_check(NULL);
    if (e == 0 && fclose(stdout) != 0) {
        e = errno ? errno : EIO;
        if (e != EPIPE)
            bench_error("cannot write to standard output: %s", strerror(e));
    }
    if (e != 0 && rc == BENCH_EXIT_OK)
        rc = e == EPIPE ? BENCH_EXIT_INTERRUPTED : BENCH_EXIT_FAILED;
    return rc;
}

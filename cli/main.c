/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli/main.c - the hsmbench command: dispatch to a subcommand.
 *
 * This is the composition root, above every floor: the one file that names
 * every command, each once, in commands[] below; the floors never name it.
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

static int dump_options(int argc, char **argv, const bench_section *const *sections);

/* A command: the words that name it, what runs it (argv[0] is its name;
 * NULL: reached through another row, as "rest http" through "rest"), and
 * its option table (NULL: an internal command, not listed). */
typedef struct command {
    const char           *words;
    int                 (*run)(int argc, char **argv, const bench_section *const *sections);
    const bench_cmd_opts *opts;
} command;

/* Every command, once: the dispatcher and "__options" read this table. */
static const command commands[] = {
    { "hsmbench", NULL, &top_options },
    { "run", p11_cmd_run, &p11_run_options },
    { "datasheet", p11_cmd_datasheet, &p11_datasheet_options },
    { "list", p11_cmd_list, &p11_list_options },
    { "keys", p11_cmd_keys, &p11_keys_options },
    { "menu", p11_cmd_menu, &p11_menu_options },
    { "trace", p11_cmd_trace, &p11_trace_options },
    { "replay", p11_cmd_replay, &p11_replay_options },
    { "report", bench_cmd_report, &bench_report_options },
    { "compare", bench_cmd_compare, &bench_compare_options },
    { "merge", bench_cmd_merge, &bench_merge_options },
    { "rest", rest_cmd_rest, &rest_options },
    { "rest http", NULL, &rest_http_options },
    { "serve", serve_cmd, &serve_options },
    { "__options", dump_options, NULL },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/*
 * "hsmbench __options": the commands, one a line; "hsmbench __options rest
 * http": that command's table, one option a line.  An internal command, for
 * tests/e2e/test_options.sh, which checks --help, the manual pages and the
 * bash completion against the table; not in the usage.
 */
static int dump_options(int argc, char **argv, const bench_section *const *sections)
{
    char words[64] = "";
    for (int i = 1; i < argc; i++) {
        size_t used = strlen(words);
        snprintf(words + used, sizeof words - used, "%s%s", i > 1 ? " " : "", argv[i]);
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (!commands[i].opts)
            continue;
        if (argc < 2)
            printf("%s\n", commands[i].words);
        else if (strcmp(words, commands[i].words) == 0) {
            bench_opts_dump(commands[i].opts, stdout);
            return BENCH_EXIT_OK;
        }
    }
    if (argc < 2)
        return BENCH_EXIT_OK;
    bench_error("__options %s: no such command", words);
    return BENCH_EXIT_USAGE;
}

/* The old tools' own names given as a command, as a migrating user types
 * "hsmbench k6 run ..." (docs/migrating.md): the command that does their work. */
static const struct {
    const char *tool, *instead;
} old_tools[] = {
    { "k6", "hsmbench rest ekm (the EKM package's ekm_wrap.js) or hsmbench rest http (a k6 script's URL)" },
    { "jmeter", "hsmbench rest sdkms, or hsmbench rest http with --summary jmeter and --out jtl=FILE" },
    { "pkpspeed", "hsmbench menu (its dialogue) or hsmbench run (its flags)" },
    { "pkpspeed_blocking", "hsmbench menu (its dialogue) or hsmbench run --mode blocking" },
};

/* argv[0] is the command's name. */
static int dispatch(int argc, char **argv, const bench_section *const *sections)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].run && strcmp(argv[0], commands[i].words) == 0)
            return commands[i].run(argc, argv, sections);
    for (size_t i = 0; i < sizeof old_tools / sizeof old_tools[0]; i++)
        if (strcmp(argv[0], old_tools[i].tool) == 0) {
            bench_error("%s: unknown command: %s's work is done by %s (see docs/migrating.md)", argv[0],
                        argv[0], old_tools[i].instead);
            return BENCH_EXIT_USAGE;
        }
    bench_error("%s: unknown command (see: hsmbench --help)", argv[0]);
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
    /* The workload sections the results views know: built here, passed down. */
    const bench_section *const *sections = rest_sections();
    if (argc < 2) {
        if (isatty(STDIN_FILENO)) {
            char name[] = "menu";
            char *menu_argv[] = { name, NULL };
            return p11_cmd_menu(1, menu_argv, sections);
        }
        print_usage(stderr);
        return BENCH_EXIT_USAGE;
    }
    const char *cmd = argv[1];
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

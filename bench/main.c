/*
 * bench/main.c - the hsmbench command: dispatch to a subcommand.
 *
 * This is the composition root, the one file in bench/ that names the
 * workloads (p11/, rest/); the timing core itself never does.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/results/cmd.h"
#include "bench/util/exit.h"
#include "bench/util/heap.h"
#include "p11/cmd.h"
#include "rest/cmd.h"
#include "rest/transport/views.h"
#include "serve/cmd.h"

static const char usage[] =
    "Usage: hsmbench COMMAND [options]\n"
    "\n"
    "Benchmark PKCS#11 modules (HSMs, tokens, software providers).\n"
    "\n"
    "Commands:\n"
    "  run      batch benchmark: one or more tests on a token  (hsmbench run --help)\n"
    "  list     modules | slots | mechanisms | tests            (hsmbench list --help)\n"
    "  menu     interactive, pkpspeed-style: tests from a lettered menu (hsmbench menu --help)\n"
    "  keys     create | list | destroy benchmark keys on a token (hsmbench keys --help)\n"
    "  report   RESULT.json --html F --csv F: reports from a results file\n"
    "  compare  A.json B.json [...]: runs side by side, with significance\n"
    "  merge    A.json B.json [...] -o ALL.json: several load generators as one\n"
    "  rest     ekm | sdkms: benchmark a key-management REST service (hsmbench rest --help)\n"
    "  rest     http --url URL: benchmark any HTTP(S) endpoint   (hsmbench rest http --help)\n"
    "  serve    local EKM/SDKMS/HTTP test endpoint over a PKCS#11 module (hsmbench serve --help)\n"
    "  help     this help\n"
    "\n"
    "Options: -h, --help   this help;  -V, --version   print the version\n"
    "\n"
    "With no --module, hsmbench uses its own SoftHSM token, created on first use\n"
    "under $HSMBENCH_HOME (default ~/.local/state/hsmbench).  See hsmbench(1).\n"
    "With no command, on a terminal, hsmbench starts the menu.\n"
    "\n"
    "Exit codes: 0 success; 1 the run finished but operations failed; 2 bad usage\n"
    "or input; 3 module, token or login failure; 130 interrupted (Ctrl-C, SIGTERM,\n"
    "or standard output closed).\n"
    "Long options are known by their whole names only; an option taking a value\n"
    "is given once (--threshold and --header may repeat).\n";

int main(int argc, char **argv)
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
        fputs(usage, stderr);
        return BENCH_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* The workload sections the results views know: built here, passed down. */
    const bench_section *const *sections = rest_sections();
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return BENCH_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("hsmbench %s\n", HSMBENCH_VERSION);
        return BENCH_EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return p11_cmd_run(argc - 1, argv + 1, sections);
    if (strcmp(cmd, "list") == 0)
        return p11_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "rest") == 0)
        return rest_cmd_rest(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return serve_cmd(argc - 1, argv + 1);
    if (strcmp(cmd, "menu") == 0)
        return p11_cmd_menu(argc - 1, argv + 1);
    if (strcmp(cmd, "keys") == 0)
        return p11_cmd_keys(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return bench_cmd_report(argc - 1, argv + 1, sections);
    if (strcmp(cmd, "compare") == 0)
        return bench_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return bench_cmd_merge(argc - 1, argv + 1, sections);
    bench_error("%s: unknown command (see: hsmbench --help)", cmd);
    return BENCH_EXIT_USAGE;
}

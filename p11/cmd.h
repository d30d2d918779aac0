/* SPDX-License-Identifier: Apache-2.0 */
/* p11/cmd.h - the PKCS#11 subcommands, called from cli/main.c. */
#ifndef P11_CMD_H
#define P11_CMD_H

#include "bench/results/section.h"
#include "bench/util/options.h"

/* argv[0] is the subcommand's name; each returns a BENCH_EXIT_* code.
 * run: sections, the workload sections its --threshold and page know. */
int p11_cmd_run(int argc, char **argv, const bench_section *const *sections);
/* datasheet: run's steps for every test of a token, one results file and page. */
int p11_cmd_datasheet(int argc, char **argv, const bench_section *const *sections);
int p11_cmd_list(int argc, char **argv, const bench_section *const *sections);
int p11_cmd_keys(int argc, char **argv, const bench_section *const *sections);
int p11_cmd_menu(int argc, char **argv, const bench_section *const *sections);
/* trace: a recording of the call recorder (libhsmbench-trace.so) read back. */
int p11_cmd_trace(int argc, char **argv, const bench_section *const *sections);
/* replay: an application's recorded traffic or a scenario, against a module. */
int p11_cmd_replay(int argc, char **argv, const bench_section *const *sections);

/* Their option tables (bench/util/options.h), for --help and the checks. */
extern const bench_cmd_opts p11_run_options;
extern const bench_cmd_opts p11_datasheet_options;
extern const bench_cmd_opts p11_list_options;
extern const bench_cmd_opts p11_keys_options;
extern const bench_cmd_opts p11_menu_options;
extern const bench_cmd_opts p11_trace_options;
extern const bench_cmd_opts p11_replay_options;

#endif

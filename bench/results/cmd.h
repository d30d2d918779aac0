/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/cmd.h - the subcommands that work on results files, not on a token:
 * report, compare and merge.  Each takes the arguments after "hsmbench"
 * (argv[0] is the subcommand's name) and returns the exit code.
 */
#ifndef BENCH_CMD_H
#define BENCH_CMD_H

#include "bench/results/section.h"
#include "bench/util/options.h"

/* sections: the workload sections (NULL-terminated) thresholds, merges and
 * pages know (section.h). */
int bench_cmd_report(int argc, char **argv, const bench_section *const *sections);   /* hsmbench report RESULT.json --html F --csv F */
int bench_cmd_compare(int argc, char **argv, const bench_section *const *sections);  /* hsmbench compare A.json B.json [C.json ...] */
int bench_cmd_merge(int argc, char **argv, const bench_section *const *sections);    /* hsmbench merge A.json B.json ... -o ALL.json */

/* Their option tables (bench/util/options.h), for --help and the checks. */
extern const bench_cmd_opts bench_report_options;
extern const bench_cmd_opts bench_compare_options;
extern const bench_cmd_opts bench_merge_options;

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* serve/cmd.h - "hsmbench serve", called from cli/main.c. */
#ifndef SERVE_CMD_H
#define SERVE_CMD_H

#include "bench/results/section.h"
#include "bench/util/options.h"

/* argv[0] is "serve"; returns a BENCH_EXIT_* code. */
int serve_cmd(int argc, char **argv, const struct bench_section *const *sections);

/* Its option table (bench/util/options.h), for --help and the checks. */
extern const bench_cmd_opts serve_options;

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/cmd.h - the REST subcommands, called from cli/main.c. */
#ifndef REST_CMD_H
#define REST_CMD_H

#include "bench/results/section.h"
#include "bench/util/options.h"

/* argv[0] is the subcommand's name; each returns a BENCH_EXIT_* code. */
int rest_cmd_rest(int argc, char **argv, const struct bench_section *const *sections);    /* hsmbench rest ekm|sdkms ... */

/* Their option tables (bench/util/options.h), for --help and the checks. */
extern const bench_cmd_opts rest_options;       /* rest ekm|sdkms */
extern const bench_cmd_opts rest_http_options;  /* rest http */

#endif

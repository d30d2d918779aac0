/* SPDX-License-Identifier: Apache-2.0 */
/* rest/cmd.h - the REST subcommands, called from bench/main.c. */
#ifndef REST_CMD_H
#define REST_CMD_H

#include "bench/util/options.h"

/* argv[0] is the subcommand's name; each returns a BENCH_EXIT_* code. */
int rest_cmd_rest(int argc, char **argv);    /* hsmbench rest ekm|sdkms ... */

/* Their option tables (bench/util/options.h), for --help and the checks. */
extern const bench_cmd_opts rest_options;       /* rest ekm|sdkms */
extern const bench_cmd_opts rest_http_options;  /* rest http */

#endif

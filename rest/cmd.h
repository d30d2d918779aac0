/* rest/cmd.h - the REST subcommands, called from bench/main.c. */
#ifndef REST_CMD_H
#define REST_CMD_H

/* argv[0] is the subcommand's name; each returns a BENCH_EXIT_* code. */
int rest_cmd_rest(int argc, char **argv);    /* hsmbench rest ekm|sdkms ... */

#endif

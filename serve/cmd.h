/* serve/cmd.h - "hsmbench serve", called from bench/main.c. */
#ifndef SERVE_CMD_H
#define SERVE_CMD_H

/* argv[0] is "serve"; returns a BENCH_EXIT_* code. */
int serve_cmd(int argc, char **argv);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/exit.h - the exit codes users script against (see hsmbench(1)). */
#ifndef BENCH_EXIT_H
#define BENCH_EXIT_H

enum {
    BENCH_EXIT_OK          = 0,    /* success */
    BENCH_EXIT_FAILED      = 1,    /* the run finished, but errors occurred or a run failed */
    BENCH_EXIT_USAGE       = 2,    /* bad usage or input: flags, values, files */
    BENCH_EXIT_MODULE      = 3,    /* module, token or login failure */
    BENCH_EXIT_THRESHOLD   = 99,   /* a threshold failed (k6's code); before errors, after a
                                      run that failed outright or results not written */
    BENCH_EXIT_INTERRUPTED = 130,  /* interrupted (SIGINT) */
};

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/xfer.h - one REST operation as a sequence of transfers.
 *
 * An operation is one or more HTTP requests: a wrap; a wrap then an unwrap;
 * an SDKMS call, and on an expired session an authentication and the call
 * again.  A workload describes it with four functions:
 *
 *   open(ctx, index, &state)  a worker's state: its easy handle, credentials,
 *                           keys; the set-up requests run here, blocking
 *   start(state)            prepare the operation's first request; returns
 *                           the worker's HTTP client, ready to run it
 *   finish(state, xrc, &rc) after the transfer ran with result xrc: check the
 *                           answer; REST_STEP_DONE with the operation's code
 *                           in rc, or REST_STEP_AGAIN with the next request
 *                           prepared on the same handle
 *   close(state)            tear-down (blocking) and free
 *
 * The blocking pool runs an operation with rest_xfer_run() (rest_http_run:
 * the handle's engine, in a loop).  The non-blocking engines
 * (rest/transport/multi.h) run the very same functions on a curl multi
 * handle or the lean engine's epoll loop, calling finish() when a transfer
 * ends; nothing in a workload assumes which.
 */
#ifndef REST_XFER_H
#define REST_XFER_H

#include <curl/curl.h>

#include "bench/core/workload.h"
#include "rest/transport/http.h"

typedef enum { REST_STEP_DONE, REST_STEP_AGAIN } rest_step;

typedef struct rest_xfer_ops {
    int       (*open)(void *ctx, unsigned index, void **state, char *err, size_t errlen);
    rest_http *(*start)(void *state);
    rest_step (*finish)(void *state, rest_xfer_rc xrc, bench_code *rc);
    void      (*close)(void *state);
} rest_xfer_ops;

/* A workload's operations with the context its open() takes. */
typedef struct rest_xfer_workload {
    const rest_xfer_ops *ops;
    void                *ctx;
} rest_xfer_workload;

/* Run one operation to its end on the calling thread. */
static inline bench_code rest_xfer_run(const rest_xfer_ops *ops, void *state)
{
    bench_code rc = BENCH_OK;
    rest_http *h = ops->start(state);
    while (ops->finish(state, rest_http_run(h), &rc) == REST_STEP_AGAIN)
        ;
    return rc;
}

#endif

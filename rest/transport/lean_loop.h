/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/lean_loop.h - non-blocking REST runs on the lean HTTP/1.1
 * engine (rest/transport/lean.h): each worker thread waits in one epoll
 * set for the sockets of its slots, each slot a workload state with a
 * kept-alive connection of its own, carrying one request at a time.
 *
 * The same slots, scheduler and side metrics as the curl multi engine
 * (rest/transport/multi.h), which rest_multi_attach() chooses between.
 */
#ifndef REST_LEAN_LOOP_H
#define REST_LEAN_LOOP_H

#include "bench/core/workload.h"

/* What the run header calls this engine. */
#define REST_LEAN_LOOP_ENGINE "lean epoll"

/* The slot operations; their context is a rest_xfer_workload (xfer.h)
 * whose states' HTTP handles are lean ones. */
const bench_async_ops *rest_lean_loop_ops(void);

#endif

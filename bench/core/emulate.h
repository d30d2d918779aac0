/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/emulate.h - asynchronous slots emulated over a workload's
 * blocking half, for providers that cannot keep several operations in
 * flight on one thread (a PKCS#11 module without 3.2 asynchronous
 * sessions).
 *
 * A slot is one worker state of the blocking half (a session: open) and one
 * service thread of its own that runs do_one() and after() on it when the
 * slot is submitted; the threads of the asynchronous engine (async.c)
 * submit and poll the slots as they would native ones.  So a window of K
 * requests in flight is K calls inside the provider at once, at the cost
 * of K threads and K states on the client.
 */
#ifndef BENCH_EMULATE_H
#define BENCH_EMULATE_H

#include <stddef.h>

#include "bench/core/workload.h"

/* The most slots emulated: each is a thread. */
#define BENCH_EMULATED_MAX_SLOTS 1024

/* What settings.engine calls it (the summary's header and the results). */
#define BENCH_EMULATED_ENGINE "emulated: a session and a thread a slot"

/*
 * Give w an asynchronous half of `slots` emulated slots over its own
 * blocking half (open, do_one, after, close, side_bind, side_flush); w
 * must stay where it is while the run goes (the slots' context is w).
 * 1 when done; 0 with the reason in `why` when it cannot (too many slots,
 * a breakdown, which asynchronous slots do not keep).
 */
int bench_async_emulate(bench_workload *w, unsigned slots, char *why, size_t len);

#endif

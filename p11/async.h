/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/async.h - PKCS#11 3.2 asynchronous sessions as the timing core's
 * asynchronous slots: with them a non-blocking run keeps many operations in
 * flight over few threads (C_Sign returns CKR_PENDING, C_AsyncComplete
 * polls).  Used only where the module offers them; otherwise non-blocking
 * runs use the worker pool.
 */
#ifndef P11_ASYNC_H
#define P11_ASYNC_H

#include <stddef.h>

#include "bench/core/workload.h"
#include "p11/tests.h"

/*
 * Can this prepared test run on asynchronous sessions?  1 when yes (and
 * the workload's asynchronous members are set, `slots` operations in
 * flight); 0 with the reason in `why` when not.
 */
int p11_async_setup(p11_test_ctx *ctx, const p11_module *m, bench_workload *w, unsigned slots,
                    char *why, size_t len);

/* The module's own function list of version major.minor or later, from its
 * C_GetInterface ("PKCS 11"), or NULL.  hsmbench loads modules unmanaged,
 * so its session handles are the ones ctx->fn uses. */
void *p11_interface_list(const p11_module *m, unsigned major, unsigned minor);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/open.c - the non-blocking (open-loop) engine of blocked threads.
 *
 * The dispatcher (dispatch.c) issues requests on a schedule into the
 * bounded queue (queue.c, no lock); each worker takes the next, executes it and
 * records it.  Latency runs from the moment the request *should* have
 * started, so time spent waiting behind a slow token counts (coordinated
 * omission, as wrk2 corrects it); service time and queueing delay are kept
 * apart too (account_scheduled).
 */
#include "bench/core/pool_int.h"

void pool_open_loop(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    void *const state = wk->state;

    for (;;) {
        const uint64_t intended = bench_queue_pop(&p->queue);
        if (!intended)
            break;
        const uint64_t t0 = bench_now_ns();
        call_enter(wk, t0);
        bench_code rc = w->do_one(state);
        const uint64_t t1 = bench_now_ns();
        if (w->after && (rc != BENCH_OK || w->after_always))
            rc = w->after(state, rc);
        if (call_leave(wk))
            return;    /* abandoned inside the call (pool_abandon_stuck) */
        if (w->side_flush) {
            wk->side.on = intended >= p->measure_ns;
            w->side_flush(state);
        }
        account_scheduled(wk, rc, intended, t0, t1, state);
        if (p->sink && intended >= p->measure_ns)
            pool_emit(wk, state, w->describe, rc, intended, t1 - intended, wk->index + 1);
    }
}

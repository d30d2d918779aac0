/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/closed.c - the blocking (closed-loop) engine.
 *
 * Each worker starts its next operation as soon as the last returns.  Hot
 * path: one do_one(), one clock read, one histogram record and two relaxed
 * counter stores, all on memory the worker owns; nothing is shared between
 * workers but the read-only stop flag (and, in a ramp, the active count).
 * Around do_one() and after() the worker publishes that it is inside a call
 * (a store before, an exchange after: call_enter, call_leave), so that the
 * pool can give up a call that never returns.
 */
#include "bench/core/pool_int.h"

void pool_closed_loop(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    const uint64_t measure = p->measure_ns;
    const uint64_t quota = wk->quota;
    const int bounded = wk->bounded;
    const uint64_t think = p->load->think_ns;
    const int ramped = p->load->stages != NULL;
    uint64_t warm_left = p->load->warmup_ops;
    uint64_t done = 0;                 /* == wk->ops, kept in a register */
    bench_code (*const do_one)(void *) = w->do_one;
    bench_code (*const after)(void *, bench_code) = w->after;
    void (*const flush)(void *) = w->side_flush;
    const int after_always = w->after_always;
    const int sink = p->sink != NULL;
    void *const state = wk->state;
    int by = 0;                        /* the run has a breakdown */
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++)
        by |= wk->by[k] != NULL;

    if (p->load->ramp_up_ns) {
        /* JMeter's ramp-up: this thread begins its share of the way through. */
        const uint64_t at = p->start_ns + pool_ramp_offset(p, wk->index);
        for (uint64_t now = bench_now_ns();
             now < at && !atomic_load_explicit(&p->stop, memory_order_relaxed); now = bench_now_ns())
            pause_ns(at - now < STAGE_NS ? at - now : STAGE_NS);
    }
    /* One clock read per operation: each op's end is the next one's start,
     * so the few nanoseconds of bookkeeping below fall into the next
     * measurement instead of costing a second clock read. */
    uint64_t t0 = bench_now_ns();
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        if (bounded && done >= quota)
            break;
        if (ramped && wk->index >= atomic_load_explicit(&p->active, memory_order_relaxed)) {
            /* Not among the threads the ramp wants now: wait, unmeasured. */
            pause_ns(STAGE_NS / 4);
            t0 = bench_now_ns();
            continue;
        }
        call_enter(wk, t0);
        bench_code rc = do_one(state);
        const uint64_t t1 = bench_now_ns();
        const uint64_t start = t0;
        t0 = t1;
        int warm = start < measure;
        if (warm_left) {
            warm_left--;
            warm = 1;
        }
        if (after && (rc != BENCH_OK || after_always)) {
            /* Untimed: the next operation's clock starts after it. */
            rc = after(state, rc);
            t0 = bench_now_ns();
        }
        if (call_leave(wk))
            return;                /* abandoned: the pool owns this worker's records now */
        if (flush) {
            /* Side metrics, untimed, recorded only for a measured operation. */
            wk->side.on = !warm;
            flush(state);
            t0 = bench_now_ns();
        }
        if (!warm)
            done++;
        account(wk, rc, t1 - start, warm, t1);
        if (!warm && by && account_by(wk, state, rc, t1 - start))
            t0 = bench_now_ns();   /* a class's first histogram: not the next op's time */
        if (sink && !warm) {
            /* --out jtl: the request's line, untimed as after() is */
            pool_emit(wk, state, w->describe, rc, start, t1 - start, wk->index + 1);
            t0 = bench_now_ns();
        }
        if (think) {
            pause_ns(think);       /* k6's sleep(): not part of any operation */
            t0 = bench_now_ns();
        }
    }
}

/* Blocking ramps: how many workers the profile wants now (rounded). */
void pool_set_active(pool *p, uint64_t now)
{
    const bench_load *l = p->load;
    if (!l->stages || l->mode != BENCH_MODE_BLOCKING)
        return;
    double v = bench_stages_at(l->stages, now > p->start_ns ? now - p->start_ns : 0);
    unsigned n = (unsigned)(v + 0.5);
    if (n > p->n)
        n = p->n;
    atomic_store(&p->active, n);
    if (now >= p->measure_ns && (!p->stop_ns || now <= p->stop_ns)) {
        if (!p->ramp_seen || n < p->ramp_min)
            p->ramp_min = n;
        if (!p->ramp_seen || n > p->ramp_max)
            p->ramp_max = n;
        p->ramp_seen = 1;
    }
}

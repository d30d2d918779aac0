/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/dispatch.c - the dispatcher of a non-blocking run.
 *
 * One thread issues requests into the queue: on the schedule's due times
 * (a rate, a ramp or recorded arrivals, bench/core/schedule.h; arrivals are
 * walked by index, so ties stay apart), or whenever fewer than --inflight
 * are outstanding, or both.  It counts the measured run's scheduled
 * requests and those issued late, and leaves the first due time it never
 * issued for the tally of the dropped (pool.c).
 */
#include "bench/core/pool_int.h"

#include <sys/prctl.h>

#include "bench/core/schedule.h"

/* The run's next due time after `from`, up to `end` (a rate or a ramp). */
static uint64_t next_due(const pool *p, uint64_t from, uint64_t end)
{
    return bench_schedule_next_due(p->load->rate, p->load->stages, p->start_ns, from, end);
}

/* The schedule runs to the end of the run (and a little past, so the
 * last due requests are counted, issued or not). */
static uint64_t horizon_of(const pool *p)
{
    const bench_load *l = p->load;
    return l->duration_ns ? p->measure_ns + l->duration_ns + BENCH_NS_PER_S : UINT64_MAX;
}

uint64_t pool_first_due(const pool *p)
{
    if (p->load->arrivals)
        return pool_arrival_due(p, 0);
    return p->load->stages ? next_due(p, p->start_ns, horizon_of(p)) : p->start_ns;
}

void *pool_dispatch_main(void *arg)
{
    pool *p = arg;
    /* The schedule's accuracy is the timer's: ask for no slack on wake-ups
     * (Linux adds 50 µs by default).  Best effort. */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    const bench_load *l = p->load;
    uint64_t next = p->start_ns, idx = 0;   /* idx: arrivals' index of next */
    const int by_rate = pool_by_schedule(l);

    const uint64_t horizon = horizon_of(p);
    if (by_rate)
        next = pool_first_due(p);
    /* Requests due from the end of the measured part on are not the run's. */
    const uint64_t plan_end = l->duration_ns ? p->measure_ns + l->duration_ns : UINT64_MAX;
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        uint64_t now = bench_now_ns();
        if (by_rate) {
            if (next == UINT64_MAX || next >= plan_end) {
                pause_ns(POLL_NS / 10);   /* the schedule is over: wait for the end */
                continue;
            }
            if (next > now)
                bench_sleep_until_ns(next < now + POLL_NS ? next : now + POLL_NS);
            if (bench_now_ns() < next)
                continue;
        }
        if (l->inflight) {
            /* A window: wait for room among the outstanding requests. */
            uint64_t out = atomic_load(&p->issued) - atomic_load(&p->completed);
            if (out >= l->inflight) {
                pause_ns(20000);
                continue;
            }
            if (!by_rate)
                next = bench_now_ns();
        }
        uint64_t issue_at = bench_now_ns();
        if (!pool_queue_push(p, next))
            break;
        atomic_fetch_add_explicit(&p->issued, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&p->scheduled_now, 1, memory_order_relaxed);
        if (next >= p->measure_ns) {
            atomic_fetch_add_explicit(&p->scheduled_measured, 1, memory_order_relaxed);
            if (issue_at > next + LATE_NS)
                atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
        }
        if (l->arrivals) {
            next = pool_arrival_due(p, ++idx);
            if (next == UINT64_MAX)   /* a single pass is over */
                atomic_store_explicit(&p->disp_over, 1, memory_order_release);
        } else if (by_rate) {
            next = next_due(p, next, horizon);
        }
    }
    /* Requests due before the end but never issued are dropped, not lost:
     * pool.c counts them from the schedule, from here, after the join. */
    p->disp_next = by_rate ? next : UINT64_MAX;
    p->disp_idx = idx;
    return NULL;
}

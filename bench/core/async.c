/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/async.c - the asynchronous slots engine of non-blocking runs.
 *
 * Each worker multiplexes several operations in flight (workload.h:
 * bench_async_ops open, submit, poll, close) instead of blocking in one;
 * with an engine that can wait (await), it sleeps in the engine until an operation completes or
 * a request is queued (the wake pipe).  A window without a rate needs no
 * dispatcher here: each worker keeps its share of the window full.
 */
#include "bench/core/pool_int.h"

#include <stdio.h>
#include <stdlib.h>

/* One operation in flight on an asynchronous slot. */
typedef struct aslot {
    void    *st;
    int      busy;
    uint64_t intended, submitted;
} aslot;

static void async_done(worker *wk, aslot *s, bench_code rc)
{
    const bench_workload *w = wk->pool->w;
    /* A slot that ran the operation on a thread of its own knows when it
     * ended; otherwise it ended when it was seen. */
    const uint64_t now = w->async.ops->ended ? w->async.ops->ended(s->st) : bench_now_ns();
    if (w->async.ops->side_flush) {
        /* Side metrics, after the completion's time is taken. */
        wk->side.on = s->intended >= wk->pool->measure_ns;
        w->async.ops->side_flush(s->st);
    }
    account_scheduled(wk, rc, s->intended, s->submitted, now, s->st);
    s->busy = 0;
    wk->busy--;
}

/*
 * A window of K outstanding requests and no rate, on asynchronous slots:
 * no dispatcher, each thread keeps its share of the window full itself,
 * a request falling due the moment a slot frees (as the dispatcher would
 * issue it).  A rate, a ramp or arrivals need the dispatcher's schedule.
 */
int pool_is_self_paced(const pool *p)
{
    const bench_load *l = p->load;
    return l->mode == BENCH_MODE_NONBLOCKING && p->w->async.ops != NULL && l->inflight &&
           !pool_by_schedule(l);
}

/* The next request for a free slot: its due time, or 0 when none is due. */
static uint64_t async_take(worker *wk)
{
    pool *p = wk->pool;
    if (!p->self_paced)
        return bench_queue_try_pop(&p->queue);
    if (wk->busy >= wk->window)
        return 0;
    const uint64_t now = bench_now_ns();
    /* The worker's own counters (pool_int.h): no line shared per request. */
    relaxed_inc(&wk->own_issued);
    if (now >= p->measure_ns)
        relaxed_inc(&wk->own_measured);
    return now;
}


#define AWAIT_BUSY_NS (10ULL * 1000 * 1000)   /* every slot busy: check for the end this often */

/* When the worker's current call began, for the stuck-worker rule: `now`,
 * or the start of the oldest operation its engine's slots have inside the
 * provider when they run them on threads of their own (inside_since). */
static uint64_t call_since(const worker *wk, uint64_t now)
{
    const bench_async_ops *ops = wk->pool->w->async.ops;
    if (!ops->inside_since)
        return now;
    const uint64_t t = ops->inside_since(wk->engine);
    return t && t < now ? t : now;
}

/*
 * Nothing moved in the last pass: wait in the engine for an operation to
 * complete, and, when a slot is free, for a request to be queued too.  1
 * when the worker was abandoned in the wait (a call since `since`).
 */
static int async_wait(worker *wk, int slot_free, uint64_t since)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    if (!slot_free) {
        call_enter(wk, since);
        w->async.ops->await(wk->engine, -1, AWAIT_BUSY_NS);
        return call_leave(wk);
    }
    /* Count ourselves a sleeper, then look at the queue: a request queued
     * after that look finds the count and writes to the pipe.  No wake-up
     * is lost, without a lock to order the two sides: this increment is
     * sequentially consistent and comes before the look (bench_queue_has,
     * seq_cst loads), and the push publishes the request with a seq_cst
     * store before it reads `sleepers`; in the one total order of seq_cst
     * operations either this look sees the request, or the dispatcher sees
     * the sleeper and writes a byte to the pipe this thread waits on. */
    atomic_fetch_add(&p->sleepers, 1);
    pool_wake_drain(p);
    if (!bench_queue_has(&p->queue) && !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        call_enter(wk, since);
        w->async.ops->await(wk->engine, p->wake[0], POLL_NS);
        if (call_leave(wk))
            return 1;     /* the pool is no longer ours to touch */
    }
    atomic_fetch_sub(&p->sleepers, 1);
    return 0;
}

/*
 * Non-blocking over asynchronous slots: one thread keeps several operations
 * in flight, submitting queued requests to idle slots and polling busy ones.
 * An engine with await() is moved on after every pass and waited on when a
 * pass did nothing; otherwise the thread pauses briefly.
 */
void pool_async_loop(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    const bench_async_ops *ops = w->async.ops;
    aslot *slots = wk->state;
    const int paced = p->self_paced;

    /* Each hook is a call (call_enter, call_leave), entered at the pass's
     * start: no clock read of its own; an abandoned worker returns at once. */
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        /* slot_free: a slot waits for the dispatcher's next request */
        int progress = 0, slot_free = 0;
        const uint64_t pass = call_since(wk, bench_now_ns());
        for (unsigned i = 0; i < wk->nslots; i++) {
            aslot *s = &slots[i];
            bench_code rc = BENCH_OK;
            if (s->busy) {
                call_enter(wk, pass);
                const int in_flight = ops->poll(s->st, &rc);
                if (call_leave(wk))
                    return;
                if (in_flight == 0) {
                    async_done(wk, s, rc);
                    progress = 1;
                }
            }
            if (!s->busy) {
                uint64_t due = async_take(wk);
                if (!due) {
                    slot_free = !paced;
                    continue;
                }
                s->intended = due;
                s->submitted = paced ? due : bench_now_ns();
                s->busy = 1;
                wk->busy++;
                call_enter(wk, s->submitted);
                const int in_flight = ops->submit(s->st, &rc);
                if (call_leave(wk))
                    return;
                if (in_flight == 0)
                    async_done(wk, s, rc);
                progress = 1;
            }
        }
        if (ops->await && progress) {
            call_enter(wk, pass);
            ops->await(wk->engine, -1, 0);
            if (call_leave(wk))
                return;
        } else if (ops->await) {
            if (async_wait(wk, slot_free, pass))
                return;
        } else if (!progress) {
            pause_ns(20000);   /* nothing due and nothing finished: yield the CPU */
        }
    }
    /* Let what is in flight finish (bounded), so sessions close cleanly. */
    const uint64_t drain = w->async.drain_ns ? w->async.drain_ns : BENCH_NS_PER_S;
    const uint64_t started = bench_now_ns();
    const uint64_t give_up = drain > UINT64_MAX - started ? UINT64_MAX : started + drain;
    for (unsigned i = 0; i < wk->nslots; i++) {
        bench_code rc;
        uint64_t now;
        while (slots[i].busy && (now = bench_now_ns()) < give_up) {
            call_enter(wk, call_since(wk, now));
            const int in_flight = ops->poll(slots[i].st, &rc);
            if (in_flight && ops->await)
                ops->await(wk->engine, -1, BENCH_NS_PER_S / 100);
            if (call_leave(wk))
                return;
            if (in_flight == 0)
                async_done(wk, &slots[i], rc);
            else if (!ops->await)
                pause_ns(20000);
        }
    }
}

uint64_t pool_async_left(const worker *wk, bench_hist *h, uint64_t measure_ns, uint64_t end)
{
    const aslot *slots = wk->state;
    uint64_t n = 0;
    for (unsigned i = 0; slots && i < wk->nslots; i++) {
        if (!slots[i].busy || slots[i].intended < measure_ns)
            continue;
        bench_hist_record(h, end > slots[i].intended ? end - slots[i].intended : 0);
        n++;
    }
    return n;
}

/* Open this worker's share of the asynchronous slots: 0, -1 when one
 * could not be opened (why says why), 1 when stopped early. */
int pool_async_open(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    unsigned total = w->async.slots > p->n ? w->async.slots : p->n;
    unsigned first = 0;
    for (unsigned i = 0; i < wk->index; i++)
        first += total / p->n + (i < total % p->n ? 1 : 0);
    wk->nslots = total / p->n + (wk->index < total % p->n ? 1 : 0);
    const unsigned k = p->load->inflight;
    wk->window = k / p->n + (wk->index < k % p->n ? 1 : 0);
    aslot *slots = calloc(wk->nslots ? wk->nslots : 1, sizeof *slots);
    if (!slots) {
        snprintf(wk->why, sizeof wk->why, "out of memory");
        return -1;
    }
    wk->state = slots;
    if (w->async.ops->engine_open &&
        w->async.ops->engine_open(w->async.ctx, wk->index, &wk->engine, wk->why, sizeof wk->why) != 0) {
        wk->engine = NULL;
        return -1;
    }
    for (unsigned i = 0; i < wk->nslots; i++) {
        /* Slots may take a while to set up (a session, a key each): stop
         * at Ctrl-C, or when another worker could not open. */
        if (*p->interrupt || atomic_load(&p->abandon))
            return 1;   /* stopped, not failed: the reason is elsewhere */
        if (w->async.ops->open(w->async.ctx, wk->engine, first + i, &slots[i].st, wk->why, sizeof wk->why) != 0)
            return -1;
        if (w->async.ops->side_bind)
            w->async.ops->side_bind(slots[i].st, &wk->side);
    }
    return 0;
}

void pool_async_close(worker *wk)
{
    const bench_workload *w = wk->pool->w;
    aslot *slots = wk->state;
    for (unsigned i = 0; slots && i < wk->nslots; i++)
        if (slots[i].st)
            w->async.ops->close(slots[i].st);
    free(slots);
    wk->state = NULL;
    if (wk->engine)
        w->async.ops->engine_close(wk->engine);
    wk->engine = NULL;
}

int pool_use_async(const pool *p)
{
    return p->load->mode == BENCH_MODE_NONBLOCKING && p->w->async.ops != NULL;
}

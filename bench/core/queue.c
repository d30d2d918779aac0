/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/queue.c - the non-blocking run's bounded request queue (no lock),
 * and the pool's use of it: the push that wakes sleeping asynchronous
 * threads through the wake pipe.
 *
 * The dispatcher pushes each request's due time; workers take them in
 * order.  The queue is bounded (BENCH_QUEUE_CAP): when the token falls
 * behind, the dispatcher waits and its requests are issued late (and
 * counted); those still waiting at the end are counted as dropped, never
 * silently lost.  How it works without a lock: bench/core/queue.h.
 *
 * Waiting without a lock: a thread that found nothing to do announces
 * itself (a seq_cst increment of `sleepers`), looks once more (seq_cst
 * loads), and only then sleeps on the semaphore; the other side makes its
 * change visible (a seq_cst store) before it reads the count (seq_cst), so
 * either the sleeper sees the change or the other side sees the sleeper.
 * The waking side takes one sleeper off the count before posting, so each
 * sleeper gets exactly one post; one that finds work on its second look
 * takes itself off instead, or, when a post is already on its way to it
 * (the count is 0), takes that post.  Closing sets `closed` and posts once
 * for every sleeper still counted.
 */
#include "bench/core/queue.h"

#include <errno.h>

#include "bench/core/pool_int.h"

#include <unistd.h>

#define MASK (BENCH_QUEUE_CAP - 1)

int bench_queue_init(bench_queue *q)
{
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    atomic_init(&q->sleepers, 0);
    atomic_init(&q->psleepers, 0);
    atomic_init(&q->closed, 0);
    for (size_t i = 0; i < BENCH_QUEUE_CAP; i++) {
        atomic_init(&q->cells[i].seq, i);
        q->cells[i].value = 0;
    }
    if (sem_init(&q->items, 0, 0) != 0)
        return -1;
    if (sem_init(&q->spaces, 0, 0) != 0) {
        sem_destroy(&q->items);
        return -1;
    }
    return 0;
}

void bench_queue_destroy(bench_queue *q)
{
    sem_destroy(&q->items);
    sem_destroy(&q->spaces);
}

/* Fill the cell at the tail with v: 1, or 0 when the queue is full (or its
 * oldest cell is still being emptied). */
static int try_enqueue(bench_queue *q, uint64_t v)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        bench_queue_cell *c = &q->cells[pos & MASK];
        const size_t seq = atomic_load(&c->seq);   /* seq_cst: a second look */
        if (seq == pos) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                c->value = v;
                atomic_store(&c->seq, pos + 1);    /* seq_cst: before reading sleepers */
                return 1;
            }
        } else if ((ptrdiff_t)(seq - pos) < 0) {
            return 0;
        } else {
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}

/* Empty the cell at the head: its value, or 0 when none is filled. */
static uint64_t try_dequeue(bench_queue *q)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        bench_queue_cell *c = &q->cells[pos & MASK];
        const size_t seq = atomic_load(&c->seq);   /* seq_cst: a second look */
        if (seq == pos + 1) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                const uint64_t v = c->value;
                atomic_store(&c->seq, pos + BENCH_QUEUE_CAP);   /* seq_cst: before psleepers */
                return v;
            }
        } else if ((ptrdiff_t)(seq - (pos + 1)) < 0) {
            return 0;
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

/* Take one sleeper off *count: 1, or 0 when none is counted. */
static int take_sleeper(_Atomic unsigned *count)
{
    unsigned n = atomic_load(count);
    while (n > 0)
        if (atomic_compare_exchange_weak(count, &n, n - 1))
            return 1;
    return 0;
}

/* Wake one thread sleeping on s (counted in *count), if there is one. */
static void wake_one(_Atomic unsigned *count, sem_t *s)
{
    if (atomic_load(count) > 0 && take_sleeper(count))
        sem_post(s);
}

static void sem_take(sem_t *s)
{
    while (sem_wait(s) != 0 && errno == EINTR)
        ;
}

static int closed(bench_queue *q)
{
    return atomic_load(&q->closed);
}

int bench_queue_push(bench_queue *q, uint64_t v)
{
    for (;;) {
        if (closed(q))
            return 0;
        if (try_enqueue(q, v)) {
            wake_one(&q->sleepers, &q->items);
            return 1;
        }
        /* Full: announce, look again, sleep until a consumer makes room. */
        atomic_fetch_add(&q->psleepers, 1);
        const int stop = closed(q);
        if (stop || try_enqueue(q, v)) {
            if (!take_sleeper(&q->psleepers))
                sem_take(&q->spaces);   /* a post is on its way: take it */
            if (stop)
                return 0;
            wake_one(&q->sleepers, &q->items);
            return 1;
        }
        sem_take(&q->spaces);
    }
}

uint64_t bench_queue_try_pop(bench_queue *q)
{
    if (closed(q))
        return 0;
    const uint64_t v = try_dequeue(q);
    if (v)
        wake_one(&q->psleepers, &q->spaces);
    return v;
}

uint64_t bench_queue_pop(bench_queue *q)
{
    for (;;) {
        uint64_t v = bench_queue_try_pop(q);
        if (v || closed(q))
            return v;
        /* Empty: announce, look again, sleep until a value is pushed. */
        atomic_fetch_add(&q->sleepers, 1);
        if (closed(q) || (v = try_dequeue(q)) != 0) {
            if (!take_sleeper(&q->sleepers))
                sem_take(&q->items);    /* a post is on its way: take it */
            if (v)
                wake_one(&q->psleepers, &q->spaces);
            return v;   /* 0 when closed */
        }
        sem_take(&q->items);
    }
}

int bench_queue_has(bench_queue *q)
{
    if (atomic_load(&q->closed))
        return 0;
    size_t pos = atomic_load(&q->head);
    for (;;) {
        if (atomic_load(&q->cells[pos & MASK].seq) == pos + 1)
            return 1;   /* filled (perhaps being taken right now: a spurious yes) */
        const size_t now = atomic_load(&q->head);
        if (now == pos)
            return 0;   /* not filled yet */
        pos = now;      /* taken already: look at the next */
    }
}

void bench_queue_close(bench_queue *q)
{
    atomic_store(&q->closed, 1);
    for (unsigned n = atomic_exchange(&q->sleepers, 0); n > 0; n--)
        sem_post(&q->items);
    for (unsigned n = atomic_exchange(&q->psleepers, 0); n > 0; n--)
        sem_post(&q->spaces);
}

uint64_t bench_queue_take_left(bench_queue *q)
{
    return try_dequeue(q);
}

/* ---- the pool's side ---- */

int pool_queue_push(pool *p, uint64_t intended)
{
    if (atomic_load_explicit(&p->stop, memory_order_relaxed))
        return 0;
    if (!bench_queue_push(&p->queue, intended))
        return 0;
    /*
     * A thread about to wait counts itself a sleeper (seq_cst), then looks
     * at the queue (bench_queue_has, seq_cst loads); the push published the
     * request with a seq_cst store before this seq_cst load.  So either the
     * thread saw the request or this sees the sleeper and writes to the
     * pipe: no wake-up is lost.
     */
    if (p->wake[1] >= 0 && atomic_load(&p->sleepers) > 0)
        pool_wake_sleepers(p);
    return 1;
}

void pool_wake_sleepers(pool *p)
{
    const char b = 1;
    ssize_t n = write(p->wake[1], &b, 1);
    (void)n;   /* EAGAIN: full, so readable: nothing is lost */
}

void pool_wake_drain(pool *p)
{
    char buf[64];
    while (read(p->wake[0], buf, sizeof buf) == (ssize_t)sizeof buf)
        ;
}

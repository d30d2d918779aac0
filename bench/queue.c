/*
 * bench/queue.c - the non-blocking run's bounded request queue (no lock),
 * and the pool's use of it: the push that wakes sleeping asynchronous
 * threads through the wake pipe.
 *
 * The dispatcher pushes each request's due time; workers take them in
 * order.  The queue is bounded (BENCH_QUEUE_CAP): when the token falls
 * behind, the dispatcher waits and its requests are issued late (and
 * counted); those still waiting at the end are counted as dropped, never
 * silently lost.  How it works without a lock: bench/queue.h.
 *
 * The semaphores hold the counts: a thread takes a value only after taking
 * one from `items`, so it always finds one filled cell waiting (the cells
 * are filled in order by the one producer); the producer fills a cell only
 * after taking one from `spaces`.  The cell itself may still be in the
 * hands of a thread that claimed it a few instructions ago (consumers
 * finish out of order): then the other side yields until it is done.
 * Closing sets `closed` and posts both semaphores once; each thread woken
 * that way posts again before leaving, so every waiter wakes in turn.
 */
#include "bench/queue.h"

#include <errno.h>
#include <sched.h>

#include "bench/pool_int.h"

#include <unistd.h>

#define MASK (BENCH_QUEUE_CAP - 1)

int bench_queue_init(bench_queue *q)
{
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    atomic_init(&q->closed, 0);
    for (size_t i = 0; i < BENCH_QUEUE_CAP; i++) {
        atomic_init(&q->cells[i].seq, i);
        q->cells[i].value = 0;
    }
    if (sem_init(&q->items, 0, 0) != 0)
        return -1;
    if (sem_init(&q->spaces, 0, BENCH_QUEUE_CAP) != 0) {
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

/* Wait on s: 0, or -1 on an error other than a signal. */
static int sem_take(sem_t *s)
{
    while (sem_wait(s) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* Fill the cell at the tail with v; the caller holds a space. */
static void enqueue(bench_queue *q, uint64_t v)
{
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        bench_queue_cell *c = &q->cells[pos & MASK];
        const size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        if (seq == pos) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                c->value = v;
                /* seq_cst, not only release: bench_queue_has() */
                atomic_store_explicit(&c->seq, pos + 1, memory_order_seq_cst);
                return;
            }
        } else {
            if ((ptrdiff_t)(seq - pos) < 0)
                sched_yield();   /* its last consumer is still emptying it */
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}

/* Empty the cell at the head; the caller holds an item. */
static uint64_t dequeue(bench_queue *q)
{
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        bench_queue_cell *c = &q->cells[pos & MASK];
        const size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        if (seq == pos + 1) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                const uint64_t v = c->value;
                atomic_store_explicit(&c->seq, pos + BENCH_QUEUE_CAP, memory_order_release);
                return v;
            }
        } else {
            if ((ptrdiff_t)(seq - (pos + 1)) < 0)
                sched_yield();   /* not filled yet (cannot happen with one producer) */
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

static int closed(bench_queue *q)
{
    return atomic_load_explicit(&q->closed, memory_order_acquire);
}

int bench_queue_push(bench_queue *q, uint64_t v)
{
    if (sem_take(&q->spaces) != 0)
        return 0;
    if (closed(q)) {
        sem_post(&q->spaces);   /* pass the wake-up on */
        return 0;
    }
    enqueue(q, v);
    sem_post(&q->items);
    return 1;
}

/* With an item taken from `items`: the value, or 0 when closed. */
static uint64_t take(bench_queue *q)
{
    if (closed(q)) {
        sem_post(&q->items);    /* pass the wake-up on */
        return 0;
    }
    const uint64_t v = dequeue(q);
    sem_post(&q->spaces);
    return v;
}

uint64_t bench_queue_pop(bench_queue *q)
{
    if (sem_take(&q->items) != 0)
        return 0;
    return take(q);
}

uint64_t bench_queue_try_pop(bench_queue *q)
{
    if (sem_trywait(&q->items) != 0)
        return 0;
    return take(q);
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
    sem_post(&q->items);
    sem_post(&q->spaces);
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

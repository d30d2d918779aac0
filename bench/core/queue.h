/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/queue.h - INTERNAL to the worker pool: the bounded request queue of
 * non-blocking runs, without locks.
 *
 * A ring of BENCH_QUEUE_CAP cells, each with a sequence number (Dmitry
 * Vyukov's bounded MPMC queue): a producer claims the cell at `tail`, a
 * consumer the one at `head`, each with a compare-and-swap, and the cell's
 * sequence number says whether it is free or filled, so nothing else is
 * shared.  A thread that finds the queue empty (a consumer) or full (the
 * producer) and must wait counts itself in `sleepers` or `psleepers` and
 * waits on a POSIX semaphore; the other side posts it only after taking
 * one such sleeper off the count, so there is one sem_post (one system
 * call) per sleep, not one per value, and none while nobody sleeps.
 *
 * Values are non-zero (due times, in ns); 0 means "closed" or "none".  Once
 * closed, the queue hands out nothing more (what is still in it is left
 * there: the pool counts it as dropped) and every waiter returns.
 */
#ifndef BENCH_QUEUE_H
#define BENCH_QUEUE_H

#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_QUEUE_CAP 4096u   /* a power of two */

typedef struct bench_queue_cell {
    _Atomic size_t seq;   /* pos: free for pos; pos + 1: holds pos's value */
    uint64_t       value; /* published by seq (release/acquire) */
} bench_queue_cell;

typedef struct bench_queue {
    alignas(64) _Atomic size_t head;       /* next position to take */
    alignas(64) _Atomic size_t tail;       /* next position to fill */
    alignas(64) _Atomic unsigned sleepers; /* consumers waiting on `items`, not yet woken */
    _Atomic unsigned           psleepers;  /* producers waiting on `spaces`, not yet woken */
    _Atomic int                closed;
    sem_t                      items;      /* posted to wake a consumer */
    sem_t                      spaces;     /* posted to wake a producer */
    bench_queue_cell           cells[BENCH_QUEUE_CAP];
} bench_queue;

/* 0, or -1 when the semaphores cannot be made. */
int  bench_queue_init(bench_queue *q);
void bench_queue_destroy(bench_queue *q);
/* Queue v (non-zero), waiting while the queue is full: 1, or 0 when it is
 * closed (before or while waiting). */
int  bench_queue_push(bench_queue *q, uint64_t v);
/* The oldest value, waiting for one: 0 once the queue is closed. */
uint64_t bench_queue_pop(bench_queue *q);
/* The oldest value if one is queued, without waiting: 0 when none, or closed. */
uint64_t bench_queue_try_pop(bench_queue *q);
/* Whether a value is queued and not claimed (and the queue open).  Its
 * loads are sequentially consistent, as is a push's publication, so a
 * thread that announces itself (a seq_cst write) and then finds the queue
 * empty is seen by a seq_cst read the producer makes after its push. */
int  bench_queue_has(bench_queue *q);
/* Close the queue: every thread waiting in it, or coming to it, returns. */
void bench_queue_close(bench_queue *q);
/* After the close, once no other thread uses the queue: the values it
 * still holds, oldest first, one a call; 0 when none is left. */
uint64_t bench_queue_take_left(bench_queue *q);

#endif

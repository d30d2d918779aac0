/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_queue.c - the non-blocking run's request queue
 * (bench/core/queue.h): lock-free, bounded, one producer and many consumers.
 *
 * Values come out in the order they went in; the queue holds
 * BENCH_QUEUE_CAP values and a push beyond waits until one is taken;
 * closing wakes every consumer waiting for a value and a producer waiting
 * for room, and nothing is handed out after; with many consumers (blocking
 * and non-blocking) each value is taken exactly once, in increasing order
 * for each consumer, also when slow consumers keep the queue full; a push
 * into a full queue puts the producer to sleep (seen in its thread's state,
 * not timed) and each pop wakes it with one post.  Run under
 * ThreadSanitizer by make check.
 * tsan: yes (one producer and many consumers on the lock-free queue)
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench/core/queue.h"
#include "tests/unit/check.h"

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static bench_queue *new_queue(void)
{
    bench_queue *q = aligned_alloc(64, sizeof *q);
    if (q && bench_queue_init(q) != 0) {
        free(q);
        return NULL;
    }
    return q;
}

static void free_queue(bench_queue *q)
{
    bench_queue_destroy(q);
    free(q);
}

static void test_order(void)
{
    bench_queue *q = new_queue();
    CHECK(q != NULL);
    if (!q)
        return;
    CHECK(!bench_queue_has(q));
    CHECK(bench_queue_try_pop(q) == 0);
    /* Several times round the ring, so positions wrap. */
    uint64_t next_in = 1, next_out = 1;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 3000; i++)
            CHECK(bench_queue_push(q, next_in++) == 1);
        CHECK(bench_queue_has(q));
        for (int i = 0; i < 3000; i++) {
            const uint64_t v = (i & 1) ? bench_queue_pop(q) : bench_queue_try_pop(q);
            CHECK_MSG(v == next_out, "got %llu, wanted %llu", (unsigned long long)v,
                      (unsigned long long)next_out);
            next_out++;
        }
        CHECK(!bench_queue_has(q));
        CHECK(bench_queue_try_pop(q) == 0);
    }
    free_queue(q);
}

typedef struct pusher {
    bench_queue *q;
    uint64_t     value;
    _Atomic int  done;
    int          rc;
} pusher;

static void *push_one(void *arg)
{
    pusher *pu = arg;
    pu->rc = bench_queue_push(pu->q, pu->value);
    atomic_store(&pu->done, 1);
    return NULL;
}

static void test_capacity_bound(void)
{
    bench_queue *q = new_queue();
    CHECK(q != NULL);
    if (!q)
        return;
    for (uint64_t i = 1; i <= BENCH_QUEUE_CAP; i++)
        CHECK(bench_queue_push(q, i) == 1);
    pusher pu = { q, BENCH_QUEUE_CAP + 1, 0, -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, push_one, &pu) == 0);
    nap_ms(50);
    CHECK_MSG(!atomic_load(&pu.done), "a push into a full queue did not wait");
    CHECK(bench_queue_pop(q) == 1);   /* room for one: the push goes in */
    pthread_join(t, NULL);
    CHECK(pu.rc == 1);
    for (uint64_t i = 2; i <= BENCH_QUEUE_CAP + 1; i++)
        CHECK(bench_queue_try_pop(q) == i);
    CHECK(bench_queue_try_pop(q) == 0);
    free_queue(q);
}

typedef struct popper {
    bench_queue *q;
    uint64_t     got;
    _Atomic int  done;
} popper;

static void *pop_one(void *arg)
{
    popper *po = arg;
    po->got = bench_queue_pop(po->q);
    atomic_store(&po->done, 1);
    return NULL;
}

static void test_close_wakes_waiters(void)
{
    enum { WAITERS = 6 };
    bench_queue *q = new_queue();
    CHECK(q != NULL);
    if (!q)
        return;
    popper po[WAITERS];
    pthread_t t[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        po[i] = (popper){ q, 99, 0 };
        CHECK(pthread_create(&t[i], NULL, pop_one, &po[i]) == 0);
    }
    nap_ms(50);
    for (int i = 0; i < WAITERS; i++)
        CHECK(!atomic_load(&po[i].done));
    bench_queue_close(q);
    for (int i = 0; i < WAITERS; i++) {
        pthread_join(t[i], NULL);
        CHECK(po[i].got == 0);
    }
    /* Closed: nothing is handed out or taken in any more. */
    CHECK(bench_queue_pop(q) == 0);
    CHECK(bench_queue_push(q, 5) == 0);
    CHECK(bench_queue_try_pop(q) == 0);
    CHECK(!bench_queue_has(q));
    free_queue(q);

    /* A producer waiting for room wakes too; what is queued stays unread. */
    q = new_queue();
    CHECK(q != NULL);
    if (!q)
        return;
    for (uint64_t i = 1; i <= BENCH_QUEUE_CAP; i++)
        CHECK(bench_queue_push(q, i) == 1);
    pusher pu = { q, 7, 0, -1 };
    pthread_t tp;
    CHECK(pthread_create(&tp, NULL, push_one, &pu) == 0);
    nap_ms(50);
    CHECK(!atomic_load(&pu.done));
    bench_queue_close(q);
    pthread_join(tp, NULL);
    CHECK(pu.rc == 0);
    CHECK(bench_queue_pop(q) == 0);
    CHECK(bench_queue_try_pop(q) == 0);
    free_queue(q);
}

#define MANY 200000u
#define CONSUMERS 4

typedef struct consumer {
    bench_queue      *q;
    _Atomic unsigned char *seen;
    _Atomic unsigned *taken;
    int               blocking;
    int               slow;         /* pause now and then: the queue fills, the producer sleeps */
    int               out_of_order;
    uint64_t          count;
} consumer;

static void *consume(void *arg)
{
    consumer *c = arg;
    uint64_t last = 0;
    for (;;) {
        uint64_t v = c->blocking ? bench_queue_pop(c->q) : bench_queue_try_pop(c->q);
        if (!v) {
            if (c->blocking)
                break;
            if (atomic_load(c->taken) >= MANY)
                break;
            sched_yield();
            continue;
        }
        if (v <= last)
            c->out_of_order = 1;
        if (c->slow && v % 512 == 0)
            nap_ms(1);
        last = v;
        if (v <= MANY)
            atomic_fetch_add(&c->seen[v - 1], 1);
        c->count++;
        atomic_fetch_add(c->taken, 1);
    }
    return NULL;
}

/* Each value taken exactly once, in increasing order for each consumer;
 * with slow consumers the queue keeps filling, so both sides sleep and
 * wake many times. */
static void many_consumers(int slow)
{
    bench_queue *q = new_queue();
    _Atomic unsigned char *seen = calloc(MANY, sizeof *seen);
    CHECK(q != NULL && seen != NULL);
    if (!q || !seen) {
        free(seen);
        if (q)
            free_queue(q);
        return;
    }
    _Atomic unsigned taken = 0;
    consumer c[CONSUMERS];
    pthread_t t[CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++) {
        c[i] = (consumer){ q, seen, &taken, i % 2 == 0, slow, 0, 0 };
        CHECK(pthread_create(&t[i], NULL, consume, &c[i]) == 0);
    }
    for (uint64_t v = 1; v <= MANY; v++)
        CHECK(bench_queue_push(q, v) == 1);
    /* Everything taken, then close (closing drops what is still queued). */
    while (atomic_load(&taken) < MANY)
        nap_ms(1);
    bench_queue_close(q);
    uint64_t total = 0;
    for (int i = 0; i < CONSUMERS; i++) {
        pthread_join(t[i], NULL);
        total += c[i].count;
        CHECK_MSG(!c[i].out_of_order, "consumer %d took values out of order", i);
    }
    CHECK_MSG(total == MANY, "%llu values taken, %u pushed", (unsigned long long)total, MANY);
    unsigned bad = 0;
    for (unsigned i = 0; i < MANY; i++)
        bad += atomic_load(&seen[i]) != 1;
    CHECK_MSG(bad == 0, "%u values not taken exactly once", bad);
    free(seen);
    free_queue(q);
}

/* Fast consumers, then slow ones that keep the queue full (the same
 * assertions, other interleavings for ThreadSanitizer to look at). */
static void test_many_consumers_each_once(void)
{
    many_consumers(0);
    many_consumers(1);
}

/* The scheduling state of thread tid of this process ('S' asleep, 'R'
 * running...), from /proc/self/task/TID/stat; '?' when unreadable. */
static char thread_state(pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');   /* "tid (comm) S ..." */
    return paren && paren[1] == ' ' && paren[2] ? paren[2] : '?';
}

#define WAKES 64

typedef struct producer {
    bench_queue     *q;
    _Atomic pid_t    tid;
    _Atomic unsigned pushed;   /* values past the full queue's, pushed so far */
    int              rc;       /* 1 while every push returned 1 */
} producer;

static void *produce(void *arg)
{
    producer *pr = arg;
    atomic_store(&pr->tid, gettid());
    pr->rc = 1;
    for (unsigned i = 1; i <= WAKES; i++) {
        if (bench_queue_push(pr->q, BENCH_QUEUE_CAP + i) != 1)
            pr->rc = 0;
        atomic_store(&pr->pushed, i);
    }
    return NULL;
}

/* Waits (bounded: 10 s in 1 ms naps) until the producer is asleep in a
 * push: counted in psleepers, its thread sleeping, with `pushed` values in.
 * The state is observed, not timed. */
static int producer_asleep(producer *pr, unsigned pushed)
{
    for (int i = 0; i < 10000; i++) {
        const pid_t tid = atomic_load(&pr->tid);
        if (tid != 0 && atomic_load(&pr->q->psleepers) == 1 &&
            atomic_load(&pr->pushed) == pushed && thread_state(tid) == 'S')
            return 1;
        nap_ms(1);
    }
    return 0;
}

/* A push into a full queue puts the producer to sleep (it counts itself in
 * psleepers and sleeps on the semaphore, no spinning), and each pop wakes
 * it with exactly one post: it pushes one value and sleeps again, WAKES
 * times; every value comes out once, in order. */
static void test_full_queue_sleeps_and_wakes(void)
{
    bench_queue *q = new_queue();
    CHECK(q != NULL);
    if (!q)
        return;
    for (uint64_t i = 1; i <= BENCH_QUEUE_CAP; i++)
        CHECK(bench_queue_push(q, i) == 1);
    producer pr = { q, 0, 0, -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, produce, &pr) == 0);
    uint64_t next_out = 1;
    for (unsigned w = 0; w < WAKES; w++) {
        if (!producer_asleep(&pr, w)) {
            CHECK_MSG(0, "wake %u: the producer is not asleep on the full queue (psleepers %u, pushed %u)",
                      w, atomic_load(&q->psleepers), atomic_load(&pr.pushed));
            bench_queue_close(q);   /* so that it ends */
            pthread_join(t, NULL);
            free_queue(q);
            return;
        }
        int posts = -1;
        CHECK(sem_getvalue(&q->spaces, &posts) == 0 && posts == 0);   /* nothing posted yet */
        const uint64_t v = bench_queue_try_pop(q);   /* room for one: it wakes */
        CHECK_MSG(v == next_out, "popped %llu, wanted %llu", (unsigned long long)v,
                  (unsigned long long)next_out);
        next_out++;
    }
    /* The last pop let the last value in: the producer ends. */
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(pr.rc == 1);
    CHECK(atomic_load(&pr.pushed) == WAKES);
    CHECK(atomic_load(&q->psleepers) == 0);
    int posts = -1;
    CHECK_MSG(sem_getvalue(&q->spaces, &posts) == 0 && posts == 0,
              "%d posts left over: a wake-up that nobody took", posts);
    /* Still full: the rest, in order, then nothing. */
    unsigned left = 0;
    for (uint64_t v; (v = bench_queue_try_pop(q)) != 0; left++)
        CHECK_MSG(v == next_out++, "got %llu out of order", (unsigned long long)v);
    CHECK_MSG(left == BENCH_QUEUE_CAP, "%u values left, wanted %u", left, BENCH_QUEUE_CAP);
    free_queue(q);
}

int main(void)
{
    RUN(test_order);
    RUN(test_capacity_bound);
    RUN(test_close_wakes_waiters);
    RUN(test_many_consumers_each_once);
    RUN(test_full_queue_sleeps_and_wakes);
    return check_finish();
}

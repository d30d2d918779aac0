/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/emulate.c - asynchronous slots over a blocking workload: a
 * worker state and a service thread a slot (emulate.h).
 *
 * submit() marks the slot busy and posts its semaphore; the slot's thread
 * runs do_one(), takes the time it ended, runs after() (untimed, as the
 * worker pool runs it) and publishes the outcome.  poll() reads it.  Each
 * worker thread's slots share an engine: an eventfd the service threads
 * write to when they finish while the worker waits in await() (only then:
 * a busy worker costs them no system call), beside the pool's wake pipe.
 */
#include "bench/core/emulate.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bench/util/clock.h"

/* A slot's phase: owned by the worker when IDLE or DONE, by its service
 * thread when BUSY; QUIT ends the thread; ORPHAN: closed while its call
 * never returned, the thread's to leave alone. */
enum { EMU_IDLE, EMU_BUSY, EMU_DONE, EMU_QUIT, EMU_ORPHAN };

typedef struct emu_slot emu_slot;

typedef struct emu_engine {
    int               efd;        /* readable when a slot finished while the worker waited */
    _Atomic uint64_t  finished;   /* operations finished, by every slot */
    uint64_t          seen;       /* the worker's: `finished` at its last wait */
    _Atomic int       waiting;    /* the worker waits in await() */
    emu_slot        **slots;      /* the worker's: for inside_since */
    unsigned          n, cap;
} emu_engine;

struct emu_slot {
    const bench_workload *w;      /* the blocking half */
    emu_engine           *eng;
    void                 *state;
    pthread_t             tid;
    sem_t                 go;
    _Atomic int           phase;
    _Atomic uint64_t      since;  /* the call's start while inside it (0: not) */
    bench_code            rc;     /* the outcome, published by phase DONE */
    uint64_t              ended;  /* when do_one() returned, likewise */
};

static void *serve(void *arg)
{
    emu_slot *s = arg;
    const bench_workload *w = s->w;
    for (;;) {
        if (sem_wait(&s->go) != 0)
            continue;   /* EINTR: the only error of a valid semaphore */
        if (atomic_load_explicit(&s->phase, memory_order_acquire) == EMU_QUIT)
            return NULL;
        const uint64_t t0 = bench_now_ns();
        atomic_store_explicit(&s->since, t0, memory_order_relaxed);
        bench_code rc = w->do_one(s->state);
        const uint64_t t1 = bench_now_ns();
        if (w->after && (rc != BENCH_OK || w->after_always))
            rc = w->after(s->state, rc);
        atomic_store_explicit(&s->since, 0, memory_order_relaxed);
        s->rc = rc;
        s->ended = t1;
        emu_engine *e = s->eng;
        int busy = EMU_BUSY;
        if (!atomic_compare_exchange_strong_explicit(&s->phase, &busy, EMU_DONE, memory_order_acq_rel,
                                                     memory_order_acquire))
            return NULL;   /* orphaned by a close: neither the slot nor the engine is ours */
        /* Count it, then look for a waiter; the waiter announces itself,
         * then looks at the count: one of the two sees the other. */
        atomic_fetch_add(&e->finished, 1);
        const uint64_t one = 1;
        if (atomic_load(&e->waiting) && write(e->efd, &one, sizeof one) < 0) {
            /* EAGAIN: the counter is full, so readable already; any other
             * error: the worker's wait still ends at its own bound */
        }
    }
}

static int emu_open(void *ctx, void *engine, unsigned index, void **out, char *err, size_t errlen)
{
    const bench_workload *w = ctx;
    emu_engine *e = engine;
    emu_slot *s = calloc(1, sizeof *s);
    int rc = -1, err_no;

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->w = w;
    s->eng = e;
    atomic_init(&s->phase, EMU_IDLE);
    atomic_init(&s->since, 0);
    if (sem_init(&s->go, 0, 0) != 0) {
        snprintf(err, errlen, "sem_init: %s", strerror(errno));
        goto cleanup;
    }
    if (e->n == e->cap) {
        const unsigned cap = e->cap ? e->cap * 2 : 16;
        emu_slot **grown = realloc(e->slots, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            goto cleanup_sem;
        }
        e->slots = grown;
        e->cap = cap;
    }
    if (w->open(w->ctx, index, &s->state, err, errlen) != 0)
        goto cleanup_sem;
    /* The worker blocks every signal: so does the thread it starts. */
    if ((err_no = pthread_create(&s->tid, NULL, serve, s)) != 0) {
        snprintf(err, errlen, "cannot start the service thread of slot %u: %s", index + 1,
                 strerror(err_no));
        goto cleanup_state;
    }
    e->slots[e->n++] = s;
    *out = s;
    return 0;

cleanup_state:
    w->close(s->state);
cleanup_sem:
    (void)sem_destroy(&s->go);
cleanup:
    free(s);
    return rc;
}

static int emu_submit(void *slot, bench_code *done)
{
    emu_slot *s = slot;
    atomic_store_explicit(&s->phase, EMU_BUSY, memory_order_release);
    if (sem_post(&s->go) != 0) {
        /* EOVERFLOW cannot happen with one post a request; say so if it does */
        atomic_store_explicit(&s->phase, EMU_IDLE, memory_order_relaxed);
        *done = BENCH_CODE_OTHER;
        return 0;
    }
    return 1;
}

static int emu_poll(void *slot, bench_code *done)
{
    emu_slot *s = slot;
    if (atomic_load_explicit(&s->phase, memory_order_acquire) != EMU_DONE)
        return 1;
    *done = s->rc;
    atomic_store_explicit(&s->phase, EMU_IDLE, memory_order_relaxed);
    return 0;
}

static uint64_t emu_ended(const void *slot)
{
    const emu_slot *s = slot;
    return s->ended;
}

static void emu_close(void *slot)
{
    emu_slot *s = slot;
    int busy = EMU_BUSY;
    if (atomic_compare_exchange_strong(&s->phase, &busy, EMU_ORPHAN)) {
        /* Its call never returned: the thread and the state are left to
         * it, as an abandoned worker's are (nothing else touches them). */
        (void)pthread_detach(s->tid);
        return;
    }
    atomic_store_explicit(&s->phase, EMU_QUIT, memory_order_release);
    if (sem_post(&s->go) == 0 && pthread_join(s->tid, NULL) == 0) {
        s->w->close(s->state);
        (void)sem_destroy(&s->go);
        free(s);
        return;
    }
    (void)pthread_detach(s->tid);   /* never woken: left, not freed under it */
}

static void emu_side_bind(void *slot, bench_side *side)
{
    emu_slot *s = slot;
    if (s->w->side_bind)
        s->w->side_bind(s->state, side);
}

/* After poll() saw the slot DONE: what the call left noted in its state. */
static void emu_side_flush(void *slot)
{
    emu_slot *s = slot;
    if (s->w->side_flush)
        s->w->side_flush(s->state);
}

/* --out jtl: the slot's last operation, as its state describes it. */
static void emu_describe(const void *slot, bench_request *r)
{
    const emu_slot *s = slot;
    if (s->w->describe)
        s->w->describe(s->state, r);
}

static int emu_engine_open(void *ctx, unsigned worker, void **out, char *err, size_t errlen)
{
    (void)ctx;
    (void)worker;
    emu_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (e->efd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        free(e);
        return -1;
    }
    atomic_init(&e->finished, 0);
    atomic_init(&e->waiting, 0);
    *out = e;
    return 0;
}

static void emu_engine_close(void *engine)
{
    emu_engine *e = engine;
    (void)close(e->efd);
    free(e->slots);
    free(e);
}

/*
 * The service threads move the operations on by themselves: with max_ns 0
 * there is nothing to do.  Otherwise wait until a slot finishes, the pool's
 * wake pipe is readable or max_ns passed; at once when one finished since
 * the last wait.
 */
static void emu_await(void *engine, int wake_fd, uint64_t max_ns)
{
    emu_engine *e = engine;
    if (!max_ns)
        return;
    atomic_store(&e->waiting, 1);
    if (atomic_load(&e->finished) == e->seen) {
        struct pollfd pf[2] = { { .fd = e->efd, .events = POLLIN }, { .fd = wake_fd, .events = POLLIN } };
        const struct timespec ts = { (time_t)(max_ns / 1000000000ULL), (long)(max_ns % 1000000000ULL) };
        /* -1 (EINTR) or 0 (the bound) alike: the caller looks again */
        if (ppoll(pf, wake_fd >= 0 ? 2 : 1, &ts, NULL) > 0 && (pf[0].revents & POLLIN)) {
            uint64_t n;
            if (read(e->efd, &n, sizeof n) < 0 && errno != EAGAIN)
                n = 0;   /* nothing to empty: EAGAIN's case too */
        }
    }
    atomic_store(&e->waiting, 0);
    e->seen = atomic_load(&e->finished);
}

static uint64_t emu_inside_since(void *engine)
{
    const emu_engine *e = engine;
    uint64_t oldest = 0;
    for (unsigned i = 0; i < e->n; i++) {
        const uint64_t t = atomic_load_explicit(&e->slots[i]->since, memory_order_relaxed);
        if (t && (!oldest || t < oldest))
            oldest = t;
    }
    return oldest;
}

int bench_async_emulate(bench_workload *w, unsigned slots, char *why, size_t len)
{
    static const bench_async_ops ops = {
        .open = emu_open, .submit = emu_submit, .poll = emu_poll, .close = emu_close,
        .engine_open = emu_engine_open, .engine_close = emu_engine_close, .await = emu_await,
        .side_bind = emu_side_bind, .side_flush = emu_side_flush,
        .ended = emu_ended, .inside_since = emu_inside_since, .describe = emu_describe,
    };
    if (slots > BENCH_EMULATED_MAX_SLOTS) {
        snprintf(why, len, "%u in flight would take %u service threads, more than %u", slots, slots,
                 BENCH_EMULATED_MAX_SLOTS);
        return 0;
    }
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++)
        if (w->breakdown[k]) {
            snprintf(why, len, "asynchronous slots keep no breakdown by %s", w->breakdown[k]->dimension);
            return 0;
        }
    /* No drain bound: a call that does not end is the stuck-worker rule's
     * (inside_since), as in the worker pool. */
    w->async = (bench_async){ &ops, w, slots, UINT64_MAX };
    return 1;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/pool_int.h - INTERNAL to the worker pool: not a public header.
 *
 * Only the pool's own files include it (pool.c, closed.c, open.c, queue.c,
 * async.c, dispatch.c, sampler.c); everything else uses bench/core/pool.h.  It
 * holds the run's private state (struct pool, struct worker), the functions
 * those files call in one another (prefix pool_), and the helpers of the
 * hot paths, kept `static inline` here so each engine's loop compiles them
 * in as it did when the pool was one file.
 *
 *   pool.c      bench_pool_run: set-up, the start gate, the join, the merge
 *   closed.c    the blocking closed loop, and the ramp of active workers
 *   open.c      the non-blocking workers that block on the queue
 *   queue.c     the bounded request queue (bench/core/queue.h, no lock) and the wake pipe
 *   async.c     the asynchronous slots engine
 *   dispatch.c  the dispatcher thread (times from bench/core/schedule.h)
 *   sampler.c   the per-second sampler
 */
#ifndef BENCH_POOL_INT_H
#define BENCH_POOL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/util/clock.h"
#include "bench/core/hist.h"
#include "bench/core/pool.h"
#include "bench/core/queue.h"
#include "bench/core/schedule.h"

#define ERR_SLOTS 32                         /* distinct codes kept per worker */
#define POLL_NS (100ULL * 1000 * 1000)       /* sampler wakes at least this often */
#define STAGE_NS (20ULL * 1000 * 1000)       /* blocking ramps move at least this often */
#define LATE_NS (1000ULL * 1000)             /* issued this late counts as late */
#define SEC_RING 16                          /* whole seconds a worker's record keeps */

typedef struct pool pool;

/* A worker's error table, read live by the sampler: the owner stores a new
 * slot's code, then its count with release, so a reader that sees the count
 * (acquire) sees the code. */
typedef struct live_err {
    _Atomic bench_code code;
    _Atomic uint64_t   count;
} live_err;

/* A worker's record of one class of a breakdown (workload.h): owner only,
 * read after the join.  The histogram is made on the class's first
 * measured success, so classes a worker never sees cost it nothing. */
typedef struct class_rec {
    uint64_t    ops, errors;
    bench_hist *hist;
    bench_err   errs[ERR_SLOTS];
} class_rec;

typedef struct worker {
    pool       *pool;
    pthread_t   tid;
    unsigned    index;
    int         started;
    void       *state;
    int         bounded;        /* the run is bounded by iterations */
    uint64_t    quota;          /* measured operations to do when bounded (may be 0) */
    bench_hist *hist;
    /* latency of failed measured operations: made by the owner at the
     * first, published (release) so the sampler can read it live */
    bench_hist *_Atomic failed;
    int         failed_lost;        /* it could not be made */
    bench_hist *service, *queue;    /* non-blocking only */
    bench_side  side;               /* the workload's side metrics (workload.h) */
    class_rec  *by[BENCH_BREAKDOWNS];   /* per class of each breakdown (NULL: none) */
    int         by_lost;            /* a class histogram could not be made */
    unsigned    nslots;             /* asynchronous slots this worker multiplexes */
    void       *engine;             /* what those slots share (async engine_open), or NULL */
    unsigned    window;             /* self-paced: this worker's share of --inflight */
    unsigned    busy;               /* self-paced: its operations in flight */
    /* read by the sampler while the worker runs */
    _Atomic uint64_t warm_ops;  /* operations completed during warm-up */
    _Atomic uint64_t warm_errs;
    _Atomic uint64_t ops;       /* measured operations, errors included */
    _Atomic uint64_t errors;    /* measured operations that failed */
    _Atomic int      done;
    /* Self-paced runs (no dispatcher): the requests this worker gave itself
     * (issued and scheduled at once), those of them in the measured part,
     * and the scheduled requests it finished; counted here, by the owner,
     * instead of in the pool's shared counters, whose cache line would pass
     * between the threads on every request.  Readers add them up
     * (pool_issued ...). */
    _Atomic uint64_t own_issued, own_measured, own_completed;
    live_err         errs[ERR_SLOTS];
    /* The measured run's whole seconds, so that each per-second sample
     * counts the operations that completed in its own second however late
     * the sampler woke: at its first measured operation past a boundary
     * (measure_ns + b seconds), the owner records its ops and errors before
     * it, the slot tagged with b, then publishes b (release) before that
     * operation counts (pool_second_passed, pool_at_second). */
    uint64_t         sec_next_ns;   /* owner only: the next boundary's time (0: not yet known) */
    _Atomic uint64_t sec_passed;    /* the last boundary passed (0: none) */
    struct {
        _Atomic uint64_t tag, ops, errs;
    } sec_ring[SEC_RING];
    /* Since when the worker is inside a call of the workload (0: it is not;
     * CALL_ABANDONED: the pool gave it up).  The worker stores the call's
     * start (release) before it and takes it back by an exchange after it;
     * the pool abandons it by a compare-and-swap of that start, so exactly
     * one of them wins: the worker, or the pool, which then owns every
     * record of the worker (call_enter, call_leave, pool_abandon). */
    _Atomic uint64_t in_call;
    /* owner only until joined */
    uint64_t    last_done_ns;
    int         open_failed;
    char        why[200];
    int         abandoned;      /* the pool's: given up inside a call, never joined */
} __attribute__((aligned(64))) worker;

struct pool {
    const bench_workload *w;
    worker           *workers;
    unsigned          n;
    /* Start gate: workers arrive once opened; the sampler releases them
     * together once every started worker has arrived. */
    pthread_mutex_t   gate_mu;
    pthread_cond_t    gate_cv;
    unsigned          arrived;
    int               released;
    _Atomic int       stop;
    _Atomic int       abandon;       /* a worker could not open */
    uint64_t          start_ns;      /* written under gate_mu before release */
    uint64_t          measure_ns;
    uint64_t          stop_ns;       /* when the sampler ended the run (0: running) */
    const bench_load *load;
    const bench_flag *interrupt;     /* Ctrl-C */
    _Atomic unsigned  active;        /* blocking ramps: workers allowed to run */
    /* blocking ramps: the fewest and most workers allowed in the measured
     * part (pool_set_active's thread alone writes them; read after the join) */
    unsigned          ramp_min, ramp_max;
    int               ramp_seen;
    int               self_paced;    /* asynchronous window without a dispatcher */
    /* non-blocking: the request queue (intended start times, ns; no lock) */
    bench_queue       queue;
    pthread_t         dispatcher;
    int               has_dispatcher;
    _Atomic uint64_t  issued, completed;    /* requests handed out / finished (all) */
    _Atomic uint64_t  scheduled_measured, late;
    _Atomic uint64_t  scheduled_now;        /* issued so far: a window's per-second targets */
    uint64_t          disp_next;            /* the dispatcher's first due time not issued
                                               (UINT64_MAX: none); read after the join */
    uint64_t          disp_idx;             /* arrivals: disp_next's index */
    /* Arrivals of a single pass: the dispatcher has issued the last
     * (release); once every issued request completed, the sampler ends the
     * run (ran_out) and the measured part ends with the last completion. */
    _Atomic int       disp_over;
    int               ran_out;
    /* Asynchronous engines that wait (await): a pipe whose read end is
     * readable when a request was queued while some thread waited. */
    int               wake[2];
    _Atomic unsigned  sleepers;             /* threads waiting on wake[0] */
    /* Workers abandoned inside a call, and the first one's reason (the
     * sampler's and the join's: one thread) */
    unsigned          nabandoned;
    char              stuck_why[160];
};

/* ---- a worker inside a call (every engine) ----
 *
 * The call-abandonment protocol.  A module or a server may never return
 * from a call; hsmbench must still stop, report and exit.  So every worker
 * publishes in `in_call` since when it is inside a call of the workload:
 * call_enter stores the call's start (release) before do_one, an
 * asynchronous submit, poll or await; call_leave exchanges it with 0 after
 * the call and its `after`.  The sampler at each 100 ms wake-up, and the
 * join in pool_stop every millisecond, look at it (pool_abandon_stuck): a
 * call older than bench_load.stuck_ns (--stuck-after, 10 s; rest:
 * --timeout + 5 s), or after a signal any call BENCH_STOP_GRACE_NS (5 s)
 * after the stop, or at once after a second signal, is taken over by a
 * compare-and-swap of that very start with CALL_ABANDONED.
 *
 * Exactly one side wins.  The worker's exchange returns the start (it goes
 * on as usual) or CALL_ABANDONED (it returns at once, touching nothing but
 * its own record).  The pool's CAS acquires what the worker released at
 * call_enter, so the worker's figures up to its last completed operation
 * are merged race-free.  The abandoned thread is detached, never joined;
 * its workload state is not closed, and the pool's worker array and wake
 * pipe stay allocated for it, since it may still come back and write its
 * own record.  The run is `failed` (interrupted when a signal stopped it)
 * with the first worker's "worker N stuck in CALL for S s"
 * (bench_workload.call names the call); bench_outcome.stuck counts them,
 * and the commands run nothing more after it.  What that means for the
 * token (keys listed as left, the module never finalised) is p11/'s:
 * p11_bounded in p11/leftover.c, p11_target.abandoned in p11/target.h. */

#define CALL_ABANDONED UINT64_MAX

/* The worker enters a call of the workload at `t0` (its clock's reading). */
static inline void call_enter(worker *wk, uint64_t t0)
{
    atomic_store_explicit(&wk->in_call, t0, memory_order_release);
}

/* The call returned: 0, or 1 when the pool abandoned the worker meanwhile;
 * the worker must then return at once and touch nothing of the pool. */
static inline int call_leave(worker *wk)
{
    return atomic_exchange_explicit(&wk->in_call, 0, memory_order_acq_rel) == CALL_ABANDONED;
}

/* ---- the schedule ---- */

/* Whether a non-blocking run's due times come from a schedule (a rate, a
 * ramp, recorded arrivals), not from a window alone. */
static inline int pool_by_schedule(const bench_load *l)
{
    return l->rate > 0 || l->stages || l->arrivals;
}

/* The run's i-th recorded arrival, on the clock (UINT64_MAX: none). */
static inline uint64_t pool_arrival_due(const pool *p, uint64_t i)
{
    const uint64_t d = bench_arrivals_due(p->load->arrivals, i);
    return d > UINT64_MAX - p->start_ns ? UINT64_MAX : p->start_ns + d;
}

/* ---- hot-path helpers (every engine) ---- */

static inline void relaxed_inc(_Atomic uint64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Count n errors of `code` in a table of ERR_SLOTS (a worker's, or the
 * merge's of twice that, whose first ERR_SLOTS are the ones used). */
static inline void err_count(bench_err *tab, bench_code code, uint64_t n)
{
    for (size_t i = 0; i < ERR_SLOTS; i++) {
        if (tab[i].count == 0) {
            tab[i].code = code;
            tab[i].count = n;
            return;
        }
        if (tab[i].code == code) {
            tab[i].count += n;
            return;
        }
    }
    /* Full: fold into the last slot, renamed "other" so nothing is lost. */
    tab[ERR_SLOTS - 1].code = BENCH_CODE_OTHER;
    tab[ERR_SLOTS - 1].count += n;
}

/* The owner counts one error of `code`; err_count's rules, readable live. */
static inline void live_err_count(live_err *tab, bench_code code)
{
    for (size_t i = 0; i < ERR_SLOTS; i++) {
        const uint64_t n = atomic_load_explicit(&tab[i].count, memory_order_relaxed);
        const bench_code c = atomic_load_explicit(&tab[i].code, memory_order_relaxed);
        if (n && c != code && i < ERR_SLOTS - 1)
            continue;
        if (!n || c != code)   /* a new slot, or the last one folded into "other" */
            atomic_store_explicit(&tab[i].code, n ? BENCH_CODE_OTHER : code, memory_order_relaxed);
        atomic_store_explicit(&tab[i].count, n + 1, memory_order_release);
        return;
    }
}

/* dst += a worker's live table (any thread, any time). */
static inline void live_err_fold(bench_err *dst, const live_err *tab)
{
    for (size_t j = 0; j < ERR_SLOTS; j++) {
        const uint64_t n = atomic_load_explicit(&tab[j].count, memory_order_acquire);
        if (!n)
            break;
        err_count(dst, atomic_load_explicit(&tab[j].code, memory_order_relaxed), n);
    }
}

/* sampler.c: the worker's first measured operation past one or more
 * whole seconds of the run (t_done >= wk->sec_next_ns), before it counts. */
void pool_second_passed(worker *wk, uint64_t t_done);

/* JMeter's ramp-up (bench_load.ramp_up_ns): when worker `index` begins,
 * in ns after the release; 0 without one. */
static inline uint64_t pool_ramp_offset(const pool *p, unsigned index)
{
    return p->n > 1 ? p->load->ramp_up_ns * index / p->n : 0;
}

/* What every measured or warm-up operation updates, in either mode. */
static inline void account(worker *wk, bench_code rc, uint64_t latency, int warm, uint64_t t_done)
{
    if (warm) {
        /* warm-up: shown live, never in results */
        relaxed_inc(&wk->warm_ops);
        if (rc != BENCH_OK)
            relaxed_inc(&wk->warm_errs);
        return;
    }
    if (t_done >= wk->sec_next_ns)
        pool_second_passed(wk, t_done);
    relaxed_inc(&wk->ops);
    wk->last_done_ns = t_done;
    if (rc == BENCH_OK) {
        bench_hist_record(wk->hist, latency);
    } else {
        relaxed_inc(&wk->errors);
        live_err_count(wk->errs, rc);
        /* JMeter counts failed samples in its Avg/Min/Max: keep their latency too */
        bench_hist *f = atomic_load_explicit(&wk->failed, memory_order_relaxed);
        if (!f && !wk->failed_lost) {
            if ((f = bench_hist_new()))
                atomic_store_explicit(&wk->failed, f, memory_order_release);
            else
                wk->failed_lost = 1;
        }
        if (f)
            bench_hist_record(f, latency);
    }
}

/*
 * A measured operation of one class of each breakdown (the state's
 * class_of; asynchronous slots keep no breakdown): the same outcome and latency
 * as account() got.  After the operation, outside the timed path; returns
 * 1 when it allocated (the closed loop then restarts its clock).
 */
static inline int account_by(worker *wk, const void *st, bench_code rc, uint64_t latency)
{
    int allocated = 0;
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++) {
        const bench_breakdown *b = wk->pool->w->breakdown[k];
        if (!wk->by[k])
            continue;
        unsigned c = b->class_of(st);
        if (c >= b->n)
            c = b->n - 1;    /* a workload's bug: still counted, in its last class */
        class_rec *r = &wk->by[k][c];
        r->ops++;
        if (rc != BENCH_OK) {
            r->errors++;
            err_count(r->errs, rc, 1);
            continue;
        }
        if (!r->hist) {
            allocated = 1;
            if (!(r->hist = bench_hist_new())) {
                wk->by_lost = 1;
                continue;
            }
        }
        bench_hist_record(r->hist, latency);
    }
    return allocated;
}

/*
 * A scheduled request finished (either non-blocking engine): its response
 * time counts from when it was due; service time from when it started.
 * st is the state that did it (a blocking worker's, or an asynchronous slot).
 */
static inline void account_scheduled(worker *wk, bench_code rc, uint64_t due, uint64_t started,
                                     uint64_t done, const void *st)
{
    const int warm = due < wk->pool->measure_ns;
    if (wk->pool->self_paced)
        relaxed_inc(&wk->own_completed);
    else
        atomic_fetch_add_explicit(&wk->pool->completed, 1, memory_order_relaxed);
    account(wk, rc, done - due, warm, done);
    if (!warm)
        (void)account_by(wk, st, rc, done - due);
    if (!warm && rc == BENCH_OK) {
        bench_hist_record(wk->service, done - started);
        bench_hist_record(wk->queue, started > due ? started - due : 0);
    }
}

static inline void pause_ns(uint64_t ns)
{
    bench_sleep_until_ns(bench_now_ns() + ns);
}

/* Non-blocking: requests issued (== scheduled so far), finished, and
 * scheduled in the measured part: the pool's counters plus the workers'
 * own (self-paced runs count there).  Any thread, any time. */
static inline uint64_t pool_sum_own(const pool *p, size_t field)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < p->n; i++)
        n += atomic_load_explicit((const _Atomic uint64_t *)((const char *)&p->workers[i] + field),
                                  memory_order_relaxed);
    return n;
}
static inline uint64_t pool_issued(const pool *p)
{
    return atomic_load(&p->issued) + pool_sum_own(p, offsetof(worker, own_issued));
}
static inline uint64_t pool_completed(const pool *p)
{
    return atomic_load(&p->completed) + pool_sum_own(p, offsetof(worker, own_completed));
}
static inline uint64_t pool_scheduled_now(const pool *p)
{
    return atomic_load(&p->scheduled_now) + pool_sum_own(p, offsetof(worker, own_issued));
}
static inline uint64_t pool_scheduled_measured(const pool *p)
{
    return atomic_load(&p->scheduled_measured) + pool_sum_own(p, offsetof(worker, own_measured));
}

/* ---- pool.c ---- */

/* The end of the measured part, after the join (see bench_outcome.duration_s). */
uint64_t pool_measured_end(const pool *p);

/* ---- closed.c ---- */

/* The blocking closed loop of one worker, from the release to the end. */
void pool_closed_loop(worker *wk);
/* Blocking ramps: set how many workers the profile wants at `now`. */
void pool_set_active(pool *p, uint64_t now);

/* ---- open.c ---- */

/* A non-blocking worker without slots: take a request, do it, repeat. */
void pool_open_loop(worker *wk);

/* ---- queue.c ---- (the queue itself: bench/core/queue.h) */

/* Hand one request to the workers (waits while the queue is full) and wake
 * a sleeping asynchronous thread.  0 when the run stopped instead. */
int  pool_queue_push(pool *p, uint64_t intended);
/* Make the wake pipe readable (a full pipe is readable already). */
void pool_wake_sleepers(pool *p);
/* Empty the wake pipe before waiting on it again. */
void pool_wake_drain(pool *p);

/* ---- async.c ---- */

/* After the join: record in h, as in pool.c's tally of the dropped, the
 * requests due at or after measure_ns that the worker's slots still held
 * when the drain gave up (they never completed): end - due each. */
uint64_t pool_async_left(const worker *wk, bench_hist *h, uint64_t measure_ns, uint64_t end);

/* Whether this run uses the workload's asynchronous slots. */
int  pool_use_async(const pool *p);
/* Whether its threads pace themselves (a window, no rate): no dispatcher. */
int  pool_is_self_paced(const pool *p);
/* Open a worker's share of the slots: 0, -1 when one could not be opened
 * (wk->why says why), 1 when stopped early. */
int  pool_async_open(worker *wk);
void pool_async_loop(worker *wk);
void pool_async_close(worker *wk);

/* ---- dispatch.c ---- */

/* The dispatcher thread's body (arg: the pool). */
void *pool_dispatch_main(void *arg);
/* The schedule's first due time of the run (its start for a fixed rate). */
uint64_t pool_first_due(const pool *p);

/* ---- sampler.c ---- */

/* The sampler loop, in the calling thread until the run is over; stops the
 * run (pool_stop) before its last sample.  -1 when out of memory. */
int  pool_sample_loop(pool *p, const bench_load *load, const bench_flag *interrupt,
                      bench_second_fn on_second, void *arg, bench_outcome *out);

/* ---- pool.c ---- */

/* Stop the run: the stop flag, the queue closed, every thread joined but
 * those abandoned inside a call (pool_abandon_stuck), which are detached. */
void pool_stop(pool *p);
/* Abandon every worker inside a call since stuck_ns or more at `now` (the
 * sampler, the join): how many were.  With `all`, every worker inside a
 * call, however recently it entered. */
unsigned pool_abandon_stuck(pool *p, uint64_t now, uint64_t stuck_ns, int all);

#endif

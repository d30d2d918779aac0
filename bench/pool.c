/*
 * bench/pool.c - the worker pools and the per-second sampler.
 *
 * Blocking (closed loop): each worker starts its next operation as soon as
 * the last returns.  Hot path: one do_one(), one clock read, one histogram
 * record and two relaxed counter stores, all on memory the worker owns;
 * nothing is shared between workers but the read-only stop flag.
 *
 * Non-blocking (open loop): a dispatcher thread issues requests on a
 * schedule (a rate, a ramp of rates, or a window of K outstanding) into a
 * bounded queue; workers take them and execute them.  Latency runs from the
 * moment each request *should* have started, so time spent waiting behind a
 * slow token counts (coordinated omission, as wrk2 corrects it); service
 * time and queueing delay are kept apart too.  The queue is bounded: when
 * the token falls behind, requests are issued late (and counted), and those
 * still waiting at the end are counted as dropped, never silently lost.
 *
 * Asynchronous slots (workload.h): each worker multiplexes several
 * operations in flight instead of blocking in one; with an engine that can
 * wait (await), it sleeps in the engine until an operation completes or a
 * request is queued (the wake pipe).  A window without a rate needs no
 * dispatcher there: each worker keeps its share of the window full.
 */
#include "bench/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/clock.h"

#define ERR_SLOTS 32                         /* distinct codes kept per worker */
#define POLL_NS (100ULL * 1000 * 1000)       /* sampler wakes at least this often */
#define STAGE_NS (20ULL * 1000 * 1000)       /* blocking ramps move at least this often */
#define QUEUE_CAP 4096                       /* non-blocking: requests waiting at most */
#define LATE_NS (1000ULL * 1000)             /* issued this late counts as late */

typedef struct pool pool;

/* A worker's error table, read live by the sampler: the owner stores a new
 * slot's code, then its count with release, so a reader that sees the count
 * (acquire) sees the code. */
typedef struct live_err {
    _Atomic bench_code code;
    _Atomic uint64_t   count;
} live_err;

typedef struct worker {
    pool       *pool;
    pthread_t   tid;
    unsigned    index;
    int         started;
    void       *state;
    int         bounded;        /* the run is bounded by iterations */
    uint64_t    quota;          /* measured operations to do when bounded (may be 0) */
    bench_hist *hist;
    bench_hist *service, *queue;    /* non-blocking only */
    unsigned    nslots;             /* asynchronous slots this worker multiplexes */
    void       *engine;             /* what those slots share (aengine_open), or NULL */
    unsigned    window;             /* self-paced: this worker's share of --inflight */
    unsigned    busy;               /* self-paced: its operations in flight */
    /* read by the sampler while the worker runs */
    _Atomic uint64_t warm_ops;  /* operations completed during warm-up */
    _Atomic uint64_t warm_errs;
    _Atomic uint64_t ops;       /* measured operations, errors included */
    _Atomic uint64_t errors;    /* measured operations that failed */
    _Atomic int      done;
    live_err         errs[ERR_SLOTS];
    /* owner only until joined */
    uint64_t    last_done_ns;
    int         open_failed;
    char        why[200];
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
    const bench_load *load;
    const bench_flag *interrupt;     /* Ctrl-C */
    _Atomic unsigned  active;        /* blocking ramps: workers allowed to run */
    int               self_paced;    /* asynchronous window without a dispatcher */
    /* non-blocking: the request queue (intended start times, ns) */
    pthread_mutex_t   qmu;
    pthread_cond_t    q_nonempty, q_nonfull;
    uint64_t          q[QUEUE_CAP];
    size_t            qhead, qcount;
    int               qclosed;
    pthread_t         dispatcher;
    int               has_dispatcher;
    _Atomic uint64_t  issued, completed;    /* requests handed out / finished (all) */
    _Atomic uint64_t  scheduled_measured, late;
    _Atomic uint64_t  scheduled_now;        /* scheduled so far, for per-second targets */
    /* Asynchronous engines that wait (await): a pipe whose read end is
     * readable when a request was queued while some thread waited. */
    int               wake[2];
    _Atomic unsigned  sleepers;             /* threads waiting on wake[0] */
};

static inline void relaxed_inc(_Atomic uint64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static void err_count(bench_err *tab, bench_code code, uint64_t n)
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
static void live_err_count(live_err *tab, bench_code code)
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
static void live_err_fold(bench_err *dst, const live_err *tab)
{
    for (size_t j = 0; j < ERR_SLOTS; j++) {
        const uint64_t n = atomic_load_explicit(&tab[j].count, memory_order_acquire);
        if (!n)
            break;
        err_count(dst, atomic_load_explicit(&tab[j].code, memory_order_relaxed), n);
    }
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
    relaxed_inc(&wk->ops);
    wk->last_done_ns = t_done;
    if (rc == BENCH_OK) {
        bench_hist_record(wk->hist, latency);
    } else {
        relaxed_inc(&wk->errors);
        live_err_count(wk->errs, rc);
    }
}

static void pause_ns(uint64_t ns)
{
    bench_sleep_until_ns(bench_now_ns() + ns);
}

/* Make the wake pipe readable (a full pipe is readable already). */
static void wake_sleepers(pool *p)
{
    const char b = 1;
    ssize_t n = write(p->wake[1], &b, 1);
    (void)n;   /* EAGAIN: full, so readable: nothing is lost */
}

/* Empty the wake pipe before waiting on it again. */
static void wake_drain(pool *p)
{
    char buf[64];
    while (read(p->wake[0], buf, sizeof buf) == (ssize_t)sizeof buf)
        ;
}

static void closed_loop(worker *wk)
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
    const int after_always = w->after_always;
    void *const state = wk->state;

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
        bench_code rc = do_one(state);
        const uint64_t t1 = bench_now_ns();
        const uint64_t start = t0;
        t0 = t1;
        if (after && (rc != BENCH_OK || after_always)) {
            /* Untimed: the next operation's clock starts after it. */
            rc = after(state, rc);
            t0 = bench_now_ns();
        }
        int warm = start < measure;
        if (warm_left) {
            warm_left--;
            warm = 1;
        }
        if (!warm)
            done++;
        account(wk, rc, t1 - start, warm, t1);
        if (think) {
            pause_ns(think);       /* k6's sleep(): not part of any operation */
            t0 = bench_now_ns();
        }
    }
}

/* Take the next request's intended start time; 0 when the run is over. */
/* With qmu held: the next request's due time, or 0 when none is queued. */
static uint64_t queue_take_locked(pool *p)
{
    if (!p->qcount || p->qclosed)
        return 0;
    uint64_t t = p->q[p->qhead];
    p->qhead = (p->qhead + 1) % QUEUE_CAP;
    p->qcount--;
    pthread_cond_signal(&p->q_nonfull);
    return t;
}

static uint64_t queue_pop(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    while (p->qcount == 0 && !p->qclosed)
        pthread_cond_wait(&p->q_nonempty, &p->qmu);
    uint64_t t = queue_take_locked(p);
    pthread_mutex_unlock(&p->qmu);
    return t;
}

/*
 * A scheduled request finished (either non-blocking engine): its response
 * time counts from when it was due; service time from when it started.
 */
static void account_scheduled(worker *wk, bench_code rc, uint64_t due, uint64_t started,
                              uint64_t done)
{
    const int warm = due < wk->pool->measure_ns;
    atomic_fetch_add_explicit(&wk->pool->completed, 1, memory_order_relaxed);
    account(wk, rc, done - due, warm, done);
    if (!warm && rc == BENCH_OK) {
        bench_hist_record(wk->service, done - started);
        bench_hist_record(wk->queue, started > due ? started - due : 0);
    }
}

static void open_loop(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    void *const state = wk->state;

    for (;;) {
        const uint64_t intended = queue_pop(p);
        if (!intended)
            break;
        const uint64_t t0 = bench_now_ns();
        bench_code rc = w->do_one(state);
        const uint64_t t1 = bench_now_ns();
        if (w->after && (rc != BENCH_OK || w->after_always))
            rc = w->after(state, rc);
        account_scheduled(wk, rc, intended, t0, t1);
    }
}

/* Hand one request to the workers; waits while the queue is full. */
static int queue_push(pool *p, uint64_t intended)
{
    pthread_mutex_lock(&p->qmu);
    while (p->qcount == QUEUE_CAP && !atomic_load(&p->stop))
        pthread_cond_wait(&p->q_nonfull, &p->qmu);
    int ok = !atomic_load(&p->stop);
    if (ok) {
        p->q[(p->qhead + p->qcount) % QUEUE_CAP] = intended;
        p->qcount++;
        pthread_cond_signal(&p->q_nonempty);
    }
    pthread_mutex_unlock(&p->qmu);
    /* A thread that found the queue empty (under qmu, after counting
     * itself a sleeper) waits on the pipe: one byte wakes it. */
    if (ok && p->wake[1] >= 0 && atomic_load(&p->sleepers) > 0)
        wake_sleepers(p);
    return ok;
}

/* The current schedule: a fixed rate, or the ramp's rate at time t. */
static double rate_at(const pool *p, uint64_t t)
{
    const bench_load *l = p->load;
    if (l->stages)
        return bench_stages_at(l->stages, t > p->start_ns ? t - p->start_ns : 0);
    return l->rate;
}

/*
 * When the next request falls due after `from`: where the schedule's rate
 * accumulates one more request.  Integrating in steps of at most 1 ms keeps
 * ramps honest (at the foot of a ramp the rate is tiny, and 1/rate there
 * would skip the whole ramp).  UINT64_MAX when nothing falls due by `end`.
 */
static uint64_t next_due(const pool *p, uint64_t from, uint64_t end)
{
    const uint64_t step = 1000000;    /* 1 ms */
    double need = 1.0;
    uint64_t t = from;
    while (t < end) {
        double r = rate_at(p, t);
        if (r > 0 && need / r * 1e9 <= (double)step)
            return t + (uint64_t)(need / r * 1e9);
        need -= r * ((double)step / 1e9);
        t += step;
    }
    return UINT64_MAX;
}

static void *dispatch_main(void *arg)
{
    pool *p = arg;
    /* The schedule's accuracy is the timer's: ask for no slack on wake-ups
     * (Linux adds 50 µs by default).  Best effort. */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    const bench_load *l = p->load;
    uint64_t next = p->start_ns;
    const int by_rate = l->rate > 0 || l->stages;

    /* The schedule runs to the end of the run (and a little past, so the
     * last due requests are counted, issued or not). */
    const uint64_t horizon = l->duration_ns ? p->measure_ns + l->duration_ns + BENCH_NS_PER_S
                                            : UINT64_MAX;
    if (by_rate)
        next = l->stages ? next_due(p, p->start_ns, horizon) : p->start_ns;
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        uint64_t now = bench_now_ns();
        if (by_rate) {
            if (next == UINT64_MAX) {
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
        if (!queue_push(p, next))
            break;
        atomic_fetch_add_explicit(&p->issued, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&p->scheduled_now, 1, memory_order_relaxed);
        if (next >= p->measure_ns) {
            atomic_fetch_add_explicit(&p->scheduled_measured, 1, memory_order_relaxed);
            if (issue_at > next + LATE_NS)
                atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
        }
        if (by_rate)
            next = next_due(p, next, horizon);
    }
    /* Requests due before the end but never issued are dropped, not lost:
     * count them from the schedule. */
    if (by_rate) {
        uint64_t end = bench_now_ns();
        while (next < end) {
            if (next >= p->measure_ns)
                atomic_fetch_add_explicit(&p->scheduled_measured, 1, memory_order_relaxed);
            next = next_due(p, next, end);
        }
    }
    return NULL;
}

/* Take a request if one is queued, without waiting; 0 when none. */
static uint64_t queue_try_pop(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    uint64_t t = queue_take_locked(p);
    pthread_mutex_unlock(&p->qmu);
    return t;
}

/* One operation in flight on an asynchronous slot. */
typedef struct aslot {
    void    *st;
    int      busy;
    uint64_t intended, submitted;
} aslot;

static void async_done(worker *wk, aslot *s, bench_code rc)
{
    account_scheduled(wk, rc, s->intended, s->submitted, bench_now_ns());
    s->busy = 0;
    wk->busy--;
}

/*
 * A window of K outstanding requests and no rate, on asynchronous slots:
 * no dispatcher, each thread keeps its share of the window full itself,
 * a request falling due the moment a slot frees (as the dispatcher would
 * issue it).  A rate or a ramp needs the dispatcher's schedule.
 */
static int is_self_paced(const pool *p)
{
    const bench_load *l = p->load;
    return l->mode == BENCH_MODE_NONBLOCKING && p->w->asubmit != NULL && l->inflight &&
           l->rate <= 0 && !l->stages;
}

/* The next request for a free slot: its due time, or 0 when none is due. */
static uint64_t async_take(worker *wk)
{
    pool *p = wk->pool;
    if (!p->self_paced)
        return queue_try_pop(p);
    if (wk->busy >= wk->window)
        return 0;
    const uint64_t now = bench_now_ns();
    atomic_fetch_add_explicit(&p->issued, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->scheduled_now, 1, memory_order_relaxed);
    if (now >= p->measure_ns)
        atomic_fetch_add_explicit(&p->scheduled_measured, 1, memory_order_relaxed);
    return now;
}

/* Whether a request is queued (without taking it). */
static int queue_has(pool *p)
{
    pthread_mutex_lock(&p->qmu);
    int has = p->qcount > 0 && !p->qclosed;
    pthread_mutex_unlock(&p->qmu);
    return has;
}

#define AWAIT_BUSY_NS (10ULL * 1000 * 1000)   /* every slot busy: check for the end this often */

/*
 * Nothing moved in the last pass: wait in the engine for an operation to
 * complete, and, when a slot is free, for a request to be queued too.
 */
static void async_wait(worker *wk, int slot_free)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    if (!slot_free) {
        w->await(wk->engine, -1, AWAIT_BUSY_NS);
        return;
    }
    /* Count ourselves a sleeper, then look at the queue: a request queued
     * after that look finds the count and writes to the pipe. */
    atomic_fetch_add(&p->sleepers, 1);
    wake_drain(p);
    if (!queue_has(p) && !atomic_load_explicit(&p->stop, memory_order_relaxed))
        w->await(wk->engine, p->wake[0], POLL_NS);
    atomic_fetch_sub(&p->sleepers, 1);
}

/*
 * Non-blocking over asynchronous slots: one thread keeps several operations
 * in flight, submitting queued requests to idle slots and polling busy ones.
 * An engine with await() is moved on after every pass and waited on when a
 * pass did nothing; otherwise the thread pauses briefly.
 */
static void async_loop(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    aslot *slots = wk->state;
    const int paced = p->self_paced;

    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        /* slot_free: a slot waits for the dispatcher's next request */
        int progress = 0, slot_free = 0;
        for (unsigned i = 0; i < wk->nslots; i++) {
            aslot *s = &slots[i];
            bench_code rc = BENCH_OK;
            if (s->busy && w->apoll(s->st, &rc) == 0) {
                async_done(wk, s, rc);
                progress = 1;
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
                if (w->asubmit(s->st, &rc) == 0)
                    async_done(wk, s, rc);
                progress = 1;
            }
        }
        if (w->await) {
            if (progress)
                w->await(wk->engine, -1, 0);
            else
                async_wait(wk, slot_free);
        } else if (!progress) {
            pause_ns(20000);   /* nothing due and nothing finished: yield the CPU */
        }
    }
    /* Let what is in flight finish (bounded), so sessions close cleanly. */
    uint64_t give_up = bench_now_ns() + (w->adrain_ns ? w->adrain_ns : BENCH_NS_PER_S);
    for (unsigned i = 0; i < wk->nslots; i++) {
        bench_code rc;
        while (slots[i].busy && bench_now_ns() < give_up) {
            if (w->apoll(slots[i].st, &rc) == 0)
                async_done(wk, &slots[i], rc);
            else if (w->await)
                w->await(wk->engine, -1, BENCH_NS_PER_S / 100);
            else
                pause_ns(20000);
        }
    }
}

/* Open this worker's share of the asynchronous slots: 0, -1 when one
 * could not be opened (why says why), 1 when stopped early. */
static int async_open(worker *wk)
{
    pool *p = wk->pool;
    const bench_workload *w = p->w;
    unsigned total = w->aslots > p->n ? w->aslots : p->n;
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
    if (w->aengine_open &&
        w->aengine_open(w->actx, wk->index, &wk->engine, wk->why, sizeof wk->why) != 0) {
        wk->engine = NULL;
        return -1;
    }
    for (unsigned i = 0; i < wk->nslots; i++) {
        /* Slots may take a while to set up (a session, a key each): stop
         * at Ctrl-C, or when another worker could not open. */
        if (*p->interrupt || atomic_load(&p->abandon))
            return 1;   /* stopped, not failed: the reason is elsewhere */
        if (w->aopen(w->actx, wk->engine, first + i, &slots[i].st, wk->why, sizeof wk->why) != 0)
            return -1;
    }
    return 0;
}

static void async_close(worker *wk)
{
    const bench_workload *w = wk->pool->w;
    aslot *slots = wk->state;
    for (unsigned i = 0; slots && i < wk->nslots; i++)
        if (slots[i].st)
            w->aclose(slots[i].st);
    free(slots);
    wk->state = NULL;
    if (wk->engine)
        w->aengine_close(wk->engine);
    wk->engine = NULL;
}

static int use_async(const pool *p)
{
    return p->load->mode == BENCH_MODE_NONBLOCKING && p->w->asubmit != NULL;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    pool *p = wk->pool;
    const bench_workload *w = p->w;

    if (use_async(p)) {
        const int ao = async_open(wk);
        if (ao != 0) {
            wk->open_failed = ao < 0;
            atomic_store(&p->abandon, 1);
        }
    } else if (w->open(w->ctx, wk->index, &wk->state, wk->why, sizeof wk->why) != 0) {
        wk->open_failed = 1;
        wk->state = NULL;
        atomic_store(&p->abandon, 1);
    }
    pthread_mutex_lock(&p->gate_mu);
    p->arrived++;
    pthread_cond_broadcast(&p->gate_cv);
    while (!p->released)
        pthread_cond_wait(&p->gate_cv, &p->gate_mu);
    pthread_mutex_unlock(&p->gate_mu);
    if (atomic_load(&p->abandon))
        goto out;

    if (use_async(p))
        async_loop(wk);
    else if (p->load->mode == BENCH_MODE_NONBLOCKING)
        open_loop(wk);
    else
        closed_loop(wk);
out:
    atomic_store(&wk->done, 1);
    return NULL;
}

/* Everything the sampler needs between ticks. */
typedef struct sampler {
    bench_hist *sum, *prev, *delta;
    uint64_t    ops_prev, errs_prev;
    uint64_t    tick_prev_ns;
    int         warm;          /* the previous interval was a warm-up one */
    uint64_t    sched_prev;    /* non-blocking: scheduled requests at the last tick */
    bench_err   errs[ERR_SLOTS];   /* measured errors by code so far (live exporters) */
} sampler;

/* What the callback may see of the run so far (never kept in out->samples). */
static void so_far(sampler *s, bench_sample *smp)
{
    if (smp->warmup)
        return;
    smp->hist_so_far = s->sum;
    smp->errs_so_far = s->errs;
    for (smp->nerrs_so_far = 0; smp->nerrs_so_far < ERR_SLOTS && s->errs[smp->nerrs_so_far].count;)
        smp->nerrs_so_far++;
}

/*
 * Fold every worker's live counters into one interval sample.  Warm-up
 * intervals count the warm-up counters; measured ones the measured
 * counters, so the measured series sums exactly to the run's totals.
 */
static void sample_take(pool *p, sampler *s, uint64_t now, int warmup, bench_sample *out)
{
    uint64_t ops = 0, errs = 0;

    memset(out, 0, sizeof *out);
    if (!warmup) {
        bench_hist_reset(s->sum);
        memset(s->errs, 0, sizeof s->errs);
    }
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        ops += atomic_load_explicit(warmup ? &wk->warm_ops : &wk->ops, memory_order_relaxed);
        errs += atomic_load_explicit(warmup ? &wk->warm_errs : &wk->errors, memory_order_relaxed);
        if (!warmup) {
            bench_hist_add(s->sum, wk->hist);
            live_err_fold(s->errs, wk->errs);
        }
    }
    if (!warmup) {
        if (s->warm) {
            /* First measured interval: the baseline is zero, not the warm-up total. */
            s->ops_prev = s->errs_prev = 0;
            s->warm = 0;
        }
        bench_hist_delta(s->delta, s->sum, s->prev);
        /* The interval's slots give its max only to bucket precision; the
         * true max so far bounds it, so no percentile exceeds a real value. */
        if (bench_hist_count(s->delta) && bench_hist_max(s->delta) > bench_hist_max(s->sum))
            bench_hist_set_extrema(s->delta, bench_hist_min(s->delta), bench_hist_max(s->sum));
        out->p50_ns = bench_hist_percentile(s->delta, 50.0);
        out->p99_ns = bench_hist_percentile(s->delta, 99.0);
    }
    if (p->load->mode == BENCH_MODE_NONBLOCKING) {
        uint64_t sched = atomic_load(&p->scheduled_now);
        out->target = (double)(sched - s->sched_prev);
        s->sched_prev = sched;
        out->in_flight = atomic_load(&p->issued) - atomic_load(&p->completed);
    } else if (p->load->stages) {
        out->target = (double)atomic_load(&p->active);
    }
    out->span_s = (double)(now - s->tick_prev_ns) / 1e9;
    out->ops = ops - s->ops_prev;
    out->errors = errs - s->errs_prev;
    s->ops_prev = ops;
    s->errs_prev = errs;
    s->tick_prev_ns = now;
}

static int samples_push(bench_outcome *out, size_t *cap, const bench_sample *s)
{
    if (out->nsamples == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        bench_sample *ns = realloc(out->samples, ncap * sizeof *ns);
        if (!ns)
            return -1;
        out->samples = ns;
        *cap = ncap;
    }
    out->samples[out->nsamples++] = *s;
    return 0;
}

static int all_done(const pool *p)
{
    for (unsigned i = 0; i < p->n; i++)
        if (!atomic_load(&p->workers[i].done))
            return 0;
    return 1;
}

static int err_cmp(const void *a, const void *b)
{
    const bench_err *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->code < y->code ? -1 : x->code > y->code;
}

/* After the join: merge what the workers own into the outcome. */
static int merge_results(pool *p, bench_outcome *out)
{
    bench_err tab[ERR_SLOTS * 2];
    size_t ntab = 0;
    uint64_t last = 0;

    memset(tab, 0, sizeof tab);
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        out->ops += atomic_load(&wk->ops);
        out->errors += atomic_load(&wk->errors);
        if (wk->last_done_ns > last)
            last = wk->last_done_ns;
        bench_hist_add(out->hist, wk->hist);
        if (wk->service) {
            bench_hist_add(out->service, wk->service);
            bench_hist_add(out->queue, wk->queue);
        }
        live_err_fold(tab, wk->errs);
    }
    for (ntab = 0; ntab < ERR_SLOTS * 2 && tab[ntab].count; ntab++)
        ;
    qsort(tab, ntab, sizeof tab[0], err_cmp);
    if (ntab) {
        out->errs = malloc(ntab * sizeof *out->errs);
        if (!out->errs)
            return -1;
        memcpy(out->errs, tab, ntab * sizeof *tab);
        out->nerrs = ntab;
    }
    if (!last || last < p->measure_ns)
        last = bench_now_ns();
    out->duration_s = last > p->measure_ns ? (double)(last - p->measure_ns) / 1e9 : 0.0;
    if (p->load->mode == BENCH_MODE_NONBLOCKING) {
        out->scheduled = atomic_load(&p->scheduled_measured);
        out->late = atomic_load(&p->late);
        out->dropped = out->scheduled > out->ops ? out->scheduled - out->ops : 0;
        out->target_rate = out->duration_s > 0 ? (double)out->scheduled / out->duration_s : 0;
    }
    return 0;
}

/* Blocking ramps: how many workers the profile wants now (rounded). */
static void set_active(pool *p, uint64_t now)
{
    const bench_load *l = p->load;
    if (!l->stages || l->mode != BENCH_MODE_BLOCKING)
        return;
    double v = bench_stages_at(l->stages, now > p->start_ns ? now - p->start_ns : 0);
    unsigned n = (unsigned)(v + 0.5);
    atomic_store(&p->active, n > p->n ? p->n : n);
}

/* The sampler loop: runs in the calling thread until the run is over. */
static int sample_loop(pool *p, const bench_load *load, const bench_flag *interrupt,
                       bench_second_fn on_second, void *arg, bench_outcome *out)
{
    sampler s = { bench_hist_new(), bench_hist_new(), bench_hist_new(), 0, 0, p->start_ns,
                  load->warmup_ns > 0, 0, { { 0, 0 } } };
    size_t cap = 0;
    uint32_t warm_k = 0, k = 0;
    const uint64_t end_ns = load->duration_ns ? p->measure_ns + load->duration_ns : UINT64_MAX;
    int rc = 0;

    if (!s.sum || !s.prev || !s.delta) {
        rc = -1;
        goto stop;
    }
    for (;;) {
        uint64_t now = bench_now_ns();
        int in_warmup = now < p->measure_ns;
        uint64_t tick = in_warmup ? p->start_ns + (uint64_t)(warm_k + 1) * BENCH_NS_PER_S
                                  : p->measure_ns + (uint64_t)(k + 1) * BENCH_NS_PER_S;
        if (in_warmup && tick > p->measure_ns)
            tick = p->measure_ns;
        if (tick > end_ns)
            tick = end_ns;

        int finished = 0;
        while ((now = bench_now_ns()) < tick) {
            if (*interrupt || all_done(p)) {
                finished = 1;
                break;
            }
            uint64_t poll = load->stages && load->mode == BENCH_MODE_BLOCKING ? STAGE_NS : POLL_NS;
            uint64_t wake = now + poll < tick ? now + poll : tick;
            bench_sleep_until_ns(wake);
            set_active(p, bench_now_ns());
        }
        if (*interrupt) {
            out->status = BENCH_RUN_INTERRUPTED;
            finished = 1;
        }
        if (!finished && now >= end_ns)
            finished = 1;
        if (finished)
            break;

        bench_sample smp;
        sample_take(p, &s, now, in_warmup, &smp);
        if (in_warmup) {
            smp.warmup = 1;
            smp.t = 0;
            warm_k++;
        } else {
            smp.t = ++k;
            if (samples_push(out, &cap, &smp) != 0) {
                rc = -1;
                break;
            }
        }
        so_far(&s, &smp);
        if (on_second)
            on_second(arg, &smp);
    }
stop:
    atomic_store(&p->stop, 1);
    if (load->mode == BENCH_MODE_NONBLOCKING) {
        /* Wake everyone: the dispatcher waiting for room, workers waiting
         * for work.  What is still queued is dropped, and counted. */
        pthread_mutex_lock(&p->qmu);
        p->qclosed = 1;
        pthread_cond_broadcast(&p->q_nonempty);
        pthread_cond_broadcast(&p->q_nonfull);
        pthread_mutex_unlock(&p->qmu);
        if (p->wake[1] >= 0)
            wake_sleepers(p);
        if (p->has_dispatcher)
            pthread_join(p->dispatcher, NULL);
    }
    for (unsigned i = 0; i < p->n; i++)
        if (p->workers[i].started)
            pthread_join(p->workers[i].tid, NULL);

    /* The last, partial interval: what completed since the last tick. */
    if (rc == 0) {
        uint64_t now = bench_now_ns();
        if (now > p->measure_ns) {
            bench_sample smp;
            sample_take(p, &s, now, 0, &smp);
            if (smp.ops || out->nsamples == 0) {
                smp.t = ++k;
                if (samples_push(out, &cap, &smp) != 0)
                    rc = -1;
                else if (on_second && smp.span_s >= 0.05) {
                    so_far(&s, &smp);
                    on_second(arg, &smp);
                }
            }
        }
    }
    bench_hist_free(s.sum);
    bench_hist_free(s.prev);
    bench_hist_free(s.delta);
    return rc;
}

static void fail(bench_outcome *out, const char *why)
{
    out->status = BENCH_RUN_FAILED;
    snprintf(out->reason, sizeof out->reason, "%s", why);
}

int bench_pool_run(const bench_workload *w, const bench_load *load,
                   const bench_flag *interrupt,
                   bench_second_fn on_second, void *arg, bench_outcome *out)
{
    pool p;
    unsigned started = 0;
    int rc = -1;

    memset(out, 0, sizeof *out);
    memset(&p, 0, sizeof p);
    if (load->threads == 0 || (!load->duration_ns && !load->iterations)) {
        fail(out, "internal: a run needs threads and a duration or iteration bound");
        return -1;
    }
    out->hist = bench_hist_new();
    if (load->mode == BENCH_MODE_NONBLOCKING) {
        out->service = bench_hist_new();
        out->queue = bench_hist_new();
        if (!out->service || !out->queue) {
            fail(out, "out of memory");
            return -1;
        }
    }
    p.load = load;
    p.interrupt = interrupt;
    p.w = w;
    p.n = load->threads;
    p.self_paced = is_self_paced(&p);
    p.wake[0] = p.wake[1] = -1;
    if (use_async(&p) && w->await && pipe2(p.wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        fail(out, "cannot create the wake-up pipe");
        return -1;
    }
    p.workers = aligned_alloc(64, sizeof(worker) * p.n);
    if (!out->hist || !p.workers) {
        fail(out, "out of memory");
        free(p.workers);
        return -1;
    }
    memset(p.workers, 0, sizeof(worker) * p.n);
    for (unsigned i = 0; i < p.n; i++) {
        worker *wk = &p.workers[i];
        wk->pool = &p;
        wk->index = i;
        /* Split the iteration bound exactly: no shared counter on the hot path. */
        wk->bounded = load->iterations != 0;
        if (load->iterations && load->per_thread)
            wk->quota = load->iterations;
        else if (load->iterations)
            wk->quota = load->iterations / p.n + (i < load->iterations % p.n ? 1 : 0);
        wk->hist = bench_hist_new();
        if (load->mode == BENCH_MODE_NONBLOCKING) {
            wk->service = bench_hist_new();
            wk->queue = bench_hist_new();
        }
        if (!wk->hist || (load->mode == BENCH_MODE_NONBLOCKING && (!wk->service || !wk->queue))) {
            fail(out, "out of memory");
            goto free_hists;
        }
    }
    if (pthread_mutex_init(&p.gate_mu, NULL) != 0 || pthread_cond_init(&p.gate_cv, NULL) != 0 ||
        pthread_mutex_init(&p.qmu, NULL) != 0 || pthread_cond_init(&p.q_nonempty, NULL) != 0 ||
        pthread_cond_init(&p.q_nonfull, NULL) != 0) {
        fail(out, "cannot create the start gate");
        goto free_hists;
    }

    /* Workers take no signals: SIGINT reaches the sampler (this thread). */
    sigset_t block, old;
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (; started < p.n; started++) {
        worker *wk = &p.workers[started];
        int err = pthread_create(&wk->tid, NULL, worker_main, wk);
        if (err) {
            char why[128];
            snprintf(why, sizeof why, "cannot start thread %u of %u: %s", started + 1, p.n,
                     strerror(err));
            fail(out, why);
            atomic_store(&p.abandon, 1);
            break;
        }
        wk->started = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (unsigned i = started; i < p.n; i++)
        atomic_store(&p.workers[i].done, 1);

    pthread_mutex_lock(&p.gate_mu);
    while (p.arrived < started)
        pthread_cond_wait(&p.gate_cv, &p.gate_mu);
    p.start_ns = bench_now_ns();
    p.measure_ns = p.start_ns + load->warmup_ns;
    {
        /* The wall clock of the same instant, so results of several load
         * generators can be lined up second by second (hsmbench merge). */
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        out->measure_start_epoch_ms = ((uint64_t)rt.tv_sec * 1000 + (uint64_t)rt.tv_nsec / 1000000) +
                                      load->warmup_ns / 1000000;
    }
    set_active(&p, p.start_ns);
    if (!load->stages)
        atomic_store(&p.active, p.n);
    p.released = 1;
    pthread_cond_broadcast(&p.gate_cv);
    pthread_mutex_unlock(&p.gate_mu);

    if (atomic_load(&p.abandon)) {
        for (unsigned i = 0; i < started; i++)
            pthread_join(p.workers[i].tid, NULL);
        for (unsigned i = 0; i < p.n && out->status != BENCH_RUN_FAILED; i++)
            if (p.workers[i].open_failed) {
                char why[256];
                snprintf(why, sizeof why, "worker %u: %s", i + 1, p.workers[i].why);
                fail(out, why);
                break;
            }
        if (out->status != BENCH_RUN_FAILED)
            fail(out, *interrupt ? "interrupted while setting up" : "set-up abandoned");
        goto close_states;
    }

    if (load->mode == BENCH_MODE_NONBLOCKING && !p.self_paced && !atomic_load(&p.abandon)) {
        int err = pthread_create(&p.dispatcher, NULL, dispatch_main, &p);
        if (err) {
            fail(out, "cannot start the dispatcher thread");
            atomic_store(&p.stop, 1);
            pthread_mutex_lock(&p.qmu);
            p.qclosed = 1;
            pthread_cond_broadcast(&p.q_nonempty);
            pthread_mutex_unlock(&p.qmu);
            for (unsigned i = 0; i < started; i++)
                pthread_join(p.workers[i].tid, NULL);
            goto close_states;
        }
        p.has_dispatcher = 1;
    }
    if (sample_loop(&p, load, interrupt, on_second, arg, out) != 0) {
        fail(out, "out of memory while sampling");
        goto close_states;
    }
    if (merge_results(&p, out) != 0) {
        fail(out, "out of memory while merging results");
        goto close_states;
    }
    rc = 0;

close_states:
    for (unsigned i = 0; i < started; i++) {
        if (use_async(&p))
            async_close(&p.workers[i]);
        else if (p.workers[i].state)
            w->close(p.workers[i].state);
    }
    pthread_cond_destroy(&p.gate_cv);
    pthread_mutex_destroy(&p.gate_mu);
    pthread_cond_destroy(&p.q_nonempty);
    pthread_cond_destroy(&p.q_nonfull);
    pthread_mutex_destroy(&p.qmu);
free_hists:
    for (unsigned i = 0; i < p.n; i++) {
        bench_hist_free(p.workers[i].hist);
        bench_hist_free(p.workers[i].service);
        bench_hist_free(p.workers[i].queue);
    }
    free(p.workers);
    if (p.wake[0] >= 0) {
        close(p.wake[0]);
        close(p.wake[1]);
    }
    return rc;
}

unsigned bench_async_slots(const bench_load *load)
{
    if (load->mode != BENCH_MODE_NONBLOCKING)
        return 0;
    return load->inflight ? load->inflight : load->threads * BENCH_ASYNC_SLOTS_PER_THREAD;
}

void bench_outcome_free(bench_outcome *out)
{
    bench_hist_free(out->hist);
    bench_hist_free(out->service);
    bench_hist_free(out->queue);
    free(out->errs);
    free(out->samples);
    memset(out, 0, sizeof *out);
}

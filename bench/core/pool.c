/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/pool.c - bench_pool_run: a run of the worker pool from set-up to
 * results.
 *
 * Set-up (histograms, the iteration bound split among the workers, the
 * threads, the wake pipe), the start gate, the dispatcher's start, the
 * sampler (sampler.c) until the end, the stop and join, and the merge of
 * what every worker owns into the outcome.  The engines are in closed.c
 * (blocking), open.c and async.c (non-blocking), with dispatch.c and
 * queue.c; their shared state is bench/core/pool_int.h.
 */
#include "bench/core/pool_int.h"
#include "bench/core/schedule.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A worker thread: open its state, pass the start gate, run its engine. */
static void *worker_main(void *arg)
{
    worker *wk = arg;
    pool *p = wk->pool;
    const bench_workload *w = p->w;

    if (pool_use_async(p)) {
        const int ao = pool_async_open(wk);
        if (ao != 0) {
            wk->open_failed = ao < 0;
            atomic_store(&p->abandon, 1);
        }
    } else if (w->open(w->ctx, wk->index, &wk->state, wk->why, sizeof wk->why) != 0) {
        wk->open_failed = 1;
        wk->state = NULL;
        atomic_store(&p->abandon, 1);
    } else if (w->side_bind) {
        w->side_bind(wk->state, &wk->side);
    }
    pthread_mutex_lock(&p->gate_mu);
    p->arrived++;
    pthread_cond_broadcast(&p->gate_cv);
    while (!p->released)
        pthread_cond_wait(&p->gate_cv, &p->gate_mu);
    pthread_mutex_unlock(&p->gate_mu);
    if (atomic_load(&p->abandon))
        goto out;

    if (pool_use_async(p))
        pool_async_loop(wk);
    else if (p->load->mode == BENCH_MODE_NONBLOCKING)
        pool_open_loop(wk);
    else
        pool_closed_loop(wk);
out:
    atomic_store(&wk->done, 1);
    return NULL;
}

static int err_cmp(const void *a, const void *b)
{
    const bench_err *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->code < y->code ? -1 : x->code > y->code;
}

uint64_t pool_measured_end(const pool *p)
{
    /* Bounded by iterations: until the last operation ended.  Otherwise the
     * plan's end (a duration, the stages), or when the run was stopped. */
    /* Arrivals that ran out end with the last completion too. */
    if (!p->load->duration_ns || !p->stop_ns || p->ran_out) {
        uint64_t last = 0;
        for (unsigned i = 0; i < p->n; i++)
            if (p->workers[i].last_done_ns > last)
                last = p->workers[i].last_done_ns;
        if (last > p->measure_ns)
            return last;
    }
    return p->stop_ns ? p->stop_ns : bench_now_ns();
}

/* A table of ERR_SLOTS * 2 (err_count's merge table) sorted into a new
 * array: 0, or -1 when out of memory. */
static int errs_out(bench_err *tab, bench_err **errs, size_t *nerrs)
{
    size_t ntab;
    for (ntab = 0; ntab < ERR_SLOTS * 2 && tab[ntab].count; ntab++)
        ;
    qsort(tab, ntab, sizeof tab[0], err_cmp);
    *errs = NULL;
    *nerrs = 0;
    if (!ntab)
        return 0;
    if (!(*errs = malloc(ntab * sizeof **errs)))
        return -1;
    memcpy(*errs, tab, ntab * sizeof *tab);
    *nerrs = ntab;
    return 0;
}

/* After the join: every worker's record of breakdown k's classes into
 * out->by[k].  0, or -1 when out of memory. */
static int merge_breakdown(pool *p, unsigned k, bench_outcome *out)
{
    const unsigned n = p->w->breakdown[k]->n;
    bench_class_outcome *by = calloc(n, sizeof *by);
    if (!by)
        return -1;
    out->by[k] = by;
    out->nby[k] = n;
    for (unsigned c = 0; c < n; c++) {
        bench_err tab[ERR_SLOTS * 2];
        memset(tab, 0, sizeof tab);
        if (!(by[c].hist = bench_hist_new()))
            return -1;
        for (unsigned i = 0; i < p->n; i++) {
            const class_rec *r = &p->workers[i].by[k][c];
            by[c].ops += r->ops;
            by[c].errors += r->errors;
            if (r->hist)
                bench_hist_add(by[c].hist, r->hist);
            for (size_t j = 0; j < ERR_SLOTS && r->errs[j].count; j++)
                err_count(tab, r->errs[j].code, r->errs[j].count);
        }
        if (errs_out(tab, &by[c].errs, &by[c].nerrs) != 0)
            return -1;
    }
    return 0;
}

/*
 * After the join: the measured run's scheduled requests that never started
 * (its dropped ones), each recorded in out->unstarted at the lower bound of
 * its latency, from when it was due to `end`, the end of the measured part:
 * those the dispatcher never issued (counted from the schedule), those
 * still in the queue, and those an asynchronous engine's slots still held
 * when their drain gave up.  Returns how many the dispatcher never issued
 * (they are scheduled, not yet counted).
 */
static uint64_t tally_unstarted(pool *p, uint64_t end, bench_outcome *out)
{
    const bench_load *l = p->load;
    uint64_t never = 0, due;
    if (p->has_dispatcher && l->arrivals) {
        for (uint64_t i = p->disp_idx; (due = pool_arrival_due(p, i)) < end; i++) {
            if (due < p->measure_ns)
                continue;
            bench_hist_record(out->unstarted, end - due);
            never++;
        }
    } else if (p->has_dispatcher && (l->rate > 0 || l->stages)) {
        for (due = p->disp_next; due < end;
             due = bench_schedule_next_due(l->rate, l->stages, p->start_ns, due, end)) {
            if (due < p->measure_ns)
                continue;
            bench_hist_record(out->unstarted, end - due);
            never++;
        }
    }
    while ((due = bench_queue_take_left(&p->queue)) != 0)
        if (due >= p->measure_ns)
            bench_hist_record(out->unstarted, end > due ? end - due : 0);
    for (unsigned i = 0; pool_use_async(p) && i < p->n; i++)
        (void)pool_async_left(&p->workers[i], out->unstarted, p->measure_ns, end);
    return never;
}

/* After the join: merge what the workers own into the outcome. */
static int merge_results(pool *p, bench_outcome *out)
{
    bench_err tab[ERR_SLOTS * 2];

    memset(tab, 0, sizeof tab);
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        out->ops += atomic_load(&wk->ops);
        out->errors += atomic_load(&wk->errors);
        bench_hist_add(out->hist, wk->hist);
        if (wk->failed)
            bench_hist_add(out->failed, wk->failed);
        if (wk->service) {
            bench_hist_add(out->service, wk->service);
            bench_hist_add(out->queue, wk->queue);
        }
        live_err_fold(tab, wk->errs);
        if (bench_side_merge(&out->side, &wk->side) != 0)
            return -1;
    }
    if (errs_out(tab, &out->errs, &out->nerrs) != 0)
        return -1;
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++) {
        if (!p->w->breakdown[k])
            continue;
        for (unsigned i = 0; i < p->n; i++)
            if (p->workers[i].by_lost)
                return -1;
        if (merge_breakdown(p, k, out) != 0)
            return -1;
    }
    const uint64_t end = pool_measured_end(p);
    out->duration_s = end > p->measure_ns ? (double)(end - p->measure_ns) / 1e9 : 0.0;
    if (p->ramp_seen) {
        out->ramp_min = p->ramp_min;
        out->ramp_max = p->ramp_max;
    }
    if (p->load->mode == BENCH_MODE_NONBLOCKING) {
        const bench_load *l = p->load;
        out->scheduled = pool_scheduled_measured(p) + tally_unstarted(p, end, out);
        out->late = atomic_load(&p->late);
        out->dropped = out->scheduled > out->ops ? out->scheduled - out->ops : 0;
        out->target_rate = out->duration_s > 0 ? (double)out->scheduled / out->duration_s : 0;
        out->has_schedule = pool_by_schedule(l);
        out->max_unstarted = l->max_unstarted;
        out->concurrency = p->n;
        if (pool_use_async(p) && p->w->async.slots > p->n)
            out->concurrency = p->w->async.slots;
    }
    return 0;
}


unsigned pool_abandon_stuck(pool *p, uint64_t now, uint64_t stuck_ns, int all)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        if (!wk->started || wk->abandoned)
            continue;
        uint64_t since = atomic_load_explicit(&wk->in_call, memory_order_acquire);
        if (!since || since == CALL_ABANDONED)
            continue;
        const uint64_t age = now > since ? now - since : 0;
        if (!all && (!stuck_ns || age < stuck_ns))
            continue;
        /* The worker's exchange after the call, or this: one wins. */
        if (!atomic_compare_exchange_strong_explicit(&wk->in_call, &since, CALL_ABANDONED,
                                                     memory_order_acq_rel, memory_order_acquire))
            continue;
        wk->abandoned = 1;
        (void)pthread_detach(wk->tid);   /* it may never return: never joined */
        if (!p->nabandoned++)
            snprintf(p->stuck_why, sizeof p->stuck_why, "worker %u stuck in %s for %.0f s", i + 1,
                     p->w->call ? p->w->call : "a call", (double)age / 1e9);
        n++;
    }
    return n;
}

#define JOIN_POLL_NS (1000ULL * 1000)   /* the join looks at the workers this often */

void pool_stop(pool *p)
{
    atomic_store(&p->stop, 1);
    const uint64_t stopped = bench_now_ns();
    if (p->load->mode == BENCH_MODE_NONBLOCKING) {
        bench_queue_close(&p->queue);
        if (p->wake[1] >= 0)
            pool_wake_sleepers(p);
        if (p->has_dispatcher)
            pthread_join(p->dispatcher, NULL);
    }
    /* Every worker ends its call and returns; one still inside a call once
     * that call is stuck_ns old, or, after a signal, BENCH_STOP_GRACE_NS
     * (at most stuck_ns) after the stop, or at once at a second signal, is
     * abandoned instead of waited for. */
    const uint64_t grace = p->load->stuck_ns && p->load->stuck_ns < BENCH_STOP_GRACE_NS
                               ? p->load->stuck_ns : BENCH_STOP_GRACE_NS;
    for (;;) {
        const uint64_t now = bench_now_ns();
        const int sig = atomic_load(p->interrupt);
        pool_abandon_stuck(p, now, p->load->stuck_ns,
                           (sig & BENCH_SIGNAL_AGAIN) || (sig && now - stopped >= grace));
        int waiting = 0;
        for (unsigned i = 0; i < p->n && !waiting; i++)
            waiting = p->workers[i].started && !p->workers[i].abandoned &&
                      !atomic_load(&p->workers[i].done);
        if (!waiting)
            break;
        bench_sleep_until_ns(now + JOIN_POLL_NS);
    }
    for (unsigned i = 0; i < p->n; i++)
        if (p->workers[i].started && !p->workers[i].abandoned)
            pthread_join(p->workers[i].tid, NULL);
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
    out->client_cpu = -1;
    memset(&p, 0, sizeof p);
    /* A single pass of recorded arrivals bounds its run by itself. */
    const int once = load->arrivals && !load->arrivals->period_ns;
    if (load->threads == 0 || (!load->duration_ns && !load->iterations && !once)) {
        fail(out, "internal: a run needs threads and a duration or iteration bound");
        return -1;
    }
    if (load->arrivals && (load->mode != BENCH_MODE_NONBLOCKING || load->rate > 0 || load->stages ||
                           !bench_arrivals_valid(load->arrivals))) {
        fail(out, "internal: recorded arrivals need a non-blocking run without a rate or stages, "
                  "in ascending order, any period past the last");
        return -1;
    }
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++) {
        const bench_breakdown *b = w->breakdown[k];
        if (b && (!b->n || b->n > BENCH_MAX_CLASSES || !b->labels || !b->dimension || !b->class_of)) {
            fail(out, "internal: a breakdown needs 1 to 64 named classes and its class_of");
            return -1;
        }
        if (b && load->mode == BENCH_MODE_NONBLOCKING && w->async.ops) {
            fail(out, "internal: asynchronous slots keep no breakdown");
            return -1;
        }
    }
    out->hist = bench_hist_new();
    out->failed = bench_hist_new();
    if (!out->failed) {
        fail(out, "out of memory");
        return -1;
    }
    if (bench_side_init(&out->side, w->side) != 0) {
        fail(out, "out of memory");
        return -1;
    }
    if (load->mode == BENCH_MODE_NONBLOCKING) {
        out->service = bench_hist_new();
        out->queue = bench_hist_new();
        out->unstarted = bench_hist_new();
        if (!out->service || !out->queue || !out->unstarted) {
            fail(out, "out of memory");
            return -1;
        }
    }
    p.load = load;
    p.interrupt = interrupt;
    p.w = w;
    p.n = load->threads;
    p.self_paced = pool_is_self_paced(&p);
    p.sink = load->sink;
    p.sink_threads = pool_use_async(&p) && w->async.slots > p.n ? w->async.slots : p.n;
    p.wake[0] = p.wake[1] = -1;
    if (pool_use_async(&p) && w->async.ops->await && pipe2(p.wake, O_NONBLOCK | O_CLOEXEC) != 0) {
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
        if (!wk->hist || (load->mode == BENCH_MODE_NONBLOCKING && (!wk->service || !wk->queue)) ||
            bench_side_init(&wk->side, w->side) != 0) {
            fail(out, "out of memory");
            goto free_hists;
        }
        for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++)
            if (w->breakdown[k] && !(wk->by[k] = calloc(w->breakdown[k]->n, sizeof *wk->by[k]))) {
                fail(out, "out of memory");
                goto free_hists;
            }
    }
    if (pthread_mutex_init(&p.gate_mu, NULL) != 0 || pthread_cond_init(&p.gate_cv, NULL) != 0 ||
        bench_queue_init(&p.queue) != 0) {
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
    pool_set_active(&p, p.start_ns);
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
        int err = pthread_create(&p.dispatcher, NULL, pool_dispatch_main, &p);
        if (err) {
            fail(out, "cannot start the dispatcher thread");
            atomic_store(&p.stop, 1);
            bench_queue_close(&p.queue);
            for (unsigned i = 0; i < started; i++)
                pthread_join(p.workers[i].tid, NULL);
            goto close_states;
        }
        p.has_dispatcher = 1;
    }
    if (pool_sample_loop(&p, load, interrupt, on_second, arg, out) != 0) {
        fail(out, "out of memory while sampling");
        goto close_states;
    }
    if (p.nabandoned) {
        /* Measured, and failed unless a signal stopped it: the reason names
         * the first stuck worker either way. */
        out->stuck = p.nabandoned;
        if (out->status != BENCH_RUN_INTERRUPTED)
            out->status = BENCH_RUN_FAILED;
        snprintf(out->reason, sizeof out->reason, "%s", p.stuck_why);
    }
    if (merge_results(&p, out) != 0) {
        fail(out, "out of memory while merging results");
        goto close_states;
    }
    rc = 0;

close_states:
    for (unsigned i = 0; i < started; i++) {
        if (p.workers[i].abandoned)
            continue;    /* its thread is still inside the workload */
        if (pool_use_async(&p))
            pool_async_close(&p.workers[i]);
        else if (p.workers[i].state)
            w->close(p.workers[i].state);
    }
    pthread_cond_destroy(&p.gate_cv);
    pthread_mutex_destroy(&p.gate_mu);
    bench_queue_destroy(&p.queue);
free_hists:
    if (p.nabandoned) {
        /* An abandoned worker that ever returns from its call reads its own
         * record (pool_int.h: call_leave) and perhaps the wake pipe: kept. */
        return rc;
    }
    for (unsigned i = 0; i < p.n; i++) {
        bench_hist_free(p.workers[i].hist);
        bench_hist_free(p.workers[i].failed);
        bench_hist_free(p.workers[i].service);
        bench_hist_free(p.workers[i].queue);
        bench_side_free(&p.workers[i].side);
        for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++) {
            for (unsigned c = 0; p.workers[i].by[k] && c < w->breakdown[k]->n; c++)
                bench_hist_free(p.workers[i].by[k][c].hist);
            free(p.workers[i].by[k]);
        }
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
    bench_hist_free(out->failed);
    bench_hist_free(out->service);
    bench_hist_free(out->queue);
    bench_hist_free(out->unstarted);
    bench_side_free(&out->side);
    free(out->errs);
    free(out->samples);
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++) {
        /* merge_breakdown leaves every class it allocated with a hist or
         * zeroed, so a partial merge frees as well as a whole one */
        bench_class_outcome *by = out->by[k];
        for (unsigned c = 0; by && c < out->nby[k]; c++) {
            bench_hist_free(by[c].hist);
            free(by[c].errs);
        }
        free(by);
    }
    memset(out, 0, sizeof *out);
}

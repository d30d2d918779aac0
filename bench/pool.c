/*
 * bench/pool.c - closed-loop worker pool and the per-second sampler.
 *
 * Hot path: one do_one() between two clock reads, one histogram record and
 * two relaxed counter stores, all on memory the worker owns.  Nothing is
 * shared between workers while they run except the read-only stop flag, so
 * the harness scales with the threads and costs tens of nanoseconds per op.
 */
#include "bench/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/clock.h"

#define ERR_SLOTS 32                         /* distinct codes kept per worker */
#define CODE_OTHER (BENCH_CODE_CORE | 2)     /* codes beyond ERR_SLOTS */
#define POLL_NS (100ULL * 1000 * 1000)       /* sampler wakes at least this often */

typedef struct pool pool;

typedef struct worker {
    pool       *pool;
    pthread_t   tid;
    unsigned    index;
    int         started;
    void       *state;
    int         bounded;        /* the run is bounded by iterations */
    uint64_t    quota;          /* measured operations to do when bounded (may be 0) */
    bench_hist *hist;
    /* read by the sampler while the worker runs */
    _Atomic uint64_t warm_ops;  /* operations completed during warm-up */
    _Atomic uint64_t warm_errs;
    _Atomic uint64_t ops;       /* measured operations, errors included */
    _Atomic uint64_t errors;    /* measured operations that failed */
    _Atomic int      done;
    /* owner only until joined */
    uint64_t    last_done_ns;
    bench_err   errs[ERR_SLOTS];
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
    tab[ERR_SLOTS - 1].code = CODE_OTHER;
    tab[ERR_SLOTS - 1].count += n;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    pool *p = wk->pool;
    const bench_workload *w = p->w;

    if (w->open(w->ctx, wk->index, &wk->state, wk->why, sizeof wk->why) != 0) {
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

    const uint64_t measure = p->measure_ns;
    const uint64_t quota = wk->quota;
    const int bounded = wk->bounded;
    uint64_t done = 0;                 /* == wk->ops, kept in a register */
    bench_code (*const do_one)(void *) = w->do_one;
    void *const state = wk->state;

    /* One clock read per operation: each op's end is the next one's start,
     * so the few nanoseconds of bookkeeping below fall into the next
     * measurement instead of costing a second clock read. */
    uint64_t t0 = bench_now_ns();
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        if (bounded && done >= quota)
            break;
        const bench_code rc = do_one(state);
        const uint64_t t1 = bench_now_ns();
        const uint64_t start = t0;
        t0 = t1;
        if (start < measure) {
            /* warm-up: shown live, never in results */
            relaxed_inc(&wk->warm_ops);
            if (rc != BENCH_OK)
                relaxed_inc(&wk->warm_errs);
            continue;
        }
        done++;
        relaxed_inc(&wk->ops);
        wk->last_done_ns = t1;
        if (rc == BENCH_OK) {
            bench_hist_record(wk->hist, t1 - start);
        } else {
            relaxed_inc(&wk->errors);
            err_count(wk->errs, rc, 1);
        }
    }
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
} sampler;

/*
 * Fold every worker's live counters into one interval sample.  Warm-up
 * intervals count the warm-up counters; measured ones the measured
 * counters, so the measured series sums exactly to the run's totals.
 */
static void sample_take(pool *p, sampler *s, uint64_t now, int warmup, bench_sample *out)
{
    uint64_t ops = 0, errs = 0;

    memset(out, 0, sizeof *out);
    if (!warmup)
        bench_hist_reset(s->sum);
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        ops += atomic_load_explicit(warmup ? &wk->warm_ops : &wk->ops, memory_order_relaxed);
        errs += atomic_load_explicit(warmup ? &wk->warm_errs : &wk->errors, memory_order_relaxed);
        if (!warmup)
            bench_hist_add(s->sum, wk->hist);
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
        for (size_t j = 0; j < ERR_SLOTS && wk->errs[j].count; j++)
            err_count(tab, wk->errs[j].code, wk->errs[j].count);
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
    return 0;
}

/* The sampler loop: runs in the calling thread until the run is over. */
static int sample_loop(pool *p, const bench_load *load, const volatile sig_atomic_t *interrupt,
                       bench_second_fn on_second, void *arg, bench_outcome *out)
{
    sampler s = { bench_hist_new(), bench_hist_new(), bench_hist_new(), 0, 0, p->start_ns,
                  load->warmup_ns > 0 };
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
            uint64_t wake = now + POLL_NS < tick ? now + POLL_NS : tick;
            bench_sleep_until_ns(wake);
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
        if (on_second)
            on_second(arg, &smp);
    }
stop:
    atomic_store(&p->stop, 1);
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
                else if (on_second && smp.span_s >= 0.05)
                    on_second(arg, &smp);
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
                   const volatile sig_atomic_t *interrupt,
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
    p.w = w;
    p.n = load->threads;
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
        if (load->iterations)
            wk->quota = load->iterations / p.n + (i < load->iterations % p.n ? 1 : 0);
        wk->hist = bench_hist_new();
        if (!wk->hist) {
            fail(out, "out of memory");
            goto free_hists;
        }
    }
    if (pthread_mutex_init(&p.gate_mu, NULL) != 0 || pthread_cond_init(&p.gate_cv, NULL) != 0) {
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
        goto close_states;
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
    for (unsigned i = 0; i < started; i++)
        if (p.workers[i].state)
            w->close(p.workers[i].state);
    pthread_cond_destroy(&p.gate_cv);
    pthread_mutex_destroy(&p.gate_mu);
free_hists:
    for (unsigned i = 0; i < p.n; i++)
        bench_hist_free(p.workers[i].hist);
    free(p.workers);
    return rc;
}

void bench_outcome_free(bench_outcome *out)
{
    bench_hist_free(out->hist);
    free(out->errs);
    free(out->samples);
    memset(out, 0, sizeof *out);
}

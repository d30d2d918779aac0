/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/sampler.c - the per-second sampler.
 *
 * The thread that called bench_pool_run samples the run: on absolute ticks
 * (every whole second of the measured run, and of the warm-up, whose last
 * tick is clipped to its end), it reads every worker's live counters and
 * histogram without locks and reports the interval.  It decides when the
 * run is over (its length, an interrupt, every worker done, a worker stuck
 * in a call for bench_load.stuck_ns: pool_abandon_stuck), stops it, and
 * takes the last, partial interval after the join.
 */
#include "bench/core/pool_int.h"

#include <stdlib.h>
#include <string.h>

#include "bench/core/schedule.h"

/* Everything the sampler needs between ticks. */
typedef struct sampler {
    bench_hist *sum, *prev, *delta;
    bench_hist *fsum, *fprev, *all;   /* failed operations' latency, and every one's interval */
    uint64_t    ops_prev, errs_prev;
    uint64_t    tick_prev_ns;
    int         warm;          /* the previous interval was a warm-up one */
    uint64_t    sched_prev;    /* a window: requests issued at the last tick */
    uint64_t    due_next;      /* a rate or a ramp: the schedule's next due time not counted */
    bench_err   errs[ERR_SLOTS];   /* measured errors by code so far (live exporters) */
    int         cpu_taken;     /* cpu0_ns and wall0_ns hold the measured part's start */
    uint64_t    cpu0_ns, wall0_ns;
    /* --until-stable: successes/s of each BENCH_STABLE_TICK_NS of the
     * measured part (fine_take), for bench_stable_eval. */
    double     *fine;
    size_t      nfine, capfine;
    uint64_t    fine_ok, fine_read_ns, fine_next_ns;
    uint64_t    arr_counted;   /* arrivals: the requests due before the last tick */
} sampler;


/*
 * --until-stable's series: at each wake past the next sub-interval's end,
 * the successes since the last reading over the time since it, as the rate
 * of every sub-interval the reading covers (a late wake covers several).
 * The counters are read as they are; the rate is over the reading's own
 * span, so a wake a little late shifts a sub-interval, not its rate.
 * -1 when out of memory.
 */
static int fine_take(pool *p, sampler *s, uint64_t now)
{
    if (!s->fine_next_ns) {
        s->fine_read_ns = p->measure_ns;
        s->fine_next_ns = p->measure_ns + BENCH_STABLE_TICK_NS;
    }
    if (now < s->fine_next_ns)
        return 0;
    uint64_t ok = 0;
    for (unsigned i = 0; i < p->n; i++) {
        const worker *wk = &p->workers[i];
        const uint64_t e = atomic_load_explicit(&wk->errors, memory_order_relaxed);
        const uint64_t o = atomic_load_explicit(&wk->ops, memory_order_relaxed);
        ok += o > e ? o - e : 0;
    }
    const size_t ticks = (size_t)((now - s->fine_next_ns) / BENCH_STABLE_TICK_NS) + 1;
    const double rate = (double)(ok > s->fine_ok ? ok - s->fine_ok : 0) /
                        ((double)(now - s->fine_read_ns) / 1e9);
    if (s->nfine + ticks > s->capfine) {
        size_t ncap = s->capfine ? s->capfine * 2 : 1024;
        while (ncap < s->nfine + ticks)
            ncap *= 2;
        double *nf = realloc(s->fine, ncap * sizeof *nf);
        if (!nf)
            return -1;
        s->fine = nf;
        s->capfine = ncap;
    }
    for (size_t t = 0; t < ticks; t++)
        s->fine[s->nfine++] = rate;
    s->fine_ok = ok > s->fine_ok ? ok : s->fine_ok;
    s->fine_read_ns = now;
    s->fine_next_ns += (uint64_t)ticks * BENCH_STABLE_TICK_NS;
    return 0;
}


void pool_second_passed(worker *wk, uint64_t t_done)
{
    if (!wk->sec_next_ns) {
        wk->sec_next_ns = wk->pool->measure_ns + BENCH_NS_PER_S;
        if (t_done < wk->sec_next_ns)
            return;
    }
    const uint64_t ops = atomic_load_explicit(&wk->ops, memory_order_relaxed);
    const uint64_t errs = atomic_load_explicit(&wk->errors, memory_order_relaxed);
    uint64_t b = atomic_load_explicit(&wk->sec_passed, memory_order_relaxed);
    while (t_done >= wk->sec_next_ns) {
        b++;
        wk->sec_next_ns += BENCH_NS_PER_S;
        /* A slot being rewritten reads as no slot (tag 0) to the sampler. */
        atomic_store_explicit(&wk->sec_ring[b % SEC_RING].tag, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&wk->sec_ring[b % SEC_RING].ops, ops, memory_order_relaxed);
        atomic_store_explicit(&wk->sec_ring[b % SEC_RING].errs, errs, memory_order_relaxed);
        atomic_store_explicit(&wk->sec_ring[b % SEC_RING].tag, b, memory_order_release);
    }
    atomic_store_explicit(&wk->sec_passed, b, memory_order_release);
    /* The operation that passed the boundary counts after this fence: a
     * reader that sees it counted (pool_at_second) sees b published. */
    atomic_thread_fence(memory_order_release);
}

/*
 * A worker's measured operations and errors completed before boundary b
 * (measure_ns + b seconds), read while it runs: its record of b when it
 * passed b, else its counters now (every operation they hold ended before
 * b).  0 with *ops and *errs set; -1 when b's slot was overwritten (the
 * sampler more than SEC_RING seconds late): then the counters now.
 */
static int pool_at_second(const worker *wk, uint64_t b, uint64_t *ops, uint64_t *errs)
{
    *ops = atomic_load_explicit(&wk->ops, memory_order_relaxed);
    *errs = atomic_load_explicit(&wk->errors, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&wk->sec_passed, memory_order_acquire) < b)
        return 0;
    const uint64_t tag = atomic_load_explicit(&wk->sec_ring[b % SEC_RING].tag, memory_order_acquire);
    const uint64_t o = atomic_load_explicit(&wk->sec_ring[b % SEC_RING].ops, memory_order_relaxed);
    const uint64_t e = atomic_load_explicit(&wk->sec_ring[b % SEC_RING].errs, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (tag != b || atomic_load_explicit(&wk->sec_ring[b % SEC_RING].tag, memory_order_relaxed) != b)
        return -1;
    *ops = o;
    *errs = e;
    return 0;
}

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
 * Fold every worker's counters into one interval sample, from the last
 * tick to `tick`.  Warm-up intervals count the warm-up counters as they
 * are; measured ones the measured counters at boundary b (measure_ns + b
 * seconds, pool_at_second; b 0: as they are, for the last interval), so
 * each second counts what completed in it, and the measured series sums
 * exactly to the run's totals.
 */
static void sample_take(pool *p, sampler *s, uint64_t tick, int warmup, uint64_t b,
                        bench_sample *out)
{
    uint64_t ops = 0, errs = 0;

    memset(out, 0, sizeof *out);
    if (!warmup) {
        bench_hist_reset(s->sum);
        bench_hist_reset(s->fsum);
        memset(s->errs, 0, sizeof s->errs);
    }
    const uint64_t since = tick > p->start_ns ? tick - p->start_ns : 0;
    for (unsigned i = 0; i < p->n; i++) {
        worker *wk = &p->workers[i];
        if (warmup) {
            ops += atomic_load_explicit(&wk->warm_ops, memory_order_relaxed);
            errs += atomic_load_explicit(&wk->warm_errs, memory_order_relaxed);
        } else {
            uint64_t o, e;
            if (b)
                (void)pool_at_second(wk, b, &o, &e);   /* -1: the counters now, lumped */
            else {
                o = atomic_load_explicit(&wk->ops, memory_order_relaxed);
                e = atomic_load_explicit(&wk->errors, memory_order_relaxed);
            }
            ops += o;
            errs += e;
        }
        if (!warmup) {
            bench_hist_add(s->sum, wk->hist);
            const bench_hist *f = atomic_load_explicit(&wk->failed, memory_order_acquire);
            if (f)
                bench_hist_add(s->fsum, f);
            live_err_fold(s->errs, wk->errs);
        }
        if (wk->started && pool_ramp_offset(p, i) <= since)
            out->started++;
        if (wk->started && atomic_load_explicit(&wk->done, memory_order_relaxed))
            out->finished++;
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
        /* Every operation of the interval, failed ones too. */
        bench_hist_delta(s->all, s->fsum, s->fprev);
        bench_hist_add(s->all, s->delta);
        if (bench_hist_count(s->all)) {
            out->all_mean_ns = bench_hist_mean(s->all);
            out->all_min_ns = bench_hist_min(s->all);
            out->all_max_ns = bench_hist_max(s->all);
        }
    }
    if (p->load->mode == BENCH_MODE_NONBLOCKING) {
        const bench_load *l = p->load;
        if (l->arrivals) {
            /* What the recording asked for in the interval, issued or not. */
            const uint64_t due = bench_arrivals_before(l->arrivals, tick - p->start_ns);
            out->target = (double)(due > s->arr_counted ? due - s->arr_counted : 0);
            s->arr_counted = due;
        } else if (l->rate > 0 || l->stages) {
            /* What the schedule asked for in the interval, issued or not. */
            const uint64_t end = l->duration_ns ? p->measure_ns + l->duration_ns + BENCH_NS_PER_S
                                                : UINT64_MAX;
            out->target = (double)bench_schedule_count(l->rate, l->stages, p->start_ns, &s->due_next,
                                                       tick, end);
        } else {
            /* A window: a request is due when it is issued. */
            uint64_t sched = pool_scheduled_now(p);
            out->target = (double)(sched - s->sched_prev);
            s->sched_prev = sched;
        }
        /* Finished is read after issued: it may have passed that reading. */
        const uint64_t issued = pool_issued(p), finished = pool_completed(p);
        out->in_flight = issued > finished ? issued - finished : 0;
    } else if (p->load->stages) {
        out->target = (double)atomic_load(&p->active);
    }
    out->span_s = (double)(tick - s->tick_prev_ns) / 1e9;
    /* A lumped reading (b's slot lost) may pass the next boundary's record. */
    out->ops = ops > s->ops_prev ? ops - s->ops_prev : 0;
    out->errors = errs > s->errs_prev ? errs - s->errs_prev : 0;
    if (out->errors > out->ops)
        out->errors = out->ops;
    s->ops_prev = ops > s->ops_prev ? ops : s->ops_prev;
    s->errs_prev = errs > s->errs_prev ? errs : s->errs_prev;
    s->tick_prev_ns = tick;
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

/* A single pass of arrivals: the last issued, and every issued request
 * completed (read in that order: completed only grows past issued). */
static int ran_out(const pool *p)
{
    if (!atomic_load_explicit(&p->disp_over, memory_order_acquire))
        return 0;
    const uint64_t issued = pool_issued(p);
    return pool_completed(p) >= issued;
}

static int all_done(const pool *p)
{
    for (unsigned i = 0; i < p->n; i++)
        if (!atomic_load(&p->workers[i].done) && !p->workers[i].abandoned)
            return 0;
    return 1;
}

int pool_sample_loop(pool *p, const bench_load *load, const bench_flag *interrupt,
                     bench_second_fn on_second, void *arg, bench_outcome *out)
{
    sampler s = { bench_hist_new(), bench_hist_new(), bench_hist_new(), bench_hist_new(),
                  bench_hist_new(), bench_hist_new(), 0, 0, p->start_ns,
                  load->warmup_ns > 0, 0, 0, { { 0, 0 } }, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
    const int until_stable = load->stable_pct > 0;
    size_t cap = 0;
    uint32_t warm_k = 0, k = 0;
    const uint64_t end_ns = load->duration_ns ? p->measure_ns + load->duration_ns : UINT64_MAX;
    uint64_t failing_ns = 0;       /* measured time in a row in which every operation failed */
    int rc = 0;

    if (load->mode == BENCH_MODE_NONBLOCKING && (load->rate > 0 || load->stages))
        s.due_next = pool_first_due(p);
    const int arrivals_once = load->arrivals && !load->arrivals->period_ns;
    if (!s.sum || !s.prev || !s.delta || !s.fsum || !s.fprev || !s.all) {
        rc = -1;
        goto stop;
    }
    out->client_cpu = -1;
    out->stable_pct = load->stable_pct;
    for (;;) {
        uint64_t now = bench_now_ns();
        /* Ticks are the run's own seconds, not when this thread woke: a
         * warm-up tick not taken yet is still warm-up, however late. */
        int in_warmup = s.tick_prev_ns < p->measure_ns;
        if (!in_warmup && !s.cpu_taken) {
            /* The measured part begins: at the release, or at the warm-up's
             * last tick, which falls on its end. */
            s.cpu0_ns = bench_process_cpu_ns();
            s.wall0_ns = bench_now_ns();
            s.cpu_taken = s.cpu0_ns != 0;
        }
        uint64_t tick = in_warmup ? p->start_ns + (uint64_t)(warm_k + 1) * BENCH_NS_PER_S
                                  : p->measure_ns + (uint64_t)(k + 1) * BENCH_NS_PER_S;
        if (in_warmup && tick > p->measure_ns)
            tick = p->measure_ns;
        if (tick > end_ns)
            tick = end_ns;

        int finished = 0;
        while ((now = bench_now_ns()) < tick) {
            if (*interrupt || (load->stop && *load->stop) || all_done(p)) {
                finished = 1;
                break;
            }
            if (arrivals_once && ran_out(p)) {
                p->ran_out = 1;
                finished = 1;
                break;
            }
            /* A call that never returns ends the run (bench_load.stuck_ns). */
            if (load->stuck_ns && pool_abandon_stuck(p, now, load->stuck_ns, 0)) {
                finished = 1;
                break;
            }
            uint64_t poll = load->stages && load->mode == BENCH_MODE_BLOCKING ? STAGE_NS : POLL_NS;
            uint64_t wake = now + poll < tick ? now + poll : tick;
            if (until_stable && !in_warmup) {
                if (fine_take(p, &s, now) != 0) {
                    rc = -1;
                    break;
                }
                if (s.fine_next_ns < wake)
                    wake = s.fine_next_ns;
            }
            bench_sleep_until_ns(wake);
            pool_set_active(p, bench_now_ns());
        }
        if (rc != 0)
            break;
        if (*interrupt) {
            out->status = BENCH_RUN_INTERRUPTED;
            finished = 1;
        } else if (load->stop && *load->stop) {
            out->status = BENCH_RUN_STOPPED;
            finished = 1;
        }
        /* Woken past the end (or past several ticks): the whole seconds
         * before the end are sampled first, each its own. */
        if (!finished && now >= end_ns)
            finished = tick >= end_ns;
        if (finished) {
            p->stop_ns = now < end_ns ? now : end_ns;
            break;
        }

        bench_sample smp;
        sample_take(p, &s, tick, in_warmup, in_warmup ? 0 : k + 1, &smp);
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
            /* A device that is gone fails everything at once: stop rather
             * than count millions of instant failures. */
            if (smp.ops && smp.errors == smp.ops)
                failing_ns += (uint64_t)(smp.span_s * 1e9);
            else if (smp.ops)
                failing_ns = 0;
        }
        so_far(&s, &smp);
        if (on_second)
            on_second(arg, &smp);
        if (load->abort_ns && failing_ns >= load->abort_ns) {
            out->status = BENCH_RUN_ABORTED;
            p->stop_ns = now;
            break;
        }
        /* --until-stable: judged after each measured second, the run ends
         * at this tick as a duration would end it. */
        if (until_stable && !in_warmup) {
            if (fine_take(p, &s, tick > now ? tick : now) != 0) {
                rc = -1;
                break;
            }
            bench_stable_eval_batch(s.fine, s.nfine, load->stable_pct, load->stable_batch, &out->stable);
            if (out->stable.stable &&
                tick - p->measure_ns >= (load->stable_min_ns ? load->stable_min_ns : BENCH_STABLE_MIN_NS)) {
                out->stable_stop = BENCH_STABLE_STOPPED;
                p->stop_ns = tick;
                break;
            }
        }
    }
stop:
    if (s.cpu_taken) {
        /* Up to the stop; the drain of what is in flight is not measured. */
        const uint64_t cpu1 = bench_process_cpu_ns(), wall1 = bench_now_ns();
        if (cpu1 >= s.cpu0_ns && wall1 > s.wall0_ns + BENCH_NS_PER_S / 100)
            out->client_cpu = (double)(cpu1 - s.cpu0_ns) / (double)(wall1 - s.wall0_ns);
    }
    pool_stop(p);

    /* The last, partial interval: from the last tick to the end of the
     * measured part (what completed after the stop, from operations begun
     * before it, counts in it), so the intervals add up to the duration. */
    if (rc == 0) {
        const uint64_t end = pool_measured_end(p);
        if (end < s.tick_prev_ns && out->nsamples && end > p->measure_ns) {
            /* The last operation ended before the last tick (a run bounded
             * by iterations, seen done only then): that interval ends with it. */
            bench_sample *last = &out->samples[out->nsamples - 1];
            last->span_s -= (double)(s.tick_prev_ns - end) / 1e9;
            if (last->span_s < 0)
                last->span_s = 0;
        }
        if (end > p->measure_ns && (end > s.tick_prev_ns || out->nsamples == 0)) {
            bench_sample smp;
            sample_take(p, &s, end > s.tick_prev_ns ? end : s.tick_prev_ns, 0, 0, &smp);
            if (smp.ops || smp.span_s >= 0.001 || out->nsamples == 0) {
                smp.t = ++k;
                if (samples_push(out, &cap, &smp) != 0)
                    rc = -1;
                else if (on_second) {
                    /* Even a sliver: its operations count in running totals
                     * (JMeter's summary =); the session prints no per-second
                     * line for less than BENCH_SLIVER_S. */
                    so_far(&s, &smp);
                    on_second(arg, &smp);
                }
            }
        }
    }
    if (until_stable && rc == 0 && out->stable_stop != BENCH_STABLE_STOPPED) {
        /* The steady state of the whole sub-intervals up to the end. */
        const uint64_t end = pool_measured_end(p);
        if (end > p->measure_ns && fine_take(p, &s, end) != 0)
            rc = -1;
        const size_t whole = end > p->measure_ns ? (size_t)((end - p->measure_ns) / BENCH_STABLE_TICK_NS) : 0;
        bench_stable_eval_batch(s.fine, s.nfine < whole ? s.nfine : whole, load->stable_pct,
                                load->stable_batch, &out->stable);
        out->stable_stop = out->status == BENCH_RUN_OK && load->duration_ns &&
                           end >= p->measure_ns + load->duration_ns
                               ? BENCH_STABLE_BOUND : BENCH_STABLE_CUT;
    }
    free(s.fine);
    bench_hist_free(s.sum);
    bench_hist_free(s.prev);
    bench_hist_free(s.delta);
    bench_hist_free(s.fsum);
    bench_hist_free(s.fprev);
    bench_hist_free(s.all);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/pool.h - the closed-loop (blocking) worker pool.
 *
 * N threads each open their workload state (a session, keys) before the
 * clock starts, wait at a barrier, and are released together.  Each then
 * loops do_one() until the run's bound (duration or iterations) is reached
 * or an interrupt is seen.  The calling thread is the sampler: once a
 * second it reads every worker's counters and histogram (lock-free, see
 * hist.h) and reports that second's operations and percentiles.
 */
#ifndef BENCH_POOL_H
#define BENCH_POOL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/core/hist.h"
#include "bench/core/schedule.h"
#include "bench/util/signals.h"
#include "bench/core/stable.h"
#include "bench/core/stages.h"
#include "bench/core/workload.h"

typedef enum {
    BENCH_MODE_BLOCKING = 0,    /* closed loop: each thread starts its next operation at once */
    BENCH_MODE_NONBLOCKING,     /* open loop: a schedule issues requests, threads execute them */
} bench_mode;

typedef struct bench_load {
    unsigned threads;
    uint64_t duration_ns;   /* measured duration; 0 when iterations bound the run */
    uint64_t iterations;    /* measured operations in total; 0 when duration bounds */
    int      per_thread;    /* iterations count per thread, not in total */
    uint64_t warmup_ns;     /* run this long first, excluded from every result */
    uint64_t warmup_ops;    /* or (blocking only): each thread's first N operations are warm-up */
    bench_mode mode;
    double   rate;          /* non-blocking: operations/s in total (0: by window) */
    unsigned inflight;      /* non-blocking: at most this many outstanding (0: no cap) */
    const bench_stages *stages;  /* ramp of threads (blocking) or rate (non-blocking) */
    /* Non-blocking, instead of a rate or a ramp: requests due at recorded
     * offsets from the run's start (bench/core/schedule.h; hsmbench
     * replay).  The measured part ends when the last of a single pass has
     * completed (its end is that completion), or at duration_ns, which may
     * then be 0; a looped one (period_ns) needs duration_ns. */
    const bench_arrivals *arrivals;
    uint64_t think_ns;      /* blocking: pause after each operation, untimed */
    /* Blocking: thread i of n begins its first operation i * ramp_up_ns / n
     * after the release (JMeter's ramp-up: threads started evenly over it),
     * inside the measured run as JMeter counts it; 0: all at once. */
    uint64_t ramp_up_ns;
    /* Stop the run (status failed) once every operation of this long a
     * stretch of measured seconds failed: the device is gone (0: never). */
    uint64_t abort_ns;
    /* Non-blocking with a schedule: the share of its scheduled requests (0
     * to 1) that may never start before the run fails as saturated
     * (bench_schedule_unkept; --max-unstarted, default 1 %). */
    double   max_unstarted;
    /* A worker inside one call of the workload (do_one and its after(), an
     * asynchronous submit, poll or await) for this long is stuck: the run
     * stops as failed, naming the worker, the call and the time, and the
     * worker is abandoned (never joined; its figures up to its last
     * completed operation are kept).  0: never (a stop after a signal still
     * abandons a call BENCH_STOP_GRACE_NS after the stop). */
    uint64_t stuck_ns;
    /* Stop the measured run where it is, once *stop is non-zero (status
     * BENCH_RUN_STOPPED, the figures kept): a caller's judgement of the
     * run so far, made in its bench_second_fn (a threshold's abort).
     * NULL: never.  Polled as the interrupt is. */
    const bench_flag *stop;
    /* --until-stable: end the measured run, as its duration ends it, once
     * the 95 % interval of its steady-state throughput is within this
     * percentage of its mean (bench/core/stable.h); duration_ns is the
     * bound.  0: off. */
    double   stable_pct;
    /* With stable_pct: the measured run before a stop may end it (0:
     * BENCH_STABLE_MIN_NS), and the sub-intervals a batch starts at (0:
     * BENCH_STABLE_MSER_BATCH; see bench_stable_eval_batch).  A datasheet's
     * short steps set both; the command-line flag sets neither. */
    uint64_t stable_min_ns;
    unsigned stable_batch;
    /* Per-request results (--out jtl): each measured operation, described
     * (bench_request), handed to sink->put by the worker that did it, after
     * the operation and outside its timing; NULL: none (one predictable
     * branch a request). */
    const struct bench_request_sink *sink;
} bench_load;

/* Where the measured requests go, one call each, from the worker threads
 * at once: put() must keep each worker's (r->worker) apart and lock
 * nothing a request. */
typedef struct bench_request_sink {
    void (*put)(void *arg, const bench_request *r);
    void *arg;
} bench_request_sink;

/* --max-unstarted's default: 1 % of the scheduled requests. */
#define BENCH_MAX_UNSTARTED_DEFAULT 0.01

/* After a stop by a signal, a worker still inside a call is abandoned this
 * long after the stop (or sooner, at stuck_ns into its call), so that the
 * run ends and its results are written whatever the module does. */
#define BENCH_STOP_GRACE_NS (5ULL * 1000000000ULL)

typedef struct bench_sample {
    uint32_t t;             /* 1-based second of the measured run; 0 during warm-up */
    double   span_s;        /* length of the interval (the last one may be partial) */
    uint64_t ops;           /* operations completed in the interval, errors included
                               (successful ones: ops - errors) */
    uint64_t errors;
    uint64_t p50_ns, p99_ns;  /* of the interval's successful operations */
    int      warmup;
    double   target;        /* stages/rate: threads or operations scheduled (0: none) */
    uint64_t in_flight;     /* non-blocking: requests issued and not completed */
    /* Every operation of the interval, failed ones included (JMeter's
     * summariser counts them in its Avg, Min and Max); 0 when none. */
    double   all_mean_ns;
    uint64_t all_min_ns, all_max_ns;
    /* Threads begun so far (past a ramp-up's offset) and finished (their
     * share of an iteration count done): JMeter's Started and Finished. */
    unsigned started, finished;
    /* The measured run so far, for live exporters (bench/results/metrics.h): the
     * sampler's merged histogram and errors by code (unsorted).  Valid only
     * during the bench_second_fn call; NULL/0 in warm-up and out->samples. */
    const bench_hist       *hist_so_far;
    const struct bench_err *errs_so_far;
    size_t                  nerrs_so_far;
} bench_sample;

typedef struct bench_err {
    bench_code code;
    uint64_t   count;
} bench_err;

typedef enum {
    BENCH_RUN_OK = 0,
    BENCH_RUN_INTERRUPTED,
    BENCH_RUN_FAILED,       /* could not start: a worker failed to open; or, measured
                               (bench_pool_run returned 0), a worker was stuck in a call */
    BENCH_RUN_ABORTED,      /* measured, then stopped: every operation failed (abort_ns) */
    BENCH_RUN_STOPPED,      /* measured, then stopped by the caller (bench_load.stop) */
} bench_run_status;

/* One class of a breakdown (bench_workload.breakdown), measured part only. */
typedef struct bench_class_outcome {
    uint64_t    ops;            /* errors included */
    uint64_t    errors;
    bench_hist *hist;           /* latency of the class's successful operations */
    bench_err  *errs;           /* by code, most frequent first */
    size_t      nerrs;
} bench_class_outcome;

/* The share of the machine's CPUs kept busy by hsmbench (client_cpu) from
 * which its own machine, not the target, may be what limited a run. */
#define BENCH_CLIENT_CPU_BOUND 0.9

/* Did hsmbench keep BENCH_CLIENT_CPU_BOUND of host_cpus busy?  No when
 * either is unknown (host_cpus 0, client_cpu below 0). */
static inline int bench_client_cpu_bound(double client_cpu, double host_cpus)
{
    return host_cpus > 0 && client_cpu >= BENCH_CLIENT_CPU_BOUND * host_cpus;
}

/*
 * Was a schedule not kept?  More of its scheduled requests never started
 * than max_frac of them, and than the operations the run could have in
 * service at once (concurrency: the threads, or an engine's slots), which
 * is what a run that keeps up may still have waiting for a thread when it
 * stops.  The verdict (bench_outcome_verdict) and the capacity search's
 * steps both judge by it.
 */
static inline int bench_schedule_unkept(uint64_t scheduled, uint64_t unstarted, uint64_t concurrency,
                                        double max_frac)
{
    return scheduled > 0 && (double)unstarted > max_frac * (double)scheduled && unstarted > concurrency;
}

typedef struct bench_outcome {
    bench_run_status status;
    char        reason[256];    /* when status is FAILED; with stuck, the first stuck
                                   worker ("worker 2 stuck in C_Sign for 12.0 s") */
    /* Workers abandoned inside a call (bench_load.stuck_ns, or after a stop
     * by a signal): their threads still run in the workload, so it must not
     * be closed or unloaded (0: none). */
    unsigned    stuck;
    double      duration_s;     /* the measured part: the plan's length (a duration or
                                   stages), or, bounded by iterations, until the
                                   last operation ended; cut short by an interrupt */
    uint64_t    ops;            /* measured operations, errors included */
    uint64_t    errors;
    bench_hist *hist;           /* latency of successful measured operations */
    bench_hist *failed;         /* latency of failed ones (their attempts' latency with hist) */
    bench_err  *errs;           /* errors by code, most frequent first */
    size_t      nerrs;
    bench_sample *samples;      /* the measured per-second series */
    size_t      nsamples;
    /* non-blocking runs: hist is the response time from the scheduled
     * start; these split it into its parts */
    bench_hist *service;        /* actual start to completion */
    bench_hist *queue;          /* scheduled start to actual start */
    uint64_t    scheduled;      /* requests the schedule called for in the measured run */
    uint64_t    late;           /* issued more than 1 ms after their scheduled time */
    uint64_t    dropped;        /* scheduled but never started before the end */
    bench_hist *unstarted;      /* the dropped ones' latency, a lower bound: from when each
                                   was due to the end of the measured part (as wrk2 counts
                                   them); NULL for a run without a schedule */
    unsigned    concurrency;    /* operations it could have in service at once: the threads,
                                   or an asynchronous engine's slots */
    double      max_unstarted;  /* the load's bound on dropped / scheduled */
    int         has_schedule;   /* a rate, a ramp or arrivals set the due times (not a
                                   window alone) */
    double      target_rate;    /* scheduled requests / duration */
    uint64_t    measure_start_epoch_ms;  /* wall clock when measuring began (merging) */
    double      client_cpu;     /* CPUs this process kept busy in the measured part (user
                                   + system time of all its threads over the wall time);
                                   < 0 when not known; from BENCH_CLIENT_CPU_BOUND of the
                                   machine's CPUs on, hsmbench itself may be the limit */
    bench_side  side;           /* the workload's side metrics, every worker's merged */
    /* Per class of each breakdown the workload declared (NULL: none):
     * by[k] has nby[k] == breakdown[k]->n entries; they add up to ops and
     * errors.  A class's hist is never NULL (empty when it had no success). */
    bench_class_outcome *by[BENCH_BREAKDOWNS];
    unsigned             nby[BENCH_BREAKDOWNS];
    /* --until-stable (bench_load.stable_pct): how the run ended and the
     * steady state of its whole sub-intervals at the end (OFF: not asked). */
    bench_stable_stop    stable_stop;
    double               stable_pct;     /* the target */
    bench_stable         stable;
    /* Blocking ramps (stages): the fewest and most workers the ramp let run
     * in the measured part, at every step of the gate (about 20 ms), its
     * start and its end included; a run shorter than a second has no
     * whole sample, but these hold.  0 and 0 without a ramp. */
    unsigned             ramp_min, ramp_max;
} bench_outcome;

/* Called by the sampler thread once a second (and for warm-up seconds),
 * and once for the last, partial interval however short: a last interval
 * shorter than BENCH_SLIVER_S is for running totals, not for a per-second
 * line (its rate would mean nothing). */
typedef void (*bench_second_fn)(void *arg, const bench_sample *s);
#define BENCH_SLIVER_S 0.05

/*
 * Run the pool.  `interrupt` is polled (at least every 100 ms) and stops the
 * run when it becomes non-zero.  Returns 0 when the run took place (check
 * out->status for OK or INTERRUPTED), -1 when it could not start
 * (out->status FAILED and out->reason say why).  out must be released with
 * bench_outcome_free in every case.
 */
int  bench_pool_run(const bench_workload *w, const bench_load *load,
                    const bench_flag *interrupt,
                    bench_second_fn on_second, void *arg, bench_outcome *out);
void bench_outcome_free(bench_outcome *out);

/* Asynchronous slots (operations in flight at most) a non-blocking run asks
 * of an engine that has them: --inflight K, else this many per thread. */
#define BENCH_ASYNC_SLOTS_PER_THREAD 16
/* That count for `load`; 0 for a blocking run. */
unsigned bench_async_slots(const bench_load *load);

#endif

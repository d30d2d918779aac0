/*
 * bench/pool.h - the closed-loop (blocking) worker pool.
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

#include "bench/hist.h"
#include "bench/workload.h"

typedef struct bench_load {
    unsigned threads;
    uint64_t duration_ns;   /* measured duration; 0 when iterations bound the run */
    uint64_t iterations;    /* measured operations in total; 0 when duration bounds */
    uint64_t warmup_ns;     /* run this long first, excluded from every result */
} bench_load;

typedef struct bench_sample {
    uint32_t t;             /* 1-based second of the measured run; 0 during warm-up */
    double   span_s;        /* length of the interval (the last one may be partial) */
    uint64_t ops;           /* operations completed in the interval, errors included */
    uint64_t errors;
    uint64_t p50_ns, p99_ns;  /* of the interval's successful operations */
    int      warmup;
} bench_sample;

typedef struct bench_err {
    bench_code code;
    uint64_t   count;
} bench_err;

typedef enum {
    BENCH_RUN_OK = 0,
    BENCH_RUN_INTERRUPTED,
    BENCH_RUN_FAILED,       /* could not start: a worker failed to open */
} bench_run_status;

typedef struct bench_outcome {
    bench_run_status status;
    char        reason[256];    /* when status is FAILED */
    double      duration_s;     /* measured wall time, warm-up excluded */
    uint64_t    ops;            /* measured operations, errors included */
    uint64_t    errors;
    bench_hist *hist;           /* latency of successful measured operations */
    bench_err  *errs;           /* errors by code, most frequent first */
    size_t      nerrs;
    bench_sample *samples;      /* the measured per-second series */
    size_t      nsamples;
} bench_outcome;

/* Called by the sampler thread once a second (and for warm-up seconds). */
typedef void (*bench_second_fn)(void *arg, const bench_sample *s);

/*
 * Run the pool.  `interrupt` is polled (at least every 100 ms) and stops the
 * run when it becomes non-zero.  Returns 0 when the run took place (check
 * out->status for OK or INTERRUPTED), -1 when it could not start
 * (out->status FAILED and out->reason say why).  out must be released with
 * bench_outcome_free in every case.
 */
int  bench_pool_run(const bench_workload *w, const bench_load *load,
                    const volatile sig_atomic_t *interrupt,
                    bench_second_fn on_second, void *arg, bench_outcome *out);
void bench_outcome_free(bench_outcome *out);

#endif

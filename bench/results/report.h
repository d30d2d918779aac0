/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report.h - what a run looks like to people (the per-second line and
 * the k6-style summary) and to programs (the hsmbench.result/3 JSON).
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "bench/core/pool.h"
#include "bench/results/model.h"

#define BENCH_RESULT_SCHEMA "hsmbench.result/3"
/* Still read, and upgraded to /3 as they are loaded (bench_results_load):
 * in /2, ops (of a run, a second, a class) counted attempts, errors
 * included; in /1, ops_per_s counted them too. */
#define BENCH_RESULT_SCHEMA_V2 "hsmbench.result/2"
#define BENCH_RESULT_SCHEMA_V1 "hsmbench.result/1"

/* How a run was set up; strings may be NULL where they do not apply. */
typedef struct bench_run_desc {
    const char *test;
    const char *mechanism;     /* "CKM_SHA256_RSA_PKCS" */
    const char *mode;          /* "blocking" */
    const char *key_type;      /* "RSA" */
    const char *key_desc;      /* "RSA 2048" */
    const char *curve;         /* "P-256" */
    unsigned    key_bits;
    unsigned    threads;
    uint64_t    data_size;
    uint64_t    block_size;    /* a raw operation on one block (RSA X.509: the modulus
                                  length, bytes): shown instead of the data size; 0: none */
    const char *data_desc;     /* what stands for the data size when one number does not
                                  say it ("data 1024 B" for a mix whose types share one,
                                  "mixed data sizes"), or NULL */
    double      warmup_s;
    double      duration_s;    /* as asked; 0 when iterations bound the run */
    uint64_t    iterations;    /* as asked; 0 when the duration bounds it */
    int         per_thread;    /* iterations is each thread's (--loops, --iterations-per-thread) */
    double      ramp_up_s;     /* blocking: threads started evenly over this (JMeter's ramp-up) */
    double      rate;          /* non-blocking: target operations/s (0: none) */
    unsigned    inflight;      /* non-blocking: window (0: none) */
    const char *stages;        /* the --stages text, or NULL */
    double      think_s;       /* blocking: pause after each operation */
    const char *engine;        /* how non-blocking ran: "worker pool", "PKCS#11 async
                                  sessions", "curl multi" */
    unsigned    slots;         /* with an asynchronous engine: operations in flight at most */
} bench_run_desc;

/* pkpspeed's line, exactly: "OPERATIONS/second                821/1"; with a
 * schedule or ramp, target, in flight, p50 and p99 of the second follow. */
void bench_report_second(FILE *f, const bench_sample *s);

/* One line announcing a run before it starts. */
void bench_report_header(FILE *f, const bench_run_desc *d);

/* The end-of-run summary: the setup from d, every figure from the run
 * model (model.h), so that it says what the results file says. */
void bench_report_summary(FILE *f, const bench_run_desc *d, const bench_run_model *m);

/*
 * One k6-style trend line of a latency summary of the run model (model.h;
 * µs): "    NAME.......: avg=... min=... med=... p(90)=... p(95)=...
 * p(99)=... p(99.9)=... max=... stddev=...", the name padded with dots to
 * `width` columns (22 in the summary), or `empty` when it has no values.
 */
void bench_report_latency_line(FILE *f, int width, const char *name, const bench_model_latency *l,
                               const char *empty);

/*
 * The verdict on a measured run: "interrupted"; "failed" when it was
 * stopped because every operation failed (load.abort_ns), when no operation
 * completed, or when most (more than half) failed, with the reason naming
 * the dominant cause ("97.3 % CKR_DEVICE_ERROR"), or when a schedule (a
 * rate or a ramp) was not kept: more of its scheduled requests never
 * started than its bound (--max-unstarted) and its concurrency
 * (bench_schedule_unkept), "target saturated: N of M scheduled requests
 * never started ...", its latency_us then incomplete (the run element's
 * latency_complete false: every latency threshold fails); else "ok"
 * (errors below half still count, and make the exit status 1).
 */
const char *bench_outcome_verdict(const bench_outcome *o, const bench_workload *w, char *reason,
                                  size_t len);

/* One element of "runs": a measured run, or (o == NULL) a skipped/failed one. */
json_t *bench_report_run_json(const bench_run_desc *d, const bench_outcome *o,
                              const bench_workload *w, const char *status, const char *reason);

/* latency_us of a histogram: min mean stddev p50 p90 p95 p99 p999 max in µs
 * to 0.01, and count. */
json_t *bench_report_latency_json(const bench_hist *h);

/* The histogram as JSON (sparse [index, count] pairs) and back. */
json_t *bench_hist_to_json(const bench_hist *h);
int     bench_hist_from_json(const json_t *j, bench_hist *h);

/* {"hostname", "os", "kernel", "machine", "cpus"} of this machine. */
json_t *bench_report_host_json(void);

/* Write a document to path as bench_out_write does (bench/util/outfile.h), or to
 * standard output when path is "-" (a failed write is an error, printed). */
int bench_report_write(const char *path, json_t *doc);

#endif

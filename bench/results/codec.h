/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/codec.h - the results document's codec, at the bottom of the
 * results floor: the schema's names, the field readers (and whether two run
 * elements measured the same setup), a run element (and its per-second
 * series) written from what the core measured, and the histogram as JSON
 * and back.
 *
 * The run model (model.h), the per-second series (series.h) and the target
 * (target.h) read the document through it; every view renders the model.
 * It includes no other header of the floor, as HdrHistogram_c keeps its
 * codec apart from the histogram.
 */
#ifndef BENCH_CODEC_H
#define BENCH_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/core/hist.h"
#include "bench/core/pool.h"

#define BENCH_RESULT_SCHEMA "hsmbench.result/3"
/* Still read, and upgraded to /3 as they are loaded (bench_results_load):
 * in /2, ops (of a run, a second, a class) counted attempts, errors
 * included; in /1, ops_per_s counted them too. */
#define BENCH_RESULT_SCHEMA_V2 "hsmbench.result/2"
#define BENCH_RESULT_SCHEMA_V1 "hsmbench.result/1"

/* A results file may be at most 64 MiB (checked before it is parsed), and
 * no number in it may pass 2^53 in size (exact in a double, and no sum of
 * 4096 files' counts can overflow 64 bits). */
#define BENCH_RESULTS_MAX_BYTES (64 << 20)
#define BENCH_RESULTS_MAX_VALUE (1ULL << 53)

/* ---- reading ------------------------------------------------------------- */

/* Field readers for validated documents: the default when absent. */
double      bench_json_num(const json_t *obj, const char *key, double dflt);
long long   bench_json_int(const json_t *obj, const char *key, long long dflt);
const char *bench_json_str(const json_t *obj, const char *key, const char *dflt);

/* True when the run holds measured figures (status ok, or interrupted or
 * failed with what was measured until then). */
int bench_run_measured(const json_t *run);

/* "RSA 2048", "EC P-256", "AES 256", or "-" for a run without a key. */
const char *bench_run_key_desc(const json_t *run, char *buf, size_t len);

/*
 * Whether two runs measured the same thing: test, mode, key, data size and
 * (unless ignore_threads) threads.  Returns 1 when they match; 0 when not,
 * with the first difference in why ("threads 2 vs 1", "key RSA 3072 vs RSA
 * 2048", "test ecdsa-sign vs rsa-pkcs-sign").
 */
int bench_run_same_setup(const json_t *a, const json_t *b, int ignore_threads,
                         char *why, size_t whylen);

/* A status whose figures are a finished run's (ok or errors): one that a
 * sweep, a capacity probe or a datasheet takes as measured. */
int bench_model_status_sound(const char *status);

/* A run's per-second series in the JSON: its "per_second_upper_bound" flag. */
#define BENCH_MODEL_UPPER_BOUND_KEY "per_second_upper_bound"

/* ---- writing ------------------------------------------------------------- */

/* One second of the measured run. */
typedef struct bench_model_second {
    double   t;            /* seconds since the measured part began */
    double   span_s;
    uint64_t ops;          /* successes */
    uint64_t errors;
    double   p50_us, p99_us;
    int      has_target;
    double   target;
    int      has_in_flight;
    uint64_t in_flight;
} bench_model_second;

/*
 * One sample of the per-second series as the run model holds it: the
 * results file's per_second element, the --out jsonl stream's figures.
 * open_loop: the run has a schedule (every second its target and what was
 * in flight); staged: a ramp (every second its target, 0 included).
 */
void bench_model_second_of(const bench_sample *s, int open_loop, int staged, bench_model_second *x);
/* x as a per_second element: {t, span_s, ops, errors, p50_us, p99_us[,
 * target][, in_flight]}; NULL when out of memory. */
json_t *bench_model_second_json(const bench_model_second *x);

/*
 * The rate of n operations in span_s seconds as every view shows it: the
 * results file's ops_per_s and attempts_per_s, the JMeter summariser's
 * lines (rest/http_any.h).  Rounded to hundredths, as the file stores it,
 * so the same operations over the same span give the same figure in every
 * line and every view (2 398.6/s and 2 398.7/s for one run's 2 000 samples
 * were a rate rounded twice against one rounded once).  0 when span_s <= 0.
 */
double bench_model_rate(uint64_t n, double span_s);

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

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/metrics.h - live metrics for Prometheus: --metrics-listen.
 *
 * While a command runs, a small HTTP server (libmicrohttpd, one thread)
 * answers GET /metrics in the Prometheus text exposition format 0.0.4.
 * Every series of a run carries the labels a fleet of generators needs:
 *
 *   run_id, generator        --run-id (default: the --start-at time, else the
 *                            start time), --generator (default 0)
 *   target_kind, target_id   environment.target's kind and id (no secrets:
 *                            a module's file name and token serial, a URL
 *                            without credentials or query)
 *   test, threads, mode      the run: a --threads sweep is a series a count
 *
 *   hsmbench_operations_total      counter  measured operations that succeeded
 *                                           (the results file's ops)
 *   hsmbench_attempts_total        counter  measured operations, errors included
 *   hsmbench_errors_total{code}    counter  failed ones, by the provider's code,
 *                                           spaces as underscores (HTTP_503)
 *   hsmbench_latency_seconds       histogram successful operations, from the
 *                                           core's HDR histogram, each boundary the
 *                                           top of an HDR slot (exact folding): by
 *                                           default 25, 4 a decade from 10 us to
 *                                           10 s; --metrics-buckets fine: 416, 16 an
 *                                           octave from 1 us to 60 s (the errors of
 *                                           histogram_quantile: docs/multi-host.md)
 *   hsmbench_client_cpu            gauge    CPUs hsmbench keeps busy: over the last
 *                                           second while the test runs, the results
 *                                           file's client_cpu once it ended
 *   hsmbench_threads / _in_flight / _target_operations_per_second  gauges, 0 once
 *                                           the run ended
 *   hsmbench_phase{phase}          gauge    1 for the run's phase: warmup,
 *                                           measured, done
 *   hsmbench_run_info              gauge    1, with run_id, generator, target_kind,
 *                                           target_id
 *   hsmbench_serve_requests_total{route,status} counter  requests hsmbench serve
 *                                           answered (route: a fixed set)
 *   hsmbench_serve_faults_total{route,kind} counter  faults it injected
 *   process_*                      the process's CPU, memory, descriptors and
 *                                           start, as Prometheus's client libraries
 *                                           name them (bench/util/procstat.h)
 *
 * --metrics-push URL sends the same text to a Prometheus Pushgateway every
 * BENCH_METRICS_PUSH_EVERY_NS while the command runs and once at its end,
 * with PUT to URL/metrics/job/hsmbench/run_id@base64/R/generator@base64/G,
 * so a short-lived generator's last figures outlive it (docs/multi-host.md).
 *
 * The counters cover the measured run only, as the results file does, and
 * add up over the runs of one series; at a run's end they are set from the
 * run model, so they equal the results file.
 *
 * Threads: begin/second/end are called by the thread that runs the pool
 * (the sampler); served() by any thread (a mutex, once per request); the
 * server thread renders under the same mutex.  Workers never call in here.
 * Every function accepts a NULL server and does nothing: the hooks in the
 * commands need no condition.
 */
#ifndef BENCH_METRICS_H
#define BENCH_METRICS_H

#include <getopt.h>
#include <stdint.h>

#include "bench/core/pool.h"
#include "bench/util/signals.h"
#include "bench/core/workload.h"
#include "bench/results/model.h"
#include "bench/results/target.h"

#define BENCH_METRICS_LINGER_DEFAULT_NS (5ULL * 1000000000ULL)
#define BENCH_METRICS_DEFAULT_HOST "127.0.0.1"
/* The latency histogram's range: its first and last finite boundary. */
#define BENCH_METRICS_LE_LOWEST_NS  1000ULL
#define BENCH_METRICS_LE_HIGHEST_NS 60000000000ULL
/* The default (coarse) histogram's: 4 a decade from 10 us to 10 s. */
#define BENCH_METRICS_COARSE_LOWEST_NS  10000ULL
#define BENCH_METRICS_COARSE_PER_DECADE 4
#define BENCH_METRICS_COARSE_COUNT      25
#define BENCH_METRICS_PUSH_EVERY_NS (5ULL * 1000000000ULL)

typedef struct bench_metrics bench_metrics;

typedef struct bench_metrics_opts {
    const char *listen;      /* --metrics-listen [ADDR:]PORT; NULL: no server */
    uint64_t    linger_ns;   /* --metrics-linger: keep answering this long after the end */
    int         fine;        /* --metrics-buckets fine: 16 buckets an octave */
    const char *push;        /* --metrics-push URL (the secret store's copy when it has
                                credentials or a query); NULL: no push */
} bench_metrics_opts;

enum { BENCH_OPT_METRICS_LISTEN = 1150, BENCH_OPT_METRICS_LINGER, BENCH_OPT_METRICS_BUCKETS,
       BENCH_OPT_METRICS_PUSH };

/* Their rows of the option table: bench_metrics_group (bench/driver/loadopts.h). */

void bench_metrics_opts_init(bench_metrics_opts *o);
/* Take one metrics option: 1 taken, 0 not one, -1 bad value (printed).
 * arg is argv's own text: a --metrics-push URL's credentials and query
 * are masked in it (bench_url_take), so ps does not show them. */
int  bench_metrics_opt(bench_metrics_opts *o, int code, char *arg);

/*
 * Listen and get ready to push, before anything runs.  0 with *out NULL
 * when neither --metrics-listen nor --metrics-push was given, 0 with a
 * running server or pusher, -1 (one line printed: a bad address, the port
 * in use, a bad push URL) otherwise.  Prints the URLs on standard error
 * (the push URL without credentials or query).
 */
int  bench_metrics_start(const bench_metrics_opts *o, bench_metrics **out);

/* The fleet's labels: this process's run id and generator index (NULL or
 * "": "-" and "0"). */
void bench_metrics_fleet(bench_metrics *m, const char *run_id, const char *generator);
/* The target's labels, from a results file's environment (its target);
 * takes the reference to environment (NULL: nothing). */
void bench_metrics_target(bench_metrics *m, json_t *environment);

/* A run of `test` begins (before bench_pool_run).  w names the codes and
 * must outlive the run. */
void bench_metrics_begin(bench_metrics *m, const char *test, const bench_load *load,
                         const bench_workload *w);
/* From the pool's per-second callback. */
void bench_metrics_second(bench_metrics *m, const bench_sample *s);
/* The run ended (after bench_pool_run): its figures from the run model
 * (the results file's); model NULL when it could not start (nothing is
 * counted).  Its gauges go to 0. */
void bench_metrics_end(bench_metrics *m, const bench_run_model *model);
/* hsmbench serve answered a request on `route` with `status` (0: none sent). */
void bench_metrics_served(bench_metrics *m, const char *route, unsigned status);
/* hsmbench serve's --fault took effect on a request on `route` (kind: the
 * fault's name, as --fault spells it). */
void bench_metrics_fault(bench_metrics *m, const char *route, const char *kind);
/*
 * Every run done: push the final figures (--metrics-push), keep answering
 * --metrics-linger (a signal cuts it short; no wait when nothing ran or was
 * served), then stop the server and free it.
 */
void bench_metrics_stop(bench_metrics *m, const bench_flag *interrupt);

/* The exposition text as the server would send it (tests); free() it. */
char *bench_metrics_render(bench_metrics *m);

#endif

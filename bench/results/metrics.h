/*
 * bench/results/metrics.h - live metrics for Prometheus: --metrics-listen.
 *
 * While a command runs, a small HTTP server (libmicrohttpd, one thread)
 * answers GET /metrics in the Prometheus text exposition format 0.0.4:
 *
 *   hsmbench_operations_total{test}          counter  measured operations that succeeded
 *                                                      (the results file's ops)
 *   hsmbench_attempts_total{test}            counter  measured operations, errors included
 *                                                      (the results file's attempts)
 *   hsmbench_errors_total{test,code[,status]} counter  failed ones, by the provider's code
 *                                                      (status: the HTTP status, REST only)
 *   hsmbench_latency_seconds{test}           histogram successful operations, from the
 *                                            core's own histogram (fixed le boundaries)
 *   hsmbench_threads / _in_flight / _target_operations_per_second{test}  gauges
 *   hsmbench_phase{test,phase}               gauge    1 for the run's phase: warmup,
 *                                                      measured, done
 *   hsmbench_serve_requests_total{route,status} counter  requests hsmbench serve answered
 *
 * The counters cover the measured run only, as the results file does, and
 * add up over the runs of one test (a --threads sweep); at a run's end they
 * are set from the run model, so they equal the results file.
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

#define BENCH_METRICS_LINGER_DEFAULT_NS (5ULL * 1000000000ULL)
#define BENCH_METRICS_DEFAULT_HOST "127.0.0.1"

typedef struct bench_metrics bench_metrics;

typedef struct bench_metrics_opts {
    const char *listen;      /* --metrics-listen [ADDR:]PORT; NULL: no server */
    uint64_t    linger_ns;   /* --metrics-linger: keep answering this long after the end */
} bench_metrics_opts;

enum { BENCH_OPT_METRICS_LISTEN = 1150, BENCH_OPT_METRICS_LINGER };

/* Their rows of the option table: bench_metrics_group (bench/driver/loadopts.h). */

void bench_metrics_opts_init(bench_metrics_opts *o);
/* Take one metrics option: 1 taken, 0 not one, -1 bad value (printed). */
int  bench_metrics_opt(bench_metrics_opts *o, int code, const char *arg);

/*
 * Listen, before anything runs.  0 with *out NULL when no --metrics-listen
 * was given, 0 with a running server, -1 (one line printed: a bad address,
 * the port in use) otherwise.  Prints the URL on standard error.
 */
int  bench_metrics_start(const bench_metrics_opts *o, bench_metrics **out);

/* A run of `test` begins (before bench_pool_run).  w names the codes and
 * must outlive the run; status_of (NULL but for REST) gives the HTTP
 * status of a code, 0 for none. */
void bench_metrics_begin(bench_metrics *m, const char *test, const bench_load *load,
                         const bench_workload *w, long (*status_of)(bench_code));
/* From the pool's per-second callback. */
void bench_metrics_second(bench_metrics *m, const bench_sample *s);
/* The run ended (after bench_pool_run): its figures from the run model
 * (the results file's), out only naming the HTTP status of each error
 * code; model NULL when it could not start (nothing is counted). */
void bench_metrics_end(bench_metrics *m, const bench_run_model *model, const bench_outcome *out);
/* hsmbench serve answered a request on `route` with `status` (0: none sent). */
void bench_metrics_served(bench_metrics *m, const char *route, unsigned status);
/*
 * Every run done: keep answering --metrics-linger (a signal cuts it short;
 * no wait when nothing ran or was served), then stop the server and free it.
 */
void bench_metrics_stop(bench_metrics *m, const bench_flag *interrupt);

/* The exposition text as the server would send it (tests); free() it. */
char *bench_metrics_render(bench_metrics *m);

#endif

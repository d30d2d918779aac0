/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/views/k6.h - k6's end-of-test summary for REST runs: every metric of k6's
 * text summary, with k6's names and meanings.  rest_k6_json computes them once
 * from the run's outcome into the run's "k6" object; the printers render that
 * object, as every view renders the run model.
 *
 *   checks              the checks, noted by the workloads
 *                       (rest_http_note_check): one a request, its status,
 *                       as the EKM package's script checks (status 200);
 *                       the body too where it is a check the user asked for
 *                       (rest http --expect-body, --expect-json: answer_checks).
 *                       EKM's and SDKMS's own verification of each answer
 *                       (fields, base64, round trip) is no k6 check: it is
 *                       checks.verified, out of the count
 *   data_received/sent  bytes on the wire, headers included, and their rates
 *   http_req_*          the request phases (rest/transport/phases.h), and
 *     { expected_response:true }  http_req_duration of requests whose status
 *                       was expected (not counted in http_req_failed); the
 *                       results' {expected_response:false} of the others,
 *                       for thresholds (k6's text summary shows it not)
 *   http_req_failed     the failed-request rate
 *   http_reqs           requests and their rate
 *   iterations          measured operations (errors included) and their rate
 *   iteration_duration  an operation plus --think: the core's latency of the
 *                       successful operations with --think added to every
 *                       figure (exact: --think is a constant pause)
 *   state               not a metric: what k6's closing "running (05.0s),
 *                       0/1 VUs, N complete and 0 interrupted iterations"
 *                       line says (the measured and the planned length in
 *                       ms, the iterations complete and those interrupted:
 *                       abandoned inside a call or cut short by Ctrl-C)
 *   vus, vus_max        threads (their stage targets in staged runs, with
 *                       the fewest and most the ramp let run), or
 *                       requests in flight in non-blocking runs, from the
 *                       per-second samples: the last value with min and max;
 *                       vus_max is the most there could be (threads, slots)
 */
#ifndef REST_K6_H
#define REST_K6_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/core/pool.h"

/* What the figures alone do not say about a run. */
typedef struct rest_k6_ctx {
    unsigned threads;     /* blocking: worker threads (the most, in staged runs) */
    unsigned slots;       /* non-blocking: transfers in flight at most (0: blocking) */
    int      stages;      /* staged run: each second's target is its thread count */
    uint64_t think_ns;    /* --think */
    uint64_t planned_ns;  /* the run's planned length (0: bounded by iterations) */
    int      answer_checks; /* the body checks are checks (rest http --expect-*), not
                             * the workload's own verification (ekm, sdkms) */
} rest_k6_ctx;

/* The context of a run under `load`. */
void rest_k6_ctx_of(rest_k6_ctx *c, const bench_load *load);

/* The k6 lines hsmbench's own REST summary adds (its layout), from the
 * run's "k6" object (rest_k6_json's). */
void rest_k6_lines(FILE *f, const json_t *k6);

/* --summary k6: the block in k6's order and layout (k6 v0.4x), to put
 * beside an old k6 summary; from the run's "k6" object. */
void rest_k6_print(FILE *f, const json_t *k6);

/* --summary k6 on standard output; -1 (printed) when it cannot be written. */
int rest_k6_summary(const json_t *k6);

/* The "k6" object of the results file's "http": one member per k6 metric,
 * named as k6 names it (docs/results-schema.md). */
json_t *rest_k6_json(const bench_outcome *o, const rest_k6_ctx *c);

/* k6's fixed-length duration of its progress line (GetFixedLengthDuration):
 * "05.0s", "01m30.0s", "01h00m05.0s", with as many fields as max_ms needs. */
const char *rest_k6_fixed_duration(double ms, double max_ms, char *buf, size_t len);

/* k6's formats: "253.6µs", "1.2s", "0s"; "4.6 MB", "115 kB". */
const char *rest_k6_duration(double ns, char *buf, size_t len);
const char *rest_k6_bytes(double b, char *buf, size_t len);

/* A distribution in the results' microseconds (min, mean, stddev, p50 ...
 * max, count), plus_ns added to all but stddev; h NULL: all zeros. */
json_t *rest_trend_json(const bench_hist *h, uint64_t plus_ns);

/* One trend line of a summary block: a distribution of the "http" object (µs),
 * or `empty` when it holds no values. */
void rest_trend_line(FILE *f, const char *name, const json_t *trend, const char *empty);

#endif

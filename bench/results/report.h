/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report.h - what a run looks like to people (the per-second line and
 * the k6-style summary), and its document written out (the run element
 * itself is codec.h's).
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "bench/core/pool.h"
#include "bench/results/codec.h"
#include "bench/results/model.h"

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

/* Write a document to path as bench_out_write does (bench/util/outfile.h), or to
 * standard output when path is "-" (a failed write is an error, printed). */
int bench_report_write(const char *path, json_t *doc);

#endif

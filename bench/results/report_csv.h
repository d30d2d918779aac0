/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report_csv.h - the CSV reports of a document: the bench's
 * layout (report_csv.c) and the tidy one (report_tidy.c), every figure from
 * the run model (model.h).
 */
#ifndef BENCH_REPORT_CSV_H
#define BENCH_REPORT_CSV_H

#include <stdio.h>
#include <jansson.h>

#include "bench/results/model.h"

/*
 * The CSV report (RFC 4180: CRLF line ends, fields with a comma, quote or
 * line break quoted, quotes doubled): a header, then one row per run:
 *
 *   operation,threads,duration(sec),total operations,average latency(ms),
 *   p90 latency(ms),p99 latency(ms),min latency (ms),max latency (ms),
 *   Error %,Throughput per sec,capacity (kb/s),p50 latency(ms),p95 latency(ms),
 *   attempts,successes,successes per sec,success average latency(ms),
 *   success p99 latency(ms)
 *
 * The bench's columns mean what they mean in the bench (a JMeter plan):
 * total operations, Throughput per sec and the latencies count every
 * attempt, failed ones included, Error % is the errors of the attempts;
 * capacity is bytes_per_s / 1024 (KiB/s, JMeter's KB/sec), or NA for a run
 * that processes no data; the successes' figures are in the last four
 * columns.  Every figure comes from the run model (model.h).
 * Runs that were not measured (skipped, failed) have their name and threads
 * and empty cells.  Returns 0, -1 on a write error.
 */
int bench_csv_write(FILE *f, const bench_doc_model *d);

/*
 * The tidy CSV report (report --csv-layout tidy; report_tidy.c): a header,
 * then one row a run, each setting and figure its own column, numbers as
 * plain numbers in the unit the header names, an empty cell for nothing:
 *
 *   test,key,data_size_bytes,threads,mode,status,reason,duration_s,attempts,
 *   successes,errors,error_pct,attempts_per_s,successes_per_s,bytes_per_s,
 *   latency_mean_ms,latency_min_ms,latency_p50_ms,latency_p90_ms,
 *   latency_p95_ms,latency_p99_ms,latency_max_ms,success_latency_mean_ms,
 *   success_latency_p99_ms
 *
 * Returns 0, -1 on a write error.
 */
int bench_csv_tidy_write(FILE *f, const bench_doc_model *d);
int bench_csv_tidy_write_file(const char *path, const json_t *doc, const char *flag);

/* One RFC 4180 field: a comma before it unless first, quoted when it holds
 * a comma, a quote or a line break, quotes doubled (both CSV layouts). */
void bench_csv_field(FILE *f, const char *s, int first);

/* Write the report to PATH, or to standard output when PATH is "-"
 * (bench_results_write_text, text.h); flag names the option in the one-line
 * error ("--csv out.csv: Permission denied").  Returns 0 or -1 (printed). */
int bench_csv_write_file(const char *path, const json_t *doc, const char *flag);

#endif

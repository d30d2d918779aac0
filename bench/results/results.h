/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/results.h - hsmbench.result/3 (and /2, /1, upgraded) documents after the run: loading and
 * validating a saved file, matching runs, merging the results of several
 * load generators exactly, and the CSV and HTML reports.
 *
 * Everything here works on the JSON document itself (jansson), the same
 * object `hsmbench run --json` writes, so the reports of a live run and of
 * `hsmbench report FILE` are the same code.  Nothing here knows PKCS#11.
 */
#ifndef BENCH_RESULTS_H
#define BENCH_RESULTS_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/results/section.h"

/* ---- loading and validation --------------------------------------------- */

/* A results file may be at most 64 MiB (checked before it is parsed), and
 * no number in it may pass 2^53 in size (exact in a double, and no sum of
 * 4096 files' counts can overflow 64 bits). */
#define BENCH_RESULTS_MAX_BYTES (64 << 20)
#define BENCH_RESULTS_MAX_VALUE (1ULL << 53)

/*
 * Read PATH and check it is a results document (bench_results_check).  On
 * failure returns NULL with a one-line reason in err that starts with the
 * path: "r.json: No such file or directory", "r.json: bad JSON at line 3,
 * column 7: ...", "r.json: not an hsmbench results file (schema ...)",
 * "r.json: no runs", "r.json: 300000000 bytes, larger than the 64 MiB a
 * results file may be" (before parsing), "r.json: runs[0].ops: 1e+308 is
 * out of range (at most 2^53)".  Strings and keys holding control
 * characters (ESC, CR, C1) are replaced by escaped copies ("\x1b"), so
 * what prints the document never prints them raw.
 */
json_t *bench_results_load(const char *path, char *err, size_t errlen);

/* The same for a document in memory (name stands for the path in err):
 * what the fuzzer drives. */
json_t *bench_results_parse(const char *name, const char *buf, size_t n, char *err, size_t errlen);

/*
 * Check a document: schema "hsmbench.result/3", "/2" or "/1" (another major version is
 * refused by name), a non-empty "runs" array, and in every run the fields
 * and types docs/results-schema.md gives, for measured runs the counts,
 * latency figures, per-second series and a histogram that loads.  Returns 0,
 * or -1 with "runs[2].latency_us.p99: missing or not a number" in err.
 */
int bench_results_check(const json_t *doc, char *err, size_t errlen);

/* True when the run holds measured figures (status ok, or interrupted or
 * failed with what was measured until then). */
int bench_run_measured(const json_t *run);

/* Field readers for validated documents: the default when absent. */
double      bench_json_num(const json_t *obj, const char *key, double dflt);
long long   bench_json_int(const json_t *obj, const char *key, long long dflt);
const char *bench_json_str(const json_t *obj, const char *key, const char *dflt);

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

/* ---- merging ------------------------------------------------------------- */

/*
 * Combine documents written by several load generators that ran the same
 * tests at the same time into one hsmbench.result/3 document:
 *
 *  - every input must have the same runs (test, key, data size, mode) in
 *    the same settings (duration or iterations asked); threads may differ;
 *  - per run: ops, errors, errors_by_code and bytes_per_s are summed, the
 *    histograms added exactly and latency_us recomputed from the sum, threads
 *    summed, duration_s the longest, ops_per_s the sum of the inputs' rates
 *    (they ran concurrently), settings.iterations the sum;
 *  - the per-second series are aligned by wall-clock second, which needs each
 *    run's start: "measure_start_epoch_ms" in the run, or for a file's first
 *    run the top-level "started_at_epoch_ms"; interval t of a run lands in
 *    second floor((start_ms + t * 1000) / 1000).  A merged second's p50_us
 *    and p99_us are the largest of its inputs' (an upper bound: the files
 *    hold no per-second histograms), and the run says so with
 *    "per_second_upper_bound": true;
 *  - a workload section (section.h) of the list that every input run holds
 *    is merged by the section's own hook.
 *
 * names[i] labels docs[i] in messages and in "merged_from".  Returns a new
 * document, or NULL with one line in err ("b.json: rsa-pkcs-sign: data size
 * 64 vs 32 in a.json").
 */
json_t *bench_results_merge(json_t *const *docs, const char *const *names, size_t n,
                            const bench_section *const *sections, char *err, size_t errlen);

/* ---- reports ------------------------------------------------------------- */

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
int bench_csv_write(FILE *f, const json_t *doc);

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
int bench_csv_tidy_write(FILE *f, const json_t *doc);
int bench_csv_tidy_write_file(const char *path, const json_t *doc, const char *flag);

/* One RFC 4180 field: a comma before it unless first, quoted when it holds
 * a comma, a quote or a line break, quotes doubled (both CSV layouts). */
void bench_csv_field(FILE *f, const char *s, int first);

/*
 * The HTML report: one self-contained page (inline CSS and SVG, no script,
 * nothing fetched; a Content-Security-Policy forbids it), every string
 * escaped.  Per run: operations per second over time (and the target rate
 * when per_second[] holds "target"), p50/p99 per second, the latency
 * percentile curve from the histogram, errors by code, thresholds.  Runs
 * of one test that differ only in threads or data size also get sweep
 * charts (ops/s, p50, p99 against threads or data size).  The environment
 * names the target (environment.target, bench/results/target.h) and, for REST files,
 * the endpoint: URL, service, TLS and HTTP settings, client.  A run holding
 * a workload section of the list (section.h) also gets what the section
 * draws; the list also names the side metrics of stored thresholds.
 */
int bench_html_write(FILE *f, const json_t *doc, const bench_section *const *sections);

/*
 * Write a report to PATH as bench_out_write does (bench/util/outfile.h: a
 * temporary file renamed over a regular file, a device written in place, a
 * link followed, never replaced), or to stdout when PATH is "-".  flag names the option in the one-line error
 * ("--csv out.csv: Permission denied").  Returns 0 or -1 (message printed).
 */
int bench_csv_write_file(const char *path, const json_t *doc, const char *flag);
int bench_html_write_file(const char *path, const json_t *doc, const char *flag,
                          const bench_section *const *sections);

/* The same for any writer of a document (what the two above use). */
typedef int (*bench_doc_writer)(FILE *f, const json_t *doc);
int bench_results_write_text(const char *path, const json_t *doc, const char *flag,
                             bench_doc_writer write);
/* ... and for a writer that takes its own context (ctx, given back). */
typedef int (*bench_ctx_writer)(FILE *f, const void *ctx);
int bench_results_write_ctx(const char *path, const char *flag, bench_ctx_writer write, const void *ctx);

/* ---- text tables --------------------------------------------------------- */

/* Print s in a column `width` characters wide (UTF-8 aware: "µs" is two
 * columns, not three), left- or right-aligned; longer text is not cut. */
void bench_fput_cell(FILE *f, const char *s, int width, int right);

/* The columns s takes (its UTF-8 code points). */
int bench_text_cols(const char *s);

/* The wider of width and s's columns: a column's width grown to a cell. */
int bench_col_fit(int width, const char *s);

#endif

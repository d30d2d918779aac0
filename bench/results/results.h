/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/results.h - hsmbench.result/3 (and /2, /1, upgraded) documents after the run: loading and
 * validating a saved file, matching runs, and merging the results of several
 * load generators exactly (the views, CSV and HTML among them, render the
 * run model: model.h).
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

#include "bench/results/codec.h"
#include "bench/results/section.h"

/* ---- loading and validation --------------------------------------------- */


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

#endif

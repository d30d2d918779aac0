/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/report_html.h - the HTML report of a document, every run's
 * figures from its run model (model.h), built once.
 */
#ifndef BENCH_REPORT_HTML_H
#define BENCH_REPORT_HTML_H

#include <stdio.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/section.h"

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
int bench_html_write(FILE *f, const bench_doc_model *d, const bench_section *const *sections);


/* Write the page to PATH, or to standard output when PATH is "-"
 * (bench_results_write_ctx, text.h); flag names the option in the one-line
 * error ("--html out.html: Permission denied").  Returns 0 or -1 (printed). */
int bench_html_write_file(const char *path, const json_t *doc, const char *flag,
                          const bench_section *const *sections);

#endif

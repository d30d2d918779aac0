/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/compare_html.h - the comparison of `compare` (its model,
 * compare.h; the document hsmbench.compare/1 says the same) as one
 * self-contained HTML page in the report's style: the files, then per pair
 * its figures with their changes, tests and verdicts, and the --fail-on
 * rules' results.
 */
#ifndef BENCH_COMPARE_HTML_H
#define BENCH_COMPARE_HTML_H

#include <stdio.h>

#include "bench/results/compare.h"

/* Write the page of c to f; 0, or -1 on a write error. */
int bench_compare_html_write(FILE *f, const bench_compare *c);

#endif

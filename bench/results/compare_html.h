/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/compare_html.h - the comparison document of `compare`
 * (hsmbench.compare/1, docs/results-schema.md) as one self-contained HTML
 * page in the report's style: the files, then per pair its figures with
 * their changes, tests and verdicts, and the --fail-on rules' results.
 */
#ifndef BENCH_COMPARE_HTML_H
#define BENCH_COMPARE_HTML_H

#include <stdio.h>
#include <jansson.h>

#define BENCH_COMPARE_SCHEMA "hsmbench.compare/1"

/* Write the page of cmp (a comparison document) to f; 0, or -1 on a write error. */
int bench_compare_html_write(FILE *f, const json_t *cmp);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/text.h - what every view writes with: a report written to
 * its file or to standard output, and the cells of a text table.
 */
#ifndef BENCH_TEXT_H
#define BENCH_TEXT_H

#include <stdio.h>
#include <jansson.h>

#include "bench/results/model.h"

/*
 * Write a report to PATH as bench_out_write does (bench/util/outfile.h: a
 * temporary file renamed over a regular file, a device written in place, a
 * link followed, never replaced), or to stdout when PATH is "-".  flag names the option in the one-line error
 * ("--csv out.csv: Permission denied").  Returns 0 or -1 (message printed).
 */
typedef int (*bench_doc_writer)(FILE *f, const json_t *doc);
int bench_results_write_text(const char *path, const json_t *doc, const char *flag,
                             bench_doc_writer write);
/* ... and for a writer that takes its own context (ctx, given back). */
typedef int (*bench_ctx_writer)(FILE *f, const void *ctx);
int bench_results_write_ctx(const char *path, const char *flag, bench_ctx_writer write, const void *ctx);

/* ... and for a view of the document's run models (model.h): the models
 * are built once, the view renders them (out of memory: one line, -1). */
typedef int (*bench_model_writer)(FILE *f, const bench_doc_model *d);
int bench_results_write_model(const char *path, const json_t *doc, const char *flag,
                              bench_model_writer write);

/* Print s in a column `width` characters wide (UTF-8 aware: "µs" is two
 * columns, not three), left- or right-aligned; longer text is not cut. */
void bench_fput_cell(FILE *f, const char *s, int width, int right);

/* The columns s takes (its UTF-8 code points). */
int bench_text_cols(const char *s);

/* The wider of width and s's columns: a column's width grown to a cell. */
int bench_col_fit(int width, const char *s);

#endif

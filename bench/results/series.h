/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/series.h - a run's per-second series, held compactly.
 *
 * Most of a long run's results file is its runs' "per_second" arrays, one
 * object a second, and jansson spends about a kilobyte on an object of six
 * members (a 53 MB file took 315 MB to report).  So a file is read into one
 * buffer and, before jansson parses it, each runs[i].per_second array is
 * read element by element into bench_model_second structs and its text
 * blanked (`[`, spaces, the newlines kept, `]`: every line and column of
 * the document stays where it was, for jansson's messages).  The structs
 * are then attached to their run (a member no file can name) and the run's
 * "per_second" is [].  A series with anything a struct does not hold (a
 * member of a newer or hand-made file, a string, a value out of range, a
 * truncated array) is left to jansson whole, as before: the old path and
 * its messages.
 *
 * Every reader of a run's series goes through bench_run_seconds, which
 * gives the compact series or reads the jansson array (a live run's, one a
 * test built); a writer that holds a document with compact series writes it
 * with bench_series_dumpf, which writes each series where its "per_second"
 * is, byte for byte as jansson writes the array.
 */
#ifndef BENCH_SERIES_H
#define BENCH_SERIES_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/results/codec.h"

/* A run's series, read only: s[0..n-1]; owned is what release frees. */
typedef struct bench_seconds {
    const bench_model_second *s;
    size_t                    n;
    bench_model_second       *owned;
} bench_seconds;

/*
 * The per-second series of run: its compact series, or its "per_second"
 * array read as bench_model_of_run reads it (absent members their
 * defaults).  Returns 0, -1 when out of memory (out is then empty).
 * Release with bench_seconds_release.
 */
int  bench_run_seconds(const json_t *run, bench_seconds *out);
void bench_seconds_release(bench_seconds *s);

/* Whether run holds its series compactly (its "per_second" is then []). */
int bench_run_seconds_compact(const json_t *run);

/* Give run the series s[0..n-1] (copied), compactly: "per_second" is set
 * to [] where it is (or added), the series beside it.  0, -1 when out of
 * memory. */
int bench_run_seconds_set(json_t *run, const bench_model_second *s, size_t n);

/* The series read out of a document's text, by run index. */
typedef struct bench_series_table {
    char   **payload;     /* payload[i]: runs[i]'s series as attached, NULL when left to jansson */
    size_t  *len;
    size_t   nruns;
} bench_series_table;

/*
 * Read every runs[i].per_second array of the document text buf[0..n-1]
 * that holds only what a bench_model_second holds into t, and blank its
 * text in buf.  An array it is unsure of is left as it is.  Returns 0, or
 * -1 when out of memory (buf may then be partly blanked: give up on it).
 */
int  bench_series_extract(char *buf, size_t n, bench_series_table *t);

/* Attach t's series to doc's runs (parsed from the blanked text) and empty
 * t.  0, -1 when out of memory or a run is not where the text had it. */
int  bench_series_attach(json_t *doc, bench_series_table *t);
void bench_series_table_free(bench_series_table *t);

/* doc as json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) writes
 * it, with every compact series written out in its run's "per_second".
 * 0, -1 on a write error or out of memory. */
int bench_series_dumpf(const json_t *doc, FILE *f);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/html.h - the HTML report's building blocks, for the views of
 * workload sections (section.h) that draw their own part of a run: escaping,
 * the count bars and the stacked-bars chart, drawn as the page's own.
 */
#ifndef BENCH_HTML_H
#define BENCH_HTML_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* The report page's style sheet (for another page in its style: compare --html). */
const char *bench_html_style(void);

/* Text or attribute content, escaped (& < > " '; control characters dropped). */
void bench_html_esc(FILE *f, const char *s);

/* A chart that has nothing to show: its title and why. */
void bench_html_chart_empty(FILE *f, const char *title, const char *why);

/* Counts by name (an object of integers) as horizontal bars, each with its
 * share of total; ok_class (or NULL) names a bar as good rather than bad;
 * "none" is what an empty chart says, unit what the names are ("and 3 more
 * codes"). */
void bench_html_count_bars(FILE *f, const char *title, const json_t *by, long long total, const char *none,
                           const char *unit, int (*ok_class)(const char *name));

/* Stacked horizontal bars of times in µs: one bar a row, one segment a part,
 * and a tick a row marking a figure of its own (a total the parts need not
 * add up to). */
typedef struct bench_html_stack {
    const char        *title, *x_label;
    const char *const *seg_name;
    const char *const *seg_color;
    size_t             nseg;
    const char *const *row_name;
    size_t             nrow;
    const double      *value;      /* value[r * nseg + k], µs; 0 or less: not drawn */
    const char        *mark_name;  /* the ticks' legend and tooltips */
    const double      *mark;       /* mark[r], µs */
} bench_html_stack;
void bench_html_stacked_bars(FILE *f, const bench_html_stack *c);

#endif

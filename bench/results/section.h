/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/section.h - workload sections of a run: the side metrics a
 * workload writes into each run's JSON element under a key of its own, with
 * what the results floor needs to show them without knowing the workload.
 *
 * A section names its threshold metrics (a table of names, kinds and JSON
 * members, read by threshold.c), merges itself exactly (results.c's merge
 * calls its hook with the inputs' objects) and draws itself in the HTML
 * report (with the chart and table helpers of html.h).  The workload floor
 * defines its sections; the composition root or the command gives the list
 * (NULL-terminated, NULL for none) to whatever parses thresholds, merges or
 * writes a page.  Nothing here is a global.
 */
#ifndef BENCH_SECTION_H
#define BENCH_SECTION_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* What a section's threshold metric reads. */
typedef enum {
    /* A distribution: the object `key` of the section's `dists` object
     * (mean, min, p50 ... p999, max, count, in µs); NAME:STAT, the STAT
     * one of avg, med, min, max or a kept percentile. */
    BENCH_SM_DIST,
    /* A percentage of the section's count: member `key`; NAME<1% or, as
     * k6 writes it, NAME:rate<0.01 (a fraction). */
    BENCH_SM_PCT,
    /* The section's count (member `key`) per second of the run's duration;
     * NAME:rate the same, NAME:count the count itself. */
    BENCH_SM_COUNT,
    /* The k6 kinds: a metric object at `key`, a path of members ('/'
     * between them) in the section, as k6's summary keeps them.  A trend
     * (the keys of a distribution): NAME:STAT as BENCH_SM_DIST. */
    BENCH_SM_TREND,
    /* A rate ({"rate": 0..1}): NAME:rate<0.01 a fraction, NAME<1% a percentage. */
    BENCH_SM_RATE,
    /* A counter ({"count"}, or the count itself): NAME and NAME:rate per
     * second of the run's duration, NAME:count the count; a count absent
     * from an object that is there is 0 (no request with that status). */
    BENCH_SM_COUNTER,
    /* A gauge ({"value", "min", "max"}): NAME or NAME:value, NAME:min, NAME:max. */
    BENCH_SM_GAUGE,
} bench_sm_kind;

typedef struct bench_section_metric {
    const char   *name;         /* as the threshold names it */
    bench_sm_kind kind;
    const char   *key;          /* its member, or its path for the k6 kinds */
    const char   *noun;         /* a counter's: what it counts ("iterations"); NULL: count_noun */
    const char   *rate_unit;    /* a counter's rate ("iterations/s"); NULL: rate_unit */
} bench_section_metric;

/* A tagged metric, NAME{TAG:VALUE}: the path and kind of its figure in
 * the section, for a section's `tagged` hook to fill. */
typedef struct bench_section_tagged {
    char          path[128];
    bench_sm_kind kind;
    const char   *noun, *rate_unit;
} bench_section_tagged;

/* One input of a merge: the object of one file's run, and where it sits. */
typedef struct bench_merge_in {
    const json_t *obj;
    const char   *name;         /* the file */
    const char   *field;        /* "runs[3]", "runs[3].KEY": for messages */
} bench_merge_in;

typedef struct bench_section {
    const char *key;            /* the run's member holding the section */
    const char *title;          /* in messages: "unknown TITLE metric" */

    /* Thresholds.  A metric's name starts with prefix (so "PREFIX...:" is
     * no TEST: part); names are tried in the table's order, which is also
     * the order an error message lists them in. */
    const char                 *prefix;
    const bench_section_metric *metrics;
    size_t                      nmetrics;
    const char *count_key;      /* the member counting what was measured: none, no figure */
    const char *count_noun;     /* what it counts, plural ("a whole number of ...") */
    const char *rate_unit;      /* the count per second, as a unit */
    const char *dists;          /* the object holding the distributions */
    const char *dist_noun;      /* one distribution ("max of each ...") */
    const char *absent;         /* a run without the section: why no figure */
    const char *empty;          /* a section counting nothing: why no figure */
    const char *no_dists;       /* a section without its distributions: why no figure */
    const char *no_k6;          /* a k6 metric's object not there: why no figure */
    /* The distribution a peer tool calls its request latency, and that
     * tool's name for it (a load tool's request duration, which may leave
     * out set-up that hsmbench's latency holds, such as a connection a
     * request opens), shown under hsmbench's own by compare; NULL: none. */
    const char *peer_latency, *peer_latency_name;
    /* NAME{TAG:VALUE} (NULL: no tags): 0 with *out filled, or -1 with a
     * one-line reason in err naming the tag or value refused and the
     * tags the metric takes. */
    int (*tagged)(const bench_section_metric *m, const char *tag, const char *value,
                  bench_section_tagged *out, char *err, size_t len);
    const char *threshold_help; /* lines for a --help listing the metrics, or NULL */

    /* The section of a merged run from the n inputs' sections (every input
     * has one): 0 with *out set (NULL: left out), or -1 with err set. */
    int (*merge)(const bench_merge_in *in, size_t n, json_t **out, char *err, size_t len);
    /* Its part of a measured run's HTML section (NULL: none). */
    void (*html)(FILE *f, const json_t *section);
} bench_section;

/* Merge helpers for a section's hook.  *acc += v, refused (err names the
 * file and field) when the sum passes the 2^53 a results file's number may
 * reach: 0 or -1. */
int bench_merge_add(long long *acc, long long v, const char *name, const char *field, char *err,
                    size_t len);

/* The counts of object `key` of every input summed by name: most frequent
 * first when by_count, else in increasing order of name.  NULL when out of
 * memory or a sum passes 2^53 (err says which). */
json_t *bench_merge_counts(const bench_merge_in *in, size_t n, const char *key, int by_count,
                           char *err, size_t len);


/* A --help listing's lines for the sections' threshold metrics (their
 * threshold_help), after a --threshold option: a bench_opts_more_fn
 * (bench/util/options.h) whose arg is the NULL-terminated section list and
 * threshold_code the code of the command's --threshold. */
void bench_sections_help(const bench_section *const *sections, FILE *f);

#endif

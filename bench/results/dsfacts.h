/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/dsfacts.h - a datasheet's own facts (the "datasheet" object
 * of a file written by hsmbench datasheet): its plan, its time, and each
 * test's capacity answer, read once into a struct for the views.
 */
#ifndef BENCH_DSFACTS_H
#define BENCH_DSFACTS_H

#include <stddef.h>
#include <jansson.h>

#include "bench/results/capanswer.h"

/* One test's (and key's) --capacity search: an element of datasheet.capacity. */
typedef struct bench_ds_capacity {
    char            *test, *key;   /* "" when the file does not say */
    bench_cap_answer search;       /* search.present 0: the element has none */
} bench_ds_capacity;

typedef struct bench_ds_facts {
    int        present;            /* 0: not a datasheet's file (everything below empty) */
    size_t     nplan_steps;        /* the plan's steps */
    double     step_time_s;        /* 0 when the file does not say */
    long long  max_threads;
    long long *data_sizes;         /* the plan's, in bytes, in its order (0: not an integer) */
    size_t     ndata_sizes;
    char      *objective;          /* the --capacity objective; NULL: none */
    double     announced_s;
    int        has_took;           /* took_s is there */
    double     took_s;
    bench_ds_capacity *capacity;   /* with --capacity: each test's search, in the file's order */
    size_t             ncapacity;
} bench_ds_facts;

/* Read a document's "datasheet" object into ds (absent when the document
 * has none, or out of memory).  Returns 0, or -1 when out of memory.
 * Release with bench_ds_facts_free. */
int  bench_ds_facts_of(const json_t *doc, bench_ds_facts *ds);
void bench_ds_facts_free(bench_ds_facts *ds);

/* The search of (test, key): the first element that names them when
 * first, else the last; NULL when none or the element has no search. */
const bench_cap_answer *bench_ds_capacity_of(const bench_ds_facts *ds, const char *test, const char *key,
                                             int first);

#endif

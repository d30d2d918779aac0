/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/capanswer.h - a capacity search's answer (its "capacity"
 * JSON object, bench/driver/capacity.h runs the search), read once into a
 * struct, and its texts made from the struct.
 */
#ifndef BENCH_CAPANSWER_H
#define BENCH_CAPANSWER_H

#include <stddef.h>
#include <jansson.h>

/* A search has at most this many objectives (--find-capacity, repeated). */
#define BENCH_CAP_MAX_OBJECTIVES 8
/* Steps past disputed boundaries, at most, before an unsettled answer. */
#define BENCH_CAP_MAX_EDGES 4

/* One step of the search as its "steps" element says it. */
typedef struct bench_cap_answer_step {
    double rate, achieved, p50_us, p99_us, error_pct;   /* 0 when the file does not say */
    int    pass;                 /* the step passed every objective */
    char  *why;                  /* what failed; NULL when the file gives none */
} bench_cap_answer_step;

/* The answer of one search: what its texts, the report and the pages show. */
typedef struct bench_cap_answer {
    int    present;              /* 0: no "capacity" object (everything below empty) */
    char **objectives;           /* the expressions as given ("p99<20ms"); NULL: not a string */
    size_t nobjectives;
    char  *objectives_json;      /* the member as compact JSON, to compare two searches by; NULL
                                    when the file has none */
    char  *result;               /* "found", "unsettled", ...; NULL when the file does not say */
    int    has_ops_per_s;        /* ops_per_s is a number in the file (not null) */
    double ops_per_s;            /* the answer; 0 when none */
    long long threads;
    double precision;            /* a fraction */
    double start_rate;
    int    has_hi;               /* bounds[1] is a number */
    double hi;                   /* the lowest failing rate, bounds[1]; 0 when none */
    int    has_bracket;          /* bracket_pct is a number */
    double bracket_pct;
    int    has_uncertainty;      /* the member is there (null too: not measured) */
    double low, high, minus_pct, plus_pct;   /* the uncertainty's; 0 when not said */
    int    has_against;          /* an unsettled answer's contradicting rate */
    double against_rate;
    int    against_pass;
    char  *limited_by;           /* NULL when none */
    /* A found answer's interval, what compare judges by: its bracket
     * widened by what its repeated steps saw; 0 when it found no rate. */
    int    has_interval;
    double interval_lo, interval_hi;
    bench_cap_answer_step *steps;   /* in the order they ran */
    size_t nsteps;
} bench_cap_answer;

/* Read a "capacity" object into a.  A NULL or non-object cap leaves a
 * absent (present 0), as does running out of memory; members of the wrong
 * kind read as not said.  Returns 0, or -1 when out of memory.  Release
 * with bench_cap_answer_free. */
int  bench_cap_answer_of(const json_t *cap, bench_cap_answer *a);
/* The same of a document's "capacity" object (what bench_doc_model_of
 * reads into its capacity). */
int  bench_cap_answer_of_doc(const json_t *doc, bench_cap_answer *a);
void bench_cap_answer_free(bench_cap_answer *a);

/* The two answers' files give the same objectives, in the same order. */
int bench_cap_same_objectives(const bench_cap_answer *a, const bench_cap_answer *b);

/* "p99 < 20 ms, errors < 0.1 %": the objectives as people read them. */
const char *bench_cap_objectives_text(const bench_cap_answer *a, char *buf, size_t len);

/* The answer line: "capacity 3 720 ops/s at p99 < 20 ms, 8 threads, -0 %/+1.9 %
 * by repeated steps (3 720 to 3 790 ops/s); bracket 1.9 %", "capacity
 * unsettled: ...", or "no rate met the objectives: ...". */
const char *bench_cap_answer_text(const bench_cap_answer *a, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/compare.h - the compare model: what `hsmbench compare` found
 * in two or more results files, built once from the files' document models
 * (model.h) and rendered by every view of it: the terminal table
 * (cmd_compare.c), the hsmbench.compare/1 document (bench_compare_json, the
 * one writer of it: docs/results-schema.md) and the HTML page
 * (compare_html.c).  No view reads JSON: what a view shows is here.
 *
 * Runs are matched with the first file's (A's) by test, key, data size,
 * threads and mode (a datasheet's by its step too); each match is a pair,
 * B against A, with its verdict figure by figure (verdict.h), the --fail-on
 * rules' results (rule.h) and a verdict per class both runs' breakdowns
 * have.  A run of the same test with other settings is a pair that is not
 * comparable, and says why; a run another file lacks is a pair missing.
 */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include <stddef.h>
#include <jansson.h>

#include "bench/results/model.h"
#include "bench/results/rule.h"
#include "bench/results/section.h"
#include "bench/results/target.h"
#include "bench/results/verdict.h"

#define BENCH_COMPARE_SCHEMA "hsmbench.compare/1"
#define BENCH_CMP_MACHINE_MAX 384
#define BENCH_CMP_LINE_MAX 640

/* How a file's target stands against A's (besides a different module or token). */
typedef enum bench_cmp_target_kind {
    BENCH_CMP_TARGET_SAME = 0,
    BENCH_CMP_TARGET_TLS_PAIR,     /* the same endpoint, TLS on in one only: a setting */
    BENCH_CMP_TARGET_DIFFERS,
} bench_cmp_target_kind;

/* What differs between a file's environment and A's (the flags under the
 * list of files); strings borrowed from the documents. */
typedef struct bench_cmp_env {
    int         module_differs;             /* two PKCS#11 files of other modules */
    const char *module, *base_module;       /* path, else name, else "?" */
    int         token_differs;
    const char *token_label, *token_serial, *base_label, *base_serial;   /* "?" when none */
    bench_cmp_target_kind target;           /* only when neither module nor token differs */
    int         tls_on;                     /* TLS_PAIR: this file's side has TLS */
    const char *target_text, *base_target_text;   /* names, or ids when the names are the same */
    int         host_differs;
    const char *hostname, *base_hostname;   /* "?" when none */
    int         machine_differs;            /* CPUs, CPU model or product */
    char        machine[BENCH_CMP_MACHINE_MAX], base_machine[BENCH_CMP_MACHINE_MAX];
} bench_cmp_env;

typedef struct bench_cmp_file {
    const char   *path;
    char          label[2];                 /* "A", "B", ... */
    bench_target  target;                   /* what the file measured */
    const char   *hostname;                 /* "?" when the file names none */
    const char   *started_at;               /* NULL when it names none */
    bench_cmp_env env;                      /* against A (A's own: nothing differs) */
    char        (*repeats)[BENCH_CMP_LINE_MAX];   /* its --repeat groups' lines (repeat.c) */
    size_t        nrepeats;
} bench_cmp_file;

/* A section's peer latency of a row (section.h: peer_latency), against the
 * base row's when base.present and base.count. */
typedef struct bench_cmp_peer {
    const char         *name;
    bench_model_latency l, base;
} bench_cmp_peer;

typedef struct bench_cmp_rule {
    const char       *rule;                 /* as given */
    bench_rule_result result;
    char              why[256];
} bench_cmp_rule;

/* A class both runs' breakdowns have, judged as a run of its own. */
typedef struct bench_cmp_class {
    const char    *dimension;               /* "type", "token", "transaction" */
    char           name[BENCH_MODEL_NAME_MAX];
    const char    *verdict;                 /* the pair's word (bench_cmp_word) */
    bench_pair_cmp cmp;
} bench_cmp_class;

typedef enum bench_cmp_match {
    BENCH_CMP_MISSING = 0,                  /* no run of the test (or no such step) */
    BENCH_CMP_OTHER_SETUP,                  /* a run of the test with other settings */
    BENCH_CMP_COMPARED,                     /* the same setup: figures, verdict, rules */
} bench_cmp_match;

/* One run of a file against its base run of A: an element of the
 * document's "comparisons". */
typedef struct bench_cmp_pair {
    size_t                 base_file, run_file;   /* into files */
    const bench_run_model *a;               /* A's run: the pair's setup */
    const bench_run_model *b;               /* the file's run; NULL when missing */
    const char            *ds_id;           /* A's run's datasheet step id; NULL: none */
    const char            *ds_step;         /* its datasheet step ("?" unnamed); NULL: not a step */
    bench_cmp_match        match;
    char                   why[160];        /* not compared: why */
    int                    different_target;
    bench_pair_cmp         cmp;             /* COMPARED: the figures */
    const char            *verdict;         /* COMPARED: bench_cmp_word */
    bench_cmp_peer        *peers;           /* COMPARED: the sections' peer latencies */
    size_t                 npeers;
    bench_cmp_rule        *rules;           /* COMPARED: one per --fail-on rule */
    size_t                 nrules;
    bench_cmp_class       *classes;         /* COMPARED */
    size_t                 nclasses;
} bench_cmp_pair;

/* A run heading and what follows it: A's run with its pairs, or a run only
 * another file has ("not in A"). */
typedef struct bench_cmp_group {
    size_t                 file;            /* whose run: 0 (A) with pairs, else not in A */
    const bench_run_model *run;
    const char            *mechanism;       /* the run's; NULL when it names none ("?" not a string) */
    size_t                 first_pair, npairs;
    bench_cmp_peer        *peers;           /* A's row's peer latencies */
    size_t                 npeers;
} bench_cmp_group;

/* A datasheet's test of A against a file, from the pairs of its steps and
 * its capacity answers (with --capacity). */
typedef struct bench_cmp_ds_test {
    size_t      file;
    const char *test, *key;
    const char *verdict;                    /* slower, faster, mixed, no change, missing */
    size_t      slower, faster, same, missing, steps;
    const char *cap_verdict;                /* NULL when A has no capacity answer */
    char        cap_line[320];
    int         has_cap_base, has_cap_rate, has_cap_pct;
    double      cap_base, cap_rate, cap_pct;   /* ops/s, ops/s, percent (2 decimals) */
} bench_cmp_ds_test;

typedef struct bench_compare {
    bench_cmp_file    *files;
    size_t             nfiles;
    bench_cmp_group   *groups;
    size_t             ngroups;
    bench_cmp_pair    *pairs;
    size_t             npairs;
    const bench_rule  *rules;               /* --fail-on (borrowed) */
    size_t             nrules;
    size_t             failed;              /* rule checks failed, over every pair */
    double             alpha, min_change_pct;
    int                datasheet;           /* A is a datasheet: the test-by-test verdicts */
    bench_cmp_ds_test *ds;
    size_t             nds;
} bench_compare;

/*
 * Compare docs[1..n-1] with docs[0] (the files' document models, which must
 * outlive c; paths their names), with the workload sections (NULL-terminated
 * or NULL), the --fail-on rules (borrowed) and --min-change in percent.
 * Returns 0, or -1 when out of memory (c is then empty).
 */
int bench_compare_build(const bench_doc_model *docs, const char *const *paths, size_t n,
                        const bench_section *const *sections, const bench_rule *rules, size_t nrules,
                        double min_change_pct, bench_compare *c);
void bench_compare_free(bench_compare *c);

/* The exit status the comparison asks for: 1 when a rule failed, else 0. */
int bench_compare_exit(const bench_compare *c);

/* The comparison as its document, hsmbench.compare/1; NULL when out of memory. */
json_t *bench_compare_json(const bench_compare *c);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/rule.h - the regression rules of a comparison (compare
 * --fail-on): "ops_per_s<-5%", "p99>+10%", "error_pct>+1", "p99>+2ms!",
 * judged on a pair's verdict (verdict.h).
 *
 * A rule is FIGURE OP BOUND[!]: FIGURE one of ops_per_s, mean, p50, p99,
 * error_pct or a workload section's distribution by its threshold name;
 * OP < (the change is below the bound) or > (above it); BOUND a signed
 * number, with % a change in percent of A's figure, without a change in the
 * figure's own unit: ops/s, points for error_pct, a duration (2ms, 500us)
 * for a latency.  The rule fails on a pair when the change is beyond the
 * bound AND the figure's test is significant (p < alpha); with a trailing !
 * whatever the significance.  A figure that cannot be compared (not
 * comparable) fails the rule; a figure neither run has is not judged.
 */
#ifndef BENCH_RULE_H
#define BENCH_RULE_H

#include <stddef.h>

#include "bench/results/section.h"
#include "bench/results/verdict.h"

typedef struct bench_rule {
    char   text[96];       /* as given */
    char   fig[48];        /* the figure's name */
    int    above;          /* 1: '>', 0: '<' */
    int    pct;            /* the bound is a percentage of A's figure */
    double bound;          /* percent, or the figure's unit (µs for a latency) */
    int    any;            /* '!': significance not required */
} bench_rule;

/* Parse text into r; 0, or -1 with one line in err naming the rule and what
 * is wrong.  sections (NULL-terminated or NULL) name the distributions a
 * rule may use beside the run's own figures. */
int bench_rule_parse(const char *text, const bench_section *const *sections, bench_rule *r, char *err,
                     size_t len);

typedef enum bench_rule_result {
    BENCH_RULE_PASS = 0,
    BENCH_RULE_FAIL,
    BENCH_RULE_NOT_JUDGED,     /* neither run has the figure */
} bench_rule_result;

/* The rule on a pair; why says what decided it ("+12.3% > +10%, p<0.0001"). */
bench_rule_result bench_rule_check(const bench_rule *r, const bench_pair_cmp *p, char *why, size_t len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/threshold.c - k6-style thresholds on run results (see threshold.h). */
#include "bench/results/threshold.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "bench/results/codec.h"
#include "bench/results/model.h"

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A copy of [b, e) without surrounding blanks; -1 when it does not fit. */
static int trimmed(const char *b, const char *e, char *out, size_t len)
{
    b = skip_space(b);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if ((size_t)(e - b) >= len)
        return -1;
    memcpy(out, b, (size_t)(e - b));
    out[e - b] = '\0';
    return 0;
}

/* A non-negative decimal number: digits with at most one point, then an
 * optional exponent (1e3).  No sign, hex, inf or nan, which strtod would take. */
static int parse_number(const char *p, const char **end, double *out)
{
    const char *q = p;
    size_t digits = 0;
    while (isdigit((unsigned char)*q)) {
        q++;
        digits++;
    }
    if (*q == '.') {
        q++;
        while (isdigit((unsigned char)*q)) {
            q++;
            digits++;
        }
    }
    if (digits == 0)
        return -1;
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) || ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
        q += 2;
        while (isdigit((unsigned char)*q))
            q++;
    }
    char buf[64];
    if ((size_t)(q - p) >= sizeof buf)
        return -1;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    char *e = NULL;
    double v = bench_strtod(buf, &e);
    if (*e != '\0' || !isfinite(v) || v < 0)
        return -1;
    *end = q;
    *out = v;
    return 0;
}

/* The latency unit, as a factor to µs; no unit means ms, as in k6. */
static int latency_unit(const char *u, double *to_us)
{
    static const struct { const char *name; double f; } units[] = {
        { "", 1000.0 }, { "ns", 0.001 }, { "us", 1.0 }, { "\xc2\xb5s", 1.0 } /* µs, micro sign */,
        { "\xce\xbcs", 1.0 } /* μs, Greek mu */, { "ms", 1000.0 }, { "s", 1e6 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(u, units[i].name) == 0) {
            *to_us = units[i].f;
            return 0;
        }
    }
    return -1;
}

/* The metric at the start of p; returns what follows it, NULL if unknown. */
static const char *parse_metric(const char *p, bench_threshold *t, const char *expr, char *err, size_t len)
{
    static const struct { const char *name; bench_threshold_metric m; } names[] = {
        { "avg", BENCH_TM_AVG }, { "med", BENCH_TM_MED }, { "min", BENCH_TM_MIN },
        { "max", BENCH_TM_MAX }, { "rate", BENCH_TM_RATE }, { "errors", BENCH_TM_ERROR_PCT },
    };
    const char *q = p;
    while (isalpha((unsigned char)*q) || *q == '_')
        q++;
    size_t n = (size_t)(q - p);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (n == strlen(names[i].name) && strncmp(p, names[i].name, n) == 0) {
            t->metric = names[i].m;
            return q;
        }
    }
    if (*p != 'p' || n != 1) {
        char word[32];
        snprintf(word, sizeof word, "%.*s", (int)(n ? (n < 24 ? n : 24) : 1), p);
        bench_seterr(err, len, "--threshold '%s': unknown metric '%s' (use avg, med, min, max, pNN, p(NN), "
               "rate or errors)", expr, word);
        return NULL;
    }
    /* p99, p99.9, p(99.9), p999 */
    const char *num = p + 1, *end = NULL;
    int paren = *num == '(';
    if (paren)
        num = skip_space(num + 1);
    double pct;
    if (parse_number(num, &end, &pct) != 0) {
        bench_seterr(err, len, "--threshold '%s': a percentile needs a number: p99, p(99.9)", expr);
        return NULL;
    }
    /* no exponents in a percentile: only digits and a point */
    for (const char *c = num; c < end; c++) {
        if (!isdigit((unsigned char)*c) && *c != '.') {
            bench_seterr(err, len, "--threshold '%s': a percentile needs a number: p99, p(99.9)", expr);
            return NULL;
        }
    }
    if (!paren && end - num == 3 && strncmp(num, "999", 3) == 0)
        pct = 99.9;   /* the results file's name for p(99.9) */
    if (paren) {
        end = skip_space(end);
        if (*end != ')') {
            bench_seterr(err, len, "--threshold '%s': missing ')' after the percentile", expr);
            return NULL;
        }
        end++;
    }
    if (!(pct > 0 && pct <= 100)) {
        bench_seterr(err, len, "--threshold '%s': percentile %g is out of range; expected more than 0 and "
               "at most 100", expr, pct);
        return NULL;
    }
    t->metric = BENCH_TM_PCT;
    t->pct = pct;
    return end;
}

/* The list's section whose threshold metric names start at p; NULL if none. */
static const bench_section *section_of_metric(const bench_section *const *sections,
                                              const char *p)
{
    p = skip_space(p);
    for (; sections && *sections; sections++) {
        const bench_section *sec = *sections;
        if (sec->prefix && strncmp(p, sec->prefix, strlen(sec->prefix)) == 0)
            return sec;
        /* a metric's whole name, not the start of a test's ("NAME-2:") */
        for (size_t i = 0; i < sec->nmetrics; i++) {
            const size_t n = strlen(sec->metrics[i].name);
            if (strncmp(p, sec->metrics[i].name, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_' &&
                p[n] != '-' && p[n] != '.')
                return sec;
        }
    }
    return NULL;
}

/* The metric as a message names it: tagged, or the section's name. */
static const char *metric_name(const bench_threshold *t)
{
    return t->name[0] ? t->name : t->side->name;
}

/* The statistic after "DIST:": what parse_metric reads, limited to the
 * latency statistics and the percentiles a distribution keeps. */
static const char *parse_dist_stat(const char *p, bench_threshold *t, const char *name, const char *expr,
                                   char *err, size_t len)
{
    static const double kept[] = { 50, 90, 95, 99, 99.9, 100 };
    char scratch[8];
    const char *q = parse_metric(p, t, expr, scratch, sizeof scratch);
    if (!q || t->metric > BENCH_TM_PCT) {
        bench_seterr(err, len, "--threshold '%s': %s takes avg, min, med, max, pNN or p(NN): %s:p95<200ms", expr, name,
               name);
        return NULL;
    }
    if (t->metric == BENCH_TM_PCT) {
        int ok = 0;
        for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
            ok |= t->pct == kept[i];
        if (!ok) {
            bench_seterr(err, len, "--threshold '%s': p(%g) of %s is not kept; results files keep p(50), p(90), "
                   "p(95), p(99), p(99.9) and max of each %s", expr, t->pct, name, t->section->dist_noun);
            return NULL;
        }
    }
    return q;
}

/* "unknown TITLE metric 'x' (use a, b or c)": the section's names. */
static void unknown_side(const bench_section *sec, const char *expr, const char *name, char *err, size_t len)
{
    char list[512];
    size_t at = 0;
    list[0] = '\0';
    for (size_t i = 0; i < sec->nmetrics && at < sizeof list; i++) {
        const char *sep = i == 0 ? "" : i + 1 == sec->nmetrics ? " or " : ", ";
        int n = snprintf(list + at, sizeof list - at, "%s%s", sep, sec->metrics[i].name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    bench_seterr(err, len, "--threshold '%s': unknown %s metric '%s' (use %s)", expr, sec->title, name, list);
}

/* "{TAG:VALUE}" at p (at its '{'): tag and value, blanks around them
 * trimmed; returns what follows the '}', NULL with a message. */
static const char *parse_tag(const char *p, char *tag, size_t tlen, char *value, size_t vlen,
                             const char *expr, char *err, size_t len)
{
    const char *close = strchr(p, '}');
    const char *colon = close ? memchr(p, ':', (size_t)(close - p)) : NULL;
    if (!colon || trimmed(p + 1, colon, tag, tlen) != 0 || trimmed(colon + 1, close, value, vlen) != 0 ||
        !*tag || !*value) {
        bench_seterr(err, len, "--threshold '%s': a tag is {TAG:VALUE}, after the metric's name and "
                     "before its statistic (NAME{TAG:VALUE}:STAT)", expr);
        return NULL;
    }
    if (strchr(value, ',') || strchr(value, ':')) {
        bench_seterr(err, len, "--threshold '%s': one tag at a time: {TAG:VALUE}", expr);
        return NULL;
    }
    return close + 1;
}

/* A metric of section sec at p: a distribution and its statistic, a
 * percentage [:rate] or a count [:rate|:count]; k6's trends, rates,
 * counters and gauges, with a tag or not.  Returns what follows, NULL
 * with a message when it is not one. */
static const char *parse_side_metric(const bench_section *sec, const char *p, bench_threshold *t,
                                     const char *expr, char *err, size_t len)
{
    const char *q = p;
    while (isalpha((unsigned char)*q) || *q == '_')
        q++;
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)(q - p < 32 ? q - p : 32), p);

    const bench_section_metric *m = NULL;
    for (size_t i = 0; i < sec->nmetrics && !m; i++)
        if (strcmp(name, sec->metrics[i].name) == 0)
            m = &sec->metrics[i];
    if (!m) {
        unknown_side(sec, expr, name, err, len);
        return NULL;
    }
    t->section = sec;
    t->side = m;
    t->kind = m->kind;
    t->noun = m->noun ? m->noun : sec->count_noun;
    t->rate_unit = m->rate_unit ? m->rate_unit : sec->rate_unit;
    const char *after = skip_space(q);
    if (*after == '{') {
        char tag[32], value[64], why[200];
        bench_section_tagged tg;
        memset(&tg, 0, sizeof tg);
        why[0] = '\0';
        if (!(after = parse_tag(after, tag, sizeof tag, value, sizeof value, expr, err, len)))
            return NULL;
        if (!sec->tagged || sec->tagged(m, tag, value, &tg, why, sizeof why) != 0) {
            bench_seterr(err, len, "--threshold '%s': %s", expr,
                         *why ? why : "this metric takes no tag");
            return NULL;
        }
        snprintf(t->path, sizeof t->path, "%s", tg.path);
        snprintf(t->name, sizeof t->name, "%s{%s:%s}", name, tag, value);
        t->kind = tg.kind;
        if (tg.noun)
            t->noun = tg.noun;
        if (tg.rate_unit)
            t->rate_unit = tg.rate_unit;
        after = skip_space(after);
    } else if (m->kind >= BENCH_SM_TREND) {
        snprintf(t->path, sizeof t->path, "%s", m->key);
    }
    const int has_stat = *after == ':';
    const char *stat = has_stat ? skip_space(after + 1) : NULL;
    const char *stat_end = stat;
    while (stat_end && (isalpha((unsigned char)*stat_end) || *stat_end == '_'))
        stat_end++;
    size_t stat_len = stat ? (size_t)(stat_end - stat) : 0;
#define STAT_IS(word) (stat_len == strlen(word) && strncmp(stat, word, stat_len) == 0)
    const char *shown = metric_name(t);
    switch (t->kind) {
    case BENCH_SM_COUNT: case BENCH_SM_COUNTER:
        t->metric = BENCH_TM_SIDE_RATE;
        if (!has_stat)
            return after;
        if (STAT_IS("rate"))
            return stat_end;
        if (STAT_IS("count")) {
            t->metric = BENCH_TM_SIDE_COUNT;
            return stat_end;
        }
        bench_seterr(err, len, "--threshold '%s': %s takes rate or count (%s>1000, %s:count>5000)", expr, shown,
                     shown, shown);
        return NULL;
    case BENCH_SM_PCT: case BENCH_SM_RATE:
        t->metric = BENCH_TM_SIDE_PCT;
        if (!has_stat)
            return after;
        if (STAT_IS("rate")) {
            t->fraction = 1;
            return stat_end;
        }
        bench_seterr(err, len, "--threshold '%s': %s takes a percentage (%s<1%%) or k6's rate, a fraction "
               "(%s:rate<0.01)", expr, shown, shown, shown);
        return NULL;
    case BENCH_SM_GAUGE:
        t->metric = BENCH_TM_SIDE_VALUE;
        t->gauge = "value";
        if (!has_stat)
            return after;
        if (STAT_IS("value") || STAT_IS("min") || STAT_IS("max")) {
            t->gauge = STAT_IS("value") ? "value" : STAT_IS("min") ? "min" : "max";
            return stat_end;
        }
        bench_seterr(err, len, "--threshold '%s': %s takes value, min or max (%s:value<=70, %s:max<80)", expr,
                     shown, shown, shown);
        return NULL;
    case BENCH_SM_DIST: case BENCH_SM_TREND:
        break;
    }
#undef STAT_IS
    if (!has_stat) {
        bench_seterr(err, len, "--threshold '%s': %s needs a statistic: %s:p95<200ms (avg, min, med, max, pNN, "
               "p(NN))", expr, shown, shown);
        return NULL;
    }
    return parse_dist_stat(stat, t, shown, expr, err, len);
}

static const char *parse_op(const char *p, bench_threshold_op *op)
{
    static const struct { const char *text; bench_threshold_op op; } ops[] = {
        { "===", BENCH_OP_EQ }, { "<=", BENCH_OP_LE }, { ">=", BENCH_OP_GE }, { "==", BENCH_OP_EQ },
        { "!=", BENCH_OP_NE }, { "<", BENCH_OP_LT }, { ">", BENCH_OP_GT },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i].text);
        if (strncmp(p, ops[i].text, n) == 0) {
            *op = ops[i].op;
            return p + n;
        }
    }
    return NULL;
}

static int valid_test_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}

/* k6's abortOnFail and delayAbortEval at the end of an expression:
 * ":abort" or ":abort=TIME".  Cuts it from e (0, t->abort set when there
 * was one), or -1 with a message. */
static int parse_abort(char *e, bench_threshold *t, char *err, size_t len)
{
    char *c = strrchr(e, ':');
    const char *tail = c ? skip_space(c + 1) : NULL;
    if (!tail || strncmp(tail, "abort", 5) != 0 || (tail[5] && tail[5] != '=' && tail[5] != ' '))
        return 0;
    const char *delay = skip_space(tail + 5);
    char why[200];
    if (*delay == '=') {
        char text[32] = "";
        if (trimmed(delay + 1, delay + strlen(delay), text, sizeof text) != 0 ||
            bench_duration_of(text, 0, 7ULL * 24 * 3600 * 1000000000ULL, &t->abort_delay_ns, why,
                              sizeof why) != 0) {
            bench_seterr(err, len, "--threshold '%s': :abort=TIME waits TIME before judging (k6's "
                         "delayAbortEval): %s", e, text[0] ? why : "too long");
            return -1;
        }
    } else if (*delay) {
        bench_seterr(err, len, "--threshold '%s': expected :abort or :abort=TIME at the end", e);
        return -1;
    }
    t->abort = 1;
    *c = '\0';
    return 0;
}

int bench_threshold_parse(const char *expr, const bench_section *const *sections, bench_threshold *out,
                          char *err, size_t len)
{
    bench_threshold t;
    memset(&t, 0, sizeof t);
    if (!expr) {
        bench_seterr(err, len, "--threshold: an expression is required");
        return -1;
    }
    if (trimmed(expr, expr + strlen(expr), t.expr, sizeof t.expr) != 0) {
        bench_seterr(err, len, "--threshold '%.40s...': too long (at most %d characters)", expr,
               BENCH_THRESHOLD_EXPR_MAX - 1);
        return -1;
    }
    /* the expression without its :abort, which t.expr keeps as given */
    char body[BENCH_THRESHOLD_EXPR_MAX];
    snprintf(body, sizeof body, "%s", t.expr);
    if (parse_abort(body, &t, err, len) != 0)
        return -1;
    const char *e = body;
    if (!*e) {
        bench_seterr(err, len, "--threshold '%s': empty; expected e.g. 'p99<50ms'", expr);
        return -1;
    }
    /* A side metric's NAME:STAT is no TEST: part. */
    const char *colon = section_of_metric(sections, e) ? NULL : strchr(e, ':');
    const char *p = e;
    if (colon) {
        if (trimmed(e, colon, t.test, sizeof t.test) != 0 || !valid_test_name(t.test)) {
            bench_seterr(err, len, "--threshold '%s': '%.*s' is not a test name (TEST:EXPR)", e,
                   (int)(colon - e), e);
            return -1;
        }
        p = colon + 1;
    }
    p = skip_space(p);
    const bench_section *sec = section_of_metric(sections, p);
    p = sec ? parse_side_metric(sec, p, &t, e, err, len) : parse_metric(p, &t, e, err, len);
    if (!p)
        return -1;
    p = skip_space(p);
    const char *q = parse_op(p, &t.op);
    if (!q) {
        bench_seterr(err, len, "--threshold '%s': expected an operator (<, <=, >, >=, ==, !=) after the metric", e);
        return -1;
    }
    p = skip_space(q);
    const char *end = NULL;
    if (parse_number(p, &end, &t.value) != 0) {
        bench_seterr(err, len, "--threshold '%s': expected a non-negative number after the operator", e);
        return -1;
    }
    char unit[16];
    if (trimmed(end, end + strlen(end), unit, sizeof unit) != 0) {
        bench_seterr(err, len, "--threshold '%s': unknown unit '%s'", e, skip_space(end));
        return -1;
    }
    double f = 1.0;
    switch (t.metric) {
    case BENCH_TM_AVG: case BENCH_TM_MED: case BENCH_TM_MIN: case BENCH_TM_MAX: case BENCH_TM_PCT:
        if (latency_unit(unit, &f) != 0) {
            bench_seterr(err, len, "--threshold '%s': unknown unit '%s' (use ns, us, \xc2\xb5s, ms or s)", e, unit);
            return -1;
        }
        t.value *= f;
        snprintf(t.unit, sizeof t.unit, "%s", *unit ? unit : "ms");
        t.unit_us = f;
        break;
    case BENCH_TM_SIDE_PCT:
        if (strcmp(unit, "%") == 0 || (t.fraction && !*unit)) {
            double pct = *unit ? t.value : 100.0 * t.value;
            if (pct > 100) {
                bench_seterr(err, len, "--threshold '%s': %g%s is more than %s", e, t.value, *unit ? "%" : "",
                       *unit ? "100%" : "1 (a rate is a fraction: 0.01 is 1%)");
                return -1;
            }
            t.value = pct;
        } else {
            bench_seterr(err, len, "--threshold '%s': %s is a percentage of %s: %s<1%% (or k6's fraction: "
                   "%s:rate<0.01)", e, metric_name(&t), t.noun, metric_name(&t), metric_name(&t));
            return -1;
        }
        break;
    case BENCH_TM_SIDE_RATE:
        if (*unit && strcmp(unit, "/s") != 0 && strcmp(unit, t.rate_unit) != 0) {
            bench_seterr(err, len, "--threshold '%s': unknown unit '%s' for %s (%s per second: 1000 or 1000/s; a "
                   "count: %s:count>1000)", e, unit, metric_name(&t), t.noun, metric_name(&t));
            return -1;
        }
        break;
    case BENCH_TM_SIDE_COUNT:
        if (*unit || t.value != floor(t.value)) {
            bench_seterr(err, len, "--threshold '%s': %s:count takes a whole number of %s", e, metric_name(&t),
                   t.noun);
            return -1;
        }
        break;
    case BENCH_TM_SIDE_VALUE:
        if (*unit || t.value != floor(t.value)) {
            bench_seterr(err, len, "--threshold '%s': %s:%s takes a whole number of %s", e, metric_name(&t),
                   t.gauge, t.noun);
            return -1;
        }
        break;
    case BENCH_TM_RATE:
        if (*unit && strcmp(unit, "/s") != 0 && strcmp(unit, "ops/s") != 0) {
            bench_seterr(err, len, "--threshold '%s': unknown unit '%s' for rate (operations per second: "
                   "1000 or 1000/s)", e, unit);
            return -1;
        }
        break;
    case BENCH_TM_ERROR_PCT: case BENCH_TM_ERROR_COUNT:
        if (strcmp(unit, "%") == 0) {
            if (t.value > 100) {
                bench_seterr(err, len, "--threshold '%s': %g%% is more than 100%%", e, t.value);
                return -1;
            }
            t.metric = BENCH_TM_ERROR_PCT;
        } else if (!*unit) {
            if (t.value != floor(t.value)) {
                bench_seterr(err, len, "--threshold '%s': a count of errors is a whole number (for a "
                       "percentage write %g%%)", e, t.value);
                return -1;
            }
            t.metric = BENCH_TM_ERROR_COUNT;
        } else {
            bench_seterr(err, len, "--threshold '%s': unknown unit '%s' for errors (a percentage: 0.1%%, "
                   "or a count: 5)", e, unit);
            return -1;
        }
        break;
    }
    if (t.abort && t.section) {
        bench_seterr(err, len, "--threshold '%s': :abort judges the run's own figures while it runs "
                     "(latency, rate, errors); %s is judged at its end", t.expr, metric_name(&t));
        return -1;
    }
    *out = t;
    return 0;
}

int bench_threshold_applies(const bench_threshold *t, const char *test)
{
    return !t->test[0] || (test && strcmp(t->test, test) == 0);
}

static int compare(double a, bench_threshold_op op, double b)
{
    switch (op) {
    case BENCH_OP_LT: return a < b;
    case BENCH_OP_LE: return a <= b;
    case BENCH_OP_GT: return a > b;
    case BENCH_OP_GE: return a >= b;
    case BENCH_OP_EQ: return a == b;
    case BENCH_OP_NE: return a != b;
    }
    return 0;
}

/* The percentiles a latency summary keeps (p50 ... p999, max as p100),
 * each with its member in a results file. */
static const struct { double p; const char *key; } kept[] = {
    { 50, "p50" }, { 90, "p90" }, { 95, "p95" }, { 99, "p99" }, { 99.9, "p999" }, { 100, "max" },
};

/* The index in kept[] of a percentile; -1 when a summary does not keep it. */
static int kept_index(double pct)
{
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (pct == kept[i].p)
            return (int)i;
    return -1;
}

/* The kept percentile k (kept[]'s order) of a latency summary. */
static double kept_value(const bench_model_latency *l, int k)
{
    const double v[] = { l->p50, l->p90, l->p95, l->p99, l->p999, l->max };
    return v[k];
}

/* The statistic t names (avg, med, min, max, a kept percentile) of a
 * latency summary l in µs: 0, or -1 when l has no values or does not keep
 * the percentile. */
static int latency_stat(const bench_threshold *t, const bench_model_latency *l, double *v)
{
    if (!l->present || l->count == 0)
        return -1;
    switch (t->metric) {
    case BENCH_TM_AVG: *v = l->mean; return 0;
    case BENCH_TM_MED: *v = l->p50; return 0;
    case BENCH_TM_MIN: *v = l->min; return 0;
    case BENCH_TM_MAX: *v = l->max; return 0;
    case BENCH_TM_PCT: {
        const int k = kept_index(t->pct);
        if (k < 0)
            return -1;
        *v = kept_value(l, k);
        return 0;
    }
    default:
        return -1;
    }
}

/* ---- a workload section's side metrics ------------------------------------
 * What a side threshold judges is the section's own part of the run element
 * (section.h): read here, from its object in the element the model was
 * read from (m->run, borrowed), and nowhere else in this file. */

/* The section's object in the run element; NULL when the run has none. */
static const json_t *section_object(const bench_threshold *t, const bench_run_model *m)
{
    return json_object_get(m->run, t->section->key);
}

/* The section's count (its count_key); 0 when none. */
static long long section_count(const bench_threshold *t, const json_t *obj)
{
    return bench_json_int(obj, t->section->count_key, 0);
}

/* A distribution's statistic (a phase's, a trend's): 0, or -1 when it is
 * not there or empty, or the percentile is not kept. */
static int dist_value(const bench_threshold *t, const json_t *dist, double *v)
{
    bench_model_latency l;
    bench_model_latency_of(dist, &l);
    const int k = t->metric == BENCH_TM_PCT ? kept_index(t->pct) : 0;
    if (k < 0 || (t->metric == BENCH_TM_PCT && !json_is_number(json_object_get(dist, kept[k].key))))
        return -1;
    return latency_stat(t, &l, v);
}

/* The member at path (members separated by '/') of obj, NULL if none;
 * *parent the object that should hold its last member (NULL if none). */
static const json_t *at_path(const json_t *obj, const char *path, const json_t **parent)
{
    const json_t *cur = obj;
    *parent = NULL;
    for (const char *p = path; cur && *p;) {
        const char *slash = strchr(p, '/');
        const size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char key[128];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, p, n);
        key[n] = '\0';
        *parent = json_is_object(cur) ? cur : NULL;
        cur = json_object_get(cur, key);
        p += n + (slash != NULL);
    }
    return cur;
}

/* A k6 metric's figure (t->path in the section's object obj; a counter per
 * second of the run's duration d): 0, or -1 when it has none (the object not
 * there, a trend or a rate without data). */
static int k6_value(const bench_threshold *t, double d, const json_t *obj, double *v)
{
    const json_t *parent = NULL;
    const json_t *m = at_path(obj, t->path, &parent);
    switch (t->kind) {
    case BENCH_SM_RATE:
        if (!json_is_object(m) || bench_json_int(m, "passes", 0) + bench_json_int(m, "fails", 0) <= 0)
            return -1;
        *v = 100.0 * bench_json_num(m, "rate", 0);
        return 0;
    case BENCH_SM_COUNTER: {
        /* a count not there, in an object that is, is none: no 503 answered */
        if (!m && !parent)
            return -1;
        const double n = json_is_object(m) ? (double)bench_json_int(m, "count", 0)
                                           : json_is_integer(m) ? (double)json_integer_value(m) : 0;
        if (t->metric == BENCH_TM_SIDE_COUNT) {
            *v = n;
            return 0;
        }
        if (d <= 0)
            return -1;
        *v = n / d;
        return 0;
    }
    case BENCH_SM_GAUGE:
        if (!json_is_object(m))
            return -1;
        *v = (double)bench_json_int(m, t->gauge, 0);
        return 0;
    default:
        break;
    }
    return dist_value(t, m, v);
}

/* A side threshold's figure: 0, or -1 when the run has none (no section,
 * a zero count, no distribution or an empty one). */
static int section_value(const bench_threshold *t, const bench_run_model *m, double *v)
{
    const json_t *obj = section_object(t, m);
    if (!json_is_object(obj) || section_count(t, obj) <= 0)
        return -1;
    if (t->path[0])
        return k6_value(t, m->duration_s, obj, v);
    switch (t->metric) {
    case BENCH_TM_SIDE_PCT:
        *v = bench_json_num(obj, t->side->key, 0);
        return 0;
    case BENCH_TM_SIDE_COUNT:
        *v = (double)bench_json_int(obj, t->side->key, 0);
        return 0;
    case BENCH_TM_SIDE_RATE:
        if (m->duration_s <= 0)
            return -1;
        *v = (double)bench_json_int(obj, t->side->key, 0) / m->duration_s;
        return 0;
    default:
        break;
    }
    return dist_value(t, json_object_get(json_object_get(obj, t->section->dists), t->side->key), v);
}

/* Why a side threshold on a measured run has no figure, from its section's
 * object (section.h's reasons) into buf. */
static void section_why(const bench_threshold *t, const bench_run_model *m, char *buf, size_t len)
{
    const bench_section *sec = t->section;
    const json_t *obj = section_object(t, m), *parent = NULL;
    if (!json_is_object(obj))
        snprintf(buf, len, "%s", sec->absent);
    else if (t->path[0] && section_count(t, obj) > 0)
        snprintf(buf, len, "%s", at_path(obj, t->path, &parent) ? "no data (as in k6, a threshold on a "
                 "metric without data fails)" : sec->no_k6 ? sec->no_k6 : "not in this file");
    else if (t->side->kind == BENCH_SM_DIST && !json_is_object(json_object_get(obj, sec->dists)))
        snprintf(buf, len, "%s", sec->no_dists);
    else
        snprintf(buf, len, "%s", sec->empty);
}

/* ---- the run's own metrics, from its model ---------------------------------- */

/* A percentile in µs the latency summary does not keep: the histogram's. */
static int histogram_percentile_us(const bench_run_model *m, double pct, double *out)
{
    if (!m->hist)
        return -1;
    *out = (double)bench_hist_percentile(m->hist, pct) / 1000.0;
    return 0;
}

int bench_threshold_eval(const bench_threshold *t, const bench_run_model *m, double *observed)
{
    *observed = 0;
    if (!m->measured)
        return -1;
    double v = 0;
    if (t->section) {
        if (section_value(t, m, &v) != 0)
            return -1;
    } else if (t->metric <= BENCH_TM_PCT) {
        /* No successful operation: there is no latency to hold to a limit. */
        if (m->latency.count == 0)
            return -1;
        if (latency_stat(t, &m->latency, &v) != 0 && histogram_percentile_us(m, t->pct, &v) != 0)
            return -1;
    } else {
        switch (t->metric) {
        case BENCH_TM_RATE:        v = m->ops_per_s; break;
        case BENCH_TM_ERROR_PCT:   v = m->error_pct; break;
        case BENCH_TM_ERROR_COUNT: v = (double)m->errors; break;
        default:                   return -1;
        }
    }
    *observed = v;
    return compare(v, t->op, t->value);
}

/* A latency in the expression's own unit: "0.3131ms", "154.3ms", "2s". */
static const char *in_unit(const bench_threshold *t, double us, char *buf, size_t len)
{
    double v = t->unit_us > 0 ? us / t->unit_us : us;
    if (v >= 1000)
        snprintf(buf, len, "%.0f%s", v, t->unit);
    else
        snprintf(buf, len, "%.4g%s", v, t->unit);
    return buf;
}

/* The observed text of a side threshold. */
static const char *side_observed_text(const bench_threshold *t, double observed, char *buf, size_t len)
{
    static const char *const stat[] = { "avg", "med", "min", "max" };
    char v[48];
    switch (t->metric) {
    case BENCH_TM_SIDE_PCT:
        if (t->fraction)
            snprintf(buf, len, "rate=%.4f", observed / 100.0);
        else
            snprintf(buf, len, "%s=%.2f%%", metric_name(t), observed);
        break;
    case BENCH_TM_SIDE_RATE:  snprintf(buf, len, "rate=%.2f/s", observed); break;
    case BENCH_TM_SIDE_COUNT: snprintf(buf, len, "count=%.0f", observed); break;
    case BENCH_TM_SIDE_VALUE: snprintf(buf, len, "%s=%.0f", t->gauge, observed); break;
    case BENCH_TM_PCT:        snprintf(buf, len, "p(%g)=%s", t->pct, in_unit(t, observed, v, sizeof v)); break;
    default:
        snprintf(buf, len, "%s=%s", t->metric <= BENCH_TM_MAX ? stat[t->metric] : "?",
                 in_unit(t, observed, v, sizeof v));
        break;
    }
    return buf;
}

const char *bench_threshold_observed_text(const bench_threshold *t, double observed, char *buf,
                                          size_t len)
{
    char v[32];
    if (t->section)
        return side_observed_text(t, observed, buf, len);
    switch (t->metric) {
    case BENCH_TM_AVG: snprintf(buf, len, "avg=%s", bench_fmt_ns(observed * 1000, v, sizeof v)); break;
    case BENCH_TM_MED: snprintf(buf, len, "med=%s", bench_fmt_ns(observed * 1000, v, sizeof v)); break;
    case BENCH_TM_MIN: snprintf(buf, len, "min=%s", bench_fmt_ns(observed * 1000, v, sizeof v)); break;
    case BENCH_TM_MAX: snprintf(buf, len, "max=%s", bench_fmt_ns(observed * 1000, v, sizeof v)); break;
    case BENCH_TM_PCT:
        snprintf(buf, len, "p(%g)=%s", t->pct, bench_fmt_ns(observed * 1000, v, sizeof v));
        break;
    case BENCH_TM_RATE:        snprintf(buf, len, "rate=%.2f/s", observed); break;
    case BENCH_TM_ERROR_PCT:   snprintf(buf, len, "errors=%.2f%%", observed); break;
    case BENCH_TM_ERROR_COUNT: snprintf(buf, len, "errors=%.0f", observed); break;
    default:                   snprintf(buf, len, "?"); break;
    }
    return buf;
}

static const char *observed_unit(const bench_threshold *t)
{
    switch (t->metric) {
    case BENCH_TM_RATE:        return "ops/s";
    case BENCH_TM_ERROR_PCT:   return "%";
    case BENCH_TM_ERROR_COUNT: return "errors";
    case BENCH_TM_SIDE_PCT:    return "%";
    case BENCH_TM_SIDE_RATE:   return t->rate_unit;
    case BENCH_TM_SIDE_COUNT:  return t->noun;
    case BENCH_TM_SIDE_VALUE:  return t->noun;
    default:                   return "us";
    }
}

/* How many of the n runs are of this test. */
static size_t runs_of(const bench_run_model *models, size_t n, const char *test)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += strcmp(models[i].test, test) == 0;
    return k;
}

/* A latency threshold on a run whose latency leaves out requests that never
 * started, beyond its bound (latency_complete false): the reason it cannot
 * hold ("latency incomplete: 6350 of 10000 scheduled requests never
 * started") into buf, else NULL. */
static const char *incomplete(const bench_threshold *t, const bench_run_model *m, char *buf, size_t len)
{
    if (t->metric > BENCH_TM_PCT || m->latency_complete)
        return NULL;
    snprintf(buf, len, "latency incomplete: %llu of %llu scheduled requests never started",
             (unsigned long long)m->dropped, (unsigned long long)m->scheduled);
    return buf;
}

/* What the block says of a threshold on a run: its figure, or why none. */
static void observed_or_why(const bench_threshold *t, const bench_run_model *m, int rc, double observed,
                            char *obs, size_t len)
{
    if (rc < 0 && incomplete(t, m, obs, len))
        ;
    else if (rc < 0 && t->section && m->measured)
        section_why(t, m, obs, len);
    else if (rc < 0)
        snprintf(obs, len, "not measured");
    else
        (void)bench_threshold_observed_text(t, observed, obs, len);   /* returns obs */
}

/* A failed threshold as --quiet's one line on standard error. */
static void failed_line(FILE *f, const char *test, const char *expr, const char *why)
{
    fprintf(f, "hsmbench: threshold failed: %s%s'%s' %s\n", test ? test : "", test ? " " : "", expr, why);
}

static void models_free(bench_run_model *models, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bench_model_free(&models[i]);
    free(models);
}

/* Each element of runs read once into its run model (no document: a
 * threshold needs none of its facts); *out NULL when there is none.
 * Returns 0, or -1 when out of memory (nothing to free then). */
static int models_of(const json_t *runs, bench_run_model **out, size_t *n)
{
    const size_t k = json_array_size(runs);   /* 0 for what is not an array */
    *out = NULL;
    *n = 0;
    if (!k)
        return 0;
    bench_run_model *models = calloc(k, sizeof *models);
    if (!models)
        return -1;
    size_t i;
    const json_t *run;
    json_array_foreach(runs, i, run) {
        if (bench_model_from_run(run, NULL, &models[i]) != 0) {
            models_free(models, i);
            return -1;
        }
    }
    *out = models;
    *n = k;
    return 0;
}

int bench_thresholds_apply(const bench_threshold *ths, size_t n, json_t *runs, FILE *f, FILE *failed_f)
{
    int failed = 0, rc = -1;
    char *hit = NULL;    /* threshold i evaluated on at least one run */
    bench_run_model *models = NULL;
    size_t nmodels = 0;
    json_t *arr = NULL;
    if (n == 0)
        return 0;
    if (!(hit = calloc(n, 1)) || models_of(runs, &models, &nmodels) != 0)
        goto cleanup;
    if (f)
        fprintf(f, "\n  \xe2\x96\x88 THRESHOLDS\n");
    size_t r;
    json_t *run;
    json_array_foreach(runs, r, run) {
        const bench_run_model *m = &models[r];
        int header = 0;
        for (size_t i = 0; i < n; i++) {
            const bench_threshold *t = &ths[i];
            /* Tests the token skipped do not fail thresholds meant for every test. */
            if (!bench_threshold_applies(t, m->test) || (!t->test[0] && !m->measured))
                continue;
            hit[i] = 1;
            double observed = 0;
            char why[96];
            /* A latency that leaves out the requests that waited longest holds no bound. */
            int ev = incomplete(t, m, why, sizeof why) ? -1 : bench_threshold_eval(t, m, &observed);
            int ok = ev == 1;
            failed += !ok;
            if (!arr && !(arr = json_array()))
                goto cleanup;
            json_t *e = json_pack("{s:s,s:s?,s:b,s:o,s:s}", "expr", t->expr, "test", t->test[0] ? t->test : NULL,
                                  "ok", ok, "observed", ev < 0 ? json_null() : json_real(observed), "unit",
                                  observed_unit(t));
            if (!e || json_array_append_new(arr, e) != 0)
                goto cleanup;
            char obs[96];
            if (f || (failed_f && !ok))
                observed_or_why(t, m, ev, observed, obs, sizeof obs);
            if (failed_f && !ok)
                failed_line(failed_f, m->test, t->expr, obs);
            if (f) {
                if (!header) {
                    fprintf(f, "\n    %s", m->test);
                    if (runs_of(models, nmodels, m->test) > 1)
                        fprintf(f, " \xc2\xb7 %u thread%s \xc2\xb7 data %llu B", m->threads,
                                m->threads == 1 ? "" : "s", (unsigned long long)m->data_size);
                    fputc('\n', f);
                    header = 1;
                }
                fprintf(f, "    %s '%s' %s\n", ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97", t->expr, obs);
            }
        }
        if (arr) {
            /* the element takes arr, also when it cannot hold it */
            const int bad = json_object_set_new(run, "thresholds", arr);
            arr = NULL;
            if (bad)
                goto cleanup;
        }
    }
    int orphan_header = 0;
    for (size_t i = 0; i < n; i++) {
        if (hit[i])
            continue;
        failed++;
        const char *why = ths[i].test[0] ? "no run of this test" : "no measured run";
        if (failed_f)
            failed_line(failed_f, NULL, ths[i].expr, why);
        if (f) {
            if (!orphan_header) {
                fprintf(f, "\n    (no run)\n");
                orphan_header = 1;
            }
            fprintf(f, "    \xe2\x9c\x97 '%s' %s\n", ths[i].expr, why);
        }
    }
    if (f) {
        fputc('\n', f);
        bench_flush(f);
    }
    if (failed_f)
        fflush(failed_f);
    rc = failed;
cleanup:
    json_decref(arr);
    models_free(models, nmodels);
    free(hit);
    return rc;
}

void bench_sections_help(const bench_section *const *sections, FILE *f)
{
    for (const bench_section *const *sec = sections; sec && *sec; sec++)
        if ((*sec)->threshold_help)
            fputs((*sec)->threshold_help, f);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/capanswer.c - a capacity search's answer, read once from the
 * "capacity" object of a results file (the only reader of that object's
 * members), and its answer and objectives as people read them: what the
 * driver prints at the end of a search, and what `report`, `compare`, the
 * HTML pages and `replay --find-speed` show of a saved one. */
#include "bench/results/capanswer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/results/codec.h"

/* An objective as the texts show it: an expression (at most 160 bytes, as
 * threshold.h keeps one; not included: threshold.h includes the run model,
 * which includes this file's header) and the spaces around its operator. */
#define OBJECTIVE_TEXT_MAX (160 + 16)

/* ---- the reader ---- */

/* A copy of obj[key] when it is a string: 0, or -1 when out of memory. */
static int str_of(const json_t *obj, const char *key, char **out)
{
    const char *v = bench_json_str(obj, key, NULL);
    *out = v ? strdup(v) : NULL;
    return v && !*out ? -1 : 0;
}

static int steps_of(const json_t *steps, bench_cap_answer *a)
{
    const size_t n = json_array_size(steps);
    if (!n)
        return 0;
    if (!(a->steps = calloc(n, sizeof *a->steps)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *st = json_array_get(steps, i);
        bench_cap_answer_step *s = &a->steps[i];
        a->nsteps = i + 1;
        s->rate = bench_json_num(st, "rate", 0);
        s->achieved = bench_json_num(st, "achieved", 0);
        s->p50_us = bench_json_num(st, "p50_us", 0);
        s->p99_us = bench_json_num(st, "p99_us", 0);
        s->error_pct = bench_json_num(st, "error_pct", 0);
        s->pass = json_is_true(json_object_get(st, "pass"));
        if (str_of(st, "why", &s->why) != 0)
            return -1;
    }
    return 0;
}

static int objectives_of(const json_t *objs, bench_cap_answer *a)
{
    const size_t n = json_array_size(objs);
    if (objs && !(a->objectives_json = json_dumps(objs, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)))
        return -1;
    if (!n)
        return 0;
    if (!(a->objectives = calloc(n, sizeof *a->objectives)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(objs, i);
        a->nobjectives = i + 1;
        if (json_is_string(o) && !(a->objectives[i] = strdup(json_string_value(o))))
            return -1;
    }
    return 0;
}

/* [lo, hi]: the answer's bracket widened by its repeated steps' range. */
static void interval_of(bench_cap_answer *a)
{
    if (!a->result || strcmp(a->result, "found") != 0 || !(a->ops_per_s > 0))
        return;
    a->has_interval = 1;
    a->interval_lo = a->ops_per_s;
    a->interval_hi = a->has_hi ? a->hi : a->ops_per_s;
    if (a->low > 0 && a->low < a->interval_lo)
        a->interval_lo = a->low;
    if (a->high > a->interval_hi)
        a->interval_hi = a->high;
}

int bench_cap_answer_of(const json_t *cap, bench_cap_answer *a)
{
    memset(a, 0, sizeof *a);
    if (!json_is_object(cap))
        return 0;
    const json_t *u = json_object_get(cap, "uncertainty"), *ag = json_object_get(cap, "against");
    const json_t *hi = json_array_get(json_object_get(cap, "bounds"), 1);
    const json_t *bracket = json_object_get(cap, "bracket_pct");
    a->present = 1;
    a->has_ops_per_s = json_is_number(json_object_get(cap, "ops_per_s"));
    a->ops_per_s = bench_json_num(cap, "ops_per_s", 0);
    a->threads = bench_json_int(cap, "threads", 0);
    a->precision = bench_json_num(cap, "precision", 0);
    a->start_rate = bench_json_num(cap, "start_rate", 0);
    a->has_hi = json_is_number(hi);
    a->hi = a->has_hi ? json_number_value(hi) : 0;
    a->has_bracket = json_is_number(bracket);
    a->bracket_pct = a->has_bracket ? json_number_value(bracket) : 0;
    a->has_uncertainty = u != NULL;
    a->low = bench_json_num(u, "low", 0);
    a->high = bench_json_num(u, "high", 0);
    a->minus_pct = bench_json_num(u, "minus_pct", 0);
    a->plus_pct = bench_json_num(u, "plus_pct", 0);
    a->has_against = ag != NULL;
    a->against_rate = bench_json_num(ag, "rate", 0);
    a->against_pass = json_is_true(json_object_get(ag, "pass"));
    if (str_of(cap, "result", &a->result) != 0 || str_of(cap, "limited_by", &a->limited_by) != 0 ||
        objectives_of(json_object_get(cap, "objectives"), a) != 0 ||
        steps_of(json_object_get(cap, "steps"), a) != 0) {
        bench_cap_answer_free(a);
        return -1;
    }
    interval_of(a);
    return 0;
}

int bench_cap_answer_of_doc(const json_t *doc, bench_cap_answer *a)
{
    return bench_cap_answer_of(json_object_get(doc, "capacity"), a);
}

void bench_cap_answer_free(bench_cap_answer *a)
{
    for (size_t i = 0; i < a->nobjectives; i++)
        free(a->objectives[i]);
    for (size_t i = 0; i < a->nsteps; i++)
        free(a->steps[i].why);
    free(a->objectives);
    free(a->objectives_json);
    free(a->steps);
    free(a->result);
    free(a->limited_by);
    memset(a, 0, sizeof *a);
}

int bench_cap_same_objectives(const bench_cap_answer *a, const bench_cap_answer *b)
{
    return a->objectives_json && b->objectives_json && strcmp(a->objectives_json, b->objectives_json) == 0;
}

/* ---- texts ---- */

/* "p99<20ms" -> "p99 < 20 ms", "errors<0.1%" -> "errors < 0.1 %". */
static void pretty_expr(const char *e, char *buf, size_t len)
{
    size_t k = 0;
    int in_value = 0, digits = 0;
    for (const char *p = e; *p && k + 4 < len; p++) {
        if (*p == ' ')
            continue;
        if (!in_value && (*p == '<' || *p == '>' || *p == '=' || *p == '!')) {
            buf[k++] = ' ';
            /* a file's objective may hold any run of them: as many as fit,
             * the trailing space and the end kept */
            for (; *p == '<' || *p == '>' || *p == '=' || *p == '!'; p++)
                if (k + 2 < len)
                    buf[k++] = *p;
            buf[k++] = ' ';
            p--;
            in_value = 1;
            continue;
        }
        /* An exponent is the number's ("1e308ms" is "1e308 ms", not "1 e308ms"). */
        if (in_value == 1 && digits && (*p == 'e' || *p == 'E') &&
            (isdigit((unsigned char)p[1]) ||
             ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
            buf[k++] = *p;
            if (!isdigit((unsigned char)p[1]))
                buf[k++] = *++p;
            continue;
        }
        if (in_value && digits && !(*p >= '0' && *p <= '9') && *p != '.') {
            buf[k++] = ' ';
            digits = 0;
            in_value = 2;
        }
        if (in_value == 1 && ((*p >= '0' && *p <= '9') || *p == '.'))
            digits = 1;
        buf[k++] = *p;
    }
    buf[k] = 0;
}

const char *bench_cap_objectives_text(const bench_cap_answer *a, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; i < a->nobjectives; i++) {
        char one[OBJECTIVE_TEXT_MAX];
        const size_t n = strlen(buf);
        pretty_expr(a->objectives[i] ? a->objectives[i] : "?", one, sizeof one);
        if (n + 1 < len)
            snprintf(buf + n, len - n, "%s%s", i ? ", " : "", one);
    }
    return buf;
}

/* 3720 -> "3 720"; below 100 with up to three significant digits. */
static const char *rate_text(double r, char *buf, size_t len)
{
    if (r < 100) {
        snprintf(buf, len, "%.3g", r);
        return buf;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", r);
    const size_t n = strlen(digits);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ' ';
        buf[k++] = digits[i];
    }
    buf[k] = 0;
    return buf;
}

/* The measured uncertainty: "-0.8 %/+1.6 % by repeated steps (3 950 to 4 062 ops/s)". */
static const char *uncertainty_text(const bench_cap_answer *a, char *buf, size_t len)
{
    char l[32], h[32];
    if (!a->has_uncertainty) {
        /* A file from before the repeats: its precision was all it had. */
        snprintf(buf, len, "\xc2\xb1%g %% (the search's bracket)", 100.0 * a->precision);
        return buf;
    }
    if (!(a->low > 0)) {
        snprintf(buf, len, "uncertainty not measured");
        return buf;
    }
    rate_text(a->low, l, sizeof l);
    if (a->high > 0)
        snprintf(buf, len, "-%g %%/+%g %% by repeated steps (%s to %s ops/s)", a->minus_pct, a->plus_pct, l,
                 rate_text(a->high, h, sizeof h));
    else
        snprintf(buf, len, "-%g %% by repeated steps (at least %s ops/s)", a->minus_pct, l);
    return buf;
}

/* The search's own bracket, (hi - lo) / lo: "1.6" (older files: the precision). */
static const char *bracket_text(const bench_cap_answer *a, const char *prec, char *buf, size_t len)
{
    if (a->has_bracket)
        snprintf(buf, len, "%g", a->bracket_pct);
    else
        snprintf(buf, len, "%s", prec);
    return buf;
}

const char *bench_cap_answer_text(const bench_cap_answer *ca, char *buf, size_t len)
{
    char objs[600], a[32], b[32], prec[32], u[160], u_text[160];
    const char *result = ca->result ? ca->result : "?";
    const double answer = ca->ops_per_s;
    const long long threads = ca->threads;
    const double hi = ca->hi;
    bench_cap_objectives_text(ca, objs, sizeof objs);
    snprintf(prec, sizeof prec, "%g", 100.0 * ca->precision);
    rate_text(answer, a, sizeof a);
    if (strcmp(result, "interrupted") == 0 || strcmp(result, "failed") == 0) {
        const size_t nsteps = ca->nsteps;
        const int k = snprintf(buf, len, "capacity search %s after %zu step%s",
                               result[0] == 'i' ? "interrupted" : "stopped (a step could not run)",
                               nsteps, nsteps == 1 ? "" : "s");
        if (answer > 0 && k > 0 && (size_t)k < len)
            snprintf(buf + k, len - (size_t)k, ": the highest rate that passed %s was %s ops/s",
                     objs, a);
    } else if (strcmp(result, "none") == 0 || !(answer > 0)) {
        /* The lowest rate tried, and why it failed. */
        const bench_cap_answer_step *low = NULL;
        for (size_t i = 0; i < ca->nsteps; i++)
            if (!low || ca->steps[i].rate < low->rate)
                low = &ca->steps[i];
        if (!low)
            snprintf(buf, len, "no rate met the objectives: no step was measured");
        else
            snprintf(buf, len, "no rate met the objectives: even %s/s failed %s (%s)",
                     rate_text(low->rate, b, sizeof b), objs, low->why ? low->why : "?");
    } else if (strcmp(result, "ceiling") == 0) {
        snprintf(buf, len, "capacity at least %s ops/s at %s, %lld thread%s: every step passed, up "
                 "to the search's ceiling", a, objs, threads, threads == 1 ? "" : "s");
    } else if (strcmp(result, "unsettled") == 0) {
        char why[200];
        if (ca->has_against)
            snprintf(why, sizeof why, "%s/s %s, beyond %s", rate_text(ca->against_rate, b, sizeof b),
                     ca->against_pass ? "passed" : "failed", uncertainty_text(ca, u_text, sizeof u_text));
        else
            snprintf(why, sizeof why, "its boundary's repeated steps disagree and no rate %s it "
                     "%s every step within %d steps", ca->low > 0 ? "above" : "below",
                     ca->low > 0 ? "failed" : "passed", BENCH_CAP_MAX_EDGES);
        snprintf(buf, len, "capacity unsettled: %s ops/s passed %s, %lld thread%s, but %s", a, objs,
                 threads, threads == 1 ? "" : "s", why);
    } else if (strcmp(result, "steps") == 0) {
        if (hi > 0)
            snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, %s; bracket %.2g %% (the "
                     "step cap came before %s %%; %s/s failed)", a, objs, threads,
                     threads == 1 ? "" : "s", uncertainty_text(ca, u, sizeof u),
                     100.0 * (hi - answer) / answer, prec, rate_text(hi, b, sizeof b));
        else
            snprintf(buf, len, "capacity at least %s ops/s at %s, %lld thread%s (the step cap came "
                     "while every step passed)", a, objs, threads, threads == 1 ? "" : "s");
    } else if (!ca->has_uncertainty) {
        /* A file from before the repeats: its precision was all it had. */
        snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, \xc2\xb1%s %%", a, objs,
                 threads, threads == 1 ? "" : "s", prec);
    } else {
        snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, %s; bracket %s %%", a, objs,
                 threads, threads == 1 ? "" : "s", uncertainty_text(ca, u, sizeof u),
                 bracket_text(ca, prec, b, sizeof b));
    }
    return buf;
}

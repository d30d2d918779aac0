/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/capanswer.c - a capacity search's answer and objectives as
 * people read them, from the "capacity" object of a results file: what the
 * driver prints at the end of a search, and what `report` and the HTML page
 * show of a saved one. */
#include "bench/results/capanswer.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bench/results/codec.h"
#include "bench/results/threshold.h"

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
            while (*p == '<' || *p == '>' || *p == '=' || *p == '!')
                buf[k++] = *p++;
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

const char *bench_cap_objectives_text(const json_t *objectives, char *buf, size_t len)
{
    size_t i;
    const json_t *o;
    buf[0] = 0;
    json_array_foreach(objectives, i, o) {
        char one[BENCH_THRESHOLD_EXPR_MAX + 16];
        const size_t n = strlen(buf);
        pretty_expr(json_is_string(o) ? json_string_value(o) : "?", one, sizeof one);
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
static const char *uncertainty_text(const json_t *cap, char *buf, size_t len)
{
    const json_t *u = json_object_get(cap, "uncertainty");
    char l[32], h[32];
    if (!u) {
        /* A file from before the repeats: its precision was all it had. */
        snprintf(buf, len, "\xc2\xb1%g %% (the search's bracket)",
                 100.0 * bench_json_num(cap, "precision", 0));
        return buf;
    }
    const double low = bench_json_num(u, "low", 0), high = bench_json_num(u, "high", 0);
    if (!(low > 0)) {
        snprintf(buf, len, "uncertainty not measured");
        return buf;
    }
    rate_text(low, l, sizeof l);
    if (high > 0)
        snprintf(buf, len, "-%g %%/+%g %% by repeated steps (%s to %s ops/s)",
                 bench_json_num(u, "minus_pct", 0), bench_json_num(u, "plus_pct", 0), l,
                 rate_text(high, h, sizeof h));
    else
        snprintf(buf, len, "-%g %% by repeated steps (at least %s ops/s)",
                 bench_json_num(u, "minus_pct", 0), l);
    return buf;
}

/* The search's own bracket, (hi - lo) / lo: "1.6" (older files: the precision). */
static const char *bracket_text(const json_t *cap, const char *prec, char *buf, size_t len)
{
    const json_t *b = json_object_get(cap, "bracket_pct");
    if (json_is_number(b))
        snprintf(buf, len, "%g", json_number_value(b));
    else
        snprintf(buf, len, "%s", prec);
    return buf;
}

const char *bench_cap_answer_text(const json_t *cap, char *buf, size_t len)
{
    char objs[600], a[32], b[32], prec[32], u[160], u_text[160];
    const char *result = bench_json_str(cap, "result", "?");
    const double answer = bench_json_num(cap, "ops_per_s", 0);
    const long long threads = bench_json_int(cap, "threads", 0);
    const json_t *bounds = json_object_get(cap, "bounds");
    const double hi = json_number_value(json_array_get(bounds, 1));
    bench_cap_objectives_text(json_object_get(cap, "objectives"), objs, sizeof objs);
    snprintf(prec, sizeof prec, "%g", 100.0 * bench_json_num(cap, "precision", 0));
    rate_text(answer, a, sizeof a);
    if (strcmp(result, "interrupted") == 0 || strcmp(result, "failed") == 0) {
        const size_t nsteps = json_array_size(json_object_get(cap, "steps"));
        const int k = snprintf(buf, len, "capacity search %s after %zu step%s",
                               result[0] == 'i' ? "interrupted" : "stopped (a step could not run)",
                               nsteps, nsteps == 1 ? "" : "s");
        if (answer > 0 && k > 0 && (size_t)k < len)
            snprintf(buf + k, len - (size_t)k, ": the highest rate that passed %s was %s ops/s",
                     objs, a);
    } else if (strcmp(result, "none") == 0 || !(answer > 0)) {
        /* The lowest rate tried, and why it failed. */
        const json_t *steps = json_object_get(cap, "steps"), *st, *low = NULL;
        size_t i;
        json_array_foreach(steps, i, st) {
            if (!low || bench_json_num(st, "rate", 0) < bench_json_num(low, "rate", 0))
                low = st;
        }
        if (!low)
            snprintf(buf, len, "no rate met the objectives: no step was measured");
        else
            snprintf(buf, len, "no rate met the objectives: even %s/s failed %s (%s)",
                     rate_text(bench_json_num(low, "rate", 0), b, sizeof b), objs,
                     bench_json_str(low, "why", "?"));
    } else if (strcmp(result, "ceiling") == 0) {
        snprintf(buf, len, "capacity at least %s ops/s at %s, %lld thread%s: every step passed, up "
                 "to the search's ceiling", a, objs, threads, threads == 1 ? "" : "s");
    } else if (strcmp(result, "unsettled") == 0) {
        const json_t *ag = json_object_get(cap, "against");
        const json_t *unc = json_object_get(cap, "uncertainty");
        char why[200];
        if (ag)
            snprintf(why, sizeof why, "%s/s %s, beyond %s", rate_text(bench_json_num(ag, "rate", 0),
                     b, sizeof b), json_is_true(json_object_get(ag, "pass")) ? "passed" : "failed",
                     uncertainty_text(cap, u_text, sizeof u_text));
        else
            snprintf(why, sizeof why, "its boundary's repeated steps disagree and no rate %s it "
                     "%s every step within %d steps", bench_json_num(unc, "low", 0) > 0 ? "above"
                                                                                      : "below",
                     bench_json_num(unc, "low", 0) > 0 ? "failed" : "passed", BENCH_CAP_MAX_EDGES);
        snprintf(buf, len, "capacity unsettled: %s ops/s passed %s, %lld thread%s, but %s", a, objs,
                 threads, threads == 1 ? "" : "s", why);
    } else if (strcmp(result, "steps") == 0) {
        if (hi > 0)
            snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, %s; bracket %.2g %% (the "
                     "step cap came before %s %%; %s/s failed)", a, objs, threads,
                     threads == 1 ? "" : "s", uncertainty_text(cap, u, sizeof u),
                     100.0 * (hi - answer) / answer, prec, rate_text(hi, b, sizeof b));
        else
            snprintf(buf, len, "capacity at least %s ops/s at %s, %lld thread%s (the step cap came "
                     "while every step passed)", a, objs, threads, threads == 1 ? "" : "s");
    } else if (!json_object_get(cap, "uncertainty")) {
        /* A file from before the repeats: its precision was all it had. */
        snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, \xc2\xb1%s %%", a, objs,
                 threads, threads == 1 ? "" : "s", prec);
    } else {
        snprintf(buf, len, "capacity %s ops/s at %s, %lld thread%s, %s; bracket %s %%", a, objs,
                 threads, threads == 1 ? "" : "s", uncertainty_text(cap, u, sizeof u),
                 bracket_text(cap, prec, b, sizeof b));
    }
    return buf;
}

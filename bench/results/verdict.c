/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/verdict.c - the verdict of a pair of runs, figure by figure (see verdict.h). */
#include "bench/results/verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/hist.h"
#include "bench/results/codec.h"
#include "bench/results/stats.h"

#define CI_LEVEL 0.95
/* Per-second intervals shorter than this (the tail of a run) are too noisy
 * to be a throughput sample. */
#define MIN_SPAN_S 0.5

static bench_fig_cmp *fig_new(bench_pair_cmp *p, const char *name, const char *label, bench_fig_unit unit,
                              int lower_is_better, double a, double b)
{
    if (p->n == BENCH_VERDICT_MAX_FIGS)
        return NULL;
    bench_fig_cmp *f = &p->figs[p->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->label, sizeof f->label, "%s", label);
    f->unit = unit;
    f->lower_is_better = lower_is_better;
    f->a = a;
    f->b = b;
    f->delta = b - a;
    if (a != 0) {
        f->has_pct = 1;
        f->pct = 100.0 * (b - a) / fabs(a);
    }
    f->p = 1.0;
    return f;
}

static void fig_na(bench_fig_cmp *f, const char *why)
{
    if (!f)
        return;
    f->verdict = BENCH_CHANGE_NA;
    snprintf(f->why, sizeof f->why, "%s", why);
}

/* The verdict of a tested figure: a change needs p < alpha and, but for a
 * percentage's points, a relative change of at least the floor. */
static void fig_judge(bench_fig_cmp *f, double p, double min_change_pct)
{
    f->tested = 1;
    f->p = p;
    f->significant = p < BENCH_VERDICT_ALPHA;
    int big = f->unit == BENCH_UNIT_PCT ? f->delta != 0
                                        : !f->has_pct || fabs(f->pct) >= min_change_pct;
    if (!f->significant || !big) {
        f->verdict = BENCH_CHANGE_NONE;
        return;
    }
    int up = f->delta > 0;
    f->verdict = up == !f->lower_is_better ? BENCH_CHANGE_BETTER : BENCH_CHANGE_WORSE;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
    if (p < 0.0001)
        snprintf(buf, len, "p<0.0001");
    else
        snprintf(buf, len, "p=%.2g", p);
    return buf;
}

/* ---- throughput -------------------------------------------------------------- */

/* The run's per-second throughput samples (successes / span), short tails left out. */
static double *rates_of(const bench_run_model *m, size_t *n)
{
    double *v = malloc((m->nseconds ? m->nseconds : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < m->nseconds; i++)
        if (m->seconds[i].span_s >= MIN_SPAN_S)
            v[k++] = (double)m->seconds[i].ops / m->seconds[i].span_s;
    *n = k;
    return v;
}

static const char *fmt_delta(double v, double scale, char *buf, size_t len)
{
    if (scale >= 100)
        snprintf(buf, len, "%+.0f", v);
    else
        snprintf(buf, len, "%+.2f", v);
    return buf;
}

/* ops/s from the per-second rates (enough of them) or the histograms. */
static int throughput(const bench_run_model *a, const bench_run_model *b, bench_fig_cmp *f, double minch)
{
    char p[32];
    size_t na = 0, nb = 0;
    double *sa = rates_of(a, &na), *sb = rates_of(b, &nb);
    int rc = 0;
    if (!sa || !sb) {
        rc = -1;
        goto done;
    }
    bench_mw mw;
    bench_ci ci;
    if (na >= BENCH_STATS_MIN_N && nb >= BENCH_STATS_MIN_N) {
        if (bench_mann_whitney(sa, na, sb, nb, &mw) != 0 ||
            bench_bootstrap_median_diff(sa, na, sb, nb, BENCH_STATS_RESAMPLES, CI_LEVEL, BENCH_STATS_SEED,
                                        &ci) != 0) {
            rc = -1;
            goto done;
        }
        char lo[32], hi[32];
        double scale = fmax(fabs(ci.lo), fabs(ci.hi));
        fig_judge(f, mw.p, minch);
        snprintf(f->method, sizeof f->method,
                 "Mann\xe2\x80\x93Whitney U of %zu and %zu per-second rates, %s; 95%% CI of \xce\x94median "
                 "%s..%s ops/s", na, nb, fmt_p(mw.p, p, sizeof p), fmt_delta(ci.lo, scale, lo, sizeof lo),
                 fmt_delta(ci.hi, scale, hi, sizeof hi));
        goto done;
    }
    if (a->open_loop || b->open_loop) {
        char why[160];
        snprintf(why, sizeof why, "a fixed-rate run's throughput is its schedule's, and %zu and %zu per-second "
                 "rates are too few (need %d each)", na, nb, BENCH_STATS_MIN_N);
        fig_na(f, why);
        goto done;
    }
    bench_ztest t;
    double cva = a->latency.mean > 0 ? a->latency.stddev / a->latency.mean : -1;
    double cvb = b->latency.mean > 0 ? b->latency.stddev / b->latency.mean : -1;
    /* The threads of a closed loop share one machine and one target: a
     * stall is theirs alike, so each thread's operations count, not all. */
    uint64_t ka = a->ops / (a->threads ? a->threads : 1), kb = b->ops / (b->threads ? b->threads : 1);
    if (bench_rate_test(a->ops_per_s, cva, ka, b->ops_per_s, cvb, kb, &t) != 0) {
        fig_na(f, "too few operations for a rate test (need 2 each, with a latency)");
        goto done;
    }
    fig_judge(f, t.p, minch);
    snprintf(f->method, sizeof f->method,
             "rate test of %llu and %llu operations a thread (latency cv %.3g and %.3g), %s; %zu and %zu "
             "per-second rates are too few for Mann\xe2\x80\x93Whitney", (unsigned long long)ka,
             (unsigned long long)kb, cva, cvb, fmt_p(t.p, p, sizeof p), na, nb);
done:
    free(sa);
    free(sb);
    return rc;
}

/* ---- latency ----------------------------------------------------------------- */

static void latency(bench_pair_cmp *out, const bench_run_model *a, const bench_run_model *b)
{
    char p[32];
    bench_fig_cmp *mean = fig_new(out, "mean", "mean", BENCH_UNIT_US, 1, a->latency.mean, b->latency.mean);
    bench_fig_cmp *p50 = fig_new(out, "p50", "p50", BENCH_UNIT_US, 1, a->latency.p50, b->latency.p50);
    bench_fig_cmp *p99 = fig_new(out, "p99", "p99", BENCH_UNIT_US, 1, a->latency.p99, b->latency.p99);
    if (!mean || !p50 || !p99)
        return;
    const char *why = NULL;
    if (!a->latency_complete || !b->latency_complete)
        why = "latency incomplete: a schedule not kept leaves out the longest waits";
    else if (a->latency.count < 2 || b->latency.count < 2)
        why = "too few successful operations (need 2 each)";
    if (why) {
        fig_na(mean, why);
        fig_na(p50, why);
        fig_na(p99, why);
        return;
    }
    /* As for the rate: the threads stall together, each thread's count. */
    bench_ztest t;
    uint64_t ka = a->latency.count / (a->threads ? a->threads : 1);
    uint64_t kb = b->latency.count / (b->threads ? b->threads : 1);
    if (bench_mean_test(a->latency.mean, a->latency.stddev, ka, b->latency.mean, b->latency.stddev, kb, &t) != 0) {
        fig_na(mean, "too few successful operations a thread (need 2 each)");
    } else {
        fig_judge(mean, t.p, out->min_change_pct);
        snprintf(mean->method, sizeof mean->method, "Welch test of %llu and %llu latencies a thread, %s",
                 (unsigned long long)ka, (unsigned long long)kb, fmt_p(t.p, p, sizeof p));
    }
    bench_fig_cmp *qf[2] = { p50, p99 };
    const double q[2] = { 0.50, 0.99 };
    for (int i = 0; i < 2; i++) {
        if (!a->hist || !b->hist) {
            fig_na(qf[i], "no latency histogram in a file");
            continue;
        }
        if (bench_quantile_test(a->hist, b->hist, q[i], &t) != 0) {
            char w[160];
            snprintf(w, sizeof w, "too few operations for its quantile test (need %.0f each)",
                     ceil(BENCH_STATS_MIN_TAIL / fmin(q[i], 1 - q[i])));
            fig_na(qf[i], w);
            continue;
        }
        fig_judge(qf[i], t.p, out->min_change_pct);
        snprintf(qf[i]->method, sizeof qf[i]->method, "quantile test of the histograms (%llu and %llu), %s",
                 (unsigned long long)bench_hist_count(a->hist), (unsigned long long)bench_hist_count(b->hist),
                 fmt_p(t.p, p, sizeof p));
    }
}

/* ---- errors, sections ---------------------------------------------------------- */

static void errors(bench_pair_cmp *out, const bench_run_model *a, const bench_run_model *b)
{
    char p[32];
    bench_fig_cmp *f = fig_new(out, "error_pct", "errors", BENCH_UNIT_PCT, 1, a->error_pct, b->error_pct);
    if (!f)
        return;
    bench_ztest t;
    if (bench_prop_test(a->errors, a->attempts, b->errors, b->attempts, &t) != 0) {
        fig_na(f, "no attempts");
        return;
    }
    fig_judge(f, t.p, out->min_change_pct);
    snprintf(f->method, sizeof f->method, "two-proportion test of %llu of %llu and %llu of %llu attempts, %s",
             (unsigned long long)a->errors, (unsigned long long)a->attempts, (unsigned long long)b->errors,
             (unsigned long long)b->attempts, fmt_p(t.p, p, sizeof p));
}

/* Each distribution of each section both runs have: its mean, by Welch's test. */
static void sections_cmp(bench_pair_cmp *out, const bench_run_model *a, const bench_run_model *b,
                         const json_t *ra, const json_t *rb, const bench_section *const *sections)
{
    const uint64_t tha = a->threads ? a->threads : 1, thb = b->threads ? b->threads : 1;
    char p[32];
    for (size_t s = 0; sections && sections[s]; s++) {
        const bench_section *sec = sections[s];
        const json_t *da = json_object_get(json_object_get(ra, sec->key), sec->dists);
        const json_t *db = json_object_get(json_object_get(rb, sec->key), sec->dists);
        if (!json_is_object(da) || !json_is_object(db))
            continue;
        for (size_t k = 0; k < sec->nmetrics; k++) {
            const bench_section_metric *sm = &sec->metrics[k];
            if (sm->kind != BENCH_SM_DIST)
                continue;
            bench_model_latency la, lb;
            bench_model_latency_of(json_object_get(da, sm->key), &la);
            bench_model_latency_of(json_object_get(db, sm->key), &lb);
            if (!la.present || !lb.present)
                continue;
            char label[48];
            snprintf(label, sizeof label, "%s %s", sec->key, sm->key);
            bench_fig_cmp *f = fig_new(out, sm->name, label, BENCH_UNIT_US, 1, la.mean, lb.mean);
            if (!f)
                return;
            bench_ztest t;
            /* As for the latency: each thread's count. */
            if (bench_mean_test(la.mean, la.stddev, la.count / tha, lb.mean, lb.stddev, lb.count / thb, &t) != 0) {
                fig_na(f, "too few requests a thread (need 2 each)");
                continue;
            }
            fig_judge(f, t.p, out->min_change_pct);
            snprintf(f->method, sizeof f->method, "Welch test of the means of %llu and %llu requests a thread, %s",
                     (unsigned long long)(la.count / tha), (unsigned long long)(lb.count / thb),
                     fmt_p(t.p, p, sizeof p));
        }
    }
}

int bench_pair_compare(const bench_run_model *a, const bench_run_model *b, const json_t *run_a,
                       const json_t *run_b, const bench_section *const *sections, double min_change_pct,
                       bench_pair_cmp *out)
{
    memset(out, 0, sizeof *out);
    out->min_change_pct = min_change_pct;
    bench_fig_cmp *f = fig_new(out, "ops_per_s", "ops/s", BENCH_UNIT_RATE, 0, a->ops_per_s, b->ops_per_s);
    if (!a->measured || !b->measured) {
        char why[160];
        snprintf(why, sizeof why, "%s not measured (%s)", a->measured ? "B" : "A",
                 a->measured ? b->status : a->status);
        fig_na(f, why);
        return 0;
    }
    if (throughput(a, b, f, min_change_pct) != 0)
        return -1;
    latency(out, a, b);
    errors(out, a, b);
    sections_cmp(out, a, b, run_a, run_b, sections);
    return 0;
}

const char *bench_change_word(const bench_fig_cmp *f)
{
    switch (f->verdict) {
    case BENCH_CHANGE_BETTER:
        return f->unit == BENCH_UNIT_PCT ? "fewer errors" : "faster";
    case BENCH_CHANGE_WORSE:
        return f->unit == BENCH_UNIT_PCT ? "more errors" : "slower";
    case BENCH_CHANGE_NA:
        return "not comparable";
    case BENCH_CHANGE_NONE:
    default:
        return "no change";
    }
}

const bench_fig_cmp *bench_pair_fig(const bench_pair_cmp *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->figs[i].name, name) == 0)
            return &p->figs[i];
    return NULL;
}

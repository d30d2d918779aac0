/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/core/stable.c - MSER-5 and batch means: is the throughput stable?
 * The rules are stable.h's; the references are White (1997) for MSER and
 * the usual non-overlapping batch means (Law, Simulation Modeling and
 * Analysis, 9.5.3), with the lag-1 check of Fishman's LBATCH simplified.
 */
#include "bench/core/stable.h"

#include <math.h>
#include <stdlib.h>

size_t bench_stable_mser(const double *x, size_t n, size_t m)
{
    if (m == 0 || n / m < 2)
        return 0;
    const size_t b = n / m;
    /* Batch means, then sums over the tail from j on, from the end. */
    double *z = malloc(b * sizeof *z);
    if (!z)
        return 0;
    for (size_t j = 0; j < b; j++) {
        double s = 0;
        for (size_t i = 0; i < m; i++)
            s += x[j * m + i];
        z[j] = s / (double)m;
    }
    double s1 = 0, s2 = 0, best = INFINITY;
    size_t best_d = 0;
    /* The tail z[d..b): sum and sum of squares grow as d goes down. */
    double *mser = malloc((b / 2 + 1) * sizeof *mser);
    if (!mser) {
        free(z);
        return 0;
    }
    for (size_t j = b; j-- > 0;) {
        s1 += z[j];
        s2 += z[j] * z[j];
        if (j <= b / 2) {
            const double k = (double)(b - j);
            double ss = s2 - s1 * s1 / k;
            if (ss < 0)
                ss = 0;
            mser[j] = ss / (k * k);
        }
    }
    for (size_t d = 0; d <= b / 2; d++)
        if (mser[d] < best * (1 - 1e-12)) {
            best = mser[d];
            best_d = d;
        }
    free(mser);
    free(z);
    return best_d;
}

double bench_stable_t975(unsigned df)
{
    static const double t[30] = {
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    };
    if (df == 0)
        return INFINITY;
    if (df <= 30)
        return t[df - 1];
    /* Beyond the table (not used by bench_stable_eval: k <= 30). */
    return 1.959964 + 2.37 / (double)df;
}

/* The k batch means of `len` values each, of the last k*len of x[0..n). */
static void batch_stats(const double *x, size_t n, size_t len, size_t k, double *mean, double *var,
                        double *lag1)
{
    const double *y = x + (n - k * len);
    double sum = 0, prev = 0, ss = 0, cross = 0;
    for (size_t j = 0; j < k; j++) {
        double s = 0;
        for (size_t i = 0; i < len; i++)
            s += y[j * len + i];
        sum += s / (double)len;
    }
    *mean = sum / (double)k;
    for (size_t j = 0; j < k; j++) {
        double s = 0;
        for (size_t i = 0; i < len; i++)
            s += y[j * len + i];
        const double dev = s / (double)len - *mean;
        ss += dev * dev;
        if (j)
            cross += dev * prev;
        prev = dev;
    }
    *var = k > 1 ? ss / (double)(k - 1) : 0;
    *lag1 = ss > 0 ? cross / ss : 0;
}

void bench_stable_eval(const double *x, size_t n, double target_pct, bench_stable *out)
{
    bench_stable_eval_batch(x, n, target_pct, 0, out);
}

void bench_stable_eval_batch(const double *x, size_t n, double target_pct, size_t batch,
                             bench_stable *out)
{
    *out = (bench_stable){ 0 };
    out->half_width_pct = -1;
    out->warmup_n = bench_stable_mser(x, n, BENCH_STABLE_MSER_BATCH) * BENCH_STABLE_MSER_BATCH;
    const size_t m = n - out->warmup_n;
    size_t len = batch ? batch : BENCH_STABLE_MSER_BATCH;
    while (m / len > BENCH_STABLE_MAX_BATCHES)
        len *= 2;
    out->batch_n = len;
    if (m / len < 2)
        return;
    double mean, var, lag1;
    batch_stats(x, n, len, m / len, &mean, &var, &lag1);
    /* Correlated batch means understate the variance: longer batches. */
    while (lag1 > BENCH_STABLE_MAX_LAG1 && m / (len * 2) >= BENCH_STABLE_MIN_BATCHES) {
        len *= 2;
        batch_stats(x, n, len, m / len, &mean, &var, &lag1);
    }
    const size_t k = m / len;
    out->batch_n = len;
    out->batches = k;
    out->mean = mean;
    out->lag1 = lag1;
    out->half_width = bench_stable_t975((unsigned)(k - 1)) * sqrt(var / (double)k);
    if (lag1 > BENCH_STABLE_MAX_LAG1) {
        /* Still correlated with batches as long as the series allows: the
         * variance of a mean of AR(1) values is (1 + r) / (1 - r) times the
         * independent one's. */
        const double r = lag1 < 0.95 ? lag1 : 0.95;
        out->half_width *= sqrt((1 + r) / (1 - r));
        out->widened = 1;
    }
    if (mean > 0)
        out->half_width_pct = 100.0 * out->half_width / mean;
    out->stable = target_pct > 0 && k >= BENCH_STABLE_MIN_BATCHES && out->half_width_pct >= 0 &&
                  out->half_width_pct <= target_pct;
}

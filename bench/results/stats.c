/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/stats.c - Mann-Whitney U and a bootstrap interval (see stats.h). */
#include "bench/results/stats.h"

#include "bench/core/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two-sided p-value of a standard normal statistic z. */
static double z_p(double z)
{
    double p = erfc(fabs(z) / sqrt(2.0));
    return p > 1.0 ? 1.0 : p;
}

/* The standard normal quantile of a two-sided 95 % interval. */
static const double z95 = 1.959963984540054;

/* ---- Mann-Whitney U ------------------------------------------------------ */

typedef struct tagged {
    double v;
    int    group;   /* 0: a, 1: b */
} tagged;

static int cmp_tagged(const void *x, const void *y)
{
    double a = ((const tagged *)x)->v, b = ((const tagged *)y)->v;
    return (a > b) - (a < b);
}

int bench_mann_whitney(const double *a, size_t na, const double *b, size_t nb, bench_mw *out)
{
    memset(out, 0, sizeof *out);
    out->n1 = na;
    out->n2 = nb;
    out->p = 1.0;
    /* Small groups are still computed (for the record), but flagged. */
    int few = na < BENCH_STATS_MIN_N || nb < BENCH_STATS_MIN_N;
    if (na == 0 || nb == 0)
        return -1;

    size_t n = na + nb;
    tagged *all = malloc(n * sizeof *all);
    if (!all)
        return -2;
    for (size_t i = 0; i < na; i++)
        all[i] = (tagged){ a[i], 0 };
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (tagged){ b[i], 1 };
    qsort(all, n, sizeof *all, cmp_tagged);

    /* Ranks 1..n, tied values sharing the mean of their ranks; the sum of
     * t^3 - t over groups of ties shrinks the variance. */
    double r1 = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].v == all[i].v)
            j++;
        double t = (double)(j - i);
        double rank = ((double)i + 1 + (double)j) / 2.0;   /* mean of i+1 .. j */
        for (size_t k = i; k < j; k++)
            if (all[k].group == 0)
                r1 += rank;
        ties += t * t * t - t;
        i = j;
    }
    free(all);

    double n1 = (double)na, n2 = (double)nb, nn = (double)n;
    out->u1 = r1 - n1 * (n1 + 1) / 2.0;
    out->u2 = n1 * n2 - out->u1;
    double mu = n1 * n2 / 2.0;
    double var = n1 * n2 / 12.0 * ((nn + 1) - ties / (nn * (nn - 1)));
    if (var <= 0) {           /* every value equal: no evidence of a difference */
        out->z = 0;
        out->p = 1.0;
        return few ? -1 : 0;
    }
    double u = fmax(out->u1, out->u2);
    double z = (u - mu - 0.5) / sqrt(var);    /* continuity correction */
    if (z < 0)
        z = 0;
    out->z = z;
    out->p = z_p(z);
    return few ? -1 : 0;
}

/* ---- medians -------------------------------------------------------------- */

static void swap(double *x, double *y)
{
    double t = *x;
    *x = *y;
    *y = t;
}

/*
 * The k-th smallest of v[0..n), reordering v so that v[0..k) <= v[k]:
 * quickselect with a three-way partition, which stays linear when values
 * repeat (bootstrap resamples are full of repeats).
 */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;          /* k lies in [lo, hi) */
    while (hi - lo > 1) {
        double x = v[lo], y = v[lo + (hi - lo) / 2], z = v[hi - 1];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        /* [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < pivot)
                swap(&v[lt++], &v[i++]);
            else if (v[i] > pivot)
                swap(&v[i], &v[--gt]);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[k];
}

/* Median of v[0..n), reordering v. */
static double median_inplace(double *v, size_t n)
{
    if (n == 0)
        return 0;
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* The lower middle is the largest of what selection left below n/2. */
    double lo = v[0];
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return (lo + hi) / 2.0;
}

double bench_median(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    double *copy = malloc(n * sizeof *copy);
    if (!copy) {
        /* Out of memory: fall back to a quadratic count, still exact. */
        double lo = 0, hi = 0;
        for (size_t i = 0; i < n; i++) {
            size_t less = 0, equal = 0;
            for (size_t j = 0; j < n; j++) {
                less += v[j] < v[i];
                equal += v[j] == v[i];
            }
            if (less <= (n - 1) / 2 && (n - 1) / 2 < less + equal)
                lo = v[i];
            if (less <= n / 2 && n / 2 < less + equal)
                hi = v[i];
        }
        return (lo + hi) / 2.0;
    }
    memcpy(copy, v, n * sizeof *copy);
    double m = median_inplace(copy, n);
    free(copy);
    return m;
}

/* ---- generator ------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void bench_rng_seed(bench_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t bench_rng_below(bench_rng *r, uint64_t n)
{
    /* Reject the top partial copy of [0, n) so every value is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = bench_rng_next(r);
    while (x >= limit);
    return x % n;
}

/* ---- bootstrap ------------------------------------------------------------ */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Quantile q of sorted v[0..n) by linear interpolation (R's type 7). */
static double quantile_sorted(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)floor(pos);
    if (i + 1 >= n)
        return v[n - 1];
    double frac = pos - (double)i;
    return v[i] + frac * (v[i + 1] - v[i]);
}

int bench_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
                                unsigned resamples, double level, uint64_t seed, bench_ci *out)
{
    memset(out, 0, sizeof *out);
    if (na == 0 || nb == 0 || resamples == 0 || !(level > 0 && level < 1))
        return -1;
    out->level = level;
    out->point = bench_median(b, nb) - bench_median(a, na);

    double *diffs = malloc(resamples * sizeof *diffs);
    double *ra = malloc(na * sizeof *ra);
    double *rb = malloc(nb * sizeof *rb);
    if (!diffs || !ra || !rb) {
        free(diffs);
        free(ra);
        free(rb);
        return -2;
    }
    bench_rng rng;
    bench_rng_seed(&rng, seed);
    for (unsigned k = 0; k < resamples; k++) {
        for (size_t i = 0; i < na; i++)
            ra[i] = a[bench_rng_below(&rng, na)];
        for (size_t i = 0; i < nb; i++)
            rb[i] = b[bench_rng_below(&rng, nb)];
        diffs[k] = median_inplace(rb, nb) - median_inplace(ra, na);
    }
    qsort(diffs, resamples, sizeof *diffs, cmp_double);
    out->lo = quantile_sorted(diffs, resamples, (1.0 - level) / 2.0);
    out->hi = quantile_sorted(diffs, resamples, (1.0 + level) / 2.0);
    free(diffs);
    free(ra);
    free(rb);
    return 0;
}

/* ---- two runs' operations --------------------------------------------------------- */

/* diff and se into out, with z and p; se 0: p 1 for no difference, else 0. */
static void ztest_of(double diff, double se, bench_ztest *out)
{
    out->diff = diff;
    out->se = se;
    if (!(se > 0)) {
        out->z = diff == 0 ? 0 : (diff > 0 ? INFINITY : -INFINITY);
        out->p = diff == 0 ? 1.0 : 0.0;
        return;
    }
    out->z = diff / se;
    out->p = z_p(out->z);
}

int bench_mean_test(double ma, double sa, uint64_t na, double mb, double sb, uint64_t nb,
                    bench_ztest *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1.0;
    if (na < 2 || nb < 2)
        return -1;
    ztest_of(mb - ma, sqrt(sa * sa / (double)na + sb * sb / (double)nb), out);
    return 0;
}

int bench_rate_test(double rate_a, double cv_a, uint64_t na, double rate_b, double cv_b, uint64_t nb,
                    bench_ztest *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1.0;
    if (na < 2 || nb < 2 || !(rate_a > 0) || !(rate_b > 0) || cv_a < 0 || cv_b < 0)
        return -1;
    double ea = rate_a * cv_a, eb = rate_b * cv_b;
    ztest_of(rate_b - rate_a, sqrt(ea * ea / (double)na + eb * eb / (double)nb), out);
    return 0;
}

/* The value of rank k (1..n) of h, as its slot's highest equivalent. */
static double hist_rank(const bench_hist *h, uint64_t n, uint64_t k)
{
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    /* bench_hist_percentile gives the value of rank ceil(p n / 100). */
    return (double)bench_hist_percentile(h, 100.0 * ((double)k - 0.5) / (double)n);
}

/* Quantile q of h, and its standard error: half its 95% interval over 1.96,
 * and the width of its slot as a uniform rounding error. */
static int quantile_se(const bench_hist *h, double q, double *value, double *se)
{
    uint64_t n = bench_hist_count(h);
    double nd = (double)n;
    if (nd * fmin(q, 1 - q) < BENCH_STATS_MIN_TAIL)
        return -1;
    double half = z95 * sqrt(nd * q * (1 - q));
    double lo = hist_rank(h, n, (uint64_t)fmax(1.0, floor(nd * q - half)));
    double hi = hist_rank(h, n, (uint64_t)fmin(nd, ceil(nd * q + half) + 1));
    *value = hist_rank(h, n, (uint64_t)ceil(nd * q));
    size_t idx = bench_hist_index((uint64_t)*value);
    double w = (double)(bench_hist_slot_highest(idx) - bench_hist_slot_lowest(idx) + 1);
    double s = (hi - lo) / (2 * z95);
    *se = sqrt(s * s + w * w / 12.0);
    return 0;
}

int bench_quantile_test(const bench_hist *a, const bench_hist *b, double q, bench_ztest *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1.0;
    double va, sa, vb, sb;
    if (!(q > 0 && q < 1) || !a || !b || quantile_se(a, q, &va, &sa) != 0 || quantile_se(b, q, &vb, &sb) != 0)
        return -1;
    ztest_of(vb - va, sqrt(sa * sa + sb * sb), out);
    return 0;
}

int bench_prop_test(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb, bench_ztest *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1.0;
    if (na == 0 || nb == 0)
        return -1;
    double pa = (double)xa / (double)na, pb = (double)xb / (double)nb;
    double pool = (double)(xa + xb) / (double)(na + nb);
    ztest_of(pb - pa, sqrt(pool * (1 - pool) * (1.0 / (double)na + 1.0 / (double)nb)), out);
    return 0;
}

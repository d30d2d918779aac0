/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/usl.c - the Universal Scalability Law fit (see usl.h for the method). */
#include "bench/results/usl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/util/cli.h"

/* The denominator 1 + σ(N − 1) + κN(N − 1): at least 1 for σ, κ ≥ 0, N ≥ 1. */
static double denom(double sigma, double kappa, double n)
{
    return 1 + sigma * (n - 1) + kappa * n * (n - 1);
}

double bench_usl_x(const bench_usl_model *f, double n)
{
    return f->lambda * n / denom(f->sigma, f->kappa, n);
}

static double sse_of(const bench_usl_point *p, size_t n, double lambda, double sigma, double kappa)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        const double r = p[i].x - lambda * p[i].n / denom(sigma, kappa, p[i].n);
        s += r * r;
    }
    return s;
}

/* The λ that minimises the squares for a given σ, κ (the model is linear in λ). */
static double best_lambda(const bench_usl_point *p, size_t n, double sigma, double kappa)
{
    double xg = 0, gg = 0;
    for (size_t i = 0; i < n; i++) {
        const double g = p[i].n / denom(sigma, kappa, p[i].n);
        xg += p[i].x * g;
        gg += g * g;
    }
    return gg > 0 ? xg / gg : 0;
}

/* Solve the 3×3 system a·x = b by Gaussian elimination with partial
 * pivoting; -1 when it is singular. */
static int solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 0) || !isfinite(a[piv][c]))
            return -1;
        if (piv != c) {
            for (int k = 0; k < 3; k++) {
                const double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
            const double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < 3; r++) {
            const double m = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= m * a[c][k];
            b[r] -= m * b[c];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < 3; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
        if (!isfinite(x[c]))
            return -1;
    }
    return 0;
}

/*
 * Levenberg–Marquardt on θ = (λ, σ, κ) from t, σ and κ kept ≥ 0 by
 * projection, λ > 0.  Each accepted step lowers the sum of squares, so the
 * result is never worse than the start.  Returns the final sum of squares.
 */
static double refine(const bench_usl_point *p, size_t n, double t[3])
{
    double sse = sse_of(p, n, t[0], t[1], t[2]);
    double mu = 1e-3;
    for (int it = 0; it < 1000 && mu < 1e12 && sse > 0; it++) {
        double a[3][3] = { { 0 } }, g[3] = { 0 };
        for (size_t i = 0; i < n; i++) {
            const double N = p[i].n, d = denom(t[1], t[2], N);
            const double j[3] = { N / d, -t[0] * N * (N - 1) / (d * d), -t[0] * N * N * (N - 1) / (d * d) };
            const double r = p[i].x - t[0] * N / d;
            for (int u = 0; u < 3; u++) {
                g[u] += j[u] * r;
                for (int v = 0; v < 3; v++)
                    a[u][v] += j[u] * j[v];
            }
        }
        double m[3][3], b[3], step[3];
        memcpy(m, a, sizeof m);
        memcpy(b, g, sizeof b);
        for (int u = 0; u < 3; u++)
            m[u][u] += mu * (a[u][u] > 0 ? a[u][u] : 1e-300);
        if (solve3(m, b, step) != 0) {
            mu *= 4;
            continue;
        }
        double c[3] = { t[0] + step[0], t[1] + step[1], t[2] + step[2] };
        if (c[1] < 0)
            c[1] = 0;
        if (c[2] < 0)
            c[2] = 0;
        const double cs = c[0] > 0 ? sse_of(p, n, c[0], c[1], c[2]) : INFINITY;
        if (isfinite(cs) && cs < sse) {
            const double gain = sse - cs;
            memcpy(t, c, sizeof c);
            sse = cs;
            mu = mu / 3 > 1e-12 ? mu / 3 : 1e-12;
            if (gain <= 1e-15 * sse)
                break;
        } else {
            mu *= 4;
        }
    }
    return sse;
}

/* Gunther's linearisation, solved under σ, κ ≥ 0: y = N/C − 1 = σa + κb with
 * a = N − 1, b = N(N − 1), C = X/λ0.  Points at N = 1 or X = 0 say nothing. */
static void linearised(const bench_usl_point *p, size_t n, double lambda0, double *sigma, double *kappa)
{
    double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].n <= 1 || p[i].x <= 0)
            continue;
        const double a = p[i].n - 1, b = p[i].n * (p[i].n - 1);
        const double y = p[i].n * lambda0 / p[i].x - 1;
        saa += a * a;
        sab += a * b;
        sbb += b * b;
        say += a * y;
        sby += b * y;
    }
    /* The candidates of a two-variable non-negative least squares: the
     * free solution if feasible, else each variable alone, else none. */
    double best = INFINITY, bs = 0, bk = 0;
    const double det = saa * sbb - sab * sab;
    double cand[3][2];
    int nc = 0;
    if (det > 1e-12 * saa * sbb) {
        const double s = (say * sbb - sby * sab) / det, k = (sby * saa - say * sab) / det;
        if (s >= 0 && k >= 0) {
            cand[nc][0] = s;
            cand[nc++][1] = k;
        }
    }
    if (saa > 0) {
        cand[nc][0] = say > 0 ? say / saa : 0;
        cand[nc++][1] = 0;
    }
    if (sbb > 0) {
        cand[nc][0] = 0;
        cand[nc++][1] = sby > 0 ? sby / sbb : 0;
    }
    for (int c = 0; c < nc; c++) {
        /* The objective y − σa − κb summed in squares, from the sums above
         * (Σy² is the same for every candidate and left out). */
        const double s = cand[c][0], k = cand[c][1];
        const double q = s * s * saa + 2 * s * k * sab + k * k * sbb - 2 * (s * say + k * sby);
        if (q < best) {
            best = q;
            bs = s;
            bk = k;
        }
    }
    *sigma = bs;
    *kappa = bk;
}

int bench_usl_fit(const bench_usl_point *p, size_t n, bench_usl_model *fit, char *why, size_t len)
{
    memset(fit, 0, sizeof *fit);
    if (n > BENCH_USL_MAX_POINTS) {
        bench_seterr(why, len, "%zu points; at most %d are fitted", n, BENCH_USL_MAX_POINTS);
        return -1;
    }
    double nmin = INFINITY, xsum = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p[i].n) || p[i].n < 1 || !isfinite(p[i].x) || p[i].x < 0) {
            bench_seterr(why, len, "point %zu (%g threads, %g ops/s) is not a measurement", i, p[i].n, p[i].x);
            return -1;
        }
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = p[j].n == p[i].n;
        distinct += !seen;
        if (p[i].n < nmin)
            nmin = p[i].n;
        xsum += p[i].x;
    }
    if (distinct < 3) {
        bench_seterr(why, len, "%zu distinct thread count%s; the fit needs 3", distinct, distinct == 1 ? "" : "s");
        return -1;
    }
    if (!(xsum > 0)) {
        bench_seterr(why, len, "no successful operations at any thread count");
        return -1;
    }

    /* λ0: the throughput per thread at the smallest N (the mean of repeats). */
    double x0 = 0;
    size_t k0 = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].n == nmin) {
            x0 += p[i].x;
            k0++;
        }
    double lambda0 = x0 / (double)k0 / nmin;
    if (!(lambda0 > 0))
        lambda0 = xsum / (double)n;
    double ls, lk;
    linearised(p, n, lambda0, &ls, &lk);

    /* Three starts: the linearisation, no contention, pure contention (a
     * constant: its λ is the mean, so the fit is never worse than it). */
    const double starts[3][2] = { { ls, lk }, { 0, 0 }, { 1, 0 } };
    double best[3] = { 0 }, best_sse = INFINITY;
    for (int s = 0; s < 3; s++) {
        double t[3] = { best_lambda(p, n, starts[s][0], starts[s][1]), starts[s][0], starts[s][1] };
        if (!(t[0] > 0))
            continue;
        const double e = refine(p, n, t);
        if (e < best_sse) {
            best_sse = e;
            memcpy(best, t, sizeof best);
        }
    }
    if (!isfinite(best_sse)) {
        bench_seterr(why, len, "the fit did not converge");
        return -1;
    }
    fit->lambda = best[0];
    fit->sigma = best[1];
    fit->kappa = best[2];
    fit->sse = best_sse;

    fit->dof = n - 3;
    if (fit->dof == 0) {
        /* Three points, three parameters: the curve meets every point (as
         * near as σ, κ ≥ 0 let it), an R² that would show nothing. */
        fit->r2 = NAN;
        return 0;
    }
    const double mean = xsum / (double)n;
    double sst = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sst += (p[i].x - mean) * (p[i].x - mean);
        sxx += p[i].x * p[i].x;
    }
    if (sst <= 1e-18 * sxx)      /* all equal: a perfect fit or none */
        fit->r2 = best_sse <= 1e-12 * sxx ? 1 : 0;
    else
        fit->r2 = 1 - best_sse / sst;
    return 0;
}

int bench_usl_peak(const bench_usl_model *f, double *n_star, double *x_star)
{
    double ns;
    if (f->sigma >= 1)
        ns = 1;
    else if (f->kappa > 0)
        ns = sqrt((1 - f->sigma) / f->kappa);
    else
        return 0;
    if (ns < 1)
        ns = 1;
    *n_star = ns;
    *x_star = bench_usl_x(f, ns);
    return 1;
}

int bench_usl_knee(const bench_usl_model *f, double *n_knee)
{
    const double s = f->sigma, k = f->kappa;
    double nk;
    if (s >= 1)
        nk = 1;
    else if (k > 0)
        nk = (-(s - k) + sqrt((s - k) * (s - k) + 12 * k * (1 - s))) / (6 * k);
    else if (s > 0)
        nk = (1 - s) / s;
    else
        return 0;
    *n_knee = nk < 1 ? 1 : nk;
    return 1;
}

size_t bench_usl_knee_point(const bench_usl_point *p, size_t n)
{
    size_t best = n;
    double bp = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i].x > 0) || !(p[i].n >= 1))
            continue;
        const double power = p[i].x * p[i].x / p[i].n;
        if (best == n || power > bp || (power == bp && p[i].n < p[best].n)) {
            best = i;
            bp = power;
        }
    }
    return best;
}

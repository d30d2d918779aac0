/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_usl.c - the Universal Scalability Law fit, peak and knee (bench/results/usl.c). */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/results/usl.h"
#include "tests/unit/check.h"

static double usl(double lambda, double sigma, double kappa, double n)
{
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

static size_t curve(bench_usl_point *p, const double *ns, size_t k, double lambda, double sigma,
                    double kappa)
{
    for (size_t i = 0; i < k; i++)
        p[i] = (bench_usl_point){ ns[i], usl(lambda, sigma, kappa, ns[i]) };
    return k;
}

static int near(double a, double b, double rel, double abs_tol)
{
    return fabs(a - b) <= abs_tol + rel * fabs(b);
}

/* An exact USL curve gives its own coefficients back. */
static void test_exact_curve(void)
{
    static const double ns[] = { 1, 2, 4, 8, 16, 32 };
    bench_usl_point p[6];
    bench_usl_model f;
    char why[128];
    size_t n = curve(p, ns, 6, 1000, 0.05, 0.002);
    CHECK(bench_usl_fit(p, n, &f, why, sizeof why) == 0);
    CHECK_MSG(near(f.lambda, 1000, 1e-6, 0), "lambda %.9g", f.lambda);
    CHECK_MSG(near(f.sigma, 0.05, 1e-5, 0), "sigma %.9g", f.sigma);
    CHECK_MSG(near(f.kappa, 0.002, 1e-5, 0), "kappa %.9g", f.kappa);
    CHECK_MSG(f.r2 > 0.999999, "r2 %.9g", f.r2);
    double ns_, xs;
    CHECK(bench_usl_peak(&f, &ns_, &xs) == 1);
    CHECK_MSG(near(ns_, sqrt(0.95 / 0.002), 1e-5, 0), "peak at %g", ns_);
    CHECK(near(xs, usl(1000, 0.05, 0.002, sqrt(0.95 / 0.002)), 1e-6, 0));
}

/* Without N = 1 λ is fitted too; with a retrograde tail as well. */
static void test_exact_without_one(void)
{
    static const double ns[] = { 2, 3, 6, 12, 24, 48 };
    bench_usl_point p[6];
    bench_usl_model f;
    size_t n = curve(p, ns, 6, 250, 0.2, 0.01);
    CHECK(bench_usl_fit(p, n, &f, NULL, 0) == 0);
    CHECK_MSG(near(f.lambda, 250, 1e-6, 0), "lambda %.9g", f.lambda);
    CHECK_MSG(near(f.sigma, 0.2, 1e-5, 0), "sigma %.9g", f.sigma);
    CHECK_MSG(near(f.kappa, 0.01, 1e-5, 0), "kappa %.9g", f.kappa);
}

/* κ = 0 (Amdahl): σ back, κ 0, no peak; the ceiling is λ/σ. */
static void test_amdahl(void)
{
    static const double ns[] = { 1, 2, 4, 8, 16 };
    bench_usl_point p[5];
    bench_usl_model f;
    size_t n = curve(p, ns, 5, 400, 0.1, 0);
    CHECK(bench_usl_fit(p, n, &f, NULL, 0) == 0);
    CHECK_MSG(near(f.sigma, 0.1, 1e-5, 0), "sigma %.9g", f.sigma);
    CHECK_MSG(f.kappa < 1e-9, "kappa %.9g", f.kappa);
    double a, b;
    if (f.kappa == 0)
        CHECK(bench_usl_peak(&f, &a, &b) == 0);
    CHECK(bench_usl_knee(&f, &a) == 1);
    CHECK_MSG(near(a, 9, 1e-3, 0), "knee %g", a);     /* (1 − σ)/σ */
}

/* Linear scaling: σ = κ = 0, no peak, no knee, the best point the last. */
static void test_linear(void)
{
    static const double ns[] = { 1, 2, 4, 8 };
    bench_usl_point p[4];
    bench_usl_model f;
    size_t n = curve(p, ns, 4, 100, 0, 0);
    CHECK(bench_usl_fit(p, n, &f, NULL, 0) == 0);
    CHECK_MSG(f.sigma < 1e-9 && f.kappa < 1e-9, "sigma %g kappa %g", f.sigma, f.kappa);
    double a, b;
    CHECK(bench_usl_peak(&f, &a, &b) == 0);
    CHECK(bench_usl_knee(&f, &a) == 0);
    CHECK(bench_usl_knee_point(p, n) == 3);
}

/* min(N, C) × λ, as a server with C cores: the knee among the points is C. */
static void test_cores_knee(void)
{
    static const double a[] = { 1, 2, 3, 4, 6, 8 };
    static const double b[] = { 1, 2, 4, 8, 16, 32 };
    static const double c[] = { 8, 1, 16, 2, 4, 32 };    /* unsorted */
    bench_usl_point p[6];
    for (size_t i = 0; i < 6; i++)
        p[i] = (bench_usl_point){ a[i], 500 * fmin(a[i], 4) };
    CHECK(p[bench_usl_knee_point(p, 6)].n == 4);
    bench_usl_model f;
    CHECK(bench_usl_fit(p, 6, &f, NULL, 0) == 0);
    CHECK_MSG(f.r2 > 0.9, "r2 %g", f.r2);
    double pk, px;
    CHECK(bench_usl_peak(&f, &pk, &px) == 1);
    CHECK_MSG(pk > 3 && pk < 12 && px > 1700 && px < 2200, "peak %g -> %g", pk, px);
    for (size_t i = 0; i < 6; i++)
        p[i] = (bench_usl_point){ b[i], 1000 * fmin(b[i], 8) };
    CHECK(p[bench_usl_knee_point(p, 6)].n == 8);
    for (size_t i = 0; i < 6; i++)
        p[i] = (bench_usl_point){ c[i], 1000 * fmin(c[i], 8) };
    CHECK(p[bench_usl_knee_point(p, 6)].n == 8);
    /* A tie goes to fewer threads (200²/4 = 100²/1), then to the first. */
    bench_usl_point t[4] = { { 4, 200 }, { 1, 100 }, { 4, 200 }, { 1, 100 } };
    CHECK(bench_usl_knee_point(t, 4) == 1);
}

/* The knee's closed form is the maximum of X̂²/N. */
static void test_knee_formula(void)
{
    static const double cases[][2] = { { 0.05, 0.002 }, { 0.3, 0.0001 }, { 0, 0.01 }, { 0.9, 0.5 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bench_usl_model f = { 1000, cases[c][0], cases[c][1], 1, 0, 1 };
        double nk;
        CHECK(bench_usl_knee(&f, &nk) == 1);
        double best = 1, bp = 0;
        for (double n = 1; n < 2000; n += 0.001) {
            const double x = bench_usl_x(&f, n), pw = x * x / n;
            if (pw > bp) {
                bp = pw;
                best = n;
            }
        }
        CHECK_MSG(fabs(nk - best) < 0.01, "case %zu: formula %g, search %g", c, nk, best);
    }
}

/* Flat data: σ 1, κ 0, a perfect fit; the peak and the knee at one thread. */
static void test_flat(void)
{
    bench_usl_point p[4] = { { 1, 500 }, { 2, 500 }, { 4, 500 }, { 8, 500 } };
    bench_usl_model f;
    CHECK(bench_usl_fit(p, 4, &f, NULL, 0) == 0);
    CHECK_MSG(near(f.sigma, 1, 1e-6, 0) && f.kappa < 1e-9, "sigma %g kappa %g", f.sigma, f.kappa);
    CHECK_MSG(f.r2 == 1, "r2 %g", f.r2);
    double a, b;
    CHECK(bench_usl_peak(&f, &a, &b) == 1 && a == 1 && near(b, 500, 1e-6, 0));
    CHECK(bench_usl_knee(&f, &a) == 1 && a == 1);
    CHECK(bench_usl_knee_point(p, 4) == 0);
}

/* Throughput falling from the first thread: σ ≥ 1, peak at 1. */
static void test_sigma_above_one(void)
{
    static const double ns[] = { 1, 2, 4, 8 };
    bench_usl_point p[4];
    bench_usl_model f;
    size_t n = curve(p, ns, 4, 800, 1.5, 0);
    CHECK(bench_usl_fit(p, n, &f, NULL, 0) == 0);
    CHECK_MSG(near(f.sigma, 1.5, 1e-5, 0), "sigma %g", f.sigma);
    double a, b;
    CHECK(bench_usl_peak(&f, &a, &b) == 1 && a == 1);
}

/* Noisy data: a fit, R² below 1 but high, coefficients in the neighbourhood. */
static void test_noisy(void)
{
    static const double ns[] = { 1, 2, 4, 8, 16, 32 };
    static const double noise[] = { 1.02, 0.97, 1.03, 0.98, 1.01, 0.97 };
    bench_usl_point p[6];
    size_t n = curve(p, ns, 6, 1000, 0.05, 0.002);
    for (size_t i = 0; i < n; i++)
        p[i].x *= noise[i];
    bench_usl_model f;
    CHECK(bench_usl_fit(p, n, &f, NULL, 0) == 0);
    CHECK_MSG(f.r2 > 0.95 && f.r2 < 1, "r2 %g", f.r2);
    CHECK_MSG(f.sigma < 0.2 && f.kappa > 0.0005 && f.kappa < 0.01, "sigma %g kappa %g", f.sigma, f.kappa);
    /* Repeated thread counts are fitted too (least squares through both). */
    bench_usl_point r[6] = { { 1, 100 }, { 1, 104 }, { 2, 190 }, { 2, 196 }, { 4, 330 }, { 4, 340 } };
    CHECK(bench_usl_fit(r, 6, &f, NULL, 0) == 0);
    CHECK_MSG(near(f.lambda, 102, 0.05, 0), "lambda %g", f.lambda);
}

/* Three points, three parameters: a fit, but no degrees of freedom and no
 * R² (it was 1.000 for any three points, evidence of nothing); a fourth
 * point gives one degree and an R² again. */
static void test_no_dof(void)
{
    bench_usl_point p[4] = { { 1, 480 }, { 2, 700 }, { 4, 1900 }, { 8, 1500 } };
    bench_usl_model f;
    CHECK(bench_usl_fit(p, 3, &f, NULL, 0) == 0);
    CHECK_MSG(f.dof == 0 && isnan(f.r2), "dof %zu r2 %g", f.dof, f.r2);
    CHECK(bench_usl_fit(p, 4, &f, NULL, 0) == 0);
    CHECK_MSG(f.dof == 1 && f.r2 >= 0 && f.r2 <= 1, "dof %zu r2 %g", f.dof, f.r2);
    /* Repeats count: three thread counts twice each leave three degrees. */
    bench_usl_point r[6] = { { 1, 100 }, { 1, 104 }, { 2, 190 }, { 2, 196 }, { 4, 330 }, { 4, 340 } };
    CHECK(bench_usl_fit(r, 6, &f, NULL, 0) == 0);
    CHECK_MSG(f.dof == 3 && f.r2 > 0.9 && f.r2 < 1, "dof %zu r2 %g", f.dof, f.r2);
}

/* What cannot be fitted, and why. */
static void test_degenerate(void)
{
    bench_usl_model f;
    char why[128] = "";
    bench_usl_point two[4] = { { 1, 100 }, { 2, 180 }, { 1, 101 }, { 2, 181 } };
    CHECK(bench_usl_fit(two, 4, &f, why, sizeof why) == -1);
    CHECK_MSG(strstr(why, "2 distinct thread counts; the fit needs 3") != NULL, "why: %s", why);
    CHECK(bench_usl_fit(two, 0, &f, why, sizeof why) == -1);
    CHECK_MSG(strstr(why, "0 distinct") != NULL, "why: %s", why);
    bench_usl_point zero[3] = { { 1, 0 }, { 2, 0 }, { 4, 0 } };
    CHECK(bench_usl_fit(zero, 3, &f, why, sizeof why) == -1);
    CHECK_MSG(strstr(why, "no successful operations") != NULL, "why: %s", why);
    bench_usl_point bad[3] = { { 1, 100 }, { 0, 100 }, { 4, 100 } };
    CHECK(bench_usl_fit(bad, 3, &f, why, sizeof why) == -1);
    bad[1] = (bench_usl_point){ 2, NAN };
    CHECK(bench_usl_fit(bad, 3, &f, why, sizeof why) == -1);
    bad[1] = (bench_usl_point){ 2, -1 };
    CHECK(bench_usl_fit(bad, 3, &f, why, sizeof why) == -1);
    CHECK(bench_usl_knee_point(zero, 3) == 3);
    /* One point with throughput among zeros still fits (σ large). */
    bench_usl_point one[3] = { { 1, 100 }, { 2, 0 }, { 4, 0 } };
    CHECK(bench_usl_fit(one, 3, &f, why, sizeof why) == 0);
    CHECK(bench_usl_knee_point(one, 3) == 0);
}

/* A steep retrograde curve: the peak formula below 1 is clamped to 1. */
static void test_peak_clamped(void)
{
    bench_usl_model f = { 100, 0.5, 2, 1, 0, 1 };
    double a, b;
    CHECK(bench_usl_peak(&f, &a, &b) == 1 && a == 1 && near(b, 100, 1e-12, 0));
    CHECK(bench_usl_knee(&f, &a) == 1 && a == 1);
}

int main(void)
{
    RUN(test_exact_curve);
    RUN(test_exact_without_one);
    RUN(test_amdahl);
    RUN(test_linear);
    RUN(test_cores_knee);
    RUN(test_knee_formula);
    RUN(test_flat);
    RUN(test_sigma_above_one);
    RUN(test_noisy);
    RUN(test_no_dof);
    RUN(test_degenerate);
    RUN(test_peak_clamped);
    return check_finish();
}

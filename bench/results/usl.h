/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/usl.h - the Universal Scalability Law: a fit of throughput against
 * concurrency, its predicted peak, and the knee of a thread sweep.  Pure
 * arithmetic on (N, X) points: no I/O, no JSON, no clock.
 *
 *   X(N) = λ N / (1 + σ (N − 1) + κ N (N − 1))
 *
 * λ is the throughput of one thread, σ the contention (the serial part:
 * σ alone makes X level off at λ/σ, Amdahl's law), κ the coherency (a cost
 * growing with every pair of threads: κ > 0 makes X peak and then fall).
 *
 * The fit is least squares on X itself (not on a transformed X), with λ free
 * and σ, κ ≥ 0:
 *
 *  1. a start from Gunther's linearisation: λ0 = X at the smallest N (per
 *     thread), C(N) = X(N)/λ0, then N/C(N) − 1 = σ (N − 1) + κ N (N − 1),
 *     a linear least squares in (σ, κ) solved under σ, κ ≥ 0 exactly (the
 *     unconstrained solution, else the best of the boundary ones);
 *  2. Levenberg–Marquardt on the residuals X − X̂ in (λ, σ, κ), with σ and κ
 *     projected onto ≥ 0, from that start and from two neutral ones (no
 *     contention; pure contention), keeping the lowest sum of squares.
 *
 * Why not stop at step 1, as spreadsheets do: it pins λ to one measured
 * point, so the noise of that point goes into every coefficient, and it
 * minimises errors in N/C − 1, which weighs the large-N points far more than
 * the throughput a reader looks at.  Step 2 minimises what is plotted.
 * R² = 1 − SSE/SST on X (1 when the points are all equal and fitted exactly).
 *
 * Three parameters: a fit of three points (three thread counts, no repeat)
 * has no degrees of freedom.  Such a curve passes through the points
 * (as near as σ, κ ≥ 0 let it) whatever they are, so its R² shows nothing
 * about the law: dof is 0 and r2 NaN, and every view says so and shows no R².
 */
#ifndef BENCH_USL_H
#define BENCH_USL_H

#include <stddef.h>

/* One measured run: N threads, X successful operations per second. */
typedef struct bench_usl_point {
    double n, x;
} bench_usl_point;

typedef struct bench_usl_model {
    double lambda, sigma, kappa;
    double r2;           /* NaN when dof is 0: no evidence either way */
    double sse;          /* sum of squared residuals, (ops/s)² */
    size_t dof;          /* degrees of freedom: points − 3 parameters */
} bench_usl_model;

/* At most this many points are fitted. */
#define BENCH_USL_MAX_POINTS 256

/*
 * Fit points p[0..n).  Needs at least 3 distinct N (each N ≥ 1, finite),
 * every X finite and ≥ 0, and some X > 0.  Returns 0, or -1 with the reason
 * in why ("2 distinct thread counts; the fit needs 3").
 */
int bench_usl_fit(const bench_usl_point *p, size_t n, bench_usl_model *fit, char *why, size_t len);

/* X̂(N) of a fit. */
double bench_usl_x(const bench_usl_model *f, double n);

/*
 * The predicted peak: N* = sqrt((1 − σ)/κ) (at least 1) and X̂(N*).  With
 * σ ≥ 1 throughput never rises above one thread's: N* = 1.  Returns 0 with
 * no peak when κ = 0 and σ < 1 (throughput rises for ever, towards λ/σ, or
 * linearly when σ = 0 too).
 */
int bench_usl_peak(const bench_usl_model *f, double *n_star, double *x_star);

/*
 * The knee on the fitted curve: the N ≥ 1 that maximises Kleinrock's power
 * X/R, with R = N/X by Little's law in a closed loop, i.e. X̂(N)²/N; the root
 * of 3κN² + (σ − κ)N − (1 − σ) = 0.  Returns 0 with none when σ = κ = 0
 * (linear scaling: every thread pays).
 */
int bench_usl_knee(const bench_usl_model *f, double *n_knee);

/*
 * The knee among measured points: the index of the largest X²/N (ties: the
 * smaller N, then the first), or n when no point has X > 0.
 */
size_t bench_usl_knee_point(const bench_usl_point *p, size_t n);

#endif

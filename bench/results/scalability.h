/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/scalability.h - the analysis of a blocking thread sweep: the runs of
 * a results document that differ only in thread count, fitted with the
 * Universal Scalability Law (bench/results/usl.h), with the predicted peak and the
 * knee.  Works on the "runs" array of the JSON document, so a live run (the
 * run driver, after the closing table), `hsmbench report` and the HTML page
 * share it, whatever workload wrote the runs.
 *
 * A sweep is a group of runs in blocking mode, without --stages, with the
 * same test, key, data size and --think, and at least two distinct thread
 * counts.  Its points are the runs whose status is "ok" (failed and
 * interrupted runs are left out and counted); with fewer than 3 distinct
 * thread counts among them there is no fit, and the element says why.
 *
 * The knee is where throughput stops paying for its latency: the measured
 * point with the largest Kleinrock power X/R, R the mean time a thread spends
 * per operation, which in a closed loop is N/X (Little's law), so power =
 * X²/N; ties go to fewer threads.  The same maximum on the fitted curve is
 * given too ("fitted_threads").
 *
 * The analysis writes JSON (the results file's "scalability"); its views
 * (the terminal's lines, report, the HTML page) take bench_scal_sweeps, read
 * from those elements once, here.
 */
#ifndef BENCH_SCALABILITY_H
#define BENCH_SCALABILITY_H

#include <stdio.h>
#include <jansson.h>

/*
 * One element per sweep, in the order of each sweep's first run
 * (docs/results-schema.md, "scalability"); an empty array when the runs hold
 * no sweep; NULL when out of memory.
 */
json_t *bench_scalability(const json_t *runs);

/* One measured point of a sweep. */
typedef struct bench_scal_point {
    long long threads;
    double    ops_per_s;
} bench_scal_point;

/*
 * One sweep as its views show it, read once from its "scalability" element
 * (bench_scal_sweeps_read): its identity, its points, the fit or why there is
 * none, the predicted peak and the knee.  A has_ flag is 0 where the
 * element has no such part (null, missing or not an object).
 */
typedef struct bench_scal_sweep {
    char              test[96];
    int               has_key;
    char              key[64];         /* "RSA 2048"; "-" without a key */
    long long         data_size;
    double            think_s;         /* 0: no --think */
    bench_scal_point *points;
    size_t            npoints;
    long long         max_threads;     /* the largest thread count measured; 0 without points */
    long long         left_out;        /* runs not ok, left out of the fit */
    int               has_fit;         /* 0: no analysis, reason says why */
    char              reason[256];
    double            lambda, sigma, kappa;
    int               has_r2;          /* 0: no degrees of freedom */
    double            r2;
    int               drawable;        /* a curve can be drawn: λ > 0, σ and κ >= 0 and finite, points */
    int               has_peak;
    double            peak_threads, peak_ops_per_s;
    int               has_knee;
    long long         knee_threads;
    double            knee_ops_per_s, knee_p50_us;
    int               has_knee_fitted; /* 0: every thread pays on the fitted curve */
    double            knee_fitted_threads;
} bench_scal_sweep;

/* A document's sweeps; of_run[i] is the index in v of the sweep run i of
 * the document belongs to (same test, mode, key, data size and think
 * time), or -1 (of_run is NULL when read without the runs). */
typedef struct bench_scal_sweeps {
    bench_scal_sweep *v;
    size_t            n;
    long long        *of_run;
    size_t            nruns;
} bench_scal_sweeps;

/*
 * Read scal (an array of "scalability" elements; anything else reads as no
 * sweep) into s, and, when runs is not NULL, which sweep each of runs
 * belongs to.  Returns 0, or -1 when out of memory (s is then empty).
 * Release with bench_scal_sweeps_free.
 */
int  bench_scal_sweeps_read(const json_t *scal, const json_t *runs, bench_scal_sweeps *s);

void bench_scal_sweeps_free(bench_scal_sweeps *s);

/* The analysis for people: a few lines of one sweep; every sweep of s,
 * each after an empty line. */
void bench_scal_sweep_print(FILE *f, const bench_scal_sweep *sw);
void bench_scalability_print(FILE *f, const bench_scal_sweeps *s);

#endif

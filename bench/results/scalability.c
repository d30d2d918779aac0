/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/scalability.c - thread sweeps of a results document, fitted and judged. */
#include "bench/results/scalability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/usl.h"

/* A run that can belong to a sweep: blocking, no ramp of threads. */
static int sweepable(const json_t *run)
{
    return strcmp(bench_json_str(run, "mode", ""), "blocking") == 0 &&
           !json_object_get(json_object_get(run, "settings"), "stages");
}

static double think_of(const json_t *run)
{
    return bench_json_num(json_object_get(run, "settings"), "think_s", 0);
}

/* Same sweep: test, mode, key, data size and think time. */
static int same_sweep(const json_t *a, const json_t *b)
{
    return bench_run_same_setup(a, b, 1, NULL, 0) && think_of(a) == think_of(b);
}

typedef struct pt {
    double        n, x;
    size_t        order;      /* position in runs: ties keep the file's order */
    const json_t *run;
} pt;

static int cmp_pt(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    if (p->n != q->n)
        return p->n < q->n ? -1 : 1;
    return (p->order > q->order) - (p->order < q->order);
}

/* v to 6 significant digits, as written in the file. */
static double sig6(double v)
{
    char buf[32];
    if (!isfinite(v) || v == 0)
        return 0;
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static double round2(double v)
{
    return round(v * 100) / 100;
}

/* The element of one sweep: its runs are runs[idx[0..k)]. */
static json_t *analyse(const json_t *runs, const size_t *idx, size_t k)
{
    const json_t *r0 = json_array_get(runs, idx[0]);
    pt *p = calloc(k, sizeof *p);
    json_t *el = json_object(), *points = json_array();
    if (!p || !el || !points)
        goto oom;
    const json_t *key = json_object_get(r0, "key");
    if (json_object_set_new(el, "test", json_string(bench_json_str(r0, "test", "?"))) ||
        json_object_set_new(el, "mode", json_string("blocking")) ||
        json_object_set(el, "key", json_is_object(key) ? (json_t *)key : json_null()) ||
        json_object_set_new(el, "data_size", json_integer(bench_json_int(r0, "data_size", 0))))
        goto oom;
    if (think_of(r0) > 0 && json_object_set_new(el, "think_s", json_real(think_of(r0))))
        goto oom;

    size_t np = 0, left_out = 0;
    for (size_t i = 0; i < k; i++) {
        const json_t *run = json_array_get(runs, idx[i]);
        if (!bench_model_status_sound(bench_json_str(run, "status", ""))) {
            left_out++;
            continue;
        }
        p[np++] = (pt){ (double)bench_json_int(run, "threads", 0), bench_json_num(run, "ops_per_s", 0),
                        idx[i], run };
    }
    qsort(p, np, sizeof *p, cmp_pt);
    bench_usl_point *up = calloc(np ? np : 1, sizeof *up);
    if (!up)
        goto oom;
    for (size_t i = 0; i < np; i++) {
        up[i] = (bench_usl_point){ p[i].n, p[i].x };
        if (json_array_append_new(points, json_pack("{s:I,s:f}", "threads", (json_int_t)p[i].n,
                                                     "ops_per_s", p[i].x)) != 0) {
            free(up);
            goto oom;
        }
    }
    if (json_object_set(el, "points", points) ||
        json_object_set_new(el, "left_out", json_integer((json_int_t)left_out)) ||
        json_object_set_new(el, "model", json_string("usl")))
        goto oom_up;

    bench_usl_model m;
    char why[160];
    if (bench_usl_fit(up, np, &m, why, sizeof why) != 0) {
        char reason[240];
        if (left_out)
            snprintf(reason, sizeof reason, "%s (%zu run%s not ok left out)", why, left_out,
                     left_out == 1 ? "" : "s");
        else
            snprintf(reason, sizeof reason, "%s", why);
        if (json_object_set_new(el, "fit", json_null()) || json_object_set_new(el, "peak", json_null()) ||
            json_object_set_new(el, "knee", json_null()) ||
            json_object_set_new(el, "reason", json_string(reason)))
            goto oom_up;
        free(up);
        free(p);
        json_decref(points);
        return el;
    }
    /* No degrees of freedom: no R² (bench_usl_model), null in the file. */
    if (json_object_set_new(el, "fit",
                            json_pack("{s:f,s:f,s:f,s:I,s:o}", "lambda", round2(m.lambda), "sigma",
                                      sig6(m.sigma), "kappa", sig6(m.kappa), "dof", (json_int_t)m.dof,
                                      "r2", m.dof ? json_real(round(m.r2 * 1e4) / 1e4) : json_null())))
        goto oom_up;
    double pn, px;
    json_t *peak = bench_usl_peak(&m, &pn, &px)
                       ? json_pack("{s:f,s:f}", "threads", round2(pn), "ops_per_s", round2(px))
                       : json_null();
    if (json_object_set_new(el, "peak", peak))
        goto oom_up;
    const size_t ki = bench_usl_knee_point(up, np);
    json_t *knee = json_null();
    if (ki < np) {
        const json_t *lat = json_object_get(p[ki].run, "latency_us");
        double fk;
        knee = json_pack("{s:I,s:f,s:{s:f,s:f,s:f},s:o}", "threads", (json_int_t)p[ki].n, "ops_per_s",
                         p[ki].x, "latency_us", "mean", bench_json_num(lat, "mean", 0), "p50",
                         bench_json_num(lat, "p50", 0), "p99", bench_json_num(lat, "p99", 0),
                         "fitted_threads",
                         bench_usl_knee(&m, &fk) ? json_real(round2(fk)) : json_null());
    }
    if (json_object_set_new(el, "knee", knee))
        goto oom_up;
    free(up);
    free(p);
    json_decref(points);
    return el;
oom_up:
    free(up);
oom:
    free(p);
    json_decref(points);
    json_decref(el);
    return NULL;
}

json_t *bench_scalability(const json_t *runs)
{
    const size_t n = json_array_size(runs);
    json_t *out = json_array();
    char *done = calloc(n ? n : 1, 1);
    size_t *idx = calloc(n ? n : 1, sizeof *idx);
    if (!out || !done || !idx)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(runs, i);
        if (done[i] || !sweepable(a))
            continue;
        size_t k = 0, distinct = 0;
        for (size_t j = i; j < n; j++) {
            const json_t *b = json_array_get(runs, j);
            if (done[j] || !sweepable(b) || !same_sweep(a, b))
                continue;
            done[j] = 1;
            int seen = 0;
            for (size_t m = 0; m < k && !seen; m++)
                seen = bench_json_int(json_array_get(runs, idx[m]), "threads", 0) ==
                       bench_json_int(b, "threads", 0);
            distinct += !seen;
            idx[k++] = j;
        }
        if (distinct < 2)
            continue;      /* one thread count: a run, not a sweep */
        json_t *el = analyse(runs, idx, k);
        if (!el || json_array_append_new(out, el) != 0)
            goto oom;
    }
    free(done);
    free(idx);
    return out;
oom:
    free(done);
    free(idx);
    json_decref(out);
    return NULL;
}

const json_t *bench_scalability_find(const json_t *scal, const json_t *run)
{
    size_t i;
    const json_t *el;
    json_array_foreach(scal, i, el) {
        if (bench_run_same_setup(el, run, 1, NULL, 0) && bench_json_num(el, "think_s", 0) == think_of(run))
            return el;
    }
    return NULL;
}

/* "3 threads", "27.9 threads", "1 thread". */
static const char *fmt_threads(double n, char *buf, size_t len)
{
    if (fabs(n - round(n)) < 0.05)
        snprintf(buf, len, "%.0f thread%s", round(n), round(n) == 1 ? "" : "s");
    else
        snprintf(buf, len, "%.1f threads", n);
    return buf;
}

static void print_one(FILE *f, const json_t *el)
{
    char key[64], lat[32], a[32];
    const json_t *fit = json_object_get(el, "fit"), *peak = json_object_get(el, "peak"),
                 *knee = json_object_get(el, "knee"), *points = json_object_get(el, "points");
    fprintf(f, "scalability of %s (", bench_json_str(el, "test", "?"));
    if (json_is_object(json_object_get(el, "key")))
        fprintf(f, "%s, ", bench_run_key_desc(el, key, sizeof key));
    fprintf(f, "data %lld B", bench_json_int(el, "data_size", 0));
    if (bench_json_num(el, "think_s", 0) > 0)
        fprintf(f, ", think %s", bench_fmt_ns(bench_json_num(el, "think_s", 0) * 1e9, a, sizeof a));
    fputs(")", f);
    if (!json_is_object(fit)) {
        fprintf(f, ": no analysis: %s\n", bench_json_str(el, "reason", "?"));
        return;
    }
    const double lambda = bench_json_num(fit, "lambda", 0), sigma = bench_json_num(fit, "sigma", 0),
                 kappa = bench_json_num(fit, "kappa", 0);
    const json_t *r2 = json_object_get(fit, "r2");
    const long long left = bench_json_int(el, "left_out", 0);
    fprintf(f, ": Universal Scalability Law fit over %zu runs", json_array_size(points));
    if (json_is_number(r2))
        fprintf(f, ", R² %.3f%s", json_number_value(r2),
                json_number_value(r2) < 0.9 ? " (a poor fit: noisy or not USL-shaped; the figures are rough)" : "");
    else
        fputs(", no degrees of freedom (3 points, 3 parameters), so no R²: such a curve can be "
              "drawn through any 3 points and shows nothing about the law; measure more thread counts", f);
    if (left)
        fprintf(f, "; %lld run%s not ok left out", left, left == 1 ? "" : "s");
    fprintf(f, "\n  contention σ %.4g, coherency κ %.4g, one thread λ %.1f ops/s\n", sigma, kappa, lambda);
    /* The largest thread count measured, to say when the peak is beyond it. */
    double nmax = 0;
    size_t i;
    const json_t *point;
    json_array_foreach(points, i, point) {
        const double n = (double)bench_json_int(point, "threads", 0);
        if (n > nmax)
            nmax = n;
    }
    if (json_is_object(peak)) {
        const double pn = bench_json_num(peak, "threads", 0);
        if (sigma >= 1)
            fprintf(f, "  no gain from more threads: throughput is highest at 1 thread (σ ≥ 1)\n");
        else
            fprintf(f, "  predicted peak %s → %.1f ops/s%s\n", fmt_threads(pn, a, sizeof a),
                    bench_json_num(peak, "ops_per_s", 0), pn > nmax ? " (beyond the threads measured)" : "");
    } else if (sigma > 0) {
        fprintf(f, "  no predicted peak (κ 0): throughput levels off towards λ/σ = %.1f ops/s\n", lambda / sigma);
    } else {
        fprintf(f, "  no predicted peak: throughput grows linearly over the threads measured\n");
    }
    if (json_is_object(knee)) {
        const json_t *l = json_object_get(knee, "latency_us");
        const json_t *fk = json_object_get(knee, "fitted_threads");
        fprintf(f, "  knee (best throughput per latency, max X²/N) at %s: %.1f ops/s, p50 %s",
                fmt_threads((double)bench_json_int(knee, "threads", 0), a, sizeof a),
                bench_json_num(knee, "ops_per_s", 0), bench_fmt_ns(bench_json_num(l, "p50", 0) * 1e3, lat, sizeof lat));
        if (json_is_number(fk))
            fprintf(f, " (fitted curve: %s)\n", fmt_threads(json_number_value(fk), a, sizeof a));
        else
            fputs(" (fitted curve: none, every thread pays)\n", f);
    }
}

void bench_scalability_print(FILE *f, const json_t *scal)
{
    size_t i;
    const json_t *el;
    json_array_foreach(scal, i, el) {
        fputc('\n', f);
        print_one(f, el);
    }
    bench_flush(f);
}

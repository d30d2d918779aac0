/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/scalability.c - thread sweeps of a results document, fitted and judged. */
#include "bench/results/scalability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/results/codec.h"
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

/* The one reading of a sweep's element: el, any JSON value (a file may say
 * anything), into sw; -1 when out of memory. */
static int read_one(const json_t *el, bench_scal_sweep *sw)
{
    const json_t *fit = json_object_get(el, "fit"), *peak = json_object_get(el, "peak"),
                 *knee = json_object_get(el, "knee"), *points = json_object_get(el, "points");
    snprintf(sw->test, sizeof sw->test, "%s", bench_json_str(el, "test", "?"));
    sw->has_key = json_is_object(json_object_get(el, "key"));
    bench_run_key_desc(el, sw->key, sizeof sw->key);
    sw->data_size = bench_json_int(el, "data_size", 0);
    sw->think_s = bench_json_num(el, "think_s", 0);
    sw->left_out = bench_json_int(el, "left_out", 0);
    sw->npoints = json_array_size(points);
    sw->points = sw->npoints ? calloc(sw->npoints, sizeof *sw->points) : NULL;
    if (sw->npoints && !sw->points)
        return -1;
    for (size_t i = 0; i < sw->npoints; i++) {
        const json_t *p = json_array_get(points, i);
        sw->points[i] = (bench_scal_point){ bench_json_int(p, "threads", 0), bench_json_num(p, "ops_per_s", 0) };
        if (sw->points[i].threads > sw->max_threads)
            sw->max_threads = sw->points[i].threads;
    }
    sw->has_fit = json_is_object(fit);
    snprintf(sw->reason, sizeof sw->reason, "%s", bench_json_str(el, "reason", "?"));
    sw->lambda = bench_json_num(fit, "lambda", 0);
    sw->sigma = bench_json_num(fit, "sigma", 0);
    sw->kappa = bench_json_num(fit, "kappa", 0);
    const json_t *r2 = json_object_get(fit, "r2");
    sw->has_r2 = json_is_number(r2);
    sw->r2 = sw->has_r2 ? json_number_value(r2) : 0;
    /* Missing λ, σ or κ read as -1 here: no curve. */
    const double l = bench_json_num(fit, "lambda", -1), sg = bench_json_num(fit, "sigma", -1),
                 k = bench_json_num(fit, "kappa", -1);
    sw->drawable = sw->has_fit && l > 0 && sg >= 0 && k >= 0 && isfinite(l) && isfinite(sg) && isfinite(k) &&
                   sw->npoints > 0;
    sw->has_peak = json_is_object(peak);
    sw->peak_threads = bench_json_num(peak, "threads", 0);
    sw->peak_ops_per_s = bench_json_num(peak, "ops_per_s", 0);
    sw->has_knee = json_is_object(knee);
    sw->knee_threads = bench_json_int(knee, "threads", 0);
    sw->knee_ops_per_s = bench_json_num(knee, "ops_per_s", 0);
    sw->knee_p50_us = bench_json_num(json_object_get(knee, "latency_us"), "p50", 0);
    const json_t *fk = json_object_get(knee, "fitted_threads");
    sw->has_knee_fitted = json_is_number(fk);
    sw->knee_fitted_threads = sw->has_knee_fitted ? json_number_value(fk) : 0;
    return 0;
}

int bench_scal_sweeps_read(const json_t *scal, const json_t *runs, bench_scal_sweeps *s)
{
    const size_t n = json_is_array(scal) ? json_array_size(scal) : 0,
                 nr = runs ? json_array_size(runs) : 0;
    memset(s, 0, sizeof *s);
    s->v = n ? calloc(n, sizeof *s->v) : NULL;
    s->of_run = nr ? calloc(nr, sizeof *s->of_run) : NULL;
    if ((n && !s->v) || (nr && !s->of_run))
        goto oom;
    for (; s->n < n; s->n++)
        if (read_one(json_array_get(scal, s->n), &s->v[s->n]) != 0) {
            s->n++;     /* its points, if any, are freed with the others */
            goto oom;
        }
    /* Each run's sweep: the first element of the same setup and think time. */
    for (s->nruns = 0; s->nruns < nr; s->nruns++) {
        const json_t *run = json_array_get(runs, s->nruns);
        s->of_run[s->nruns] = -1;
        for (size_t i = 0; i < n && s->of_run[s->nruns] < 0; i++) {
            const json_t *el = json_array_get(scal, i);
            if (bench_run_same_setup(el, run, 1, NULL, 0) && bench_json_num(el, "think_s", 0) == think_of(run))
                s->of_run[s->nruns] = (long long)i;
        }
    }
    return 0;
oom:
    bench_scal_sweeps_free(s);
    return -1;
}

void bench_scal_sweeps_free(bench_scal_sweeps *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].points);
    free(s->v);
    free(s->of_run);
    memset(s, 0, sizeof *s);
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

void bench_scal_sweep_print(FILE *f, const bench_scal_sweep *sw)
{
    char lat[32], a[32];
    fprintf(f, "scalability of %s (", sw->test);
    if (sw->has_key)
        fprintf(f, "%s, ", sw->key);
    fprintf(f, "data %lld B", sw->data_size);
    if (sw->think_s > 0)
        fprintf(f, ", think %s", bench_fmt_ns(sw->think_s * 1e9, a, sizeof a));
    fputs(")", f);
    if (!sw->has_fit) {
        fprintf(f, ": no analysis: %s\n", sw->reason);
        return;
    }
    const double lambda = sw->lambda, sigma = sw->sigma, kappa = sw->kappa;
    const long long left = sw->left_out;
    fprintf(f, ": Universal Scalability Law fit over %zu runs", sw->npoints);
    if (sw->has_r2)
        fprintf(f, ", R² %.3f%s", sw->r2,
                sw->r2 < 0.9 ? " (a poor fit: noisy or not USL-shaped; the figures are rough)" : "");
    else
        fputs(", no degrees of freedom (3 points, 3 parameters), so no R²: such a curve can be "
              "drawn through any 3 points and shows nothing about the law; measure more thread counts", f);
    if (left)
        fprintf(f, "; %lld run%s not ok left out", left, left == 1 ? "" : "s");
    fprintf(f, "\n  contention σ %.4g, coherency κ %.4g, one thread λ %.1f ops/s\n", sigma, kappa, lambda);
    if (sw->has_peak) {
        const double pn = sw->peak_threads;
        if (sigma >= 1)
            fprintf(f, "  no gain from more threads: throughput is highest at 1 thread (σ ≥ 1)\n");
        else
            fprintf(f, "  predicted peak %s → %.1f ops/s%s\n", fmt_threads(pn, a, sizeof a), sw->peak_ops_per_s,
                    pn > (double)sw->max_threads ? " (beyond the threads measured)" : "");
    } else if (sigma > 0) {
        fprintf(f, "  no predicted peak (κ 0): throughput levels off towards λ/σ = %.1f ops/s\n", lambda / sigma);
    } else {
        fprintf(f, "  no predicted peak: throughput grows linearly over the threads measured\n");
    }
    if (sw->has_knee) {
        fprintf(f, "  knee (best throughput per latency, max X²/N) at %s: %.1f ops/s, p50 %s",
                fmt_threads((double)sw->knee_threads, a, sizeof a), sw->knee_ops_per_s,
                bench_fmt_ns(sw->knee_p50_us * 1e3, lat, sizeof lat));
        if (sw->has_knee_fitted)
            fprintf(f, " (fitted curve: %s)\n", fmt_threads(sw->knee_fitted_threads, a, sizeof a));
        else
            fputs(" (fitted curve: none, every thread pays)\n", f);
    }
}

void bench_scalability_print(FILE *f, const bench_scal_sweeps *s)
{
    for (size_t i = 0; i < s->n; i++) {
        fputc('\n', f);
        bench_scal_sweep_print(f, &s->v[i]);
    }
    bench_flush(f);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/codec.c - the results document's codec, at the bottom of the
 * results floor: the field readers, a run element and its per-second series
 * written from what the core measured, the histogram as JSON and back (see
 * codec.h).  It includes no other file of the floor.
 */
#include "bench/results/codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/core/schedule.h"
#include "bench/core/stable.h"
#include "bench/core/workload.h"
#include "bench/util/cli.h"
#include "bench/util/hostinfo.h"

/* ---- field readers ------------------------------------------------------ */

double bench_json_num(const json_t *obj, const char *key, double dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

long long bench_json_int(const json_t *obj, const char *key, long long dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

const char *bench_json_str(const json_t *obj, const char *key, const char *dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

int bench_run_measured(const json_t *run)
{
    const char *status = bench_json_str(run, "status", "");
    if (bench_model_status_sound(status))
        return 1;
    /* Interrupted while measuring, or measured and then judged failed
     * (most operations failed, the run stopped early): the figures are
     * there and say what happened. */
    return (strcmp(status, "interrupted") == 0 || strcmp(status, "failed") == 0) &&
           json_object_get(run, "ops") != NULL;
}

const char *bench_run_key_desc(const json_t *run, char *buf, size_t len)
{
    const json_t *key = json_object_get(run, "key");
    if (!json_is_object(key)) {
        snprintf(buf, len, "-");
        return buf;
    }
    const char *type = bench_json_str(key, "type", "?");
    const char *curve = bench_json_str(key, "curve", NULL);
    if (curve)
        snprintf(buf, len, "%s %s", type, curve);
    else
        snprintf(buf, len, "%s %lld", type, bench_json_int(key, "bits", 0));
    return buf;
}

int bench_run_same_setup(const json_t *a, const json_t *b, int ignore_threads, char *why,
                         size_t whylen)
{
    const char *ta = bench_json_str(a, "test", ""), *tb = bench_json_str(b, "test", "");
    if (strcmp(ta, tb) != 0) {
        bench_seterr(why, whylen, "test %s vs %s", tb, ta);
        return 0;
    }
    const char *ma = bench_json_str(a, "mode", ""), *mb = bench_json_str(b, "mode", "");
    if (strcmp(ma, mb) != 0) {
        bench_seterr(why, whylen, "mode %s vs %s", mb, ma);
        return 0;
    }
    const json_t *ka = json_object_get(a, "key"), *kb = json_object_get(b, "key");
    int knull_a = !json_is_object(ka), knull_b = !json_is_object(kb);
    if (knull_a != knull_b || (!knull_a && !json_equal((json_t *)ka, (json_t *)kb))) {
        char da[64], db[64];
        bench_seterr(why, whylen, "key %s vs %s", bench_run_key_desc(b, db, sizeof db),
               bench_run_key_desc(a, da, sizeof da));
        return 0;
    }
    /* A mix's types and weights are its setup too. */
    const json_t *xa = json_object_get(a, "mix"), *xb = json_object_get(b, "mix");
    if ((xa || xb) && !(xa && xb && json_equal((json_t *)xa, (json_t *)xb))) {
        bench_seterr(why, whylen, "another mix of tests");
        return 0;
    }
    long long da = bench_json_int(a, "data_size", -1), db = bench_json_int(b, "data_size", -1);
    if (da != db) {
        bench_seterr(why, whylen, "data size %lld vs %lld", db, da);
        return 0;
    }
    if (!ignore_threads) {
        long long na = bench_json_int(a, "threads", -1), nb = bench_json_int(b, "threads", -1);
        if (na != nb) {
            bench_seterr(why, whylen, "threads %lld vs %lld", nb, na);
            return 0;
        }
    }
    return 1;
}

int bench_model_status_sound(const char *status)
{
    return strcmp(status, "ok") == 0 || strcmp(status, "errors") == 0;
}

double bench_model_rate(uint64_t n, double span_s)
{
    return span_s > 0 ? round((double)n / span_s * 100) / 100 : 0.0;
}

void bench_model_second_of(const bench_sample *s, int open_loop, int staged, bench_model_second *x)
{
    memset(x, 0, sizeof *x);
    x->t = s->t;
    x->span_s = round(s->span_s * 1000) / 1000;
    x->ops = s->ops - s->errors;      /* successes, as everywhere */
    x->errors = s->errors;
    x->p50_us = round((double)s->p50_ns / 10.0) / 100.0;   /* us, two decimals (10 ns) */
    x->p99_us = round((double)s->p99_ns / 10.0) / 100.0;
    x->has_target = s->target > 0 || open_loop || staged;
    x->target = x->has_target ? s->target : 0;
    x->has_in_flight = open_loop;
    x->in_flight = open_loop ? s->in_flight : 0;
}

json_t *bench_model_second_json(const bench_model_second *x)
{
    json_t *sec = json_pack("{s:i,s:f,s:I,s:I,s:f,s:f}", "t", (int)x->t, "span_s", x->span_s, "ops",
                            (json_int_t)x->ops, "errors", (json_int_t)x->errors, "p50_us", x->p50_us,
                            "p99_us", x->p99_us);
    if (sec && ((x->has_target && json_object_set_new(sec, "target", json_real(x->target)) != 0) ||
                (x->has_in_flight &&
                 json_object_set_new(sec, "in_flight", json_integer((json_int_t)x->in_flight)) != 0))) {
        json_decref(sec);
        return NULL;
    }
    return sec;
}

/* A schedule (a rate or a ramp) that was not kept (bench_schedule_unkept). */
static int saturated(const bench_outcome *o)
{
    return o->has_schedule &&
           bench_schedule_unkept(o->scheduled, o->dropped, o->concurrency, o->max_unstarted);
}

/* "97.3 % CKR_DEVICE_ERROR": the most frequent error's share of the attempts. */
static void dominant(const bench_outcome *o, const bench_workload *w, char *buf, size_t len)
{
    char name[64] = "errors";
    if (o->nerrs)
        bench_code_name(w, o->errs[0].code, name, sizeof name);
    const uint64_t n = o->nerrs ? o->errs[0].count : o->errors;
    snprintf(buf, len, "%.1f %% %s", o->ops ? 100.0 * (double)n / (double)o->ops : 0.0, name);
}

const char *bench_outcome_verdict(const bench_outcome *o, const bench_workload *w, char *reason,
                                  size_t len)
{
    char cause[96];
    reason[0] = 0;
    switch (o->status) {
    case BENCH_RUN_INTERRUPTED:
        snprintf(reason, len, "interrupted");
        return "interrupted";
    case BENCH_RUN_FAILED:
        snprintf(reason, len, "%s", o->reason);
        return "failed";
    case BENCH_RUN_ABORTED: {
        /* The stretch that stopped it failed entirely; the share is the whole run's. */
        char name[64] = "errors";
        if (o->nerrs)
            bench_code_name(w, o->errs[0].code, name, sizeof name);
        snprintf(reason, len,
                 "stopped early: every operation failed for several seconds (%s; %.1f %% of the "
                 "run's attempts failed)", name,
                 o->ops ? 100.0 * (double)o->errors / (double)o->ops : 0.0);
        return "failed";
    }
    case BENCH_RUN_STOPPED:   /* judged as a run that ended: the caller says why it stopped */
    case BENCH_RUN_OK:
        break;
    }
    if (o->ops == 0) {
        snprintf(reason, len, "no operation completed in the measured run");
        return "failed";
    }
    if (o->errors * 2 > o->ops) {
        dominant(o, w, cause, sizeof cause);
        snprintf(reason, len, "%s%s", o->errors == o->ops ? "every operation failed: " : "", cause);
        return "failed";
    }
    if (saturated(o)) {
        const double d = o->duration_s;
        snprintf(reason, len,
                 "target saturated: %llu of %llu scheduled requests never started (%.1f %%); "
                 "achieved %.0f/s of %.0f/s scheduled", (unsigned long long)o->dropped,
                 (unsigned long long)o->scheduled, 100.0 * (double)o->dropped / (double)o->scheduled,
                 d > 0 ? (double)(o->ops - o->errors) / d : 0.0, o->target_rate);
        return "failed";
    }
    return "ok";
}


void bench_code_name(const bench_workload *w, bench_code code, char *buf, size_t len)
{
    if (code == BENCH_CODE_VERIFY_MISMATCH)
        snprintf(buf, len, "VERIFY_MISMATCH");
    else if (code == BENCH_CODE_BAD_LENGTH)
        snprintf(buf, len, "BAD_OUTPUT_LENGTH");
    else if (code == BENCH_CODE_NO_RESULT)
        snprintf(buf, len, "NO_RESULT");
    else if (code == BENCH_CODE_LOOKUP_NOT_FOUND)
        snprintf(buf, len, "LOOKUP_NOT_FOUND");
    else if (code == BENCH_CODE_LOOKUP_AMBIGUOUS)
        snprintf(buf, len, "LOOKUP_AMBIGUOUS");
    else if (code >= BENCH_CODE_CORE && code < BENCH_CODE_WORKLOAD)
        snprintf(buf, len, "OTHER");
    else if (w && w->code_name)
        w->code_name(w->ctx, code, buf, len);
    else
        snprintf(buf, len, "code %llu", (unsigned long long)code);
}

static double us(double ns)
{
    return round(ns / 10.0) / 100.0;   /* µs with two decimals (10 ns) */
}

json_t *bench_report_latency_json(const bench_hist *h)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I}",
                     "min", us((double)bench_hist_min(h)), "mean", us(bench_hist_mean(h)),
                     "stddev", us(bench_hist_stddev(h)),
                     "p50", us((double)bench_hist_percentile(h, 50)),
                     "p90", us((double)bench_hist_percentile(h, 90)),
                     "p95", us((double)bench_hist_percentile(h, 95)),
                     "p99", us((double)bench_hist_percentile(h, 99)),
                     "p999", us((double)bench_hist_percentile(h, 99.9)),
                     "max", us((double)bench_hist_max(h)),
                     "count", (json_int_t)bench_hist_count(h));
}

typedef struct { json_t *arr; int failed; } slot_acc;

static int slot_visit(void *arg, size_t index, uint64_t count)
{
    slot_acc *acc = arg;
    if (json_array_append_new(acc->arr, json_pack("[I,I]", (json_int_t)index, (json_int_t)count)))
        acc->failed = 1;
    return acc->failed;
}

json_t *bench_hist_to_json(const bench_hist *h)
{
    slot_acc acc = { json_array(), 0 };
    bench_hist_foreach(h, slot_visit, &acc);
    return json_pack("{s:s,s:I,s:I,s:i,s:i,s:I,s:I,s:I,s:I,s:o}", "unit", "ns",
                     "lowest", (json_int_t)BENCH_HIST_LOWEST, "highest", (json_int_t)BENCH_HIST_HIGHEST,
                     "significant_figures", BENCH_HIST_SIG_FIGS, "sub_buckets", BENCH_HIST_SUB_BUCKETS,
                     "total", (json_int_t)bench_hist_count(h), "min", (json_int_t)bench_hist_min(h),
                     "max", (json_int_t)bench_hist_max(h),
                     "clamped", (json_int_t)atomic_load_explicit(&h->clamped, memory_order_relaxed),
                     "counts", acc.arr);
}

int bench_hist_from_json(const json_t *j, bench_hist *h)
{
    json_int_t lowest = 0, highest = 0, min = 0, max = 0;
    int sig = 0;
    json_t *counts = NULL;
    if (json_unpack((json_t *)j, "{s:I,s:I,s:i,s:I,s:I,s:o}", "lowest", &lowest, "highest", &highest,
                    "significant_figures", &sig, "min", &min, "max", &max, "counts", &counts) != 0)
        return -1;
    if (lowest != (json_int_t)BENCH_HIST_LOWEST || highest != (json_int_t)BENCH_HIST_HIGHEST ||
        sig != BENCH_HIST_SIG_FIGS || !json_is_array(counts))
        return -1;
    bench_hist_reset(h);
    size_t i;
    json_t *pair;
    json_array_foreach(counts, i, pair) {
        json_int_t idx, cnt;
        if (json_unpack(pair, "[I,I]", &idx, &cnt) != 0 || idx < 0 || cnt < 0 ||
            bench_hist_load_slot(h, (size_t)idx, (uint64_t)cnt) != 0)
            return -1;
    }
    bench_hist_set_extrema(h, (uint64_t)min, (uint64_t)max);
    return 0;
}

/* errors_by_code of a table of codes, most frequent first. */
static json_t *codes_json(const bench_err *errs, size_t nerrs, const bench_workload *w)
{
    json_t *by = json_object();
    for (size_t n = 0; by && n < nerrs; n++) {
        char name[64];
        bench_code_name(w, errs[n].code, name, sizeof name);
        if (json_object_set_new(by, name, json_integer((json_int_t)errs[n].count)) != 0) {
            json_decref(by);
            return NULL;
        }
    }
    return by;
}

/* "breakdown": {"<dimension>": [{"class", "weight"?, "ops", ...}, ...]};
 * NULL when out of memory. */
static json_t *breakdown_json(const bench_outcome *o, const bench_workload *w)
{
    json_t *all = json_object();
    for (unsigned k = 0; all && k < BENCH_BREAKDOWNS; k++) {
        const bench_breakdown *b = w->breakdown[k];
        if (!b || !o->by[k])
            continue;
        json_t *arr = json_array();
        if (!arr || json_object_set_new(all, b->dimension, arr) != 0)
            goto oom;
        for (unsigned c = 0; c < o->nby[k]; c++) {
            const bench_class_outcome *x = &o->by[k][c];
            const double d = o->duration_s;
            json_t *e = json_object();
            if (!e || json_array_append_new(arr, e) != 0)
                goto oom;
            /* every set steals its value, also when it fails */
            int bad = json_object_set_new(e, "class", json_string(b->labels[c]));
            if (b->weights)
                bad |= json_object_set_new(e, "weight", json_real(round(b->weights[c] * 1e6) / 1e6));
            /* ops are the successes; attempts count the errors too */
            bad |= json_object_set_new(e, "ops", json_integer((json_int_t)(x->ops - x->errors)));
            bad |= json_object_set_new(e, "attempts", json_integer((json_int_t)x->ops));
            bad |= json_object_set_new(e, "errors", json_integer((json_int_t)x->errors));
            bad |= json_object_set_new(
                e, "error_pct", json_real(x->ops ? 100.0 * (double)x->errors / (double)x->ops : 0.0));
            bad |= json_object_set_new(
                e, "ops_per_s",
                json_real(d > 0 ? round((double)(x->ops - x->errors) / d * 100) / 100 : 0.0));
            bad |= json_object_set_new(
                e, "attempts_per_s", json_real(d > 0 ? round((double)x->ops / d * 100) / 100 : 0.0));
            bad |= json_object_set_new(e, "latency_us", bench_report_latency_json(x->hist));
            bad |= json_object_set_new(e, "errors_by_code", codes_json(x->errs, x->nerrs, w));
            bad |= json_object_set_new(e, "histogram", bench_hist_to_json(x->hist));
            if (bad)
                goto oom;
        }
    }
    return all;
oom:
    json_decref(all);
    return NULL;
}

/*
 * A schedule's figures of the requests that never started: the bound, the
 * lower bounds of their latency (due to the end of the measured part), and
 * the latency of every scheduled request (successes and failures from
 * their due time, the unstarted at their lower bound).  0, or -1 when out
 * of memory.
 */
static int schedule_figures(json_t *sched, const bench_outcome *o)
{
    bench_hist *all = bench_hist_new();
    if (!all)
        return -1;
    bench_hist_add(all, o->hist);
    if (o->failed)
        bench_hist_add(all, o->failed);
    bench_hist_add(all, o->unstarted);
    int bad = 0;
    if (o->has_schedule)
        bad |= json_object_set_new(sched, "max_unstarted_pct",
                                   json_real(round(o->max_unstarted * 100 * 1e6) / 1e6));
    bad |= json_object_set_new(sched, "unstarted_latency_us", bench_report_latency_json(o->unstarted));
    bad |= json_object_set_new(sched, "scheduled_latency_us", bench_report_latency_json(all));
    bench_hist_free(all);
    return bad ? -1 : 0;
}

/* --until-stable's steady state (results-schema.md, "stable"); the
 * interval's members only when there were two batches or more. */
static json_t *stable_json(const bench_run_desc *d, const bench_outcome *o)
{
    const bench_stable *st = &o->stable;
    const double tick_s = (double)BENCH_STABLE_TICK_NS / 1e9;
    const char *stopped = o->stable_stop == BENCH_STABLE_STOPPED ? "stable"
                        : o->stable_stop == BENCH_STABLE_BOUND ? "bound" : "interrupted";
    json_t *j = json_pack("{s:f,s:s,s:s,s:s,s:f,s:f,s:f,s:I,s:f}", "target_pct", o->stable_pct,
                          "stopped", stopped, "method", BENCH_STABLE_METHOD, "covers", BENCH_STABLE_COVERS,
                          "bound_s", d->duration_s,
                          "warmup_s", round((double)st->warmup_n * tick_s * 1e3) / 1e3, "batch_s",
                          round((double)st->batch_n * tick_s * 1e3) / 1e3, "batches",
                          (json_int_t)st->batches, "lag1", round(st->lag1 * 1e4) / 1e4);
    if (!j || st->batches < 2)
        return j;
    int bad = json_object_set_new(j, "mean_ops_per_s", json_real(round(st->mean * 100) / 100));
    bad |= json_object_set_new(j, "ci95_low", json_real(round((st->mean - st->half_width) * 100) / 100));
    bad |= json_object_set_new(j, "ci95_high", json_real(round((st->mean + st->half_width) * 100) / 100));
    if (st->half_width_pct >= 0)
        bad |= json_object_set_new(j, "half_width_pct", json_real(round(st->half_width_pct * 1e4) / 1e4));
    if (bad) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static json_t *desc_json(const bench_run_desc *d, const char *status)
{
    json_t *run = json_pack("{s:s,s:s,s:i,s:I,s:s}", "test", d->test, "mode", d->mode,
                            "threads", (int)d->threads, "data_size", (json_int_t)d->data_size,
                            "status", status);
    if (d->block_size)
        json_object_set_new(run, "block_size", json_integer((json_int_t)d->block_size));
    if (d->mechanism)
        json_object_set_new(run, "mechanism", json_string(d->mechanism));
    if (d->key_type) {
        json_t *key = json_pack("{s:s,s:i}", "type", d->key_type, "bits", (int)d->key_bits);
        if (d->curve)
            json_object_set_new(key, "curve", json_string(d->curve));
        json_object_set_new(run, "key", key);
    } else {
        json_object_set_new(run, "key", json_null());
    }
    json_t *settings = json_pack("{s:f,s:f,s:I}", "warmup_s", d->warmup_s, "duration_s",
                                 d->duration_s, "iterations", (json_int_t)d->iterations);
    if (d->rate > 0)
        json_object_set_new(settings, "rate", json_real(d->rate));
    if (d->inflight)
        json_object_set_new(settings, "inflight", json_integer(d->inflight));
    if (d->stages)
        json_object_set_new(settings, "stages", json_string(d->stages));
    if (d->think_s > 0)
        json_object_set_new(settings, "think_s", json_real(d->think_s));
    if (d->per_thread)
        json_object_set_new(settings, "per_thread", json_true());
    if (d->ramp_up_s > 0)
        json_object_set_new(settings, "ramp_up_s", json_real(d->ramp_up_s));
    if (d->engine)
        json_object_set_new(settings, "engine", json_string(d->engine));
    if (d->slots)
        json_object_set_new(settings, "slots", json_integer(d->slots));
    json_object_set_new(run, "settings", settings);
    return run;
}

json_t *bench_report_run_json(const bench_run_desc *d, const bench_outcome *o,
                              const bench_workload *w, const char *status, const char *reason)
{
    json_t *run = desc_json(d, status);
    if (reason && *reason)
        json_object_set_new(run, "reason", json_string(reason));
    if (!o)
        return run;

    double bps = o->duration_s > 0 && w->bytes_per_op
                     ? (double)(o->ops - o->errors) * (double)w->bytes_per_op / o->duration_s : 0;
    /* A mix of data sizes: each class's successes times its own bytes. */
    for (unsigned k = 0; !w->bytes_per_op && o->duration_s > 0 && k < BENCH_BREAKDOWNS; k++) {
        const bench_breakdown *b = w->breakdown[k];
        if (!b || !b->bytes_per_op || !o->by[k])
            continue;
        double bytes = 0;
        for (unsigned c = 0; c < o->nby[k]; c++)
            bytes += (double)(o->by[k][c].ops - o->by[k][c].errors) * (double)b->bytes_per_op[c];
        bps = bytes / o->duration_s;
        break;
    }
    json_object_set_new(run, "measure_start_epoch_ms", json_integer((json_int_t)o->measure_start_epoch_ms));
    json_object_set_new(run, "duration_s", json_real(round(o->duration_s * 1e6) / 1e6));
    /* ops are the successes; attempts (successes and errors) beside them */
    json_object_set_new(run, "ops", json_integer((json_int_t)(o->ops - o->errors)));
    json_object_set_new(run, "errors", json_integer((json_int_t)o->errors));
    json_object_set_new(run, "error_pct",
                        json_real(o->ops ? 100.0 * (double)o->errors / (double)o->ops : 0.0));
    json_object_set_new(run, "ops_per_s", json_real(bench_model_rate(o->ops - o->errors, o->duration_s)));
    json_object_set_new(run, "attempts", json_integer((json_int_t)o->ops));
    json_object_set_new(run, "attempts_per_s", json_real(bench_model_rate(o->ops, o->duration_s)));
    json_object_set_new(run, "bytes_per_s", json_real(round(bps)));
    if (o->client_cpu >= 0)
        json_object_set_new(run, "client_cpu", json_real(round(o->client_cpu * 1000) / 1000));
    json_object_set_new(run, "latency_us", bench_report_latency_json(o->hist));
    /* Every attempt's latency, failed ones included (JMeter's Avg/Min/Max). */
    bench_hist *all = o->failed ? bench_hist_new() : NULL;
    if (all) {
        bench_hist_add(all, o->hist);
        bench_hist_add(all, o->failed);
        json_object_set_new(run, "attempts_latency_us", bench_report_latency_json(all));
        bench_hist_free(all);
    }
    if (o->service) {
        json_object_set_new(run, "service_us", bench_report_latency_json(o->service));
        json_object_set_new(run, "queue_us", bench_report_latency_json(o->queue));
        json_t *sched = json_pack("{s:f,s:f,s:I,s:I,s:I}", "target_ops_per_s",
                                  round(o->target_rate * 100) / 100, "achieved_ops_per_s",
                                  bench_model_rate(o->ops - o->errors, o->duration_s), "scheduled", (json_int_t)o->scheduled,
                                  "late", (json_int_t)o->late, "dropped", (json_int_t)o->dropped);
        if (sched && o->unstarted && schedule_figures(sched, o) != 0) {
            json_decref(run);
            json_decref(sched);
            return NULL;
        }
        json_object_set_new(run, "schedule", sched);
        if (o->has_schedule)
            json_object_set_new(run, "latency_complete", json_boolean(!saturated(o)));
    }

    json_t *by = json_object();
    for (size_t n = 0; n < o->nerrs; n++) {
        char name[64];
        bench_code_name(w, o->errs[n].code, name, sizeof name);
        json_object_set_new(by, name, json_integer((json_int_t)o->errs[n].count));
    }
    json_object_set_new(run, "errors_by_code", by);

    json_t *series = json_array();
    for (size_t n = 0; n < o->nsamples; n++) {
        /* the run model's second: the same figures as the --out jsonl stream */
        bench_model_second x;
        bench_model_second_of(&o->samples[n], o->service != NULL, d->stages != NULL, &x);
        json_array_append_new(series, bench_model_second_json(&x));
    }
    json_object_set_new(run, "per_second", series);
    if (o->stable_stop != BENCH_STABLE_OFF && json_object_set_new(run, "stable", stable_json(d, o)) != 0) {
        json_decref(run);
        return NULL;
    }
    json_object_set_new(run, "histogram", bench_hist_to_json(o->hist));
    int any_by = 0;
    for (unsigned k = 0; k < BENCH_BREAKDOWNS; k++)
        any_by |= w->breakdown[k] && o->by[k];
    if (any_by) {
        json_t *classes = breakdown_json(o, w);
        if (!classes || json_object_set_new(run, "breakdown", classes) != 0) {
            json_decref(run);
            return NULL;
        }
    }
    return run;
}

/* A host fact, when read and text (a firmware string that is not UTF-8 is
 * left out).  0, or -1 out of memory. */
static int host_fact(json_t *host, const char *key, const char *value)
{
    json_t *v = value[0] ? json_string(value) : NULL;
    return v ? json_object_set_new(host, key, v) : 0;
}

json_t *bench_report_host_json(void)
{
    struct utsname u;
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0)
        host[0] = 0;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:I}", "hostname", host, "os", u.sysname, "kernel",
                          u.release, "machine", u.machine, "cpus",
                          (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
    bench_hostinfo hi;
    bench_hostinfo_read(&hi, BENCH_HOST_CPUINFO, BENCH_HOST_PRODUCT);
    if (j && (host_fact(j, "cpu_model", hi.cpu_model) != 0 || host_fact(j, "product", hi.product) != 0)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

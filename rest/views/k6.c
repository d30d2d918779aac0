/* SPDX-License-Identifier: Apache-2.0 */
/* rest/views/k6.c - k6's end-of-test summary metrics for a REST run. */
#include "rest/views/k6.h"

#include <math.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "bench/core/stages.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "rest/transport/codes.h"
#include "rest/transport/phases.h"
#include "rest/transport/side.h"

/* The names of the check kinds, in the summary and in the JSON. */
static const char *const check_names[REST_CHECK_COUNT] = { "status code", "answer" };
static const char *const check_keys[REST_CHECK_COUNT] = { "status", "answer" };

void rest_k6_ctx_of(rest_k6_ctx *c, const bench_load *load)
{
    memset(c, 0, sizeof *c);
    c->threads = load->threads;
    c->slots = bench_async_slots(load);
    c->stages = load->stages && load->mode == BENCH_MODE_BLOCKING;
    c->think_ns = load->think_ns;
    c->planned_ns = load->duration_ns;
    if (!c->planned_ns && load->stages)
        c->planned_ns = bench_stages_total_ns(load->stages);
}

/* k6's vus and vus_max of a run. */
typedef struct rest_k6_vus {
    uint64_t last, min, max;    /* vus */
    uint64_t cap;               /* vus_max */
} rest_k6_vus;

static void vus_of(const bench_outcome *o, const rest_k6_ctx *c, rest_k6_vus *v)
{
    const uint64_t fixed = c->slots ? c->slots : c->threads;
    int any = 0;
    memset(v, 0, sizeof *v);
    v->cap = fixed;
    if (c->slots || c->stages) {
        for (size_t i = 0; i < o->nsamples; i++) {
            const bench_sample *s = &o->samples[i];
            if (s->warmup)
                continue;
            const uint64_t n = c->slots ? s->in_flight
                                        : (uint64_t)(s->target > 0 ? llround(s->target) : 0);
            if (!any || n < v->min)
                v->min = n;
            if (!any || n > v->max)
                v->max = n;
            v->last = n;
            any = 1;
        }
        if (c->stages && o->ramp_max) {
            /* What the ramp reached between the samples, and before the
             * first whole one: a staged run shorter than a second has none. */
            if (!any || o->ramp_min < v->min)
                v->min = o->ramp_min;
            if (!any || o->ramp_max > v->max)
                v->max = o->ramp_max;
            if (!any)
                v->last = o->ramp_min;
            any = 1;
        }
        if (c->stages && any && v->max > v->cap)
            v->cap = v->max;
    }
    if (!any)
        v->last = v->min = v->max = fixed;
}

/* Operations the interrupt cut short in flight (their code INTERRUPTED). */
static uint64_t cut_by_interrupt(const bench_outcome *o)
{
    for (size_t i = 0; i < o->nerrs; i++)
        if (o->errs[i].code == REST_E_INTERRUPTED)
            return o->errs[i].count;
    return 0;
}

static uint64_t checks_of(const bench_side *t, int kind, int failed)
{
    return bench_side_count(t, REST_SC_CHECK + 2u * (unsigned)kind + (unsigned)failed);
}

/* A kind of check counted in k6's `checks`: the status always, the body
 * when the user asked for it (otherwise it is the workload's verification). */
static int check_counted(const rest_k6_ctx *c, int kind)
{
    return kind == REST_CHECK_STATUS || c->answer_checks;
}

static void checks_total(const bench_side *t, const rest_k6_ctx *c, uint64_t *pass, uint64_t *fail)
{
    *pass = *fail = 0;
    for (int k = 0; k < REST_CHECK_COUNT; k++) {
        if (!check_counted(c, k))
            continue;
        *pass += checks_of(t, k, 0);
        *fail += checks_of(t, k, 1);
    }
}

static double per_s(uint64_t n, double s)
{
    return s > 0 ? (double)n / s : 0.0;
}

/* "12.50" -> "12.5", "3.00" -> "3": k6's toFixedNoTrailingZeros. */
static const char *no_trailing_zeros(char *buf)
{
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0')
            *end-- = 0;
        if (end == dot)
            *end = 0;
    }
    return buf;
}

const char *rest_k6_duration(double ns, char *buf, size_t len)
{
    char num[48];
    const char *unit;
    if (ns <= 0) {
        snprintf(buf, len, "0s");
        return buf;
    }
    if (ns < 1e3) {
        snprintf(buf, len, "%.0fns", floor(ns));
        return buf;
    }
    if (ns < 1e6) {
        snprintf(num, sizeof num, "%.2f", ns / 1e3);
        unit = "µs";
    } else if (ns < 1e9) {
        snprintf(num, sizeof num, "%.2f", ns / 1e6);
        unit = "ms";
    } else if (ns < 60e9) {
        snprintf(num, sizeof num, "%.2f", ns / 1e9);
        unit = "s";
    } else {
        const double s = ns / 1e9;
        const unsigned long long m = (unsigned long long)(s / 60);
        snprintf(num, sizeof num, "%.2f", s - 60.0 * (double)m);
        snprintf(buf, len, "%llum%ss", m, no_trailing_zeros(num));
        return buf;
    }
    snprintf(buf, len, "%s%s", no_trailing_zeros(num), unit);
    return buf;
}

const char *rest_k6_bytes(double b, char *buf, size_t len)
{
    static const char *const units[] = { "B", "kB", "MB", "GB", "TB", "PB" };
    if (b < 10) {
        snprintf(buf, len, "%.0f B", b < 0 ? 0 : b);
        return buf;
    }
    int e = (int)floor(log(b) / log(1000.0));
    if (e > 5)
        e = 5;
    const double v = floor(b / pow(1000.0, e) * 10.0 + 0.5) / 10.0;
    snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[e]);
    return buf;
}

/* ---- hsmbench's own summary: the k6 lines it adds ------------------------- */

static void label(FILE *f, const char *name)
{
    fprintf(f, "    %s", name);
    for (int i = (int)strlen(name); i < 26; i++)
        fputc('.', f);
    fputs(": ", f);
}

/* The k6 object's member `name`: a counter's count and rate, a rate's
 * passes and fails, vus' value, min and max. */
static const json_t *metric(const json_t *k6, const char *name)
{
    return json_object_get(k6, name);
}

static unsigned long long whole(const json_t *obj, const char *key)
{
    const long long v = bench_json_int(obj, key, 0);
    return v > 0 ? (unsigned long long)v : 0;
}

void rest_k6_lines(FILE *f, const json_t *k6)
{
    char a[32], b[32];
    const json_t *checks = metric(k6, "checks");
    label(f, "checks");
    fprintf(f, "%.2f%%   ✓ %llu ✗ %llu", 100.0 * bench_json_num(checks, "rate", 0),
            whole(checks, "passes"), whole(checks, "fails"));
    const char *kind;
    const json_t *by;
    json_object_foreach((json_t *)json_object_get(checks, "by_check"), kind, by)
        if (whole(by, "passes") + whole(by, "fails"))
            fprintf(f, "  (%s ✓ %llu ✗ %llu)", kind, whole(by, "passes"), whole(by, "fails"));
    const json_t *ver = json_object_get(checks, "verified");
    if (whole(ver, "passes") + whole(ver, "fails"))
        fprintf(f, "  (answers verified ✓ %llu ✗ %llu)", whole(ver, "passes"), whole(ver, "fails"));
    fputc('\n', f);
    static const char *const wire[] = { "data_received", "data_sent" };
    for (size_t i = 0; i < 2; i++) {
        const json_t *c = metric(k6, wire[i]);
        label(f, wire[i]);
        fprintf(f, "%s %s/s\n", rest_k6_bytes((double)whole(c, "count"), a, sizeof a),
                rest_k6_bytes(bench_json_num(c, "rate", 0), b, sizeof b));
    }
    const json_t *dropped = json_object_get(k6, "dropped_iterations");
    if (dropped) {
        label(f, "dropped_iterations");
        fprintf(f, "%-10llu %.2f/s\n", whole(dropped, "count"), bench_json_num(dropped, "rate", 0));
    }
    rest_trend_line(f, "{ expected_response:true }",
                    metric(k6, "http_req_duration{expected_response:true}"), "no data");
    const json_t *it = metric(k6, "iterations");
    label(f, "iterations");
    fprintf(f, "%-10llu %.2f/s\n", whole(it, "count"), bench_json_num(it, "rate", 0));
    rest_trend_line(f, "iteration_duration", metric(k6, "iteration_duration"),
                    "no successful operation");
    static const char *const vus[] = { "vus", "vus_max" };
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = metric(k6, vus[i]);
        label(f, vus[i]);
        fprintf(f, "%-10llu min=%llu max=%llu\n", whole(v, "value"), whole(v, "min"), whole(v, "max"));
    }
}

/* ---- --summary k6 ---------------------------------------------------------- */

#define K6_WIDTH 31   /* "checks" and its dots, as k6 pads them */

static void k6_label(FILE *f, const char *name, int indent)
{
    fprintf(f, "     %*s%s", indent, "", name);
    for (int i = (int)strlen(name) + indent; i < K6_WIDTH; i++)
        fputc('.', f);
    fputs(": ", f);
}

/* s, padded with spaces to `width` characters (not bytes: "µs"). */
static void k6_cell(FILE *f, const char *key, const char *s, int width)
{
    int n = 0;
    for (const char *p = s; *p; p++)
        n += ((unsigned char)*p & 0xC0) != 0x80;
    fprintf(f, "%s=%s", key, s);
    for (; n < width; n++)
        fputc(' ', f);
}

/* A trend of the k6 object (µs) in k6's layout. */
static void k6_trend(FILE *f, const char *name, int indent, const json_t *trend)
{
    static const char *const keys[] = { "avg", "min", "med", "max", "p(90)", "p(95)" };
    static const char *const members[] = { "mean", "min", "p50", "max", "p90", "p95" };
    const int any = bench_json_int(trend, "count", 0) > 0;
    k6_label(f, name, indent);
    for (int i = 0; i < 6; i++) {
        char b[32];
        const double ns = any ? bench_json_num(trend, members[i], 0) * 1e3 : 0;
        k6_cell(f, keys[i], rest_k6_duration(ns, b, sizeof b), i < 5 ? 9 : 0);
    }
    fputc('\n', f);
}

static void k6_rate(FILE *f, double v)
{
    char num[48];
    snprintf(num, sizeof num, "%.6f", v);
    fprintf(f, "%s/s\n", no_trailing_zeros(num));
}

static void k6_phase(FILE *f, const json_t *k6, int phase)
{
    char name[48];
    snprintf(name, sizeof name, "http_req_%s", rest_phase_name(phase));
    k6_trend(f, name, 0, metric(k6, name));
}

static void k6_counter(FILE *f, const json_t *k6, const char *name)
{
    const json_t *c = metric(k6, name);
    k6_label(f, name, 0);
    fprintf(f, "%llu ", whole(c, "count"));
    k6_rate(f, bench_json_num(c, "rate", 0));
}

const char *rest_k6_fixed_duration(double ms, double max_ms, char *buf, size_t len)
{
    /* k6's GetFixedLengthDuration: tenths of a second, two-digit seconds,
     * then minutes, hours and days as the longest the run could last needs */
    const unsigned long long tenths = ms > 0 ? (unsigned long long)llround(ms / 100.0) : 0;
    const unsigned long long s = tenths / 10, max_s = max_ms > 0 ? (unsigned long long)llround(max_ms / 1e3) : 0;
    char sec[48];
    snprintf(sec, sizeof sec, "%02llu.%llus", s % 60, tenths % 10);
    if (max_s < 60 && s < 60)
        snprintf(buf, len, "%s", sec);
    else if (max_s < 3600 && s < 3600)
        snprintf(buf, len, "%02llum%s", s / 60, sec);
    else if (max_s < 86400 && s < 86400)
        snprintf(buf, len, "%02lluh%02llum%s", s / 3600, s / 60 % 60, sec);
    else
        snprintf(buf, len, "%llud%02lluh%02llum%s", s / 86400, s / 3600 % 24, s / 60 % 60, sec);
    return buf;
}

void rest_k6_print(FILE *f, const json_t *k6)
{
    char a[32], b[32];
    const json_t *checks = metric(k6, "checks");
    const json_t *state = metric(k6, "state");

    /* k6's last progress line, as it stays on the screen above the summary */
    const double elapsed = bench_json_num(state, "test_run_duration_ms", 0);
    const double planned = bench_json_num(state, "planned_duration_ms", 0);
    fprintf(f, "running (%s), 0/%llu VUs, %llu complete and %llu interrupted iterations\n",
            rest_k6_fixed_duration(elapsed, planned > elapsed ? planned : elapsed, a, sizeof a),
            whole(metric(k6, "vus_max"), "value"),
            json_object_get(state, "complete_iterations") ? whole(state, "complete_iterations")
                                                          : whole(metric(k6, "iterations"), "count"),
            whole(state, "interrupted_iterations"));
    fputc('\n', f);
    for (int k = 0; k < REST_CHECK_COUNT; k++) {
        const json_t *by = json_object_get(json_object_get(checks, "by_check"), check_keys[k]);
        const unsigned long long p = whole(by, "passes"), n = whole(by, "fails");
        if (!p && !n)
            continue;
        fprintf(f, "     %s %s\n", n ? "✗" : "✓", check_names[k]);
        if (n)
            fprintf(f, "      ↳  %.0f%% — ✓ %llu / ✗ %llu\n", floor(100.0 * bench_json_num(by, "rate", 0)),
                    p, n);
    }
    fputc('\n', f);
    k6_label(f, "checks", 0);
    fprintf(f, "%.2f%% ✓ %llu ✗ %llu\n", 100.0 * bench_json_num(checks, "rate", 0),
            whole(checks, "passes"), whole(checks, "fails"));
    static const char *const wire[] = { "data_received", "data_sent" };
    for (size_t i = 0; i < 2; i++) {
        const json_t *c = metric(k6, wire[i]);
        k6_label(f, wire[i], 0);
        fprintf(f, "%s %s/s\n", rest_k6_bytes((double)whole(c, "count"), a, sizeof a),
                rest_k6_bytes(bench_json_num(c, "rate", 0), b, sizeof b));
    }
    if (json_object_get(k6, "dropped_iterations"))
        k6_counter(f, k6, "dropped_iterations");
    /* k6's order: alphabetical, { expected_response:true } under duration. */
    k6_phase(f, k6, REST_PH_BLOCKED);
    k6_phase(f, k6, REST_PH_CONNECTING);
    k6_phase(f, k6, REST_PH_DURATION);
    k6_trend(f, "{ expected_response:true }", 2, metric(k6, "http_req_duration{expected_response:true}"));
    const json_t *failed = metric(k6, "http_req_failed");
    k6_label(f, "http_req_failed", 0);
    fprintf(f, "%.2f%% ✓ %llu ✗ %llu\n", 100.0 * bench_json_num(failed, "rate", 0),
            whole(failed, "passes"), whole(failed, "fails"));
    k6_phase(f, k6, REST_PH_RECEIVING);
    k6_phase(f, k6, REST_PH_SENDING);
    k6_phase(f, k6, REST_PH_TLS);
    k6_phase(f, k6, REST_PH_WAITING);
    k6_counter(f, k6, "http_reqs");
    k6_trend(f, "iteration_duration", 0, metric(k6, "iteration_duration"));
    k6_counter(f, k6, "iterations");
    static const char *const vus[] = { "vus", "vus_max" };
    for (size_t i = 0; i < 2; i++) {
        const json_t *v = metric(k6, vus[i]);
        k6_label(f, vus[i], 0);
        fprintf(f, "%llu min=%llu max=%llu\n", whole(v, "value"), whole(v, "min"), whole(v, "max"));
    }
    bench_flush(f);
}

int rest_k6_summary(const json_t *k6)
{
    rest_k6_print(stdout, k6);
    return bench_stdout_check("--summary k6") != 0 ? -1 : 0;
}

/* ---- the results file ------------------------------------------------------ */

static json_t *counter(uint64_t n, double s)
{
    return json_pack("{s:I,s:f}", "count", (json_int_t)n, "rate", per_s(n, s));
}

static json_t *rate(uint64_t yes, uint64_t no)
{
    return json_pack("{s:f,s:I,s:I}", "rate", (yes + no) ? (double)yes / (double)(yes + no) : 0.0,
                     "passes", (json_int_t)yes, "fails", (json_int_t)no);
}

json_t *rest_k6_json(const bench_outcome *o, const rest_k6_ctx *c)
{
    const bench_side *t = &o->side;
    uint64_t pass, fail;
    rest_k6_vus v;
    json_t *k = json_object();
    if (!k)
        return NULL;
    checks_total(t, c, &pass, &fail);
    json_t *checks = rate(pass, fail);
    json_t *by = json_object();
    for (int i = 0; by && i < REST_CHECK_COUNT; i++)
        if (check_counted(c, i))
            json_object_set_new(by, check_keys[i], rate(checks_of(t, i, 0), checks_of(t, i, 1)));
    json_object_set_new(checks, "by_check", by);
    if (!check_counted(c, REST_CHECK_BODY))
        json_object_set_new(checks, "verified",
                            rate(checks_of(t, REST_CHECK_BODY, 0), checks_of(t, REST_CHECK_BODY, 1)));
    json_object_set_new(k, "checks", checks);
    json_object_set_new(k, "data_received",
                        counter(bench_side_count(t, REST_SC_BYTES_IN), o->duration_s));
    json_object_set_new(k, "data_sent", counter(bench_side_count(t, REST_SC_BYTES_OUT), o->duration_s));
    /* k6's arrival-rate executors count the iterations the schedule could not start */
    if (o->has_schedule && o->dropped)
        json_object_set_new(k, "dropped_iterations", counter(o->dropped, o->duration_s));
    for (int i = 0; i < REST_PH_COUNT; i++) {
        char name[48];
        snprintf(name, sizeof name, "http_req_%s", rest_phase_name(i));
        json_object_set_new(k, name, rest_trend_json(bench_side_hist(t, REST_SH_PHASE + (unsigned)i), 0));
    }
    json_object_set_new(k, "http_req_duration{expected_response:true}",
                        rest_trend_json(bench_side_hist(t, REST_SH_DURATION_OK), 0));
    /* not in k6's text summary, but a tag its thresholds take */
    json_object_set_new(k, "http_req_duration{expected_response:false}",
                        rest_trend_json(bench_side_hist(t, REST_SH_DURATION_FAILED), 0));
    const uint64_t requests = bench_side_count(t, REST_SC_REQUESTS),
                   failed = bench_side_count(t, REST_SC_FAILED);
    json_object_set_new(k, "http_req_failed", rate(failed, requests - failed));
    json_object_set_new(k, "http_reqs", counter(requests, o->duration_s));
    json_object_set_new(k, "iteration_duration", rest_trend_json(o->hist, c->think_ns));
    json_object_set_new(k, "iterations", counter(o->ops, o->duration_s));
    vus_of(o, c, &v);
    json_object_set_new(k, "vus", json_pack("{s:I,s:I,s:I}", "value", (json_int_t)v.last, "min",
                                            (json_int_t)v.min, "max", (json_int_t)v.max));
    json_object_set_new(k, "vus_max", json_pack("{s:I,s:I,s:I}", "value", (json_int_t)v.cap, "min",
                                                (json_int_t)v.cap, "max", (json_int_t)v.cap));
    /* k6's interrupted iterations: those in flight when the run was
     * stopped, whether their call was abandoned (stuck) or cut short. */
    const uint64_t cut = cut_by_interrupt(o);
    json_object_set_new(k, "state", json_pack("{s:f,s:f,s:I,s:I}", "test_run_duration_ms",
                                              o->duration_s * 1e3, "planned_duration_ms",
                                              (double)c->planned_ns / 1e6, "interrupted_iterations",
                                              (json_int_t)(o->stuck + cut), "complete_iterations",
                                              (json_int_t)(o->ops - cut)));
    return k;
}

json_t *rest_trend_json(const bench_hist *h, uint64_t plus_ns)
{
    bench_hist *empty = h ? NULL : bench_hist_new();
    if (!h && !empty)
        return NULL;
    json_t *j = bench_report_latency_json(h ? h : empty);
    bench_hist_free(empty);
    /* A constant added to every value moves all but the spread; an empty
     * distribution stays all zeros. */
    static const char *const moved[] = { "min", "mean", "p50", "p90", "p95", "p99", "p999", "max" };
    for (size_t i = 0; j && plus_ns && bench_json_int(j, "count", 0) && i < sizeof moved / sizeof *moved; i++) {
        const double v = bench_json_num(j, moved[i], 0) * 1e3 + (double)plus_ns;
        if (json_object_set_new(j, moved[i], json_real(round(v / 10.0) / 100.0)) != 0) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

void rest_trend_line(FILE *f, const char *name, const json_t *trend, const char *empty)
{
    bench_model_latency l;
    bench_model_latency_of(trend, &l);
    bench_report_latency_line(f, 26, name, &l, empty);
}

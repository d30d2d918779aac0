/* rest/transport/k6.c - k6's end-of-test summary metrics for a REST run. */
#include "rest/transport/k6.h"

#include <math.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "bench/results/report.h"
#include "rest/transport/phases.h"
#include "rest/transport/stats.h"

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
        if (c->stages && any && v->max > v->cap)
            v->cap = v->max;
    }
    if (!any)
        v->last = v->min = v->max = fixed;
}

static uint64_t checks_of(const bench_side *t, int kind, int failed)
{
    return bench_side_count(t, REST_SC_CHECK + 2u * (unsigned)kind + (unsigned)failed);
}

static void checks_total(const bench_side *t, uint64_t *pass, uint64_t *fail)
{
    *pass = *fail = 0;
    for (int k = 0; k < REST_CHECK_COUNT; k++) {
        *pass += checks_of(t, k, 0);
        *fail += checks_of(t, k, 1);
    }
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
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

void rest_k6_lines(FILE *f, const bench_outcome *o, const rest_k6_ctx *c)
{
    const bench_side *t = &o->side;
    uint64_t pass, fail;
    char a[32], b[32];
    rest_k6_vus v;
    checks_total(t, &pass, &fail);
    label(f, "checks");
    fprintf(f, "%.2f%%   ✓ %llu ✗ %llu", pct(pass, pass + fail), (unsigned long long)pass,
            (unsigned long long)fail);
    for (int k = 0; k < REST_CHECK_COUNT; k++)
        if (checks_of(t, k, 0) + checks_of(t, k, 1))
            fprintf(f, "  (%s ✓ %llu ✗ %llu)", check_keys[k],
                    (unsigned long long)checks_of(t, k, 0), (unsigned long long)checks_of(t, k, 1));
    fputc('\n', f);
    const uint64_t in = bench_side_count(t, REST_SC_BYTES_IN), out = bench_side_count(t, REST_SC_BYTES_OUT);
    label(f, "data_received");
    fprintf(f, "%s %s/s\n", rest_k6_bytes((double)in, a, sizeof a),
            rest_k6_bytes(per_s(in, o->duration_s), b, sizeof b));
    label(f, "data_sent");
    fprintf(f, "%s %s/s\n", rest_k6_bytes((double)out, a, sizeof a),
            rest_k6_bytes(per_s(out, o->duration_s), b, sizeof b));
    const bench_hist *ok = bench_side_hist(t, REST_SH_DURATION_OK);
    if (ok) {
        bench_report_trend(f, 26, "{ expected_response:true }", ok, "no data");
    } else {
        label(f, "{ expected_response:true }");
        fputs("no data\n", f);
    }
    label(f, "iterations");
    fprintf(f, "%-10llu %.2f/s\n", (unsigned long long)o->ops, per_s(o->ops, o->duration_s));
    bench_report_trend_plus(f, 26, "iteration_duration", o->hist, "no successful operation",
                            c->think_ns);
    vus_of(o, c, &v);
    label(f, "vus");
    fprintf(f, "%-10llu min=%llu max=%llu\n", (unsigned long long)v.last, (unsigned long long)v.min,
            (unsigned long long)v.max);
    label(f, "vus_max");
    fprintf(f, "%-10llu min=%llu max=%llu\n", (unsigned long long)v.cap, (unsigned long long)v.cap,
            (unsigned long long)v.cap);
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

static void k6_trend(FILE *f, const char *name, int indent, const bench_hist *h, uint64_t plus)
{
    static const char *const keys[] = { "avg", "min", "med", "max", "p(90)", "p(95)" };
    const double p = (double)plus;
    const int any = h && bench_hist_count(h);
    const double v[6] = {
        any ? bench_hist_mean(h) + p : 0,
        any ? (double)bench_hist_min(h) + p : 0,
        any ? (double)bench_hist_percentile(h, 50) + p : 0,
        any ? (double)bench_hist_max(h) + p : 0,
        any ? (double)bench_hist_percentile(h, 90) + p : 0,
        any ? (double)bench_hist_percentile(h, 95) + p : 0,
    };
    k6_label(f, name, indent);
    for (int i = 0; i < 6; i++) {
        char b[32];
        k6_cell(f, keys[i], rest_k6_duration(v[i], b, sizeof b), i < 5 ? 9 : 0);
    }
    fputc('\n', f);
}

static void k6_rate(FILE *f, double v)
{
    char num[48];
    snprintf(num, sizeof num, "%.6f", v);
    fprintf(f, "%s/s\n", no_trailing_zeros(num));
}

static void k6_phase(FILE *f, const bench_side *t, int phase)
{
    char name[48];
    snprintf(name, sizeof name, "http_req_%s", rest_phase_name(phase));
    k6_trend(f, name, 0, bench_side_hist(t, REST_SH_PHASE + (unsigned)phase), 0);
}

void rest_k6_print(FILE *f, const bench_outcome *o, const rest_k6_ctx *c)
{
    const bench_side *t = &o->side;
    uint64_t pass, fail;
    char a[32], b[32];
    rest_k6_vus v;

    fputc('\n', f);
    for (int k = 0; k < REST_CHECK_COUNT; k++) {
        const uint64_t p = checks_of(t, k, 0), n = checks_of(t, k, 1);
        if (!p && !n)
            continue;
        fprintf(f, "     %s %s\n", n ? "✗" : "✓", check_names[k]);
        if (n)
            fprintf(f, "      ↳  %.0f%% — ✓ %llu / ✗ %llu\n", floor(pct(p, p + n)),
                    (unsigned long long)p, (unsigned long long)n);
    }
    fputc('\n', f);
    checks_total(t, &pass, &fail);
    k6_label(f, "checks", 0);
    fprintf(f, "%.2f%% ✓ %llu ✗ %llu\n", pct(pass, pass + fail), (unsigned long long)pass,
            (unsigned long long)fail);
    const uint64_t in = bench_side_count(t, REST_SC_BYTES_IN), out = bench_side_count(t, REST_SC_BYTES_OUT);
    k6_label(f, "data_received", 0);
    fprintf(f, "%s %s/s\n", rest_k6_bytes((double)in, a, sizeof a),
            rest_k6_bytes(per_s(in, o->duration_s), b, sizeof b));
    k6_label(f, "data_sent", 0);
    fprintf(f, "%s %s/s\n", rest_k6_bytes((double)out, a, sizeof a),
            rest_k6_bytes(per_s(out, o->duration_s), b, sizeof b));
    /* k6's order: alphabetical, { expected_response:true } under duration. */
    k6_phase(f, t, REST_PH_BLOCKED);
    k6_phase(f, t, REST_PH_CONNECTING);
    k6_phase(f, t, REST_PH_DURATION);
    k6_trend(f, "{ expected_response:true }", 2, bench_side_hist(t, REST_SH_DURATION_OK), 0);
    const uint64_t requests = bench_side_count(t, REST_SC_REQUESTS),
                   failed = bench_side_count(t, REST_SC_FAILED);
    k6_label(f, "http_req_failed", 0);
    fprintf(f, "%.2f%% ✓ %llu ✗ %llu\n", pct(failed, requests), (unsigned long long)failed,
            (unsigned long long)(requests - failed));
    k6_phase(f, t, REST_PH_RECEIVING);
    k6_phase(f, t, REST_PH_SENDING);
    k6_phase(f, t, REST_PH_TLS);
    k6_phase(f, t, REST_PH_WAITING);
    k6_label(f, "http_reqs", 0);
    fprintf(f, "%llu ", (unsigned long long)requests);
    k6_rate(f, per_s(requests, o->duration_s));
    k6_trend(f, "iteration_duration", 0, o->hist, c->think_ns);
    k6_label(f, "iterations", 0);
    fprintf(f, "%llu ", (unsigned long long)o->ops);
    k6_rate(f, per_s(o->ops, o->duration_s));
    vus_of(o, c, &v);
    k6_label(f, "vus", 0);
    fprintf(f, "%llu min=%llu max=%llu\n", (unsigned long long)v.last, (unsigned long long)v.min,
            (unsigned long long)v.max);
    k6_label(f, "vus_max", 0);
    fprintf(f, "%llu min=%llu max=%llu\n", (unsigned long long)v.cap, (unsigned long long)v.cap,
            (unsigned long long)v.cap);
    fflush(f);
}

int rest_k6_summary(const bench_outcome *o, const rest_k6_ctx *c)
{
    rest_k6_print(stdout, o, c);
    if (ferror(stdout) || fflush(stdout) != 0) {
        bench_error("--summary k6: cannot write to standard output");
        return -1;
    }
    return 0;
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
    checks_total(t, &pass, &fail);
    json_t *checks = rate(pass, fail);
    json_t *by = json_object();
    for (int i = 0; by && i < REST_CHECK_COUNT; i++)
        json_object_set_new(by, check_keys[i], rate(checks_of(t, i, 0), checks_of(t, i, 1)));
    json_object_set_new(checks, "by_check", by);
    json_object_set_new(k, "checks", checks);
    json_object_set_new(k, "data_received",
                        counter(bench_side_count(t, REST_SC_BYTES_IN), o->duration_s));
    json_object_set_new(k, "data_sent", counter(bench_side_count(t, REST_SC_BYTES_OUT), o->duration_s));
    for (int i = 0; i < REST_PH_COUNT; i++) {
        char name[48];
        snprintf(name, sizeof name, "http_req_%s", rest_phase_name(i));
        json_object_set_new(k, name, rest_trend_json(bench_side_hist(t, REST_SH_PHASE + (unsigned)i), 0));
    }
    json_object_set_new(k, "http_req_duration{expected_response:true}",
                        rest_trend_json(bench_side_hist(t, REST_SH_DURATION_OK), 0));
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
    return k;
}

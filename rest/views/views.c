/* SPDX-License-Identifier: Apache-2.0 */
/* rest/views/views.c - the "http" section of REST results: thresholds, merge, HTML (see views.h). */
#include "rest/views/views.h"

#include <stdio.h>
#include <string.h>

#include "bench/results/html.h"
#include "bench/results/results.h"
#include "bench/util/cli.h"
#include "rest/transport/phases.h"

/* ---- merge ----------------------------------------------------------------- */

/*
 * The HTTP counts of merged REST runs: requests, status_counts, failed,
 * retried and reauth added, failed_pct recomputed.  phases_us and
 * server_profile_us are left out: the files keep no phase histograms, and
 * no exact percentile can be made of percentiles.
 */
static int http_merge(const bench_merge_in *in, size_t n, json_t **out, char *err, size_t len)
{
    long long requests = 0, failed = 0, reauth = 0, retried = 0;
    int any_reauth = 0;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *http = in[i].obj;
        if (bench_merge_add(&requests, bench_json_int(http, "requests", 0), in[i].name, in[i].field, err, len) ||
            bench_merge_add(&failed, bench_json_int(http, "failed", 0), in[i].name, in[i].field, err, len) ||
            bench_merge_add(&retried, bench_json_int(http, "retried", 0), in[i].name, in[i].field, err, len) ||
            bench_merge_add(&reauth, bench_json_int(http, "reauth", 0), in[i].name, in[i].field, err, len))
            return -1;
        any_reauth |= json_is_integer(json_object_get(http, "reauth"));
    }
    /* by status, in increasing order: "200" < "503" < "other", as the writers order them */
    json_t *codes = bench_merge_counts(in, n, "status_counts", 0, err, len);
    json_t *http = codes ? json_pack("{s:I,s:o,s:I,s:f,s:I}", "requests", (json_int_t)requests,
                                     "status_counts", codes, "failed", (json_int_t)failed,
                                     "failed_pct",
                                     requests ? 100.0 * (double)failed / (double)requests : 0.0,
                                     "retried", (json_int_t)retried) : NULL;
    if (!http || (any_reauth && json_object_set_new(http, "reauth", json_integer(reauth)) != 0)) {
        json_decref(http);
        if (err && len && !*err)
            snprintf(err, len, "out of memory");
        return -1;
    }
    *out = http;
    return 0;
}

/* ---- HTML ---------------------------------------------------------------------- */

static const char *fmt_us(double us, char *buf, size_t len)
{
    return bench_fmt_ns(us * 1000.0, buf, (unsigned)len);
}

/* An HTTP status that is not a failure by itself: 1xx to 3xx. */
static int status_ok(const char *name)
{
    return name[0] >= '1' && name[0] <= '3' && strlen(name) == 3;
}

/* Requests, failures and the phases' table: one row a phase, k6's names. */
static void http_table(FILE *f, const json_t *http)
{
    static const char *const cols[][2] = {
        { "avg", "mean" }, { "min", "min" }, { "p50", "p50" }, { "p90", "p90" }, { "p95", "p95" },
        { "p99", "p99" }, { "p99.9", "p999" }, { "max", "max" },
    };
    const json_t *phases = json_object_get(http, "phases_us");
    const json_t *sc = json_object_get(http, "status_counts");
    char b[48];
    fprintf(f, "<table class=\"kv\"><tr><th>requests</th><td class=\"n\">%lld</td><th>failed</th>"
            "<td class=\"n\">%lld (%.2f%%)</td>", bench_json_int(http, "requests", 0),
            bench_json_int(http, "failed", 0), bench_json_num(http, "failed_pct", 0));
    if (json_is_integer(json_object_get(http, "reauth")))
        fprintf(f, "<th>re-authentications</th><td class=\"n\">%lld</td>", bench_json_int(http, "reauth", 0));
    fputs("<th>statuses</th><td>", f);
    const char *code;
    json_t *v;
    size_t k = 0;
    json_object_foreach((json_t *)sc, code, v) {
        fputs(k++ ? ", " : "", f);
        bench_html_esc(f, code);
        fprintf(f, ": %lld", json_is_integer(v) ? (long long)json_integer_value(v) : 0);
    }
    fputs(k ? "</td></tr></table>\n" : "none</td></tr></table>\n", f);
    if (!json_is_object(phases))
        return;

    fputs("<table class=\"phases\"><tr><th>phase</th>", f);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        fprintf(f, "<th class=\"n\">%s</th>", cols[c][0]);
    fputs("</tr>\n", f);
    for (int i = 0; i < REST_PH_COUNT; i++) {
        const json_t *ph = json_object_get(phases, rest_phase_name(i));
        if (!json_is_object(ph))
            continue;
        fprintf(f, "<tr><td><code>http_req_%s</code></td>", rest_phase_name(i));
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            fputs("<td class=\"n\">", f);
            bench_html_esc(f, fmt_us(bench_json_num(ph, cols[c][1], 0), b, sizeof b));
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/*
 * The request's phases, stacked, one bar per statistic: blocked (connection
 * set-up: connect and TLS on a new connection), sending, waiting, receiving.
 * A tick marks http_req_duration's own figure: the phases' percentiles are
 * each their own, so only the mean adds up exactly (duration = sending +
 * waiting + receiving).
 */
static void phases_chart(FILE *f, const json_t *http)
{
    enum { NSEG = 4, NROW = 6 };
    static const char *const seg_name[NSEG] = { "blocked", "sending", "waiting", "receiving" };
    static const char *const seg_color[NSEG] = { "#9aa4b1", "#e8730c", "#1f6fb4", "#2a9d3a" };
    static const char *const row_key[NROW] = { "mean", "p50", "p90", "p95", "p99", "p999" };
    static const char *const row_name[NROW] = { "avg", "p50", "p90", "p95", "p99", "p99.9" };
    const char *title = "HTTP phases by statistic";
    const json_t *phases = json_object_get(http, "phases_us");
    const json_t *dur = json_object_get(phases, "duration");
    if (bench_json_int(dur, "count", 0) <= 0) {
        bench_html_chart_empty(f, title, "no completed request");
        return;
    }
    double value[NROW * NSEG], mark[NROW];
    for (size_t r = 0; r < NROW; r++) {
        for (size_t k = 0; k < NSEG; k++)
            value[r * NSEG + k] = bench_json_num(json_object_get(phases, seg_name[k]), row_key[r], 0);
        mark[r] = bench_json_num(dur, row_key[r], 0);
    }
    const bench_html_stack c = {
        title, "time (stacked: each phase's own statistic)", seg_name, seg_color, NSEG, row_name, NROW,
        value, "http_req_duration", mark,
    };
    bench_html_stacked_bars(f, &c);
}

/* A REST run's HTTP figures (run.http): the table, the phases, the statuses. */
static void http_html(FILE *f, const json_t *http)
{
    int phases = json_is_object(json_object_get(http, "phases_us"));
    fputs("<h3>HTTP requests</h3>\n", f);
    http_table(f, http);
    if (!phases)
        fputs("<p class=\"sub\">No phase figures: a merged file keeps none (the results files hold no "
              "histograms of the phases to merge exactly).</p>\n", f);
    fputs("<div class=\"charts\">\n", f);
    if (phases)
        phases_chart(f, http);
    bench_html_count_bars(f, "Requests by HTTP status", json_object_get(http, "status_counts"),
                          bench_json_int(http, "requests", 0), "no answer", "statuses", status_ok);
    fputs("</div>\n", f);
    if (!phases)
        return;
    fputs("<p class=\"sub\">Phases as k6 names them, from libcurl's timestamps of each request: "
          "<code>http_req_blocked</code> until the connection was ready (connect and TLS handshake on a new "
          "connection), <code>http_req_duration</code> = sending + waiting + receiving. Each bar stacks the "
          "phases' own statistic, so only the averages of sending, waiting and receiving add up to the "
          "duration's exactly.</p>\n", f);
}

/* ---- the section ------------------------------------------------------------ */

/* k6's metrics, every one of its summary, in the order an unknown name's
 * message lists them: the HTTP ones from the http object's own figures
 * (merged files keep the counts), the others from its k6 object. */
static const bench_section_metric http_metrics[] = {
    { "http_req_duration", BENCH_SM_DIST, "duration", NULL, NULL },
    { "http_req_waiting", BENCH_SM_DIST, "waiting", NULL, NULL },
    { "http_req_blocked", BENCH_SM_DIST, "blocked", NULL, NULL },
    { "http_req_connecting", BENCH_SM_DIST, "connecting", NULL, NULL },
    { "http_req_tls_handshaking", BENCH_SM_DIST, "tls_handshaking", NULL, NULL },
    { "http_req_sending", BENCH_SM_DIST, "sending", NULL, NULL },
    { "http_req_receiving", BENCH_SM_DIST, "receiving", NULL, NULL },
    { "http_req_failed", BENCH_SM_PCT, "failed_pct", NULL, NULL },
    { "http_reqs", BENCH_SM_COUNT, "requests", NULL, NULL },
    { "checks", BENCH_SM_RATE, "k6/checks", "checks", NULL },
    { "iteration_duration", BENCH_SM_TREND, "k6/iteration_duration", NULL, NULL },
    { "iterations", BENCH_SM_COUNTER, "k6/iterations", "iterations", "iterations/s" },
    { "dropped_iterations", BENCH_SM_COUNTER, "k6/dropped_iterations", "iterations", "iterations/s" },
    { "data_received", BENCH_SM_COUNTER, "k6/data_received", "bytes", "B/s" },
    { "data_sent", BENCH_SM_COUNTER, "k6/data_sent", "bytes", "B/s" },
    { "vus", BENCH_SM_GAUGE, "k6/vus", "VUs", NULL },
    { "vus_max", BENCH_SM_GAUGE, "k6/vus_max", "VUs", NULL },
};

/* The tags k6's summary splits a metric by, as hsmbench keeps them:
 * http_req_duration and http_reqs by expected_response, http_reqs by
 * status (status_counts), checks by check (by_check). */
static int http_tagged(const bench_section_metric *m, const char *tag, const char *value,
                       bench_section_tagged *out, char *err, size_t len)
{
    const int er = strcmp(tag, "expected_response") == 0;
    const int is_true = strcmp(value, "true") == 0;
    if (er && !is_true && strcmp(value, "false") != 0) {
        bench_seterr(err, len, "expected_response is true or false, not '%s'", value);
        return -1;
    }
    if (er && strcmp(m->name, "http_req_duration") == 0) {
        snprintf(out->path, sizeof out->path, "k6/http_req_duration{expected_response:%s}", value);
        out->kind = BENCH_SM_TREND;
        return 0;
    }
    if (er && strcmp(m->name, "http_reqs") == 0) {
        /* k6's http_req_failed counts the failed as its passes */
        snprintf(out->path, sizeof out->path, "k6/http_req_failed/%s", is_true ? "fails" : "passes");
        out->kind = BENCH_SM_COUNTER;
        return 0;
    }
    if (strcmp(tag, "status") == 0 && strcmp(m->name, "http_reqs") == 0) {
        const size_t n = strspn(value, "0123456789");
        if (n != 3 || value[n] || value[0] < '1' || value[0] > '5') {
            bench_seterr(err, len, "status is an HTTP status, 100 to 599, not '%s'", value);
            return -1;
        }
        snprintf(out->path, sizeof out->path, "status_counts/%s", value);
        out->kind = BENCH_SM_COUNTER;
        return 0;
    }
    if (strcmp(tag, "check") == 0 && strcmp(m->name, "checks") == 0) {
        static const struct { const char *name, *key; } checks[] = {
            { "status code", "status" }, { "status", "status" }, { "answer", "answer" },
        };
        for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
            if (strcmp(value, checks[i].name) == 0) {
                snprintf(out->path, sizeof out->path, "k6/checks/by_check/%s", checks[i].key);
                out->kind = BENCH_SM_RATE;
                return 0;
            }
        }
        bench_seterr(err, len, "check '%s' is not one hsmbench makes (status code, or answer: rest http's "
                     "--expect-body and --expect-json)", value);
        return -1;
    }
    const char *takes = strcmp(m->name, "http_req_duration") == 0 ? "expected_response"
                      : strcmp(m->name, "http_reqs") == 0         ? "expected_response or status"
                      : strcmp(m->name, "checks") == 0            ? "check"
                                                                  : NULL;
    if (takes)
        bench_seterr(err, len, "%s is not split by tag '%s' (its tags: %s)", m->name, tag, takes);
    else
        bench_seterr(err, len, "%s is not split by tag '%s' (it takes no tag; tags: "
                     "http_req_duration{expected_response:true|false}, http_reqs{status:200}, "
                     "checks{check:status code})", m->name, tag);
    return -1;
}

const bench_section rest_http_section = {
    .key = "http",
    .title = "HTTP",
    .prefix = "http_req",
    .metrics = http_metrics,
    .nmetrics = sizeof http_metrics / sizeof http_metrics[0],
    .count_key = "requests",
    .count_noun = "requests",
    .rate_unit = "req/s",
    .dists = "phases_us",
    .dist_noun = "HTTP phase",
    .absent = "no HTTP requests (not a REST run)",
    .empty = "no HTTP requests measured",
    .no_dists = "no phase figures (a merged file keeps none)",
    .no_k6 = "no k6 summary figures (a merged file keeps none)",
    .peer_latency = "duration",
    .peer_latency_name = "k6 http_req_duration (no connect, no TLS handshake)",
    .tagged = http_tagged,
    .threshold_help =
        "                       on REST runs k6's metrics: http_req_duration:p95<200ms,\n"
        "                       http_req_waiting:p99<50ms, http_req_failed<1%, http_reqs>1000,\n"
        "                       checks:rate>0.99, iteration_duration:p(95)<600,\n"
        "                       iterations:count>100, vus_max:value<=70, and tags:\n"
        "                       http_req_duration{expected_response:true}:p(95)<200,\n"
        "                       http_reqs{status:200}:count>0, checks{check:status code}:rate>0.99\n",
    .merge = http_merge,
    .html = http_html,
};

const bench_section *const *rest_sections(void)
{
    static const bench_section *const list[] = { &rest_http_section, NULL };
    return list;
}

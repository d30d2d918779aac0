/* SPDX-License-Identifier: Apache-2.0 */
/* rest/views/stats.c - the "http" object of a REST run and its summary block (see stats.h). */
#include "rest/views/stats.h"

#include "bench/results/report.h"
#include "bench/results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/core/hist.h"
#include "rest/views/k6.h"

/* k6 pads names with dots; the HTTP names are longer than the core's. */
static void label(FILE *f, const char *name)
{
    int n = (int)strlen(name);
    fprintf(f, "    %s", name);
    for (int i = n; i < 26; i++)
        fputc('.', f);
    fputs(": ", f);
}

void rest_stats_print(FILE *f, const json_t *http, const bench_run_model *m)
{
    const long long requests = bench_json_int(http, "requests", 0);
    const json_t *phases = json_object_get(http, "phases_us");
    fputc('\n', f);
    label(f, "http_reqs");
    fprintf(f, "%-10lld %.2f/s\n", requests,
            bench_json_num(json_object_get(json_object_get(http, "k6"), "http_reqs"), "rate", 0));
    label(f, "http_req_failed");
    fprintf(f, "%.2f%%     %lld of %lld\n", bench_json_num(http, "failed_pct", 0),
            bench_json_int(http, "failed", 0), requests);
    for (int i = 0; i < REST_PH_COUNT; i++) {
        char name[48];
        snprintf(name, sizeof name, "http_req_%s", rest_phase_name(i));
        rest_trend_line(f, name, json_object_get(phases, rest_phase_name(i)), "no data");
    }
    rest_k6_lines(f, json_object_get(http, "k6"));
    label(f, "http_status");
    const char *code;
    const json_t *n;
    int any = 0;
    json_object_foreach((json_t *)json_object_get(http, "status_counts"), code, n) {
        fprintf(f, "%s%s=%lld", any ? " " : "", code, (long long)json_integer_value(n));
        any = 1;
    }
    fprintf(f, "%s\n", any ? "" : "none");
    if (bench_json_int(http, "retried", 0)) {
        /* libcurl's silent retries: the server saw these requests twice. */
        label(f, "http_req_retried");
        fprintf(f, "%lld       sent again on a new connection after the kept one died\n",
                bench_json_int(http, "retried", 0));
    }
    if (bench_json_int(http, "reconnected", 0)) {
        /* The lean engine's: a kept connection the server had closed while
         * it was idle, replaced before the request went out (sent once). */
        label(f, "http_req_reconnected");
        fprintf(f, "%lld       a kept connection found closed, a new one made before sending\n",
                bench_json_int(http, "reconnected", 0));
    }
    if (bench_json_int(http, "unsolicited", 0)) {
        /* An answer on a kept connection before its request went out: that
         * connection closed, the request sent on a new one. */
        label(f, "http_req_unsolicited");
        fprintf(f, "%lld       an answer before its request was sent: its connection closed\n",
                bench_json_int(http, "unsolicited", 0));
    }
    if (json_is_integer(json_object_get(http, "reauth"))) {
        label(f, "sdkms_reauth");
        fprintf(f, "%lld\n", bench_json_int(http, "reauth", 0));
    }
    const char *prof;
    const json_t *t;
    json_object_foreach((json_t *)json_object_get(http, "server_profile_us"), prof, t) {
        char name[48];
        snprintf(name, sizeof name, "server_%s", prof);
        rest_trend_line(f, name, t, "no data");
    }
    if (m->client_cpu >= 0) {
        /* The client's own CPUs: when it kept nearly all of them busy, its
         * figures are this machine's limit, not the service's. */
        const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        label(f, "client_cpu");
        fprintf(f, "%.2f of %ld CPUs%s\n", m->client_cpu, ncpu,
                bench_client_cpu_bound(m->client_cpu, (double)ncpu)
                    ? "  (the client kept this machine busy: it may be the limit, not the service)"
                    : "");
    }
    bench_flush(f);
}

json_t *rest_stats_json(const bench_outcome *o, const rest_k6_ctx *k6, int track_reauth)
{
    const bench_side *t = &o->side;
    const uint64_t requests = bench_side_count(t, REST_SC_REQUESTS),
                   failed = bench_side_count(t, REST_SC_FAILED);
    json_t *codes = json_object(), *phases = json_object();
    for (unsigned i = 0; codes && i < REST_MAX_STATUS; i++) {
        const uint64_t n = bench_side_count(t, REST_SC_STATUS + i);
        if (n) {
            char k[16];
            snprintf(k, sizeof k, "%u", i);
            json_object_set_new(codes, k, json_integer((json_int_t)n));
        }
    }
    if (codes && bench_side_count(t, REST_SC_OTHER_STATUS))
        json_object_set_new(codes, "other",
                            json_integer((json_int_t)bench_side_count(t, REST_SC_OTHER_STATUS)));
    for (int i = 0; phases && i < REST_PH_COUNT; i++)
        json_object_set_new(phases, rest_phase_name(i),
                            rest_trend_json(bench_side_hist(t, REST_SH_PHASE + (unsigned)i), 0));
    json_t *http = json_pack("{s:I,s:o,s:I,s:f,s:o}", "requests", (json_int_t)requests,
                             "status_counts", codes, "failed", (json_int_t)failed, "failed_pct",
                             requests ? 100.0 * (double)failed / (double)requests : 0.0,
                             "phases_us", phases);
    if (!http)
        return NULL;
    json_object_set_new(http, "retried",
                        json_integer((json_int_t)bench_side_count(t, REST_SC_RETRIED)));
    json_object_set_new(http, "reconnected",
                        json_integer((json_int_t)bench_side_count(t, REST_SC_RECONNECTED)));
    json_object_set_new(http, "unsolicited",
                        json_integer((json_int_t)bench_side_count(t, REST_SC_UNSOLICITED)));
    if (track_reauth)
        json_object_set_new(http, "reauth",
                            json_integer((json_int_t)bench_side_count(t, REST_SC_REAUTH)));
    json_t *prof = NULL;
    for (int i = 0; i < REST_PROF_COUNT; i++) {
        const bench_hist *h = bench_side_hist(t, REST_SH_PROF + (unsigned)i);
        if (h && bench_hist_count(h)) {
            if (!prof)
                prof = json_object();
            json_object_set_new(prof, rest_prof_names[i], rest_trend_json(h, 0));
        }
    }
    if (prof)
        json_object_set_new(http, "server_profile_us", prof);
    if (json_object_set_new(http, "k6", rest_k6_json(o, k6)) != 0) {
        json_decref(http);
        return NULL;
    }
    return http;
}

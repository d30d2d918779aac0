/* rest/stats.c - request phases, statuses and server timings for a run. */
#include "rest/stats.h"

#include "bench/report.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "bench/hist.h"

#define MAX_STATUS 600

static const char *const prof_names[REST_PROF_COUNT] = {
    "in_queue", "parse_request", "session_lookup", "validate_input",
    "check_access", "operate", "db_flush", "total",
};

struct rest_stats_shard {
    pthread_mutex_t mu;
    bench_hist *phase[REST_PH_COUNT];
    bench_hist *prof[REST_PROF_COUNT];    /* allocated when the header first appears */
    uint64_t    status[MAX_STATUS];
    uint64_t    other_status;             /* outside 100..599 */
    uint64_t    requests, failed, reauth;
    rest_status_ok_fn expected;           /* NULL: 200..399 */
    const void       *expected_arg;
} __attribute__((aligned(64)));

struct rest_stats {
    unsigned          nshards;
    int               track_reauth;
    rest_stats_shard *shards;
    rest_stats_shard *total;              /* merged on first use after the run */
};

void rest_stats_expect(rest_stats *s, rest_status_ok_fn ok, const void *arg)
{
    for (unsigned i = 0; i < s->nshards; i++) {
        s->shards[i].expected = ok;
        s->shards[i].expected_arg = arg;
    }
}

const char *rest_profiling_field(int i)
{
    return i >= 0 && i < REST_PROF_COUNT ? prof_names[i] : "?";
}

static void shard_free(rest_stats_shard *sh)
{
    for (int i = 0; i < REST_PH_COUNT; i++)
        bench_hist_free(sh->phase[i]);
    for (int i = 0; i < REST_PROF_COUNT; i++)
        bench_hist_free(sh->prof[i]);
    pthread_mutex_destroy(&sh->mu);
}

static int shard_init(rest_stats_shard *sh)
{
    memset(sh, 0, sizeof *sh);
    pthread_mutex_init(&sh->mu, NULL);
    for (int i = 0; i < REST_PH_COUNT; i++)
        if (!(sh->phase[i] = bench_hist_new()))
            return -1;
    return 0;
}

rest_stats *rest_stats_new(unsigned workers)
{
    rest_stats *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nshards = workers < 1 ? 1 : workers > REST_STATS_SHARDS ? REST_STATS_SHARDS : workers;
    if (posix_memalign((void **)&s->shards, 64, s->nshards * sizeof *s->shards) != 0) {
        free(s);
        return NULL;
    }
    for (unsigned i = 0; i < s->nshards; i++) {
        if (shard_init(&s->shards[i]) != 0) {
            s->nshards = i + 1;
            rest_stats_free(s);
            return NULL;
        }
    }
    return s;
}

void rest_stats_free(rest_stats *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->nshards; i++)
        shard_free(&s->shards[i]);
    free(s->shards);
    if (s->total) {
        shard_free(s->total);
        free(s->total);
    }
    free(s);
}

void rest_stats_track_reauth(rest_stats *s)
{
    s->track_reauth = 1;
}

rest_stats_shard *rest_stats_shard_of(rest_stats *s, unsigned worker)
{
    return &s->shards[worker % s->nshards];
}

int rest_profiling_parse(const char *text, int64_t out_ns[REST_PROF_COUNT], unsigned *mask)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    *mask = 0;
    if (!json_is_object(j)) {
        json_decref(j);
        return -1;
    }
    for (int i = 0; i < REST_PROF_COUNT; i++) {
        json_t *v = json_object_get(j, prof_names[i]);
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            out_ns[i] = (int64_t)json_integer_value(v);
            *mask |= 1u << i;
        } else if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e18) {
            /* (a larger real does not fit int64_t: converting it is undefined) */
            out_ns[i] = (int64_t)json_real_value(v);
            *mask |= 1u << i;
        }
    }
    json_decref(j);
    return 0;
}

void rest_stats_record(rest_stats_shard *sh, const rest_req_result *r)
{
    int64_t prof[REST_PROF_COUNT];
    unsigned mask = 0;

    /* Parse outside the lock: it is the costly part. */
    if (r->profiling && rest_profiling_parse(r->profiling, prof, &mask) != 0)
        mask = 0;

    pthread_mutex_lock(&sh->mu);
    sh->requests++;
    if (r->status >= 100 && r->status < MAX_STATUS)
        sh->status[r->status]++;
    else if (r->status)
        sh->other_status++;
    /* k6's http_req_failed: no response, or a status not expected
     * (200..399 unless told otherwise). */
    if (!r->status || (sh->expected ? !sh->expected(sh->expected_arg, r->status)
                                    : r->status < 200 || r->status > 399))
        sh->failed++;
    if (r->have_phases)
        for (int i = 0; i < REST_PH_COUNT; i++)
            bench_hist_record(sh->phase[i], (uint64_t)r->phases_us[i] * 1000u);
    for (int i = 0; mask && i < REST_PROF_COUNT; i++) {
        if (!(mask & (1u << i)))
            continue;
        if (!sh->prof[i] && !(sh->prof[i] = bench_hist_new()))
            continue;
        bench_hist_record(sh->prof[i], (uint64_t)prof[i]);
    }
    pthread_mutex_unlock(&sh->mu);
}

void rest_stats_reauth(rest_stats_shard *sh)
{
    pthread_mutex_lock(&sh->mu);
    sh->reauth++;
    pthread_mutex_unlock(&sh->mu);
}

/* Merge every shard into s->total, once. */
static rest_stats_shard *total(rest_stats *s)
{
    if (s->total)
        return s->total;
    rest_stats_shard *t = calloc(1, sizeof *t);
    if (!t || shard_init(t) != 0) {
        if (t) {
            shard_free(t);
            free(t);
        }
        return NULL;
    }
    for (unsigned n = 0; n < s->nshards; n++) {
        rest_stats_shard *sh = &s->shards[n];
        pthread_mutex_lock(&sh->mu);
        for (int i = 0; i < REST_PH_COUNT; i++)
            bench_hist_add(t->phase[i], sh->phase[i]);
        for (int i = 0; i < REST_PROF_COUNT; i++) {
            if (!sh->prof[i])
                continue;
            if (!t->prof[i] && !(t->prof[i] = bench_hist_new()))
                continue;
            bench_hist_add(t->prof[i], sh->prof[i]);
        }
        for (int i = 0; i < MAX_STATUS; i++)
            t->status[i] += sh->status[i];
        t->other_status += sh->other_status;
        t->requests += sh->requests;
        t->failed += sh->failed;
        t->reauth += sh->reauth;
        pthread_mutex_unlock(&sh->mu);
    }
    s->total = t;
    return t;
}

uint64_t rest_stats_requests(rest_stats *s)
{
    rest_stats_shard *t = total(s);
    return t ? t->requests : 0;
}

uint64_t rest_stats_status_count(rest_stats *s, long status)
{
    rest_stats_shard *t = total(s);
    return t && status >= 0 && status < MAX_STATUS ? t->status[status] : 0;
}

/* k6 pads names with dots; the HTTP names are longer than the core's. */
static void label(FILE *f, const char *name)
{
    int n = (int)strlen(name);
    fprintf(f, "    %s", name);
    for (int i = n; i < 26; i++)
        fputc('.', f);
    fputs(": ", f);
}

/* The same figures as the summary's latency line, with k6's wider names. */
static void trend(FILE *f, const char *name, const bench_hist *h)
{
    bench_report_trend(f, 26, name, h, "no data");
}

void rest_stats_print(FILE *f, rest_stats *s, double duration_s)
{
    rest_stats_shard *t = total(s);
    if (!t)
        return;
    fputc('\n', f);
    label(f, "http_reqs");
    fprintf(f, "%-10llu %.2f/s\n", (unsigned long long)t->requests,
            duration_s > 0 ? (double)t->requests / duration_s : 0.0);
    label(f, "http_req_failed");
    fprintf(f, "%.2f%%     %llu of %llu\n",
            t->requests ? 100.0 * (double)t->failed / (double)t->requests : 0.0,
            (unsigned long long)t->failed, (unsigned long long)t->requests);
    for (int i = 0; i < REST_PH_COUNT; i++) {
        char name[48];
        snprintf(name, sizeof name, "http_req_%s", rest_phase_name(i));
        trend(f, name, t->phase[i]);
    }
    label(f, "http_status");
    int any = 0;
    for (int i = 0; i < MAX_STATUS; i++) {
        if (t->status[i]) {
            fprintf(f, "%s%d=%llu", any ? " " : "", i, (unsigned long long)t->status[i]);
            any = 1;
        }
    }
    if (t->other_status)
        fprintf(f, "%sother=%llu", any ? " " : "", (unsigned long long)t->other_status), any = 1;
    fprintf(f, "%s\n", any ? "" : "none");
    if (s->track_reauth) {
        label(f, "sdkms_reauth");
        fprintf(f, "%llu\n", (unsigned long long)t->reauth);
    }
    for (int i = 0; i < REST_PROF_COUNT; i++) {
        if (t->prof[i] && bench_hist_count(t->prof[i])) {
            char name[48];
            snprintf(name, sizeof name, "server_%s", prof_names[i]);
            trend(f, name, t->prof[i]);
        }
    }
    fflush(f);
}

static double us(double ns)
{
    return round(ns / 10.0) / 100.0;
}

static json_t *trend_json(const bench_hist *h)
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

json_t *rest_stats_json(rest_stats *s)
{
    rest_stats_shard *t = total(s);
    if (!t)
        return json_null();
    json_t *codes = json_object(), *phases = json_object();
    for (int i = 0; i < MAX_STATUS; i++) {
        if (t->status[i]) {
            char k[16];
            snprintf(k, sizeof k, "%d", i);
            json_object_set_new(codes, k, json_integer((json_int_t)t->status[i]));
        }
    }
    if (t->other_status)
        json_object_set_new(codes, "other", json_integer((json_int_t)t->other_status));
    for (int i = 0; i < REST_PH_COUNT; i++)
        json_object_set_new(phases, rest_phase_name(i), trend_json(t->phase[i]));
    json_t *http = json_pack("{s:I,s:o,s:I,s:f,s:o}", "requests", (json_int_t)t->requests,
                             "status_counts", codes, "failed", (json_int_t)t->failed,
                             "failed_pct",
                             t->requests ? 100.0 * (double)t->failed / (double)t->requests : 0.0,
                             "phases_us", phases);
    if (s->track_reauth)
        json_object_set_new(http, "reauth", json_integer((json_int_t)t->reauth));
    json_t *prof = NULL;
    for (int i = 0; i < REST_PROF_COUNT; i++) {
        if (t->prof[i] && bench_hist_count(t->prof[i])) {
            if (!prof)
                prof = json_object();
            json_object_set_new(prof, prof_names[i], trend_json(t->prof[i]));
        }
    }
    if (prof)
        json_object_set_new(http, "server_profile_us", prof);
    return http;
}

/*
 * rest/stats.h - what the HTTP layer adds to a run's figures: k6's request
 * phases (http_req_blocked ... http_req_duration) as latency histograms,
 * requests by status, the failed-request rate, SDKMS re-authentications, and
 * the fields of SDKMS's Profiling-Data header when the server sends it.
 *
 * Recording happens on the measured path, after each request.  A histogram
 * is 224 KiB and a request has seven phases (and up to eight server
 * fields), so a histogram set per worker would cost 1.5-3.4 MiB a thread:
 * fine at 8, not at 1024.  Workers are therefore grouped into at most
 * REST_STATS_SHARDS shards, each with its own histograms behind a mutex;
 * up to that many threads every worker has a shard to itself, and above it
 * a lock held for ~100 ns per request of tens of microseconds or more is
 * not a contention point.  The shards are merged once, after the run.
 */
#ifndef REST_STATS_H
#define REST_STATS_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "rest/phases.h"

#define REST_STATS_SHARDS 16

/* Profiling-Data fields, nanoseconds, in the order the header defines them. */
enum {
    REST_PROF_IN_QUEUE, REST_PROF_PARSE_REQUEST, REST_PROF_SESSION_LOOKUP,
    REST_PROF_VALIDATE_INPUT, REST_PROF_CHECK_ACCESS, REST_PROF_OPERATE, REST_PROF_DB_FLUSH,
    REST_PROF_TOTAL, REST_PROF_COUNT,
};

typedef struct rest_stats rest_stats;
typedef struct rest_stats_shard rest_stats_shard;

/* One finished request, as the HTTP client saw it. */
typedef struct rest_req_result {
    long        status;                    /* 0 when no response arrived */
    int         have_phases;               /* the transfer completed: phases are valid */
    int64_t     phases_us[REST_PH_COUNT];
    const char *profiling;                 /* Profiling-Data header value, or NULL */
} rest_req_result;

/* For a run of `workers` threads; NULL when out of memory. */
rest_stats *rest_stats_new(unsigned workers);
void rest_stats_free(rest_stats *s);
/* Count SDKMS re-authentications in the report (the EKM has none). */
void rest_stats_track_reauth(rest_stats *s);
/* Which statuses are not failures in http_req_failed (k6's expectedStatuses);
 * by default 200..399.  Set before the run; arg must outlive it. */
typedef int (*rest_status_ok_fn)(const void *arg, long status);
void rest_stats_expect(rest_stats *s, rest_status_ok_fn ok, const void *arg);

rest_stats_shard *rest_stats_shard_of(rest_stats *s, unsigned worker);
void rest_stats_record(rest_stats_shard *sh, const rest_req_result *r);
void rest_stats_reauth(rest_stats_shard *sh);

/* After the run (workers joined): the k6-style block and the "http" object. */
void    rest_stats_print(FILE *f, rest_stats *s, double duration_s);
json_t *rest_stats_json(rest_stats *s);

/* Totals, for tests and exit decisions. */
uint64_t rest_stats_requests(rest_stats *s);
uint64_t rest_stats_status_count(rest_stats *s, long status);

/*
 * Parse a Profiling-Data header: a JSON object of nanosecond counts.  Sets
 * out_ns[i] and bit i of *mask for each field found; 0 when it parsed (even
 * with no known field), -1 when it is not a JSON object.
 */
int rest_profiling_parse(const char *text, int64_t out_ns[REST_PROF_COUNT], unsigned *mask);
const char *rest_profiling_field(int i);

#endif

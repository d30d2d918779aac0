/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/side.h - what the HTTP layer adds to a run's figures, as side
 * metrics of the core (bench/core/side.h): k6's request phases
 * (http_req_blocked ... http_req_duration), requests by status, the
 * failed-request rate, SDKMS re-authentications, requests libcurl sent
 * again on a new connection, and the fields of SDKMS's Profiling-Data
 * header when the server sends it.
 *
 * A request's figures are noted by the HTTP client while the operation
 * runs (rest/transport/http.c) and recorded here from the core's side_flush(), after
 * the operation and only for the measured part of the run; the core merges
 * every worker's recorder after the run, and the views (rest/views/) read
 * the merged one.
 */
#ifndef REST_SIDE_H
#define REST_SIDE_H

#include <stdint.h>

#include "bench/core/side.h"
#include "rest/transport/phases.h"

/* Profiling-Data fields, nanoseconds, in the order the header defines them. */
enum {
    REST_PROF_IN_QUEUE, REST_PROF_PARSE_REQUEST, REST_PROF_SESSION_LOOKUP,
    REST_PROF_VALIDATE_INPUT, REST_PROF_CHECK_ACCESS, REST_PROF_OPERATE, REST_PROF_DB_FLUSH,
    REST_PROF_TOTAL, REST_PROF_COUNT,
};

#define REST_MAX_STATUS 600

/* The distributions of a REST run's side metrics. */
enum { REST_SH_PHASE = 0, REST_SH_PROF = REST_SH_PHASE + REST_PH_COUNT,
       REST_SH_DURATION_OK = REST_SH_PROF + REST_PROF_COUNT,  /* {expected_response:true} */
       REST_SH_DURATION_FAILED,                               /* {expected_response:false} */
       REST_SH_COUNT };

/* k6's checks on an answer: its status, then its body (the fields it must
 * have, their base64, the round trip's plaintext). */
typedef enum { REST_CHECK_STATUS, REST_CHECK_BODY, REST_CHECK_COUNT } rest_check;

/* Its counters: one per status 0..599, then the rest; the checks go
 * passed, failed for each kind. */
enum { REST_SC_STATUS = 0, REST_SC_OTHER_STATUS = REST_MAX_STATUS, REST_SC_REQUESTS,
       REST_SC_FAILED, REST_SC_REAUTH, REST_SC_RETRIED, REST_SC_RECONNECTED, REST_SC_UNSOLICITED, REST_SC_BYTES_IN, REST_SC_BYTES_OUT,
       REST_SC_CHECK, REST_SC_COUNT = REST_SC_CHECK + 2 * REST_CHECK_COUNT };

extern const bench_side_spec rest_side_spec;

/* Which statuses are not failures in http_req_failed (k6's expectedStatuses);
 * NULL: 200..399. */
typedef int (*rest_status_ok_fn)(const void *arg, long status);

/* One finished request, as the HTTP client saw it. */
typedef struct rest_req_result {
    long        status;                    /* 0 when no response arrived */
    int         have_phases;               /* the transfer completed: phases are valid */
    int64_t     phases_us[REST_PH_COUNT];
    const char *profiling;                 /* Profiling-Data header value, or NULL */
    uint64_t    bytes_in, bytes_out;       /* on the wire, headers included */
} rest_req_result;

/* Record one request (outside the timed path). */
void rest_stats_record(bench_side *s, rest_status_ok_fn ok, const void *ok_arg,
                       const rest_req_result *r);

/* The Profiling-Data fields' names, in the header's order (REST_PROF_*). */
extern const char *const rest_prof_names[REST_PROF_COUNT];

/*
 * Parse a Profiling-Data header: a JSON object of nanosecond counts.  Sets
 * out_ns[i] and bit i of *mask for each field found; 0 when it parsed (even
 * with no known field), -1 when it is not a JSON object.
 */
int rest_profiling_parse(const char *text, int64_t out_ns[REST_PROF_COUNT], unsigned *mask);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/side.c - a request's phases, status and server timings recorded as side metrics. */
#include "rest/transport/side.h"

#include <jansson.h>

const bench_side_spec rest_side_spec = { REST_SH_COUNT, REST_SC_COUNT };

const char *const rest_prof_names[REST_PROF_COUNT] = {
    "in_queue", "parse_request", "session_lookup", "validate_input",
    "check_access", "operate", "db_flush", "total",
};

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
        json_t *v = json_object_get(j, rest_prof_names[i]);
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

void rest_stats_record(bench_side *s, rest_status_ok_fn ok, const void *ok_arg,
                       const rest_req_result *r)
{
    int64_t prof[REST_PROF_COUNT];
    unsigned mask = 0;

    if (!s->on)
        return;
    if (r->profiling && rest_profiling_parse(r->profiling, prof, &mask) != 0)
        mask = 0;
    bench_side_add(s, REST_SC_REQUESTS, 1);
    if (r->status >= 100 && r->status < REST_MAX_STATUS)
        bench_side_add(s, REST_SC_STATUS + (unsigned)r->status, 1);
    else if (r->status)
        bench_side_add(s, REST_SC_OTHER_STATUS, 1);
    /* k6's http_req_failed: no response, or a status not expected
     * (200..399 unless told otherwise). */
    const int failed = !r->status ||
                       (ok ? !ok(ok_arg, r->status) : r->status < 200 || r->status > 399);
    if (failed)
        bench_side_add(s, REST_SC_FAILED, 1);
    bench_side_add(s, REST_SC_BYTES_IN, r->bytes_in);
    bench_side_add(s, REST_SC_BYTES_OUT, r->bytes_out);
    if (r->have_phases) {
        for (int i = 0; i < REST_PH_COUNT; i++)
            bench_side_record(s, REST_SH_PHASE + (unsigned)i,
                              (uint64_t)(r->phases_us[i] > 0 ? r->phases_us[i] : 0) * 1000u);
        bench_side_record(s, failed ? REST_SH_DURATION_FAILED : REST_SH_DURATION_OK,
                          (uint64_t)(r->phases_us[REST_PH_DURATION] > 0
                                         ? r->phases_us[REST_PH_DURATION] : 0) * 1000u);
    }
    for (int i = 0; mask && i < REST_PROF_COUNT; i++)
        if (mask & (1u << i))
            bench_side_record(s, REST_SH_PROF + (unsigned)i, (uint64_t)prof[i]);
}

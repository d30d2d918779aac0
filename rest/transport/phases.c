/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/phases.c - curl stamps to k6 phases (see phases.h for the table). */
#include "rest/transport/phases.h"

static const char *const names[REST_PH_COUNT] = {
    "blocked", "connecting", "tls_handshaking", "sending", "waiting", "receiving", "duration",
};

const char *rest_phase_name(int phase)
{
    return phase >= 0 && phase < REST_PH_COUNT ? names[phase] : "?";
}

static int64_t span(int64_t from, int64_t to)
{
    return to > from ? to - from : 0;
}

void rest_phases_compute(const rest_stamps *s, int64_t out[REST_PH_COUNT])
{
    const int fresh = s->num_connects > 0;
    const int64_t ready = s->appconnect_us > 0 ? s->appconnect_us : s->connect_us;
    int64_t sent = s->posttransfer_us >= 0 ? s->posttransfer_us : s->pretransfer_us;
    int64_t first = s->starttransfer_us;

    if (sent < ready)
        sent = ready;
    if (first <= 0)                 /* no response byte: all of it was waiting */
        first = s->total_us;
    out[REST_PH_BLOCKED] = ready > 0 ? ready : 0;
    out[REST_PH_CONNECTING] = fresh ? span(s->namelookup_us, s->connect_us) : 0;
    out[REST_PH_TLS] = fresh && s->appconnect_us > 0 ? span(s->connect_us, s->appconnect_us) : 0;
    out[REST_PH_SENDING] = span(ready, sent);
    out[REST_PH_WAITING] = span(sent, first);
    out[REST_PH_RECEIVING] = span(first, s->total_us);
    out[REST_PH_DURATION] =
        out[REST_PH_SENDING] + out[REST_PH_WAITING] + out[REST_PH_RECEIVING];
}

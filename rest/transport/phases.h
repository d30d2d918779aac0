/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/phases.h - k6's request phases from libcurl's timestamps.
 *
 * libcurl stamps a transfer at cumulative points, in microseconds from its
 * start: name resolved, connected, TLS done, about to send, request sent
 * (curl >= 8.10), first response byte, done.  k6 reports the intervals
 * between them; this is the one place that turns the first into the second:
 *
 *   blocked          conn_ready                     (DNS + connect + TLS, or
 *                                                    picking the kept connection)
 *   connecting       connect - namelookup           0 on a reused connection
 *   tls_handshaking  appconnect - connect           0 on reuse or plain HTTP
 *   sending          sent - conn_ready              (sent: posttransfer, else pretransfer)
 *   waiting          starttransfer - sent           time to first byte
 *   receiving        total - starttransfer
 *   duration         sending + waiting + receiving  (= total - conn_ready)
 *
 * with conn_ready = appconnect when TLS was done, else connect.  On a reused
 * connection (CURLINFO_NUM_CONNECTS == 0) libcurl may still report small
 * connect stamps; the connect and TLS phases are forced to zero there, as
 * k6 does.  Negative intervals (stamps out of order) are clamped to zero.
 */
#ifndef REST_PHASES_H
#define REST_PHASES_H

#include <stdint.h>

enum {
    REST_PH_BLOCKED, REST_PH_CONNECTING, REST_PH_TLS, REST_PH_SENDING, REST_PH_WAITING,
    REST_PH_RECEIVING, REST_PH_DURATION, REST_PH_COUNT,
};

typedef struct rest_stamps {
    int64_t namelookup_us, connect_us, appconnect_us;
    int64_t pretransfer_us;
    int64_t posttransfer_us;      /* -1 when this libcurl does not report it */
    int64_t starttransfer_us;     /* 0 when no response byte arrived */
    int64_t total_us;
    long    num_connects;         /* new connections the transfer made */
} rest_stamps;

/* The phases of one request, microseconds, indexed by REST_PH_*. */
void rest_phases_compute(const rest_stamps *s, int64_t out_us[REST_PH_COUNT]);

/* "blocked", "connecting", "tls_handshaking", ... (the JSON keys). */
const char *rest_phase_name(int phase);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/multi.h - non-blocking REST runs on libcurl's multi interface.
 *
 * Each worker thread owns one curl multi handle (the engine) and several
 * slots; a slot is one workload state (an easy handle with its credentials
 * and keys) carrying one operation at a time.  The core's scheduler hands a
 * due request to a free slot, the slot's first transfer joins the multi
 * handle, and the thread waits in curl_multi_poll() for sockets to move, a
 * transfer to complete, or the next request to fall due.  Connections are
 * pooled by the multi handle and kept alive between requests; one thread
 * keeps as many transfers in flight as it has slots.
 */
#ifndef REST_MULTI_H
#define REST_MULTI_H

#include "bench/core/workload.h"
#include "rest/transport/xfer.h"

/* What the run header calls this engine. */
#define REST_MULTI_ENGINE "curl multi"

/* What --help says of it, after the load flags. */
#define REST_MULTI_HELP \
    "  Non-blocking, each thread keeps several requests in flight, each slot on a\n" \
    "  kept connection of its own in one epoll set (lean), or on a libcurl multi\n" \
    "  handle: --inflight K slots in all, else 16 per thread (an SDKMS slot has\n" \
    "  its own session and key); --inflight alone keeps them all busy.\n"

/*
 * Let w's non-blocking runs use the engine o chose (rest_http_pick_engine):
 * libcurl's multi handles, or the lean engine's epoll loop
 * (rest/transport/lean_loop.h): `slots` requests in flight at most, spread
 * over the run's threads, each ended at o's --timeout, which the end of a
 * run waits for too.  xw must stay valid until the run is over.
 */
void rest_multi_attach(bench_workload *w, rest_xfer_workload *xw, unsigned slots,
                       const rest_http_opts *o);
/* What the run header calls the non-blocking engine o chose. */
const char *rest_multi_engine(const rest_http_opts *o);

#endif

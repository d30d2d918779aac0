/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/slots.h - what the two non-blocking REST engines share:
 * the libcurl multi engine (rest/transport/multi.c) and the lean engine's
 * epoll loop (rest/transport/lean_loop.c).
 *
 * A slot is one workload state (its HTTP handle, credentials, keys; set up
 * by the workload's open(), blocking) carrying one operation at a time.
 * Each engine's slot begins with a rest_slot_core, and each worker thread's
 * engine with a rest_slot_set: its slots, for the ends the engine decides
 * itself (--timeout, Ctrl-C), and the earliest deadline in flight.  All
 * requests of a run share one --timeout, so a deadline costs a comparison:
 * no wait passes next_due, and the slots are looked over only when it has
 * come.
 */
#ifndef REST_SLOTS_H
#define REST_SLOTS_H

#include <stdint.h>

#include "bench/core/workload.h"
#include "rest/transport/xfer.h"

typedef struct rest_slot_core {
    void       *state;      /* the workload's worker state (first: the side hooks read it) */
    rest_http  *http;       /* the state's own (it begins with it: rest/client.h) */
    int         busy;       /* an operation is in flight */
    bench_code  rc;         /* the finished operation's code */
    uint64_t    timeout_ns;           /* --timeout of each request (0: none) */
    uint64_t    started, deadline;    /* of the request in flight (deadline 0: none) */
} rest_slot_core;

typedef struct rest_slot_set {
    const rest_xfer_workload *xw;
    rest_slot_core          **slots;      /* this thread's */
    unsigned                  nslots, cap;
    const bench_flag         *interrupt;  /* Ctrl-C (NULL: none) */
    uint64_t                  now;        /* the clock when the last wait ended (0: read it) */
    uint64_t                  next_due;   /* no request in flight is due before (0: none) */
} rest_slot_set;

/* Set up slot s (workload slot `index`) and count it in the set: the
 * workload's open(), then its handle's limits become the engine's
 * (rest_http_engine_owned).  -1 with one line in err. */
int rest_slot_open(rest_slot_set *set, rest_slot_core *s, unsigned index, char *err, size_t errlen);
/* Its tear-down (blocking, under the handle's own limits again). */
void rest_slot_close(const rest_slot_set *set, rest_slot_core *s);
/* The request on s starts: its deadline counts from the last wait's end
 * (close enough: a pass takes microseconds), or from the clock before the
 * first wait. */
void rest_slot_started(rest_slot_set *set, rest_slot_core *s);
/* max_ns, or less: not past the earliest deadline. */
uint64_t rest_slot_wait_ns(const rest_slot_set *set, uint64_t max_ns);
/* Why an engine ends a request itself: its --timeout passed, or Ctrl-C. */
typedef enum { REST_SLOT_TIMEOUT, REST_SLOT_INTERRUPTED } rest_slot_why;

/* After a wait (set->now read): the requests past their deadline end
 * through end(s, REST_SLOT_TIMEOUT), and next_due moves on; after Ctrl-C,
 * those that may be abandoned end through end(s, REST_SLOT_INTERRUPTED)
 * (those whose effect must be known run on, to their deadline); each
 * engine says it in its own codes. */
void rest_slot_ends(rest_slot_set *set, void (*end)(rest_slot_core *s, rest_slot_why why));

/* bench_async_ops' poll, side_bind, side_flush and describe for a slot
 * that begins with its rest_slot_core. */
int rest_slot_poll(void *slot, bench_code *done);
void rest_slot_side_bind(void *slot, bench_side *side);
void rest_slot_side_flush(void *slot);
void rest_slot_describe(const void *slot, bench_request *r);

#endif

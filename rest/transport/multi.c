/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/multi.c - the curl multi engine behind non-blocking REST runs. */
#include "rest/transport/multi.h"
#include "rest/transport/http.h"
#include "bench/util/signals.h"


#include <stdio.h>
#include <stdlib.h>

#include "bench/util/clock.h"
#include "rest/transport/codes.h"
#include "rest/transport/lean_loop.h"
#include "rest/transport/slots.h"

/*
 * libcurl's own event loop (curl_multi_perform, curl_multi_poll) drives the
 * transfers; measured against the socket interface with epoll on Debian
 * 12's libcurl 7.88 it costs less per request (tests/bench/rest-bench.sh),
 * from a few to a thousand transfers per thread.  Measured again (issue 11)
 * at 256 and 1024 transfers with the socket interface at its best (one
 * epoll set; sockets kept in it between requests on a connection instead
 * of two epoll_ctl calls a request; several multi handles of 64 transfers,
 * so finding an idle connection walks fewer): no cheaper per request than
 * this loop, and a plain socket-interface loop dearer (docs/architecture.md).
 * What grows the cost per request with the number of transfers is inside
 * libcurl (the minimal loop's own CPU time per request grows by half from
 * 64 to 1024) and their memory (cache misses in libcurl, malloc and the
 * kernel), not the walk over them.
 */
typedef struct rest_slot rest_slot;

/*
 * --timeout and Ctrl-C are the engine's: a transfer carries no libcurl
 * timer and calls no progress function (rest_http_engine_owned).  Both
 * cost libcurl work on every request or on every pass over the transfers
 * (two timers set and cleared a request and looked at on every pass, a
 * dozen progress calls a request): 1.9 thousand instructions a request of
 * 84 thousand (callgrind, one thread with 32 transfers against serve
 * --latency 5ms).  Here a deadline costs a comparison (rest/transport/slots.h):
 * the wait in curl_multi_poll() never passes the earliest.
 */
typedef struct rest_engine {
    rest_slot_set set;       /* first: the slots' ends see the engine through it */
    CURLM        *multi;
} rest_engine;

struct rest_slot {
    rest_slot_core c;        /* first (rest/transport/slots.h) */
    rest_engine   *eng;
    CURL          *easy;     /* in the multi handle while the operation runs */
    CURL          *marked;   /* the easy handle whose CURLOPT_PRIVATE is this slot */
};

static int engine_open(void *actx, unsigned worker, void **out, char *err, size_t errlen)
{
    (void)worker;
    rest_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->multi = curl_multi_init())) {
        free(e);
        snprintf(err, errlen, "cannot create a curl multi handle");
        return -1;
    }
    e->set.xw = actx;
    *out = e;
    return 0;
}

static void engine_close(void *v)
{
    rest_engine *e = v;
    (void)curl_multi_cleanup(e->multi);   /* every easy handle is out of it by now */
    free(e->set.slots);
    free(e);
}

/* The operation on s ended with rc: the slot is free again. */
static void slot_done(rest_slot *s, bench_code rc)
{
    s->c.rc = rc;
    s->c.busy = 0;
    s->easy = NULL;
}

/* Put the slot's prepared request into the multi handle.  Should libcurl
 * refuse it, the workload still gets the outcome (classified and recorded)
 * through finish(), as for any failed transfer. */
static void slot_go(rest_slot *s)
{
    rest_engine *e = s->eng;
    const rest_xfer_ops *ops = e->set.xw->ops;
    bench_code rc = BENCH_OK;
    for (int attempt = 0; attempt < 4; attempt++) {
        CURLMcode mc = CURLM_BAD_EASY_HANDLE;
        if ((s->easy == s->marked || curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s) == CURLE_OK) &&
            (mc = curl_multi_add_handle(e->multi, s->easy)) == CURLM_OK) {
            s->marked = s->easy;
            rest_slot_started(&e->set, &s->c);
            return;
        }
        CURLcode cc = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY : CURLE_FAILED_INIT;
        if (ops->finish(s->c.state, cc, &rc) == REST_STEP_DONE)
            break;
    }
    slot_done(s, rc != BENCH_OK ? rc : (bench_code)(REST_CODE_CURL_BASE + CURLE_FAILED_INIT));
}

/* The transfer of s ended with cc and is out of the multi handle: the
 * workload checks it, and ends the operation or prepares its next
 * request.  Returns 1 when the operation ended. */
static int slot_finished(rest_slot *s, CURLcode cc)
{
    bench_code rc = BENCH_OK;
    if (s->eng->set.xw->ops->finish(s->c.state, cc, &rc) == REST_STEP_AGAIN)
        slot_go(s);
    else
        slot_done(s, rc);
    return !s->c.busy;
}

/* End the transfer in flight on s for the engine's own reason (see
 * rest_http_abandoned), as libcurl would have ended it. */
static void slot_abandon(rest_slot_core *c, rest_slot_why end)
{
    rest_slot *s = (rest_slot *)c;
    rest_engine *e = s->eng;
    const CURLcode why = end == REST_SLOT_TIMEOUT ? CURLE_OPERATION_TIMEDOUT : CURLE_ABORTED_BY_CALLBACK;
    (void)curl_multi_remove_handle(e->multi, s->easy);
    rest_http_abandoned(c->http, why, (e->set.now - c->started) / 1000000u);
    (void)slot_finished(s, why);
}

/* At most this many completions are read before they are handed over. */
#define COLLECT_BATCH 256

/* Hand every completed transfer to its workload, which ends the operation
 * or prepares its next request.  Returns how many operations ended.
 *
 * The messages are read first and the handles removed after:
 * curl_multi_remove_handle (libcurl 7.88) walks the messages still queued,
 * looking for one of the handle's, so removing each handle after reading
 * its own message walked all those behind it, a cost per request growing
 * with the completions of a perform (at 1024 connections, 4 % of the
 * client's time went there). */
static unsigned engine_collect(rest_engine *e)
{
    unsigned ended = 0;
    for (;;) {
        struct { CURL *easy; CURLcode cc; } done[COLLECT_BATCH];
        unsigned n = 0;
        int left = 0;
        CURLMsg *m;
        while (n < COLLECT_BATCH && (m = curl_multi_info_read(e->multi, &left)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            /* m does not survive curl_multi_remove_handle: copy it. */
            done[n].easy = m->easy_handle;
            done[n].cc = m->data.result;
            n++;
        }
        for (unsigned i = 0; i < n; i++) {
            rest_slot *s = NULL;
            if (curl_easy_getinfo(done[i].easy, CURLINFO_PRIVATE, (char **)&s) != CURLE_OK || !s)
                continue;
            (void)curl_multi_remove_handle(e->multi, done[i].easy);
            ended += (unsigned)slot_finished(s, done[i].cc);
        }
        if (n < COLLECT_BATCH)
            return ended;
    }
}

/* Run what is ready, then hand over what completed; operations ended. */
static unsigned engine_drive(rest_engine *e)
{
    int running = 0;
    (void)curl_multi_perform(e->multi, &running);
    return engine_collect(e);
}

/*
 * One curl_multi_perform() per curl_multi_poll(), as libcurl's own loop
 * goes: a perform looks at every transfer's socket (libcurl 7.88 polls
 * each), so performing after every pass of the core that moved something
 * cost a look per transfer for little.  So the call after such a pass
 * (max_ns 0) leaves the transfers just added for the next wait: that
 * wait's poll returns at once, since libcurl has them due (or a socket is
 * ready), and its perform starts them.
 */
static void engine_await(void *v, int wake_fd, uint64_t max_ns)
{
    rest_engine *e = v;
    if (!max_ns)
        return;
    const uint64_t wait_ns = rest_slot_wait_ns(&e->set, max_ns);
    struct curl_waitfd extra = { wake_fd, CURL_WAIT_POLLIN, 0 };
    const int timeout_ms = (int)((wait_ns + 999999) / 1000000);
    (void)curl_multi_poll(e->multi, wake_fd >= 0 ? &extra : NULL, wake_fd >= 0 ? 1u : 0u,
                          timeout_ms, NULL);
    e->set.now = bench_now_ns();
    (void)engine_drive(e);
    rest_slot_ends(&e->set, slot_abandon);
}

static int slot_open(void *actx, void *engine, unsigned index, void **out, char *err,
                     size_t errlen)
{
    (void)actx;
    rest_slot *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->eng = engine;
    if (rest_slot_open(&s->eng->set, &s->c, index, err, errlen) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

static int slot_submit(void *v, bench_code *done)
{
    rest_slot *s = v;
    s->c.busy = 1;
    s->easy = rest_http_easy(s->eng->set.xw->ops->start(s->c.state));
    slot_go(s);
    if (s->c.busy)
        return 1;
    *done = s->c.rc;
    return 0;
}

static void slot_close(void *v)
{
    rest_slot *s = v;
    /* Still in flight at the end (a hung server): out of the multi handle
     * before the workload's tear-down uses the easy handle again. */
    if (s->c.busy && s->easy)
        (void)curl_multi_remove_handle(s->eng->multi, s->easy);
    rest_slot_close(&s->eng->set, &s->c);
    free(s);
}

static const bench_async_ops multi_ops = {
    .open = slot_open, .submit = slot_submit, .poll = rest_slot_poll, .close = slot_close,
    .engine_open = engine_open, .engine_close = engine_close, .await = engine_await,
    .side_bind = rest_slot_side_bind, .side_flush = rest_slot_side_flush,
    .describe = rest_slot_describe,
};

/* Past a transfer's deadline, the engine's next look at it ends it. */
#define DRAIN_MARGIN_NS (250u * 1000000u)

const char *rest_multi_engine(const rest_http_opts *o)
{
    return o->engine == REST_ENGINE_LEAN ? REST_LEAN_LOOP_ENGINE : REST_MULTI_ENGINE;
}

void rest_multi_attach(bench_workload *w, rest_xfer_workload *xw, unsigned slots,
                       const rest_http_opts *o)
{
    const long timeout_ms = o->timeout_ms;
    /* What is in flight at the stop is waited for to its --timeout (the
     * engine ends it then), so that every request sent is counted once,
     * finished, failed or timed out, as the blocking engine's last one is:
     * given up after a fixed second, a request the server answered later
     * was in the server's counts and in none of the client's. */
    const uint64_t drain = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u + DRAIN_MARGIN_NS;
    const bench_async_ops *ops = o->engine == REST_ENGINE_LEAN ? rest_lean_loop_ops() : &multi_ops;
    w->async = (bench_async){ ops, xw, slots, drain };
}

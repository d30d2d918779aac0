/* rest/transport/multi.c - the curl multi engine behind non-blocking REST runs. */
#include "rest/transport/multi.h"
#include "rest/transport/http.h"
#include "bench/util/signals.h"


#include <stdio.h>
#include <stdlib.h>

#include "bench/util/clock.h"
#include "rest/transport/codes.h"

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
 * --latency 5ms).  Here a deadline costs a comparison: all transfers of a
 * run have the same --timeout, so the earliest deadline in flight is
 * kept (next_due), the wait in curl_multi_poll() never passes it, and the
 * slots are looked over only when it has come.
 */
typedef struct rest_engine {
    CURLM                    *multi;
    const rest_xfer_workload *xw;
    rest_slot               **slots;      /* this thread's, for the ends the engine decides */
    unsigned                  nslots, cap;
    const bench_flag         *interrupt;  /* Ctrl-C (NULL: none) */
    uint64_t                  now;        /* the clock when the last wait ended (0: read it) */
    uint64_t                  next_due;   /* no transfer in flight is due before (0: none) */
} rest_engine;

struct rest_slot {
    rest_engine *eng;
    void        *state;     /* the workload's worker state */
    rest_http   *http;      /* the state's own (it begins with it: rest/client.h) */
    CURL        *easy;      /* in the multi handle while the operation runs */
    CURL        *marked;    /* the easy handle whose CURLOPT_PRIVATE is this slot */
    int          busy;
    bench_code   rc;        /* the finished operation's code */
    uint64_t     timeout_ns;           /* --timeout of each transfer (0: none) */
    uint64_t     started, deadline;    /* of the transfer in flight (deadline 0: none) */
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
    e->xw = actx;
    *out = e;
    return 0;
}

static void engine_close(void *v)
{
    rest_engine *e = v;
    (void)curl_multi_cleanup(e->multi);   /* every easy handle is out of it by now */
    free(e->slots);
    free(e);
}

/* The operation on s ended with rc: the slot is free again. */
static void slot_done(rest_slot *s, bench_code rc)
{
    s->rc = rc;
    s->busy = 0;
    s->easy = NULL;
}

/* Put the slot's prepared request into the multi handle.  Should libcurl
 * refuse it, the workload still gets the outcome (classified and recorded)
 * through finish(), as for any failed transfer. */
static void slot_go(rest_slot *s)
{
    rest_engine *e = s->eng;
    const rest_xfer_ops *ops = e->xw->ops;
    bench_code rc = BENCH_OK;
    for (int attempt = 0; attempt < 4; attempt++) {
        CURLMcode mc = CURLM_BAD_EASY_HANDLE;
        if ((s->easy == s->marked || curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s) == CURLE_OK) &&
            (mc = curl_multi_add_handle(e->multi, s->easy)) == CURLM_OK) {
            s->marked = s->easy;
            /* The last wait's end is this pass's clock: close enough
             * for a deadline (the pass takes microseconds).  Before the
             * first wait (after the set-up, the start gate), the clock. */
            if (!e->now)
                e->now = bench_now_ns();
            s->started = e->now;
            s->deadline = s->timeout_ns ? s->started + s->timeout_ns : 0;
            if (s->deadline && (!e->next_due || s->deadline < e->next_due))
                e->next_due = s->deadline;
            return;
        }
        CURLcode cc = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY : CURLE_FAILED_INIT;
        if (ops->finish(s->state, cc, &rc) == REST_STEP_DONE)
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
    if (s->eng->xw->ops->finish(s->state, cc, &rc) == REST_STEP_AGAIN)
        slot_go(s);
    else
        slot_done(s, rc);
    return !s->busy;
}

/* End the transfer in flight on s for the engine's own reason (see
 * rest_http_abandoned), as libcurl would have ended it. */
static void slot_abandon(rest_slot *s, CURLcode why)
{
    rest_engine *e = s->eng;
    (void)curl_multi_remove_handle(e->multi, s->easy);
    rest_http_abandoned(s->http, why, (e->now - s->started) / 1000000u);
    (void)slot_finished(s, why);
}

/* Transfers past their deadline end as timed out; next_due moves on. */
static void engine_expire(rest_engine *e)
{
    uint64_t next = 0;
    for (unsigned i = 0; i < e->nslots; i++) {
        rest_slot *s = e->slots[i];
        if (s->busy && s->deadline && s->deadline <= e->now)
            slot_abandon(s, CURLE_OPERATION_TIMEDOUT);
        /* Still busy: the same operation's next request, or untouched. */
        if (s->busy && s->deadline && (!next || s->deadline < next))
            next = s->deadline;
    }
    e->next_due = next;
}

/* Ctrl-C: the requests that may be abandoned end as interrupted at once
 * (those whose effect must be known run on, to their deadline). */
static void engine_abandon(rest_engine *e)
{
    for (unsigned i = 0; i < e->nslots; i++) {
        rest_slot *s = e->slots[i];
        if (s->busy && rest_http_abandon_now(s->http))
            slot_abandon(s, CURLE_ABORTED_BY_CALLBACK);
    }
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
    uint64_t wait_ns = max_ns;
    if (e->next_due) {
        /* Not past the earliest deadline. */
        const uint64_t now = bench_now_ns();
        const uint64_t left = e->next_due > now ? e->next_due - now : 0;
        if (left < wait_ns)
            wait_ns = left;
    }
    struct curl_waitfd extra = { wake_fd, CURL_WAIT_POLLIN, 0 };
    const int timeout_ms = (int)((wait_ns + 999999) / 1000000);
    (void)curl_multi_poll(e->multi, wake_fd >= 0 ? &extra : NULL, wake_fd >= 0 ? 1u : 0u,
                          timeout_ms, NULL);
    e->now = bench_now_ns();
    (void)engine_drive(e);
    if (e->next_due && e->next_due <= e->now)
        engine_expire(e);
    if (e->interrupt && *e->interrupt)
        engine_abandon(e);
}

static int slot_open(void *actx, void *engine, unsigned index, void **out, char *err,
                     size_t errlen)
{
    const rest_xfer_workload *xw = actx;
    rest_slot *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rest_engine *e = engine;
    s->eng = e;
    if (e->nslots == e->cap) {
        const unsigned cap = e->cap ? 2 * e->cap : 16;
        rest_slot **grown = realloc(e->slots, cap * sizeof *grown);
        if (!grown) {
            free(s);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        e->slots = grown;
        e->cap = cap;
    }
    if (xw->ops->open(xw->ctx, index, &s->state, err, errlen) != 0) {
        free(s);
        return -1;
    }
    /* Set up (blocking, under libcurl's own limits); the engine's now. */
    s->http = *(rest_http **)s->state;
    rest_http_engine_owned(s->http, 1);
    s->timeout_ns = (uint64_t)rest_http_timeout_ms(s->http) * 1000000u;
    e->interrupt = rest_http_interrupt(s->http);
    e->slots[e->nslots++] = s;
    e->now = 0;                       /* the set-up took a while */
    *out = s;
    return 0;
}

static int slot_submit(void *v, bench_code *done)
{
    rest_slot *s = v;
    s->busy = 1;
    s->easy = rest_http_easy(s->eng->xw->ops->start(s->state));
    slot_go(s);
    if (s->busy)
        return 1;
    *done = s->rc;
    return 0;
}

static int slot_poll(void *v, bench_code *done)
{
    const rest_slot *s = v;
    if (s->busy)
        return 1;
    *done = s->rc;
    return 0;
}

static void slot_close(void *v)
{
    rest_slot *s = v;
    /* Still in flight at the end (a hung server): out of the multi handle
     * before the workload's tear-down uses the easy handle again. */
    if (s->busy && s->easy)
        (void)curl_multi_remove_handle(s->eng->multi, s->easy);
    s->busy = 0;
    /* The tear-down is blocking: libcurl's own limits again. */
    rest_http_engine_owned(s->http, 0);
    s->eng->xw->ops->close(s->state);
    free(s);
}

/* Side metrics: the slot's workload state carries them (rest_client_side). */
static void slot_side_bind(void *v, bench_side *side)
{
    rest_state_side_bind(((rest_slot *)v)->state, side);
}

static void slot_side_flush(void *v)
{
    rest_state_side_flush(((rest_slot *)v)->state);
}

static const bench_async_ops multi_ops = {
    .open = slot_open, .submit = slot_submit, .poll = slot_poll, .close = slot_close,
    .engine_open = engine_open, .engine_close = engine_close, .await = engine_await,
    .side_bind = slot_side_bind, .side_flush = slot_side_flush,
};

/* Past a transfer's deadline, the engine's next look at it ends it. */
#define DRAIN_MARGIN_NS (250u * 1000000u)

void rest_multi_attach(bench_workload *w, rest_xfer_workload *xw, unsigned slots, long timeout_ms)
{
    /* What is in flight at the stop is waited for to its --timeout (the
     * engine ends it then), so that every request sent is counted once,
     * finished, failed or timed out, as the blocking engine's last one is:
     * given up after a fixed second, a request the server answered later
     * was in the server's counts and in none of the client's. */
    const uint64_t drain = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u + DRAIN_MARGIN_NS;
    w->async = (bench_async){ &multi_ops, xw, slots, drain };
}

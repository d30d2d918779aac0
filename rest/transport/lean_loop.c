/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/lean_loop.c - the lean engine behind non-blocking REST runs (see lean_loop.h). */
#include "rest/transport/lean_loop.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "bench/util/clock.h"
#include "rest/transport/slots.h"

/*
 * Each worker thread has one epoll set; each slot a lean connection of its
 * own (its workload state's rest_http), whose socket joins the set once,
 * edge-triggered for reading and writing, when it is made: no epoll_ctl
 * for a request on a kept connection.  The lean engine's steps go on until
 * the socket would block (rest/transport/lean.h), so an edge is never
 * missed; a slot looks at an event only for the direction it waits in.
 * The same wait watches a kept connection while it is idle: when nothing
 * came on it since its last answer (no bytes, no hang-up), the next request
 * is sent without the lean engine's look at it first (a poll and a peek a
 * request: the one syscall beyond a send and a receive that wrk makes).
 *
 * --timeout and Ctrl-C are the engine's, as with the curl multi engine
 * (rest/transport/slots.h): no wait passes the earliest deadline in flight.
 */
typedef struct lean_engine {
    rest_slot_set set;        /* first (rest/transport/slots.h) */
    int           epfd;
    int           wake_fd;    /* the core's wake-up pipe in epfd, or -1 */
} lean_engine;

typedef struct lean_slot {
    rest_slot_core c;         /* first (rest/transport/slots.h) */
    lean_engine   *eng;
    int            want;      /* POLLIN or POLLOUT: what the request in flight waits for */
    int            fd;        /* the socket in epfd (-1: none yet) */
    unsigned       conns;     /* the lean engine's count of sockets when it joined */
    /* Something came on the connection since its last answer ended (bytes,
     * a hang-up, an error), or it was not watched: the next request looks
     * at it before sending. */
    int            news;
} lean_slot;

/* What an event says happened on an idle connection. */
#define IDLE_NEWS (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)
/* ... and on one whose answer just ended: the bytes were the answer's. */
#define END_NEWS (EPOLLRDHUP | EPOLLHUP | EPOLLERR)

/* At most this many events are read from one epoll_wait. */
#define EVENT_BATCH 256

static int engine_open(void *actx, unsigned worker, void **out, char *err, size_t errlen)
{
    (void)worker;
    lean_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if ((e->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
        free(e);
        return -1;
    }
    e->wake_fd = -1;
    e->set.xw = actx;
    *out = e;
    return 0;
}

static void engine_close(void *v)
{
    lean_engine *e = v;
    (void)close(e->epfd);
    free(e->set.slots);
    free(e);
}

/* The request in flight waits for ev on its socket: a new socket joins
 * the set.  -1 when it cannot (errno says why). */
static int slot_watch(lean_slot *s, int ev)
{
    unsigned conns = 0;
    const int fd = rest_http_lean_fd(s->c.http, &conns);
    s->want = ev;
    if (fd == s->fd && conns == s->conns)
        return 0;
    /* A new socket (the last one left the set when it was closed). */
    struct epoll_event ee = { EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, { .ptr = s } };
    if (epoll_ctl(s->eng->epfd, EPOLL_CTL_ADD, fd, &ee) != 0 &&
        !(errno == EEXIST && epoll_ctl(s->eng->epfd, EPOLL_CTL_MOD, fd, &ee) == 0))
        return -1;
    s->fd = fd;
    s->conns = conns;
    return 0;
}

/* The request on s starts; returns what it waits for, or 0 with its
 * outcome in *rc. */
static int slot_begin(lean_slot *s, rest_lean_rc *rc)
{
    rest_slot_started(&s->eng->set, &s->c);
    unsigned conns = 0;
    const int watched = !s->news && s->fd >= 0 && rest_http_lean_fd(s->c.http, &conns) == s->fd &&
                        conns == s->conns;
    s->news = 0;
    return rest_http_lean_begin(s->c.http, watched, rc);
}

/*
 * The request on s went as far as it could: ev to wait for, or ended with
 * lrc (ev 0).  An ended request goes to the workload, which ends the
 * operation or prepares its next request, started at once.
 */
static void slot_moved(lean_slot *s, int ev, rest_lean_rc lrc)
{
    const rest_xfer_ops *ops = s->eng->set.xw->ops;
    for (;;) {
        if (ev > 0) {
            if (slot_watch(s, ev) == 0)
                return;
            lrc = rest_http_lean_abandon(s->c.http, REST_LEAN_RECV);
        }
        bench_code rc = BENCH_OK;
        if (ops->finish(s->c.state, lrc, &rc) == REST_STEP_AGAIN) {
            ev = slot_begin(s, &lrc);
            continue;
        }
        s->c.rc = rc;
        s->c.busy = 0;
        return;
    }
}

/* A deadline passed, or Ctrl-C: the request ends in the blocking engine's
 * words for the point it was at, its connection closed. */
static void slot_end(rest_slot_core *c, rest_slot_why why)
{
    const rest_lean_rc lrc = why == REST_SLOT_TIMEOUT ? REST_LEAN_TIMEOUT : REST_LEAN_ABORTED;
    slot_moved((lean_slot *)c, 0, rest_http_lean_abandon(c->http, lrc));
}

/* Whether an event is one the slot waits for: a hang-up or an error is
 * every direction's (the step reads what it means). */
static int wanted(const lean_slot *s, uint32_t got)
{
    const uint32_t any = EPOLLERR | EPOLLHUP;
    return (got & (any | (s->want == POLLOUT ? EPOLLOUT : EPOLLIN | EPOLLRDHUP))) != 0;
}

static void engine_await(void *v, int wake_fd, uint64_t max_ns)
{
    lean_engine *e = v;
    if (wake_fd >= 0 && wake_fd != e->wake_fd) {
        /* Edge-triggered too: a write to the pipe wakes one wait, and the
         * core empties the pipe and looks at its queue before it waits. */
        struct epoll_event ee = { EPOLLIN | EPOLLET, { .ptr = e } };
        if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, wake_fd, &ee) == 0 || errno == EEXIST)
            e->wake_fd = wake_fd;
    }
    const uint64_t wait_ns = rest_slot_wait_ns(&e->set, max_ns);
    struct epoll_event evs[EVENT_BATCH];
    const int timeout_ms = (int)((wait_ns + 999999) / 1000000);
    const int n = epoll_wait(e->epfd, evs, EVENT_BATCH, timeout_ms);
    e->set.now = bench_now_ns();
    for (int i = 0; i < n; i++) {
        if (evs[i].data.ptr == e)
            continue;                         /* the wake-up: the core's to read */
        lean_slot *s = evs[i].data.ptr;
        /* An idle connection's news (a close, say) is for its next
         * request to find: the lean engine then looks before it sends. */
        if (!s->c.busy) {
            s->news |= (evs[i].events & IDLE_NEWS) != 0;
            continue;
        }
        if (!wanted(s, evs[i].events))
            continue;
        /* Should the request end in this step, what came with its end. */
        s->news = (evs[i].events & END_NEWS) != 0;
        rest_lean_rc lrc = REST_LEAN_OK;
        const int ev = rest_http_lean_step(s->c.http, &lrc);
        slot_moved(s, ev, lrc);
    }
    rest_slot_ends(&e->set, slot_end);
}

static int slot_open(void *actx, void *engine, unsigned index, void **out, char *err,
                     size_t errlen)
{
    (void)actx;
    lean_slot *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->eng = engine;
    s->fd = -1;
    s->news = 1;
    if (rest_slot_open(&s->eng->set, &s->c, index, err, errlen) != 0) {
        free(s);
        return -1;
    }
    if (!rest_http_is_lean(s->c.http)) {
        /* (rest_multi_attach gives this engine lean handles only.) */
        s->eng->set.nslots--;
        rest_slot_close(&s->eng->set, &s->c);
        free(s);
        snprintf(err, errlen, "the lean engine's slots need lean HTTP handles");
        return -1;
    }
    *out = s;
    return 0;
}

static int slot_submit(void *v, bench_code *done)
{
    lean_slot *s = v;
    s->c.busy = 1;
    (void)s->eng->set.xw->ops->start(s->c.state);    /* the request, prepared on its handle */
    rest_lean_rc lrc = REST_LEAN_OK;
    const int ev = slot_begin(s, &lrc);
    slot_moved(s, ev, lrc);
    if (s->c.busy)
        return 1;
    *done = s->c.rc;
    return 0;
}

static void slot_close(void *v)
{
    lean_slot *s = v;
    /* Still in flight at the end (a hung server): its connection goes
     * (and leaves the set) before the tear-down uses the handle again. */
    if (s->c.busy)
        (void)rest_http_lean_abandon(s->c.http, REST_LEAN_ABORTED);
    rest_slot_close(&s->eng->set, &s->c);
    free(s);
}

static const bench_async_ops lean_loop_ops = {
    .open = slot_open, .submit = slot_submit, .poll = rest_slot_poll, .close = slot_close,
    .engine_open = engine_open, .engine_close = engine_close, .await = engine_await,
    .side_bind = rest_slot_side_bind, .side_flush = rest_slot_side_flush,
    .describe = rest_slot_describe,
};

const bench_async_ops *rest_lean_loop_ops(void)
{
    return &lean_loop_ops;
}

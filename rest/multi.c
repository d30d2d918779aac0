/* rest/multi.c - the curl multi engine behind non-blocking REST runs. */
#include "rest/multi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "bench/clock.h"
#include "rest/codes.h"

/*
 * The engine is libcurl's socket interface (what scales to many transfers):
 * libcurl tells us, through the socket callback, which sockets to watch for
 * what, and through the timer callback when it wants to be called without
 * socket activity; we watch them with epoll and hand each ready socket back
 * with curl_multi_socket_action(), so libcurl touches only the transfers
 * whose sockets moved, and knows which way they moved (no extra poll() per
 * transfer, no scan of every transfer per call).
 */
#define EVENTS_MAX 64

typedef struct rest_engine {
    CURLM                    *multi;
    const rest_xfer_workload *xw;
    int                       ep;          /* epoll descriptor */
    int                       wake_fd;     /* the core's wake pipe, while in ep; else -1 */
    uint64_t                  timer_due;   /* when libcurl wants its timeout action; 0: never */
} rest_engine;

typedef struct rest_slot {
    rest_engine *eng;
    void        *state;     /* the workload's worker state */
    CURL        *easy;      /* in the multi handle while the operation runs */
    int          busy;
    bench_code   rc;        /* the finished operation's code */
} rest_slot;

/* CURLMOPT_SOCKETFUNCTION: watch s for what libcurl asks, or stop. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    (void)easy;
    rest_engine *e = userp;
    if (what == CURL_POLL_REMOVE) {
        (void)epoll_ctl(e->ep, EPOLL_CTL_DEL, s, NULL);   /* ENOENT/EBADF: gone already */
        return 0;
    }
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = s;
    if (socketp && epoll_ctl(e->ep, EPOLL_CTL_MOD, s, &ev) == 0)
        return 0;
    if (epoll_ctl(e->ep, EPOLL_CTL_ADD, s, &ev) == 0 ||
        (errno == EEXIST && epoll_ctl(e->ep, EPOLL_CTL_MOD, s, &ev) == 0))
        return curl_multi_assign(e->multi, s, e) == CURLM_OK ? 0 : -1;
    return -1;
}

/* CURLMOPT_TIMERFUNCTION: -1 no timeout, 0 at once, else in ms. */
static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    rest_engine *e = userp;
    e->timer_due = timeout_ms < 0 ? 0 : bench_now_ns() + (uint64_t)timeout_ms * 1000000u;
    if (timeout_ms == 0)
        e->timer_due = 1;          /* due now (0 means "never") */
    return 0;
}

static int engine_open(void *actx, unsigned worker, void **out, char *err, size_t errlen)
{
    (void)worker;
    rest_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->wake_fd = -1;
    if ((e->ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
        free(e);
        return -1;
    }
    if (!(e->multi = curl_multi_init()) ||
        curl_multi_setopt(e->multi, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK ||
        curl_multi_setopt(e->multi, CURLMOPT_SOCKETDATA, e) != CURLM_OK ||
        curl_multi_setopt(e->multi, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK ||
        curl_multi_setopt(e->multi, CURLMOPT_TIMERDATA, e) != CURLM_OK) {
        snprintf(err, errlen, "cannot set up a curl multi handle");
        if (e->multi)
            (void)curl_multi_cleanup(e->multi);
        close(e->ep);
        free(e);
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
    close(e->ep);
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
    const rest_xfer_ops *ops = s->eng->xw->ops;
    bench_code rc = BENCH_OK;
    for (int attempt = 0; attempt < 4; attempt++) {
        CURLMcode mc = CURLM_BAD_EASY_HANDLE;
        if (curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s) == CURLE_OK &&
            (mc = curl_multi_add_handle(s->eng->multi, s->easy)) == CURLM_OK)
            return;
        CURLcode cc = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY : CURLE_FAILED_INIT;
        if (ops->finish(s->state, cc, &rc) == REST_STEP_DONE)
            break;
    }
    slot_done(s, rc != BENCH_OK ? rc : (bench_code)(REST_CODE_CURL_BASE + CURLE_FAILED_INIT));
}

/* Hand every completed transfer to its workload, which ends the operation
 * or prepares its next request.  Returns how many operations ended. */
static unsigned engine_collect(rest_engine *e)
{
    unsigned ended = 0;
    int left = 0;
    CURLMsg *m;
    while ((m = curl_multi_info_read(e->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        /* m does not survive curl_multi_remove_handle: copy it first. */
        CURL *easy = m->easy_handle;
        const CURLcode cc = m->data.result;
        rest_slot *s = NULL;
        if (curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&s) != CURLE_OK || !s)
            continue;
        (void)curl_multi_remove_handle(e->multi, easy);
        bench_code rc = BENCH_OK;
        if (e->xw->ops->finish(s->state, cc, &rc) == REST_STEP_AGAIN)
            slot_go(s);
        else
            slot_done(s, rc);
        ended += !s->busy;
    }
    return ended;
}

/* libcurl's timeout action, when it is due. */
static void engine_timers(rest_engine *e)
{
    int running = 0;
    if (e->timer_due && e->timer_due <= bench_now_ns()) {
        e->timer_due = 0;
        (void)curl_multi_socket_action(e->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

/* Watch the core's wake pipe only while the core waits for it: unread, it
 * stays readable and would end every wait at once. */
static void engine_watch_wake(rest_engine *e, int wake_fd)
{
    if (e->wake_fd == wake_fd)
        return;
    if (e->wake_fd >= 0)
        (void)epoll_ctl(e->ep, EPOLL_CTL_DEL, e->wake_fd, NULL);
    e->wake_fd = -1;
    if (wake_fd >= 0) {
        struct epoll_event ev;
        memset(&ev, 0, sizeof ev);
        ev.events = EPOLLIN;
        ev.data.fd = wake_fd;
        if (epoll_ctl(e->ep, EPOLL_CTL_ADD, wake_fd, &ev) == 0)
            e->wake_fd = wake_fd;
    }
}

static void engine_await(void *v, int wake_fd, uint64_t max_ns)
{
    rest_engine *e = v;
    engine_timers(e);
    if (engine_collect(e) > 0)
        return;
    engine_watch_wake(e, max_ns ? wake_fd : -1);
    int timeout_ms = 0;
    if (max_ns) {
        uint64_t now = bench_now_ns(), until = now + max_ns;
        if (e->timer_due && e->timer_due < until)
            until = e->timer_due;
        timeout_ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
    }
    struct epoll_event ev[EVENTS_MAX];
    const int n = epoll_wait(e->ep, ev, EVENTS_MAX, timeout_ms);
    for (int i = 0; i < n; i++) {
        if (ev[i].data.fd == e->wake_fd)
            continue;                        /* the core takes the request */
        int bits = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                   (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        int running = 0;
        (void)curl_multi_socket_action(e->multi, ev[i].data.fd, bits, &running);
    }
    engine_timers(e);
    (void)engine_collect(e);
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
    s->eng = engine;
    if (xw->ops->open(xw->ctx, index, &s->state, err, errlen) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

static int slot_submit(void *v, bench_code *done)
{
    rest_slot *s = v;
    s->busy = 1;
    s->easy = s->eng->xw->ops->start(s->state);
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
    s->eng->xw->ops->close(s->state);
    free(s);
}

void rest_multi_attach(bench_workload *w, rest_xfer_workload *xw, unsigned slots)
{
    w->actx = xw;
    w->aengine_open = engine_open;
    w->aengine_close = engine_close;
    w->await = engine_await;
    w->aopen = slot_open;
    w->asubmit = slot_submit;
    w->apoll = slot_poll;
    w->aclose = slot_close;
    w->aslots = slots;
}

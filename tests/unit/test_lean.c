/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_lean.c - the lean HTTP/1.1 engine's step interface
 * (rest/transport/lean.h) against a scripted server thread on 127.0.0.1:
 * what a step waits for, an answer in pieces, a kept connection and one
 * closed while idle, and the words rest_lean_abandon() gives at each point
 * (the exchange, the TLS handshake, Ctrl-C).  Every wait here is bounded.
 * tsan: yes (a scripted server thread beside the engine, sharing the script it follows)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "bench/util/url.h"
#include "rest/transport/lean.h"

/* What the server thread does with each connection it accepts. */
typedef enum {
    SRV_ANSWER,      /* answer each request at once, keep the connection */
    SRV_PIECES,      /* the head, 100 ms later the body */
    SRV_CLOSE,       /* answer the first request, then close the connection */
    SRV_SILENT,      /* read, never answer */
} srv_mode;

typedef struct srv {
    int       lfd;
    unsigned  port;
    srv_mode  mode;
    int       conns;       /* accepted */
    int       requests;    /* read */
    pthread_t th;
} srv;

#define ANSWER_HEAD "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
#define ANSWER_BODY "{\"ok\":true}"

/* Read one request's head (the tests send no body): 0, or -1 at its end. */
static int read_request(int fd)
{
    char buf[4096];
    size_t n = 0;
    while (n < sizeof buf - 1) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 3000) <= 0)
            return -1;
        const ssize_t r = recv(fd, buf + n, sizeof buf - 1 - n, 0);
        if (r <= 0)
            return -1;
        n += (size_t)r;
        buf[n] = 0;
        if (strstr(buf, "\r\n\r\n"))
            return 0;
    }
    return -1;
}

static void send_str(int fd, const char *s)
{
    size_t off = 0, n = strlen(s);
    while (off < n) {
        const ssize_t r = send(fd, s + off, n - off, MSG_NOSIGNAL);
        if (r <= 0)
            return;
        off += (size_t)r;
    }
}

/* Serves connections for up to 3 s each, until none comes for 3 s. */
static void *srv_main(void *arg)
{
    srv *s = arg;
    for (;;) {
        struct pollfd p = { s->lfd, POLLIN, 0 };
        if (poll(&p, 1, 3000) <= 0)
            return NULL;
        const int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        __atomic_add_fetch(&s->conns, 1, __ATOMIC_SEQ_CST);
        while (read_request(fd) == 0) {
            __atomic_add_fetch(&s->requests, 1, __ATOMIC_SEQ_CST);
            if (s->mode == SRV_SILENT)
                continue;
            if (s->mode == SRV_PIECES) {
                send_str(fd, ANSWER_HEAD);
                usleep(100000);
                send_str(fd, ANSWER_BODY);
            } else {
                send_str(fd, ANSWER_HEAD ANSWER_BODY);   /* one segment */
            }
            if (s->mode == SRV_CLOSE)
                break;
        }
        close(fd);
    }
}

static int srv_start(srv *s, srv_mode mode)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->lfd, 8) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    s->port = ntohs(a.sin_port);
    return pthread_create(&s->th, NULL, srv_main, s) == 0 ? 0 : -1;
}

static void srv_stop(srv *s)
{
    (void)shutdown(s->lfd, SHUT_RDWR);
    (void)pthread_join(s->th, NULL);
    close(s->lfd);
}

/* ---- a client: the sink and one request ------------------------------------- */

typedef struct client {
    rest_lean        *l;
    bench_url         url;
    rest_lean_req     rq;
    rest_lean_sink    sink;
    rest_lean_result  res;
    char              body[256];
    size_t            nbody;
    unsigned          header_lines;
    unsigned          waits;
    char              err[CURL_ERROR_SIZE];
} client;

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
    (void)data;
    ((client *)arg)->header_lines++;
    return size * nmemb;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    client *c = arg;
    const size_t n = size * nmemb;
    if (c->nbody + n < sizeof c->body) {
        memcpy(c->body + c->nbody, data, n);
        c->nbody += n;
        c->body[c->nbody] = 0;
    }
    return n;
}

static int client_open(client *c, const char *scheme, unsigned port)
{
    memset(c, 0, sizeof *c);
    char text[128], err[128];
    snprintf(text, sizeof text, "%s://127.0.0.1:%u/ekm/k1:wrap", scheme, port);
    if (bench_url_parse(&c->url, text, err, sizeof err) != 0)
        return -1;
    const rest_lean_tls tls = { NULL, NULL, NULL, 1 };
    if (!(c->l = rest_lean_new(&tls, err, sizeof err)))
        return -1;
    c->rq = (rest_lean_req){ "GET", &c->url, NULL, 1, NULL, 0, 0, NULL, 0, 0 };
    c->sink = (rest_lean_sink){ on_header, on_body, NULL, c };
    return 0;
}

static void client_close(client *c)
{
    rest_lean_free(c->l);
    bench_url_free(&c->url);
}

/* Begin a request and step it until it ends or asks to wait longer than
 * ms for its socket: the last step's return (0: ended, with *cc); in
 * c->waits, how many times it asked to wait. */
static int drive(client *c, int ms, rest_lean_rc *cc)
{
    c->nbody = 0;
    c->header_lines = 0;
    c->waits = 0;
    int ev = rest_lean_begin(c->l, &c->rq, &c->sink, &c->res, c->err, sizeof c->err, cc);
    while (ev > 0) {
        c->waits++;
        struct pollfd p = { rest_lean_fd(c->l), (short)ev, 0 };
        if (poll(&p, 1, ms) <= 0)
            return ev;
        ev = rest_lean_step(c->l, cc);
    }
    return ev;
}

/* ---- the cases --------------------------------------------------------------- */

static void test_kept_connection(void)
{
    srv s;
    client c;
    CHECK(srv_start(&s, SRV_ANSWER) == 0);
    CHECK(client_open(&c, "http", s.port) == 0);
    rest_lean_rc cc = REST_LEAN_IDLE;
    /* Connected, the request written and the answer read, waiting between. */
    CHECK(drive(&c, 3000, &cc) == 0 && c.waits >= 1);
    CHECK(cc == REST_LEAN_OK && c.res.status == 200 && strcmp(c.body, ANSWER_BODY) == 0);
    CHECK(c.res.stamps.num_connects == 1 && c.header_lines == 4);
    CHECK(c.res.bytes_in == strlen(ANSWER_HEAD) + strlen(ANSWER_BODY));
    const int fd = rest_lean_fd(c.l);
    /* The next request on the same connection: no new socket. */
    /* The answer is waited for once, not read in vain first. */
    CHECK(drive(&c, 3000, &cc) == 0 && cc == REST_LEAN_OK && c.res.status == 200 && c.waits == 1);
    CHECK(rest_lean_conns(c.l) == 1 && rest_lean_fd(c.l) == fd && c.res.stamps.num_connects == 0);
    CHECK(c.res.stale == 0);
    /* No request in flight: a step says so. */
    CHECK(rest_lean_step(c.l, &cc) == 0 && cc == REST_LEAN_IDLE);
    client_close(&c);
    srv_stop(&s);
    CHECK(s.conns == 1 && s.requests == 2);
}

static void test_answer_in_pieces(void)
{
    srv s;
    client c;
    CHECK(srv_start(&s, SRV_PIECES) == 0);
    CHECK(client_open(&c, "http", s.port) == 0);
    rest_lean_rc cc = REST_LEAN_IDLE;
    /* The head arrives, the body 100 ms later: between them the step waits
     * for more (ended only after the body). */
    CHECK(drive(&c, 3000, &cc) == 0 && c.waits >= 2);
    CHECK(cc == REST_LEAN_OK && c.res.status == 200 && strcmp(c.body, ANSWER_BODY) == 0);
    CHECK(c.res.stamps.total_us - c.res.stamps.starttransfer_us >= 50000);
    client_close(&c);
    srv_stop(&s);
}

static void test_closed_while_idle(void)
{
    srv s;
    client c;
    CHECK(srv_start(&s, SRV_CLOSE) == 0);
    CHECK(client_open(&c, "http", s.port) == 0);
    rest_lean_rc cc = REST_LEAN_IDLE;
    CHECK(drive(&c, 3000, &cc) == 0 && cc == REST_LEAN_OK);
    usleep(100000);                 /* the server's close arrives */
    /* Found closed before the request is written: a new connection, the
     * request sent once. */
    CHECK(drive(&c, 3000, &cc) == 0 && cc == REST_LEAN_OK && c.res.status == 200);
    CHECK(c.res.stale == 1 && c.res.stamps.num_connects == 1 && rest_lean_conns(c.l) == 2);
    client_close(&c);
    srv_stop(&s);
    CHECK(s.conns == 2 && s.requests == 2);
}

static void test_abandoned_exchange(void)
{
    srv s;
    client c;
    CHECK(srv_start(&s, SRV_SILENT) == 0);
    CHECK(client_open(&c, "http", s.port) == 0);
    rest_lean_rc cc = REST_LEAN_OK;
    /* The request goes out and nothing comes back: still waiting after
     * 100 ms; abandoned as timed out, in libcurl's words. */
    CHECK(drive(&c, 100, &cc) == POLLIN);
    CHECK(rest_lean_abandon(c.l, REST_LEAN_TIMEOUT) == REST_LEAN_TIMEOUT);
    CHECK_MSG(strncmp(c.err, "Operation timed out after ", 26) == 0 &&
              strstr(c.err, " milliseconds with 0 bytes received") != NULL, "%s", c.err);
    CHECK(rest_lean_fd(c.l) == -1 && c.res.stamps.total_us >= 100000);
    /* Ctrl-C at the same point. */
    CHECK(drive(&c, 50, &cc) == POLLIN && c.res.stamps.num_connects == 1);
    CHECK(rest_lean_abandon(c.l, REST_LEAN_ABORTED) == REST_LEAN_ABORTED);
    CHECK_MSG(strcmp(c.err, "Callback aborted") == 0, "%s", c.err);
    /* Nothing in flight: nothing to abandon, nothing written. */
    c.err[0] = 0;
    CHECK(rest_lean_abandon(c.l, REST_LEAN_TIMEOUT) == REST_LEAN_TIMEOUT && !c.err[0]);
    client_close(&c);
    srv_stop(&s);
}

static void test_abandoned_handshake(void)
{
    srv s;
    client c;
    /* A TCP server that never speaks TLS: the handshake waits for its
     * answer, and ends as libcurl's handshake timeout does, in its words. */
    CHECK(srv_start(&s, SRV_SILENT) == 0);
    CHECK(client_open(&c, "https", s.port) == 0);
    rest_lean_rc cc = REST_LEAN_OK;
    CHECK(drive(&c, 100, &cc) == POLLIN);
    CHECK(c.res.stamps.connect_us > 0 && c.res.stamps.appconnect_us == 0);
    CHECK(rest_lean_abandon(c.l, REST_LEAN_TIMEOUT) == REST_LEAN_TIMEOUT);
    /* libcurl's wording for a handshake that runs out of time (issue 38, item 14) */
    CHECK_MSG(strncmp(c.err, "Connection timed out after ", 27) == 0 &&
              strstr(c.err, " milliseconds") != NULL, "%s", c.err);
    CHECK(rest_lean_fd(c.l) == -1);
    client_close(&c);
    srv_stop(&s);
}

static void test_blocking_timeout(void)
{
    srv s;
    client c;
    CHECK(srv_start(&s, SRV_SILENT) == 0);
    CHECK(client_open(&c, "http", s.port) == 0);
    c.rq.timeout_ms = 150;
    /* The blocking engine: the same state machine, its own deadline. */
    const rest_lean_rc cc = rest_lean_perform(c.l, &c.rq, &c.sink, &c.res, c.err, sizeof c.err);
    CHECK(cc == REST_LEAN_TIMEOUT);
    CHECK_MSG(strstr(c.err, "Operation timed out after ") == c.err, "%s", c.err);
    CHECK(c.res.stamps.total_us >= 150000 && c.res.stamps.total_us < 3000000);
    client_close(&c);
    srv_stop(&s);
}

static void test_refused(void)
{
    srv s;
    client c;
    /* A port nobody listens on any more. */
    CHECK(srv_start(&s, SRV_ANSWER) == 0);
    const unsigned port = s.port;
    srv_stop(&s);
    CHECK(client_open(&c, "http", port) == 0);
    rest_lean_rc cc = REST_LEAN_OK;
    CHECK(drive(&c, 3000, &cc) == 0 && cc == REST_LEAN_CONNECT);
    CHECK_MSG(strstr(c.err, "Failed to connect to 127.0.0.1 port ") == c.err &&
              strstr(c.err, "Connection refused") != NULL, "%s", c.err);
    CHECK(c.res.os_errno == ECONNREFUSED && rest_lean_fd(c.l) == -1);
    client_close(&c);
}

int main(void)
{
    RUN(test_kept_connection);
    RUN(test_answer_in_pieces);
    RUN(test_closed_while_idle);
    RUN(test_abandoned_exchange);
    RUN(test_abandoned_handshake);
    RUN(test_blocking_timeout);
    RUN(test_refused);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_lean.c - the lean HTTP engine's reading of an answer
 * (rest/transport/lean.c: http_parser and what hsmbench does around it:
 * header lines, 1xx answers, trailers, chunked framing, the byte bounds,
 * the classes of a broken answer).  The input is what a server answers,
 * byte for byte, over a real loopback connection: the engine connects to
 * a listener of the harness's own, sends its request, which the harness
 * reads, then reads the input and the end of the connection.  The first
 * byte chooses how the input is cut into writes (so that the parser meets
 * every split), the rest is the answer (at most 60 KiB: one socket buffer).
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/util/url.h"
#include "rest/transport/lean.h"

#define ANSWER_MAX (60u * 1024)

static size_t take(char *data, size_t size, size_t nmemb, void *arg)
{
    (void)data, (void)arg;
    return size * nmemb;
}

/* A listener on 127.0.0.1 (made once) and its URL; -1 when there is none. */
static int listener(bench_url *url)
{
    static int fd = -2;
    static bench_url u;
    if (fd == -2) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof a;
        char text[64];
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0 ||
            getsockname(fd, (struct sockaddr *)&a, &al) != 0 ||
            snprintf(text, sizeof text, "http://127.0.0.1:%u/k", (unsigned)ntohs(a.sin_port)) < 0 ||
            bench_url_parse(&u, text, NULL, 0) != 0) {
            if (fd >= 0)
                (void)close(fd);
            fd = -1;
        }
    }
    *url = u;
    return fd;
}

/* Connect and send: until the request waits for its answer (POLLIN) or
 * ended (0). */
static int drive(rest_lean *l, int ev, rest_lean_rc *cc)
{
    while (ev == POLLOUT) {
        struct pollfd p = { rest_lean_fd(l), POLLOUT, 0 };
        if (poll(&p, 1, 2000) <= 0) {
            *cc = rest_lean_abandon(l, REST_LEAN_TIMEOUT);
            return 0;
        }
        ev = rest_lean_step(l, cc);
    }
    return ev;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bench_url url;
    const int lfd = listener(&url);
    if (lfd < 0 || size < 1 || size - 1 > ANSWER_MAX)
        return 0;
    const size_t cut = (size_t)data[0] + 1;       /* bytes a write */
    const uint8_t *answer = data + 1;
    const size_t n = size - 1;
    char err[256], errbuf[CURL_ERROR_SIZE];
    const rest_lean_tls tls = { NULL, NULL, NULL, 0 };
    rest_lean *l = rest_lean_new(&tls, err, sizeof err);
    if (!l)
        return 0;
    const rest_lean_req rq = { "POST", &url, NULL, 1, "{}", 2, 5000, NULL, 0, 0 };
    const rest_lean_sink sink = { take, take, NULL, NULL };
    rest_lean_result res;
    rest_lean_rc cc = REST_LEAN_OK;
    int ev = rest_lean_begin(l, &rq, &sink, &res, errbuf, sizeof errbuf, &cc);
    const int sfd = ev > 0 ? accept(lfd, NULL, NULL) : -1;
    if (sfd >= 0) {
        ev = drive(l, ev, &cc);
        char req[4096];
        while (recv(sfd, req, sizeof req, MSG_DONTWAIT) > 0)
            ;                              /* the request, read: no reset at the close */
        for (size_t o = 0; o < n && ev > 0;) {
            const size_t k = n - o < cut ? n - o : cut;
            const ssize_t w = send(sfd, answer + o, k, MSG_NOSIGNAL);
            if (w <= 0)
                break;
            o += (size_t)w;
            /* The engine reads what came so far: the next write is a
             * split it meets. */
            struct pollfd p = { rest_lean_fd(l), POLLIN, 0 };
            if (poll(&p, 1, 0) > 0)
                ev = rest_lean_step(l, &cc);
        }
        (void)shutdown(sfd, SHUT_WR);
        while (ev > 0) {
            struct pollfd p = { rest_lean_fd(l), (short)ev, 0 };
            if (poll(&p, 1, 2000) <= 0) {
                cc = rest_lean_abandon(l, REST_LEAN_TIMEOUT);
                break;
            }
            ev = rest_lean_step(l, &cc);
        }
        (void)close(sfd);
    } else if (ev > 0) {
        cc = rest_lean_abandon(l, REST_LEAN_TIMEOUT);
    }
    /* A final answer has a status HTTP allows; a failure says why. */
    if (cc == REST_LEAN_OK && (res.status < 100 || res.status > 999))
        abort();
    if (cc != REST_LEAN_OK && !errbuf[0])
        abort();
    rest_lean_free(l);
    return 0;
}

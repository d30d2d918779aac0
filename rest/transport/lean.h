/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/lean.h - the lean HTTP/1.1 engine: one kept-alive
 * connection per worker (or non-blocking slot), plain or TLS (OpenSSL),
 * requests written out by the engine itself and answers read by
 * http_parser (Debian's libhttp-parser), with none of libcurl's
 * per-request machinery.
 *
 * It does one thing, the commonest load: HTTP/1.1 requests with keep-alive
 * to one endpoint, no proxy, certificate and host name verified (unless
 * --insecure), SNI, client certificates.  A request is a state machine
 * (resolve, connect, TLS handshake, send, receive) over a non-blocking
 * socket: run to its end by rest_lean_perform() for a blocking worker, or
 * a step at a time by the non-blocking engine's epoll loop
 * (rest/transport/lean_loop.h).  What it does not do (HTTP/2, a new
 * connection per request, the generic `rest http` command) stays
 * libcurl's; the choice between them is --engine, settled by
 * rest_http_pick_engine() (rest/transport/http.h).
 *
 * A request ends with one of the engine's own codes (rest_lean_rc, each an
 * event of its own: a refused connect, a connection closed without a byte
 * of answer, a body cut short, ...), classified once with libcurl's for
 * the same events by rest_code_from_lean() (rest/transport/codes.h), and a
 * message in libcurl's words for the same event; the header lines, the
 * body and the -v log go to callbacks with libcurl's signatures; the
 * timestamps are libcurl's (rest/transport/phases.h).
 *
 * A kept connection the server closed while it was idle is noticed before
 * the request is written (a poll that finds it readable: an end of file or
 * bytes nobody asked for; or, in the epoll loop, the wait that saw it) and
 * a new one is made: the request's phases
 * show the new connection.  A request is never sent twice: a connection
 * that breaks once the request went out is the request's failure.
 */
#ifndef REST_LEAN_H
#define REST_LEAN_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

#include "bench/util/signals.h"
#include "bench/util/url.h"
#include "rest/transport/phases.h"

typedef struct rest_lean rest_lean;

/* How a request ended.  Each failure comes with a message in the caller's
 * errbuf (in libcurl's words for the same event) and, for a connect, a
 * send or a receive, the errno in rest_lean_result.os_errno. */
typedef enum rest_lean_rc {
    REST_LEAN_OK = 0,           /* a final answer arrived, whatever its status */
    REST_LEAN_NO_MEMORY,        /* out of memory */
    REST_LEAN_RESOLVE,          /* the host name does not resolve */
    REST_LEAN_CONNECT,          /* the TCP connection failed (os_errno says why) */
    REST_LEAN_TLS,              /* the TLS handshake failed, or could not start */
    REST_LEAN_PEER_UNVERIFIED,  /* the server's certificate or name did not verify */
    REST_LEAN_CA_FILE,          /* --cacert (or the system's CAs) does not load */
    REST_LEAN_CLIENT_CERT,      /* --cert or --key does not load */
    REST_LEAN_SEND,             /* the connection broke while the request went out */
    REST_LEAN_RECV,             /* ... or while the answer came in */
    REST_LEAN_EMPTY,            /* closed without a byte of answer */
    REST_LEAN_PARTIAL,          /* the body ended before its length */
    REST_LEAN_HEADER_TOO_LARGE, /* a header line over 100 KiB, or REST_HEADER_BYTES_MAX in all */
    REST_LEAN_BAD_CHUNK,        /* a chunk size that is not one, or a size line past the limit */
    REST_LEAN_BAD_VERSION,      /* not HTTP/1.x, or a status that is not one */
    REST_LEAN_BAD_ANSWER,       /* an answer HTTP/1.1 does not allow here (101, bad framing) */
    REST_LEAN_SINK,             /* a callback refused the bytes it was given */
    REST_LEAN_TIMEOUT,          /* the request's time passed */
    REST_LEAN_ABORTED,          /* abandoned: Ctrl-C */
    REST_LEAN_IDLE,             /* a step with no request in flight */
} rest_lean_rc;

/* libcurl's words for an event with no message of its own ("Failed
 * initialization" for REST_LEAN_IDLE, ...). */
const char *rest_lean_strerror(rest_lean_rc rc);

/* What both engines say of an answer with a header line over 100 KiB
 * (libcurl's CURL_MAX_HTTP_HEADER, the lean engine's limit too). */
#define REST_HEADER_TOO_LARGE_TEXT "Response header too large (a line over 100 KiB)"

/* The most header bytes one request may take in, over all its answers
 * (interim 1xx ones included) and a chunked body's trailer lines: libcurl's
 * MAX_HTTP_RESP_HEADER_SIZE, which it applies to the headers (not to the
 * trailers: hsmbench's header callback does), and the lean engine's.  Past
 * it the request fails, in libcurl's words, REST_HEADERS_TOO_LARGE_FMT
 * (the bytes, the limit): HEADER_TOO_LARGE (rest/transport/codes.h). */
#define REST_HEADER_BYTES_MAX (300u * 1024)
#define REST_HEADERS_TOO_LARGE_FMT "Too large response headers: %llu > %u"

/* TLS settings (rest_http_opts' --cacert, --cert, --key, --insecure). */
typedef struct rest_lean_tls {
    const char *cacert, *cert, *key;
    int         insecure;
} rest_lean_tls;

/* Where an answer goes: libcurl's header, write and debug callbacks (the
 * easy-handle argument of debug is NULL).  debug may be NULL: no log. */
typedef struct rest_lean_sink {
    size_t (*header)(char *data, size_t size, size_t nmemb, void *arg);
    size_t (*body)(char *data, size_t size, size_t nmemb, void *arg);
    int    (*debug)(CURL *easy, curl_infotype type, char *data, size_t size, void *arg);
    void   *arg;
} rest_lean_sink;

/* One request.  headers: the lines to send ("Name: value"; a "Name:" with
 * no value sends nothing, as with libcurl); Host and, with a body or for
 * POST, Content-Length are the engine's. */
typedef struct rest_lean_req {
    const char              *method;
    const bench_url         *url;
    const struct curl_slist *headers;
    /* The head is pre-built and known by method, url and headers' addresses
     * and this number: it must change whenever the lines behind headers or
     * the URL behind url change (a URL made for one request at the address
     * of another). */
    unsigned long            headers_gen;
    const char              *body;
    size_t                   len;
    long                     timeout_ms;   /* the whole request, connection included; 0: none */
    const bench_flag        *interrupt;    /* abandon when it becomes non-zero; NULL: never */
    int                      interrupt_bits; /* only when these bits of it rise (0: any) */
    /* The caller watched the kept connection since its last answer ended
     * (an edge-triggered wait for reading and hang-ups) and nothing came:
     * rest_lean_begin() need not look at it before sending (a poll and a
     * peek for each request otherwise).  0: it looks. */
    int                      idle_watched;
} rest_lean_req;

typedef struct rest_lean_result {
    long        status;       /* the final answer's status; 0: none */
    rest_stamps stamps;       /* microseconds from the request's start, as libcurl's */
    uint64_t    bytes_in, bytes_out;   /* on the wire (TLS records aside), headers included */
    long        os_errno;     /* of a failed connect, send or receive; 0 */
    unsigned    stale;        /* kept connections found closed before this request was sent */
    unsigned    unsolicited;  /* an answer nobody asked for: held by the kept connection, or after this answer */
} rest_lean_result;

/* An engine for one worker; NULL with one line in err (a certificate or
 * key that does not load, out of memory). */
rest_lean *rest_lean_new(const rest_lean_tls *tls, char *err, size_t errlen);
/* Closes its connection and frees it. */
void rest_lean_free(rest_lean *l);

/* Run one request to its end, blocking (under rq's timeout_ms and
 * interrupt).  REST_LEAN_OK when a final answer arrived (whatever its
 * status), else the failure with a message in errbuf. */
rest_lean_rc rest_lean_perform(rest_lean *l, const rest_lean_req *rq, const rest_lean_sink *sink,
                               rest_lean_result *res, char *errbuf, size_t errlen);

/*
 * The same request a step at a time, for an event loop (the non-blocking
 * engine, rest/transport/lean_loop.c): rest_lean_begin() starts it and goes
 * as far as it can without waiting; it and rest_lean_step() return POLLIN
 * or POLLOUT, what the socket (rest_lean_fd) must become before the next
 * step can go on, or 0 when the request ended, with its outcome in *rc as
 * rest_lean_perform() would return it.  Every step goes on until the socket
 * would block, so an edge-triggered wait sees every change.  rq's pointers,
 * res and errbuf must stay valid until the end; timeout_ms and interrupt
 * are the caller's to enforce, with rest_lean_abandon().
 */
int rest_lean_begin(rest_lean *l, const rest_lean_req *rq, const rest_lean_sink *sink,
                    rest_lean_result *res, char *errbuf, size_t errlen, rest_lean_rc *rc);
int rest_lean_step(rest_lean *l, rest_lean_rc *rc);
/* End the request in flight for the caller's reason: why is
 * REST_LEAN_TIMEOUT or REST_LEAN_ABORTED (or REST_LEAN_RECV: the caller
 * cannot wait for its socket), with the message
 * the blocking engine gives for it at the same point (connecting, TLS,
 * the exchange); its connection is closed.  Returns why. */
rest_lean_rc rest_lean_abandon(rest_lean *l, rest_lean_rc why);
/* The socket of the connection (made or being made), or -1. */
int rest_lean_fd(const rest_lean *l);
/* How many sockets were made so far: when it changes, rest_lean_fd() is
 * a new socket (its number may be an old one's). */
unsigned rest_lean_conns(const rest_lean *l);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/lean.c - HTTP/1.1 keep-alive over a socket of its own (see lean.h). */
#include "rest/transport/lean.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <http_parser.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "bench/util/clock.h"

#define IN_BUF       16384
/* libcurl's limit on one header line (CURL_MAX_HTTP_HEADER): a longer one
 * is a failure, HEADER_TOO_LARGE (rest/transport/codes.h). */
#define LINE_MAX_LEN (100u * 1024)
/* The most bytes read (and dropped) from a connection before it is closed. */
#define DRAIN_MAX    (256u * 1024)
/* While a request may be abandoned, the longest wait between looks at the
 * interrupt flag. */
#define POLL_SLICE_MS 50

/* The header line being put together from http_parser's pieces, and what
 * the current answer has come to. */
typedef struct lean_parse {
    const rest_lean_sink *sink;
    char    *line;
    size_t   nline, cap;
    int      in_value;       /* the last piece was a value */
    int      status_sent;    /* this answer's status line went to the sink */
    int      is_1xx;         /* an interim answer (100 Continue): another follows */
    int      final_done;     /* the final answer is complete */
    int      too_long;       /* a header line over LINE_MAX_LEN */
    int      in_body;        /* the final answer's headers are done */
    int      in_trailers;    /* its last chunk came: trailer lines follow */
    uint64_t hdr_bytes;      /* header and trailer bytes of this request's answers */
    rest_lean_rc fail;           /* a callback's failure, or REST_LEAN_OK */
} lean_parse;

struct rest_lean {
    rest_lean_tls tls;
    SSL_CTX      *ctx;               /* made at the first TLS connection */
    int           fd;                /* the kept connection, or -1 */
    SSL          *ssl;               /* its TLS, or NULL on plain HTTP */
    SSL_SESSION  *session;           /* to resume at the next connection */
    const bench_url *conn_url;       /* what fd is connected to (scheme, host, port) */
    /* What is written: the request's head as last built, then the body
     * (out_cap: its room); the head stays while what it came from does. */
    char         *out;
    size_t        out_cap, head_len;
    const char   *k_method;
    const bench_url *k_url;
    const struct curl_slist *k_headers;
    unsigned long k_gen;
    size_t        k_len;
    int           k_valid;
    lean_parse    ps;
    /* The request in flight, from rest_lean_begin() to its end (st
     * LS_IDLE: none); rq's pointers are the caller's, valid till then. */
    int           st;
    rest_lean_req rq;
    rest_lean_sink sink;
    rest_lean_result *res;
    char         *errbuf;
    size_t        errlen;
    uint64_t      t0;
    size_t        sent;              /* of the head and body */
    struct addrinfo *ai, *ai_next;   /* the endpoint's addresses; those not tried yet */
    int           last_errno;        /* why the last address tried failed */
    char          addr[INET6_ADDRSTRLEN];   /* the address being connected to */
    unsigned      conns;             /* sockets made (rest_lean_conns) */
    http_parser   hp;
    char          in[IN_BUF];
};

/* Where the request in flight is. */
enum { LS_IDLE, LS_CONNECT, LS_HANDSHAKE, LS_SEND, LS_RECV };
/* What a step returns when the request moved on to its next state (else
 * POLLIN or POLLOUT: wait for that; 0: the request ended). */
#define STEP_ON (-1)

/* ---- small helpers ------------------------------------------------------------ */

static int64_t since_us(uint64_t t0)
{
    return (int64_t)((bench_now_ns() - t0) / 1000);
}

static void text(const rest_lean_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text(const rest_lean_sink *s, const char *fmt, ...)
{
    if (!s->debug)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    (void)s->debug(NULL, CURLINFO_TEXT, buf, len, s->arg);
}

/* The host without an IPv6 address's brackets, into buf. */
static const char *bare_host(const char *host, char *buf, size_t len)
{
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < len) {
        memcpy(buf, host + 1, n - 2);
        buf[n - 2] = 0;
        return buf;
    }
    snprintf(buf, len, "%s", host);
    return buf;
}

/* The OpenSSL error queue's oldest error into buf, the queue emptied;
 * whether it held one. */
static int queue_text(char *buf, size_t len)
{
    const unsigned long q = ERR_get_error();
    if (q)
        ERR_error_string_n(q, buf, len);
    ERR_clear_error();
    return q != 0;
}

/* Why a certificate or key did not load: the queue's error. */
static const char *ssl_reason(char *buf, size_t len)
{
    if (!queue_text(buf, len))
        snprintf(buf, len, "no detail from OpenSSL");
    return buf;
}

/* SSL_get_error()'s code by name, as libcurl prints it. */
static const char *ssl_error_name(int e)
{
    switch (e) {
    case SSL_ERROR_SSL:         return "SSL_ERROR_SSL";
    case SSL_ERROR_SYSCALL:     return "SSL_ERROR_SYSCALL";
    case SSL_ERROR_ZERO_RETURN: return "SSL_ERROR_ZERO_RETURN";
    case SSL_ERROR_WANT_READ:   return "SSL_ERROR_WANT_READ";
    case SSL_ERROR_WANT_WRITE:  return "SSL_ERROR_WANT_WRITE";
    default:                    return "SSL_ERROR unknown";
    }
}

/*
 * A failed TLS read, write or handshake in libcurl 7.88's words, so that
 * both engines' errors read the same: the OpenSSL error queue's oldest
 * error as "OpenSSL/3.0.x: error:...", else errno's text for a system
 * call's failure, else the SSL_ERROR_ code's name.  *queued: whether the
 * queue held one.
 */
static const char *ssl_text(char *buf, size_t len, int e, int sys, int *queued)
{
    const int k = snprintf(buf, len, "OpenSSL/%s: ", OpenSSL_version(OPENSSL_VERSION_STRING));
    *queued = k > 0 && (size_t)k < len && queue_text(buf + k, len - (size_t)k);
    if (*queued)
        return buf;
    if (sys && e == SSL_ERROR_SYSCALL)
        snprintf(buf, len, "%s", strerror(sys));
    else
        snprintf(buf, len, "%s", ssl_error_name(e));
    return buf;
}


/* What an SSL_get_error() code says to wait for: POLLIN or POLLOUT, or 0
 * when it is a failure, not a wait. */
static int ssl_wait(int e)
{
    return e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
}

/* ---- waiting (the blocking engine's) ------------------------------------------ */

enum { WAIT_READY, WAIT_TIMEOUT, WAIT_INTERRUPTED, WAIT_ERROR };

/* Has the request's interrupt flag risen (the bits it watches)? */
static int interrupted(const rest_lean_req *rq)
{
    if (!rq->interrupt)
        return 0;
    const int v = *rq->interrupt;
    return rq->interrupt_bits ? (v & rq->interrupt_bits) != 0 : v != 0;
}

/* Until fd is ready for events, the deadline (ns; 0: none) passes, or the
 * request's interrupt flag rises. */
static int wait_fd(int fd, short events, uint64_t deadline, const rest_lean_req *rq)
{
    const bench_flag *intr = rq ? rq->interrupt : NULL;
    for (;;) {
        const uint64_t now = bench_now_ns();
        if (deadline && now >= deadline)
            return WAIT_TIMEOUT;
        if (rq && interrupted(rq))
            return WAIT_INTERRUPTED;
        int ms = -1;
        if (deadline) {
            const uint64_t left = (deadline - now + 999999) / 1000000;
            ms = left > 3600000 ? 3600000 : (int)left;
        }
        if (intr && (ms < 0 || ms > POLL_SLICE_MS))
            ms = POLL_SLICE_MS;
        struct pollfd p = { fd, events, 0 };
        const int r = poll(&p, 1, ms);
        if (r > 0)
            return WAIT_READY;
        if (r < 0 && errno != EINTR)
            return WAIT_ERROR;
    }
}

/* ---- the connection --------------------------------------------------------------- */

static void conn_close(rest_lean *l, const rest_lean_sink *sink)
{
    if (l->fd < 0)
        return;
    if (sink)
        text(sink, "Closing connection");
    if (l->ssl) {
        SSL_SESSION *s = SSL_get1_session(l->ssl);
        if (s && SSL_SESSION_is_resumable(s)) {
            if (l->session)
                SSL_SESSION_free(l->session);
            l->session = s;
        } else if (s) {
            SSL_SESSION_free(s);
        }
        SSL_free(l->ssl);               /* no close_notify: the server needs none */
        l->ssl = NULL;
        ERR_clear_error();
    }
    /* What came and was not read is read first (a bounded amount): closed
     * with bytes unread, the socket would end with a reset, and a reset
     * makes the server drop the requests it has not read yet, which it then
     * never counts. */
    for (size_t drained = 0; drained < DRAIN_MAX;) {
        const ssize_t r = recv(l->fd, l->in, sizeof l->in, MSG_DONTWAIT);
        if (r <= 0 && !(r < 0 && errno == EINTR))
            break;
        drained += r > 0 ? (size_t)r : 0;
    }
    (void)close(l->fd);
    l->fd = -1;
    l->conn_url = NULL;
}

/* Whether the idle kept connection was closed by the server (1) or sent
 * what nobody asked for (STALE_UNSOLICITED): then it cannot carry a
 * request; 0 when it can. */
#define STALE_UNSOLICITED 2
static int conn_stale(rest_lean *l)
{
    struct pollfd p = { l->fd, POLLIN, 0 };
    const int r = poll(&p, 1, 0);
    /* (TLS may hold bytes read ahead, which poll does not see.) */
    if (r == 0 && !(l->ssl && SSL_has_pending(l->ssl)))
        return 0;
    if (r < 0)
        return 1;
    if (l->ssl) {
        /* A TLS 1.3 session ticket arriving late is read and is no sign. */
        char c;
        ERR_clear_error();
        const int n = SSL_peek(l->ssl, &c, 1);
        const int alive = n <= 0 && SSL_get_error(l->ssl, n) == SSL_ERROR_WANT_READ;
        ERR_clear_error();
        return n > 0 ? STALE_UNSOLICITED : !alive;
    }
    char c;
    const ssize_t n = recv(l->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n > 0 ? STALE_UNSOLICITED : !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

static rest_lean_rc tls_context(rest_lean *l, char *errbuf, size_t errlen)
{
    if (l->ctx)
        return REST_LEAN_OK;
    SSL_CTX *c = SSL_CTX_new(TLS_client_method());
    if (!c) {
        snprintf(errbuf, errlen, "cannot create a TLS context (out of memory)");
        return REST_LEAN_NO_MEMORY;
    }
    /* An end of file without close_notify ends a body read to the end
     * (the parser still tells a body cut short of its length). */
    SSL_CTX_set_options(c, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* A record's header and body in one read, not two. */
    SSL_CTX_set_read_ahead(c, 1);
    (void)SSL_CTX_set_alpn_protos(c, (const unsigned char *)"\x08http/1.1", 9);
    if (!l->tls.insecure) {
        SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
        const int ok = l->tls.cacert ? SSL_CTX_load_verify_locations(c, l->tls.cacert, NULL)
                                     : SSL_CTX_set_default_verify_paths(c);
        if (ok != 1) {
            char why[256];
            snprintf(errbuf, errlen, "error setting certificate file: %s (%s)",
                     l->tls.cacert ? l->tls.cacert : "the system's", ssl_reason(why, sizeof why));
            SSL_CTX_free(c);
            return REST_LEAN_CA_FILE;
        }
    }
    if (l->tls.cert) {
        char why[256];
        const char *key = l->tls.key ? l->tls.key : l->tls.cert;
        if (SSL_CTX_use_certificate_chain_file(c, l->tls.cert) != 1) {
            snprintf(errbuf, errlen, "could not load PEM client certificate from %s (%s)", l->tls.cert,
                     ssl_reason(why, sizeof why));
            SSL_CTX_free(c);
            return REST_LEAN_CLIENT_CERT;
        }
        if (SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(c) != 1) {
            snprintf(errbuf, errlen, "unable to set private key file: '%s' (%s)", key,
                     ssl_reason(why, sizeof why));
            SSL_CTX_free(c);
            return REST_LEAN_CLIENT_CERT;
        }
    }
    l->ctx = c;
    return REST_LEAN_OK;
}


const char *rest_lean_strerror(rest_lean_rc rc)
{
    /* curl_easy_strerror()'s texts for the same events. */
    static const char *const text[] = {
        [REST_LEAN_OK] = "No error",
        [REST_LEAN_NO_MEMORY] = "Out of memory",
        [REST_LEAN_RESOLVE] = "Couldn't resolve host name",
        [REST_LEAN_CONNECT] = "Couldn't connect to server",
        [REST_LEAN_TLS] = "SSL connect error",
        [REST_LEAN_PEER_UNVERIFIED] = "SSL peer certificate or SSH remote key was not OK",
        [REST_LEAN_CA_FILE] = "Problem with the SSL CA cert (path? access rights?)",
        [REST_LEAN_CLIENT_CERT] = "Problem with the local SSL certificate",
        [REST_LEAN_SEND] = "Failed sending data to the peer",
        [REST_LEAN_RECV] = "Failure when receiving data from the peer",
        [REST_LEAN_EMPTY] = "Server returned nothing (no headers, no data)",
        [REST_LEAN_PARTIAL] = "Transferred a partial file",
        [REST_LEAN_HEADER_TOO_LARGE] = REST_HEADER_TOO_LARGE_TEXT,
        [REST_LEAN_BAD_CHUNK] = "Failure when receiving data from the peer",
        [REST_LEAN_BAD_VERSION] = "Unsupported protocol",
        [REST_LEAN_BAD_ANSWER] = "Weird server reply",
        [REST_LEAN_SINK] = "Failed writing received data to disk/application",
        [REST_LEAN_TIMEOUT] = "Timeout was reached",
        [REST_LEAN_ABORTED] = "Operation was aborted by an application callback",
        [REST_LEAN_IDLE] = "Failed initialization",
    };
    return (unsigned)rc < sizeof text / sizeof text[0] && text[rc] ? text[rc] : "Unknown error";
}

/* ---- the request's end ---------------------------------------------------------- */

/* The request in flight ends with code (its message in errbuf already);
 * keep: the connection may carry the next.  Returns 0, a step's "ended". */
static int end(rest_lean *l, rest_lean_rc *cc, rest_lean_rc code, int keep)
{
    *cc = code;
    if (code != REST_LEAN_OK || !keep)
        conn_close(l, code == REST_LEAN_OK ? &l->sink : NULL);
    if (code != REST_LEAN_OK)
        l->res->stamps.total_us = since_us(l->t0);
    if (l->ai) {
        freeaddrinfo(l->ai);
        l->ai = l->ai_next = NULL;
    }
    l->st = LS_IDLE;
    return 0;
}

static int same_endpoint(const bench_url *a, const bench_url *b)
{
    return a == b || (a->scheme == b->scheme && a->port == b->port && strcmp(a->host, b->host) == 0);
}

/* ---- writing the request ---------------------------------------------------------- */

static int grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    char *nb = realloc(*buf, c);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = c;
    return 0;
}

/* The request line and headers at the start of l->out, written once and
 * kept while nothing they come from changes (the common case: the same
 * request again). */
static int build_head(rest_lean *l, const rest_lean_req *rq)
{
    const unsigned long gen = rq->headers_gen;
    const int has_len = rq->len > 0 || strcmp(rq->method, "POST") == 0;
    if (l->k_valid && l->k_method == rq->method && l->k_url == rq->url && l->k_headers == rq->headers &&
        l->k_gen == gen && (!has_len || l->k_len == rq->len))
        return 0;
    const bench_url *u = rq->url;
    size_t need = strlen(rq->method) + strlen(u->path) + (u->query ? strlen(u->query) + 1 : 0) +
                  strlen(u->host) + 96;
    for (const struct curl_slist *n = rq->headers; n; n = n->next)
        need += strlen(n->data) + 2;
    if (grow(&l->out, &l->out_cap, need) != 0)
        return -1;
    const int dflt = u->port == (u->scheme == BENCH_URL_HTTPS ? 443u : 80u);
    int w = snprintf(l->out, l->out_cap, "%s %s%s%s HTTP/1.1\r\nHost: %s", rq->method,
                     u->path[0] ? u->path : "/", u->query ? "?" : "", u->query ? u->query : "", u->host);
    size_t o = (size_t)w;
    if (!dflt)
        o += (size_t)snprintf(l->out + o, l->out_cap - o, ":%u", u->port);
    memcpy(l->out + o, "\r\n", 2);
    o += 2;
    for (const struct curl_slist *n = rq->headers; n; n = n->next) {
        const char *c = strchr(n->data, ':');
        if (c) {
            const char *v = c + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            if (!*v)
                continue;                   /* "Name:": send none (libcurl's rule) */
        }
        const size_t dl = strlen(n->data);
        memcpy(l->out + o, n->data, dl);
        o += dl;
        memcpy(l->out + o, "\r\n", 2);
        o += 2;
    }
    if (has_len)
        o += (size_t)snprintf(l->out + o, l->out_cap - o, "Content-Length: %zu\r\n", rq->len);
    memcpy(l->out + o, "\r\n", 2);
    o += 2;
    l->head_len = o;
    l->k_method = rq->method;
    l->k_url = rq->url;
    l->k_headers = rq->headers;
    l->k_gen = gen;
    l->k_len = rq->len;
    l->k_valid = 1;
    return 0;
}


/* The connection is up: the request goes out next. */
static int ready(rest_lean *l)
{
    l->conn_url = l->rq.url;
    if (l->rq.len)
        memcpy(l->out + l->head_len, l->rq.body, l->rq.len);
    if (l->sink.debug)
        (void)l->sink.debug(NULL, CURLINFO_HEADER_OUT, l->out, l->head_len, l->sink.arg);
    l->res->stamps.pretransfer_us = since_us(l->t0);
    l->sent = 0;
    l->st = LS_SEND;
    return STEP_ON;
}

/* A set-up step failed: the request ended with code.  Returns -1. */
static int fail_setup(rest_lean *l, rest_lean_rc *cc, rest_lean_rc code)
{
    (void)end(l, cc, code, 0);
    return -1;
}

/* ---- TLS ----------------------------------------------------------------------------- */

/* The host name or address the request's URL names, without brackets. */
static const char *url_host(const rest_lean *l, char *buf, size_t len)
{
    return bare_host(l->rq.url->host, buf, len);
}

/* TLS set up on the new connection, ready for its handshake; -1 when it
 * cannot be (the request ended). */
static int tls_begin(rest_lean *l, rest_lean_rc *cc)
{
    rest_lean_rc code = tls_context(l, l->errbuf, l->errlen);
    if (code != REST_LEAN_OK)
        return fail_setup(l, cc, code);
    SSL *s = SSL_new(l->ctx);
    if (!s || SSL_set_fd(s, l->fd) != 1) {
        SSL_free(s);
        snprintf(l->errbuf, l->errlen, "cannot start TLS (out of memory)");
        return fail_setup(l, cc, REST_LEAN_NO_MEMORY);
    }
    l->ssl = s;
    char host[256];
    url_host(l, host, sizeof host);
    unsigned char ip[16];
    const int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    /* SNI names a host, never an address (RFC 6066). */
    if (!is_ip && SSL_set_tlsext_host_name(s, host) != 1) {
        snprintf(l->errbuf, l->errlen, "cannot set the TLS server name %s", host);
        return fail_setup(l, cc, REST_LEAN_TLS);
    }
    if (!l->tls.insecure) {
        X509_VERIFY_PARAM *vp = SSL_get0_param(s);
        const int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(vp, host) : SSL_set1_host(s, host);
        if (ok != 1) {
            snprintf(l->errbuf, l->errlen, "cannot set the TLS host name to verify, %s", host);
            return fail_setup(l, cc, REST_LEAN_TLS);
        }
    }
    if (l->session)
        (void)SSL_set_session(s, l->session);   /* resumed, or a full handshake */
    l->st = LS_HANDSHAKE;
    return 0;
}

static int step_handshake(rest_lean *l, rest_lean_rc *cc)
{
    SSL *s = l->ssl;
    ERR_clear_error();
    const int r = SSL_connect(s);
    if (r != 1) {
        const int e = SSL_get_error(s, r);
        const int sys = errno;
        const int want = ssl_wait(e);
        if (want)
            return want;
        char host[256];
        url_host(l, host, sizeof host);
        const long vr = SSL_get_verify_result(s);
        if (vr != X509_V_OK && !l->tls.insecure) {
            ERR_clear_error();
            if (vr == X509_V_ERR_HOSTNAME_MISMATCH || vr == X509_V_ERR_IP_ADDRESS_MISMATCH)
                snprintf(l->errbuf, l->errlen, "SSL: no alternative certificate subject name matches "
                         "target host name '%s'", host);
            else
                snprintf(l->errbuf, l->errlen, "SSL certificate problem: %s",
                         X509_verify_cert_error_string(vr));
            return end(l, cc, REST_LEAN_PEER_UNVERIFIED, 0);
        }
        char why[256];
        int queued;
        ssl_text(why, sizeof why, e, sys, &queued);
        if (queued)
            snprintf(l->errbuf, l->errlen, "%s", why);
        else
            snprintf(l->errbuf, l->errlen, "OpenSSL SSL_connect: %s in connection to %s:%u ", why, host,
                     l->rq.url->port);
        return end(l, cc, REST_LEAN_TLS, 0);
    }
    if (l->session && !SSL_session_reused(s)) {
        SSL_SESSION_free(l->session);           /* refused: no use offering it again */
        l->session = NULL;
    }
    text(&l->sink, "SSL connection using %s / %s%s", SSL_get_version(s), SSL_get_cipher_name(s),
         SSL_session_reused(s) ? " (resumed)" : "");
    l->res->stamps.appconnect_us = since_us(l->t0);
    return ready(l);
}

/* ---- connecting ------------------------------------------------------------------------ */

/* The endpoint's addresses, to try one after the other; -1 when the name
 * does not resolve (the request ended). */
static int resolve(rest_lean *l, rest_lean_rc *cc)
{
    const bench_url *u = l->rq.url;
    char host[256], port[16];
    url_host(l, host, sizeof host);
    snprintf(port, sizeof port, "%u", u->port);
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        snprintf(l->errbuf, l->errlen, "Could not resolve host: %s", host);
        return fail_setup(l, cc, REST_LEAN_RESOLVE);
    }
    l->res->stamps.namelookup_us = since_us(l->t0);
    l->ai = l->ai_next = ai;
    l->last_errno = ECONNREFUSED;
    l->st = LS_CONNECT;
    return 0;
}

/* The socket is connected: TLS next, or the request. */
static int connected(rest_lean *l, rest_lean_rc *cc)
{
    const bench_url *u = l->rq.url;
    char host[256];
    text(&l->sink, "Connected to %s (%s) port %u", url_host(l, host, sizeof host), l->addr, u->port);
    freeaddrinfo(l->ai);
    l->ai = l->ai_next = NULL;
    l->res->stamps.connect_us = since_us(l->t0);
    l->res->stamps.num_connects = 1;
    if (u->scheme != BENCH_URL_HTTPS)
        return ready(l);
    return tls_begin(l, cc) == 0 ? STEP_ON : 0;
}

/* A connection to the next address: made, under way (POLLOUT), or none
 * left (the request's failure, with the last address's reason). */
static int step_connect(rest_lean *l, rest_lean_rc *cc)
{
    const bench_url *u = l->rq.url;
    if (l->fd >= 0) {
        /* The connect under way came to its end, unless this step was
         * for another socket's event (one its slot had before). */
        struct pollfd p = { l->fd, POLLOUT, 0 };
        if (poll(&p, 1, 0) == 0)
            return POLLOUT;
        int err = 0;
        socklen_t sl = sizeof err;
        if (getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &sl) != 0)
            err = errno;
        if (!err)
            return connected(l, cc);
        l->last_errno = err;
        (void)close(l->fd);
        l->fd = -1;
    }
    while (l->ai_next) {
        const struct addrinfo *a = l->ai_next;
        l->ai_next = a->ai_next;
        const void *sa = a->ai_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr
                                                  : (const void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr;
        if (!inet_ntop(a->ai_family, sa, l->addr, sizeof l->addr))
            l->addr[0] = 0;
        text(&l->sink, "  Trying %s:%u...", l->addr, u->port);
        const int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            l->last_errno = errno;
            continue;
        }
        const int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        l->fd = fd;
        l->conns++;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            return connected(l, cc);
        if (errno == EINPROGRESS)
            return POLLOUT;
        l->last_errno = errno;
        (void)close(fd);
        l->fd = -1;
    }
    char host[256];
    l->res->os_errno = l->last_errno;
    snprintf(l->errbuf, l->errlen, "Failed to connect to %s port %u after %lld ms: %s",
             url_host(l, host, sizeof host), u->port, (long long)(since_us(l->t0) / 1000),
             strerror(l->last_errno));
    return end(l, cc, REST_LEAN_CONNECT, 0);
}

/* ---- sending ---------------------------------------------------------------------------- */

static int step_send(rest_lean *l, rest_lean_rc *cc)
{
    const size_t n = l->head_len + l->rq.len;
    while (l->sent < n) {
        const char *buf = l->out + l->sent;
        const size_t left = n - l->sent;
        if (l->ssl) {
            ERR_clear_error();
            const int r = SSL_write(l->ssl, buf, (int)(left > 1u << 30 ? 1u << 30 : left));
            if (r > 0) {
                l->sent += (size_t)r;
                continue;
            }
            const int e = SSL_get_error(l->ssl, r);
            const int sys = errno;
            const int want = ssl_wait(e);
            if (want)
                return want;
            char why[256];
            int queued;
            l->res->os_errno = e == SSL_ERROR_SYSCALL ? sys : 0;
            ssl_text(why, sizeof why, e, sys, &queued);
            if (e == SSL_ERROR_SYSCALL && !queued)
                snprintf(l->errbuf, l->errlen, "SSL_write() returned SYSCALL, errno = %d", sys);
            else
                snprintf(l->errbuf, l->errlen, "SSL_write() error: %s", why);
            return end(l, cc, REST_LEAN_SEND, 0);
        }
        const ssize_t r = send(l->fd, buf, left, MSG_NOSIGNAL);
        if (r > 0) {
            l->sent += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return POLLOUT;
        l->res->os_errno = errno;
        snprintf(l->errbuf, l->errlen, "Send failure: %s", strerror(errno));
        return end(l, cc, REST_LEAN_SEND, 0);
    }
    l->res->bytes_out = n;
    l->res->stamps.posttransfer_us = since_us(l->t0);
    lean_parse *p = &l->ps;
    http_parser_init(&l->hp, HTTP_RESPONSE);
    l->hp.data = p;
    /* Content-Length beside chunked: chunked frames the body, and the
     * connection is not kept (RFC 9112, 6.3), as libcurl reads it. */
    l->hp.allow_chunked_length = 1;
    /* A control character in a header value (ESC, BEL) is kept, as
     * libcurl keeps it (RFC 9110, 5.5 allows it; CR, LF and NUL still end
     * or break the line). */
    l->hp.lenient_http_headers = 1;
    p->sink = &l->sink;
    p->nline = 0;
    p->in_value = p->status_sent = p->is_1xx = p->final_done = p->too_long = p->in_body = 0;
    p->in_trailers = 0;
    p->hdr_bytes = 0;
    p->fail = REST_LEAN_OK;
    l->st = LS_RECV;
    /* The answer cannot be there yet (nothing after the last one was
     * kept): wait for it rather than read in vain, unless TLS holds bytes
     * read ahead.  An edge-triggered wait still sees its arrival. */
    return l->ssl && SSL_has_pending(l->ssl) ? STEP_ON : POLLIN;
}


/* ---- reading the answer ------------------------------------------------------------- */

static int put(lean_parse *p, const char *s, size_t n)
{
    if (p->nline + n + 3 > LINE_MAX_LEN) {
        p->too_long = 1;
        return -1;
    }
    if (grow(&p->line, &p->cap, p->nline + n + 3) != 0) {
        p->fail = REST_LEAN_NO_MEMORY;
        return -1;
    }
    memcpy(p->line + p->nline, s, n);
    p->nline += n;
    return 0;
}

/* The line put together goes to the sink, with its CRLF, as libcurl hands
 * header lines over; -1 when it would pass REST_HEADER_BYTES_MAX over the
 * request's answers and trailers (counted as libcurl counts them). */
static int emit(lean_parse *p)
{
    memcpy(p->line + p->nline, "\r\n", 2);
    const size_t n = p->nline + 2;
    p->hdr_bytes += n;
    if (p->hdr_bytes > REST_HEADER_BYTES_MAX) {
        p->fail = REST_LEAN_RECV;
        return -1;
    }
    (void)p->sink->header(p->line, 1, n, p->sink->arg);
    if (p->sink->debug)
        (void)p->sink->debug(NULL, CURLINFO_HEADER_IN, p->line, n, p->sink->arg);
    p->nline = 0;
    return 0;
}

/* The status line, from the parsed version and code and the reason phrase
 * gathered so far. */
static int emit_status(http_parser *hp, lean_parse *p)
{
    char pre[32];
    const int n = snprintf(pre, sizeof pre, "HTTP/%u.%u %u ", hp->http_major, hp->http_minor,
                           hp->status_code);
    if (grow(&p->line, &p->cap, p->nline + (size_t)n + 3) != 0) {
        p->fail = REST_LEAN_NO_MEMORY;
        return -1;
    }
    memmove(p->line + n, p->line, p->nline);
    memcpy(p->line, pre, (size_t)n);
    p->nline += (size_t)n;
    p->status_sent = 1;
    return emit(p);
}

static int on_status(http_parser *hp, const char *at, size_t n)
{
    return put(hp->data, at, n);
}

static int on_field(http_parser *hp, const char *at, size_t n)
{
    lean_parse *p = hp->data;
    if (!p->status_sent && emit_status(hp, p) != 0)
        return -1;
    if (p->in_value) {
        p->in_value = 0;
        if (emit(p) != 0)
            return -1;
    }
    return put(p, at, n);
}

static int on_value(http_parser *hp, const char *at, size_t n)
{
    lean_parse *p = hp->data;
    if (!p->in_value) {
        if (put(p, ": ", 2) != 0)
            return -1;
        p->in_value = 1;
    }
    return put(p, at, n);
}

static int on_headers_done(http_parser *hp)
{
    lean_parse *p = hp->data;
    if (!p->status_sent && emit_status(hp, p) != 0)
        return -1;
    const int was_value = p->in_value;
    p->in_value = 0;
    if ((was_value && emit(p) != 0) || emit(p) != 0)   /* the last line, the blank line */
        return -1;
    if (hp->status_code == 101) {
        p->fail = REST_LEAN_BAD_ANSWER;   /* no upgrade was asked for */
        return -1;
    }
    if (hp->status_code < 100 || hp->http_major != 1 || hp->http_minor > 1) {
        p->fail = REST_LEAN_BAD_VERSION; /* "000", "HTTP/9.9": libcurl's refusals too */
        return -1;
    }
    p->is_1xx = hp->status_code / 100 == 1;
    p->in_body = !p->is_1xx;
    /* An interim answer has no body whatever its headers say (RFC 9110,
     * 15.2): what follows it is the next answer's status line. */
    return p->is_1xx ? 1 : 0;
}

static int on_body(http_parser *hp, const char *at, size_t n)
{
    lean_parse *p = hp->data;
    if (p->sink->body((char *)at, 1, n, p->sink->arg) != n) {
        p->fail = REST_LEAN_SINK;
        return -1;
    }
    return 0;
}

/* A chunk's size line was read: the last (size 0) is followed by the
 * trailer lines. */
static int on_chunk(http_parser *hp)
{
    lean_parse *p = hp->data;
    if (hp->content_length == 0)
        p->in_trailers = 1;
    return 0;
}

static int on_done(http_parser *hp)
{
    lean_parse *p = hp->data;
    if (p->is_1xx) {
        /* 100 Continue and its kind: the final answer follows. */
        p->is_1xx = 0;
        p->status_sent = 0;
        p->nline = 0;
        hp->status_code = 0;                /* none yet of the next answer */
        return 0;
    }
    p->final_done = 1;
    http_parser_pause(hp, 1);               /* nothing after it belongs to this request */
    return 0;
}

static const http_parser_settings parse_cb = {
    .on_status = on_status,
    .on_header_field = on_field,
    .on_header_value = on_value,
    .on_headers_complete = on_headers_done,
    .on_body = on_body,
    .on_chunk_header = on_chunk,
    .on_message_complete = on_done,
};

/* Read the answer to its end; *keep: the connection may carry the next. */

/* The final answer is complete. */
static int answered(rest_lean *l, rest_lean_rc *cc, int keep)
{
    l->res->status = l->hp.status_code;       /* the final answer's: a 1xx was replaced */
    l->res->stamps.total_us = since_us(l->t0);
    return end(l, cc, REST_LEAN_OK, keep);
}

/* ---- receiving -------------------------------------------------------------------------- */

/* Why the request in flight must end now: its time is up
 * (REST_LEAN_TIMEOUT) or Ctrl-C (REST_LEAN_ABORTED); else
 * REST_LEAN_OK. */
static rest_lean_rc overdue(const rest_lean *l)
{
    if (interrupted(&l->rq))
        return REST_LEAN_ABORTED;
    if (l->rq.timeout_ms > 0 && since_us(l->t0) >= (int64_t)l->rq.timeout_ms * 1000)
        return REST_LEAN_TIMEOUT;
    return REST_LEAN_OK;
}

/* Read and parse until the answer is complete, or the socket has nothing
 * more for now (POLLIN; POLLOUT for a TLS renegotiation's write). */
static int step_recv(rest_lean *l, rest_lean_rc *cc)
{
    lean_parse *p = &l->ps;
    http_parser *hp = &l->hp;
    rest_lean_result *res = l->res;
    for (unsigned reads = 0;; reads++) {
        /* A server that keeps sending never lets a read find the socket
         * empty: the request's time and Ctrl-C are looked at here too. */
        const rest_lean_rc over = reads ? overdue(l) : REST_LEAN_OK;
        if (over != REST_LEAN_OK) {
            *cc = rest_lean_abandon(l, over);
            return 0;
        }
        ssize_t n;
        if (l->ssl) {
            ERR_clear_error();
            const int r = SSL_read(l->ssl, l->in, (int)sizeof l->in);
            n = r;
            if (r <= 0) {
                const int e = SSL_get_error(l->ssl, r);
                const int sys = errno;
                const int want = ssl_wait(e);
                if (want)
                    return want;
                n = 0;
                if (e != SSL_ERROR_ZERO_RETURN && !(e == SSL_ERROR_SYSCALL && sys == 0 && !ERR_peek_error())) {
                    char why[256];
                    int queued;
                    res->os_errno = e == SSL_ERROR_SYSCALL ? sys : 0;
                    snprintf(l->errbuf, l->errlen, "OpenSSL SSL_read: %s, errno %d",
                             ssl_text(why, sizeof why, e, sys, &queued), sys);
                    return end(l, cc, REST_LEAN_RECV, 0);
                }
            }
        } else {
            n = recv(l->fd, l->in, sizeof l->in, 0);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    return POLLIN;
                res->os_errno = errno;
                snprintf(l->errbuf, l->errlen, "Recv failure: %s", strerror(errno));
                return end(l, cc, REST_LEAN_RECV, 0);
            }
        }
        if (n == 0) {
            if (res->bytes_in == 0) {
                snprintf(l->errbuf, l->errlen, "Empty reply from server");
                return end(l, cc, REST_LEAN_EMPTY, 0);
            }
            (void)http_parser_execute(hp, &parse_cb, NULL, 0);    /* the end of the stream */
            if (p->final_done)
                return answered(l, cc, 0);
            if (p->fail != REST_LEAN_OK)
                return end(l, cc, p->fail, 0);
            if (hp->content_length > 0 && hp->content_length != ULLONG_MAX && !(hp->flags & F_CHUNKED))
                snprintf(l->errbuf, l->errlen, "transfer closed with %llu bytes remaining to read",
                         (unsigned long long)hp->content_length);
            else
                snprintf(l->errbuf, l->errlen, "transfer closed with outstanding read data remaining");
            return end(l, cc, REST_LEAN_PARTIAL, 0);
        }
        if (res->bytes_in == 0)
            res->stamps.starttransfer_us = since_us(l->t0);
        res->bytes_in += (uint64_t)n;
        const size_t used = http_parser_execute(hp, &parse_cb, l->in, (size_t)n);
        if (p->final_done && used < (size_t)n)
            res->unsolicited = 1;     /* bytes after the answer: no request of ours asked for them */
        if (p->final_done)
            return answered(l, cc, used == (size_t)n && http_should_keep_alive(hp) &&
                            (hp->flags & (F_CHUNKED | F_CONTENTLENGTH)) != (F_CHUNKED | F_CONTENTLENGTH));
        const enum http_errno he = HTTP_PARSER_ERRNO(hp);
        if (p->too_long) {
            snprintf(l->errbuf, l->errlen, "%s", REST_HEADER_TOO_LARGE_TEXT);
            return end(l, cc, REST_LEAN_HEADER_TOO_LARGE, 0);
        }
        if (he == HPE_HEADER_OVERFLOW && p->in_body && !p->in_trailers) {
            /* http_parser counts a chunk's size line (its extensions) as
             * header bytes: libcurl reads them without a limit. */
            snprintf(l->errbuf, l->errlen, "Chunk size line over %u bytes in chunked-encoding",
                     REST_HEADER_BYTES_MAX);
            return end(l, cc, REST_LEAN_BAD_CHUNK, 0);
        }
        if (he == HPE_HEADER_OVERFLOW || (p->fail == REST_LEAN_RECV && p->hdr_bytes > REST_HEADER_BYTES_MAX)) {
            snprintf(l->errbuf, l->errlen, REST_HEADERS_TOO_LARGE_FMT,
                     (unsigned long long)p->hdr_bytes, REST_HEADER_BYTES_MAX);
            return end(l, cc, REST_LEAN_HEADER_TOO_LARGE, 0);
        }
        if (p->fail != REST_LEAN_OK) {
            if (p->fail == REST_LEAN_SINK)
                snprintf(l->errbuf, l->errlen, "Failure writing output to destination");
            else if (p->fail == REST_LEAN_BAD_ANSWER)
                snprintf(l->errbuf, l->errlen, "Invalid response: status 101 (no upgrade was asked for)");
            else if (p->fail == REST_LEAN_BAD_VERSION && hp->status_code >= 100)
                snprintf(l->errbuf, l->errlen, "Unsupported HTTP version (%u.%u) in response",
                         hp->http_major, hp->http_minor);
            else if (p->fail == REST_LEAN_BAD_VERSION)
                snprintf(l->errbuf, l->errlen, "Unsupported response code in HTTP response");
            else
                snprintf(l->errbuf, l->errlen, "out of memory reading the answer");
            return end(l, cc, p->fail, 0);
        }
        if (p->in_body && (hp->flags & F_CHUNKED) &&
            (he == HPE_INVALID_CHUNK_SIZE || he == HPE_INVALID_CONTENT_LENGTH)) {
            /* A chunk size that is not hexadecimal, or too large a number. */
            snprintf(l->errbuf, l->errlen, "%s in chunked-encoding", he == HPE_INVALID_CHUNK_SIZE
                     ? "Illegal or missing hexadecimal sequence" : "Too long hexadecimal number");
            return end(l, cc, REST_LEAN_BAD_CHUNK, 0);
        }
        if (he != HPE_OK) {
            /* A status line that is not one is libcurl's
             * REST_LEAN_BAD_VERSION, in its words: an answer that does
             * not begin "HTTP/" would be HTTP/0.9, one that does has a
             * version or status it cannot read. */
            if (!p->status_sent && he == HPE_INVALID_STATUS && hp->status_code > 0) {
                snprintf(l->errbuf, l->errlen, "Unsupported response code in HTTP response");
                return end(l, cc, REST_LEAN_BAD_VERSION, 0);
            }
            if (!p->status_sent && hp->status_code == 0 &&
                (he == HPE_INVALID_CONSTANT || he == HPE_INVALID_VERSION || he == HPE_INVALID_STATUS)) {
                snprintf(l->errbuf, l->errlen, "%s", he == HPE_INVALID_CONSTANT
                         ? "Received HTTP/0.9 when not allowed" : "Unsupported HTTP version in response");
                return end(l, cc, REST_LEAN_BAD_VERSION, 0);
            }
            snprintf(l->errbuf, l->errlen, "Invalid response: %s", http_errno_description(he));
            return end(l, cc, REST_LEAN_BAD_ANSWER, 0);
        }
    }
}

/* ---- the request --------------------------------------------------------------------- */

/* http_parser's own limit on all of an answer's header lines together (80
 * KiB by default, a process-wide setting) set to libcurl's: what refuses
 * headers is LINE_MAX_LEN, a line, and REST_HEADER_BYTES_MAX over the
 * request's answers (put()), as in libcurl; http_parser's is what bounds a
 * chunk size line. */
static void lift_header_limit(void)
{
    http_parser_set_max_header_size(REST_HEADER_BYTES_MAX);
}

rest_lean *rest_lean_new(const rest_lean_tls *tls, char *err, size_t errlen)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (pthread_once(&once, lift_header_limit) != 0) {
        snprintf(err, errlen, "cannot set up the lean HTTP engine");
        return NULL;
    }
    rest_lean *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "cannot create an HTTP client (out of memory)");
        return NULL;
    }
    l->tls = *tls;
    l->fd = -1;
    return l;
}

void rest_lean_free(rest_lean *l)
{
    if (!l)
        return;
    conn_close(l, NULL);
    if (l->ai)
        freeaddrinfo(l->ai);            /* a request abandoned while connecting */
    if (l->session)
        SSL_SESSION_free(l->session);
    SSL_CTX_free(l->ctx);
    ERR_clear_error();
    if (l->out)
        explicit_bzero(l->out, l->out_cap);      /* holds the Authorization line */
    if (l->ps.line)
        explicit_bzero(l->ps.line, l->ps.cap);
    explicit_bzero(l->in, sizeof l->in);
    free(l->out);
    free(l->ps.line);
    free(l);
}


int rest_lean_begin(rest_lean *l, const rest_lean_req *rq, const rest_lean_sink *sink,
                    rest_lean_result *res, char *errbuf, size_t errlen, rest_lean_rc *cc)
{
    l->t0 = bench_now_ns();
    l->rq = *rq;
    l->sink = *sink;
    l->res = res;
    l->errbuf = errbuf;
    l->errlen = errlen;
    memset(res, 0, sizeof *res);
    res->stamps.posttransfer_us = -1;
    errbuf[0] = 0;
    if (build_head(l, rq) != 0 || grow(&l->out, &l->out_cap, l->head_len + rq->len) != 0) {
        snprintf(errbuf, errlen, "out of memory writing the request");
        return end(l, cc, REST_LEAN_NO_MEMORY, 0);
    }
    if (l->fd >= 0 && !same_endpoint(l->conn_url, rq->url))
        conn_close(l, &l->sink);
    /* A connection the caller watched while it was idle, with nothing
     * arriving on it, is not looked at again: a syscall a request saved
     * (TLS bytes read ahead still are). */
    const int watched = rq->idle_watched && !(l->ssl && SSL_has_pending(l->ssl));
    const int stale = l->fd >= 0 && !watched ? conn_stale(l) : 0;
    if (stale == STALE_UNSOLICITED) {
        /* An answer before its request was sent: no request of this
         * connection can be matched to its answer any more. */
        text(&l->sink, "An answer nobody asked for on the kept connection: a new one");
        conn_close(l, NULL);
        res->unsolicited = 1;
    } else if (stale) {
        text(&l->sink, "Connection closed by the server while idle: a new one");
        conn_close(l, NULL);
        res->stale = 1;
    }
    if (l->fd >= 0) {
        text(&l->sink, "Re-using existing connection with host %s", rq->url->host);
        (void)ready(l);
    } else if (resolve(l, cc) != 0) {
        return 0;
    }
    return rest_lean_step(l, cc);
}

int rest_lean_step(rest_lean *l, rest_lean_rc *cc)
{
    for (;;) {
        int ev;
        switch (l->st) {
        case LS_CONNECT:   ev = step_connect(l, cc); break;
        case LS_HANDSHAKE: ev = step_handshake(l, cc); break;
        case LS_SEND:      ev = step_send(l, cc); break;
        case LS_RECV:      ev = step_recv(l, cc); break;
        default:
            *cc = REST_LEAN_IDLE;           /* no request in flight */
            return 0;
        }
        if (ev != STEP_ON)
            return ev;
    }
}

int rest_lean_fd(const rest_lean *l)
{
    return l->fd;
}

unsigned rest_lean_conns(const rest_lean *l)
{
    return l->conns;
}

rest_lean_rc rest_lean_abandon(rest_lean *l, rest_lean_rc why)
{
    rest_lean_rc cc = why;
    if (l->st == LS_IDLE)
        return cc;
    const long long ms = (long long)(since_us(l->t0) / 1000);
    /* (A TLS handshake too: libcurl's words under --timeout, which sets
     * its connect timeout and its whole one alike.) */
    if (why == REST_LEAN_TIMEOUT && (l->st == LS_CONNECT || l->st == LS_HANDSHAKE))
        snprintf(l->errbuf, l->errlen, "Connection timed out after %lld milliseconds", ms);
    else if (why == REST_LEAN_TIMEOUT)
        snprintf(l->errbuf, l->errlen, "Operation timed out after %lld milliseconds with %llu bytes received",
                 ms, (unsigned long long)l->res->bytes_in);
    else
        snprintf(l->errbuf, l->errlen, "Callback aborted");
    (void)end(l, &cc, why, 0);
    return cc;
}

rest_lean_rc rest_lean_perform(rest_lean *l, const rest_lean_req *rq, const rest_lean_sink *sink,
                               rest_lean_result *res, char *errbuf, size_t errlen)
{
    rest_lean_rc cc = REST_LEAN_OK;
    int ev = rest_lean_begin(l, rq, sink, res, errbuf, errlen, &cc);
    const uint64_t deadline = rq->timeout_ms > 0 ? l->t0 + (uint64_t)rq->timeout_ms * 1000000ULL : 0;
    while (ev > 0) {
        const int w = wait_fd(l->fd, (short)ev, deadline, rq);
        if (w == WAIT_READY) {
            ev = rest_lean_step(l, &cc);
        } else if (w == WAIT_ERROR) {
            snprintf(errbuf, errlen, "poll: %s", strerror(errno));
            (void)end(l, &cc, REST_LEAN_RECV, 0);
            return cc;
        } else {
            return rest_lean_abandon(l, w == WAIT_TIMEOUT ? REST_LEAN_TIMEOUT
                                                          : REST_LEAN_ABORTED);
        }
    }
    return cc;
}

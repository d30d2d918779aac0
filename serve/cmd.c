/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/cmd.c - "hsmbench serve": a local EKM and SDKMS endpoint doing real
 * cryptography through a PKCS#11 module, for tests and for checking a set-up
 * before pointing hsmbench at the real service.  A test and validation
 * server, not a product.
 *
 * libmicrohttpd runs a thread per connection (MHD_USE_THREAD_PER_CONNECTION),
 * so a keep-alive client's requests are served by one thread, which takes a
 * PKCS#11 session of its own from the pool for each request.  Everything the
 * callbacks need travels in their closure pointer (serve_srv); the only
 * global is the signal flag bench/util/signals.c owns.
 */
#include "serve/cmd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "bench/driver/loadopts.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/metrics.h"
#include "bench/util/secret.h"
#include "bench/util/signals.h"
#include "serve/serve.h"
#include "serve/echo.h"

#define BODY_MAX       (2u << 20)      /* a larger request is refused with 413 */
#define PEM_MAX        (1u << 20)
#define SECRET_MAX     16384
#define DEFAULT_LISTEN "127.0.0.1:8443"

static const char serve_usage[] =
    "Usage: hsmbench serve [selection] [--listen ADDR:PORT] [TLS] [credentials] [options]\n"
    "\n"
    "A local Google Cloud EKM and Fortanix SDKMS endpoint that does the real\n"
    "cryptography through a PKCS#11 module (hsmbench's own SoftHSM token unless\n"
    "--module is given).  A test and validation server, not a product: use it to\n"
    "try hsmbench rest, to test error handling (--fault), and to compare the REST\n"
    "path with hsmbench run on the same token.\n"
    "\n"
    "  EKM    POST <any path>:wrap | :unwrap   AES-256-GCM under a key made at start;\n"
    "         blob = IV (12) || ciphertext || tag (16), base64\n"
    "  SDKMS  /sys/v1/session/auth, /sys/v1/session/terminate, /crypto/v1/keys,\n"
    "         DELETE /crypto/v1/keys/KID, /crypto/v1/{encrypt,decrypt,sign,verify,mac}\n"
    "  HTTP   GET /hello -> {\"hello\":\"world\"}; any /echo -> the request as JSON\n"
    "         (credentials hidden); any /status/NNN -> that status  (for rest http)\n"
    "\n";

static const char serve_usage_tail[] =
    "\n"
    "Exit codes: 0 stopped; 2 bad usage or input; 3 module, token or login failure,\n"
    "or the address cannot be listened on.\n";

enum {
    OPT_LISTEN = 4000, OPT_TLS_CERT, OPT_TLS_KEY, OPT_CLIENT_CA, OPT_CONN_LIMIT, OPT_EKM_TOKEN_ENV,
    OPT_EKM_TOKEN_FILE, OPT_API_KEY_ENV, OPT_API_KEY_FILE, OPT_SESSION_TTL, OPT_PROFILING,
    OPT_FAULT, OPT_FAULT_AFTER, OPT_FAULT_DELAY, OPT_MAX_KEYS, OPT_MAX_TRANSIENT,
    OPT_MAX_REQUESTS, OPT_MAX_SECONDS, OPT_CLIENT_OPTIONAL, OPT_PLAIN_LISTEN, OPT_LATENCY,
    OPT_EKM_TOKEN_TTL,
};

static const bench_option listen_rows[] = {
    { "listen", 0, BENCH_ARG_REQUIRED, "ADDR:PORT", OPT_LISTEN,
      "numeric address (default 127.0.0.1:8443; [::1]:PORT for IPv6;\n"
      "port 0 picks a free port); the URL is printed on stdout", NULL },
    { "tls-cert", 0, BENCH_ARG_REQUIRED, "FILE", OPT_TLS_CERT,
      "serve HTTPS with this PEM certificate and key", "--tls-cert FILE --tls-key FILE" },
    { "tls-key", 0, BENCH_ARG_REQUIRED, "FILE", OPT_TLS_KEY, NULL, NULL },
    { "client-ca", 0, BENCH_ARG_REQUIRED, "FILE", OPT_CLIENT_CA,
      "require a client certificate signed by this CA (mutual TLS)", NULL },
    { "client-cert-optional", 0, BENCH_ARG_NONE, NULL, OPT_CLIENT_OPTIONAL,
      "with --client-ca: check a client certificate when one is\n"
      "sent, but serve clients that send none too", NULL },
    { "plain-listen", 0, BENCH_ARG_REQUIRED, "ADDR:PORT", OPT_PLAIN_LISTEN,
      "with TLS: also serve plain HTTP there (port 0: a free\n"
      "port); the URL is printed on stdout", NULL },
    { "connection-limit", 0, BENCH_ARG_REQUIRED, "N", OPT_CONN_LIMIT,
      "at most N connections at once (default 1024)", NULL },
};

static const bench_option cred_rows[] = {
    { "ekm-token-env", 0, BENCH_ARG_REQUIRED, "VAR", OPT_EKM_TOKEN_ENV,
      "the bearer token the EKM wants\n"
      "(without one, EKM requests are not authenticated)",
      "--ekm-token-env VAR | --ekm-token-file FILE" },
    { "ekm-token-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_EKM_TOKEN_FILE, NULL, NULL },
    { "ekm-token-ttl", 0, BENCH_ARG_REQUIRED, "TIME", OPT_EKM_TOKEN_TTL,
      "issue EKM tokens that expire after TIME: POST /token answers\n"
      "a new one (a JWT with exp); the EKM then refuses with 401\n"
      "a token expired or not issued (counted when serve stops)", NULL },
    { "api-key-env", 0, BENCH_ARG_REQUIRED, "VAR", OPT_API_KEY_ENV,
      "the SDKMS API key (without one,\n"
      "the SDKMS API is off)", "--api-key-env VAR | --api-key-file FILE" },
    { "api-key-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_API_KEY_FILE, NULL, NULL },
    { "session-ttl", 0, BENCH_ARG_REQUIRED, "TIME", OPT_SESSION_TTL,
      "SDKMS sessions end this long after they begin (default: never)", NULL },
};

static const bench_option behaviour_rows[] = {
    { "profiling", 0, BENCH_ARG_NONE, NULL, OPT_PROFILING,
      "send SDKMS's Profiling-Data header (server timings, ns)", NULL },
    { "fault", 0, BENCH_ARG_REQUIRED, "SPEC", OPT_FAULT,
      "inject faults into the operations: KIND:P[,KIND:P...] with KIND\n"
      "one of NNN (an HTTP status), timeout, badjson, truncate,\n"
      "nofield, badb64, mismatch, reset; P a probability", NULL },
    { "fault-after", 0, BENCH_ARG_REQUIRED, "N", OPT_FAULT_AFTER,
      "spare the first N operations (set-up requests)", NULL },
    { "fault-delay", 0, BENCH_ARG_REQUIRED, "TIME", OPT_FAULT_DELAY,
      "how long a timeout fault holds a request (default 30s)", NULL },
    { "latency", 0, BENCH_ARG_REQUIRED, "TIME", OPT_LATENCY,
      "answer every request no sooner than TIME after it arrived\n"
      "(a slow HSM behind the service; default 0)", NULL },
    { "max-keys", 0, BENCH_ARG_REQUIRED, "N", OPT_MAX_KEYS,
      "SDKMS keys kept at once (default 100000)", NULL },
    { "max-transient", 0, BENCH_ARG_REQUIRED, "N", OPT_MAX_TRANSIENT,
      "transient keys kept, oldest dropped first (default 10000)", NULL },
};

static const bench_option stop_rows[] = {
    { "max-requests", 0, BENCH_ARG_REQUIRED, "N", OPT_MAX_REQUESTS,
      "after answering N requests", NULL },
    { "max-seconds", 0, BENCH_ARG_REQUIRED, "TIME", OPT_MAX_SECONDS, "after this long", NULL },
    { "verbose", 'v', BENCH_ARG_NONE, NULL, 'v', "one line per request on stderr", NULL },
};

static const bench_opt_group serve_listen_group = BENCH_OPT_GROUP("Listening:", listen_rows, NULL);
static const bench_opt_group serve_cred_group =
    BENCH_OPT_GROUP("Credentials (never printed):", cred_rows, NULL);
static const bench_opt_group serve_behaviour_group =
    BENCH_OPT_GROUP("Behaviour:", behaviour_rows, NULL);
static const bench_opt_group serve_stop_group =
    BENCH_OPT_GROUP("Stopping: SIGINT or SIGTERM (exit status 0), or", stop_rows, NULL);

static const bench_opt_group *const serve_groups[] = {
    &p11_target_group, &serve_listen_group, &serve_cred_group, &serve_behaviour_group,
    &bench_metrics_group, &serve_stop_group, &bench_help_group, NULL,
};
const bench_cmd_opts serve_options = { "serve", 0, serve_groups };

typedef struct serve_opts {
    p11_target_opts target;
    const char *listen;
    const char *tls_cert, *tls_key, *client_ca;
    int         client_optional;
    const char *plain_listen;
    unsigned    conn_limit;
    const char *ekm_env, *ekm_file, *key_env, *key_file;
    uint64_t    session_ttl_ns;
    uint64_t    ekm_token_ttl_ns;   /* --ekm-token-ttl (0: no issuer) */
    int         profiling, verbose;
    const char *fault;
    uint64_t    fault_after, fault_delay_ns;
    uint64_t    latency_ns;
    uint64_t    max_keys, max_transient;
    uint64_t    max_requests, max_ns;
    bench_metrics_opts metrics;      /* --metrics-listen, --metrics-linger */
} serve_opts;

/* The front's own state, beside the services' (serve_srv). */
typedef struct front {
    serve_srv srv;
    int      client_ca;              /* verify client certificates */
    int      client_optional;        /* ... when one is sent; serve those without too */
    bench_metrics *metrics;          /* --metrics-listen, or NULL */
} front;

/* One listening daemon: the closure libmicrohttpd hands the callbacks. */
typedef struct listener {
    front *fr;
    int    tls;
} listener;

/* ---- replies ------------------------------------------------------------- */

void serve_reply_text(serve_reply *r, unsigned status, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    free(r->body);
    r->status = status;
    r->json = 0;
    r->body = n >= 0 ? s : NULL;
    r->len = n >= 0 ? (size_t)n : 0;
}

void serve_reply_json(serve_reply *r, unsigned status, json_t *body)
{
    char *s = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(body);
    free(r->body);
    r->status = s ? status : 500;
    r->json = s != NULL;
    r->body = s;
    r->len = s ? strlen(s) : 0;
}

void serve_reply_rpc(serve_reply *r, unsigned status, int grpc, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    serve_reply_json(r, status, json_pack("{s:i,s:s,s:[]}", "code", grpc, "message", msg, "details"));
}

int serve_secret_eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && CRYPTO_memcmp(a, b, alen) == 0;
}

/* ---- faults -------------------------------------------------------------- */

static double draw(void)
{
    uint64_t v = 0;
    if (RAND_bytes((unsigned char *)&v, sizeof v) != 1)
        return 1.0;                    /* no randomness: no fault */
    return (double)(v >> 11) * (1.0 / 9007199254740992.0);
}

/* gRPC code for an HTTP status, the grpc-gateway way round. */
static int grpc_of(unsigned status)
{
    switch (status) {
    case 400: return 3;
    case 401: return 16;
    case 403: return 7;
    case 404: return 5;
    case 409: return 10;
    case 429: return 8;
    case 501: return 12;
    case 503: return 14;
    case 504: return 4;
    default:  return status >= 500 ? 13 : 2;
    }
}

/* Hold the request until `end` (bench_now_ns), or until the server stops. */
static void hold_until(serve_srv *srv, uint64_t end)
{
    uint64_t now;
    while (!atomic_load(&srv->stopping) && (now = bench_now_ns()) < end) {
        /* short steps, so that a stopping server does not wait */
        const uint64_t step = 20ULL * 1000 * 1000;
        bench_sleep_until_ns(end - now < step ? end : now + step);
    }
}

/* Every string field that carries base64 becomes something that is not. */
static void corrupt_b64(json_t *j)
{
    static const char *const fields[] = { "wrappedBlob", "plaintext", "cipher", "plain", "iv",
                                          "tag", "signature", "mac", "transient_key" };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (json_is_string(json_object_get(j, fields[i])))
            json_object_set_new(j, fields[i], json_string("@@not*base64@@"));
}

/* Apply a body fault to a successful JSON reply. */
/* Damage a 2xx JSON answer as the fault says; whether it did. */
static int damage(serve_reply *r, serve_fault_kind kind)
{
    if (r->status < 200 || r->status > 299 || !r->json || !r->body)
        return 0;
    if (kind == SERVE_FAULT_BADJSON) {
        r->len /= 2;                   /* cut inside the object: still valid UTF-8 */
        r->body[r->len] = 0;
    } else if (kind == SERVE_FAULT_NOFIELD) {
        serve_reply_json(r, r->status, json_pack("{s:s}", "hsmbench_fault", "nofield"));
    } else if (kind == SERVE_FAULT_BADB64) {
        json_t *j = json_loadb(r->body, r->len, 0, NULL);
        if (j) {
            corrupt_b64(j);
            serve_reply_json(r, r->status, j);
        }
    }
    return kind == SERVE_FAULT_BADJSON || kind == SERVE_FAULT_NOFIELD || kind == SERVE_FAULT_BADB64;
}

/* ---- libmicrohttpd ------------------------------------------------------- */

typedef struct req_ctx {
    char    *body;
    size_t   len, cap;
    int      too_big;
    uint64_t t0;                       /* headers received */
} req_ctx;

typedef struct cut_body {
    char  *body;
    size_t len, cut;
} cut_body;

static ssize_t cut_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    cut_body *c = cls;
    if (pos >= c->cut)
        return MHD_CONTENT_READER_END_WITH_ERROR;   /* close mid-body */
    size_t n = c->cut - (size_t)pos < max ? c->cut - (size_t)pos : max;
    memcpy(buf, c->body + pos, n);
    return (ssize_t)n;
}

static void cut_free(void *cls)
{
    cut_body *c = cls;
    free(c->body);
    free(c);
}

static void add_profiling(struct MHD_Response *resp, const serve_prof *p)
{
    char hdr[512];
    snprintf(hdr, sizeof hdr,
             "{\"in_queue\":%llu,\"parse_request\":%llu,\"session_lookup\":%llu,"
             "\"validate_input\":%llu,\"check_access\":%llu,\"operate\":%llu,\"db_flush\":%llu,"
             "\"total\":%llu}",
             (unsigned long long)p->ns[SERVE_PROF_IN_QUEUE],
             (unsigned long long)p->ns[SERVE_PROF_PARSE_REQUEST],
             (unsigned long long)p->ns[SERVE_PROF_SESSION_LOOKUP],
             (unsigned long long)p->ns[SERVE_PROF_VALIDATE_INPUT],
             (unsigned long long)p->ns[SERVE_PROF_CHECK_ACCESS],
             (unsigned long long)p->ns[SERVE_PROF_OPERATE],
             (unsigned long long)p->ns[SERVE_PROF_DB_FLUSH],
             (unsigned long long)p->ns[SERVE_PROF_TOTAL]);
    MHD_add_response_header(resp, "Profiling-Data", hdr);
}

static enum MHD_Result send_reply(front *fr, struct MHD_Connection *conn, serve_reply *r,
                                  int truncate, const serve_prof *prof)
{
    struct MHD_Response *resp;
    if (truncate && r->body && r->len > 1) {
        cut_body *c = malloc(sizeof *c);
        if (!c)
            return MHD_NO;
        c->body = r->body;
        c->len = r->len;
        c->cut = r->len / 2;
        r->body = NULL;
        resp = MHD_create_response_from_callback(c->len, 4096, cut_read, c, cut_free);
        if (!resp) {
            cut_free(c);
            return MHD_NO;
        }
    } else {
        resp = MHD_create_response_from_buffer_with_free_callback(r->len, r->body ? r->body : "",
                                                                   r->body ? free : NULL);
        if (!resp)
            return MHD_NO;
        r->body = NULL;
    }
    if (r->status != 204)
        MHD_add_response_header(resp, "Content-Type",
                                r->json ? "application/json" : "text/plain; charset=utf-8");
    if (fr->srv.profiling)
        add_profiling(resp, prof);
    enum MHD_Result ok = MHD_queue_response(conn, r->status ? r->status : 500, resp);
    MHD_destroy_response(resp);
    return ok;
}

/* A request's route for --metrics-listen: a fixed set, so that arbitrary
 * URLs cannot make arbitrary series. */
static const char *route_of(const char *url, int ekm, int unwrap)
{
    static const char *const fixed[] = {
        "/hello", "/echo", "/token", "/sys/v1/session/auth", "/sys/v1/session/terminate", "/crypto/v1/keys",
        "/crypto/v1/encrypt", "/crypto/v1/decrypt", "/crypto/v1/sign", "/crypto/v1/verify",
        "/crypto/v1/mac",
    };
    if (ekm)
        return unwrap ? "/KEY:unwrap" : "/KEY:wrap";   /* EKM: any key path */
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(url, fixed[i]) == 0)
            return fixed[i];
    return strncmp(url, "/token/", 7) == 0            ? "/token"
           : strncmp(url, "/echo/", 6) == 0           ? "/echo"
           : strncmp(url, "/status/", 8) == 0         ? "/status/NNN"
           : strncmp(url, "/crypto/v1/keys/", 16) == 0 ? "/crypto/v1/keys/KID"
                                                       : "other";
}

/* With --client-ca, a request arrives only on a connection whose certificate
 * gnutls checked in the handshake; check again here, in case a library
 * version skipped it, and refuse with 403 rather than serve. */
static int client_cert_ok(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    unsigned status = 1, n = 0;
    if (!ci || !ci->tls_session)
        return 0;
    gnutls_session_t s = (gnutls_session_t)ci->tls_session;
    if (!gnutls_certificate_get_peers(s, &n) || n == 0)
        return 0;
    return gnutls_certificate_verify_peers2(s, &status) == 0 && status == 0;
}

/* A TLS connection's client certificate, checked once: a keep-alive client
 * must not pay a chain verification on every request (mutual TLS would look
 * dearer than it is).  Kept as the connection's socket context. */
typedef struct conn_cert {
    int checked, ok, sent;
} conn_cert;

static int client_cert_sent(struct MHD_Connection *conn);

static void conn_cert_state(struct MHD_Connection *conn, int *ok, int *sent)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_cert *cc = ci ? ci->socket_context : NULL;
    if (cc && cc->checked) {
        *ok = cc->ok;
        *sent = cc->sent;
        return;
    }
    *ok = client_cert_ok(conn);
    *sent = *ok || client_cert_sent(conn);
    if (cc) {
        cc->ok = *ok;
        cc->sent = *sent;
        cc->checked = 1;
    }
}

/* Whether the client sent a certificate at all. */
static int client_cert_sent(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    unsigned n = 0;
    return ci && ci->tls_session &&
           gnutls_certificate_get_peers((gnutls_session_t)ci->tls_session, &n) && n > 0;
}

static enum MHD_Result echo_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    serve_echo_add_header(cls, key, value);
    return MHD_YES;
}

/* A fault that took effect, for --metrics-listen. */
static void count_fault(bench_metrics *m, const char *route, const serve_fault_rule *f)
{
    char buf[16];
    bench_metrics_fault(m, route, serve_fault_name(f, buf, sizeof buf));
}

static enum MHD_Result dispatch(const listener *ls, struct MHD_Connection *conn, const char *url,
                                const char *method, req_ctx *rc)
{
    front *fr = ls->fr;
    serve_srv *srv = &fr->srv;
    serve_prof prof;
    memset(&prof, 0, sizeof prof);
    prof.last = bench_now_ns();
    prof.ns[SERVE_PROF_IN_QUEUE] = prof.last - rc->t0;
    serve_req q = { method, url, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
                   rc->body ? rc->body : "", rc->len, SERVE_FAULT_NONE, &prof };
    serve_reply r = { 0, 0, NULL, 0, 0 };
    int unwrap = 0, truncate = 0;
    const int ekm = serve_ekm_route(url, &unwrap);
    int echo_headers = 0;
    const int echo = !ekm && serve_echo_route(url, &echo_headers);
    const serve_fault_rule *f = NULL;
    int cert_ok = 0, cert_sent = 0;
    if (ls->tls && fr->client_ca)
        conn_cert_state(conn, &cert_ok, &cert_sent);

    if (ls->tls && fr->client_ca && !cert_ok && (!fr->client_optional || cert_sent)) {
        serve_reply_text(&r, 403, "A client certificate signed by the server's --client-ca is required");
        goto send;
    }
    if (rc->too_big) {
        serve_reply_text(&r, 413, "Request body over %u bytes", BODY_MAX);
        goto send;
    }
    if (srv->has_faults && strcmp(method, "POST") == 0 &&
        (ekm || strncmp(url, "/crypto/v1/", 11) == 0) &&
        atomic_fetch_add(&srv->eligible, 1) >= srv->fault_after)
        f = serve_faults_pick(&srv->faults, draw());
    if (f) {
        switch (f->kind) {
        case SERVE_FAULT_STATUS:
            r.faulted = 1;
            if (ekm)
                serve_reply_rpc(&r, f->status, grpc_of(f->status), "injected fault (hsmbench serve --fault)");
            else
                serve_reply_text(&r, f->status, "Injected fault (hsmbench serve --fault)");
            goto send;
        case SERVE_FAULT_TIMEOUT:
            /* "timeout": hold the request until the client has long given up */
            hold_until(srv, bench_now_ns() + srv->fault_delay_ns);
            r.faulted = 1;
            serve_reply_text(&r, 503, "Injected timeout (hsmbench serve --fault)");
            goto send;
        case SERVE_FAULT_RESET:
            atomic_fetch_add(&srv->served, 1);
            count_fault(fr->metrics, route_of(url, ekm, unwrap), f);
            bench_metrics_served(fr->metrics, route_of(url, ekm, unwrap), 0);
            if (srv->verbose)
                fprintf(stderr, "serve: %s %s -> reset (fault)\n", method, url);
            return MHD_NO;                     /* close without a byte of answer */
        case SERVE_FAULT_MISMATCH:
            q.fault = SERVE_FAULT_MISMATCH;
            break;
        case SERVE_FAULT_TRUNCATE:
            truncate = 1;
            break;
        default:
            break;
        }
    }
    if (ekm) {
        serve_ekm(srv, &q, unwrap, &r);
    } else if (srv->issuer.ttl_ms && (strcmp(url, "/token") == 0 || strcmp(url, "/token/opaque") == 0)) {
        serve_token_issue(srv, &q, &r);
    } else if (echo) {
        serve_echo_conn ec = { echo_headers ? json_object() : NULL, ls->tls, cert_ok };
        if (ec.headers)
            MHD_get_connection_values(conn, MHD_HEADER_KIND, echo_header, ec.headers);
        serve_echo(&q, &ec, &r);
        json_decref(ec.headers);
    } else if (!serve_sdkms(srv, &q, &r))
        serve_reply_text(&r, 404, "Not found: %s %s", method, url);
    if (f && damage(&r, f->kind))
        r.faulted = 1;
    if (truncate && (r.status < 200 || r.status > 299))
        truncate = 0;
    if (truncate)
        r.faulted = 1;
send:
    if (srv->latency_ns)
        hold_until(srv, rc->t0 + srv->latency_ns);
    prof.ns[SERVE_PROF_TOTAL] = bench_now_ns() - rc->t0;
    if (srv->verbose)
        fprintf(stderr, "serve: %s %s -> %u%s (%.3f ms)\n", method, url, r.status ? r.status : 500,
                f ? " (fault)" : "", (double)prof.ns[SERVE_PROF_TOTAL] / 1e6);
    enum MHD_Result ok = send_reply(fr, conn, &r, truncate, &prof);
    free(r.body);
    if (f && r.faulted)
        count_fault(fr->metrics, route_of(url, ekm, unwrap), f);
    bench_metrics_served(fr->metrics, route_of(url, ekm, unwrap), r.status ? r.status : 500);
    atomic_fetch_add(&srv->served, 1);
    return ok;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *conn, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
    const listener *ls = cls;
    req_ctx *rc = *con_cls;
    (void)version;
    if (!rc) {
        if (!(rc = calloc(1, sizeof *rc)))
            return MHD_NO;
        rc->t0 = bench_now_ns();
        *con_cls = rc;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (rc->too_big || rc->len + n > BODY_MAX) {
            rc->too_big = 1;
            return MHD_YES;
        }
        if (rc->len + n + 1 > rc->cap) {
            size_t cap = rc->cap ? rc->cap : 1024;
            while (cap < rc->len + n + 1)
                cap *= 2;
            char *nb = realloc(rc->body, cap);
            if (!nb)
                return MHD_NO;
            rc->body = nb;
            rc->cap = cap;
        }
        memcpy(rc->body + rc->len, upload, n);
        rc->len += n;
        rc->body[rc->len] = 0;
        return MHD_YES;
    }
    return dispatch(ls, conn, url, method, rc);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    req_ctx *rc = *con_cls;
    (void)cls, (void)conn, (void)toe;
    if (rc) {
        if (rc->body)
            OPENSSL_cleanse(rc->body, rc->cap);
        free(rc->body);
        free(rc);
    }
    *con_cls = NULL;
}

/* During the handshake, once the client's certificate message is in: no
 * certificate, or one the --client-ca did not sign, ends the handshake with
 * a TLS alert, so the client sees a TLS failure rather than a closed
 * connection (libmicrohttpd does not send alerts itself).  In TLS 1.3 the
 * client has already sent its request by then; the connection lingers a
 * moment so the client reads the alert instead of writing into a closed
 * socket.  Only refused connections pay this, in their own thread. */
static int refuse_client(gnutls_session_t s, gnutls_alert_description_t why)
{
    gnutls_alert_send(s, GNUTLS_AL_FATAL, why);
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    return -1;
}

static int verify_client(gnutls_session_t s)
{
    unsigned status = 1, n = 0;
    const gnutls_datum_t *chain = gnutls_certificate_get_peers(s, &n);
    if (!chain || n == 0)
        return refuse_client(s, GNUTLS_A_CERTIFICATE_REQUIRED);
    if (gnutls_certificate_verify_peers2(s, &status) < 0 || status != 0)
        return refuse_client(s, GNUTLS_A_BAD_CERTIFICATE);
    return 0;
}

/* --client-cert-optional: no certificate is fine, a bad one is not. */
static int verify_client_optional(gnutls_session_t s)
{
    unsigned n = 0;
    if (!gnutls_certificate_get_peers(s, &n) || n == 0)
        return 0;
    return verify_client(s);
}

/* Before the handshake: with --client-ca, ask for a certificate and check it
 * in the handshake (libmicrohttpd on its own only asks). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    front *fr = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        free(*socket_ctx);
        *socket_ctx = NULL;
        return;
    }
    if (code != MHD_CONNECTION_NOTIFY_STARTED || !fr->client_ca)
        return;
    *socket_ctx = calloc(1, sizeof(conn_cert));   /* NULL: checked on every request */
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (ci && ci->tls_session) {
        gnutls_session_t s = (gnutls_session_t)ci->tls_session;
        gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
        gnutls_session_set_verify_function(s, fr->client_optional ? verify_client_optional
                                                                  : verify_client);
    }
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fputs("serve: libmicrohttpd: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* ---- options ------------------------------------------------------------- */

static int parse_args(int argc, char **argv, serve_opts *o)
{
    uint64_t v;
    int c;

    memset(o, 0, sizeof *o);
    o->listen = DEFAULT_LISTEN;
    o->conn_limit = 1024;
    o->fault_delay_ns = 30ULL * 1000000000ULL;
    o->max_keys = 100000;
    o->max_transient = 10000;
    bench_metrics_opts_init(&o->metrics);
    bench_opts_parser parser;
    if (bench_opts_begin(&parser, &serve_options) != 0)
        return BENCH_EXIT_USAGE;
    while ((c = bench_opts_next(&parser, argc, argv)) != -1) {
        int t = p11_target_opt(&o->target, c, optarg);
        if (t == 0)
            t = bench_metrics_opt(&o->metrics, c, optarg);
        if (t < 0)
            return BENCH_EXIT_USAGE;
        if (t > 0)
            continue;
        switch (c) {
        case 'h':
            fputs(serve_usage, stdout);
            bench_opts_help(&serve_options, stdout);
            fputs(serve_usage_tail, stdout);
            return -1;
        case 'v':                 o->verbose = 1; break;
        case OPT_LISTEN:          o->listen = optarg; break;
        case OPT_TLS_CERT:        o->tls_cert = optarg; break;
        case OPT_TLS_KEY:         o->tls_key = optarg; break;
        case OPT_CLIENT_CA:       o->client_ca = optarg; break;
        case OPT_CLIENT_OPTIONAL: o->client_optional = 1; break;
        case OPT_PLAIN_LISTEN:    o->plain_listen = optarg; break;
        case OPT_EKM_TOKEN_ENV:   o->ekm_env = optarg; break;
        case OPT_EKM_TOKEN_FILE:  o->ekm_file = optarg; break;
        case OPT_API_KEY_ENV:     o->key_env = optarg; break;
        case OPT_API_KEY_FILE:    o->key_file = optarg; break;
        case OPT_PROFILING:       o->profiling = 1; break;
        case OPT_FAULT:           o->fault = optarg; break;
        case OPT_CONN_LIMIT:
            if (bench_parse_u64("--connection-limit", optarg, 1, 65536, &v) != 0)
                return BENCH_EXIT_USAGE;
            o->conn_limit = (unsigned)v;
            break;
        case OPT_EKM_TOKEN_TTL:
            if (bench_parse_duration("--ekm-token-ttl", optarg, 100ULL * 1000000ULL,
                                     7ULL * 24 * 3600 * 1000000000ULL, &o->ekm_token_ttl_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_SESSION_TTL:
            if (bench_parse_duration("--session-ttl", optarg, 0, 7ULL * 24 * 3600 * 1000000000ULL,
                                     &o->session_ttl_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_FAULT_AFTER:
            if (bench_parse_u64("--fault-after", optarg, 0, UINT64_MAX / 2, &o->fault_after) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_FAULT_DELAY:
            if (bench_parse_duration("--fault-delay", optarg, 1000000ULL, 3600ULL * 1000000000ULL,
                                     &o->fault_delay_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_LATENCY:
            if (bench_parse_duration("--latency", optarg, 0, 60ULL * 1000000000ULL,
                                     &o->latency_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_MAX_KEYS:
            if (bench_parse_u64("--max-keys", optarg, 1, 10000000, &o->max_keys) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_MAX_TRANSIENT:
            if (bench_parse_u64("--max-transient", optarg, 0, 10000000, &o->max_transient) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_MAX_REQUESTS:
            if (bench_parse_u64("--max-requests", optarg, 1, UINT64_MAX / 2, &o->max_requests) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_MAX_SECONDS:
            if (bench_parse_duration("--max-seconds", optarg, 1000000ULL,
                                     365ULL * 24 * 3600 * 1000000000ULL, &o->max_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        default:
            return bench_option_error(argv, c, "serve");
        }
    }
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench serve --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    if (p11_target_check(&o->target) != 0)
        return BENCH_EXIT_USAGE;
    if (!o->tls_cert != !o->tls_key) {
        bench_error("--tls-cert and --tls-key go together");
        return BENCH_EXIT_USAGE;
    }
    if (o->client_ca && !o->tls_cert) {
        bench_error("--client-ca needs TLS: give --tls-cert and --tls-key too");
        return BENCH_EXIT_USAGE;
    }
    if (o->client_optional && !o->client_ca) {
        bench_error("--client-cert-optional goes with --client-ca FILE");
        return BENCH_EXIT_USAGE;
    }
    if (o->plain_listen && !o->tls_cert) {
        bench_error("--plain-listen is a second, plain-HTTP listener beside TLS: give "
                    "--tls-cert and --tls-key too (or use --listen alone)");
        return BENCH_EXIT_USAGE;
    }
    if (o->ekm_env && o->ekm_file) {
        bench_error("--ekm-token-env and --ekm-token-file each give the token: give only one");
        return BENCH_EXIT_USAGE;
    }
    if (o->key_env && o->key_file) {
        bench_error("--api-key-env and --api-key-file each give the key: give only one");
        return BENCH_EXIT_USAGE;
    }
    if (o->max_transient > o->max_keys) {
        bench_error("--max-transient %llu is more than --max-keys %llu",
                    (unsigned long long)o->max_transient, (unsigned long long)o->max_keys);
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

/* A numeric address: "127.0.0.1:8443", "[::1]:8443". */
static int parse_listen(const char *text, struct sockaddr_storage *ss, socklen_t *len, int *v6,
                        char *host, size_t hostlen, unsigned *port)
{
    char buf[128];
    const char *h, *p;
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    if (buf[0] == '[') {
        char *close = strchr(buf, ']');
        if (!close || close[1] != ':')
            return -1;
        *close = 0;
        h = buf + 1;
        p = close + 2;
        *v6 = 1;
    } else {
        char *colon = strrchr(buf, ':');
        if (!colon)
            return -1;
        *colon = 0;
        h = buf;
        p = colon + 1;
        *v6 = 0;
    }
    char *end;
    errno = 0;
    unsigned long pv = strtoul(p, &end, 10);
    if (!*p || *end || errno || pv > 65535)
        return -1;
    memset(ss, 0, sizeof *ss);
    if (*v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)pv);
        if (inet_pton(AF_INET6, h, &a->sin6_addr) != 1)
            return -1;
        *len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)pv);
        if (inet_pton(AF_INET, h, &a->sin_addr) != 1)
            return -1;
        *len = sizeof *a;
    }
    snprintf(host, hostlen, "%s%s%s", *v6 ? "[" : "", h, *v6 ? "]" : "");
    *port = (unsigned)pv;
    return 0;
}

static int loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static char *read_pem(const char *flag, const char *path)
{
    char why[128];
    int fd = bench_open_input(path, 0, why, sizeof why);
    if (fd < 0) {
        bench_error("%s %s: %s", flag, path, why);
        return NULL;
    }
    char *buf = malloc(PEM_MAX + 1);
    size_t n = 0;
    ssize_t r;
    while (buf && n < PEM_MAX && (r = read(fd, buf + n, PEM_MAX - n)) > 0)
        n += (size_t)r;
    close(fd);
    if (!buf || n == 0 || n == PEM_MAX || !strstr((buf[n] = 0, buf), "-----BEGIN ")) {
        bench_error("%s %s: not a PEM file", flag, path);
        free(buf);
        return NULL;
    }
    return buf;
}

/* A credential from a variable or a file (no prompt: a server has no terminal). */
static int read_cred(const char *env, const char *file, const char *what, const char *eflag,
                     const char *fflag, char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    if (!env && !file)
        return 0;
    char *buf = malloc(SECRET_MAX);
    if (!buf) {
        bench_error("out of memory");
        return -1;
    }
    bench_secret_src src = { env, file, NULL, what, eflag, fflag, NULL };
    if (bench_secret_read(&src, "", buf, SECRET_MAX, outlen) != BENCH_SECRET_OK) {
        bench_secret_wipe(buf, SECRET_MAX);
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

static void free_cred(char *s)
{
    if (s)
        bench_secret_wipe(s, SECRET_MAX);
    free(s);
}

int serve_cmd(int argc, char **argv, const struct bench_section *const *sections)
{
    serve_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;

    struct sockaddr_storage ss;
    socklen_t sslen;
    int v6;
    char host[160], err[256];
    unsigned port;
    if (parse_listen(o.listen, &ss, &sslen, &v6, host, sizeof host, &port) != 0) {
        bench_error("--listen %s: expected a numeric ADDRESS:PORT (127.0.0.1:8443, [::1]:8443)",
                    o.listen);
        return BENCH_EXIT_USAGE;
    }
    if (!loopback(&ss))
        bench_warn("--listen %s: not a loopback address; this test server is then reachable "
                   "from other machines", o.listen);
    struct sockaddr_storage pss;
    socklen_t psslen = 0;
    int pv6 = 0;
    char phost[160];
    unsigned pport = 0;
    if (o.plain_listen) {
        if (parse_listen(o.plain_listen, &pss, &psslen, &pv6, phost, sizeof phost, &pport) != 0) {
            bench_error("--plain-listen %s: expected a numeric ADDRESS:PORT (127.0.0.1:8080, "
                        "[::1]:8080)", o.plain_listen);
            return BENCH_EXIT_USAGE;
        }
        if (!loopback(&pss))
            bench_warn("--plain-listen %s: not a loopback address; this test server is then "
                       "reachable from other machines", o.plain_listen);
    }

    front *fr = calloc(1, sizeof *fr);
    char *cert = NULL, *key = NULL, *ca = NULL;
    struct MHD_Daemon *d = NULL, *pd = NULL;
    if (!fr) {
        bench_error("out of memory");
        return BENCH_EXIT_USAGE;
    }
    serve_srv *srv = &fr->srv;
    rc = BENCH_EXIT_USAGE;
    if (serve_issuer_init(&srv->issuer, o.ekm_token_ttl_ns / 1000000ULL) != 0) {
        bench_error("cannot make the token issuer's lock");
        free(fr);
        return BENCH_EXIT_USAGE;
    }
    if (bench_metrics_start(&o.metrics, &fr->metrics) != 0)
        goto out;
    if (o.fault) {
        if (serve_faults_parse(o.fault, &srv->faults, err, sizeof err) != 0) {
            bench_error("--fault: %s", err);
            goto out;
        }
        srv->has_faults = 1;
    }
    if (o.tls_cert && (!(cert = read_pem("--tls-cert", o.tls_cert)) ||
                       !(key = read_pem("--tls-key", o.tls_key))))
        goto out;
    if (o.client_ca && !(ca = read_pem("--client-ca", o.client_ca)))
        goto out;
    if (read_cred(o.ekm_env, o.ekm_file, "EKM token", "--ekm-token-env", "--ekm-token-file",
                  &srv->ekm_token, &srv->ekm_token_len) != 0 ||
        read_cred(o.key_env, o.key_file, "API key", "--api-key-env", "--api-key-file",
                  &srv->api_key, &srv->api_key_len) != 0)
        goto out;
    srv->profiling = o.profiling;
    srv->verbose = o.verbose;
    srv->fault_after = o.fault_after;
    srv->fault_delay_ns = o.fault_delay_ns;
    srv->latency_ns = o.latency_ns;
    fr->client_ca = o.client_ca != NULL;
    fr->client_optional = o.client_optional;
    listener tls_ls = { fr, cert != NULL }, plain_ls = { fr, 0 };
    if (!(srv->sessions = serve_sessions_new(4096, o.session_ttl_ns)) ||
        !(srv->keys = serve_keys_new((unsigned)o.max_keys, (unsigned)o.max_transient))) {
        bench_error("out of memory");
        goto out;
    }

    const bench_flag *interrupt = bench_signals_install();
    signal(SIGPIPE, SIG_IGN);
    rc = serve_tok_open(&srv->tok, &o.target);
    if (rc != 0) {
        if (*interrupt)
            rc = BENCH_EXIT_INTERRUPTED;
        goto out;
    }

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     (cert ? MHD_USE_TLS : 0) | (v6 ? MHD_USE_IPv6 : 0) |
                     (o.verbose ? MHD_USE_ERROR_LOG : 0);
    struct MHD_OptionItem tls_opts[] = {
        { cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, cert },
        { cert ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, key },
        { ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, ca },
        { MHD_OPTION_END, 0, NULL },
    };
    /* MHD_OPTION_ARRAY stops at the first END: compact the list. */
    struct MHD_OptionItem arr[4];
    size_t na = 0;
    for (size_t i = 0; i < 3; i++)
        if (tls_opts[i].option != MHD_OPTION_END)
            arr[na++] = tls_opts[i];
    arr[na] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };

    /* The logger first: libmicrohttpd complains (through it) otherwise. */
    d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_access, &tls_ls,
                         MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, fr,
                         MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                         MHD_OPTION_CONNECTION_LIMIT, o.conn_limit,
                         MHD_OPTION_NOTIFY_COMPLETED, on_completed, fr,
                         MHD_OPTION_NOTIFY_CONNECTION, on_connection, fr,
                         MHD_OPTION_ARRAY, arr,
                         MHD_OPTION_END);
    if (!d) {
        bench_error("--listen %s: cannot listen there (in use, not an address of this machine, "
                    "or the certificate and key do not load)", o.listen);
        rc = BENCH_EXIT_MODULE;
        goto out_tok;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (di && di->port)
        port = di->port;
    if (o.plain_listen) {
        unsigned pflags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                          (pv6 ? MHD_USE_IPv6 : 0) | (o.verbose ? MHD_USE_ERROR_LOG : 0);
        pd = MHD_start_daemon(pflags, (uint16_t)pport, NULL, NULL, on_access, &plain_ls,
                              MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, fr,
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&pss,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
                              MHD_OPTION_CONNECTION_LIMIT, o.conn_limit,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, fr,
                              MHD_OPTION_END);
        if (!pd) {
            bench_error("--plain-listen %s: cannot listen there (in use, or not an address of "
                        "this machine)", o.plain_listen);
            MHD_stop_daemon(d);
            rc = BENCH_EXIT_MODULE;
            goto out_tok;
        }
        const union MHD_DaemonInfo *pdi = MHD_get_daemon_info(pd, MHD_DAEMON_INFO_BIND_PORT);
        if (pdi && pdi->port)
            pport = pdi->port;
    }

    const char *scheme = cert ? "https" : "http";
    printf("hsmbench serve: a test and validation server, not a product\n");
    printf("hsmbench serve: token '%s' (%s)\n", srv->tok.t.token.label, srv->tok.t.mod->name);
    printf("hsmbench serve: listening on %s://%s:%u\n", scheme, host, port);
    if (pd)
        printf("hsmbench serve: plain HTTP on http://%s:%u\n", phost, pport);
    printf("  EKM    POST %s://%s:%u/<key path>:wrap | :unwrap  (e.g. --endpoint %s://%s:%u/ekm/k1)%s\n",
           scheme, host, port, scheme, host, port,
           srv->ekm_token || srv->issuer.ttl_ms ? "" : "  [no bearer token checked]");
    if (srv->issuer.ttl_ms)
        printf("  tokens POST %s://%s:%u/token | /token/opaque  (EKM bearer tokens valid %llu ms)\n", scheme, host,
               port, (unsigned long long)srv->issuer.ttl_ms);
    if (srv->api_key)
        printf("  SDKMS  %s://%s:%u  (/sys/v1/session/auth, /crypto/v1/...)\n", scheme, host, port);
    else
        printf("  SDKMS  off (no --api-key-env / --api-key-file)\n");
    printf("  HTTP   GET %s://%s:%u/hello, any /echo, any /status/NNN\n", scheme, host, port);
    if (ca)
        printf("  TLS    client certificates %s (signed by %s)\n",
               o.client_optional ? "checked when sent, optional" : "required", o.client_ca);
    if (srv->has_faults)
        printf("  faults %s%s\n", o.fault, o.fault_after ? " (after the first operations)" : "");
    bench_flush(stdout);
    if (!srv->ekm_token && !srv->issuer.ttl_ms)
        bench_warn("no --ekm-token-env/--ekm-token-file: EKM requests are not authenticated");

    const uint64_t start = bench_now_ns();
    /* A closed standard output (its banner's reader gone: the flag is
     * SIGPIPE) does not stop a server; a signal does. */
    while (!*interrupt || *interrupt == SIGPIPE) {
        if (o.max_requests && atomic_load(&srv->served) >= o.max_requests)
            break;
        if (o.max_ns && bench_now_ns() - start >= o.max_ns)
            break;
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    atomic_store(&srv->stopping, 1);
    if (pd)
        MHD_stop_daemon(pd);
    MHD_stop_daemon(d);
    bench_metrics_stop(fr->metrics, interrupt);
    fr->metrics = NULL;
    printf("hsmbench serve: stopped after %llu requests\n",
           (unsigned long long)atomic_load(&srv->served));
    if (srv->issuer.ttl_ms)
        printf("hsmbench serve: EKM tokens: %llu issued; EKM requests with a valid token %llu, "
               "refused: %llu expired, %llu unknown\n",
               (unsigned long long)atomic_load(&srv->issuer.issued),
               (unsigned long long)atomic_load(&srv->issuer.valid),
               (unsigned long long)atomic_load(&srv->issuer.expired),
               (unsigned long long)atomic_load(&srv->issuer.unknown));
    bench_flush(stdout);
    rc = BENCH_EXIT_OK;
out_tok:
    serve_tok_close(&srv->tok);
out:
    bench_metrics_stop(fr->metrics, NULL);
    serve_keys_free(srv->keys);
    serve_sessions_free(srv->sessions);
    free_cred(srv->ekm_token);
    free_cred(srv->api_key);
    serve_issuer_fini(&srv->issuer);
    if (key)
        OPENSSL_cleanse(key, strlen(key));
    free(cert);
    free(key);
    free(ca);
    free(fr);
    return rc;
}

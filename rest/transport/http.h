/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/http.h - one worker's HTTP client: a connection kept alive
 * between requests, TLS as asked, and the k6 phase timings of every request
 * recorded into the run's statistics.  Its engine, libcurl's easy handle or
 * the lean HTTP/1.1 engine (rest/transport/lean.h), is chosen once, when
 * the handle is made, from the options (--engine): every call then goes to
 * that engine's operations without asking which it is.
 *
 * A request goes in three steps so that the same code can later be driven
 * by curl_multi (the core's open-loop pool) instead of curl_easy_perform:
 *
 *   rest_http_request(h, "POST", &url, body, len) the easy handle is ready
 *   ... curl_easy_perform(rest_http_easy(h)), or a multi handle runs it ...
 *   rest_http_finish(h, rc, &resp)                status, body, phases
 *
 * rest_http_perform() is the blocking pair of the last two; rest_http_run()
 * the blocking step between them, which goes through the lean engine
 * (rest/transport/lean.h) when the options chose it (--engine lean).  The body, the
 * headers and the Profiling-Data value in a response stay valid until the
 * next rest_http_request().
 *
 * A handle bound to the run's side-metrics recorder (rest_state_side_bind)
 * notes each finished request (status, libcurl's timestamps, the
 * Profiling-Data value) and records them at rest_state_side_flush(), which the
 * workload calls from the core's side_flush() after the operation: the
 * core switches the recorder on for measured operations only, so set-up
 * (before the bind), warm-up and tear-down (after rest_http_teardown_mode)
 * are left out, as they are from the core's figures.
 */
#ifndef REST_HTTP_H
#define REST_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

#include "bench/util/options.h"
#include "bench/util/signals.h"
#include "bench/util/url.h"
#include "bench/core/workload.h"
#include "bench/core/side.h"
#include "rest/transport/lean.h"
#include "rest/transport/phases.h"
#include "rest/transport/side.h"

typedef struct rest_http_opts {
    const char *cacert;       /* --cacert FILE: trust these CAs instead of the system's */
    const char *cert, *key;   /* --cert/--key: client certificate (mTLS), PEM */
    int         insecure;     /* --insecure: no certificate or host name verification */
    int         http2;        /* --http2: HTTP/2 when the server offers it (ALPN) */
    int         no_reuse;     /* --no-connection-reuse: new connection + full handshake each time */
    int         verbose;      /* -v: log requests to stderr, secret headers and queries redacted */
    /* More header names whose values are secrets (--secret-header), beside
     * rest_http_secret_header's list; the strings outlive the clients. */
    const char *const *secret_headers;
    size_t      nsecret_headers;
    long        timeout_ms;   /* --timeout: whole request, connection included */
    /* When it becomes non-zero, a request in flight is abandoned (Ctrl-C
     * must not wait for a hung server's timeout).  May be NULL. */
    const bench_flag *interrupt;
    int         engine;       /* --engine: REST_ENGINE_AUTO (the default), _LIBCURL or _LEAN */
    /* The --cacert, --cert and --key files' bytes, read once for the run
     * (rest_http_load_files): libcurl reads a file it is given by name
     * again for every new connection, inside the handshake it times (11
     * opens of each in 10 requests without reuse).  NULL: not read. */
    struct rest_http_files *files;
} rest_http_opts;

/* Who runs a blocking worker's requests: libcurl's easy handle, or the
 * lean HTTP/1.1 engine (rest/transport/lean.h). */
enum { REST_ENGINE_AUTO = 0, REST_ENGINE_LIBCURL, REST_ENGINE_LEAN };

/*
 * Whether the header line (n bytes, no NUL needed) holds a secret, never
 * written out: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
 * X-Api-Key, X-Auth-Token, or one of the n_extra names of extra (NULL
 * when n_extra is 0), case-insensitive.  The length of "Name:", or 0.
 */
size_t rest_http_secret_header(const char *line, size_t n, const char *const *extra, size_t n_extra);


typedef struct rest_response {
    long        status;       /* HTTP status; 0 when no response arrived */
    bench_code  transport;    /* 0 when a response arrived, else its class (rest/transport/codes.h) */
    const char *error;        /* libcurl's message when transport != 0, else "" */
    const char *body;         /* NUL-terminated */
    size_t      body_len;
    const char *profiling;    /* the Profiling-Data header's value, or NULL */
} rest_response;

typedef struct rest_http rest_http;

/* What an engine said of a request: REST_XFER_OK when an answer arrived
 * (whatever its status), else the engine's own code (a CURLcode from
 * libcurl, a rest_lean_rc from the lean engine), which only
 * rest_http_finish() reads, through the engine that ran the request. */
typedef int rest_xfer_rc;
#define REST_XFER_OK 0

/* A client for worker `worker` (used in log lines).  NULL with a one-line
 * reason in err on failure. */
rest_http *rest_http_new(const rest_http_opts *o, unsigned worker, char *err, size_t errlen);
/* Frees the handle and wipes the credentials it held. */
void rest_http_free(rest_http *h);

/*
 * Take every credential the handle sends out of text (NUL-terminated, in
 * place): the value of each secret header line it holds (as above), and
 * each word of it of 8 bytes or more (the token after "Bearer "), become
 * "***"; so does a text's end cut short ("...") on the start of one (at
 * least 6 bytes of it).  For any excerpt of a server's answer (an echo of
 * the request carries them) before it reaches an output.
 */
void rest_http_scrub(const rest_http *h, char *text);

/* The User-Agent line every request carries (rest http: unless the user's
 * headers name one). */
#define REST_USER_AGENT "User-Agent: hsmbench/" HSMBENCH_VERSION
/* Bodies over this many bytes need an empty "Expect:" line against
 * libcurl's 100-continue round trip (its threshold, 1 KiB in the oldest
 * libcurl 7.x, 1 MiB since 7.69). */
#define REST_EXPECT_MIN 1024

/* "Authorization: <scheme> <secret>" on every later request (NULL scheme:
 * none), beside the JSON Content-Type and Accept lines and REST_USER_AGENT;
 * requests with a body over REST_EXPECT_MIN also get an empty "Expect:".
 * The previous value is wiped.  0, or -1 when out of memory. */
int rest_http_set_auth(rest_http *h, const char *scheme, const char *secret);
/* Send the caller's header lines instead (rest http); list must outlive
 * the handle's requests.  no_expect: add the empty "Expect:" to a request
 * whose body is over REST_EXPECT_MIN, as for the handle's own lines. */
void rest_http_set_headers(rest_http *h, const struct curl_slist *list, int no_expect);

/*
 * For the tear-down after a run (deleting keys, ending a session): Ctrl-C
 * no longer abandons this handle's requests, which instead give up after
 * at most REST_TEARDOWN_TIMEOUT_MS each (a hung server cannot hold the
 * exit for long; further signals end the process, bench/util/signals.h).  No
 * request is recorded after it.
 */
#define REST_TEARDOWN_TIMEOUT_MS 5000L
void rest_http_teardown_mode(rest_http *h, long timeout_ms);

/* Whether Ctrl-C abandons this handle's request in flight (the default
 * when the options name an interrupt flag).  Off for requests whose effect
 * must be known, such as creating a key: abandoned, the key would exist on
 * the server with no one to delete it.  They stay bounded by --timeout. */
void rest_http_interruptible(rest_http *h, int on);

/*
 * A non-blocking engine (rest/transport/multi.c, lean_loop.c) runs this handle's requests from
 * now on (on), or no longer (off, before a blocking tear-down).  While it
 * does, libcurl keeps no timer for --timeout and calls no progress
 * function: each costs libcurl work on every request or on every pass
 * over the transfers.  The engine enforces both itself instead, with what
 * the functions below tell it, and finishes a request it ends with
 * rest_http_abandoned() and rest_http_finish().
 */
void rest_http_engine_owned(rest_http *h, int on);
/* --timeout in milliseconds (0: none). */
long rest_http_timeout_ms(const rest_http *h);
/* The interrupt flag of the options (NULL: none). */
const bench_flag *rest_http_interrupt(const rest_http *h);
/* Ctrl-C came and the request in flight may be abandoned (see
 * rest_http_interruptible). */
int rest_http_abandon_now(const rest_http *h);
/* The engine took the request in flight out after waited_ms: why is
 * CURLE_OPERATION_TIMEDOUT (its --timeout passed) or
 * CURLE_ABORTED_BY_CALLBACK (Ctrl-C), libcurl's own codes for the same. */
void rest_http_abandoned(rest_http *h, CURLcode why, uint64_t waited_ms);

/* Which statuses are not failures in http_req_failed (NULL: 200..399). */
void rest_http_expect(rest_http *h, rest_status_ok_fn ok, const void *ok_arg);
/* One of k6's checks on the current operation's answer passed or failed
 * (recorded at the flush, as the requests are). */
void rest_http_note_check(rest_http *h, rest_check kind, int passed);
/* An SDKMS re-authentication happened in the current operation. */
void rest_http_note_reauth(rest_http *h);

/*
 * Prepare a request: method "POST" (body may be empty), "GET" or "DELETE".
 * url and body must stay valid until the request is finished.  The handle
 * knows a URL by its address: given the URL it holds (the common case: a
 * workload's URLs are parsed before the run and live as long as it does)
 * it changes no option and compares no text; so a URL given here must not
 * change, nor be freed while the handle lives and may be given it again.
 * A URL made for one request (a key's URL for its deletion) goes with
 * rest_http_request_once(), after which the handle holds no URL it knows.
 */
void  rest_http_request(rest_http *h, const char *method, const bench_url *url, const char *body,
                        size_t len);
void  rest_http_request_once(rest_http *h, const char *method, const bench_url *url,
                             const char *body, size_t len);
/* libcurl's easy handle of a handle whose engine is libcurl's (NULL for
 * the lean engine's), for a multi handle to run. */
CURL *rest_http_easy(rest_http *h);
void  rest_http_finish(rest_http *h, rest_xfer_rc rc, rest_response *out);
void  rest_http_perform(rest_http *h, rest_response *out);

/* The codes of the TLS and HTTP flags every rest service takes. */
enum {
    REST_OPT_CACERT = 1200, REST_OPT_CERT, REST_OPT_KEY, REST_OPT_INSECURE, REST_OPT_NO_REUSE,
    REST_OPT_HTTP2, REST_OPT_TIMEOUT, REST_OPT_ENGINE,
};
/* The "TLS and HTTP" group of the option table (without -v, which each
 * command lists after it). */
extern const bench_opt_group rest_http_group;

/* Take one TLS/HTTP option: 1 taken, 0 not one of them, -1 bad value (printed). */
int rest_http_opt(rest_http_opts *o, int code, const char *arg);

/* Whether a libcurl build can do what the options ask against url (the
 * run's target, parsed); one-line reason if not.  --http2 over plain HTTP
 * is refused: libcurl is asked for HTTP/2 only through TLS's ALPN (h2c by
 * prior knowledge fails every request after the first on a reused
 * connection with Debian 12's libcurl 7.88), so it would run HTTP/1.1. */
/* Read the --cacert, --cert and --key files into o->files, once for the
 * run, for every client libcurl runs: 0, or -1 with err naming the flag
 * and the file.  rest_http_release_files frees them (the key's bytes
 * wiped); both may be called when nothing was read. */
int rest_http_load_files(rest_http_opts *o, char *err, size_t errlen);
void rest_http_release_files(rest_http_opts *o);

int rest_http_check_opts(const rest_http_opts *o, const bench_url *url, const char *url_flag,
                         char *err, size_t errlen);

/* The engine of this run, in o->engine; -1 with a one-line reason when
 * the one --engine forces cannot run it.  The lean engine runs HTTP/1.1
 * with keep-alive, from blocking workers and from the non-blocking slots
 * (--mode nonblocking, --find-capacity's steps) alike: not --http2 or
 * --no-connection-reuse (libcurl's).  Without --engine it is the lean one
 * wherever it can run, else libcurl. */
int rest_http_pick_engine(rest_http_opts *o, char *err, size_t errlen);
/* "libcurl" or "lean", as the results file's "http_engine" says. */
const char *rest_http_engine_name(const rest_http_opts *o);

/*
 * Run the prepared request to its end, blocking, through the handle's
 * engine.  What it returns goes to rest_http_finish().
 */
rest_xfer_rc rest_http_run(rest_http *h);

/*
 * The non-blocking lean engine (rest/transport/lean_loop.c) runs a lean
 * handle's prepared request a step at a time, as rest_lean_begin(),
 * rest_lean_step() and rest_lean_abandon() do (rest/transport/lean.h):
 * each returns POLLIN or POLLOUT to wait for on the handle's socket, or 0
 * with the outcome in *rc, which goes to rest_http_finish().
 */
int rest_http_is_lean(const rest_http *h);
/* idle_watched: as rest_lean_req's (the loop watched the kept connection). */
int rest_http_lean_begin(rest_http *h, int idle_watched, rest_lean_rc *rc);
int rest_http_lean_step(rest_http *h, rest_lean_rc *rc);
rest_lean_rc rest_http_lean_abandon(rest_http *h, rest_lean_rc why);
/* The socket (-1: none) and, in *conns, how many were made: a new count
 * is a new socket. */
int rest_http_lean_fd(const rest_http *h, unsigned *conns);

/* The side-metric hooks of a workload state whose first member is its
 * rest_http *: bind the worker's recorder, record what the operation noted. */
void rest_state_side_bind(void *state, bench_side *side);
void rest_state_side_flush(void *state);
/* --out jtl: the operation that has just ended on such a state, described
 * (bench_request; after its side_flush). */
void rest_state_describe(const void *state, bench_request *r);

#endif

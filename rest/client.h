/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/client.h - what the EKM and SDKMS workloads share: the run's HTTP
 * settings and statistics, set-up requests that retry what may pass on a
 * second try, and reading the JSON answers.
 */
#ifndef REST_CLIENT_H
#define REST_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/core/workload.h"
#include "bench/util/url.h"
#include "rest/transport/http.h"
#include "rest/transport/side.h"

typedef struct rest_client {
    rest_http_opts http;
    /* http_req_failed's expected statuses (k6's expectedStatuses); NULL:
     * 200..399.  Read-only during the run. */
    rest_status_ok_fn expected;
    const void       *expected_arg;
    /* The class of the first worker set-up failure (for the exit status). */
    _Atomic bench_code setup_code;
    /* Clean-up that failed after the run (keys left behind, sessions). */
    _Atomic uint64_t cleanup_failures;
    /* The keys among them a DELETE can still name: the URL of each (no
     * credentials), listed after the run (rest_client_left_print).  Workers
     * add to it as their clean-up gives up, so it has its own lock. */
    pthread_mutex_t left_lock;
    char          **left;
    size_t          nleft, capleft;
} rest_client;

/* A client with these HTTP settings and no failure recorded yet;
 * rest_client_fini frees what the run left in it. */
void rest_client_init(rest_client *c, const rest_http_opts *http);
void rest_client_fini(rest_client *c);

/* A key the clean-up could not delete: counted in cleanup_failures, and
 * its URL (as DELETE names it, without credentials) kept for the list. */
void rest_client_left(rest_client *c, const char *url);
/* The list of those keys, one "  DELETE URL" line each, after a line
 * saying how many there are (nothing when none). */
void rest_client_left_print(rest_client *c, FILE *out);

/* A worker's HTTP client, judging failed requests as the client says. */
rest_http *rest_client_http(rest_client *c, unsigned worker, char *err, size_t errlen);

/*
 * Side metrics of every REST workload (rest/transport/side.h).  A REST workload's
 * state (a worker's, or the one a non-blocking slot carries) begins with
 * its rest_http pointer, so one pair of hooks serves them all: bind gives
 * the handle the thread's recorder, flush records what its requests noted.
 */
void rest_client_side(bench_workload *w);

/* Check an answer; BENCH_OK or the class of what is wrong. */
typedef bench_code (*rest_check_fn)(void *arg, const rest_response *r);

/*
 * A set-up request (outside the measured run): performed up to 3 times while
 * its failure may be transient (rest_code_is_transient).  A status other
 * than 2xx is a failure; then check (may be NULL) judges the answer.
 * Returns BENCH_OK, or the failure's code with one line in err:
 * "<what>: HTTP 401: invalid token", "<what>: TLS: SSL certificate problem ...".
 */
bench_code rest_setup_call(rest_http *h, const char *what, const char *method, const bench_url *url,
                           const char *body, size_t len, rest_check_fn check, void *arg,
                           rest_response *resp, char *err, size_t errlen);

/* One readable line from an error answer: a google.rpc.Status "message",
 * an "error"/"message" field, or the text itself, shortened and cleaned. */
const char *rest_error_text(const char *body, size_t len, char *buf, size_t cap);
/* The same from an answer to h's request, every credential h sends taken
 * out (rest_http_scrub) of the body and of the line: what every message
 * quoting a server's answer uses. */
const char *rest_error_excerpt(const rest_http *h, const char *body, size_t len, char *buf, size_t cap);

/* Parse an answer as a JSON object; NULL with *rc = REST_E_BAD_JSON if not. */
json_t *rest_json_object(const char *body, size_t len, bench_code *rc);

/*
 * A base64 field of obj: BENCH_OK (decoded into a new buffer *out, *outlen,
 * when out is not NULL), REST_E_MISSING_FIELD (absent, not a string, or
 * empty) or REST_E_BAD_BASE64.
 */
bench_code rest_json_b64(const json_t *obj, const char *field, uint8_t **out, size_t *outlen);
/* The same for a field's text s[0..n). */
bench_code rest_b64_text(const char *s, size_t n, uint8_t **out, size_t *outlen);

/*
 * A value a server sent that hsmbench sends back in a request: SDKMS's
 * access_token in the Authorization header, a kid in a body and in a URL
 * path.  Never a control character (CR LF would end the header and start
 * another, or split the request); in a header only visible ASCII (0x21 to
 * 0x7e: a token has no spaces); in a URL path not empty, "." nor "..",
 * every other byte then going through rest_path_segment.  Values that are
 * base64 (wrappedBlob, transient_key, cipher, iv, tag, signature) are
 * checked as base64 instead, which holds no control character either.
 * BENCH_OK or REST_E_BAD_VALUE.
 */
typedef enum { REST_INTO_HEADER, REST_INTO_PATH } rest_into;
bench_code rest_server_value(const char *v, size_t n, rest_into where);
/* 1 when v[0..n) holds a control character (below 0x20, or 0x7f): the one
 * test for a secret the user gives (a bearer token, an API key) as for a
 * value from a server, before either goes into a header. */
int rest_has_control(const char *v, size_t n);
/* v as one URL path segment, every byte but A-Z a-z 0-9 - . _ ~
 * percent-encoded ("a/b?c" -> "a%2Fb%3Fc"): malloc'd, NULL out of memory. */
char *rest_path_segment(const char *v);

/* Parse an endpoint URL into *u (bench/util/url.h: http or https, a host,
 * a port that is one) and refuse user:password@ in it, which the token and
 * API key options carry instead.  0, or -1 with a reason in err and *u
 * empty. */
int rest_url_parse(bench_url *u, const char *text, char *err, size_t errlen);

/* Keep the first worker's set-up failure (the one the user is told about). */
void rest_client_setup_failed(rest_client *c, bench_code code);

/* The results file's "environment": target (kind "rest", name and id from the
 * service and the URL, bench/results/target.h), endpoint (service, url, TLS and HTTP
 * settings, plain_url when given), client (libcurl and its TLS library), host. */
json_t *rest_env_json(const char *service, const bench_url *url, const rest_http_opts *h,
                      const bench_url *plain_url);

#endif

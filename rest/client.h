/*
 * rest/client.h - what the EKM and SDKMS workloads share: the run's HTTP
 * settings and statistics, set-up requests that retry what may pass on a
 * second try, and reading the JSON answers.
 */
#ifndef REST_CLIENT_H
#define REST_CLIENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/workload.h"
#include "rest/http.h"
#include "rest/stats.h"

typedef struct rest_client {
    rest_http_opts http;
    rest_stats    *stats;           /* the run's statistics; NULL outside a run */
    /* Workers (slots) per statistics shard: the non-blocking engine gives a
     * thread's slots, numbered in a row, one shard (0: one each). */
    unsigned       per_shard;
    uint64_t       warmup_ns;       /* requests in the warm-up are not recorded */
    uint64_t       warmup_ops;      /* or (blocking) each worker's first N operations */
    /* When the measured run starts: the first operation's start plus
     * warmup_ns, the same for every worker and slot (0: not yet). */
    _Atomic uint64_t measure_at;
    /* The class of the first worker set-up failure (for the exit status). */
    _Atomic bench_code setup_code;
    /* Clean-up that failed after the run (keys left behind, sessions). */
    _Atomic uint64_t cleanup_failures;
} rest_client;

/* A run of `slots` slots (0: blocking) over `threads`: the slots of a thread
 * share its statistics shard. */
void rest_client_slots(rest_client *c, unsigned slots, unsigned threads);

/* The statistics shard of worker (or slot) `worker`; NULL outside a run. */
rest_stats_shard *rest_client_shard(rest_client *c, unsigned worker);

/* A worker's HTTP client, recording into the run's statistics. */
rest_http *rest_client_http(rest_client *c, unsigned worker, char *err, size_t errlen);

/* At the start of each operation of a worker (or slot) whose count of
 * operations started is *started: records the worker's requests from the
 * end of the warm-up on (the run's first operation starts right after the
 * pool releases every worker; a slot may start its first much later).
 * With warmup_ops, from the worker's operation warmup_ops + 1. */
void rest_client_arm(rest_client *c, rest_http *h, uint64_t *started);

/* Check an answer; BENCH_OK or the class of what is wrong. */
typedef bench_code (*rest_check_fn)(void *arg, const rest_response *r);

/*
 * A set-up request (outside the measured run): performed up to 3 times while
 * its failure may be transient (rest_code_is_transient).  A status other
 * than 2xx is a failure; then check (may be NULL) judges the answer.
 * Returns BENCH_OK, or the failure's code with one line in err:
 * "<what>: HTTP 401: invalid token", "<what>: TLS: SSL certificate problem ...".
 */
bench_code rest_setup_call(rest_http *h, const char *what, const char *method, const char *url,
                           const char *body, size_t len, rest_check_fn check, void *arg,
                           rest_response *resp, char *err, size_t errlen);

/* One readable line from an error answer: a google.rpc.Status "message",
 * an "error"/"message" field, or the text itself, shortened and cleaned. */
const char *rest_error_text(const char *body, size_t len, char *buf, size_t cap);

/* Parse an answer as a JSON object; NULL with *rc = REST_E_BAD_JSON if not. */
json_t *rest_json_object(const char *body, size_t len, bench_code *rc);

/*
 * A base64 field of obj: BENCH_OK (decoded into a new buffer *out, *outlen,
 * when out is not NULL), REST_E_MISSING_FIELD (absent, not a string, or
 * empty) or REST_E_BAD_BASE64.
 */
bench_code rest_json_b64(const json_t *obj, const char *field, uint8_t **out, size_t *outlen);

/* Check the text of an endpoint URL: http(s), a host, no user:password@.
 * 0, or -1 with a reason in err. */
int rest_url_check(const char *url, char *err, size_t errlen);

/* Keep the first worker's set-up failure (the one the user is told about). */
void rest_client_setup_failed(rest_client *c, bench_code code);

/* The results file's "environment": target (kind "rest", name and id from the
 * service and the URL, bench/target.h), endpoint (service, url, TLS and HTTP
 * settings, plain_url when given), client (libcurl and its TLS library), host. */
json_t *rest_env_json(const char *service, const char *url, const rest_http_opts *h,
                      const char *plain_url);

#endif

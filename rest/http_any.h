/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/http_any.h - any HTTP(S) request as a workload: "hsmbench rest http".
 *
 * One operation is one request: a method, a URL, the user's headers (and a
 * bearer token from a variable or a file), a body.  An answer is right when
 * its status is in the expected set (default 200-399) and, when asked, its
 * body contains a string and its JSON body has a field.  Each way of being
 * wrong is a class of its own, as the REST shim counts them:
 *
 *   HTTP nnn       a status outside the expected set (rest/transport/codes.h)
 *   EXPECT_BODY    the body lacks the --expect-body text
 *   BAD_JSON       --expect-json, and the body is not JSON
 *   EXPECT_JSON    --expect-json, and the path leads nowhere in the body
 *
 * plus every transport class of rest/transport/codes.h (TIMEOUT, TLS, ...).
 *
 * The request goes through the shim's client (rest/transport/http.h), so TLS, mutual
 * TLS, connection reuse, HTTP/2, the timeout, k6's phase timings and the
 * redacted -v log are the ones "rest ekm" and "rest sdkms" have.
 */
#ifndef REST_HTTP_ANY_H
#define REST_HTTP_ANY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/core/hist.h"
#include "bench/core/pool.h"
#include "bench/core/workload.h"
#include "bench/results/model.h"
#include "bench/util/url.h"
#include "rest/client.h"
#include "rest/transport/xfer.h"
#include "rest/transport/codes.h"

/* The classes this workload adds, far above rest/transport/codes.h's own. */
enum {
    REST_E_EXPECT_BODY = REST_CODE_CLASS_BASE + 500,   /* body lacks --expect-body */
    REST_E_EXPECT_JSON,                                /* --expect-json path not found */
};

#define REST_ANY_MAX_HEADERS 64
#define REST_ANY_MAX_RANGES  32
#define REST_ANY_MAX_BODY    (16u << 20)     /* --body-file: 16 MiB */

/* ---- expected statuses: "200", "200,204", "200-299", "2xx", mixed ------- */

typedef struct rest_status_set {
    unsigned n;
    struct { uint16_t lo, hi; } r[REST_ANY_MAX_RANGES];
} rest_status_set;

/* 0, or -1 with a one-line reason in err. */
int  rest_status_set_parse(const char *text, rest_status_set *s, char *err, size_t errlen);
void rest_status_set_default(rest_status_set *s);                  /* 200-399 */
int  rest_status_set_has(const rest_status_set *s, long status);
/* "200-399", "200,204": the set as it would be typed. */
const char *rest_status_set_text(const rest_status_set *s, char *buf, size_t len);

/* ---- a dotted path into a JSON document: ".result", ".a.b", ".items[0]" -- */

typedef struct rest_jpath_seg {
    char  *key;        /* an object member, or NULL for an array index */
    size_t index;
} rest_jpath_seg;

typedef struct rest_jpath {
    rest_jpath_seg *seg;
    size_t          n;     /* 0: "." itself (the body must be JSON) */
} rest_jpath;

/*
 * Grammar: "." | ( "." KEY? ( "[" DIGITS "]" )* )+ where KEY is a run of
 * characters other than '.', '[', ']' and '"', or a double-quoted string
 * without quotes inside (."a.b").  A step may omit its key only before an
 * index (".[0].id").  0, or -1 with a one-line reason in err.
 */
int  rest_jpath_parse(const char *text, rest_jpath *p, char *err, size_t errlen);
void rest_jpath_free(rest_jpath *p);
/* The value at the path (a member that is null exists), or NULL. */
const json_t *rest_jpath_get(const rest_jpath *p, const json_t *root);

/* ---- headers -------------------------------------------------------------- */

/* "Name: value" (or "Name:", which removes a header libcurl would send):
 * a token for a name, no CR, LF or NUL.  0, or -1 with a reason in err. */
int rest_header_check(const char *h, char *err, size_t errlen);
/* Whether the header line is named `name` (case-insensitive). */
int rest_header_is(const char *h, const char *name);
/*
 * Whether the header's value is a secret, never written out
 * (rest_http_secret_header's list, and the n names in extra: --secret-header).
 */
int rest_header_is_secret(const char *h, const char *const *extra, size_t n);

/* A method: an RFC 9110 token of at most 32 characters.  0 or -1. */
int rest_method_check(const char *m);

/* ---- the workload ---------------------------------------------------------- */

typedef struct rest_any_cfg {
    const char        *method;         /* "GET", "POST", ... */
    const bench_url   *url;
    char *const       *headers;        /* "Name: value" lines, as given */
    size_t             nheaders;
    const char        *bearer;         /* sent as "Authorization: Bearer ..."; NULL: none */
    const char        *content_type;   /* added when a body is sent without one; NULL: none */
    const char        *body;           /* NULL: no body */
    size_t             body_len;
    rest_status_set    expect;
    const char        *expect_body;    /* NULL: not checked */
    const rest_jpath  *expect_json;    /* NULL: not checked */
    /* --token-cmd: the bearer comes from here instead, and a request
     * refused with 401 (not an --expect-status) is sent once more with a
     * new one (NULL: bearer above). */
    struct rest_tokcmd *tokens;
} rest_any_cfg;

typedef struct rest_any {
    rest_any_cfg cfg;
    rest_client *client;
    rest_xfer_workload xw;          /* for the non-blocking engine */
} rest_any;

/* Nothing to fail: the configuration is borrowed, not copied. */
void rest_any_init(rest_any *a, const rest_any_cfg *cfg, rest_client *client);

/* Judge one answer: BENCH_OK or the class of what is wrong. */
bench_code rest_any_check(const rest_any_cfg *c, const rest_response *r);

/*
 * One request before the run, not recorded: up to 3 tries while the failure
 * may pass (rest_code_is_transient).  BENCH_OK, or the code of the last
 * failure with a line in err ("GET https://h/x: HTTP 404: Not found",
 * "...: TLS: SSL certificate problem ...").  *status is the last answer's.
 */
bench_code rest_any_preflight(rest_any *a, long *status, char *err, size_t errlen);

/* The workload the timing core drives; ctx is a.  aslots: transfers in
 * flight at most in non-blocking runs (rest/transport/multi.h); 0: blocking only. */
void rest_any_workload(rest_any *a, bench_workload *w, unsigned aslots);
/* Names this workload's codes, and every other code as rest/transport/codes.h does. */
void rest_any_code_name(const void *ctx, bench_code code, char *buf, size_t len);

/* ---- reporting -------------------------------------------------------------- */

/*
 * JMeter's summariser line of a run's model, in JMeter's layout (its
 * Summariser.format: counts right-aligned in 6 and 5 columns):
 *   "summary =  12000 in 00:00:42 =  283.7/s Avg:   155 Min:    12 Max:  2707 Err:     0 (0.00%)"
 * its attempts (JMeter counts every sample, failed ones too), its duration
 * in whole seconds (rounded, as JMeter does), the attempts' rate with one
 * decimal ("******" for no time at all, as JMeter), the mean, minimum and
 * maximum in whole milliseconds (rounded) of the latency of every attempt
 * (attempts_latency), and the errors with their share of the attempts.
 */
void rest_jmeter_line(char *buf, size_t len, const bench_run_model *m);

/*
 * JMeter's summariser as it runs (seed 004's non-GUI output): fed each
 * measured interval of the run (bench_sample, the failed operations' latency
 * included), every interval_s seconds of run it prints
 *   "summary +    107 in 00:00:30 =    3.6/s Avg:   276 Min:   104 Max:  1214 Err:     0 (0.00%) Active: 1 Started: 1 Finished: 0"
 * for those seconds and, from the second such line on, "summary =" for the
 * run so far; at the end the last seconds' "+" (when a "+" came before)
 * and the whole run's "=" (rest_jmeter_line, from the run model), once.
 * An interval is over when its seconds of run add up to interval_s (a run
 * shorter than the interval prints its "=" alone, as JMeter does); the
 * running "=" is held until the run goes on (the next second), so a run
 * that ends at an interval's end prints the model's "=" in its place, not
 * a second "=" of the same samples.  Every rate is bench_model_rate's.
 */
#define REST_JMETER_INTERVAL_S 30        /* JMeter's summariser.interval */
typedef struct rest_jmeter_acc {
    uint64_t n, errors;
    double   sum_ns, span_s;
    uint64_t min_ns, max_ns;
} rest_jmeter_acc;
typedef struct rest_jmeter_summariser {
    FILE           *f;
    unsigned        interval_s;
    rest_jmeter_acc delta, total;
    unsigned        started, finished;   /* threads, at the last interval */
    int             reported;            /* a "summary +" line was printed */
    int             held;                /* the running "=" waits for the next second */
    int             failed;              /* a write failed */
} rest_jmeter_summariser;
/* --summary-interval TEXT: whole seconds, 1 s to a day.  0, or -1 (printed). */
int  rest_jmeter_interval_parse(const char *text, unsigned *interval_s);
void rest_jmeter_begin(rest_jmeter_summariser *js, FILE *f, unsigned interval_s);
void rest_jmeter_second(rest_jmeter_summariser *js, const bench_sample *smp);
/* The closing lines; -1 when a write failed (now or at an interval). */
int  rest_jmeter_end(rest_jmeter_summariser *js, const bench_run_model *m);

/* ---- the command ------------------------------------------------------------- */

/* "hsmbench rest http ...": argv[0] is "rest", argv[1] "http" (as
 * rest_cmd_rest gets them).  Returns a BENCH_EXIT_* code. */
int rest_cmd_http(int argc, char **argv);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/http_any.c - any HTTP(S) request: expectations, headers, the workload. */
#include "rest/http_any.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/signals.h"
#include "rest/transport/http.h"
#include "rest/tokencmd.h"
#include "rest/transport/multi.h"

_Static_assert((unsigned)REST_E_EXPECT_BODY > (unsigned)REST_E_CLASS_END,
               "rest/http_any.h's classes must stay above rest/transport/codes.h's");

#define PREFLIGHT_TRIES 3

/* ---- expected statuses ------------------------------------------------------ */

void rest_status_set_default(rest_status_set *s)
{
    memset(s, 0, sizeof *s);
    s->n = 1;
    s->r[0].lo = 200;
    s->r[0].hi = 399;
}

static int parse_status(const char *p, size_t n, unsigned *out)
{
    unsigned v = 0;
    if (n != 3)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)p[i]))
            return -1;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    if (v < 100 || v > 599)
        return -1;
    *out = v;
    return 0;
}

int rest_status_set_parse(const char *text, rest_status_set *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    const char *p = text;
    if (!*text) {
        snprintf(err, errlen, "--expect-status: give statuses, as 200, 200,204 or 200-299");
        return -1;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        const char *dash = memchr(p, '-', n);
        unsigned lo, hi;
        int ok;
        if (n == 3 && (p[1] == 'x' || p[1] == 'X') && (p[2] == 'x' || p[2] == 'X') &&
            p[0] >= '1' && p[0] <= '5') {
            lo = (unsigned)(p[0] - '0') * 100;
            hi = lo + 99;
            ok = 1;
        } else if (dash) {
            ok = parse_status(p, (size_t)(dash - p), &lo) == 0 &&
                 parse_status(dash + 1, n - (size_t)(dash - p) - 1, &hi) == 0 && lo <= hi;
        } else {
            ok = parse_status(p, n, &lo) == 0;
            hi = lo;
        }
        if (!ok) {
            snprintf(err, errlen, "--expect-status %s: '%.*s' is not a status (100 to 599), a "
                     "range (200-299) or a class (2xx)", text, (int)n, p);
            return -1;
        }
        if (s->n == REST_ANY_MAX_RANGES) {
            snprintf(err, errlen, "--expect-status: at most %d items", REST_ANY_MAX_RANGES);
            return -1;
        }
        s->r[s->n].lo = (uint16_t)lo;
        s->r[s->n].hi = (uint16_t)hi;
        s->n++;
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}

int rest_status_set_has(const rest_status_set *s, long status)
{
    for (unsigned i = 0; i < s->n; i++)
        if (status >= s->r[i].lo && status <= s->r[i].hi)
            return 1;
    return 0;
}

const char *rest_status_set_text(const rest_status_set *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < s->n && o < len; i++) {
        int w = s->r[i].lo == s->r[i].hi
                    ? snprintf(buf + o, len - o, "%s%u", i ? "," : "", s->r[i].lo)
                    : snprintf(buf + o, len - o, "%s%u-%u", i ? "," : "", s->r[i].lo, s->r[i].hi);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}

/* ---- JSON paths ------------------------------------------------------------- */

void rest_jpath_free(rest_jpath *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->seg[i].key);
    free(p->seg);
    p->seg = NULL;
    p->n = 0;
}

static int jpath_push(rest_jpath *p, char *key, size_t index)
{
    rest_jpath_seg *ns = realloc(p->seg, (p->n + 1) * sizeof *ns);
    if (!ns)
        return -1;
    p->seg = ns;
    p->seg[p->n].key = key;
    p->seg[p->n].index = index;
    p->n++;
    return 0;
}

int rest_jpath_parse(const char *text, rest_jpath *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (text[0] != '.') {
        snprintf(err, errlen, "--expect-json %s: a path starts with '.' (.result, .a.b, .items[0])",
                 text);
        return -1;
    }
    if (strcmp(text, ".") == 0)
        return 0;
    const char *s = text;
    while (*s) {
        if (*s != '.')
            goto bad;
        s++;
        char *key = NULL;
        if (*s == '"') {
            const char *end = strchr(s + 1, '"');
            if (!end)
                goto bad;
            key = strndup(s + 1, (size_t)(end - s - 1));
            s = end + 1;
        } else {
            size_t n = strcspn(s, ".[]\"");
            if (n)
                key = strndup(s, n);
            else if (*s != '[')
                goto bad;                      /* ".." or a trailing '.' */
            s += n;
        }
        if (key && jpath_push(p, key, 0) != 0) {
            free(key);
            goto oom;
        }
        if (!key && *s != '[')
            goto bad;
        while (*s == '[') {
            char *end;
            if (!isdigit((unsigned char)s[1]))
                goto bad;
            unsigned long long v = strtoull(s + 1, &end, 10);
            if (*end != ']' || v > 1000000000ULL)
                goto bad;
            if (jpath_push(p, NULL, (size_t)v) != 0)
                goto oom;
            s = end + 1;
        }
    }
    return 0;
bad:
    snprintf(err, errlen, "--expect-json %s: not a path (.result, .a.b, .items[0], .\"a.b\")", text);
    rest_jpath_free(p);
    return -1;
oom:
    snprintf(err, errlen, "out of memory");
    rest_jpath_free(p);
    return -1;
}

const json_t *rest_jpath_get(const rest_jpath *p, const json_t *root)
{
    const json_t *cur = root;
    for (size_t i = 0; cur && i < p->n; i++) {
        const rest_jpath_seg *g = &p->seg[i];
        if (g->key)
            cur = json_is_object(cur) ? json_object_get(cur, g->key) : NULL;
        else
            cur = json_is_array(cur) && g->index < json_array_size(cur)
                      ? json_array_get(cur, g->index) : NULL;
    }
    return cur;
}

/* ---- headers and methods ------------------------------------------------------ */

/* RFC 9110 tchar. */
static int tchar(unsigned char c)
{
    return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

int rest_header_check(const char *h, char *err, size_t errlen)
{
    size_t n = 0;
    while (tchar((unsigned char)h[n]))
        n++;
    if (n == 0 || h[n] != ':') {
        snprintf(err, errlen, "--header '%.40s': expected 'Name: value'", h);
        return -1;
    }
    for (const char *c = h; *c; c++) {
        if (*c == '\r' || *c == '\n') {
            snprintf(err, errlen, "--header %.*s: the value contains a line break", (int)n, h);
            return -1;
        }
    }
    return 0;
}

int rest_header_is(const char *h, const char *name)
{
    size_t n = strlen(name);
    return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

int rest_header_is_secret(const char *h, const char *const *extra, size_t n)
{
    return rest_http_secret_header(h, strlen(h), extra, n) != 0;
}

int rest_method_check(const char *m)
{
    size_t n = 0;
    while (tchar((unsigned char)m[n]))
        n++;
    return n > 0 && n <= 32 && m[n] == 0 ? 0 : -1;
}

/* ---- judging an answer -------------------------------------------------------- */

bench_code rest_any_check(const rest_any_cfg *c, const rest_response *r)
{
    if (r->transport)
        return r->transport;
    if (!rest_status_set_has(&c->expect, r->status))
        return rest_code_http(r->status);
    if (c->expect_body && !memmem(r->body, r->body_len, c->expect_body, strlen(c->expect_body)))
        return REST_E_EXPECT_BODY;
    if (c->expect_json) {
        json_t *j = json_loadb(r->body, r->body_len, JSON_DECODE_ANY, NULL);
        if (!j)
            return REST_E_BAD_JSON;
        bench_code rc = rest_jpath_get(c->expect_json, j) ? BENCH_OK : REST_E_EXPECT_JSON;
        json_decref(j);
        return rc;
    }
    return BENCH_OK;
}

void rest_any_code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    if (code == REST_E_EXPECT_BODY)
        snprintf(buf, len, "EXPECT_BODY");
    else if (code == REST_E_EXPECT_JSON)
        snprintf(buf, len, "EXPECT_JSON");
    else
        rest_code_name(code, buf, len);
}

/* ---- the workload ------------------------------------------------------------- */

typedef enum { SEND_PLAIN, SEND_POST, SEND_BODY, SEND_HEAD } send_kind;

typedef struct any_worker {
    rest_http         *http;         /* first: the REST side-metrics hooks find it */
    rest_any          *a;
    struct curl_slist *headers;      /* may hold the bearer: wiped on close */
    send_kind          send;
    CURLcode           prep;         /* preparing the request failed: this, not the transfer's */
    unsigned long      tgen;         /* --token-cmd: the generation of the token it sends */
    int                renewed;      /* this operation sent its request again after a 401 */
} any_worker;

void rest_any_init(rest_any *a, const rest_any_cfg *cfg, rest_client *client)
{
    a->cfg = *cfg;
    a->client = client;
}

static void wipe_list(struct curl_slist *l)
{
    for (struct curl_slist *n = l; n; n = n->next)
        if (n->data)
            explicit_bzero(n->data, strlen(n->data));
    curl_slist_free_all(l);
}

static int has_header(const rest_any_cfg *c, const char *name)
{
    for (size_t i = 0; i < c->nheaders; i++)
        if (rest_header_is(c->headers[i], name))
            return 1;
    return 0;
}

static int append(struct curl_slist **l, const char *line)
{
    struct curl_slist *n = curl_slist_append(*l, line);
    if (!n)
        return -1;
    *l = n;
    return 0;
}

/* The worker's header list: the user's, the bearer, the defaults. */
static struct curl_slist *make_headers(const rest_any_cfg *c, const char *bearer)
{
    struct curl_slist *l = NULL;
    for (size_t i = 0; i < c->nheaders; i++)
        if (append(&l, c->headers[i]) != 0)
            goto oom;
    if (bearer) {
        size_t n = strlen(bearer) + 32;
        char *line = malloc(n);
        if (!line)
            goto oom;
        snprintf(line, n, "Authorization: Bearer %s", bearer);
        int rc = append(&l, line);
        explicit_bzero(line, n);
        free(line);
        if (rc != 0)
            goto oom;
    }
    if (c->body && c->content_type && !has_header(c, "Content-Type")) {
        char line[128];
        snprintf(line, sizeof line, "Content-Type: %s", c->content_type);
        if (append(&l, line) != 0)
            goto oom;
    }
    if (!has_header(c, "User-Agent") && append(&l, REST_USER_AGENT) != 0)
        goto oom;
    /* No 100-continue round trip before a larger body; a smaller one never
     * waits for it, and a header line less is cheaper for libcurl. */
    if (c->body && c->body_len > REST_EXPECT_MIN && !has_header(c, "Expect") &&
        append(&l, "Expect:") != 0)
        goto oom;
    return l;
oom:
    wipe_list(l);
    return NULL;
}

static void worker_free(any_worker *w)
{
    if (!w)
        return;
    rest_http_free(w->http);          /* the handle goes before the list it points to */
    wipe_list(w->headers);
    free(w);
}

/* The worker's headers with the bearer of --token-cmd, or the fixed one;
 * the old list wiped.  0, or -1 when out of memory (the old list stays). */
static int take_headers(any_worker *w)
{
    const rest_any_cfg *c = &w->a->cfg;
    unsigned long g = 0;
    char *tok = c->tokens ? rest_tokcmd_copy(c->tokens, &g) : NULL;
    struct curl_slist *l = !c->tokens || tok ? make_headers(c, c->tokens ? tok : c->bearer) : NULL;
    rest_tokcmd_wipe(tok);
    if (!l)
        return -1;
    rest_http_set_headers(w->http, l, 0);
    wipe_list(w->headers);
    w->headers = l;
    w->tgen = g;
    return 0;
}

static any_worker *worker_make(rest_any *a, unsigned index, char *err, size_t errlen)
{
    const rest_any_cfg *c = &a->cfg;
    any_worker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->a = a;
    if (!(w->http = rest_client_http(a->client, index, err, errlen))) {
        free(w);
        return NULL;
    }
    if (take_headers(w) != 0) {
        snprintf(err, errlen, "out of memory");
        worker_free(w);
        return NULL;
    }
    if (strcmp(c->method, "HEAD") == 0)
        w->send = SEND_HEAD;
    else if (strcmp(c->method, "POST") == 0)
        w->send = SEND_POST;
    else
        w->send = c->body ? SEND_BODY : SEND_PLAIN;
    return w;
}

/* Prepare the request on the worker's handle.  The options set here do not
 * allocate, except the method's name; a failure is remembered and counted
 * as the operation's code instead of the transfer's. */
static CURL *prepare(any_worker *w)
{
    const rest_any_cfg *c = &w->a->cfg;
    CURL *e = rest_http_easy(w->http);
    CURLcode pc = CURLE_OK;
    switch (w->send) {
    case SEND_POST:
        rest_http_request(w->http, "POST", c->url, c->body, c->body ? c->body_len : 0);
        break;
    case SEND_PLAIN:
        rest_http_request(w->http, c->method, c->url, NULL, 0);
        break;
    case SEND_HEAD:
        rest_http_request(w->http, c->method, c->url, NULL, 0);
        pc = curl_easy_setopt(e, CURLOPT_NOBODY, 1L);   /* HTTPGET cleared it: no body to wait for */
        break;
    case SEND_BODY:
        /* PUT, PATCH, DELETE, ... with a body: the client prepares a body-less
         * request with the method, the body then makes it a POST-style
         * transfer under that method's name. */
        rest_http_request(w->http, c->method, c->url, NULL, 0);
        if (strcmp(c->method, "GET") == 0)
            pc = curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "GET");
        if (pc == CURLE_OK)
            pc = curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
        if (pc == CURLE_OK)
            pc = curl_easy_setopt(e, CURLOPT_POSTFIELDS, c->body);
        break;
    }
    w->prep = pc;
    return e;
}

static int any_open(void *ctx, unsigned index, void **state, char *err, size_t errlen)
{
    rest_any *a = ctx;
    any_worker *w = worker_make(a, index, err, errlen);
    if (!w)
        return -1;
    *state = w;
    return 0;
}

static rest_http *any_start(void *state)
{
    any_worker *w = state;
    /* A new token from --token-cmd (one atomic load when there is none);
     * out of memory keeps the old one, tried again at the next request. */
    if (w->a->cfg.tokens && rest_tokcmd_gen(w->a->cfg.tokens) != w->tgen)
        (void)take_headers(w);
    w->renewed = 0;
    (void)prepare(w);     /* a failure to prepare is w->prep, which any_finish() reports */
    return w->http;
}

static rest_step any_finish(void *state, rest_xfer_rc cc, bench_code *rc)
{
    any_worker *w = state;
    rest_response r;
    rest_http_finish(w->http, w->prep != CURLE_OK ? (rest_xfer_rc)w->prep : cc, &r);
    rest_tokcmd *t = w->a->cfg.tokens;
    if (t && !w->renewed && !r.transport && r.status == 401 &&
        !rest_status_set_has(&w->a->cfg.expect, 401)) {
        /* As rest ekm: a new token and the same request once more; the
         * operation is judged by the second answer. */
        w->renewed = 1;
        if (rest_tokcmd_renew(t, w->tgen) == 0 && take_headers(w) == 0) {
            rest_tokcmd_note_retry(t);
            (void)prepare(w);
            return REST_STEP_AGAIN;
        }
    }
    *rc = rest_any_check(&w->a->cfg, &r);
    /* k6's checks: the status (--expect), then the body (--expect-body,
     * --expect-json) when one is asked for. */
    const rest_any_cfg *c = &w->a->cfg;
    const int status_ok = !r.transport && rest_status_set_has(&c->expect, r.status);
    rest_http_note_check(w->http, REST_CHECK_STATUS, status_ok);
    if (status_ok && (c->expect_body || c->expect_json))
        rest_http_note_check(w->http, REST_CHECK_BODY, *rc == BENCH_OK);
    return REST_STEP_DONE;
}

static void any_close(void *state)
{
    worker_free(state);
}

static const rest_xfer_ops any_ops = { any_open, any_start, any_finish, any_close };

static bench_code any_do_one(void *state)
{
    return rest_xfer_run(&any_ops, state);
}

void rest_any_workload(rest_any *a, bench_workload *w, unsigned aslots)
{
    memset(w, 0, sizeof *w);
    w->ctx = a;
    w->open = any_open;
    w->do_one = any_do_one;
    w->close = any_close;
    a->xw = (rest_xfer_workload){ &any_ops, a };
    if (aslots)
        rest_multi_attach(w, &a->xw, aslots, &a->client->http);
    w->code_name = rest_any_code_name;
    w->call = "an HTTP request";
    rest_client_side(w);
    w->bytes_per_op = a->cfg.body ? a->cfg.body_len : 0;
}

static bench_code preflight_once(rest_any *a, long *status, char *err, size_t errlen)
{
    const rest_any_cfg *c = &a->cfg;
    any_worker *w = worker_make(a, 0, err, errlen);
    bench_code rc = REST_E_MISSING_FIELD;
    rest_response r;
    *status = 0;
    if (!w)
        return rc;
    for (int attempt = 1; attempt <= PREFLIGHT_TRIES; attempt++) {
        CURL *e = prepare(w);
        const rest_xfer_rc cc = curl_easy_perform(e);
        rest_http_finish(w->http, w->prep != CURLE_OK ? (rest_xfer_rc)w->prep : cc, &r);
        *status = r.status;
        rc = rest_any_check(c, &r);
        if (rc == BENCH_OK || !rest_code_is_transient(rc) || rc == REST_E_TIMEOUT ||
            attempt == PREFLIGHT_TRIES)          /* one --timeout, as the message says */
            break;
        struct timespec ts = { 0, 100L * 1000 * 1000 * attempt };
        (void)nanosleep(&ts, NULL);          /* a signal only shortens the pause */
    }
    if (rc != BENCH_OK) {
        char name[64], text[200];
        rest_any_code_name(a, rc, name, sizeof name);
        if (r.transport)
            snprintf(err, errlen, "%s %s: %s: %s", c->method, c->url->identity, name, r.error);
        else if (rest_code_http_status(rc))
            snprintf(err, errlen, "%s %s: %s%s%s", c->method, c->url->identity, name,
                     r.body_len ? ": " : "", rest_error_excerpt(w->http, r.body, r.body_len, text, sizeof text));
        else
            snprintf(err, errlen, "%s %s: %s", c->method, c->url->identity, name);
    }
    worker_free(w);
    return rc;
}

/* The set-up check, published so a Ctrl-C says what it waits for. */
bench_code rest_any_preflight(rest_any *a, long *status, char *err, size_t errlen)
{
    const char *was = bench_signals_waiting_for("the endpoint's answer to the set-up request");
    bench_code rc = preflight_once(a, status, err, errlen);
    bench_signals_waiting_for(was);
    return rc;
}

/* ---- reporting ------------------------------------------------------------------ */

static unsigned long long ms_round(double ns)
{
    return ns > 0 ? (unsigned long long)llround(ns / 1e6) : 0;
}

/* One summariser line as JMeter's Summariser.format lays it out; latencies
 * in ns, type '+' or '='; per_s the attempts' rate (the model's own figure
 * for the '=' line: not re-derived from a duration rounded to milliseconds,
 * which moved it by up to 0.6 % on a 0.08 s run), negative for no time at
 * all; active: the "+" line's thread counts, or NULL. */
static void jmeter_format(char *buf, size_t len, char type, uint64_t n, double elapsed_s,
                          double per_s, double mean_ns, double min_ns, double max_ns,
                          uint64_t errors, const char *active)
{
    unsigned long long ms = elapsed_s > 0 ? (unsigned long long)llround(elapsed_s * 1000.0) : 0;
    unsigned long long s = (ms + 500) / 1000;          /* JMeter: rounded seconds */
    char rate[32];
    if (per_s >= 0 && elapsed_s > 0)
        snprintf(rate, sizeof rate, "%6.1f", per_s);
    else
        snprintf(rate, sizeof rate, "******");         /* JMeter: an infinite rate */
    snprintf(buf, len,
             "summary %c %6llu in %02llu:%02llu:%02llu = %s/s Avg: %5llu Min: %5llu Max: %5llu "
             "Err: %5llu (%.2f%%)%s%s",
             type, (unsigned long long)n, s / 3600, s / 60 % 60, s % 60, rate,
             n ? ms_round(mean_ns) : 0ULL, n ? ms_round(min_ns) : 0ULL, n ? ms_round(max_ns) : 0ULL,
             (unsigned long long)errors, n ? 100.0 * (double)errors / (double)n : 0.0,
             active ? " " : "", active ? active : "");
}

void rest_jmeter_line(char *buf, size_t len, const bench_run_model *m)
{
    const bench_model_latency *h = &m->attempts_latency;
    const int any = h->present && h->count > 0;
    jmeter_format(buf, len, '=', m->attempts, m->duration_s, m->attempts_per_s,
                  any ? h->mean * 1e3 : 0, any ? h->min * 1e3 : 0, any ? h->max * 1e3 : 0,
                  m->errors, NULL);
}

int rest_jmeter_interval_parse(const char *text, unsigned *interval_s)
{
    uint64_t ns;
    if (bench_parse_duration("--summary-interval", text, BENCH_NS_PER_S, 24ULL * 3600 * BENCH_NS_PER_S,
                             &ns) != 0)
        return -1;
    if (ns % BENCH_NS_PER_S) {
        bench_error("--summary-interval %s: whole seconds (the summariser adds up the run's seconds)",
                    text);
        return -1;
    }
    *interval_s = (unsigned)(ns / BENCH_NS_PER_S);
    return 0;
}

void rest_jmeter_begin(rest_jmeter_summariser *js, FILE *f, unsigned interval_s)
{
    memset(js, 0, sizeof *js);
    js->f = f;
    js->interval_s = interval_s ? interval_s : REST_JMETER_INTERVAL_S;
}

static void acc_add(rest_jmeter_acc *a, const rest_jmeter_acc *b)
{
    if (b->n && (!a->n || b->min_ns < a->min_ns))
        a->min_ns = b->min_ns;
    if (b->max_ns > a->max_ns)
        a->max_ns = b->max_ns;
    a->n += b->n;
    a->errors += b->errors;
    a->sum_ns += b->sum_ns;
    a->span_s += b->span_s;
}

static void acc_line(rest_jmeter_summariser *js, char type, const rest_jmeter_acc *a)
{
    char line[256], active[96];
    snprintf(active, sizeof active, "Active: %u Started: %u Finished: %u",
             js->started > js->finished ? js->started - js->finished : 0, js->started, js->finished);
    jmeter_format(line, sizeof line, type, a->n, a->span_s,
                  a->span_s > 0 ? bench_model_rate(a->n, a->span_s) : -1, a->n ? a->sum_ns / (double)a->n : 0,
                  (double)a->min_ns, (double)a->max_ns, a->errors, type == '+' ? active : NULL);
    if (fprintf(js->f, "%s\n", line) < 0)
        js->failed = 1;
    bench_flush(js->f);
}

void rest_jmeter_second(rest_jmeter_summariser *js, const bench_sample *smp)
{
    const rest_jmeter_acc one = { smp->ops, smp->errors, smp->all_mean_ns * (double)smp->ops,
                                  smp->span_s, smp->all_min_ns, smp->all_max_ns };
    if (js->held) {
        acc_line(js, '=', &js->total);      /* the run went on: the running total was not the last */
        js->held = 0;
    }
    acc_add(&js->delta, &one);
    js->started = smp->started;
    js->finished = smp->finished;
    /* The interval is over when its seconds add up to it (the ticks fall on
     * whole seconds of run, so only a rounding error is forgiven): a run's
     * last, partial second does not complete it. */
    if (js->delta.span_s + 1e-3 < (double)js->interval_s)
        return;
    if (!js->delta.n)
        return;              /* JMeter reports when a sample comes: the next interval's does */
    acc_line(js, '+', &js->delta);
    acc_add(&js->total, &js->delta);
    js->held = js->reported;               /* JMeter: only once it differs from the "+" */
    js->reported = 1;
    memset(&js->delta, 0, sizeof js->delta);
}

int rest_jmeter_end(rest_jmeter_summariser *js, const bench_run_model *m)
{
    char line[256];
    /* A held running total is the whole run's: the model's line replaces it. */
    js->held = 0;
    if (js->reported && js->delta.n)
        acc_line(js, '+', &js->delta);
    rest_jmeter_line(line, sizeof line, m);
    if (fprintf(js->f, "%s\n", line) < 0)
        js->failed = 1;
    const int failed = js->failed;
    rest_jmeter_begin(js, js->f, js->interval_s);     /* the next run's (a capacity step) */
    return failed ? -1 : 0;
}

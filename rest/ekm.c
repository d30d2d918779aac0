/* SPDX-License-Identifier: Apache-2.0 */
/* rest/ekm.c - EKM wrap/unwrap: bodies, checks, the workload. */
#include "rest/ekm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/rand.h>

#include "bench/util/b64.h"
#include "bench/util/signals.h"
#include "rest/transport/codes.h"
#include "rest/jscan.h"
#include "rest/tokencmd.h"
#include "rest/transport/multi.h"

int rest_ekm_op_parse(const char *s, rest_ekm_op *out)
{
    if (strcmp(s, "wrap") == 0)
        *out = REST_EKM_WRAP;
    else if (strcmp(s, "unwrap") == 0)
        *out = REST_EKM_UNWRAP;
    else if (strcmp(s, "wrap-unwrap") == 0)
        *out = REST_EKM_WRAP_UNWRAP;
    else
        return -1;
    return 0;
}

const char *rest_ekm_op_name(rest_ekm_op op)
{
    switch (op) {
    case REST_EKM_WRAP:        return "wrap";
    case REST_EKM_UNWRAP:      return "unwrap";
    case REST_EKM_WRAP_UNWRAP: return "wrap-unwrap";
    }
    return "?";
}

static json_t *context_json(const char *reason)
{
    return json_pack("{s:{s:s}}", "accessReasonContext", "reason", reason);
}

static char *dump(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    return s;
}

static int set_b64(json_t *obj, const char *key, const uint8_t *data, size_t n)
{
    char *s = bench_b64_encode_alloc(data, n);
    int rc = s ? json_object_set_new(obj, key, json_string(s)) : -1;
    free(s);
    return rc;
}

char *rest_ekm_wrap_body(const uint8_t *pt, size_t n, const uint8_t *aad, size_t aadlen,
                         const char *reason)
{
    json_t *j = json_object();
    if (!j || set_b64(j, "plaintext", pt, n) != 0 ||
        json_object_set_new(j, "additionalContext", context_json(reason)) != 0 ||
        (aad && set_b64(j, "additionalAuthenticatedData", aad, aadlen) != 0)) {
        json_decref(j);
        return NULL;
    }
    return dump(j);
}

char *rest_ekm_unwrap_body(const char *blob_b64, const uint8_t *aad, size_t aadlen,
                           const char *reason)
{
    json_t *j = json_object();
    if (!j || json_object_set_new(j, "wrappedBlob", json_string(blob_b64)) != 0 ||
        json_object_set_new(j, "additionalContext", context_json(reason)) != 0 ||
        (aad && set_b64(j, "additionalAuthenticatedData", aad, aadlen) != 0)) {
        json_decref(j);
        return NULL;
    }
    return dump(j);
}

bench_code rest_ekm_check_wrap(const char *body, size_t len, char **blob)
{
    bench_code rc;
    const char *v;
    size_t vn;
    int b64;
    if (rest_jscan_b64(body, len, "wrappedBlob", &v, &vn, &b64)) {
        /* A plain answer: what jansson and rest_b64_text would say,
         * without building it, in one pass. */
        rc = !vn ? REST_E_MISSING_FIELD : b64 ? BENCH_OK : REST_E_BAD_BASE64;
        if (rc == BENCH_OK && blob && !(*blob = strndup(v, vn)))
            rc = REST_E_MISSING_FIELD;
        return rc;
    }
    json_t *j = rest_json_object(body, len, &rc);
    if (!j)
        return rc;
    rc = rest_json_b64(j, "wrappedBlob", NULL, NULL);
    if (rc == BENCH_OK && blob) {
        *blob = strdup(json_string_value(json_object_get(j, "wrappedBlob")));
        if (!*blob)
            rc = REST_E_MISSING_FIELD;
    }
    json_decref(j);
    return rc;
}

bench_code rest_ekm_check_unwrap(const char *body, size_t len, const uint8_t *expect, size_t n)
{
    bench_code rc;
    uint8_t *pt = NULL;
    size_t ptlen = 0;
    const char *v;
    size_t vn;
    json_t *j = NULL;
    if (rest_jscan_string(body, len, "plaintext", &v, &vn)) {
        rc = rest_b64_text(v, vn, &pt, &ptlen);   /* plain: without jansson */
    } else {
        if (!(j = rest_json_object(body, len, &rc)))
            return rc;
        rc = rest_json_b64(j, "plaintext", &pt, &ptlen);
    }
    if (rc == BENCH_OK && (ptlen != n || memcmp(pt, expect, n) != 0))
        rc = REST_E_ROUNDTRIP_MISMATCH;
    free(pt);
    json_decref(j);
    return rc;
}

/* ---- the workload -------------------------------------------------------- */

typedef struct ekm_worker {
    rest_http *http;                 /* first: the REST side-metrics hooks find it */
    rest_ekm  *e;
    int        step;                 /* wrap-unwrap: 0 wrapping, 1 unwrapping */
    uint8_t   *pt;                   /* this worker's plaintext */
    char      *wrap_body;
    size_t     wrap_len;
    char      *unwrap_body;          /* unwrap: the blob made at set-up; wrap-unwrap: this op's */
    size_t     unwrap_len;
    unsigned long tgen;              /* --token-cmd: the generation of the token it sends */
    int        renewed;              /* this operation sent a request again after a 401 */
} ekm_worker;

/* The bearer the worker sends: --token-cmd's current token, or the fixed one.
 * 0, or -1 when out of memory (the old one stays). */
static int take_token(ekm_worker *w)
{
    rest_tokcmd *t = w->e->cfg.tokens;
    if (!t)
        return rest_http_set_auth(w->http, "Bearer", w->e->cfg.token);
    unsigned long g = 0;
    char *tok = rest_tokcmd_copy(t, &g);
    const int rc = tok ? rest_http_set_auth(w->http, "Bearer", tok) : -1;
    rest_tokcmd_wipe(tok);
    if (rc == 0)
        w->tgen = g;
    return rc;
}

int rest_ekm_init(rest_ekm *e, const rest_ekm_cfg *cfg, rest_client *client, char *err,
                  size_t errlen)
{
    memset(e, 0, sizeof *e);
    e->cfg = *cfg;
    e->client = client;
    if (bench_url_append(&e->wrap_url, cfg->endpoint, ":wrap", err, errlen) != 0 ||
        bench_url_append(&e->unwrap_url, cfg->endpoint, ":unwrap", err, errlen) != 0) {
        rest_ekm_fini(e);
        return -1;
    }
    return 0;
}

void rest_ekm_fini(rest_ekm *e)
{
    bench_url_free(&e->wrap_url);
    bench_url_free(&e->unwrap_url);
}

static bench_code check_wrap_cb(void *arg, const rest_response *r)
{
    return rest_ekm_check_wrap(r->body, r->body_len, (char **)arg);
}

typedef struct { const uint8_t *pt; size_t n; } expect_pt;

static bench_code check_unwrap_cb(void *arg, const rest_response *r)
{
    const expect_pt *x = arg;
    return rest_ekm_check_unwrap(r->body, r->body_len, x->pt, x->n);
}

static void worker_free(ekm_worker *w)
{
    if (!w)
        return;
    rest_http_free(w->http);
    free(w->pt);
    free(w->wrap_body);
    free(w->unwrap_body);
    free(w);
}

/* Wrap once during set-up and build the unwrap body from the blob. */
static bench_code setup_unwrap(ekm_worker *w, char *err, size_t errlen)
{
    rest_ekm *e = w->e;
    rest_response r;
    char *blob = NULL;
    bench_code rc = rest_setup_call(w->http, "EKM wrap (set-up)", "POST", &e->wrap_url,
                                    w->wrap_body, w->wrap_len, check_wrap_cb, &blob, &r, err,
                                    errlen);
    if (rc != BENCH_OK)
        return rc;
    w->unwrap_body = rest_ekm_unwrap_body(blob, e->cfg.aad, e->cfg.aadlen, e->cfg.reason);
    free(blob);
    if (!w->unwrap_body) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    w->unwrap_len = strlen(w->unwrap_body);
    /* Make sure the blob unwraps before the clock starts. */
    expect_pt x = { w->pt, e->cfg.data_size };
    return rest_setup_call(w->http, "EKM unwrap (set-up)", "POST", &e->unwrap_url,
                           w->unwrap_body, w->unwrap_len, check_unwrap_cb, &x, &r, err, errlen);
}

static int worker_make(rest_ekm *e, unsigned index, ekm_worker **out, bench_code *code, char *err,
                       size_t errlen)
{
    ekm_worker *w = calloc(1, sizeof *w);
    *code = BENCH_OK;
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->e = e;
    w->pt = malloc(e->cfg.data_size);
    if (!w->pt || RAND_bytes(w->pt, (int)e->cfg.data_size) != 1) {
        snprintf(err, errlen, "cannot make the plaintext");
        worker_free(w);
        return -1;
    }
    w->wrap_body = rest_ekm_wrap_body(w->pt, e->cfg.data_size, e->cfg.aad, e->cfg.aadlen,
                                      e->cfg.reason);
    if (!w->wrap_body) {
        snprintf(err, errlen, "out of memory");
        worker_free(w);
        return -1;
    }
    w->wrap_len = strlen(w->wrap_body);
    if (!(w->http = rest_client_http(e->client, index, err, errlen)) || take_token(w) != 0) {
        if (w->http)
            snprintf(err, errlen, "out of memory");
        worker_free(w);
        return -1;
    }
    if (e->cfg.op == REST_EKM_UNWRAP) {
        *code = setup_unwrap(w, err, errlen);
        if (*code != BENCH_OK) {
            worker_free(w);
            return -1;
        }
    }
    *out = w;
    return 0;
}

static bench_code preflight_once(rest_ekm *e, char *err, size_t errlen)
{
    ekm_worker *w = NULL;
    bench_code code = BENCH_OK;
    rest_response r;
    if (worker_make(e, 0, &w, &code, err, errlen) != 0)
        return code ? code : REST_E_MISSING_FIELD;
    if (e->cfg.op == REST_EKM_WRAP_UNWRAP) {
        code = setup_unwrap(w, err, errlen);
    } else if (e->cfg.op == REST_EKM_WRAP) {
        code = rest_setup_call(w->http, "EKM wrap", "POST", &e->wrap_url, w->wrap_body,
                               w->wrap_len, check_wrap_cb, NULL, &r, err, errlen);
    }
    worker_free(w);
    return code;
}

/* The set-up check, published so a Ctrl-C says what it waits for. */
bench_code rest_ekm_preflight(rest_ekm *e, char *err, size_t errlen)
{
    const char *was = bench_signals_waiting_for("the endpoint's answer to the set-up request");
    bench_code rc = preflight_once(e, err, errlen);
    bench_signals_waiting_for(was);
    return rc;
}

/* One request of the check: its status on f; the answer's code. */
static bench_code probe_call(ekm_worker *w, FILE *f, const char *what, const bench_url *url,
                             const char *body, size_t len, rest_response *r)
{
    char name[64], text[200];
    rest_http_request(w->http, "POST", url, body, len);
    rest_http_perform(w->http, r);
    if (r->transport) {
        rest_code_name(r->transport, name, sizeof name);
        fprintf(f, "%-12s no answer: %s: %s\n", what, name, r->error);
        return r->transport;
    }
    fprintf(f, "%-12s HTTP %ld\n", what, r->status);
    if (r->status != 200) {
        if (r->body_len)
            fprintf(f, "%-12s %s\n", "", rest_error_excerpt(w->http, r->body, r->body_len, text, sizeof text));
        return rest_code_http(r->status);
    }
    return BENCH_OK;
}

bench_code rest_ekm_probe(rest_ekm *e, int wrap_only, FILE *f, char *err, size_t errlen)
{
    ekm_worker *w = NULL;
    bench_code code = BENCH_OK;
    rest_response r;
    char *blob = NULL, name[64];
    const rest_ekm_op op = e->cfg.op;

    e->cfg.op = REST_EKM_WRAP;          /* no set-up requests: the check makes its own */
    const int made = worker_make(e, 0, &w, &code, err, errlen);
    e->cfg.op = op;
    if (made != 0)
        return code ? code : REST_E_MISSING_FIELD;
    code = probe_call(w, f, "wrap:", &e->wrap_url, w->wrap_body, w->wrap_len, &r);
    if (code == BENCH_OK) {
        code = rest_ekm_check_wrap(r.body, r.body_len, &blob);
        if (code != BENCH_OK) {
            rest_code_name(code, name, sizeof name);
            fprintf(f, "%-12s no wrappedBlob in the answer (%s)\n", "", name);
        } else {
            /* The blob is the key's ciphertext, not a secret. */
            fprintf(f, "%-12s %s\n", "wrappedBlob:", blob);
        }
    }
    if (code == BENCH_OK && !wrap_only) {
        free(w->unwrap_body);
        w->unwrap_body = rest_ekm_unwrap_body(blob, e->cfg.aad, e->cfg.aadlen, e->cfg.reason);
        if (!w->unwrap_body) {
            snprintf(err, errlen, "out of memory");
            code = REST_E_MISSING_FIELD;
        } else {
            w->unwrap_len = strlen(w->unwrap_body);
            code = probe_call(w, f, "unwrap:", &e->unwrap_url, w->unwrap_body, w->unwrap_len, &r);
            if (code == BENCH_OK)
                code = rest_ekm_check_unwrap(r.body, r.body_len, w->pt, e->cfg.data_size);
        }
    }
    if (code == BENCH_OK && wrap_only) {
        fprintf(f, "%-12s not checked (--op wrap: the wrap alone)\n", "unwrap:");
    } else if (code == BENCH_OK) {
        fprintf(f, "%-12s ok: unwrap returned the plaintext\n", "round trip:");
    } else {
        rest_code_name(code, name, sizeof name);
        fprintf(f, "%-12s FAILED (%s)\n", wrap_only ? "wrap:" : "round trip:", name);
    }
    free(blob);
    worker_free(w);
    return code;
}

static int ekm_open(void *ctx, unsigned index, void **state, char *err, size_t errlen)
{
    rest_ekm *e = ctx;
    ekm_worker *w = NULL;
    bench_code code = BENCH_OK;
    if (worker_make(e, index, &w, &code, err, errlen) != 0) {
        rest_client_setup_failed(e->client, code);
        return -1;
    }
    *state = w;
    return 0;
}

static rest_http *ekm_start(void *state)
{
    ekm_worker *w = state;
    /* A new token from --token-cmd: one atomic load when there is none.
     * Out of memory keeps the old one, tried again at the next request. */
    if (w->e->cfg.tokens && rest_tokcmd_gen(w->e->cfg.tokens) != w->tgen)
        (void)take_token(w);
    w->renewed = 0;
    if (w->e->cfg.op == REST_EKM_UNWRAP)
        rest_http_request(w->http, "POST", &w->e->unwrap_url, w->unwrap_body, w->unwrap_len);
    else
        rest_http_request(w->http, "POST", &w->e->wrap_url, w->wrap_body, w->wrap_len);
    w->step = 0;
    return w->http;
}

static rest_step ekm_finish(void *state, rest_xfer_rc cc, bench_code *rc)
{
    ekm_worker *w = state;
    rest_ekm *e = w->e;
    rest_response r;
    rest_http_finish(w->http, cc, &r);
    /* k6's check, one a request as the EKM package's script makes it: the
     * status is 200 (none, on a failed transfer: k6's status 0).  Then our
     * own verification of the answer (wrappedBlob base64, the plaintext
     * back), which k6's summary does not count. */
    if (r.transport) {
        rest_http_note_check(w->http, REST_CHECK_STATUS, 0);
        *rc = r.transport;
        return REST_STEP_DONE;
    }
    if (r.status == 401 && e->cfg.tokens && !w->renewed) {
        /* Refused (the token expired before its refresh, or the server
         * revoked it): a new token, and the same request once more.  The
         * 401 stays in the HTTP figures (k6 counts every request); the
         * operation is judged by the second answer. */
        w->renewed = 1;
        if (rest_tokcmd_renew(e->cfg.tokens, w->tgen) == 0 && take_token(w) == 0) {
            rest_tokcmd_note_retry(e->cfg.tokens);
            if (e->cfg.op == REST_EKM_UNWRAP || w->step == 1)
                rest_http_request(w->http, "POST", &e->unwrap_url, w->unwrap_body, w->unwrap_len);
            else
                rest_http_request(w->http, "POST", &e->wrap_url, w->wrap_body, w->wrap_len);
            return REST_STEP_AGAIN;
        }
    }
    rest_http_note_check(w->http, REST_CHECK_STATUS, r.status == 200);
    if (r.status != 200) {
        *rc = rest_code_http(r.status);
        return REST_STEP_DONE;
    }
    char *blob = NULL;
    if (e->cfg.op == REST_EKM_UNWRAP || w->step == 1)
        *rc = rest_ekm_check_unwrap(r.body, r.body_len, w->pt, e->cfg.data_size);
    else
        *rc = rest_ekm_check_wrap(r.body, r.body_len,
                                  e->cfg.op == REST_EKM_WRAP_UNWRAP ? &blob : NULL);
    rest_http_note_check(w->http, REST_CHECK_BODY, *rc == BENCH_OK);
    if (*rc != BENCH_OK || !blob) {
        free(blob);
        return REST_STEP_DONE;
    }
    free(w->unwrap_body);
    w->unwrap_body = rest_ekm_unwrap_body(blob, e->cfg.aad, e->cfg.aadlen, e->cfg.reason);
    free(blob);
    if (!w->unwrap_body) {
        *rc = REST_E_MISSING_FIELD;
        return REST_STEP_DONE;
    }
    w->unwrap_len = strlen(w->unwrap_body);
    w->step = 1;
    rest_http_request(w->http, "POST", &e->unwrap_url, w->unwrap_body, w->unwrap_len);
    return REST_STEP_AGAIN;
}

static void ekm_close(void *state)
{
    worker_free(state);
}

static const rest_xfer_ops ekm_ops = { ekm_open, ekm_start, ekm_finish, ekm_close };

static bench_code ekm_do_one(void *state)
{
    return rest_xfer_run(&ekm_ops, state);
}

void rest_ekm_workload(rest_ekm *e, bench_workload *w, unsigned aslots)
{
    memset(w, 0, sizeof *w);
    w->ctx = e;
    w->open = ekm_open;
    w->do_one = ekm_do_one;
    w->close = ekm_close;
    e->xw = (rest_xfer_workload){ &ekm_ops, e };
    if (aslots)
        rest_multi_attach(w, &e->xw, aslots, &e->client->http);
    w->code_name = rest_code_namer;
    w->call = "an HTTP request";
    w->bytes_per_op = e->cfg.data_size;
    rest_client_side(w);

}

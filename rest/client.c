/* SPDX-License-Identifier: Apache-2.0 */
/* rest/client.c - shared plumbing of the REST workloads. */
#include "rest/client.h"

#include "bench/results/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/util/clock.h"
#include "bench/util/b64.h"
#include "bench/results/target.h"
#include "rest/transport/codes.h"

#define SETUP_TRIES 3

void rest_client_init(rest_client *c, const rest_http_opts *http)
{
    memset(c, 0, sizeof *c);
    c->http = *http;
    atomic_init(&c->setup_code, BENCH_OK);
    atomic_init(&c->cleanup_failures, 0);
    /* Only fails for want of resources, and then not on Linux's futexes. */
    (void)pthread_mutex_init(&c->left_lock, NULL);
}

void rest_client_fini(rest_client *c)
{
    for (size_t i = 0; i < c->nleft; i++)
        free(c->left[i]);
    free(c->left);
    c->left = NULL;
    c->nleft = c->capleft = 0;
    (void)pthread_mutex_destroy(&c->left_lock);
}

void rest_client_left(rest_client *c, const char *url)
{
    atomic_fetch_add(&c->cleanup_failures, 1);
    char *copy = strdup(url);
    if (!copy)
        return;                       /* counted, not listed: the warning says how many */
    pthread_mutex_lock(&c->left_lock);
    if (c->nleft == c->capleft) {
        const size_t cap = c->capleft ? c->capleft * 2 : 16;
        char **n = realloc(c->left, cap * sizeof *n);
        if (n) {
            c->left = n;
            c->capleft = cap;
        }
    }
    if (c->nleft < c->capleft) {
        c->left[c->nleft++] = copy;
        copy = NULL;
    }
    pthread_mutex_unlock(&c->left_lock);
    free(copy);
}

void rest_client_left_print(rest_client *c, FILE *out)
{
    pthread_mutex_lock(&c->left_lock);
    if (c->nleft) {
        fprintf(out, "hsmbench: the keys not deleted, each deleted by an authenticated DELETE of its URL "
                     "(the credentials the run used):\n");
        for (size_t i = 0; i < c->nleft; i++)
            fprintf(out, "  DELETE %s\n", c->left[i]);
    }
    pthread_mutex_unlock(&c->left_lock);
}

rest_http *rest_client_http(rest_client *c, unsigned worker, char *err, size_t errlen)
{
    rest_http *h = rest_http_new(&c->http, worker + 1, err, errlen);
    if (h)
        rest_http_expect(h, c->expected, c->expected_arg);
    return h;
}

void rest_client_side(bench_workload *w)
{
    w->side = &rest_side_spec;
    w->side_bind = rest_state_side_bind;
    w->side_flush = rest_state_side_flush;
    w->describe = rest_state_describe;
}

const char *rest_error_text(const char *body, size_t len, char *buf, size_t cap)
{
    const char *src = body;
    size_t n = len;
    json_t *j = NULL;

    if (len && (body[0] == '{')) {
        j = json_loadb(body, len, 0, NULL);
        json_t *m = json_object_get(j, "message");
        if (!json_is_string(m)) {
            json_t *e = json_object_get(j, "error");
            m = json_is_object(e) ? json_object_get(e, "message") : e;
        }
        if (json_is_string(m)) {
            src = json_string_value(m);
            n = strlen(src);
        }
    }
    size_t limit = cap > 4 ? cap - 4 : 0, o = 0, i = 0;
    for (; i < n && o < limit; i++) {
        unsigned char ch = (unsigned char)src[i];
        buf[o++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
    }
    while (o && buf[o - 1] == ' ')
        o--;
    if (i < n && cap > 4) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    json_decref(j);
    return buf;
}

const char *rest_error_excerpt(const rest_http *h, const char *body, size_t len, char *buf, size_t cap)
{
    /* The body first (a secret whole before the line shortens it), then
     * the line (a JSON message unescaped may show one again). */
    char *copy = malloc(len + 1);
    if (!copy) {
        snprintf(buf, cap, "(an answer of %zu bytes)", len);
        return buf;
    }
    memcpy(copy, body, len);
    copy[len] = 0;
    for (size_t i = 0; i < len; i++)
        if (!copy[i])
            copy[i] = ' ';       /* a NUL in the answer would hide what follows it */
    rest_http_scrub(h, copy);
    rest_error_text(copy, strlen(copy), buf, cap);
    free(copy);
    rest_http_scrub(h, buf);
    return buf;
}

bench_code rest_setup_call(rest_http *h, const char *what, const char *method, const bench_url *url,
                           const char *body, size_t len, rest_check_fn check, void *arg,
                           rest_response *resp, char *err, size_t errlen)
{
    bench_code rc = BENCH_OK;
    for (int attempt = 1; attempt <= SETUP_TRIES; attempt++) {
        rest_http_request(h, method, url, body, len);
        rest_http_perform(h, resp);
        if (resp->transport)
            rc = resp->transport;
        else if (resp->status < 200 || resp->status > 299)
            rc = rest_code_http(resp->status);
        else
            rc = check ? check(arg, resp) : BENCH_OK;
        if (rc == BENCH_OK)
            return BENCH_OK;
        /* A timeout is not tried again: the set-up waits one --timeout, as
         * its message says, not three. */
        if (!rest_code_is_transient(rc) || rc == REST_E_TIMEOUT || attempt == SETUP_TRIES)
            break;
        struct timespec ts = { 0, 100L * 1000 * 1000 * attempt };
        nanosleep(&ts, NULL);
    }
    char name[64], text[200];
    rest_code_name(rc, name, sizeof name);
    if (resp->transport)
        snprintf(err, errlen, "%s: %s: %s", what, name, resp->error);
    else if (rest_code_http_status(rc))
        snprintf(err, errlen, "%s: %s%s%s", what, name, resp->body_len ? ": " : "",
                 rest_error_excerpt(h, resp->body, resp->body_len, text, sizeof text));
    else
        snprintf(err, errlen, "%s: unexpected answer (%s)", what, name);
    return rc;
}

int rest_has_control(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return 1;
    }
    return 0;
}

bench_code rest_server_value(const char *v, size_t n, rest_into where)
{
    if (!v || n == 0 || rest_has_control(v, n))
        return REST_E_BAD_VALUE;
    for (size_t i = 0; where == REST_INTO_HEADER && i < n; i++) {
        const unsigned char c = (unsigned char)v[i];
        if (c == ' ' || c > 0x7e)
            return REST_E_BAD_VALUE;
    }
    if (where == REST_INTO_PATH && ((n == 1 && v[0] == '.') || (n == 2 && v[0] == '.' && v[1] == '.')))
        return REST_E_BAD_VALUE;
    return BENCH_OK;
}

char *rest_path_segment(const char *v)
{
    static const char hex[] = "0123456789ABCDEF";
    const size_t n = strlen(v);
    char *out = malloc(n * 3 + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)v[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
            c == '.' || c == '_' || c == '~') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = 0;
    return out;
}

json_t *rest_json_object(const char *body, size_t len, bench_code *rc)
{
    json_t *j = json_loadb(body, len, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        *rc = REST_E_BAD_JSON;
        return NULL;
    }
    *rc = BENCH_OK;
    return j;
}

bench_code rest_json_b64(const json_t *obj, const char *field, uint8_t **out, size_t *outlen)
{
    json_t *v = json_object_get(obj, field);
    if (!json_is_string(v))
        return REST_E_MISSING_FIELD;
    return rest_b64_text(json_string_value(v), json_string_length(v), out, outlen);
}

bench_code rest_b64_text(const char *s, size_t n, uint8_t **out, size_t *outlen)
{
    if (n == 0)
        return REST_E_MISSING_FIELD;
    if (!out)
        return bench_b64_valid(s, n) ? BENCH_OK : REST_E_BAD_BASE64;
    size_t cap = bench_b64_decoded_max(n);
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf)
        return REST_E_MISSING_FIELD;
    if (bench_b64_decode(s, n, buf, cap, outlen) != 0) {
        free(buf);
        return REST_E_BAD_BASE64;
    }
    *out = buf;
    return BENCH_OK;
}

int rest_url_parse(bench_url *u, const char *text, char *err, size_t errlen)
{
    if (bench_url_parse(u, text, err, errlen) != 0)
        return -1;
    if (u->userinfo) {
        bench_url_free(u);
        snprintf(err, errlen, "credentials in the URL are not accepted: give them with the "
                              "token or API key options");
        return -1;
    }
    return 0;
}

json_t *rest_env_json(const char *service, const bench_url *url, const rest_http_opts *h,
                      const bench_url *plain_url)
{
    const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
    /* Over plain http there is no TLS to verify: "tls" is null, "scheme" says why. */
    const int plain = url->scheme == BENCH_URL_HTTP;
    json_t *tls = plain ? json_null()
                        : json_pack("{s:b,s:b,s:b}", "verify", !h->insecure, "custom_ca", h->cacert != NULL,
                                    "client_cert", h->cert != NULL);
    json_t *ep = json_pack("{s:s,s:s,s:s,s:o,s:s,s:b,s:f}", "service", service, "url", url->identity, "scheme",
                           plain ? "http" : "https", "tls", tls,
                           "http_version", h->http2 ? "2 (when offered)" : "1.1", "connection_reuse",
                           !h->no_reuse, "timeout_s", (double)h->timeout_ms / 1000.0);
    if (ep && plain_url && json_object_set_new(ep, "plain_url", json_string(plain_url->identity)) != 0) {
        json_decref(ep);
        ep = NULL;
    }
    json_t *client = json_pack("{s:s,s:s}", "libcurl", cv->version, "tls_library",
                               cv->ssl_version ? cv->ssl_version : "");
    return json_pack("{s:o,s:o,s:o,s:o}", "target", bench_target_rest_json(service, url), "endpoint", ep,
                     "client", client, "host", bench_report_host_json());
}

void rest_client_setup_failed(rest_client *c, bench_code code)
{
    bench_code none = BENCH_OK;
    if (code != BENCH_OK)
        atomic_compare_exchange_strong(&c->setup_code, &none, code);
}

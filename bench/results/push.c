/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/push.c - PUT the metrics to a Prometheus Pushgateway's group. */
#include "bench/results/push.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "bench/util/b64.h"
#include "bench/util/cli.h"
#include "bench/util/url.h"

/* A push may not hold the run up: the final one waits this long at most. */
#define PUSH_TIMEOUT_MS 5000L
#define REPLY_MAX 200

struct bench_push {
    bench_url url;
    CURL     *curl;
    char      reply[REPLY_MAX + 1];   /* the start of the last answer's body */
    size_t    nreply;
};

int bench_push_new(const char *url, bench_push **out)
{
    char err[256];
    *out = NULL;
    bench_push *p = calloc(1, sizeof *p);
    if (!p) {
        bench_error("out of memory");
        return -1;
    }
    if (bench_url_parse(&p->url, url, err, sizeof err) != 0) {
        bench_error("--metrics-push: %s", err);
        goto fail;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(p->curl = curl_easy_init())) {
        bench_error("--metrics-push %s: cannot start the HTTP client", p->url.identity);
        goto fail;
    }
    *out = p;
    return 0;
fail:
    bench_url_free(&p->url);
    free(p);
    return -1;
}

const char *bench_push_identity(const bench_push *p)
{
    return p->url.identity;
}

/* "/NAME@base64/VALUE", the value in base64url without padding (any byte
 * may be in a run id). */
static int group_part(char *out, size_t len, const char *name, const char *value)
{
    char *b = bench_b64_encode_alloc((const uint8_t *)value, strlen(value));
    if (!b)
        return -1;
    for (char *c = b; *c; c++)
        *c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
    char *pad = strchr(b, '=');
    if (pad)
        *pad = 0;
    const int n = snprintf(out, len, "/%s@base64/%s", name, b[0] ? b : "=");
    free(b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static size_t on_reply(char *data, size_t size, size_t n, void *arg)
{
    bench_push *p = arg;
    const size_t len = size * n;
    const size_t room = REPLY_MAX - p->nreply;
    const size_t take = len < room ? len : room;
    memcpy(p->reply + p->nreply, data, take);
    p->nreply += take;
    p->reply[p->nreply] = 0;
    return len;
}

int bench_push_put(bench_push *p, const char *run_id, const char *generator, const char *body,
                   char *err, size_t errlen)
{
    char run[256], gen[128];
    if (group_part(run, sizeof run, "run_id", run_id) != 0 ||
        group_part(gen, sizeof gen, "generator", generator) != 0) {
        snprintf(err, errlen, "--metrics-push %s: the run id or generator is too long", p->url.identity);
        return -1;
    }
    /* the URL as given up to its query, the group's path, then the query */
    const char *text = p->url.text;
    const size_t base = strcspn(text, "?#");
    const size_t slash = base && text[base - 1] == '/' ? 1 : 0;
    const char *q = p->url.query;
    char *full = NULL;
    if (asprintf(&full, "%.*s/metrics/job/hsmbench%s%s%s%s", (int)(base - slash), text, run, gen,
                 q ? "?" : "", q ? q : "") < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    CURL *c = p->curl;
    curl_easy_reset(c);
    p->nreply = 0;
    p->reply[0] = 0;
    char cerr[CURL_ERROR_SIZE] = "";
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: text/plain; version=0.0.4");
    int rc = -1;
    if (!hdr ||
        curl_easy_setopt(c, CURLOPT_URL, full) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT") != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, PUSH_TIMEOUT_MS) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_reply) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_WRITEDATA, p) != CURLE_OK ||
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        snprintf(err, errlen, "--metrics-push %s: cannot set up the request", p->url.identity);
        goto cleanup;
    }
    const CURLcode cc = curl_easy_perform(c);
    long status = 0;
    if (cc != CURLE_OK) {
        snprintf(err, errlen, "--metrics-push %s: %s", p->url.identity, cerr[0] ? cerr : curl_easy_strerror(cc));
        goto cleanup;
    }
    if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status < 200 || status > 299) {
        for (char *s = p->reply; *s; s++)
            if (*s == '\n' || *s == '\r')
                *s = ' ';
        snprintf(err, errlen, "--metrics-push %s: HTTP %ld: %s", p->url.identity, status, p->reply);
        goto cleanup;
    }
    rc = 0;
cleanup:
    /* the URL (and its credentials) out of the handle before the next use */
    curl_easy_reset(c);
    curl_slist_free_all(hdr);
    free(full);
    return rc;
}

void bench_push_free(bench_push *p)
{
    if (!p)
        return;
    curl_easy_cleanup(p->curl);
    curl_global_cleanup();
    bench_url_free(&p->url);
    free(p);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* serve/reply.c - the handlers' answers (serve/reply.h). */
#include "serve/reply.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

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

int serve_reply_grpc_of(unsigned status)
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

/* Every string field that carries base64 becomes something that is not. */
static void corrupt_b64(json_t *j)
{
    static const char *const fields[] = { "wrappedBlob", "plaintext", "cipher", "plain", "iv",
                                          "tag", "signature", "mac", "transient_key" };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (json_is_string(json_object_get(j, fields[i])))
            json_object_set_new(j, fields[i], json_string("@@not*base64@@"));
}

int serve_reply_damage(serve_reply *r, serve_fault_kind kind)
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

int serve_secret_eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && CRYPTO_memcmp(a, b, alen) == 0;
}

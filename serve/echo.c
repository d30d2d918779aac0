/* SPDX-License-Identifier: Apache-2.0 */
/* serve/echo.c - /hello, /echo and /status/NNN for the emulator. */
#include "serve/echo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int serve_echo_route(const char *path, int *wants_headers)
{
    *wants_headers = 0;
    if (strcmp(path, "/hello") == 0)
        return 1;
    if (strcmp(path, "/echo") == 0 || strncmp(path, "/echo/", 6) == 0) {
        *wants_headers = 1;
        return 1;
    }
    return strncmp(path, "/status/", 8) == 0;
}

void serve_echo_add_header(json_t *headers, const char *name, const char *value)
{
    char key[128], hidden[64];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof key; n++)
        key[n] = (char)tolower((unsigned char)name[n]);
    key[n] = 0;
    if (!value)
        value = "";
    if (strcmp(key, "authorization") == 0 || strcmp(key, "proxy-authorization") == 0 ||
        strcmp(key, "cookie") == 0) {
        /* The scheme helps ("Bearer"); the credential never leaves the server. */
        size_t w = strcspn(value, " ");
        if (value[w] == ' ' && w < 32 && strcmp(key, "cookie") != 0)
            snprintf(hidden, sizeof hidden, "%.*s ***", (int)w, value);
        else
            snprintf(hidden, sizeof hidden, "***");
        value = hidden;
    }
    json_t *v = json_string(value);             /* NULL when not UTF-8: left out */
    if (v && json_object_set_new(headers, key, v) != 0)
        return;
}

static void echo(const serve_req *q, const serve_echo_conn *c, serve_reply *r)
{
    json_t *body = q->len ? json_stringn(q->body, q->len) : json_string("");
    json_t *headers = c->headers ? json_incref(c->headers) : json_object();
    /* "o" takes the references; a NULL one makes the whole pack NULL, and
     * serve_reply_json answers 500 for it. */
    json_t *j = json_pack("{s:s,s:s,s:o,s:o,s:I,s:b,s:s}", "method", q->method, "path", q->path,
                          "headers", headers, "body", body ? body : json_null(), "body_len",
                          (json_int_t)q->len, "tls", c->tls, "client_cert",
                          c->client_cert ? "verified" : "none");
    serve_reply_json(r, 200, j);
}

void serve_echo(const serve_req *q, const serve_echo_conn *c, serve_reply *r)
{
    if (strcmp(q->path, "/hello") == 0) {
        if (strcmp(q->method, "GET") != 0 && strcmp(q->method, "HEAD") != 0) {
            serve_reply_text(r, 405, "Method not allowed: %s /hello (GET or HEAD)", q->method);
            return;
        }
        serve_reply_json(r, 200, json_pack("{s:s}", "hello", "world"));
        return;
    }
    if (strncmp(q->path, "/status/", 8) == 0) {
        const char *s = q->path + 8;
        unsigned v = 0;
        int ok = strlen(s) == 3;
        for (int i = 0; ok && i < 3; i++) {
            ok = isdigit((unsigned char)s[i]);
            v = v * 10 + (unsigned)(s[i] - '0');
        }
        if (!ok || v < 200 || v > 599) {
            serve_reply_text(r, 400, "Bad status in %s: give /status/200 to /status/599", q->path);
            return;
        }
        if (v == 204 || v == 304) {
            free(r->body);
            r->body = NULL;
            r->len = 0;
            r->json = 0;
            r->status = v;
            return;
        }
        serve_reply_text(r, v, "status %u", v);
        return;
    }
    echo(q, c, r);
}

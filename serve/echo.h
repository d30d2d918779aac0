/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/echo.h - the emulator's plain HTTP routes, for trying
 * "hsmbench rest http" (and any other HTTP client) against a known server:
 *
 *   GET|HEAD /hello     200 {"hello":"world"}
 *   ANY /echo           200 {"method", "path", "headers" (lower-case names;
 *                       Authorization, Proxy-Authorization and Cookie values
 *                       hidden but for the scheme: "Bearer ***"), "body"
 *                       (the request body as text, null when it is not
 *                       UTF-8), "body_len", "tls", "client_cert"
 *                       ("verified" or "none")}
 *   ANY /status/NNN     that status (200..599), body "status NNN" (none for
 *                       204 and 304)
 *
 * Like the other services, it never talks to libmicrohttpd: cmd.c
 * gathers the headers and the TLS facts and passes them in.
 */
#ifndef SERVE_ECHO_H
#define SERVE_ECHO_H

#include <jansson.h>

#include "serve/serve.h"

/* Whether path is one of these routes (and whether /echo, which needs the
 * headers gathered). */
int serve_echo_route(const char *path, int *wants_headers);

/* What cmd.c knows about the connection. */
typedef struct serve_echo_conn {
    json_t     *headers;        /* borrowed; NULL when not gathered */
    int         tls;
    int         client_cert;    /* a verified client certificate */
} serve_echo_conn;

/* Answer a request on one of the routes above. */
void serve_echo(const serve_req *q, const serve_echo_conn *c, serve_reply *r);

/* Add one request header to an /echo header object, secrets hidden. */
void serve_echo_add_header(json_t *headers, const char *name, const char *value);

#endif

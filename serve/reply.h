/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/reply.h - what a handler answers with: a status and a JSON or text
 * body, built here and sent by the HTTP front (cmd.c).  Its own file so
 * that the handlers (ekm.c, sdkms.c, echo.c) and the front share it without
 * the handlers depending on the front.  A fault that damages an answer
 * (--fault badjson, nofield, badb64) works on a reply too.
 */
#ifndef SERVE_REPLY_H
#define SERVE_REPLY_H

#include <stddef.h>
#include <jansson.h>

#include "serve/fault.h"

typedef struct serve_reply {
    unsigned status;
    int      json;                    /* application/json, else text/plain */
    char    *body;                    /* malloc'd; NULL for none */
    size_t   len;
    int      faulted;                 /* the handler applied the request's fault (mismatch) */
} serve_reply;

void serve_reply_text(serve_reply *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void serve_reply_json(serve_reply *r, unsigned status, json_t *body);   /* takes the reference */
/* google.rpc.Status: {"code": grpc, "message": msg, "details": []}. */
void serve_reply_rpc(serve_reply *r, unsigned status, int grpc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* gRPC code for an HTTP status, the grpc-gateway way round. */
int  serve_reply_grpc_of(unsigned status);
/* Damage a 2xx JSON answer as a body fault says; whether it did. */
int  serve_reply_damage(serve_reply *r, serve_fault_kind kind);

/* Compare a secret in constant time (lengths may differ): how a handler
 * decides between its answer and a 401. */
int serve_secret_eq(const char *a, size_t alen, const char *b, size_t blen);

#endif

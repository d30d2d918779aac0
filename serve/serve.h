/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/serve.h - the contract between the emulator's HTTP front
 * (cmd.c: options, libmicrohttpd, TLS, faults) and the services behind it
 * (ekm.c, sdkms.c, echo.c), each with its own header; the replies they
 * build are serve/reply.h's.
 *
 * A handler gets a complete request (method, path, Authorization header,
 * body) and fills a reply (status, JSON or text body).  It never talks to
 * libmicrohttpd, so the services can be tested without a socket.
 */
#ifndef SERVE_SERVE_H
#define SERVE_SERVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/util/clock.h"
#include "serve/fault.h"
#include "serve/issuer.h"
#include "serve/keys.h"
#include "serve/reply.h"
#include "serve/session.h"
#include "serve/token.h"

/* The server's laps, nanoseconds, in the order of SDKMS's Profiling-Data
 * header (cmd.c writes it; the client reads it in rest/transport/side.c). */
enum {
    SERVE_PROF_IN_QUEUE, SERVE_PROF_PARSE_REQUEST, SERVE_PROF_SESSION_LOOKUP,
    SERVE_PROF_VALIDATE_INPUT, SERVE_PROF_CHECK_ACCESS, SERVE_PROF_OPERATE, SERVE_PROF_DB_FLUSH,
    SERVE_PROF_TOTAL, SERVE_PROF_COUNT,
};

/* Server-side timings, as SDKMS's Profiling-Data header reports them. */
typedef struct serve_prof {
    uint64_t last;
    uint64_t ns[SERVE_PROF_COUNT];
} serve_prof;

/* Add the time since the last lap to one field. */
static inline void serve_prof_lap(serve_prof *p, int field)
{
    uint64_t now = bench_now_ns();
    p->ns[field] += now - p->last;
    p->last = now;
}

typedef struct serve_srv {
    serve_tok        tok;
    char           *ekm_token;        /* bearer the EKM wants; NULL: no check */
    size_t          ekm_token_len;
    serve_issuer     issuer;          /* --ekm-token-ttl: tokens that expire */
    char           *api_key;          /* SDKMS API key; NULL: SDKMS is off */
    size_t          api_key_len;
    serve_sessions  *sessions;
    serve_keys      *keys;
    int             profiling;        /* send Profiling-Data */
    int             verbose;
    serve_faults     faults;
    int             has_faults;
    uint64_t        fault_after;      /* eligible requests spared before faults start */
    uint64_t        fault_delay_ns;   /* how long "timeout" holds a request */
    uint64_t        latency_ns;       /* --latency: no answer sooner than this */
    _Atomic uint64_t eligible;        /* requests faults may hit, so far */
    _Atomic uint64_t served;          /* requests answered */
    _Atomic int     stopping;         /* shutting down: "timeout" faults let go */
} serve_srv;

typedef struct serve_req {
    const char     *method;
    const char     *path;
    const char     *authz;            /* Authorization header, or NULL */
    const char     *body;
    size_t          len;
    serve_fault_kind fault;            /* a fault the handler itself must apply (mismatch) */
    serve_prof      *prof;
} serve_req;

#endif

/*
 * rest/serve.h - the contract between the emulator's HTTP front
 * (serve.c: options, libmicrohttpd, TLS, faults, replies) and the services
 * behind it (serve_ekm.c, serve_sdkms.c).
 *
 * A handler gets a complete request (method, path, Authorization header,
 * body) and fills a reply (status, JSON or text body).  It never talks to
 * libmicrohttpd, so the services can be tested without a socket.
 */
#ifndef REST_SERVE_H
#define REST_SERVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/clock.h"
#include "rest/fault.h"
#include "rest/serve_keys.h"
#include "rest/serve_session.h"
#include "rest/serve_token.h"
#include "rest/stats.h"

/* Server-side timings, as SDKMS's Profiling-Data header reports them. */
typedef struct rest_prof {
    uint64_t last;
    uint64_t ns[REST_PROF_COUNT];
} rest_prof;

/* Add the time since the last lap to one field. */
static inline void rest_prof_lap(rest_prof *p, int field)
{
    uint64_t now = bench_now_ns();
    p->ns[field] += now - p->last;
    p->last = now;
}

typedef struct rest_srv {
    rest_tok        tok;
    char           *ekm_token;        /* bearer the EKM wants; NULL: no check */
    size_t          ekm_token_len;
    char           *api_key;          /* SDKMS API key; NULL: SDKMS is off */
    size_t          api_key_len;
    rest_sessions  *sessions;
    rest_keys      *keys;
    int             profiling;        /* send Profiling-Data */
    int             verbose;
    rest_faults     faults;
    int             has_faults;
    uint64_t        fault_after;      /* eligible requests spared before faults start */
    uint64_t        fault_delay_ns;   /* how long "timeout" holds a request */
    uint64_t        latency_ns;       /* --latency: no answer sooner than this */
    _Atomic uint64_t eligible;        /* requests faults may hit, so far */
    _Atomic uint64_t served;          /* requests answered */
    _Atomic int     stopping;         /* shutting down: "timeout" faults let go */
} rest_srv;

typedef struct rest_req {
    const char     *method;
    const char     *path;
    const char     *authz;            /* Authorization header, or NULL */
    const char     *body;
    size_t          len;
    rest_fault_kind fault;            /* a fault the handler itself must apply (mismatch) */
    rest_prof      *prof;
} rest_req;

typedef struct rest_reply {
    unsigned status;
    int      json;                    /* application/json, else text/plain */
    char    *body;                    /* malloc'd; NULL for none */
    size_t   len;
} rest_reply;

/* Reply helpers (serve.c). */
void rest_reply_text(rest_reply *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void rest_reply_json(rest_reply *r, unsigned status, json_t *body);   /* takes the reference */
/* google.rpc.Status: {"code": grpc, "message": msg, "details": []}. */
void rest_reply_rpc(rest_reply *r, unsigned status, int grpc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Compare a secret in constant time (lengths may differ). */
int rest_secret_eq(const char *a, size_t alen, const char *b, size_t blen);

/* EKM: whether path is "...:wrap" or "...:unwrap"; *unwrap says which. */
int  rest_serve_ekm_route(const char *path, int *unwrap);
void rest_serve_ekm(rest_srv *srv, const rest_req *q, int unwrap, rest_reply *r);

/* SDKMS: 0 when the path is not one of its routes (nothing is written). */
int  rest_serve_sdkms(rest_srv *srv, const rest_req *q, rest_reply *r);

#endif

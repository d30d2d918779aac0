/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/issuer.h - bearer tokens that expire (serve --ekm-token-ttl), for
 * testing a client's renewal as Google's one-hour EKM tokens need it.
 *
 * POST /token answers a fresh token (text/plain, one line) valid for the
 * TTL: a JWT (alg none) whose payload carries "exp" (seconds since the
 * epoch, to the millisecond) and a random "jti", so a client can read its
 * lifetime as it would a Google ID token's; POST /token/opaque, one that
 * is no JWT (as Google's access tokens are not).  The EKM routes then take a token
 * this issuer made and that has not expired, and answer 401 to any other.
 * The issuer is serve's own witness: how many tokens it made, how many
 * requests each kind of token got through or was refused, counted here and
 * printed when serve stops.
 */
#ifndef SERVE_ISSUER_H
#define SERVE_ISSUER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_ISSUER_KEEP 256        /* the last tokens made, remembered */

typedef enum { SERVE_TOKEN_VALID, SERVE_TOKEN_EXPIRED, SERVE_TOKEN_UNKNOWN } serve_token_state;

typedef struct serve_issuer {
    uint64_t         ttl_ms;         /* 0: no issuer */
    pthread_mutex_t  mu;
    char            *tokens[SERVE_ISSUER_KEEP];
    double           exp[SERVE_ISSUER_KEEP];   /* wall-clock seconds */
    unsigned         next;
    _Atomic uint64_t issued, valid, expired, unknown;
} serve_issuer;

/* 0, or -1 (no mutex). */
int  serve_issuer_init(serve_issuer *is, uint64_t ttl_ms);
void serve_issuer_fini(serve_issuer *is);
/* A new token (malloc'd, NUL-terminated), or NULL when out of memory:
 * the JWT, or with opaque (POST /token/opaque) 32 hex digits that say
 * nothing of their lifetime (a client must be told it, or meet the 401). */
char *serve_issuer_issue(serve_issuer *is, int opaque);
/* Judge a bearer token and count the verdict. */
serve_token_state serve_issuer_check(serve_issuer *is, const char *token);

#endif

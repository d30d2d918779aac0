/* SPDX-License-Identifier: Apache-2.0 */
/* serve/issuer.c - expiring bearer tokens for the EKM (--ekm-token-ttl). */
#include "serve/issuer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "bench/util/b64.h"

int serve_issuer_init(serve_issuer *is, uint64_t ttl_ms)
{
    memset(is, 0, sizeof *is);
    is->ttl_ms = ttl_ms;
    return pthread_mutex_init(&is->mu, NULL) == 0 ? 0 : -1;
}

void serve_issuer_fini(serve_issuer *is)
{
    for (unsigned i = 0; i < SERVE_ISSUER_KEEP; i++) {
        if (is->tokens[i])
            OPENSSL_cleanse(is->tokens[i], strlen(is->tokens[i]));
        free(is->tokens[i]);
    }
    pthread_mutex_destroy(&is->mu);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* base64url without padding, in place of the standard alphabet. */
static void url_safe(char *s)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == '=')
        s[--n] = 0;
    for (char *p = s; *p; p++)
        *p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
}

char *serve_issuer_issue(serve_issuer *is, int opaque)
{
    static const char header[] = "{\"alg\":\"none\",\"typ\":\"JWT\"}";
    uint8_t rnd[16];
    char payload[128], jti[33];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return NULL;
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(jti + 2 * i, 3, "%02x", rnd[i]);
    const double exp = wall_now() + (double)is->ttl_ms / 1000.0;
    snprintf(payload, sizeof payload, "{\"exp\":%.3f,\"jti\":\"%s\"}", exp, jti);
    char *h = bench_b64_encode_alloc((const uint8_t *)header, strlen(header));
    char *p = bench_b64_encode_alloc((const uint8_t *)payload, strlen(payload));
    char *tok = NULL, *keep = NULL;
    if (!h || !p)
        goto cleanup;
    url_safe(h);
    url_safe(p);
    const size_t n = opaque ? sizeof jti : strlen(h) + strlen(p) + 3;
    if (!(tok = malloc(n)) || !(keep = malloc(n))) {
        free(tok);
        tok = NULL;
        goto cleanup;
    }
    if (opaque)
        memcpy(tok, jti, n);
    else
        snprintf(tok, n, "%s.%s.", h, p);
    memcpy(keep, tok, n);
    pthread_mutex_lock(&is->mu);
    const unsigned slot = is->next++ % SERVE_ISSUER_KEEP;
    if (is->tokens[slot])
        OPENSSL_cleanse(is->tokens[slot], strlen(is->tokens[slot]));
    free(is->tokens[slot]);
    is->tokens[slot] = keep;
    is->exp[slot] = exp;
    pthread_mutex_unlock(&is->mu);
    atomic_fetch_add(&is->issued, 1);
cleanup:
    free(h);
    free(p);
    return tok;
}

serve_token_state serve_issuer_check(serve_issuer *is, const char *token)
{
    serve_token_state st = SERVE_TOKEN_UNKNOWN;
    const double now = wall_now();
    pthread_mutex_lock(&is->mu);
    for (unsigned i = 0; i < SERVE_ISSUER_KEEP && st == SERVE_TOKEN_UNKNOWN; i++)
        if (is->tokens[i] && strcmp(is->tokens[i], token) == 0)
            st = now < is->exp[i] ? SERVE_TOKEN_VALID : SERVE_TOKEN_EXPIRED;
    pthread_mutex_unlock(&is->mu);
    atomic_fetch_add(st == SERVE_TOKEN_VALID     ? &is->valid
                     : st == SERVE_TOKEN_EXPIRED ? &is->expired
                                                 : &is->unknown,
                     1);
    return st;
}

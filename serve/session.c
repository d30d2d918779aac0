/* SPDX-License-Identifier: Apache-2.0 */
/* serve/session.c - slot-addressed bearer sessions. */
#include "serve/session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "bench/util/clock.h"

#define SECRET_LEN 32
#define SECRET_B64 43            /* base64url of 32 bytes, unpadded */

typedef struct slot {
    int      live;
    uint64_t expires;            /* 0: never */
    char     secret[SECRET_B64 + 1];
} slot;

struct serve_sessions {
    pthread_mutex_t mu;
    unsigned        max;
    uint64_t        ttl_ns;
    slot           *slots;
    unsigned       *free_list;
    unsigned        nfree;
};

serve_sessions *serve_sessions_new(unsigned max, uint64_t ttl_ns)
{
    serve_sessions *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->slots = calloc(max, sizeof *s->slots);
    s->free_list = malloc(max * sizeof *s->free_list);
    if (!s->slots || !s->free_list) {
        serve_sessions_free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    s->max = max;
    s->ttl_ns = ttl_ns;
    for (unsigned i = 0; i < max; i++)
        s->free_list[i] = max - 1 - i;
    s->nfree = max;
    return s;
}

void serve_sessions_free(serve_sessions *s)
{
    if (!s)
        return;
    if (s->slots) {
        OPENSSL_cleanse(s->slots, s->max * sizeof *s->slots);
        pthread_mutex_destroy(&s->mu);
    }
    free(s->slots);
    free(s->free_list);
    free(s);
}

uint64_t serve_sessions_ttl_s(const serve_sessions *s)
{
    return s->ttl_ns / 1000000000ULL;
}

static void b64url(const unsigned char *in, size_t n, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = acc << 8 | in[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[o++] = a[(acc >> bits) & 63];
        }
    }
    if (bits)
        out[o++] = a[(acc << (6 - bits)) & 63];
    out[o] = 0;
}

/* Reclaim expired sessions (with the lock held). */
static void reap(serve_sessions *s, uint64_t now)
{
    for (unsigned i = 0; i < s->max; i++) {
        if (s->slots[i].live && s->slots[i].expires && now >= s->slots[i].expires) {
            s->slots[i].live = 0;
            s->free_list[s->nfree++] = i;
        }
    }
}

int serve_sessions_create(serve_sessions *s, char *tok)
{
    unsigned char rnd[SECRET_LEN];
    char secret[SECRET_B64 + 1];
    if (RAND_bytes(rnd, sizeof rnd) != 1)
        return -1;
    b64url(rnd, sizeof rnd, secret);
    OPENSSL_cleanse(rnd, sizeof rnd);
    uint64_t now = bench_now_ns();

    pthread_mutex_lock(&s->mu);
    if (s->nfree == 0)
        reap(s, now);
    if (s->nfree == 0) {
        pthread_mutex_unlock(&s->mu);
        OPENSSL_cleanse(secret, sizeof secret);
        return -1;
    }
    unsigned i = s->free_list[--s->nfree];
    slot *sl = &s->slots[i];
    sl->live = 1;
    sl->expires = s->ttl_ns ? now + s->ttl_ns : 0;
    memcpy(sl->secret, secret, sizeof secret);
    pthread_mutex_unlock(&s->mu);

    snprintf(tok, SERVE_SESSION_TOKEN_MAX, "%x.%s", i, secret);
    OPENSSL_cleanse(secret, sizeof secret);
    return 0;
}

/* The slot a token names, or -1. */
static long slot_of(const serve_sessions *s, const char *tok, size_t len, const char **secret)
{
    const char *dot = memchr(tok, '.', len);
    if (!dot || dot == tok || dot - tok > 8 || (size_t)(tok + len - dot - 1) != SECRET_B64)
        return -1;
    unsigned long v = 0;
    for (const char *p = tok; p < dot; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + (unsigned long)d;
    }
    if (v >= s->max)
        return -1;
    *secret = dot + 1;
    return (long)v;
}

/* With the lock held: 1 when live and matching (expired ones are freed). */
static int live_match(serve_sessions *s, long i, const char *secret, uint64_t now)
{
    slot *sl = &s->slots[i];
    if (!sl->live || CRYPTO_memcmp(sl->secret, secret, SECRET_B64) != 0)
        return 0;
    if (sl->expires && now >= sl->expires) {
        sl->live = 0;
        s->free_list[s->nfree++] = (unsigned)i;
        return 0;
    }
    return 1;
}

int serve_sessions_check(serve_sessions *s, const char *tok, size_t len)
{
    const char *secret;
    long i = slot_of(s, tok, len, &secret);
    if (i < 0)
        return 0;
    uint64_t now = bench_now_ns();
    pthread_mutex_lock(&s->mu);
    int ok = live_match(s, i, secret, now);
    pthread_mutex_unlock(&s->mu);
    return ok;
}

int serve_sessions_end(serve_sessions *s, const char *tok, size_t len)
{
    const char *secret;
    long i = slot_of(s, tok, len, &secret);
    if (i < 0)
        return -1;
    uint64_t now = bench_now_ns();
    pthread_mutex_lock(&s->mu);
    int ok = live_match(s, i, secret, now);
    if (ok) {
        s->slots[i].live = 0;
        OPENSSL_cleanse(s->slots[i].secret, sizeof s->slots[i].secret);
        s->free_list[s->nfree++] = (unsigned)i;
    }
    pthread_mutex_unlock(&s->mu);
    return ok ? 0 : -1;
}

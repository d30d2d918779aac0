/* SPDX-License-Identifier: Apache-2.0 */
/* serve/keys.c - kids, transient blobs, references. */
#include "serve/keys.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/rand.h>

#include "bench/util/b64.h"

#define BLOB_PREFIX "hsmbench-transient:"

struct serve_keys {
    pthread_mutex_t mu;
    unsigned        max, max_transient;
    serve_key      **slot;
    unsigned       *free_list;
    unsigned        nfree;
    unsigned       *ring;           /* transient keys, oldest at head */
    unsigned        head, ntrans;
};

serve_keys *serve_keys_new(unsigned max, unsigned max_transient)
{
    serve_keys *ks = calloc(1, sizeof *ks);
    if (!ks)
        return NULL;
    ks->slot = calloc(max, sizeof *ks->slot);
    ks->free_list = malloc(max * sizeof *ks->free_list);
    ks->ring = malloc((max_transient ? max_transient : 1) * sizeof *ks->ring);
    if (!ks->slot || !ks->free_list || !ks->ring) {
        free(ks->slot);
        free(ks->free_list);
        free(ks->ring);
        free(ks);
        return NULL;
    }
    pthread_mutex_init(&ks->mu, NULL);
    ks->max = max;
    ks->max_transient = max_transient;
    for (unsigned i = 0; i < max; i++)
        ks->free_list[i] = max - 1 - i;
    ks->nfree = max;
    return ks;
}

void serve_keys_free(serve_keys *ks)
{
    if (!ks)
        return;
    for (unsigned i = 0; i < ks->max; i++)
        free(ks->slot[i]);
    pthread_mutex_destroy(&ks->mu);
    free(ks->slot);
    free(ks->free_list);
    free(ks->ring);
    free(ks);
}

/* With the lock held: forget the slot (the record lives on with its holder). */
static void unslot(serve_keys *ks, serve_key *k)
{
    ks->slot[k->slot] = NULL;
    ks->free_list[ks->nfree++] = k->slot;
}

/* With the lock held: mark deleted; the key if nobody holds it. */
static serve_key *retire(serve_keys *ks, serve_key *k)
{
    k->deleted = 1;
    if (k->refs)
        return NULL;
    unslot(ks, k);
    return k;
}

int serve_keys_add(serve_keys *ks, serve_key *k, serve_key **evict)
{
    unsigned char r[10];
    *evict = NULL;
    if (RAND_bytes(r, sizeof r) != 1)
        return -1;
    pthread_mutex_lock(&ks->mu);
    if (k->transient && ks->max_transient && ks->ntrans == ks->max_transient) {
        serve_key *old = ks->slot[ks->ring[ks->head]];
        ks->head = (ks->head + 1) % ks->max_transient;
        ks->ntrans--;
        if (old)
            *evict = retire(ks, old);
    }
    if (ks->nfree == 0 || (k->transient && !ks->max_transient)) {
        pthread_mutex_unlock(&ks->mu);
        return -1;
    }
    unsigned i = ks->free_list[--ks->nfree];
    k->slot = i;
    k->refs = 1;
    k->deleted = 0;
    snprintf(k->kid, sizeof k->kid, "%02x%02x%02x%02x-%02x%02x-4%x%02x-%x%x%02x-%012x", r[0], r[1],
             r[2], r[3], r[4], r[5], r[6] & 0xf, r[7], 8 | (r[8] & 3), r[8] >> 4, r[9], i);
    ks->slot[i] = k;
    if (k->transient) {
        ks->ring[(ks->head + ks->ntrans) % ks->max_transient] = i;
        ks->ntrans++;
    }
    pthread_mutex_unlock(&ks->mu);
    return 0;
}

/* The slot a kid names, or -1. */
static long slot_of(const serve_keys *ks, const char *kid, size_t len)
{
    if (len != SERVE_KID_LEN)
        return -1;
    unsigned long v = 0;
    for (size_t i = SERVE_KID_LEN - 12; i < SERVE_KID_LEN; i++) {
        char c = kid[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + (unsigned long)d;
    }
    return v < ks->max ? (long)v : -1;
}

static serve_key *hold(serve_keys *ks, const char *kid, size_t len, int transient)
{
    long i = slot_of(ks, kid, len);
    serve_key *k = NULL;
    if (i < 0)
        return NULL;
    pthread_mutex_lock(&ks->mu);
    serve_key *c = ks->slot[i];
    if (c && !c->deleted && c->transient == transient && memcmp(c->kid, kid, SERVE_KID_LEN) == 0) {
        c->refs++;
        k = c;
    }
    pthread_mutex_unlock(&ks->mu);
    return k;
}

serve_key *serve_keys_get(serve_keys *ks, const char *kid, size_t len)
{
    return hold(ks, kid, len, 0);
}

serve_key *serve_keys_get_transient(serve_keys *ks, const char *blob, size_t len)
{
    uint8_t buf[128];
    size_t n;
    const size_t pl = sizeof BLOB_PREFIX - 1;
    if (len > 160 || bench_b64_decode(blob, len, buf, sizeof buf, &n) != 0 ||
        n != pl + SERVE_KID_LEN || memcmp(buf, BLOB_PREFIX, pl) != 0)
        return NULL;
    return hold(ks, (const char *)buf + pl, SERVE_KID_LEN, 1);
}

serve_key *serve_keys_put(serve_keys *ks, serve_key *k)
{
    serve_key *gone = NULL;
    pthread_mutex_lock(&ks->mu);
    if (--k->refs == 0 && k->deleted) {
        unslot(ks, k);
        gone = k;
    }
    pthread_mutex_unlock(&ks->mu);
    return gone;
}

int serve_keys_delete(serve_keys *ks, const char *kid, size_t len, serve_key **destroy)
{
    long i = slot_of(ks, kid, len);
    int rc = -1;
    *destroy = NULL;
    if (i < 0)
        return -1;
    pthread_mutex_lock(&ks->mu);
    serve_key *c = ks->slot[i];
    if (c && !c->deleted && !c->transient && memcmp(c->kid, kid, SERVE_KID_LEN) == 0) {
        *destroy = retire(ks, c);
        rc = 0;
    }
    pthread_mutex_unlock(&ks->mu);
    return rc;
}

char *serve_keys_transient_blob(const serve_key *k)
{
    char raw[sizeof BLOB_PREFIX + SERVE_KID_LEN];
    size_t n = (size_t)snprintf(raw, sizeof raw, "%s%s", BLOB_PREFIX, k->kid);
    return bench_b64_encode_alloc((const uint8_t *)raw, n);
}

void serve_key_destroy(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, serve_key *k)
{
    if (!k)
        return;
    if (k->priv)
        fn->C_DestroyObject(s, k->priv);
    if (k->pub)
        fn->C_DestroyObject(s, k->pub);
    free(k);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/keys.h - the emulator's SDKMS key store: kid -> token objects.
 *
 * A kid looks like a UUID whose last group is the key's slot, so finding a
 * key is an index and a string compare.  Transient keys have no kid the
 * client sees: their "transient_key" is an opaque blob naming the slot; at
 * most max_transient of them are kept, the oldest dropped first (a
 * keygen --transient run makes thousands a second and never deletes them).
 *
 * Keys are reference counted: a request holds its key from lookup to the
 * end of its PKCS#11 call, so a DELETE (or an eviction) in another thread
 * never destroys an object still in use; the last holder destroys it.
 */
#ifndef SERVE_KEYS_H
#define SERVE_KEYS_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

typedef enum { SERVE_KEY_AES, SERVE_KEY_RSA, SERVE_KEY_EC, SERVE_KEY_HMAC } serve_key_type;

#define SERVE_KID_LEN 36

typedef struct serve_key {
    serve_key_type    type;
    unsigned         bits;          /* AES/HMAC/RSA size, EC field size */
    const char      *curve;         /* SDKMS curve name for EC ("NistP256"), else NULL */
    CK_OBJECT_HANDLE priv, pub;     /* secret key in priv; pub 0 for secret keys */
    int              transient;
    char             kid[SERVE_KID_LEN + 1];
    /* owned by the store */
    unsigned         slot, refs;
    int              deleted;
} serve_key;

typedef struct serve_keys serve_keys;

serve_keys *serve_keys_new(unsigned max, unsigned max_transient);
/* Frees the records; the token objects go with the sessions that made them. */
void serve_keys_free(serve_keys *ks);

/*
 * Store a key (malloc'd; the store owns it from now on) and give it a kid.
 * The caller holds it (as after serve_keys_get) until serve_keys_put.
 * Returns 0, or -1 when the store is full (k is then still the caller's).  *evict is set to a transient
 * key pushed out to make room, which the caller must destroy (NULL if none).
 */
int serve_keys_add(serve_keys *ks, serve_key *k, serve_key **evict);

/* Look up and hold (NULL when there is no such live key). */
serve_key *serve_keys_get(serve_keys *ks, const char *kid, size_t len);
serve_key *serve_keys_get_transient(serve_keys *ks, const char *blob, size_t len);
/* Release a hold; returns the key when the caller must now destroy it. */
serve_key *serve_keys_put(serve_keys *ks, serve_key *k);
/* Delete by kid: 0 (with *destroy set when nobody holds it), -1 when unknown. */
int serve_keys_delete(serve_keys *ks, const char *kid, size_t len, serve_key **destroy);

/* The "transient_key" blob of a transient key (malloc'd base64). */
char *serve_keys_transient_blob(const serve_key *k);

/* Destroy the key's objects through session s and free the record. */
void serve_key_destroy(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, serve_key *k);

#endif

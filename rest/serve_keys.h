/*
 * rest/serve_keys.h - the emulator's SDKMS key store: kid -> token objects.
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
#ifndef REST_SERVE_KEYS_H
#define REST_SERVE_KEYS_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

typedef enum { REST_KEY_AES, REST_KEY_RSA, REST_KEY_EC, REST_KEY_HMAC } rest_key_type;

#define REST_KID_LEN 36

typedef struct rest_key {
    rest_key_type    type;
    unsigned         bits;          /* AES/HMAC/RSA size, EC field size */
    const char      *curve;         /* SDKMS curve name for EC ("NistP256"), else NULL */
    CK_OBJECT_HANDLE priv, pub;     /* secret key in priv; pub 0 for secret keys */
    int              transient;
    char             kid[REST_KID_LEN + 1];
    /* owned by the store */
    unsigned         slot, refs;
    int              deleted;
} rest_key;

typedef struct rest_keys rest_keys;

rest_keys *rest_keys_new(unsigned max, unsigned max_transient);
/* Frees the records; the token objects go with the sessions that made them. */
void rest_keys_free(rest_keys *ks);

/*
 * Store a key (malloc'd; the store owns it from now on) and give it a kid.
 * The caller holds it (as after rest_keys_get) until rest_keys_put.
 * Returns 0, or -1 when the store is full (k is then still the caller's).  *evict is set to a transient
 * key pushed out to make room, which the caller must destroy (NULL if none).
 */
int rest_keys_add(rest_keys *ks, rest_key *k, rest_key **evict);

/* Look up and hold (NULL when there is no such live key). */
rest_key *rest_keys_get(rest_keys *ks, const char *kid, size_t len);
rest_key *rest_keys_get_transient(rest_keys *ks, const char *blob, size_t len);
/* Release a hold; returns the key when the caller must now destroy it. */
rest_key *rest_keys_put(rest_keys *ks, rest_key *k);
/* Delete by kid: 0 (with *destroy set when nobody holds it), -1 when unknown. */
int rest_keys_delete(rest_keys *ks, const char *kid, size_t len, rest_key **destroy);

/* The "transient_key" blob of a transient key (malloc'd base64). */
char *rest_keys_transient_blob(const rest_key *k);

/* Destroy the key's objects through session s and free the record. */
void rest_key_destroy(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, rest_key *k);

#endif

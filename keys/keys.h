/*
 * keys/keys.h - the benchmark's own keys: generated before the timed phase,
 * destroyed after, whatever happened in between.  Only handles this module
 * created are ever destroyed.
 */
#ifndef KEYS_KEYS_H
#define KEYS_KEYS_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

typedef enum {
    KEYS_NONE = 0,
    KEYS_RSA,
    KEYS_EC,
    KEYS_AES,
    KEYS_GENERIC,     /* generic secret, for HMAC */
} keys_type;

typedef struct keys_spec {
    keys_type   type;
    unsigned    bits;      /* RSA modulus, AES/generic key length, EC field size */
    const char *curve;     /* "P-256", "P-384", "P-521" for EC */
    int         token;     /* token object (CKA_TOKEN) rather than session object */
    const char *label;
} keys_spec;

typedef struct keys_handle {
    CK_OBJECT_HANDLE pub;       /* public key of a pair; 0 for secret keys */
    CK_OBJECT_HANDLE priv;      /* private or secret key */
    int              created;   /* made by us, so ours to destroy */
} keys_handle;

/* The generation mechanism for a key type (0 for none). */
CK_MECHANISM_TYPE keys_gen_mechanism(keys_type type);

/* The DER-encoded OID of a named curve, or NULL (and *len 0) if unknown. */
const unsigned char *keys_curve_oid(const char *curve, size_t *len);
/* Field size in bits of a named curve (0 if unknown). */
unsigned keys_curve_bits(const char *curve);

/* Generate; returns the failing CKR_* (CKR_OK on success). */
CK_RV keys_generate(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                    keys_handle *out);

/* Destroy what keys_generate created; returns the first failure, if any. */
CK_RV keys_destroy(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, keys_handle *k);

#endif

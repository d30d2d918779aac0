/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys/keys.h - the benchmark's own keys: generated in the token, imported
 * from key material we hold (OpenSSL), or found by label/ID.  What we made
 * we destroy, whatever happened in between; what we found we never touch.
 */
#ifndef KEYS_KEYS_H
#define KEYS_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <p11-kit/pkcs11.h>

typedef enum {
    KEYS_NONE = 0,
    KEYS_RSA,
    KEYS_EC,          /* P-256, P-384, P-521 (and P-192, P-224, secp192k1, secp224k1, secp256k1) */
    KEYS_ED25519,
    KEYS_AES,
    KEYS_DES3,
    KEYS_GENERIC,     /* generic secret, for HMAC */
} keys_type;

/* What a key will be used for: only these uses are asked of the token. */
enum {
    KEYS_USE_SIGN = 1,       /* CKA_SIGN / CKA_VERIFY */
    KEYS_USE_ENCRYPT = 2,    /* CKA_ENCRYPT / CKA_DECRYPT */
    KEYS_USE_WRAP = 4,       /* CKA_WRAP / CKA_UNWRAP */
    KEYS_USE_DERIVE = 8,     /* CKA_DERIVE */
};

typedef struct keys_spec {
    keys_type   type;
    unsigned    bits;          /* RSA modulus, AES/generic/DES3 length, EC field size */
    const char *curve;         /* "P-256", "P-384", "P-521" for EC */
    unsigned    uses;          /* KEYS_USE_* */
    int         token;         /* token object (CKA_TOKEN) rather than session object */
    int         extractable;   /* CKA_EXTRACTABLE, not CKA_SENSITIVE (wrap targets) */
    const char *label;
} keys_spec;

typedef struct keys_handle {
    CK_OBJECT_HANDLE pub;       /* public key of a pair; 0 for secret keys */
    CK_OBJECT_HANDLE priv;      /* private or secret key */
    int              created;   /* made by us, so ours to destroy */
} keys_handle;

/* Key material we hold outside the token (--verify, --static-key). */
typedef struct keys_material {
    EVP_PKEY     *pkey;          /* asymmetric keys */
    unsigned char secret[64];    /* symmetric keys */
    size_t        secret_len;
} keys_material;

/* The generation mechanism for a key type (0 for none). */
CK_MECHANISM_TYPE keys_gen_mechanism(keys_type type);
int keys_is_pair(keys_type type);

/* The DER-encoded CKA_EC_PARAMS of a named curve ("P-256".."P-521",
 * "Ed25519"), or NULL (and *len 0) if unknown. */
const unsigned char *keys_curve_oid(const char *curve, size_t *len);
/* Field size in bits of a named curve (0 if unknown). */
unsigned keys_curve_bits(const char *curve);
/* OpenSSL's group name for a curve ("prime256v1"), or NULL. */
const char *keys_curve_group(const char *curve);

/* Generate in the token; returns the failing CKR_* (CKR_OK on success). */
CK_RV keys_generate(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                    keys_handle *out);

/* Create the key from material we hold (C_CreateObject). */
CK_RV keys_import(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                  const keys_material *mat, keys_handle *out);

/* Make fresh material in software matching spec (for --verify). NULL on failure. */
keys_material *keys_material_new(const keys_spec *spec);
/* Load --static-key FILE: PEM or DER private key (RSA, EC, Ed25519) for
 * pairs, raw key bytes for secret keys.  NULL with a one-line reason in err.
 * spec's bits and curve, when given (non-zero, non-NULL), must be the key's;
 * without them any size the key type has is taken. */
keys_material *keys_material_load(const char *path, const keys_spec *spec, char *err, size_t len);
void keys_material_free(keys_material *m);

/*
 * keys_import (mat given) or keys_generate, as the main thread makes a key:
 * the call is published for Ctrl-C ("stopping: waiting for
 * C_GenerateKeyPair to return", bench/util/signals.h) and a token key's label
 * is noted for the list the second Ctrl-C prints.  Not for worker threads.
 */
CK_RV keys_make(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                const keys_material *mat, keys_handle *out);

/* Find one key by label and/or ID of the given class; CKR_OK and *found=0
 * when there is none, *found>1 when several match (the first is returned). */
CK_RV keys_find(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_CLASS cls, const char *label,
                const unsigned char *id, size_t idlen, CK_OBJECT_HANDLE *out, int *found);

/* The public key of a pair as OpenSSL sees it (from CKA_MODULUS/
 * CKA_PUBLIC_EXPONENT or CKA_EC_POINT).  NULL when it cannot be read. */
EVP_PKEY *keys_export_public(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, keys_type type,
                             const char *curve, CK_OBJECT_HANDLE pub);

/* What a key in the token is, read from it: its type (CKA_KEY_TYPE; KEYS_NONE
 * for a type no test uses), its size in bits (CKA_MODULUS_BITS or the
 * CKA_MODULUS itself, CKA_VALUE_LEN; 0 when unreadable) and, for EC, its
 * curve (CKA_EC_PARAMS; NULL when unknown). */
typedef struct keys_facts {
    keys_type   type;
    CK_KEY_TYPE ckk;
    unsigned    bits;
    const char *curve;
} keys_facts;
CK_RV keys_read_facts(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                      keys_facts *out);
/* The same of key material we hold (--static-key): 0, or -1 when unknown. */
int keys_material_facts(const keys_material *m, keys_type type, keys_facts *out);

/* The public exponent of an RSA key in the token (CKA_PUBLIC_EXPONENT of
 * its public key, else of its private key); 0 if unknown or past 64 bits. */
uint64_t keys_rsa_exponent(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_handle *k);

/* The modulus length in bytes of an RSA key in the token (0 if unknown). */
CK_ULONG keys_rsa_modulus_len(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key);

#endif

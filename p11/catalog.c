/* SPDX-License-Identifier: Apache-2.0 */
/* p11/catalog.c - every test hsmbench knows, and what each needs of a token. */
#include "p11/tests.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench/util/cli.h"
#include "p11/names.h"
#include "p11/pkcs11_3x.h"

#define CKM_SHA3_256_ (0x2b0UL)
#define CKM_SHA3_384_ (0x2c0UL)
#define CKM_SHA3_512_ (0x2d0UL)
#define CKM_EDDSA_    (0x1057UL)

static const unsigned rsa_sizes[] = { 1024, 2048, 3072, 4096, 8192, 0 };
static const unsigned aes_sizes[] = { 128, 192, 256, 0 };
static const unsigned des3_sizes[] = { 192, 0 };
static const unsigned hmac_sizes[] = { 128, 160, 224, 256, 384, 512, 1024, 0 };

#define DATA_MAX 16200   /* pkpspeed's range: 1..16200 bytes */
#define SHA2 (P11_H(P11_HASH_SHA256) | P11_H(P11_HASH_SHA384) | P11_H(P11_HASH_SHA512))
#define SHA12 (P11_H(P11_HASH_SHA1) | SHA2)

/* Shorthands for the table's repeated shapes. */
#define RSA(n, s, op, m, h, par, in, dd)                                                      \
    { n, s, op, m, h, (h) ? P11_HASH_SHA256 : P11_HASH_NONE, par, in, KEYS_RSA, 2048, rsa_sizes, \
      dd, 1, DATA_MAX, 0, 0, 0 }
/* OAEP defaults to SHA-1, the one hash every module offers for it (SoftHSM only has it). */
#define OAEP(n, s, op, in, dd)                                                                \
    { n, s, op, CKM_RSA_PKCS_OAEP, P11_H(P11_HASH_SHA1) | P11_H(P11_HASH_SHA256), P11_HASH_SHA1,  \
      P11_PARAM_OAEP, in, KEYS_RSA, 2048, rsa_sizes, dd, 1, DATA_MAX, 0, 0, 0 }
#define ECK(n, s, op, m, h, in)                                                               \
    { n, s, op, m, h, P11_HASH_NONE, P11_PARAM_NONE, in, KEYS_EC, 0, NULL, 32, 1, DATA_MAX, 0, 0, 0 }
#define SYM(n, s, op, m, par, key, ksz, kdef, mult, dep)                                      \
    { n, s, op, m, 0, P11_HASH_NONE, par, P11_IN_DATA, key, kdef, ksz, 1024, 1, DATA_MAX, mult, 1, dep }
#define HMAC(n, s, op, m, bits)                                                               \
    { n, s, op, m, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_DATA, KEYS_GENERIC, bits, hmac_sizes, \
      1024, 1, DATA_MAX, 0, 1, 0 }
#define DIGEST(n, s, m)                                                                       \
    { n, s, P11_OP_DIGEST, m, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_DATA, KEYS_NONE, 0, NULL, \
      1024, 1, DATA_MAX, 0, 1, 0 }

static const p11_test_def catalogue[] = {
    /* RSA: PKCS#1 v1.5 and PSS, hashed in the token or in software first */
    RSA("rsa-pkcs-sign", "RSA PKCS#1 v1.5 signature, hashed in the token (--hash)",
        P11_OP_SIGN, 0, SHA12, P11_PARAM_NONE, P11_IN_DATA, 32),
    RSA("rsa-pkcs-verify", "RSA PKCS#1 v1.5 verification, hashed in the token (--hash)",
        P11_OP_VERIFY, 0, SHA12, P11_PARAM_NONE, P11_IN_DATA, 32),
    RSA("rsa-pkcs-sign-prehashed", "RSA PKCS#1 v1.5 signature of a DigestInfo made in software",
        P11_OP_SIGN, CKM_RSA_PKCS, SHA12, P11_PARAM_NONE, P11_IN_DIGESTINFO, 32),
    RSA("rsa-pkcs-verify-prehashed", "RSA PKCS#1 v1.5 verification of a DigestInfo made in software",
        P11_OP_VERIFY, CKM_RSA_PKCS, SHA12, P11_PARAM_NONE, P11_IN_DIGESTINFO, 32),
    RSA("rsa-pss-sign", "RSA-PSS signature, hashed in the token (--hash; MGF1 and salt follow it)",
        P11_OP_SIGN, 0, SHA12, P11_PARAM_PSS, P11_IN_DATA, 32),
    RSA("rsa-pss-verify", "RSA-PSS verification, hashed in the token (--hash)",
        P11_OP_VERIFY, 0, SHA12, P11_PARAM_PSS, P11_IN_DATA, 32),
    RSA("rsa-pss-sign-prehashed", "RSA-PSS signature of a digest made in software",
        P11_OP_SIGN, CKM_RSA_PKCS_PSS, SHA12, P11_PARAM_PSS, P11_IN_HASH, 32),
    RSA("rsa-pss-verify-prehashed", "RSA-PSS verification of a digest made in software",
        P11_OP_VERIFY, CKM_RSA_PKCS_PSS, SHA12, P11_PARAM_PSS, P11_IN_HASH, 32),
    OAEP("rsa-oaep-encrypt", "RSA-OAEP encryption (--hash SHA1|SHA256 for OAEP and MGF1; default SHA1)",
         P11_OP_ENCRYPT, P11_IN_DATA, 32),
    OAEP("rsa-oaep-decrypt", "RSA-OAEP decryption (--hash SHA1|SHA256; default SHA1)",
         P11_OP_DECRYPT, P11_IN_DATA, 32),
    RSA("rsa-x509-encrypt", "raw RSA public-key operation (pkpspeed's RSA public key enc)",
        P11_OP_ENCRYPT, CKM_RSA_X_509, 0, P11_PARAM_NONE, P11_IN_MODULUS, 32),
    RSA("rsa-x509-decrypt", "raw RSA private-key operation (pkpspeed's RSA private key dec)",
        P11_OP_DECRYPT, CKM_RSA_X_509, 0, P11_PARAM_NONE, P11_IN_MODULUS, 32),
    OAEP("rsa-oaep-unwrap", "RSA-OAEP unwrap of an AES-256 key (destroyed untimed; --hash as above)",
         P11_OP_UNWRAP, P11_IN_NONE, 0),

    /* EC */
    ECK("ecdsa-sign", "ECDSA signature of a SHA-2 digest made in software (--hash; default by curve)",
        P11_OP_SIGN, CKM_ECDSA, SHA12, P11_IN_HASH),
    ECK("ecdsa-verify", "ECDSA verification of a SHA-2 digest made in software",
        P11_OP_VERIFY, CKM_ECDSA, SHA12, P11_IN_HASH),
    ECK("ecdsa-sha2-sign", "ECDSA signature hashed in the token (CKM_ECDSA_SHA256/384/512)",
        P11_OP_SIGN, 0, SHA12, P11_IN_DATA),
    ECK("ecdsa-sha2-verify", "ECDSA verification hashed in the token",
        P11_OP_VERIFY, 0, SHA12, P11_IN_DATA),
    { "ecdh-derive", "ECDH key agreement with a peer key (the derived key is destroyed untimed)",
      P11_OP_DERIVE, CKM_ECDH1_DERIVE, 0, P11_HASH_NONE, P11_PARAM_ECDH, P11_IN_NONE, KEYS_EC, 0,
      NULL, 0, 0, 0, 0, 0, 0 },
    { "ed25519-sign", "Ed25519 signature (CKM_EDDSA)", P11_OP_SIGN, CKM_EDDSA_, 0, P11_HASH_NONE,
      P11_PARAM_NONE, P11_IN_DATA, KEYS_ED25519, 0, NULL, 32, 1, DATA_MAX, 0, 0, 0 },
    { "ed25519-verify", "Ed25519 verification (CKM_EDDSA)", P11_OP_VERIFY, CKM_EDDSA_, 0,
      P11_HASH_NONE, P11_PARAM_NONE, P11_IN_DATA, KEYS_ED25519, 0, NULL, 32, 1, DATA_MAX, 0, 0, 0 },

    /* AES */
    SYM("aes-ecb-encrypt", "AES-ECB encryption", P11_OP_ENCRYPT, CKM_AES_ECB, P11_PARAM_NONE,
        KEYS_AES, aes_sizes, 256, 16, 0),
    SYM("aes-ecb-decrypt", "AES-ECB decryption", P11_OP_DECRYPT, CKM_AES_ECB, P11_PARAM_NONE,
        KEYS_AES, aes_sizes, 256, 16, 0),
    SYM("aes-cbc-encrypt", "AES-CBC encryption, 16-byte IV", P11_OP_ENCRYPT, CKM_AES_CBC,
        P11_PARAM_IV, KEYS_AES, aes_sizes, 256, 16, 0),
    SYM("aes-cbc-decrypt", "AES-CBC decryption", P11_OP_DECRYPT, CKM_AES_CBC, P11_PARAM_IV,
        KEYS_AES, aes_sizes, 256, 16, 0),
    SYM("aes-cbc-pad-encrypt", "AES-CBC with PKCS#7 padding, encryption", P11_OP_ENCRYPT,
        CKM_AES_CBC_PAD, P11_PARAM_IV, KEYS_AES, aes_sizes, 256, 0, 0),
    SYM("aes-cbc-pad-decrypt", "AES-CBC with PKCS#7 padding, decryption", P11_OP_DECRYPT,
        CKM_AES_CBC_PAD, P11_PARAM_IV, KEYS_AES, aes_sizes, 256, 0, 0),
    SYM("aes-ctr-encrypt", "AES-CTR encryption, 128-bit counter", P11_OP_ENCRYPT, CKM_AES_CTR,
        P11_PARAM_CTR, KEYS_AES, aes_sizes, 256, 0, 0),
    SYM("aes-ctr-decrypt", "AES-CTR decryption", P11_OP_DECRYPT, CKM_AES_CTR, P11_PARAM_CTR,
        KEYS_AES, aes_sizes, 256, 0, 0),
    SYM("aes-gcm-encrypt", "AES-GCM encryption, 12-byte IV (new per operation), 128-bit tag, --aad-size",
        P11_OP_ENCRYPT, CKM_AES_GCM, P11_PARAM_GCM, KEYS_AES, aes_sizes, 256, 0, 0),
    SYM("aes-gcm-decrypt", "AES-GCM decryption and tag check, --aad-size", P11_OP_DECRYPT,
        CKM_AES_GCM, P11_PARAM_GCM, KEYS_AES, aes_sizes, 256, 0, 0),
    { "aes-key-wrap", "AES key wrap (RFC 3394) of an AES-256 key", P11_OP_WRAP, CKM_AES_KEY_WRAP, 0,
      P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES, 256, aes_sizes, 0, 0, 0, 0, 0, 0 },
    { "aes-key-unwrap", "AES key unwrap (RFC 3394) of an AES-256 key (destroyed untimed)",
      P11_OP_UNWRAP, CKM_AES_KEY_WRAP, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES,
      256, aes_sizes, 0, 0, 0, 0, 0, 0 },
    { "aes-key-wrap-pad", "AES key wrap with padding (RFC 5649, or RFC 3394 after PKCS#7 padding "
      "as NSS has it: detected) of an AES-256 key", P11_OP_WRAP,
      CKM_AES_KEY_WRAP_PAD, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES, 256, aes_sizes,
      0, 0, 0, 0, 0, 0 },
    { "aes-key-unwrap-pad", "AES key unwrap with padding (either variant, detected) (destroyed untimed)",
      P11_OP_UNWRAP, CKM_AES_KEY_WRAP_PAD, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES,
      256, aes_sizes, 0, 0, 0, 0, 0, 0 },
    { "aes-key-wrap-kwp", "AES key wrap with padding (RFC 5649, PKCS#11 3.0's CKM_AES_KEY_WRAP_KWP) of "
      "an AES-256 key", P11_OP_WRAP, CKM_AES_KEY_WRAP_KWP, 0, P11_HASH_NONE, P11_PARAM_NONE,
      P11_IN_NONE, KEYS_AES, 256, aes_sizes, 0, 0, 0, 0, 0, 0 },
    { "aes-key-unwrap-kwp", "AES key unwrap with padding (RFC 5649, CKM_AES_KEY_WRAP_KWP) (destroyed "
      "untimed)", P11_OP_UNWRAP, CKM_AES_KEY_WRAP_KWP, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE,
      KEYS_AES, 256, aes_sizes, 0, 0, 0, 0, 0, 0 },

    /* 3DES, for legacy HSMs */
    SYM("des3-ecb-encrypt", "3DES-ECB encryption (deprecated)", P11_OP_ENCRYPT, CKM_DES3_ECB,
        P11_PARAM_NONE, KEYS_DES3, des3_sizes, 192, 8, 1),
    SYM("des3-ecb-decrypt", "3DES-ECB decryption (deprecated)", P11_OP_DECRYPT, CKM_DES3_ECB,
        P11_PARAM_NONE, KEYS_DES3, des3_sizes, 192, 8, 1),
    SYM("des3-cbc-encrypt", "3DES-CBC encryption, 8-byte IV (deprecated)", P11_OP_ENCRYPT,
        CKM_DES3_CBC, P11_PARAM_IV, KEYS_DES3, des3_sizes, 192, 8, 1),
    SYM("des3-cbc-decrypt", "3DES-CBC decryption (deprecated)", P11_OP_DECRYPT, CKM_DES3_CBC,
        P11_PARAM_IV, KEYS_DES3, des3_sizes, 192, 8, 1),

    /* HMAC */
    HMAC("hmac-sha1", "HMAC-SHA-1", P11_OP_SIGN, CKM_SHA_1_HMAC, 160),
    HMAC("hmac-sha1-verify", "HMAC-SHA-1 verification", P11_OP_VERIFY, CKM_SHA_1_HMAC, 160),
    HMAC("hmac-sha256", "HMAC-SHA-256", P11_OP_SIGN, CKM_SHA256_HMAC, 256),
    HMAC("hmac-sha256-verify", "HMAC-SHA-256 verification", P11_OP_VERIFY, CKM_SHA256_HMAC, 256),
    HMAC("hmac-sha384", "HMAC-SHA-384", P11_OP_SIGN, CKM_SHA384_HMAC, 384),
    HMAC("hmac-sha384-verify", "HMAC-SHA-384 verification", P11_OP_VERIFY, CKM_SHA384_HMAC, 384),
    HMAC("hmac-sha512", "HMAC-SHA-512", P11_OP_SIGN, CKM_SHA512_HMAC, 512),
    HMAC("hmac-sha512-verify", "HMAC-SHA-512 verification", P11_OP_VERIFY, CKM_SHA512_HMAC, 512),

    /* digests */
    DIGEST("sha1-digest", "SHA-1 digest", CKM_SHA_1),
    DIGEST("sha224-digest", "SHA-224 digest", CKM_SHA224),
    DIGEST("sha256-digest", "SHA-256 digest", CKM_SHA256),
    DIGEST("sha384-digest", "SHA-384 digest", CKM_SHA384),
    DIGEST("sha512-digest", "SHA-512 digest", CKM_SHA512),
    DIGEST("sha3-256-digest", "SHA3-256 digest (where offered)", CKM_SHA3_256_),
    DIGEST("sha3-384-digest", "SHA3-384 digest (where offered)", CKM_SHA3_384_),
    DIGEST("sha3-512-digest", "SHA3-512 digest (where offered)", CKM_SHA3_512_),

    /* the rest */
    { "random", "C_GenerateRandom of --data-size bytes", P11_OP_RANDOM, 0, 0, P11_HASH_NONE,
      P11_PARAM_NONE, P11_IN_NONE, KEYS_NONE, 0, NULL, 32, 1, DATA_MAX, 0, 1, 0 },
    { "aes-keygen", "AES key generation (the key is destroyed untimed)", P11_OP_KEYGEN,
      CKM_AES_KEY_GEN, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES, 256, aes_sizes, 0,
      0, 0, 0, 0, 0 },
    { "rsa-keygen", "RSA key-pair generation (destroyed untimed)", P11_OP_KEYGEN,
      CKM_RSA_PKCS_KEY_PAIR_GEN, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_RSA, 2048,
      rsa_sizes, 0, 0, 0, 0, 0, 0 },
    { "ec-keygen", "EC key-pair generation, --curve (destroyed untimed)", P11_OP_KEYGEN,
      CKM_EC_KEY_PAIR_GEN, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_EC, 0, NULL, 0, 0,
      0, 0, 0, 0 },
    { "find-objects", "C_FindObjectsInit + C_FindObjects + C_FindObjectsFinal by label",
      P11_OP_FIND, 0, 0, P11_HASH_NONE, P11_PARAM_NONE, P11_IN_NONE, KEYS_AES, 256, aes_sizes, 0, 0,
      0, 0, 0, 0 },
};

size_t p11_test_count(void)
{
    return sizeof catalogue / sizeof catalogue[0];
}

const p11_test_def *p11_test_at(size_t i)
{
    return i < p11_test_count() ? &catalogue[i] : NULL;
}

const p11_test_def *p11_test_find(const char *name)
{
    for (size_t i = 0; i < p11_test_count(); i++)
        if (strcmp(catalogue[i].name, name) == 0)
            return &catalogue[i];
    return NULL;
}

/*
 * pkpspeed's names for catalogue tests, the one table of them that "run
 * --test" and "menu" share: the Linux tool's ciphers ("Enter the cipher:")
 * and pkpspeed_blocking's menu letters, in its order.
 */
static const p11_alias aliases[] = {
    { "A", "rsa-pkcs-sign-prehashed", 0,
      "RSA non-CRT (same operation through PKCS#11: the token decides CRT)" },
    { "B", "rsa-pkcs-sign", 0, "RSA CRT" },
    { "C", "des3-cbc-encrypt", 0, "Basic 3DES CBC" },
    { "D", "aes-cbc-encrypt", 0, "Basic AES" },
    { "H", "random", 0, "FIPS Random" },
    { "I", "random", 0, "Random (the same as H: on a FIPS HSM all random is FIPS random)" },
    { "K", "aes-gcm-encrypt", 0, "AES GCM" },
    { "AES_128", "aes-cbc-encrypt", 128, NULL },
    { "AES_256", "aes-cbc-encrypt", 256, NULL },
    { "3DES", "des3-cbc-encrypt", 0, NULL },
    { "RSA", "rsa-pkcs-sign-prehashed", 0, NULL },
    { "RSA_CRT", "rsa-pkcs-sign", 0, NULL },
};

size_t p11_alias_count(void)
{
    return sizeof aliases / sizeof aliases[0];
}

const p11_alias *p11_alias_at(size_t i)
{
    return i < p11_alias_count() ? &aliases[i] : NULL;
}

const p11_test_def *p11_test_named(const char *name, const p11_alias **alias)
{
    const p11_test_def *def = p11_test_find(name);
    const p11_alias *a = def ? NULL : p11_alias_find(name);
    if (a)
        def = p11_test_find(a->test);
    for (size_t i = 0; !def && i < p11_test_count(); i++)
        if (strcasecmp(catalogue[i].name, name) == 0)
            def = &catalogue[i];
    if (alias)
        *alias = a;
    return def;
}

const p11_alias *p11_alias_find(const char *name)
{
    for (size_t i = 0; i < p11_alias_count(); i++)
        if (strcasecmp(aliases[i].name, name) == 0)
            return &aliases[i];
    return NULL;
}

static const struct {
    const char *name;
    size_t len;
} hashes[P11_HASH_COUNT] = {
    [P11_HASH_NONE] = { "none", 0 },       [P11_HASH_SHA1] = { "SHA1", 20 },
    [P11_HASH_SHA224] = { "SHA224", 28 },  [P11_HASH_SHA256] = { "SHA256", 32 },
    [P11_HASH_SHA384] = { "SHA384", 48 },  [P11_HASH_SHA512] = { "SHA512", 64 },
    [P11_HASH_SHA3_256] = { "SHA3-256", 32 }, [P11_HASH_SHA3_384] = { "SHA3-384", 48 },
    [P11_HASH_SHA3_512] = { "SHA3-512", 64 },
};

const char *p11_hash_name(p11_hash h)
{
    return h < P11_HASH_COUNT ? hashes[h].name : "none";
}

size_t p11_hash_len(p11_hash h)
{
    return h < P11_HASH_COUNT ? hashes[h].len : 0;
}

/* The DER prefix of a DigestInfo, per hash (RFC 8017, 9.2 note 1). */
const unsigned char *p11_digestinfo_prefix(p11_hash h, size_t *len)
{
    static const unsigned char sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03,
                                          0x02, 0x1a, 0x05, 0x00, 0x04, 0x14 };
    static const unsigned char sha224[] = { 0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48,
                                            0x01, 0x65, 0x03, 0x04, 0x02, 0x04, 0x05, 0x00, 0x04,
                                            0x1c };
    static const unsigned char sha256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48,
                                            0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
                                            0x20 };
    static const unsigned char sha384[] = { 0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48,
                                            0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04,
                                            0x30 };
    static const unsigned char sha512[] = { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48,
                                            0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04,
                                            0x40 };
    switch (h) {
    case P11_HASH_SHA1:   *len = sizeof sha1; return sha1;
    case P11_HASH_SHA224: *len = sizeof sha224; return sha224;
    case P11_HASH_SHA256: *len = sizeof sha256; return sha256;
    case P11_HASH_SHA384: *len = sizeof sha384; return sha384;
    case P11_HASH_SHA512: *len = sizeof sha512; return sha512;
    default:              *len = 0; return NULL;
    }
}

p11_hash p11_hash_by_name(const char *name)
{
    for (int h = P11_HASH_SHA1; h < P11_HASH_COUNT; h++) {
        const char *n = hashes[h].name;
        /* Accept "SHA256", "sha256", "SHA-256". */
        const char *a = n, *b = name;
        while (*a && *b) {
            if (*b == '-' && *a != '-') {
                b++;
                continue;
            }
            if ((*a | 0x20) != (*b | 0x20))
                break;
            a++;
            b++;
        }
        if (!*a && !*b)
            return (p11_hash)h;
    }
    return P11_HASH_NONE;
}

/* Mechanisms that hash in the token, by hash. */
CK_MECHANISM_TYPE p11_test_mech(const p11_test_def *def, const p11_test_params *p)
{
    if (def->op == P11_OP_KEYGEN)
        return keys_gen_mechanism(def->key);   /* CKM_RSA_PKCS_KEY_PAIR_GEN is 0 */
    if (def->mech || !def->hashes)
        return def->mech;
    static const CK_MECHANISM_TYPE pkcs[P11_HASH_COUNT] = {
        [P11_HASH_SHA1] = CKM_SHA1_RSA_PKCS, [P11_HASH_SHA224] = CKM_SHA224_RSA_PKCS,
        [P11_HASH_SHA256] = CKM_SHA256_RSA_PKCS, [P11_HASH_SHA384] = CKM_SHA384_RSA_PKCS,
        [P11_HASH_SHA512] = CKM_SHA512_RSA_PKCS,
    };
    static const CK_MECHANISM_TYPE pss[P11_HASH_COUNT] = {
        [P11_HASH_SHA1] = CKM_SHA1_RSA_PKCS_PSS, [P11_HASH_SHA224] = CKM_SHA224_RSA_PKCS_PSS,
        [P11_HASH_SHA256] = CKM_SHA256_RSA_PKCS_PSS, [P11_HASH_SHA384] = CKM_SHA384_RSA_PKCS_PSS,
        [P11_HASH_SHA512] = CKM_SHA512_RSA_PKCS_PSS,
    };
    static const CK_MECHANISM_TYPE ecdsa[P11_HASH_COUNT] = {
        [P11_HASH_SHA1] = CKM_ECDSA_SHA1, [P11_HASH_SHA224] = CKM_ECDSA_SHA224,
        [P11_HASH_SHA256] = CKM_ECDSA_SHA256, [P11_HASH_SHA384] = CKM_ECDSA_SHA384,
        [P11_HASH_SHA512] = CKM_ECDSA_SHA512,
    };
    const CK_MECHANISM_TYPE *tab = def->key == KEYS_EC ? ecdsa : def->param == P11_PARAM_PSS ? pss : pkcs;
    return p->hash < P11_HASH_COUNT ? tab[p->hash] : 0;
}

const char *p11_op_call(const p11_test_def *def)
{
    switch (def->op) {
    case P11_OP_SIGN:    return "C_Sign";
    case P11_OP_VERIFY:  return "C_Verify";
    case P11_OP_ENCRYPT: return "C_Encrypt";
    case P11_OP_DECRYPT: return "C_Decrypt";
    case P11_OP_DIGEST:  return "C_Digest";
    case P11_OP_DERIVE:  return "C_DeriveKey";
    case P11_OP_WRAP:    return "C_WrapKey";
    case P11_OP_UNWRAP:  return "C_UnwrapKey";
    case P11_OP_RANDOM:  return "C_GenerateRandom";
    case P11_OP_FIND:    return "C_FindObjects";
    case P11_OP_KEYGEN:
        break;
    }
    return def->key == KEYS_RSA || def->key == KEYS_EC || def->key == KEYS_ED25519
               ? "C_GenerateKeyPair" : "C_GenerateKey";
}

const char *p11_test_key_type(const p11_test_def *def)
{
    switch (def->key) {
    case KEYS_RSA:     return "RSA";
    case KEYS_EC:      return "EC";
    case KEYS_ED25519: return "EC_EDWARDS";
    case KEYS_AES:     return "AES";
    case KEYS_DES3:    return "DES3";
    case KEYS_GENERIC: return "GENERIC_SECRET";
    case KEYS_NONE:    break;
    }
    return NULL;
}

const char *p11_test_key_desc(const p11_test_def *def, const p11_test_params *p, char *buf,
                              size_t len)
{
    if (def->key == KEYS_NONE)
        snprintf(buf, len, "-");
    else if (def->key == KEYS_EC)
        snprintf(buf, len, "EC %s", p->curve);
    else if (def->key == KEYS_ED25519)
        snprintf(buf, len, "Ed25519");
    else if (def->key == KEYS_GENERIC)
        snprintf(buf, len, "HMAC %u", p->key_bits);
    else
        snprintf(buf, len, "%s %u", p11_test_key_type(def), p->key_bits);
    return buf;
}

static int takes_data(const p11_test_def *def)
{
    if (def->data_max == 0)
        return 0;
    return def->op == P11_OP_RANDOM || def->input == P11_IN_DATA || def->input == P11_IN_HASH ||
           def->input == P11_IN_DIGESTINFO;
}

static int resolve_curve(const p11_test_def *def, const p11_test_params *in, p11_test_params *out,
                         char *why, size_t wl)
{
    if (in->key_bits) {
        /* --key-size 256/384/521 is accepted as a curve alias. */
        static const char *const by_bits[] = { "P-256", "P-384", "P-521" };
        const char *c = NULL;
        for (size_t i = 0; i < 3; i++)
            if (keys_curve_bits(by_bits[i]) == in->key_bits)
                c = by_bits[i];
        if (!c) {
            bench_seterr(why, wl, "--key-size %u: not a curve size for %s (use --curve P-256|P-384|P-521)",
                        in->key_bits, def->name);
            return -1;
        }
        if (in->curve && strcmp(in->curve, c) != 0) {
            bench_seterr(why, wl, "--key-size %u and --curve %s disagree; give one of them", in->key_bits,
                        in->curve);
            return -1;
        }
        out->curve = c;
    }
    if (!out->curve)
        out->curve = "P-256";
    if (!keys_curve_bits(out->curve) || strcmp(out->curve, "Ed25519") == 0) {
        bench_seterr(why, wl, "--curve %s: unknown curve; use P-256, P-384 or P-521", out->curve);
        return -1;
    }
    out->key_bits = keys_curve_bits(out->curve);
    return 0;
}

static int resolve_size(const p11_test_def *def, const p11_test_params *in, p11_test_params *out,
                        char *why, size_t wl)
{
    if (in->curve) {
        bench_seterr(why, wl, "--curve: %s takes no curve", def->name);
        return -1;
    }
    if (!def->key_sizes) {
        if (in->key_bits) {
            bench_seterr(why, wl, "--key-size: %s takes no key size", def->name);
            return -1;
        }
        out->key_bits = def->key == KEYS_ED25519 ? 255 : 0;
        return 0;
    }
    if (!in->key_bits) {
        out->key_bits = def->key_default;
        return 0;
    }
    char list[96] = "";
    size_t used = 0;
    for (const unsigned *s = def->key_sizes; *s; s++) {
        if (*s == in->key_bits)
            return 0;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", s == def->key_sizes ? "" : "/", *s);
    }
    bench_seterr(why, wl, "--key-size %u: %s takes %s", in->key_bits, def->name, list);
    return -1;
}

static int resolve_hash(const p11_test_def *def, const p11_test_params *in, p11_test_params *out,
                        char *why, size_t wl)
{
    if (in->hash != P11_HASH_NONE && !(def->hashes & P11_H(in->hash))) {
        if (!def->hashes)
            bench_seterr(why, wl, "--hash: %s takes no hash", def->name);
        else
            bench_seterr(why, wl, "--hash %s: %s does not take it", p11_hash_name(in->hash), def->name);
        return -1;
    }
    if (in->hash != P11_HASH_NONE)
        out->hash = in->hash;
    else if (def->hashes && def->hash_default != P11_HASH_NONE)
        out->hash = def->hash_default;
    else if (def->hashes && def->key == KEYS_EC) {
        /* ECDSA: a digest as long as the curve's order. */
        unsigned bits = out->key_bits;
        out->hash = bits >= 521 ? P11_HASH_SHA512 : bits >= 384 ? P11_HASH_SHA384 : P11_HASH_SHA256;
    } else
        out->hash = P11_HASH_NONE;
    return 0;
}

int p11_key_resolve(keys_type type, const char *what, unsigned bits, const char *curve,
                    unsigned *bits_out, const char **curve_out)
{
    for (size_t i = 0; i < p11_test_count(); i++) {
        const p11_test_def *t = p11_test_at(i);
        if (t->key != type || (type != KEYS_EC && type != KEYS_ED25519 && !t->key_sizes))
            continue;
        p11_test_def d = *t;
        d.name = what;
        p11_test_params in, out;
        memset(&in, 0, sizeof in);
        in.key_bits = bits;
        in.curve = curve;
        out = in;
        char why[512];
        if ((type == KEYS_EC ? resolve_curve(&d, &in, &out, why, sizeof why)
                             : resolve_size(&d, &in, &out, why, sizeof why)) != 0) {
            bench_error("%s", why);
            return -1;
        }
        *bits_out = out.key_bits;
        *curve_out = out.curve;
        return 0;
    }
    bench_error("%s: no test of the catalogue makes such keys", what);
    return -1;
}

/* "--key-size 1024 --hash SHA512": the flags (or the key) that set what does not fit. */
static const char *fit_flags(const p11_test_params *in, int with_hash, int with_data, char *buf,
                             size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    if (in->key_origin)
        at += (size_t)snprintf(buf + at, len - at, "%s", in->key_origin);
    else if (in->key_bits)
        at += (size_t)snprintf(buf + at, len - at, "--key-size %u", in->key_bits);
    if (with_hash && in->hash != P11_HASH_NONE && at < len)
        at += (size_t)snprintf(buf + at, len - at, "%s--hash %s", at ? " " : "", p11_hash_name(in->hash));
    if (with_data && in->data_size && at < len)
        snprintf(buf + at, len - at, "%s--data-size %llu", at ? " " : "",
                 (unsigned long long)in->data_size);
    return buf;
}

/*
 * What RSA's encodings can hold (RFC 8017), from the modulus: PSS needs
 * emLen >= hLen + sLen + 2 (emLen = ceil((modBits - 1) / 8), the salt as long
 * as the hash); OAEP takes at most k - 2 hLen - 2 bytes; a PKCS#1 v1.5
 * signature's DigestInfo at most k - 11.  -1 (printed) when they cannot.
 */
static int check_fit(const p11_test_def *def, const p11_test_params *in, const p11_test_params *p,
                     char *why, size_t wl)
{
    if (def->key != KEYS_RSA || def->op == P11_OP_KEYGEN || !p->key_bits)
        return 0;
    if (in->keys == P11_KEYS_EXISTING && !in->key_origin)
        return 0;    /* the key's own size is read from the token first (p11_test_key_facts) */
    const size_t k = (p->key_bits + 7) / 8, em = (p->key_bits + 6) / 8, h = p11_hash_len(p->hash);
    const char *hn = p11_hash_name(p->hash);
    char fl[200];
    if (def->param == P11_PARAM_PSS && em < 2 * h + 2) {
        fit_flags(in, 1, 0, fl, sizeof fl);
        bench_seterr(why, wl, "%s%s%s on RSA %u with %s cannot hold its %zu-byte salt: PSS needs emLen >= "
                    "hLen + sLen + 2 = %zu bytes, RSA %u gives %zu (at least %zu bits)",
                    fl, fl[0] ? ": " : "", def->name, p->key_bits, hn, h, 2 * h + 2, p->key_bits, em,
                    16 * h + 10);
        return -1;
    }
    if (def->param == P11_PARAM_OAEP) {
        const size_t most = k > 2 * h + 2 ? k - 2 * h - 2 : 0;
        const int wraps = def->op == P11_OP_UNWRAP;
        const size_t n = wraps ? 32 : (size_t)p->data_size;
        if (n <= most)
            return 0;
        fit_flags(in, 1, !wraps, fl, sizeof fl);
        bench_seterr(why, wl, "%s%s%s on RSA %u with %s takes at most %zu bytes (OAEP: k - 2*hLen - 2), %s %zu",
                    fl, fl[0] ? ": " : "", def->name, p->key_bits, hn, most,
                    wraps ? "the AES-256 key to wrap is" : "the data is", n);
        return -1;
    }
    if (def->param == P11_PARAM_NONE && def->hashes && h) {
        /* PKCS#1 v1.5 signatures, hashed in the token or a DigestInfo made here. */
        size_t plen;
        (void)p11_digestinfo_prefix(p->hash, &plen);
        const size_t t = plen + h;
        if (k >= 11 && t <= k - 11)
            return 0;
        fit_flags(in, 1, 0, fl, sizeof fl);
        bench_seterr(why, wl, "%s%s%s on RSA %u with %s signs a %zu-byte DigestInfo; PKCS#1 v1.5 takes at "
                    "most k - 11 = %zu", fl, fl[0] ? ": " : "", def->name, p->key_bits, hn, t,
                    k >= 11 ? k - 11 : 0);
        return -1;
    }
    return 0;
}

int p11_test_resolve(const p11_test_def *def, const p11_test_params *in, p11_test_params *out)
{
    char why[512];
    if (p11_test_resolve_why(def, in, out, why, sizeof why) == 0)
        return 0;
    bench_error("%s", why);
    return -1;
}

int p11_test_resolve_why(const p11_test_def *def, const p11_test_params *in, p11_test_params *out,
                         char *why, size_t wl)
{
    *out = *in;
    if (def->key == KEYS_EC) {
        if (resolve_curve(def, in, out, why, wl) != 0)
            return -1;
    } else if (resolve_size(def, in, out, why, wl) != 0) {
        return -1;
    }
    if (resolve_hash(def, in, out, why, wl) != 0)
        return -1;
    if (!takes_data(def)) {
        out->data_size = 0;
    } else {
        if (!in->data_size)
            out->data_size = def->data_default;
        if (out->data_size < def->data_min || out->data_size > def->data_max) {
            bench_seterr(why, wl, "--data-size %llu: %s takes %llu to %llu bytes",
                        (unsigned long long)out->data_size, def->name,
                        (unsigned long long)def->data_min, (unsigned long long)def->data_max);
            return -1;
        }
        if (def->data_multiple && out->data_size % def->data_multiple) {
            bench_seterr(why, wl, "--data-size %llu: %s needs a multiple of %u bytes (%s without padding "
                        "takes whole %u-byte blocks)", (unsigned long long)out->data_size,
                        def->name, def->data_multiple, def->key == KEYS_DES3 ? "3DES" : "AES",
                        def->data_multiple);
            return -1;
        }
    }
    if (check_fit(def, in, out, why, wl) != 0)
        return -1;
    if (in->aad_size && def->param != P11_PARAM_GCM) {
        out->aad_size = 0;
    }
    if ((def->key == KEYS_NONE || (def->op == P11_OP_KEYGEN && in->keys != P11_KEYS_TOKEN)) &&
        in->keys != P11_KEYS_GENERATE) {
        /* Tests that use no key of ours ignore the key source; key generation
         * honours --token-keys (its keys are token objects). */
        out->keys = P11_KEYS_GENERATE;
    }
    return 0;
}

/* ---- what the token offers ------------------------------------------- */

static CK_FLAGS op_flag(p11_op op)
{
    switch (op) {
    case P11_OP_SIGN:    return CKF_SIGN;
    case P11_OP_VERIFY:  return CKF_VERIFY;
    case P11_OP_ENCRYPT: return CKF_ENCRYPT;
    case P11_OP_DECRYPT: return CKF_DECRYPT;
    case P11_OP_DIGEST:  return CKF_DIGEST;
    case P11_OP_DERIVE:  return CKF_DERIVE;
    case P11_OP_WRAP:    return CKF_WRAP;
    case P11_OP_UNWRAP:  return CKF_UNWRAP;
    case P11_OP_KEYGEN:  return 0;      /* checked as a generation mechanism */
    case P11_OP_RANDOM:
    case P11_OP_FIND:    return 0;
    }
    return 0;
}

static const char *flag_word(CK_FLAGS f)
{
    switch (f) {
    case CKF_SIGN:              return "CKF_SIGN";
    case CKF_VERIFY:            return "CKF_VERIFY";
    case CKF_ENCRYPT:           return "CKF_ENCRYPT";
    case CKF_DECRYPT:           return "CKF_DECRYPT";
    case CKF_DIGEST:            return "CKF_DIGEST";
    case CKF_DERIVE:            return "CKF_DERIVE";
    case CKF_WRAP:              return "CKF_WRAP";
    case CKF_UNWRAP:            return "CKF_UNWRAP";
    case CKF_GENERATE:          return "CKF_GENERATE";
    case CKF_GENERATE_KEY_PAIR: return "CKF_GENERATE_KEY_PAIR";
    }
    return "a flag";
}

/* Check one mechanism: offered, with the flag, and the key size in range. */
static int mech_ok(const p11_module *m, CK_SLOT_ID slot, CK_MECHANISM_TYPE mech, CK_FLAGS need,
                   const p11_test_def *def, const p11_test_params *p, char *reason, size_t len)
{
    CK_MECHANISM_INFO info;
    char mb[48], rb[32];
    CK_RV rv = m->fn->C_GetMechanismInfo(slot, mech, &info);

    if (rv == CKR_MECHANISM_INVALID) {
        snprintf(reason, len, "%s not offered by this token", p11_mech_name(mech, mb, sizeof mb));
        return 0;
    }
    if (rv != CKR_OK) {
        snprintf(reason, len, "C_GetMechanismInfo(%s): %s", p11_mech_name(mech, mb, sizeof mb),
                 p11_rv_name(rv, rb, sizeof rb));
        return 0;
    }
    if (need && !(info.flags & need)) {
        snprintf(reason, len, "%s offered without %s", p11_mech_name(mech, mb, sizeof mb),
                 flag_word(need));
        return 0;
    }
    /* Key sizes: bits for RSA and EC; AES ranges are in bytes by the
     * standard, though some modules give bits, so read them as bits when
     * they could not be bytes.  Generic secrets and DES3 vary too much. */
    unsigned long have = p->key_bits, lo = info.ulMinKeySize, hi = info.ulMaxKeySize;
    if (def->key == KEYS_AES && hi && hi < 128) {
        lo *= 8;
        hi *= 8;
    }
    if ((def->key == KEYS_RSA || def->key == KEYS_EC || def->key == KEYS_AES) && hi && have) {
        const char *what = p11_test_key_type(def);
        if (have > hi) {
            snprintf(reason, len, "%s %lu above the token's %lu maximum", what, have, hi);
            return 0;
        }
        if (have < lo) {
            snprintf(reason, len, "%s %lu below the token's %lu minimum", what, have, lo);
            return 0;
        }
    }
    return 1;
}

/*
 * A keyless mechanism the token does not list (C_GetMechanismInfo:
 * CKR_MECHANISM_INVALID) may still work: NSS's key slot lists no digests,
 * yet C_Digest with SHA-1 to SHA-512 works there.  One real C_Digest on a
 * session of its own, before the clock: CKR_OK when it works.
 */
static CK_RV try_digest(const p11_module *m, CK_SLOT_ID slot, CK_MECHANISM_TYPE mech,
                        const char **call)
{
    CK_BYTE data[32] = { 0 }, out[128];
    CK_ULONG out_len = sizeof out;
    CK_MECHANISM mm = { mech, NULL, 0 };
    CK_SESSION_HANDLE s = CK_INVALID_HANDLE;
    *call = "C_OpenSession";
    CK_RV rv = m->fn->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &s);
    if (rv != CKR_OK)
        goto cleanup;
    *call = "C_DigestInit";
    if ((rv = m->fn->C_DigestInit(s, &mm)) != CKR_OK)
        goto cleanup;
    *call = "C_Digest";
    if ((rv = m->fn->C_Digest(s, data, sizeof data, out, &out_len)) == CKR_OK && out_len == 0)
        rv = CKR_FUNCTION_FAILED;       /* "worked" with nothing: not a digest */
cleanup:
    if (s != CK_INVALID_HANDLE && m->fn->C_CloseSession(s) != CKR_OK && rv == CKR_OK) {
        *call = "C_CloseSession";
        rv = CKR_FUNCTION_FAILED;
    }
    return rv;
}

/* The digest test's mechanism is not listed: 1 when a call tried works
 * (reason: the note), 0 when not (reason: not offered, and what the try
 * answered). */
static int unlisted_works(const p11_module *m, CK_SLOT_ID slot, CK_MECHANISM_TYPE mech,
                          char *reason, size_t len)
{
    CK_MECHANISM_INFO info;
    char mb[48], rb[32];
    const char *call = "";
    if (m->fn->C_GetMechanismInfo(slot, mech, &info) != CKR_MECHANISM_INVALID)
        return 0;       /* listed, and refused for another reason: that reason stands */
    const CK_RV rv = try_digest(m, slot, mech, &call);
    const char *name = p11_mech_name(mech, mb, sizeof mb);
    if (rv != CKR_OK) {
        snprintf(reason, len, "%s not offered by this token (not in its mechanism list; %s tried: %s)",
                 name, call, p11_rv_name(rv, rb, sizeof rb));
        return 0;
    }
    snprintf(reason, len, "%s is not in the token's mechanism list, but a C_Digest tried before the "
             "run worked: run all the same", name);
    return 1;
}

/* Whether the token offers the test with these resolved parameters. */
static int supported(const p11_module *m, CK_SLOT_ID slot, const p11_test_def *def,
                     const p11_test_params *p, char *reason, size_t len)
{
    CK_MECHANISM_TYPE mech = p11_test_mech(def, p);
    if (def->op == P11_OP_RANDOM) {
        CK_TOKEN_INFO ti;
        if (m->fn->C_GetTokenInfo(slot, &ti) == CKR_OK && !(ti.flags & CKF_RNG)) {
            snprintf(reason, len, "the token has no random number generator (no CKF_RNG)");
            return 0;
        }
        return 1;
    }
    if (def->op == P11_OP_DIGEST && !mech_ok(m, slot, mech, op_flag(def->op), def, p, reason, len))
        return unlisted_works(m, slot, mech, reason, len) ? P11_TEST_UNLISTED : 0;
    if (def->op != P11_OP_FIND && def->op != P11_OP_KEYGEN && def->op != P11_OP_DIGEST &&
        !mech_ok(m, slot, mech, op_flag(def->op), def, p, reason, len))
        return 0;
    /* Keys we make ourselves need the generation mechanism too. */
    CK_MECHANISM_TYPE gen = keys_gen_mechanism(def->key);
    if (def->key != KEYS_NONE &&
        ((p->keys == P11_KEYS_GENERATE || p->keys == P11_KEYS_TOKEN) && (!p->verify || def->op == P11_OP_KEYGEN))) {
        CK_FLAGS need = keys_is_pair(def->key) ? CKF_GENERATE_KEY_PAIR : CKF_GENERATE;
        if (!mech_ok(m, slot, gen, need, def, p, reason, len))
            return 0;
    }
    /* Wrap tests also make an AES target key; unwrap tests check by use. */
    if ((def->op == P11_OP_WRAP || def->op == P11_OP_UNWRAP) && def->key == KEYS_AES &&
        !mech_ok(m, slot, CKM_AES_KEY_GEN, CKF_GENERATE, def, p, reason, len))
        return 0;
    return 1;
}

int p11_test_offered(const p11_module *m, CK_SLOT_ID slot, const p11_test_def *def,
                     const p11_test_params *in, p11_test_params *out, char *reason, size_t len)
{
    /* The mechanism of a test that hashes in the token is chosen by the
     * hash, and the key size checked is the resolved one: unresolved, a
     * hashed test asks about mechanism 0 (CKM_RSA_PKCS_KEY_PAIR_GEN). */
    if (p11_test_resolve(def, in, out) != 0)
        return -1;
    return supported(m, slot, def, out, reason, len);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* keys/keys.c - generate, find and destroy benchmark keys in the token. */
#include "keys/keys.h"

#include <string.h>

#include "bench/util/signals.h"

static const unsigned char oid_p256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const unsigned char oid_p384[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
static const unsigned char oid_p521[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };
static const unsigned char oid_ed25519[] = { 0x06, 0x03, 0x2b, 0x65, 0x70 };
/* The other curves of the SDKMS test bench: NIST P-192 and P-224, and the
 * Koblitz curves secp192k1, secp224k1 and secp256k1. */
static const unsigned char oid_p192[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x01 };
static const unsigned char oid_p224[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x21 };
static const unsigned char oid_k192[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x1f };
static const unsigned char oid_k224[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x20 };
static const unsigned char oid_k256[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a };

static const struct {
    const char *name;
    const unsigned char *oid;
    size_t len;
    unsigned bits;
    const char *group;
} curves[] = {
    { "P-256", oid_p256, sizeof oid_p256, 256, "prime256v1" },
    { "P-384", oid_p384, sizeof oid_p384, 384, "secp384r1" },
    { "P-521", oid_p521, sizeof oid_p521, 521, "secp521r1" },
    { "Ed25519", oid_ed25519, sizeof oid_ed25519, 255, "ED25519" },
    { "P-192", oid_p192, sizeof oid_p192, 192, "prime192v1" },
    { "P-224", oid_p224, sizeof oid_p224, 224, "secp224r1" },
    { "secp192k1", oid_k192, sizeof oid_k192, 192, "secp192k1" },
    { "secp224k1", oid_k224, sizeof oid_k224, 224, "secp224k1" },
    { "secp256k1", oid_k256, sizeof oid_k256, 256, "secp256k1" },
};

#define NCURVES (sizeof curves / sizeof curves[0])

const unsigned char *keys_curve_oid(const char *curve, size_t *len)
{
    for (size_t i = 0; i < NCURVES; i++)
        if (curve && strcmp(curves[i].name, curve) == 0) {
            *len = curves[i].len;
            return curves[i].oid;
        }
    *len = 0;
    return NULL;
}

unsigned keys_curve_bits(const char *curve)
{
    for (size_t i = 0; i < NCURVES; i++)
        if (curve && strcmp(curves[i].name, curve) == 0)
            return curves[i].bits;
    return 0;
}

const char *keys_curve_group(const char *curve)
{
    for (size_t i = 0; i < NCURVES; i++)
        if (curve && strcmp(curves[i].name, curve) == 0)
            return curves[i].group;
    return NULL;
}

CK_MECHANISM_TYPE keys_gen_mechanism(keys_type type)
{
    switch (type) {
    case KEYS_RSA:     return CKM_RSA_PKCS_KEY_PAIR_GEN;
    case KEYS_EC:      return CKM_EC_KEY_PAIR_GEN;
    case KEYS_ED25519: return CKM_EC_EDWARDS_KEY_PAIR_GEN;
    case KEYS_AES:     return CKM_AES_KEY_GEN;
    case KEYS_DES3:    return CKM_DES3_KEY_GEN;
    case KEYS_GENERIC: return CKM_GENERIC_SECRET_KEY_GEN;
    case KEYS_NONE:    break;
    }
    return 0;
}

int keys_is_pair(keys_type type)
{
    return type == KEYS_RSA || type == KEYS_EC || type == KEYS_ED25519;
}

/* A template under construction: a fixed array is plenty for ours. */
typedef struct tmpl {
    CK_ATTRIBUTE a[24];
    CK_ULONG     n;
} tmpl;

static void add(tmpl *t, CK_ATTRIBUTE_TYPE type, const void *value, CK_ULONG len)
{
    if (t->n < sizeof t->a / sizeof t->a[0])
        t->a[t->n++] = (CK_ATTRIBUTE){ type, (void *)value, len };
}

static const CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

static void add_bool(tmpl *t, CK_ATTRIBUTE_TYPE type, int v)
{
    add(t, type, v ? &yes : &no, sizeof(CK_BBOOL));
}

/* The attributes every key of ours carries; `private_half` for the secret side. */
static void add_common(tmpl *t, const keys_spec *spec, int private_half)
{
    const char *label = spec->label ? spec->label : "hsmbench";
    add_bool(t, CKA_TOKEN, spec->token);
    add(t, CKA_LABEL, label, (CK_ULONG)strlen(label));
    if (private_half) {
        add_bool(t, CKA_PRIVATE, 1);
        add_bool(t, CKA_SENSITIVE, !spec->extractable);
        add_bool(t, CKA_EXTRACTABLE, spec->extractable);
    }
}

typedef enum { ROLE_PUBLIC, ROLE_PRIVATE, ROLE_SECRET } role;

/* Ask only for the uses the key has: strict HSMs refuse the others.
 * Each use maps to the attribute each half of a key needs for it. */
static void add_uses(tmpl *t, const keys_spec *spec, role r)
{
    static const struct {
        unsigned use;
        CK_ATTRIBUTE_TYPE pub, priv, secret1, secret2;
    } map[] = {
        { KEYS_USE_SIGN, CKA_VERIFY, CKA_SIGN, CKA_SIGN, CKA_VERIFY },
        { KEYS_USE_ENCRYPT, CKA_ENCRYPT, CKA_DECRYPT, CKA_ENCRYPT, CKA_DECRYPT },
        { KEYS_USE_WRAP, CKA_WRAP, CKA_UNWRAP, CKA_WRAP, CKA_UNWRAP },
        { KEYS_USE_DERIVE, 0, CKA_DERIVE, CKA_DERIVE, 0 },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (!(spec->uses & map[i].use))
            continue;
        if (r == ROLE_PUBLIC && map[i].pub)
            add_bool(t, map[i].pub, 1);
        else if (r == ROLE_PRIVATE)
            add_bool(t, map[i].priv, 1);
        else if (r == ROLE_SECRET) {
            add_bool(t, map[i].secret1, 1);
            if (map[i].secret2)
                add_bool(t, map[i].secret2, 1);
        }
    }
}

static CK_RV gen_pair(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                      keys_handle *out)
{
    CK_ULONG bits = spec->bits;
    static const CK_BYTE exponent[] = { 0x01, 0x00, 0x01 };
    CK_MECHANISM mech = { keys_gen_mechanism(spec->type), NULL, 0 };
    tmpl pub = { .n = 0 }, priv = { .n = 0 };

    add_common(&pub, spec, 0);
    add_uses(&pub, spec, ROLE_PUBLIC);
    add_common(&priv, spec, 1);
    add_uses(&priv, spec, ROLE_PRIVATE);
    if (spec->type == KEYS_RSA) {
        add(&pub, CKA_MODULUS_BITS, &bits, sizeof bits);
        add(&pub, CKA_PUBLIC_EXPONENT, exponent, sizeof exponent);
    } else {
        size_t oidlen;
        const unsigned char *oid = keys_curve_oid(spec->type == KEYS_ED25519 ? "Ed25519" : spec->curve,
                                                  &oidlen);
        if (!oid)
            return CKR_CURVE_NOT_SUPPORTED;
        add(&pub, CKA_EC_PARAMS, oid, (CK_ULONG)oidlen);
    }
    CK_RV rv = fn->C_GenerateKeyPair(s, &mech, pub.a, pub.n, priv.a, priv.n, &out->pub, &out->priv);
    if (rv == CKR_OK)
        out->created = 1;
    return rv;
}

static CK_RV gen_secret(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                        keys_handle *out)
{
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE kt = spec->type == KEYS_AES ? CKK_AES : spec->type == KEYS_DES3 ? CKK_DES3
                                                                                : CKK_GENERIC_SECRET;
    CK_ULONG bytes = (spec->bits + 7) / 8;
    CK_MECHANISM mech = { keys_gen_mechanism(spec->type), NULL, 0 };
    tmpl t = { .n = 0 };

    add(&t, CKA_CLASS, &cls, sizeof cls);
    add(&t, CKA_KEY_TYPE, &kt, sizeof kt);
    add_common(&t, spec, 1);
    add_uses(&t, spec, ROLE_SECRET);
    if (spec->type != KEYS_DES3)   /* DES3 keys have one length: the token knows it */
        add(&t, CKA_VALUE_LEN, &bytes, sizeof bytes);
    CK_RV rv = fn->C_GenerateKey(s, &mech, t.a, t.n, &out->priv);
    if (rv == CKR_OK)
        out->created = 1;
    return rv;
}

CK_RV keys_generate(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                    keys_handle *out)
{
    memset(out, 0, sizeof *out);
    if (spec->type == KEYS_NONE)
        return CKR_OK;
    return keys_is_pair(spec->type) ? gen_pair(fn, s, spec, out) : gen_secret(fn, s, spec, out);
}

CK_RV keys_make(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                const keys_material *mat, keys_handle *out)
{
    if (spec->token)
        bench_signals_note_key(spec->label);
    const char *call = mat ? "C_CreateObject" : keys_is_pair(spec->type) ? "C_GenerateKeyPair" : "C_GenerateKey";
    const char *was = bench_signals_waiting(call);
    CK_RV rv = mat ? keys_import(fn, s, spec, mat, out) : keys_generate(fn, s, spec, out);
    bench_signals_waiting(was);
    return rv;
}

CK_RV keys_find(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_CLASS cls, const char *label,
                const unsigned char *id, size_t idlen, CK_OBJECT_HANDLE *out, int *found)
{
    tmpl t = { .n = 0 };
    CK_OBJECT_HANDLE h[2];
    CK_ULONG n = 0;

    *found = 0;
    add(&t, CKA_CLASS, &cls, sizeof cls);
    if (label)
        add(&t, CKA_LABEL, label, (CK_ULONG)strlen(label));
    if (id && idlen)
        add(&t, CKA_ID, id, (CK_ULONG)idlen);
    CK_RV rv = fn->C_FindObjectsInit(s, t.a, t.n);
    if (rv != CKR_OK)
        return rv;
    rv = fn->C_FindObjects(s, h, 2, &n);
    CK_RV fin = fn->C_FindObjectsFinal(s);
    if (rv != CKR_OK)
        return rv;
    if (n) {
        *out = h[0];
        *found = (int)n;
    }
    return fin;
}

uint64_t keys_rsa_exponent(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_handle *k)
{
    const CK_OBJECT_HANDLE objs[2] = { k->pub, k->priv };
    for (size_t i = 0; i < 2; i++) {
        CK_BYTE e[8];
        CK_ATTRIBUTE a = { CKA_PUBLIC_EXPONENT, e, sizeof e };
        if (!objs[i] || fn->C_GetAttributeValue(s, objs[i], &a, 1) != CKR_OK ||
            a.ulValueLen == (CK_ULONG)-1 || a.ulValueLen == 0 || a.ulValueLen > sizeof e)
            continue;
        uint64_t v = 0;
        for (CK_ULONG j = 0; j < a.ulValueLen; j++)      /* big-endian */
            v = v << 8 | e[j];
        if (v)
            return v;
    }
    return 0;
}

CK_ULONG keys_rsa_modulus_len(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key)
{
    CK_ATTRIBUTE a = { CKA_MODULUS, NULL, 0 };
    if (fn->C_GetAttributeValue(s, key, &a, 1) != CKR_OK || a.ulValueLen == (CK_ULONG)-1)
        return 0;
    return a.ulValueLen;
}


/* An attribute of CK_ULONG size; 0 when unreadable. */
static CK_ULONG attr_ulong(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                           CK_ATTRIBUTE_TYPE type)
{
    CK_ULONG v = 0;
    CK_ATTRIBUTE a = { type, &v, sizeof v };
    if (fn->C_GetAttributeValue(s, key, &a, 1) != CKR_OK || a.ulValueLen != sizeof v)
        return 0;
    return v;
}

/* The bits of an RSA modulus: CKA_MODULUS_BITS (public keys), else the modulus's. */
static unsigned rsa_bits(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key)
{
    CK_ULONG bits = attr_ulong(fn, s, key, CKA_MODULUS_BITS);
    if (bits)
        return (unsigned)bits;
    unsigned char mod[2048];
    CK_ATTRIBUTE a = { CKA_MODULUS, mod, sizeof mod };
    if (fn->C_GetAttributeValue(s, key, &a, 1) != CKR_OK || a.ulValueLen == (CK_ULONG)-1 ||
        a.ulValueLen > sizeof mod)
        return 0;
    CK_ULONG i = 0;
    while (i < a.ulValueLen && mod[i] == 0)
        i++;
    if (i == a.ulValueLen)
        return 0;
    unsigned top = 0;
    for (unsigned char b = mod[i]; b; b >>= 1)
        top++;
    return (unsigned)((a.ulValueLen - i - 1) * 8 + top);
}

CK_RV keys_read_facts(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                      keys_facts *out)
{
    CK_KEY_TYPE kt = 0;
    CK_ATTRIBUTE a = { CKA_KEY_TYPE, &kt, sizeof kt };
    memset(out, 0, sizeof *out);
    CK_RV rv = fn->C_GetAttributeValue(s, key, &a, 1);
    if (rv != CKR_OK)
        return rv;
    out->ckk = kt;
    switch (kt) {
    case CKK_RSA:
        out->type = KEYS_RSA;
        out->bits = rsa_bits(fn, s, key);
        break;
    case CKK_EC: {
        unsigned char der[64];
        CK_ATTRIBUTE p = { CKA_EC_PARAMS, der, sizeof der };
        out->type = KEYS_EC;
        if (fn->C_GetAttributeValue(s, key, &p, 1) == CKR_OK && p.ulValueLen != (CK_ULONG)-1)
            for (size_t i = 0; i < NCURVES; i++)
                if (curves[i].len == p.ulValueLen && memcmp(curves[i].oid, der, curves[i].len) == 0 &&
                    strcmp(curves[i].name, "Ed25519") != 0)
                    out->curve = curves[i].name;
        out->bits = keys_curve_bits(out->curve);
        break;
    }
    case CKK_EC_EDWARDS:
        out->type = KEYS_ED25519;
        out->curve = "Ed25519";
        out->bits = 255;
        break;
    case CKK_AES:
    case CKK_GENERIC_SECRET:
    case CKK_SHA_1_HMAC:
    case CKK_SHA256_HMAC:
    case CKK_SHA384_HMAC:
    case CKK_SHA512_HMAC:
    case CKK_SHA224_HMAC:
        out->type = kt == CKK_AES ? KEYS_AES : KEYS_GENERIC;
        out->bits = (unsigned)attr_ulong(fn, s, key, CKA_VALUE_LEN) * 8;
        break;
    case CKK_DES3:
        out->type = KEYS_DES3;
        out->bits = 192;
        break;
    default:
        out->type = KEYS_NONE;
        break;
    }
    return CKR_OK;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys/material.c - keys we hold in software: made with OpenSSL (for
 * --verify), loaded from a file (--static-key), created in the token with
 * C_CreateObject, and public keys read back from the token into OpenSSL.
 */
#include "keys/keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

void keys_material_free(keys_material *m)
{
    if (!m)
        return;
    EVP_PKEY_free(m->pkey);
    OPENSSL_cleanse(m->secret, sizeof m->secret);
    free(m);
}

static size_t secret_bytes(const keys_spec *spec)
{
    return spec->type == KEYS_DES3 ? 24 : (spec->bits + 7) / 8;
}

keys_material *keys_material_new(const keys_spec *spec)
{
    keys_material *m = calloc(1, sizeof *m);
    EVP_PKEY_CTX *pc = NULL;

    if (!m)
        return NULL;
    if (!keys_is_pair(spec->type)) {
        m->secret_len = secret_bytes(spec);
        if (m->secret_len > sizeof m->secret || RAND_bytes(m->secret, (int)m->secret_len) != 1)
            goto fail;
        return m;
    }
    if (spec->type == KEYS_RSA) {
        pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
        if (!pc || EVP_PKEY_keygen_init(pc) <= 0 ||
            EVP_PKEY_CTX_set_rsa_keygen_bits(pc, (int)spec->bits) <= 0)
            goto fail;
    } else if (spec->type == KEYS_ED25519) {
        pc = EVP_PKEY_CTX_new_from_name(NULL, "ED25519", NULL);
        if (!pc || EVP_PKEY_keygen_init(pc) <= 0)
            goto fail;
    } else {
        const char *group = keys_curve_group(spec->curve);
        pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
        if (!group || !pc || EVP_PKEY_keygen_init(pc) <= 0 ||
            EVP_PKEY_CTX_set_group_name(pc, group) <= 0)
            goto fail;
    }
    if (EVP_PKEY_keygen(pc, &m->pkey) <= 0)
        goto fail;
    EVP_PKEY_CTX_free(pc);
    return m;
fail:
    EVP_PKEY_CTX_free(pc);
    keys_material_free(m);
    return NULL;
}

/* Does the loaded key fit the test's key type (and curve)? */
static int pkey_matches(EVP_PKEY *pk, const keys_spec *spec, char *err, size_t len)
{
    int id = EVP_PKEY_get_base_id(pk);
    if (spec->type == KEYS_RSA && id == EVP_PKEY_RSA) {
        int bits = EVP_PKEY_get_bits(pk);
        if (spec->bits && (unsigned)bits != spec->bits) {
            snprintf(err, len, "an RSA %d key, but the test is set for RSA %u (use --key-size %d)",
                     bits, spec->bits, bits);
            return 0;
        }
        return 1;
    }
    if (spec->type == KEYS_ED25519 && id == EVP_PKEY_ED25519)
        return 1;
    if (spec->type == KEYS_EC && id == EVP_PKEY_EC) {
        char group[64] = "";
        size_t glen = 0;
        if (EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &glen) != 1 ||
            (spec->curve && strcmp(group, keys_curve_group(spec->curve)) != 0)) {
            snprintf(err, len, "an EC key on %s, but the test is set for %s (use --curve)",
                     group[0] ? group : "an unknown curve", spec->curve);
            return 0;
        }
        return 1;
    }
    snprintf(err, len, "a %s key, which this test cannot use", EVP_PKEY_get0_type_name(pk));
    return 0;
}

keys_material *keys_material_load(const char *path, const keys_spec *spec, char *err, size_t len)
{
    keys_material *m = calloc(1, sizeof *m);
    FILE *f = fopen(path, "rb");
    unsigned char buf[16384];
    size_t n = 0;

    if (!f) {
        snprintf(err, len, "%s", strerror(errno));
        free(m);
        return NULL;
    }
    if (!m) {
        snprintf(err, len, "out of memory");
        fclose(f);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, len, "is a directory, not a key file");
        fclose(f);
        free(m);
        return NULL;
    }
    n = fread(buf, 1, sizeof buf, f);
    int too_big = !feof(f);
    fclose(f);
    if (too_big) {
        snprintf(err, len, "larger than %zu bytes: not a key", sizeof buf);
        goto fail;
    }
    if (!keys_is_pair(spec->type)) {
        /* Secret keys are the raw bytes of the file. */
        size_t want = secret_bytes(spec);
        if (!spec->bits && spec->type != KEYS_DES3) {
            /* No size asked for: any length the key type has. */
            int fits = spec->type == KEYS_AES ? n == 16 || n == 24 || n == 32
                                              : n >= 1 && n <= sizeof m->secret;
            if (!fits) {
                snprintf(err, len, "%zu bytes; %s", n, spec->type == KEYS_AES
                         ? "an AES key is 16, 24 or 32 raw bytes" : "a secret key is 1 to 64 raw bytes");
                goto fail;
            }
            want = n;
        }
        if (n != want) {
            snprintf(err, len, "%zu bytes; a %u-bit key is %zu raw bytes", n,
                     spec->type == KEYS_DES3 ? 192 : spec->bits, want);
            goto fail;
        }
        memcpy(m->secret, buf, n);
        m->secret_len = n;
        OPENSSL_cleanse(buf, sizeof buf);
        return m;
    }
    const unsigned char *p = buf;
    OSSL_DECODER_CTX *dc = OSSL_DECODER_CTX_new_for_pkey(&m->pkey, NULL, NULL, NULL,
                                                         EVP_PKEY_KEYPAIR, NULL, NULL);
    size_t left = n;
    int ok = dc && OSSL_DECODER_from_data(dc, &p, &left) == 1 && m->pkey;
    OSSL_DECODER_CTX_free(dc);
    OPENSSL_cleanse(buf, sizeof buf);
    if (!ok) {
        snprintf(err, len, "not a PEM or DER private key OpenSSL can read");
        goto fail;
    }
    if (!pkey_matches(m->pkey, spec, err, len))
        goto fail;
    return m;
fail:
    keys_material_free(m);
    return NULL;
}

/* ---- into the token -------------------------------------------------- */

typedef struct blobs {
    unsigned char *b[12];
    size_t         n;
} blobs;

static unsigned char *bn_bytes(blobs *bl, EVP_PKEY *pk, const char *name, CK_ULONG *len)
{
    BIGNUM *bn = NULL;
    if (bl->n >= sizeof bl->b / sizeof bl->b[0] || EVP_PKEY_get_bn_param(pk, name, &bn) != 1)
        return NULL;
    int n = BN_num_bytes(bn);
    unsigned char *out = OPENSSL_malloc(n ? (size_t)n : 1);
    if (out)
        BN_bn2bin(bn, out);
    BN_clear_free(bn);
    if (!out)
        return NULL;
    bl->b[bl->n++] = out;
    *len = (CK_ULONG)n;
    return out;
}

static void blobs_free(blobs *bl)
{
    for (size_t i = 0; i < bl->n; i++)
        OPENSSL_clear_free(bl->b[i], 0);
}

/* DER OCTET STRING around a point, as CKA_EC_POINT wants it. */
static unsigned char *octet_string(blobs *bl, const unsigned char *v, size_t vlen, CK_ULONG *len)
{
    if (bl->n >= sizeof bl->b / sizeof bl->b[0] || vlen > 255)
        return NULL;
    unsigned char *out = OPENSSL_malloc(vlen + 3);
    if (!out)
        return NULL;
    size_t h = 0;
    out[h++] = 0x04;
    if (vlen >= 128)
        out[h++] = 0x81;
    out[h++] = (unsigned char)vlen;
    memcpy(out + h, v, vlen);
    bl->b[bl->n++] = out;
    *len = (CK_ULONG)(h + vlen);
    return out;
}

static CK_RV import_pair(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                         EVP_PKEY *pk, keys_handle *out)
{
    CK_OBJECT_CLASS pubc = CKO_PUBLIC_KEY, privc = CKO_PRIVATE_KEY;
    CK_KEY_TYPE kt = spec->type == KEYS_RSA ? CKK_RSA : spec->type == KEYS_EC ? CKK_EC : CKK_EC_EDWARDS;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE, tok = spec->token ? CK_TRUE : CK_FALSE;
    const char *label = spec->label ? spec->label : "hsmbench";
    CK_ATTRIBUTE pub[16], priv[24];
    CK_ULONG np = 0, nv = 0;
    blobs bl = { .n = 0 };
    CK_RV rv = CKR_GENERAL_ERROR;
    unsigned u = spec->uses;

#define PUB(t, v, l) pub[np++] = (CK_ATTRIBUTE){ (t), (void *)(v), (l) }
#define PRIV(t, v, l) priv[nv++] = (CK_ATTRIBUTE){ (t), (void *)(v), (l) }
    PUB(CKA_CLASS, &pubc, sizeof pubc);
    PUB(CKA_KEY_TYPE, &kt, sizeof kt);
    PUB(CKA_TOKEN, &tok, sizeof tok);
    PUB(CKA_LABEL, label, strlen(label));
    PRIV(CKA_CLASS, &privc, sizeof privc);
    PRIV(CKA_KEY_TYPE, &kt, sizeof kt);
    PRIV(CKA_TOKEN, &tok, sizeof tok);
    PRIV(CKA_LABEL, label, strlen(label));
    PRIV(CKA_PRIVATE, &yes, sizeof yes);
    PRIV(CKA_SENSITIVE, &yes, sizeof yes);
    PRIV(CKA_EXTRACTABLE, &no, sizeof no);
    if (u & KEYS_USE_SIGN) {
        PUB(CKA_VERIFY, &yes, sizeof yes);
        PRIV(CKA_SIGN, &yes, sizeof yes);
    }
    if (u & KEYS_USE_ENCRYPT) {
        PUB(CKA_ENCRYPT, &yes, sizeof yes);
        PRIV(CKA_DECRYPT, &yes, sizeof yes);
    }
    if (u & KEYS_USE_WRAP) {
        PUB(CKA_WRAP, &yes, sizeof yes);
        PRIV(CKA_UNWRAP, &yes, sizeof yes);
    }
    if (u & KEYS_USE_DERIVE)
        PRIV(CKA_DERIVE, &yes, sizeof yes);

    if (spec->type == KEYS_RSA) {
        static const char *const names[] = {
            OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
            OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2, OSSL_PKEY_PARAM_RSA_EXPONENT1,
            OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
        };
        static const CK_ATTRIBUTE_TYPE attrs[] = {
            CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_PRIME_2,
            CKA_EXPONENT_1, CKA_EXPONENT_2, CKA_COEFFICIENT,
        };
        for (size_t i = 0; i < 8; i++) {
            CK_ULONG l;
            unsigned char *v = bn_bytes(&bl, pk, names[i], &l);
            if (!v)
                goto out;
            PRIV(attrs[i], v, l);
            if (i < 2)
                PUB(attrs[i], v, l);
        }
    } else if (spec->type == KEYS_EC) {
        size_t oidlen, ptlen = 0;
        const unsigned char *oid = keys_curve_oid(spec->curve, &oidlen);
        unsigned char point[200];
        CK_ULONG l, dl;
        unsigned char *d = bn_bytes(&bl, pk, OSSL_PKEY_PARAM_PRIV_KEY, &dl);
        if (!oid || !d ||
            EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &ptlen) != 1)
            goto out;
        unsigned char *os = octet_string(&bl, point, ptlen, &l);
        if (!os)
            goto out;
        PUB(CKA_EC_PARAMS, oid, oidlen);
        PUB(CKA_EC_POINT, os, l);
        PRIV(CKA_EC_PARAMS, oid, oidlen);
        PRIV(CKA_VALUE, d, dl);
    } else {
        size_t oidlen, rl = 32, ul = 32;
        const unsigned char *oid = keys_curve_oid("Ed25519", &oidlen);
        unsigned char raw[32], rawpub[32];
        CK_ULONG l;
        if (EVP_PKEY_get_raw_private_key(pk, raw, &rl) != 1 ||
            EVP_PKEY_get_raw_public_key(pk, rawpub, &ul) != 1)
            goto out;
        unsigned char *os = octet_string(&bl, rawpub, ul, &l);
        unsigned char *pv = bl.n < 12 ? OPENSSL_malloc(rl) : NULL;
        if (!os || !pv)
            goto out;
        memcpy(pv, raw, rl);
        OPENSSL_cleanse(raw, sizeof raw);
        bl.b[bl.n++] = pv;
        PUB(CKA_EC_PARAMS, oid, oidlen);
        PUB(CKA_EC_POINT, os, l);
        PRIV(CKA_EC_PARAMS, oid, oidlen);
        PRIV(CKA_VALUE, pv, rl);
    }
#undef PUB
#undef PRIV
    rv = fn->C_CreateObject(s, priv, nv, &out->priv);
    if (rv != CKR_OK)
        goto out;
    out->created = 1;
    rv = fn->C_CreateObject(s, pub, np, &out->pub);
out:
    blobs_free(&bl);
    return rv;
}

CK_RV keys_import(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                  const keys_material *mat, keys_handle *out)
{
    memset(out, 0, sizeof *out);
    if (keys_is_pair(spec->type))
        return mat->pkey ? import_pair(fn, s, spec, mat->pkey, out) : CKR_ARGUMENTS_BAD;

    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE kt = spec->type == KEYS_AES ? CKK_AES : spec->type == KEYS_DES3 ? CKK_DES3
                                                                                : CKK_GENERIC_SECRET;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE, tok = spec->token ? CK_TRUE : CK_FALSE;
    CK_BBOOL sens = spec->extractable ? CK_FALSE : CK_TRUE, ext = spec->extractable ? CK_TRUE : CK_FALSE;
    const char *label = spec->label ? spec->label : "hsmbench";
    CK_ATTRIBUTE t[20];
    CK_ULONG n = 0;
#define A(ty, v, l) t[n++] = (CK_ATTRIBUTE){ (ty), (void *)(v), (l) }
    A(CKA_CLASS, &cls, sizeof cls);
    A(CKA_KEY_TYPE, &kt, sizeof kt);
    A(CKA_TOKEN, &tok, sizeof tok);
    A(CKA_LABEL, label, strlen(label));
    A(CKA_PRIVATE, &yes, sizeof yes);
    A(CKA_SENSITIVE, &sens, sizeof sens);
    A(CKA_EXTRACTABLE, &ext, sizeof ext);
    A(CKA_VALUE, mat->secret, mat->secret_len);
    if (spec->uses & KEYS_USE_SIGN) {
        A(CKA_SIGN, &yes, sizeof yes);
        A(CKA_VERIFY, &yes, sizeof yes);
    }
    if (spec->uses & KEYS_USE_ENCRYPT) {
        A(CKA_ENCRYPT, &yes, sizeof yes);
        A(CKA_DECRYPT, &yes, sizeof yes);
    }
    if (spec->uses & KEYS_USE_WRAP) {
        A(CKA_WRAP, &yes, sizeof yes);
        A(CKA_UNWRAP, &yes, sizeof yes);
    }
    if (spec->uses & KEYS_USE_DERIVE)
        A(CKA_DERIVE, &yes, sizeof yes);
#undef A
    (void)no;
    CK_RV rv = fn->C_CreateObject(s, t, n, &out->priv);
    if (rv == CKR_OK)
        out->created = 1;
    return rv;
}

/* ---- out of the token ------------------------------------------------ */

static unsigned char *get_attr(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h,
                               CK_ATTRIBUTE_TYPE type, CK_ULONG *len)
{
    CK_ATTRIBUTE a = { type, NULL, 0 };
    if (fn->C_GetAttributeValue(s, h, &a, 1) != CKR_OK || a.ulValueLen == (CK_ULONG)-1 ||
        a.ulValueLen == 0 || a.ulValueLen > 8192)
        return NULL;
    a.pValue = malloc(a.ulValueLen);
    if (!a.pValue)
        return NULL;
    if (fn->C_GetAttributeValue(s, h, &a, 1) != CKR_OK) {
        free(a.pValue);
        return NULL;
    }
    *len = a.ulValueLen;
    return a.pValue;
}

/* CKA_EC_POINT is a DER OCTET STRING by the standard; some modules give the
 * bare point.  Return the point either way. */
static const unsigned char *unwrap_point(const unsigned char *v, CK_ULONG len, size_t *plen)
{
    if (len >= 2 && v[0] == 0x04) {
        size_t l = v[1], h = 2;
        if (v[1] == 0x81 && len >= 3) {
            l = v[2];
            h = 3;
        }
        if (h + l == len) {
            *plen = l;
            return v + h;
        }
    }
    *plen = len;
    return v;
}

EVP_PKEY *keys_export_public(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, keys_type type,
                             const char *curve, CK_OBJECT_HANDLE pub)
{
    EVP_PKEY *pk = NULL;
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *pc = NULL;
    CK_ULONG l1 = 0, l2 = 0;
    unsigned char *a1 = NULL, *a2 = NULL;
    BIGNUM *n = NULL, *e = NULL;

    if (!b)
        return NULL;
    if (type == KEYS_RSA) {
        a1 = get_attr(fn, s, pub, CKA_MODULUS, &l1);
        a2 = get_attr(fn, s, pub, CKA_PUBLIC_EXPONENT, &l2);
        if (!a1 || !a2 || !(n = BN_bin2bn(a1, (int)l1, NULL)) || !(e = BN_bin2bn(a2, (int)l2, NULL)) ||
            !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_N, n) ||
            !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_E, e))
            goto out;
        pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    } else if (type == KEYS_EC || type == KEYS_ED25519) {
        size_t plen;
        a1 = get_attr(fn, s, pub, CKA_EC_POINT, &l1);
        if (!a1)
            goto out;
        const unsigned char *pt = unwrap_point(a1, l1, &plen);
        if (type == KEYS_ED25519) {
            pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pt, plen);
            goto out;
        }
        const char *group = keys_curve_group(curve);
        if (!group || !OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
            !OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pt, plen))
            goto out;
        pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    } else {
        goto out;
    }
    params = OSSL_PARAM_BLD_to_param(b);
    if (!pc || !params || EVP_PKEY_fromdata_init(pc) <= 0 ||
        EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pk = NULL;
out:
    EVP_PKEY_CTX_free(pc);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(b);
    BN_free(n);
    BN_free(e);
    free(a1);
    free(a2);
    return pk;
}

int keys_material_facts(const keys_material *m, keys_type type, keys_facts *out)
{
    static const char *const names[] = { "P-256", "P-384", "P-521", "P-192", "P-224",
                                         "secp192k1", "secp224k1", "secp256k1" };
    memset(out, 0, sizeof *out);
    out->type = type;
    if (!keys_is_pair(type)) {
        out->bits = type == KEYS_DES3 ? 192 : (unsigned)(m->secret_len * 8);
        return out->bits ? 0 : -1;
    }
    if (!m->pkey)
        return -1;
    if (type == KEYS_RSA) {
        out->bits = (unsigned)EVP_PKEY_get_bits(m->pkey);
        return 0;
    }
    if (type == KEYS_ED25519) {
        out->curve = "Ed25519";
        out->bits = 255;
        return 0;
    }
    char group[64] = "";
    size_t glen = 0;
    if (EVP_PKEY_get_utf8_string_param(m->pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &glen) != 1)
        return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(group, keys_curve_group(names[i])) == 0)
            out->curve = names[i];
    out->bits = keys_curve_bits(out->curve);
    return out->curve ? 0 : -1;
}

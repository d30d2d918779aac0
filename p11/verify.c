/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/verify.c - results checked outside the token, with OpenSSL.
 *
 * Signatures are verified against the public key; ciphertexts are compared
 * with OpenSSL's own encryption under the same key and IV; decryptions must
 * give back the plaintext; MACs and digests must equal OpenSSL's; derived
 * and unwrapped keys are checked by use or value.  Runs outside the timed
 * path, from the worker's after() hook.
 */
#include "p11/verify.h"
#include "p11/pkcs11_3x.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>

const EVP_MD *p11_hash_md(p11_hash h)
{
    switch (h) {
    case P11_HASH_SHA1:     return EVP_sha1();
    case P11_HASH_SHA224:   return EVP_sha224();
    case P11_HASH_SHA256:   return EVP_sha256();
    case P11_HASH_SHA384:   return EVP_sha384();
    case P11_HASH_SHA512:   return EVP_sha512();
    case P11_HASH_SHA3_256: return EVP_sha3_256();
    case P11_HASH_SHA3_384: return EVP_sha3_384();
    case P11_HASH_SHA3_512: return EVP_sha3_512();
    case P11_HASH_NONE:
    case P11_HASH_COUNT:    break;
    }
    return NULL;
}

static const EVP_MD *mech_md(CK_MECHANISM_TYPE m)
{
    switch (m) {
    case CKM_SHA_1: case CKM_SHA_1_HMAC: return EVP_sha1();
    case CKM_SHA224:                     return EVP_sha224();
    case CKM_SHA256: case CKM_SHA256_HMAC: return EVP_sha256();
    case CKM_SHA384: case CKM_SHA384_HMAC: return EVP_sha384();
    case CKM_SHA512: case CKM_SHA512_HMAC: return EVP_sha512();
    case 0x2b0: return EVP_sha3_256();
    case 0x2c0: return EVP_sha3_384();
    case 0x2d0: return EVP_sha3_512();
    default:    return NULL;
    }
}

/* The hash a mechanism applies in the token (RSA and ECDSA with SHA-x). */
static int hashes_in_token(const p11_test_ctx *ctx)
{
    return ctx->def->input == P11_IN_DATA &&
           (ctx->def->key == KEYS_RSA || ctx->def->key == KEYS_EC) && ctx->params.hash != P11_HASH_NONE;
}

static int fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return 0;
}

/* ---- symmetric ----------------------------------------------------------- */

static const EVP_CIPHER *sym_cipher(const p11_test_ctx *ctx, size_t keylen)
{
    CK_MECHANISM_TYPE m = ctx->mech;
    int k = (int)keylen * 8;
    switch (m) {
    case CKM_AES_ECB:     return k == 128 ? EVP_aes_128_ecb() : k == 192 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    case CKM_AES_CBC:
    case CKM_AES_CBC_PAD: return k == 128 ? EVP_aes_128_cbc() : k == 192 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
    case CKM_AES_CTR:     return k == 128 ? EVP_aes_128_ctr() : k == 192 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
    case CKM_AES_GCM:     return k == 128 ? EVP_aes_128_gcm() : k == 192 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
    case CKM_DES3_ECB:    return EVP_des_ede3_ecb();
    case CKM_DES3_CBC:    return EVP_des_ede3_cbc();
    default:              return NULL;
    }
}

static int sym_encrypt(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *key,
                       size_t keylen, const unsigned char *in, size_t n, unsigned char *out,
                       size_t *outn)
{
    const EVP_CIPHER *c = sym_cipher(ctx, keylen);
    EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0, ok = 0;
    const unsigned char *iv = ctx->mech == CKM_AES_CTR ? ms->ctr.cb : ms->iv;

    if (!c || !cc)
        goto out;
    if (ctx->mech == CKM_AES_GCM) {
        if (EVP_EncryptInit_ex(cc, c, NULL, NULL, NULL) != 1 ||
            EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1 ||
            EVP_EncryptInit_ex(cc, NULL, NULL, key, ms->iv) != 1)
            goto out;
        if (ms->gcm.ulAADLen &&
            EVP_EncryptUpdate(cc, NULL, &l1, ms->gcm.pAAD, (int)ms->gcm.ulAADLen) != 1)
            goto out;
    } else if (EVP_EncryptInit_ex(cc, c, NULL, key, iv) != 1) {
        goto out;
    }
    EVP_CIPHER_CTX_set_padding(cc, ctx->mech == CKM_AES_CBC_PAD);
    if (EVP_EncryptUpdate(cc, out, &l1, in, (int)n) != 1 || EVP_EncryptFinal_ex(cc, out + l1, &l2) != 1)
        goto out;
    *outn = (size_t)(l1 + l2);
    if (ctx->mech == CKM_AES_GCM) {
        if (EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_GCM_GET_TAG, 16, out + *outn) != 1)
            goto out;
        *outn += 16;
    }
    ok = 1;
out:
    EVP_CIPHER_CTX_free(cc);
    return ok;
}

/* ---- round trips in the token (--verify on a token that refuses imports) -- */

/*
 * Without the key's value, a secret-key result is checked by undoing it in
 * the token: decrypting a ciphertext with the same mechanism and IV must
 * give back the input, a MAC must verify.  Weaker than OpenSSL's check
 * (the token is checked against itself), so the results file says which
 * was done ("method").
 */
static int round_trip_decrypt(const p11_test_ctx *ctx, const p11_mech_state *ms, CK_OBJECT_HANDLE key,
                              const unsigned char *out, CK_ULONG n, CK_SESSION_HANDLE s, char *why,
                              size_t len)
{
    p11_mech_state m = *ms;
    CK_ULONG bn = n + 64;
    unsigned char *buf = malloc(bn);
    if (!buf)
        return -1;
    /* The copy's parameters must point into the copy. */
    if (m.mech.pParameter == &ms->pss) m.mech.pParameter = &m.pss;
    else if (m.mech.pParameter == &ms->oaep) m.mech.pParameter = &m.oaep;
    else if (m.mech.pParameter == &ms->gcm) { m.mech.pParameter = &m.gcm; m.gcm.pIv = m.iv; }
    else if (m.mech.pParameter == &ms->ctr) m.mech.pParameter = &m.ctr;
    else if (m.mech.pParameter == ms->iv) m.mech.pParameter = m.iv;
    CK_RV rv = ctx->fn->C_DecryptInit(s, &m.mech, key);
    if (rv == CKR_OK)
        rv = ctx->fn->C_Decrypt(s, (CK_BYTE_PTR)out, n, buf, &bn);
    int same = rv == CKR_OK && bn == ctx->input_len && memcmp(buf, ctx->input, bn) == 0;
    free(buf);
    if (rv != CKR_OK)
        return fail(why, len, "the token cannot decrypt its own ciphertext (round trip)");
    return same ? 1 : fail(why, len, "the token's ciphertext does not decrypt to the input (round trip)");
}

static int round_trip_mac(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *out,
                          CK_ULONG n, CK_SESSION_HANDLE s, char *why, size_t len)
{
    CK_MECHANISM m = ms->mech;
    CK_RV rv = ctx->fn->C_VerifyInit(s, &m, ctx->keys.priv);
    if (rv == CKR_OK)
        rv = ctx->fn->C_Verify(s, ctx->input, ctx->input_len, (CK_BYTE_PTR)out, n);
    return rv == CKR_OK ? 1 : fail(why, len, "the token does not verify its own MAC (round trip)");
}

/* Two AES keys in the token are the same when they encrypt a block alike. */
static int same_aes_key(const p11_test_ctx *ctx, CK_OBJECT_HANDLE a, CK_OBJECT_HANDLE b,
                        CK_SESSION_HANDLE s)
{
    unsigned char zero[16] = { 0 }, ea[16], eb[16];
    CK_ULONG na = sizeof ea, nb = sizeof eb;
    CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
    CK_RV rv = ctx->fn->C_EncryptInit(s, &ecb, a);
    if (rv == CKR_OK)
        rv = ctx->fn->C_Encrypt(s, zero, sizeof zero, ea, &na);
    if (rv == CKR_OK)
        rv = ctx->fn->C_EncryptInit(s, &ecb, b);
    if (rv == CKR_OK)
        rv = ctx->fn->C_Encrypt(s, zero, sizeof zero, eb, &nb);
    if (rv != CKR_OK)
        return -1;
    return na == 16 && nb == 16 && memcmp(ea, eb, 16) == 0;
}

/* A wrapped key, unwrapped again in the token, must be the key wrapped. */
static int round_trip_wrap(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *out,
                           CK_ULONG n, CK_SESSION_HANDLE s, char *why, size_t len)
{
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE kt = CKK_AES;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ATTRIBUTE t[] = { { CKA_CLASS, &cls, sizeof cls }, { CKA_KEY_TYPE, &kt, sizeof kt },
                         { CKA_TOKEN, &no, sizeof no }, { CKA_ENCRYPT, &yes, sizeof yes } };
    CK_MECHANISM m = ms->mech;
    CK_OBJECT_HANDLE back = 0;
    CK_RV rv = ctx->fn->C_UnwrapKey(s, &m, ctx->keys.priv, (CK_BYTE_PTR)out, n, t, 4, &back);
    if (rv == CKR_ATTRIBUTE_VALUE_INVALID || rv == CKR_TEMPLATE_INCONSISTENT) {
        t[2].pValue = &yes;            /* a token that makes token objects only */
        rv = ctx->fn->C_UnwrapKey(s, &m, ctx->keys.priv, (CK_BYTE_PTR)out, n, t, 4, &back);
    }
    if (rv != CKR_OK)
        return fail(why, len, "the token cannot unwrap its own wrapped key (round trip)");
    int same = same_aes_key(ctx, back, ctx->aux.priv, s);
    ctx->fn->C_DestroyObject(s, back);
    if (same < 0)
        return -1;
    return same ? 1 : fail(why, len, "the key unwrapped again differs from the key wrapped (round trip)");
}

/* ---- asymmetric ------------------------------------------------------- */

/* PKCS#11 ECDSA signatures are r||s; OpenSSL wants DER.  And back. */
static unsigned char *raw_to_der(const unsigned char *raw, size_t n, size_t *derlen)
{
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, (int)(n / 2), NULL), *s = BN_bin2bn(raw + n / 2, (int)(n / 2), NULL);
    unsigned char *der = NULL;
    if (!sig || !r || !s || ECDSA_SIG_set0(sig, r, s) != 1) {
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(sig);
        return NULL;
    }
    int l = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (l <= 0)
        return NULL;
    *derlen = (size_t)l;
    return der;
}

static int der_to_raw(const unsigned char *der, size_t n, unsigned char *raw, size_t half)
{
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)n);
    if (!sig)
        return 0;
    const BIGNUM *r, *s;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, raw, (int)half) == (int)half && BN_bn2binpad(s, raw + half, (int)half) == (int)half;
    ECDSA_SIG_free(sig);
    return ok;
}

/* Set RSA padding (and PSS/OAEP details) on a key context. */
static int rsa_pad(const p11_test_ctx *ctx, EVP_PKEY_CTX *pc, int for_signing)
{
    const EVP_MD *md = p11_hash_md(ctx->params.hash);
    switch (ctx->def->param) {
    case P11_PARAM_PSS:
        return EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) > 0 &&
               EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, (int)p11_hash_len(ctx->params.hash)) > 0 &&
               EVP_PKEY_CTX_set_rsa_mgf1_md(pc, md) > 0 &&
               (!for_signing || ctx->def->input != P11_IN_HASH || EVP_PKEY_CTX_set_signature_md(pc, md) > 0);
    case P11_PARAM_OAEP:
        return EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_OAEP_PADDING) > 0 &&
               EVP_PKEY_CTX_set_rsa_oaep_md(pc, md) > 0 && EVP_PKEY_CTX_set_rsa_mgf1_md(pc, md) > 0;
    default:
        return EVP_PKEY_CTX_set_rsa_padding(pc, ctx->mech == CKM_RSA_X_509 ? RSA_NO_PADDING
                                                                          : RSA_PKCS1_PADDING) > 0;
    }
}

int p11_sign_software(const p11_test_ctx *ctx, const unsigned char *in, size_t in_len,
                      unsigned char **out, CK_ULONG *out_len)
{
    const p11_test_def *def = ctx->def;
    const keys_material *mat = ctx->material;
    unsigned char *buf = NULL;
    size_t n = 0;
    int ok = 0;

    if (!mat)
        return -1;
    if (def->key == KEYS_GENERIC) {
        unsigned int l = 0;
        buf = malloc(EVP_MAX_MD_SIZE);
        if (buf && HMAC(mech_md(ctx->mech), mat->secret, (int)mat->secret_len, in, in_len, buf, &l)) {
            *out = buf;
            *out_len = l;
            return 0;
        }
        free(buf);
        return -1;
    }
    if (!mat->pkey)
        return -1;
    if (hashes_in_token(ctx) || def->key == KEYS_ED25519) {
        /* The token hashes: sign the data with a digest-sign. */
        EVP_MD_CTX *mc = EVP_MD_CTX_new();
        EVP_PKEY_CTX *pc = NULL;
        const EVP_MD *md = def->key == KEYS_ED25519 ? NULL : p11_hash_md(ctx->params.hash);
        if (mc && EVP_DigestSignInit(mc, &pc, md, NULL, mat->pkey) == 1 &&
            (def->key != KEYS_RSA || rsa_pad(ctx, pc, 0)) &&
            EVP_DigestSign(mc, NULL, &n, in, in_len) == 1 && (buf = malloc(n)) &&
            EVP_DigestSign(mc, buf, &n, in, in_len) == 1)
            ok = 1;
        EVP_MD_CTX_free(mc);
    } else {
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(mat->pkey, NULL);
        if (pc && EVP_PKEY_sign_init(pc) == 1 && (def->key != KEYS_RSA || rsa_pad(ctx, pc, 1)) &&
            EVP_PKEY_sign(pc, NULL, &n, in, in_len) == 1 && (buf = malloc(n)) &&
            EVP_PKEY_sign(pc, buf, &n, in, in_len) == 1)
            ok = 1;
        EVP_PKEY_CTX_free(pc);
    }
    if (ok && def->key == KEYS_EC) {
        size_t half = (ctx->params.key_bits + 7) / 8;
        unsigned char *raw = malloc(2 * half);
        ok = raw && der_to_raw(buf, n, raw, half);
        free(buf);
        buf = raw;
        n = 2 * half;
    }
    if (!ok) {
        free(buf);
        return -1;
    }
    *out = buf;
    *out_len = (CK_ULONG)n;
    return 0;
}

int p11_encrypt_software(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *in,
                         size_t in_len, unsigned char **out, CK_ULONG *out_len)
{
    const keys_material *mat = ctx->material;
    if (!mat)
        return -1;
    if (ctx->def->key == KEYS_RSA) {
        EVP_PKEY_CTX *pc = mat->pkey ? EVP_PKEY_CTX_new(mat->pkey, NULL) : NULL;
        size_t n = 0;
        unsigned char *buf = NULL;
        int ok = pc && EVP_PKEY_encrypt_init(pc) == 1 && rsa_pad(ctx, pc, 0) &&
                 EVP_PKEY_encrypt(pc, NULL, &n, in, in_len) == 1 && (buf = malloc(n)) &&
                 EVP_PKEY_encrypt(pc, buf, &n, in, in_len) == 1;
        EVP_PKEY_CTX_free(pc);
        if (!ok) {
            free(buf);
            return -1;
        }
        *out = buf;
        *out_len = (CK_ULONG)n;
        return 0;
    }
    size_t n = 0;
    unsigned char *buf = malloc(in_len + 64);
    if (!buf || !sym_encrypt(ctx, ms, mat->secret, mat->secret_len, in, in_len, buf, &n)) {
        free(buf);
        return -1;
    }
    *out = buf;
    *out_len = (CK_ULONG)n;
    return 0;
}

/* Verify a token-made signature with the public key. */
static int check_signature(const p11_test_ctx *ctx, const unsigned char *sig, size_t n, char *why,
                           size_t len)
{
    const p11_test_def *def = ctx->def;
    EVP_PKEY *pk = ctx->public_key;
    unsigned char *der = NULL;
    int ok = 0;

    if (!pk)
        return -1;
    if (def->key == KEYS_EC) {
        der = raw_to_der(sig, n, &n);
        if (!der)
            return fail(why, len, "the signature is not a valid r||s pair");
        sig = der;
    }
    if (hashes_in_token(ctx) || def->key == KEYS_ED25519) {
        EVP_MD_CTX *mc = EVP_MD_CTX_new();
        EVP_PKEY_CTX *pc = NULL;
        const EVP_MD *md = def->key == KEYS_ED25519 ? NULL : p11_hash_md(ctx->params.hash);
        ok = mc && EVP_DigestVerifyInit(mc, &pc, md, NULL, pk) == 1 &&
             (def->key != KEYS_RSA || rsa_pad(ctx, pc, 0)) &&
             EVP_DigestVerify(mc, sig, n, ctx->data, ctx->data_len) == 1;
        EVP_MD_CTX_free(mc);
    } else {
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(pk, NULL);
        ok = pc && EVP_PKEY_verify_init(pc) == 1 && (def->key != KEYS_RSA || rsa_pad(ctx, pc, 1)) &&
             EVP_PKEY_verify(pc, sig, n, ctx->input, ctx->input_len) == 1;
        EVP_PKEY_CTX_free(pc);
    }
    OPENSSL_free(der);
    return ok ? 1 : fail(why, len, "OpenSSL rejects the signature");
}

/* Raw RSA results: applying the public exponent must give back the block. */
static int check_raw_rsa(const p11_test_ctx *ctx, const unsigned char *out, size_t n, int was_encrypt,
                         char *why, size_t len)
{
    EVP_PKEY_CTX *pc = ctx->public_key ? EVP_PKEY_CTX_new(ctx->public_key, NULL) : NULL;
    unsigned char *buf = NULL;
    size_t bn = 0;
    int ok = pc && EVP_PKEY_encrypt_init(pc) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(pc, RSA_NO_PADDING) > 0;
    const unsigned char *in = was_encrypt ? ctx->input : out;
    size_t in_n = was_encrypt ? ctx->input_len : n;
    ok = ok && EVP_PKEY_encrypt(pc, NULL, &bn, in, in_n) == 1 && (buf = malloc(bn)) &&
         EVP_PKEY_encrypt(pc, buf, &bn, in, in_n) == 1;
    EVP_PKEY_CTX_free(pc);
    if (!ok) {
        free(buf);
        return pc ? fail(why, len, "OpenSSL cannot apply the public key") : -1;
    }
    /* encrypt: ours == the token's; decrypt: public(token's) == the input */
    const unsigned char *want = was_encrypt ? out : ctx->input;
    int same = bn == (was_encrypt ? n : ctx->input_len) && memcmp(buf, want, bn) == 0;
    free(buf);
    return same ? 1 : fail(why, len, "the raw RSA result does not match OpenSSL's");
}

static int check_oaep_encrypt(const p11_test_ctx *ctx, const unsigned char *out, size_t n, char *why,
                              size_t len)
{
    if (!ctx->material || !ctx->material->pkey)
        return -1;
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(ctx->material->pkey, NULL);
    unsigned char *buf = NULL;
    size_t bn = 0;
    int ok = pc && EVP_PKEY_decrypt_init(pc) == 1 && rsa_pad(ctx, pc, 0) &&
             EVP_PKEY_decrypt(pc, NULL, &bn, out, n) == 1 && (buf = malloc(bn)) &&
             EVP_PKEY_decrypt(pc, buf, &bn, out, n) == 1;
    EVP_PKEY_CTX_free(pc);
    int same = ok && bn == ctx->data_len && memcmp(buf, ctx->data, bn) == 0;
    free(buf);
    return same ? 1 : fail(why, len, "OpenSSL does not decrypt the ciphertext to the plaintext");
}

static CK_ULONG read_value(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h,
                           CK_ATTRIBUTE_TYPE t, unsigned char *buf, CK_ULONG cap)
{
    CK_ATTRIBUTE a = { t, buf, cap };
    if (fn->C_GetAttributeValue(s, h, &a, 1) != CKR_OK || a.ulValueLen == (CK_ULONG)-1)
        return 0;
    return a.ulValueLen;
}

static int check_derived(const p11_test_ctx *ctx, CK_OBJECT_HANDLE made, CK_SESSION_HANDLE s,
                         char *why, size_t len)
{
    unsigned char token[132], soft[132];
    size_t sn = sizeof soft;
    /* ECDH is symmetric: our private key and the token's public one give the
     * same secret as the token's private key and our public one. */
    EVP_PKEY *mine = ctx->material && ctx->material->pkey ? ctx->material->pkey : ctx->peer;
    EVP_PKEY *theirs = mine == ctx->peer ? ctx->public_key : ctx->peer;
    if (!mine || !theirs)
        return -1;
    CK_ULONG tn = read_value(ctx->fn, s, made, CKA_VALUE, token, sizeof token);
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new(mine, NULL);
    int ok = pc && EVP_PKEY_derive_init(pc) == 1 && EVP_PKEY_derive_set_peer(pc, theirs) == 1 &&
             EVP_PKEY_derive(pc, soft, &sn) == 1;
    EVP_PKEY_CTX_free(pc);
    if (!ok || !tn)
        return fail(why, len, "the derived secret could not be read or computed");
    return (tn == sn && memcmp(token, soft, sn) == 0) ? 1
         : fail(why, len, "the derived secret differs from OpenSSL's ECDH result");
}

/* A key unwrapped by the token is right if it encrypts as the original does. */
static int check_unwrapped(const p11_test_ctx *ctx, CK_OBJECT_HANDLE made, CK_SESSION_HANDLE s,
                           char *why, size_t len)
{
    const keys_material *target = ctx->aux_material;
    unsigned char zero[16] = { 0 }, token[32], soft[32];
    CK_ULONG tn = sizeof token;
    int l = 0;
    CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
    if (!target) {
        if (!ctx->round_trip)
            return -1;
        int same = same_aes_key(ctx, made, ctx->aux.priv, s);
        if (same < 0)
            return fail(why, len, "the unwrapped key could not be used to encrypt");
        return same ? 1 : fail(why, len, "the unwrapped key encrypts differently from the wrapped one");
    }
    CK_RV rv = ctx->fn->C_EncryptInit(s, &ecb, made);
    if (rv == CKR_OK)
        rv = ctx->fn->C_Encrypt(s, zero, sizeof zero, token, &tn);
    EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
    int ok = cc && EVP_EncryptInit_ex(cc, EVP_aes_256_ecb(), NULL, target->secret, NULL) == 1 &&
             EVP_CIPHER_CTX_set_padding(cc, 0) == 1 &&
             EVP_EncryptUpdate(cc, soft, &l, zero, sizeof zero) == 1;
    EVP_CIPHER_CTX_free(cc);
    if (rv != CKR_OK || !ok)
        return fail(why, len, "the unwrapped key could not be used to encrypt");
    return (tn == 16 && memcmp(token, soft, 16) == 0) ? 1
         : fail(why, len, "the unwrapped key encrypts differently from the wrapped one");
}

static int check_wrapped(const p11_test_ctx *ctx, const unsigned char *out, size_t n, char *why,
                         size_t len)
{
    const keys_material *kek = ctx->material, *target = ctx->aux_material;
    unsigned char soft[80], padded[72];
    int l1 = 0, l2 = 0;
    if (!kek || !target)
        return -1;
    /* RFC 5649 is CKM_AES_KEY_WRAP_KWP, and CKM_AES_KEY_WRAP_PAD unless the
     * module showed the NSS variant: RFC 3394 of the PKCS#7-padded key. */
    int pkcs7 = ctx->mech == CKM_AES_KEY_WRAP_PAD && ctx->variant && strcmp(ctx->variant, "pkcs7") == 0;
    int pad = !pkcs7 && (ctx->mech == CKM_AES_KEY_WRAP_PAD || ctx->mech == CKM_AES_KEY_WRAP_KWP);
    const unsigned char *in = target->secret;
    size_t in_n = target->secret_len;
    if (pkcs7) {
        size_t p = 8 - in_n % 8;
        memcpy(padded, in, in_n);
        memset(padded + in_n, (int)p, p);
        in = padded;
        in_n += p;
    }
    size_t k = kek->secret_len * 8;
    const EVP_CIPHER *c = pad ? (k == 128 ? EVP_aes_128_wrap_pad() : k == 192 ? EVP_aes_192_wrap_pad()
                                                                               : EVP_aes_256_wrap_pad())
                              : (k == 128 ? EVP_aes_128_wrap() : k == 192 ? EVP_aes_192_wrap()
                                                                           : EVP_aes_256_wrap());
    EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
    int ok = cc != NULL;
    if (ok) {
        EVP_CIPHER_CTX_set_flags(cc, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
        ok = EVP_EncryptInit_ex(cc, c, NULL, kek->secret, NULL) == 1 &&
             EVP_EncryptUpdate(cc, soft, &l1, in, (int)in_n) == 1 &&
             EVP_EncryptFinal_ex(cc, soft + l1, &l2) == 1;
    }
    EVP_CIPHER_CTX_free(cc);
    if (!ok)
        return fail(why, len, "OpenSSL could not wrap the key");
    return ((size_t)(l1 + l2) == n && memcmp(soft, out, n) == 0) ? 1
         : fail(why, len, "the wrapped key differs from OpenSSL's");
}

static int check_keygen(const p11_test_ctx *ctx, CK_OBJECT_HANDLE made, CK_SESSION_HANDLE s,
                        char *why, size_t len)
{
    unsigned char buf[1100];
    const p11_test_def *def = ctx->def;
    if (def->key == KEYS_AES) {
        CK_ULONG v = 0;
        CK_ATTRIBUTE a = { CKA_VALUE_LEN, &v, sizeof v };
        if (ctx->fn->C_GetAttributeValue(s, made, &a, 1) != CKR_OK)
            return fail(why, len, "CKA_VALUE_LEN of the new key is unreadable");
        return v * 8 == ctx->params.key_bits ? 1 : fail(why, len, "the new key has the wrong length");
    }
    if (def->key == KEYS_RSA) {
        CK_ULONG n = read_value(ctx->fn, s, made, CKA_MODULUS, buf, sizeof buf);
        return n * 8 == ctx->params.key_bits ? 1 : fail(why, len, "the new key's modulus has the wrong length");
    }
    size_t oidlen;
    const unsigned char *oid = keys_curve_oid(ctx->params.curve, &oidlen);
    CK_ULONG n = read_value(ctx->fn, s, made, CKA_EC_PARAMS, buf, sizeof buf);
    if (n == 0)
        return -1;   /* private keys need not show CKA_EC_PARAMS */
    return (oid && n == oidlen && memcmp(buf, oid, n) == 0) ? 1
         : fail(why, len, "the new key is on the wrong curve");
}

const char *p11_verify_how(const p11_test_ctx *ctx, const char **method)
{
    static const char ossl[] = "openssl", rt[] = "round-trip in token", attr[] = "read back from the token",
                      none[] = "none";
    const p11_test_def *def = ctx->def;
    const int mat = ctx->material != NULL;
    /* The branches follow p11_verify_result's, case by case. */
#define HOW(m, text) do { *method = (m); return (text); } while (0)
    switch (def->op) {
    case P11_OP_SIGN:
        if (def->key == KEYS_GENERIC && ctx->round_trip)
            HOW(rt, "MAC verified in the token (C_Verify)");
        if (def->key == KEYS_GENERIC)
            HOW(mat ? ossl : none, mat ? "MAC compared with OpenSSL's HMAC under the same key"
                                       : "not checked (the key's value is not known)");
        if (ctx->public_key)
            HOW(ossl, mat ? "signature verified with OpenSSL against the public key"
                          : "signature verified with OpenSSL against the public key read from the token");
        HOW(none, "not checked (the public key could not be read)");
    case P11_OP_VERIFY:
        if (mat)
            HOW(ossl, "the token's C_Verify of a signature OpenSSL made");
        if (ctx->round_trip)
            HOW(rt, "the token's C_Verify of its own signature, made before the run");
        HOW(none, "not checked (the signature is the token's own)");
    case P11_OP_ENCRYPT:
        if (ctx->mech == CKM_RSA_X_509)
            HOW(ctx->public_key ? ossl : none, ctx->public_key ? "raw RSA result compared with "
                "OpenSSL's public-key operation" : "not checked (the public key could not be read)");
        if (ctx->round_trip)
            HOW(rt, "decrypted in the token and compared with the plaintext");
        if (def->key == KEYS_RSA)
            HOW(mat ? ossl : none, mat ? "decrypted with OpenSSL and compared with the plaintext"
                                       : "not checked (the private key's value is not known)");
        HOW(mat ? ossl : none, mat ? "ciphertext compared with OpenSSL's under the same key and IV"
                                   : "not checked (the key's value is not known)");
    case P11_OP_DECRYPT:
        if (ctx->mech == CKM_RSA_X_509)
            HOW(ctx->public_key ? ossl : none, ctx->public_key ? "raw RSA result checked with "
                "OpenSSL's public-key operation" : "not checked (the public key could not be read)");
        HOW(mat ? ossl : rt, mat ? "compared with the plaintext OpenSSL encrypted before the run"
                                 : "compared with the plaintext the token encrypted before the run");
    case P11_OP_DIGEST:
        HOW(ossl, "digest compared with OpenSSL's");
    case P11_OP_DERIVE:
        HOW(ossl, "derived secret compared with OpenSSL's ECDH result");
    case P11_OP_WRAP:
        if (ctx->round_trip)
            HOW(rt, "unwrapped again in the token and compared with the wrapped key");
        HOW(ctx->aux_material && mat ? ossl : none, ctx->aux_material && mat
            ? "wrapped key compared with OpenSSL's key wrap" : "not checked (the keys' values are not known)");
    case P11_OP_UNWRAP:
        if (ctx->aux_material)
            HOW(ossl, "unwrapped key's AES encryption compared with OpenSSL's under the original key");
        if (ctx->round_trip)
            HOW(rt, "unwrapped key's AES encryption compared in the token with the wrapped key's");
        HOW(none, "not checked (the wrapped key's value is not known)");
    case P11_OP_KEYGEN:
        HOW(attr, "the new key's length or curve read back from the token");
    case P11_OP_FIND:
        HOW(attr, "the handle found compared with the key's");
    case P11_OP_RANDOM:
        break;
    }
    HOW(none, "not checked (random bytes cannot be checked from one sample)");
#undef HOW
}

int p11_verify_result(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *out,
                      CK_ULONG out_len, CK_OBJECT_HANDLE made, CK_SESSION_HANDLE s, char *why,
                      size_t len)
{
    const p11_test_def *def = ctx->def;
    unsigned char *soft = NULL;
    CK_ULONG sn = 0;
    int r;

    switch (def->op) {
    case P11_OP_SIGN:
        if (def->key == KEYS_GENERIC && ctx->round_trip)
            return round_trip_mac(ctx, ms, out, out_len, s, why, len);
        if (def->key == KEYS_GENERIC) {
            if (p11_sign_software(ctx, ctx->input, ctx->input_len, &soft, &sn) != 0)
                return -1;
            r = (sn == out_len && memcmp(soft, out, sn) == 0) ? 1
              : fail(why, len, "the MAC differs from OpenSSL's HMAC");
            free(soft);
            return r;
        }
        return check_signature(ctx, out, out_len, why, len);
    case P11_OP_VERIFY:
        /* CKR_OK on a signature OpenSSL made is the check itself; in a round
         * trip, on the one the token made before the run. */
        return ctx->material || ctx->round_trip ? 1 : -1;
    case P11_OP_ENCRYPT:
        if (ctx->mech == CKM_RSA_X_509)
            return check_raw_rsa(ctx, out, out_len, 1, why, len);
        if (ctx->round_trip)
            return round_trip_decrypt(ctx, ms, ctx->keys.priv, out, out_len, s, why, len);
        if (def->key == KEYS_RSA)
            return check_oaep_encrypt(ctx, out, out_len, why, len);
        if (p11_encrypt_software(ctx, ms, ctx->input, ctx->input_len, &soft, &sn) != 0)
            return -1;
        r = (sn == out_len && memcmp(soft, out, sn) == 0) ? 1
          : fail(why, len, "the ciphertext differs from OpenSSL's under the same key and IV");
        free(soft);
        return r;
    case P11_OP_DECRYPT:
        if (ctx->mech == CKM_RSA_X_509)
            return check_raw_rsa(ctx, out, out_len, 0, why, len);
        return (out_len == ctx->expect_n && memcmp(out, ctx->expect, out_len) == 0) ? 1
             : fail(why, len, "the decryption does not give back the plaintext");
    case P11_OP_DIGEST: {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int ml = 0;
        const EVP_MD *m = mech_md(ctx->mech);
        if (!m || EVP_Digest(ctx->data, ctx->data_len, md, &ml, m, NULL) != 1)
            return -1;
        return (ml == out_len && memcmp(md, out, ml) == 0) ? 1
             : fail(why, len, "the digest differs from OpenSSL's");
    }
    case P11_OP_DERIVE:
        return check_derived(ctx, made, s, why, len);
    case P11_OP_WRAP:
        if (ctx->round_trip || !ctx->aux_material)
            return ctx->round_trip ? round_trip_wrap(ctx, ms, out, out_len, s, why, len) : -1;
        return check_wrapped(ctx, out, out_len, why, len);
    case P11_OP_UNWRAP:
        return check_unwrapped(ctx, made, s, why, len);
    case P11_OP_KEYGEN:
        return check_keygen(ctx, made, s, why, len);
    case P11_OP_FIND:
        return made == ctx->keys.priv ? 1 : fail(why, len, "found a different object than ours");
    case P11_OP_RANDOM:
        return -1;   /* randomness cannot be checked from one sample */
    }
    return -1;
}

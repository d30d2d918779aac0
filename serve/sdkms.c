/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/sdkms.c - the emulator's SDKMS: sessions, keys made on the
 * token, and the crypto calls, each a PKCS#11 operation on a session of the
 * request's own.  Errors are plain text, as SDKMS writes them.
 */
#include "serve/sdkms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "keys/keys.h"
#include "p11/names.h"
#include "bench/util/b64.h"

#define SDKMS_MAX_INPUT (1u << 20)

/* ---- hashes -------------------------------------------------------------- */

typedef struct hashdef {
    const char          *name;
    size_t               len;
    CK_MECHANISM_TYPE    hash, hmac, rsa_pkcs, rsa_pss;
    CK_RSA_PKCS_MGF_TYPE mgf;
    const uint8_t       *prefix;        /* DER DigestInfo before the digest */
    size_t               prefix_len;
} hashdef;

static const uint8_t di_sha1[] = { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02,
                                   0x1a, 0x05, 0x00, 0x04, 0x14 };
static const uint8_t di_sha256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20 };
static const uint8_t di_sha384[] = { 0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30 };
static const uint8_t di_sha512[] = { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                     0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40 };

static const hashdef hashes[] = {
    { "SHA1", 20, CKM_SHA_1, CKM_SHA_1_HMAC, CKM_SHA1_RSA_PKCS, CKM_SHA1_RSA_PKCS_PSS,
      CKG_MGF1_SHA1, di_sha1, sizeof di_sha1 },
    { "SHA256", 32, CKM_SHA256, CKM_SHA256_HMAC, CKM_SHA256_RSA_PKCS, CKM_SHA256_RSA_PKCS_PSS,
      CKG_MGF1_SHA256, di_sha256, sizeof di_sha256 },
    { "SHA384", 48, CKM_SHA384, CKM_SHA384_HMAC, CKM_SHA384_RSA_PKCS, CKM_SHA384_RSA_PKCS_PSS,
      CKG_MGF1_SHA384, di_sha384, sizeof di_sha384 },
    { "SHA512", 64, CKM_SHA512, CKM_SHA512_HMAC, CKM_SHA512_RSA_PKCS, CKM_SHA512_RSA_PKCS_PSS,
      CKG_MGF1_SHA512, di_sha512, sizeof di_sha512 },
};

static const hashdef *hash_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof hashes / sizeof hashes[0]; i++)
        if (name && strcasecmp(name, hashes[i].name) == 0)
            return &hashes[i];
    return NULL;
}

/* ---- request helpers ----------------------------------------------------- */

/* A base64 field into a new buffer: 1, 0 when absent (reply untouched), -1
 * with a 400 written when it is present but bad. */
static int b64_get(json_t *obj, const char *name, uint8_t **out, size_t *len, serve_reply *r)
{
    json_t *v = json_object_get(obj, name);
    *out = NULL;
    *len = 0;
    if (!v || json_is_null(v))
        return 0;
    size_t n = json_is_string(v) ? json_string_length(v) : 0;
    uint8_t *buf = json_is_string(v) && n <= 2 * SDKMS_MAX_INPUT ? malloc(bench_b64_decoded_max(n) + 1) : NULL;
    if (!buf || bench_b64_decode(json_string_value(v), n, buf, bench_b64_decoded_max(n), len) != 0) {
        free(buf);
        serve_reply_text(r, 400, "Invalid field '%s': expected base64", name);
        return -1;
    }
    *out = buf;
    return 1;
}

static int b64_need(json_t *obj, const char *name, uint8_t **out, size_t *len, serve_reply *r)
{
    int rc = b64_get(obj, name, out, len, r);
    if (rc == 0)
        serve_reply_text(r, 400, "Missing required field: %s", name);
    return rc == 1 ? 0 : -1;
}

static int set_b64(json_t *obj, const char *key, const uint8_t *data, size_t n)
{
    char *s = bench_b64_encode_alloc(data, n);
    int rc = s ? json_object_set_new(obj, key, json_string(s)) : -1;
    free(s);
    return rc;
}

static void p11_error(serve_reply *r, CK_RV rv, const char *what)
{
    char rb[48];
    unsigned status = 500;
    switch (rv) {
    case CKR_DATA_LEN_RANGE:
    case CKR_DATA_INVALID:
    case CKR_ENCRYPTED_DATA_INVALID:
    case CKR_ENCRYPTED_DATA_LEN_RANGE:
    case CKR_MECHANISM_INVALID:
    case CKR_MECHANISM_PARAM_INVALID:
    case CKR_KEY_TYPE_INCONSISTENT:
    case CKR_KEY_FUNCTION_NOT_PERMITTED:
    case CKR_KEY_SIZE_RANGE:
    case CKR_SIGNATURE_LEN_RANGE:
    case CKR_ARGUMENTS_BAD:
    case CKR_CURVE_NOT_SUPPORTED:
    case CKR_TEMPLATE_INCONSISTENT:
    case CKR_ATTRIBUTE_VALUE_INVALID:
        status = 400;
        break;
    default:
        break;
    }
    serve_reply_text(r, status, "%s failed: %s", what, p11_rv_name(rv, rb, sizeof rb));
}

/* ---- authentication and sessions ----------------------------------------- */

static int auth_basic(const serve_srv *srv, const char *authz)
{
    if (!authz || strncasecmp(authz, "Basic ", 6) != 0)
        return 0;
    const char *k = authz + 6;
    return serve_secret_eq(k, strlen(k), srv->api_key, srv->api_key_len);
}

/* A crypto call's credentials: a live session, or the API key itself. */
static int authorized(serve_srv *srv, const serve_req *q, serve_reply *r)
{
    if (!q->authz) {
        serve_reply_text(r, 401, "Missing Authorization header");
        return 0;
    }
    if (strncasecmp(q->authz, "Bearer ", 7) == 0) {
        const char *t = q->authz + 7;
        if (serve_sessions_check(srv->sessions, t, strlen(t)))
            return 1;
        serve_reply_text(r, 401, "Session does not exist");
        return 0;
    }
    if (auth_basic(srv, q->authz))
        return 1;
    serve_reply_text(r, 401, "Invalid API key");
    return 0;
}

static void session_auth(serve_srv *srv, const serve_req *q, serve_reply *r)
{
    char tok[SERVE_SESSION_TOKEN_MAX];
    if (!auth_basic(srv, q->authz)) {
        serve_reply_text(r, 401, "Invalid API key");
        return;
    }
    if (serve_sessions_create(srv->sessions, tok) != 0) {
        serve_reply_text(r, 503, "Too many sessions");
        return;
    }
    uint64_t ttl = serve_sessions_ttl_s(srv->sessions);
    json_t *j = json_pack("{s:s,s:I,s:s,s:s}", "token_type", "Bearer", "expires_in",
                          (json_int_t)(ttl ? ttl : 86400), "access_token", tok, "entity_id",
                          "00000000-0000-4000-8000-00000000a99e");
    explicit_bzero(tok, sizeof tok);
    serve_reply_json(r, 200, j);
}

static void session_terminate(serve_srv *srv, const serve_req *q, serve_reply *r)
{
    if (!q->authz || strncasecmp(q->authz, "Bearer ", 7) != 0 ||
        serve_sessions_end(srv->sessions, q->authz + 7, strlen(q->authz + 7)) != 0) {
        serve_reply_text(r, 401, "Session does not exist");
        return;
    }
    r->status = 204;
}

/* ---- keys ---------------------------------------------------------------- */

static const struct { const char *sdkms, *p11; unsigned bits; } curves[] = {
    { "NistP256", "P-256", 256 }, { "NistP384", "P-384", 384 }, { "NistP521", "P-521", 521 },
    { "NistP192", "P-192", 192 }, { "NistP224", "P-224", 224 },
    { "SecP192K1", "secp192k1", 192 }, { "SecP224K1", "secp224k1", 224 },
    { "SecP256K1", "secp256k1", 256 },
};

static void created_at(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

static void key_create(serve_srv *srv, const serve_req *q, json_t *body, serve_reply *r)
{
    const char *type = json_string_value(json_object_get(body, "obj_type"));
    const char *name = json_string_value(json_object_get(body, "name"));
    json_t *tr = json_object_get(body, "transient");
    json_t *size = json_object_get(body, "key_size");
    const char *curve = json_string_value(json_object_get(body, "elliptic_curve"));
    int transient = json_is_true(tr);
    keys_spec spec = { .label = "hsmbench-serve" };
    serve_key *k = calloc(1, sizeof *k);

    if (!k) {
        serve_reply_text(r, 500, "Out of memory");
        return;
    }
    if (!type) {
        serve_reply_text(r, 400, "Missing required field: obj_type");
        goto fail;
    }
    if (!transient && (!name || !*name)) {
        serve_reply_text(r, 400, "Missing required field: name");
        goto fail;
    }
    json_int_t bits = json_is_integer(size) ? json_integer_value(size) : 0;
    if (strcmp(type, "EC") == 0) {
        for (size_t i = 0; curve && i < sizeof curves / sizeof curves[0]; i++) {
            if (strcmp(curve, curves[i].sdkms) == 0) {
                spec.curve = curves[i].p11;
                k->curve = curves[i].sdkms;
                k->bits = curves[i].bits;
            }
        }
        if (!spec.curve) {
            serve_reply_text(r, 400, "Invalid elliptic_curve: expected SecP192K1, SecP224K1, "
                             "SecP256K1, NistP192, NistP224, NistP256, NistP384 or NistP521");
            goto fail;
        }
        spec.type = KEYS_EC;
        spec.uses = KEYS_USE_SIGN;
        k->type = SERVE_KEY_EC;
    } else {
        if (strcmp(type, "AES") == 0 && (bits == 128 || bits == 192 || bits == 256)) {
            spec.type = KEYS_AES;
            spec.uses = KEYS_USE_ENCRYPT;
            k->type = SERVE_KEY_AES;
        } else if (strcmp(type, "RSA") == 0 && bits >= 1024 && bits <= 8192 && bits % 8 == 0) {
            spec.type = KEYS_RSA;
            spec.uses = KEYS_USE_SIGN | KEYS_USE_ENCRYPT;
            k->type = SERVE_KEY_RSA;
        } else if (strcmp(type, "HMAC") == 0 && bits >= 112 && bits <= 4096 && bits % 8 == 0) {
            spec.type = KEYS_GENERIC;
            spec.uses = KEYS_USE_SIGN;
            k->type = SERVE_KEY_HMAC;
        } else {
            serve_reply_text(r, 400, "Invalid obj_type or key_size: %s %lld (AES 128/192/256, RSA "
                            "1024..8192, HMAC 112..4096, EC with elliptic_curve)",
                            type, (long long)bits);
            goto fail;
        }
        spec.bits = (unsigned)bits;
        k->bits = (unsigned)bits;
    }
    serve_prof_lap(q->prof, SERVE_PROF_VALIDATE_INPUT);

    CK_SESSION_HANDLE s;
    CK_RV rv = serve_tok_session(&srv->tok, &s);
    if (rv != CKR_OK) {
        p11_error(r, rv, "C_OpenSession");
        goto fail;
    }
    keys_handle kh;
    rv = keys_generate(srv->tok.fn, s, &spec, &kh);
    serve_prof_lap(q->prof, SERVE_PROF_OPERATE);
    if (rv != CKR_OK) {
        serve_tok_release(&srv->tok, s);
        if (k->type == SERVE_KEY_EC && (rv == CKR_CURVE_NOT_SUPPORTED ||
                                        rv == CKR_DOMAIN_PARAMS_INVALID ||
                                        rv == CKR_ATTRIBUTE_VALUE_INVALID ||
                                        rv == CKR_TEMPLATE_INCONSISTENT)) {
            /* The token does not offer the curve: say which. */
            char rb[48];
            serve_reply_text(r, 400, "Elliptic curve %s is not offered by this server's token: %s",
                             k->curve, p11_rv_name(rv, rb, sizeof rb));
        } else {
            p11_error(r, rv, "Key generation");
        }
        goto fail;
    }
    k->priv = kh.priv;
    k->pub = kh.pub;
    k->transient = transient;
    serve_key *evict = NULL;
    if (serve_keys_add(srv->keys, k, &evict) != 0) {
        serve_key_destroy(srv->tok.fn, s, evict);
        serve_key_destroy(srv->tok.fn, s, k);
        serve_tok_release(&srv->tok, s);
        serve_reply_text(r, 503, "Key store is full (--max-keys)");
        return;
    }
    serve_key_destroy(srv->tok.fn, s, evict);
    serve_prof_lap(q->prof, SERVE_PROF_DB_FLUSH);

    /* The store holds k for us until the reply is written: an eviction in
     * another thread cannot free it under our feet. */
    char when[32];
    created_at(when, sizeof when);
    json_t *ans = json_pack("{s:s,s:s,s:b,s:s,s:s}", "name", name ? name : "", "obj_type", type,
                            "enabled", 1, "origin", transient ? "Transient" : "FortanixHSM",
                            "created_at", when);
    if (k->type == SERVE_KEY_EC)
        json_object_set_new(ans, "elliptic_curve", json_string(k->curve));
    else
        json_object_set_new(ans, "key_size", json_integer(k->bits));
    if (transient) {
        char *blob = serve_keys_transient_blob(k);
        json_object_set_new(ans, "transient_key", json_string(blob ? blob : ""));
        free(blob);
    } else {
        json_object_set_new(ans, "kid", json_string(k->kid));
    }
    serve_reply_json(r, 201, ans);
    serve_key_destroy(srv->tok.fn, s, serve_keys_put(srv->keys, k));
    serve_tok_release(&srv->tok, s);
    return;
fail:
    free(k);
}

static void key_delete(serve_srv *srv, const char *kid, serve_reply *r)
{
    serve_key *gone = NULL;
    if (serve_keys_delete(srv->keys, kid, strlen(kid), &gone) != 0) {
        serve_reply_text(r, 404, "Sobject does not exist");
        return;
    }
    if (gone) {
        CK_SESSION_HANDLE s;
        if (serve_tok_session(&srv->tok, &s) == CKR_OK) {
            serve_key_destroy(srv->tok.fn, s, gone);
            serve_tok_release(&srv->tok, s);
        } else {
            free(gone);       /* its objects go when the server ends */
        }
    }
    r->status = 204;
}

/* The key a call names: the path's kid, or its "key" descriptor. */
static serve_key *key_lookup(serve_srv *srv, json_t *body, const char *path_kid, serve_reply *r)
{
    serve_key *k = NULL;
    if (path_kid) {
        k = serve_keys_get(srv->keys, path_kid, strlen(path_kid));
    } else {
        json_t *d = json_object_get(body, "key");
        json_t *kid = json_object_get(d, "kid"), *tk = json_object_get(d, "transient_key");
        if (!json_is_object(d)) {
            serve_reply_text(r, 400, "Missing required field: key");
            return NULL;
        }
        if (json_is_string(kid))
            k = serve_keys_get(srv->keys, json_string_value(kid), json_string_length(kid));
        else if (json_is_string(tk))
            k = serve_keys_get_transient(srv->keys, json_string_value(tk), json_string_length(tk));
        else if (json_object_get(d, "name")) {
            serve_reply_text(r, 400, "Keys by name are not supported by this emulator: use kid");
            return NULL;
        } else {
            serve_reply_text(r, 400, "Invalid key descriptor: expected kid or transient_key");
            return NULL;
        }
    }
    if (!k)
        serve_reply_text(r, 404, "Sobject does not exist");
    return k;
}

/* ---- the crypto calls ---------------------------------------------------- */

typedef enum { OP_ENCRYPT, OP_DECRYPT, OP_SIGN, OP_VERIFY, OP_MAC } crypto_op;

typedef struct call {
    serve_srv         *srv;
    const serve_req   *q;
    serve_reply       *r;
    json_t           *body;
    serve_key         *key;
    CK_SESSION_HANDLE s;
    CK_FUNCTION_LIST *fn;
    json_t           *ans;
    int               dirty;           /* an operation may be left active in s */
} call;

/* RSA padding: {"OAEP": {"mgf": {"mgf1": {"hash": H}}}}, {"PKCS1_V15": {}}, {"PSS": ...}. */
static const char *rsa_padding(json_t *mode, const hashdef **mgf_hash)
{
    const char *which = NULL;
    *mgf_hash = NULL;
    if (!json_is_object(mode))
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach(mode, k, v) {
        which = k;
        json_t *h = json_object_get(json_object_get(json_object_get(v, "mgf"), "mgf1"), "hash");
        if (json_is_string(h))
            *mgf_hash = hash_by_name(json_string_value(h));
        break;
    }
    return which;
}

static int rsa_bytes(const serve_key *k)
{
    return (int)((k->bits + 7) / 8);
}

static void do_encrypt(call *c, int decrypt)
{
    serve_key *k = c->key;
    serve_reply *r = c->r;
    uint8_t *in = NULL, *iv = NULL, *ad = NULL, *tag = NULL, *out = NULL;
    size_t inlen = 0, ivlen = 0, adlen = 0, taglen = 0, outcap;
    uint8_t ivbuf[16];
    CK_GCM_PARAMS gcm;
    CK_RSA_PKCS_OAEP_PARAMS oaep;
    CK_MECHANISM m = { 0, NULL, 0 };
    int gcm_mode = 0;

    if (k->type != SERVE_KEY_AES && k->type != SERVE_KEY_RSA) {
        serve_reply_text(r, 400, "This key cannot %s", decrypt ? "decrypt" : "encrypt");
        return;
    }
    if (b64_need(c->body, decrypt ? "cipher" : "plain", &in, &inlen, r) != 0)
        return;
    if (inlen > SDKMS_MAX_INPUT) {
        serve_reply_text(r, 400, "Input too large");
        goto out;
    }
    json_t *mode = json_object_get(c->body, "mode");
    if (k->type == SERVE_KEY_AES) {
        const char *ms = json_string_value(mode);
        if (!ms) {
            serve_reply_text(r, 400, "Missing required field: mode");
            goto out;
        }
        if (b64_get(c->body, "iv", &iv, &ivlen, r) < 0)
            goto out;
        if (strcmp(ms, "GCM") == 0) {
            json_t *tl = json_object_get(c->body, "tag_len");
            json_int_t bits = json_is_integer(tl) ? json_integer_value(tl) : 128;
            if (bits < 32 || bits > 128 || bits % 8) {
                serve_reply_text(r, 400, "Invalid tag_len: 32 to 128 bits, a multiple of 8");
                goto out;
            }
            if (b64_get(c->body, "ad", &ad, &adlen, r) < 0)
                goto out;
            if (decrypt) {
                if (b64_need(c->body, "tag", &tag, &taglen, r) != 0)
                    goto out;
                if (taglen < 4 || taglen > 16) {
                    serve_reply_text(r, 400, "Invalid tag length");
                    goto out;
                }
                bits = (json_int_t)taglen * 8;
                uint8_t *both = realloc(in, inlen + taglen);
                if (!both) {
                    serve_reply_text(r, 500, "Out of memory");
                    goto out;
                }
                in = both;
                memcpy(in + inlen, tag, taglen);
                inlen += taglen;
            } else {
                taglen = (size_t)bits / 8;
            }
            if (!iv) {
                if (decrypt) {
                    serve_reply_text(r, 400, "Missing required field: iv");
                    goto out;
                }
                ivlen = 12;
                if (RAND_bytes(ivbuf, (int)ivlen) != 1) {
                    serve_reply_text(r, 500, "No randomness");
                    goto out;
                }
            }
            memset(&gcm, 0, sizeof gcm);
            gcm.pIv = iv ? iv : ivbuf;
            gcm.ulIvLen = (CK_ULONG)ivlen;
            gcm.ulIvBits = (CK_ULONG)ivlen * 8;
            gcm.pAAD = ad;
            gcm.ulAADLen = (CK_ULONG)adlen;
            gcm.ulTagBits = (CK_ULONG)bits;
            m = (CK_MECHANISM){ CKM_AES_GCM, &gcm, sizeof gcm };
            gcm_mode = 1;
        } else if (strcmp(ms, "CBC") == 0) {
            if (!iv) {
                if (decrypt) {
                    serve_reply_text(r, 400, "Missing required field: iv");
                    goto out;
                }
                ivlen = 16;
                if (RAND_bytes(ivbuf, (int)ivlen) != 1) {
                    serve_reply_text(r, 500, "No randomness");
                    goto out;
                }
            } else if (ivlen != 16) {
                serve_reply_text(r, 400, "Invalid iv: CBC takes 16 bytes");
                goto out;
            }
            m = (CK_MECHANISM){ CKM_AES_CBC_PAD, iv ? iv : ivbuf, 16 };
        } else {
            serve_reply_text(r, 400, "Unsupported mode %s (this emulator does GCM and CBC)", ms);
            goto out;
        }
        outcap = inlen + 32;
    } else {
        const hashdef *mh = NULL;
        const char *pad = mode ? rsa_padding(mode, &mh) : "OAEP";
        if (!pad) {
            serve_reply_text(r, 400, "Invalid mode for RSA: expected OAEP or PKCS1_V15");
            goto out;
        }
        if (strcmp(pad, "PKCS1_V15") == 0) {
            m = (CK_MECHANISM){ CKM_RSA_PKCS, NULL, 0 };
        } else if (strcmp(pad, "OAEP") == 0) {
            if (!mh)
                mh = &hashes[0];
            memset(&oaep, 0, sizeof oaep);
            oaep.hashAlg = mh->hash;
            oaep.mgf = mh->mgf;
            oaep.source = CKZ_DATA_SPECIFIED;
            m = (CK_MECHANISM){ CKM_RSA_PKCS_OAEP, &oaep, sizeof oaep };
        } else {
            serve_reply_text(r, 400, "Unsupported RSA encryption padding %s", pad);
            goto out;
        }
        outcap = (size_t)rsa_bytes(k) + 16;
    }
    serve_prof_lap(c->q->prof, SERVE_PROF_VALIDATE_INPUT);

    out = malloc(outcap);
    if (!out) {
        serve_reply_text(r, 500, "Out of memory");
        goto out;
    }
    CK_OBJECT_HANDLE h = k->type == SERVE_KEY_RSA && !decrypt ? k->pub : k->priv;
    CK_ULONG outlen = (CK_ULONG)outcap;
    CK_RV rv = decrypt ? c->fn->C_DecryptInit(c->s, &m, h) : c->fn->C_EncryptInit(c->s, &m, h);
    if (rv == CKR_OK)
        rv = decrypt ? c->fn->C_Decrypt(c->s, in, (CK_ULONG)inlen, out, &outlen)
                     : c->fn->C_Encrypt(c->s, in, (CK_ULONG)inlen, out, &outlen);
    serve_prof_lap(c->q->prof, SERVE_PROF_OPERATE);
    if (rv != CKR_OK) {
        c->dirty = rv == CKR_BUFFER_TOO_SMALL;
        p11_error(r, rv, decrypt ? "Decryption" : "Encryption");
        goto out;
    }
    c->ans = json_object();
    if (decrypt) {
        if (c->q->fault == SERVE_FAULT_MISMATCH && outlen) {
            out[0] ^= 0x5a;
            r->faulted = 1;
        }
        set_b64(c->ans, "plain", out, outlen);
    } else if (gcm_mode) {
        set_b64(c->ans, "cipher", out, outlen - taglen);
        set_b64(c->ans, "iv", iv ? iv : ivbuf, ivlen);
        set_b64(c->ans, "tag", out + outlen - taglen, taglen);
    } else {
        set_b64(c->ans, "cipher", out, outlen);
        if (k->type == SERVE_KEY_AES)
            set_b64(c->ans, "iv", iv ? iv : ivbuf, ivlen);
    }
out:
    free(in);
    free(iv);
    free(ad);
    free(tag);
    free(out);
}

/* PKCS#11 gives an ECDSA signature as r || s; SDKMS (and X.509) use DER. */
static uint8_t *ec_raw_to_der(const uint8_t *raw, size_t n, size_t *derlen)
{
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *rr = BN_bin2bn(raw, (int)(n / 2), NULL), *ss = BN_bin2bn(raw + n / 2, (int)(n / 2), NULL);
    uint8_t *der = NULL;
    if (sig && rr && ss && ECDSA_SIG_set0(sig, rr, ss) == 1) {
        rr = ss = NULL;
        int len = i2d_ECDSA_SIG(sig, &der);
        if (len <= 0)
            der = NULL;
        else
            *derlen = (size_t)len;
    }
    BN_free(rr);
    BN_free(ss);
    ECDSA_SIG_free(sig);
    return der;
}

static int ec_der_to_raw(const uint8_t *der, size_t len, size_t half, uint8_t *raw)
{
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    int ok = 0;
    if (sig && p == der + len) {
        const BIGNUM *rr, *ss;
        ECDSA_SIG_get0(sig, &rr, &ss);
        ok = BN_bn2binpad(rr, raw, (int)half) == (int)half &&
             BN_bn2binpad(ss, raw + half, (int)half) == (int)half;
    }
    ECDSA_SIG_free(sig);
    return ok ? 0 : -1;
}

static void do_sign(call *c, int verify)
{
    serve_key *k = c->key;
    serve_reply *r = c->r;
    uint8_t *hash = NULL, *data = NULL, *sig = NULL, *msg = NULL, *out = NULL;
    size_t hashlen = 0, datalen = 0, siglen = 0, msglen = 0;
    uint8_t md[EVP_MAX_MD_SIZE], raw[1024];    /* RSA 8192 */
    CK_RSA_PKCS_PSS_PARAMS pss;
    CK_MECHANISM m = { 0, NULL, 0 };

    if (k->type != SERVE_KEY_RSA && k->type != SERVE_KEY_EC) {
        serve_reply_text(r, 400, "This key cannot %s", verify ? "verify" : "sign");
        return;
    }
    const hashdef *h = hash_by_name(json_string_value(json_object_get(c->body, "hash_alg")));
    if (!h) {
        serve_reply_text(r, 400, "Missing or unsupported hash_alg (SHA1, SHA256, SHA384, SHA512)");
        return;
    }
    int hh = b64_get(c->body, "hash", &hash, &hashlen, r);
    int hd = hh < 0 ? -1 : b64_get(c->body, "data", &data, &datalen, r);
    if (hh < 0 || hd < 0)
        goto out;
    if (hh == hd) {
        serve_reply_text(r, 400, "Give exactly one of hash and data");
        goto out;
    }
    if (hash && hashlen != h->len) {
        serve_reply_text(r, 400, "hash is %zu bytes; %s takes %zu", hashlen, h->name, h->len);
        goto out;
    }
    if (verify && b64_need(c->body, "signature", &sig, &siglen, r) != 0)
        goto out;

    if (k->type == SERVE_KEY_EC) {
        /* CKM_ECDSA signs a digest: make it here when given data. */
        if (data) {
            unsigned mdlen = 0;
            const EVP_MD *evp = EVP_get_digestbyname(h->name);
            if (!evp || EVP_Digest(data, datalen, md, &mdlen, evp, NULL) != 1) {
                serve_reply_text(r, 500, "Cannot compute %s", h->name);
                goto out;
            }
            msg = md;
            msglen = mdlen;
        } else {
            msg = hash;
            msglen = hashlen;
        }
        m.mechanism = CKM_ECDSA;
    } else {
        const hashdef *mh = NULL;
        json_t *mode = json_object_get(c->body, "mode");
        const char *pad = mode && !json_is_null(mode) ? rsa_padding(mode, &mh) : "PKCS1_V15";
        if (!pad || (strcmp(pad, "PKCS1_V15") != 0 && strcmp(pad, "PSS") != 0)) {
            serve_reply_text(r, 400, "Invalid mode for RSA signatures: expected PKCS1_V15 or PSS");
            goto out;
        }
        if (strcmp(pad, "PSS") == 0) {
            if (!mh)
                mh = h;
            memset(&pss, 0, sizeof pss);
            pss.hashAlg = h->hash;
            pss.mgf = mh->mgf;
            pss.sLen = (CK_ULONG)h->len;
            m = (CK_MECHANISM){ data ? h->rsa_pss : CKM_RSA_PKCS_PSS, &pss, sizeof pss };
            msg = data ? data : hash;
            msglen = data ? datalen : hashlen;
        } else if (data) {
            m.mechanism = h->rsa_pkcs;
            msg = data;
            msglen = datalen;
        } else {
            /* Raw PKCS#1 v1.5 over DigestInfo || digest. */
            m.mechanism = CKM_RSA_PKCS;
            msglen = h->prefix_len + hashlen;
            msg = out = malloc(msglen);
            if (!msg) {
                serve_reply_text(r, 500, "Out of memory");
                goto out;
            }
            memcpy(out, h->prefix, h->prefix_len);
            memcpy(out + h->prefix_len, hash, hashlen);
        }
    }
    serve_prof_lap(c->q->prof, SERVE_PROF_VALIDATE_INPUT);

    CK_RV rv;
    if (verify) {
        const uint8_t *s = sig;
        size_t sl = siglen;
        if (k->type == SERVE_KEY_EC) {
            size_t half = (k->bits + 7) / 8;
            if (ec_der_to_raw(sig, siglen, half, raw) != 0) {
                serve_prof_lap(c->q->prof, SERVE_PROF_OPERATE);
                c->ans = json_pack("{s:b}", "result", 0);
                goto out;
            }
            s = raw;
            sl = 2 * half;
        }
        rv = c->fn->C_VerifyInit(c->s, &m, k->pub);
        if (rv == CKR_OK)
            rv = c->fn->C_Verify(c->s, msg, (CK_ULONG)msglen, (CK_BYTE_PTR)s, (CK_ULONG)sl);
        serve_prof_lap(c->q->prof, SERVE_PROF_OPERATE);
        if (rv == CKR_OK || rv == CKR_SIGNATURE_INVALID || rv == CKR_SIGNATURE_LEN_RANGE) {
            int ok = rv == CKR_OK && c->q->fault != SERVE_FAULT_MISMATCH;
            r->faulted = rv == CKR_OK && !ok;
            c->ans = json_pack("{s:b}", "result", ok);
        } else {
            p11_error(r, rv, "Verification");
        }
        goto out;
    }
    CK_ULONG rl = sizeof raw;
    rv = c->fn->C_SignInit(c->s, &m, k->priv);
    if (rv == CKR_OK)
        rv = c->fn->C_Sign(c->s, msg, (CK_ULONG)msglen, raw, &rl);
    serve_prof_lap(c->q->prof, SERVE_PROF_OPERATE);
    if (rv == CKR_BUFFER_TOO_SMALL) {
        c->dirty = 1;                  /* the operation is still active in this session */
        serve_reply_text(r, 400, "Key too large for this emulator's signature buffer");
        goto out;
    }
    if (rv != CKR_OK) {
        p11_error(r, rv, "Signing");
        goto out;
    }
    c->ans = json_object();
    if (k->type == SERVE_KEY_EC) {
        size_t dl = 0;
        uint8_t *der = ec_raw_to_der(raw, rl, &dl);
        if (!der) {
            json_decref(c->ans);
            c->ans = NULL;
            serve_reply_text(r, 500, "Cannot encode the signature");
            goto out;
        }
        set_b64(c->ans, "signature", der, dl);
        OPENSSL_free(der);
    } else {
        set_b64(c->ans, "signature", raw, rl);
    }
out:
    free(hash);
    free(data);
    free(sig);
    free(out);
}

static void do_mac(call *c)
{
    serve_key *k = c->key;
    serve_reply *r = c->r;
    uint8_t *data = NULL, mac[64];
    size_t datalen = 0;
    if (k->type != SERVE_KEY_HMAC) {
        serve_reply_text(r, 400, "This key cannot compute a MAC (an HMAC key is needed)");
        return;
    }
    const hashdef *h = hash_by_name(json_string_value(json_object_get(c->body, "alg")));
    if (!h) {
        serve_reply_text(r, 400, "Missing or unsupported alg (SHA1, SHA256, SHA384, SHA512)");
        return;
    }
    if (b64_need(c->body, "data", &data, &datalen, r) != 0)
        return;
    serve_prof_lap(c->q->prof, SERVE_PROF_VALIDATE_INPUT);
    CK_MECHANISM m = { h->hmac, NULL, 0 };
    CK_ULONG ml = sizeof mac;
    CK_RV rv = c->fn->C_SignInit(c->s, &m, k->priv);
    if (rv == CKR_OK)
        rv = c->fn->C_Sign(c->s, data, (CK_ULONG)datalen, mac, &ml);
    serve_prof_lap(c->q->prof, SERVE_PROF_OPERATE);
    if (rv != CKR_OK) {
        c->dirty = rv == CKR_BUFFER_TOO_SMALL;
        p11_error(r, rv, "MAC");
    }
    else {
        c->ans = json_object();
        set_b64(c->ans, "mac", mac, ml);
    }
    free(data);
}

static void crypto_call(serve_srv *srv, const serve_req *q, crypto_op op, const char *path_kid,
                        serve_reply *r)
{
    call c = { srv, q, r, NULL, NULL, 0, srv->tok.fn, NULL, 0 };
    if (!authorized(srv, q, r))
        return;
    serve_prof_lap(q->prof, SERVE_PROF_SESSION_LOOKUP);
    c.body = json_loadb(q->body, q->len, 0, NULL);
    serve_prof_lap(q->prof, SERVE_PROF_PARSE_REQUEST);
    if (!json_is_object(c.body)) {
        json_decref(c.body);
        serve_reply_text(r, 400, "Invalid request body: expected a JSON object");
        return;
    }
    c.key = key_lookup(srv, c.body, path_kid, r);
    serve_prof_lap(q->prof, SERVE_PROF_CHECK_ACCESS);
    if (!c.key) {
        json_decref(c.body);
        return;
    }
    CK_RV rv = serve_tok_session(&srv->tok, &c.s);
    if (rv != CKR_OK) {
        p11_error(r, rv, "C_OpenSession");
    } else {
        switch (op) {
        case OP_ENCRYPT: do_encrypt(&c, 0); break;
        case OP_DECRYPT: do_encrypt(&c, 1); break;
        case OP_SIGN:    do_sign(&c, 0); break;
        case OP_VERIFY:  do_sign(&c, 1); break;
        case OP_MAC:     do_mac(&c); break;
        }
    }
    if (c.ans) {
        if (!c.key->transient)
            json_object_set_new(c.ans, "kid", json_string(c.key->kid));
        serve_reply_json(r, 200, c.ans);
    }
    serve_key *gone = serve_keys_put(srv->keys, c.key);
    if (gone && rv == CKR_OK)
        serve_key_destroy(srv->tok.fn, c.s, gone);
    else
        free(gone);
    if (rv == CKR_OK) {
        if (c.dirty)
            serve_tok_retire(&srv->tok, c.s);
        else
            serve_tok_release(&srv->tok, c.s);
    }
    json_decref(c.body);
}

/* ---- routing ------------------------------------------------------------- */

static int op_by_name(const char *s, size_t n, crypto_op *op)
{
    static const struct { const char *name; crypto_op op; } ops[] = {
        { "encrypt", OP_ENCRYPT }, { "decrypt", OP_DECRYPT }, { "sign", OP_SIGN },
        { "verify", OP_VERIFY }, { "mac", OP_MAC },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (strlen(ops[i].name) == n && strncmp(s, ops[i].name, n) == 0) {
            *op = ops[i].op;
            return 0;
        }
    }
    return -1;
}

int serve_sdkms(serve_srv *srv, const serve_req *q, serve_reply *r)
{
    const char *p = q->path;
    const int post = strcmp(q->method, "POST") == 0;
    if (strncmp(p, "/sys/v1/", 8) != 0 && strncmp(p, "/crypto/v1/", 11) != 0)
        return 0;
    if (!srv->api_key) {
        serve_reply_text(r, 404, "SDKMS emulation is off: start hsmbench serve with --api-key-env "
                                "VAR or --api-key-file FILE");
        return 1;
    }
    if (strcmp(p, "/sys/v1/session/auth") == 0 && post) {
        session_auth(srv, q, r);
        return 1;
    }
    if (strcmp(p, "/sys/v1/session/terminate") == 0 && post) {
        session_terminate(srv, q, r);
        return 1;
    }
    crypto_op op;
    if (strncmp(p, "/crypto/v1/", 11) == 0 && post && op_by_name(p + 11, strlen(p + 11), &op) == 0) {
        crypto_call(srv, q, op, NULL, r);
        return 1;
    }
    if (strcmp(p, "/crypto/v1/keys") == 0 && post) {
        if (!authorized(srv, q, r))
            return 1;
        serve_prof_lap(q->prof, SERVE_PROF_SESSION_LOOKUP);
        json_t *body = json_loadb(q->body, q->len, 0, NULL);
        serve_prof_lap(q->prof, SERVE_PROF_PARSE_REQUEST);
        if (!json_is_object(body))
            serve_reply_text(r, 400, "Invalid request body: expected a JSON object");
        else
            key_create(srv, q, body, r);
        json_decref(body);
        return 1;
    }
    if (strncmp(p, "/crypto/v1/keys/", 16) == 0) {
        /* /crypto/v1/keys/{kid} (DELETE) or /crypto/v1/keys/{kid}/{op} (the legacy form). */
        char kid[SERVE_KID_LEN + 1];
        const char *rest = p + 16, *slash = strchr(rest, '/');
        size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
        if (n != SERVE_KID_LEN) {
            serve_reply_text(r, 404, "Sobject does not exist");
            return 1;
        }
        memcpy(kid, rest, n);
        kid[n] = 0;
        if (!slash && strcmp(q->method, "DELETE") == 0) {
            if (authorized(srv, q, r))
                key_delete(srv, kid, r);
            return 1;
        }
        if (slash && post && op_by_name(slash + 1, strlen(slash + 1), &op) == 0) {
            crypto_call(srv, q, op, kid, r);
            return 1;
        }
    }
    serve_reply_text(r, 404, "Not found: %s %s", q->method, p);
    return 1;
}

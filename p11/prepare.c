/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/prepare.c - everything a test needs before the clock starts: its keys
 * (generated, imported, or found), its input, and what a right result looks
 * like (its length; with --verify, the expected value).
 */
#include "p11/tests.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/rsa.h>

#include "bench/util/cli.h"
#include "p11/async.h"
#include "p11/pkcs11_3x.h"
#include "p11/names.h"
#include "p11/verify.h"

static unsigned key_uses(p11_op op)
{
    switch (op) {
    case P11_OP_SIGN:
    case P11_OP_VERIFY:  return KEYS_USE_SIGN;
    case P11_OP_ENCRYPT:
    case P11_OP_DECRYPT:
    case P11_OP_FIND:    return KEYS_USE_ENCRYPT;
    case P11_OP_WRAP:
    case P11_OP_UNWRAP:  return KEYS_USE_WRAP;
    case P11_OP_DERIVE:  return KEYS_USE_DERIVE;
    default:             return 0;
    }
}

/* Fill the spec for the test's main key. */
static void main_spec(const p11_test_ctx *ctx, keys_spec *spec)
{
    const p11_test_def *def = ctx->def;
    memset(spec, 0, sizeof *spec);
    spec->type = def->key;
    spec->bits = def->key == KEYS_DES3 ? 192 : ctx->params.key_bits;
    spec->curve = ctx->params.curve;
    spec->uses = key_uses(def->op);
    /* Decrypt tests encrypt their input first; unwrap tests wrap it first. */
    if (def->op == P11_OP_DECRYPT)
        spec->uses |= KEYS_USE_ENCRYPT;
    if (def->op == P11_OP_VERIFY && !ctx->params.verify)
        spec->uses |= KEYS_USE_SIGN;
    spec->token = ctx->params.keys == P11_KEYS_TOKEN;
    spec->label = ctx->label;
}

/* Why preparing failed: one line on stderr, kept as the test's reason. */
static int say(p11_test_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(p11_test_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int at = ctx->params.where ? snprintf(ctx->why, sizeof ctx->why, "%s: ", ctx->params.where) : 0;
    if (at < 0 || (size_t)at >= sizeof ctx->why)
        at = 0;
    vsnprintf(ctx->why + at, sizeof ctx->why - (size_t)at, fmt, ap);
    va_end(ap);
    bench_error("%s: %s", ctx->def->name, ctx->why);
    return -1;
}

/* Codes with which tokens refuse session objects (CKA_TOKEN false) or keys
 * made on a read-only session. */
static int refuses_session_keys(CK_RV rv)
{
    return rv == CKR_SESSION_READ_ONLY || rv == CKR_TEMPLATE_INCONSISTENT ||
           rv == CKR_ATTRIBUTE_VALUE_INVALID || rv == CKR_TOKEN_WRITE_PROTECTED;
}

/* Codes with which tokens refuse C_CreateObject of a key. */
static int refuses_import(CK_RV rv)
{
    return rv == CKR_FUNCTION_NOT_SUPPORTED || rv == CKR_TEMPLATE_INCONSISTENT ||
           rv == CKR_ATTRIBUTE_VALUE_INVALID || rv == CKR_ATTRIBUTE_READ_ONLY ||
           rv == CKR_ACTION_PROHIBITED || rv == CKR_FUNCTION_REJECTED;
}

static int fail_rv(p11_test_ctx *ctx, const char *what, CK_RV rv)
{
    char rb[32];
    if (ctx->params.keys == P11_KEYS_GENERATE && refuses_session_keys(rv))
        return say(ctx, "%s: %s: the token refuses session keys (CKA_TOKEN false); use "
                   "--token-keys, or --key-label with a key made by hsmbench keys create",
                   what, p11_rv_name(rv, rb, sizeof rb));
    return say(ctx, "%s: %s", what, p11_rv_name(rv, rb, sizeof rb));
}

static void release_key(p11_test_ctx *ctx, keys_handle *k);

/* Did the token refuse a key's use as it refuses a handle it does not know? */
static int refuses_use(CK_RV rv)
{
    return rv == CKR_OBJECT_HANDLE_INVALID || rv == CKR_KEY_HANDLE_INVALID;
}

/*
 * A token may accept an imported key and then refuse every use of it:
 * Caml Crush's default filter hides the objects C_CreateObject made, and
 * answers CKR_OBJECT_HANDLE_INVALID when one is used (issue 41: 14 sign and
 * HMAC tests measured nothing but that code).  The test's operation is
 * started once with the key, on a session of its own closed at once (which
 * ends the operation), before the clock: the code it answered (*call names
 * the function), CKR_OK for the operations this does not try (wrap,
 * unwrap, derive).
 */
static CK_RV try_use(const p11_test_ctx *ctx, const char **call)
{
    const p11_op op = ctx->def->op;
    const CK_OBJECT_HANDLE key = keys_is_pair(ctx->def->key) && (op == P11_OP_VERIFY || op == P11_OP_ENCRYPT)
                                     ? ctx->keys.pub : ctx->keys.priv;
    CK_FUNCTION_LIST *fn = ctx->fn;
    CK_SESSION_HANDLE s = CK_INVALID_HANDLE;
    p11_mech_state ms;
    CK_RV rv = CKR_OK;

    *call = op == P11_OP_SIGN ? "C_SignInit" : op == P11_OP_VERIFY ? "C_VerifyInit"
          : op == P11_OP_ENCRYPT ? "C_EncryptInit" : op == P11_OP_DECRYPT ? "C_DecryptInit" : NULL;
    if (!*call)
        return CKR_OK;
    p11_mech_init(ctx, 0, &ms);
    if ((rv = fn->C_OpenSession(ctx->slot, CKF_SERIAL_SESSION, NULL, NULL, &s)) != CKR_OK) {
        *call = "C_OpenSession";
        goto cleanup;
    }
    if (op == P11_OP_SIGN)
        rv = fn->C_SignInit(s, &ms.mech, key);
    else if (op == P11_OP_VERIFY)
        rv = fn->C_VerifyInit(s, &ms.mech, key);
    else if (op == P11_OP_ENCRYPT)
        rv = fn->C_EncryptInit(s, &ms.mech, key);
    else
        rv = fn->C_DecryptInit(s, &ms.mech, key);
cleanup:
    /* A close that fails changes nothing here: the code is the Init's. */
    if (s != CK_INVALID_HANDLE && fn->C_CloseSession(s) != CKR_OK && rv == CKR_OK)
        *call = "C_CloseSession";
    return rv;
}

/* --verify on a token that will not use the keys it is given: generate them
 * there, and check by the public key or by a round trip, saying so.  The
 * imported keys are destroyed first (listed when that fails). */
static CK_RV generate_instead(p11_test_ctx *ctx, const keys_spec *spec, const char *why)
{
    const p11_test_def *def = ctx->def;
    bench_warn("%s: %s: --verify uses keys generated in the token, %s", def->name, why,
               keys_is_pair(def->key) ? "their public key read back for OpenSSL"
                                      : "results checked by a round trip in the token");
    release_key(ctx, &ctx->keys);
    keys_material_free(ctx->material);
    ctx->material = NULL;
    ctx->round_trip = 1;
    return keys_make(ctx->fn, ctx->control, spec, NULL, &ctx->keys);
}

/* The main key: generated, imported, or found. */
static CK_RV make_keys(p11_test_ctx *ctx)
{
    const p11_test_def *def = ctx->def;
    const p11_test_params *p = &ctx->params;
    keys_spec spec;
    char kd[48], err[200];
    CK_RV rv;

    if (def->key == KEYS_NONE || def->op == P11_OP_KEYGEN)
        return CKR_OK;
    main_spec(ctx, &spec);
    p11_test_key_desc(def, p, kd, sizeof kd);

    if (p->keys == P11_KEYS_EXISTING) {
        int found = 0;
        CK_OBJECT_CLASS cls = keys_is_pair(def->key) ? CKO_PRIVATE_KEY : CKO_SECRET_KEY;
        rv = keys_find(ctx->fn, ctx->control, cls, p->key_label, p->key_id, p->key_id_len,
                       &ctx->keys.priv, &found);
        if (rv != CKR_OK)
            return fail_rv(ctx, "finding the key", rv), rv;
        if (!found) {
            say(ctx, "no %s key with that label/ID on the token",
                keys_is_pair(def->key) ? "private" : "secret");
            return CKR_KEY_HANDLE_INVALID;
        }
        if (found > 1)
            bench_warn("%s: %d keys match; using the first", def->name, found);
        if (keys_is_pair(def->key)) {
            rv = keys_find(ctx->fn, ctx->control, CKO_PUBLIC_KEY, p->key_label, p->key_id,
                           p->key_id_len, &ctx->keys.pub, &found);
            if (rv != CKR_OK || !found) {
                if (def->op == P11_OP_VERIFY || def->op == P11_OP_ENCRYPT) {
                    say(ctx, "no public key with that label/ID on the token");
                    return CKR_KEY_HANDLE_INVALID;
                }
                ctx->keys.pub = 0;
            }
        }
        ctx->keys.created = 0;   /* found, not made: never destroyed */
        return CKR_OK;
    }
    if (p->keys == P11_KEYS_STATIC) {
        ctx->material = keys_material_load(p->static_key, &spec, err, sizeof err);
        if (!ctx->material) {
            say(ctx, "--static-key %s: %s", p->static_key, err);
            return CKR_GENERAL_ERROR;
        }
    } else if (p->verify) {
        /* Keys whose material we hold, so OpenSSL can check every result. */
        ctx->material = keys_material_new(&spec);
        if (!ctx->material) {
            say(ctx, "OpenSSL could not make a %s key", kd);
            return CKR_GENERAL_ERROR;
        }
    }
    if (ctx->material) {
        char rb[32], why[160];
        const char *call = "";
        CK_RV use = CKR_OK;
        rv = keys_make(ctx->fn, ctx->control, &spec, ctx->material, &ctx->keys);
        if (rv != CKR_OK && refuses_import(rv)) {
            if (p->keys == P11_KEYS_STATIC) {
                say(ctx, "importing the --static-key: C_CreateObject: %s: the token refuses key "
                    "import; use --key-label with a key made in the token (hsmbench keys create)",
                    p11_rv_name(rv, rb, sizeof rb));
                return rv;
            }
            /* --verify on a token that makes its own keys only. */
            snprintf(why, sizeof why, "the token refuses imported keys (C_CreateObject: %s)",
                     p11_rv_name(rv, rb, sizeof rb));
            rv = generate_instead(ctx, &spec, why);
        } else if (rv == CKR_OK && refuses_use(use = try_use(ctx, &call))) {
            if (p->keys == P11_KEYS_STATIC) {
                say(ctx, "the token took the --static-key (C_CreateObject) but refuses to use it "
                    "(%s: %s); use --key-label with a key made in the token (hsmbench keys create)",
                    call, p11_rv_name(use, rb, sizeof rb));
                return use;
            }
            /* Accepted, then hidden (Caml Crush's filter). */
            snprintf(why, sizeof why, "the token accepts imported keys but refuses to use them "
                     "(%s with the imported key: %s)", call, p11_rv_name(use, rb, sizeof rb));
            rv = generate_instead(ctx, &spec, why);
        }
    } else {
        rv = keys_make(ctx->fn, ctx->control, &spec, NULL, &ctx->keys);
    }
    if (rv != CKR_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s the %s key", ctx->material ? "importing" : "generating", kd);
        fail_rv(ctx, what, rv);
    }
    return rv;
}

/* An extractable AES-256 key to wrap (wrap tests) or to make a blob from. */
static CK_RV make_target(p11_test_ctx *ctx)
{
    keys_spec spec = { KEYS_AES, 256, NULL, KEYS_USE_ENCRYPT, 0, 1, ctx->aux_label };
    CK_RV rv;
    spec.token = ctx->params.keys == P11_KEYS_TOKEN;
    ctx->aux_material = keys_material_new(&spec);
    if (!ctx->aux_material) {
        say(ctx, "OpenSSL could not make the target key");
        return CKR_GENERAL_ERROR;
    }
    rv = keys_make(ctx->fn, ctx->control, &spec, ctx->aux_material, &ctx->aux);
    if (rv == CKR_OK)
        return rv;
    /* Tokens that refuse imported secrets: generate it instead (unknown value). */
    keys_material_free(ctx->aux_material);
    ctx->aux_material = NULL;
    rv = keys_make(ctx->fn, ctx->control, &spec, NULL, &ctx->aux);
    if (rv != CKR_OK)
        fail_rv(ctx, "making the AES-256 target key", rv);
    return rv;
}

static CK_RV set_input(p11_test_ctx *ctx, const unsigned char *v, size_t n)
{
    free(ctx->input);
    ctx->input = malloc(n ? n : 1);
    if (!ctx->input)
        return CKR_HOST_MEMORY;
    memcpy(ctx->input, v, n);
    ctx->input_len = (CK_ULONG)n;
    return CKR_OK;
}

/* From the data to the bytes the operation is given. */
static CK_RV build_input(p11_test_ctx *ctx)
{
    const p11_test_def *def = ctx->def;
    unsigned char md[EVP_MAX_MD_SIZE], buf[EVP_MAX_MD_SIZE + 32];
    unsigned int mdlen = 0;

    switch (def->input) {
    case P11_IN_DATA:
        return set_input(ctx, ctx->data, ctx->data_len);
    case P11_IN_HASH:
    case P11_IN_DIGESTINFO: {
        const EVP_MD *m = p11_hash_md(ctx->params.hash);
        if (!m || EVP_Digest(ctx->data, ctx->data_len, md, &mdlen, m, NULL) != 1) {
            say(ctx, "OpenSSL could not hash the input");
            return CKR_GENERAL_ERROR;
        }
        if (def->input == P11_IN_HASH)
            return set_input(ctx, md, mdlen);
        size_t plen;
        const unsigned char *prefix = p11_digestinfo_prefix(ctx->params.hash, &plen);
        memcpy(buf, prefix, plen);
        memcpy(buf + plen, md, mdlen);
        return set_input(ctx, buf, plen + mdlen);
    }
    case P11_IN_MODULUS: {
        CK_ULONG k = keys_rsa_modulus_len(ctx->fn, ctx->control, ctx->keys.pub ? ctx->keys.pub
                                                                               : ctx->keys.priv);
        if (!k)
            k = (ctx->params.key_bits + 7) / 8;
        unsigned char *blk = calloc(1, k);
        if (!blk)
            return CKR_HOST_MEMORY;
        /* A leading zero byte keeps the block below any modulus of that length. */
        for (CK_ULONG i = 1; i < k; i++)
            blk[i] = (unsigned char)(i * 131 + 17);
        CK_RV rv = set_input(ctx, blk, k);
        free(blk);
        return rv;
    }
    case P11_IN_NONE:
        return CKR_OK;
    }
    return CKR_OK;
}

/* The RSA modulus in bytes (0: not an RSA test, or unreadable). */
static CK_ULONG modulus_len(const p11_test_ctx *ctx)
{
    if (ctx->def->key != KEYS_RSA || ctx->def->op == P11_OP_KEYGEN)
        return 0;
    return keys_rsa_modulus_len(ctx->fn, ctx->control, ctx->keys.pub ? ctx->keys.pub : ctx->keys.priv);
}

/* The length of a key wrapped by the test's mechanism: a 32-byte AES key
 * (RFC 3394 and 5649: 40; NSS's CKM_AES_KEY_WRAP_PAD, RFC 3394 after
 * PKCS#7 padding: 48), or an RSA modulus. */
static CK_ULONG wrapped_length(const p11_test_ctx *ctx, CK_ULONG k)
{
    if (ctx->def->key == KEYS_RSA)
        return k;
    if (ctx->mech == CKM_AES_KEY_WRAP_PAD && ctx->variant && strcmp(ctx->variant, "pkcs7") == 0)
        return 48;
    return 40;
}

/* Length of a right result of `op` on n input bytes, for checks; 0 when it
 * varies or there is none. */
static CK_ULONG length_for(p11_test_ctx *ctx, p11_op op, CK_ULONG n, CK_ULONG k)
{
    const p11_test_def *def = ctx->def;
    CK_MECHANISM_TYPE m = ctx->mech;

    switch (op) {
    case P11_OP_SIGN:
        if (def->key == KEYS_RSA)
            return k;
        if (def->key == KEYS_EC)
            return 2 * ((ctx->params.key_bits + 7) / 8);
        if (def->key == KEYS_ED25519)
            return 64;
        if (def->key == KEYS_GENERIC) {
            return m == CKM_SHA_1_HMAC ? 20 : m == CKM_SHA256_HMAC ? 32 : m == CKM_SHA384_HMAC ? 48 : 64;
        }
        return 0;
    case P11_OP_ENCRYPT:
        if (def->key == KEYS_RSA)
            return k;
        if (m == CKM_AES_GCM)
            return n + 16;
        if (m == CKM_AES_CBC_PAD)
            return (n / 16 + 1) * 16;
        return n;
    case P11_OP_DECRYPT:
        if (m == CKM_RSA_X_509)
            return k;
        return (CK_ULONG)ctx->expect_n;
    case P11_OP_DIGEST:
        return m == CKM_SHA_1 ? 20 : m == CKM_SHA224 ? 28 : m == CKM_SHA256 ? 32
             : m == CKM_SHA384 ? 48 : m == CKM_SHA512 ? 64 : m == 0x2b0 ? 32 : m == 0x2c0 ? 48 : 64;
    case P11_OP_WRAP:
        return wrapped_length(ctx, k);
    case P11_OP_RANDOM:
        return (CK_ULONG)ctx->data_len;
    default:
        return 0;
    }
}

/* "a 2048-bit key", "the AES 256 key": what a length is expected for. */
static const char *key_words(const p11_test_ctx *ctx, char *buf, size_t len)
{
    char kd[48];
    if (ctx->def->key == KEYS_RSA)
        snprintf(buf, len, "a %u-bit key", ctx->params.key_bits);
    else
        snprintf(buf, len, "the %s key", p11_test_key_desc(ctx->def, &ctx->params, kd, sizeof kd));
    return buf;
}

/* Nothing the module made before the clock is trusted: an input of the
 * wrong length fails the test here, naming the module's answer. */
static CK_RV check_made(p11_test_ctx *ctx, const char *call, CK_ULONG got, CK_ULONG want)
{
    char kw[64];
    if (!want || got == want)
        return CKR_OK;
    say(ctx, "preparing input: the module's %s returned %lu bytes for %s (expected %lu)", call,
        (unsigned long)got, key_words(ctx, kw, sizeof kw), (unsigned long)want);
    return CKR_GENERAL_ERROR;
}

/* CKM_AES_KEY_WRAP_PAD means RFC 5649 to most modules and RFC 3394 after
 * PKCS#7 padding to NSS: a wrapped 32-byte key of 40 or 48 bytes says which. */
static CK_RV detect_variant(p11_test_ctx *ctx, CK_ULONG got)
{
    char kw[64];
    if (ctx->mech != CKM_AES_KEY_WRAP_PAD)
        return CKR_OK;
    if (got == 40)
        ctx->variant = "rfc5649";
    else if (got == 48)
        ctx->variant = "pkcs7";
    else
        return say(ctx, "preparing input: the module's C_WrapKey returned %lu bytes for %s (expected "
                   "40, RFC 5649, or 48, RFC 3394 with PKCS#7 padding)", (unsigned long)got,
                   key_words(ctx, kw, sizeof kw)), CKR_GENERAL_ERROR;
    return CKR_OK;
}

/*
 * Destroy a key we made, each half retried (p11_destroy).  A token object
 * that stays is listed at the end (ctx->leftovers); a session object goes
 * with the control session at the latest, so it only earns a warning.
 */
/* A made token key's half i (0 private or secret, 1 public) in a list of
 * leftovers, as release_key and p11_test_note_keys name it. */
static void note_half(const p11_test_ctx *ctx, const keys_handle *k, int i, p11_leftovers *l)
{
    char type[32];
    const char *kt = p11_test_key_type(ctx->def);
    const char *label = k == &ctx->keys ? ctx->label : ctx->made_label;  /* else the keygen probe */
    if (k == &ctx->aux) {
        kt = "AES";                 /* the wrap target */
        label = ctx->aux_label;
    }
    snprintf(type, sizeof type, "%s %s", kt ? kt : "",
             i ? "public key" : k->pub ? "private key" : "secret key");
    p11_leftovers_add(l, ctx->slot, label, type, NULL);
}

void p11_test_note_keys(const p11_test_ctx *ctx, p11_leftovers *l)
{
    const keys_handle *both[2] = { &ctx->keys, &ctx->aux };
    for (size_t k = 0; ctx->params.keys == P11_KEYS_TOKEN && k < 2; k++)
        for (int i = 0; both[k]->created && i < 2; i++)
            if (i ? both[k]->pub : both[k]->priv)
                note_half(ctx, both[k], i, l);
}

unsigned p11_test_note_abandoned(const p11_test_ctx *ctx, p11_leftovers *l)
{
    const unsigned n = ctx->def->op == P11_OP_KEYGEN ? atomic_load(&ctx->making) : 0;
    if (!n || ctx->params.keys != P11_KEYS_TOKEN)
        return 0;    /* session keys go with the abandoned session */
    const int pair = keys_is_pair(ctx->def->key);
    const char *kt = p11_test_key_type(ctx->def);
    bench_warn("%s: %u %s abandoned as stuck may still make %s on the token, labelled %s: "
               "listed below", ctx->def->name, n, pair ? "C_GenerateKeyPair calls" : "C_GenerateKey calls",
               pair ? "their key pairs" : "their keys", ctx->made_label);
    for (unsigned i = 0; i < n; i++) {
        char type[32];
        snprintf(type, sizeof type, "%s %s", kt ? kt : "", pair ? "private key" : "secret key");
        p11_leftovers_add(l, ctx->slot, ctx->made_label, type, NULL);
        if (pair) {
            snprintf(type, sizeof type, "%s public key", kt ? kt : "");
            p11_leftovers_add(l, ctx->slot, ctx->made_label, type, NULL);
        }
    }
    return n;
}

static void release_key(p11_test_ctx *ctx, keys_handle *k)
{
    char rb[32];
    int token = ctx->params.keys == P11_KEYS_TOKEN;
    CK_OBJECT_HANDLE halves[2] = { k->priv, k->pub };
    const char *roles[2] = { k->pub ? "private key" : "secret key", "public key" };
    if (!k->created) {
        memset(k, 0, sizeof *k);    /* found, not made: never destroyed */
        return;
    }
    for (int i = 0; i < 2; i++) {
        if (!halves[i])
            continue;
        CK_RV rv = p11_destroy(ctx->fn, ctx->slot, ctx->control, halves[i]);
        if (rv == CKR_OK)
            continue;
        if (token && ctx->leftovers) {
            note_half(ctx, k, i, ctx->leftovers);
        } else {
            bench_warn("%s: destroying a benchmark %s: %s (a session object: it goes when the "
                       "session closes)", ctx->def->name, roles[i], p11_rv_name(rv, rb, sizeof rb));
        }
    }
    memset(k, 0, sizeof *k);
}

/* One operation run by the control session (untimed): a signature for
 * verify tests, a ciphertext for decrypt tests, a blob for unwrap tests. */
static CK_RV one_shot(p11_test_ctx *ctx, p11_op op, CK_MECHANISM *mech, CK_OBJECT_HANDLE key,
                      const unsigned char *in, CK_ULONG in_len, unsigned char **out, CK_ULONG *out_len)
{
    CK_FUNCTION_LIST *fn = ctx->fn;
    CK_SESSION_HANDLE s = ctx->control;
    CK_ULONG cap = in_len + 2048;
    unsigned char *buf = malloc(cap);
    CK_RV rv;

    if (!buf)
        return CKR_HOST_MEMORY;
    if (op == P11_OP_SIGN) {
        rv = fn->C_SignInit(s, mech, key);
        if (rv == CKR_OK)
            rv = fn->C_Sign(s, (CK_BYTE_PTR)in, in_len, buf, &cap);
    } else if (op == P11_OP_ENCRYPT) {
        rv = fn->C_EncryptInit(s, mech, key);
        if (rv == CKR_OK)
            rv = fn->C_Encrypt(s, (CK_BYTE_PTR)in, in_len, buf, &cap);
    } else {
        rv = fn->C_WrapKey(s, mech, key, ctx->aux.priv, buf, &cap);
    }
    if (rv != CKR_OK) {
        free(buf);
        return rv;
    }
    *out = buf;
    *out_len = cap;
    return CKR_OK;
}

/* What verify, decrypt and unwrap tests consume, made once. */
static CK_RV make_inputs(p11_test_ctx *ctx)
{
    const p11_test_def *def = ctx->def;
    p11_mech_state ms;
    CK_RV rv = CKR_OK;
    unsigned char *out = NULL;
    CK_ULONG out_len = 0;

    p11_mech_init(ctx, 0, &ms);
    if (def->op == P11_OP_VERIFY) {
        if (ctx->params.verify && ctx->material) {
            /* Signatures OpenSSL made: the token must accept them. */
            if (p11_sign_software(ctx, ctx->input, ctx->input_len, &out, &out_len) != 0) {
                say(ctx, "OpenSSL could not make the signature to verify");
                return CKR_GENERAL_ERROR;
            }
        } else {
            rv = one_shot(ctx, P11_OP_SIGN, &ms.mech, ctx->keys.priv, ctx->input, ctx->input_len,
                          &out, &out_len);
            if (rv != CKR_OK)
                return fail_rv(ctx, "making the signature to verify", rv), rv;
        }
        ctx->sig = out;
        ctx->sig_len = out_len;
        rv = check_made(ctx, "C_Sign", out_len, length_for(ctx, P11_OP_SIGN, ctx->input_len,
                                                           modulus_len(ctx)));
    } else if (def->op == P11_OP_DECRYPT) {
        /* The plaintext each decryption must give back. */
        ctx->expect = malloc(ctx->input_len ? ctx->input_len : 1);
        if (!ctx->expect)
            return CKR_HOST_MEMORY;
        memcpy(ctx->expect, ctx->input, ctx->input_len);
        ctx->expect_n = ctx->input_len;
        if (ctx->mech == CKM_RSA_X_509) {
            /* Any block below the modulus decrypts; the input stays as built. */
            return CKR_OK;
        }
        if (ctx->params.verify && ctx->material) {
            if (p11_encrypt_software(ctx, &ms, ctx->input, ctx->input_len, &out, &out_len) != 0) {
                say(ctx, "OpenSSL could not make the ciphertext to decrypt");
                return CKR_GENERAL_ERROR;
            }
        } else {
            CK_OBJECT_HANDLE enc = keys_is_pair(def->key) ? ctx->keys.pub : ctx->keys.priv;
            rv = one_shot(ctx, P11_OP_ENCRYPT, &ms.mech, enc, ctx->input, ctx->input_len, &out,
                          &out_len);
            if (rv != CKR_OK)
                return fail_rv(ctx, "making the ciphertext to decrypt", rv), rv;
            rv = check_made(ctx, "C_Encrypt", out_len, length_for(ctx, P11_OP_ENCRYPT,
                                                                  ctx->input_len, modulus_len(ctx)));
        }
        free(ctx->input);
        ctx->input = out;
        ctx->input_len = out_len;
    } else if (def->op == P11_OP_UNWRAP) {
        CK_OBJECT_HANDLE wrapper = keys_is_pair(def->key) ? ctx->keys.pub : ctx->keys.priv;
        rv = one_shot(ctx, P11_OP_WRAP, &ms.mech, wrapper, NULL, 0, &out, &out_len);
        if (rv != CKR_OK)
            return fail_rv(ctx, "wrapping the key to unwrap", rv), rv;
        free(ctx->input);
        ctx->input = out;
        ctx->input_len = out_len;
        if ((rv = detect_variant(ctx, out_len)) == CKR_OK)
            rv = check_made(ctx, "C_WrapKey", out_len, length_for(ctx, P11_OP_WRAP, 0, modulus_len(ctx)));
    } else if (def->op == P11_OP_WRAP && ctx->mech == CKM_AES_KEY_WRAP_PAD) {
        /* One wrap before the clock tells which CKM_AES_KEY_WRAP_PAD this is. */
        rv = one_shot(ctx, P11_OP_WRAP, &ms.mech, ctx->keys.priv, NULL, 0, &out, &out_len);
        if (rv != CKR_OK)
            return fail_rv(ctx, "wrapping a key before the run", rv), rv;
        free(out);
        rv = detect_variant(ctx, out_len);
    }
    return rv;
}

/* ECDH: a peer key pair in software; its public point is the input. */
static CK_RV make_peer(p11_test_ctx *ctx)
{
    keys_spec spec = { KEYS_EC, ctx->params.key_bits, ctx->params.curve, 0, 0, 0, NULL };
    keys_material *peer = keys_material_new(&spec);
    unsigned char point[200];
    size_t plen = 0;

    if (!peer || EVP_PKEY_get_octet_string_param(peer->pkey, OSSL_PKEY_PARAM_PUB_KEY, point,
                                                 sizeof point, &plen) != 1) {
        keys_material_free(peer);
        say(ctx, "OpenSSL could not make the peer key");
        return CKR_GENERAL_ERROR;
    }
    ctx->peer = peer->pkey;
    peer->pkey = NULL;
    keys_material_free(peer);
    ctx->peer_point = malloc(plen);
    if (!ctx->peer_point)
        return CKR_HOST_MEMORY;
    memcpy(ctx->peer_point, point, plen);
    ctx->peer_len = (CK_ULONG)plen;
    return CKR_OK;
}

/* Public keys the module made: an EC point of the curve's size (a DER
 * OCTET STRING of 1 + 2f bytes, or the bare point), an RSA modulus of the
 * size asked for. */
static CK_RV check_public(p11_test_ctx *ctx)
{
    const p11_test_def *def = ctx->def;
    char kw[64];
    /* Checked where the public key is used: verify and encrypt tests, --verify. */
    int used = def->op == P11_OP_VERIFY || def->op == P11_OP_ENCRYPT || ctx->params.verify;
    if (!ctx->keys.pub || !ctx->keys.created || ctx->material || !used)
        return CKR_OK;
    if (def->key == KEYS_RSA) {
        CK_ULONG k = keys_rsa_modulus_len(ctx->fn, ctx->control, ctx->keys.pub);
        if (k && k != (ctx->params.key_bits + 7) / 8)
            return say(ctx, "preparing keys: the module's C_GenerateKeyPair made a %lu-byte modulus "
                       "for %s (expected %u)", (unsigned long)k, key_words(ctx, kw, sizeof kw),
                       (ctx->params.key_bits + 7) / 8), CKR_GENERAL_ERROR;
    } else if (def->key == KEYS_EC) {
        CK_ATTRIBUTE a = { CKA_EC_POINT, NULL, 0 };
        CK_ULONG pt = 1 + 2 * ((ctx->params.key_bits + 7) / 8);
        CK_ULONG der = pt + (pt < 128 ? 2 : 3);
        if (ctx->fn->C_GetAttributeValue(ctx->control, ctx->keys.pub, &a, 1) == CKR_OK &&
            a.ulValueLen != (CK_ULONG)-1 && a.ulValueLen != pt && a.ulValueLen != der)
            return say(ctx, "preparing keys: the module's public key has a %lu-byte CKA_EC_POINT for "
                       "%s (expected %lu, or %lu as a DER OCTET STRING)", (unsigned long)a.ulValueLen,
                       key_words(ctx, kw, sizeof kw), (unsigned long)pt, (unsigned long)der),
                   CKR_GENERAL_ERROR;
    }
    return CKR_OK;
}

/* Key-generation tests make their keys in the workers: one made and
 * destroyed before the clock shows a token that refuses them (the CKR_*
 * named, with the way out where there is one), instead of a run of
 * nothing but errors. */
static CK_RV probe_keygen(p11_test_ctx *ctx)
{
    keys_spec spec;
    keys_handle h;
    if (ctx->def->op != P11_OP_KEYGEN)
        return CKR_OK;
    memset(&spec, 0, sizeof spec);
    spec.type = ctx->def->key;
    spec.bits = ctx->params.key_bits;
    spec.curve = ctx->params.curve;
    spec.uses = keys_is_pair(ctx->def->key) ? KEYS_USE_SIGN : KEYS_USE_ENCRYPT;
    spec.label = ctx->made_label;
    spec.token = ctx->params.keys == P11_KEYS_TOKEN;
    CK_RV rv = keys_generate(ctx->fn, ctx->control, &spec, &h);
    if (rv == CKR_OK) {
        release_key(ctx, &h);
        return CKR_OK;
    }
    /* Whatever the token answers, a test whose every operation would fail
     * the same way is not run (the others fail at preparation alike). */
    return fail_rv(ctx, "generating a key before the run", rv), rv;
}

/* "RSA", "EC", ... for a key type. */
static const char *type_word(keys_type t)
{
    switch (t) {
    case KEYS_RSA:     return "an RSA";
    case KEYS_EC:      return "an EC";
    case KEYS_ED25519: return "an Ed25519";
    case KEYS_AES:     return "an AES";
    case KEYS_DES3:    return "a 3DES";
    case KEYS_GENERIC: return "a generic secret (HMAC)";
    case KEYS_NONE:    break;
    }
    return "an unknown";
}

/* The existing key's facts (its public half's, for a pair, when there is one);
 * 0 and *found 0 when none matches. */
static CK_RV existing_facts(const p11_test_def *def, const p11_test_params *in, CK_FUNCTION_LIST *fn,
                            CK_SESSION_HANDLE s, keys_facts *f, int *found)
{
    CK_OBJECT_HANDLE h = 0, pub = 0;
    int npub = 0;
    CK_OBJECT_CLASS cls = keys_is_pair(def->key) ? CKO_PRIVATE_KEY : CKO_SECRET_KEY;
    CK_RV rv = keys_find(fn, s, cls, in->key_label, in->key_id, in->key_id_len, &h, found);
    if (rv != CKR_OK || !*found)
        return rv;
    if (keys_is_pair(def->key) &&
        keys_find(fn, s, CKO_PUBLIC_KEY, in->key_label, in->key_id, in->key_id_len, &pub, &npub) == CKR_OK &&
        npub && keys_read_facts(fn, s, pub, f) == CKR_OK && f->bits)
        return CKR_OK;
    return keys_read_facts(fn, s, h, f);
}

/* The static key's facts; -1 (printed) when it does not suit the test. */
static int static_facts(const p11_test_def *def, const p11_test_params *in, keys_facts *f)
{
    char err[200];
    keys_spec spec = { def->key, 0, NULL, 0, 0, 0, NULL };
    if (def->key == KEYS_EC) {
        /* What the user asked for, if anything: --curve, or --key-size as its alias. */
        spec.curve = in->curve ? in->curve : in->key_bits == 256 ? "P-256" : in->key_bits == 384 ? "P-384"
                   : in->key_bits == 521 ? "P-521" : NULL;
    } else {
        spec.bits = in->key_bits;
    }
    keys_material *m = keys_material_load(in->static_key, &spec, err, sizeof err);
    if (!m) {
        bench_error("--static-key %s: %s (test %s)", in->static_key, err, def->name);
        return -1;
    }
    int rc = keys_material_facts(m, def->key, f);
    keys_material_free(m);
    if (rc != 0)
        memset(f, 0, sizeof *f);
    f->type = def->key;
    return 0;
}

int p11_test_key_facts(const p11_test_def *def, const p11_test_params *in, CK_FUNCTION_LIST *fn,
                       CK_SESSION_HANDLE s, char *origin, size_t olen, p11_test_params *out)
{
    keys_facts f;
    char who[160];
    *out = *in;
    if (def->key == KEYS_NONE || def->op == P11_OP_KEYGEN || def->op == P11_OP_FIND ||
        (in->keys != P11_KEYS_EXISTING && in->keys != P11_KEYS_STATIC))
        return 0;
    if (in->keys == P11_KEYS_STATIC) {
        if (static_facts(def, in, &f) != 0)
            return -1;
        snprintf(who, sizeof who, "--static-key %s", in->static_key);
    } else {
        int found = 0;
        if (existing_facts(def, in, fn, s, &f, &found) != CKR_OK || !found)
            return 0;    /* preparing the test names what went wrong */
        if (in->key_label) {
            snprintf(who, sizeof who, "--key-label %s", in->key_label);
        } else {
            size_t at = (size_t)snprintf(who, sizeof who, "--key-id ");
            for (size_t i = 0; i < in->key_id_len && at + 3 < sizeof who; i++)
                at += (size_t)snprintf(who + at, sizeof who - at, "%02x", in->key_id[i]);
        }
    }
    const char *want = type_word(def->key);
    if (f.type != def->key) {
        if (f.type == KEYS_NONE)
            bench_error("%s: a key of type CKK 0x%lx; %s needs %s key", who, (unsigned long)f.ckk,
                        def->name, want);
        else
            bench_error("%s: %s key; %s needs %s key", who, type_word(f.type), def->name, want);
        return -1;
    }
    if (def->key == KEYS_EC) {
        if (!f.curve)
            return 0;    /* a curve we cannot name: the module will say */
        if (strcmp(f.curve, "P-256") != 0 && strcmp(f.curve, "P-384") != 0 && strcmp(f.curve, "P-521") != 0) {
            bench_error("%s: an EC key on %s; %s takes P-256, P-384 or P-521", who, f.curve, def->name);
            return -1;
        }
        if (in->curve && strcmp(in->curve, f.curve) != 0) {
            bench_error("--curve %s: the key %s is on %s (leave --curve out, or give %s)", in->curve,
                        who, f.curve, f.curve);
            return -1;
        }
        if (in->key_bits && in->key_bits != f.bits) {
            bench_error("--key-size %u: the key %s is on %s (leave --key-size out, or give %u)",
                        in->key_bits, who, f.curve, f.bits);
            return -1;
        }
        out->curve = f.curve;
        out->key_bits = 0;       /* p11_test_resolve takes it from the curve */
        snprintf(origin, olen, "%s (EC %s)", who, f.curve);
    } else if (def->key_sizes && f.bits) {
        const char *kt = p11_test_key_type(def);
        if (in->key_bits && in->key_bits != f.bits) {
            bench_error("--key-size %u: the key %s is %s %u (leave --key-size out, or give %u)",
                        in->key_bits, who, kt, f.bits, f.bits);
            return -1;
        }
        const unsigned *z = def->key_sizes;
        while (*z && *z != f.bits)
            z++;
        if (!*z) {
            char list[96] = "";
            size_t used = 0;
            for (z = def->key_sizes; *z && used < sizeof list; z++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%u",
                                         z == def->key_sizes ? "" : "/", *z);
            bench_error("%s: %s %u key; %s takes %s %s", who, want, f.bits, def->name, kt, list);
            return -1;
        }
        out->key_bits = f.bits;
        snprintf(origin, olen, "%s (%s %u)", who, def->key == KEYS_GENERIC ? "HMAC" : kt, f.bits);
    } else {
        return 0;    /* Ed25519, 3DES: one size */
    }
    out->key_origin = origin;
    return 0;
}

CK_RV p11_test_prepare(p11_test_ctx *ctx, p11_module *m, CK_SLOT_ID slot,
                       CK_SESSION_HANDLE control, const p11_test_def *def,
                       const p11_test_params *params, p11_leftovers *leftovers, char *why,
                       size_t whylen)
{
    CK_RV rv;

    memset(ctx, 0, sizeof *ctx);
    if (why && whylen)
        why[0] = '\0';
    ctx->leftovers = leftovers;
    ctx->def = def;
    ctx->params = *params;
    ctx->mech = p11_test_mech(def, params);
    ctx->fn = m->fn;
    ctx->codes = &m->codes;
    ctx->slot = slot;
    const CK_FUNCTION_LIST_3_0 *f30 = p11_interface_list(m, 3, 0);
    ctx->session_cancel = f30 ? f30->C_SessionCancel : NULL;
    ctx->control = control;
    snprintf(ctx->label, sizeof ctx->label, "hsmbench-%s-%ld", def->name, (long)getpid());
    /* With --lookup, labels of their own for the other objects, so that a
     * lookup by the key's label and class finds the key alone. */
    snprintf(ctx->aux_label, sizeof ctx->aux_label, "%s%s", ctx->label, params->lookup ? "-target" : "");
    snprintf(ctx->made_label, sizeof ctx->made_label, "%s%s", ctx->label, params->lookup ? "-made" : "");

    /* The same bytes every run, so runs compare; not all zero, so no
     * module can shortcut them. */
    ctx->data_len = (size_t)params->data_size;
    ctx->data = malloc(ctx->data_len ? ctx->data_len : 1);
    if (!ctx->data) {
        bench_error("out of memory");
        return CKR_HOST_MEMORY;
    }
    for (size_t i = 0; i < ctx->data_len; i++)
        ctx->data[i] = (unsigned char)(i * 131 + 17);

    if ((rv = make_keys(ctx)) != CKR_OK)
        goto fail;
    if ((def->op == P11_OP_WRAP || def->op == P11_OP_UNWRAP) && (rv = make_target(ctx)) != CKR_OK)
        goto fail;
    if (def->op == P11_OP_DERIVE && (rv = make_peer(ctx)) != CKR_OK)
        goto fail;
    if ((rv = build_input(ctx)) != CKR_OK)
        goto fail;
    /* The public key as OpenSSL sees it, for checking results. */
    if (keys_is_pair(def->key) && def->op != P11_OP_KEYGEN) {
        if (ctx->material && ctx->material->pkey) {
            EVP_PKEY_up_ref(ctx->material->pkey);
            ctx->public_key = ctx->material->pkey;
        } else if (ctx->keys.pub) {
            ctx->public_key = keys_export_public(ctx->fn, control, def->key, params->curve, ctx->keys.pub);
        }
    }
    if ((rv = make_inputs(ctx)) != CKR_OK)
        goto fail;
    if ((rv = check_public(ctx)) != CKR_OK || (rv = probe_keygen(ctx)) != CKR_OK)
        goto fail;
    ctx->expect_len = length_for(ctx, def->op, ctx->input_len, modulus_len(ctx));
    CK_ULONG biggest = ctx->expect_len > ctx->input_len ? ctx->expect_len : ctx->input_len;
    ctx->out_cap = biggest + 64;
    if (ctx->out_cap < 1024)
        ctx->out_cap = 1024;
    if (params->verify)
        ctx->verify_how = p11_verify_how(ctx, &ctx->verify_method);
    return CKR_OK;
fail:
    if (why && whylen)
        snprintf(why, whylen, "%s", ctx->why);
    p11_test_release(ctx);
    return rv;
}

const char *p11_test_variant_text(const char *variant)
{
    if (variant && strcmp(variant, "rfc5649") == 0)
        return "CKM_AES_KEY_WRAP_PAD is RFC 5649 (40 bytes for a 32-byte key)";
    if (variant && strcmp(variant, "pkcs7") == 0)
        return "CKM_AES_KEY_WRAP_PAD is RFC 3394 after PKCS#7 padding, as NSS (48 bytes for a 32-byte key)";
    return variant ? variant : "";
}

void p11_test_destroy_keys(p11_test_ctx *ctx)
{
    keys_handle *both[2] = { &ctx->keys, &ctx->aux };
    for (size_t i = 0; i < 2; i++)
        release_key(ctx, both[i]);
}

void p11_test_release(p11_test_ctx *ctx)
{
    p11_test_destroy_keys(ctx);
    keys_material_free(ctx->material);
    keys_material_free(ctx->aux_material);
    EVP_PKEY_free(ctx->public_key);
    EVP_PKEY_free(ctx->peer);
    free(ctx->data);
    free(ctx->input);
    free(ctx->sig);
    free(ctx->expect);
    free(ctx->peer_point);
    ctx->material = ctx->aux_material = NULL;
    ctx->public_key = ctx->peer = NULL;
    ctx->data = ctx->input = ctx->sig = ctx->expect = ctx->peer_point = NULL;
}

/* p11/tests.c - the test catalogue, capability checks, and the workload. */
#include "p11/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "bench/cli.h"
#include "p11/names.h"

static const unsigned rsa_sizes[] = { 1024, 2048, 3072, 4096, 8192, 0 };
static const unsigned aes_sizes[] = { 128, 192, 256, 0 };
static const unsigned hmac_sizes[] = { 128, 160, 256, 384, 512, 0 };

#define DATA_MAX 16200   /* pkpspeed's range: 1..16200 bytes */

static const p11_test_def catalogue[] = {
    { "rsa-pkcs-sign", "RSA PKCS#1 v1.5 signature, SHA-256 hashed in the token",
      P11_OP_SIGN, CKM_SHA256_RSA_PKCS, KEYS_RSA, 2048, rsa_sizes, NULL, 32, 1, DATA_MAX, 0, 0 },
    { "ecdsa-sign", "ECDSA signature of a SHA-2 digest computed in software",
      P11_OP_SIGN, CKM_ECDSA, KEYS_EC, 0, NULL, "P-256", 32, 1, DATA_MAX, 0, 1 },
    { "hmac-sha256", "HMAC-SHA-256 over the data",
      P11_OP_SIGN, CKM_SHA256_HMAC, KEYS_GENERIC, 256, hmac_sizes, NULL, 1024, 1, DATA_MAX, 1, 0 },
    { "aes-gcm-encrypt", "AES-GCM encryption, 12-byte IV (new per operation), 128-bit tag",
      P11_OP_ENCRYPT, CKM_AES_GCM, KEYS_AES, 256, aes_sizes, NULL, 1024, 1, DATA_MAX, 1, 0 },
    { "sha256-digest", "SHA-256 digest of the data",
      P11_OP_DIGEST, CKM_SHA256, KEYS_NONE, 0, NULL, NULL, 1024, 1, DATA_MAX, 1, 0 },
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

const char *p11_test_key_type(const p11_test_def *def)
{
    switch (def->key) {
    case KEYS_RSA:     return "RSA";
    case KEYS_EC:      return "EC";
    case KEYS_AES:     return "AES";
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
    else if (def->key == KEYS_GENERIC)
        snprintf(buf, len, "HMAC %u", p->key_bits);
    else
        snprintf(buf, len, "%s %u", p11_test_key_type(def), p->key_bits);
    return buf;
}

int p11_test_resolve(const p11_test_def *def, const p11_test_params *in, p11_test_params *out)
{
    *out = *in;
    if (def->key == KEYS_EC) {
        if (in->key_bits) {
            /* --key-size 256/384/521 is accepted as a curve alias. */
            static const char *const by_bits[] = { "P-256", "P-384", "P-521" };
            const char *c = NULL;
            for (size_t i = 0; i < 3; i++)
                if (keys_curve_bits(by_bits[i]) == in->key_bits)
                    c = by_bits[i];
            if (!c) {
                bench_error("--key-size %u: not a curve size for %s (use --curve P-256|P-384|P-521)",
                            in->key_bits, def->name);
                return -1;
            }
            if (in->curve && strcmp(in->curve, c) != 0) {
                bench_error("--key-size %u and --curve %s disagree; give one of them", in->key_bits,
                            in->curve);
                return -1;
            }
            out->curve = c;
        }
        if (!out->curve)
            out->curve = def->curve_default;
        if (!keys_curve_bits(out->curve)) {
            bench_error("--curve %s: unknown curve; use P-256, P-384 or P-521", out->curve);
            return -1;
        }
        out->key_bits = keys_curve_bits(out->curve);
    } else {
        if (in->curve) {
            bench_error("--curve: %s takes no curve", def->name);
            return -1;
        }
        if (def->key_sizes == NULL) {
            if (in->key_bits) {
                bench_error("--key-size: %s takes no key size", def->name);
                return -1;
            }
            out->key_bits = 0;
        } else if (in->key_bits) {
            int ok = 0;
            char list[64] = "";
            size_t used = 0;
            for (const unsigned *s = def->key_sizes; *s; s++) {
                ok |= *s == in->key_bits;
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%u",
                                         s == def->key_sizes ? "" : "/", *s);
            }
            if (!ok) {
                bench_error("--key-size %u: %s takes %s", in->key_bits, def->name, list);
                return -1;
            }
        } else {
            out->key_bits = def->key_default;
        }
    }
    if (!in->data_size)
        out->data_size = def->data_default;
    if (out->data_size < def->data_min || out->data_size > def->data_max) {
        bench_error("--data-size %llu: %s takes %llu to %llu bytes",
                    (unsigned long long)out->data_size, def->name,
                    (unsigned long long)def->data_min, (unsigned long long)def->data_max);
        return -1;
    }
    return 0;
}

static CK_FLAGS op_flag(p11_op op)
{
    switch (op) {
    case P11_OP_SIGN:    return CKF_SIGN;
    case P11_OP_ENCRYPT: return CKF_ENCRYPT;
    case P11_OP_DIGEST:  return CKF_DIGEST;
    }
    return 0;
}

static const char *flag_word(CK_FLAGS f)
{
    return f == CKF_SIGN ? "CKF_SIGN" : f == CKF_ENCRYPT ? "CKF_ENCRYPT"
         : f == CKF_DIGEST ? "CKF_DIGEST" : f == CKF_GENERATE ? "CKF_GENERATE"
         : "CKF_GENERATE_KEY_PAIR";
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
    if (!(info.flags & need)) {
        snprintf(reason, len, "%s offered without %s", p11_mech_name(mech, mb, sizeof mb),
                 flag_word(need));
        return 0;
    }
    /* Key sizes: bits for RSA and EC; AES ranges are in bytes by the
     * standard, though some modules give bits, so read them as bits when
     * they could not be bytes.  Generic secrets vary too much to judge. */
    unsigned long have = p->key_bits, lo = info.ulMinKeySize, hi = info.ulMaxKeySize;
    if (def->key == KEYS_AES && hi && hi < 128) {
        lo *= 8;
        hi *= 8;
    }
    if ((def->key == KEYS_RSA || def->key == KEYS_EC || def->key == KEYS_AES) && hi) {
        const char *what = def->key == KEYS_EC ? "EC" : p11_test_key_type(def);
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

int p11_test_supported(const p11_module *m, CK_SLOT_ID slot, const p11_test_def *def,
                       const p11_test_params *p, char *reason, size_t len)
{
    if (!mech_ok(m, slot, def->mech, op_flag(def->op), def, p, reason, len))
        return 0;
    CK_MECHANISM_TYPE gen = keys_gen_mechanism(def->key);
    if (gen) {
        CK_FLAGS need = (def->key == KEYS_RSA || def->key == KEYS_EC) ? CKF_GENERATE_KEY_PAIR
                                                                       : CKF_GENERATE;
        if (!mech_ok(m, slot, gen, need, def, p, reason, len))
            return 0;
    }
    return 1;
}

/* The software digest ECDSA signs: as long as the curve's order. */
static const EVP_MD *ec_digest(const char *curve)
{
    unsigned bits = keys_curve_bits(curve);
    return bits >= 521 ? EVP_sha512() : bits >= 384 ? EVP_sha384() : EVP_sha256();
}

CK_RV p11_test_prepare(p11_test_ctx *ctx, const p11_module *m, CK_SLOT_ID slot,
                       CK_SESSION_HANDLE control, const p11_test_def *def,
                       const p11_test_params *params)
{
    char rb[32];

    memset(ctx, 0, sizeof *ctx);
    ctx->def = def;
    ctx->params = *params;
    ctx->fn = m->fn;
    ctx->slot = slot;
    ctx->control = control;

    /* The same bytes every run, so runs compare; not all zero, so no
     * module can shortcut them. */
    size_t n = (size_t)params->data_size;
    unsigned char *data = malloc(n);
    if (!data) {
        bench_error("out of memory");
        return CKR_HOST_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 131 + 17);

    if (def->sw_hash) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int mdlen = 0;
        if (EVP_Digest(data, n, md, &mdlen, ec_digest(params->curve), NULL) != 1) {
            free(data);
            bench_error("OpenSSL could not hash the input");
            return CKR_FUNCTION_FAILED;
        }
        memcpy(data, md, mdlen < n ? mdlen : n);
        if (mdlen > n) {
            unsigned char *bigger = realloc(data, mdlen);
            if (!bigger) {
                free(data);
                bench_error("out of memory");
                return CKR_HOST_MEMORY;
            }
            data = bigger;
            memcpy(data, md, mdlen);
        }
        n = mdlen;
    }
    ctx->input = data;
    ctx->input_len = (CK_ULONG)n;
    /* Room for any signature (RSA 8192: 1024 bytes) or ciphertext + tag. */
    ctx->out_cap = (CK_ULONG)(n + 1024 + 64);

    if (def->key != KEYS_NONE) {
        char label[64];
        snprintf(label, sizeof label, "hsmbench-%s", def->name);
        keys_spec spec = { def->key, params->key_bits, params->curve, 0, label };
        CK_RV rv = keys_generate(m->fn, control, &spec, &ctx->keys);
        if (rv != CKR_OK) {
            char kd[32];
            bench_error("%s: generating the %s key: %s", def->name,
                        p11_test_key_desc(def, params, kd, sizeof kd), p11_rv_name(rv, rb, sizeof rb));
            p11_test_release(ctx);
            return rv;
        }
    }
    return CKR_OK;
}

void p11_test_release(p11_test_ctx *ctx)
{
    char rb[32];
    if (ctx->keys.created) {
        CK_RV rv = keys_destroy(ctx->fn, ctx->control, &ctx->keys);
        if (rv != CKR_OK)
            bench_warn("%s: destroying the benchmark key: %s", ctx->def->name,
                       p11_rv_name(rv, rb, sizeof rb));
    }
    free(ctx->input);
    ctx->input = NULL;
}

void p11_test_mechanism(const p11_test_ctx *ctx, CK_MECHANISM *mech, CK_GCM_PARAMS *gcm,
                        unsigned char iv[12])
{
    memset(mech, 0, sizeof *mech);
    mech->mechanism = ctx->def->mech;
    if (ctx->def->mech == CKM_AES_GCM) {
        memset(gcm, 0, sizeof *gcm);
        gcm->pIv = iv;
        gcm->ulIvLen = 12;
        gcm->ulIvBits = 96;
        gcm->ulTagBits = 128;
        mech->pParameter = gcm;
        mech->ulParameterLen = sizeof *gcm;
    }
}

/* ---- the workload ------------------------------------------------------ */

typedef struct p11_worker {
    CK_FUNCTION_LIST *fn;
    CK_SESSION_HANDLE session;
    CK_OBJECT_HANDLE  key;
    CK_MECHANISM      mech;
    CK_GCM_PARAMS     gcm;
    unsigned char     iv[12];
    uint64_t          counter;
    unsigned char    *in;
    CK_ULONG          in_len;
    unsigned char    *out;
    CK_ULONG          out_cap;
} p11_worker;

static int worker_open(void *vctx, unsigned index, void **state, char *err, size_t errlen)
{
    const p11_test_ctx *ctx = vctx;
    char rb[32];
    p11_worker *wk = calloc(1, sizeof *wk);

    if (!wk || !(wk->out = malloc(ctx->out_cap))) {
        free(wk);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    wk->fn = ctx->fn;
    wk->key = ctx->keys.priv;
    wk->in = ctx->input;
    wk->in_len = ctx->input_len;
    wk->out_cap = ctx->out_cap;
    /* IVs never repeat under one key: worker index, then a counter. */
    wk->iv[0] = (unsigned char)(index >> 24);
    wk->iv[1] = (unsigned char)(index >> 16);
    wk->iv[2] = (unsigned char)(index >> 8);
    wk->iv[3] = (unsigned char)index;
    p11_test_mechanism(ctx, &wk->mech, &wk->gcm, wk->iv);

    CK_RV rv = ctx->fn->C_OpenSession(ctx->slot, CKF_SERIAL_SESSION, NULL, NULL, &wk->session);
    if (rv != CKR_OK) {
        snprintf(err, errlen, "C_OpenSession: %s", p11_rv_name(rv, rb, sizeof rb));
        free(wk->out);
        free(wk);
        return -1;
    }
    *state = wk;
    return 0;
}

static void worker_close(void *state)
{
    p11_worker *wk = state;
    wk->fn->C_CloseSession(wk->session);
    free(wk->out);
    free(wk);
}

static bench_code do_sign(void *state)
{
    p11_worker *wk = state;
    CK_RV rv = wk->fn->C_SignInit(wk->session, &wk->mech, wk->key);
    if (rv != CKR_OK)
        return rv;
    CK_ULONG len = wk->out_cap;
    return wk->fn->C_Sign(wk->session, wk->in, wk->in_len, wk->out, &len);
}

static bench_code do_encrypt(void *state)
{
    p11_worker *wk = state;
    uint64_t c = ++wk->counter;
    for (int i = 0; i < 8; i++)
        wk->iv[4 + i] = (unsigned char)(c >> (56 - 8 * i));
    CK_RV rv = wk->fn->C_EncryptInit(wk->session, &wk->mech, wk->key);
    if (rv != CKR_OK)
        return rv;
    CK_ULONG len = wk->out_cap;
    return wk->fn->C_Encrypt(wk->session, wk->in, wk->in_len, wk->out, &len);
}

static bench_code do_digest(void *state)
{
    p11_worker *wk = state;
    CK_RV rv = wk->fn->C_DigestInit(wk->session, &wk->mech);
    if (rv != CKR_OK)
        return rv;
    CK_ULONG len = wk->out_cap;
    return wk->fn->C_Digest(wk->session, wk->in, wk->in_len, wk->out, &len);
}

static void code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    char rb[32];
    snprintf(buf, len, "%s", p11_rv_name((CK_RV)code, rb, sizeof rb));
}

void p11_test_workload(p11_test_ctx *ctx, bench_workload *w)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->open = worker_open;
    w->close = worker_close;
    w->code_name = code_name;
    w->bytes_per_op = ctx->def->data_op ? ctx->params.data_size : 0;
    switch (ctx->def->op) {
    case P11_OP_SIGN:    w->do_one = do_sign; break;
    case P11_OP_ENCRYPT: w->do_one = do_encrypt; break;
    case P11_OP_DIGEST:  w->do_one = do_digest; break;
    }
}

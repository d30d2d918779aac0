/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/ops.c - the PKCS#11 workload: one operation per do_one(), and the
 * untimed after() that cleans up, recovers and checks.
 *
 * Real modules are quirky, so answers are not taken on trust: output
 * buffers start at what the mechanism can produce plus slack; a
 * CKR_BUFFER_TOO_SMALL is counted, and the buffer grown and the still-active
 * operation finished outside the timed path; a "successful" result of the
 * wrong length is an error (BAD_OUTPUT_LENGTH); an operation a failure left
 * active is ended at once (C_SessionCancel or a NULL-mechanism Init, else a
 * fresh Init that is finished, else a new session), and a lost session reopened within a
 * bound (and counted), so the next operation never inherits the last one's
 * trouble and each failure is counted once, under its own code.
 */
#include "p11/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/util/cli.h"
#include "p11/codes.h"
#include "p11/leftover.h"
#include "p11/names.h"

/* Consecutive failed C_OpenSession calls after which a worker stops trying:
 * its session is gone for good, and its operations fail at once. */
#define P11_REOPEN_TRIES 3

/* ---- mechanisms -------------------------------------------------------- */

static CK_MECHANISM_TYPE mgf_for(p11_hash h)
{
    switch (h) {
    case P11_HASH_SHA1:   return CKG_MGF1_SHA1;
    case P11_HASH_SHA224: return CKG_MGF1_SHA224;
    case P11_HASH_SHA384: return CKG_MGF1_SHA384;
    case P11_HASH_SHA512: return CKG_MGF1_SHA512;
    default:              return CKG_MGF1_SHA256;
    }
}

static CK_MECHANISM_TYPE hash_mech(p11_hash h)
{
    switch (h) {
    case P11_HASH_SHA1:   return CKM_SHA_1;
    case P11_HASH_SHA224: return CKM_SHA224;
    case P11_HASH_SHA384: return CKM_SHA384;
    case P11_HASH_SHA512: return CKM_SHA512;
    default:              return CKM_SHA256;
    }
}

void p11_mech_init(const p11_test_ctx *ctx, unsigned index, p11_mech_state *ms)
{
    const p11_test_def *def = ctx->def;
    memset(ms, 0, sizeof *ms);
    ms->mech.mechanism = ctx->mech;
    /* Encryption IVs never repeat under one key: worker index, then a
     * counter (p11_mech_next).  Decryption uses the one IV its input was
     * made with. */
    if (def->op == P11_OP_ENCRYPT) {
        ms->iv[0] = (unsigned char)(index >> 24);
        ms->iv[1] = (unsigned char)(index >> 16);
        ms->iv[2] = (unsigned char)(index >> 8);
        ms->iv[3] = (unsigned char)index;
    }
    switch (def->param) {
    case P11_PARAM_PSS:
        ms->pss.hashAlg = hash_mech(ctx->params.hash);
        ms->pss.mgf = mgf_for(ctx->params.hash);
        ms->pss.sLen = p11_hash_len(ctx->params.hash);
        ms->mech.pParameter = &ms->pss;
        ms->mech.ulParameterLen = sizeof ms->pss;
        break;
    case P11_PARAM_OAEP:
        ms->oaep.hashAlg = hash_mech(ctx->params.hash);
        ms->oaep.mgf = mgf_for(ctx->params.hash);
        ms->oaep.source = CKZ_DATA_SPECIFIED;
        ms->mech.pParameter = &ms->oaep;
        ms->mech.ulParameterLen = sizeof ms->oaep;
        break;
    case P11_PARAM_IV:
        ms->mech.pParameter = ms->iv;
        ms->mech.ulParameterLen = def->key == KEYS_DES3 ? 8 : 16;
        break;
    case P11_PARAM_CTR:
        ms->ctr.ulCounterBits = 64;    /* the low 64 bits count blocks; the high half is ours */
        memcpy(ms->ctr.cb, ms->iv, 16);
        ms->mech.pParameter = &ms->ctr;
        ms->mech.ulParameterLen = sizeof ms->ctr;
        break;
    case P11_PARAM_GCM:
        ms->gcm.pIv = ms->iv;
        ms->gcm.ulIvLen = 12;
        ms->gcm.ulIvBits = 96;
        ms->gcm.ulTagBits = 128;
        ms->gcm.pAAD = ctx->params.aad_size ? ctx->data : NULL;
        ms->gcm.ulAADLen = (CK_ULONG)(ctx->params.aad_size < ctx->data_len ? ctx->params.aad_size
                                                                           : ctx->data_len);
        ms->mech.pParameter = &ms->gcm;
        ms->mech.ulParameterLen = sizeof ms->gcm;
        break;
    case P11_PARAM_ECDH:
        ms->ecdh.kdf = CKD_NULL;
        ms->ecdh.pPublicData = ctx->peer_point;
        ms->ecdh.ulPublicDataLen = ctx->peer_len;
        ms->mech.pParameter = &ms->ecdh;
        ms->mech.ulParameterLen = sizeof ms->ecdh;
        break;
    case P11_PARAM_NONE:
        break;
    }
}

void p11_mech_next(const p11_test_ctx *ctx, p11_mech_state *ms, uint64_t counter)
{
    if (ctx->def->op != P11_OP_ENCRYPT)
        return;
    /* A sweep reuses the key: each run gets its own range of counters. */
    counter += (uint64_t)ctx->run_seq << 40;
    /* Bytes 4..11 carry the operation counter: GCM's 12-byte IV ends there,
     * CBC's 16-byte IV and CTR's counter block keep their last 4 bytes 0. */
    for (int i = 0; i < 8; i++)
        ms->iv[4 + i] = (unsigned char)(counter >> (56 - 8 * i));
    if (ctx->def->key == KEYS_DES3) {
        /* 3DES IVs are 8 bytes: the index, then the counter folded to 32 bits
         * (its high half carries the sweep's run number). */
        uint32_t c = (uint32_t)counter ^ (uint32_t)(counter >> 32);
        for (int i = 0; i < 4; i++)
            ms->iv[4 + i] = (unsigned char)(c >> (24 - 8 * i));
    }
    if (ctx->def->param == P11_PARAM_CTR)
        memcpy(ms->ctr.cb, ms->iv, 16);
}

/* ---- the worker ------------------------------------------------------- */

typedef struct p11_worker {
    p11_test_ctx     *ctx;
    CK_FUNCTION_LIST *fn;
    CK_SESSION_HANDLE session;
    unsigned          index;
    p11_mech_state    ms;
    uint64_t          counter;       /* operations done */
    unsigned char    *out;
    CK_ULONG          out_cap;
    CK_ULONG          out_len;       /* length of the last result */
    CK_ULONG          needed;        /* length a CKR_BUFFER_TOO_SMALL asked for */
    CK_OBJECT_HANDLE  made, made2;   /* objects the operation created (keygen, unwrap, derive) */
    int               making;        /* a key generation counted in ctx->making */
    CK_OBJECT_HANDLE  found;         /* find-objects: the first handle found */
    CK_ATTRIBUTE      tmpl[12];      /* template for objects operations create */
    CK_ULONG          ntmpl;
    CK_OBJECT_CLASS   cls;
    CK_KEY_TYPE       kt;
    CK_ULONG          value_len;
    CK_BBOOL          yes, no;
    keys_spec         gen;           /* keygen tests */
    int               warned;
    int               inited;        /* the last operation's Init succeeded */
    unsigned          reopen_failed; /* consecutive C_OpenSession failures */
    CK_RV             gone;          /* the session could not be reopened: what operations return */
    unsigned          token;         /* several tokens: the index of this worker's token */
} p11_worker;

/* Tests whose operation creates objects need read-write sessions (token
 * objects always do; some tokens want them for session objects too); so
 * does the check of a wrap that unwraps it again (--verify, round trip). */
static int creates_objects(const p11_test_ctx *ctx)
{
    const p11_op op = ctx->def->op;
    return op == P11_OP_KEYGEN || op == P11_OP_UNWRAP || op == P11_OP_DERIVE ||
           (op == P11_OP_WRAP && ctx->params.verify);
}

static int open_session(p11_worker *wk, char *err, size_t errlen)
{
    char rb[32];
    CK_FLAGS flags = CKF_SERIAL_SESSION | (creates_objects(wk->ctx) ? CKF_RW_SESSION : 0);
    CK_RV rv = wk->fn->C_OpenSession(wk->ctx->slot, flags, NULL, NULL, &wk->session);
    if (rv != CKR_OK) {
        if (err)
            snprintf(err, errlen, "C_OpenSession: %s", p11_rv_name(rv, rb, sizeof rb));
        wk->session = CK_INVALID_HANDLE;
        return -1;
    }
    return 0;
}

/* Template for the keys unwrap and derive create: session objects (token
 * objects with --token-keys) that after() destroys. */
static void object_template(p11_worker *wk)
{
    const p11_test_ctx *ctx = wk->ctx;
    int checkable = ctx->params.verify;
    wk->yes = CK_TRUE;
    wk->no = CK_FALSE;
    wk->cls = CKO_SECRET_KEY;
    wk->ntmpl = 0;
#define T(t, v) wk->tmpl[wk->ntmpl++] = (CK_ATTRIBUTE){ (t), &(v), sizeof(v) }
    T(CKA_CLASS, wk->cls);
    if (ctx->params.keys == P11_KEYS_TOKEN)
        T(CKA_TOKEN, wk->yes);
    else
        T(CKA_TOKEN, wk->no);
    wk->tmpl[wk->ntmpl++] = (CK_ATTRIBUTE){ CKA_LABEL, wk->ctx->made_label,
                                            (CK_ULONG)strlen(wk->ctx->made_label) };
    if (ctx->def->op == P11_OP_UNWRAP) {
        wk->kt = CKK_AES;
        T(CKA_KEY_TYPE, wk->kt);
        T(CKA_ENCRYPT, wk->yes);          /* checked by use: it must encrypt */
    } else {
        wk->kt = CKK_GENERIC_SECRET;
        wk->value_len = (ctx->params.key_bits + 7) / 8;
        T(CKA_KEY_TYPE, wk->kt);
        T(CKA_VALUE_LEN, wk->value_len);
        /* With --verify the derived secret must be readable to compare it. */
        if (checkable) {
            T(CKA_SENSITIVE, wk->no);
            T(CKA_EXTRACTABLE, wk->yes);
        } else {
            T(CKA_SENSITIVE, wk->yes);
        }
    }
#undef T
}

static int worker_open(void *vctx, unsigned index, void **state, char *err, size_t errlen)
{
    p11_test_ctx *ctx = vctx;
    p11_worker *wk = calloc(1, sizeof *wk);

    if (!wk || !(wk->out = malloc(ctx->out_cap))) {
        free(wk);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    wk->ctx = ctx;
    wk->fn = ctx->fn;
    wk->index = index;
    wk->out_cap = ctx->out_cap;
    p11_mech_init(ctx, index, &wk->ms);
    object_template(wk);
    if (ctx->def->op == P11_OP_KEYGEN) {
        wk->gen.type = ctx->def->key;
        wk->gen.bits = ctx->params.key_bits;
        wk->gen.curve = ctx->params.curve;
        wk->gen.uses = keys_is_pair(ctx->def->key) ? KEYS_USE_SIGN : KEYS_USE_ENCRYPT;
        wk->gen.label = ctx->made_label;
        wk->gen.token = ctx->params.keys == P11_KEYS_TOKEN;
    }
    if (open_session(wk, err, errlen) != 0) {
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
    if (wk->session != CK_INVALID_HANDLE)
        wk->fn->C_CloseSession(wk->session);
    free(wk->out);
    free(wk);
}

/* The module's return value as the core counts it, whole (p11/codes.h). */
static bench_code code_of(const p11_worker *wk, CK_RV rv)
{
    return p11_code_of(wk->ctx->codes, rv);
}

/* A "successful" result must have the length the mechanism produces. */
static bench_code check_len(p11_worker *wk, CK_RV rv, CK_ULONG len)
{
    wk->out_len = len;
    if (rv == CKR_BUFFER_TOO_SMALL)
        wk->needed = len;
    if (rv != CKR_OK)
        return code_of(wk, rv);
    if (wk->ctx->expect_len && len != wk->ctx->expect_len)
        return BENCH_CODE_BAD_LENGTH;
    return BENCH_OK;
}

/* The key the test's operation uses: the public half of a pair for
 * verification and encryption, else the private or secret key. */
static CK_OBJECT_HANDLE op_key(const p11_test_ctx *ctx)
{
    const p11_op op = ctx->def->op;
    if (keys_is_pair(ctx->def->key) && (op == P11_OP_VERIFY || op == P11_OP_ENCRYPT))
        return ctx->keys.pub;
    return ctx->keys.priv;
}

int p11_test_has_key(const p11_test_def *def)
{
    return def->key != KEYS_NONE && def->op != P11_OP_KEYGEN && def->op != P11_OP_FIND &&
           def->op != P11_OP_DIGEST && def->op != P11_OP_RANDOM;
}

/*
 * The template that finds the test's key of class *cls: its class, the label
 * (--key-label's, else the run's own) and --key-id's ID; returns how many
 * of t's 3 attributes it filled.
 */
static CK_ULONG key_template(const p11_test_ctx *ctx, CK_OBJECT_CLASS *cls, CK_ATTRIBUTE t[3])
{
    const p11_test_params *p = &ctx->params;
    const int existing = p->keys == P11_KEYS_EXISTING;
    const char *label = existing ? p->key_label : ctx->label;
    CK_ULONG nt = 0;
    t[nt++] = (CK_ATTRIBUTE){ CKA_CLASS, cls, sizeof *cls };
    if (label)
        t[nt++] = (CK_ATTRIBUTE){ CKA_LABEL, (void *)label, (CK_ULONG)strlen(label) };
    if (existing && p->key_id_len)
        t[nt++] = (CK_ATTRIBUTE){ CKA_ID, (void *)p->key_id, (CK_ULONG)p->key_id_len };
    return nt;
}

/*
 * --lookup: find the operation's key as an application that keeps no
 * handles would, by its label and class (and --key-id's ID), inside the
 * timed part.  Exactly one object, the key itself, must be found; nothing
 * is LOOKUP_NOT_FOUND, several or another object LOOKUP_AMBIGUOUS.
 */
static bench_code lookup_key(p11_worker *wk, CK_OBJECT_HANDLE want, CK_OBJECT_HANDLE *found)
{
    const p11_test_ctx *ctx = wk->ctx;
    CK_FUNCTION_LIST *fn = wk->fn;
    CK_OBJECT_CLASS cls = !keys_is_pair(ctx->def->key) ? CKO_SECRET_KEY
                          : want == ctx->keys.pub      ? CKO_PUBLIC_KEY
                                                       : CKO_PRIVATE_KEY;
    CK_ATTRIBUTE t[3];
    const CK_ULONG nt = key_template(ctx, &cls, t);
    CK_OBJECT_HANDLE h[2] = { 0, 0 };
    CK_ULONG n = 0;
    CK_RV rv = fn->C_FindObjectsInit(wk->session, t, nt);
    if (rv != CKR_OK)
        return code_of(wk, rv);
    rv = fn->C_FindObjects(wk->session, h, 2, &n);
    const CK_RV fin = fn->C_FindObjectsFinal(wk->session);
    if (rv == CKR_OK)
        rv = fin;
    if (rv != CKR_OK)
        return code_of(wk, rv);
    if (n == 0)
        return BENCH_CODE_LOOKUP_NOT_FOUND;
    if (n > 1 || h[0] != want)
        return BENCH_CODE_LOOKUP_AMBIGUOUS;
    *found = h[0];
    return BENCH_OK;
}

static bench_code do_op(void *state)
{
    p11_worker *wk = state;
    p11_test_ctx *ctx = wk->ctx;
    CK_FUNCTION_LIST *fn = wk->fn;
    CK_SESSION_HANDLE s = wk->session;
    CK_ULONG len = wk->out_cap;
    CK_RV rv;
    CK_OBJECT_HANDLE key = op_key(ctx);

    if (s == CK_INVALID_HANDLE)
        return code_of(wk, wk->gone);              /* the session is gone for good (after()) */
    wk->counter++;
    p11_mech_next(ctx, &wk->ms, wk->counter);
    if (ctx->params.lookup) {
        wk->inited = 0;
        const bench_code lrc = lookup_key(wk, key, &key);
        if (lrc != BENCH_OK)
            return lrc;
    }
    switch (ctx->def->op) {
    case P11_OP_SIGN:
        rv = fn->C_SignInit(s, &wk->ms.mech, key);
        if ((wk->inited = rv == CKR_OK))
            rv = fn->C_Sign(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? code_of(wk, rv) : check_len(wk, rv, len);
    case P11_OP_VERIFY:
        rv = fn->C_VerifyInit(s, &wk->ms.mech, key);
        if ((wk->inited = rv == CKR_OK))
            rv = fn->C_Verify(s, ctx->input, ctx->input_len, ctx->sig, ctx->sig_len);
        return code_of(wk, rv);
    case P11_OP_ENCRYPT:
        rv = fn->C_EncryptInit(s, &wk->ms.mech, key);
        if ((wk->inited = rv == CKR_OK))
            rv = fn->C_Encrypt(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? code_of(wk, rv) : check_len(wk, rv, len);
    case P11_OP_DECRYPT:
        rv = fn->C_DecryptInit(s, &wk->ms.mech, key);
        if ((wk->inited = rv == CKR_OK))
            rv = fn->C_Decrypt(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? code_of(wk, rv) : check_len(wk, rv, len);
    case P11_OP_DIGEST:
        rv = fn->C_DigestInit(s, &wk->ms.mech);
        if ((wk->inited = rv == CKR_OK))
            rv = fn->C_Digest(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? code_of(wk, rv) : check_len(wk, rv, len);
    case P11_OP_WRAP:
        rv = fn->C_WrapKey(s, &wk->ms.mech, key, ctx->aux.priv, wk->out, &len);
        return check_len(wk, rv, len);
    case P11_OP_UNWRAP:
        return code_of(wk, fn->C_UnwrapKey(s, &wk->ms.mech, key, ctx->input, ctx->input_len,
                                           wk->tmpl, wk->ntmpl, &wk->made));
    case P11_OP_DERIVE:
        return code_of(wk, fn->C_DeriveKey(s, &wk->ms.mech, key, wk->tmpl, wk->ntmpl, &wk->made));
    case P11_OP_RANDOM:
        rv = fn->C_GenerateRandom(s, wk->out, (CK_ULONG)ctx->data_len);
        wk->out_len = (CK_ULONG)ctx->data_len;
        return code_of(wk, rv);
    case P11_OP_KEYGEN: {
        keys_handle h;
        /* Counted until after() destroyed the keys: a call abandoned as
         * stuck stays counted, and its keys are listed at the end. */
        atomic_fetch_add_explicit(&ctx->making, 1, memory_order_relaxed);
        wk->making = 1;
        rv = keys_generate(fn, s, &wk->gen, &h);
        wk->made = h.priv;
        wk->made2 = h.pub;
        return code_of(wk, rv);
    }
    case P11_OP_FIND: {
        /* What the key was found by (--key-label, --key-id), else our label. */
        CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
        CK_ATTRIBUTE t[3];
        const CK_ULONG nt = key_template(ctx, &cls, t);
        CK_OBJECT_HANDLE h[16];
        CK_ULONG n = 0;
        rv = fn->C_FindObjectsInit(s, t, nt);
        if (rv != CKR_OK)
            return code_of(wk, rv);
        rv = fn->C_FindObjects(s, h, 16, &n);
        CK_RV fin = fn->C_FindObjectsFinal(s);
        if (rv == CKR_OK)
            rv = fin;
        if (rv == CKR_OK && n == 0)
            return BENCH_CODE_NO_RESULT;
        wk->found = n ? h[0] : 0;
        return code_of(wk, rv);
    }
    }
    return CKR_FUNCTION_FAILED;
}

/* The one-shot call that finishes an active operation, into the worker's
 * buffer; its result is thrown away (untimed clean-up). */
static CK_RV finish_call(p11_worker *wk)
{
    p11_test_ctx *ctx = wk->ctx;
    CK_ULONG len = wk->out_cap;
    switch (ctx->def->op) {
    case P11_OP_SIGN:
        return wk->fn->C_Sign(wk->session, ctx->input, ctx->input_len, wk->out, &len);
    case P11_OP_VERIFY:
        return wk->fn->C_Verify(wk->session, ctx->input, ctx->input_len, ctx->sig, ctx->sig_len);
    case P11_OP_ENCRYPT:
        return wk->fn->C_Encrypt(wk->session, ctx->input, ctx->input_len, wk->out, &len);
    case P11_OP_DECRYPT:
        return wk->fn->C_Decrypt(wk->session, ctx->input, ctx->input_len, wk->out, &len);
    case P11_OP_DIGEST:
        return wk->fn->C_Digest(wk->session, ctx->input, ctx->input_len, wk->out, &len);
    default:
        return CKR_OK;   /* wrap, unwrap, ... are one call: nothing is left active */
    }
}

/* Finish an operation a short buffer left active, with a buffer that fits. */
static void finish_active(p11_worker *wk)
{
    p11_test_ctx *ctx = wk->ctx;
    CK_ULONG want = wk->needed > wk->out_cap ? wk->needed : wk->out_cap * 2;
    unsigned char *bigger = realloc(wk->out, want);
    if (!bigger)
        return;
    wk->out = bigger;
    wk->out_cap = want;
    atomic_fetch_add_explicit(&ctx->grown, 1, memory_order_relaxed);
    (void)finish_call(wk);   /* whatever it answers, the operation is over */
}

/* The operation's Init, again (a probe: is anything still active?). */
static CK_RV init_again(p11_worker *wk)
{
    p11_test_ctx *ctx = wk->ctx;
    CK_OBJECT_HANDLE k = keys_is_pair(ctx->def->key) && ctx->def->op != P11_OP_SIGN &&
                         ctx->def->op != P11_OP_DECRYPT ? ctx->keys.pub : ctx->keys.priv;
    switch (ctx->def->op) {
    case P11_OP_SIGN:    return wk->fn->C_SignInit(wk->session, &wk->ms.mech, k);
    case P11_OP_VERIFY:  return wk->fn->C_VerifyInit(wk->session, &wk->ms.mech, k);
    case P11_OP_ENCRYPT: return wk->fn->C_EncryptInit(wk->session, &wk->ms.mech, k);
    case P11_OP_DECRYPT: return wk->fn->C_DecryptInit(wk->session, &wk->ms.mech, k);
    case P11_OP_DIGEST:  return wk->fn->C_DigestInit(wk->session, &wk->ms.mech);
    default:             return CKR_FUNCTION_NOT_SUPPORTED;
    }
}

/* PKCS#11 3.0's cancellation: the Init with a NULL mechanism. */
static CK_RV cancel_call(p11_worker *wk)
{
    CK_FUNCTION_LIST *fn = wk->fn;
    CK_SESSION_HANDLE s = wk->session;
    switch (wk->ctx->def->op) {
    case P11_OP_SIGN:    return fn->C_SignInit(s, NULL, CK_INVALID_HANDLE);
    case P11_OP_VERIFY:  return fn->C_VerifyInit(s, NULL, CK_INVALID_HANDLE);
    case P11_OP_ENCRYPT: return fn->C_EncryptInit(s, NULL, CK_INVALID_HANDLE);
    case P11_OP_DECRYPT: return fn->C_DecryptInit(s, NULL, CK_INVALID_HANDLE);
    case P11_OP_DIGEST:  return fn->C_DigestInit(s, NULL);
    case P11_OP_FIND:    return fn->C_FindObjectsFinal(s);
    default:             return CKR_FUNCTION_FAILED;
    }
}

/* Open the worker's session again, within a bound: after P11_REOPEN_TRIES
 * consecutive failures the worker stops trying, and its operations return
 * `why` at once (the device is gone; the run's verdict decides the rest). */
static void reopen(p11_worker *wk, CK_RV why)
{
    char err[96];
    if (wk->session != CK_INVALID_HANDLE)
        wk->fn->C_CloseSession(wk->session);
    wk->session = CK_INVALID_HANDLE;
    if (open_session(wk, err, sizeof err) == 0) {
        wk->reopen_failed = 0;
        atomic_fetch_add_explicit(&wk->ctx->reopened, 1, memory_order_relaxed);
        return;
    }
    if (++wk->reopen_failed < P11_REOPEN_TRIES) {
        wk->session = CK_INVALID_HANDLE;
        wk->gone = why;                /* the next operation fails at once; after() tries again */
        return;
    }
    if (wk->reopen_failed == P11_REOPEN_TRIES) {
        char rb[32];
        bench_warn("%s: worker %u: the session is gone (%s) and %s %d times: its operations fail "
                   "at once from now on", wk->ctx->def->name, wk->index + 1,
                   p11_rv_name(why, rb, sizeof rb), err, P11_REOPEN_TRIES);
    }
    wk->gone = why;
}

/* Cancel whatever is active (PKCS#11 3.0: Init with a NULL mechanism);
 * when the module cannot, start over on a fresh session. */
static void cancel_active(p11_worker *wk)
{
    if (cancel_call(wk) != CKR_OK)
        reopen(wk, CKR_OPERATION_ACTIVE);
}

/*
 * A finishing call failed after its Init succeeded.  The standard says the
 * operation is over, but some modules leave it active, and the next Init
 * would fail with CKR_OPERATION_ACTIVE (a cascade of errors that are not
 * the module's answer to anything).  End it now, untimed: PKCS#11 3.0's
 * C_SessionCancel where the module has it, or its NULL-mechanism Init; else (a 2.40 module) a fresh Init tells: it
 * succeeds when nothing was active, and the operation it began is finished
 * with the real call; CKR_OPERATION_ACTIVE means the module kept the
 * failed one, and only a new session ends it (counted as reopened).
 */
static void end_active(p11_worker *wk)
{
    static const CK_FLAGS flag[] = {
        [P11_OP_SIGN] = CKF_SIGN, [P11_OP_VERIFY] = CKF_VERIFY, [P11_OP_ENCRYPT] = CKF_ENCRYPT,
        [P11_OP_DECRYPT] = CKF_DECRYPT, [P11_OP_DIGEST] = CKF_DIGEST,
    };
    const p11_op op = wk->ctx->def->op;
    if (wk->ctx->session_cancel && (size_t)op < sizeof flag / sizeof flag[0] && flag[op] &&
        wk->ctx->session_cancel(wk->session, flag[op]) == CKR_OK)
        return;                        /* PKCS#11 3.0's C_SessionCancel */
    if (cancel_call(wk) == CKR_OK)
        return;
    CK_RV rv = init_again(wk);
    if (rv == CKR_OK)
        (void)finish_call(wk);
    else if (rv == CKR_OPERATION_ACTIVE)
        reopen(wk, CKR_OPERATION_ACTIVE);
}

/* Is the session gone?  CKR_DEVICE_ERROR may or may not mean it. */
static int session_gone(p11_worker *wk, CK_RV rv)
{
    if (p11_session_lost(rv))
        return 1;
    if (rv != CKR_DEVICE_ERROR)
        return 0;
    CK_SESSION_INFO info;
    CK_RV q = wk->fn->C_GetSessionInfo(wk->session, &info);
    return q != CKR_OK && (p11_session_lost(q) || q == CKR_DEVICE_ERROR);
}

/* What an operation made, destroyed (retried); a token object that stays
 * is recorded with its label and type for the list at the end. */
static void destroy_made(p11_worker *wk, CK_OBJECT_HANDLE *h, const char *role)
{
    p11_test_ctx *ctx = wk->ctx;
    if (!*h)
        return;
    CK_RV rv = p11_destroy(wk->fn, ctx->slot, wk->session, *h);
    if (rv != CKR_OK && ctx->params.keys == P11_KEYS_TOKEN && ctx->leftovers) {
        char type[32];
        const char *kt = p11_test_key_type(ctx->def);
        snprintf(type, sizeof type, "%s %s", kt ? kt : "", role);
        p11_leftovers_add(ctx->leftovers, ctx->slot, ctx->made_label, type, NULL);
    }
    *h = 0;
}

static int is_due(const p11_worker *wk)
{
    const p11_test_params *p = &wk->ctx->params;
    if (!p->verify)
        return 0;
    if (wk->counter == 1)
        return 1;
    return p->verify_every && wk->counter % p->verify_every == 0;
}

static bench_code worker_after(void *state, bench_code rc)
{
    p11_worker *wk = state;
    p11_test_ctx *ctx = wk->ctx;

    if (rc == BENCH_OK && is_due(wk)) {
        char why[160];
        int ok = p11_verify_result(ctx, &wk->ms, wk->out, wk->out_len,
                                   ctx->def->op == P11_OP_FIND ? wk->found : wk->made,
                                   wk->session, why, sizeof why);
        if (ok >= 0)
            atomic_fetch_add_explicit(&ctx->verified, 1, memory_order_relaxed);
        if (ok == 0) {
            atomic_fetch_add_explicit(&ctx->mismatched, 1, memory_order_relaxed);
            if (!wk->warned++)
                bench_error("%s: VERIFY_MISMATCH in worker %u, operation %llu: %s", ctx->def->name,
                            wk->index + 1, (unsigned long long)wk->counter, why);
            rc = BENCH_CODE_VERIFY_MISMATCH;
        }
    }
    /* Objects the operation made are destroyed here, untimed. */
    destroy_made(wk, &wk->made, keys_is_pair(ctx->def->key) ? "private key" : "secret key");
    destroy_made(wk, &wk->made2, "public key");
    if (wk->making) {
        atomic_fetch_sub_explicit(&ctx->making, 1, memory_order_relaxed);
        wk->making = 0;
    }
    if (rc == BENCH_OK)
        return rc;
    CK_RV rv = CKR_OK;
    const int from_module = p11_code_rv(ctx->codes, rc, &rv);  /* not a class of the core's */
    if (wk->session == CK_INVALID_HANDLE) {
        if (wk->reopen_failed < P11_REOPEN_TRIES) {
            reopen(wk, wk->gone);
        } else {
            /* Gone for good: fail at a bounded pace (untimed), not in a hot loop. */
            const struct timespec pause = { 0, 10 * 1000 * 1000 };
            nanosleep(&pause, NULL);
        }
    } else if (from_module && rv == CKR_BUFFER_TOO_SMALL) {
        finish_active(wk);
    } else if (from_module && rv == CKR_OPERATION_ACTIVE) {
        cancel_active(wk);
    } else if (from_module && session_gone(wk, rv)) {
        reopen(wk, rv);
    } else if (wk->inited && from_module) {
        end_active(wk);
    }
    return rc;
}

static void code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    const p11_test_ctx *c = ctx;
    char rb[32];
    CK_RV rv;
    if (!p11_code_rv(c->codes, code, &rv))
        snprintf(buf, len, "OTHER");   /* the core names its own classes first */
    else
        snprintf(buf, len, "%s", p11_rv_name(rv, rb, sizeof rb));
}

/* Several tokens: worker `index` on token index % n, with that token's keys. */
static int tokens_open(void *vset, unsigned index, void **state, char *err, size_t errlen)
{
    p11_test_set *set = vset;
    const unsigned k = index % set->n;
    char why[200];
    if (worker_open(set->ctx[k], index, state, why, sizeof why) != 0) {
        snprintf(err, errlen, "token %s: %s", set->labels[k], why);
        return -1;
    }
    ((p11_worker *)*state)->token = k;
    return 0;
}

/* The tokens share their module, and so its book of codes. */
static void tokens_code_name(const void *vset, bench_code code, char *buf, size_t len)
{
    const p11_test_set *set = vset;
    code_name(set->ctx[0], code, buf, len);
}

static unsigned token_of(const void *state)
{
    return ((const p11_worker *)state)->token;
}

void p11_tokens_workload(p11_test_set *set, bench_workload *w)
{
    p11_test_workload(set->ctx[0], w);
    w->ctx = set;
    w->open = tokens_open;
    w->code_name = tokens_code_name;
    set->by_token = (bench_breakdown){ "token", set->n, set->labels, NULL, token_of, NULL };
    w->breakdown[1] = &set->by_token;
}

/* --out jtl: PKCS#11's name of the outcome (CKR_OK too), and the bytes
 * the call took in and gave back. */
static void worker_describe(const void *state, bench_request *r)
{
    const p11_worker *wk = state;
    const p11_test_ctx *ctx = wk->ctx;
    if (r->code == BENCH_OK) {
        memcpy(r->code_text, "CKR_OK", sizeof "CKR_OK");
        r->bytes_in = wk->out_len;
    }
    r->bytes_out = ctx->def->data_op ? ctx->data_len : 0;
}

void p11_test_workload(p11_test_ctx *ctx, bench_workload *w)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->open = worker_open;
    w->do_one = do_op;
    w->after = worker_after;
    /* Successes need after() only to check results or destroy what they made. */
    w->after_always = ctx->params.verify || ctx->def->op == P11_OP_KEYGEN ||
                      ctx->def->op == P11_OP_UNWRAP || ctx->def->op == P11_OP_DERIVE;
    w->close = worker_close;
    w->code_name = code_name;
    w->describe = worker_describe;
    w->call = p11_op_call(ctx->def);
    w->bytes_per_op = ctx->def->data_op ? ctx->data_len : 0;
}

/*
 * p11/ops.c - the PKCS#11 workload: one operation per do_one(), and the
 * untimed after() that cleans up, recovers and checks.
 *
 * Real modules are quirky, so answers are not taken on trust: output
 * buffers start at what the mechanism can produce plus slack; a
 * CKR_BUFFER_TOO_SMALL is counted, and the buffer grown and the still-active
 * operation finished outside the timed path; a "successful" result of the
 * wrong length is an error (BAD_OUTPUT_LENGTH); an operation left active is
 * cancelled, and an invalidated session reopened (and counted), so the next
 * operation never inherits the last one's trouble.
 */
#include "p11/tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "p11/names.h"

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
    CK_OBJECT_HANDLE  found;         /* find-objects: the first handle found */
    CK_ATTRIBUTE      tmpl[12];      /* template for objects operations create */
    CK_ULONG          ntmpl;
    CK_OBJECT_CLASS   cls;
    CK_KEY_TYPE       kt;
    CK_ULONG          value_len;
    CK_BBOOL          yes, no;
    keys_spec         gen;           /* keygen tests */
    int               warned;
} p11_worker;

static int open_session(p11_worker *wk, char *err, size_t errlen)
{
    char rb[32];
    CK_RV rv = wk->fn->C_OpenSession(wk->ctx->slot, CKF_SERIAL_SESSION, NULL, NULL, &wk->session);
    if (rv != CKR_OK) {
        if (err)
            snprintf(err, errlen, "C_OpenSession: %s", p11_rv_name(rv, rb, sizeof rb));
        wk->session = CK_INVALID_HANDLE;
        return -1;
    }
    return 0;
}

/* Template for the keys unwrap and derive create: session objects we destroy. */
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
    T(CKA_TOKEN, wk->no);
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
        wk->gen.label = ctx->label;
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

/* A "successful" result must have the length the mechanism produces. */
static bench_code check_len(p11_worker *wk, CK_RV rv, CK_ULONG len)
{
    wk->out_len = len;
    if (rv == CKR_BUFFER_TOO_SMALL)
        wk->needed = len;
    if (rv != CKR_OK)
        return rv;
    if (wk->ctx->expect_len && len != wk->ctx->expect_len)
        return BENCH_CODE_BAD_LENGTH;
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

    wk->counter++;
    p11_mech_next(ctx, &wk->ms, wk->counter);
    switch (ctx->def->op) {
    case P11_OP_SIGN:
        rv = fn->C_SignInit(s, &wk->ms.mech, ctx->keys.priv);
        if (rv == CKR_OK)
            rv = fn->C_Sign(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? rv : check_len(wk, rv, len);
    case P11_OP_VERIFY: {
        CK_OBJECT_HANDLE k = keys_is_pair(ctx->def->key) ? ctx->keys.pub : ctx->keys.priv;
        rv = fn->C_VerifyInit(s, &wk->ms.mech, k);
        if (rv == CKR_OK)
            rv = fn->C_Verify(s, ctx->input, ctx->input_len, ctx->sig, ctx->sig_len);
        return rv;
    }
    case P11_OP_ENCRYPT: {
        CK_OBJECT_HANDLE k = keys_is_pair(ctx->def->key) ? ctx->keys.pub : ctx->keys.priv;
        rv = fn->C_EncryptInit(s, &wk->ms.mech, k);
        if (rv == CKR_OK)
            rv = fn->C_Encrypt(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? rv : check_len(wk, rv, len);
    }
    case P11_OP_DECRYPT:
        rv = fn->C_DecryptInit(s, &wk->ms.mech, ctx->keys.priv);
        if (rv == CKR_OK)
            rv = fn->C_Decrypt(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? rv : check_len(wk, rv, len);
    case P11_OP_DIGEST:
        rv = fn->C_DigestInit(s, &wk->ms.mech);
        if (rv == CKR_OK)
            rv = fn->C_Digest(s, ctx->input, ctx->input_len, wk->out, &len);
        return rv == CKR_OPERATION_ACTIVE ? rv : check_len(wk, rv, len);
    case P11_OP_WRAP:
        rv = fn->C_WrapKey(s, &wk->ms.mech, ctx->keys.priv, ctx->aux.priv, wk->out, &len);
        return check_len(wk, rv, len);
    case P11_OP_UNWRAP:
        return fn->C_UnwrapKey(s, &wk->ms.mech, ctx->keys.priv, ctx->input, ctx->input_len,
                               wk->tmpl, wk->ntmpl, &wk->made);
    case P11_OP_DERIVE:
        return fn->C_DeriveKey(s, &wk->ms.mech, ctx->keys.priv, wk->tmpl, wk->ntmpl, &wk->made);
    case P11_OP_RANDOM:
        rv = fn->C_GenerateRandom(s, wk->out, (CK_ULONG)ctx->data_len);
        wk->out_len = (CK_ULONG)ctx->data_len;
        return rv;
    case P11_OP_KEYGEN: {
        keys_handle h;
        rv = keys_generate(fn, s, &wk->gen, &h);
        wk->made = h.priv;
        wk->made2 = h.pub;
        return rv;
    }
    case P11_OP_FIND: {
        /* What the key was found by (--key-label, --key-id), else our label. */
        CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
        const p11_test_params *p = &ctx->params;
        int existing = p->keys == P11_KEYS_EXISTING;
        const char *label = existing ? p->key_label : ctx->label;
        CK_ATTRIBUTE t[3] = { { CKA_CLASS, &cls, sizeof cls } };
        CK_ULONG nt = 1;
        if (label)
            t[nt++] = (CK_ATTRIBUTE){ CKA_LABEL, (void *)label, (CK_ULONG)strlen(label) };
        if (existing && p->key_id_len)
            t[nt++] = (CK_ATTRIBUTE){ CKA_ID, (void *)p->key_id, (CK_ULONG)p->key_id_len };
        CK_OBJECT_HANDLE h[16];
        CK_ULONG n = 0;
        rv = fn->C_FindObjectsInit(s, t, nt);
        if (rv != CKR_OK)
            return rv;
        rv = fn->C_FindObjects(s, h, 16, &n);
        CK_RV fin = fn->C_FindObjectsFinal(s);
        if (rv == CKR_OK)
            rv = fin;
        if (rv == CKR_OK && n == 0)
            return BENCH_CODE_NO_RESULT;
        wk->found = n ? h[0] : 0;
        return rv;
    }
    }
    return CKR_FUNCTION_FAILED;
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
    CK_ULONG len = wk->out_cap;
    switch (ctx->def->op) {
    case P11_OP_SIGN:
        wk->fn->C_Sign(wk->session, ctx->input, ctx->input_len, wk->out, &len);
        break;
    case P11_OP_ENCRYPT:
        wk->fn->C_Encrypt(wk->session, ctx->input, ctx->input_len, wk->out, &len);
        break;
    case P11_OP_DECRYPT:
        wk->fn->C_Decrypt(wk->session, ctx->input, ctx->input_len, wk->out, &len);
        break;
    case P11_OP_DIGEST:
        wk->fn->C_Digest(wk->session, ctx->input, ctx->input_len, wk->out, &len);
        break;
    default:
        break;   /* wrap is one call: nothing is left active */
    }
}

/* Cancel whatever is active (PKCS#11 3.0: Init with a NULL mechanism);
 * when the module cannot, start over on a fresh session. */
static void cancel_active(p11_worker *wk)
{
    CK_FUNCTION_LIST *fn = wk->fn;
    CK_SESSION_HANDLE s = wk->session;
    CK_RV rv;
    switch (wk->ctx->def->op) {
    case P11_OP_SIGN:    rv = fn->C_SignInit(s, NULL, CK_INVALID_HANDLE); break;
    case P11_OP_VERIFY:  rv = fn->C_VerifyInit(s, NULL, CK_INVALID_HANDLE); break;
    case P11_OP_ENCRYPT: rv = fn->C_EncryptInit(s, NULL, CK_INVALID_HANDLE); break;
    case P11_OP_DECRYPT: rv = fn->C_DecryptInit(s, NULL, CK_INVALID_HANDLE); break;
    case P11_OP_DIGEST:  rv = fn->C_DigestInit(s, NULL); break;
    case P11_OP_FIND:    rv = fn->C_FindObjectsFinal(s); break;
    default:             rv = CKR_FUNCTION_FAILED; break;
    }
    if (rv == CKR_OK)
        return;
    fn->C_CloseSession(s);
    if (open_session(wk, NULL, 0) == 0)
        atomic_fetch_add_explicit(&wk->ctx->reopened, 1, memory_order_relaxed);
}

static int session_lost(CK_RV rv)
{
    return rv == CKR_SESSION_HANDLE_INVALID || rv == CKR_SESSION_CLOSED ||
           rv == CKR_DEVICE_REMOVED || rv == CKR_TOKEN_NOT_PRESENT;
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
    if (wk->made) {
        wk->fn->C_DestroyObject(wk->session, wk->made);
        wk->made = 0;
    }
    if (wk->made2) {
        wk->fn->C_DestroyObject(wk->session, wk->made2);
        wk->made2 = 0;
    }
    if (rc == CKR_BUFFER_TOO_SMALL)
        finish_active(wk);
    else if (rc == CKR_OPERATION_ACTIVE)
        cancel_active(wk);
    else if (rc < BENCH_CODE_CORE && session_lost((CK_RV)rc)) {
        if (wk->session != CK_INVALID_HANDLE)
            wk->fn->C_CloseSession(wk->session);
        if (open_session(wk, NULL, 0) == 0)
            atomic_fetch_add_explicit(&ctx->reopened, 1, memory_order_relaxed);
    }
    return rc;
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
    w->do_one = do_op;
    w->after = worker_after;
    /* Successes need after() only to check results or destroy what they made. */
    w->after_always = ctx->params.verify || ctx->def->op == P11_OP_KEYGEN ||
                      ctx->def->op == P11_OP_UNWRAP || ctx->def->op == P11_OP_DERIVE;
    w->close = worker_close;
    w->code_name = code_name;
    w->bytes_per_op = ctx->def->data_op ? ctx->data_len : 0;
}

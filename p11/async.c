/* SPDX-License-Identifier: Apache-2.0 */
/* p11/async.c - PKCS#11 3.2 asynchronous sessions (C_AsyncComplete). */
#include "p11/async.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p11/codes.h"
#include "p11/names.h"
#include "p11/pkcs11_3x.h"

typedef struct p11_aslot {
    p11_test_ctx         *ctx;
    CK_FUNCTION_LIST_3_2 *f;
    CK_SESSION_HANDLE     s;
    p11_mech_state        ms;
    uint64_t              counter;
    unsigned char        *out;
    CK_ULONG              out_cap;
} p11_aslot;

/* The function name C_AsyncComplete identifies the pending call by. */
static const char *pending_name(const p11_test_def *def)
{
    return def->op <= P11_OP_DIGEST ? p11_op_call(def) : NULL;
}

void *p11_interface_list(const p11_module *m, unsigned major, unsigned minor)
{
    void *h = dlopen(m->path, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    CK_C_GetInterface get = (CK_C_GetInterface)(uintptr_t)dlsym(h, "C_GetInterface");
    CK_FUNCTION_LIST *f = NULL;
    if (get) {
        CK_VERSION v = { (CK_BYTE)major, (CK_BYTE)minor };
        CK_INTERFACE_PTR iface = NULL;
        if (get((CK_UTF8CHAR_PTR) "PKCS 11", &v, &iface, 0) == CKR_OK && iface && iface->pFunctionList) {
            f = iface->pFunctionList;
            if (f->version.major < major || (f->version.major == major && f->version.minor < minor))
                f = NULL;
        }
    }
    dlclose(h);   /* NOLOAD took a reference; the module stays loaded by p11-kit */
    return f;
}

/* The module's 3.2 function list, from its C_GetInterface (NULL if none). */
static CK_FUNCTION_LIST_3_2 *list_3_2(const p11_module *m)
{
    CK_FUNCTION_LIST_3_2 *f = p11_interface_list(m, 3, 2);
    return f && f->C_AsyncComplete ? f : NULL;
}

static int slot_open(void *vctx, void *engine, unsigned index, void **out, char *err,
                     size_t errlen)
{
    (void)engine;   /* the slots poll C_AsyncComplete: no shared engine */
    p11_test_ctx *ctx = vctx;
    CK_FUNCTION_LIST_3_2 *f = ctx->async_list;
    char rb[32];
    p11_aslot *a = calloc(1, sizeof *a);
    if (!a || !(a->out = malloc(ctx->out_cap))) {
        free(a);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    a->ctx = ctx;
    a->f = f;
    a->out_cap = ctx->out_cap;
    p11_mech_init(ctx, index, &a->ms);
    CK_RV rv = f->C_OpenSession(ctx->slot, CKF_SERIAL_SESSION | CKF_ASYNC_SESSION, NULL, NULL, &a->s);
    if (rv != CKR_OK) {
        snprintf(err, errlen, "C_OpenSession(CKF_ASYNC_SESSION): %s", p11_rv_name(rv, rb, sizeof rb));
        free(a->out);
        free(a);
        return -1;
    }
    *out = a;
    return 0;
}

static void slot_close(void *v)
{
    p11_aslot *a = v;
    a->f->C_CloseSession(a->s);   /* cancels what is still pending */
    free(a->out);
    free(a);
}

static bench_code finished(const p11_aslot *a, CK_RV rv, CK_ULONG len)
{
    if (rv != CKR_OK)
        return p11_code_of(a->ctx->codes, rv);   /* whole, however wide (p11/codes.h) */
    if (a->ctx->def->op != P11_OP_VERIFY && a->ctx->expect_len && len != a->ctx->expect_len)
        return BENCH_CODE_BAD_LENGTH;
    return BENCH_OK;
}

static int slot_submit(void *v, bench_code *done)
{
    p11_aslot *a = v;
    p11_test_ctx *ctx = a->ctx;
    CK_FUNCTION_LIST_3_2 *f = a->f;
    CK_ULONG len = a->out_cap;
    CK_OBJECT_HANDLE pub = keys_is_pair(ctx->def->key) ? ctx->keys.pub : ctx->keys.priv;
    CK_RV rv;

    a->counter++;
    p11_mech_next(ctx, &a->ms, a->counter);
    switch (ctx->def->op) {
    case P11_OP_SIGN:
        rv = f->C_SignInit(a->s, &a->ms.mech, ctx->keys.priv);
        if (rv == CKR_OK)
            rv = f->C_Sign(a->s, ctx->input, ctx->input_len, a->out, &len);
        break;
    case P11_OP_VERIFY:
        rv = f->C_VerifyInit(a->s, &a->ms.mech, pub);
        if (rv == CKR_OK)
            rv = f->C_Verify(a->s, ctx->input, ctx->input_len, ctx->sig, ctx->sig_len);
        break;
    case P11_OP_ENCRYPT:
        rv = f->C_EncryptInit(a->s, &a->ms.mech, pub);
        if (rv == CKR_OK)
            rv = f->C_Encrypt(a->s, ctx->input, ctx->input_len, a->out, &len);
        break;
    case P11_OP_DECRYPT:
        rv = f->C_DecryptInit(a->s, &a->ms.mech, ctx->keys.priv);
        if (rv == CKR_OK)
            rv = f->C_Decrypt(a->s, ctx->input, ctx->input_len, a->out, &len);
        break;
    case P11_OP_DIGEST:
        rv = f->C_DigestInit(a->s, &a->ms.mech);
        if (rv == CKR_OK)
            rv = f->C_Digest(a->s, ctx->input, ctx->input_len, a->out, &len);
        break;
    default:
        rv = CKR_FUNCTION_NOT_SUPPORTED;
        break;
    }
    if (rv == CKR_PENDING)
        return 1;
    *done = finished(a, rv, len);
    return 0;
}

static int slot_poll(void *v, bench_code *done)
{
    p11_aslot *a = v;
    CK_ASYNC_DATA data;
    memset(&data, 0, sizeof data);
    const char *name = pending_name(a->ctx->def);
    CK_RV rv = a->f->C_AsyncComplete(a->s, (CK_UTF8CHAR_PTR)name,
                                     a->ctx->def->op == P11_OP_VERIFY ? NULL : &data);
    if (rv == CKR_PENDING)
        return 1;
    *done = finished(a, rv, data.ulValue);
    return 0;
}

/* --out jtl: PKCS#11's name of a success too. */
static void slot_describe(const void *v, bench_request *r)
{
    (void)v;
    if (r->code == BENCH_OK)
        memcpy(r->code_text, "CKR_OK", sizeof "CKR_OK");
}

int p11_async_setup(p11_test_ctx *ctx, const p11_module *m, bench_workload *w, unsigned slots,
                    char *why, size_t len)
{
    CK_TOKEN_INFO ti;
    char rb[32];

    if (!pending_name(ctx->def)) {
        snprintf(why, len, "%s has no asynchronous form", ctx->def->name);
        return 0;
    }
    CK_FUNCTION_LIST_3_2 *f = list_3_2(m);
    if (!f) {
        snprintf(why, len, "the module offers no PKCS#11 3.2 interface with C_AsyncComplete");
        return 0;
    }
    if (f->C_GetTokenInfo(ctx->slot, &ti) != CKR_OK || !(ti.flags & CKF_ASYNC_SESSION_SUPPORTED)) {
        snprintf(why, len, "the token does not set CKF_ASYNC_SESSION_SUPPORTED");
        return 0;
    }
    /* A token may still refuse: try one session. */
    CK_SESSION_HANDLE s;
    CK_RV rv = f->C_OpenSession(ctx->slot, CKF_SERIAL_SESSION | CKF_ASYNC_SESSION, NULL, NULL, &s);
    if (rv != CKR_OK) {
        snprintf(why, len, "C_OpenSession(CKF_ASYNC_SESSION): %s", p11_rv_name(rv, rb, sizeof rb));
        return 0;
    }
    f->C_CloseSession(s);
    ctx->async_list = f;
    static const bench_async_ops ops = {
        .open = slot_open, .submit = slot_submit, .poll = slot_poll, .close = slot_close,
        .describe = slot_describe,
    };
    w->async = (bench_async){ &ops, ctx, slots, 0 };
    return 1;
}

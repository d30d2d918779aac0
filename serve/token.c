/* SPDX-License-Identifier: Apache-2.0 */
/* serve/token.c - the emulator's token: session pool, EKM key, AES-GCM. */
#include "serve/token.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/rand.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "keys/keys.h"
#include "p11/names.h"

int serve_tok_open(serve_tok *tk, const p11_target_opts *o)
{
    memset(tk, 0, sizeof *tk);
    /* Many request threads call the module: it must lock for itself. */
    int rc = p11_target_open(o, 64, P11_OPEN_LOGIN, &tk->t);
    if (rc != 0)
        return rc;
    tk->fn = tk->t.mod->fn;
    pthread_mutex_init(&tk->mu, NULL);

    keys_spec spec = { .type = KEYS_AES, .bits = 256, .uses = KEYS_USE_ENCRYPT,
                       .label = "hsmbench-serve-ekm" };
    keys_handle kh;
    CK_RV rv = keys_generate(tk->fn, tk->t.control, &spec, &kh);
    if (rv != CKR_OK) {
        char rb[48];
        bench_error("token '%s': cannot generate the EKM key (AES-256): %s", tk->t.token.label,
                    p11_rv_name(rv, rb, sizeof rb));
        serve_tok_close(tk);
        return BENCH_EXIT_MODULE;
    }
    tk->ekm_key = kh.priv;
    return BENCH_EXIT_OK;
}

void serve_tok_close(serve_tok *tk)
{
    if (!tk->fn)
        return;
    for (size_t i = 0; i < tk->nidle; i++)
        tk->fn->C_CloseSession(tk->idle[i]);
    for (size_t i = 0; i < tk->nretired; i++)
        tk->fn->C_CloseSession(tk->retired[i]);
    free(tk->idle);
    free(tk->retired);
    if (tk->ekm_key)
        tk->fn->C_DestroyObject(tk->t.control, tk->ekm_key);
    p11_target_close(&tk->t);
    pthread_mutex_destroy(&tk->mu);
    memset(tk, 0, sizeof *tk);
}

CK_RV serve_tok_session(serve_tok *tk, CK_SESSION_HANDLE *s)
{
    pthread_mutex_lock(&tk->mu);
    if (tk->nidle) {
        *s = tk->idle[--tk->nidle];
        pthread_mutex_unlock(&tk->mu);
        return CKR_OK;
    }
    pthread_mutex_unlock(&tk->mu);
    return tk->fn->C_OpenSession(tk->t.token.slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, s);
}

/* Append to a session list; with the lock held.  When memory runs out the
 * handle is left open and forgotten rather than closed: its objects must
 * not die with it. */
static void push(CK_SESSION_HANDLE **list, size_t *n, size_t *cap, CK_SESSION_HANDLE s)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        CK_SESSION_HANDLE *l = realloc(*list, nc * sizeof *l);
        if (!l)
            return;
        *list = l;
        *cap = nc;
    }
    (*list)[(*n)++] = s;
}

void serve_tok_release(serve_tok *tk, CK_SESSION_HANDLE s)
{
    pthread_mutex_lock(&tk->mu);
    push(&tk->idle, &tk->nidle, &tk->cap, s);
    pthread_mutex_unlock(&tk->mu);
}

void serve_tok_retire(serve_tok *tk, CK_SESSION_HANDLE s)
{
    pthread_mutex_lock(&tk->mu);
    push(&tk->retired, &tk->nretired, &tk->capretired, s);
    pthread_mutex_unlock(&tk->mu);
}

static void gcm_params(CK_GCM_PARAMS *g, uint8_t *iv, const uint8_t *aad, size_t aadlen)
{
    memset(g, 0, sizeof *g);
    g->pIv = iv;
    g->ulIvLen = SERVE_EKM_IV_LEN;
    g->ulIvBits = SERVE_EKM_IV_LEN * 8;
    g->pAAD = (CK_BYTE_PTR)aad;
    g->ulAADLen = (CK_ULONG)aadlen;
    g->ulTagBits = SERVE_EKM_TAG_LEN * 8;
}

CK_RV serve_tok_ekm_wrap(serve_tok *tk, CK_SESSION_HANDLE s, const uint8_t *pt, size_t n,
                        const uint8_t *aad, size_t aadlen, uint8_t *out, size_t *outlen)
{
    CK_GCM_PARAMS g;
    if (RAND_bytes(out, SERVE_EKM_IV_LEN) != 1)
        return CKR_FUNCTION_FAILED;
    gcm_params(&g, out, aad, aadlen);
    CK_MECHANISM m = { CKM_AES_GCM, &g, sizeof g };
    CK_RV rv = tk->fn->C_EncryptInit(s, &m, tk->ekm_key);
    if (rv != CKR_OK)
        return rv;
    CK_ULONG len = (CK_ULONG)(n + SERVE_EKM_TAG_LEN);
    rv = tk->fn->C_Encrypt(s, (CK_BYTE_PTR)pt, (CK_ULONG)n, out + SERVE_EKM_IV_LEN, &len);
    if (rv == CKR_OK)
        *outlen = SERVE_EKM_IV_LEN + len;
    return rv;
}

CK_RV serve_tok_ekm_unwrap(serve_tok *tk, CK_SESSION_HANDLE s, const uint8_t *blob, size_t bloblen,
                          const uint8_t *aad, size_t aadlen, uint8_t *out, size_t *outlen)
{
    CK_GCM_PARAMS g;
    uint8_t iv[SERVE_EKM_IV_LEN];
    if (bloblen < SERVE_EKM_IV_LEN + SERVE_EKM_TAG_LEN)
        return CKR_ENCRYPTED_DATA_LEN_RANGE;
    memcpy(iv, blob, sizeof iv);
    gcm_params(&g, iv, aad, aadlen);
    CK_MECHANISM m = { CKM_AES_GCM, &g, sizeof g };
    CK_RV rv = tk->fn->C_DecryptInit(s, &m, tk->ekm_key);
    if (rv != CKR_OK)
        return rv;
    CK_ULONG len = (CK_ULONG)bloblen;
    rv = tk->fn->C_Decrypt(s, (CK_BYTE_PTR)blob + SERVE_EKM_IV_LEN,
                           (CK_ULONG)(bloblen - SERVE_EKM_IV_LEN), out, &len);
    if (rv == CKR_OK)
        *outlen = len;
    return rv;
}

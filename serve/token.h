/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve/token.h - the emulator's PKCS#11 side: the token it works on,
 * a pool of sessions so that each request thread calls the module through a
 * session of its own, and the EKM's wrapping key.
 *
 * Sessions are taken for one request and given back; they are opened on
 * demand and closed only at shutdown, so the session objects created
 * through them (SDKMS keys) live until they are deleted or the server ends.
 */
#ifndef SERVE_TOKEN_H
#define SERVE_TOKEN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <p11-kit/pkcs11.h>

#include "p11/target.h"

#define SERVE_EKM_IV_LEN  12
#define SERVE_EKM_TAG_LEN 16

typedef struct serve_tok {
    p11_target        t;
    CK_FUNCTION_LIST *fn;
    pthread_mutex_t   mu;
    CK_SESSION_HANDLE *idle;          /* sessions not in use */
    size_t            nidle, cap;
    CK_SESSION_HANDLE *retired;       /* not reusable; closed at shutdown */
    size_t            nretired, capretired;
    CK_OBJECT_HANDLE  ekm_key;        /* AES-256, session object of the control session */
} serve_tok;

/* Open the token (p11_target_open: messages printed) and make the EKM key.
 * Returns a BENCH_EXIT_* code. */
int  serve_tok_open(serve_tok *tk, const p11_target_opts *o);
void serve_tok_close(serve_tok *tk);

/* A session for the calling thread until serve_tok_release. */
CK_RV serve_tok_session(serve_tok *tk, CK_SESSION_HANDLE *s);
void  serve_tok_release(serve_tok *tk, CK_SESSION_HANDLE s);
/* Give back a session that may still have an operation active: it is not
 * used again, but stays open (its objects live) until shutdown. */
void  serve_tok_retire(serve_tok *tk, CK_SESSION_HANDLE s);

/* EKM: blob = IV (12 random bytes) || AES-256-GCM ciphertext || tag (16).
 * out needs n + 28 bytes. */
CK_RV serve_tok_ekm_wrap(serve_tok *tk, CK_SESSION_HANDLE s, const uint8_t *pt, size_t n,
                        const uint8_t *aad, size_t aadlen, uint8_t *out, size_t *outlen);
/* out needs bloblen bytes; CKR_ENCRYPTED_DATA_INVALID for a blob that does
 * not authenticate (wrong AAD, altered, another key). */
CK_RV serve_tok_ekm_unwrap(serve_tok *tk, CK_SESSION_HANDLE s, const uint8_t *blob, size_t bloblen,
                          const uint8_t *aad, size_t aadlen, uint8_t *out, size_t *outlen);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/verify.h - the software side of the tests: OpenSSL makes the inputs a
 * token must accept (signatures to verify, ciphertexts to decrypt) and
 * checks what the token returns.  Internal to p11/.
 */
#ifndef P11_VERIFY_H
#define P11_VERIFY_H

#include <openssl/evp.h>

#include "p11/tests.h"

/* The OpenSSL digest for a hash (NULL for none). */
const EVP_MD *p11_hash_md(p11_hash h);

/* Sign ctx's input as the test's mechanism would, with ctx->material. 0 on success. */
int p11_sign_software(const p11_test_ctx *ctx, const unsigned char *in, size_t in_len,
                      unsigned char **out, CK_ULONG *out_len);

/* Encrypt as the test's mechanism would (IV from ms), with ctx->material. 0 on success. */
int p11_encrypt_software(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *in,
                         size_t in_len, unsigned char **out, CK_ULONG *out_len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* p11/names.h - PKCS#11 return values, mechanisms and flags by name. */
#ifndef P11_NAMES_H
#define P11_NAMES_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

/* "CKR_PIN_INCORRECT"; unknown values as "CKR_0x%08lx" written into buf. */
const char *p11_rv_name(CK_RV rv, char *buf, size_t len);
/* "CKM_SHA256_RSA_PKCS"; unknown values as hex written into buf. */
const char *p11_mech_name(CK_MECHANISM_TYPE m, char *buf, size_t len);
/* The mechanism of that name ("CKM_ECDSA", or as hex "0x00001055"): 0, or
 * -1 when none. */
int p11_mech_by_name(const char *name, CK_MECHANISM_TYPE *m);
/* Comma-separated flag names (without the CKF_ prefix) into buf. */
const char *p11_token_flags(CK_FLAGS flags, char *buf, size_t len);
const char *p11_slot_flags(CK_FLAGS flags, char *buf, size_t len);
const char *p11_mech_flags(CK_FLAGS flags, char *buf, size_t len);

#endif

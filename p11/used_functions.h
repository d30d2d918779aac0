/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/used_functions.h - every function-list entry hsmbench calls, as an
 * X-macro: X(C_Initialize) ...  p11/module.c checks each is present before
 * any is used; the hostile test module (tests/hostile/hostilep11.c) takes
 * them out by name.  A call added anywhere must be added here.
 */
#ifndef P11_USED_FUNCTIONS_H
#define P11_USED_FUNCTIONS_H

#define P11_USED_FUNCTIONS(X)                                                              \
    X(C_Initialize) X(C_Finalize) X(C_GetInfo) X(C_GetSlotList) X(C_GetSlotInfo)           \
    X(C_GetTokenInfo) X(C_GetMechanismList) X(C_GetMechanismInfo) X(C_InitToken)           \
    X(C_InitPIN) X(C_OpenSession) X(C_CloseSession) X(C_Login) X(C_Logout)                 \
    X(C_CreateObject) X(C_DestroyObject) X(C_GetAttributeValue) X(C_FindObjectsInit)       \
    X(C_FindObjects) X(C_FindObjectsFinal) X(C_EncryptInit) X(C_Encrypt) X(C_DecryptInit)  \
    X(C_Decrypt) X(C_DigestInit) X(C_Digest) X(C_SignInit) X(C_Sign) X(C_VerifyInit)       \
    X(C_Verify) X(C_GenerateKey) X(C_GenerateKeyPair) X(C_WrapKey) X(C_UnwrapKey)          \
    X(C_DeriveKey) X(C_GenerateRandom)

/* One { "C_Name", offsetof(CK_FUNCTION_LIST, C_Name) } entry (needs <stddef.h>). */
#define P11_USED_FUNCTION_ENTRY(name) { #name, offsetof(CK_FUNCTION_LIST, name) },

#endif

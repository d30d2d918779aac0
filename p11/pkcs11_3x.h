/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/pkcs11_3x.h - the PKCS#11 3.0 and 3.2 definitions that
 * p11-kit's pkcs11.h (a v2.40 header) lacks: interfaces, the 3.0 and 3.2
 * function lists, and the 3.2 asynchronous functions.
 *
 * Include it after <p11-kit/pkcs11.h>.  Every block is guarded, so the
 * file keeps compiling once p11-kit ships a 3.x header that defines the
 * same names itself.
 *
 * The layouts follow OASIS's published headers (pkcs11f.h / pkcs11t.h):
 *  - CK_FUNCTION_LIST_3_0 is the 2.40 list followed by the 24 functions
 *    PKCS#11 3.0 added, from C_GetInterfaceList to C_MessageVerifyFinal;
 *  - CK_FUNCTION_LIST_3_2 is the 3.0 list followed by the 3.2 functions:
 *    C_EncapsulateKey ... C_GetSessionValidationFlags, then C_AsyncComplete,
 *    C_AsyncGetID, C_AsyncJoin, then C_WrapKeyAuthenticated and
 *    C_UnwrapKeyAuthenticated.  (The asynchronous functions are not right
 *    after the 3.0 ones: a client built against OASIS's header finds them
 *    at the same offsets as a client built against this one.)
 *
 * Asynchronous use, in brief (PKCS#11 3.2, section "Asynchronous function
 * management"): open a session with CKF_ASYNC_SESSION (a token that cannot
 * answers CKR_SESSION_ASYNC_NOT_SUPPORTED; CK_TOKEN_INFO.flags carries
 * CKF_ASYNC_SESSION_SUPPORTED when it can); a call may then return
 * CKR_PENDING, and C_AsyncComplete(hSession, "C_Sign", &data) polls it:
 * CKR_PENDING while it runs, then the call's own return value, with
 * data.pValue = the caller's output buffer and data.ulValue = its length.
 */
#ifndef HSMBENCH_P11_ASYNC_H
#define HSMBENCH_P11_ASYNC_H

#include <p11-kit/pkcs11.h>

/* ---- PKCS#11 3.0: interfaces and the 3.0 function list ------------------ */

/* The members every 3.x list shares: version, the 2.40 functions, the 3.0
 * ones (standard pointer-type names, so this works with a 3.x pkcs11.h too). */
#ifndef HSMBENCH_P11_FUNCTIONS_3_0
#define HSMBENCH_P11_FUNCTIONS_3_0 \
    CK_VERSION version; \
    CK_C_Initialize C_Initialize; \
    CK_C_Finalize C_Finalize; \
    CK_C_GetInfo C_GetInfo; \
    CK_C_GetFunctionList C_GetFunctionList; \
    CK_C_GetSlotList C_GetSlotList; \
    CK_C_GetSlotInfo C_GetSlotInfo; \
    CK_C_GetTokenInfo C_GetTokenInfo; \
    CK_C_GetMechanismList C_GetMechanismList; \
    CK_C_GetMechanismInfo C_GetMechanismInfo; \
    CK_C_InitToken C_InitToken; \
    CK_C_InitPIN C_InitPIN; \
    CK_C_SetPIN C_SetPIN; \
    CK_C_OpenSession C_OpenSession; \
    CK_C_CloseSession C_CloseSession; \
    CK_C_CloseAllSessions C_CloseAllSessions; \
    CK_C_GetSessionInfo C_GetSessionInfo; \
    CK_C_GetOperationState C_GetOperationState; \
    CK_C_SetOperationState C_SetOperationState; \
    CK_C_Login C_Login; \
    CK_C_Logout C_Logout; \
    CK_C_CreateObject C_CreateObject; \
    CK_C_CopyObject C_CopyObject; \
    CK_C_DestroyObject C_DestroyObject; \
    CK_C_GetObjectSize C_GetObjectSize; \
    CK_C_GetAttributeValue C_GetAttributeValue; \
    CK_C_SetAttributeValue C_SetAttributeValue; \
    CK_C_FindObjectsInit C_FindObjectsInit; \
    CK_C_FindObjects C_FindObjects; \
    CK_C_FindObjectsFinal C_FindObjectsFinal; \
    CK_C_EncryptInit C_EncryptInit; \
    CK_C_Encrypt C_Encrypt; \
    CK_C_EncryptUpdate C_EncryptUpdate; \
    CK_C_EncryptFinal C_EncryptFinal; \
    CK_C_DecryptInit C_DecryptInit; \
    CK_C_Decrypt C_Decrypt; \
    CK_C_DecryptUpdate C_DecryptUpdate; \
    CK_C_DecryptFinal C_DecryptFinal; \
    CK_C_DigestInit C_DigestInit; \
    CK_C_Digest C_Digest; \
    CK_C_DigestUpdate C_DigestUpdate; \
    CK_C_DigestKey C_DigestKey; \
    CK_C_DigestFinal C_DigestFinal; \
    CK_C_SignInit C_SignInit; \
    CK_C_Sign C_Sign; \
    CK_C_SignUpdate C_SignUpdate; \
    CK_C_SignFinal C_SignFinal; \
    CK_C_SignRecoverInit C_SignRecoverInit; \
    CK_C_SignRecover C_SignRecover; \
    CK_C_VerifyInit C_VerifyInit; \
    CK_C_Verify C_Verify; \
    CK_C_VerifyUpdate C_VerifyUpdate; \
    CK_C_VerifyFinal C_VerifyFinal; \
    CK_C_VerifyRecoverInit C_VerifyRecoverInit; \
    CK_C_VerifyRecover C_VerifyRecover; \
    CK_C_DigestEncryptUpdate C_DigestEncryptUpdate; \
    CK_C_DecryptDigestUpdate C_DecryptDigestUpdate; \
    CK_C_SignEncryptUpdate C_SignEncryptUpdate; \
    CK_C_DecryptVerifyUpdate C_DecryptVerifyUpdate; \
    CK_C_GenerateKey C_GenerateKey; \
    CK_C_GenerateKeyPair C_GenerateKeyPair; \
    CK_C_WrapKey C_WrapKey; \
    CK_C_UnwrapKey C_UnwrapKey; \
    CK_C_DeriveKey C_DeriveKey; \
    CK_C_SeedRandom C_SeedRandom; \
    CK_C_GenerateRandom C_GenerateRandom; \
    CK_C_GetFunctionStatus C_GetFunctionStatus; \
    CK_C_CancelFunction C_CancelFunction; \
    CK_C_WaitForSlotEvent C_WaitForSlotEvent; \
    /* PKCS#11 3.0 */ \
    CK_C_GetInterfaceList C_GetInterfaceList; \
    CK_C_GetInterface C_GetInterface; \
    CK_C_LoginUser C_LoginUser; \
    CK_C_SessionCancel C_SessionCancel; \
    CK_C_MessageEncryptInit C_MessageEncryptInit; \
    CK_C_EncryptMessage C_EncryptMessage; \
    CK_C_EncryptMessageBegin C_EncryptMessageBegin; \
    CK_C_EncryptMessageNext C_EncryptMessageNext; \
    CK_C_MessageEncryptFinal C_MessageEncryptFinal; \
    CK_C_MessageDecryptInit C_MessageDecryptInit; \
    CK_C_DecryptMessage C_DecryptMessage; \
    CK_C_DecryptMessageBegin C_DecryptMessageBegin; \
    CK_C_DecryptMessageNext C_DecryptMessageNext; \
    CK_C_MessageDecryptFinal C_MessageDecryptFinal; \
    CK_C_MessageSignInit C_MessageSignInit; \
    CK_C_SignMessage C_SignMessage; \
    CK_C_SignMessageBegin C_SignMessageBegin; \
    CK_C_SignMessageNext C_SignMessageNext; \
    CK_C_MessageSignFinal C_MessageSignFinal; \
    CK_C_MessageVerifyInit C_MessageVerifyInit; \
    CK_C_VerifyMessage C_VerifyMessage; \
    CK_C_VerifyMessageBegin C_VerifyMessageBegin; \
    CK_C_VerifyMessageNext C_VerifyMessageNext; \
    CK_C_MessageVerifyFinal C_MessageVerifyFinal;
#endif

#ifndef CKF_INTERFACE_FORK_SAFE

#define CKF_INTERFACE_FORK_SAFE   0x00000001UL

/* C_SessionCancel flag (3.0) for a C_FindObjects operation. */
#ifndef CKF_FIND_OBJECTS
#define CKF_FIND_OBJECTS          0x00000040UL
#endif

typedef struct CK_INTERFACE {
    CK_UTF8CHAR *pInterfaceName;    /* "PKCS 11" for the standard lists */
    CK_VOID_PTR  pFunctionList;     /* CK_FUNCTION_LIST{,_3_0,_3_2} * */
    CK_FLAGS     flags;             /* CKF_INTERFACE_FORK_SAFE */
} CK_INTERFACE;
typedef CK_INTERFACE *CK_INTERFACE_PTR;
typedef CK_INTERFACE **CK_INTERFACE_PTR_PTR;

typedef CK_RV (*CK_C_GetInterfaceList)(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount);
typedef CK_RV (*CK_C_GetInterface)(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                                   CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags);
typedef CK_RV (*CK_C_LoginUser)(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType,
                                CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen,
                                CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen);
typedef CK_RV (*CK_C_SessionCancel)(CK_SESSION_HANDLE hSession, CK_FLAGS flags);

/* Signatures shared by several message-based functions (3.0), then each
 * function's own pointer type under its standard name. */
typedef CK_RV (*HSMBENCH_P11_MessageInit)(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                          CK_OBJECT_HANDLE hKey);
typedef CK_RV (*HSMBENCH_P11_MessageCrypt)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                           CK_ULONG ulParameterLen, CK_BYTE_PTR pAssociatedData,
                                           CK_ULONG ulAssociatedDataLen, CK_BYTE_PTR pIn,
                                           CK_ULONG ulInLen, CK_BYTE_PTR pOut,
                                           CK_ULONG_PTR pulOutLen);
typedef CK_RV (*HSMBENCH_P11_MessageCryptBegin)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                                CK_ULONG ulParameterLen,
                                                CK_BYTE_PTR pAssociatedData,
                                                CK_ULONG ulAssociatedDataLen);
typedef CK_RV (*HSMBENCH_P11_MessageCryptNext)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                               CK_ULONG ulParameterLen, CK_BYTE_PTR pIn,
                                               CK_ULONG ulInLen, CK_BYTE_PTR pOut,
                                               CK_ULONG_PTR pulOutLen, CK_FLAGS flags);
typedef CK_RV (*HSMBENCH_P11_MessageFinal)(CK_SESSION_HANDLE hSession);
typedef CK_RV (*HSMBENCH_P11_SignMessage)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                          CK_ULONG ulParameterLen, CK_BYTE_PTR pData,
                                          CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,
                                          CK_ULONG_PTR pulSignatureLen);
typedef CK_RV (*HSMBENCH_P11_MessageBegin)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                           CK_ULONG ulParameterLen);
typedef CK_RV (*HSMBENCH_P11_VerifyMessage)(CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter,
                                            CK_ULONG ulParameterLen, CK_BYTE_PTR pData,
                                            CK_ULONG ulDataLen, CK_BYTE_PTR pSignature,
                                            CK_ULONG ulSignatureLen);

typedef HSMBENCH_P11_MessageInit       CK_C_MessageEncryptInit;
typedef HSMBENCH_P11_MessageCrypt      CK_C_EncryptMessage;
typedef HSMBENCH_P11_MessageCryptBegin CK_C_EncryptMessageBegin;
typedef HSMBENCH_P11_MessageCryptNext  CK_C_EncryptMessageNext;
typedef HSMBENCH_P11_MessageFinal      CK_C_MessageEncryptFinal;
typedef HSMBENCH_P11_MessageInit       CK_C_MessageDecryptInit;
typedef HSMBENCH_P11_MessageCrypt      CK_C_DecryptMessage;
typedef HSMBENCH_P11_MessageCryptBegin CK_C_DecryptMessageBegin;
typedef HSMBENCH_P11_MessageCryptNext  CK_C_DecryptMessageNext;
typedef HSMBENCH_P11_MessageFinal      CK_C_MessageDecryptFinal;
typedef HSMBENCH_P11_MessageInit       CK_C_MessageSignInit;
typedef HSMBENCH_P11_SignMessage       CK_C_SignMessage;
typedef HSMBENCH_P11_MessageBegin      CK_C_SignMessageBegin;
typedef HSMBENCH_P11_SignMessage       CK_C_SignMessageNext;
typedef HSMBENCH_P11_MessageFinal      CK_C_MessageSignFinal;
typedef HSMBENCH_P11_MessageInit       CK_C_MessageVerifyInit;
typedef HSMBENCH_P11_VerifyMessage     CK_C_VerifyMessage;
typedef HSMBENCH_P11_MessageBegin      CK_C_VerifyMessageBegin;
typedef HSMBENCH_P11_VerifyMessage     CK_C_VerifyMessageNext;
typedef HSMBENCH_P11_MessageFinal      CK_C_MessageVerifyFinal;

typedef struct CK_FUNCTION_LIST_3_0 {
    HSMBENCH_P11_FUNCTIONS_3_0
} CK_FUNCTION_LIST_3_0;
typedef CK_FUNCTION_LIST_3_0 *CK_FUNCTION_LIST_3_0_PTR;
typedef CK_FUNCTION_LIST_3_0 **CK_FUNCTION_LIST_3_0_PTR_PTR;

#endif /* CKF_INTERFACE_FORK_SAFE */

/* ---- PKCS#11 3.2: asynchronous functions and the 3.2 function list ------ */

#ifndef CKR_PENDING

#define CKF_ASYNC_SESSION                0x00000008UL   /* C_OpenSession, CK_SESSION_INFO */
#define CKF_ASYNC_SESSION_SUPPORTED      0x04000000UL   /* CK_TOKEN_INFO.flags */
#define CKR_PENDING                      0x00000204UL
#define CKR_SESSION_ASYNC_NOT_SUPPORTED  0x00000205UL

typedef struct CK_ASYNC_DATA {
    CK_ULONG         ulVersion;          /* 0 in PKCS#11 3.2 */
    CK_BYTE_PTR      pValue;             /* the caller's output buffer */
    CK_ULONG         ulValue;            /* the length of the result */
    CK_OBJECT_HANDLE hObject;            /* objects a pending call produced */
    CK_OBJECT_HANDLE hAdditionalObject;
} CK_ASYNC_DATA;
typedef CK_ASYNC_DATA *CK_ASYNC_DATA_PTR;

typedef CK_ULONG CK_SESSION_VALIDATION_FLAGS_TYPE;

typedef CK_RV (*CK_C_EncapsulateKey)(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                     CK_OBJECT_HANDLE hPublicKey, CK_ATTRIBUTE_PTR pTemplate,
                                     CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext,
                                     CK_ULONG_PTR pulCiphertextLen, CK_OBJECT_HANDLE_PTR phKey);
typedef CK_RV (*CK_C_DecapsulateKey)(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                     CK_OBJECT_HANDLE hPrivateKey, CK_ATTRIBUTE_PTR pTemplate,
                                     CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext,
                                     CK_ULONG ulCiphertextLen, CK_OBJECT_HANDLE_PTR phKey);
typedef CK_RV (*CK_C_VerifySignatureInit)(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                          CK_OBJECT_HANDLE hKey, CK_BYTE_PTR pSignature,
                                          CK_ULONG ulSignatureLen);
typedef CK_RV (*CK_C_VerifySignature)(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData,
                                      CK_ULONG ulDataLen);
typedef CK_RV (*CK_C_VerifySignatureUpdate)(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart,
                                            CK_ULONG ulPartLen);
typedef CK_RV (*CK_C_VerifySignatureFinal)(CK_SESSION_HANDLE hSession);
typedef CK_RV (*CK_C_GetSessionValidationFlags)(CK_SESSION_HANDLE hSession,
                                                CK_SESSION_VALIDATION_FLAGS_TYPE type,
                                                CK_FLAGS *pFlags);
typedef CK_RV (*CK_C_AsyncComplete)(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName,
                                    CK_ASYNC_DATA_PTR pResult);
typedef CK_RV (*CK_C_AsyncGetID)(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName,
                                 CK_ULONG_PTR pulID);
typedef CK_RV (*CK_C_AsyncJoin)(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName,
                                CK_ULONG ulID, CK_BYTE_PTR pData, CK_ULONG ulData);
typedef CK_RV (*CK_C_WrapKeyAuthenticated)(CK_SESSION_HANDLE hSession,
                                           CK_MECHANISM_PTR pMechanism,
                                           CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey,
                                           CK_BYTE_PTR pAssociatedData,
                                           CK_ULONG ulAssociatedDataLen, CK_BYTE_PTR pWrappedKey,
                                           CK_ULONG_PTR pulWrappedKeyLen);
typedef CK_RV (*CK_C_UnwrapKeyAuthenticated)(CK_SESSION_HANDLE hSession,
                                             CK_MECHANISM_PTR pMechanism,
                                             CK_OBJECT_HANDLE hUnwrappingKey,
                                             CK_BYTE_PTR pWrappedKey, CK_ULONG ulWrappedKeyLen,
                                             CK_ATTRIBUTE_PTR pTemplate,
                                             CK_ULONG ulAttributeCount,
                                             CK_BYTE_PTR pAssociatedData,
                                             CK_ULONG ulAssociatedDataLen,
                                             CK_OBJECT_HANDLE_PTR phKey);

typedef struct CK_FUNCTION_LIST_3_2 {
    HSMBENCH_P11_FUNCTIONS_3_0
    /* PKCS#11 3.2 */
    CK_C_EncapsulateKey C_EncapsulateKey;
    CK_C_DecapsulateKey C_DecapsulateKey;
    CK_C_VerifySignatureInit C_VerifySignatureInit;
    CK_C_VerifySignature C_VerifySignature;
    CK_C_VerifySignatureUpdate C_VerifySignatureUpdate;
    CK_C_VerifySignatureFinal C_VerifySignatureFinal;
    CK_C_GetSessionValidationFlags C_GetSessionValidationFlags;
    CK_C_AsyncComplete C_AsyncComplete;
    CK_C_AsyncGetID C_AsyncGetID;
    CK_C_AsyncJoin C_AsyncJoin;
    CK_C_WrapKeyAuthenticated C_WrapKeyAuthenticated;
    CK_C_UnwrapKeyAuthenticated C_UnwrapKeyAuthenticated;
} CK_FUNCTION_LIST_3_2;
typedef CK_FUNCTION_LIST_3_2 *CK_FUNCTION_LIST_3_2_PTR;
typedef CK_FUNCTION_LIST_3_2 **CK_FUNCTION_LIST_3_2_PTR_PTR;

#endif /* CKR_PENDING */


/* ---- PKCS#11 3.0 and 3.1 constants p11-kit's v2.40 header lacks ------------
 * Values from OASIS's pkcs11t.h (3.0, 3.1; the last CKR_ values are 3.2's). */

#ifndef CKM_SHA3_256_RSA_PKCS
#define CKM_SHA3_256_RSA_PKCS                0x00000060UL
#endif
#ifndef CKM_SHA3_384_RSA_PKCS
#define CKM_SHA3_384_RSA_PKCS                0x00000061UL
#endif
#ifndef CKM_SHA3_512_RSA_PKCS
#define CKM_SHA3_512_RSA_PKCS                0x00000062UL
#endif
#ifndef CKM_SHA3_256_RSA_PKCS_PSS
#define CKM_SHA3_256_RSA_PKCS_PSS            0x00000063UL
#endif
#ifndef CKM_SHA3_384_RSA_PKCS_PSS
#define CKM_SHA3_384_RSA_PKCS_PSS            0x00000064UL
#endif
#ifndef CKM_SHA3_512_RSA_PKCS_PSS
#define CKM_SHA3_512_RSA_PKCS_PSS            0x00000065UL
#endif
#ifndef CKM_SHA3_224_RSA_PKCS
#define CKM_SHA3_224_RSA_PKCS                0x00000066UL
#endif
#ifndef CKM_SHA3_224_RSA_PKCS_PSS
#define CKM_SHA3_224_RSA_PKCS_PSS            0x00000067UL
#endif
#ifndef CKM_DSA_SHA3_224
#define CKM_DSA_SHA3_224                     0x00000018UL
#endif
#ifndef CKM_DSA_SHA3_256
#define CKM_DSA_SHA3_256                     0x00000019UL
#endif
#ifndef CKM_DSA_SHA3_384
#define CKM_DSA_SHA3_384                     0x0000001aUL
#endif
#ifndef CKM_DSA_SHA3_512
#define CKM_DSA_SHA3_512                     0x0000001bUL
#endif
#ifndef CKM_SHA3_256
#define CKM_SHA3_256                         0x000002b0UL
#endif
#ifndef CKM_SHA3_256_HMAC
#define CKM_SHA3_256_HMAC                    0x000002b1UL
#endif
#ifndef CKM_SHA3_256_HMAC_GENERAL
#define CKM_SHA3_256_HMAC_GENERAL            0x000002b2UL
#endif
#ifndef CKM_SHA3_256_KEY_GEN
#define CKM_SHA3_256_KEY_GEN                 0x000002b3UL
#endif
#ifndef CKM_SHA3_224
#define CKM_SHA3_224                         0x000002b5UL
#endif
#ifndef CKM_SHA3_224_HMAC
#define CKM_SHA3_224_HMAC                    0x000002b6UL
#endif
#ifndef CKM_SHA3_224_HMAC_GENERAL
#define CKM_SHA3_224_HMAC_GENERAL            0x000002b7UL
#endif
#ifndef CKM_SHA3_224_KEY_GEN
#define CKM_SHA3_224_KEY_GEN                 0x000002b8UL
#endif
#ifndef CKM_SHA3_384
#define CKM_SHA3_384                         0x000002c0UL
#endif
#ifndef CKM_SHA3_384_HMAC
#define CKM_SHA3_384_HMAC                    0x000002c1UL
#endif
#ifndef CKM_SHA3_384_HMAC_GENERAL
#define CKM_SHA3_384_HMAC_GENERAL            0x000002c2UL
#endif
#ifndef CKM_SHA3_384_KEY_GEN
#define CKM_SHA3_384_KEY_GEN                 0x000002c3UL
#endif
#ifndef CKM_SHA3_512
#define CKM_SHA3_512                         0x000002d0UL
#endif
#ifndef CKM_SHA3_512_HMAC
#define CKM_SHA3_512_HMAC                    0x000002d1UL
#endif
#ifndef CKM_SHA3_512_HMAC_GENERAL
#define CKM_SHA3_512_HMAC_GENERAL            0x000002d2UL
#endif
#ifndef CKM_SHA3_512_KEY_GEN
#define CKM_SHA3_512_KEY_GEN                 0x000002d3UL
#endif
#ifndef CKM_SHA3_256_KEY_DERIVATION
#define CKM_SHA3_256_KEY_DERIVATION          0x00000397UL
#endif
#ifndef CKM_SHA3_224_KEY_DERIVATION
#define CKM_SHA3_224_KEY_DERIVATION          0x00000398UL
#endif
#ifndef CKM_SHA3_384_KEY_DERIVATION
#define CKM_SHA3_384_KEY_DERIVATION          0x00000399UL
#endif
#ifndef CKM_SHA3_512_KEY_DERIVATION
#define CKM_SHA3_512_KEY_DERIVATION          0x0000039aUL
#endif
#ifndef CKM_SHAKE_128_KEY_DERIVATION
#define CKM_SHAKE_128_KEY_DERIVATION         0x0000039bUL
#endif
#ifndef CKM_SHAKE_256_KEY_DERIVATION
#define CKM_SHAKE_256_KEY_DERIVATION         0x0000039cUL
#endif
#ifndef CKM_SP800_108_COUNTER_KDF
#define CKM_SP800_108_COUNTER_KDF            0x000003acUL
#endif
#ifndef CKM_SP800_108_FEEDBACK_KDF
#define CKM_SP800_108_FEEDBACK_KDF           0x000003adUL
#endif
#ifndef CKM_SP800_108_DOUBLE_PIPELINE_KDF
#define CKM_SP800_108_DOUBLE_PIPELINE_KDF    0x000003aeUL
#endif
#ifndef CKM_ECDSA_SHA3_224
#define CKM_ECDSA_SHA3_224                   0x00001047UL
#endif
#ifndef CKM_ECDSA_SHA3_256
#define CKM_ECDSA_SHA3_256                   0x00001048UL
#endif
#ifndef CKM_ECDSA_SHA3_384
#define CKM_ECDSA_SHA3_384                   0x00001049UL
#endif
#ifndef CKM_ECDSA_SHA3_512
#define CKM_ECDSA_SHA3_512                   0x0000104aUL
#endif
#ifndef CKM_EC_MONTGOMERY_KEY_PAIR_GEN
#define CKM_EC_MONTGOMERY_KEY_PAIR_GEN       0x00001056UL
#endif
#ifndef CKM_AES_XTS
#define CKM_AES_XTS                          0x00001071UL
#endif
#ifndef CKM_AES_XTS_KEY_GEN
#define CKM_AES_XTS_KEY_GEN                  0x00001072UL
#endif
#ifndef CKM_CHACHA20_KEY_GEN
#define CKM_CHACHA20_KEY_GEN                 0x00001225UL
#endif
#ifndef CKM_CHACHA20
#define CKM_CHACHA20                         0x00001226UL
#endif
#ifndef CKM_POLY1305_KEY_GEN
#define CKM_POLY1305_KEY_GEN                 0x00001227UL
#endif
#ifndef CKM_POLY1305
#define CKM_POLY1305                         0x00001228UL
#endif
#ifndef CKM_AES_KEY_WRAP_KWP
#define CKM_AES_KEY_WRAP_KWP                 0x0000210bUL
#endif
#ifndef CKM_AES_KEY_WRAP_PKCS7
#define CKM_AES_KEY_WRAP_PKCS7               0x0000210cUL
#endif
#ifndef CKM_SHA_1_KEY_GEN
#define CKM_SHA_1_KEY_GEN                    0x00004003UL
#endif
#ifndef CKM_SHA224_KEY_GEN
#define CKM_SHA224_KEY_GEN                   0x00004004UL
#endif
#ifndef CKM_SHA256_KEY_GEN
#define CKM_SHA256_KEY_GEN                   0x00004005UL
#endif
#ifndef CKM_SHA384_KEY_GEN
#define CKM_SHA384_KEY_GEN                   0x00004006UL
#endif
#ifndef CKM_SHA512_KEY_GEN
#define CKM_SHA512_KEY_GEN                   0x00004007UL
#endif
#ifndef CKM_SHA512_224_KEY_GEN
#define CKM_SHA512_224_KEY_GEN               0x00004008UL
#endif
#ifndef CKM_SHA512_256_KEY_GEN
#define CKM_SHA512_256_KEY_GEN               0x00004009UL
#endif
#ifndef CKM_SHA512_T_KEY_GEN
#define CKM_SHA512_T_KEY_GEN                 0x0000400aUL
#endif
#ifndef CKM_NULL
#define CKM_NULL                             0x0000400bUL
#endif
#ifndef CKM_BLAKE2B_160
#define CKM_BLAKE2B_160                      0x0000400cUL
#endif
#ifndef CKM_BLAKE2B_160_HMAC
#define CKM_BLAKE2B_160_HMAC                 0x0000400dUL
#endif
#ifndef CKM_BLAKE2B_160_HMAC_GENERAL
#define CKM_BLAKE2B_160_HMAC_GENERAL         0x0000400eUL
#endif
#ifndef CKM_BLAKE2B_160_KEY_DERIVE
#define CKM_BLAKE2B_160_KEY_DERIVE           0x0000400fUL
#endif
#ifndef CKM_BLAKE2B_160_KEY_GEN
#define CKM_BLAKE2B_160_KEY_GEN              0x00004010UL
#endif
#ifndef CKM_BLAKE2B_256
#define CKM_BLAKE2B_256                      0x00004011UL
#endif
#ifndef CKM_BLAKE2B_256_HMAC
#define CKM_BLAKE2B_256_HMAC                 0x00004012UL
#endif
#ifndef CKM_BLAKE2B_256_HMAC_GENERAL
#define CKM_BLAKE2B_256_HMAC_GENERAL         0x00004013UL
#endif
#ifndef CKM_BLAKE2B_256_KEY_DERIVE
#define CKM_BLAKE2B_256_KEY_DERIVE           0x00004014UL
#endif
#ifndef CKM_BLAKE2B_256_KEY_GEN
#define CKM_BLAKE2B_256_KEY_GEN              0x00004015UL
#endif
#ifndef CKM_BLAKE2B_384
#define CKM_BLAKE2B_384                      0x00004016UL
#endif
#ifndef CKM_BLAKE2B_384_HMAC
#define CKM_BLAKE2B_384_HMAC                 0x00004017UL
#endif
#ifndef CKM_BLAKE2B_384_HMAC_GENERAL
#define CKM_BLAKE2B_384_HMAC_GENERAL         0x00004018UL
#endif
#ifndef CKM_BLAKE2B_384_KEY_DERIVE
#define CKM_BLAKE2B_384_KEY_DERIVE           0x00004019UL
#endif
#ifndef CKM_BLAKE2B_384_KEY_GEN
#define CKM_BLAKE2B_384_KEY_GEN              0x0000401aUL
#endif
#ifndef CKM_BLAKE2B_512
#define CKM_BLAKE2B_512                      0x0000401bUL
#endif
#ifndef CKM_BLAKE2B_512_HMAC
#define CKM_BLAKE2B_512_HMAC                 0x0000401cUL
#endif
#ifndef CKM_BLAKE2B_512_HMAC_GENERAL
#define CKM_BLAKE2B_512_HMAC_GENERAL         0x0000401dUL
#endif
#ifndef CKM_BLAKE2B_512_KEY_DERIVE
#define CKM_BLAKE2B_512_KEY_DERIVE           0x0000401eUL
#endif
#ifndef CKM_BLAKE2B_512_KEY_GEN
#define CKM_BLAKE2B_512_KEY_GEN              0x0000401fUL
#endif
#ifndef CKM_SALSA20
#define CKM_SALSA20                          0x00004020UL
#endif
#ifndef CKM_CHACHA20_POLY1305
#define CKM_CHACHA20_POLY1305                0x00004021UL
#endif
#ifndef CKM_SALSA20_POLY1305
#define CKM_SALSA20_POLY1305                 0x00004022UL
#endif
#ifndef CKM_X3DH_INITIALIZE
#define CKM_X3DH_INITIALIZE                  0x00004023UL
#endif
#ifndef CKM_X3DH_RESPOND
#define CKM_X3DH_RESPOND                     0x00004024UL
#endif
#ifndef CKM_X2RATCHET_INITIALIZE
#define CKM_X2RATCHET_INITIALIZE             0x00004025UL
#endif
#ifndef CKM_X2RATCHET_RESPOND
#define CKM_X2RATCHET_RESPOND                0x00004026UL
#endif
#ifndef CKM_X2RATCHET_ENCRYPT
#define CKM_X2RATCHET_ENCRYPT                0x00004027UL
#endif
#ifndef CKM_X2RATCHET_DECRYPT
#define CKM_X2RATCHET_DECRYPT                0x00004028UL
#endif
#ifndef CKM_XEDDSA
#define CKM_XEDDSA                           0x00004029UL
#endif
#ifndef CKM_HKDF_DERIVE
#define CKM_HKDF_DERIVE                      0x0000402aUL
#endif
#ifndef CKM_HKDF_DATA
#define CKM_HKDF_DATA                        0x0000402bUL
#endif
#ifndef CKM_HKDF_KEY_GEN
#define CKM_HKDF_KEY_GEN                     0x0000402cUL
#endif
#ifndef CKM_SALSA20_KEY_GEN
#define CKM_SALSA20_KEY_GEN                  0x0000402dUL
#endif
#ifndef CKM_IKE2_PRF_PLUS_DERIVE
#define CKM_IKE2_PRF_PLUS_DERIVE             0x0000402eUL
#endif
#ifndef CKM_IKE_PRF_DERIVE
#define CKM_IKE_PRF_DERIVE                   0x0000402fUL
#endif
#ifndef CKM_IKE1_PRF_DERIVE
#define CKM_IKE1_PRF_DERIVE                  0x00004030UL
#endif
#ifndef CKM_IKE1_EXTENDED_DERIVE
#define CKM_IKE1_EXTENDED_DERIVE             0x00004031UL
#endif
#ifndef CKM_HSS_KEY_PAIR_GEN
#define CKM_HSS_KEY_PAIR_GEN                 0x00004032UL
#endif
#ifndef CKM_HSS
#define CKM_HSS                              0x00004033UL
#endif
#ifndef CKM_XMSS_KEY_PAIR_GEN
#define CKM_XMSS_KEY_PAIR_GEN                0x00004034UL
#endif
#ifndef CKM_XMSSMT_KEY_PAIR_GEN
#define CKM_XMSSMT_KEY_PAIR_GEN              0x00004035UL
#endif
#ifndef CKM_XMSS
#define CKM_XMSS                             0x00004036UL
#endif
#ifndef CKM_XMSSMT
#define CKM_XMSSMT                           0x00004037UL
#endif
#ifndef CKM_ECDH_X_AES_KEY_WRAP
#define CKM_ECDH_X_AES_KEY_WRAP              0x00004038UL
#endif
#ifndef CKM_ECDH_COF_AES_KEY_WRAP
#define CKM_ECDH_COF_AES_KEY_WRAP            0x00004039UL
#endif
#ifndef CKM_PUB_KEY_FROM_PRIV_KEY
#define CKM_PUB_KEY_FROM_PRIV_KEY            0x0000403aUL
#endif
#ifndef CKR_AEAD_DECRYPT_FAILED
#define CKR_AEAD_DECRYPT_FAILED              0x00000042UL
#endif
#ifndef CKR_TOKEN_RESOURCE_EXCEEDED
#define CKR_TOKEN_RESOURCE_EXCEEDED          0x00000201UL
#endif
#ifndef CKR_OPERATION_CANCEL_FAILED
#define CKR_OPERATION_CANCEL_FAILED          0x00000202UL
#endif
#ifndef CKR_KEY_EXHAUSTED
#define CKR_KEY_EXHAUSTED                    0x00000203UL
#endif
#ifndef CKR_SEED_RANDOM_REQUIRED
#define CKR_SEED_RANDOM_REQUIRED             0x00000206UL
#endif
#ifndef CKR_OPERATION_NOT_VALIDATED
#define CKR_OPERATION_NOT_VALIDATED          0x00000207UL
#endif
#ifndef CKR_TOKEN_NOT_INITIALIZED
#define CKR_TOKEN_NOT_INITIALIZED            0x00000208UL
#endif
#ifndef CKR_PARAMETER_SET_NOT_SUPPORTED
#define CKR_PARAMETER_SET_NOT_SUPPORTED      0x00000209UL
#endif

#endif /* HSMBENCH_P11_ASYNC_H */

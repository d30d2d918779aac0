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

#endif /* HSMBENCH_P11_ASYNC_H */

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mock/nullp11.c - a PKCS#11 module that does nothing, as fast as
 * possible.
 *
 * It measures the ceiling of the benchmark harness itself: every
 * cryptographic call returns CKR_OK at once, with no lock, no allocation
 * and no syscall.  It is still coherent enough for a real client
 * (pkcs11-tool, p11-kit, the hsmbench runner) to go through the usual
 * set-up: one slot (ID 0) with a token that needs no PIN, a mechanism
 * list, sessions and object handles that look real.
 *
 * Build:  gcc -std=c11 -O2 $(pkg-config --cflags p11-kit-1) \
 *             -fPIC -shared [-fvisibility=hidden] -o libnull.so nullp11.c
 * Only C_GetFunctionList is exported; everything else is static.
 *
 * Behaviour worth knowing:
 *  - Every function except C_GetFunctionList checks the "initialised"
 *    flag and returns CKR_CRYPTOKI_NOT_INITIALIZED before C_Initialize.
 *    On the hot path that is one relaxed atomic load (a plain mov on
 *    x86-64 and arm64) and a well-predicted branch: cheap, and it keeps
 *    the module honest.
 *  - Output-producing functions (C_Sign, C_Encrypt, C_Digest, C_WrapKey,
 *    ...): a NULL output buffer is a size query and sets *len to 512;
 *    otherwise *len and the buffer are left exactly as given.  A NULL
 *    length pointer gives CKR_ARGUMENTS_BAD rather than a crash.
 *  - Session and object handles come from two relaxed atomic counters
 *    (each on its own cache line).  The session handle also encodes the
 *    CKF_RW_SESSION bit (handle = n << 1 | rw), so C_GetSessionInfo can
 *    report RW or RO without storing anything.  Handles are never checked:
 *    any handle is accepted everywhere.
 *  - C_OpenSession insists on CKF_SERIAL_SESSION, as PKCS#11 requires.
 *  - C_WaitForSlotEvent -> CKR_FUNCTION_NOT_SUPPORTED;
 *    C_GetFunctionStatus / C_CancelFunction -> CKR_FUNCTION_NOT_PARALLEL.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <p11-kit/pkcs11.h>

/* p11-kit's pkcs11.h declares every C_xxx as an extern function, so the
 * static implementations are called np_xxx and only reach the client
 * through the function list. */

#define NP_OUTPUT_LEN   512UL   /* answer to every output size query */
#define NP_MIN_KEY      1UL
#define NP_MAX_KEY      16384UL
#define NP_SLOT         0UL

static atomic_int np_initialized;
static _Alignas(64) atomic_ulong np_next_session = 1;
static _Alignas(64) atomic_ulong np_next_object = 1;

#define NP_READY() \
    (atomic_load_explicit(&np_initialized, memory_order_relaxed) != 0)
#define NP_REQUIRE_INIT() \
    do { if (!NP_READY()) return CKR_CRYPTOKI_NOT_INITIALIZED; } while (0)

/* ---- generators for the trivial functions ------------------------------ */

/* Returns CKR_OK (once initialised), touches nothing. */
#define NP_STUB(name, params) \
    static CK_RV np_##name params { NP_REQUIRE_INIT(); return CKR_OK; }

/* Produces output into (out, *outlen): NULL out is a size query. */
#define NP_OUTPUT(name, params, out, outlen) \
    static CK_RV np_##name params { \
        NP_REQUIRE_INIT(); \
        if (outlen == NULL) return CKR_ARGUMENTS_BAD; \
        if (out == NULL) *outlen = NP_OUTPUT_LEN; \
        return CKR_OK; \
    }

/* Creates one object and returns its handle in *ph. */
#define NP_NEWOBJ(name, params, ph) \
    static CK_RV np_##name params { \
        NP_REQUIRE_INIT(); \
        if (ph == NULL) return CKR_ARGUMENTS_BAD; \
        *ph = np_new_object(); \
        return CKR_OK; \
    }

/* Common parameter lists. */
#define NP_P_INIT   (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, \
                     CK_OBJECT_HANDLE hKey)
#define NP_P_IN     (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, \
                     CK_ULONG ulPartLen)
#define NP_P_INOUT  (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pIn, CK_ULONG ulInLen, \
                     CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen)
#define NP_P_FINAL  (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pOut, \
                     CK_ULONG_PTR pulOutLen)

static CK_OBJECT_HANDLE np_new_object(void)
{
    return atomic_fetch_add_explicit(&np_next_object, 1, memory_order_relaxed);
}

/* Copy a string into a space-padded, not NUL-terminated PKCS#11 field. */
static void np_pad(CK_UTF8CHAR *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    memset(dst, ' ', size);
    memcpy(dst, src, n < size ? n : size);
}

/* ---- general purpose ----------------------------------------------------- */

static CK_RV np_Initialize(CK_VOID_PTR pInitArgs)
{
    if (pInitArgs != NULL) {
        const CK_C_INITIALIZE_ARGS *a = pInitArgs;
        int nfn = (a->CreateMutex != NULL) + (a->DestroyMutex != NULL) +
                  (a->LockMutex != NULL) + (a->UnlockMutex != NULL);
        if (a->pReserved != NULL || (nfn != 0 && nfn != 4))
            return CKR_ARGUMENTS_BAD;
        /* Any flags are fine: CKF_OS_LOCKING_OK or application mutexes
         * alike, since the module never locks, and it never creates
         * threads either (CKF_LIBRARY_CANT_CREATE_OS_THREADS). */
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&np_initialized, &expected, 1))
        return CKR_CRYPTOKI_ALREADY_INITIALIZED;
    return CKR_OK;
}

static CK_RV np_Finalize(CK_VOID_PTR pReserved)
{
    if (pReserved != NULL)
        return CKR_ARGUMENTS_BAD;
    if (!atomic_exchange(&np_initialized, 0))
        return CKR_CRYPTOKI_NOT_INITIALIZED;
    return CKR_OK;
}

static CK_RV np_GetInfo(CK_INFO_PTR pInfo)
{
    NP_REQUIRE_INIT();
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    memset(pInfo, 0, sizeof *pInfo);
    pInfo->cryptokiVersion.major = 2;
    pInfo->cryptokiVersion.minor = 40;
    np_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    pInfo->flags = 0;
    np_pad(pInfo->libraryDescription, sizeof pInfo->libraryDescription,
           "hsmbench null module");
    pInfo->libraryVersion.major = 1;
    pInfo->libraryVersion.minor = 0;
    return CKR_OK;
}

/* ---- slots, tokens, mechanisms ------------------------------------------- */

static CK_RV np_GetSlotList(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList,
                            CK_ULONG_PTR pulCount)
{
    NP_REQUIRE_INIT();
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    if (pSlotList == NULL) {
        *pulCount = 1;
        return CKR_OK;
    }
    if (*pulCount < 1) {
        *pulCount = 1;
        return CKR_BUFFER_TOO_SMALL;
    }
    pSlotList[0] = NP_SLOT;
    *pulCount = 1;
    return CKR_OK;
}

static CK_RV np_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo)
{
    NP_REQUIRE_INIT();
    if (slotID != NP_SLOT)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    memset(pInfo, 0, sizeof *pInfo);
    np_pad(pInfo->slotDescription, sizeof pInfo->slotDescription,
           "hsmbench null slot");
    np_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    pInfo->flags = CKF_TOKEN_PRESENT;
    pInfo->hardwareVersion.major = 1;
    pInfo->firmwareVersion.major = 1;
    return CKR_OK;
}

static CK_RV np_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo)
{
    NP_REQUIRE_INIT();
    if (slotID != NP_SLOT)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    memset(pInfo, 0, sizeof *pInfo);
    np_pad(pInfo->label, sizeof pInfo->label, "null");
    np_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    np_pad(pInfo->model, sizeof pInfo->model, "null");
    np_pad(pInfo->serialNumber, sizeof pInfo->serialNumber, "0000000000000001");
    pInfo->flags = CKF_TOKEN_INITIALIZED | CKF_RNG;   /* no CKF_LOGIN_REQUIRED */
    pInfo->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulSessionCount = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulRwSessionCount = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulMaxPinLen = 255;
    pInfo->ulMinPinLen = 0;
    pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->hardwareVersion.major = 1;
    pInfo->firmwareVersion.major = 1;
    np_pad(pInfo->utcTime, sizeof pInfo->utcTime, "");  /* no clock on token */
    return CKR_OK;
}

#define NP_F_RSA    (CKF_ENCRYPT | CKF_DECRYPT | CKF_SIGN | CKF_VERIFY | \
                     CKF_SIGN_RECOVER | CKF_VERIFY_RECOVER | CKF_WRAP | CKF_UNWRAP)
#define NP_F_SV     (CKF_SIGN | CKF_VERIFY)
#define NP_F_CIPHER (CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP)
#define NP_F_EC     (CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS)

static const struct {
    CK_MECHANISM_TYPE type;
    CK_FLAGS flags;                 /* CKF_HW is added for all */
} np_mechs[] = {
    { CKM_RSA_PKCS_KEY_PAIR_GEN,    CKF_GENERATE_KEY_PAIR },
    { CKM_RSA_PKCS,                 NP_F_RSA },
    { CKM_SHA256_RSA_PKCS,          NP_F_SV },
    { CKM_RSA_PKCS_PSS,             NP_F_SV },
    { CKM_SHA256_RSA_PKCS_PSS,      NP_F_SV },
    { CKM_RSA_PKCS_OAEP,            NP_F_CIPHER },
    { CKM_RSA_X_509,                NP_F_RSA },
    { CKM_EC_KEY_PAIR_GEN,          CKF_GENERATE_KEY_PAIR | NP_F_EC },
    { CKM_ECDSA,                    NP_F_SV | NP_F_EC },
    { CKM_ECDSA_SHA256,             NP_F_SV | NP_F_EC },
    { CKM_ECDH1_DERIVE,             CKF_DERIVE | NP_F_EC },
    { CKM_AES_KEY_GEN,              CKF_GENERATE },
    { CKM_AES_ECB,                  NP_F_CIPHER },
    { CKM_AES_CBC,                  NP_F_CIPHER },
    { CKM_AES_CBC_PAD,              NP_F_CIPHER },
    { CKM_AES_CTR,                  CKF_ENCRYPT | CKF_DECRYPT },
    { CKM_AES_GCM,                  NP_F_CIPHER },
    { CKM_AES_KEY_WRAP,             NP_F_CIPHER },
    { CKM_AES_KEY_WRAP_PAD,         NP_F_CIPHER },
    { CKM_DES3_KEY_GEN,             CKF_GENERATE },
    { CKM_DES3_ECB,                 NP_F_CIPHER },
    { CKM_DES3_CBC,                 NP_F_CIPHER },
    { CKM_GENERIC_SECRET_KEY_GEN,   CKF_GENERATE },
    { CKM_SHA_1_HMAC,               NP_F_SV },
    { CKM_SHA256_HMAC,              NP_F_SV },
    { CKM_SHA384_HMAC,              NP_F_SV },
    { CKM_SHA512_HMAC,              NP_F_SV },
    { CKM_SHA_1,                    CKF_DIGEST },
    { CKM_SHA224,                   CKF_DIGEST },
    { CKM_SHA256,                   CKF_DIGEST },
    { CKM_SHA384,                   CKF_DIGEST },
    { CKM_SHA512,                   CKF_DIGEST },
};
#define NP_NMECHS (sizeof np_mechs / sizeof np_mechs[0])

static CK_RV np_GetMechanismList(CK_SLOT_ID slotID,
                                 CK_MECHANISM_TYPE_PTR pMechanismList,
                                 CK_ULONG_PTR pulCount)
{
    NP_REQUIRE_INIT();
    if (slotID != NP_SLOT)
        return CKR_SLOT_ID_INVALID;
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    if (pMechanismList == NULL) {
        *pulCount = NP_NMECHS;
        return CKR_OK;
    }
    if (*pulCount < NP_NMECHS) {
        *pulCount = NP_NMECHS;
        return CKR_BUFFER_TOO_SMALL;
    }
    for (size_t i = 0; i < NP_NMECHS; i++)
        pMechanismList[i] = np_mechs[i].type;
    *pulCount = NP_NMECHS;
    return CKR_OK;
}

static CK_RV np_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type,
                                 CK_MECHANISM_INFO_PTR pInfo)
{
    NP_REQUIRE_INIT();
    if (slotID != NP_SLOT)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    for (size_t i = 0; i < NP_NMECHS; i++) {
        if (np_mechs[i].type == type) {
            pInfo->ulMinKeySize = NP_MIN_KEY;
            pInfo->ulMaxKeySize = NP_MAX_KEY;
            pInfo->flags = CKF_HW | np_mechs[i].flags;
            return CKR_OK;
        }
    }
    return CKR_MECHANISM_INVALID;
}

NP_STUB(InitToken, (CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen,
                    CK_UTF8CHAR_PTR pLabel))
NP_STUB(InitPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin,
                  CK_ULONG ulPinLen))
NP_STUB(SetPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin,
                 CK_ULONG ulOldLen, CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen))

/* ---- sessions --------------------------------------------------------------- */

static CK_RV np_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags,
                            CK_VOID_PTR pApplication, CK_NOTIFY Notify,
                            CK_SESSION_HANDLE_PTR phSession)
{
    NP_REQUIRE_INIT();
    if (slotID != NP_SLOT)
        return CKR_SLOT_ID_INVALID;
    if (!(flags & CKF_SERIAL_SESSION))
        return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    if (phSession == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_ULONG n = atomic_fetch_add_explicit(&np_next_session, 1,
                                           memory_order_relaxed);
    *phSession = (n << 1) | ((flags & CKF_RW_SESSION) ? 1 : 0);
    return CKR_OK;
}

NP_STUB(CloseSession, (CK_SESSION_HANDLE hSession))

static CK_RV np_CloseAllSessions(CK_SLOT_ID slotID)
{
    NP_REQUIRE_INIT();
    return slotID == NP_SLOT ? CKR_OK : CKR_SLOT_ID_INVALID;
}

static CK_RV np_GetSessionInfo(CK_SESSION_HANDLE hSession,
                               CK_SESSION_INFO_PTR pInfo)
{
    NP_REQUIRE_INIT();
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    int rw = (int)(hSession & 1);
    pInfo->slotID = NP_SLOT;
    pInfo->state = rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
    pInfo->flags = CKF_SERIAL_SESSION | (rw ? CKF_RW_SESSION : 0);
    pInfo->ulDeviceError = 0;
    return CKR_OK;
}

NP_OUTPUT(GetOperationState, NP_P_FINAL, pOut, pulOutLen)
NP_STUB(SetOperationState, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pState,
                            CK_ULONG ulStateLen, CK_OBJECT_HANDLE hEncKey,
                            CK_OBJECT_HANDLE hAuthKey))
NP_STUB(Login, (CK_SESSION_HANDLE hSession, CK_USER_TYPE userType,
                CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen))
NP_STUB(Logout, (CK_SESSION_HANDLE hSession))

/* ---- objects ------------------------------------------------------------- */

NP_NEWOBJ(CreateObject, (CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate,
                         CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phObject), phObject)
NP_NEWOBJ(CopyObject, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                       CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
                       CK_OBJECT_HANDLE_PTR phNewObject), phNewObject)
NP_STUB(DestroyObject, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject))

static CK_RV np_GetObjectSize(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                              CK_ULONG_PTR pulSize)
{
    NP_REQUIRE_INIT();
    if (pulSize == NULL)
        return CKR_ARGUMENTS_BAD;
    *pulSize = 0;
    return CKR_OK;
}

/* Every attribute comes back empty; values are never written. */
static CK_RV np_GetAttributeValue(CK_SESSION_HANDLE hSession,
                                  CK_OBJECT_HANDLE hObject,
                                  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
    NP_REQUIRE_INIT();
    if (pTemplate == NULL && ulCount != 0)
        return CKR_ARGUMENTS_BAD;
    for (CK_ULONG i = 0; i < ulCount; i++)
        pTemplate[i].ulValueLen = 0;
    return CKR_OK;
}

NP_STUB(SetAttributeValue, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                            CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount))
NP_STUB(FindObjectsInit, (CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate,
                          CK_ULONG ulCount))

static CK_RV np_FindObjects(CK_SESSION_HANDLE hSession,
                            CK_OBJECT_HANDLE_PTR phObject,
                            CK_ULONG ulMaxObjectCount,
                            CK_ULONG_PTR pulObjectCount)
{
    NP_REQUIRE_INIT();
    if (pulObjectCount == NULL)
        return CKR_ARGUMENTS_BAD;
    *pulObjectCount = 0;
    return CKR_OK;
}

NP_STUB(FindObjectsFinal, (CK_SESSION_HANDLE hSession))

/* ---- the hot path: encrypt, decrypt, digest, sign, verify ------------------ */

NP_STUB(EncryptInit, NP_P_INIT)
NP_OUTPUT(Encrypt, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(EncryptUpdate, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(EncryptFinal, NP_P_FINAL, pOut, pulOutLen)

NP_STUB(DecryptInit, NP_P_INIT)
NP_OUTPUT(Decrypt, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(DecryptUpdate, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(DecryptFinal, NP_P_FINAL, pOut, pulOutLen)

/*
 * Digests and MACs: a result's length depends on the mechanism alone, so the
 * module reports it, and clients that check result lengths (hsmbench does)
 * see a well-formed answer.  The mechanism of the last *Init is remembered
 * per session, in a slot only that session's thread touches (PKCS#11 asks
 * applications not to share a session between threads at once): no lock.
 */
#define NP_SESSION_SLOTS 4096
static _Atomic CK_ULONG np_session_len[NP_SESSION_SLOTS];

static CK_ULONG np_mech_len(CK_MECHANISM_PTR m)
{
    if (m == NULL)
        return 0;
    switch (m->mechanism) {
    case CKM_SHA_1: case CKM_SHA_1_HMAC: return 20;
    case CKM_SHA224: return 28;
    case CKM_SHA256: case CKM_SHA256_HMAC: return 32;
    case CKM_SHA384: case CKM_SHA384_HMAC: return 48;
    case CKM_SHA512: case CKM_SHA512_HMAC: return 64;
    default: return 0;    /* depends on the key or input: left as given */
    }
}

static void np_remember(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m)
{
    atomic_store_explicit(&np_session_len[(h >> 1) % NP_SESSION_SLOTS], np_mech_len(m),
                          memory_order_relaxed);
}

static CK_RV np_fixed_output(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG_PTR outlen)
{
    NP_REQUIRE_INIT();
    if (outlen == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_ULONG n = atomic_load_explicit(&np_session_len[(h >> 1) % NP_SESSION_SLOTS],
                                      memory_order_relaxed);
    if (out == NULL)
        *outlen = n ? n : NP_OUTPUT_LEN;
    else if (n && *outlen >= n)
        *outlen = n;
    return CKR_OK;
}

static CK_RV np_DigestInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism)
{
    NP_REQUIRE_INIT();
    np_remember(hSession, pMechanism);
    return CKR_OK;
}

static CK_RV np_Digest(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pIn, CK_ULONG ulInLen,
                       CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen)
{
    return np_fixed_output(hSession, pOut, pulOutLen);
}
NP_STUB(DigestUpdate, NP_P_IN)
NP_STUB(DigestKey, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hKey))
NP_OUTPUT(DigestFinal, NP_P_FINAL, pOut, pulOutLen)

static CK_RV np_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    NP_REQUIRE_INIT();
    np_remember(hSession, pMechanism);
    return CKR_OK;
}

static CK_RV np_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pIn, CK_ULONG ulInLen,
                     CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen)
{
    return np_fixed_output(hSession, pOut, pulOutLen);
}
NP_STUB(SignUpdate, NP_P_IN)
NP_OUTPUT(SignFinal, NP_P_FINAL, pOut, pulOutLen)
NP_STUB(SignRecoverInit, NP_P_INIT)
NP_OUTPUT(SignRecover, NP_P_INOUT, pOut, pulOutLen)

NP_STUB(VerifyInit, NP_P_INIT)
NP_STUB(Verify, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                 CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen))
NP_STUB(VerifyUpdate, NP_P_IN)
NP_STUB(VerifyFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature,
                      CK_ULONG ulSignatureLen))
NP_STUB(VerifyRecoverInit, NP_P_INIT)
NP_OUTPUT(VerifyRecover, NP_P_INOUT, pOut, pulOutLen)

NP_OUTPUT(DigestEncryptUpdate, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(DecryptDigestUpdate, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(SignEncryptUpdate, NP_P_INOUT, pOut, pulOutLen)
NP_OUTPUT(DecryptVerifyUpdate, NP_P_INOUT, pOut, pulOutLen)

/* ---- keys and random numbers --------------------------------------------- */

NP_NEWOBJ(GenerateKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                        CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
                        CK_OBJECT_HANDLE_PTR phKey), phKey)

static CK_RV np_GenerateKeyPair(CK_SESSION_HANDLE hSession,
                                CK_MECHANISM_PTR pMechanism,
                                CK_ATTRIBUTE_PTR pPublicKeyTemplate,
                                CK_ULONG ulPublicKeyAttributeCount,
                                CK_ATTRIBUTE_PTR pPrivateKeyTemplate,
                                CK_ULONG ulPrivateKeyAttributeCount,
                                CK_OBJECT_HANDLE_PTR phPublicKey,
                                CK_OBJECT_HANDLE_PTR phPrivateKey)
{
    NP_REQUIRE_INIT();
    if (phPublicKey == NULL || phPrivateKey == NULL)
        return CKR_ARGUMENTS_BAD;
    *phPublicKey = np_new_object();
    *phPrivateKey = np_new_object();
    return CKR_OK;
}

NP_OUTPUT(WrapKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                    CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey,
                    CK_BYTE_PTR pWrappedKey, CK_ULONG_PTR pulWrappedKeyLen),
          pWrappedKey, pulWrappedKeyLen)

NP_NEWOBJ(UnwrapKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                      CK_OBJECT_HANDLE hUnwrappingKey, CK_BYTE_PTR pWrappedKey,
                      CK_ULONG ulWrappedKeyLen, CK_ATTRIBUTE_PTR pTemplate,
                      CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey), phKey)

/* Some derivation mechanisms (e.g. SSL3 key material) pass phKey == NULL. */
static CK_RV np_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                          CK_OBJECT_HANDLE hBaseKey, CK_ATTRIBUTE_PTR pTemplate,
                          CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey)
{
    NP_REQUIRE_INIT();
    if (phKey != NULL)
        *phKey = np_new_object();
    return CKR_OK;
}

NP_STUB(SeedRandom, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed,
                     CK_ULONG ulSeedLen))
/* The buffer is deliberately left as it is. */
NP_STUB(GenerateRandom, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pRandomData,
                         CK_ULONG ulRandomLen))

/* ---- legacy and unsupported ---------------------------------------------- */

static CK_RV np_GetFunctionStatus(CK_SESSION_HANDLE hSession)
{
    NP_REQUIRE_INIT();
    return CKR_FUNCTION_NOT_PARALLEL;
}

static CK_RV np_CancelFunction(CK_SESSION_HANDLE hSession)
{
    NP_REQUIRE_INIT();
    return CKR_FUNCTION_NOT_PARALLEL;
}

static CK_RV np_WaitForSlotEvent(CK_FLAGS flags, CK_SLOT_ID_PTR pSlot,
                                 CK_VOID_PTR pReserved)
{
    NP_REQUIRE_INIT();
    return CKR_FUNCTION_NOT_SUPPORTED;
}

/* ---- the function list --------------------------------------------------- */

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList);

#define NP_FN(name) .C_##name = np_##name

static const CK_FUNCTION_LIST np_function_list = {
    .version = { 2, 40 },
    NP_FN(Initialize), NP_FN(Finalize), NP_FN(GetInfo),
    .C_GetFunctionList = C_GetFunctionList,
    NP_FN(GetSlotList), NP_FN(GetSlotInfo), NP_FN(GetTokenInfo),
    NP_FN(GetMechanismList), NP_FN(GetMechanismInfo),
    NP_FN(InitToken), NP_FN(InitPIN), NP_FN(SetPIN),
    NP_FN(OpenSession), NP_FN(CloseSession), NP_FN(CloseAllSessions),
    NP_FN(GetSessionInfo), NP_FN(GetOperationState), NP_FN(SetOperationState),
    NP_FN(Login), NP_FN(Logout),
    NP_FN(CreateObject), NP_FN(CopyObject), NP_FN(DestroyObject),
    NP_FN(GetObjectSize), NP_FN(GetAttributeValue), NP_FN(SetAttributeValue),
    NP_FN(FindObjectsInit), NP_FN(FindObjects), NP_FN(FindObjectsFinal),
    NP_FN(EncryptInit), NP_FN(Encrypt), NP_FN(EncryptUpdate), NP_FN(EncryptFinal),
    NP_FN(DecryptInit), NP_FN(Decrypt), NP_FN(DecryptUpdate), NP_FN(DecryptFinal),
    NP_FN(DigestInit), NP_FN(Digest), NP_FN(DigestUpdate), NP_FN(DigestKey),
    NP_FN(DigestFinal),
    NP_FN(SignInit), NP_FN(Sign), NP_FN(SignUpdate), NP_FN(SignFinal),
    NP_FN(SignRecoverInit), NP_FN(SignRecover),
    NP_FN(VerifyInit), NP_FN(Verify), NP_FN(VerifyUpdate), NP_FN(VerifyFinal),
    NP_FN(VerifyRecoverInit), NP_FN(VerifyRecover),
    NP_FN(DigestEncryptUpdate), NP_FN(DecryptDigestUpdate),
    NP_FN(SignEncryptUpdate), NP_FN(DecryptVerifyUpdate),
    NP_FN(GenerateKey), NP_FN(GenerateKeyPair), NP_FN(WrapKey), NP_FN(UnwrapKey),
    NP_FN(DeriveKey), NP_FN(SeedRandom), NP_FN(GenerateRandom),
    NP_FN(GetFunctionStatus), NP_FN(CancelFunction), NP_FN(WaitForSlotEvent),
};

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    if (ppFunctionList == NULL)
        return CKR_ARGUMENTS_BAD;
    /* The list is const and lives in read-only memory; PKCS#11 hands it
     * out through a non-const pointer, and clients never write to it. */
    *ppFunctionList = (CK_FUNCTION_LIST_PTR)&np_function_list;
    return CKR_OK;
}

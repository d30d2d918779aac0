/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_nullp11.c - checks the do-nothing module mock/nullp11.c.
 *
 * Usage: test_nullp11 /path/to/libnull.so   (or NULLP11_PATH=/path/...)
 *
 * The module is dlopen()ed and driven through its function list only, the
 * way the benchmark uses it.  Timing figures of the hot loop go to stderr
 * so that stdout carries only the PASS/FAIL lines.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include <p11-kit/pkcs11.h>

#include "tests/unit/check.h"

#define HOT_LOOP_PAIRS 10000000UL

static void *module;
static CK_FUNCTION_LIST_PTR p11;

/* Does a space-padded PKCS#11 field hold exactly `want`? */
static int padded_eq(const unsigned char *field, size_t size, const char *want)
{
    size_t n = strlen(want);
    if (n > size || memcmp(field, want, n) != 0)
        return 0;
    for (size_t i = n; i < size; i++)
        if (field[i] != ' ')
            return 0;
    return 1;
}

static int has_mech(const CK_MECHANISM_TYPE *list, CK_ULONG n, CK_MECHANISM_TYPE m)
{
    for (CK_ULONG i = 0; i < n; i++)
        if (list[i] == m)
            return 1;
    return 0;
}

/* Each case after test_initialize starts and ends with the module set up
 * and torn down, so the cases are independent of each other. */
static int setup(void)
{
    CK_RV rv = p11->C_Initialize(NULL);
    CHECK_MSG(rv == CKR_OK, "C_Initialize: 0x%lx", rv);
    return rv == CKR_OK;
}

static void teardown(void)
{
    CK_RV rv = p11->C_Finalize(NULL);
    CHECK_MSG(rv == CKR_OK, "C_Finalize: 0x%lx", rv);
}

static void test_load(void)
{
    CK_C_GetFunctionList get_list;

    CHECK(module != NULL);
    if (module == NULL)
        return;
    *(void **)&get_list = dlsym(module, "C_GetFunctionList");
    CHECK(get_list != NULL);
    if (get_list == NULL)
        return;
    /* Nothing else is exported. */
    CHECK(dlsym(module, "C_Initialize") == NULL);
    CHECK(dlsym(module, "C_Sign") == NULL);

    CHECK(get_list(NULL) == CKR_ARGUMENTS_BAD);
    CHECK(get_list(&p11) == CKR_OK);
    CHECK(p11 != NULL);
    if (p11 == NULL)
        return;
    CHECK(p11->version.major == 2 && p11->version.minor == 40);
    CHECK(p11->C_WaitForSlotEvent != NULL);
}

static void test_not_initialized(void)
{
    CK_INFO info;
    CK_ULONG n = 0;
    CK_MECHANISM mech = { CKM_SHA256, NULL, 0 };
    CK_BYTE buf[64];
    CK_ULONG len = sizeof buf;

    CHECK(p11->C_GetInfo(&info) == CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK(p11->C_GetSlotList(CK_TRUE, NULL, &n) == CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK(p11->C_DigestInit(1, &mech) == CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK(p11->C_Digest(1, buf, 1, buf, &len) == CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK(p11->C_Finalize(NULL) == CKR_CRYPTOKI_NOT_INITIALIZED);
}

static void test_initialize(void)
{
    CK_C_INITIALIZE_ARGS args;

    CHECK(p11->C_Initialize(NULL) == CKR_OK);
    CHECK(p11->C_Initialize(NULL) == CKR_CRYPTOKI_ALREADY_INITIALIZED);
    CHECK(p11->C_Finalize((void *)1) == CKR_ARGUMENTS_BAD);
    CHECK(p11->C_Finalize(NULL) == CKR_OK);
    CHECK(p11->C_Finalize(NULL) == CKR_CRYPTOKI_NOT_INITIALIZED);

    memset(&args, 0, sizeof args);
    args.flags = CKF_OS_LOCKING_OK;
    CHECK(p11->C_Initialize(&args) == CKR_OK);
    CHECK(p11->C_Initialize(&args) == CKR_CRYPTOKI_ALREADY_INITIALIZED);
    CHECK(p11->C_Finalize(NULL) == CKR_OK);

    args.pReserved = &args;                     /* must be NULL */
    CHECK(p11->C_Initialize(&args) == CKR_ARGUMENTS_BAD);
    CHECK(p11->C_Finalize(NULL) == CKR_CRYPTOKI_NOT_INITIALIZED);

    /* And it can be initialised again after all that. */
    CHECK(p11->C_Initialize(NULL) == CKR_OK);
    CHECK(p11->C_Finalize(NULL) == CKR_OK);
}

static void test_info(void)
{
    CK_INFO info;

    if (!setup())
        return;
    memset(&info, 0, sizeof info);
    CHECK(p11->C_GetInfo(&info) == CKR_OK);
    CHECK(info.cryptokiVersion.major == 2 && info.cryptokiVersion.minor == 40);
    CHECK(padded_eq(info.manufacturerID, sizeof info.manufacturerID, "hsmbench"));
    CHECK(padded_eq(info.libraryDescription, sizeof info.libraryDescription,
                    "hsmbench null module"));
    CHECK(info.libraryVersion.major == 1 && info.libraryVersion.minor == 0);
    teardown();
}

static void test_slots(void)
{
    CK_SLOT_ID slots[4] = { 99, 99, 99, 99 };
    CK_ULONG n = 0;
    CK_SLOT_INFO si;

    if (!setup())
        return;
    CHECK(p11->C_GetSlotList(CK_TRUE, NULL, &n) == CKR_OK);
    CHECK(n == 1);
    n = 0;
    CHECK(p11->C_GetSlotList(CK_TRUE, slots, &n) == CKR_BUFFER_TOO_SMALL);
    CHECK(n == 1);
    CHECK(slots[0] == 99);
    n = 4;
    CHECK(p11->C_GetSlotList(CK_FALSE, slots, &n) == CKR_OK);
    CHECK(n == 1 && slots[0] == 0);

    CHECK(p11->C_GetSlotInfo(0, &si) == CKR_OK);
    CHECK(padded_eq(si.slotDescription, sizeof si.slotDescription,
                    "hsmbench null slot"));
    CHECK(padded_eq(si.manufacturerID, sizeof si.manufacturerID, "hsmbench"));
    CHECK(si.flags & CKF_TOKEN_PRESENT);
    CHECK(p11->C_GetSlotInfo(1, &si) == CKR_SLOT_ID_INVALID);
    teardown();
}

static void test_token_info(void)
{
    CK_TOKEN_INFO ti;

    if (!setup())
        return;
    CHECK(p11->C_GetTokenInfo(0, &ti) == CKR_OK);
    CHECK(padded_eq(ti.label, sizeof ti.label, "null"));
    CHECK(padded_eq(ti.manufacturerID, sizeof ti.manufacturerID, "hsmbench"));
    CHECK(padded_eq(ti.model, sizeof ti.model, "null"));
    CHECK(padded_eq(ti.serialNumber, sizeof ti.serialNumber, "0000000000000001"));
    CHECK((ti.flags & CKF_TOKEN_INITIALIZED) && (ti.flags & CKF_RNG));
    CHECK(!(ti.flags & CKF_LOGIN_REQUIRED));
    CHECK(ti.ulMaxSessionCount == CK_EFFECTIVELY_INFINITE);
    CHECK(ti.ulMaxRwSessionCount == CK_EFFECTIVELY_INFINITE);
    CHECK(ti.firmwareVersion.major == 1 && ti.firmwareVersion.minor == 0);
    CHECK(p11->C_GetTokenInfo(7, &ti) == CKR_SLOT_ID_INVALID);
    teardown();
}

static void test_mechanisms(void)
{
    CK_MECHANISM_TYPE list[64];
    CK_ULONG n = 0, small = 2;
    CK_MECHANISM_INFO mi;

    if (!setup())
        return;
    CHECK(p11->C_GetMechanismList(0, NULL, &n) == CKR_OK);
    CHECK_MSG(n == 32, "%lu mechanisms", n);
    CHECK(p11->C_GetMechanismList(0, list, &small) == CKR_BUFFER_TOO_SMALL);
    CHECK(small == n);
    CHECK(p11->C_GetMechanismList(1, NULL, &n) == CKR_SLOT_ID_INVALID);
    n = sizeof list / sizeof list[0];
    CHECK(p11->C_GetMechanismList(0, list, &n) == CKR_OK);
    CHECK(n == 32);
    CHECK(has_mech(list, n, CKM_SHA256));
    CHECK(has_mech(list, n, CKM_AES_GCM));
    CHECK(has_mech(list, n, CKM_RSA_PKCS_KEY_PAIR_GEN));
    CHECK(has_mech(list, n, CKM_ECDSA_SHA256));

    CHECK(p11->C_GetMechanismInfo(0, CKM_SHA256, &mi) == CKR_OK);
    CHECK(mi.flags & CKF_DIGEST);
    CHECK(mi.flags & CKF_HW);
    CHECK(mi.ulMinKeySize == 1 && mi.ulMaxKeySize == 16384);

    CHECK(p11->C_GetMechanismInfo(0, CKM_AES_GCM, &mi) == CKR_OK);
    CHECK((mi.flags & CKF_ENCRYPT) && (mi.flags & CKF_DECRYPT));
    CHECK(!(mi.flags & CKF_DIGEST));
    CHECK(mi.ulMinKeySize <= mi.ulMaxKeySize);

    CHECK(p11->C_GetMechanismInfo(0, CKM_RSA_PKCS_KEY_PAIR_GEN, &mi) == CKR_OK);
    CHECK(mi.flags & CKF_GENERATE_KEY_PAIR);

    CHECK(p11->C_GetMechanismInfo(0, CKM_MD5, &mi) == CKR_MECHANISM_INVALID);
    CHECK(p11->C_GetMechanismInfo(0, CKM_VENDOR_DEFINED | 0x1234, &mi)
          == CKR_MECHANISM_INVALID);
    CHECK(p11->C_GetMechanismInfo(3, CKM_SHA256, &mi) == CKR_SLOT_ID_INVALID);
    teardown();
}

static void test_session_flow(void)
{
    CK_SESSION_HANDLE s = 0, s2 = 0, ro = 0;
    CK_SESSION_INFO info;
    CK_OBJECT_HANDLE pub = 0, priv = 0, found[4];
    CK_MECHANISM gen = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
    CK_MECHANISM sign = { CKM_SHA256_RSA_PKCS, NULL, 0 };
    CK_MECHANISM digest = { CKM_SHA256, NULL, 0 };
    CK_BYTE data[] = "hello", out[512];
    CK_ULONG len, nfound = 99;
    CK_BYTE v[8];
    CK_ATTRIBUTE attrs[2] = {
        { CKA_MODULUS, NULL, 77 },
        { CKA_LABEL, v, sizeof v },
    };

    if (!setup())
        return;
    CHECK(p11->C_OpenSession(0, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s)
          == CKR_OK);
    CHECK(p11->C_OpenSession(0, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s2)
          == CKR_OK);
    CHECK(p11->C_OpenSession(0, CKF_SERIAL_SESSION, NULL, NULL, &ro) == CKR_OK);
    CHECK(s != CK_INVALID_HANDLE && s < s2 && s2 < ro);
    CHECK(p11->C_OpenSession(0, CKF_RW_SESSION, NULL, NULL, &s2)
          == CKR_SESSION_PARALLEL_NOT_SUPPORTED);
    CHECK(p11->C_OpenSession(5, CKF_SERIAL_SESSION, NULL, NULL, &s2)
          == CKR_SLOT_ID_INVALID);

    CHECK(p11->C_GetSessionInfo(s, &info) == CKR_OK);
    CHECK(info.slotID == 0 && info.state == CKS_RW_PUBLIC_SESSION);
    CHECK((info.flags & CKF_SERIAL_SESSION) && (info.flags & CKF_RW_SESSION));
    CHECK(p11->C_GetSessionInfo(ro, &info) == CKR_OK);
    CHECK(info.state == CKS_RO_PUBLIC_SESSION && !(info.flags & CKF_RW_SESSION));

    CHECK(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4) == CKR_OK);

    CHECK(p11->C_GenerateKeyPair(s, &gen, NULL, 0, NULL, 0, &pub, &priv) == CKR_OK);
    CHECK(pub != CK_INVALID_HANDLE && priv != CK_INVALID_HANDLE && pub != priv);

    /* Sign: size query, then the real call, which leaves *len and the
     * buffer exactly as they were. */
    CHECK(p11->C_SignInit(s, &sign, priv) == CKR_OK);
    len = 0;
    CHECK(p11->C_Sign(s, data, sizeof data - 1, NULL, &len) == CKR_OK);
    CHECK(len == 512);
    memset(out, 0xab, sizeof out);
    CHECK(p11->C_Sign(s, data, sizeof data - 1, out, &len) == CKR_OK);
    CHECK(len == 512);
    CHECK(out[0] == 0xab && out[511] == 0xab);
    CHECK(p11->C_Sign(s, data, sizeof data - 1, out, NULL) == CKR_ARGUMENTS_BAD);

    CHECK(p11->C_VerifyInit(s, &sign, pub) == CKR_OK);
    CHECK(p11->C_Verify(s, data, sizeof data - 1, out, len) == CKR_OK);

    CHECK(p11->C_DigestInit(s, &digest) == CKR_OK);
    len = 0;
    /* Digest lengths follow the mechanism, so length-checking clients see
     * a well-formed answer. */
    CHECK(p11->C_Digest(s, data, sizeof data - 1, NULL, &len) == CKR_OK);
    CHECK(len == 32);
    len = sizeof out;
    CHECK(p11->C_Digest(s, data, sizeof data - 1, out, &len) == CKR_OK);
    CHECK(len == 32);
    CK_MECHANISM sha1 = { CKM_SHA_1, NULL, 0 };
    CHECK(p11->C_DigestInit(s, &sha1) == CKR_OK);
    len = sizeof out;
    CHECK(p11->C_Digest(s, data, sizeof data - 1, out, &len) == CKR_OK);
    CHECK(len == 20);

    CHECK(p11->C_GenerateRandom(s, out, 16) == CKR_OK);

    CHECK(p11->C_FindObjectsInit(s, NULL, 0) == CKR_OK);
    CHECK(p11->C_FindObjects(s, found, 4, &nfound) == CKR_OK);
    CHECK(nfound == 0);
    CHECK(p11->C_FindObjectsFinal(s) == CKR_OK);

    memset(v, 0x5a, sizeof v);
    CHECK(p11->C_GetAttributeValue(s, priv, attrs, 2) == CKR_OK);
    CHECK(attrs[0].ulValueLen == 0 && attrs[1].ulValueLen == 0);
    CHECK(attrs[1].pValue == v && v[0] == 0x5a);

    CHECK(p11->C_DestroyObject(s, pub) == CKR_OK);
    CHECK(p11->C_Logout(s) == CKR_OK);
    CHECK(p11->C_WaitForSlotEvent(CKF_DONT_BLOCK, NULL, NULL)
          == CKR_FUNCTION_NOT_SUPPORTED);
    CHECK(p11->C_GetFunctionStatus(s) == CKR_FUNCTION_NOT_PARALLEL);
    CHECK(p11->C_CancelFunction(s) == CKR_FUNCTION_NOT_PARALLEL);
    CHECK(p11->C_CloseSession(s) == CKR_OK);
    CHECK(p11->C_CloseAllSessions(0) == CKR_OK);
    CHECK(p11->C_CloseAllSessions(1) == CKR_SLOT_ID_INVALID);
    teardown();
}

static void test_hot_loop(void)
{
    CK_SESSION_HANDLE s = 0;
    CK_MECHANISM digest = { CKM_SHA256, NULL, 0 };
    CK_BYTE data[64] = { 0 }, out[64];
    CK_ULONG len, failures = 0;
    struct timespec t0, t1;

    if (!setup())
        return;
    CHECK(p11->C_OpenSession(0, CKF_SERIAL_SESSION, NULL, NULL, &s) == CKR_OK);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long i = 0; i < HOT_LOOP_PAIRS; i++) {
        len = sizeof out;
        failures += p11->C_DigestInit(s, &digest) != CKR_OK;
        failures += p11->C_Digest(s, data, sizeof data, out, &len) != CKR_OK;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_MSG(failures == 0, "%lu calls failed", failures);

    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "  hot loop: %lu DigestInit+Digest pairs in %.3f s "
            "(%.1f M pairs/s, %.1f ns/pair)\n", HOT_LOOP_PAIRS, secs,
            (double)HOT_LOOP_PAIRS / secs / 1e6, secs * 1e9 / (double)HOT_LOOP_PAIRS);

    CHECK(p11->C_CloseSession(s) == CKR_OK);
    teardown();
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : getenv("NULLP11_PATH");

    if (path == NULL || *path == '\0') {
        fprintf(stderr, "usage: %s /path/to/libnull.so (or set NULLP11_PATH)\n",
                argv[0]);
        return 2;
    }
    module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (module == NULL)
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());

    RUN(test_load);
    if (p11 == NULL)
        return check_finish();
    RUN(test_not_initialized);
    RUN(test_initialize);
    RUN(test_info);
    RUN(test_slots);
    RUN(test_token_info);
    RUN(test_mechanisms);
    RUN(test_session_flow);
    RUN(test_hot_loop);

    dlclose(module);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_mockhsm.c - checks the mock HSM, mock/mockhsm.c.
 *
 * Usage: test_mockhsm [/path/to/libhsmbench-mock.so]
 *   or MOCKHSM_PATH=...; without either, the mock next to NULLP11_PATH
 *   (tests/run.sh sets that per build variant), else
 *   build/libhsmbench-mock.so.
 *
 * The module is dlopen()ed and driven through its function lists only.
 * Each case initialises it with its own configuration string (passed as
 * pReserved; HSMBENCH_MOCK is unset first, except where a case tests it)
 * and finalises it at the end.  Timing cases allow generous margins:
 * they prove that the delays happen, not how precisely a loaded machine
 * keeps them.
 *
 * serial: times the mock's service times, cores and stalls
 * tsan: yes (the mock's sessions and cores driven by several threads at once)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>

#include "p11/pkcs11_3x.h"
#include "tests/unit/check.h"

static void *module;
static CK_FUNCTION_LIST_PTR p11;
static CK_FUNCTION_LIST_3_0 *p30;
static CK_FUNCTION_LIST_3_2 *p32;
static CK_C_GetInterface get_interface;
static CK_C_GetInterfaceList get_interface_list;

#define SLOT 1UL

#define CHECK_RV(call, want) do { \
        CK_RV rv_ = (call); \
        CHECK_MSG(rv_ == (CK_RV)(want), "%s: 0x%lx, expected 0x%lx", #call, rv_, (CK_RV)(want)); \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

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

/* C_Initialize with `cfg` as pReserved (NULL: none). */
static CK_RV init_with(const char *cfg)
{
    CK_C_INITIALIZE_ARGS args;
    memset(&args, 0, sizeof args);
    args.flags = CKF_OS_LOCKING_OK;
    args.pReserved = (void *)cfg;
    return p11->C_Initialize(&args);
}

static int setup(const char *cfg)
{
    CK_RV rv = init_with(cfg);
    CHECK_MSG(rv == CKR_OK, "C_Initialize(\"%s\"): 0x%lx", cfg ? cfg : "", rv);
    return rv == CKR_OK;
}

static void teardown(void)
{
    CK_RV rv = p11->C_Finalize(NULL);
    CHECK_MSG(rv == CKR_OK, "C_Finalize: 0x%lx", rv);
}

static CK_SESSION_HANDLE open_session(CK_FLAGS extra)
{
    CK_SESSION_HANDLE s = CK_INVALID_HANDLE;
    CK_RV rv = p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION | extra, NULL, NULL, &s);
    CHECK_MSG(rv == CKR_OK, "C_OpenSession: 0x%lx", rv);
    return s;
}

/* ---- keys ------------------------------------------------------------------ */

static const CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
static const unsigned char oid_p256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const unsigned char oid_p384[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
static const unsigned char oid_p521[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };
static const unsigned char oid_ed25519[] = { 0x06, 0x03, 0x2b, 0x65, 0x70 };

static CK_RV gen_rsa(CK_SESSION_HANDLE s, CK_ULONG bits, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
    CK_MECHANISM m = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
    CK_ATTRIBUTE pt[] = { { CKA_MODULUS_BITS, &bits, sizeof bits } };
    CK_ATTRIBUTE vt[] = { { CKA_SIGN, (void *)&yes, sizeof yes } };
    return p11->C_GenerateKeyPair(s, &m, pt, 1, vt, 1, pub, priv);
}

static CK_RV gen_ec(CK_SESSION_HANDLE s, CK_MECHANISM_TYPE mech, const unsigned char *oid, size_t oidlen,
                    CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
    CK_MECHANISM m = { mech, NULL, 0 };
    CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)oid, (CK_ULONG)oidlen } };
    CK_ATTRIBUTE vt[] = { { CKA_DERIVE, (void *)&yes, sizeof yes } };
    return p11->C_GenerateKeyPair(s, &m, pt, 1, vt, 1, pub, priv);
}

static CK_RV gen_secret(CK_SESSION_HANDLE s, CK_MECHANISM_TYPE mech, CK_ULONG len, CK_OBJECT_HANDLE *key)
{
    CK_MECHANISM m = { mech, NULL, 0 };
    CK_ATTRIBUTE t[] = { { CKA_VALUE_LEN, &len, sizeof len } };
    return p11->C_GenerateKey(s, &m, t, mech == CKM_DES3_KEY_GEN ? 0 : 1, key);
}

/* A secret key with CKA_VALUE imported, and one usage attribute set. */
static CK_RV make_secret(CK_SESSION_HANDLE s, CK_KEY_TYPE kt, CK_ULONG len, CK_ATTRIBUTE_TYPE usage,
                         CK_BBOOL allowed, CK_BBOOL sensitive, CK_OBJECT_HANDLE *key)
{
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    unsigned char value[64];
    memset(value, 0x11, sizeof value);
    CK_ATTRIBUTE t[] = {
        { CKA_CLASS, &cls, sizeof cls }, { CKA_KEY_TYPE, &kt, sizeof kt },
        { CKA_VALUE, value, len }, { CKA_SENSITIVE, &sensitive, sizeof sensitive },
        { usage, &allowed, sizeof allowed },
    };
    return p11->C_CreateObject(s, t, 5, key);
}

static CK_ULONG attr_len(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_TYPE type)
{
    CK_ATTRIBUTE a = { type, NULL, 0 };
    if (p11->C_GetAttributeValue(s, h, &a, 1) != CKR_OK)
        return 0;
    return a.ulValueLen;
}

static CK_ULONG attr_ulong(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_TYPE type)
{
    CK_ULONG v = (CK_ULONG)-1;
    CK_ATTRIBUTE a = { type, &v, sizeof v };
    p11->C_GetAttributeValue(s, h, &a, 1);
    return v;
}

/* ---- loading, initialisation, configuration ------------------------------------ */

static void test_load(void)
{
    CK_C_GetFunctionList get_list;
    CK_INTERFACE *it = NULL;
    CK_INTERFACE list[4];
    CK_ULONG n = 0;

    CHECK(module != NULL);
    if (module == NULL)
        return;
    *(void **)&get_list = dlsym(module, "C_GetFunctionList");
    *(void **)&get_interface_list = dlsym(module, "C_GetInterfaceList");
    *(void **)&get_interface = dlsym(module, "C_GetInterface");
    CHECK(get_list != NULL && get_interface_list != NULL && get_interface != NULL);
    if (!get_list || !get_interface_list || !get_interface)
        return;
    CHECK(dlsym(module, "C_Initialize") == NULL);     /* nothing else is exported */
    CHECK(dlsym(module, "C_Sign") == NULL);
    CHECK(dlsym(module, "C_AsyncComplete") == NULL);

    CHECK_RV(get_list(NULL), CKR_ARGUMENTS_BAD);
    CHECK_RV(get_list(&p11), CKR_OK);
    if (p11 == NULL)
        return;
    CHECK(p11->version.major == 2 && p11->version.minor == 40);

    CHECK_RV(get_interface_list(NULL, &n), CKR_OK);
    CHECK(n == 3);
    n = 1;
    CHECK_RV(get_interface_list(list, &n), CKR_BUFFER_TOO_SMALL);
    CHECK(n == 3);
    CHECK_RV(get_interface_list(list, &n), CKR_OK);
    for (CK_ULONG i = 0; i < n; i++)
        CHECK(strcmp((char *)list[i].pInterfaceName, "PKCS 11") == 0);

    /* The default is 3.0; 3.2 on request, with the asynchronous functions. */
    CHECK_RV(get_interface(NULL, NULL, &it, 0), CKR_OK);
    CHECK(it && ((CK_VERSION *)it->pFunctionList)->major == 3 &&
          ((CK_VERSION *)it->pFunctionList)->minor == 0);
    CK_VERSION v30 = { 3, 0 }, v32 = { 3, 2 }, v99 = { 9, 9 };
    CHECK_RV(get_interface((CK_UTF8CHAR_PTR)"PKCS 11", &v30, &it, 0), CKR_OK);
    p30 = it ? it->pFunctionList : NULL;
    CHECK_RV(get_interface((CK_UTF8CHAR_PTR)"PKCS 11", &v32, &it, 0), CKR_OK);
    p32 = it ? it->pFunctionList : NULL;
    CHECK(p30 && p30->C_SessionCancel && p30->C_GetInterface && p30->C_Sign == p11->C_Sign);
    CHECK(p32 && p32->version.major == 3 && p32->version.minor == 2);
    CHECK(p32 && p32->C_AsyncComplete && p32->C_AsyncGetID && p32->C_AsyncJoin &&
          p32->C_EncapsulateKey && p32->C_WrapKeyAuthenticated);
    CHECK_RV(get_interface((CK_UTF8CHAR_PTR)"PKCS 11", &v99, &it, 0), CKR_ARGUMENTS_BAD);
    CHECK_RV(get_interface((CK_UTF8CHAR_PTR)"Vendor X", NULL, &it, 0), CKR_ARGUMENTS_BAD);
    CHECK_RV(get_interface(NULL, NULL, NULL, 0), CKR_ARGUMENTS_BAD);
}

static void test_not_initialized(void)
{
    CK_INFO info;
    CK_ULONG n = 0;
    CK_MECHANISM mech = { CKM_SHA256, NULL, 0 };

    CHECK_RV(p11->C_GetInfo(&info), CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, NULL, &n), CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK_RV(p11->C_DigestInit(1, &mech), CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK_RV(p11->C_Finalize(NULL), CKR_CRYPTOKI_NOT_INITIALIZED);
    CHECK_RV(p11->C_Initialize(NULL), CKR_OK);
    CHECK_RV(p11->C_Initialize(NULL), CKR_CRYPTOKI_ALREADY_INITIALIZED);
    CHECK_RV(p11->C_Finalize((void *)1), CKR_ARGUMENTS_BAD);
    CHECK_RV(p11->C_Finalize(NULL), CKR_OK);
}

/* C_Initialize with cfg, stderr captured into buf. */
static CK_RV init_capture(const char *cfg, char *buf, size_t len)
{
    FILE *tmp = tmpfile();
    int saved = dup(2);
    CK_RV rv;

    buf[0] = '\0';
    if (!tmp || saved < 0) {
        if (tmp)
            fclose(tmp);
        return init_with(cfg);
    }
    fflush(stderr);
    dup2(fileno(tmp), 2);
    rv = init_with(cfg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return rv;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_config_errors(void)
{
    static const char *const bad[] = {
        "bogus=1", "service", "service=fixed", "service=fixed:1parsec", "service=uniform:2ms:1ms",
        "service=lognormal:1ms", "service=gamma:1ms", "cores=x", "cores=-1", "stall=2s/1s",
        "stall=1s", "stall-at=1s", "spike=2:1ms", "spike=0.1", "spike=x:1ms", "drift=50%", "drift=x:1s", "drift=50%:0", "drift=-5%:1s", "fail=CKR_NOPE:0.1", "fail=CKR_DEVICE_ERROR:2",
        "fail=CKR_DEVICE_ERROR", "fail=CKR_DEVICE_ERROR:0.6,CKR_FUNCTION_FAILED:0.6",
        "mechanisms=CKM_NOPE", "mechanisms=CKM_SHA256,CKM_MD5", "max-rsa=100", "max-rsa=big",
        "login=maybe", "async=2", "quirks=odd", "seed=-3", "pin=", "service=fixed:1ms;cores=2;oops",
    };
    char err[512];
    CK_INFO info;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CK_RV rv = init_capture(bad[i], err, sizeof err);
        CHECK_MSG(rv == CKR_ARGUMENTS_BAD, "\"%s\": 0x%lx", bad[i], rv);
        if (rv == CKR_OK)
            p11->C_Finalize(NULL);
        CHECK_MSG(strncmp(err, "hsmbench-mock: bad configuration: ", 34) == 0 && count_lines(err) == 1,
                  "\"%s\": stderr was \"%s\"", bad[i], err);
        CHECK_RV(p11->C_GetInfo(&info), CKR_CRYPTOKI_NOT_INITIALIZED);
    }

    static const char *const good[] = {
        "", ";;", "service=none", "service=fixed:1ms", "service = uniform:500us:2ms ; cores=2",
        "service=lognormal:1ms:0.5", "service=fixed:0.5", "stall=100ms/5s;stall-at=2s:1s", "spike=0.0001:100ms",
        "drift=+50%:10s", "drift=25:1s;service=fixed:1ms",
        ("fail=CKR_DEVICE_ERROR:0.01,CKR_SESSION_HANDLE_INVALID:0.002,CKR_DEVICE_REMOVED:0.001,"
         "CKR_FUNCTION_FAILED:0.01;seed=7"),
        "fail=0x30:0.5", "mechanisms=CKM_SHA256,0x1082", "max-rsa=2048", "login=required;pin=1234",
        "async=1", "quirks=short-size-query,truncate", "cores=0",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CK_RV rv = init_capture(good[i], err, sizeof err);
        CHECK_MSG(rv == CKR_OK && err[0] == '\0', "\"%s\": 0x%lx, stderr \"%s\"", good[i], rv, err);
        if (rv == CKR_OK)
            p11->C_Finalize(NULL);
    }
}

/* HSMBENCH_MOCK and pReserved merge key by key; pReserved wins. */
static void test_config_env(void)
{
    CK_MECHANISM_INFO mi;
    CK_ULONG n = 0;
    char err[512];

    setenv("HSMBENCH_MOCK", "max-rsa=1024;mechanisms=CKM_SHA256,CKM_RSA_PKCS", 1);
    if (setup("max-rsa=2048")) {
        CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_RSA_PKCS, &mi), CKR_OK);
        CHECK_MSG(mi.ulMaxKeySize == 2048, "max %lu", mi.ulMaxKeySize);
        CHECK_RV(p11->C_GetMechanismList(SLOT, NULL, &n), CKR_OK);
        CHECK_MSG(n == 2, "%lu mechanisms", n);
        teardown();
    }
    if (setup(NULL)) {
        CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_RSA_PKCS, &mi), CKR_OK);
        CHECK(mi.ulMaxKeySize == 1024);
        teardown();
    }
    setenv("HSMBENCH_MOCK", "nonsense", 1);
    CHECK_RV(init_capture(NULL, err, sizeof err), CKR_ARGUMENTS_BAD);
    CHECK(strstr(err, "HSMBENCH_MOCK") != NULL && count_lines(err) == 1);
    unsetenv("HSMBENCH_MOCK");
}

static void test_info(void)
{
    CK_INFO info;
    CK_SLOT_ID slots[2] = { 99, 99 };
    CK_SLOT_INFO si;
    CK_TOKEN_INFO ti;
    CK_ULONG n = 0;

    if (!setup(NULL))
        return;
    CHECK_RV(p11->C_GetInfo(&info), CKR_OK);
    CHECK(info.cryptokiVersion.major == 3);
    CHECK(padded_eq(info.manufacturerID, sizeof info.manufacturerID, "hsmbench"));
    CHECK(padded_eq(info.libraryDescription, sizeof info.libraryDescription, "hsmbench mock HSM"));

    CHECK_RV(p11->C_GetSlotList(CK_TRUE, NULL, &n), CKR_OK);
    CHECK(n == 1);
    n = 0;
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, slots, &n), CKR_BUFFER_TOO_SMALL);
    CHECK(n == 1);
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, slots, &n), CKR_OK);
    CHECK(n == 1 && slots[0] == SLOT);
    CHECK_RV(p11->C_GetSlotInfo(SLOT, &si), CKR_OK);
    CHECK(si.flags & CKF_TOKEN_PRESENT);
    CHECK_RV(p11->C_GetSlotInfo(0, &si), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_GetTokenInfo(2, &ti), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(padded_eq(ti.label, sizeof ti.label, "mock"));
    CHECK(padded_eq(ti.model, sizeof ti.model, "mock"));
    CHECK(padded_eq(ti.manufacturerID, sizeof ti.manufacturerID, "hsmbench"));
    CHECK(padded_eq(ti.serialNumber, sizeof ti.serialNumber, "0000000000000002"));
    CHECK(ti.flags == (CKF_TOKEN_INITIALIZED | CKF_RNG | CKF_USER_PIN_INITIALIZED));
    CHECK(ti.ulMaxSessionCount == 4096 && ti.ulSessionCount == 0);
    teardown();

    if (!setup("login=required;async=1"))
        return;
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(ti.flags == (CKF_TOKEN_INITIALIZED | CKF_RNG | CKF_USER_PIN_INITIALIZED |
                       CKF_LOGIN_REQUIRED | CKF_ASYNC_SESSION_SUPPORTED));
    teardown();
}

static int has_mech(const CK_MECHANISM_TYPE *list, CK_ULONG n, CK_MECHANISM_TYPE m)
{
    for (CK_ULONG i = 0; i < n; i++)
        if (list[i] == m)
            return 1;
    return 0;
}

static void test_mechanisms(void)
{
    CK_MECHANISM_TYPE list[128];
    CK_MECHANISM_INFO mi;
    CK_ULONG n = 0;

    if (!setup(NULL))
        return;
    CHECK_RV(p11->C_GetMechanismList(SLOT, NULL, &n), CKR_OK);
    CHECK(n >= 40 && n <= 128);
    CK_ULONG want = n;
    n = 3;
    CHECK_RV(p11->C_GetMechanismList(SLOT, list, &n), CKR_BUFFER_TOO_SMALL);
    CHECK(n == want);
    CHECK_RV(p11->C_GetMechanismList(SLOT, list, &n), CKR_OK);
    CHECK(has_mech(list, n, CKM_SHA256) && has_mech(list, n, CKM_AES_GCM) &&
          has_mech(list, n, CKM_EDDSA) && has_mech(list, n, CKM_AES_KEY_WRAP_PAD) &&
          has_mech(list, n, CKM_EC_EDWARDS_KEY_PAIR_GEN) && has_mech(list, n, CKM_ECDH1_DERIVE));
    CHECK_RV(p11->C_GetMechanismList(7, NULL, &n), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_SHA256_RSA_PKCS, &mi), CKR_OK);
    CHECK(mi.ulMaxKeySize == 16384 && (mi.flags & CKF_SIGN) && (mi.flags & CKF_HW));
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_AES_GCM, &mi), CKR_OK);
    CHECK(mi.ulMinKeySize == 16 && mi.ulMaxKeySize == 32 && (mi.flags & CKF_ENCRYPT));
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_EC_KEY_PAIR_GEN, &mi), CKR_OK);
    CHECK(mi.ulMinKeySize == 256 && mi.ulMaxKeySize == 521 && (mi.flags & CKF_GENERATE_KEY_PAIR));
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_MD5, &mi), CKR_MECHANISM_INVALID);
    CHECK_RV(p11->C_GetMechanismInfo(0, CKM_SHA256, &mi), CKR_SLOT_ID_INVALID);
    teardown();
}

static void test_reduced_mechanisms(void)
{
    CK_MECHANISM_TYPE list[8];
    CK_MECHANISM_INFO mi;
    CK_ULONG n = 8;
    CK_MECHANISM sha1 = { CKM_SHA_1, NULL, 0 }, sha256 = { CKM_SHA256, NULL, 0 };

    if (!setup("mechanisms=CKM_SHA256,CKM_AES_GCM"))
        return;
    CHECK_RV(p11->C_GetMechanismList(SLOT, list, &n), CKR_OK);
    CHECK(n == 2 && has_mech(list, n, CKM_SHA256) && has_mech(list, n, CKM_AES_GCM));
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_RSA_PKCS, &mi), CKR_MECHANISM_INVALID);
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_AES_GCM, &mi), CKR_OK);
    CK_SESSION_HANDLE s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha1), CKR_MECHANISM_INVALID);
    CHECK_RV(p11->C_DigestInit(s, &sha256), CKR_OK);
    teardown();
}

static void test_max_rsa(void)
{
    CK_MECHANISM_INFO mi;
    CK_OBJECT_HANDLE pub, priv;

    if (!setup("max-rsa=2048"))
        return;
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_RSA_PKCS_KEY_PAIR_GEN, &mi), CKR_OK);
    CHECK(mi.ulMaxKeySize == 2048);
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_SHA256_RSA_PKCS_PSS, &mi), CKR_OK);
    CHECK(mi.ulMaxKeySize == 2048);
    CHECK_RV(p11->C_GetMechanismInfo(SLOT, CKM_AES_GCM, &mi), CKR_OK);
    CHECK(mi.ulMaxKeySize == 32);                       /* not RSA: unchanged */
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 4096, &pub, &priv), CKR_KEY_SIZE_RANGE);
    CHECK_RV(gen_rsa(s, 3072, &pub, &priv), CKR_KEY_SIZE_RANGE);
    CHECK_RV(gen_rsa(s, 2048, &pub, &priv), CKR_OK);
    CHECK(attr_len(s, pub, CKA_MODULUS) == 256);
    teardown();
}

/* ---- login and sessions ------------------------------------------------------------ */

static void test_login(void)
{
    CK_SESSION_INFO si;
    CK_OBJECT_HANDLE pub, priv;
    CK_MECHANISM mech = { CKM_SHA256_RSA_PKCS, NULL, 0 };

    if (!setup("login=required;pin=1234"))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(p11->C_Logout(s), CKR_USER_NOT_LOGGED_IN);
    CHECK_RV(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"4321", 4), CKR_PIN_INCORRECT);
    CHECK_RV(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"12345", 5), CKR_PIN_INCORRECT);
    CHECK_RV(gen_rsa(s, 2048, &pub, &priv), CKR_USER_NOT_LOGGED_IN);   /* private keys need it */
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_OK);
    CHECK(si.state == CKS_RW_PUBLIC_SESSION && si.slotID == SLOT);
    CHECK_RV(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4), CKR_OK);
    CHECK_RV(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4), CKR_USER_ALREADY_LOGGED_IN);
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_OK);
    CHECK(si.state == CKS_RW_USER_FUNCTIONS);
    CHECK_RV(gen_rsa(s, 2048, &pub, &priv), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, &mech, priv), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, NULL, 0), CKR_OK);
    /* A second session shares the login. */
    CK_SESSION_HANDLE s2 = open_session(0);
    CHECK_RV(p11->C_GetSessionInfo(s2, &si), CKR_OK);
    CHECK(si.state == CKS_RO_USER_FUNCTIONS);
    CHECK_RV(p11->C_Logout(s), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, &mech, priv), CKR_KEY_HANDLE_INVALID);  /* hidden again */
    CHECK_RV(p11->C_SignInit(s, &mech, pub), CKR_KEY_TYPE_INCONSISTENT); /* public: visible */
    CHECK_RV(p30->C_LoginUser(s, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4, (CK_UTF8CHAR_PTR)"u", 1), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, &mech, priv), CKR_OK);
    teardown();

    /* Without login=required a login is optional and any PIN does. */
    if (!setup(NULL))
        return;
    s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 1024, &pub, &priv), CKR_OK);
    CHECK_RV(p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)"anything", 8), CKR_OK);
    teardown();
}

static void test_sessions(void)
{
    CK_SESSION_HANDLE s, ro, *all;
    CK_SESSION_INFO si;
    CK_TOKEN_INFO ti;

    if (!setup(NULL))
        return;
    CHECK_RV(p11->C_OpenSession(SLOT, 0, NULL, NULL, &s), CKR_SESSION_PARALLEL_NOT_SUPPORTED);
    CHECK_RV(p11->C_OpenSession(2, CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, NULL), CKR_ARGUMENTS_BAD);
    CHECK_RV(p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION | CKF_ASYNC_SESSION, NULL, NULL, &s),
             CKR_SESSION_ASYNC_NOT_SUPPORTED);
    s = open_session(CKF_RW_SESSION);
    ro = open_session(0);
    CHECK(s != ro && s != CK_INVALID_HANDLE);
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_OK);
    CHECK(si.state == CKS_RW_PUBLIC_SESSION && si.flags == (CKF_SERIAL_SESSION | CKF_RW_SESSION));
    CHECK_RV(p11->C_GetSessionInfo(ro, &si), CKR_OK);
    CHECK(si.state == CKS_RO_PUBLIC_SESSION && si.flags == CKF_SERIAL_SESSION);
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(ti.ulSessionCount == 2 && ti.ulRwSessionCount == 1);
    CHECK_RV(p11->C_CloseSession(ro), CKR_OK);
    CHECK_RV(p11->C_CloseSession(ro), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_GetSessionInfo(ro, &si), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_GetSessionInfo(12345678, &si), CKR_SESSION_HANDLE_INVALID);
    /* A reused table entry gets a new handle: the old one stays invalid. */
    CK_SESSION_HANDLE again = open_session(0);
    CHECK(again != ro);
    CHECK_RV(p11->C_GetSessionInfo(ro, &si), CKR_SESSION_HANDLE_INVALID);

    /* At most 4096 sessions. */
    all = calloc(4096, sizeof *all);
    CK_ULONG opened = 2;
    for (CK_ULONG i = 0; all && i < 4094; i++)
        if (p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &all[i]) == CKR_OK)
            opened++;
    CHECK(opened == 4096);
    CHECK_RV(p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_SESSION_COUNT);
    free(all);
    CHECK_RV(p11->C_CloseAllSessions(2), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_CloseAllSessions(SLOT), CKR_OK);
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(ti.ulSessionCount == 0 && ti.ulRwSessionCount == 0);
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_SESSION_HANDLE_INVALID);
    s = open_session(0);
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_OK);
    teardown();
}

/* ---- objects ------------------------------------------------------------------------- */

static CK_ULONG find_count(CK_SESSION_HANDLE s, CK_ATTRIBUTE *t, CK_ULONG n)
{
    CK_OBJECT_HANDLE h[64];
    CK_ULONG got = 0, total = 0;
    if (p11->C_FindObjectsInit(s, t, n) != CKR_OK)
        return (CK_ULONG)-1;
    do {
        if (p11->C_FindObjects(s, h, 3, &got) != CKR_OK)
            got = 0;
        total += got;
    } while (got == 3);
    p11->C_FindObjectsFinal(s);
    return total;
}

static void test_objects(void)
{
    CK_OBJECT_CLASS data = CKO_DATA, secret = CKO_SECRET_KEY;
    CK_KEY_TYPE aes = CKK_AES;
    char label[] = "mock-obj", label2[] = "renamed";
    unsigned char value[32], buf[64];
    CK_OBJECT_HANDLE d, k, tok, sens, h;
    CK_ULONG size;

    memset(value, 7, sizeof value);
    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION), ro = open_session(0);
    CK_ATTRIBUTE dt[] = { { CKA_CLASS, &data, sizeof data }, { CKA_LABEL, label, 8 },
                          { CKA_VALUE, value, 5 } };
    CHECK_RV(p11->C_CreateObject(s, dt, 3, &d), CKR_OK);
    CK_ATTRIBUTE kt[] = { { CKA_CLASS, &secret, sizeof secret }, { CKA_KEY_TYPE, &aes, sizeof aes },
                          { CKA_LABEL, label, 8 }, { CKA_VALUE, value, 32 } };
    CHECK_RV(p11->C_CreateObject(s, kt, 4, &k), CKR_OK);
    CHECK_RV(p11->C_CreateObject(s, kt, 3, &h), CKR_TEMPLATE_INCOMPLETE);      /* no CKA_VALUE */
    CHECK_RV(p11->C_CreateObject(s, kt + 1, 3, &h), CKR_TEMPLATE_INCOMPLETE);  /* no CKA_CLASS */
    kt[3].ulValueLen = 20;
    CHECK_RV(p11->C_CreateObject(s, kt, 4, &h), CKR_ATTRIBUTE_VALUE_INVALID);  /* AES-160 */
    kt[3].ulValueLen = 32;

    /* Attributes: size query, value, missing, short buffer. */
    CK_ATTRIBUTE a[3] = { { CKA_VALUE, NULL, 0 }, { CKA_LABEL, buf, sizeof buf },
                          { CKA_MODULUS, buf, sizeof buf } };
    CHECK_RV(p11->C_GetAttributeValue(s, k, a, 3), CKR_ATTRIBUTE_TYPE_INVALID);
    CHECK(a[0].ulValueLen == 32 && a[1].ulValueLen == 8 && memcmp(buf, label, 8) == 0);
    CHECK(a[2].ulValueLen == CK_UNAVAILABLE_INFORMATION);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 32 && attr_ulong(s, k, CKA_CLASS) == CKO_SECRET_KEY);
    CK_ATTRIBUTE shortv = { CKA_VALUE, buf, 4 };
    CHECK_RV(p11->C_GetAttributeValue(s, k, &shortv, 1), CKR_BUFFER_TOO_SMALL);
    CHECK(shortv.ulValueLen == CK_UNAVAILABLE_INFORMATION);
    CHECK_RV(make_secret(s, CKK_AES, 16, CKA_ENCRYPT, CK_TRUE, CK_TRUE, &sens), CKR_OK);
    CK_ATTRIBUTE sv = { CKA_VALUE, buf, sizeof buf };
    CHECK_RV(p11->C_GetAttributeValue(s, sens, &sv, 1), CKR_ATTRIBUTE_SENSITIVE);
    CHECK(sv.ulValueLen == CK_UNAVAILABLE_INFORMATION);
    CHECK(attr_ulong(s, sens, CKA_VALUE_LEN) == 16);
    CHECK_RV(p11->C_GetObjectSize(s, k, &size), CKR_OK);
    CHECK(size > 32);
    CHECK_RV(p11->C_GetAttributeValue(s, 987654, a, 1), CKR_OBJECT_HANDLE_INVALID);

    /* Find: exact matching; objects of any of the application's sessions. */
    CK_ATTRIBUTE byl = { CKA_LABEL, label, 8 }, byc[] = { { CKA_LABEL, label, 8 },
                                                           { CKA_CLASS, &data, sizeof data } };
    CK_ATTRIBUTE prefix = { CKA_LABEL, label, 4 };
    CHECK(find_count(s, &byl, 1) == 2);
    CHECK(find_count(ro, &byl, 1) == 2);
    CHECK(find_count(s, byc, 2) == 1);
    CHECK(find_count(s, &prefix, 1) == 0);
    CHECK(find_count(s, NULL, 0) == 3);
    CHECK_RV(p11->C_FindObjectsInit(s, &byl, 1), CKR_OK);
    CHECK_RV(p11->C_FindObjectsInit(s, &byl, 1), CKR_OPERATION_ACTIVE);
    CHECK_RV(p11->C_FindObjectsFinal(s), CKR_OK);
    CHECK_RV(p11->C_FindObjectsFinal(s), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_FindObjects(s, &h, 1, &size), CKR_OPERATION_NOT_INITIALIZED);

    /* Set: a new label is found; read-only attributes stay. */
    CK_ATTRIBUTE rename = { CKA_LABEL, label2, 7 }, byl2 = { CKA_LABEL, label2, 7 };
    CHECK_RV(p11->C_SetAttributeValue(s, d, &rename, 1), CKR_OK);
    CHECK(find_count(s, &byl2, 1) == 1 && find_count(s, &byl, 1) == 1);
    CK_ATTRIBUTE cls = { CKA_CLASS, &secret, sizeof secret };
    CHECK_RV(p11->C_SetAttributeValue(s, d, &cls, 1), CKR_ATTRIBUTE_READ_ONLY);
    CK_ATTRIBUTE unsens = { CKA_SENSITIVE, (void *)&no, sizeof no };
    CHECK_RV(p11->C_SetAttributeValue(s, sens, &unsens, 1), CKR_ATTRIBUTE_READ_ONLY);

    /* Destroy. */
    CHECK_RV(p11->C_DestroyObject(s, d), CKR_OK);
    CHECK_RV(p11->C_DestroyObject(s, d), CKR_OBJECT_HANDLE_INVALID);
    CHECK(find_count(s, &byl2, 1) == 0);

    /* Session objects vanish with their session; token objects stay. */
    CK_SESSION_HANDLE other = open_session(CKF_RW_SESSION);
    CK_ATTRIBUTE tt[] = { { CKA_CLASS, &data, sizeof data }, { CKA_LABEL, label2, 7 },
                          { CKA_TOKEN, (void *)&yes, sizeof yes } };
    CHECK_RV(p11->C_CreateObject(ro, tt, 3, &tok), CKR_SESSION_READ_ONLY);
    CHECK_RV(p11->C_CreateObject(other, tt, 3, &tok), CKR_OK);
    CHECK_RV(p11->C_CreateObject(other, tt, 2, &h), CKR_OK);
    CHECK(find_count(s, &byl2, 1) == 2);
    CHECK_RV(p11->C_DestroyObject(ro, tok), CKR_SESSION_READ_ONLY);
    CHECK_RV(p11->C_CloseSession(other), CKR_OK);
    CHECK(find_count(s, &byl2, 1) == 1);
    CHECK_RV(p11->C_GetObjectSize(s, h, &size), CKR_OBJECT_HANDLE_INVALID);
    CHECK_RV(p11->C_GetObjectSize(s, tok, &size), CKR_OK);
    CHECK_RV(p11->C_CloseAllSessions(SLOT), CKR_OK);
    s = open_session(0);
    CHECK(find_count(s, &byl2, 1) == 1);                  /* the token object */
    CHECK(find_count(s, &byl, 1) == 0);                   /* session objects: gone */
    teardown();
    if (!setup(NULL))
        return;
    s = open_session(0);
    CHECK(find_count(s, NULL, 0) == 0);                   /* C_Finalize: token objects too */
    teardown();
}

/* ---- key generation ------------------------------------------------------------------ */

static void test_keygen(void)
{
    CK_OBJECT_HANDLE pub, priv, k;
    unsigned char buf[256];
    CK_ATTRIBUTE a = { CKA_MODULUS, buf, sizeof buf };

    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 2048, &pub, &priv), CKR_OK);
    CHECK_RV(p11->C_GetAttributeValue(s, pub, &a, 1), CKR_OK);
    CHECK(a.ulValueLen == 256 && (buf[0] & 0x80));
    CHECK(attr_len(s, priv, CKA_MODULUS) == 256);
    CHECK(attr_len(s, pub, CKA_PUBLIC_EXPONENT) == 3);
    CHECK(attr_ulong(s, pub, CKA_CLASS) == CKO_PUBLIC_KEY && attr_ulong(s, priv, CKA_CLASS) == CKO_PRIVATE_KEY);
    CHECK(attr_ulong(s, priv, CKA_KEY_TYPE) == CKK_RSA);
    CK_BBOOL local = CK_FALSE;
    CK_ATTRIBUTE la = { CKA_LOCAL, &local, sizeof local };
    CHECK_RV(p11->C_GetAttributeValue(s, priv, &la, 1), CKR_OK);
    CHECK(local == CK_TRUE);
    CHECK_RV(gen_rsa(s, 1025, &pub, &priv), CKR_OK);               /* odd sizes: exact bits */
    CHECK_RV(p11->C_GetAttributeValue(s, pub, &a, 1), CKR_OK);
    CHECK(a.ulValueLen == 129 && buf[0] == 1);
    CHECK_RV(gen_rsa(s, 256, &pub, &priv), CKR_KEY_SIZE_RANGE);
    CK_MECHANISM m = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
    CHECK_RV(p11->C_GenerateKeyPair(s, &m, NULL, 0, NULL, 0, &pub, &priv), CKR_TEMPLATE_INCOMPLETE);

    static const struct { const unsigned char *oid; size_t len; CK_ULONG point, value; } ec[] = {
        { oid_p256, sizeof oid_p256, 67, 32 },     /* 04 41 04 X Y */
        { oid_p384, sizeof oid_p384, 99, 48 },     /* 04 61 04 X Y */
        { oid_p521, sizeof oid_p521, 136, 66 },    /* 04 81 85 04 X Y */
    };
    for (size_t i = 0; i < 3; i++) {
        CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, ec[i].oid, ec[i].len, &pub, &priv), CKR_OK);
        CK_ATTRIBUTE pa = { CKA_EC_POINT, buf, sizeof buf };
        CHECK_RV(p11->C_GetAttributeValue(s, pub, &pa, 1), CKR_OK);
        CHECK_MSG(pa.ulValueLen == ec[i].point && buf[0] == 0x04, "curve %zu: point %lu", i, pa.ulValueLen);
        CHECK(buf[pa.ulValueLen - 2 * ec[i].value - 1] == 0x04);       /* uncompressed */
        CHECK(attr_len(s, pub, CKA_EC_PARAMS) == ec[i].len && attr_len(s, priv, CKA_EC_PARAMS) == ec[i].len);
        CHECK(attr_ulong(s, priv, CKA_KEY_TYPE) == CKK_EC);
    }
    static const unsigned char secp256k1[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a };
    CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, secp256k1, sizeof secp256k1, &pub, &priv), CKR_CURVE_NOT_SUPPORTED);
    CHECK_RV(gen_ec(s, CKM_EC_EDWARDS_KEY_PAIR_GEN, oid_ed25519, sizeof oid_ed25519, &pub, &priv), CKR_OK);
    CHECK(attr_len(s, pub, CKA_EC_POINT) == 34 && attr_ulong(s, pub, CKA_KEY_TYPE) == CKK_EC_EDWARDS);
    CHECK_RV(gen_ec(s, CKM_EC_EDWARDS_KEY_PAIR_GEN, oid_p256, sizeof oid_p256, &pub, &priv),
             CKR_CURVE_NOT_SUPPORTED);

    for (CK_ULONG len = 16; len <= 32; len += 8) {
        CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, len, &k), CKR_OK);
        CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == len && attr_len(s, k, CKA_VALUE) == len);
        CHECK(attr_ulong(s, k, CKA_KEY_TYPE) == CKK_AES);
    }
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 20, &k), CKR_ATTRIBUTE_VALUE_INVALID);
    CK_MECHANISM aesgen = { CKM_AES_KEY_GEN, NULL, 0 };
    CHECK_RV(p11->C_GenerateKey(s, &aesgen, NULL, 0, &k), CKR_TEMPLATE_INCOMPLETE);
    CHECK_RV(gen_secret(s, CKM_DES3_KEY_GEN, 0, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 24 && attr_ulong(s, k, CKA_KEY_TYPE) == CKK_DES3);
    CHECK_RV(gen_secret(s, CKM_GENERIC_SECRET_KEY_GEN, 48, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 48 && attr_ulong(s, k, CKA_KEY_TYPE) == CKK_GENERIC_SECRET);
    CHECK_RV(gen_secret(s, CKM_SHA256, 16, &k), CKR_MECHANISM_INVALID);
    teardown();
}

/* ---- output lengths -------------------------------------------------------------------- */

static unsigned char big[4096];

/* Init, a size query, then the real call with a buffer of `cap` bytes:
 * the result's length in *len; the size query must have said the same. */
static CK_RV one_op(CK_SESSION_HANDLE s, char kind, CK_MECHANISM *m, CK_OBJECT_HANDLE key,
                    const unsigned char *in, CK_ULONG n, unsigned char *out, CK_ULONG cap, CK_ULONG *len)
{
    CK_RV (*run)(CK_SESSION_HANDLE, CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR, CK_ULONG_PTR);
    CK_RV rv;
    switch (kind) {
    case 'S': rv = p11->C_SignInit(s, m, key); run = p11->C_Sign; break;
    case 'E': rv = p11->C_EncryptInit(s, m, key); run = p11->C_Encrypt; break;
    case 'D': rv = p11->C_DecryptInit(s, m, key); run = p11->C_Decrypt; break;
    default:  rv = p11->C_DigestInit(s, m); run = p11->C_Digest; break;
    }
    if (rv != CKR_OK)
        return rv;
    CK_ULONG q = 0;
    if ((rv = run(s, (CK_BYTE_PTR)in, n, NULL, &q)) != CKR_OK)
        return rv;
    *len = cap;
    rv = run(s, (CK_BYTE_PTR)in, n, out, len);
    CHECK_MSG(rv != CKR_OK || *len == q, "mechanism 0x%lx: size query %lu, result %lu", m->mechanism, q, *len);
    return rv;
}

static CK_ULONG len_of(CK_SESSION_HANDLE s, char kind, CK_MECHANISM *m, CK_OBJECT_HANDLE key, CK_ULONG n)
{
    CK_ULONG len = 0;
    CK_RV rv = one_op(s, kind, m, key, big, n, big + 2048, 2048, &len);
    CHECK_MSG(rv == CKR_OK, "%c mechanism 0x%lx, %lu bytes in: 0x%lx", kind, m->mechanism, n, rv);
    return rv == CKR_OK ? len : (CK_ULONG)-1;
}

/* Encrypt n bytes, then decrypt the result: both lengths. */
static void round_trip(CK_SESSION_HANDLE s, CK_MECHANISM *m, CK_OBJECT_HANDLE enc, CK_OBJECT_HANDLE dec,
                       CK_ULONG n, CK_ULONG want_ct, CK_ULONG want_pt)
{
    unsigned char ct[1024];
    CK_ULONG clen = 0, plen = 0;
    CK_RV rv = one_op(s, 'E', m, enc, big, n, ct, sizeof ct, &clen);
    CHECK_MSG(rv == CKR_OK && clen == want_ct, "encrypt 0x%lx %lu bytes: 0x%lx, %lu (want %lu)",
              m->mechanism, n, rv, clen, want_ct);
    rv = one_op(s, 'D', m, dec, ct, clen, big + 2048, 2048, &plen);
    CHECK_MSG(rv == CKR_OK && plen == want_pt, "decrypt 0x%lx %lu bytes: 0x%lx, %lu (want %lu)",
              m->mechanism, clen, rv, plen, want_pt);
}

static CK_RV op_error(CK_SESSION_HANDLE s, char kind, CK_MECHANISM *m, CK_OBJECT_HANDLE key, CK_ULONG n)
{
    CK_ULONG len;
    return one_op(s, kind, m, key, big, n, big + 2048, 2048, &len);
}

static void test_lengths(void)
{
    CK_OBJECT_HANDLE rpub, rpriv, e256, e256p, e384, e384p, e521, e521p, edp, eds, aes, des3, hmac;
    CK_RSA_PKCS_PSS_PARAMS pss = { CKM_SHA256, CKG_MGF1_SHA256, 32 };
    CK_RSA_PKCS_OAEP_PARAMS oaep = { CKM_SHA_1, CKG_MGF1_SHA1, CKZ_DATA_SPECIFIED, NULL, 0 };
    unsigned char iv[16] = { 0 };
    CK_AES_CTR_PARAMS ctr;
    CK_GCM_PARAMS gcm = { iv, 12, 96, NULL, 0, 128 }, gcm96 = { iv, 12, 96, NULL, 0, 96 };

    memset(&ctr, 0, sizeof ctr);
    ctr.ulCounterBits = 64;
    memset(big, 0x42, sizeof big);
    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 2048, &rpub, &rpriv), CKR_OK);
    CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, oid_p256, sizeof oid_p256, &e256p, &e256), CKR_OK);
    CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, oid_p384, sizeof oid_p384, &e384p, &e384), CKR_OK);
    CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, oid_p521, sizeof oid_p521, &e521p, &e521), CKR_OK);
    CHECK_RV(gen_ec(s, CKM_EC_EDWARDS_KEY_PAIR_GEN, oid_ed25519, sizeof oid_ed25519, &edp, &eds), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &aes), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_DES3_KEY_GEN, 0, &des3), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_GENERIC_SECRET_KEY_GEN, 32, &hmac), CKR_OK);

    /* Signatures: RSA the modulus, ECDSA twice the field, EdDSA 64, HMAC the hash. */
    static const CK_MECHANISM_TYPE rsa_hashed[] = { CKM_SHA1_RSA_PKCS, CKM_SHA224_RSA_PKCS, CKM_SHA256_RSA_PKCS,
                                                    CKM_SHA384_RSA_PKCS, CKM_SHA512_RSA_PKCS };
    static const CK_MECHANISM_TYPE rsa_pss[] = { CKM_SHA1_RSA_PKCS_PSS, CKM_SHA224_RSA_PKCS_PSS,
                                                 CKM_SHA256_RSA_PKCS_PSS, CKM_SHA384_RSA_PKCS_PSS,
                                                 CKM_SHA512_RSA_PKCS_PSS };
    for (size_t i = 0; i < 5; i++) {
        CK_MECHANISM m = { rsa_hashed[i], NULL, 0 }, p = { rsa_pss[i], &pss, sizeof pss };
        CHECK(len_of(s, 'S', &m, rpriv, 100) == 256);
        CHECK(len_of(s, 'S', &p, rpriv, 100) == 256);
    }
    CK_MECHANISM rsapkcs = { CKM_RSA_PKCS, NULL, 0 }, rawpss = { CKM_RSA_PKCS_PSS, &pss, sizeof pss };
    CK_MECHANISM x509 = { CKM_RSA_X_509, NULL, 0 }, oaepm = { CKM_RSA_PKCS_OAEP, &oaep, sizeof oaep };
    CHECK(len_of(s, 'S', &rsapkcs, rpriv, 51) == 256);
    CHECK(len_of(s, 'S', &rawpss, rpriv, 32) == 256);
    CHECK(len_of(s, 'S', &x509, rpriv, 256) == 256);
    static const CK_MECHANISM_TYPE ecdsa[] = { CKM_ECDSA, CKM_ECDSA_SHA1, CKM_ECDSA_SHA224, CKM_ECDSA_SHA256,
                                               CKM_ECDSA_SHA384, CKM_ECDSA_SHA512 };
    for (size_t i = 0; i < 6; i++) {
        CK_MECHANISM m = { ecdsa[i], NULL, 0 };
        CHECK(len_of(s, 'S', &m, e256, 32) == 64);
        CHECK(len_of(s, 'S', &m, e384, 48) == 96);
        CHECK(len_of(s, 'S', &m, e521, 64) == 132);
    }
    CK_MECHANISM eddsa = { CKM_EDDSA, NULL, 0 };
    CHECK(len_of(s, 'S', &eddsa, eds, 100) == 64);
    static const struct { CK_MECHANISM_TYPE m; CK_ULONG len; } macs[] = {
        { CKM_SHA_1_HMAC, 20 }, { CKM_SHA256_HMAC, 32 }, { CKM_SHA384_HMAC, 48 }, { CKM_SHA512_HMAC, 64 },
    }, digests[] = {
        { CKM_SHA_1, 20 }, { CKM_SHA224, 28 }, { CKM_SHA256, 32 }, { CKM_SHA384, 48 }, { CKM_SHA512, 64 },
    };
    for (size_t i = 0; i < 4; i++) {
        CK_MECHANISM m = { macs[i].m, NULL, 0 };
        CHECK(len_of(s, 'S', &m, hmac, 1000) == macs[i].len);
    }
    for (size_t i = 0; i < 5; i++) {
        CK_MECHANISM m = { digests[i].m, NULL, 0 };
        CHECK(len_of(s, 'H', &m, 0, 1000) == digests[i].len);
        CHECK(len_of(s, 'H', &m, 0, 0) == digests[i].len);
    }

    /* Verification: any signature of the right length. */
    CK_MECHANISM sha256rsa = { CKM_SHA256_RSA_PKCS, NULL, 0 }, ecdsa256 = { CKM_ECDSA_SHA256, NULL, 0 };
    CK_MECHANISM hmac256 = { CKM_SHA256_HMAC, NULL, 0 };
    CHECK_RV(p11->C_VerifyInit(s, &sha256rsa, rpub), CKR_OK);
    CHECK_RV(p11->C_Verify(s, big, 10, big, 256), CKR_OK);
    CHECK_RV(p11->C_VerifyInit(s, &sha256rsa, rpub), CKR_OK);
    CHECK_RV(p11->C_Verify(s, big, 10, big, 255), CKR_SIGNATURE_LEN_RANGE);
    CHECK_RV(p11->C_Verify(s, big, 10, big, 256), CKR_OPERATION_NOT_INITIALIZED);  /* ended */
    CHECK_RV(p11->C_VerifyInit(s, &ecdsa256, e256p), CKR_OK);
    CHECK_RV(p11->C_Verify(s, big, 10, big, 64), CKR_OK);
    CHECK_RV(p11->C_VerifyInit(s, &hmac256, hmac), CKR_OK);
    CHECK_RV(p11->C_VerifyUpdate(s, big, 10), CKR_OK);
    CHECK_RV(p11->C_VerifyUpdate(s, big, 10), CKR_OK);
    CHECK_RV(p11->C_VerifyFinal(s, big, 32), CKR_OK);
    CHECK_RV(p11->C_VerifyInit(s, &eddsa, edp), CKR_OK);
    CHECK_RV(p11->C_Verify(s, big, 10, big, 64), CKR_OK);

    /* RSA encryption: the modulus; decryption gives back what the mock encrypted. */
    round_trip(s, &rsapkcs, rpub, rpriv, 32, 256, 32);
    round_trip(s, &oaepm, rpub, rpriv, 32, 256, 32);
    round_trip(s, &x509, rpub, rpriv, 256, 256, 256);
    CHECK_RV(op_error(s, 'E', &rsapkcs, rpub, 246), CKR_DATA_LEN_RANGE);           /* > k - 11 */
    CHECK_RV(op_error(s, 'E', &oaepm, rpub, 215), CKR_DATA_LEN_RANGE);             /* > k - 2*20 - 2 */
    CHECK(len_of(s, 'E', &oaepm, rpub, 214) == 256);
    CHECK_RV(op_error(s, 'E', &x509, rpub, 255), CKR_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'D', &rsapkcs, rpriv, 255), CKR_ENCRYPTED_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'S', &rsapkcs, rpriv, 246), CKR_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'S', &rawpss, rpriv, 20), CKR_DATA_LEN_RANGE);             /* not a SHA-256 */
    CK_MECHANISM nopss = { CKM_SHA256_RSA_PKCS_PSS, NULL, 0 };
    CHECK_RV(op_error(s, 'S', &nopss, rpriv, 20), CKR_MECHANISM_PARAM_INVALID);

    /* AES and 3DES. */
    CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 }, cbc = { CKM_AES_CBC, iv, 16 }, pad = { CKM_AES_CBC_PAD, iv, 16 };
    CK_MECHANISM ctrm = { CKM_AES_CTR, &ctr, sizeof ctr }, gcmm = { CKM_AES_GCM, &gcm, sizeof gcm };
    CK_MECHANISM gcm12 = { CKM_AES_GCM, &gcm96, sizeof gcm96 }, kw = { CKM_AES_KEY_WRAP, NULL, 0 };
    CK_MECHANISM kwp = { CKM_AES_KEY_WRAP_PAD, NULL, 0 }, d3ecb = { CKM_DES3_ECB, NULL, 0 };
    CK_MECHANISM d3cbc = { CKM_DES3_CBC, iv, 8 }, badiv = { CKM_AES_CBC, iv, 8 };
    round_trip(s, &ecb, aes, aes, 64, 64, 64);
    round_trip(s, &cbc, aes, aes, 64, 64, 64);
    round_trip(s, &pad, aes, aes, 70, 80, 70);
    round_trip(s, &pad, aes, aes, 64, 80, 64);
    round_trip(s, &pad, aes, aes, 0, 16, 0);
    round_trip(s, &ctrm, aes, aes, 70, 70, 70);
    round_trip(s, &gcmm, aes, aes, 70, 86, 70);
    round_trip(s, &gcm12, aes, aes, 70, 82, 70);
    round_trip(s, &kw, aes, aes, 32, 40, 32);
    round_trip(s, &kwp, aes, aes, 32, 40, 32);
    round_trip(s, &kwp, aes, aes, 20, 32, 20);
    round_trip(s, &d3ecb, des3, des3, 24, 24, 24);
    round_trip(s, &d3cbc, des3, des3, 24, 24, 24);
    CHECK(len_of(s, 'D', &pad, aes, 48) == 32);            /* not the mock's: in - 16 */
    CHECK_RV(op_error(s, 'E', &ecb, aes, 65), CKR_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'D', &ecb, aes, 65), CKR_ENCRYPTED_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'E', &d3ecb, des3, 12), CKR_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'E', &badiv, aes, 16), CKR_MECHANISM_PARAM_INVALID);
    CHECK_RV(op_error(s, 'D', &gcmm, aes, 10), CKR_ENCRYPTED_DATA_LEN_RANGE);
    CHECK_RV(op_error(s, 'E', &kw, aes, 20), CKR_DATA_LEN_RANGE);
    teardown();
}

static void test_multipart(void)
{
    CK_OBJECT_HANDLE aes, hmac;
    unsigned char iv[16] = { 0 }, out[256];
    CK_ULONG len;
    CK_MECHANISM cbc = { CKM_AES_CBC, iv, 16 }, pad = { CKM_AES_CBC_PAD, iv, 16 };
    CK_MECHANISM hm = { CKM_SHA384_HMAC, NULL, 0 }, sha = { CKM_SHA256, NULL, 0 };

    memset(big, 0x42, sizeof big);
    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(0);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 16, &aes), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_GENERIC_SECRET_KEY_GEN, 48, &hmac), CKR_OK);

    CHECK_RV(p11->C_EncryptInit(s, &cbc, aes), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_EncryptUpdate(s, big, 10, out, &len), CKR_OK);
    CHECK(len == 0);
    CHECK_RV(p11->C_EncryptUpdate(s, big, 30, NULL, &len), CKR_OK);      /* size query */
    CHECK(len == 32);
    len = 8;
    CHECK_RV(p11->C_EncryptUpdate(s, big, 30, out, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 32);
    CHECK_RV(p11->C_EncryptUpdate(s, big, 30, out, &len), CKR_OK);
    CHECK(len == 32);
    len = sizeof out;
    CHECK_RV(p11->C_EncryptFinal(s, out, &len), CKR_DATA_LEN_RANGE);      /* 8 bytes left over */
    CHECK_RV(p11->C_EncryptFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);

    CHECK_RV(p11->C_EncryptInit(s, &pad, aes), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_EncryptUpdate(s, big, 20, out, &len), CKR_OK);
    CHECK(len == 16);
    CHECK_RV(p11->C_Encrypt(s, big, 16, out, &len), CKR_OPERATION_ACTIVE); /* not after an update */
    CHECK_RV(p11->C_EncryptFinal(s, NULL, &len), CKR_OK);
    CHECK(len == 16);
    CHECK_RV(p11->C_EncryptFinal(s, out, &len), CKR_OK);
    CHECK(len == 16 && out[15] == 12);                                      /* 4 bytes + 12 of padding */

    CHECK_RV(p11->C_DecryptInit(s, &pad, aes), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_DecryptUpdate(s, big, 16, out, &len), CKR_OK);
    CHECK(len == 0);                                                        /* the last block waits */
    big[31] = 12;
    len = sizeof out;
    CHECK_RV(p11->C_DecryptUpdate(s, big + 16, 16, out, &len), CKR_OK);
    CHECK(len == 16);
    len = sizeof out;
    CHECK_RV(p11->C_DecryptFinal(s, out, &len), CKR_OK);
    CHECK(len == 4);
    big[31] = 0x42;

    CHECK_RV(p11->C_SignInit(s, &hm, hmac), CKR_OK);
    CHECK_RV(p11->C_SignUpdate(s, big, 100), CKR_OK);
    CHECK_RV(p11->C_SignUpdate(s, big, 100), CKR_OK);
    CHECK_RV(p11->C_SignFinal(s, NULL, &len), CKR_OK);
    CHECK(len == 48);
    CHECK_RV(p11->C_SignFinal(s, out, &len), CKR_OK);
    CHECK(len == 48);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_DigestUpdate(s, big, 100), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_DigestFinal(s, out, &len), CKR_OK);
    CHECK(len == 32);
    teardown();
}

/* CKR_BUFFER_TOO_SMALL keeps the operation; a retry that fits ends it. */
static void test_buffer_too_small(void)
{
    CK_OBJECT_HANDLE pub, priv;
    CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 }, sha = { CKM_SHA512, NULL, 0 };
    unsigned char sig[512];
    CK_ULONG len = 10;

    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 3072, &pub, &priv), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, &m, priv), CKR_OK);
    CHECK_RV(p11->C_Sign(s, big, 32, sig, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 384);
    len = 383;
    CHECK_RV(p11->C_Sign(s, big, 32, sig, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 384);
    CHECK_RV(p11->C_Sign(s, big, 32, sig, &len), CKR_OK);
    CHECK(len == 384);
    CHECK_RV(p11->C_Sign(s, big, 32, sig, &len), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_Sign(s, big, 32, NULL, NULL), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    len = 63;
    CHECK_RV(p11->C_Digest(s, big, 32, sig, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 64);
    CHECK_RV(p11->C_Digest(s, big, 32, sig, &len), CKR_OK);
    teardown();
}

static void test_operation_state(void)
{
    CK_OBJECT_HANDLE pub, priv, aes, nosign, h;
    CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 }, sha = { CKM_SHA256, NULL, 0 };
    CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 }, hm = { CKM_SHA256_HMAC, NULL, 0 };
    unsigned char out[512];
    CK_ULONG len = sizeof out;

    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_rsa(s, 2048, &pub, &priv), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &aes), CKR_OK);
    CHECK_RV(make_secret(s, CKK_GENERIC_SECRET, 32, CKA_SIGN, CK_FALSE, CK_FALSE, &nosign), CKR_OK);

    CHECK_RV(p11->C_SignInit(s, &m, priv), CKR_OK);
    CHECK_RV(p11->C_SignInit(s, &m, priv), CKR_OPERATION_ACTIVE);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);           /* other operations are separate */
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OPERATION_ACTIVE);
    CHECK_RV(p11->C_SignInit(s, NULL, CK_INVALID_HANDLE), CKR_OK);   /* 3.0 cancel */
    CHECK_RV(p11->C_Sign(s, big, 32, out, &len), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_SignInit(s, &m, priv), CKR_OK);
    CHECK_RV(p11->C_DigestInit(s, NULL), CKR_OK);
    CHECK_RV(p11->C_DigestFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_Sign(s, big, 32, out, &len), CKR_OK);   /* the signature survived */
    CHECK_RV(p30->C_SignInit(s, &m, priv), CKR_OK);
    CHECK_RV(p30->C_SessionCancel(s, CKF_SIGN), CKR_OK);
    CHECK_RV(p11->C_SignFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_VerifyFinal(s, out, 0), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_EncryptUpdate(s, big, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);

    /* Key and mechanism errors. */
    CHECK_RV(p11->C_SignInit(s, &m, 0xdead), CKR_KEY_HANDLE_INVALID);
    CHECK_RV(p11->C_SignInit(s, &m, aes), CKR_KEY_TYPE_INCONSISTENT);
    CHECK_RV(p11->C_SignInit(s, &m, pub), CKR_KEY_TYPE_INCONSISTENT);     /* a public key does not sign */
    CHECK_RV(p11->C_EncryptInit(s, &ecb, priv), CKR_KEY_TYPE_INCONSISTENT);
    CHECK_RV(p11->C_SignInit(s, &hm, nosign), CKR_KEY_FUNCTION_NOT_PERMITTED);
    CHECK_RV(p11->C_SignInit(s, &sha, priv), CKR_MECHANISM_INVALID);      /* a digest does not sign */
    CHECK_RV(p11->C_DigestInit(s, &ecb), CKR_MECHANISM_INVALID);
    CHECK_RV(p11->C_SignInit(99999, &m, priv), CKR_SESSION_HANDLE_INVALID);

    /* An error ends the operation. */
    CHECK_RV(p11->C_EncryptInit(s, &ecb, aes), CKR_OK);
    CHECK_RV(p11->C_Encrypt(s, big, 15, out, &len), CKR_DATA_LEN_RANGE);
    CHECK_RV(p11->C_Encrypt(s, big, 16, out, &len), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p11->C_EncryptInit(s, &ecb, aes), CKR_OK);
    CHECK_RV(p11->C_Encrypt(s, NULL, 16, out, &len), CKR_ARGUMENTS_BAD);
    CHECK_RV(p11->C_EncryptInit(s, &ecb, aes), CKR_OK);

    /* Closing the session ends it all; the key it made goes too. */
    CHECK_RV(p11->C_CloseSession(s), CKR_OK);
    s = open_session(0);
    CHECK_RV(p11->C_SignInit(s, &m, priv), CKR_KEY_HANDLE_INVALID);
    CHECK_RV(p11->C_FindObjectsInit(s, NULL, 0), CKR_OK);
    CHECK_RV(p11->C_FindObjects(s, &h, 1, &len), CKR_OK);
    CHECK(len == 0);
    teardown();
}

static void test_wrap_derive_random(void)
{
    CK_OBJECT_HANDLE kek, target, locked, rpub, rpriv, ecpub, ecpriv, k;
    CK_MECHANISM kw = { CKM_AES_KEY_WRAP, NULL, 0 }, kwp = { CKM_AES_KEY_WRAP_PAD, NULL, 0 };
    CK_RSA_PKCS_OAEP_PARAMS oaep = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED, NULL, 0 };
    CK_MECHANISM om = { CKM_RSA_PKCS_OAEP, &oaep, sizeof oaep };
    CK_OBJECT_CLASS secret = CKO_SECRET_KEY;
    CK_KEY_TYPE aes = CKK_AES, gen = CKK_GENERIC_SECRET;
    CK_ULONG vlen = 24;
    unsigned char wrapped[512], point[65];
    CK_ULONG len;

    if (!setup(NULL))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &kek), CKR_OK);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &target), CKR_OK);
    CHECK_RV(gen_rsa(s, 2048, &rpub, &rpriv), CKR_OK);

    CHECK_RV(p11->C_WrapKey(s, &kw, kek, target, NULL, &len), CKR_OK);
    CHECK(len == 40);
    len = 39;
    CHECK_RV(p11->C_WrapKey(s, &kw, kek, target, wrapped, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 40);
    CHECK_RV(p11->C_WrapKey(s, &kw, kek, target, wrapped, &len), CKR_OK);
    CHECK(len == 40);
    CK_ATTRIBUTE ut[] = { { CKA_CLASS, &secret, sizeof secret }, { CKA_KEY_TYPE, &aes, sizeof aes } };
    CHECK_RV(p11->C_UnwrapKey(s, &kw, kek, wrapped, len, ut, 2, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 32 && attr_ulong(s, k, CKA_CLASS) == CKO_SECRET_KEY);
    CHECK_RV(p11->C_UnwrapKey(s, &kw, kek, wrapped, 20, ut, 2, &k), CKR_WRAPPED_KEY_LEN_RANGE);
    CHECK_RV(p11->C_UnwrapKey(s, &kw, kek, wrapped, len, ut, 1, &k), CKR_TEMPLATE_INCOMPLETE);
    len = sizeof wrapped;
    CHECK_RV(p11->C_WrapKey(s, &kwp, kek, target, wrapped, &len), CKR_OK);
    CHECK(len == 40);
    len = sizeof wrapped;
    CHECK_RV(p11->C_WrapKey(s, &om, rpub, target, wrapped, &len), CKR_OK);
    CHECK(len == 256);
    CHECK_RV(p11->C_UnwrapKey(s, &om, rpriv, wrapped, len, ut, 2, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 32);
    CHECK_RV(p11->C_WrapKey(s, &om, rpriv, target, wrapped, &len), CKR_WRAPPING_KEY_TYPE_INCONSISTENT);
    CHECK_RV(p11->C_WrapKey(s, &kw, 4242, target, wrapped, &len), CKR_WRAPPING_KEY_HANDLE_INVALID);
    CHECK_RV(p11->C_WrapKey(s, &kw, kek, rpriv, wrapped, &len), CKR_KEY_NOT_WRAPPABLE);
    CK_ATTRIBUTE ne = { CKA_EXTRACTABLE, (void *)&no, sizeof no };
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 16, &locked), CKR_OK);
    CHECK_RV(p11->C_SetAttributeValue(s, locked, &ne, 1), CKR_OK);
    CHECK_RV(p11->C_WrapKey(s, &kw, kek, locked, wrapped, &len), CKR_KEY_UNEXTRACTABLE);

    /* ECDH: a generic secret of CKA_VALUE_LEN bytes (default: the field's). */
    CHECK_RV(gen_ec(s, CKM_EC_KEY_PAIR_GEN, oid_p256, sizeof oid_p256, &ecpub, &ecpriv), CKR_OK);
    memset(point, 4, sizeof point);
    CK_ECDH1_DERIVE_PARAMS ep = { CKD_NULL, 0, NULL, sizeof point, point };
    CK_MECHANISM ecdh = { CKM_ECDH1_DERIVE, &ep, sizeof ep };
    CK_ATTRIBUTE dt[] = { { CKA_CLASS, &secret, sizeof secret }, { CKA_KEY_TYPE, &gen, sizeof gen },
                          { CKA_VALUE_LEN, &vlen, sizeof vlen } };
    CHECK_RV(p11->C_DeriveKey(s, &ecdh, ecpriv, dt, 3, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 24 && attr_len(s, k, CKA_VALUE) == 24);
    CHECK(attr_ulong(s, k, CKA_KEY_TYPE) == CKK_GENERIC_SECRET);
    CHECK_RV(p11->C_DeriveKey(s, &ecdh, ecpriv, dt, 2, &k), CKR_OK);
    CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 32);
    vlen = 33;
    CHECK_RV(p11->C_DeriveKey(s, &ecdh, ecpriv, dt, 3, &k), CKR_TEMPLATE_INCONSISTENT);
    CHECK_RV(p11->C_DeriveKey(s, &ecdh, ecpub, dt, 2, &k), CKR_KEY_TYPE_INCONSISTENT);
    ep.pPublicData = NULL;
    CHECK_RV(p11->C_DeriveKey(s, &ecdh, ecpriv, dt, 2, &k), CKR_MECHANISM_PARAM_INVALID);

    CHECK_RV(p11->C_SeedRandom(s, point, 8), CKR_OK);
    memset(wrapped, 0, sizeof wrapped);
    CHECK_RV(p11->C_GenerateRandom(s, wrapped, 100), CKR_OK);
    int nonzero = 0;
    for (int i = 0; i < 100; i++)
        nonzero += wrapped[i] != 0;
    CHECK(nonzero > 50 && wrapped[100] == 0);
    teardown();
}

static void test_quirks(void)
{
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    unsigned char out[128];
    CK_ULONG len;

    if (!setup("quirks=short-size-query"))
        return;
    CK_SESSION_HANDLE s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(s, big, 10, NULL, &len), CKR_OK);
    CHECK(len == 31);
    CHECK_RV(p11->C_Digest(s, big, 10, out, &len), CKR_BUFFER_TOO_SMALL);
    CHECK(len == 32);
    CHECK_RV(p11->C_Digest(s, big, 10, out, &len), CKR_OK);               /* still active */
    CHECK(len == 32);
    teardown();

    if (!setup("quirks=long-size-query"))
        return;
    s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(s, big, 10, NULL, &len), CKR_OK);
    CHECK(len == 64);
    CHECK_RV(p11->C_Digest(s, big, 10, out, &len), CKR_OK);
    CHECK(len == 32);
    teardown();

    if (!setup("quirks=truncate"))
        return;
    s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(s, big, 10, NULL, &len), CKR_OK);
    CHECK(len == 32);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(s, big, 10, out, &len), CKR_OK);
    CHECK(len == 31);
    teardown();
}

/* The misbehaviours of real tokens that hsmbench must survive (issue 12). */
static void test_token_quirks(void)
{
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 }, ecb = { CKM_AES_ECB, NULL, 0 };
    CK_MECHANISM kwp = { CKM_AES_KEY_WRAP_PAD, NULL, 0 }, kwp3 = { CKM_AES_KEY_WRAP_KWP, NULL, 0 };
    CK_MECHANISM gen = { CKM_AES_KEY_GEN, NULL, 0 };
    CK_ULONG vlen = 32, len;
    CK_OBJECT_HANDLE k, kek, target;
    unsigned char out[600];
    char path[64];

    /* token-objects-only: a session key is refused; a token key on a RW session is made. */
    if (!setup("quirks=token-objects-only"))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CK_ATTRIBUTE tk[] = { { CKA_VALUE_LEN, &vlen, sizeof vlen }, { CKA_TOKEN, (void *)&yes, sizeof yes } };
    CHECK_RV(p11->C_GenerateKey(s, &gen, tk, 1, &k), CKR_ATTRIBUTE_VALUE_INVALID);
    CHECK_RV(p11->C_GenerateKey(s, &gen, tk, 2, &k), CKR_OK);
    CHECK_RV(p11->C_DestroyObject(s, k), CKR_OK);
    teardown();

    /* no-import: C_CreateObject of a key is not supported; generation works. */
    if (!setup("quirks=no-import"))
        return;
    s = open_session(CKF_RW_SESSION);
    CHECK_RV(make_secret(s, CKK_AES, 16, CKA_ENCRYPT, CK_TRUE, CK_FALSE, &k), CKR_FUNCTION_NOT_SUPPORTED);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 16, &k), CKR_OK);
    teardown();

    /* capacity-length: C_Encrypt answers with the buffer's capacity. */
    if (!setup("quirks=capacity-length"))
        return;
    s = open_session(0);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 16, &k), CKR_OK);
    CHECK_RV(p11->C_EncryptInit(s, &ecb, k), CKR_OK);
    len = 100;
    CHECK_RV(p11->C_Encrypt(s, big, 16, out, &len), CKR_OK);
    CHECK_MSG(len == 100, "capacity-length: %lu", len);
    teardown();

    /* sticky-failure: a failed call leaves the operation active (the cascade);
     * a NULL-mechanism Init ends it.  no-cancel: it does not. */
    if (!setup("quirks=sticky-failure;fail=CKR_DEVICE_ERROR:1"))
        return;
    s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_DEVICE_ERROR);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OPERATION_ACTIVE);
    CHECK_RV(p11->C_DigestInit(s, NULL), CKR_OK);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    teardown();
    if (!setup("quirks=sticky-failure,no-cancel;fail=CKR_DEVICE_ERROR:1"))
        return;
    s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_DEVICE_ERROR);
    CHECK_RV(p11->C_DigestInit(s, NULL), CKR_OPERATION_ACTIVE);
    CHECK_RV(p30->C_SessionCancel(s, CKF_DIGEST), CKR_FUNCTION_NOT_SUPPORTED);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OPERATION_ACTIVE);
    teardown();

    /* destroy-fails-once, destroy-fails; objects-file counts what is left. */
    snprintf(path, sizeof path, "/tmp/hsmbench-mock-objects.%ld", (long)getpid());
    char cfg[128];
    snprintf(cfg, sizeof cfg, "quirks=destroy-fails-once;objects-file=%s", path);
    if (!setup(cfg))
        return;
    s = open_session(CKF_RW_SESSION);
    CHECK_RV(p11->C_GenerateKey(s, &gen, tk, 2, &k), CKR_OK);
    CHECK_RV(p11->C_DestroyObject(s, k), CKR_FUNCTION_FAILED);
    CHECK_RV(p11->C_DestroyObject(s, k), CKR_OK);
    CHECK_RV(p11->C_GenerateKey(s, &gen, tk, 2, &k), CKR_OK);   /* left behind */
    teardown();
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        char line[128] = "";
        CHECK(fgets(line, sizeof line, f) && strcmp(line, "objects 1\n") == 0);
        fclose(f);
    }
    unlink(path);
    if (!setup("quirks=destroy-fails"))
        return;
    s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 16, &k), CKR_OK);
    CHECK_RV(p11->C_DestroyObject(s, k), CKR_FUNCTION_FAILED);
    CHECK_RV(p11->C_DestroyObject(s, k), CKR_FUNCTION_FAILED);
    teardown();

    /* wrap-pad: CKM_AES_KEY_WRAP_PAD of a 32-byte key is 40 bytes (RFC 5649)
     * or 48 (NSS: RFC 3394 after PKCS#7); CKM_AES_KEY_WRAP_KWP is 40 either way. */
    for (int pkcs7 = 0; pkcs7 < 2; pkcs7++) {
        if (!setup(pkcs7 ? "wrap-pad=pkcs7" : "wrap-pad=rfc5649"))
            return;
        s = open_session(0);
        CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &kek), CKR_OK);
        CHECK_RV(gen_secret(s, CKM_AES_KEY_GEN, 32, &target), CKR_OK);
        len = sizeof out;
        CHECK_RV(p11->C_WrapKey(s, &kwp, kek, target, out, &len), CKR_OK);
        CHECK_MSG(len == (pkcs7 ? 48u : 40u), "wrap-pad=%s: %lu", pkcs7 ? "pkcs7" : "rfc5649", len);
        CK_OBJECT_CLASS secret = CKO_SECRET_KEY;
        CK_KEY_TYPE aes = CKK_AES;
        CK_ATTRIBUTE ut[] = { { CKA_CLASS, &secret, sizeof secret }, { CKA_KEY_TYPE, &aes, sizeof aes } };
        CHECK_RV(p11->C_UnwrapKey(s, &kwp, kek, out, len, ut, 2, &k), CKR_OK);
        CHECK(attr_ulong(s, k, CKA_VALUE_LEN) == 32);
        len = sizeof out;
        CHECK_RV(p11->C_WrapKey(s, &kwp3, kek, target, out, &len), CKR_OK);
        CHECK(len == 40);
        teardown();
    }

    /* lost-at: every call fails with CKR_DEVICE_ERROR after T; C_Finalize still works. */
    if (!setup("lost-at=50ms"))
        return;
    s = open_session(0);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    sleep_s(0.08);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_DEVICE_ERROR);
    CK_SESSION_HANDLE s2;
    CHECK_RV(p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &s2), CKR_DEVICE_ERROR);
    teardown();
}

/* n DigestInit+Digest pairs; how many ended with each code in codes[]. */
static void digest_outcomes(CK_SESSION_HANDLE *s, int n, const CK_RV *codes, int ncodes, int *counts,
                            int *other)
{
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    unsigned char out[64];
    for (int i = 0; i < n; i++) {
        CK_ULONG len = sizeof out;
        CK_RV rv = p11->C_DigestInit(*s, &sha);
        if (rv == CKR_OK)
            rv = p11->C_Digest(*s, big, 16, out, &len);
        int known = rv == CKR_OK;
        for (int c = 0; c < ncodes; c++)
            if (rv == codes[c]) {
                counts[c]++;
                known = 1;
            }
        if (!known)
            (*other)++;
        if (rv == CKR_SESSION_HANDLE_INVALID)
            *s = open_session(0);
    }
}

/* slots=N: N tokens, each with its own label, serial, objects, sessions
 * and login; slots=1 (the default) is the one token "mock". */
static void test_slots(void)
{
    CK_SLOT_ID list[8];
    CK_ULONG n = 0;
    CK_TOKEN_INFO ti;
    CK_SESSION_INFO si;
    CK_SESSION_HANDLE a, b, c;
    CK_OBJECT_HANDLE k, found[4];
    CK_MECHANISM gcm_gen = { CKM_AES_KEY_GEN, NULL, 0 };
    CK_ULONG len = 32;
    CK_BBOOL tok = CK_TRUE;
    CK_ATTRIBUTE t[] = { { CKA_VALUE_LEN, &len, sizeof len }, { CKA_TOKEN, &tok, sizeof tok } };

    if (!setup(NULL))
        return;
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, NULL, &n), CKR_OK);
    CHECK(n == 1);
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(padded_eq(ti.label, sizeof ti.label, "mock"));
    CHECK_RV(p11->C_GetTokenInfo(SLOT + 1, &ti), CKR_SLOT_ID_INVALID);
    teardown();

    CHECK_RV(init_with("slots=0"), CKR_ARGUMENTS_BAD);
    CHECK_RV(init_with("slots=17"), CKR_ARGUMENTS_BAD);

    if (!setup("slots=3;login=required;pin=1234"))
        return;
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, NULL, &n), CKR_OK);
    CHECK(n == 3);
    n = 2;
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, list, &n), CKR_BUFFER_TOO_SMALL);
    n = 8;
    CHECK_RV(p11->C_GetSlotList(CK_TRUE, list, &n), CKR_OK);
    CHECK(n == 3 && list[0] == 1 && list[1] == 2 && list[2] == 3);
    CHECK_RV(p11->C_GetTokenInfo(2, &ti), CKR_OK);
    CHECK(padded_eq(ti.label, sizeof ti.label, "mock-2"));
    CHECK(padded_eq(ti.serialNumber, sizeof ti.serialNumber, "0000000000000003"));
    CHECK_RV(p11->C_GetTokenInfo(4, &ti), CKR_SLOT_ID_INVALID);
    CHECK_RV(p11->C_OpenSession(4, CKF_SERIAL_SESSION, NULL, NULL, &a), CKR_SLOT_ID_INVALID);

    CHECK_RV(p11->C_OpenSession(1, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &a), CKR_OK);
    CHECK_RV(p11->C_OpenSession(2, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &b), CKR_OK);
    CHECK_RV(p11->C_OpenSession(2, CKF_SERIAL_SESSION, NULL, NULL, &c), CKR_OK);
    CHECK_RV(p11->C_GetSessionInfo(b, &si), CKR_OK);
    CHECK(si.slotID == 2 && si.state == CKS_RW_PUBLIC_SESSION);
    CHECK_RV(p11->C_GetTokenInfo(2, &ti), CKR_OK);
    CHECK(ti.ulSessionCount == 2 && ti.ulRwSessionCount == 1);
    CHECK_RV(p11->C_GetTokenInfo(1, &ti), CKR_OK);
    CHECK(ti.ulSessionCount == 1);

    /* Login is per token: token 1 logged in, token 2 not. */
    CHECK_RV(p11->C_Login(a, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4), CKR_OK);
    CHECK_RV(p11->C_GetSessionInfo(b, &si), CKR_OK);
    CHECK(si.state == CKS_RW_PUBLIC_SESSION);
    CHECK_RV(gen_secret(b, CKM_AES_KEY_GEN, 32, &k), CKR_USER_NOT_LOGGED_IN);
    CHECK_RV(p11->C_Login(b, CKU_USER, (CK_UTF8CHAR_PTR)"1234", 4), CKR_OK);
    CHECK_RV(p11->C_GetSessionInfo(c, &si), CKR_OK);
    CHECK(si.state == CKS_RO_USER_FUNCTIONS);

    /* A token object on token 1 is seen and used on token 1 only. */
    CHECK_RV(p11->C_GenerateKey(a, &gcm_gen, t, 2, &k), CKR_OK);
    CK_MECHANISM ecb = { CKM_AES_ECB, NULL, 0 };
    CHECK_RV(p11->C_EncryptInit(b, &ecb, k), CKR_KEY_HANDLE_INVALID);
    CHECK_RV(p11->C_EncryptInit(a, &ecb, k), CKR_OK);
    CK_ATTRIBUTE lenq = { CKA_VALUE_LEN, &len, sizeof len };
    CHECK_RV(p11->C_GetAttributeValue(b, k, &lenq, 1), CKR_OBJECT_HANDLE_INVALID);
    CHECK_RV(p11->C_DestroyObject(b, k), CKR_OBJECT_HANDLE_INVALID);
    CHECK_RV(p11->C_FindObjectsInit(b, NULL, 0), CKR_OK);
    n = 9;
    CHECK_RV(p11->C_FindObjects(b, found, 4, &n), CKR_OK);
    CHECK(n == 0);
    CHECK_RV(p11->C_FindObjectsFinal(b), CKR_OK);
    CHECK_RV(p11->C_FindObjectsInit(a, NULL, 0), CKR_OK);
    CHECK_RV(p11->C_FindObjects(a, found, 4, &n), CKR_OK);
    CHECK(n == 1 && found[0] == k);
    CHECK_RV(p11->C_FindObjectsFinal(a), CKR_OK);

    /* Logging out of token 2 leaves token 1 logged in; closing token 2's
     * sessions leaves token 1's open. */
    CHECK_RV(p11->C_Logout(c), CKR_OK);
    CHECK_RV(p11->C_GetSessionInfo(a, &si), CKR_OK);
    CHECK(si.state == CKS_RW_USER_FUNCTIONS);
    CHECK_RV(p11->C_CloseAllSessions(2), CKR_OK);
    CHECK_RV(p11->C_GetSessionInfo(b, &si), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_GetSessionInfo(a, &si), CKR_OK);
    CHECK_RV(p11->C_DestroyObject(a, k), CKR_OK);
    teardown();
}

static void test_failure_rate(void)
{
    static const CK_RV codes[] = { CKR_DEVICE_ERROR, CKR_FUNCTION_FAILED, CKR_DEVICE_REMOVED };
    int counts[3] = { 0, 0, 0 }, other = 0;

    if (!setup("fail=CKR_DEVICE_ERROR:0.01;seed=42"))
        return;
    CK_SESSION_HANDLE s = open_session(0);
    digest_outcomes(&s, 20000, codes, 3, counts, &other);
    CHECK_MSG(counts[0] >= 140 && counts[0] <= 260, "%d CKR_DEVICE_ERROR in 20000 at 1%%", counts[0]);
    CHECK(counts[1] == 0 && counts[2] == 0 && other == 0);
    teardown();

    memset(counts, 0, sizeof counts);
    if (!setup("fail=CKR_DEVICE_ERROR:0.05,CKR_FUNCTION_FAILED:0.02,CKR_DEVICE_REMOVED:0.002"))
        return;
    s = open_session(0);
    digest_outcomes(&s, 20000, codes, 3, counts, &other);
    CHECK_MSG(counts[0] >= 850 && counts[0] <= 1150, "%d CKR_DEVICE_ERROR in 20000 at 5%%", counts[0]);
    CHECK_MSG(counts[1] >= 320 && counts[1] <= 480, "%d CKR_FUNCTION_FAILED in 20000 at 2%%", counts[1]);
    CHECK_MSG(counts[2] >= 20 && counts[2] <= 65, "%d CKR_DEVICE_REMOVED in 20000 at 0.2%%", counts[2]);
    CHECK(other == 0);
    teardown();
}

static void test_session_invalidation(void)
{
    static const CK_RV codes[] = { CKR_SESSION_HANDLE_INVALID };
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    CK_OBJECT_HANDLE k;
    CK_SESSION_INFO si;
    unsigned char out[64];
    CK_ULONG len = sizeof out;
    int counts[1] = { 0 }, other = 0;

    if (!setup("fail=CKR_SESSION_HANDLE_INVALID:1"))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION), keep = open_session(0);
    CHECK_RV(make_secret(s, CKK_AES, 16, CKA_ENCRYPT, CK_TRUE, CK_FALSE, &k), CKR_OK);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_SESSION_HANDLE_INVALID);       /* really closed */
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_CloseSession(s), CKR_SESSION_HANDLE_INVALID);
    CHECK_RV(p11->C_GetObjectSize(keep, k, &len), CKR_OBJECT_HANDLE_INVALID); /* its objects went */
    CHECK_RV(p11->C_GetSessionInfo(keep, &si), CKR_OK);                      /* others stay */
    s = open_session(0);                                                      /* a new one works */
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    teardown();

    if (!setup("fail=CKR_SESSION_HANDLE_INVALID:0.01;seed=3"))
        return;
    s = open_session(0);
    digest_outcomes(&s, 5000, codes, 1, counts, &other);
    CHECK_MSG(counts[0] >= 25 && counts[0] <= 80 && other == 0, "%d invalidations, %d other", counts[0], other);
    teardown();
}

/* ---- timing ------------------------------------------------------------------------------ */

static void test_service_fixed(void)
{
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    unsigned char out[64];
    CK_ULONG len;
    double init_s = 0, op_s = 0;

    if (!setup("service=fixed:2ms"))
        return;
    CK_SESSION_HANDLE s = open_session(0);
    for (int i = 0; i < 50; i++) {
        double t0 = now_s();
        CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
        double t1 = now_s();
        CHECK_RV(p11->C_Digest(s, big, 16, NULL, &len), CKR_OK);        /* size queries are free */
        len = sizeof out;
        CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_OK);
        double t2 = now_s();
        init_s += t1 - t0;
        op_s += t2 - t1;
    }
    double avg_ms = op_s / 50 * 1e3;
    CHECK_MSG(avg_ms >= 1.9 && avg_ms <= 6, "average %.3f ms for fixed:2ms", avg_ms);
    CHECK_MSG(init_s / 50 * 1e3 < 1.0, "C_DigestInit took %.3f ms on average", init_s / 50 * 1e3);
    teardown();

    /* uniform and lognormal: every call within reason, the mean near the middle. */
    if (!setup("service=uniform:1ms:3ms;seed=5"))
        return;
    s = open_session(0);
    double t0 = now_s();
    for (int i = 0; i < 40; i++) {
        CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
        len = sizeof out;
        CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_OK);
    }
    avg_ms = (now_s() - t0) / 40 * 1e3;
    CHECK_MSG(avg_ms >= 1.7 && avg_ms <= 6, "average %.3f ms for uniform:1ms:3ms", avg_ms);
    teardown();

    /* drift=+100%:200ms: 300 ms after C_Initialize an operation of 2 ms
     * takes at least 2 ms x (1 + 300/200) = 5 ms (a lower bound only). */
    if (!setup("service=fixed:2ms;drift=+100%:200ms"))
        return;
    s = open_session(0);
    sleep_s(0.3);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    len = sizeof out;
    t0 = now_s();
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_OK);
    const double drift_ms = (now_s() - t0) * 1e3;
    CHECK_MSG(drift_ms >= 4.9, "an operation took %.3f ms at 300 ms of drift=+100%%:200ms", drift_ms);
    teardown();
}

typedef struct {
    int ops;
    CK_RV bad;
} worker_arg;

static void *digest_worker(void *p)
{
    worker_arg *a = p;
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    CK_SESSION_HANDLE s;
    unsigned char out[64];
    CK_RV rv = p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &s);
    for (int i = 0; rv == CKR_OK && i < a->ops; i++) {
        CK_ULONG len = sizeof out;
        rv = p11->C_DigestInit(s, &sha);
        if (rv == CKR_OK)
            rv = p11->C_Digest(s, big, 16, out, &len);
    }
    a->bad = rv;
    p11->C_CloseSession(s);
    return NULL;
}

/* threads x ops digests, each thread on its own session: elapsed seconds. */
static double run_threads(int threads, int ops)
{
    pthread_t t[16];
    worker_arg a[16];
    double t0 = now_s();
    for (int i = 0; i < threads; i++) {
        a[i].ops = ops;
        a[i].bad = CKR_OK;
        pthread_create(&t[i], NULL, digest_worker, &a[i]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        CHECK_MSG(a[i].bad == CKR_OK, "worker %d: 0x%lx", i, a[i].bad);
    }
    return now_s() - t0;
}

static void test_cores(void)
{
    if (!setup("service=fixed:5ms;cores=2"))
        return;
    double two = run_threads(4, 20);                     /* 80 x 5 ms on 2 cores: 0.2 s */
    CHECK_MSG(two >= 0.19 && two < 3, "cores=2: %.3f s", two);
    teardown();
    if (!setup("service=fixed:5ms"))
        return;
    double unlimited = run_threads(4, 20);               /* 20 x 5 ms each, in parallel: 0.1 s */
    CHECK_MSG(unlimited >= 0.095 && unlimited < two, "unlimited: %.3f s, cores=2: %.3f s", unlimited, two);
    teardown();
}

static double one_digest_s(CK_SESSION_HANDLE s)
{
    CK_MECHANISM sha = { CKM_SHA256, NULL, 0 };
    unsigned char out[64];
    CK_ULONG len = sizeof out;
    double t0 = now_s();
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_OK);
    return now_s() - t0;
}

static void test_stalls(void)
{
    /* One stall from 200 ms to 500 ms after C_Initialize. */
    double t0 = now_s();
    if (!setup("stall-at=200ms:300ms"))
        return;
    CK_SESSION_HANDLE s = open_session(0);
    double before = one_digest_s(s);
    CHECK_MSG(before < 0.1, "before the stall: %.3f s", before);
    sleep_s(0.25 - (now_s() - t0));
    double inside = one_digest_s(s);
    CHECK_MSG(inside >= 0.2 && inside < 1.5, "started inside the stall: %.3f s (expected ~0.25)", inside);
    double after = one_digest_s(s);
    CHECK_MSG(after < 0.1, "after the stall: %.3f s", after);
    teardown();

    /* 100 ms of every 200 ms: windows [100, 200), [300, 400), ... */
    t0 = now_s();
    if (!setup("stall=100ms/200ms"))
        return;
    s = open_session(0);
    sleep_s(0.13 - (now_s() - t0));
    inside = one_digest_s(s);
    CHECK_MSG(inside >= 0.04 && inside < 1.0, "periodic stall: %.3f s (expected ~0.07)", inside);
    teardown();
}

/* ---- asynchronous sessions ------------------------------------------------------------------ */

static void test_async(void)
{
    CK_MECHANISM sha = { CKM_SHA384, NULL, 0 };
    CK_ASYNC_DATA ad;
    CK_SESSION_HANDLE s;
    CK_SESSION_INFO si;
    unsigned char out[64];
    CK_ULONG len, id;

    /* Without async=1: no async sessions, the functions are not supported. */
    if (!setup(NULL))
        return;
    CHECK_RV(p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION | CKF_ASYNC_SESSION, NULL, NULL, &s),
             CKR_SESSION_ASYNC_NOT_SUPPORTED);
    s = open_session(0);
    CHECK_RV(p32->C_AsyncComplete(s, (CK_UTF8CHAR_PTR)"C_Digest", &ad), CKR_FUNCTION_NOT_SUPPORTED);
    teardown();

    if (!setup("async=1;service=fixed:50ms"))
        return;
    s = open_session(CKF_ASYNC_SESSION);
    CHECK_RV(p11->C_GetSessionInfo(s, &si), CKR_OK);
    CHECK(si.flags & CKF_ASYNC_SESSION);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);
    double t0 = now_s();
    CHECK_RV(p11->C_Digest(s, big, 16, NULL, &len), CKR_OK);            /* size query: synchronous */
    CHECK(len == 48);
    len = 10;
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_BUFFER_TOO_SMALL); /* short buffer: too */
    CHECK(len == 48);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_PENDING);
    double submitted = now_s() - t0;
    CHECK_MSG(submitted < 0.03, "submission took %.3f s", submitted);
    CHECK_RV(p32->C_AsyncComplete(s, (CK_UTF8CHAR_PTR)"C_Digest", &ad), CKR_PENDING);
    CHECK_RV(p32->C_AsyncGetID(s, (CK_UTF8CHAR_PTR)"C_Digest", &id), CKR_STATE_UNSAVEABLE);
    CHECK_RV(p11->C_DigestInit(s, &sha), CKR_OK);                         /* the operation ended */
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_OPERATION_ACTIVE);  /* one pending per name */
    CK_RV rv;
    memset(&ad, 0, sizeof ad);
    while ((rv = p32->C_AsyncComplete(s, (CK_UTF8CHAR_PTR)"C_Digest", &ad)) == CKR_PENDING)
        sleep_s(0.002);
    double done = now_s() - t0;
    CHECK_RV(rv, CKR_OK);
    CHECK(ad.pValue == out && ad.ulValue == 48);
    CHECK_MSG(done >= 0.045 && done < 2, "completed after %.3f s", done);
    CHECK_RV(p32->C_AsyncComplete(s, (CK_UTF8CHAR_PTR)"C_Digest", &ad), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p32->C_AsyncComplete(s, (CK_UTF8CHAR_PTR)"C_Bogus", &ad), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p32->C_AsyncGetID(s, (CK_UTF8CHAR_PTR)"C_Digest", &id), CKR_OPERATION_NOT_INITIALIZED);
    CHECK_RV(p32->C_AsyncJoin(s, (CK_UTF8CHAR_PTR)"C_Digest", 1, out, sizeof out), CKR_SAVED_STATE_INVALID);
    /* The operation left initialised above goes on the same way. */
    CHECK_RV(p11->C_Digest(s, big, 16, out, &len), CKR_PENDING);
    teardown();

    /* Cores are honoured at submission: two sessions, one core. */
    if (!setup("async=1;service=fixed:50ms;cores=1"))
        return;
    CK_SESSION_HANDLE a = open_session(CKF_ASYNC_SESSION), b = open_session(CKF_ASYNC_SESSION);
    unsigned char out2[64];
    CK_OBJECT_HANDLE pub, priv;
    CK_MECHANISM rsa = { CKM_SHA256_RSA_PKCS, NULL, 0 };
    unsigned char sig[256];
    CK_ULONG siglen = sizeof sig, len2 = sizeof out2;
    CHECK_RV(gen_rsa(a, 2048, &pub, &priv), CKR_OK);                      /* 50 ms, blocking */
    t0 = now_s();
    CHECK_RV(p11->C_DigestInit(a, &sha), CKR_OK);
    CHECK_RV(p11->C_SignInit(b, &rsa, priv), CKR_OK);
    len = sizeof out;
    CHECK_RV(p11->C_Digest(a, big, 16, out, &len), CKR_PENDING);
    CHECK_RV(p11->C_Sign(b, big, 16, sig, &siglen), CKR_PENDING);
    double first = 0, second = 0;
    while (!first || !second) {
        if (!first && (rv = p32->C_AsyncComplete(a, (CK_UTF8CHAR_PTR)"C_Digest", &ad)) != CKR_PENDING) {
            first = now_s() - t0;
            CHECK_RV(rv, CKR_OK);
            CHECK(ad.pValue == out && ad.ulValue == 48);
        }
        if (!second && (rv = p32->C_AsyncComplete(b, (CK_UTF8CHAR_PTR)"C_Sign", &ad)) != CKR_PENDING) {
            second = now_s() - t0;
            CHECK_RV(rv, CKR_OK);
            CHECK(ad.pValue == sig && ad.ulValue == 256);
        }
        if (now_s() - t0 > 5)
            break;
        sleep_s(0.002);
    }
    CHECK_MSG(first >= 0.045 && second >= 0.095 && second < 3, "completions at %.3f and %.3f s", first, second);
    /* C_Verify pends too; a session's close cancels what is pending. */
    CHECK_RV(p11->C_VerifyInit(a, &rsa, pub), CKR_OK);
    CHECK_RV(p11->C_Verify(a, big, 16, sig, 256), CKR_PENDING);
    CHECK_RV(p11->C_DigestInit(b, &sha), CKR_OK);
    CHECK_RV(p11->C_Digest(b, big, 16, out2, &len2), CKR_PENDING);
    CHECK_RV(p11->C_CloseSession(b), CKR_OK);
    while ((rv = p32->C_AsyncComplete(a, (CK_UTF8CHAR_PTR)"C_Verify", NULL)) == CKR_PENDING)
        sleep_s(0.002);
    CHECK_RV(rv, CKR_OK);
    teardown();
}

/* ---- many threads at once (for ThreadSanitizer) ------------------------------------------- */

static CK_OBJECT_HANDLE shared_key;

static void *mixed_worker(void *p)
{
    worker_arg *a = p;
    CK_MECHANISM hm = { CKM_SHA256_HMAC, NULL, 0 }, gen = { CKM_AES_KEY_GEN, NULL, 0 };
    CK_ULONG vlen = 16;
    CK_ATTRIBUTE t = { CKA_VALUE_LEN, &vlen, sizeof vlen };
    CK_SESSION_HANDLE s;
    CK_OBJECT_HANDLE k, found[4];
    unsigned char out[64];
    CK_RV rv = p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &s);
    for (int i = 0; rv == CKR_OK && i < a->ops; i++) {
        CK_ULONG len = sizeof out, n;
        rv = p11->C_SignInit(s, &hm, shared_key);
        if (rv == CKR_OK)
            rv = p11->C_Sign(s, big, 64, out, &len);
        if (rv == CKR_OK)
            rv = p11->C_GenerateKey(s, &gen, &t, 1, &k);
        if (rv == CKR_OK && (rv = p11->C_FindObjectsInit(s, &t, 1)) == CKR_OK) {
            rv = p11->C_FindObjects(s, found, 4, &n);
            p11->C_FindObjectsFinal(s);
        }
        if (rv == CKR_OK)
            rv = p11->C_DestroyObject(s, k);
        if (rv == CKR_OK && i % 50 == 0) {
            p11->C_CloseSession(s);
            rv = p11->C_OpenSession(SLOT, CKF_SERIAL_SESSION, NULL, NULL, &s);
        }
    }
    a->bad = rv;
    p11->C_CloseSession(s);
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[8];
    worker_arg a[8];

    if (!setup("cores=3;fail=CKR_DEVICE_ERROR:0"))
        return;
    CK_SESSION_HANDLE s = open_session(CKF_RW_SESSION);
    CHECK_RV(gen_secret(s, CKM_GENERIC_SECRET_KEY_GEN, 32, &shared_key), CKR_OK);
    for (int i = 0; i < 8; i++) {
        a[i].ops = 300;
        a[i].bad = CKR_OK;
        pthread_create(&t[i], NULL, mixed_worker, &a[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        CHECK_MSG(a[i].bad == CKR_OK, "worker %d: 0x%lx", i, a[i].bad);
    }
    CK_TOKEN_INFO ti;
    CHECK_RV(p11->C_GetTokenInfo(SLOT, &ti), CKR_OK);
    CHECK(ti.ulSessionCount == 1);
    teardown();
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : getenv("MOCKHSM_PATH");
    char derived[4096];

    /* tests/run.sh gives each build variant's null module: the mock is beside it. */
    if ((path == NULL || *path == '\0') && getenv("NULLP11_PATH")) {
        const char *null = getenv("NULLP11_PATH"), *slash = strrchr(null, '/');
        snprintf(derived, sizeof derived, "%.*slibhsmbench-mock.so",
                 slash ? (int)(slash - null + 1) : 0, null);
        path = derived;
    }
    if (path == NULL || *path == '\0')
        path = "build/libhsmbench-mock.so";
    unsetenv("HSMBENCH_MOCK");
    module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (module == NULL)
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());

    RUN(test_load);
    if (p11 == NULL || p30 == NULL || p32 == NULL)
        return check_finish();
    RUN(test_not_initialized);
    RUN(test_config_errors);
    RUN(test_config_env);
    RUN(test_info);
    RUN(test_mechanisms);
    RUN(test_reduced_mechanisms);
    RUN(test_max_rsa);
    RUN(test_login);
    RUN(test_sessions);
    RUN(test_objects);
    RUN(test_keygen);
    RUN(test_lengths);
    RUN(test_multipart);
    RUN(test_buffer_too_small);
    RUN(test_operation_state);
    RUN(test_wrap_derive_random);
    RUN(test_quirks);
    RUN(test_token_quirks);
    RUN(test_slots);
    RUN(test_failure_rate);
    RUN(test_session_invalidation);
    RUN(test_service_fixed);
    RUN(test_cores);
    RUN(test_stalls);
    RUN(test_async);
    RUN(test_threads);

    dlclose(module);
    return check_finish();
}

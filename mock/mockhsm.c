/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mock/mockhsm.c - a PKCS#11 module that behaves like an HSM, for
 * proving hsmbench's measurements against delays it injects itself.
 *
 * Every function listed in hsmbench-mock(7) follows PKCS#11 3.0: sessions,
 * login, objects with their attributes, key generation, and the sign,
 * verify, encrypt, decrypt and digest operations with size queries,
 * CKR_BUFFER_TOO_SMALL, multi-part calls and cancellation.  There is no
 * real cryptography: every output has the length the mechanism and the key
 * give it, and filler for contents.  What the module adds is configurable
 * timing and misbehaviour:
 *
 *   HSMBENCH_MOCK="service=fixed:1ms;cores=4;fail=CKR_DEVICE_ERROR:0.01"
 *
 * (and/or the same string as CK_C_INITIALIZE_ARGS.pReserved, which wins
 * key by key): a service time for every operation-finishing call, a number
 * of "cores" serving at once, periodic or one-off stalls, rare random
 * spikes (spike=P:D), a slow drift (drift=PCT:T), injected errors,
 * a reduced mechanism list, an RSA size cap, a required PIN, several tokens
 * (slots=N, each with its own objects, sessions and login), PKCS#11 3.2
 * asynchronous sessions, and size-query quirks.  hsmbench-mock(7) has the
 * keys and every rule; the unit test tests/unit/test_mockhsm.c checks them.
 *
 * Sections: configuration; time, delays, cores and stalls; sessions;
 * objects; mechanism table; general, slot and token functions; session
 * functions; object functions; operations; key management and random
 * numbers; asynchronous functions; unsupported functions; function lists
 * and interfaces.
 *
 * Cores.  cores=N is a table of N "free at" times rather than a counting
 * semaphore: a call reserves the core that frees first (mh_schedule) and
 * sleeps until its reservation ends.  A blocking call thus waits for its
 * core inside the module as it would on a mutex and condition variable,
 * but first come first served; and an asynchronous call, which has no
 * thread to wait in, gets its due time from the same table at submission.
 *
 * Locking.  Sessions live in a table of pointers (allocated on first use,
 * freed by C_Finalize), each with its own mutex; the table's free list, the
 * session counts and the login state are under g_sess_mu; objects under
 * g_obj_mu; the core reservations under g_core_mu.  Order: g_sess_mu, then
 * a session's mutex, then g_obj_mu.  No lock is held while an operation is
 * in service (asleep): an operation-finishing call checks and sizes its
 * result under the session's mutex, drops it, sleeps until its due time,
 * then takes the mutex again to finish.
 *
 * Only C_GetFunctionList, C_GetInterfaceList and C_GetInterface are
 * exported; everything else is static.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>

#include "p11/pkcs11_3x.h"

#define MH_SLOT           1UL     /* the first slot's ID; slots=N adds MH_SLOT+1 ... */
#define MH_MAX_SLOTS      16U
#define MH_MAX_SESSIONS   4096UL
#define MH_MAX_OBJECTS    (1UL << 22)
#define MH_MAX_FAIL       16
#define MH_MAX_PIN        64
#define MH_RSA_MIN        512UL
#define MH_RSA_MAX        16384UL

/* ---- configuration ------------------------------------------------------- */

typedef enum { MH_SVC_NONE, MH_SVC_FIXED, MH_SVC_UNIFORM, MH_SVC_LOGNORMAL } mh_svc_kind;

enum {
    MH_Q_SHORT_QUERY = 1,       /* size query answered 1 byte short */
    MH_Q_LONG_QUERY  = 2,       /* size query answered twice the length */
    MH_Q_TRUNCATE    = 4,       /* CKR_OK with a result 1 byte short */
    MH_Q_TOKEN_ONLY  = 8,       /* key objects must be token objects */
    MH_Q_NO_IMPORT   = 16,      /* C_CreateObject refuses keys */
    MH_Q_CAPACITY    = 32,      /* C_Encrypt answers with the buffer's capacity */
    MH_Q_STICKY      = 64,      /* a failed finishing call leaves the operation active */
    MH_Q_DESTROY_ONCE = 128,    /* each object's first C_DestroyObject fails */
    MH_Q_DESTROY_FAIL = 256,    /* every C_DestroyObject fails */
    MH_Q_NO_CANCEL   = 512,     /* no 3.0 cancellation: NULL-mechanism Init, C_SessionCancel */
    MH_Q_CANT_LOCK   = 1024,    /* C_Initialize refuses CKF_OS_LOCKING_OK: single-threaded */
    MH_Q_NO_KEYGEN   = 2048,    /* C_GenerateKey(Pair) answer CKR_FUNCTION_NOT_SUPPORTED */
    MH_Q_HIDE_IMPORTED = 4096,  /* keys C_CreateObject made cannot be used: CKR_OBJECT_HANDLE_INVALID */
};

#define MH_MAX_KEYS       8

/* keys=: a token key made at C_Initialize on every token (mh_preload). */
typedef struct mh_keydef {
    char     label[64];
    int      kind;              /* 'r' RSA, 'e' EC, 'a' AES, 'g' generic secret */
    CK_ULONG bits;              /* RSA modulus, AES or generic secret bits */
    int      curve;             /* EC: index in mh_curves */
} mh_keydef;

/* The operations a session can have active, one of each at a time
 * (and hang='s names). */
typedef enum { MH_OP_ENCRYPT, MH_OP_DECRYPT, MH_OP_DIGEST, MH_OP_SIGN, MH_OP_VERIFY, MH_OP_COUNT } mh_opkind;

static const char *const mh_op_fn[MH_OP_COUNT] = {       /* the one-shot call's name */
    "C_Encrypt", "C_Decrypt", "C_Digest", "C_Sign", "C_Verify",
};

typedef struct mh_config {
    mh_svc_kind svc;
    uint64_t    svc_a, svc_b;           /* fixed: a; uniform: a..b; lognormal: median a */
    double      sigma;                  /* lognormal: sigma of ln(service time) */
    unsigned    cores;                  /* 0: unlimited */
    uint64_t    stall_d, stall_p;       /* periodic stall: D every P (0: none) */
    uint64_t    stall_at_t, stall_at_d; /* one stall from T to T+D (d 0: none) */
    double      spike_p;                /* each operation, with this probability, ... */
    uint64_t    spike_d;                /* ... serves this much longer (0: none) */
    double      drift;                  /* service time grows by this share of itself ... */
    uint64_t    drift_every;            /* ... every this long from C_Initialize (0: none) */
    struct { CK_RV rv; double p; } fail[MH_MAX_FAIL];
    int         nfail;
    uint64_t    seed;
    int         mech_filter;            /* mechanisms= given */
    unsigned char mech_on[64];          /* per mechanism-table entry, with mech_filter */
    unsigned char mech_unlisted[64];    /* unlisted=: served, but not in the list nor info */
    CK_ULONG    max_rsa;
    int         login_required;
    int         has_pin;
    char        pin[MH_MAX_PIN + 1];
    int         async;
    unsigned    quirks;
    int         wrap_pkcs7;             /* CKM_AES_KEY_WRAP_PAD as NSS: RFC 3394 + PKCS#7 */
    uint64_t    lost_at;                /* the device is lost this long after C_Initialize (0: never) */
    uint64_t    sigpipe_at;             /* sigpipe=N: the Nth call in service breaks a pipe (0: none) */
    unsigned    hang_calls;             /* hang=: bit k for mh_op_fn[k], MH_HANG_DESTROY ... */
    uint64_t    hang_at;                /* ... never return from this long after C_Initialize */
    char        objects_file[256];      /* C_Finalize lists the objects left here */
    unsigned    slots;                  /* tokens, in slots MH_SLOT .. MH_SLOT+slots-1 */
    mh_keydef   keys[MH_MAX_KEYS];      /* keys=: token keys there from C_Initialize on */
    int         nkeys;
} mh_config;

static void mh_config_default(mh_config *c)
{
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->max_rsa = MH_RSA_MAX;
    c->slots = 1;
}

/* CKR_* names the configuration accepts (and that the man page lists). */
static const struct { const char *name; CK_RV rv; } mh_rv_names[] = {
    { "CKR_DEVICE_ERROR", CKR_DEVICE_ERROR },
    { "CKR_DEVICE_MEMORY", CKR_DEVICE_MEMORY },
    { "CKR_DEVICE_REMOVED", CKR_DEVICE_REMOVED },
    { "CKR_FUNCTION_FAILED", CKR_FUNCTION_FAILED },
    { "CKR_GENERAL_ERROR", CKR_GENERAL_ERROR },
    { "CKR_HOST_MEMORY", CKR_HOST_MEMORY },
    { "CKR_SESSION_HANDLE_INVALID", CKR_SESSION_HANDLE_INVALID },
    { "CKR_SESSION_CLOSED", CKR_SESSION_CLOSED },
    { "CKR_TOKEN_NOT_PRESENT", CKR_TOKEN_NOT_PRESENT },
    { "CKR_FUNCTION_CANCELED", CKR_FUNCTION_CANCELED },
    { "CKR_USER_NOT_LOGGED_IN", CKR_USER_NOT_LOGGED_IN },
    { "CKR_DATA_INVALID", CKR_DATA_INVALID },
    { "CKR_ENCRYPTED_DATA_INVALID", CKR_ENCRYPTED_DATA_INVALID },
    { "CKR_SIGNATURE_INVALID", CKR_SIGNATURE_INVALID },
    { "CKR_OPERATION_NOT_INITIALIZED", CKR_OPERATION_NOT_INITIALIZED },
    { "CKR_KEY_HANDLE_INVALID", CKR_KEY_HANDLE_INVALID },
};

/* Forward: the mechanism table's index of a name or number (-1: unknown). */
static int mh_mech_index_by_name(const char *name);

static char *mh_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* An unsigned integer, decimal or 0x-hex, the whole string. */
static int mh_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-' || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* A duration: a decimal number and ns, us, ms or s (a bare number: seconds). */
static int mh_parse_duration(const char *s, uint64_t *ns)
{
    char *end;
    if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return -1;
    double mult;
    if (strcmp(end, "ns") == 0)
        mult = 1;
    else if (strcmp(end, "us") == 0)
        mult = 1e3;
    else if (strcmp(end, "ms") == 0)
        mult = 1e6;
    else if (strcmp(end, "s") == 0 || *end == '\0')
        mult = 1e9;
    else
        return -1;
    v *= mult;
    if (v > 86400e9)                    /* a day is plenty */
        return -1;
    *ns = (uint64_t)(v + 0.5);
    return 0;
}

static int mh_parse_prob(const char *s, double *p)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= 0 && v <= 1))
        return -1;
    *p = v;
    return 0;
}

/* service=fixed:D | uniform:A:B | lognormal:MEDIAN:SIGMA | none */
static int mh_parse_service(char *v, mh_config *c)
{
    char *a = strchr(v, ':'), *b = NULL;
    if (strcmp(v, "none") == 0) {
        c->svc = MH_SVC_NONE;
        return 0;
    }
    if (!a)
        return -1;
    *a++ = '\0';
    if ((b = strchr(a, ':')) != NULL)
        *b++ = '\0';
    if (strcmp(v, "fixed") == 0 && !b) {
        c->svc = MH_SVC_FIXED;
        return mh_parse_duration(a, &c->svc_a);
    }
    if (strcmp(v, "uniform") == 0 && b) {
        c->svc = MH_SVC_UNIFORM;
        if (mh_parse_duration(a, &c->svc_a) || mh_parse_duration(b, &c->svc_b))
            return -1;
        return c->svc_a <= c->svc_b ? 0 : -1;
    }
    if (strcmp(v, "lognormal") == 0 && b) {
        char *end;
        c->svc = MH_SVC_LOGNORMAL;
        if (mh_parse_duration(a, &c->svc_a) || c->svc_a == 0)
            return -1;
        errno = 0;
        c->sigma = strtod(b, &end);
        return (errno || end == b || *end || !(c->sigma >= 0 && c->sigma <= 10)) ? -1 : 0;
    }
    return -1;
}

/* fail=CKR_NAME:P,CKR_NAME:P,... (a code may also be a number) */
static int mh_parse_fail(char *v, mh_config *c, const char **why)
{
    double sum = 0;
    c->nfail = 0;
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        item = mh_trim(item);
        char *colon = strrchr(item, ':');
        if (!colon) {
            *why = "expected CKR_NAME:PROBABILITY";
            return -1;
        }
        *colon = '\0';
        char *name = mh_trim(item), *prob = mh_trim(colon + 1);
        CK_RV rv = 0;
        int found = 0;
        for (size_t i = 0; i < sizeof mh_rv_names / sizeof mh_rv_names[0]; i++)
            if (strcmp(name, mh_rv_names[i].name) == 0) {
                rv = mh_rv_names[i].rv;
                found = 1;
            }
        uint64_t num;
        if (!found && mh_parse_u64(name, &num) == 0 && num != 0) {
            rv = (CK_RV)num;
            found = 1;
        }
        if (!found) {
            *why = "unknown return code";
            return -1;
        }
        if (c->nfail == MH_MAX_FAIL) {
            *why = "too many codes";
            return -1;
        }
        if (mh_parse_prob(prob, &c->fail[c->nfail].p)) {
            *why = "a probability is a number from 0 to 1";
            return -1;
        }
        c->fail[c->nfail].rv = rv;
        sum += c->fail[c->nfail].p;
        c->nfail++;
    }
    if (sum > 1.0 + 1e-9) {
        *why = "the probabilities add up to more than 1";
        return -1;
    }
    return 0;
}

static int mh_parse_mechanisms(char *v, mh_config *c, const char **why)
{
    memset(c->mech_on, 0, sizeof c->mech_on);
    c->mech_filter = 1;
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int i = mh_mech_index_by_name(mh_trim(item));
        if (i < 0) {
            *why = "unknown mechanism, or one the mock does not implement";
            return -1;
        }
        c->mech_on[i] = 1;
    }
    return 0;
}

/* unlisted=CKM_NAME[,...]: as NSS's key slot does with its digests */
static int mh_parse_unlisted(char *v, mh_config *c, const char **why)
{
    memset(c->mech_unlisted, 0, sizeof c->mech_unlisted);
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int i = mh_mech_index_by_name(mh_trim(item));
        if (i < 0) {
            *why = "unknown mechanism, or one the mock does not implement";
            return -1;
        }
        c->mech_unlisted[i] = 1;
    }
    return 0;
}

/* keys=LABEL:rsa:BITS|LABEL:ec:CURVE|LABEL:aes:BITS|LABEL:generic:BITS[,...] */
static int mh_parse_keys(char *v, mh_config *c, const char **why)
{
    static const char *const curves[] = { "P-256", "P-384", "P-521" };
    *why = "expected LABEL:rsa:BITS, LABEL:ec:P-256|P-384|P-521, LABEL:aes:128|192|256 or "
           "LABEL:generic:BITS, at most 8, separated by commas";
    c->nkeys = 0;
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *type = strchr(item, ':'), *size = type ? strchr(type + 1, ':') : NULL;
        if (!size || c->nkeys == MH_MAX_KEYS || type == item || (size_t)(type - item) >= 64)
            return -1;
        *type++ = '\0';
        *size++ = '\0';
        mh_keydef *k = &c->keys[c->nkeys];
        memset(k, 0, sizeof *k);
        memcpy(k->label, item, strlen(item) + 1);
        uint64_t n = 0;
        if (strcmp(type, "ec") == 0) {
            k->kind = 'e';
            k->curve = -1;
            for (int i = 0; i < 3; i++)
                if (strcmp(size, curves[i]) == 0)
                    k->curve = i;
            if (k->curve < 0)
                return -1;
        } else if (mh_parse_u64(size, &n) != 0) {
            return -1;
        } else if (strcmp(type, "rsa") == 0) {
            if (n < MH_RSA_MIN || n > MH_RSA_MAX)
                return -1;
            k->kind = 'r';
        } else if (strcmp(type, "aes") == 0) {
            if (n != 128 && n != 192 && n != 256)
                return -1;
            k->kind = 'a';
        } else if (strcmp(type, "generic") == 0) {
            if (n < 8 || n > 4096 || n % 8)
                return -1;
            k->kind = 'g';
        } else {
            return -1;
        }
        k->bits = (CK_ULONG)n;
        c->nkeys++;
    }
    return 0;
}

/* quirks= names, as hsmbench-mock(7) lists them. */
static const struct { const char *name; unsigned bit; } mh_quirk_names[] = {
    { "short-size-query", MH_Q_SHORT_QUERY },   { "long-size-query", MH_Q_LONG_QUERY },
    { "truncate", MH_Q_TRUNCATE },              { "token-objects-only", MH_Q_TOKEN_ONLY },
    { "no-import", MH_Q_NO_IMPORT },            { "capacity-length", MH_Q_CAPACITY },
    { "sticky-failure", MH_Q_STICKY },          { "destroy-fails-once", MH_Q_DESTROY_ONCE },
    { "destroy-fails", MH_Q_DESTROY_FAIL },     { "no-cancel", MH_Q_NO_CANCEL },
    { "cant-lock", MH_Q_CANT_LOCK },            { "no-keygen", MH_Q_NO_KEYGEN },
    { "hide-imported", MH_Q_HIDE_IMPORTED },
    { "none", 0 },
};

static int mh_parse_quirks(char *v, mh_config *c)
{
    c->quirks = 0;
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        size_t i = 0, n = sizeof mh_quirk_names / sizeof mh_quirk_names[0];
        item = mh_trim(item);
        while (i < n && strcmp(item, mh_quirk_names[i].name) != 0)
            i++;
        if (i == n)
            return -1;
        c->quirks |= mh_quirk_names[i].bit;
    }
    return 0;
}

static int mh_parse_bool(const char *v, int *out)
{
    if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "on") == 0 ||
        strcmp(v, "true") == 0)
        *out = 1;
    else if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0 ||
             strcmp(v, "false") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* hang=FN[,FN...][@T]: from T after C_Initialize (0: at once), a call of
 * these functions never returns (a module, or its server, gone mid-call). */
#define MH_HANG_DESTROY (1u << MH_OP_COUNT)
#define MH_HANG_KEYGEN  (1u << (MH_OP_COUNT + 1))   /* C_GenerateKey: made, then no answer */
#define MH_HANG_KEYPAIR (1u << (MH_OP_COUNT + 2))   /* C_GenerateKeyPair: the same */

static int mh_parse_hang(char *v, mh_config *c, const char **why)
{
    *why = "expected FN[,FN...][@T]: C_Sign, C_Verify, C_Encrypt, C_Decrypt, C_Digest, "
           "C_DestroyObject, C_GenerateKey or C_GenerateKeyPair, from T after C_Initialize";
    char *at = strchr(v, '@');
    c->hang_calls = 0;
    c->hang_at = 0;
    if (at) {
        *at = '\0';
        if (mh_parse_duration(mh_trim(at + 1), &c->hang_at))
            return -1;
    }
    for (char *save = NULL, *item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        item = mh_trim(item);
        unsigned k = 0;
        while (k < MH_OP_COUNT && strcmp(item, mh_op_fn[k]) != 0)
            k++;
        if (k == MH_OP_COUNT && strcmp(item, "C_GenerateKey") == 0)
            k = MH_OP_COUNT + 1;
        else if (k == MH_OP_COUNT && strcmp(item, "C_GenerateKeyPair") == 0)
            k = MH_OP_COUNT + 2;
        else if (k == MH_OP_COUNT && strcmp(item, "C_DestroyObject") != 0)
            return -1;
        c->hang_calls |= 1u << k;     /* k == MH_OP_COUNT: MH_HANG_DESTROY */
    }
    return c->hang_calls ? 0 : -1;
}

/* One key=value into c; -1 with *why set when the key or value is bad. */
static int mh_config_item(mh_config *c, const char *key, char *v, const char **why)
{
    uint64_t n;
    *why = "bad value";
    if (strcmp(key, "service") == 0) {
        *why = "expected fixed:D, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA";
        return mh_parse_service(v, c);
    }
    if (strcmp(key, "cores") == 0) {
        *why = "expected a number of cores (0: unlimited)";
        if (mh_parse_u64(v, &n) || n > 100000)
            return -1;
        c->cores = (unsigned)n;
        return 0;
    }
    if (strcmp(key, "stall") == 0) {
        char *slash = strchr(v, '/');
        *why = "expected D/P (a pause of D every P, D < P)";
        if (!slash)
            return -1;
        *slash = '\0';
        if (mh_parse_duration(v, &c->stall_d) || mh_parse_duration(slash + 1, &c->stall_p))
            return -1;
        return (c->stall_p > 0 && c->stall_d < c->stall_p) ? 0 : -1;
    }
    if (strcmp(key, "stall-at") == 0) {
        char *colon = strchr(v, ':');
        *why = "expected T:D (a stall from T to T+D after C_Initialize)";
        if (!colon)
            return -1;
        *colon = '\0';
        return (mh_parse_duration(v, &c->stall_at_t) || mh_parse_duration(colon + 1, &c->stall_at_d))
                   ? -1 : 0;
    }
    if (strcmp(key, "spike") == 0) {
        char *colon = strchr(v, ':'), *end;
        *why = "expected P:D (each operation, with probability P from 0 to 1, D longer)";
        if (!colon)
            return -1;
        *colon = '\0';
        errno = 0;
        c->spike_p = strtod(mh_trim(v), &end);
        if (errno || end == v || *end || !(c->spike_p >= 0 && c->spike_p <= 1))
            return -1;
        return mh_parse_duration(mh_trim(colon + 1), &c->spike_d) ? -1 : 0;
    }
    if (strcmp(key, "drift") == 0) {
        char *colon = strchr(v, ':'), *end;
        *why = "expected PCT:T (the service time PCT longer every T, e.g. +50%:10s)";
        if (!colon)
            return -1;
        *colon = '\0';
        char *pct = mh_trim(v);
        errno = 0;
        c->drift = strtod(pct, &end) / 100.0;
        if (end != pct && *end == '%')
            end++;
        if (errno || end == pct || *end || !(c->drift >= 0 && c->drift <= 100))
            return -1;
        return mh_parse_duration(mh_trim(colon + 1), &c->drift_every) || !c->drift_every ? -1 : 0;
    }
    if (strcmp(key, "fail") == 0)
        return mh_parse_fail(v, c, why);
    if (strcmp(key, "seed") == 0) {
        *why = "expected a number";
        return mh_parse_u64(v, &c->seed);
    }
    if (strcmp(key, "mechanisms") == 0)
        return mh_parse_mechanisms(v, c, why);
    if (strcmp(key, "unlisted") == 0)
        return mh_parse_unlisted(v, c, why);
    if (strcmp(key, "max-rsa") == 0) {
        *why = "expected RSA modulus bits from 512 to 16384";
        if (mh_parse_u64(v, &n) || n < MH_RSA_MIN || n > MH_RSA_MAX)
            return -1;
        c->max_rsa = (CK_ULONG)n;
        return 0;
    }
    if (strcmp(key, "login") == 0) {
        *why = "expected required or none";
        if (strcmp(v, "required") == 0)
            c->login_required = 1;
        else if (strcmp(v, "none") == 0 || strcmp(v, "optional") == 0)
            c->login_required = 0;
        else
            return -1;
        return 0;
    }
    if (strcmp(key, "pin") == 0) {
        *why = "expected a PIN of 1 to 64 characters";
        size_t len = strlen(v);
        if (len < 1 || len > MH_MAX_PIN)
            return -1;
        memcpy(c->pin, v, len + 1);
        c->has_pin = 1;
        return 0;
    }
    if (strcmp(key, "async") == 0) {
        *why = "expected 0 or 1";
        return mh_parse_bool(v, &c->async);
    }
    if (strcmp(key, "quirks") == 0) {
        *why = "expected short-size-query, long-size-query, truncate, token-objects-only, "
               "no-import, capacity-length, sticky-failure, destroy-fails-once, destroy-fails, "
               "no-cancel, cant-lock, no-keygen, hide-imported";
        return mh_parse_quirks(v, c);
    }
    if (strcmp(key, "wrap-pad") == 0) {
        *why = "expected rfc5649 or pkcs7";
        if (strcmp(v, "rfc5649") == 0)
            c->wrap_pkcs7 = 0;
        else if (strcmp(v, "pkcs7") == 0)
            c->wrap_pkcs7 = 1;
        else
            return -1;
        return 0;
    }
    if (strcmp(key, "lost-at") == 0) {
        *why = "expected a time after C_Initialize (more than 0)";
        return mh_parse_duration(v, &c->lost_at) || c->lost_at == 0 ? -1 : 0;
    }
    if (strcmp(key, "hang") == 0)
        return mh_parse_hang(v, c, why);
    if (strcmp(key, "sigpipe") == 0) {
        *why = "expected the number of the call that writes to a broken pipe (1 or more)";
        return mh_parse_u64(v, &c->sigpipe_at) || c->sigpipe_at == 0 ? -1 : 0;
    }
    if (strcmp(key, "slots") == 0) {
        *why = "expected a number of tokens from 1 to 16";
        if (mh_parse_u64(v, &n) || n < 1 || n > MH_MAX_SLOTS)
            return -1;
        c->slots = (unsigned)n;
        return 0;
    }
    if (strcmp(key, "keys") == 0)
        return mh_parse_keys(v, c, why);
    if (strcmp(key, "objects-file") == 0) {
        size_t len = strlen(v);
        *why = "expected a file name of 1 to 255 characters";
        if (len < 1 || len >= sizeof c->objects_file)
            return -1;
        memcpy(c->objects_file, v, len + 1);
        return 0;
    }
    *why = "unknown key";
    return -1;
}

/* Apply "key=value;key=value" from `src` (named `origin` in messages) to c.
 * On error, prints the one line and returns -1. */
static int mh_config_apply(mh_config *c, const char *src, const char *origin)
{
    char *copy = strdup(src);
    int rc = 0;
    if (!copy) {
        fprintf(stderr, "hsmbench-mock: bad configuration: out of memory\n");
        return -1;
    }
    for (char *save = NULL, *item = strtok_r(copy, ";", &save); item;
         item = strtok_r(NULL, ";", &save)) {
        item = mh_trim(item);
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        const char *why = "expected key=value";
        char shown[160];
        snprintf(shown, sizeof shown, "%s", item);
        if (eq) {
            *eq = '\0';
            char *key = mh_trim(item), *val = mh_trim(eq + 1);
            if (mh_config_item(c, key, val, &why) == 0)
                continue;
        }
        fprintf(stderr, "hsmbench-mock: bad configuration: %s: '%s': %s\n", origin, shown, why);
        rc = -1;
        break;
    }
    free(copy);
    return rc;
}

/* The configuration for C_Initialize: HSMBENCH_MOCK, then pReserved. */
static int mh_config_load(mh_config *c, const char *reserved)
{
    const char *env = getenv("HSMBENCH_MOCK");
    mh_config_default(c);
    if (env && mh_config_apply(c, env, "HSMBENCH_MOCK") != 0)
        return -1;
    if (reserved && mh_config_apply(c, reserved, "pReserved") != 0)
        return -1;
    return 0;
}

/* ---- time, delays, cores, stalls ------------------------------------------ */

static atomic_int    g_init;            /* C_Initialize done (release/acquire) */
static atomic_int    g_preloading;      /* C_Initialize makes the keys= keys: no delays, faults, filters */
static pthread_mutex_t g_life_mu = PTHREAD_MUTEX_INITIALIZER;   /* C_Initialize/C_Finalize */
static mh_config     g_cfg;             /* written by C_Initialize only */
static uint64_t      g_t0;              /* CLOCK_MONOTONIC at C_Initialize, ns */
static int           g_timing;          /* any service time, cores or stalls at all */
static atomic_uint   g_epoch;           /* bumped by C_Initialize: thread PRNGs reseed */
static atomic_ulong  g_thread_ctr;      /* threads that drew numbers since C_Initialize */
static atomic_ulong  g_served;          /* blocking calls in service since C_Initialize (sigpipe=) */
static pthread_mutex_t g_core_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t     *g_core_free;       /* per core: when it is next free (ns) */

#define MH_REQUIRE_INIT() \
    do { \
        if (!atomic_load_explicit(&g_init, memory_order_acquire)) \
            return CKR_CRYPTOKI_NOT_INITIALIZED; \
        if (mh_lost()) \
            return CKR_DEVICE_ERROR; \
    } while (0)

static uint64_t mh_now(void);

/* lost-at=T: from T on, the device is gone and every call but C_Finalize fails. */
static int mh_lost(void)
{
    return g_cfg.lost_at && mh_now() - g_t0 >= g_cfg.lost_at;
}

/* hang=FN@T: a call of FN (bit: 1 << its mh_opkind, or MH_HANG_DESTROY)
 * from T on never returns; it holds no lock while it waits. */
static void mh_hang(unsigned bit)
{
    if (!(g_cfg.hang_calls & bit) || mh_now() - g_t0 < g_cfg.hang_at)
        return;
    for (;;) {
        const struct timespec hour = { 3600, 0 };
        (void)nanosleep(&hour, NULL);     /* EINTR: asleep again */
    }
}

static uint64_t mh_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void mh_sleep_until(uint64_t t)
{
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Per-thread xorshift64*, seeded from seed= mixed with a thread counter.
 * Initial-exec TLS: the module is dlopen'ed and dlclose'd, and dynamic TLS
 * of an unloaded module leaves a stale block in each thread's DTV, which
 * LeakSanitizer's exit scan reads and crashes on ("Tracer caught signal
 * 11"; test_views' mix run under ASan).  Twelve bytes fit in glibc's static
 * TLS surplus kept for dlopen'ed libraries. */
#define MH_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static MH_TLS uint64_t tl_rng;
static MH_TLS unsigned tl_rng_epoch;

static uint64_t mh_splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static uint64_t mh_rand(void)
{
    unsigned e = atomic_load_explicit(&g_epoch, memory_order_relaxed);
    if (tl_rng_epoch != e || tl_rng == 0) {
        uint64_t k = atomic_fetch_add_explicit(&g_thread_ctr, 1, memory_order_relaxed) + 1;
        tl_rng = mh_splitmix(g_cfg.seed ^ mh_splitmix(k));
        if (tl_rng == 0)
            tl_rng = 1;
        tl_rng_epoch = e;
    }
    uint64_t x = tl_rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    tl_rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double mh_uniform(void)          /* [0, 1) */
{
    return (double)(mh_rand() >> 11) * 0x1.0p-53;
}

/* One operation's service time from its distribution. */
static uint64_t mh_base_service_ns(void)
{
    switch (g_cfg.svc) {
    case MH_SVC_FIXED:
        return g_cfg.svc_a;
    case MH_SVC_UNIFORM:
        return g_cfg.svc_a + (uint64_t)((double)(g_cfg.svc_b - g_cfg.svc_a) * mh_uniform());
    case MH_SVC_LOGNORMAL: {
        double u1 = mh_uniform(), u2 = mh_uniform();
        if (u1 < 1e-300)
            u1 = 1e-300;
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
        double v = (double)g_cfg.svc_a * exp(g_cfg.sigma * z);
        return v > 3600e9 ? (uint64_t)3600e9 : (uint64_t)v;
    }
    case MH_SVC_NONE:
        break;
    }
    return 0;
}

/* One operation's service time: its distribution's, and now and then a
 * spike (spike=P:D) that holds its core D longer. */
static uint64_t mh_service_ns(void)
{
    uint64_t t = mh_base_service_ns();
    if (g_cfg.drift_every && g_cfg.drift > 0) {
        /* drift=PCT:T: linearly longer, PCT of itself every T. */
        const double f = 1.0 + g_cfg.drift * (double)(mh_now() - g_t0) / (double)g_cfg.drift_every;
        t = (uint64_t)((double)t * f);
    }
    if (g_cfg.spike_d && g_cfg.spike_p > 0 && mh_uniform() < g_cfg.spike_p)
        t += g_cfg.spike_d;
    return t;
}

/* The first moment at or after t that is outside every stall window:
 * periodic windows [k*P + P - D, (k+1)*P) and the one-off [T, T+D), all
 * counted from C_Initialize. */
static uint64_t mh_after_stalls(uint64_t t)
{
    for (int round = 0; round < 8; round++) {
        uint64_t rel = t > g_t0 ? t - g_t0 : 0;
        int moved = 0;
        if (g_cfg.stall_p && g_cfg.stall_d) {
            uint64_t off = rel % g_cfg.stall_p;
            if (off >= g_cfg.stall_p - g_cfg.stall_d) {
                rel += g_cfg.stall_p - off;
                moved = 1;
            }
        }
        if (g_cfg.stall_at_d && rel >= g_cfg.stall_at_t && rel < g_cfg.stall_at_t + g_cfg.stall_at_d) {
            rel = g_cfg.stall_at_t + g_cfg.stall_at_d;
            moved = 1;
        }
        if (!moved)
            break;
        t = g_t0 + rel;
    }
    return t;
}

/*
 * Reserve service for one operation arriving at `now` and return the time
 * it completes.  With cores=N the operation takes the core that frees
 * first (first come, first served): it starts when that core is free and
 * no stall is on, and holds the core for its service time.  The same
 * reservation serves a blocking call (which sleeps until the returned time;
 * it waits for its core inside the module) and an asynchronous one (whose
 * due time is known at submission).  The lock is held only to pick the core.
 */
static uint64_t mh_schedule(uint64_t now)
{
    uint64_t svc = mh_service_ns();
    if (!g_cfg.cores || !g_core_free)
        return mh_after_stalls(now) + svc;
    pthread_mutex_lock(&g_core_mu);
    unsigned best = 0;
    for (unsigned i = 1; i < g_cfg.cores; i++)
        if (g_core_free[i] < g_core_free[best])
            best = i;
    uint64_t start = g_core_free[best] > now ? g_core_free[best] : now;
    start = mh_after_stalls(start);
    uint64_t due = start + svc;
    g_core_free[best] = due;
    pthread_mutex_unlock(&g_core_mu);
    return due;
}

/* A blocking call's time in the module: its core, any stall, its service. */
static void mh_serve(void)
{
    if (g_timing)
        mh_sleep_until(mh_schedule(mh_now()));
}

/* An injected failure for one operation-finishing call, or CKR_OK. */
static CK_RV mh_injected(void)
{
    if (!g_cfg.nfail)
        return CKR_OK;
    double u = mh_uniform(), acc = 0;
    for (int i = 0; i < g_cfg.nfail; i++) {
        acc += g_cfg.fail[i].p;
        if (u < acc)
            return g_cfg.fail[i].rv;
    }
    return CKR_OK;
}

/*
 * sigpipe=N: the Nth blocking call in service since C_Initialize (an
 * operation-finishing call, C_FindObjects, a key generation, wrap, unwrap,
 * derive or random-number call: those mh_serve serves) writes to a pipe whose reader is gone, as Caml Crush's client library
 * writes to the socket of a server worker that died: the kernel raises a
 * real SIGPIPE in the calling thread (the caller's disposition decides what
 * it does: ignored, the write fails with EPIPE), and the call fails with
 * CKR_DEVICE_ERROR.  Other calls are not touched.
 */
static CK_RV mh_broken_pipe(void)
{
    if (!g_cfg.sigpipe_at || atomic_fetch_add(&g_served, 1) + 1 != g_cfg.sigpipe_at)
        return CKR_OK;
    int fd[2];
    if (pipe(fd) != 0)
        return CKR_DEVICE_ERROR;
    (void)close(fd[0]);                     /* nobody will read */
    const ssize_t w = write(fd[1], "", 1);  /* SIGPIPE, then EPIPE */
    (void)close(fd[1]);
    return w < 0 ? CKR_DEVICE_ERROR : CKR_GENERAL_ERROR;   /* a write that got through: no broken pipe */
}

/* ---- sessions --------------------------------------------------------------- */

typedef struct mh_mech mh_mech;

typedef struct mh_op {
    int            active;
    int            busy;        /* a call of this operation is in service */
    unsigned       seq;         /* bumped by every Init and cancel */
    const mh_mech *m;
    CK_ULONG       key_len;     /* RSA modulus bytes, EC field bytes, secret bytes */
    CK_ULONG       hlen;        /* OAEP / PSS hash length */
    CK_ULONG       tag;         /* GCM tag bytes */
    CK_ULONG       acc;         /* input bytes taken so far */
    CK_ULONG       buffered;    /* bytes of an incomplete block held back */
    int            multi;       /* an Update was made */
    unsigned char  head[8];     /* the first input bytes (AES key wrap with padding) */
    unsigned char  tail[4];     /* the last input bytes (RSA and CBC-PAD lengths) */
} mh_op;

/* A one-shot call that returned CKR_PENDING in an asynchronous session. */
typedef struct mh_pending {
    int         active;
    uint64_t    due;            /* CLOCK_MONOTONIC ns */
    CK_RV       rv;             /* what C_AsyncComplete returns when due */
    CK_BYTE_PTR buf;            /* the caller's output buffer */
    CK_ULONG    len;            /* the result's length */
    mh_op       op;             /* the operation, to write the result */
} mh_pending;

typedef struct mh_session {
    pthread_mutex_t   mu;
    CK_SESSION_HANDLE handle;   /* 0: closed */
    unsigned          gen;      /* reuses of this table entry */
    unsigned          slot;     /* its token: 0 .. slots-1 (slot ID MH_SLOT + slot) */
    CK_FLAGS          flags;
    mh_op             op[MH_OP_COUNT];
    mh_pending        pending[MH_OP_COUNT];
    int               finding;
    CK_OBJECT_HANDLE *found;
    CK_ULONG          nfound, found_pos;
} mh_session;

static pthread_mutex_t g_sess_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(mh_session *) g_sess[MH_MAX_SESSIONS];
static unsigned  g_free[MH_MAX_SESSIONS];     /* free table entries (a stack) */
static unsigned  g_nfree;
/* Per token (index 0 .. slots-1): its sessions, read-write ones, and who
 * is logged in to it (PKCS#11 logs in an application per token). */
static CK_ULONG  g_nsessions[MH_MAX_SLOTS], g_nrw[MH_MAX_SLOTS];   /* under g_sess_mu */
enum { MH_NOBODY, MH_USER, MH_SO };
static atomic_int g_login[MH_MAX_SLOTS];      /* written under g_sess_mu */

static void mh_sessions_reset(void)
{
    g_nfree = 0;
    for (unsigned i = MH_MAX_SESSIONS; i-- > 0;)
        g_free[g_nfree++] = i;
    for (unsigned k = 0; k < MH_MAX_SLOTS; k++) {
        g_nsessions[k] = g_nrw[k] = 0;
        atomic_store(&g_login[k], MH_NOBODY);
    }
}

/* A slot ID's token index, or -1 when there is no such slot. */
static int mh_slot_index(CK_SLOT_ID id)
{
    return id >= MH_SLOT && id - MH_SLOT < g_cfg.slots ? (int)(id - MH_SLOT) : -1;
}

/* The session with handle h, locked; NULL when there is none. */
static mh_session *mh_session_get(CK_SESSION_HANDLE h)
{
    if (h == CK_INVALID_HANDLE)
        return NULL;
    mh_session *s = atomic_load_explicit(&g_sess[(h - 1) % MH_MAX_SESSIONS], memory_order_acquire);
    if (!s)
        return NULL;
    pthread_mutex_lock(&s->mu);
    if (s->handle != h) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    return s;
}

#define MH_SESSION(s, h) \
    mh_session *s = mh_session_get(h); \
    if (!s) \
        return CKR_SESSION_HANDLE_INVALID

static void mh_session_unlock(mh_session *s)
{
    pthread_mutex_unlock(&s->mu);
}

/* Is h an open session?  Its flags in *flags. */
static CK_RV mh_session_check(CK_SESSION_HANDLE h, CK_FLAGS *flags)
{
    MH_SESSION(s, h);
    if (flags)
        *flags = s->flags;
    mh_session_unlock(s);
    return CKR_OK;
}

/* The token index of session h (0 when h is not open: its call fails anyway). */
static unsigned mh_session_slot(CK_SESSION_HANDLE h)
{
    mh_session *s = mh_session_get(h);
    if (!s)
        return 0;
    unsigned slot = s->slot;
    mh_session_unlock(s);
    return slot;
}

/* End an operation (done, failed or cancelled): a call still in service sees the seq change. */
static void mh_op_end(mh_op *op)
{
    unsigned seq = op->seq + 1;
    memset(op, 0, sizeof *op);
    op->seq = seq;
}

static void mh_find_end(mh_session *s)
{
    free(s->found);
    s->found = NULL;
    s->nfound = s->found_pos = 0;
    s->finding = 0;
}

static CK_RV mh_session_open(unsigned slot, CK_FLAGS flags, CK_SESSION_HANDLE *out)
{
    pthread_mutex_lock(&g_sess_mu);
    if (!(flags & CKF_RW_SESSION) && atomic_load(&g_login[slot]) == MH_SO) {
        pthread_mutex_unlock(&g_sess_mu);
        return CKR_SESSION_READ_WRITE_SO_EXISTS;
    }
    if (g_nfree == 0) {
        pthread_mutex_unlock(&g_sess_mu);
        return CKR_SESSION_COUNT;
    }
    unsigned idx = g_free[--g_nfree];
    mh_session *s = atomic_load_explicit(&g_sess[idx], memory_order_relaxed);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || pthread_mutex_init(&s->mu, NULL) != 0) {
            free(s);
            g_nfree++;
            pthread_mutex_unlock(&g_sess_mu);
            return CKR_HOST_MEMORY;
        }
        atomic_store_explicit(&g_sess[idx], s, memory_order_release);
    }
    pthread_mutex_lock(&s->mu);
    for (int k = 0; k < MH_OP_COUNT; k++) {
        mh_op_end(&s->op[k]);
        memset(&s->pending[k], 0, sizeof s->pending[k]);
    }
    mh_find_end(s);
    s->gen++;
    s->flags = flags;
    s->slot = slot;
    s->handle = (CK_SESSION_HANDLE)idx + 1 + (CK_SESSION_HANDLE)s->gen * MH_MAX_SESSIONS;
    *out = s->handle;
    pthread_mutex_unlock(&s->mu);
    g_nsessions[slot]++;
    if (flags & CKF_RW_SESSION)
        g_nrw[slot]++;
    pthread_mutex_unlock(&g_sess_mu);
    return CKR_OK;
}

static void mh_objects_drop_session(CK_SESSION_HANDLE h);

/* Close one session: its operations end, its session objects go, and the
 * last session to close logs the token out. */
static CK_RV mh_session_close(CK_SESSION_HANDLE h)
{
    pthread_mutex_lock(&g_sess_mu);
    mh_session *s = mh_session_get(h);
    if (!s) {
        pthread_mutex_unlock(&g_sess_mu);
        return CKR_SESSION_HANDLE_INVALID;
    }
    int rw = (s->flags & CKF_RW_SESSION) != 0;
    const unsigned slot = s->slot;
    for (int k = 0; k < MH_OP_COUNT; k++) {
        mh_op_end(&s->op[k]);
        memset(&s->pending[k], 0, sizeof s->pending[k]);   /* pending calls are cancelled */
    }
    mh_find_end(s);
    s->handle = CK_INVALID_HANDLE;
    mh_session_unlock(s);
    g_free[g_nfree++] = (unsigned)((h - 1) % MH_MAX_SESSIONS);
    g_nsessions[slot]--;
    if (rw)
        g_nrw[slot]--;
    if (g_nsessions[slot] == 0)
        atomic_store(&g_login[slot], MH_NOBODY);
    pthread_mutex_unlock(&g_sess_mu);
    mh_objects_drop_session(h);
    return CKR_OK;
}

/* Every open session's handle on token `slot` (for C_CloseAllSessions). */
static CK_ULONG mh_session_handles(unsigned slot, CK_SESSION_HANDLE *out)
{
    CK_ULONG n = 0;
    pthread_mutex_lock(&g_sess_mu);
    for (unsigned i = 0; i < MH_MAX_SESSIONS; i++) {
        mh_session *s = atomic_load_explicit(&g_sess[i], memory_order_relaxed);
        if (!s)
            continue;
        pthread_mutex_lock(&s->mu);
        if (s->handle && s->slot == slot)
            out[n++] = s->handle;
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&g_sess_mu);
    return n;
}

/* C_Finalize: free every table entry (no session may be in use any more). */
static void mh_sessions_free(void)
{
    for (unsigned i = 0; i < MH_MAX_SESSIONS; i++) {
        mh_session *s = atomic_exchange(&g_sess[i], NULL);
        if (s) {
            free(s->found);
            pthread_mutex_destroy(&s->mu);
            free(s);
        }
    }
}

/* ---- objects ---------------------------------------------------------------- */

typedef struct mh_attr {
    CK_ATTRIBUTE_TYPE type;
    CK_ULONG          len;
    unsigned char    *val;
} mh_attr;

typedef struct mh_object {
    CK_OBJECT_HANDLE  handle;
    CK_SESSION_HANDLE owner;    /* the session of a session object; 0: a token object */
    unsigned          slot;     /* the token it is on (index); no other token sees it */
    mh_attr          *a;
    CK_ULONG          n, cap;
    /* derived from the attributes by mh_obj_refresh */
    CK_OBJECT_CLASS   cls;
    CK_KEY_TYPE       kt;
    CK_ULONG          key_len;  /* RSA modulus bytes, EC field bytes, secret value bytes */
    int               priv;     /* CKA_PRIVATE */
    int               destroy_tried;   /* quirks=destroy-fails-once: the first attempt failed */
    int               imported; /* made by C_CreateObject (quirks=hide-imported) */
    struct mh_object *next;     /* objects being freed together */
} mh_object;

/* Handles: the table index + 1 in the low bits, the entry's reuse count above. */
#define MH_OBJ_BITS 22
#define MH_OBJ_MASK ((1UL << MH_OBJ_BITS) - 1)

typedef struct mh_oslot {
    mh_object *o;
    CK_ULONG   gen;
    size_t     next_free;
} mh_oslot;

#define MH_NONE ((size_t)-1)

static pthread_mutex_t g_obj_mu = PTHREAD_MUTEX_INITIALIZER;
static mh_oslot *g_objs;
static size_t    g_objs_cap, g_objs_used, g_objs_free = MH_NONE;

/* Named curves: DER of CKA_EC_PARAMS, field bytes. */
static const unsigned char mh_oid_p256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const unsigned char mh_oid_p384[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
static const unsigned char mh_oid_p521[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };
static const unsigned char mh_oid_ed25519[] = { 0x06, 0x03, 0x2b, 0x65, 0x70 };
static const unsigned char mh_str_ed25519[] = { 0x13, 0x0c, 'e', 'd', 'w', 'a', 'r', 'd', 's',
                                                '2', '5', '5', '1', '9' };
static const struct {
    const unsigned char *der;
    size_t   len;
    CK_ULONG field;
    int      edwards;
} mh_curves[] = {
    { mh_oid_p256, sizeof mh_oid_p256, 32, 0 },
    { mh_oid_p384, sizeof mh_oid_p384, 48, 0 },
    { mh_oid_p521, sizeof mh_oid_p521, 66, 0 },
    { mh_oid_ed25519, sizeof mh_oid_ed25519, 32, 1 },
    { mh_str_ed25519, sizeof mh_str_ed25519, 32, 1 },
};

/* Field bytes of the curve CKA_EC_PARAMS names (0: unknown). */
static CK_ULONG mh_curve_field(const unsigned char *der, CK_ULONG len, int edwards)
{
    for (size_t i = 0; i < sizeof mh_curves / sizeof mh_curves[0]; i++)
        if (mh_curves[i].edwards == edwards && mh_curves[i].len == len && der &&
            memcmp(mh_curves[i].der, der, len) == 0)
            return mh_curves[i].field;
    return 0;
}

static mh_attr *mh_obj_attr(const mh_object *o, CK_ATTRIBUTE_TYPE type)
{
    for (CK_ULONG i = 0; i < o->n; i++)
        if (o->a[i].type == type)
            return &o->a[i];
    return NULL;
}

static CK_RV mh_obj_set(mh_object *o, CK_ATTRIBUTE_TYPE type, const void *val, CK_ULONG len)
{
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy)
        return CKR_HOST_MEMORY;
    if (len)
        memcpy(copy, val, len);
    mh_attr *a = mh_obj_attr(o, type);
    if (!a) {
        if (o->n == o->cap) {
            CK_ULONG ncap = o->cap ? o->cap * 2 : 16;
            mh_attr *na = realloc(o->a, ncap * sizeof *na);
            if (!na) {
                free(copy);
                return CKR_HOST_MEMORY;
            }
            o->a = na;
            o->cap = ncap;
        }
        a = &o->a[o->n++];
        a->type = type;
    } else {
        free(a->val);
    }
    a->val = copy;
    a->len = len;
    return CKR_OK;
}

/* Set unless the template already did. */
static CK_RV mh_obj_default(mh_object *o, CK_ATTRIBUTE_TYPE type, const void *val, CK_ULONG len)
{
    return mh_obj_attr(o, type) ? CKR_OK : mh_obj_set(o, type, val, len);
}

static CK_RV mh_obj_set_bool(mh_object *o, CK_ATTRIBUTE_TYPE type, int v, int only_default)
{
    CK_BBOOL b = v ? CK_TRUE : CK_FALSE;
    return only_default ? mh_obj_default(o, type, &b, sizeof b) : mh_obj_set(o, type, &b, sizeof b);
}

static CK_RV mh_obj_set_ulong(mh_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG v)
{
    return mh_obj_set(o, type, &v, sizeof v);
}

static int mh_obj_bool(const mh_object *o, CK_ATTRIBUTE_TYPE type, int dflt)
{
    const mh_attr *a = mh_obj_attr(o, type);
    return a && a->len == sizeof(CK_BBOOL) ? a->val[0] != 0 : dflt;
}

static CK_ULONG mh_obj_ulong(const mh_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG dflt)
{
    const mh_attr *a = mh_obj_attr(o, type);
    CK_ULONG v;
    if (!a || a->len != sizeof v)
        return dflt;
    memcpy(&v, a->val, sizeof v);
    return v;
}

static void mh_obj_free(mh_object *o)
{
    if (!o)
        return;
    for (CK_ULONG i = 0; i < o->n; i++)
        free(o->a[i].val);
    free(o->a);
    free(o);
}

/* Recompute what the operations read from the attributes. */
static void mh_obj_refresh(mh_object *o)
{
    const mh_attr *a;
    o->cls = mh_obj_ulong(o, CKA_CLASS, CKO_DATA);
    o->kt = mh_obj_ulong(o, CKA_KEY_TYPE, (CK_ULONG)-1);
    o->priv = mh_obj_bool(o, CKA_PRIVATE, 0);
    o->key_len = 0;
    if (o->kt == CKK_RSA) {
        if ((a = mh_obj_attr(o, CKA_MODULUS)) != NULL) {
            CK_ULONG skip = 0;
            while (skip < a->len && a->val[skip] == 0)
                skip++;
            o->key_len = a->len - skip;
        } else {
            o->key_len = (mh_obj_ulong(o, CKA_MODULUS_BITS, 0) + 7) / 8;
        }
    } else if (o->kt == CKK_EC || o->kt == CKK_EC_EDWARDS) {
        a = mh_obj_attr(o, CKA_EC_PARAMS);
        o->key_len = a ? mh_curve_field(a->val, a->len, o->kt == CKK_EC_EDWARDS) : 0;
    } else if (o->cls == CKO_SECRET_KEY) {
        a = mh_obj_attr(o, CKA_VALUE);
        o->key_len = a ? a->len : mh_obj_ulong(o, CKA_VALUE_LEN, 0);
    }
}

/* Can the application see it now?  Private objects need a login when the
 * token requires one (login=required). */
static int mh_obj_visible(const mh_object *o)
{
    return !(o->priv && g_cfg.login_required && atomic_load(&g_login[o->slot]) == MH_NOBODY);
}

/* The object with handle h on token `slot` (caller holds g_obj_mu); NULL
 * when none, hidden, or on another token. */
static mh_object *mh_obj_get(unsigned slot, CK_OBJECT_HANDLE h)
{
    size_t idx = (size_t)(h & MH_OBJ_MASK);
    if (idx == 0 || idx > g_objs_used)
        return NULL;
    mh_oslot *sl = &g_objs[idx - 1];
    if (!sl->o || sl->gen != (h >> MH_OBJ_BITS) || sl->o->slot != slot || !mh_obj_visible(sl->o))
        return NULL;
    return sl->o;
}

/* Give o a handle and put it in the table (takes ownership, even on failure). */
static CK_RV mh_obj_insert(mh_object *o, CK_OBJECT_HANDLE *out)
{
    size_t idx;
    pthread_mutex_lock(&g_obj_mu);
    if (g_objs_free != MH_NONE) {
        idx = g_objs_free;
        g_objs_free = g_objs[idx].next_free;
    } else {
        if (g_objs_used == g_objs_cap) {
            size_t ncap = g_objs_cap ? g_objs_cap * 2 : 256;
            mh_oslot *n = ncap <= MH_MAX_OBJECTS ? realloc(g_objs, ncap * sizeof *n) : NULL;
            if (!n) {
                pthread_mutex_unlock(&g_obj_mu);
                mh_obj_free(o);
                return CKR_DEVICE_MEMORY;
            }
            g_objs = n;
            g_objs_cap = ncap;
        }
        idx = g_objs_used++;
        g_objs[idx].gen = 0;
    }
    g_objs[idx].gen++;
    g_objs[idx].o = o;
    o->handle = (CK_OBJECT_HANDLE)(idx + 1) | ((CK_OBJECT_HANDLE)g_objs[idx].gen << MH_OBJ_BITS);
    *out = o->handle;
    pthread_mutex_unlock(&g_obj_mu);
    return CKR_OK;
}

/* Take object idx out of the table (caller holds g_obj_mu); returns it. */
static mh_object *mh_obj_remove(size_t idx)
{
    mh_object *o = g_objs[idx].o;
    g_objs[idx].o = NULL;
    g_objs[idx].next_free = g_objs_free;
    g_objs_free = idx;
    return o;
}

/* Session objects vanish with their session. */
static void mh_objects_drop_session(CK_SESSION_HANDLE h)
{
    mh_object *gone = NULL;    /* freed outside the lock */
    pthread_mutex_lock(&g_obj_mu);
    for (size_t i = 0; i < g_objs_used; i++) {
        if (g_objs[i].o && g_objs[i].o->owner == h) {
            mh_object *o = mh_obj_remove(i);
            o->next = gone;
            gone = o;
        }
    }
    pthread_mutex_unlock(&g_obj_mu);
    while (gone) {
        mh_object *next = gone->next;
        mh_obj_free(gone);
        gone = next;
    }
}

/* objects-file=PATH: what is left at C_Finalize, for tests to count. */
static void mh_objects_report(const char *path)
{
    FILE *f = fopen(path, "w");
    size_t n = 0;
    if (!f)
        return;
    for (size_t i = 0; i < g_objs_used; i++)
        n += g_objs[i].o != NULL;
    fprintf(f, "objects %zu\n", n);
    for (unsigned k = 0; g_cfg.slots > 1 && k < g_cfg.slots; k++) {
        size_t nk = 0;
        for (size_t i = 0; i < g_objs_used; i++)
            nk += g_objs[i].o && g_objs[i].o->slot == k;
        fprintf(f, "slot %lu objects %zu\n", MH_SLOT + k, nk);
    }
    for (size_t i = 0; i < g_objs_used; i++) {
        const mh_object *o = g_objs[i].o;
        if (!o)
            continue;
        const mh_attr *l = mh_obj_attr(o, CKA_LABEL);
        fprintf(f, "object %s class %lu token %d label %.*s\n", o->owner ? "session" : "token",
                (unsigned long)o->cls, o->owner == 0, l ? (int)l->len : 0, l ? (const char *)l->val : "");
    }
    fclose(f);
}

/* hang=C_GenerateKey(Pair)@T: the key is made (on the token when asked)
 * and the call never returns, as a device that made it and whose answer
 * was lost; objects-file= lists it first, since C_Finalize will not come. */
static void mh_hang_made(unsigned bit)
{
    if (!(g_cfg.hang_calls & bit) || mh_now() - g_t0 < g_cfg.hang_at)
        return;
    if (g_cfg.objects_file[0]) {
        pthread_mutex_lock(&g_obj_mu);
        mh_objects_report(g_cfg.objects_file);
        pthread_mutex_unlock(&g_obj_mu);
    }
    mh_hang(bit);
}

/* C_Finalize: token objects last until here. */
static void mh_objects_free(void)
{
    pthread_mutex_lock(&g_obj_mu);
    if (g_cfg.objects_file[0])
        mh_objects_report(g_cfg.objects_file);
    for (size_t i = 0; i < g_objs_used; i++)
        mh_obj_free(g_objs[i].o);
    free(g_objs);
    g_objs = NULL;
    g_objs_cap = g_objs_used = 0;
    g_objs_free = MH_NONE;
    pthread_mutex_unlock(&g_obj_mu);
}

/* ---- mechanism table ---------------------------------------------------------- */

/* What a mechanism does, for key checks and output lengths. */
typedef enum {
    MH_K_GEN_RSA, MH_K_GEN_EC, MH_K_GEN_ED, MH_K_GEN_AES, MH_K_GEN_DES3, MH_K_GEN_SECRET,
    MH_K_RSA_PKCS, MH_K_RSA_X509, MH_K_RSA_PSS, MH_K_RSA_OAEP, MH_K_RSA_HASH, MH_K_RSA_HASH_PSS,
    MH_K_ECDSA, MH_K_EDDSA, MH_K_ECDH,
    MH_K_AES_ECB, MH_K_AES_CBC, MH_K_AES_CBC_PAD, MH_K_AES_CTR, MH_K_AES_GCM, MH_K_AES_KW,
    MH_K_AES_KWP, MH_K_DES3_ECB, MH_K_DES3_CBC, MH_K_HMAC, MH_K_DIGEST,
} mh_kind;

struct mh_mech {
    CK_MECHANISM_TYPE type;
    const char       *name;
    mh_kind           kind;
    CK_FLAGS          flags;        /* CKF_HW is added */
    CK_ULONG          min, max;     /* key sizes (RSA max: max-rsa) */
    CK_ULONG          out;          /* digest and HMAC length */
};

#define MH_F_EC     (CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS)
#define MH_F_SV     (CKF_SIGN | CKF_VERIFY)
#define MH_F_ED     (CKF_ENCRYPT | CKF_DECRYPT)
#define MH_F_WU     (CKF_WRAP | CKF_UNWRAP)

#define MH_RSA(t, n, k, f)  { t, n, k, f, MH_RSA_MIN, MH_RSA_MAX, 0 }
#define MH_EC(t, n, k, f)   { t, n, k, f, 256, 521, 0 }
#define MH_AES(t, n, k, f)  { t, n, k, f, 16, 32, 0 }

static const mh_mech mh_mechs[] = {
    MH_RSA(CKM_RSA_PKCS_KEY_PAIR_GEN, "CKM_RSA_PKCS_KEY_PAIR_GEN", MH_K_GEN_RSA, CKF_GENERATE_KEY_PAIR),
    MH_RSA(CKM_RSA_PKCS, "CKM_RSA_PKCS", MH_K_RSA_PKCS, MH_F_SV | MH_F_ED | MH_F_WU),
    MH_RSA(CKM_SHA1_RSA_PKCS, "CKM_SHA1_RSA_PKCS", MH_K_RSA_HASH, MH_F_SV),
    MH_RSA(CKM_SHA224_RSA_PKCS, "CKM_SHA224_RSA_PKCS", MH_K_RSA_HASH, MH_F_SV),
    MH_RSA(CKM_SHA256_RSA_PKCS, "CKM_SHA256_RSA_PKCS", MH_K_RSA_HASH, MH_F_SV),
    MH_RSA(CKM_SHA384_RSA_PKCS, "CKM_SHA384_RSA_PKCS", MH_K_RSA_HASH, MH_F_SV),
    MH_RSA(CKM_SHA512_RSA_PKCS, "CKM_SHA512_RSA_PKCS", MH_K_RSA_HASH, MH_F_SV),
    MH_RSA(CKM_RSA_PKCS_PSS, "CKM_RSA_PKCS_PSS", MH_K_RSA_PSS, MH_F_SV),
    MH_RSA(CKM_SHA1_RSA_PKCS_PSS, "CKM_SHA1_RSA_PKCS_PSS", MH_K_RSA_HASH_PSS, MH_F_SV),
    MH_RSA(CKM_SHA224_RSA_PKCS_PSS, "CKM_SHA224_RSA_PKCS_PSS", MH_K_RSA_HASH_PSS, MH_F_SV),
    MH_RSA(CKM_SHA256_RSA_PKCS_PSS, "CKM_SHA256_RSA_PKCS_PSS", MH_K_RSA_HASH_PSS, MH_F_SV),
    MH_RSA(CKM_SHA384_RSA_PKCS_PSS, "CKM_SHA384_RSA_PKCS_PSS", MH_K_RSA_HASH_PSS, MH_F_SV),
    MH_RSA(CKM_SHA512_RSA_PKCS_PSS, "CKM_SHA512_RSA_PKCS_PSS", MH_K_RSA_HASH_PSS, MH_F_SV),
    MH_RSA(CKM_RSA_PKCS_OAEP, "CKM_RSA_PKCS_OAEP", MH_K_RSA_OAEP, MH_F_ED | MH_F_WU),
    MH_RSA(CKM_RSA_X_509, "CKM_RSA_X_509", MH_K_RSA_X509, MH_F_SV | MH_F_ED),
    MH_EC(CKM_EC_KEY_PAIR_GEN, "CKM_EC_KEY_PAIR_GEN", MH_K_GEN_EC, CKF_GENERATE_KEY_PAIR | MH_F_EC),
    MH_EC(CKM_ECDSA, "CKM_ECDSA", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDSA_SHA1, "CKM_ECDSA_SHA1", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDSA_SHA224, "CKM_ECDSA_SHA224", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDSA_SHA256, "CKM_ECDSA_SHA256", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDSA_SHA384, "CKM_ECDSA_SHA384", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDSA_SHA512, "CKM_ECDSA_SHA512", MH_K_ECDSA, MH_F_SV | MH_F_EC),
    MH_EC(CKM_ECDH1_DERIVE, "CKM_ECDH1_DERIVE", MH_K_ECDH, CKF_DERIVE | MH_F_EC),
    { CKM_EC_EDWARDS_KEY_PAIR_GEN, "CKM_EC_EDWARDS_KEY_PAIR_GEN", MH_K_GEN_ED, CKF_GENERATE_KEY_PAIR,
      255, 255, 0 },
    { CKM_EDDSA, "CKM_EDDSA", MH_K_EDDSA, MH_F_SV, 255, 255, 0 },
    MH_AES(CKM_AES_KEY_GEN, "CKM_AES_KEY_GEN", MH_K_GEN_AES, CKF_GENERATE),
    MH_AES(CKM_AES_ECB, "CKM_AES_ECB", MH_K_AES_ECB, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_CBC, "CKM_AES_CBC", MH_K_AES_CBC, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_CBC_PAD, "CKM_AES_CBC_PAD", MH_K_AES_CBC_PAD, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_CTR, "CKM_AES_CTR", MH_K_AES_CTR, MH_F_ED),
    MH_AES(CKM_AES_GCM, "CKM_AES_GCM", MH_K_AES_GCM, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_KEY_WRAP, "CKM_AES_KEY_WRAP", MH_K_AES_KW, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_KEY_WRAP_PAD, "CKM_AES_KEY_WRAP_PAD", MH_K_AES_KWP, MH_F_ED | MH_F_WU),
    MH_AES(CKM_AES_KEY_WRAP_KWP, "CKM_AES_KEY_WRAP_KWP", MH_K_AES_KWP, MH_F_ED | MH_F_WU),
    { CKM_DES3_KEY_GEN, "CKM_DES3_KEY_GEN", MH_K_GEN_DES3, CKF_GENERATE, 24, 24, 0 },
    { CKM_DES3_ECB, "CKM_DES3_ECB", MH_K_DES3_ECB, MH_F_ED | MH_F_WU, 24, 24, 0 },
    { CKM_DES3_CBC, "CKM_DES3_CBC", MH_K_DES3_CBC, MH_F_ED | MH_F_WU, 24, 24, 0 },
    { CKM_GENERIC_SECRET_KEY_GEN, "CKM_GENERIC_SECRET_KEY_GEN", MH_K_GEN_SECRET, CKF_GENERATE,
      1, 512, 0 },
    { CKM_SHA_1_HMAC, "CKM_SHA_1_HMAC", MH_K_HMAC, MH_F_SV, 1, 512, 20 },
    { CKM_SHA256_HMAC, "CKM_SHA256_HMAC", MH_K_HMAC, MH_F_SV, 1, 512, 32 },
    { CKM_SHA384_HMAC, "CKM_SHA384_HMAC", MH_K_HMAC, MH_F_SV, 1, 512, 48 },
    { CKM_SHA512_HMAC, "CKM_SHA512_HMAC", MH_K_HMAC, MH_F_SV, 1, 512, 64 },
    { CKM_SHA_1, "CKM_SHA_1", MH_K_DIGEST, CKF_DIGEST, 0, 0, 20 },
    { CKM_SHA224, "CKM_SHA224", MH_K_DIGEST, CKF_DIGEST, 0, 0, 28 },
    { CKM_SHA256, "CKM_SHA256", MH_K_DIGEST, CKF_DIGEST, 0, 0, 32 },
    { CKM_SHA384, "CKM_SHA384", MH_K_DIGEST, CKF_DIGEST, 0, 0, 48 },
    { CKM_SHA512, "CKM_SHA512", MH_K_DIGEST, CKF_DIGEST, 0, 0, 64 },
};
#define MH_NMECHS (sizeof mh_mechs / sizeof mh_mechs[0])
_Static_assert(MH_NMECHS <= sizeof ((mh_config *)0)->mech_on, "mech_on too small");

static int mh_mech_index_by_name(const char *name)
{
    uint64_t num;
    int by_num = mh_parse_u64(name, &num) == 0;
    for (size_t i = 0; i < MH_NMECHS; i++)
        if (by_num ? mh_mechs[i].type == num : strcmp(mh_mechs[i].name, name) == 0)
            return (int)i;
    /* pkcs11.h's other spelling of SHA-1 */
    if (!by_num && strcmp(name, "CKM_SHA1") == 0)
        return mh_mech_index_by_name("CKM_SHA_1");
    return -1;
}

static int mh_mech_offered(size_t i)
{
    return !g_cfg.mech_filter || g_cfg.mech_on[i];
}

/* Offered and listed: in C_GetMechanismList, known to C_GetMechanismInfo. */
static int mh_mech_listed(size_t i)
{
    return mh_mech_offered(i) && !g_cfg.mech_unlisted[i];
}

/* The offered mechanism of that type, or NULL. */
static const mh_mech *mh_mech_find(CK_MECHANISM_TYPE type)
{
    for (size_t i = 0; i < MH_NMECHS; i++)
        if (mh_mechs[i].type == type)
            return mh_mech_offered(i) || atomic_load(&g_preloading) ? &mh_mechs[i] : NULL;
    return NULL;
}

static int mh_is_rsa(mh_kind k)
{
    return k == MH_K_RSA_PKCS || k == MH_K_RSA_X509 || k == MH_K_RSA_PSS || k == MH_K_RSA_OAEP ||
           k == MH_K_RSA_HASH || k == MH_K_RSA_HASH_PSS || k == MH_K_GEN_RSA;
}

static int mh_is_aes(mh_kind k)
{
    return k >= MH_K_AES_ECB && k <= MH_K_AES_KWP;
}

static CK_ULONG mh_key_max(const mh_mech *m)
{
    return mh_is_rsa(m->kind) ? g_cfg.max_rsa : m->max;
}

static CK_ULONG mh_hash_len(CK_MECHANISM_TYPE hash)
{
    switch (hash) {
    case CKM_SHA_1:  return 20;
    case CKM_SHA224: return 28;
    case CKM_SHA256: return 32;
    case CKM_SHA384: return 48;
    case CKM_SHA512: return 64;
    default:         return 0;
    }
}

/* ---- general purpose, slot and token functions ------------------------------- */

/* Copy a string into a space-padded, not NUL-terminated PKCS#11 field. */
static void mh_pad(CK_UTF8CHAR *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    memset(dst, ' ', size);
    memcpy(dst, src, n < size ? n : size);
}

static CK_RV mh_preload(void);

static CK_RV mh_Initialize(CK_VOID_PTR pInitArgs)
{
    const char *reserved = NULL;
    int wants_locking = 0;
    mh_config c;

    if (pInitArgs != NULL) {
        const CK_C_INITIALIZE_ARGS *a = pInitArgs;
        int nfn = (a->CreateMutex != NULL) + (a->DestroyMutex != NULL) +
                  (a->LockMutex != NULL) + (a->UnlockMutex != NULL);
        if (nfn != 0 && nfn != 4)
            return CKR_ARGUMENTS_BAD;
        wants_locking = nfn == 4 || (a->flags & CKF_OS_LOCKING_OK);
        /* OS locking or the application's mutexes: the module uses its own
         * pthread mutexes either way, and creates no threads. */
        reserved = a->pReserved;
    }
    pthread_mutex_lock(&g_life_mu);
    if (atomic_load(&g_init)) {
        pthread_mutex_unlock(&g_life_mu);
        return CKR_CRYPTOKI_ALREADY_INITIALIZED;
    }
    if (mh_config_load(&c, reserved) != 0) {
        pthread_mutex_unlock(&g_life_mu);
        return CKR_ARGUMENTS_BAD;
    }
    if ((c.quirks & MH_Q_CANT_LOCK) && wants_locking) {
        pthread_mutex_unlock(&g_life_mu);
        return CKR_CANT_LOCK;
    }
    if (c.cores) {
        g_core_free = calloc(c.cores, sizeof *g_core_free);
        if (!g_core_free) {
            pthread_mutex_unlock(&g_life_mu);
            return CKR_HOST_MEMORY;
        }
    }
    g_cfg = c;
    g_timing = c.svc != MH_SVC_NONE || (c.stall_p && c.stall_d) || c.stall_at_d ||
               (c.spike_d && c.spike_p > 0);
    g_t0 = mh_now();
    atomic_store(&g_thread_ctr, 0);
    atomic_store(&g_served, 0);
    atomic_fetch_add(&g_epoch, 1);
    mh_sessions_reset();
    atomic_store_explicit(&g_init, 1, memory_order_release);
    CK_RV rv = mh_preload();
    if (rv != CKR_OK) {
        atomic_store(&g_init, 0);
        mh_sessions_free();
        mh_objects_free();
        free(g_core_free);
        g_core_free = NULL;
    }
    pthread_mutex_unlock(&g_life_mu);
    return rv;
}

static CK_RV mh_Finalize(CK_VOID_PTR pReserved)
{
    if (pReserved != NULL)
        return CKR_ARGUMENTS_BAD;
    pthread_mutex_lock(&g_life_mu);
    if (!atomic_load(&g_init)) {
        pthread_mutex_unlock(&g_life_mu);
        return CKR_CRYPTOKI_NOT_INITIALIZED;
    }
    atomic_store(&g_init, 0);
    mh_sessions_free();
    mh_objects_free();
    free(g_core_free);
    g_core_free = NULL;
    pthread_mutex_unlock(&g_life_mu);
    return CKR_OK;
}

static CK_RV mh_GetInfo(CK_INFO_PTR pInfo)
{
    MH_REQUIRE_INIT();
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    memset(pInfo, 0, sizeof *pInfo);
    pInfo->cryptokiVersion.major = 3;
    pInfo->cryptokiVersion.minor = g_cfg.async ? 2 : 0;
    mh_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    mh_pad(pInfo->libraryDescription, sizeof pInfo->libraryDescription, "hsmbench mock HSM");
    pInfo->libraryVersion.major = 1;
    pInfo->libraryVersion.minor = 0;
    return CKR_OK;
}

/* Fill a caller's list the PKCS#11 way: NULL asks the size. */
static CK_RV mh_list_out(CK_ULONG n, CK_ULONG_PTR pulCount, int query)
{
    if (query) {
        *pulCount = n;
        return CKR_OK;
    }
    if (*pulCount < n) {
        *pulCount = n;
        return CKR_BUFFER_TOO_SMALL;
    }
    *pulCount = n;
    return CKR_OK;
}

static CK_RV mh_GetSlotList(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount)
{
    MH_REQUIRE_INIT();
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_RV rv = mh_list_out(g_cfg.slots, pulCount, pSlotList == NULL);
    for (unsigned k = 0; rv == CKR_OK && pSlotList && k < g_cfg.slots; k++)
        pSlotList[k] = MH_SLOT + k;
    return rv;
}

static CK_RV mh_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo)
{
    MH_REQUIRE_INIT();
    if (mh_slot_index(slotID) < 0)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    memset(pInfo, 0, sizeof *pInfo);
    mh_pad(pInfo->slotDescription, sizeof pInfo->slotDescription, "hsmbench mock slot");
    mh_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    pInfo->flags = CKF_TOKEN_PRESENT | CKF_HW_SLOT;
    pInfo->hardwareVersion.major = 1;
    pInfo->firmwareVersion.major = 1;
    return CKR_OK;
}

static CK_RV mh_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo)
{
    MH_REQUIRE_INIT();
    const int k = mh_slot_index(slotID);
    if (k < 0)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    /* One token: "mock", serial ...02; slots=N: "mock-1" ... "mock-N",
     * serials ...02, ...03, ... */
    char label[16], serial[17];
    if (g_cfg.slots > 1)
        snprintf(label, sizeof label, "mock-%d", k + 1);
    else
        snprintf(label, sizeof label, "mock");
    snprintf(serial, sizeof serial, "%016d", k + 2);
    memset(pInfo, 0, sizeof *pInfo);
    mh_pad(pInfo->label, sizeof pInfo->label, label);
    mh_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "hsmbench");
    mh_pad(pInfo->model, sizeof pInfo->model, "mock");
    mh_pad(pInfo->serialNumber, sizeof pInfo->serialNumber, serial);
    pInfo->flags = CKF_TOKEN_INITIALIZED | CKF_RNG | CKF_USER_PIN_INITIALIZED;
    if (g_cfg.login_required)
        pInfo->flags |= CKF_LOGIN_REQUIRED;
    if (g_cfg.async)
        pInfo->flags |= CKF_ASYNC_SESSION_SUPPORTED;
    pthread_mutex_lock(&g_sess_mu);
    pInfo->ulSessionCount = g_nsessions[k];
    pInfo->ulRwSessionCount = g_nrw[k];
    pthread_mutex_unlock(&g_sess_mu);
    pInfo->ulMaxSessionCount = MH_MAX_SESSIONS;
    pInfo->ulMaxRwSessionCount = MH_MAX_SESSIONS;
    pInfo->ulMaxPinLen = MH_MAX_PIN;
    pInfo->ulMinPinLen = 1;
    pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->hardwareVersion.major = 1;
    pInfo->firmwareVersion.major = 1;
    mh_pad(pInfo->utcTime, sizeof pInfo->utcTime, "");   /* no clock on the token */
    return CKR_OK;
}

static CK_RV mh_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList,
                                 CK_ULONG_PTR pulCount)
{
    MH_REQUIRE_INIT();
    if (mh_slot_index(slotID) < 0)
        return CKR_SLOT_ID_INVALID;
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_ULONG n = 0;
    for (size_t i = 0; i < MH_NMECHS; i++)
        n += (CK_ULONG)mh_mech_listed(i);
    CK_RV rv = mh_list_out(n, pulCount, pMechanismList == NULL);
    if (rv == CKR_OK && pMechanismList) {
        n = 0;
        for (size_t i = 0; i < MH_NMECHS; i++)
            if (mh_mech_listed(i))
                pMechanismList[n++] = mh_mechs[i].type;
    }
    return rv;
}

static CK_RV mh_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo)
{
    MH_REQUIRE_INIT();
    if (mh_slot_index(slotID) < 0)
        return CKR_SLOT_ID_INVALID;
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    const mh_mech *m = mh_mech_find(type);
    if (!m || !mh_mech_listed((size_t)(m - mh_mechs)))
        return CKR_MECHANISM_INVALID;       /* unlisted=: served all the same */
    pInfo->ulMinKeySize = m->min;
    pInfo->ulMaxKeySize = mh_key_max(m);
    pInfo->flags = CKF_HW | m->flags;
    return CKR_OK;
}

/* ---- session functions ----------------------------------------------------------- */

static CK_RV mh_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR pApplication,
                            CK_NOTIFY Notify, CK_SESSION_HANDLE_PTR phSession)
{
    MH_REQUIRE_INIT();
    const int k = mh_slot_index(slotID);
    if (k < 0)
        return CKR_SLOT_ID_INVALID;
    if (!(flags & CKF_SERIAL_SESSION))
        return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    if (phSession == NULL)
        return CKR_ARGUMENTS_BAD;
    if ((flags & CKF_ASYNC_SESSION) && !g_cfg.async)
        return CKR_SESSION_ASYNC_NOT_SUPPORTED;
    return mh_session_open((unsigned)k, flags & (CKF_SERIAL_SESSION | CKF_RW_SESSION | CKF_ASYNC_SESSION), phSession);
}

static CK_RV mh_CloseSession(CK_SESSION_HANDLE hSession)
{
    MH_REQUIRE_INIT();
    return mh_session_close(hSession);
}

static CK_RV mh_CloseAllSessions(CK_SLOT_ID slotID)
{
    MH_REQUIRE_INIT();
    const int k = mh_slot_index(slotID);
    if (k < 0)
        return CKR_SLOT_ID_INVALID;
    CK_SESSION_HANDLE *all = malloc(MH_MAX_SESSIONS * sizeof *all);
    if (!all)
        return CKR_HOST_MEMORY;
    CK_ULONG n = mh_session_handles((unsigned)k, all);
    for (CK_ULONG i = 0; i < n; i++)
        mh_session_close(all[i]);
    free(all);
    return CKR_OK;
}

static CK_RV mh_GetSessionInfo(CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo)
{
    MH_REQUIRE_INIT();
    if (pInfo == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_FLAGS flags;
    CK_RV rv = mh_session_check(hSession, &flags);
    if (rv != CKR_OK)
        return rv;
    int rw = (flags & CKF_RW_SESSION) != 0;
    const unsigned k = mh_session_slot(hSession);
    memset(pInfo, 0, sizeof *pInfo);
    pInfo->slotID = MH_SLOT + k;
    switch (atomic_load(&g_login[k])) {
    case MH_USER: pInfo->state = rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS; break;
    case MH_SO:   pInfo->state = CKS_RW_SO_FUNCTIONS; break;
    default:      pInfo->state = rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION; break;
    }
    pInfo->flags = flags;
    pInfo->ulDeviceError = 0;
    return CKR_OK;
}

/* The PIN is checked when pin= is configured; without it any PIN is taken. */
static CK_RV mh_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
                      CK_ULONG ulPinLen)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (userType == CKU_CONTEXT_SPECIFIC)
        return CKR_OPERATION_NOT_INITIALIZED;   /* no key here needs it */
    if (userType != CKU_USER && userType != CKU_SO)
        return CKR_USER_TYPE_INVALID;
    if (pPin == NULL && ulPinLen)
        return CKR_ARGUMENTS_BAD;
    int want = userType == CKU_SO ? MH_SO : MH_USER;
    const unsigned k = mh_session_slot(hSession);
    pthread_mutex_lock(&g_sess_mu);
    int cur = atomic_load(&g_login[k]);
    if (cur == want)
        rv = CKR_USER_ALREADY_LOGGED_IN;
    else if (cur != MH_NOBODY)
        rv = CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
    else if (want == MH_SO && g_nsessions[k] > g_nrw[k])
        rv = CKR_SESSION_READ_ONLY_EXISTS;
    else if (g_cfg.has_pin &&
             (ulPinLen != strlen(g_cfg.pin) || (ulPinLen && memcmp(pPin, g_cfg.pin, ulPinLen) != 0)))
        rv = CKR_PIN_INCORRECT;
    else
        atomic_store(&g_login[k], want);
    pthread_mutex_unlock(&g_sess_mu);
    return rv;
}

static CK_RV mh_LoginUser(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
                          CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen)
{
    return mh_Login(hSession, userType, pPin, ulPinLen);   /* one user: the name is not checked */
}

static CK_RV mh_Logout(CK_SESSION_HANDLE hSession)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    const unsigned k = mh_session_slot(hSession);
    pthread_mutex_lock(&g_sess_mu);
    if (atomic_load(&g_login[k]) == MH_NOBODY)
        rv = CKR_USER_NOT_LOGGED_IN;
    else
        atomic_store(&g_login[k], MH_NOBODY);
    pthread_mutex_unlock(&g_sess_mu);
    return rv;
}

/* 3.0: cancel the session's active operations named by flags. */
static CK_RV mh_SessionCancel(CK_SESSION_HANDLE hSession, CK_FLAGS flags)
{
    static const CK_FLAGS bit[MH_OP_COUNT] = { CKF_ENCRYPT, CKF_DECRYPT, CKF_DIGEST, CKF_SIGN,
                                               CKF_VERIFY };
    MH_REQUIRE_INIT();
    if (g_cfg.quirks & MH_Q_NO_CANCEL)
        return CKR_FUNCTION_NOT_SUPPORTED;
    MH_SESSION(s, hSession);
    for (int k = 0; k < MH_OP_COUNT; k++)
        if (flags & bit[k]) {
            mh_op_end(&s->op[k]);
            memset(&s->pending[k], 0, sizeof s->pending[k]);
        }
    if (flags & CKF_FIND_OBJECTS)
        mh_find_end(s);
    mh_session_unlock(s);
    return CKR_OK;
}

/* ---- object functions ------------------------------------------------------------ */

static int mh_is_key(CK_OBJECT_CLASS c)
{
    return c == CKO_SECRET_KEY || c == CKO_PRIVATE_KEY || c == CKO_PUBLIC_KEY;
}

static CK_RV mh_check_attr(const CK_ATTRIBUTE *a)
{
    if (a->pValue == NULL && a->ulValueLen)
        return CKR_ARGUMENTS_BAD;
    switch (a->type) {
    case CKA_TOKEN: case CKA_PRIVATE: case CKA_SENSITIVE: case CKA_EXTRACTABLE:
    case CKA_ENCRYPT: case CKA_DECRYPT: case CKA_SIGN: case CKA_VERIFY: case CKA_WRAP:
    case CKA_UNWRAP: case CKA_DERIVE: case CKA_MODIFIABLE:
        return a->ulValueLen == sizeof(CK_BBOOL) ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
    case CKA_CLASS: case CKA_KEY_TYPE: case CKA_VALUE_LEN: case CKA_MODULUS_BITS:
        return a->ulValueLen == sizeof(CK_ULONG) ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
    default:
        return CKR_OK;
    }
}

/* A new object holding the template's attributes (not in the table yet). */
static CK_RV mh_obj_from_template(const CK_ATTRIBUTE *t, CK_ULONG n, mh_object **out)
{
    *out = NULL;
    if (n && t == NULL)
        return CKR_ARGUMENTS_BAD;
    mh_object *o = calloc(1, sizeof *o);
    if (!o)
        return CKR_HOST_MEMORY;
    for (CK_ULONG i = 0; i < n; i++) {
        CK_RV rv = mh_check_attr(&t[i]);
        if (rv == CKR_OK)
            rv = mh_obj_set(o, t[i].type, t[i].pValue, t[i].ulValueLen);
        if (rv != CKR_OK) {
            mh_obj_free(o);
            return rv;
        }
    }
    *out = o;
    return CKR_OK;
}

/*
 * Complete an object before it goes into the table: the usual defaults
 * (a session object; keys private, usable for everything their class allows,
 * not sensitive, extractable, unless the template says otherwise), CKA_LOCAL,
 * the owner, and the checks against the session (read-only) and login.
 */
static CK_RV mh_obj_finish(mh_object *o, CK_SESSION_HANDLE h, CK_FLAGS sflags, int local)
{
    CK_OBJECT_CLASS cls = mh_obj_ulong(o, CKA_CLASS, CKO_DATA);
    int key = mh_is_key(cls), secretish = cls == CKO_SECRET_KEY || cls == CKO_PRIVATE_KEY;
    CK_RV rv = CKR_OK;

#define D(type, v) do { if (rv == CKR_OK) rv = mh_obj_set_bool(o, type, v, 1); } while (0)
    D(CKA_TOKEN, 0);
    D(CKA_PRIVATE, secretish);
    D(CKA_MODIFIABLE, 1);
    if (key) {
        if (rv == CKR_OK)
            rv = mh_obj_set_bool(o, CKA_LOCAL, local, 0);
        D(CKA_DERIVE, 1);
        if (cls != CKO_PRIVATE_KEY) {
            D(CKA_ENCRYPT, 1);
            D(CKA_VERIFY, 1);
            D(CKA_WRAP, 1);
        }
        if (cls != CKO_PUBLIC_KEY) {
            D(CKA_DECRYPT, 1);
            D(CKA_SIGN, 1);
            D(CKA_UNWRAP, 1);
            D(CKA_SENSITIVE, 0);
            D(CKA_EXTRACTABLE, 1);
            if (rv == CKR_OK)
                rv = mh_obj_set_bool(o, CKA_ALWAYS_SENSITIVE,
                                     local && mh_obj_bool(o, CKA_SENSITIVE, 0), 0);
            if (rv == CKR_OK)
                rv = mh_obj_set_bool(o, CKA_NEVER_EXTRACTABLE,
                                     local && !mh_obj_bool(o, CKA_EXTRACTABLE, 1), 0);
        }
    }
#undef D
    if (rv != CKR_OK)
        return rv;
    int token = mh_obj_bool(o, CKA_TOKEN, 0);
    if (token && !(sflags & CKF_RW_SESSION))
        return CKR_SESSION_READ_ONLY;
    if (!token && key && (g_cfg.quirks & MH_Q_TOKEN_ONLY))
        return CKR_ATTRIBUTE_VALUE_INVALID;     /* CKA_TOKEN false: refused, as some tokens do */
    o->owner = token ? 0 : h;
    o->slot = mh_session_slot(h);
    mh_obj_refresh(o);
    if (o->priv && g_cfg.login_required && atomic_load(&g_login[o->slot]) == MH_NOBODY)
        return CKR_USER_NOT_LOGGED_IN;
    return CKR_OK;
}

static CK_RV mh_CreateObject(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
                             CK_OBJECT_HANDLE_PTR phObject)
{
    CK_FLAGS sflags;
    mh_object *o;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, &sflags);
    if (rv != CKR_OK)
        return rv;
    if (phObject == NULL)
        return CKR_ARGUMENTS_BAD;
    if ((rv = mh_obj_from_template(pTemplate, ulCount, &o)) != CKR_OK)
        return rv;
    CK_OBJECT_CLASS cls = mh_obj_ulong(o, CKA_CLASS, (CK_ULONG)-1);
    CK_KEY_TYPE kt = mh_obj_ulong(o, CKA_KEY_TYPE, (CK_ULONG)-1);
    const mh_attr *v = mh_obj_attr(o, CKA_VALUE);
    if (mh_is_key(cls) && (g_cfg.quirks & MH_Q_NO_IMPORT))
        rv = CKR_FUNCTION_NOT_SUPPORTED;        /* keys are made in the token, never imported */
    else if (cls == (CK_ULONG)-1 || (mh_is_key(cls) && kt == (CK_ULONG)-1))
        rv = CKR_TEMPLATE_INCOMPLETE;
    else if (cls == CKO_SECRET_KEY) {
        if (!v)
            rv = CKR_TEMPLATE_INCOMPLETE;
        else if (kt == CKK_AES && v->len != 16 && v->len != 24 && v->len != 32)
            rv = CKR_ATTRIBUTE_VALUE_INVALID;
        else
            rv = mh_obj_set_ulong(o, CKA_VALUE_LEN, v->len);
    } else if ((cls == CKO_PRIVATE_KEY || cls == CKO_PUBLIC_KEY) && kt == CKK_RSA) {
        if (!mh_obj_attr(o, CKA_MODULUS))
            rv = CKR_TEMPLATE_INCOMPLETE;
    } else if ((cls == CKO_PRIVATE_KEY || cls == CKO_PUBLIC_KEY) &&
               (kt == CKK_EC || kt == CKK_EC_EDWARDS)) {
        const mh_attr *p = mh_obj_attr(o, CKA_EC_PARAMS);
        if (!p)
            rv = CKR_TEMPLATE_INCOMPLETE;
        else if (!mh_curve_field(p->val, p->len, kt == CKK_EC_EDWARDS))
            rv = CKR_ATTRIBUTE_VALUE_INVALID;
    }
    if (rv == CKR_OK)
        rv = mh_obj_finish(o, hSession, sflags, 0);
    if (rv != CKR_OK) {
        mh_obj_free(o);
        return rv;
    }
    o->imported = !atomic_load(&g_preloading);
    return mh_obj_insert(o, phObject);
}

static CK_RV mh_DestroyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject)
{
    CK_FLAGS sflags;
    MH_REQUIRE_INIT();
    mh_hang(MH_HANG_DESTROY);
    CK_RV rv = mh_session_check(hSession, &sflags);
    if (rv != CKR_OK)
        return rv;
    mh_object *gone = NULL;
    const unsigned slot = mh_session_slot(hSession);   /* before g_obj_mu: the lock order */
    pthread_mutex_lock(&g_obj_mu);
    mh_object *o = mh_obj_get(slot, hObject);
    if (!o)
        rv = CKR_OBJECT_HANDLE_INVALID;
    else if (o->owner == 0 && !(sflags & CKF_RW_SESSION))
        rv = CKR_SESSION_READ_ONLY;
    else if ((g_cfg.quirks & MH_Q_DESTROY_FAIL) ||
             ((g_cfg.quirks & MH_Q_DESTROY_ONCE) && !o->destroy_tried++))
        rv = CKR_FUNCTION_FAILED;
    else
        gone = mh_obj_remove((size_t)(hObject & MH_OBJ_MASK) - 1);
    if (gone && g_cfg.objects_file[0] && g_cfg.hang_calls)
        mh_objects_report(g_cfg.objects_file);   /* with hang=, C_Finalize may never come */
    pthread_mutex_unlock(&g_obj_mu);
    mh_obj_free(gone);
    return rv;
}

static CK_RV mh_GetObjectSize(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ULONG_PTR pulSize)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pulSize == NULL)
        return CKR_ARGUMENTS_BAD;
    const unsigned slot = mh_session_slot(hSession);   /* before g_obj_mu: the lock order */
    pthread_mutex_lock(&g_obj_mu);
    mh_object *o = mh_obj_get(slot, hObject);
    if (!o) {
        rv = CKR_OBJECT_HANDLE_INVALID;
    } else {
        CK_ULONG size = 0;
        for (CK_ULONG i = 0; i < o->n; i++)
            size += 2 * sizeof(CK_ULONG) + o->a[i].len;
        *pulSize = size;
    }
    pthread_mutex_unlock(&g_obj_mu);
    return rv;
}

/* Private-key and secret-key values no one may read when the key is
 * sensitive or not extractable. */
static int mh_attr_hidden(const mh_object *o, CK_ATTRIBUTE_TYPE type)
{
    if (o->cls != CKO_PRIVATE_KEY && o->cls != CKO_SECRET_KEY)
        return 0;
    switch (type) {
    case CKA_VALUE: case CKA_PRIVATE_EXPONENT: case CKA_PRIME_1: case CKA_PRIME_2:
    case CKA_EXPONENT_1: case CKA_EXPONENT_2: case CKA_COEFFICIENT:
        return mh_obj_bool(o, CKA_SENSITIVE, 0) || !mh_obj_bool(o, CKA_EXTRACTABLE, 1);
    default:
        return 0;
    }
}

static CK_RV mh_GetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                                  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pTemplate == NULL && ulCount)
        return CKR_ARGUMENTS_BAD;
    const unsigned slot = mh_session_slot(hSession);   /* before g_obj_mu: the lock order */
    pthread_mutex_lock(&g_obj_mu);
    mh_object *o = mh_obj_get(slot, hObject);
    if (!o) {
        pthread_mutex_unlock(&g_obj_mu);
        return CKR_OBJECT_HANDLE_INVALID;
    }
    for (CK_ULONG i = 0; i < ulCount; i++) {
        CK_ATTRIBUTE *t = &pTemplate[i];
        const mh_attr *a = mh_obj_attr(o, t->type);
        if (!a) {
            t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_ATTRIBUTE_TYPE_INVALID;
        } else if (mh_attr_hidden(o, t->type)) {
            t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_ATTRIBUTE_SENSITIVE;
        } else if (t->pValue == NULL) {
            t->ulValueLen = a->len;
        } else if (t->ulValueLen < a->len) {
            t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
            rv = CKR_BUFFER_TOO_SMALL;
        } else {
            memcpy(t->pValue, a->val, a->len);
            t->ulValueLen = a->len;
        }
    }
    pthread_mutex_unlock(&g_obj_mu);
    return rv;
}

static CK_RV mh_SetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
                                  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
    CK_FLAGS sflags;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, &sflags);
    if (rv != CKR_OK)
        return rv;
    if (pTemplate == NULL && ulCount)
        return CKR_ARGUMENTS_BAD;
    const unsigned slot = mh_session_slot(hSession);   /* before g_obj_mu: the lock order */
    pthread_mutex_lock(&g_obj_mu);
    mh_object *o = mh_obj_get(slot, hObject);
    if (!o)
        rv = CKR_OBJECT_HANDLE_INVALID;
    else if (o->owner == 0 && !(sflags & CKF_RW_SESSION))
        rv = CKR_SESSION_READ_ONLY;
    else if (!mh_obj_bool(o, CKA_MODIFIABLE, 1))
        rv = CKR_ACTION_PROHIBITED;
    /* All or nothing: check every attribute before changing one. */
    for (CK_ULONG i = 0; rv == CKR_OK && i < ulCount; i++) {
        const CK_ATTRIBUTE *t = &pTemplate[i];
        rv = mh_check_attr(t);
        if (rv != CKR_OK)
            break;
        switch (t->type) {
        case CKA_CLASS: case CKA_KEY_TYPE: case CKA_LOCAL: case CKA_TOKEN: case CKA_PRIVATE:
        case CKA_ALWAYS_SENSITIVE: case CKA_NEVER_EXTRACTABLE: case CKA_MODULUS_BITS:
            rv = CKR_ATTRIBUTE_READ_ONLY;
            break;
        case CKA_SENSITIVE:      /* may only become true */
            if (mh_obj_bool(o, CKA_SENSITIVE, 0) && !*(CK_BBOOL *)t->pValue)
                rv = CKR_ATTRIBUTE_READ_ONLY;
            break;
        case CKA_EXTRACTABLE:    /* may only become false */
            if (!mh_obj_bool(o, CKA_EXTRACTABLE, 1) && *(CK_BBOOL *)t->pValue)
                rv = CKR_ATTRIBUTE_READ_ONLY;
            break;
        default:
            break;
        }
    }
    for (CK_ULONG i = 0; rv == CKR_OK && i < ulCount; i++)
        rv = mh_obj_set(o, pTemplate[i].type, pTemplate[i].pValue, pTemplate[i].ulValueLen);
    if (o)
        mh_obj_refresh(o);
    pthread_mutex_unlock(&g_obj_mu);
    return rv;
}

/* Does o hold every attribute of the template, byte for byte? */
static int mh_obj_matches(const mh_object *o, const CK_ATTRIBUTE *t, CK_ULONG n)
{
    for (CK_ULONG i = 0; i < n; i++) {
        const mh_attr *a = mh_obj_attr(o, t[i].type);
        if (!a || a->len != t[i].ulValueLen || (a->len && memcmp(a->val, t[i].pValue, a->len) != 0))
            return 0;
    }
    return 1;
}

static CK_RV mh_FindObjectsInit(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
    MH_REQUIRE_INIT();
    if (pTemplate == NULL && ulCount)
        return CKR_ARGUMENTS_BAD;
    for (CK_ULONG i = 0; i < ulCount; i++)
        if (pTemplate[i].pValue == NULL && pTemplate[i].ulValueLen)
            return CKR_ARGUMENTS_BAD;
    MH_SESSION(s, hSession);
    if (s->finding) {
        mh_session_unlock(s);
        return CKR_OPERATION_ACTIVE;
    }
    CK_RV rv = CKR_OK;
    pthread_mutex_lock(&g_obj_mu);
    /* The matches are taken now: objects made later are not found. */
    s->found = malloc((g_objs_used ? g_objs_used : 1) * sizeof *s->found);
    if (!s->found) {
        rv = CKR_HOST_MEMORY;
    } else {
        s->nfound = s->found_pos = 0;
        for (size_t i = 0; i < g_objs_used; i++) {
            const mh_object *o = g_objs[i].o;
            if (o && o->slot == s->slot && mh_obj_visible(o) && mh_obj_matches(o, pTemplate, ulCount))
                s->found[s->nfound++] = o->handle;
        }
        s->finding = 1;
    }
    pthread_mutex_unlock(&g_obj_mu);
    mh_session_unlock(s);
    return rv;
}

/* C_FindObjects finishes work: it has a service time and may fail. */
static CK_RV mh_FindObjects(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject,
                            CK_ULONG ulMaxObjectCount, CK_ULONG_PTR pulObjectCount)
{
    MH_REQUIRE_INIT();
    if (pulObjectCount == NULL || (phObject == NULL && ulMaxObjectCount))
        return CKR_ARGUMENTS_BAD;
    {
        MH_SESSION(s, hSession);
        int finding = s->finding;
        mh_session_unlock(s);
        if (!finding)
            return CKR_OPERATION_NOT_INITIALIZED;
    }
    mh_serve();
    CK_RV rv = mh_broken_pipe();
    if (rv == CKR_OK)
        rv = mh_injected();
    if (rv == CKR_SESSION_HANDLE_INVALID) {
        mh_session_close(hSession);
        return rv;
    }
    mh_session *s = mh_session_get(hSession);
    if (!s)
        return CKR_SESSION_CLOSED;
    if (!s->finding) {
        rv = CKR_OPERATION_NOT_INITIALIZED;
    } else if (rv != CKR_OK) {
        mh_find_end(s);
    } else {
        CK_ULONG n = 0;
        while (n < ulMaxObjectCount && s->found_pos < s->nfound)
            phObject[n++] = s->found[s->found_pos++];
        *pulObjectCount = n;
    }
    mh_session_unlock(s);
    return rv;
}

static CK_RV mh_FindObjectsFinal(CK_SESSION_HANDLE hSession)
{
    MH_REQUIRE_INIT();
    MH_SESSION(s, hSession);
    CK_RV rv = s->finding ? CKR_OK : CKR_OPERATION_NOT_INITIALIZED;
    mh_find_end(s);
    mh_session_unlock(s);
    return rv;
}

/* ---- operations: keys, parameters, lengths ------------------------------------- */

/* What an operation needs to know of its key. */
typedef struct mh_key {
    CK_OBJECT_CLASS cls;
    CK_KEY_TYPE     kt;
    CK_ULONG        len;         /* see mh_object.key_len */
    int             usage;       /* the usage attribute asked for (true when absent) */
    int             extractable;
} mh_key;

/* Key h on token `slot` (the session's: no other token's key is seen). */
static CK_RV mh_key_get(unsigned slot, CK_OBJECT_HANDLE h, CK_ATTRIBUTE_TYPE usage, mh_key *k)
{
    pthread_mutex_lock(&g_obj_mu);
    const mh_object *o = mh_obj_get(slot, h);
    if (!o) {
        pthread_mutex_unlock(&g_obj_mu);
        return CKR_KEY_HANDLE_INVALID;
    }
    if (o->imported && (g_cfg.quirks & MH_Q_HIDE_IMPORTED)) {
        pthread_mutex_unlock(&g_obj_mu);
        return CKR_OBJECT_HANDLE_INVALID;   /* Caml Crush's filter: accepted, then hidden */
    }
    k->cls = o->cls;
    k->kt = o->kt;
    k->len = o->key_len;
    k->usage = usage ? mh_obj_bool(o, usage, 1) : 1;
    k->extractable = mh_obj_bool(o, CKA_EXTRACTABLE, 1);
    pthread_mutex_unlock(&g_obj_mu);
    return mh_is_key(k->cls) ? CKR_OK : CKR_KEY_HANDLE_INVALID;
}

/* Is key k right for mechanism m used for `usage` (CKA_SIGN, CKA_WRAP, ...)? */
static CK_RV mh_key_fits(const mh_mech *m, const mh_key *k, CK_ATTRIBUTE_TYPE usage)
{
    mh_kind kd = m->kind;
    int private_half = usage == CKA_SIGN || usage == CKA_DECRYPT || usage == CKA_UNWRAP ||
                       usage == CKA_DERIVE;
    if (mh_is_rsa(kd) || kd == MH_K_ECDSA || kd == MH_K_EDDSA || kd == MH_K_ECDH) {
        CK_KEY_TYPE need = mh_is_rsa(kd) ? CKK_RSA : kd == MH_K_EDDSA ? CKK_EC_EDWARDS : CKK_EC;
        if (k->kt != need || k->cls != (private_half ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY))
            return CKR_KEY_TYPE_INCONSISTENT;
        if (!k->len || (mh_is_rsa(kd) && k->len * 8 > g_cfg.max_rsa))
            return CKR_KEY_SIZE_RANGE;
    } else if (mh_is_aes(kd)) {
        if (k->cls != CKO_SECRET_KEY || k->kt != CKK_AES)
            return CKR_KEY_TYPE_INCONSISTENT;
        if (k->len != 16 && k->len != 24 && k->len != 32)
            return CKR_KEY_SIZE_RANGE;
    } else if (kd == MH_K_DES3_ECB || kd == MH_K_DES3_CBC) {
        if (k->cls != CKO_SECRET_KEY || (k->kt != CKK_DES3 && k->kt != CKK_DES2))
            return CKR_KEY_TYPE_INCONSISTENT;
    } else if (kd == MH_K_HMAC) {
        if (k->cls != CKO_SECRET_KEY ||
            (k->kt != CKK_GENERIC_SECRET && !(k->kt >= CKK_SHA_1_HMAC && k->kt <= CKK_SHA224_HMAC)))
            return CKR_KEY_TYPE_INCONSISTENT;
    }
    return k->usage ? CKR_OK : CKR_KEY_FUNCTION_NOT_PERMITTED;
}

/* Check the mechanism's parameter; note the hash and tag lengths in op. */
static CK_RV mh_params(const mh_mech *m, const CK_MECHANISM *mech, mh_op *op)
{
    const void *p = mech->pParameter;
    CK_ULONG pl = mech->ulParameterLen;
    switch (m->kind) {
    case MH_K_RSA_PSS:
    case MH_K_RSA_HASH_PSS: {
        CK_RSA_PKCS_PSS_PARAMS pss;
        if (!p || pl != sizeof pss)
            return CKR_MECHANISM_PARAM_INVALID;
        memcpy(&pss, p, sizeof pss);
        op->hlen = mh_hash_len(pss.hashAlg);
        return op->hlen ? CKR_OK : CKR_MECHANISM_PARAM_INVALID;
    }
    case MH_K_RSA_OAEP: {
        CK_RSA_PKCS_OAEP_PARAMS oaep;
        if (!p || pl != sizeof oaep)
            return CKR_MECHANISM_PARAM_INVALID;
        memcpy(&oaep, p, sizeof oaep);
        op->hlen = mh_hash_len(oaep.hashAlg);
        return op->hlen ? CKR_OK : CKR_MECHANISM_PARAM_INVALID;
    }
    case MH_K_AES_CBC:
    case MH_K_AES_CBC_PAD:
        return p && pl == 16 ? CKR_OK : CKR_MECHANISM_PARAM_INVALID;
    case MH_K_DES3_CBC:
        return p && pl == 8 ? CKR_OK : CKR_MECHANISM_PARAM_INVALID;
    case MH_K_AES_CTR: {
        CK_AES_CTR_PARAMS ctr;
        if (!p || pl != sizeof ctr)
            return CKR_MECHANISM_PARAM_INVALID;
        memcpy(&ctr, p, sizeof ctr);
        return ctr.ulCounterBits >= 1 && ctr.ulCounterBits <= 128 ? CKR_OK
                                                                  : CKR_MECHANISM_PARAM_INVALID;
    }
    case MH_K_AES_GCM: {
        CK_GCM_PARAMS gcm;
        if (!p || pl != sizeof gcm)
            return CKR_MECHANISM_PARAM_INVALID;
        memcpy(&gcm, p, sizeof gcm);
        if (!gcm.pIv || gcm.ulIvLen < 1 || (gcm.pAAD == NULL && gcm.ulAADLen) ||
            gcm.ulTagBits < 8 || gcm.ulTagBits > 128 || gcm.ulTagBits % 8)
            return CKR_MECHANISM_PARAM_INVALID;
        op->tag = gcm.ulTagBits / 8;
        return CKR_OK;
    }
    default:
        return CKR_OK;      /* no parameter, or one the mock need not read */
    }
}

/* Signature or MAC length. */
static CK_ULONG mh_sig_len(const mh_op *op)
{
    switch (op->m->kind) {
    case MH_K_ECDSA: return 2 * op->key_len;
    case MH_K_EDDSA: return 64;
    case MH_K_HMAC:  return op->m->out;
    default:         return op->key_len;       /* RSA: the modulus length */
    }
}

/* Can n bytes be signed (or verified) with this mechanism and key? */
static CK_RV mh_sign_input(const mh_op *op, CK_ULONG n)
{
    CK_ULONG k = op->key_len;
    switch (op->m->kind) {
    case MH_K_RSA_PKCS: return k >= 11 && n <= k - 11 ? CKR_OK : CKR_DATA_LEN_RANGE;
    case MH_K_RSA_X509: return n == k ? CKR_OK : CKR_DATA_LEN_RANGE;
    case MH_K_RSA_PSS:  return n == op->hlen ? CKR_OK : CKR_DATA_LEN_RANGE;
    default:            return CKR_OK;
    }
}

/* Keep the first 8 and the last 4 input bytes, and count them. */
static void mh_remember(mh_op *st, const CK_BYTE *in, CK_ULONG n)
{
    if (in && n) {
        for (CK_ULONG i = 0; i < n && st->acc + i < sizeof st->head; i++)
            st->head[st->acc + i] = in[i];
        if (n >= sizeof st->tail) {
            memcpy(st->tail, in + n - sizeof st->tail, sizeof st->tail);
        } else {
            memmove(st->tail, st->tail + n, sizeof st->tail - n);
            memcpy(st->tail + sizeof st->tail - n, in, n);
        }
    }
    st->acc += n;
}

static CK_ULONG mh_block(mh_kind k)
{
    switch (k) {
    case MH_K_AES_ECB: case MH_K_AES_CBC: case MH_K_AES_CBC_PAD: return 16;
    case MH_K_DES3_ECB: case MH_K_DES3_CBC:                      return 8;
    default:                                                     return 0;
    }
}

/*
 * The cipher model.  Encryption and decryption are fed with Update calls
 * and ended by Final; a one-shot call is one Update and the Final on a
 * copy of the state.  Block modes give out whole blocks and hold back the
 * rest (CBC-PAD decryption always holds back the last block, whose padding
 * Final removes); CTR and GCM encryption stream; GCM decryption, RSA and
 * AES key wrap take everything and answer at Final.
 *
 * Lengths that real decryption learns from the plaintext come from the
 * filler the mock's own encryption writes (mh_fill): an RSA PKCS#1 or OAEP
 * ciphertext ends with "mh" and the plaintext length (16 bits), a CBC-PAD
 * ciphertext's last byte is its pad length, and an AES key wrap with
 * padding starts with RFC 5649's A65959A6 and the plaintext length.  A
 * ciphertext without these (not made by the mock) decrypts to the longest
 * plaintext it could hold: k - 11 (RSA PKCS#1), k - 2hLen - 2 (OAEP),
 * in - 16 (CBC-PAD), in - 8 (key wrap with padding).
 */
static void mh_cipher_update(mh_op *st, int dec, const CK_BYTE *in, CK_ULONG n, CK_ULONG *out)
{
    mh_kind k = st->m->kind;
    CK_ULONG b = mh_block(k), total = st->buffered + n;
    mh_remember(st, in, n);
    if (b && !(k == MH_K_AES_CBC_PAD && dec)) {
        *out = total - total % b;
        st->buffered = total % b;
    } else if (b) {                         /* CBC-PAD decryption: keep a last block */
        CK_ULONG keep = total == 0 ? 0 : (total % b ? total % b : b);
        *out = total - keep;
        st->buffered = keep;
    } else if (k == MH_K_AES_CTR || (k == MH_K_AES_GCM && !dec)) {
        *out = n;
    } else {
        *out = 0;
    }
}

/* wrap-pad=pkcs7: CKM_AES_KEY_WRAP_PAD as NSS has it (CKM_AES_KEY_WRAP_KWP stays RFC 5649). */
static int mh_wrap_pkcs7(const mh_op *st)
{
    return g_cfg.wrap_pkcs7 && st->m->type == CKM_AES_KEY_WRAP_PAD;
}

static CK_RV mh_cipher_final(const mh_op *st, int dec, CK_ULONG *out)
{
    const CK_RV bad_len = dec ? CKR_ENCRYPTED_DATA_LEN_RANGE : CKR_DATA_LEN_RANGE;
    CK_ULONG n = st->acc, k = st->key_len;
    *out = 0;
    switch (st->m->kind) {
    case MH_K_AES_ECB: case MH_K_AES_CBC: case MH_K_DES3_ECB: case MH_K_DES3_CBC:
        return st->buffered ? bad_len : CKR_OK;
    case MH_K_AES_CBC_PAD:
        if (!dec) {
            *out = 16;                      /* the rest and its padding: one block */
            return CKR_OK;
        }
        if (st->buffered != 16)
            return bad_len;
        *out = st->tail[3] >= 1 && st->tail[3] <= 16 ? 16u - st->tail[3] : 0;
        return CKR_OK;
    case MH_K_AES_CTR:
        return CKR_OK;
    case MH_K_AES_GCM:
        if (!dec) {
            *out = st->tag;
            return CKR_OK;
        }
        if (n < st->tag)
            return bad_len;
        *out = n - st->tag;
        return CKR_OK;
    case MH_K_AES_KW:
        if (n % 8 || n < (dec ? 24u : 16u))
            return bad_len;
        *out = dec ? n - 8 : n + 8;
        return CKR_OK;
    case MH_K_AES_KWP:
        if (mh_wrap_pkcs7(st)) {
            /* NSS: PKCS#7 padding to the next multiple of 8 (a whole block
             * when it is one), then RFC 3394. */
            if (!dec) {
                *out = (n / 8 + 1) * 8 + 8;
                return CKR_OK;
            }
            if (n % 8 || n < 24)
                return bad_len;
            *out = n - 8 - (st->tail[3] >= 1 && st->tail[3] <= 8 ? st->tail[3] : 8);
            return CKR_OK;
        }
        if (!dec) {
            if (n == 0)
                return bad_len;
            *out = (n + 7) / 8 * 8 + 8;
            return CKR_OK;
        }
        if (n % 8 || n < 16)
            return bad_len;
        *out = n - 8;
        if (st->head[0] == 0xA6 && st->head[1] == 0x59 && st->head[2] == 0x59 && st->head[3] == 0xA6) {
            CK_ULONG mli = (CK_ULONG)st->head[4] << 24 | (CK_ULONG)st->head[5] << 16 |
                           (CK_ULONG)st->head[6] << 8 | st->head[7];
            if (mli > n - 16 && mli <= n - 8)
                *out = mli;
        }
        return CKR_OK;
    case MH_K_RSA_PKCS:
    case MH_K_RSA_OAEP: {
        CK_ULONG over = st->m->kind == MH_K_RSA_PKCS ? 11 : 2 * st->hlen + 2;
        CK_ULONG max = k > over ? k - over : 0;
        if (!dec) {
            if (n > max)
                return bad_len;
            *out = k;
            return CKR_OK;
        }
        if (n != k)
            return bad_len;
        *out = max;
        if (st->tail[0] == 'm' && st->tail[1] == 'h') {
            CK_ULONG len = (CK_ULONG)st->tail[2] << 8 | st->tail[3];
            if (len <= max)
                *out = len;
        }
        return CKR_OK;
    }
    case MH_K_RSA_X509:
        if (n != k)
            return bad_len;
        *out = k;
        return CKR_OK;
    default:
        return CKR_MECHANISM_INVALID;
    }
}

enum { MH_FILL_PLAIN, MH_FILL_CLEAR, MH_FILL_CIPHER };

/* Filler for a result; ciphertexts carry the lengths decryption gives back. */
static void mh_fill(const mh_op *st, int what, CK_BYTE_PTR out, CK_ULONG len)
{
    if (!out || !len)
        return;
    memset(out, what == MH_FILL_CLEAR ? 0x5A : 0xA5, len);
    if (what != MH_FILL_CIPHER)
        return;
    CK_ULONG n = st->acc;
    switch (st->m->kind) {
    case MH_K_RSA_PKCS:
    case MH_K_RSA_OAEP:
        if (len >= 4) {
            out[len - 4] = 'm';
            out[len - 3] = 'h';
            out[len - 2] = (CK_BYTE)(n >> 8);
            out[len - 1] = (CK_BYTE)n;
        }
        break;
    case MH_K_AES_CBC_PAD:
        out[len - 1] = (CK_BYTE)(16 - n % 16);
        break;
    case MH_K_AES_KWP:
        if (mh_wrap_pkcs7(st)) {
            out[len - 1] = (CK_BYTE)(8 - n % 8);
            break;
        }
        if (len >= 8) {
            static const CK_BYTE aiv[4] = { 0xA6, 0x59, 0x59, 0xA6 };
            memcpy(out, aiv, 4);
            for (int i = 0; i < 4; i++)
                out[4 + i] = (CK_BYTE)(n >> (24 - 8 * i));
        }
        break;
    default:
        break;
    }
}

/* A size query's answer, as the quirks have it. */
static CK_ULONG mh_query_len(CK_ULONG len)
{
    if ((g_cfg.quirks & MH_Q_SHORT_QUERY) && len)
        return len - 1;
    if (g_cfg.quirks & MH_Q_LONG_QUERY)
        return 2 * len;
    return len;
}

/* A successful result's length, as the quirks have it. */
static CK_ULONG mh_result_len(CK_ULONG len)
{
    return (g_cfg.quirks & MH_Q_TRUNCATE) && len ? len - 1 : len;
}

/* ---- operations: Init, Update, the finishing calls -------------------------------- */

static CK_RV mh_op_init(CK_SESSION_HANDLE h, mh_opkind kind, CK_MECHANISM_PTR mech,
                        CK_OBJECT_HANDLE hKey)
{
    static const CK_FLAGS need[MH_OP_COUNT] = { CKF_ENCRYPT, CKF_DECRYPT, CKF_DIGEST, CKF_SIGN,
                                                CKF_VERIFY };
    static const CK_ATTRIBUTE_TYPE usage[MH_OP_COUNT] = { CKA_ENCRYPT, CKA_DECRYPT, 0, CKA_SIGN,
                                                          CKA_VERIFY };
    MH_REQUIRE_INIT();
    MH_SESSION(s, h);
    mh_op *op = &s->op[kind];
    CK_RV rv = CKR_OK;
    if (mech == NULL) {
        if (g_cfg.quirks & MH_Q_NO_CANCEL)
            rv = op->active ? CKR_OPERATION_ACTIVE : CKR_ARGUMENTS_BAD;   /* a 2.40 module */
        else
            mh_op_end(op);                  /* PKCS#11 3.0: a NULL mechanism cancels */
    } else if (op->active) {
        rv = CKR_OPERATION_ACTIVE;
    } else {
        mh_op next;
        memset(&next, 0, sizeof next);
        const mh_mech *m = mh_mech_find(mech->mechanism);
        if (!m || !(m->flags & need[kind]))
            rv = CKR_MECHANISM_INVALID;
        else
            rv = mh_params(m, mech, &next);
        if (rv == CKR_OK && kind != MH_OP_DIGEST) {
            mh_key k;
            rv = mh_key_get(s->slot, hKey, usage[kind], &k);
            if (rv == CKR_OK) {
                rv = mh_key_fits(m, &k, usage[kind]);
                next.key_len = k.len;
            }
        }
        if (rv == CKR_OK) {
            next.m = m;
            next.active = 1;
            next.seq = op->seq + 1;
            *op = next;
        }
    }
    mh_session_unlock(s);
    return rv;
}

/* Multi-part input.  Updates finish nothing, so they cost no service time. */
static CK_RV mh_op_update(CK_SESSION_HANDLE h, mh_opkind kind, const CK_BYTE *in, CK_ULONG n,
                          CK_BYTE_PTR out, CK_ULONG_PTR pulOut)
{
    MH_REQUIRE_INIT();
    MH_SESSION(s, h);
    mh_op *op = &s->op[kind];
    int cipher = kind == MH_OP_ENCRYPT || kind == MH_OP_DECRYPT;
    CK_RV rv = CKR_OK;
    if (!op->active) {
        rv = CKR_OPERATION_NOT_INITIALIZED;
    } else if (op->busy) {
        rv = CKR_OPERATION_ACTIVE;
    } else if ((in == NULL && n) || (cipher && pulOut == NULL)) {
        mh_op_end(op);
        rv = CKR_ARGUMENTS_BAD;
    } else {
        mh_op next = *op;
        next.multi = 1;
        if (cipher) {
            CK_ULONG o;
            mh_cipher_update(&next, kind == MH_OP_DECRYPT, in, n, &o);
            if (out == NULL || *pulOut < o) {
                rv = out == NULL ? CKR_OK : CKR_BUFFER_TOO_SMALL;
                *pulOut = o;
                mh_session_unlock(s);
                return rv;                  /* nothing taken: the state stays */
            }
            mh_fill(&next, kind == MH_OP_DECRYPT ? MH_FILL_CLEAR : MH_FILL_PLAIN, out, o);
            *pulOut = o;
        } else {
            mh_remember(&next, in, n);
        }
        *op = next;
    }
    mh_session_unlock(s);
    return rv;
}

/* One finishing call: a one-shot C_Sign/C_Encrypt/... or a *Final. */
typedef struct mh_call {
    mh_opkind      kind;
    int            oneshot;
    const CK_BYTE *in;           /* one-shot input */
    CK_ULONG       in_len;
    CK_BYTE_PTR    out;          /* output; pulOut NULL for verification */
    CK_ULONG_PTR   pulOut;
    const CK_BYTE *sig;          /* verification: the signature */
    CK_ULONG       sig_len;
} mh_call;

/* Check and size the call's result in `after` (the state after its input). */
static CK_RV mh_result(const mh_call *c, mh_op *after, CK_ULONG *len)
{
    int dec = c->kind == MH_OP_DECRYPT;
    CK_RV rv = CKR_OK;
    if ((c->in == NULL && c->in_len) || (c->kind != MH_OP_VERIFY && c->pulOut == NULL) ||
        (c->kind == MH_OP_VERIFY && c->sig == NULL && c->sig_len))
        return CKR_ARGUMENTS_BAD;
    switch (c->kind) {
    case MH_OP_ENCRYPT:
    case MH_OP_DECRYPT: {
        CK_ULONG u = 0, f = 0;
        if (c->oneshot)
            mh_cipher_update(after, dec, c->in, c->in_len, &u);
        rv = mh_cipher_final(after, dec, &f);
        *len = u + f;
        return rv;
    }
    case MH_OP_DIGEST:
        if (c->oneshot)
            mh_remember(after, c->in, c->in_len);
        *len = after->m->out;
        return CKR_OK;
    case MH_OP_SIGN:
    case MH_OP_VERIFY:
        if (c->oneshot)
            mh_remember(after, c->in, c->in_len);
        rv = mh_sign_input(after, after->acc);
        *len = mh_sig_len(after);
        if (rv == CKR_OK && c->kind == MH_OP_VERIFY && c->sig_len != *len)
            rv = CKR_SIGNATURE_LEN_RANGE;      /* any signature of the right length is valid */
        return rv;
    case MH_OP_COUNT:
        break;
    }
    return CKR_GENERAL_ERROR;
}

static CK_RV mh_finish(CK_SESSION_HANDLE h, const mh_call *c)
{
    MH_REQUIRE_INIT();
    MH_SESSION(s, h);
    mh_op *op = &s->op[c->kind];
    CK_ULONG len = 0;
    CK_RV rv;

    if (!op->active || op->busy || (c->oneshot && op->multi)) {
        rv = !op->active ? CKR_OPERATION_NOT_INITIALIZED : CKR_OPERATION_ACTIVE;
        mh_session_unlock(s);
        return rv;
    }
    mh_op after = *op;
    rv = mh_result(c, &after, &len);
    if (rv != CKR_OK) {
        if (!(g_cfg.quirks & MH_Q_STICKY))
            mh_op_end(op);                  /* errors end the operation */
        mh_session_unlock(s);
        return rv;
    }
    if (c->kind != MH_OP_VERIFY && (c->out == NULL || *c->pulOut < len)) {
        /* A size query or a short buffer: answered at once; the operation stays. */
        rv = c->out == NULL ? CKR_OK : CKR_BUFFER_TOO_SMALL;
        *c->pulOut = c->out == NULL ? mh_query_len(len) : len;
        mh_session_unlock(s);
        return rv;
    }
    CK_ULONG result = c->kind == MH_OP_VERIFY ? 0 : mh_result_len(len);
    if ((s->flags & CKF_ASYNC_SESSION) && c->oneshot) {
        mh_pending *p = &s->pending[c->kind];
        if (p->active) {
            rv = CKR_OPERATION_ACTIVE;      /* one pending call per function name */
        } else {
            p->active = 1;
            p->op = after;
            p->buf = c->out;
            p->len = result;
            p->rv = mh_injected();
            p->due = g_timing ? mh_schedule(mh_now()) : 0;
            mh_op_end(op);
            rv = CKR_PENDING;
        }
        mh_session_unlock(s);
        return rv;
    }
    unsigned seq = op->seq;
    op->busy = 1;
    mh_session_unlock(s);

    mh_hang(1u << c->kind);                 /* hang=: never returns */
    mh_serve();                             /* no lock held while in service */
    rv = mh_broken_pipe();                  /* sigpipe=: the client's socket is dead */
    if (rv == CKR_OK)
        rv = mh_injected();

    if ((s = mh_session_get(h)) == NULL)
        return CKR_SESSION_CLOSED;
    op = &s->op[c->kind];
    if (op->seq != seq) {
        mh_session_unlock(s);
        return CKR_FUNCTION_CANCELED;       /* cancelled while in service */
    }
    if (rv != CKR_OK && (g_cfg.quirks & MH_Q_STICKY))
        op->busy = 0;                       /* the failure leaves the operation active */
    else
        mh_op_end(op);
    mh_session_unlock(s);
    if (rv == CKR_SESSION_HANDLE_INVALID) {
        mh_session_close(h);                /* the injected failure is real */
        return rv;
    }
    if (rv != CKR_OK)
        return rv;
    if (c->kind == MH_OP_ENCRYPT && c->oneshot && (g_cfg.quirks & MH_Q_CAPACITY))
        result = *c->pulOut;                /* the buffer's capacity as the length */
    if (c->kind != MH_OP_VERIFY) {
        mh_fill(&after, c->kind == MH_OP_ENCRYPT ? MH_FILL_CIPHER
                        : c->kind == MH_OP_DECRYPT ? MH_FILL_CLEAR : MH_FILL_PLAIN,
                c->out, result);
        *c->pulOut = result;
    }
    return CKR_OK;
}

static CK_RV mh_EncryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    return mh_op_init(hSession, MH_OP_ENCRYPT, pMechanism, hKey);
}

static CK_RV mh_Encrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                        CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen)
{
    mh_call c = { MH_OP_ENCRYPT, 1, pData, ulDataLen, pEncryptedData, pulEncryptedDataLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_EncryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
                              CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen)
{
    return mh_op_update(hSession, MH_OP_ENCRYPT, pPart, ulPartLen, pEncryptedPart, pulEncryptedPartLen);
}

static CK_RV mh_EncryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastEncryptedPart,
                             CK_ULONG_PTR pulLastEncryptedPartLen)
{
    mh_call c = { MH_OP_ENCRYPT, 0, NULL, 0, pLastEncryptedPart, pulLastEncryptedPartLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_DecryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    return mh_op_init(hSession, MH_OP_DECRYPT, pMechanism, hKey);
}

static CK_RV mh_Decrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData, CK_ULONG ulEncryptedDataLen,
                        CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen)
{
    mh_call c = { MH_OP_DECRYPT, 1, pEncryptedData, ulEncryptedDataLen, pData, pulDataLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_DecryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
                              CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen)
{
    return mh_op_update(hSession, MH_OP_DECRYPT, pEncryptedPart, ulEncryptedPartLen, pPart, pulPartLen);
}

static CK_RV mh_DecryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastPart, CK_ULONG_PTR pulLastPartLen)
{
    mh_call c = { MH_OP_DECRYPT, 0, NULL, 0, pLastPart, pulLastPartLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_DigestInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism)
{
    return mh_op_init(hSession, MH_OP_DIGEST, pMechanism, CK_INVALID_HANDLE);
}

static CK_RV mh_Digest(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                       CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
    mh_call c = { MH_OP_DIGEST, 1, pData, ulDataLen, pDigest, pulDigestLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_DigestUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
    return mh_op_update(hSession, MH_OP_DIGEST, pPart, ulPartLen, NULL, NULL);
}

static CK_RV mh_DigestFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
    mh_call c = { MH_OP_DIGEST, 0, NULL, 0, pDigest, pulDigestLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    return mh_op_init(hSession, MH_OP_SIGN, pMechanism, hKey);
}

static CK_RV mh_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                     CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)
{
    mh_call c = { MH_OP_SIGN, 1, pData, ulDataLen, pSignature, pulSignatureLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_SignUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
    return mh_op_update(hSession, MH_OP_SIGN, pPart, ulPartLen, NULL, NULL);
}

static CK_RV mh_SignFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)
{
    mh_call c = { MH_OP_SIGN, 0, NULL, 0, pSignature, pulSignatureLen, NULL, 0 };
    return mh_finish(hSession, &c);
}

static CK_RV mh_VerifyInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
    return mh_op_init(hSession, MH_OP_VERIFY, pMechanism, hKey);
}

static CK_RV mh_Verify(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                       CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)
{
    mh_call c = { MH_OP_VERIFY, 1, pData, ulDataLen, NULL, NULL, pSignature, ulSignatureLen };
    return mh_finish(hSession, &c);
}

static CK_RV mh_VerifyUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
    return mh_op_update(hSession, MH_OP_VERIFY, pPart, ulPartLen, NULL, NULL);
}

static CK_RV mh_VerifyFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)
{
    mh_call c = { MH_OP_VERIFY, 0, NULL, 0, NULL, NULL, pSignature, ulSignatureLen };
    return mh_finish(hSession, &c);
}

/* ---- key management and random numbers ------------------------------------------- */

/* Service time and an injected failure for a finishing call outside the
 * operation state (key generation, wrapping, random numbers, ...). */
static CK_RV mh_work(CK_SESSION_HANDLE h)
{
    if (atomic_load(&g_preloading))
        return CKR_OK;
    mh_serve();
    CK_RV rv = mh_broken_pipe();
    if (rv == CKR_OK)
        rv = mh_injected();
    if (rv == CKR_SESSION_HANDLE_INVALID)
        mh_session_close(h);
    else if (rv == CKR_OK && mh_session_check(h, NULL) != CKR_OK)
        rv = CKR_SESSION_CLOSED;            /* closed while in service */
    return rv;
}

static CK_RV mh_obj_set_filler(mh_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG len, CK_BYTE byte)
{
    CK_BYTE *v = malloc(len ? len : 1);
    if (!v)
        return CKR_HOST_MEMORY;
    memset(v, byte, len);
    CK_RV rv = mh_obj_set(o, type, v, len);
    free(v);
    return rv;
}

/* The template may name the class and key type, but not others than these. */
static CK_RV mh_obj_kind(mh_object *o, CK_OBJECT_CLASS cls, CK_KEY_TYPE kt)
{
    if (mh_obj_ulong(o, CKA_CLASS, cls) != cls || mh_obj_ulong(o, CKA_KEY_TYPE, kt) != kt)
        return CKR_TEMPLATE_INCONSISTENT;
    CK_RV rv = mh_obj_set_ulong(o, CKA_CLASS, cls);
    return rv == CKR_OK ? mh_obj_set_ulong(o, CKA_KEY_TYPE, kt) : rv;
}

/* Remove an object that was just inserted (a key pair's first half). */
static void mh_obj_destroy_handle(CK_OBJECT_HANDLE h)
{
    mh_object *gone = NULL;
    pthread_mutex_lock(&g_obj_mu);
    size_t idx = (size_t)(h & MH_OBJ_MASK);
    if (idx && idx <= g_objs_used && g_objs[idx - 1].o && g_objs[idx - 1].o->handle == h)
        gone = mh_obj_remove(idx - 1);
    pthread_mutex_unlock(&g_obj_mu);
    mh_obj_free(gone);
}

static CK_RV mh_GenerateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                            CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phKey)
{
    CK_FLAGS sflags;
    mh_object *o = NULL;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, &sflags);
    if (rv != CKR_OK)
        return rv;
    if (pMechanism == NULL || phKey == NULL)
        return CKR_ARGUMENTS_BAD;
    const mh_mech *m = mh_mech_find(pMechanism->mechanism);
    if (!m || !(m->flags & CKF_GENERATE))
        return CKR_MECHANISM_INVALID;
    if ((g_cfg.quirks & MH_Q_NO_KEYGEN) && !atomic_load(&g_preloading))
        return CKR_FUNCTION_NOT_SUPPORTED;
    if ((rv = mh_obj_from_template(pTemplate, ulCount, &o)) != CKR_OK)
        return rv;
    CK_KEY_TYPE kt = m->kind == MH_K_GEN_AES ? CKK_AES : m->kind == MH_K_GEN_DES3 ? CKK_DES3
                                                                                  : CKK_GENERIC_SECRET;
    CK_ULONG len = mh_obj_ulong(o, CKA_VALUE_LEN, 0);
    if (mh_obj_attr(o, CKA_VALUE))
        rv = CKR_TEMPLATE_INCONSISTENT;
    else if (m->kind == MH_K_GEN_DES3)
        len = 24;
    else if (!mh_obj_attr(o, CKA_VALUE_LEN))
        rv = CKR_TEMPLATE_INCOMPLETE;
    else if (m->kind == MH_K_GEN_AES ? (len != 16 && len != 24 && len != 32) : (len < 1 || len > 512))
        rv = CKR_ATTRIBUTE_VALUE_INVALID;
    if (rv == CKR_OK)
        rv = mh_obj_kind(o, CKO_SECRET_KEY, kt);
    if (rv == CKR_OK)
        rv = mh_obj_set_filler(o, CKA_VALUE, len, 0x4B);
    if (rv == CKR_OK)
        rv = mh_obj_set_ulong(o, CKA_VALUE_LEN, len);
    if (rv == CKR_OK)
        rv = mh_obj_finish(o, hSession, sflags, 1);
    if (rv == CKR_OK)
        rv = mh_work(hSession);
    if (rv != CKR_OK) {
        mh_obj_free(o);
        return rv;
    }
    if ((rv = mh_obj_insert(o, phKey)) == CKR_OK)
        mh_hang_made(MH_HANG_KEYGEN);       /* hang=C_GenerateKey: made, never answered */
    return rv;
}

/* DER OCTET STRING holding an uncompressed point (or an Edwards key) of the field's size. */
static CK_RV mh_set_ec_point(mh_object *o, CK_ULONG field, int edwards)
{
    CK_BYTE buf[4 + 2 * 66 + 1];
    CK_ULONG plen = edwards ? field : 2 * field + 1, n = 0;
    buf[n++] = 0x04;
    if (plen > 127)
        buf[n++] = 0x81;
    buf[n++] = (CK_BYTE)plen;
    memset(buf + n, 0x3C, plen);
    if (!edwards)
        buf[n] = 0x04;                      /* uncompressed */
    return mh_obj_set(o, CKA_EC_POINT, buf, n + plen);
}

static CK_RV mh_GenerateKeyPair(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                CK_ATTRIBUTE_PTR pPublicKeyTemplate, CK_ULONG ulPublicKeyAttributeCount,
                                CK_ATTRIBUTE_PTR pPrivateKeyTemplate, CK_ULONG ulPrivateKeyAttributeCount,
                                CK_OBJECT_HANDLE_PTR phPublicKey, CK_OBJECT_HANDLE_PTR phPrivateKey)
{
    static const CK_BYTE f4[] = { 0x01, 0x00, 0x01 };
    CK_FLAGS sflags;
    mh_object *pub = NULL, *priv = NULL;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, &sflags);
    if (rv != CKR_OK)
        return rv;
    if (pMechanism == NULL || phPublicKey == NULL || phPrivateKey == NULL)
        return CKR_ARGUMENTS_BAD;
    const mh_mech *m = mh_mech_find(pMechanism->mechanism);
    if (!m || !(m->flags & CKF_GENERATE_KEY_PAIR))
        return CKR_MECHANISM_INVALID;
    if ((g_cfg.quirks & MH_Q_NO_KEYGEN) && !atomic_load(&g_preloading))
        return CKR_FUNCTION_NOT_SUPPORTED;
    rv = mh_obj_from_template(pPublicKeyTemplate, ulPublicKeyAttributeCount, &pub);
    if (rv == CKR_OK)
        rv = mh_obj_from_template(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, &priv);
    if (rv == CKR_OK && m->kind == MH_K_GEN_RSA) {
        CK_ULONG bits = mh_obj_ulong(pub, CKA_MODULUS_BITS, 0), k = (bits + 7) / 8;
        if (!mh_obj_attr(pub, CKA_MODULUS_BITS))
            rv = CKR_TEMPLATE_INCOMPLETE;
        else if (bits < MH_RSA_MIN || bits > g_cfg.max_rsa)
            rv = CKR_KEY_SIZE_RANGE;
        CK_BYTE *mod = rv == CKR_OK ? malloc(k) : NULL;
        if (rv == CKR_OK && !mod)
            rv = CKR_HOST_MEMORY;
        if (rv == CKR_OK) {
            memset(mod, 0xC5, k);
            mod[0] = (CK_BYTE)((0xC5 | 0x80) >> (8 * k - bits));   /* exactly `bits` bits */
            mod[k - 1] |= 1;
            const mh_attr *e = mh_obj_attr(pub, CKA_PUBLIC_EXPONENT);
            const void *ev = e ? (const void *)e->val : f4;
            CK_ULONG el = e ? e->len : sizeof f4;
            rv = mh_obj_kind(pub, CKO_PUBLIC_KEY, CKK_RSA);
            if (rv == CKR_OK)
                rv = mh_obj_kind(priv, CKO_PRIVATE_KEY, CKK_RSA);
            if (rv == CKR_OK)
                rv = mh_obj_set(pub, CKA_MODULUS, mod, k);
            if (rv == CKR_OK)
                rv = mh_obj_set(priv, CKA_MODULUS, mod, k);
            if (rv == CKR_OK && !e)
                rv = mh_obj_set(pub, CKA_PUBLIC_EXPONENT, ev, el);
            if (rv == CKR_OK)
                rv = mh_obj_set(priv, CKA_PUBLIC_EXPONENT, ev, el);
            if (rv == CKR_OK)
                rv = mh_obj_set_filler(priv, CKA_PRIVATE_EXPONENT, k, 0x6D);
        }
        free(mod);
    } else if (rv == CKR_OK) {              /* EC and Edwards */
        int ed = m->kind == MH_K_GEN_ED;
        const mh_attr *p = mh_obj_attr(pub, CKA_EC_PARAMS);
        if (!p)
            p = mh_obj_attr(priv, CKA_EC_PARAMS);
        CK_ULONG field = p ? mh_curve_field(p->val, p->len, ed) : 0;
        CK_BYTE params[32];                 /* both halves keep the curve */
        CK_ULONG plen = field ? p->len : 0;
        if (!p)
            rv = CKR_TEMPLATE_INCOMPLETE;
        else if (!field)
            rv = CKR_CURVE_NOT_SUPPORTED;
        else
            memcpy(params, p->val, plen);   /* p dies with the next change to the template */
        if (rv == CKR_OK)
            rv = mh_obj_kind(pub, CKO_PUBLIC_KEY, ed ? CKK_EC_EDWARDS : CKK_EC);
        if (rv == CKR_OK)
            rv = mh_obj_kind(priv, CKO_PRIVATE_KEY, ed ? CKK_EC_EDWARDS : CKK_EC);
        if (rv == CKR_OK)
            rv = mh_obj_set(pub, CKA_EC_PARAMS, params, plen);
        if (rv == CKR_OK)
            rv = mh_obj_set(priv, CKA_EC_PARAMS, params, plen);
        if (rv == CKR_OK)
            rv = mh_set_ec_point(pub, field, ed);
        if (rv == CKR_OK)
            rv = mh_obj_set_filler(priv, CKA_VALUE, field, 0x6D);
    }
    if (rv == CKR_OK)
        rv = mh_obj_finish(pub, hSession, sflags, 1);
    if (rv == CKR_OK)
        rv = mh_obj_finish(priv, hSession, sflags, 1);
    if (rv == CKR_OK)
        rv = mh_work(hSession);
    if (rv != CKR_OK) {
        mh_obj_free(pub);
        mh_obj_free(priv);
        return rv;
    }
    if ((rv = mh_obj_insert(pub, phPublicKey)) != CKR_OK) {
        mh_obj_free(priv);
        return rv;
    }
    if ((rv = mh_obj_insert(priv, phPrivateKey)) != CKR_OK)
        mh_obj_destroy_handle(*phPublicKey);
    else
        mh_hang_made(MH_HANG_KEYPAIR);      /* hang=C_GenerateKeyPair: made, never answered */
    return rv;
}

/* One keys= key on the token of session h: token objects, not private (so
 * that login=required shows them too), every use allowed. */
static CK_RV mh_preload_key(CK_SESSION_HANDLE h, const mh_keydef *k)
{
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ULONG bits = k->bits, bytes = k->bits / 8;
    CK_OBJECT_HANDLE pub, priv;
    CK_ATTRIBUTE common[4] = {
        { CKA_TOKEN, &yes, sizeof yes }, { CKA_PRIVATE, &no, sizeof no },
        { CKA_LABEL, (void *)k->label, (CK_ULONG)strlen(k->label) }, { 0, NULL, 0 },
    };
    CK_MECHANISM mech = { 0, NULL, 0 };
    if (k->kind == 'a' || k->kind == 'g') {
        mech.mechanism = k->kind == 'a' ? CKM_AES_KEY_GEN : CKM_GENERIC_SECRET_KEY_GEN;
        common[3] = (CK_ATTRIBUTE){ CKA_VALUE_LEN, &bytes, sizeof bytes };
        return mh_GenerateKey(h, &mech, common, 4, &priv);
    }
    CK_ATTRIBUTE pubt[4];
    memcpy(pubt, common, sizeof pubt);
    if (k->kind == 'r') {
        mech.mechanism = CKM_RSA_PKCS_KEY_PAIR_GEN;
        pubt[3] = (CK_ATTRIBUTE){ CKA_MODULUS_BITS, &bits, sizeof bits };
    } else {
        mech.mechanism = CKM_EC_KEY_PAIR_GEN;
        pubt[3] = (CK_ATTRIBUTE){ CKA_EC_PARAMS, (void *)mh_curves[k->curve].der,
                                  (CK_ULONG)mh_curves[k->curve].len };
    }
    return mh_GenerateKeyPair(h, &mech, pubt, 4, common, 3, &pub, &priv);
}

/* keys=: made on every token at C_Initialize, before the application sees it. */
static CK_RV mh_preload(void)
{
    CK_RV rv = CKR_OK;
    if (!g_cfg.nkeys)
        return CKR_OK;
    atomic_store(&g_preloading, 1);
    for (unsigned slot = 0; rv == CKR_OK && slot < g_cfg.slots; slot++) {
        CK_SESSION_HANDLE h;
        rv = mh_session_open(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, &h);
        for (int i = 0; rv == CKR_OK && i < g_cfg.nkeys; i++)
            rv = mh_preload_key(h, &g_cfg.keys[i]);
        if (rv == CKR_OK)
            rv = mh_session_close(h);
    }
    atomic_store(&g_preloading, 0);
    if (rv != CKR_OK)
        fprintf(stderr, "hsmbench-mock: keys=: a key could not be made (0x%lx)\n", (unsigned long)rv);
    return rv;
}

/* A wrapping key's errors have their own names. */
static CK_RV mh_wrapping_rv(CK_RV rv, int unwrap)
{
    switch (rv) {
    case CKR_KEY_HANDLE_INVALID:
        return unwrap ? CKR_UNWRAPPING_KEY_HANDLE_INVALID : CKR_WRAPPING_KEY_HANDLE_INVALID;
    case CKR_KEY_TYPE_INCONSISTENT:
        return unwrap ? CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT : CKR_WRAPPING_KEY_TYPE_INCONSISTENT;
    case CKR_KEY_SIZE_RANGE:
        return unwrap ? CKR_UNWRAPPING_KEY_SIZE_RANGE : CKR_WRAPPING_KEY_SIZE_RANGE;
    default:
        return rv;
    }
}

/* Mechanism, parameter and (un)wrapping key of C_WrapKey / C_UnwrapKey, into st. */
static CK_RV mh_wrap_setup(unsigned slot, CK_MECHANISM_PTR mech, CK_OBJECT_HANDLE hKey, int unwrap,
                           mh_op *st)
{
    CK_ATTRIBUTE_TYPE usage = unwrap ? CKA_UNWRAP : CKA_WRAP;
    mh_key k;
    memset(st, 0, sizeof *st);
    const mh_mech *m = mh_mech_find(mech->mechanism);
    if (!m || !(m->flags & (unwrap ? CKF_UNWRAP : CKF_WRAP)))
        return CKR_MECHANISM_INVALID;
    CK_RV rv = mh_params(m, mech, st);
    if (rv == CKR_OK)
        rv = mh_key_get(slot, hKey, usage, &k);
    if (rv == CKR_OK)
        rv = mh_key_fits(m, &k, usage);
    if (rv != CKR_OK)
        return mh_wrapping_rv(rv, unwrap);
    st->m = m;
    st->key_len = k.len;
    return CKR_OK;
}

static CK_RV mh_WrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                        CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey, CK_BYTE_PTR pWrappedKey,
                        CK_ULONG_PTR pulWrappedKeyLen)
{
    mh_op st;
    mh_key target;
    CK_ULONG u = 0, f = 0;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pMechanism == NULL || pulWrappedKeyLen == NULL)
        return CKR_ARGUMENTS_BAD;
    const unsigned slot = mh_session_slot(hSession);
    if ((rv = mh_wrap_setup(slot, pMechanism, hWrappingKey, 0, &st)) != CKR_OK)
        return rv;
    if ((rv = mh_key_get(slot, hKey, 0, &target)) != CKR_OK)
        return rv;
    if (target.cls != CKO_SECRET_KEY)
        return CKR_KEY_NOT_WRAPPABLE;       /* the mock wraps secret keys only */
    if (!target.extractable)
        return CKR_KEY_UNEXTRACTABLE;
    mh_cipher_update(&st, 0, NULL, target.len, &u);
    if (mh_cipher_final(&st, 0, &f) != CKR_OK)
        return CKR_KEY_SIZE_RANGE;
    CK_ULONG len = u + f;
    if (pWrappedKey == NULL) {
        *pulWrappedKeyLen = mh_query_len(len);
        return CKR_OK;
    }
    if (*pulWrappedKeyLen < len) {
        *pulWrappedKeyLen = len;
        return CKR_BUFFER_TOO_SMALL;
    }
    if ((rv = mh_work(hSession)) != CKR_OK)
        return rv;
    len = mh_result_len(len);
    mh_fill(&st, MH_FILL_CIPHER, pWrappedKey, len);
    *pulWrappedKeyLen = len;
    return CKR_OK;
}

/* A new secret key (unwrapped or derived) from the template: class and
 * type checked, CKA_VALUE filler of `len` bytes unless the template's
 * CKA_VALUE_LEN says less. */
static CK_RV mh_new_secret(CK_SESSION_HANDLE h, CK_ATTRIBUTE_PTR t, CK_ULONG n, CK_KEY_TYPE dflt,
                           CK_ULONG len, CK_RV len_rv, mh_object **out)
{
    CK_FLAGS sflags;
    mh_object *o;
    CK_RV rv = mh_session_check(h, &sflags);
    if (rv != CKR_OK)
        return rv;
    if ((rv = mh_obj_from_template(t, n, &o)) != CKR_OK)
        return rv;
    CK_KEY_TYPE kt = mh_obj_ulong(o, CKA_KEY_TYPE, dflt);
    if (kt == (CK_ULONG)-1) {
        mh_obj_free(o);
        return CKR_TEMPLATE_INCOMPLETE;
    }
    CK_ULONG want = mh_obj_ulong(o, CKA_VALUE_LEN, len);
    if (mh_obj_attr(o, CKA_VALUE))
        rv = CKR_TEMPLATE_INCONSISTENT;
    else if (want > len || want == 0)
        rv = len_rv;
    else if (kt == CKK_AES && want != 16 && want != 24 && want != 32)
        rv = len_rv;
    if (rv == CKR_OK)
        rv = mh_obj_kind(o, CKO_SECRET_KEY, kt);
    if (rv == CKR_OK)
        rv = mh_obj_set_filler(o, CKA_VALUE, want, 0x4B);
    if (rv == CKR_OK)
        rv = mh_obj_set_ulong(o, CKA_VALUE_LEN, want);
    if (rv == CKR_OK)
        rv = mh_obj_finish(o, h, sflags, 0);
    if (rv != CKR_OK) {
        mh_obj_free(o);
        return rv;
    }
    *out = o;
    return CKR_OK;
}

static CK_RV mh_UnwrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                          CK_OBJECT_HANDLE hUnwrappingKey, CK_BYTE_PTR pWrappedKey,
                          CK_ULONG ulWrappedKeyLen, CK_ATTRIBUTE_PTR pTemplate,
                          CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey)
{
    mh_op st;
    mh_object *o;
    CK_ULONG u = 0, len = 0;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pMechanism == NULL || phKey == NULL || (pWrappedKey == NULL && ulWrappedKeyLen))
        return CKR_ARGUMENTS_BAD;
    if ((rv = mh_wrap_setup(mh_session_slot(hSession), pMechanism, hUnwrappingKey, 1, &st)) != CKR_OK)
        return rv;
    mh_cipher_update(&st, 1, pWrappedKey, ulWrappedKeyLen, &u);
    if (mh_cipher_final(&st, 1, &len) != CKR_OK)
        return CKR_WRAPPED_KEY_LEN_RANGE;
    len += u;
    if ((rv = mh_new_secret(hSession, pTemplate, ulAttributeCount, (CK_ULONG)-1, len,
                            CKR_WRAPPED_KEY_LEN_RANGE, &o)) != CKR_OK)
        return rv;
    if ((rv = mh_work(hSession)) != CKR_OK) {
        mh_obj_free(o);
        return rv;
    }
    return mh_obj_insert(o, phKey);
}

static CK_RV mh_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                          CK_OBJECT_HANDLE hBaseKey, CK_ATTRIBUTE_PTR pTemplate,
                          CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey)
{
    CK_ECDH1_DERIVE_PARAMS ecdh;
    mh_key k;
    mh_object *o;
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pMechanism == NULL || phKey == NULL)
        return CKR_ARGUMENTS_BAD;
    const mh_mech *m = mh_mech_find(pMechanism->mechanism);
    if (!m || !(m->flags & CKF_DERIVE))
        return CKR_MECHANISM_INVALID;
    if (!pMechanism->pParameter || pMechanism->ulParameterLen != sizeof ecdh)
        return CKR_MECHANISM_PARAM_INVALID;
    memcpy(&ecdh, pMechanism->pParameter, sizeof ecdh);
    if (!ecdh.pPublicData || !ecdh.ulPublicDataLen || (ecdh.pSharedData == NULL && ecdh.ulSharedDataLen))
        return CKR_MECHANISM_PARAM_INVALID;
    if ((rv = mh_key_get(mh_session_slot(hSession), hBaseKey, CKA_DERIVE, &k)) != CKR_OK || (rv = mh_key_fits(m, &k, CKA_DERIVE)) != CKR_OK)
        return rv;
    /* Without a KDF the secret is the x coordinate: at most the field's bytes. */
    CK_ULONG max = ecdh.kdf == CKD_NULL ? k.len : 512;
    if ((rv = mh_new_secret(hSession, pTemplate, ulAttributeCount, CKK_GENERIC_SECRET, max,
                            CKR_TEMPLATE_INCONSISTENT, &o)) != CKR_OK)
        return rv;
    if ((rv = mh_work(hSession)) != CKR_OK) {
        mh_obj_free(o);
        return rv;
    }
    return mh_obj_insert(o, phKey);
}

static CK_RV mh_SeedRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv == CKR_OK && pSeed == NULL && ulSeedLen)
        rv = CKR_ARGUMENTS_BAD;
    return rv;                              /* mixed into nothing: the mock has no entropy pool */
}

static CK_RV mh_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pRandomData, CK_ULONG ulRandomLen)
{
    MH_REQUIRE_INIT();
    CK_RV rv = mh_session_check(hSession, NULL);
    if (rv != CKR_OK)
        return rv;
    if (pRandomData == NULL && ulRandomLen)
        return CKR_ARGUMENTS_BAD;
    if ((rv = mh_work(hSession)) != CKR_OK)
        return rv;
    for (CK_ULONG i = 0; i < ulRandomLen; i += 8) {
        uint64_t r = mh_rand();
        CK_ULONG n = ulRandomLen - i < 8 ? ulRandomLen - i : 8;
        memcpy(pRandomData + i, &r, n);
    }
    return CKR_OK;
}

/* ---- asynchronous functions (PKCS#11 3.2, async=1) -------------------------------- */

static int mh_async_kind(const CK_UTF8CHAR *name)
{
    for (int k = 0; k < MH_OP_COUNT; k++)
        if (strcmp((const char *)name, mh_op_fn[k]) == 0)
            return k;
    return -1;
}

/* Poll a pending one-shot call: CKR_PENDING until its due time, then its
 * own return value, the result written into the caller's buffer. */
static CK_RV mh_AsyncComplete(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName,
                              CK_ASYNC_DATA_PTR pResult)
{
    MH_REQUIRE_INIT();
    if (!g_cfg.async)
        return CKR_FUNCTION_NOT_SUPPORTED;
    if (pFunctionName == NULL)
        return CKR_ARGUMENTS_BAD;
    MH_SESSION(s, hSession);
    int k = mh_async_kind(pFunctionName);
    if (k < 0 || !s->pending[k].active) {
        mh_session_unlock(s);
        return CKR_OPERATION_NOT_INITIALIZED;
    }
    if (mh_now() < s->pending[k].due) {
        mh_session_unlock(s);
        return CKR_PENDING;
    }
    mh_pending p = s->pending[k];
    s->pending[k].active = 0;
    mh_session_unlock(s);
    if (p.rv == CKR_OK)
        mh_fill(&p.op, k == MH_OP_ENCRYPT ? MH_FILL_CIPHER : k == MH_OP_DECRYPT ? MH_FILL_CLEAR
                                                                                : MH_FILL_PLAIN,
                p.buf, p.len);
    if (pResult) {
        pResult->pValue = p.buf;            /* set on errors too: the caller frees it */
        pResult->ulValue = p.rv == CKR_OK ? p.len : 0;
        pResult->hObject = CK_INVALID_HANDLE;
        pResult->hAdditionalObject = CK_INVALID_HANDLE;
    }
    if (p.rv == CKR_SESSION_HANDLE_INVALID)
        mh_session_close(hSession);
    return p.rv;
}

/* Pending calls cannot outlive C_Finalize here: nothing to save or join. */
static CK_RV mh_AsyncGetID(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName, CK_ULONG_PTR pulID)
{
    MH_REQUIRE_INIT();
    if (!g_cfg.async)
        return CKR_FUNCTION_NOT_SUPPORTED;
    if (pFunctionName == NULL || pulID == NULL)
        return CKR_ARGUMENTS_BAD;
    MH_SESSION(s, hSession);
    int k = mh_async_kind(pFunctionName);
    CK_RV rv = k >= 0 && s->pending[k].active ? CKR_STATE_UNSAVEABLE : CKR_OPERATION_NOT_INITIALIZED;
    mh_session_unlock(s);
    return rv;
}

static CK_RV mh_AsyncJoin(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pFunctionName, CK_ULONG ulID,
                          CK_BYTE_PTR pData, CK_ULONG ulData)
{
    MH_REQUIRE_INIT();
    if (!g_cfg.async)
        return CKR_FUNCTION_NOT_SUPPORTED;
    if (pFunctionName == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_RV rv = mh_session_check(hSession, NULL);
    return rv == CKR_OK ? CKR_SAVED_STATE_INVALID : rv;   /* no ID was ever given out */
}

/* ---- functions the mock does not implement ---------------------------------------- */

#define MH_UNSUPPORTED(name, params) \
    static CK_RV mh_##name params { MH_REQUIRE_INIT(); return CKR_FUNCTION_NOT_SUPPORTED; }

#define MH_P_INIT   (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
#define MH_P_INOUT  (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pIn, CK_ULONG ulInLen, \
                     CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen)
#define MH_P_MCRYPT (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                     CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen, CK_BYTE_PTR pIn, \
                     CK_ULONG ulInLen, CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen)
#define MH_P_MBEGIN (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                     CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen)
#define MH_P_MNEXT  (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                     CK_BYTE_PTR pIn, CK_ULONG ulInLen, CK_BYTE_PTR pOut, CK_ULONG_PTR pulOutLen, \
                     CK_FLAGS flags)
#define MH_P_MSIGN  (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                     CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, \
                     CK_ULONG_PTR pulSignatureLen)
#define MH_P_MVERIFY (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                      CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, \
                      CK_ULONG ulSignatureLen)
#define MH_P_SPARAM (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen)
#define MH_P_SESS   (CK_SESSION_HANDLE hSession)

MH_UNSUPPORTED(InitToken, (CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pLabel))
MH_UNSUPPORTED(InitPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen))
MH_UNSUPPORTED(SetPIN, (CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin, CK_ULONG ulOldLen,
                        CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen))
MH_UNSUPPORTED(GetOperationState, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pOperationState,
                                   CK_ULONG_PTR pulOperationStateLen))
MH_UNSUPPORTED(SetOperationState, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pOperationState,
                                   CK_ULONG ulOperationStateLen, CK_OBJECT_HANDLE hEncryptionKey,
                                   CK_OBJECT_HANDLE hAuthenticationKey))
MH_UNSUPPORTED(CopyObject, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ATTRIBUTE_PTR pTemplate,
                            CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phNewObject))
MH_UNSUPPORTED(DigestKey, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hKey))
MH_UNSUPPORTED(SignRecoverInit, MH_P_INIT)
MH_UNSUPPORTED(SignRecover, MH_P_INOUT)
MH_UNSUPPORTED(VerifyRecoverInit, MH_P_INIT)
MH_UNSUPPORTED(VerifyRecover, MH_P_INOUT)
MH_UNSUPPORTED(DigestEncryptUpdate, MH_P_INOUT)
MH_UNSUPPORTED(DecryptDigestUpdate, MH_P_INOUT)
MH_UNSUPPORTED(SignEncryptUpdate, MH_P_INOUT)
MH_UNSUPPORTED(DecryptVerifyUpdate, MH_P_INOUT)
MH_UNSUPPORTED(WaitForSlotEvent, (CK_FLAGS flags, CK_SLOT_ID_PTR pSlot, CK_VOID_PTR pReserved))
MH_UNSUPPORTED(MessageEncryptInit, MH_P_INIT)
MH_UNSUPPORTED(EncryptMessage, MH_P_MCRYPT)
MH_UNSUPPORTED(EncryptMessageBegin, MH_P_MBEGIN)
MH_UNSUPPORTED(EncryptMessageNext, MH_P_MNEXT)
MH_UNSUPPORTED(MessageEncryptFinal, MH_P_SESS)
MH_UNSUPPORTED(MessageDecryptInit, MH_P_INIT)
MH_UNSUPPORTED(DecryptMessage, MH_P_MCRYPT)
MH_UNSUPPORTED(DecryptMessageBegin, MH_P_MBEGIN)
MH_UNSUPPORTED(DecryptMessageNext, MH_P_MNEXT)
MH_UNSUPPORTED(MessageDecryptFinal, MH_P_SESS)
MH_UNSUPPORTED(MessageSignInit, MH_P_INIT)
MH_UNSUPPORTED(SignMessage, MH_P_MSIGN)
MH_UNSUPPORTED(SignMessageBegin, MH_P_SPARAM)
MH_UNSUPPORTED(SignMessageNext, MH_P_MSIGN)
MH_UNSUPPORTED(MessageSignFinal, MH_P_SESS)
MH_UNSUPPORTED(MessageVerifyInit, MH_P_INIT)
MH_UNSUPPORTED(VerifyMessage, MH_P_MVERIFY)
MH_UNSUPPORTED(VerifyMessageBegin, MH_P_SPARAM)
MH_UNSUPPORTED(VerifyMessageNext, MH_P_MVERIFY)
MH_UNSUPPORTED(MessageVerifyFinal, MH_P_SESS)
MH_UNSUPPORTED(EncapsulateKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                CK_OBJECT_HANDLE hPublicKey, CK_ATTRIBUTE_PTR pTemplate,
                                CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext,
                                CK_ULONG_PTR pulCiphertextLen, CK_OBJECT_HANDLE_PTR phKey))
MH_UNSUPPORTED(DecapsulateKey, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                CK_OBJECT_HANDLE hPrivateKey, CK_ATTRIBUTE_PTR pTemplate,
                                CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext,
                                CK_ULONG ulCiphertextLen, CK_OBJECT_HANDLE_PTR phKey))
MH_UNSUPPORTED(VerifySignatureInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                     CK_OBJECT_HANDLE hKey, CK_BYTE_PTR pSignature,
                                     CK_ULONG ulSignatureLen))
MH_UNSUPPORTED(VerifySignature, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen))
MH_UNSUPPORTED(VerifySignatureUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen))
MH_UNSUPPORTED(VerifySignatureFinal, MH_P_SESS)
MH_UNSUPPORTED(GetSessionValidationFlags, (CK_SESSION_HANDLE hSession, CK_SESSION_VALIDATION_FLAGS_TYPE type,
                                           CK_FLAGS *pFlags))
MH_UNSUPPORTED(WrapKeyAuthenticated, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                      CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey,
                                      CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen,
                                      CK_BYTE_PTR pWrappedKey, CK_ULONG_PTR pulWrappedKeyLen))
MH_UNSUPPORTED(UnwrapKeyAuthenticated, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                                        CK_OBJECT_HANDLE hUnwrappingKey, CK_BYTE_PTR pWrappedKey,
                                        CK_ULONG ulWrappedKeyLen, CK_ATTRIBUTE_PTR pTemplate,
                                        CK_ULONG ulAttributeCount, CK_BYTE_PTR pAssociatedData,
                                        CK_ULONG ulAssociatedDataLen, CK_OBJECT_HANDLE_PTR phKey))

/* Legacy parallel-function calls: PKCS#11 says to answer CKR_FUNCTION_NOT_PARALLEL. */
static CK_RV mh_GetFunctionStatus(CK_SESSION_HANDLE hSession)
{
    MH_REQUIRE_INIT();
    return CKR_FUNCTION_NOT_PARALLEL;
}

static CK_RV mh_CancelFunction(CK_SESSION_HANDLE hSession)
{
    MH_REQUIRE_INIT();
    return CKR_FUNCTION_NOT_PARALLEL;
}

/* ---- function lists and interfaces ------------------------------------------------ */

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList);
__attribute__((visibility("default")))
CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount);
__attribute__((visibility("default")))
CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags);

#define MH_FN(name) .C_##name = mh_##name

#define MH_FUNCTIONS_2_40 \
    MH_FN(Initialize), MH_FN(Finalize), MH_FN(GetInfo), \
    .C_GetFunctionList = C_GetFunctionList, \
    MH_FN(GetSlotList), MH_FN(GetSlotInfo), MH_FN(GetTokenInfo), \
    MH_FN(GetMechanismList), MH_FN(GetMechanismInfo), \
    MH_FN(InitToken), MH_FN(InitPIN), MH_FN(SetPIN), \
    MH_FN(OpenSession), MH_FN(CloseSession), MH_FN(CloseAllSessions), \
    MH_FN(GetSessionInfo), MH_FN(GetOperationState), MH_FN(SetOperationState), \
    MH_FN(Login), MH_FN(Logout), \
    MH_FN(CreateObject), MH_FN(CopyObject), MH_FN(DestroyObject), \
    MH_FN(GetObjectSize), MH_FN(GetAttributeValue), MH_FN(SetAttributeValue), \
    MH_FN(FindObjectsInit), MH_FN(FindObjects), MH_FN(FindObjectsFinal), \
    MH_FN(EncryptInit), MH_FN(Encrypt), MH_FN(EncryptUpdate), MH_FN(EncryptFinal), \
    MH_FN(DecryptInit), MH_FN(Decrypt), MH_FN(DecryptUpdate), MH_FN(DecryptFinal), \
    MH_FN(DigestInit), MH_FN(Digest), MH_FN(DigestUpdate), MH_FN(DigestKey), \
    MH_FN(DigestFinal), \
    MH_FN(SignInit), MH_FN(Sign), MH_FN(SignUpdate), MH_FN(SignFinal), \
    MH_FN(SignRecoverInit), MH_FN(SignRecover), \
    MH_FN(VerifyInit), MH_FN(Verify), MH_FN(VerifyUpdate), MH_FN(VerifyFinal), \
    MH_FN(VerifyRecoverInit), MH_FN(VerifyRecover), \
    MH_FN(DigestEncryptUpdate), MH_FN(DecryptDigestUpdate), \
    MH_FN(SignEncryptUpdate), MH_FN(DecryptVerifyUpdate), \
    MH_FN(GenerateKey), MH_FN(GenerateKeyPair), MH_FN(WrapKey), MH_FN(UnwrapKey), \
    MH_FN(DeriveKey), MH_FN(SeedRandom), MH_FN(GenerateRandom), \
    MH_FN(GetFunctionStatus), MH_FN(CancelFunction), MH_FN(WaitForSlotEvent)

#define MH_FUNCTIONS_3_0 \
    .C_GetInterfaceList = C_GetInterfaceList, .C_GetInterface = C_GetInterface, \
    MH_FN(LoginUser), MH_FN(SessionCancel), \
    MH_FN(MessageEncryptInit), MH_FN(EncryptMessage), MH_FN(EncryptMessageBegin), \
    MH_FN(EncryptMessageNext), MH_FN(MessageEncryptFinal), \
    MH_FN(MessageDecryptInit), MH_FN(DecryptMessage), MH_FN(DecryptMessageBegin), \
    MH_FN(DecryptMessageNext), MH_FN(MessageDecryptFinal), \
    MH_FN(MessageSignInit), MH_FN(SignMessage), MH_FN(SignMessageBegin), \
    MH_FN(SignMessageNext), MH_FN(MessageSignFinal), \
    MH_FN(MessageVerifyInit), MH_FN(VerifyMessage), MH_FN(VerifyMessageBegin), \
    MH_FN(VerifyMessageNext), MH_FN(MessageVerifyFinal)

/* The 3.2 additions in OASIS's order; the mock implements the three
 * asynchronous functions and answers CKR_FUNCTION_NOT_SUPPORTED to the rest. */
#define MH_FUNCTIONS_3_2 \
    MH_FN(EncapsulateKey), MH_FN(DecapsulateKey), \
    MH_FN(VerifySignatureInit), MH_FN(VerifySignature), MH_FN(VerifySignatureUpdate), \
    MH_FN(VerifySignatureFinal), MH_FN(GetSessionValidationFlags), \
    MH_FN(AsyncComplete), MH_FN(AsyncGetID), MH_FN(AsyncJoin), \
    MH_FN(WrapKeyAuthenticated), MH_FN(UnwrapKeyAuthenticated)

static const CK_FUNCTION_LIST mh_list_2_40 = {
    .version = { 2, 40 },
    MH_FUNCTIONS_2_40,
};

static const CK_FUNCTION_LIST_3_0 mh_list_3_0 = {
    .version = { 3, 0 },
    MH_FUNCTIONS_2_40,
    MH_FUNCTIONS_3_0,
};

static const CK_FUNCTION_LIST_3_2 mh_list_3_2 = {
    .version = { 3, 2 },
    MH_FUNCTIONS_2_40,
    MH_FUNCTIONS_3_0,
    MH_FUNCTIONS_3_2,
};

/* "PKCS 11" 3.0 first: the default when no version is asked for.  The 3.2
 * list is always offered; its asynchronous functions work with async=1
 * (without it they answer CKR_FUNCTION_NOT_SUPPORTED).  The lists are const
 * and read-only; PKCS#11 hands them out through non-const pointers, and
 * clients never write to them. */
static CK_UTF8CHAR mh_iface_name[] = "PKCS 11";
static CK_INTERFACE mh_interfaces[] = {
    { mh_iface_name, (CK_VOID_PTR)&mh_list_3_0, 0 },
    { mh_iface_name, (CK_VOID_PTR)&mh_list_3_2, 0 },
    { mh_iface_name, (CK_VOID_PTR)&mh_list_2_40, 0 },
};
#define MH_NIFACES (sizeof mh_interfaces / sizeof mh_interfaces[0])

__attribute__((visibility("default")))
CK_DEFINE_FUNCTION(CK_RV, C_GetFunctionList)(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    if (ppFunctionList == NULL)
        return CKR_ARGUMENTS_BAD;
    *ppFunctionList = (CK_FUNCTION_LIST_PTR)&mh_list_2_40;
    return CKR_OK;
}

__attribute__((visibility("default")))
CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)
{
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    CK_RV rv = mh_list_out(MH_NIFACES, pulCount, pInterfacesList == NULL);
    if (rv == CKR_OK && pInterfacesList)
        memcpy(pInterfacesList, mh_interfaces, sizeof mh_interfaces);
    return rv;
}

__attribute__((visibility("default")))
CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                     CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags)
{
    if (ppInterface == NULL)
        return CKR_ARGUMENTS_BAD;
    for (size_t i = 0; i < MH_NIFACES; i++) {
        const CK_INTERFACE *it = &mh_interfaces[i];
        const CK_VERSION *v = it->pFunctionList;      /* every list starts with its version */
        if (pInterfaceName && strcmp((const char *)pInterfaceName, (const char *)it->pInterfaceName) != 0)
            continue;
        if (pVersion && (pVersion->major != v->major || pVersion->minor != v->minor))
            continue;
        if ((it->flags & flags) != flags)
            continue;
        *ppInterface = &mh_interfaces[i];
        return CKR_OK;
    }
    return CKR_ARGUMENTS_BAD;
}

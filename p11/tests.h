/*
 * p11/tests.h - the test catalogue and the PKCS#11 workload behind it.
 *
 * A test names one operation on one mechanism (rsa-pkcs-sign is
 * C_SignInit(CKM_SHA256_RSA_PKCS) + C_Sign).  Preparing a test checks the
 * token offers it, generates its keys on a control session, and builds the
 * input; each worker then opens its own session and repeats the operation.
 */
#ifndef P11_TESTS_H
#define P11_TESTS_H

#include <stddef.h>
#include <stdint.h>
#include <p11-kit/pkcs11.h>

#include "bench/workload.h"
#include "keys/keys.h"
#include "p11/module.h"

typedef enum { P11_OP_SIGN, P11_OP_ENCRYPT, P11_OP_DIGEST } p11_op;

typedef struct p11_test_def {
    const char       *name;
    const char       *summary;
    p11_op            op;
    CK_MECHANISM_TYPE mech;
    keys_type         key;
    unsigned          key_default;     /* bits; 0 when the test takes no key size */
    const unsigned   *key_sizes;       /* allowed sizes, 0-terminated; NULL: none */
    const char       *curve_default;   /* EC tests: the curve decides the key */
    uint64_t          data_default, data_min, data_max;
    int               data_op;         /* counts towards bytes/s */
    int               sw_hash;         /* input is hashed in software, the digest is signed */
} p11_test_def;

size_t p11_test_count(void);
const p11_test_def *p11_test_at(size_t i);
const p11_test_def *p11_test_find(const char *name);

typedef struct p11_test_params {
    unsigned    key_bits;     /* 0: the test's default */
    const char *curve;        /* NULL: the test's default */
    uint64_t    data_size;    /* 0: the test's default */
} p11_test_params;

/* Resolve defaults; -1 (printed, naming the flag) if a value does not fit the test. */
int p11_test_resolve(const p11_test_def *def, const p11_test_params *in, p11_test_params *out);

/* "RSA 2048", "EC P-256", "AES 256", "" (no key) */
const char *p11_test_key_desc(const p11_test_def *def, const p11_test_params *p, char *buf,
                              size_t len);
const char *p11_test_key_type(const p11_test_def *def);   /* "RSA", "EC", "AES", "GENERIC", NULL */

/* Does the token offer what the test needs?  1 when yes; 0 with a reason. */
int p11_test_supported(const p11_module *m, CK_SLOT_ID slot, const p11_test_def *def,
                       const p11_test_params *p, char *reason, size_t len);

typedef struct p11_test_ctx {
    const p11_test_def *def;
    p11_test_params     params;
    CK_FUNCTION_LIST   *fn;
    CK_SLOT_ID          slot;
    CK_SESSION_HANDLE   control;     /* owns the keys */
    keys_handle         keys;
    unsigned char      *input;       /* what each operation is given */
    CK_ULONG            input_len;
    CK_ULONG            out_cap;     /* output buffer each worker allocates */
} p11_test_ctx;

/* Generate keys and the input.  On failure prints one line, returns the CKR. */
CK_RV p11_test_prepare(p11_test_ctx *ctx, const p11_module *m, CK_SLOT_ID slot,
                       CK_SESSION_HANDLE control, const p11_test_def *def,
                       const p11_test_params *params);
/* Destroy the keys this test created and free the input (safe to repeat). */
void  p11_test_release(p11_test_ctx *ctx);

/* The workload the timing core drives for this test. */
void  p11_test_workload(p11_test_ctx *ctx, bench_workload *w);

/* The mechanism each operation uses, as set up for a worker (IV included). */
void  p11_test_mechanism(const p11_test_ctx *ctx, CK_MECHANISM *mech, CK_GCM_PARAMS *gcm,
                         unsigned char iv[12]);

#endif

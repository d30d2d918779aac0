/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/tests.h - the test catalogue and the PKCS#11 workload behind it.
 *
 * A test names one operation on one mechanism (rsa-pss-sign is
 * C_SignInit(CKM_SHA256_RSA_PKCS_PSS) + C_Sign).  Preparing a test checks
 * the token offers it, makes or finds its keys on a control session, and
 * builds its input (a signature to verify, a ciphertext to decrypt, a blob
 * to unwrap); each worker then opens its own session and repeats the
 * operation.  With --verify the results are checked outside the token with
 * OpenSSL, outside the timed path (p11/verify.c).
 *
 *   catalog.c   the table, parameter resolution, capability checks
 *   prepare.c   keys and inputs for one test
 *   ops.c       the workload the timing core drives
 *   verify.c    OpenSSL checks of results
 */
#ifndef P11_TESTS_H
#define P11_TESTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <p11-kit/pkcs11.h>

#include "bench/core/workload.h"
#include "keys/keys.h"
#include "p11/leftover.h"
#include "p11/module.h"
#include "p11/token.h"

typedef enum {
    P11_OP_SIGN, P11_OP_VERIFY, P11_OP_ENCRYPT, P11_OP_DECRYPT, P11_OP_DIGEST,
    P11_OP_DERIVE, P11_OP_WRAP, P11_OP_UNWRAP, P11_OP_RANDOM, P11_OP_KEYGEN, P11_OP_FIND,
} p11_op;

/* How the bytes handed to the operation are made from the data. */
typedef enum {
    P11_IN_DATA,        /* the data itself */
    P11_IN_HASH,        /* its digest, computed in software */
    P11_IN_DIGESTINFO,  /* DER DigestInfo of its digest (RSA PKCS#1 v1.5 pre-hashed) */
    P11_IN_MODULUS,     /* a block as long as the RSA modulus, below it (raw RSA) */
    P11_IN_NONE,        /* no input (key generation, find, random) */
} p11_input;

/* Hashes, as --hash names them; bit positions in p11_test_def.hashes. */
typedef enum {
    P11_HASH_NONE = 0, P11_HASH_SHA1, P11_HASH_SHA224, P11_HASH_SHA256, P11_HASH_SHA384,
    P11_HASH_SHA512, P11_HASH_SHA3_256, P11_HASH_SHA3_384, P11_HASH_SHA3_512, P11_HASH_COUNT,
} p11_hash;

#define P11_H(h) (1u << (h))

/* Mechanism parameters a test needs. */
typedef enum {
    P11_PARAM_NONE, P11_PARAM_PSS, P11_PARAM_OAEP, P11_PARAM_IV, P11_PARAM_CTR, P11_PARAM_GCM,
    P11_PARAM_ECDH,
} p11_param;

typedef struct p11_test_def {
    const char       *name;
    const char       *summary;
    p11_op            op;
    CK_MECHANISM_TYPE mech;          /* fixed mechanism, or 0: chosen by the hash */
    unsigned          hashes;        /* --hash values allowed (P11_H bits); 0: none */
    p11_hash          hash_default;  /* NONE for EC: follows the curve */
    p11_param         param;
    p11_input         input;
    keys_type         key;
    unsigned          key_default;   /* bits; 0: the test takes no --key-size */
    const unsigned   *key_sizes;     /* allowed sizes, 0-terminated */
    uint64_t          data_default, data_min, data_max;
    unsigned          data_multiple; /* block size the data must be a multiple of (0: any) */
    int               data_op;       /* counts towards bytes/s */
    int               deprecated;    /* kept for legacy HSMs; flagged in output */
} p11_test_def;

size_t p11_test_count(void);
const p11_test_def *p11_test_at(size_t i);
const p11_test_def *p11_test_find(const char *name);

/* A name pkpspeed gives a catalogue test: a Linux cipher (RSA_CRT, AES_128)
 * or a pkpspeed_blocking menu letter (B), with the key size the name fixes. */
typedef struct p11_alias {
    const char *name;
    const char *test;        /* the catalogue test it runs */
    unsigned    key_bits;    /* fixed by the name (AES_128, AES_256); 0: the test's own */
    const char *label;       /* a letter's pkpspeed_blocking menu label; NULL: a cipher */
} p11_alias;

size_t p11_alias_count(void);
const p11_alias *p11_alias_at(size_t i);
/* The alias of that name, case ignored, or NULL. */
const p11_alias *p11_alias_find(const char *name);
/* A test by every name the menu takes at its test prompt: the catalogue
 * name, then a pkpspeed name (*alias set, else NULL), then the catalogue
 * name in any case; NULL when none. */
const p11_test_def *p11_test_named(const char *name, const p11_alias **alias);

/* "SHA256" etc. and back; P11_HASH_NONE when unknown. */
const char *p11_hash_name(p11_hash h);
p11_hash    p11_hash_by_name(const char *name);
size_t      p11_hash_len(p11_hash h);
/* The DER prefix of a DigestInfo for h (RFC 8017, 9.2 note 1), *len its
 * length; NULL and 0 for a hash without one. */
const unsigned char *p11_digestinfo_prefix(p11_hash h, size_t *len);

/* How keys are obtained for a test. */
typedef enum {
    P11_KEYS_GENERATE,   /* session objects generated in the token (default) */
    P11_KEYS_TOKEN,      /* token objects generated in the token (--token-keys), destroyed after */
    P11_KEYS_STATIC,     /* imported from --static-key FILE, destroyed after */
    P11_KEYS_EXISTING,   /* found by --key-label / --key-id; never destroyed */
} p11_key_source;

typedef struct p11_test_params {
    unsigned       key_bits;     /* 0: the test's default */
    const char    *curve;        /* NULL: the test's default */
    uint64_t       data_size;    /* 0: the test's default */
    p11_hash       hash;         /* NONE: the test's default */
    uint64_t       aad_size;     /* GCM additional data, bytes */
    p11_key_source keys;
    const char    *static_key;   /* file, with P11_KEYS_STATIC */
    const char    *key_label;    /* with P11_KEYS_EXISTING */
    const unsigned char *key_id; /* with P11_KEYS_EXISTING */
    size_t         key_id_len;
    int            verify;       /* check results with OpenSSL */
    uint64_t       verify_every; /* with verify: check every Nth result (0: the first of each worker) */
    int            lookup;       /* find the key by label (C_FindObjects) before each operation, timed */
    const char    *where;        /* the token, named in preparation failures when a run has
                                    several ("token 'b' (slot 2)"); NULL: not named */
    const char    *key_origin;   /* key_bits and curve were read from the key the run uses
                                    ("--key-label NAME", "--static-key FILE"), which messages
                                    name; NULL: from the flags or the test's defaults */
} p11_test_params;

/*
 * Resolve defaults; -1 (printed, naming the flag) if a value does not fit
 * the test, or the values do not fit each other before any module is called:
 * a PSS salt and hash the modulus cannot hold, an OAEP or PKCS#1 message
 * longer than the key and hash allow, data that is not whole blocks.  With
 * an existing key (--key-label, --key-id) whose size is not known yet
 * (key_origin NULL), what depends on the key's size waits for
 * p11_test_key_facts.
 */
int p11_test_resolve(const p11_test_def *def, const p11_test_params *in, p11_test_params *out);
/* The same, printing nothing: -1 with the line it would print in why. */
int p11_test_resolve_why(const p11_test_def *def, const p11_test_params *in, p11_test_params *out,
                         char *why, size_t len);

/*
 * The key size and curve of a key of `type` as run's rules have them (the
 * sizes the catalogue's tests of that key type take, --key-size 256/384/521
 * as a curve alias, the tests' defaults): for "keys create".  what names
 * the key in messages ("--key-size 1000: keys create --type rsa takes
 * 1024/2048/3072/4096/8192"); -1 (message printed) when refused.
 */
int p11_key_resolve(keys_type type, const char *what, unsigned bits, const char *curve,
                    unsigned *bits_out, const char **curve_out);

/*
 * Facts from the key a test uses, when the user chose it: an existing key
 * (--key-label, --key-id; found on the control session s) or a static one
 * (--static-key; read from the file, fn unused).  out is in with key_bits
 * and curve those of the key and key_origin naming it ("--key-label NAME
 * (RSA 4096)", in the caller's buffer origin), for p11_test_resolve and the
 * run's description.  Returns 0 (out = in when the test uses no such key,
 * or no key matches: preparing the test says so); -1, printed naming both
 * values, when the key is of another type than the test's, of a size or
 * curve the test does not take, or a flag (--key-size, --curve)
 * contradicts it: bad usage.
 */
int p11_test_key_facts(const p11_test_def *def, const p11_test_params *in, CK_FUNCTION_LIST *fn,
                       CK_SESSION_HANDLE s, char *origin, size_t olen, p11_test_params *out);

/* The mechanism the test uses with these (resolved) parameters. */
CK_MECHANISM_TYPE p11_test_mech(const p11_test_def *def, const p11_test_params *p);

/* "RSA 2048", "EC P-256", "AES 256", "-" (no key) */
const char *p11_test_key_desc(const p11_test_def *def, const p11_test_params *p, char *buf,
                              size_t len);
const char *p11_test_key_type(const p11_test_def *def);
/* The module function one operation of the test is ("C_Sign", "C_GenerateKeyPair", ...). */
const char *p11_op_call(const p11_test_def *def);   /* "RSA", "EC", "AES", ... or NULL */

/* Whether the test's operation uses a key --lookup can find (not digests,
 * random, key generation or find-objects). */
int p11_test_has_key(const p11_test_def *def);

/*
 * Does the token offer what the test needs, with the parameters run uses?
 * in is resolved into *out (p11_test_resolve: the hash that chooses the
 * mechanism, the key size), then the mechanisms, their flags and key sizes
 * are checked (C_GetMechanismInfo).  1 when offered; 0 with the reason;
 * -1 when in does not resolve (printed, naming the flag).  The one check
 * of run, menu and datasheet.  P11_TEST_UNLISTED when its keyless
 * mechanism (a digest) is missing from the token's mechanism list but one
 * real call, tried here, worked (NSS's key slot lists no digests and
 * computes them): it is run all the same, the reason then holding the
 * note that says so.
 */
#define P11_TEST_UNLISTED 2
int p11_test_offered(const p11_module *m, CK_SLOT_ID slot, const p11_test_def *def,
                     const p11_test_params *in, p11_test_params *out, char *reason, size_t len);

/* Everything a prepared test holds; workers only read it. */
typedef struct p11_test_ctx {
    const p11_test_def *def;
    p11_test_params     params;
    CK_MECHANISM_TYPE   mech;
    CK_FUNCTION_LIST   *fn;
    CK_SLOT_ID          slot;
    CK_SESSION_HANDLE   control;     /* owns the keys */
    keys_handle         keys;        /* the test's key (pair) */
    keys_handle         aux;         /* a second key: wrap target, ECDH peer */
    keys_material      *material;    /* key material known to us (--verify, --static-key) */
    keys_material      *aux_material; /* the wrap/unwrap target's value, when known */
    EVP_PKEY           *public_key;  /* the pair's public key in OpenSSL, for checks */
    EVP_PKEY           *peer;        /* ECDH: the peer's key pair (software) */
    unsigned char      *sig;         /* verify tests: the signature or MAC to check */
    CK_ULONG            sig_len;
    unsigned char      *expect;      /* decrypt tests: the plaintext each result must equal */
    size_t              expect_n;
    unsigned char      *data;        /* the data (data_size bytes) */
    size_t              data_len;
    unsigned char      *input;       /* what each operation is given */
    CK_ULONG            input_len;
    unsigned char      *peer_point;  /* ECDH: the peer's public point */
    CK_ULONG            peer_len;
    CK_ULONG            expect_len;  /* the right output length (0: not checked) */
    CK_ULONG            out_cap;     /* output buffer each worker starts with */
    char                label[64];   /* label of the test's key (find-objects and --lookup look for it) */
    char                aux_label[72];  /* the wrap target's: label, "<label>-target" with --lookup */
    char                made_label[72]; /* what operations create (unwrap, derive, keygen):
                                         * label, "<label>-made" with --lookup */
    _Atomic uint64_t    reopened;    /* sessions workers had to reopen */
    _Atomic uint64_t    verified;    /* results checked with OpenSSL */
    _Atomic uint64_t    grown;       /* output buffers grown after CKR_BUFFER_TOO_SMALL */
    _Atomic uint64_t    mismatched;  /* results OpenSSL found wrong (warm-up included) */
    /* Key-generation tests: generations whose keys are not yet destroyed,
     * from the call until after() destroyed what it made; a worker abandoned
     * inside the call (stuck) stays counted, and its keys are listed by
     * made_label (p11_test_note_abandoned). */
    _Atomic unsigned    making;
    void               *async_list;  /* the module's 3.2 function list, when async runs */
    p11_leftovers      *leftovers;   /* where objects that could not be destroyed are listed (or NULL) */
    const char         *verify_method; /* --verify: "openssl", "round-trip in token", "read back
                                        * from the token" or "none" (p11_verify_how) */
    const char         *verify_how;  /* --verify: how, exactly ("signature verified with OpenSSL
                                      * against the public key read from the token") */
    const char         *variant;     /* what the module implements, when a mechanism has two
                                      * meanings (CKM_AES_KEY_WRAP_PAD), else NULL */
    int                 round_trip;  /* --verify without key material: check in the token */
    CK_RV             (*session_cancel)(CK_SESSION_HANDLE, CK_FLAGS); /* 3.0's C_SessionCancel, or NULL */
    char                why[240];    /* why preparing failed (p11_test_prepare's `why`) */
    uint32_t            run_seq;     /* runs made with these keys: IVs never repeat across them */
    p11_codes          *codes;       /* the module's book of wide return values (p11/codes.h) */
} p11_test_ctx;

/* Make keys and the input.  On failure prints one line, puts its reason
 * (without the test's name) in why, and returns the CKR (CKR_GENERAL_ERROR
 * for a failure of another kind: an unreadable key file, an input the
 * module made wrong).  Token objects it cannot destroy later go to
 * `leftovers` (may be NULL). */
CK_RV p11_test_prepare(p11_test_ctx *ctx, p11_module *m, CK_SLOT_ID slot,
                       CK_SESSION_HANDLE control, const p11_test_def *def,
                       const p11_test_params *params, p11_leftovers *leftovers, char *why,
                       size_t whylen);
/* What ctx->variant means, for the summary: "RFC 5649", ... */
const char *p11_test_variant_text(const char *variant);
/* Destroy what this test created and free the input (safe to repeat). */
void  p11_test_release(p11_test_ctx *ctx);
/* Only the keys of p11_test_release: the input and buffers stay, for a
 * worker abandoned inside a call that may still use them. */
void  p11_test_destroy_keys(p11_test_ctx *ctx);
/* The token keys the test made and has not destroyed yet, into l (the
 * list of what may remain when their destruction is given up). */
void p11_test_note_keys(const p11_test_ctx *ctx, p11_leftovers *l);
/* A key-generation test whose workers were abandoned inside the call
 * (stuck): the token keys those calls make, or made, by the label the
 * template gave them (made_label), into l, after one warning line naming
 * how many calls and the label; how many calls (0: none, nothing done). */
unsigned p11_test_note_abandoned(const p11_test_ctx *ctx, p11_leftovers *l);


/* The workload the timing core drives for this test. */
void  p11_test_workload(p11_test_ctx *ctx, bench_workload *w);

/*
 * One test prepared on each of several tokens of one module: ctx[i] holds
 * token i's keys and input.  Threads go round-robin: worker `index` opens
 * its session on token index % n and uses that token's keys.  The workload
 * declares the breakdown by token (breakdown[1], dimension "token", one
 * class per token labelled labels[i]), so the core reports every token
 * beside the whole.
 */
typedef struct p11_test_set {
    unsigned        n;
    p11_test_ctx   *ctx[P11_MAX_TOKENS];
    char            names[P11_MAX_TOKENS][48];   /* the classes' labels */
    const char     *labels[P11_MAX_TOKENS];      /* names[i] */
    bench_breakdown by_token;
} p11_test_set;

/* The workload over every token of a set (n >= 2); by_token is filled in. */
void  p11_tokens_workload(p11_test_set *set, bench_workload *w);

/*
 * One worker's mechanism, parameters and buffers.  Exposed so the minimal
 * loop of `make bench` and the verifier use exactly what the workload uses.
 */
typedef struct p11_mech_state {
    CK_MECHANISM           mech;
    CK_RSA_PKCS_PSS_PARAMS pss;
    CK_RSA_PKCS_OAEP_PARAMS oaep;
    CK_GCM_PARAMS          gcm;
    CK_AES_CTR_PARAMS      ctr;
    CK_ECDH1_DERIVE_PARAMS ecdh;
    unsigned char          iv[16];
    unsigned char         *aad;
} p11_mech_state;

/* Set up the mechanism for worker `index` (IV prefix = index). */
void p11_mech_init(const p11_test_ctx *ctx, unsigned index, p11_mech_state *ms);
/* Advance the per-operation IV/counter (no-op for mechanisms without one). */
void p11_mech_next(const p11_test_ctx *ctx, p11_mech_state *ms, uint64_t counter);

/* How p11_verify_result checks this prepared test's results, in words, and
 * *method its kind: "openssl" (OpenSSL computes or checks the result),
 * "round-trip in token" (the token undoes or checks its own result),
 * "read back from the token" (a new key's attributes, a found handle), or
 * "none" (nothing can check it: random bytes, a key whose value is unknown). */
const char *p11_verify_how(const p11_test_ctx *ctx, const char **method);

/* Check one result with OpenSSL: 1 right, 0 wrong (why filled), -1 cannot check. */
int p11_verify_result(const p11_test_ctx *ctx, const p11_mech_state *ms, const unsigned char *out,
                      CK_ULONG out_len, CK_OBJECT_HANDLE made, CK_SESSION_HANDLE s, char *why,
                      size_t len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/sdkms.h - the Fortanix SDKMS (DSM) REST API as a workload, the way
 * the sdkms-performance-testbench drives it:
 *
 *   set-up (per worker, before the clock)
 *     POST /sys/v1/session/auth      "Authorization: Basic <API key>" -> access_token
 *     POST /crypto/v1/keys           one key for this worker (transient with --transient)
 *     decrypt/verify: one encrypt/sign to get something to undo
 *   the measured operation
 *     POST /crypto/v1/{encrypt,decrypt,sign,verify,mac}, or /crypto/v1/keys (keygen)
 *     with "Authorization: Bearer <access_token>"; an HTTP 401 or "Session does
 *     not exist" re-authenticates once, is counted, and the call is repeated
 *   tear-down (after the clock)
 *     DELETE /crypto/v1/keys/{kid}    every key this worker made
 *     POST /sys/v1/session/terminate
 *
 * Errors are plain text in SDKMS, so answers are judged by status, then by
 * the fields each operation returns (cipher, plain, signature, result, mac,
 * kid / transient_key).
 */
#ifndef REST_SDKMS_H
#define REST_SDKMS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "bench/core/workload.h"
#include "bench/util/url.h"
#include "rest/client.h"
#include "rest/transport/xfer.h"

typedef enum {
    REST_SDKMS_KEYGEN, REST_SDKMS_ENCRYPT, REST_SDKMS_DECRYPT, REST_SDKMS_SIGN,
    REST_SDKMS_VERIFY, REST_SDKMS_MAC,
} rest_sdkms_op;

typedef enum { REST_ALG_NONE, REST_ALG_AES, REST_ALG_RSA, REST_ALG_EC, REST_ALG_HMAC } rest_sdkms_alg;

#define REST_SDKMS_DEFAULT_DATA 32
/* Every curve of the SDKMS test bench. */
#define REST_SDKMS_CURVES "SecP192K1, SecP224K1, SecP256K1, NistP192, NistP224, NistP256, " \
                          "NistP384 or NistP521"

typedef struct rest_sdkms_cfg {
    const bench_url *endpoint; /* service root, e.g. https://sdkms.example (no trailing /) */
    rest_sdkms_op  op;
    rest_sdkms_alg alg;        /* NONE: the operation's default */
    unsigned       key_bits;   /* 0: default (AES 256, RSA 2048, HMAC 256); EC: from the curve */
    const char    *curve;      /* one of REST_SDKMS_CURVES (P-256, secp256k1.. accepted) */
    const char    *mode;       /* --cipher-mode: AES: GCM|CBC; RSA encrypt: OAEP|PKCS1_V15;
                                  RSA sign: PKCS1_V15|PSS */
    const char    *hash;       /* SHA1|SHA256|SHA384|SHA512: sign/verify digest, MAC */
    size_t         data_size;  /* 0: default */
    const uint8_t *data;       /* --filepath: the data (data_size bytes); NULL: random */
    const char    *data_path;  /* --filepath's FILE, for messages; NULL: --data-size's data */
    const uint8_t *aad;        /* AES-GCM "ad", or NULL */
    size_t         aadlen;
    int            transient;  /* transient keys (no kid, nothing to delete) */
    const char    *api_key;    /* not owned, never copied into output */
} rest_sdkms_cfg;

typedef struct rest_sdkms {
    rest_sdkms_cfg cfg;
    rest_client   *client;
    char           name_prefix[48];   /* "hsmbench-<pid>-<random>" for key names */
    bench_url      url_auth, url_terminate, url_keys, url_op, url_encrypt, url_sign;
    rest_xfer_workload xw;            /* for the non-blocking engine */
} rest_sdkms;

int rest_sdkms_op_parse(const char *s, rest_sdkms_op *out);
const char *rest_sdkms_op_name(rest_sdkms_op op);
int rest_sdkms_alg_parse(const char *s, rest_sdkms_alg *out);
/* Is s a cipher mode of some algorithm (GCM, CBC, OAEP, PKCS1_V15, PSS, any
 * case)?  The SDKMS bench's --mode took these: such a --mode is unambiguous. */
int rest_sdkms_is_cipher_mode(const char *s);
#define REST_SDKMS_CIPHER_MODES "GCM|CBC|OAEP|PKCS1_V15|PSS"
const char *rest_sdkms_alg_name(rest_sdkms_alg alg);

/*
 * Fill in defaults and check that the settings make sense together (an
 * algorithm the operation takes, a key size and mode for it, data that fits
 * RSA-OAEP).  0, or -1 with one line in err naming the flag.
 */
int rest_sdkms_resolve(rest_sdkms_cfg *cfg, char *err, size_t errlen);

/* "AES 256", "RSA 2048", "EC NistP256", "HMAC 256". */
const char *rest_sdkms_key_desc(const rest_sdkms_cfg *cfg, char *buf, size_t len);
/* What is measured: "AES-GCM", "RSA-OAEP", "RSA-PSS SHA256", "ECDSA SHA256",
 * "HMAC SHA256", "AES keygen". */
const char *rest_sdkms_mech_desc(const rest_sdkms_cfg *cfg, char *buf, size_t len);

/* The workload's URLs, made once from the endpoint.  0, or -1 with one
 * line in err. */
int  rest_sdkms_init(rest_sdkms *s, const rest_sdkms_cfg *cfg, rest_client *client, char *err,
                     size_t errlen);
void rest_sdkms_fini(rest_sdkms *s);

/* Authenticate once and end the session, before anything else.  BENCH_OK
 * or the failure's code with a line in err. */
bench_code rest_sdkms_preflight(rest_sdkms *s, char *err, size_t errlen);

/* --check: authenticate, make one key (as the options say, named even with
 * --transient) and delete it, end the session; each step's outcome on f.
 * BENCH_OK when it all worked, else the first failure's code with err. */
bench_code rest_sdkms_probe(rest_sdkms *s, FILE *f, char *err, size_t errlen);

/* The workload the timing core drives; ctx is s.  aslots: transfers in
 * flight at most in non-blocking runs (rest/transport/multi.h), each with its own
 * session and keys; 0: blocking only. */
void rest_sdkms_workload(rest_sdkms *s, bench_workload *w, unsigned aslots);

/* ---- exposed for tests --------------------------------------------------- */

/* The body of POST /crypto/v1/keys (malloc'd JSON). */
char *rest_sdkms_key_body(const rest_sdkms_cfg *cfg, const char *name);
/* Whether an answer says the session is gone (401, "Session does not exist"). */
int  rest_sdkms_session_gone(long status, const char *body);
/* The access token of an auth answer into *tok (malloc'd): BENCH_OK;
 * REST_E_MISSING_FIELD (none, empty, not a string) or REST_E_BAD_VALUE (not
 * fit for a header: rest_server_value) with *tok NULL. */
bench_code rest_sdkms_parse_auth(const char *body, size_t len, char **tok);
/* Judge an operation's answer (status already 2xx).  For decrypt, expect is
 * the plaintext. */
bench_code rest_sdkms_check(const rest_sdkms_cfg *cfg, const char *body, size_t len,
                            const uint8_t *expect, size_t expect_len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/ekm.h - the Google Cloud EKM wrap/unwrap API as a workload (the
 * endpoints Thales CipherTrust CCKM and other EKM partners serve).
 *
 *   POST <endpoint>:wrap    {"plaintext": b64, "additionalContext": {"accessReasonContext":
 *                            {"reason": R}}, "additionalAuthenticatedData": b64}
 *                           -> {"wrappedBlob": b64}
 *   POST <endpoint>:unwrap  {"wrappedBlob": b64, "additionalContext": ..., "additionalAuthenticatedData": b64}
 *                           -> {"plaintext": b64}
 *
 * with "Authorization: Bearer <token>".  <endpoint> is the key's URI, as
 * the Thales k6 package takes it in ENDPOINT_URL.  Each worker wraps the
 * same plaintext (random, chosen when it opens) on every operation, as k6's
 * script sends a constant body; unwrap uses a blob the worker wrapped before
 * the clock started; wrap-unwrap does both and checks the plaintext comes
 * back.
 */
#ifndef REST_EKM_H
#define REST_EKM_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "bench/core/workload.h"
#include "bench/util/url.h"
#include "rest/client.h"
#include "rest/transport/xfer.h"

typedef enum { REST_EKM_WRAP, REST_EKM_UNWRAP, REST_EKM_WRAP_UNWRAP } rest_ekm_op;

#define REST_EKM_DEFAULT_REASON "CUSTOMER_INITIATED_ACCESS"
#define REST_EKM_DEFAULT_DATA   32
#define REST_EKM_MAX_DATA       65536      /* Cloud KMS's limit for EXTERNAL keys */

typedef struct rest_ekm_cfg {
    const bench_url *endpoint;   /* key URI, without ":wrap" */
    rest_ekm_op    op;
    size_t         data_size;    /* plaintext bytes */
    const uint8_t *aad;          /* additionalAuthenticatedData, or NULL */
    size_t         aadlen;
    const char    *reason;       /* accessReasonContext.reason */
    const char    *token;        /* bearer token (not owned, never copied into output) */
    /* --token-cmd: the token comes from here instead, and a request refused
     * with 401 is sent once more with a new one (NULL: token above). */
    struct rest_tokcmd *tokens;
} rest_ekm_cfg;

typedef struct rest_ekm {
    rest_ekm_cfg cfg;
    rest_client *client;
    bench_url    wrap_url, unwrap_url;   /* the endpoint with ":wrap", ":unwrap" */
    rest_xfer_workload xw;          /* for the non-blocking engine */
} rest_ekm;

int  rest_ekm_op_parse(const char *s, rest_ekm_op *out);
const char *rest_ekm_op_name(rest_ekm_op op);

/* The workload's URLs, made once from the endpoint.  0, or -1 with one
 * line in err (out of memory; "https://h" + ":wrap" is no URL). */
int  rest_ekm_init(rest_ekm *e, const rest_ekm_cfg *cfg, rest_client *client, char *err,
                   size_t errlen);
void rest_ekm_fini(rest_ekm *e);

/* One wrap (and unwrap, for the ops that need it) before anything else, so
 * a wrong URL, certificate or token is one clear error.  BENCH_OK or the
 * failure's code with a line in err. */
bench_code rest_ekm_preflight(rest_ekm *e, char *err, size_t errlen);

/* --check (the k6 package's verify_setup.sh): one wrap, one unwrap of its
 * blob, each status, the wrappedBlob and whether the plaintext came back,
 * on f; with wrap_only (--op wrap given), the wrap alone, as the package's
 * script sends only wraps.  BENCH_OK when it all worked, else the
 * failure's code (err says why when no request could be made). */
bench_code rest_ekm_probe(rest_ekm *e, int wrap_only, FILE *f, char *err, size_t errlen);

/* The workload the timing core drives; ctx is e.  aslots: transfers in
 * flight at most in non-blocking runs (rest/transport/multi.h); 0: blocking only. */
void rest_ekm_workload(rest_ekm *e, bench_workload *w, unsigned aslots);

/* ---- request and response, exposed for tests ---------------------------- */

/* Request bodies (malloc'd JSON text); NULL when out of memory. */
char *rest_ekm_wrap_body(const uint8_t *pt, size_t n, const uint8_t *aad, size_t aadlen,
                         const char *reason);
char *rest_ekm_unwrap_body(const char *blob_b64, const uint8_t *aad, size_t aadlen,
                           const char *reason);
/* Judge a wrap answer (status 200 already checked): BENCH_OK and, when
 * blob is not NULL, a copy of the wrappedBlob text in *blob (free it). */
bench_code rest_ekm_check_wrap(const char *body, size_t len, char **blob);
/* Judge an unwrap answer: the plaintext must be `expect`. */
bench_code rest_ekm_check_unwrap(const char *body, size_t len, const uint8_t *expect, size_t n);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/target.h - what a results file measured, in one neutral place:
 * environment.target = { "kind", "name", "id" }.
 *
 *   kind  "pkcs11" or "rest"
 *   name  for people: "SoftHSM · token hsmbench-demo",
 *         "ekm https://127.0.0.1:8443/v0/keys/k1"
 *   id    the identity two files are compared by:
 *         "libsofthsm2.so serial=0679a7c167eb4f47" (no URI: the module's
 *         base name, a space, the token's serial),
 *         "ekm:https://127.0.0.1:8443/v0/keys/k1"
 *
 * The writers (p11/target.c, rest/client.c) build it with the functions
 * below; the readers (compare, merge, report, the HTML page) read it with
 * bench_target_of, which derives it from environment.module/token or
 * environment.endpoint for files written before it existed.  Nothing here
 * knows PKCS#11 or HTTP beyond the names of those fields.
 */
#ifndef BENCH_TARGET_H
#define BENCH_TARGET_H

#include <stddef.h>
#include <jansson.h>

#include "bench/util/url.h"

#define BENCH_TARGET_KIND_MAX 16
#define BENCH_TARGET_TEXT_MAX 600

typedef struct bench_target {
    char kind[BENCH_TARGET_KIND_MAX];   /* "pkcs11", "rest", or "?" when unknown */
    char name[BENCH_TARGET_TEXT_MAX];   /* "?" when unknown */
    char id[BENCH_TARGET_TEXT_MAX];     /* "" when unknown */
} bench_target;

/* The PKCS#11 target: name "MANUFACTURER · token LABEL" (the module's name
 * when the manufacturer is blank), id "BASENAME serial=SERIAL" (the
 * base name of the module's path; "label=LABEL" when the serial is blank).
 * Returns a new object, NULL when out of memory. */
json_t *bench_target_pkcs11_json(const char *module_name, const char *module_path,
                                 const char *manufacturer, const char *token_label,
                                 const char *token_serial);

/* The REST target: name "SERVICE URL" (the URL's identity, bench/util/url.h:
 * no credentials, default port, query or fragment; "?…" after it when a
 * query was left out), id "SERVICE:URL".  A URL read from an older file is
 * named the same way (bench_url_identity_of).  Returns a new object, NULL
 * when out of memory. */
json_t *bench_target_rest_json(const char *service, const bench_url *url);

/*
 * The target of a results document: environment.target when it is there
 * (an older file's PKCS#11 id "pkcs11:BASENAME:serial=S" read as
 * "BASENAME serial=S");
 * else derived as the writers would have made it, from environment.module
 * and environment.token (PKCS#11) or environment.endpoint (REST).  Returns 1
 * when read, 0 when derived, -1 when the document says nothing of its target
 * (kind "?", name "?", id "").
 */
int bench_target_of(const json_t *doc, bench_target *t);

/*
 * The target of one run of doc: the document's, except for a REST run that
 * names its own URL (rest.url: the variants of rest http --tls-matrix),
 * whose URL replaces the document's.  Same return values.
 */
int bench_target_of_run(const json_t *doc, const json_t *run, bench_target *t);

/*
 * 1 when a and b are one REST service's same host and path, one over plain
 * HTTP and the other over TLS (any ports): the same endpoint with TLS on
 * and off, as a TLS comparison runs it (rest http --tls-matrix, or the OPA
 * write-up's four runs), a setting compared rather than another target.
 */
int bench_target_tls_pair(const bench_target *a, const bench_target *b);

/* True when both targets are known and their ids differ. */
int bench_target_differs(const bench_target *a, const bench_target *b);

/* Check environment.target when present: an object with "kind", "name"
 * and "id" strings (a kind other than pkcs11 and rest is a later addition,
 * read as it is).  0, or -1 with a reason in err
 * ("environment.target.id: missing; expected a string"). */
int bench_target_check(const json_t *env, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/target.c - environment.target: building it, reading it, deriving it
 * from older files (see target.h). */
#include "bench/results/target.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/results/codec.h"
#include "bench/util/url.h"

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* snprintf that keeps whatever fits (a name is for reading, an id is
 * compared: both are far shorter than the buffers in practice). */
static void put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!buf || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* The last part of a path. */
static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

/* name and id of a PKCS#11 target into t. */
static void pkcs11_target(const char *module_name, const char *module_path, const char *manufacturer,
                          const char *label, const char *serial, bench_target *t)
{
    const char *who = manufacturer && *manufacturer ? manufacturer
                    : module_name && *module_name ? module_name : base_name(module_path);
    const char *mod = module_path && *module_path ? base_name(module_path) : module_name ? module_name : "";
    put(t->kind, sizeof t->kind, "pkcs11");
    put(t->name, sizeof t->name, "%s \xc2\xb7 token %s", *who ? who : "?", label && *label ? label : "?");
    if (serial && *serial)
        put(t->id, sizeof t->id, "%s serial=%s", mod, serial);
    else
        put(t->id, sizeof t->id, "%s label=%s", mod, label ? label : "");
}

/* Files written before issue 40 have "pkcs11:BASENAME:serial=..." (a
 * look-alike of a PKCS#11 URI that --uri refused): read as "BASENAME
 * serial=...", so they compare as the same target as newer files. */
static void pkcs11_id_of_old(bench_target *t)
{
    const char *old = "pkcs11:";
    char *sep = strncmp(t->id, old, strlen(old)) == 0 ? strchr(t->id + strlen(old), ':') : NULL;
    if (strcmp(t->kind, "pkcs11") != 0 || !sep || (strncmp(sep + 1, "serial=", 7) != 0 &&
                                                   strncmp(sep + 1, "label=", 6) != 0))
        return;
    *sep = ' ';
    memmove(t->id, t->id + strlen(old), strlen(t->id + strlen(old)) + 1);
}

/* The REST target of a service and a URL's identity. */
static void rest_target_of(const char *service, const char *identity, int had_query, bench_target *t)
{
    put(t->kind, sizeof t->kind, "rest");
    put(t->name, sizeof t->name, "%s %.*s%s", service, BENCH_TARGET_TEXT_MAX - 40, identity,
        had_query ? "?\xe2\x80\xa6" : "");
    put(t->id, sizeof t->id, "%s:%.*s", service, BENCH_TARGET_TEXT_MAX - 40, identity);
}

/* The same from a URL read from a file. */
static void rest_target(const char *service, const char *url, bench_target *t)
{
    char u[BENCH_TARGET_TEXT_MAX - 32];
    int had_query = 0;
    bench_url_identity_of(url, u, sizeof u, &had_query);
    rest_target_of(service, u, had_query, t);
}

static json_t *target_json(const bench_target *t)
{
    return json_pack("{s:s,s:s,s:s}", "kind", t->kind, "name", t->name, "id", t->id);
}

json_t *bench_target_pkcs11_json(const char *module_name, const char *module_path, const char *manufacturer,
                                 const char *token_label, const char *token_serial)
{
    bench_target t;
    pkcs11_target(module_name, module_path, manufacturer, token_label, token_serial, &t);
    return target_json(&t);
}

json_t *bench_target_rest_json(const char *service, const bench_url *url)
{
    bench_target t;
    rest_target_of(service ? service : "?", url->identity, url->query != NULL, &t);
    return target_json(&t);
}

static void unknown(bench_target *t)
{
    put(t->kind, sizeof t->kind, "?");
    put(t->name, sizeof t->name, "?");
    t->id[0] = '\0';
}

int bench_target_of(const json_t *doc, bench_target *t)
{
    const json_t *env = json_object_get(doc, "environment");
    const json_t *tg = json_object_get(env, "target");
    unknown(t);
    if (json_is_object(tg) && json_is_string(json_object_get(tg, "id"))) {
        put(t->kind, sizeof t->kind, "%s", bench_json_str(tg, "kind", "?"));
        put(t->name, sizeof t->name, "%s", bench_json_str(tg, "name", "?"));
        put(t->id, sizeof t->id, "%s", bench_json_str(tg, "id", ""));
        pkcs11_id_of_old(t);
        return 1;
    }
    const json_t *mod = json_object_get(env, "module"), *tok = json_object_get(env, "token");
    if (json_is_object(mod) || json_is_object(tok)) {
        pkcs11_target(bench_json_str(mod, "name", NULL), bench_json_str(mod, "path", NULL),
                      bench_json_str(mod, "manufacturer", NULL), bench_json_str(tok, "label", NULL),
                      bench_json_str(tok, "serial", NULL), t);
        return 0;
    }
    const json_t *ep = json_object_get(env, "endpoint");
    if (json_is_object(ep)) {
        rest_target(bench_json_str(ep, "service", "?"), bench_json_str(ep, "url", ""), t);
        return 0;
    }
    return -1;
}

int bench_target_of_run(const json_t *doc, const json_t *run, bench_target *t)
{
    int rc = bench_target_of(doc, t);
    const json_t *rest = json_object_get(run, "rest");
    const char *url = bench_json_str(rest, "url", NULL);
    if (rc >= 0 && url && strcmp(t->kind, "rest") == 0) {
        const char *service = bench_json_str(rest, "service", NULL);
        if (!service)
            service = bench_json_str(json_object_get(json_object_get(doc, "environment"), "endpoint"),
                                     "service", "?");
        rest_target(service, url, t);
    }
    return rc;
}

int bench_target_tls_pair(const bench_target *a, const bench_target *b)
{
    /* a REST id is "SERVICE:URL" (bench_target_rest_json) */
    const char *ca = strchr(a->id, ':'), *cb = strchr(b->id, ':');
    if (strcmp(a->kind, "rest") != 0 || strcmp(b->kind, "rest") != 0 || !ca || !cb ||
        ca - a->id != cb - b->id || strncmp(a->id, b->id, (size_t)(ca - a->id)) != 0)
        return 0;
    bench_url ua = { 0 }, ub = { 0 };
    char err[160];
    const int pair = bench_url_parse(&ua, ca + 1, err, sizeof err) == 0 &&
                     bench_url_parse(&ub, cb + 1, err, sizeof err) == 0 && ua.scheme != ub.scheme &&
                     strcmp(ua.host, ub.host) == 0 && strcmp(ua.path, ub.path) == 0;
    bench_url_free(&ua);
    bench_url_free(&ub);
    return pair;
}

int bench_target_differs(const bench_target *a, const bench_target *b)
{
    return a->id[0] && b->id[0] && strcmp(a->id, b->id) != 0;
}

int bench_target_check(const json_t *env, char *err, size_t errlen)
{
    const json_t *tg = json_object_get(env, "target");
    if (!tg)
        return 0;
    if (!json_is_object(tg)) {
        put(err, errlen, "environment.target: is not an object");
        return -1;
    }
    static const char *const keys[] = { "kind", "name", "id" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const json_t *v = json_object_get(tg, keys[i]);
        if (!json_is_string(v)) {
            put(err, errlen, "environment.target.%s: %s a string", keys[i], v ? "is not" : "missing; expected");
            return -1;
        }
    }
    return 0;
}

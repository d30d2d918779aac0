/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_url.c - bench/util/url.h on any text: parsing (the
 * --endpoint and --url check), the URLs made from a parsed one (":wrap",
 * the plain-HTTP twin), and identities of text read from files.  Beside
 * the sanitizers' findings it checks what the structure promises: parts
 * that rebuild the text, an identity without credentials, query or
 * fragment, a port from 1 to 65535, one-line refusals.
 */
#include "tests/fuzz/fuzz.h"

#include "bench/util/url.h"

static void check_parsed(const bench_url *u, const char *s)
{
    if (strcmp(u->text, s) != 0 || u->port < 1 || u->port > 65535 || !u->host[0])
        abort();
    if (strchr(u->identity, '?') || strchr(u->identity, '#') || strchr(u->host, '@'))
        abort();
    if (strncmp(u->identity, u->scheme == BENCH_URL_HTTPS ? "https://" : "http://",
                u->scheme == BENCH_URL_HTTPS ? 8 : 7) != 0)
        abort();
    /* The text ends with the path, the query and the fragment as parsed. */
    size_t n = strlen(s), f = u->fragment ? strlen(u->fragment) + 1 : 0,
           q = u->query ? strlen(u->query) + 1 : 0, p = strlen(u->path);
    if (p + q + f > n || strncmp(s + n - f - q - p, u->path, p) != 0)
        abort();
    /* The identity parses to itself. */
    bench_url again;
    if (bench_url_parse(&again, u->identity, NULL, 0) != 0 || strcmp(again.identity, u->identity) != 0)
        abort();
    bench_url_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    if (!s)
        return 0;
    bench_url u, v;
    char err[256], id[512];
    if (bench_url_parse(&u, s, err, sizeof err) == 0) {
        check_parsed(&u, s);
        if (bench_url_append(&v, &u, ":wrap", err, sizeof err) == 0)
            bench_url_free(&v);
        if (bench_url_rebase(&v, &u, BENCH_URL_HTTP, 8080, err, sizeof err) == 0) {
            if (v.port != 8080 || v.userinfo || strcmp(v.path, u.path) != 0)
                abort();
            bench_url_free(&v);
        }
        if (bench_url_copy(&v, &u) != 0 || strcmp(v.identity, u.identity) != 0)
            abort();
        bench_url_free(&v);
        bench_url_free(&u);
    } else if (!err[0] || strchr(err, '\n') || u.mem) {
        abort();
    }
    int q = -1;
    bench_url_identity_of(s, id, sizeof id, &q);
    if (q != 0 && q != 1)
        abort();
    free(s);
    return 0;
}

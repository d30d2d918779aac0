/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_url.c - bench/util/url.h: what a URL parses into, what is
 * refused and why, the identity (no credentials, default port, query or
 * fragment), URLs made from URLs, and identities of text read from files.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/util/url.h"

#include <stdlib.h>

#include "tests/unit/check.h"

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void test_parses(void)
{
    static const struct {
        const char *in;
        bench_url_scheme scheme;
        int userinfo, port_given;
        unsigned port;
        const char *host, *path, *query, *fragment, *identity;
    } cases[] = {
        { "https://127.0.0.1:8443/v0/keys/k1", BENCH_URL_HTTPS, 0, 1, 8443, "127.0.0.1", "/v0/keys/k1", NULL,
          NULL, "https://127.0.0.1:8443/v0/keys/k1" },
        { "http://h", BENCH_URL_HTTP, 0, 0, 80, "h", "", NULL, NULL, "http://h" },
        { "https://h", BENCH_URL_HTTPS, 0, 0, 443, "h", "", NULL, NULL, "https://h" },
        { "HTTPS://Example.COM/Path/K1", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "/Path/K1", NULL, NULL,
          "https://example.com/Path/K1" },
        { "HtTp://H.example:80/x", BENCH_URL_HTTP, 0, 1, 80, "h.example", "/x", NULL, NULL, "http://h.example/x" },
        { "https://example.com:443/k", BENCH_URL_HTTPS, 0, 1, 443, "example.com", "/k", NULL, NULL,
          "https://example.com/k" },
        { "http://example.com:443/k", BENCH_URL_HTTP, 0, 1, 443, "example.com", "/k", NULL, NULL,
          "http://example.com:443/k" },
        { "https://h:65535/", BENCH_URL_HTTPS, 0, 1, 65535, "h", "/", NULL, NULL, "https://h:65535/" },
        { "https://h:1", BENCH_URL_HTTPS, 0, 1, 1, "h", "", NULL, NULL, "https://h:1" },
        { "https://h:08443/x", BENCH_URL_HTTPS, 0, 1, 8443, "h", "/x", NULL, NULL, "https://h:8443/x" },
        { "https://user:pw@example.com/k", BENCH_URL_HTTPS, 1, 0, 443, "example.com", "/k", NULL, NULL,
          "https://example.com/k" },
        { "https://user@example.com/k", BENCH_URL_HTTPS, 1, 0, 443, "example.com", "/k", NULL, NULL,
          "https://example.com/k" },
        { "https://a@b:pw@example.com:8443", BENCH_URL_HTTPS, 1, 1, 8443, "example.com", "", NULL, NULL,
          "https://example.com:8443" },
        { "https://example.com/k?sig=SECRET&x=1", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "/k",
          "sig=SECRET&x=1", NULL, "https://example.com/k" },
        { "https://example.com/k#frag", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "/k", NULL, "frag",
          "https://example.com/k" },
        { "https://example.com/k?q#f?g", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "/k", "q", "f?g",
          "https://example.com/k" },
        { "https://example.com?key=SECRET", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "", "key=SECRET",
          NULL, "https://example.com" },
        { "https://example.com?", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "", "", NULL,
          "https://example.com" },
        { "https://example.com#", BENCH_URL_HTTPS, 0, 0, 443, "example.com", "", NULL, "",
          "https://example.com" },
        { "https://[::1]:443/k", BENCH_URL_HTTPS, 0, 1, 443, "[::1]", "/k", NULL, NULL, "https://[::1]/k" },
        { "https://[::443]/k", BENCH_URL_HTTPS, 0, 0, 443, "[::443]", "/k", NULL, NULL, "https://[::443]/k" },
        { "http://[FE80::1%25eth0]:8080/x", BENCH_URL_HTTP, 0, 1, 8080, "[fe80::1%25eth0]", "/x", NULL,
          NULL, "http://[fe80::1%25eth0]:8080/x" },
        { "http://u:p@[::1]:8080", BENCH_URL_HTTP, 1, 1, 8080, "[::1]", "", NULL, NULL, "http://[::1]:8080" },
        { "http://h/a/../b;c=d/%20e", BENCH_URL_HTTP, 0, 0, 80, "h", "/a/../b;c=d/%20e", NULL, NULL,
          "http://h/a/../b;c=d/%20e" },
        { "https://h/v0/keys/k1:wrap", BENCH_URL_HTTPS, 0, 0, 443, "h", "/v0/keys/k1:wrap", NULL, NULL,
          "https://h/v0/keys/k1:wrap" },
        { "http://xn--bcher-kva.example/", BENCH_URL_HTTP, 0, 0, 80, "xn--bcher-kva.example", "/", NULL, NULL,
          "http://xn--bcher-kva.example/" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_url u;
        char err[256] = "";
        int rc = bench_url_parse(&u, cases[i].in, err, sizeof err);
        CHECK_MSG(rc == 0, "%s: %s", cases[i].in, err);
        if (rc != 0)
            continue;
        CHECK_MSG(u.scheme == cases[i].scheme && u.userinfo == cases[i].userinfo &&
                      u.port_given == cases[i].port_given && u.port == cases[i].port,
                  "%s: scheme %d userinfo %d port %u (given %d)", cases[i].in, u.scheme, u.userinfo, u.port,
                  u.port_given);
        CHECK_MSG(same(u.host, cases[i].host) && same(u.path, cases[i].path) && same(u.query, cases[i].query) &&
                      same(u.fragment, cases[i].fragment),
                  "%s: host '%s' path '%s' query '%s' fragment '%s'", cases[i].in, u.host, u.path,
                  u.query ? u.query : "(none)", u.fragment ? u.fragment : "(none)");
        CHECK_MSG(same(u.identity, cases[i].identity), "%s: identity '%s', want '%s'", cases[i].in, u.identity,
                  cases[i].identity);
        CHECK_MSG(strcmp(u.text, cases[i].in) == 0 && u.text != cases[i].in, "%s: text '%s'", cases[i].in,
                  u.text);
        bench_url_free(&u);
        CHECK(u.mem == NULL && u.text == NULL);
    }
}

static void test_refuses(void)
{
    static const struct { const char *in, *why; } cases[] = {
        { "ftp://h/x", "'ftp://h/x' is not an http:// or https:// URL" },
        { "", "is not an http:// or https:// URL" },
        { "h.example/x", "is not an http:// or https:// URL" },
        { "https:/h/x", "is not an http:// or https:// URL" },
        { "https//h/x", "is not an http:// or https:// URL" },
        { "httpss://h", "is not an http:// or https:// URL" },
        { " https://h/", "space or control character" },
        { "https://h/a b", "the URL contains a space or control character" },
        { "https://h/a\tb", "space or control character" },
        { "https://h/a\nb", "space or control character" },
        { "https://h/\x7f", "space or control character" },
        { "https://h/x\r", "space or control character" },
        { "https://", "'https://' has no host" },
        { "http:///x", "has no host" },
        { "https://?q", "has no host" },
        { "https://#f", "has no host" },
        { "https://:443/x", "has no host" },
        { "https://u:p@/x", "has no host" },
        { "https://[]/x", "has no host" },
        { "https://[::1/x", "closing ']'" },
        { "https://[::1]x/", "bad host" },
        { "https://[::1]]/", "bad host" },
        { "https://[::g<]/", "bad host" },
        { "https://h<x>/", "bad host" },
        { "https://h\"/", "bad host" },
        { "https://h\\x/", "bad host" },
        { "https://h{}/", "bad host" },
        { "https://h:/x", "bad port (expected 1 to 65535)" },
        { "https://h:0/x", "bad port" },
        { "https://h:65536/x", "bad port" },
        { "https://h:99999999999999999999/x", "bad port" },
        { "https://h:-1/x", "bad port" },
        { "https://h:+80/x", "bad port" },
        { "https://h:8o/x", "bad port" },
        { "https://h:80:81/x", "bad port" },
        { "https://h:wrap", "bad port" },
        { "https://[::1]:/x", "bad port" },
        { "https://[::1]:0/x", "bad port" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_url u;
        char err[256] = "";
        int rc = bench_url_parse(&u, cases[i].in, err, sizeof err);
        CHECK_MSG(rc == -1 && strstr(err, cases[i].why) && !strchr(err, '\n'), "%s: %d '%s', want '%s'",
                  cases[i].in, rc, err, cases[i].why);
        CHECK(u.mem == NULL && u.text == NULL);
        bench_url_free(&u);   /* harmless on a refused URL */
    }
    /* No error buffer: still refused. */
    bench_url u;
    CHECK(bench_url_parse(&u, "ftp://x", NULL, 0) == -1);
    CHECK(bench_url_parse(&u, NULL, NULL, 0) == -1);
}

/* What a message quotes of a refused URL keeps its secrets out. */
static void test_refusal_hides_secrets(void)
{
    static const char *const in[] = {
        "ftp://user:S3CRET@h/x?key=S3CRET",
        "https://user:S3CRET@:443/x",
        "https://user:S3CRET@h:0/x",
        "https://user:S3CRET@[::1/x",
        "https://h:99999/x?sig=S3CRET",
        "https://h/x?sig=S3CRET x",
        "https://h:1/x#S3CRET\x01",
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        bench_url u;
        char err[256] = "";
        CHECK(bench_url_parse(&u, in[i], err, sizeof err) == -1);
        CHECK_MSG(err[0] && !strstr(err, "S3CRET"), "%s: '%s'", in[i], err);
    }
}

static void test_append(void)
{
    bench_url base, u;
    char err[256];
    CHECK(bench_url_parse(&base, "https://kms.example:8443/v0/keys/k1", err, sizeof err) == 0);
    CHECK(bench_url_append(&u, &base, ":wrap", err, sizeof err) == 0);
    CHECK(strcmp(u.text, "https://kms.example:8443/v0/keys/k1:wrap") == 0 && u.port == 8443 &&
          strcmp(u.path, "/v0/keys/k1:wrap") == 0);
    bench_url_free(&u);
    bench_url_free(&base);
    /* An EKM endpoint with no path: ":wrap" would be a port. */
    CHECK(bench_url_parse(&base, "https://kms.example", err, sizeof err) == 0);
    CHECK(bench_url_append(&u, &base, ":wrap", err, sizeof err) == -1 && strstr(err, "bad port"));
    CHECK(u.mem == NULL);
    CHECK(bench_url_append(&u, &base, "/sys/v1/session/auth", err, sizeof err) == 0 &&
          strcmp(u.identity, "https://kms.example/sys/v1/session/auth") == 0);
    bench_url_free(&u);
    CHECK(bench_url_append(&u, &base, "/keys/a b", err, sizeof err) == -1);
    bench_url_free(&base);
    /* A copy owns its strings. */
    bench_url c;
    CHECK(bench_url_parse(&base, "http://[::1]:8080/x?y#z", err, sizeof err) == 0);
    CHECK(bench_url_copy(&c, &base) == 0);
    bench_url_free(&base);
    CHECK(strcmp(c.text, "http://[::1]:8080/x?y#z") == 0 && strcmp(c.host, "[::1]") == 0 &&
          strcmp(c.query, "y") == 0 && strcmp(c.fragment, "z") == 0 && c.port == 8080);
    bench_url_free(&c);
}

static void test_rebase(void)
{
    static const struct { const char *in; unsigned port; const char *out; } cases[] = {
        { "https://h.example:8443/x?y=1", 8080, "http://h.example:8080/x?y=1" },
        { "https://localhost/hello", 80, "http://localhost:80/hello" },
        { "HTTPS://[::1]:8443/v1/data", 8181, "http://[::1]:8181/v1/data" },
        { "https://h", 1, "http://h:1" },
        { "https://u:p@h/x#f", 81, "http://h:81/x#f" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bench_url base, u;
        char err[256] = "";
        CHECK(bench_url_parse(&base, cases[i].in, err, sizeof err) == 0);
        int rc = bench_url_rebase(&u, &base, BENCH_URL_HTTP, cases[i].port, err, sizeof err);
        CHECK_MSG(rc == 0 && strcmp(u.text, cases[i].out) == 0 && u.scheme == BENCH_URL_HTTP &&
                      u.port == cases[i].port && !u.userinfo,
                  "%s: %d '%s' '%s'", cases[i].in, rc, rc == 0 ? u.text : "", err);
        bench_url_free(&u);
        bench_url_free(&base);
    }
    bench_url base, u;
    char err[256];
    CHECK(bench_url_parse(&base, "https://h/x", err, sizeof err) == 0);
    CHECK(bench_url_rebase(&u, &base, BENCH_URL_HTTP, 0, err, sizeof err) == -1 && strstr(err, "bad port"));
    CHECK(bench_url_rebase(&u, &base, BENCH_URL_HTTPS, 8443, err, sizeof err) == 0 &&
          strcmp(u.text, "https://h:8443/x") == 0 && u.scheme == BENCH_URL_HTTPS);
    bench_url_free(&u);
    bench_url_free(&base);
}

/* Identities of text read from results files (environment.endpoint.url). */
static void test_identity_of(void)
{
    static const struct { const char *in, *out; int query; } cases[] = {
        { "https://127.0.0.1:8443/v0/keys/k1", "https://127.0.0.1:8443/v0/keys/k1", 0 },
        { "HTTPS://Example.COM/Path/K1", "https://example.com/Path/K1", 0 },
        { "https://example.com:443/k", "https://example.com/k", 0 },
        { "http://example.com:80/k", "http://example.com/k", 0 },
        { "http://example.com:443/k", "http://example.com:443/k", 0 },
        { "https://user:pw@example.com/k", "https://example.com/k", 0 },
        { "https://a@b:pw@example.com:8443", "https://example.com:8443", 0 },
        { "https://example.com/k?sig=SECRET&x=1", "https://example.com/k", 1 },
        { "https://example.com/k#frag", "https://example.com/k", 0 },
        { "https://example.com?key=SECRET", "https://example.com", 1 },
        { "https://[::1]:443/k", "https://[::1]/k", 0 },
        { "https://[::443]/k", "https://[::443]/k", 0 },
        { "not a url?x", "not a url", 1 },
        { "", "", 0 },
        /* Not a URL bench_url takes: credentials still left out. */
        { "ftp://user:pw@h/x?k=1", "ftp://h/x", 1 },
        { "https://user:pw@h:0/x", "https://h:0/x", 0 },
        { "https://user:pw@h/a b#f", "https://h/a b", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        int q = -1;
        bench_url_identity_of(cases[i].in, buf, sizeof buf, &q);
        CHECK_MSG(strcmp(buf, cases[i].out) == 0 && q == cases[i].query, "'%s': '%s' (query %d), want '%s'",
                  cases[i].in, buf, q, cases[i].out);
    }
    char small[8];
    bench_url_identity_of("https://example.com/k", small, sizeof small, NULL);   /* cut, terminated */
    CHECK(strcmp(small, "https:/") == 0);
    bench_url_identity_of("not a url at all", small, sizeof small, NULL);
    CHECK(strcmp(small, "not a u") == 0);
    int q = -1;
    bench_url_identity_of(NULL, small, sizeof small, &q);
    CHECK(small[0] == '\0' && q == 0);
}

/* A long URL: every part kept, nothing cut. */
static void test_long(void)
{
    size_t n = 8000;
    char *text = malloc(n + 1);
    CHECK(text != NULL);
    if (!text)
        return;
    memcpy(text, "https://h.example/", 18);
    memset(text + 18, 'a', n - 18);
    text[n] = '\0';
    text[4000] = '?';
    bench_url u;
    CHECK(bench_url_parse(&u, text, NULL, 0) == 0);
    CHECK(strlen(u.text) == n && strlen(u.path) == 4000 - 17 && strlen(u.query) == n - 4001 &&
          strlen(u.identity) == 4000);
    bench_url_free(&u);
    free(text);
}

/* A URL option's query and credentials out of argv, the whole URL kept. */
static void test_take(void)
{
    char plain[] = "https://h/k1";
    CHECK(bench_url_take(plain) == plain);
    char q[] = "https://h/k?sig=S1#f";
    const char *kept = bench_url_take(q);
    CHECK(kept && strcmp(kept, "https://h/k?sig=S1#f") == 0);
    CHECK(strcmp(q, "https://h/k?******#f") == 0);
    char cred[] = "http://u:pw@h:81/p?a=b";
    kept = bench_url_take(cred);
    CHECK(kept && strcmp(kept, "http://u:pw@h:81/p?a=b") == 0);
    CHECK(strcmp(cred, "http://****@h:81/p?***") == 0);
}

int main(void)
{
    RUN(test_parses);
    RUN(test_refuses);
    RUN(test_refusal_hides_secrets);
    RUN(test_append);
    RUN(test_rebase);
    RUN(test_identity_of);
    RUN(test_take);
    RUN(test_long);
    return check_finish();
}

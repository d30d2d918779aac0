/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/url.h - an http(s) URL, parsed once at the edge (an option's
 * check) into the one structure every part uses: the REST workloads and
 * their HTTP client (scheme, the text handed to libcurl), the results
 * floor (the redacted identity a target is named and compared by).
 *
 *   https://user:pw@Example.COM:8443/v0/keys/k1?sig=S#frag
 *   scheme BENCH_URL_HTTPS, userinfo 1, host "example.com", port 8443
 *   (port_given 1), path "/v0/keys/k1", query "sig=S", fragment "frag",
 *   identity "https://example.com:8443/v0/keys/k1"
 *
 * Strict: a space or control character anywhere, a scheme other than
 * http or https, no host, an IPv6 address without its closing bracket, a
 * character a host may not hold, or a port that is not a number from 1 to
 * 65535 is refused with one line (the caller names the flag before it).
 * Credentials (user:password@) are recorded, not refused: whether they
 * are acceptable is the caller's policy.
 */
#ifndef BENCH_URL_H
#define BENCH_URL_H

#include <stddef.h>

typedef enum bench_url_scheme { BENCH_URL_HTTP, BENCH_URL_HTTPS } bench_url_scheme;

typedef struct bench_url {
    bench_url_scheme scheme;
    int         userinfo;     /* a user[:password]@ was given */
    int         port_given;   /* the port was written out */
    unsigned    port;         /* as written, or 80 / 443 */
    const char *text;         /* the URL as given: what the HTTP client is handed */
    const char *host;         /* lower case; an IPv6 address keeps its brackets ("[::1]") */
    const char *path;         /* "" or "/..." */
    const char *query;        /* after '?' (without it); NULL when there is none */
    const char *fragment;     /* after '#' (without it); NULL when there is none */
    /* scheme://host[:port]path: scheme and host in lower case, no
     * credentials, no default port, no query (which may carry a key or a
     * signature) and no fragment.  Safe to print and to store. */
    const char *identity;
    char       *mem;          /* the one allocation every string above lives in */
} bench_url;

/*
 * Parse text into *u (which then owns a copy: free it with bench_url_free).
 * 0, or -1 with one line in err and *u empty (free is harmless):
 *   "'ftp://h/x' is not an http:// or https:// URL", "'https://' has no host",
 *   "the URL contains a space or control character",
 *   "'http://h:99999/' has a bad port (expected 1 to 65535)".
 * A URL quoted in a message has its credentials, query and fragment left out.
 */
int bench_url_parse(bench_url *u, const char *text, char *err, size_t errlen);

/* The URL of base's text followed by suffix ("https://h/k" + ":wrap"),
 * parsed.  0, or -1 with one line in err. */
int bench_url_append(bench_url *u, const bench_url *base, const char *suffix, char *err,
                     size_t errlen);

/* The same URL under another scheme and port, credentials left out:
 * the plain-HTTP twin of "https://h:8443/x?y" on 8080 is "http://h:8080/x?y".
 * 0, or -1 with one line in err. */
int bench_url_rebase(bench_url *u, const bench_url *base, bench_url_scheme scheme, unsigned port,
                     char *err, size_t errlen);

/* A copy of src that owns its own strings.  0, or -1 when out of memory. */
int bench_url_copy(bench_url *u, const bench_url *src);

/* Release what *u owns and leave it empty. */
void bench_url_free(bench_url *u);

/*
 * Text that may or may not be a URL (read from a results file) as an
 * identity into buf: bench_url's identity when it parses; otherwise the
 * text up to its first '?' or '#', credentials left out.  Cut to fit len
 * (always terminated).  *had_query (may be NULL) says whether a query was
 * dropped.  Returns buf.
 */
const char *bench_url_identity_of(const char *text, char *buf, size_t len, int *had_query);

/*
 * A URL option's value as it is taken (optarg, a word of argv): when it
 * has a query or credentials (either may carry a key, a signature, a
 * password), the URL is kept whole in the secret store (bench_secret_keep)
 * and argv shows a star for each of their characters.  Returns
 * what the option is to use: arg itself, or the copy; NULL (printed) when
 * out of memory.
 */
const char *bench_url_take(char *arg);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/url.c - an http(s) URL parsed once (see url.h). */
#include "bench/util/url.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/secret.h"
#include <strings.h>

/* Text up to its first '?' or '#', without what sits between "://" and the
 * last '@' of the authority: what may be shown of something that did not
 * parse.  Cut to fit len. */
static const char *loose_identity(const char *text, char *buf, size_t len, int *had_query)
{
    size_t o = 0;
    const char *p = text;
    const char *sep = strstr(text, "://");
    if (sep && (size_t)(sep - text) < strcspn(text, "/?#")) {
        const char *auth = sep + 3;
        size_t alen = strcspn(auth, "/?#");
        const char *at = NULL;
        for (const char *c = auth; c < auth + alen; c++)
            if (*c == '@')
                at = c;
        for (; p < auth && o + 1 < len; p++)
            buf[o++] = *p;
        p = at ? at + 1 : auth;
    }
    for (; *p && *p != '?' && *p != '#'; p++)
        if (o + 1 < len)
            buf[o++] = *p;
    if (len)
        buf[o] = '\0';
    if (had_query)
        *had_query = *p == '?';
    return buf;
}

static int host_char(unsigned char c)
{
    return isalnum(c) || (c && strchr("-._~!$&'()*+,;=%", c));
}

static int ipv6_char(unsigned char c)
{
    return isxdigit(c) || (c && strchr(":.%-_~", c)) || isalnum(c);
}

int bench_url_parse(bench_url *u, const char *text, char *err, size_t errlen)
{
    char shown[200];
    memset(u, 0, sizeof *u);
    if (!text)
        text = "";
    loose_identity(text, shown, sizeof shown, NULL);
    for (const char *c = text; *c; c++) {
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c == 0x7f) {
            bench_seterr(err, errlen, "the URL contains a space or control character");
            return -1;
        }
    }
    bench_url_scheme scheme;
    const char *p;
    if (strncasecmp(text, "https://", 8) == 0) {
        scheme = BENCH_URL_HTTPS;
        p = text + 8;
    } else if (strncasecmp(text, "http://", 7) == 0) {
        scheme = BENCH_URL_HTTP;
        p = text + 7;
    } else {
        bench_seterr(err, errlen, "'%s' is not an http:// or https:// URL", shown);
        return -1;
    }
    /* authority: [user[:password]@]host[:port] */
    const char *aend = p + strcspn(p, "/?#");
    const char *host = p;
    for (const char *c = p; c < aend; c++)
        if (*c == '@')
            host = c + 1;
    const char *hend, *portp = NULL;
    if (host < aend && *host == '[') {
        const char *close = memchr(host, ']', (size_t)(aend - host));
        if (!close) {
            bench_seterr(err, errlen, "'%s' has an IPv6 address without its closing ']'", shown);
            return -1;
        }
        hend = close + 1;
        for (const char *c = host + 1; c < close; c++) {
            if (!ipv6_char((unsigned char)*c)) {
                bench_seterr(err, errlen, "'%s' has a bad host", shown);
                return -1;
            }
        }
        if (close == host + 1) {
            bench_seterr(err, errlen, "'%s' has no host", shown);
            return -1;
        }
        if (hend < aend) {
            if (*hend != ':') {
                bench_seterr(err, errlen, "'%s' has a bad host", shown);
                return -1;
            }
            portp = hend + 1;
        }
    } else {
        const char *colon = memchr(host, ':', (size_t)(aend - host));
        hend = colon ? colon : aend;
        if (colon)
            portp = colon + 1;
        for (const char *c = host; c < hend; c++) {
            if (!host_char((unsigned char)*c)) {
                bench_seterr(err, errlen, "'%s' has a bad host", shown);
                return -1;
            }
        }
    }
    if (hend == host) {
        bench_seterr(err, errlen, "'%s' has no host", shown);
        return -1;
    }
    unsigned port = scheme == BENCH_URL_HTTPS ? 443 : 80;
    int port_given = 0;
    if (portp) {
        unsigned long v = 0;
        int ok = portp < aend;
        for (const char *c = portp; ok && c < aend; c++) {
            if (!isdigit((unsigned char)*c))
                ok = 0;
            else if ((v = v * 10 + (unsigned long)(*c - '0')) > 65535)
                ok = 0;
        }
        if (!ok || v == 0) {
            bench_seterr(err, errlen, "'%s' has a bad port (expected 1 to 65535)", shown);
            return -1;
        }
        port = (unsigned)v;
        port_given = 1;
    }
    /* path ?query #fragment */
    const char *path = aend;
    size_t plen = strcspn(path, "?#");
    const char *q = NULL, *f = NULL;
    size_t qlen = 0, flen = 0;
    if (path[plen] == '?') {
        q = path + plen + 1;
        qlen = strcspn(q, "#");
        if (q[qlen] == '#')
            f = q + qlen + 1;
    } else if (path[plen] == '#') {
        f = path + plen + 1;
    }
    if (f)
        flen = strlen(f);

    size_t n = strlen(text), hl = (size_t)(hend - host);
    size_t idcap = sizeof "https://" + hl + sizeof ":65535" + plen;
    size_t cap = (n + 1) + (hl + 1) + (plen + 1) + (qlen + 1) + (flen + 1) + idcap;
    char *m = malloc(cap), *w = m;
    if (!m) {
        bench_seterr(err, errlen, "out of memory");
        return -1;
    }
    u->mem = m;
    u->scheme = scheme;
    u->userinfo = host != p;
    u->port = port;
    u->port_given = port_given;
    memcpy(w, text, n + 1);
    u->text = w;
    w += n + 1;
    for (size_t i = 0; i < hl; i++)
        w[i] = (char)tolower((unsigned char)host[i]);
    w[hl] = '\0';
    u->host = w;
    w += hl + 1;
    memcpy(w, path, plen);
    w[plen] = '\0';
    u->path = w;
    w += plen + 1;
    if (q) {
        memcpy(w, q, qlen);
        w[qlen] = '\0';
        u->query = w;
        w += qlen + 1;
    }
    if (f) {
        memcpy(w, f, flen + 1);
        u->fragment = w;
        w += flen + 1;
    }
    char portbuf[8] = "";
    if (port_given && port != (scheme == BENCH_URL_HTTPS ? 443u : 80u))
        snprintf(portbuf, sizeof portbuf, ":%u", port);
    snprintf(w, idcap, "%s://%s%s%s", scheme == BENCH_URL_HTTPS ? "https" : "http", u->host, portbuf,
             u->path);
    u->identity = w;
    return 0;
}

void bench_url_free(bench_url *u)
{
    if (!u)
        return;
    free(u->mem);
    memset(u, 0, sizeof *u);
}

int bench_url_copy(bench_url *u, const bench_url *src)
{
    return bench_url_parse(u, src->text, NULL, 0);
}

/* Parse the text that fmt makes. */
static int parse_made(bench_url *u, char *err, size_t errlen, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int parse_made(bench_url *u, char *err, size_t errlen, size_t cap, const char *fmt, ...)
{
    memset(u, 0, sizeof *u);
    char *t = malloc(cap);
    if (!t) {
        bench_seterr(err, errlen, "out of memory");
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, cap, fmt, ap);
    va_end(ap);
    int rc = n < 0 || (size_t)n >= cap ? -1 : bench_url_parse(u, t, err, errlen);
    if (n < 0 || (size_t)n >= cap)
        bench_seterr(err, errlen, "cannot make the URL");
    free(t);
    return rc;
}

int bench_url_append(bench_url *u, const bench_url *base, const char *suffix, char *err,
                     size_t errlen)
{
    return parse_made(u, err, errlen, strlen(base->text) + strlen(suffix) + 1, "%s%s", base->text,
                      suffix);
}

int bench_url_rebase(bench_url *u, const bench_url *base, bench_url_scheme scheme, unsigned port,
                     char *err, size_t errlen)
{
    return parse_made(u, err, errlen, strlen(base->text) + 32, "%s://%s:%u%s%s%s%s%s",
                      scheme == BENCH_URL_HTTPS ? "https" : "http", base->host, port, base->path,
                      base->query ? "?" : "", base->query ? base->query : "",
                      base->fragment ? "#" : "", base->fragment ? base->fragment : "");
}

const char *bench_url_identity_of(const char *text, char *buf, size_t len, int *had_query)
{
    bench_url u;
    if (len == 0)
        return buf;
    if (!text) {
        buf[0] = '\0';
        if (had_query)
            *had_query = 0;
        return buf;
    }
    if (bench_url_parse(&u, text, NULL, 0) != 0)
        return loose_identity(text, buf, len, had_query);
    snprintf(buf, len, "%s", u.identity);
    if (had_query)
        *had_query = u.query != NULL;
    bench_url_free(&u);
    return buf;
}

const char *bench_url_take(char *arg)
{
    char *scheme = strstr(arg, "://");
    char *auth = scheme ? scheme + 3 : arg;
    const size_t authlen = strcspn(auth, "/?#");
    char *at = memchr(auth, '@', authlen);
    char *q = strchr(arg, '?');
    if (!at && !q)
        return arg;
    const char *copy = bench_secret_keep(arg);
    if (!copy)
        return NULL;
    if (at)
        bench_secret_mask(auth, (size_t)(at - auth));
    if (q)
        bench_secret_mask(q + 1, strcspn(q + 1, "#"));
    return copy;
}

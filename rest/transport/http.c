/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/http.c - one worker's HTTP client over its engine (libcurl's or the lean one), phases, redacted logging. */
#include "rest/transport/http.h"

#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/secret.h"
#include "rest/transport/codes.h"
#include "rest/transport/lean.h"
#include "rest/transport/phases.h"

#define BODY_MAX   (16u << 20)      /* a larger answer is TOO_LARGE, not a memory hog */
#define PROF_MAX   2048
#define PENDING_MAX 4               /* requests of one operation noted before a flush */
/* libcurl 7.80 and later call CURLOPT_PREREQFUNCTION before each send. */
#define REST_COUNT_SENDS (LIBCURL_VERSION_NUM >= 0x075000)

/* What one request did, noted while the operation runs, recorded after it. */
typedef struct pending_req {
    long        status;
    int         complete;           /* the transfer completed: the stamps are valid */
    unsigned    retried;            /* times libcurl sent it again (see finish) */
    unsigned    stale;              /* kept connections the lean engine found closed */
    unsigned    unsolicited;        /* kept connections found holding an answer before the request */
    rest_stamps stamps;
    uint64_t    bytes_in, bytes_out;  /* on the wire, headers included */
    int         have_prof;
    char        prof[PROF_MAX];
} pending_req;

typedef struct http_engine http_engine;

struct rest_http {
    /* Who sends, chosen once by rest_http_new(): libcurl's easy handle
     * (easy), or the lean engine's connection (lean, lr); the other NULL. */
    const http_engine *eng;
    CURL              *easy;
    rest_lean         *lean;
    rest_lean_result   lr;                /* what the lean engine said of the last request */
    unsigned long      headers_gen;       /* changes with the header lines behind h->set, or a URL's text */
    int                gen_after;         /* a URL for one request: change headers_gen after it too */
    const char        *req_body;          /* the request's body, and its length */
    size_t             req_len;
    long               cur_timeout_ms;    /* --timeout, or the tear-down's */
    unsigned           worker;
    int                verbose;
    const char *const *secret_headers;    /* --secret-header (rest_http_opts) */
    size_t             nsecret_headers;
    bench_side        *side;              /* the run's recorder; NULL: nothing noted */
    rest_status_ok_fn  ok;                /* http_req_failed's expected statuses */
    const void        *ok_arg;
    pending_req        pending[PENDING_MAX];
    unsigned           npending;
    unsigned           nlast;             /* the requests of the last operation flushed (--out jtl) */
    uint64_t           reauth;            /* re-authentications since the last flush */
    uint64_t           checks[REST_CHECK_COUNT][2];  /* [kind][failed] since the last flush */
    unsigned           sends;             /* times libcurl sent this request (on_prereq) */
#if !REST_COUNT_SENDS
    int                reuse;             /* connections are kept alive between requests */
    int                kept;              /* the last request left its connection alive */
#endif
    int                close_seen;        /* this answer said "Connection: close" */
    struct curl_slist *headers;           /* holds Authorization: wiped on free */
    const struct curl_slist *base;        /* the request headers: headers, or the caller's */
    int                no_expect;         /* put expect_node before base for a larger body */
    struct curl_slist  expect_node;       /* "Expect:", then base */
    const struct curl_slist *set;         /* the list the handle holds now */
    const char        *method;
    const bench_url   *url;
    /* The URL the handle holds, known by its address (rest_http_request):
     * the same URL again sets nothing.  NULL: none known. */
    const bench_url   *last_url;
    int                tls;               /* the URL is https */
    int                last_post;
    const char        *last_body;         /* the POST fields the handle holds, and their length */
    size_t             last_len;
    char              *body;              /* response body, NUL-terminated */
    size_t             len, cap;
    int                too_large;
    int                interrupted;       /* the last transfer was cut by Ctrl-C */
    int                headers_refused;   /* over REST_HEADER_BYTES_MAX of headers and trailers */
    unsigned           unsolicited;       /* libcurl: its kept connection held an answer before the request */
    int                in_headers;        /* a status line came, the blank line not yet */
    uint64_t           header_bytes;      /* of this answer's header lines (CURLINFO_HEADER_SIZE) */
    int                interruptible;     /* the options named an interrupt flag */
    int                abandon_ok;        /* interruptible, and rest_http_interruptible on */
    int                teardown;          /* rest_http_teardown_mode: a second signal abandons */
    int                engine_owned;      /* rest_http_engine_owned: the engine's limits */
    long               curl_timeout_ms;   /* libcurl's: the timeout its handle holds */
    int                curl_progress;     /* ... and its progress function (curl_limits) */
    long               timeout_ms;        /* --timeout */
    const bench_flag  *interrupt;         /* Ctrl-C, or NULL */
    char               prof[PROF_MAX];
    int                have_prof;
    char               errbuf[CURL_ERROR_SIZE];
};

/* What one ended request leaves to note of itself, as its engine saw it. */
typedef struct http_note {
    rest_stamps stamps;          /* libcurl's timestamps (for the side metrics and -v) */
    unsigned    retried;         /* times it was sent again (libcurl's silent re-sends) */
    unsigned    stale;           /* kept connections found closed before it was sent */
    unsigned    unsolicited;     /* an answer nobody asked for, on its connection */
    uint64_t    bytes_in, bytes_out;   /* on the wire, headers included (for the side metrics) */
} http_note;

/*
 * An engine's share of a handle's work, chosen once by rest_http_new():
 * what libcurl and the lean engine do differently is here and nowhere
 * else, so no call asks which engine it has.
 */
struct http_engine {
    /* Make the engine's part of h (the common fields are set), or say why not. */
    int          (*open)(rest_http *h, const rest_http_opts *o, char *err, size_t errlen);
    void         (*close)(rest_http *h);
    /* The request set on h (method, url, req_body and req_len) is the next. */
    void         (*prepare)(rest_http *h);
    /* The header list to send from now on. */
    void         (*headers)(rest_http *h, const struct curl_slist *list);
    /* h's limits changed: cur_timeout_ms, abandon_ok, teardown, engine_owned. */
    void         (*limits)(rest_http *h);
    /* Run the prepared request to its end, blocking. */
    rest_xfer_rc (*run)(rest_http *h);
    /* The request ended: with rc 0, its status; else the class of its
     * failure and the words for it when errbuf holds none. */
    long         (*status)(rest_http *h);
    bench_code   (*classify)(rest_http *h, rest_xfer_rc rc);
    const char  *(*strerror)(rest_xfer_rc rc);
    /* What is noted of it: stamps only when h->side or -v asks, bytes when h->side does. */
    void         (*note)(rest_http *h, rest_xfer_rc rc, http_note *n);
};

static const http_engine curl_engine, lean_engine;

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    rest_http *h = arg;
    size_t n = size * nmemb;
    if (h->len + n > BODY_MAX) {
        h->too_large = 1;
        return 0;                          /* CURLE_WRITE_ERROR */
    }
    if (h->len + n + 1 > h->cap) {
        size_t cap = h->cap ? h->cap : 4096;
        while (cap < h->len + n + 1)
            cap *= 2;
        char *nb = realloc(h->body, cap);
        if (!nb)
            return 0;
        h->body = nb;
        h->cap = cap;
    }
    memcpy(h->body + h->len, data, n);
    h->len += n;
    h->body[h->len] = 0;
    return n;
}

#if REST_COUNT_SENDS
/* libcurl is about to send the request, on a new connection or a kept one:
 * once for each time it is sent, its silent re-sends included. */
static int on_prereq(void *arg, char *primary_ip, char *local_ip, int primary_port, int local_port)
{
    (void)primary_ip, (void)local_ip, (void)primary_port, (void)local_port;
    ((rest_http *)arg)->sends++;
    return CURL_PREREQFUNC_OK;
}
#endif

/* Only one header matters: SDKMS's server-side timings. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
    static const char name[] = "profiling-data:";
    static const char conn[] = "connection:";
    rest_http *h = arg;
    const size_t n = size * nmemb;
    /* Called for every header line of every answer: a test on the first
     * character sends most lines straight back, and one on the fourth the
     * Content-* lines (no library call for them). */
    const char c0 = n ? (char)(data[0] | 0x20) : 0;
    h->header_bytes += n;
    if (h->header_bytes > REST_HEADER_BYTES_MAX) {
        /* libcurl bounds the headers, not the trailers that follow a
         * chunked body: a server sending them forever would take all
         * the memory there is. */
        h->headers_refused = 1;
        return 0;                          /* CURLE_WRITE_ERROR */
    }
    if (c0 != 'h' && c0 != 'c' && c0 != 'p' && c0 != ('\r' | 0x20) && c0 != ('\n' | 0x20))
        return n;
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0)
        h->in_headers = 1;
    else if (n <= 2 && (data[0] == '\r' || data[0] == '\n'))
        h->in_headers = 0;
    if (n > sizeof conn - 1 && c0 == 'c' && (data[3] | 0x20) == 'n' &&
        strncasecmp(data, conn, sizeof conn - 1) == 0) {
        const char *v = data + sizeof conn - 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if ((size_t)(v - data) + 5 <= n && strncasecmp(v, "close", 5) == 0)
            h->close_seen = 1;
    }
    if (n > sizeof name - 1 && c0 == 'p' && strncasecmp(data, name, sizeof name - 1) == 0) {
        const char *v = data + sizeof name - 1;
        size_t vl = n - (sizeof name - 1);
        while (vl && (*v == ' ' || *v == '\t'))
            v++, vl--;
        while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
            vl--;
        if (vl < sizeof h->prof) {
            memcpy(h->prof, v, vl);
            h->prof[vl] = 0;
            h->have_prof = 1;
        }
    }
    return n;
}

static size_t named(const char *line, size_t n, const char *name)
{
    const size_t l = strlen(name);
    return n > l && strncasecmp(line, name, l) == 0 && line[l] == ':' ? l + 1 : 0;
}

size_t rest_http_secret_header(const char *line, size_t n, const char *const *extra, size_t n_extra)
{
    static const char *const names[] = { "Authorization", "Proxy-Authorization", "Cookie",
                                         "Set-Cookie", "X-Api-Key", "X-Auth-Token" };
    size_t cut = 0;
    for (size_t i = 0; !cut && i < sizeof names / sizeof names[0]; i++)
        cut = named(line, n, names[i]);
    for (size_t i = 0; !cut && i < n_extra; i++)
        cut = named(line, n, extra[i]);
    return cut;
}

/* Every occurrence of the n bytes s in text (a C string) made "***". */
static void scrub_one(char *text, const char *s, size_t n)
{
    char *p = text;
    while ((p = memmem(p, strlen(p), s, n)) != NULL) {
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
        p += 3;
    }
    /* Cut short on its start: "... Bearer eyJhbGciOi..." */
    const size_t len = strlen(text);
    if (len < 3 || strcmp(text + len - 3, "...") != 0)
        return;
    for (size_t k = n - 1; k >= 6; k--) {
        if (k <= len - 3 && memcmp(text + len - 3 - k, s, k) == 0) {
            memcpy(text + len - 3 - k, "***...", 7);
            return;
        }
    }
}

/* The secret values of one header list in text. */
static void scrub_list(const rest_http *h, const struct curl_slist *l, char *text)
{
    for (; l; l = l->next) {
        const char *line = l->data;
        const size_t n = strlen(line), cut = rest_http_secret_header(line, n, h->secret_headers,
                                                                     h->nsecret_headers);
        if (!cut)
            continue;
        const char *v = line + cut;
        while (*v == ' ')
            v++;
        if (strlen(v) >= 4)
            scrub_one(text, v, strlen(v));
        for (const char *w = v; *w;) {
            const size_t wl = strcspn(w, " ,;");
            if (wl >= 8)
                scrub_one(text, w, wl);
            w += wl;
            w += strspn(w, " ,;");
        }
    }
}

void rest_http_scrub(const rest_http *h, char *text)
{
    if (!h || !text)
        return;
    scrub_list(h, h->headers, text);
    if (h->base != h->headers)
        scrub_list(h, h->base, text);
}

/* A request line ("GET /k?sig=S HTTP/1.1") with its query cut: its length
 * up to the '?', or 0 when it has none. */
static size_t query_at(const char *line, size_t n)
{
    const char *sp = memchr(line, ' ', n);
    if (!sp)
        return 0;
    const char *q = memchr(sp, '?', n - (size_t)(sp - line));
    return q ? (size_t)(q - line) : 0;
}

/* -v: libcurl's own commentary and the headers, never a body (bodies carry
 * session tokens and key material) and never a credential. */
static int on_debug(CURL *easy, curl_infotype type, char *data, size_t size, void *arg)
{
    rest_http *h = arg;
    char mark;
    (void)easy;
    switch (type) {
    case CURLINFO_TEXT:       mark = '*'; break;
    case CURLINFO_HEADER_OUT: mark = '>'; break;
    case CURLINFO_HEADER_IN:  mark = '<'; break;
    default:                  return 0;
    }
    size_t i = 0;
    while (i < size) {
        size_t e = i;
        while (e < size && data[e] != '\n')
            e++;
        size_t n = e - i;
        if (n && data[i + n - 1] == '\r')
            n--;
        if (n) {
            const int hdr = type == CURLINFO_HEADER_OUT || type == CURLINFO_HEADER_IN;
            int cut = hdr ? (int)rest_http_secret_header(data + i, n, h->secret_headers,
                                                         h->nsecret_headers) : 0;
            const size_t q = type == CURLINFO_HEADER_OUT && !cut ? query_at(data + i, n) : 0;
            if (q) {
                /* The query may carry a key or a signature. */
                const char *proto = memchr(data + i + q, ' ', n - q);
                fprintf(stderr, "[w%u] %c %.*s?***%.*s\n", h->worker, mark, (int)q, data + i,
                        proto ? (int)(data + i + n - proto) : 0, proto ? proto : "");
            } else if (cut) {
                /* Keep the scheme ("Bearer", "Basic"): it helps, and is no secret. */
                const char *v = data + i + cut;
                size_t vl = n - (size_t)cut, s = 0;
                while (s < vl && v[s] == ' ')
                    s++;
                size_t w = s;
                while (w < vl && v[w] != ' ')
                    w++;
                int scheme = w < vl && (data[i] == 'A' || data[i] == 'a');
                fprintf(stderr, "[w%u] %c %.*s %.*s%s***\n", h->worker, mark, cut, data + i,
                        scheme ? (int)(w - s) : 0, v + s, scheme ? " " : "");
            } else {
                fprintf(stderr, "[w%u] %c %.*s\n", h->worker, mark, (int)n, data + i);
            }
        }
        i = e + 1;
    }
    return 0;
}

/* Ctrl-C: abandon the request in flight (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    const bench_flag *interrupt = arg;
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return *interrupt != 0;
}

/* In the clean-up, only a second signal abandons a request (the first
 * stopped the run, not the clean-up). */
static int on_progress_again(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                             curl_off_t ulnow)
{
    const bench_flag *interrupt = arg;
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return (*interrupt & BENCH_SIGNAL_AGAIN) != 0;
}

static const bench_option http_rows[] = {
    { "cacert", 0, BENCH_ARG_REQUIRED, "FILE", REST_OPT_CACERT,
      "trust these CA certificates instead of the system's", NULL },
    { "cert", 0, BENCH_ARG_REQUIRED, "FILE", REST_OPT_CERT,
      "client certificate and key (mutual TLS), PEM", "--cert FILE --key FILE" },
    { "key", 0, BENCH_ARG_REQUIRED, "FILE", REST_OPT_KEY, NULL, NULL },
    { "insecure", 0, BENCH_ARG_NONE, NULL, REST_OPT_INSECURE,
      "do not verify the server's certificate (warns)", NULL },
    { "no-connection-reuse", 0, BENCH_ARG_NONE, NULL, REST_OPT_NO_REUSE,
      "a new connection and full TLS handshake for every request", NULL },
    { "http2", 0, BENCH_ARG_NONE, NULL, REST_OPT_HTTP2,
      "HTTP/2 over TLS when the server offers it (default HTTP/1.1 keep-alive)", NULL },
    { "timeout", 0, BENCH_ARG_REQUIRED, "TIME", REST_OPT_TIMEOUT,
      "per request, connection included (default 10s)", NULL },
    { "engine", 0, BENCH_ARG_REQUIRED, "NAME", REST_OPT_ENGINE,
      "who sends: lean (hsmbench's HTTP/1.1 client; the default\n"
      "for keep-alive ekm and sdkms runs, blocking or not) or libcurl", NULL },
};
const bench_opt_group rest_http_group = BENCH_OPT_GROUP("TLS and HTTP:", http_rows, NULL);

int rest_http_opt(rest_http_opts *o, int code, const char *arg)
{
    uint64_t ns;
    switch (code) {
    case REST_OPT_CACERT:   o->cacert = arg; return 1;
    case REST_OPT_CERT:     o->cert = arg; return 1;
    case REST_OPT_KEY:      o->key = arg; return 1;
    case REST_OPT_INSECURE: o->insecure = 1; return 1;
    case REST_OPT_NO_REUSE: o->no_reuse = 1; return 1;
    case REST_OPT_HTTP2:    o->http2 = 1; return 1;
    case REST_OPT_ENGINE:
        if (strcmp(arg, "libcurl") == 0)
            o->engine = REST_ENGINE_LIBCURL;
        else if (strcmp(arg, "lean") == 0)
            o->engine = REST_ENGINE_LEAN;
        else {
            bench_error("--engine %s: not an engine (libcurl or lean)", arg);
            return -1;
        }
        return 1;
    case REST_OPT_TIMEOUT:
        if (bench_parse_duration("--timeout", arg, 1000000ULL, 3600ULL * 1000000000ULL, &ns) != 0)
            return -1;
        o->timeout_ms = (long)(ns / 1000000);
        return 1;
    default:
        return 0;
    }
}

/* The files' bytes for libcurl (CURLOPT_*_BLOB: no file read at a
 * handshake). */
typedef struct rest_http_files {
    char  *data[3];           /* --cacert, --cert, --key; NULL: not given */
    size_t len[3];
} rest_http_files;

#define REST_TLS_FILE_MAX (16u << 20)   /* a CA bundle is well under 1 MB */

int rest_http_load_files(rest_http_opts *o, char *err, size_t errlen)
{
    const char *const paths[3] = { o->cacert, o->cert, o->key };
    static const char *const flags[3] = { "--cacert", "--cert", "--key" };
    rest_http_files *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    o->files = f;
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        char why[256];
        const int fd = bench_open_input(paths[i], 1, why, sizeof why);
        if (fd < 0) {
            snprintf(err, errlen, "%s %s: cannot read the file: %s", flags[i], paths[i], why);
            goto fail;
        }
        FILE *in = fdopen(fd, "rb");
        if (!in) {
            close(fd);
            snprintf(err, errlen, "%s %s: cannot read the file", flags[i], paths[i]);
            goto fail;
        }
        size_t cap = 4096, n = 0;
        char *buf = malloc(cap);
        int full = 0;
        for (;;) {
            if (!buf)
                break;
            if (n == cap) {
                if (cap >= REST_TLS_FILE_MAX) {
                    full = 1;
                    break;
                }
                char *bigger = malloc(cap * 2);
                if (bigger)
                    memcpy(bigger, buf, n);
                bench_secret_wipe(buf, n);      /* a key's bytes leave no copy behind */
                free(buf);
                buf = bigger;
                cap *= 2;
                continue;
            }
            const size_t got = fread(buf + n, 1, cap - n, in);
            n += got;
            if (got == 0)
                break;
        }
        const int bad = !buf || ferror(in) || full;
        fclose(in);
        if (bad) {
            if (buf)
                bench_secret_wipe(buf, n);
            free(buf);
            snprintf(err, errlen, "%s %s: cannot read the file%s", flags[i], paths[i],
                     full ? " (over 16 MiB)" : !buf ? " (out of memory)" : "");
            goto fail;
        }
        f->data[i] = buf;
        f->len[i] = n;
    }
    return 0;
fail:
    rest_http_release_files(o);
    return -1;
}

void rest_http_release_files(rest_http_opts *o)
{
    rest_http_files *f = o->files;
    if (!f)
        return;
    for (int i = 0; i < 3; i++) {
        if (f->data[i])
            bench_secret_wipe(f->data[i], f->len[i]);   /* the key's bytes above all */
        free(f->data[i]);
    }
    free(f);
    o->files = NULL;
}

int rest_http_check_opts(const rest_http_opts *o, const bench_url *url, const char *url_flag,
                         char *err, size_t errlen)
{
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (o->key && !o->cert) {
        snprintf(err, errlen, "--key: give the client certificate with --cert too");
        return -1;
    }
    const char *files[] = { o->cacert, o->cert, o->key };
    const char *fflags[] = { "--cacert", "--cert", "--key" };
    for (int i = 0; i < 3; i++) {
        if (files[i] && access(files[i], R_OK) != 0) {
            snprintf(err, errlen, "%s %s: cannot read the file", fflags[i], files[i]);
            return -1;
        }
    }
    if (o->insecure && o->cacert)
        bench_warn("--cacert is ignored with --insecure: nothing is verified");
    if (!(v->features & CURL_VERSION_SSL)) {
        snprintf(err, errlen, "this libcurl has no TLS support");
        return -1;
    }
    if (o->http2 && !(v->features & CURL_VERSION_HTTP2)) {
        snprintf(err, errlen, "--http2: this libcurl (%s) has no HTTP/2 support", v->version);
        return -1;
    }
    if (o->http2 && url && url->scheme != BENCH_URL_HTTPS) {
        snprintf(err, errlen, "--http2 with a plain http:// %s: HTTP/2 is asked for through TLS (ALPN) "
                 "only, so this would run HTTP/1.1 (h2c fails every request after the first on a "
                 "reused connection with this libcurl, %s): use an https:// URL, or drop --http2",
                 url_flag, v->version);
        return -1;
    }
    return 0;
}

/* ---- libcurl's engine ----------------------------------------------------------- */

/* An easy handle with the run's options, for the handle's requests. */
static int curl_open(rest_http *h, const rest_http_opts *o, char *err, size_t errlen)
{
    CURL *e = h->easy = curl_easy_init();
    if (!e) {
        snprintf(err, errlen, "cannot create an HTTP client (out of memory)");
        return -1;
    }
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);        /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms);
    h->curl_timeout_ms = o->timeout_ms;
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, h->errbuf);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
#if REST_COUNT_SENDS
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, h);
#endif
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    /* Straight to the endpoint: a proxy would be measured too, and libcurl
     * would read the proxy variables of the environment on every request. */
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    /* The files' bytes read once for the run when there (libcurl keeps
     * a pointer: they outlive the clients); else their names. */
    const rest_http_files *fl = o->files;
    static const CURLoption blob_opt[3] = { CURLOPT_CAINFO_BLOB, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB };
    static const CURLoption path_opt[3] = { CURLOPT_CAINFO, CURLOPT_SSLCERT, CURLOPT_SSLKEY };
    const char *const paths[3] = { o->cacert, o->cert, o->key };
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        if (fl && fl->data[i]) {
            struct curl_blob b = { fl->data[i], fl->len[i], CURL_BLOB_NOCOPY };
            curl_easy_setopt(e, blob_opt[i], &b);
        } else {
            curl_easy_setopt(e, path_opt[i], paths[i]);
        }
    }
    if (o->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                     o->http2 ? (long)CURL_HTTP_VERSION_2TLS : (long)CURL_HTTP_VERSION_1_1);
    /* HTTP/2 on a multi handle: a transfer that finds the thread's
     * connection still being made waits for it and goes as one more stream,
     * instead of opening a connection of its own (without this, the slots'
     * first transfers, started together, each made one, and every stream
     * stayed alone on its connection).  libcurl opens another connection
     * only when the server's limit of concurrent streams is reached. */
    if (o->http2)
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    if (o->no_reuse) {
        /* A new TCP connection and a full TLS handshake for every request:
         * no kept connection and no resumed TLS session either. */
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
        curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    }
    if (o->interrupt) {
        curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(e, CURLOPT_XFERINFODATA, (void *)o->interrupt);
        curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
        h->curl_progress = 1;
    }
    if (o->verbose) {
        curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
        curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
        curl_easy_setopt(e, CURLOPT_DEBUGDATA, h);
    }
    return 0;
}

static void curl_close(rest_http *h)
{
    curl_easy_cleanup(h->easy);
}

rest_http *rest_http_new(const rest_http_opts *o, unsigned worker, char *err, size_t errlen)
{
    rest_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "cannot create an HTTP client (out of memory)");
        return NULL;
    }
    h->worker = worker;
    h->verbose = o->verbose;
    h->secret_headers = o->secret_headers;
    h->nsecret_headers = o->nsecret_headers;
#if !REST_COUNT_SENDS
    h->reuse = !o->no_reuse;
#endif
    h->timeout_ms = o->timeout_ms;
    h->cur_timeout_ms = o->timeout_ms;
    h->interrupt = o->interrupt;
    h->interruptible = o->interrupt != NULL;
    h->abandon_ok = h->interruptible;
    h->expect_node.data = (char *)"Expect:";
    h->eng = o->engine == REST_ENGINE_LEAN ? &lean_engine : &curl_engine;
    if (h->eng->open(h, o, err, errlen) != 0) {
        free(h);
        return NULL;
    }
    if (rest_http_set_auth(h, NULL, NULL) != 0) {
        snprintf(err, errlen, "cannot create an HTTP client (out of memory)");
        rest_http_free(h);
        return NULL;
    }
    return h;
}

static void wipe_list(struct curl_slist *l)
{
    for (struct curl_slist *n = l; n; n = n->next)
        if (n->data)
            explicit_bzero(n->data, strlen(n->data));
    curl_slist_free_all(l);
}

void rest_http_free(rest_http *h)
{
    if (!h)
        return;
    h->eng->close(h);
    wipe_list(h->headers);
    if (h->body)
        explicit_bzero(h->body, h->cap);   /* may hold a session token */
    free(h->body);
    free(h);
}

/* Hand the handle the header list a request with a body of len bytes needs:
 * the empty "Expect:" goes only on a body over REST_EXPECT_MIN, since every
 * header line costs libcurl 7.x a pass through its printf, character by
 * character, on each request (some 3k instructions a line). */
static void use_headers(rest_http *h, size_t len)
{
    h->expect_node.next = (struct curl_slist *)h->base;
    const struct curl_slist *want = h->no_expect && len > REST_EXPECT_MIN ? &h->expect_node : h->base;
    if (want != h->set) {
        h->eng->headers(h, want);
        h->set = want;
    }
}

static void curl_headers(rest_http *h, const struct curl_slist *list)
{
    /* Setting a list takes no allocation: nothing to fail. */
    (void)curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, list);
}

int rest_http_set_auth(rest_http *h, const char *scheme, const char *secret)
{
    struct curl_slist *l = NULL, *n;
    /* The User-Agent as a header line rather than CURLOPT_USERAGENT, which
     * libcurl 7.x formats twice on every request. */
    static const char *const fixed[] = {
        "Content-Type: application/json", "Accept: application/json", REST_USER_AGENT,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (!(n = curl_slist_append(l, fixed[i]))) {
            wipe_list(l);
            return -1;
        }
        l = n;
    }
    if (scheme && secret) {
        size_t len = strlen(scheme) + strlen(secret) + 32;
        char *line = malloc(len);
        if (!line) {
            wipe_list(l);
            return -1;
        }
        snprintf(line, len, "Authorization: %s %s", scheme, secret);
        n = curl_slist_append(l, line);
        explicit_bzero(line, len);
        free(line);
        if (!n) {
            wipe_list(l);
            return -1;
        }
        l = n;
    }
    const int own = h->base == h->headers;
    struct curl_slist *old = h->headers;
    h->headers = l;
    h->headers_gen++;
    if (own) {
        h->base = l;
        h->no_expect = 1;
        h->set = NULL;                       /* set again, before the old list goes */
        use_headers(h, 0);
    }
    wipe_list(old);
    return 0;
}

void rest_http_set_headers(rest_http *h, const struct curl_slist *list, int no_expect)
{
    h->base = list;
    h->no_expect = no_expect;
    h->set = NULL;
    h->headers_gen++;
    use_headers(h, 0);
}

void rest_http_interruptible(rest_http *h, int on)
{
    if (on)
        h->teardown = 0;
    h->abandon_ok = on && h->interruptible;
    h->eng->limits(h);
}

void rest_http_engine_owned(rest_http *h, int on)
{
    h->engine_owned = on != 0;
    h->eng->limits(h);
}

/* libcurl's timer and progress function as the limits say: none of either
 * while an engine owns the handle (it enforces both); Ctrl-C abandons a
 * request through on_progress, and in the tear-down only a second signal
 * does (on_progress_again). */
static void curl_limits(rest_http *h)
{
    /* Options on a handle that exists take no allocation: nothing to fail.
     * Only what changed is set (a workload may say interruptible at every
     * operation). */
    const long t = h->engine_owned ? 0L : h->cur_timeout_ms;
    if (t != h->curl_timeout_ms) {
        (void)curl_easy_setopt(h->easy, CURLOPT_TIMEOUT_MS, t);
        (void)curl_easy_setopt(h->easy, CURLOPT_CONNECTTIMEOUT_MS, t);
        h->curl_timeout_ms = t;
    }
    if (!h->interruptible)
        return;
    /* 0: no progress function; 1: on_progress; 2: on_progress_again. */
    const int progress = h->teardown ? 2 : h->abandon_ok && !h->engine_owned ? 1 : 0;
    if (progress == h->curl_progress)
        return;
    if (progress)
        (void)curl_easy_setopt(h->easy, CURLOPT_XFERINFOFUNCTION,
                               progress == 2 ? on_progress_again : on_progress);
    (void)curl_easy_setopt(h->easy, CURLOPT_NOPROGRESS, progress ? 0L : 1L);
    h->curl_progress = progress;
}

long rest_http_timeout_ms(const rest_http *h)
{
    return h->timeout_ms;
}

const bench_flag *rest_http_interrupt(const rest_http *h)
{
    return h->interrupt;
}

int rest_http_abandon_now(const rest_http *h)
{
    return h->abandon_ok && h->interrupt && *h->interrupt;
}

void rest_http_abandoned(rest_http *h, CURLcode why, uint64_t waited_ms)
{
    /* The words libcurl uses for the same ends: connecting (a TLS
     * handshake included) or after. */
    curl_off_t pre = 0;
    if (why == CURLE_OPERATION_TIMEDOUT &&
        curl_easy_getinfo(h->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) == CURLE_OK && pre == 0)
        snprintf(h->errbuf, sizeof h->errbuf, "Connection timed out after %llu milliseconds",
                 (unsigned long long)waited_ms);
    else if (why == CURLE_OPERATION_TIMEDOUT)
        snprintf(h->errbuf, sizeof h->errbuf, "Operation timed out after %llu milliseconds",
                 (unsigned long long)waited_ms);
    else
        snprintf(h->errbuf, sizeof h->errbuf, "Callback aborted");
}

void rest_http_teardown_mode(rest_http *h, long timeout_ms)
{
    const long t = timeout_ms > 0 && timeout_ms < REST_TEARDOWN_TIMEOUT_MS ? timeout_ms
                                                                          : REST_TEARDOWN_TIMEOUT_MS;
    h->side = NULL;
    h->npending = 0;
    h->cur_timeout_ms = t;
    memset(h->checks, 0, sizeof h->checks);
    h->abandon_ok = 0;
    /* A second signal gives up on the clean-up at once: each request then
     * ends, and what it was to remove is listed by its caller. */
    h->teardown = h->interruptible;
    h->eng->limits(h);
}

void rest_http_expect(rest_http *h, rest_status_ok_fn ok, const void *ok_arg)
{
    h->ok = ok;
    h->ok_arg = ok_arg;
}

/* Note this handle's requests for `side` from now on (NULL: none); clears
 * what was noted before. */
static void http_bind(rest_http *h, bench_side *side)
{
    h->side = side;
    h->npending = 0;
    h->reauth = 0;
    memset(h->checks, 0, sizeof h->checks);
}

void rest_http_note_check(rest_http *h, rest_check kind, int passed)
{
    /* k6 runs no check in an iteration it interrupted: it counts the
     * iteration as interrupted instead (rest_k6_json). */
    if (h->interrupted)
        return;
    if (h->side && (unsigned)kind < REST_CHECK_COUNT)
        h->checks[kind][!passed]++;
}

void rest_http_note_reauth(rest_http *h)
{
    if (h->side)
        h->reauth++;
}

static void record_one(rest_http *h, const pending_req *p)
{
    rest_req_result r = { p->status, p->complete, { 0 }, p->have_prof ? p->prof : NULL,
                          p->bytes_in, p->bytes_out };
    if (p->complete)
        rest_phases_compute(&p->stamps, r.phases_us);
    rest_stats_record(h->side, h->ok, h->ok_arg, &r);
    if (p->retried)
        bench_side_add(h->side, REST_SC_RETRIED, p->retried);
    if (p->stale)
        bench_side_add(h->side, REST_SC_RECONNECTED, p->stale);
    if (p->unsolicited)
        bench_side_add(h->side, REST_SC_UNSOLICITED, p->unsolicited);
}

/* Record what was noted since the last flush (outside the timed path). */
static void http_flush(rest_http *h)
{
    if (!h->side)
        return;
    for (unsigned i = 0; i < h->npending; i++)
        record_one(h, &h->pending[i]);
    bench_side_add(h->side, REST_SC_REAUTH, h->reauth);
    for (unsigned k = 0; k < REST_CHECK_COUNT; k++) {
        bench_side_add(h->side, REST_SC_CHECK + 2 * k, h->checks[k][0]);
        bench_side_add(h->side, REST_SC_CHECK + 2 * k + 1, h->checks[k][1]);
    }
    memset(h->checks, 0, sizeof h->checks);
    h->nlast = h->npending;
    h->npending = 0;
    h->reauth = 0;
}

void rest_http_request(rest_http *h, const char *method, const bench_url *url, const char *body,
                       size_t len)
{
    const int post = strcmp(method, "POST") == 0;
    h->method = method;
    h->url = url;
    h->req_body = post ? (body ? body : "") : NULL;
    h->req_len = post ? len : 0;
    h->len = 0;
    if (h->body)
        h->body[0] = 0;
    h->too_large = 0;
    h->headers_refused = 0;
    h->unsolicited = 0;
    h->have_prof = 0;
    h->close_seen = 0;
    h->errbuf[0] = 0;
    h->in_headers = 0;
    h->header_bytes = 0;
    h->sends = 0;
    use_headers(h, body ? len : 0);
    h->eng->prepare(h);
}

/* The request as libcurl's options: the same request again (the common
 * case) costs no option changes. */
static void curl_prepare(rest_http *h)
{
    CURL *e = h->easy;
    if (h->last_url != h->url) {
        curl_easy_setopt(e, CURLOPT_URL, h->url->text);
        h->last_url = h->url;
        h->tls = h->url->scheme == BENCH_URL_HTTPS;
    }
    if (h->req_body) {
        const char *fields = h->req_body;
        const size_t len = h->req_len;
        if (!h->last_post)
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
        /* The same body (its bytes may differ: libcurl reads them when it
         * sends) costs no option change either. */
        if (!h->last_post || fields != h->last_body || len != h->last_len) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)len);
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, fields);
            h->last_body = fields;
            h->last_len = len;
        }
        h->last_post = 1;
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, strcmp(h->method, "GET") == 0 ? NULL : h->method);
        h->last_post = 0;
    }
}

void rest_http_request_once(rest_http *h, const char *method, const bench_url *url,
                            const char *body, size_t len)
{
    rest_http_request(h, method, url, body, len);
    h->last_url = NULL;   /* the handle holds its text; the next request sets its own */
    /* The lean engine knows its pre-built head by the URL's address and
     * headers_gen: a URL made for one request may sit where the last one
     * did, so this request's head and the next are built again. */
    h->headers_gen++;
    h->gen_after = 1;
}

CURL *rest_http_easy(rest_http *h)
{
    return h->easy;
}

/* Whether libcurl's kept plain-HTTP connection holds bytes before the
 * request is sent: an answer nobody asked for.  libcurl then finds it dead
 * and makes a new one without a word; it is counted here.  (Over TLS the
 * bytes may be a session ticket or a close_notify: not looked at.) */
static unsigned curl_unsolicited(rest_http *h)
{
    curl_socket_t s = CURL_SOCKET_BAD;
    if (h->tls || curl_easy_getinfo(h->easy, CURLINFO_ACTIVESOCKET, &s) != CURLE_OK || s == CURL_SOCKET_BAD)
        return 0;
    struct pollfd p = { s, POLLIN, 0 };
    char c;
    return poll(&p, 1, 0) > 0 && recv(s, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

static rest_xfer_rc curl_run(rest_http *h)
{
    h->unsolicited = curl_unsolicited(h);
    return curl_easy_perform(h->easy);
}

rest_xfer_rc rest_http_run(rest_http *h)
{
    return h->eng->run(h);
}

/* ---- the lean engine ------------------------------------------------------------ */

static int lean_open(rest_http *h, const rest_http_opts *o, char *err, size_t errlen)
{
    const rest_lean_tls tls = { o->cacert, o->cert, o->key, o->insecure };
    return (h->lean = rest_lean_new(&tls, err, errlen)) != NULL ? 0 : -1;
}

static void lean_close(rest_http *h)
{
    rest_lean_free(h->lean);
}

/* The lean engine reads the request, its header list and its limits from
 * the handle when it starts it (lean_request): nothing to set before. */
static void lean_prepare(rest_http *h)
{
    (void)h;
}

static void lean_headers(rest_http *h, const struct curl_slist *list)
{
    (void)h, (void)list;
}

static void lean_limits(rest_http *h)
{
    (void)h;
}

/* The lean engine's request from what the handle was given. */
static void lean_request(rest_http *h, rest_lean_req *rq, rest_lean_sink *sink)
{
    *rq = (rest_lean_req){ h->method, h->url, h->set, h->headers_gen, h->req_body, h->req_len,
                           h->cur_timeout_ms, h->abandon_ok || h->teardown ? h->interrupt : NULL,
                           h->abandon_ok ? 0 : BENCH_SIGNAL_AGAIN, 0 };
    *sink = (rest_lean_sink){ on_header, on_body, h->verbose ? on_debug : NULL, h };
}

/* The lean engine's request ended: a URL made for it is forgotten. */
static void lean_ended(rest_http *h)
{
    if (h->gen_after) {
        h->headers_gen++;
        h->gen_after = 0;
    }
}

static rest_xfer_rc lean_run(rest_http *h)
{
    rest_lean_req rq;
    rest_lean_sink sink;
    lean_request(h, &rq, &sink);
    const rest_lean_rc rc = rest_lean_perform(h->lean, &rq, &sink, &h->lr, h->errbuf, sizeof h->errbuf);
    lean_ended(h);
    return rc;
}

static long lean_status(rest_http *h)
{
    return h->lr.status;
}

static bench_code lean_classify(rest_http *h, rest_xfer_rc rc)
{
    return rest_code_from_lean((rest_lean_rc)rc, h->lr.os_errno, h->errbuf);
}

static const char *lean_strerror(rest_xfer_rc rc)
{
    return rest_lean_strerror((rest_lean_rc)rc);
}

static void lean_note(rest_http *h, rest_xfer_rc rc, http_note *n)
{
    (void)rc;
    n->stamps = h->lr.stamps;
    n->retried = 0;                       /* the lean engine never sends a request twice */
    n->stale = h->lr.stale;
    n->unsolicited = h->lr.unsolicited;
    n->bytes_in = h->lr.bytes_in;
    n->bytes_out = h->lr.bytes_out;
}

int rest_http_is_lean(const rest_http *h)
{
    return h->eng == &lean_engine;
}

int rest_http_lean_begin(rest_http *h, int idle_watched, rest_lean_rc *rc)
{
    rest_lean_req rq;
    rest_lean_sink sink;
    lean_request(h, &rq, &sink);
    rq.idle_watched = idle_watched;
    const int ev = rest_lean_begin(h->lean, &rq, &sink, &h->lr, h->errbuf, sizeof h->errbuf, rc);
    if (!ev)
        lean_ended(h);
    return ev;
}

int rest_http_lean_step(rest_http *h, rest_lean_rc *rc)
{
    const int ev = rest_lean_step(h->lean, rc);
    if (!ev)
        lean_ended(h);
    return ev;
}

rest_lean_rc rest_http_lean_abandon(rest_http *h, rest_lean_rc why)
{
    const rest_lean_rc rc = rest_lean_abandon(h->lean, why);
    lean_ended(h);
    return rc;
}

int rest_http_lean_fd(const rest_http *h, unsigned *conns)
{
    *conns = rest_lean_conns(h->lean);
    return rest_lean_fd(h->lean);
}

int rest_http_pick_engine(rest_http_opts *o, char *err, size_t errlen)
{
    if (o->engine == REST_ENGINE_AUTO) {
        o->engine = o->http2 || o->no_reuse ? REST_ENGINE_LIBCURL : REST_ENGINE_LEAN;
        return 0;
    }
    if (o->engine != REST_ENGINE_LEAN)
        return 0;
    const char *why = o->http2    ? "--http2 (HTTP/2 is libcurl's)"
                    : o->no_reuse ? "--no-connection-reuse (a connection per request is libcurl's)"
                                  : NULL;
    if (why) {
        snprintf(err, errlen, "--engine lean: the lean engine runs HTTP/1.1 with kept-alive "
                 "connections, not %s: drop one of them", why);
        return -1;
    }
    return 0;
}

const char *rest_http_engine_name(const rest_http_opts *o)
{
    return o->engine == REST_ENGINE_LEAN ? "lean" : "libcurl";
}

static curl_off_t info_time(CURL *e, CURLINFO what)
{
    curl_off_t v = 0;
    if (curl_easy_getinfo(e, what, &v) != CURLE_OK)
        return 0;
    return v;
}

static long curl_status(rest_http *h)
{
    long status = 0;
    (void)curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

static bench_code curl_classify(rest_http *h, rest_xfer_rc rc)
{
    long oserr = 0;
    (void)curl_easy_getinfo(h->easy, CURLINFO_OS_ERRNO, &oserr);
    /* libcurl refuses a header line over 100 KB with CURLE_OUT_OF_MEMORY
     * (7.x) or CURLE_TOO_LARGE (8.x, code 100): inside the headers it is
     * that.  (A status line over the limit comes before any header line:
     * libcurl has delivered no byte of the answer.) */
    if ((rc == CURLE_OUT_OF_MEMORY || rc == 100) && (h->in_headers || h->len == 0)) {
        /* libcurl says only "Out of memory": say what it refused. */
        snprintf(h->errbuf, sizeof h->errbuf, "%s", REST_HEADER_TOO_LARGE_TEXT);
        return REST_E_HEADER_TOO_LARGE;
    }
    return rest_code_from_curl(rc, oserr, h->errbuf);
}

static const char *curl_strerror(rest_xfer_rc rc)
{
    return curl_easy_strerror((CURLcode)rc);
}

static void curl_note(rest_http *h, rest_xfer_rc rc, http_note *n)
{
    CURL *e = h->easy;
    long connects = 0;
    (void)curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &connects);
    /* A kept connection that died under the request (a reset: closed
     * before a byte of answer) makes libcurl send the request again on
     * another connection without a word (Curl_retry_request), and the
     * server saw it twice.  Count each such re-send. */
#if REST_COUNT_SENDS
    n->retried = h->sends > 1 ? h->sends - 1 : 0;
#else
    /* No way to see the sends: a request that made a new connection
     * although the last one left its own alive found it dead.  Right for
     * a blocking handle (its own connections), not under a multi handle,
     * whose connections any transfer may take. */
    n->retried = h->kept && connects > 0;
    h->kept = rc == CURLE_OK && h->reuse && !h->close_seen;
#endif
    n->stale = 0;
    n->unsolicited = h->unsolicited;
    if (h->side || h->verbose) {
        /* Each getinfo is a call through libcurl's option switch: the
         * name look-up only matters on a new connection (phases.h), the
         * TLS stamp only over https (0 on plain HTTP). */
        rest_stamps *st = &n->stamps;
        st->namelookup_us = connects > 0 ? info_time(e, CURLINFO_NAMELOOKUP_TIME_T) : 0;
        st->connect_us = info_time(e, CURLINFO_CONNECT_TIME_T);
        st->appconnect_us = h->tls ? info_time(e, CURLINFO_APPCONNECT_TIME_T) : 0;
        st->pretransfer_us = info_time(e, CURLINFO_PRETRANSFER_TIME_T);
#if LIBCURL_VERSION_NUM >= 0x080a00
        st->posttransfer_us = info_time(e, CURLINFO_POSTTRANSFER_TIME_T);
#else
        st->posttransfer_us = -1;
#endif
        st->starttransfer_us = info_time(e, CURLINFO_STARTTRANSFER_TIME_T);
        st->total_us = info_time(e, CURLINFO_TOTAL_TIME_T);
        st->num_connects = connects;
    }
    if (h->side) {
        /* k6's data_received / data_sent: bodies and headers. */
        curl_off_t down = 0, up = 0;
        long req = 0;
        (void)curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &down);
        (void)curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &up);
        (void)curl_easy_getinfo(e, CURLINFO_REQUEST_SIZE, &req);
        /* The header lines are counted as on_header() sees them, as
         * libcurl counts them for CURLINFO_HEADER_SIZE: a call saved. */
        n->bytes_in = (uint64_t)(down > 0 ? down : 0) + h->header_bytes;
        /* A body small enough goes out in the request's own buffer
         * (libcurl: under 64 KiB, without a 100-continue), and is then
         * in REQUEST_SIZE as well as in SIZE_UPLOAD: counted once.
         * A body sent after the head is only in SIZE_UPLOAD. */
        const uint64_t rq = (uint64_t)(req > 0 ? req : 0), upl = (uint64_t)(up > 0 ? up : 0);
        n->bytes_out = upl && rq > upl ? rq : rq + upl;
    }
}

void rest_http_finish(rest_http *h, rest_xfer_rc rc, rest_response *out)
{
    memset(out, 0, sizeof *out);
    out->error = "";
    if (!h->body) {
        /* A response with no body: keep the promise of a NUL-terminated body. */
        static const char empty[1] = "";
        out->body = empty;
    } else {
        out->body = h->body;
    }
    out->body_len = h->len;
    out->profiling = h->have_prof ? h->prof : NULL;
    if (rc == REST_XFER_OK) {
        out->status = h->eng->status(h);
    } else {
        if (h->too_large) {
            out->transport = REST_E_TOO_LARGE;
        } else if (h->headers_refused) {
            out->transport = REST_E_HEADER_TOO_LARGE;
            snprintf(h->errbuf, sizeof h->errbuf, REST_HEADERS_TOO_LARGE_FMT,
                     (unsigned long long)h->header_bytes, REST_HEADER_BYTES_MAX);
        } else {
            out->transport = h->eng->classify(h, rc);
        }
        out->error = h->errbuf[0] ? h->errbuf : h->eng->strerror(rc);
    }
    h->interrupted = out->transport == REST_E_INTERRUPTED;

    /* Only note here (a few reads of the handle): the phases are worked
     * out and recorded by http_flush(), after the operation. */
    http_note n;
    memset(&n, 0, sizeof n);
    h->eng->note(h, rc, &n);
    if (h->side) {
        if (h->npending == PENDING_MAX) {
            /* More requests in one operation than noted (never in the
             * workloads here): record the oldest now rather than lose it. */
            record_one(h, &h->pending[0]);
            memmove(&h->pending[0], &h->pending[1], (PENDING_MAX - 1) * sizeof h->pending[0]);
            h->npending--;
        }
        pending_req *p = &h->pending[h->npending++];
        p->status = out->status;
        p->complete = rc == REST_XFER_OK;
        p->retried = n.retried;
        p->stale = n.stale;
        p->unsolicited = n.unsolicited;
        p->stamps = n.stamps;
        p->bytes_in = n.bytes_in;
        p->bytes_out = n.bytes_out;
        p->have_prof = h->have_prof;
        if (h->have_prof)
            memcpy(p->prof, h->prof, sizeof p->prof);
    }
    if (h->verbose) {
        int64_t ph[REST_PH_COUNT];
        rest_phases_compute(&n.stamps, ph);
        if (rc == REST_XFER_OK)
            fprintf(stderr, "[w%u] %s %s -> %ld (%.3f ms)\n", h->worker, h->method, h->url->identity,
                    out->status, (double)ph[REST_PH_DURATION] / 1000.0);
        else
            fprintf(stderr, "[w%u] %s %s -> %s\n", h->worker, h->method, h->url->identity, out->error);
    }
}

void rest_http_perform(rest_http *h, rest_response *out)
{
    rest_http_finish(h, rest_http_run(h), out);
}

/* The side-metric hooks of a workload state that begins with its rest_http
 * (every REST state does: rest/client.h). */
void rest_state_side_bind(void *state, bench_side *side)
{
    http_bind(*(rest_http **)state, side);
}

void rest_state_side_flush(void *state)
{
    http_flush(*(rest_http **)state);
}

/* HTTP's reason phrase of a status, as JMeter's responseMessage has it. */
static const char *reason_phrase(long status)
{
    static const struct { long status; const char *text; } known[] = {
        { 200, "OK" }, { 201, "Created" }, { 202, "Accepted" }, { 204, "No Content" },
        { 301, "Moved Permanently" }, { 302, "Found" }, { 304, "Not Modified" },
        { 400, "Bad Request" }, { 401, "Unauthorized" }, { 403, "Forbidden" }, { 404, "Not Found" },
        { 405, "Method Not Allowed" }, { 408, "Request Timeout" }, { 409, "Conflict" },
        { 413, "Content Too Large" }, { 429, "Too Many Requests" }, { 500, "Internal Server Error" },
        { 501, "Not Implemented" }, { 502, "Bad Gateway" }, { 503, "Service Unavailable" },
        { 504, "Gateway Timeout" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].status == status)
            return known[i].text;
    return "";
}

/*
 * --out jtl: the operation's requests (those the last flush recorded) as
 * JMeter describes an HTTP sample: the last one's status, reason and URL
 * (its identity: no credential), the bytes of all of them, the connecting
 * they did, and the time to the last answer's first byte.  A request with
 * no answer gets JMeter's "Non HTTP response code: ..." and libcurl's
 * message with any secret header's value taken out.  Never a body.
 */
void rest_state_describe(const void *state, bench_request *r)
{
    rest_http *h = *(rest_http *const *)state;
    if (!h->nlast)
        return;
    const pending_req *last = &h->pending[h->nlast - 1];
    uint64_t connect_us = 0;
    for (unsigned i = 0; i < h->nlast; i++) {
        const pending_req *p = &h->pending[i];
        r->bytes_in += p->bytes_in;
        r->bytes_out += p->bytes_out;
        if (p->stamps.num_connects > 0 && p->complete)
            connect_us += (uint64_t)(p->stamps.appconnect_us > 0 ? p->stamps.appconnect_us
                                                                 : p->stamps.connect_us > 0 ? p->stamps.connect_us : 0);
    }
    r->connect_ns = connect_us * 1000u;
    if (h->url)
        r->url = h->url->identity;
    const int64_t tail_us = last->stamps.total_us - last->stamps.starttransfer_us;
    if (last->complete && last->stamps.starttransfer_us > 0 && tail_us >= 0 &&
        (uint64_t)tail_us * 1000u < r->elapsed_ns)
        r->first_byte_ns = r->elapsed_ns - (uint64_t)tail_us * 1000u;
    char name[BENCH_REQ_TEXT];
    if (last->status > 0) {
        snprintf(r->code_text, sizeof r->code_text, "%ld", last->status);
        r->message = reason_phrase(last->status);
        if (r->code != BENCH_OK) {
            rest_code_name(r->code, r->text, sizeof r->text);
            r->failure = r->text;
        }
        return;
    }
    /* No answer: JMeter's words for a sample that got none. */
    rest_code_name(r->code, name, sizeof name);
    snprintf(r->code_text, sizeof r->code_text, "Non HTTP response code: %.39s", name);
    /* the error in the first half of r->text, the message in the second */
    static const char said[] = "Non HTTP response message: ";
    const size_t half = sizeof r->text / 2;
    char *failure = r->text, *message = r->text + half;
    const char *why = h->errbuf[0] ? h->errbuf : name;
    size_t n = strnlen(why, half - sizeof said);
    memcpy(failure, why, n);
    failure[n] = 0;
    rest_http_scrub(h, failure);
    n = strlen(failure);
    memcpy(message, said, sizeof said - 1);
    memcpy(message + sizeof said - 1, failure, n + 1);
    r->message = message;
    r->failure = failure;
}

static const http_engine curl_engine = {
    curl_open, curl_close, curl_prepare, curl_headers, curl_limits, curl_run,
    curl_status, curl_classify, curl_strerror, curl_note,
};

static const http_engine lean_engine = {
    lean_open, lean_close, lean_prepare, lean_headers, lean_limits, lean_run,
    lean_status, lean_classify, lean_strerror, lean_note,
};

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/http_cmd.c - "hsmbench rest http": any HTTP(S) endpoint under the
 * timing core, and --tls-matrix, the same request over plain HTTP, TLS with
 * and without connection reuse, and mutual TLS, in one table.
 *
 * The workload is rest/http_any.c; what this file adds is the command line
 * (options, their checks, secrets), running one variant after another, the
 * table, JMeter's summary line and the results file.
 */
#include "rest/client.h"
#include "rest/cmdline.h"
#include "rest/http_any.h"
#include "rest/views/k6.h"
#include "rest/transport/multi.h"
#include "rest/spellings.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "bench/driver/capacity.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/driver/loadopts.h"
#include "bench/core/pool.h"
#include "bench/results/report.h"
#include "bench/driver/rundesc.h"
#include "bench/driver/session.h"
#include "bench/results/results.h"
#include "bench/results/text.h"
#include "bench/util/secret.h"
#include "bench/util/signals.h"
#include "rest/tokencmd.h"
#include "rest/views/stats.h"
#include "rest/views/views.h"

#define SECRET_MAX          16384
#define URL_MAX             8192
#define MAX_VARIANTS        4

static const char usage_head[] =
    "Usage: hsmbench rest http --url URL [--method M] [--header 'Name: value' ...]\n"
    "                          [--body TEXT | --body-file FILE] [checks] [options]\n"
    "       hsmbench rest http --url https://... --tls-matrix [--plain-url URL | --plain-port P]\n"
    "\n"
    "Benchmark any HTTP or HTTPS endpoint with the timing core of 'hsmbench run':\n"
    "one request per operation, k6's phase timings, errors counted by cause.\n"
    "\n"
    ;

static const char usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 the run finished but requests failed their checks;\n"
    "2 bad usage or input; 3 the endpoint or its TLS failed at set-up; 99 a\n"
    "--threshold failed (as k6; before 1 for failed requests); 130 interrupted\n"
    "(Ctrl-C, SIGTERM, or standard output closed).\n"
    "k6's flags (--vus, --stage, --insecure-skip-tls-verify, ...) and JMeter's -n are\n"
    "taken, each said once; the others' errors say what to use instead (see:\n"
    "hsmbench-rest(1) OLD SPELLINGS).\n";

enum {
    OPT_URL = 5000, OPT_METHOD, OPT_BEARER_ENV, OPT_BEARER_FILE, OPT_BODY,
    OPT_BODY_FILE, OPT_EXPECT_STATUS, OPT_EXPECT_BODY, OPT_EXPECT_JSON,
    OPT_TLS_MATRIX, OPT_PLAIN_URL, OPT_PLAIN_PORT, OPT_SECRET_HEADER, OPT_HEADER_ENV,
    OPT_HEADER_FILE,
};

static const bench_option request_rows[] = {
    { "url", 0, BENCH_ARG_REQUIRED, "URL", OPT_URL,
      "http:// or https:// (credentials in the URL are refused);\n"
      "--endpoint URL is the same", NULL },
    { "endpoint", 0, BENCH_ARG_REQUIRED, "URL", OPT_URL, NULL, NULL },
    { "method", 0, BENCH_ARG_REQUIRED, "M", OPT_METHOD,
      "GET (default), or POST when a body is given; any method", NULL },
    { "header", 'H', BENCH_ARG_REPEATED, "'Name: value'", 'H',
      "repeatable (up to 64); 'Name:' removes a header\n"
      "libcurl would send.  The value of a secret header\n"
      "(Authorization, Proxy-Authorization, Cookie, Set-Cookie,\n"
      "X-Api-Key, X-Auth-Token, and each --secret-header) is\n"
      "taken out of the process list, never written out, and\n"
      "warned about (it was on the command line)", NULL },
    { "header-env", 0, BENCH_ARG_REPEATED, "NAME=VAR", OPT_HEADER_ENV,
      "\nsend 'NAME: value', the value from the variable or the\n"
      "file's first line (repeatable): a secret header",
      "--header-env NAME=VAR | --header-file NAME=FILE" },
    { "header-file", 0, BENCH_ARG_REPEATED, "NAME=FILE", OPT_HEADER_FILE, NULL, NULL },
    { "secret-header", 0, BENCH_ARG_REPEATED, "NAME", OPT_SECRET_HEADER,
      "\nNAME's value is a secret too, as Authorization's\n"
      "(repeatable)", NULL },
    { "bearer-env", 0, BENCH_ARG_REQUIRED, "VAR", OPT_BEARER_ENV,
      "send 'Authorization: Bearer <token>'", "--bearer-env VAR | --bearer-file FILE" },
    { "bearer-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_BEARER_FILE, NULL, NULL },
};

/* After --token-cmd and --token-ttl (rest_cmd_token_group). */
static const bench_option body_rows[] = {
    { "body", 0, BENCH_ARG_REQUIRED, "TEXT", OPT_BODY,
      "the request body; Content-Type defaults to\n"
      "application/json when it is JSON, else application/octet-stream",
      "--body TEXT | --body-file FILE" },
    { "body-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_BODY_FILE, NULL, NULL },
};

static const bench_option checks_rows[] = {
    { "expect-status", 0, BENCH_ARG_REQUIRED, "LIST", OPT_EXPECT_STATUS,
      "statuses that pass: 200, 200,204, 200-299, 2xx (default\n"
      "200-399); others count as HTTP nnn", NULL },
    { "expect-body", 0, BENCH_ARG_REQUIRED, "TEXT", OPT_EXPECT_BODY,
      "the body must contain TEXT (EXPECT_BODY)", NULL },
    { "expect-json", 0, BENCH_ARG_REQUIRED, "PATH", OPT_EXPECT_JSON,
      "the body must be JSON (BAD_JSON) with this field\n"
      "(EXPECT_JSON): .result, .a.b, .items[0], .\"a.b\"", NULL },
};

static const bench_option reports_rows[] = {
    { "summary", 0, BENCH_ARG_REPEATED, "jmeter|k6", REST_CMD_OPT_SUMMARY,
      "also print JMeter's summariser in its layout ('summary +'\n"
      "every --summary-interval, 'summary =' running totals and\n"
      "the run's: N in hh:mm:ss = R/s Avg: Min: Max: ms Err: N (P%),\n"
      "failed samples counted) or k6's end-of-test summary in\n"
      "k6's layout (repeatable; even with --quiet)", NULL },
};

static const bench_option matrix_rows[] = {
    { "tls-matrix", 0, BENCH_ARG_NONE, NULL, OPT_TLS_MATRIX,
      "run the request as: plain HTTP, TLS with keep-alive, TLS\n"
      "with a new connection per request, and mutual TLS (with\n"
      "--cert/--key); one run each, then one table", NULL },
    { "plain-url", 0, BENCH_ARG_REQUIRED, "URL", OPT_PLAIN_URL,
      "the plain-HTTP variant's URL", NULL },
    { "plain-port", 0, BENCH_ARG_REQUIRED, "PORT", OPT_PLAIN_PORT,
      "or: the same host and path over http:// on this port", NULL },
};

static const bench_option verbose_rows[] = {
    { "verbose", 'v', BENCH_ARG_NONE, NULL, 'v',
      "log every request on stderr (credentials redacted, no bodies)", NULL },
};

static const bench_opt_group request_group = BENCH_OPT_GROUP("Request:", request_rows, NULL);
static const bench_opt_group body_group = BENCH_OPT_GROUP(NULL, body_rows, NULL);
static const bench_opt_group checks_group =
    BENCH_OPT_GROUP("Checks (each failure counted under its own class):", checks_rows, NULL);
static const bench_opt_group reports_group = BENCH_OPT_GROUP("Reports:", reports_rows, NULL);
static const bench_opt_group matrix_group = BENCH_OPT_GROUP("TLS study:", matrix_rows, NULL);
static const bench_opt_group verbose_group = BENCH_OPT_GROUP(NULL, verbose_rows, NULL);
static const bench_opt_group multi_group = BENCH_OPT_NOTE(REST_MULTI_HELP);
static const bench_opt_group json_note_group = BENCH_OPT_NOTE(
    "  (--json: one run per variant with --tls-matrix, with \"http\" and \"rest\" objects)\n");

static const bench_opt_group *const http_groups[] = {
    &request_group, &rest_cmd_token_group, &body_group, &checks_group, &reports_group,
    &rest_cmd_interval_group, &matrix_group, &rest_http_group,
    &verbose_group, &bench_load_group, &multi_group, &bench_metrics_group, &bench_cap_group,
    &bench_out_group, &json_note_group, &bench_help_group, &rest_k6_spellings,
    &rest_http_old_spellings, NULL,
};
const bench_cmd_opts rest_http_options = { "rest http", 1, http_groups };

/* Marks on argv (indexed like getopt's argv): what to hide. */
enum { MARK_HEADER = BENCH_MARK_HEADER };

typedef struct http_opts {
    const char     *url, *method;
    char           *headers[REST_ANY_MAX_HEADERS];   /* copies: argv is scrubbed */
    int             header_arg[REST_ANY_MAX_HEADERS]; /* its argv word, or -1 (--header-env/file) */
    size_t          nheaders;
    int             secret_headers;
    /* --secret-header, and the names --header-env/--header-file give (owned) */
    const char     *secret_names[2 * REST_ANY_MAX_HEADERS];
    size_t          nsecret_names;
    char           *owned_names[REST_ANY_MAX_HEADERS];
    size_t          nowned_names;
    const char     *bearer_env, *bearer_file;
    const char     *body_text, *body_file;
    char           *body;                            /* owned: the text or the file */
    size_t          body_len;
    const char     *content_type;
    rest_status_set expect;
    const char     *expect_body;
    const char     *expect_json_text;
    rest_jpath      jpath;
    int             matrix;
    const char     *plain_url;
    unsigned        plain_port;
    bench_url       url_parsed;        /* --url and --plain-url, parsed once at the check */
    bench_url       plain_parsed;
    rest_cmdline    c;                 /* what rest ekm|sdkms takes too */
    char            test[48];          /* "http-get" */
    unsigned char  *marks;
} http_opts;

/* One variant of the request: a whole run. */
typedef struct variant {
    char           name[32];
    char           what[96];          /* "TLS, a new connection per request" */
    bench_url      url;               /* owned */
    rest_http_opts http;
    const char    *skip;              /* why it is not run; NULL: run it */
} variant;

/* What the runs share. */
typedef struct session {
    http_opts                    *o;
    const char                   *bearer;
    rest_tokcmd                  *tokens;  /* --token-cmd, or NULL */
    const bench_flag             *interrupt;
    bench_session                *bs;
    bench_capacity               *cap;     /* --find-capacity: the search (NULL: none) */
} session;

/* ---- options -------------------------------------------------------------------- */

static void opts_free(http_opts *o)
{
    for (size_t i = 0; i < o->nheaders; i++) {
        explicit_bzero(o->headers[i], strlen(o->headers[i]));
        free(o->headers[i]);
    }
    o->nheaders = 0;
    for (size_t i = 0; i < o->nowned_names; i++)
        free(o->owned_names[i]);
    o->nowned_names = 0;
    free(o->body);
    o->body = NULL;
    rest_jpath_free(&o->jpath);
    bench_url_free(&o->url_parsed);
    bench_url_free(&o->plain_parsed);
    rest_http_release_files(&o->c.http);
}

/* A URL option just taken: its query and credentials out of argv, its word
 * marked for the results file's command.  What to use, or NULL (printed). */
static const char *take_url(http_opts *o, char **argv, int optind_now)
{
    o->marks[optind_now - 1] = bench_mark_of(argv[optind_now - 1], BENCH_MARK_URL);
    return bench_url_take(optarg);
}

/* Whether header i holds a secret: the list, --secret-header, --header-env/file. */
static int is_secret(const http_opts *o, size_t i)
{
    return rest_header_is_secret(o->headers[i], o->secret_names, o->nsecret_names);
}

/* One more name whose values are secrets.  -1 (printed) when full. */
static int add_secret_name(http_opts *o, const char *flag, const char *name)
{
    if (o->nsecret_names == sizeof o->secret_names / sizeof o->secret_names[0]) {
        bench_error("%s: at most %zu secret header names", flag,
                    sizeof o->secret_names / sizeof o->secret_names[0]);
        return -1;
    }
    o->secret_names[o->nsecret_names++] = name;
    return 0;
}

/* "--header": a copy of h, its argv word at arg (-1: not on the command line). */
static int add_header(http_opts *o, const char *h, int arg)
{
    char why[256];
    if (o->nheaders == REST_ANY_MAX_HEADERS) {
        bench_error("--header: at most %d headers", REST_ANY_MAX_HEADERS);
        return -1;
    }
    if (rest_header_check(h, why, sizeof why) != 0) {
        /* The reason quotes the start of the header: never a value's,
         * which a --secret-header given later may make a secret. */
        bench_error("--header %.*s: expected 'Name: value' without line breaks",
                    (int)strcspn(h, ":"), h);
        return -1;
    }
    if (!(o->headers[o->nheaders] = strdup(h))) {
        bench_error("out of memory");
        return -1;
    }
    o->header_arg[o->nheaders++] = arg;
    return 0;
}

/* --header-env NAME=VAR, --header-file NAME=FILE: 'NAME: value', a secret. */
static int add_header_from(http_opts *o, const char *flag, const char *arg, int env)
{
    const char *eq = strchr(arg, '=');
    char name[128], line[SECRET_MAX + 160];
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof name) {
        bench_error("%s %s: expected NAME=%s", flag, arg, env ? "VAR" : "FILE");
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    bench_secret_src src = { env ? eq + 1 : NULL, env ? NULL : eq + 1, NULL, "header value",
                             "--header-env", "--header-file", NULL };
    char value[SECRET_MAX];
    size_t len = 0;
    if (bench_secret_read(&src, "", value, sizeof value, &len) != BENCH_SECRET_OK)
        return -1;
    snprintf(line, sizeof line, "%s: %s", name, value);
    bench_secret_wipe(value, sizeof value);
    int rc = add_header(o, line, -1);
    bench_secret_wipe(line, sizeof line);
    if (rc != 0)
        return rc;
    /* Given as a secret: one, whatever its name (in -v too). */
    if (!(o->owned_names[o->nowned_names] = strdup(name))) {
        bench_error("out of memory");
        return -1;
    }
    return add_secret_name(o, flag, o->owned_names[o->nowned_names++]);
}

/* After parsing, when every --secret-header is known: mark (for the
 * results file) and warn about the secret headers given on the command line. */
static void mark_headers(http_opts *o)
{
    for (size_t i = 0; i < o->nheaders; i++) {
        if (!is_secret(o, i))
            continue;
        o->secret_headers++;
        if (o->header_arg[i] < 0)
            continue;
        o->marks[o->header_arg[i]] = MARK_HEADER;
        bench_warn("--header %.*s puts a secret in the shell history (the process list shows "
                   "'*'s); "
                   "prefer --header-env NAME=VAR or --header-file NAME=FILE",
                   (int)strcspn(o->headers[i], ":"), o->headers[i]);
    }
}

static int has_header(const http_opts *o, const char *name)
{
    for (size_t i = 0; i < o->nheaders; i++)
        if (rest_header_is(o->headers[i], name))
            return 1;
    return 0;
}

static int read_body_file(http_opts *o)
{
    char *b = NULL;
    size_t n = 0;
    if (bench_read_file("--body-file", o->body_file, REST_ANY_MAX_BODY, &b, &n) != 0)
        return -1;
    o->body = b;
    o->body_len = n;
    return 0;
}

/* --secret-header NAME: a header name (a token, no ':'), kept. */
static int take_secret_header(http_opts *o, const char *arg)
{
    char probe[160], why[512];
    snprintf(probe, sizeof probe, "%s: x", arg);
    if (!*arg || strlen(arg) > 100 || strchr(arg, ':') ||
        rest_header_check(probe, why, sizeof why) != 0) {
        bench_error("--secret-header %s: expected a header name (a token, no ':')", arg);
        return -1;
    }
    return add_secret_name(o, "--secret-header", arg);
}

/* A check of the answers: --expect-status, --expect-body, --expect-json. */
static int take_expect(http_opts *o, int c, const char *arg)
{
    char why[512];
    if (c == OPT_EXPECT_BODY) {
        if (!*arg) {
            bench_error("--expect-body: the text is empty");
            return -1;
        }
        o->expect_body = arg;
        return 0;
    }
    if (c == OPT_EXPECT_STATUS ? rest_status_set_parse(arg, &o->expect, why, sizeof why) != 0
                               : rest_jpath_parse(arg, &o->jpath, why, sizeof why) != 0) {
        bench_error("%s", why);
        return -1;
    }
    if (c == OPT_EXPECT_JSON)
        o->expect_json_text = arg;
    return 0;
}

/* One of rest http's own options, its value stored (checked alone).
 * 0, or an exit code (printed). */
static int take_opt(void *arg, int c, char **argv)
{
    http_opts *o = arg;
    uint64_t v = 0;
    int bad = 0;
    switch (c) {
    case OPT_URL:         bad = !(o->url = take_url(o, argv, optind)); break;
    case OPT_PLAIN_URL:   bad = !(o->plain_url = take_url(o, argv, optind)); break;
    case OPT_BEARER_FILE: o->bearer_file = optarg; break;
    case OPT_BODY:        o->body_text = optarg; break;
    case OPT_BODY_FILE:   o->body_file = optarg; break;
    case OPT_TLS_MATRIX:  o->matrix = 1; break;
    case 'H':             bad = add_header(o, optarg, optind - 1) != 0; break;
    case OPT_SECRET_HEADER: bad = take_secret_header(o, optarg) != 0; break;
    case OPT_METHOD:
        if ((bad = rest_method_check(optarg) != 0))
            bench_error("--method %s: not an HTTP method (GET, POST, PUT, ...)", optarg);
        o->method = optarg;
        break;
    case OPT_HEADER_ENV:
    case OPT_HEADER_FILE:
        bad = add_header_from(o, c == OPT_HEADER_ENV ? "--header-env" : "--header-file", optarg,
                              c == OPT_HEADER_ENV) != 0;
        break;
    case OPT_BEARER_ENV:
        if ((bad = !*optarg))
            bench_error("--bearer-env: a variable name is required");
        o->bearer_env = optarg;
        break;
    case OPT_EXPECT_STATUS:
    case OPT_EXPECT_BODY:
    case OPT_EXPECT_JSON:
        bad = take_expect(o, c, optarg) != 0;
        break;
    case OPT_PLAIN_PORT:
        bad = bench_parse_u64("--plain-port", optarg, 1, 65535, &v) != 0;
        o->plain_port = (unsigned)v;
        break;
    default:
        return bench_option_error(argv, c, "rest http");
    }
    return bad ? BENCH_EXIT_USAGE : 0;
}

/* The credentials: one source of the token, not beside an Authorization header. */
static int check_bearer(const http_opts *o)
{
    if (!!o->bearer_env + !!o->bearer_file + !!o->c.token_cmd > 1) {
        bench_error("--bearer-env, --bearer-file and --token-cmd each give the token: give only one");
        return -1;
    }
    if ((o->bearer_env || o->bearer_file || o->c.token_cmd) && has_header(o, "Authorization")) {
        bench_error("--%s and --header Authorization both set the Authorization header: "
                    "give only one", o->bearer_env ? "bearer-env" : o->bearer_file ? "bearer-file"
                                                                   : "token-cmd");
        return -1;
    }
    return 0;
}

/* The body (--body or --body-file, read once), the method and the
 * Content-Type that go with it. */
static int check_body(http_opts *o)
{
    if (o->body_text && o->body_file) {
        bench_error("--body and --body-file each give the body: give only one");
        return -1;
    }
    if (o->body_file && read_body_file(o) != 0)
        return -1;
    if (o->body_text) {
        o->body_len = strlen(o->body_text);
        if (!(o->body = strdup(o->body_text))) {
            bench_error("out of memory");
            return -1;
        }
    }
    if (!o->method)
        o->method = o->body ? "POST" : "GET";
    if (o->body && strcmp(o->method, "HEAD") == 0) {
        bench_error("--method HEAD takes no body");
        return -1;
    }
    if (o->body && !has_header(o, "Content-Type")) {
        json_t *j = json_loadb(o->body, o->body_len, JSON_DECODE_ANY, NULL);
        o->content_type = j ? "application/json" : "application/octet-stream";
        json_decref(j);
    }
    return 0;
}

/* --tls-matrix and its plain variant's URL. */
static int check_matrix(http_opts *o)
{
    char why[512];
    if (!o->matrix && (o->plain_url || o->plain_port)) {
        bench_error("%s: an option of --tls-matrix", o->plain_url ? "--plain-url" : "--plain-port");
        return -1;
    }
    if (!o->matrix)
        return 0;
    if (o->url_parsed.scheme != BENCH_URL_HTTPS) {
        bench_error("--tls-matrix needs an https:// --url (the plain variant comes from "
                    "--plain-url or --plain-port)");
        return -1;
    }
    if (o->c.http.http2) {
        bench_error("--http2 with --tls-matrix: HTTP/2 comes through TLS only, so the plain "
                    "variant would run HTTP/1.1 and the matrix compare two protocols");
        return -1;
    }
    if (o->plain_url && o->plain_port) {
        bench_error("--plain-url and --plain-port each give the plain-HTTP variant: give "
                    "only one");
        return -1;
    }
    if (o->plain_url) {
        if (rest_url_parse(&o->plain_parsed, o->plain_url, why, sizeof why) != 0) {
            bench_error("--plain-url: %s", why);
            return -1;
        }
        if (o->plain_parsed.scheme != BENCH_URL_HTTP) {
            bench_error("--plain-url %s: expected an http:// URL", o->plain_parsed.identity);
            return -1;
        }
        if (strlen(o->plain_url) >= URL_MAX) {
            bench_error("--plain-url: longer than %d characters", URL_MAX - 1);
            return -1;
        }
    }
    if (o->c.cap.nobjectives) {
        bench_error("--tls-matrix runs each variant once: leave out --find-capacity (search one "
                    "variant at a time)");
        return -1;
    }
    return 0;
}

/* The rules between options, once every one is taken: 0 or -1 (printed). */
static int check_opts(http_opts *o, const bench_opts_parser *parser)
{
    char why[512];
    if (!o->url) {
        bench_error("--url is required (see: hsmbench rest http --help)");
        return -1;
    }
    if (rest_cmdline_check(&o->c) != 0)
        return -1;
    if (strlen(o->url) >= URL_MAX) {
        bench_error("--url: longer than %d characters", URL_MAX - 1);
        return -1;
    }
    if (rest_url_parse(&o->url_parsed, o->url, why, sizeof why) != 0) {
        bench_error("--url: %s", why);
        return -1;
    }
    if (check_bearer(o) != 0 || check_body(o) != 0 || check_matrix(o) != 0 ||
        rest_cmdline_finish_load(&o->c) != 0)
        return -1;
    if (rest_http_check_opts(&o->c.http, &o->url_parsed, "--url", why, sizeof why) != 0) {
        bench_error("%s", why);
        return -1;
    }
    if (o->c.http.engine == REST_ENGINE_LEAN) {
        bench_error("--engine lean: rest http runs through libcurl (any method, header and body); "
                    "the lean engine runs rest ekm and rest sdkms");
        return -1;
    }
    if (rest_http_load_files(&o->c.http, why, sizeof why) != 0) {
        bench_error("%s", why);
        return -1;
    }
    snprintf(o->test, sizeof o->test, "http-%s", o->method);
    for (char *t = o->test; *t; t++)
        *t = (char)tolower((unsigned char)*t);
    return rest_cmdline_finish_out(&o->c, parser, o->test);
}

static void help(const void *arg)
{
    const http_opts *o = arg;
    fputs(usage_head, stdout);
    bench_opts_help_more(&rest_http_options, stdout, bench_out_help_more, o->c.out.sections);
    fputs(usage_tail, stdout);
}

/* 0, -1 after --help, or an exit code (printed). */
static int parse_args(int argc, char **argv, http_opts *o)
{
    const rest_cmd_takers takers = { NULL, take_opt, help, o };
    rest_cmdline_init(&o->c, "");
    rest_status_set_default(&o->expect);
    /* In order (no reordering), so the marks on secret arguments stay put. */
    bench_opts_parser parser;
    if (bench_opts_begin(&parser, &rest_http_options) != 0)
        return BENCH_EXIT_USAGE;
    const int rc = rest_cmdline_take_all(&o->c, &parser, argc, argv, &takers);
    if (rc != 0)
        return rc;
    mark_headers(o);
    o->c.http.secret_headers = o->secret_names;
    o->c.http.nsecret_headers = o->nsecret_names;
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench rest http --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    return check_opts(o, &parser) != 0 ? BENCH_EXIT_USAGE : 0;
}

/* The bearer token, when a source was given. */
static int read_bearer(const http_opts *o, char *buf, size_t cap)
{
    bench_secret_src src = { o->bearer_env, o->bearer_file, NULL, "bearer token",
                             "--bearer-env", "--bearer-file", NULL };
    size_t len = 0;
    if (bench_secret_read(&src, "", buf, cap, &len) != BENCH_SECRET_OK)
        return BENCH_EXIT_USAGE;
    if (rest_has_control(buf, len)) {
        bench_error("the bearer token contains a control character");
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

/* ---- secrets on the command line ------------------------------------------------------ */

/* A header argument with its value hidden: "--header=Authorization: ***". */
static void redact_header_arg(const char *arg, char *buf, size_t len)
{
    const char *colon = strchr(arg, ':');
    if (!colon)
        snprintf(buf, len, "***");
    else
        snprintf(buf, len, "%.*s ***", (int)(colon - arg + 1), arg);
}

/* Hide header secrets from ps now that they are copied. */
static void scrub_argv(int argc, char **argv, const unsigned char *marks)
{
    for (int i = 0; i < argc; i++) {
        char *colon = marks[i] == MARK_HEADER ? strchr(argv[i], ':') : NULL;
        if (colon)
            memset(colon + 1, '*', strlen(colon + 1));
    }
}

/* ---- JSON ------------------------------------------------------------------------------- */

static json_t *headers_json(const http_opts *o, int bearer)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < o->nheaders; i++) {
        char buf[256];
        const char *h = o->headers[i];
        if (is_secret(o, i)) {
            redact_header_arg(h, buf, sizeof buf);
            h = buf;
        }
        if (json_array_append_new(arr, json_string(h)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    if (arr && bearer && json_array_append_new(arr, json_string("Authorization: Bearer ***")) != 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

static json_t *rest_json(const http_opts *o, const variant *v, int bearer)
{
    char st[256];
    json_t *r = json_pack("{s:s,s:s,s:s,s:o,s:I,s:s,s:b,s:b,s:b}", "service", "http", "method",
                          o->method, "url", v->url.identity, "headers", headers_json(o, bearer),
                          "body_size", (json_int_t)(o->body ? o->body_len : 0), "expect_status",
                          rest_status_set_text(&o->expect, st, sizeof st), "tls",
                          v->url.scheme == BENCH_URL_HTTPS, "connection_reuse",
                          !v->http.no_reuse, "client_cert", v->http.cert != NULL);
    if (!r)
        return NULL;
    if (o->expect_body && json_object_set_new(r, "expect_body", json_string(o->expect_body)) != 0) {
        json_decref(r);
        return NULL;
    }
    if (o->expect_json_text &&
        json_object_set_new(r, "expect_json", json_string(o->expect_json_text)) != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

static json_t *env_json(const http_opts *o, const bench_url *plain)
{
    return rest_env_json("http", &o->url_parsed, &o->c.http, plain);
}

/* ---- one run ------------------------------------------------------------------------------- */

/* The failure line with its hint, as one line. */
static void setup_fail_line(const session *ss, const variant *v, bench_code code, const char *msg)
{
    char line[1400];
    const char *hint = "";
    long status = rest_code_http_status(code);
    if (status == 401 || status == 403)
        hint = ss->bearer || ss->tokens || ss->o->secret_headers
                   ? " (check the token or Authorization header; --expect-status to expect it)"
                   : " (the endpoint wants credentials: --bearer-env, --bearer-file or --header; "
                     "--expect-status to expect it)";
    else if (code == REST_E_TLS && !v->http.insecure)
        hint = rest_cmdline_tls_hint(&v->http);
    snprintf(line, sizeof line, "%s%s", msg, hint);
    if (ss->o->matrix)
        bench_error("%s: %s", v->name, line);
    else
        bench_error("%s", line);
}

/* What a variant's run adds to its summary and JSON. */
typedef struct http_run_extra {
    rest_cmd_extra base;           /* first: the shared hooks (rest/cmdline.h) take it */
    const session *ss;
    const variant *v;
} http_run_extra;

static int extra_json(void *arg, json_t *run, const bench_outcome *out)
{
    const http_run_extra *x = arg;
    rest_k6_ctx k6;
    rest_k6_ctx_of(&k6, &x->ss->o->c.lo.load);
    k6.answer_checks = 1;   /* --expect-body and --expect-json are the user's checks */
    if (out && json_object_set_new(run, rest_http_section.key, rest_stats_json(out, &k6, 0)) != 0)
        return -1;
    json_t *restj = rest_json(x->ss->o, x->v, x->ss->bearer || x->ss->tokens);
    if (restj && rest_cmd_extra_tokens(&x->base, restj) != 0) {
        json_decref(restj);
        return -1;
    }
    if (json_object_set_new(run, "rest", restj) != 0)
        return -1;
    if (x->ss->o->matrix && json_object_set_new(run, "variant", json_string(x->v->name)) != 0)
        return -1;
    return 0;
}

static int status_expected(const void *set, long status)
{
    return rest_status_set_has(set, status);
}

static void fill_desc(bench_run_desc *d, const http_opts *o, const char *test, const char *mech)
{
    memset(d, 0, sizeof *d);
    d->test = test;
    d->mechanism = mech;
    const unsigned slots = bench_async_slots(&o->c.lo.load);   /* curl multi transfers in flight */
    bench_run_desc_load(d, &o->c.lo.load, o->c.lo.stages_text, slots ? rest_multi_engine(&o->c.http) : NULL, slots);
    d->data_size = o->body ? o->body_len : 0;
}

/* One run of a variant (a capacity step, or the only run) at this load. */
typedef struct variant_run {
    session               *ss;
    bench_run_desc        *d;
    const char            *test, *mech;
    const bench_workload  *w;
    const bench_run_hooks *hooks;
    http_run_extra        *extra;
} variant_run;

static void variant_step(void *arg, const bench_load *load)
{
    variant_run *vr = arg;
    http_opts *o = vr->ss->o;
    o->c.lo.load = *load;          /* what the description and the hooks say */
    rest_tokcmd_resume(vr->ss->tokens);   /* halted at the last run's end (its results) */
    fill_desc(vr->d, o, vr->test, vr->mech);
    rest_jmeter_begin(&vr->extra->base.js, stdout, o->c.summary_interval_s);   /* each run its own */
    bench_session_run(vr->ss->bs, vr->d, vr->w, load, vr->hooks);
}

/*
 * One variant from set-up to its JSON element.  Set-up failures of the
 * endpoint (refused, TLS, 401/403 not expected) end the variant with a
 * "failed" element; other failures of the first request are warned about
 * and counted in the run.
 */
static void run_variant(session *ss, const variant *v, const char *test)
{
    http_opts *o = ss->o;
    bench_run_desc d;
    char mech[URL_MAX + 40], err[1200];
    snprintf(mech, sizeof mech, "%s %s", o->method, v->url.identity);
    fill_desc(&d, o, test, mech);
    http_run_extra extra = { { &o->c, ss->tokens, { 0 } }, ss, v };
    rest_jmeter_begin(&extra.base.js, stdout, o->c.summary_interval_s);
    const bench_run_hooks hooks = { .arg = &extra, .summary = rest_cmd_extra_summary,
                                    .json = extra_json, .done = rest_cmd_extra_done,
                                    .series = o->matrix ? v->name : NULL,
                                    .second = o->c.jmeter ? rest_cmd_extra_second : NULL };

    if (v->skip) {
        if (!o->c.out.quiet)
            printf("\nVariant %s: skipped: %s\n", v->name, v->skip);
        bench_session_not_run(ss->bs, &d, "skipped", v->skip, &hooks);
        return;
    }
    if (o->matrix && !o->c.out.quiet)
        printf("\nVariant %s: %s\n", v->name, v->what);

    /* The refresher halted at the last variant's end: on again for this
     * one's first request. */
    rest_tokcmd_resume(ss->tokens);
    rest_client client;
    rest_client_init(&client, &v->http);

    rest_any_cfg cfg = {
        .method = o->method, .url = &v->url, .headers = o->headers, .nheaders = o->nheaders,
        .bearer = ss->bearer, .tokens = ss->tokens, .content_type = o->content_type, .body = o->body,
        .body_len = o->body_len, .expect = o->expect, .expect_body = o->expect_body,
        .expect_json = o->expect_json_text ? &o->jpath : NULL,
    };
    rest_any any;
    rest_any_init(&any, &cfg, &client);
    /* http_req_failed agrees with --expect-status, as k6's expectedStatuses. */
    client.expected = status_expected;
    client.expected_arg = &any.cfg.expect;

    long status = 0;
    bench_code code = rest_any_preflight(&any, &status, err, sizeof err);
    if (code != BENCH_OK) {
        if (*ss->interrupt) {
            ss->bs->interrupted = 1;
            return;
        }
        if (rest_code_is_fatal_setup(code)) {
            setup_fail_line(ss, v, code, err);
            ss->bs->setup_failed = 1;
            /* A single run that failed at set-up measured nothing: no file. */
            if (o->matrix)
                bench_session_not_run(ss->bs, &d, "failed", err, &hooks);
            return;
        }
        bench_warn("%s%sthe first request failed (%s); the run goes on and counts such failures",
                   o->matrix ? v->name : "", o->matrix ? ": " : "", err);
    }

    bench_workload w;
    const unsigned aslots = bench_async_slots(&o->c.lo.load);
    rest_any_workload(&any, &w, aslots);
    variant_run vr = { ss, &d, test, mech, &w, &hooks, &extra };
    if (ss->cap)
        bench_capacity_run(ss->cap, ss->bs, &o->c.cap, &o->c.lo.load, variant_step, &vr);
    else
        variant_step(&vr, &o->c.lo.load);
}

/* ---- the matrix ----------------------------------------------------------------------------- */

static int make_variants(const http_opts *o, variant *vs, size_t *n)
{
    size_t k = 0;
    const int reuse = !o->c.http.no_reuse;
    const char *suffix = reuse ? "" : "-no-reuse";
    rest_http_opts server_only = o->c.http;
    server_only.cert = NULL;
    server_only.key = NULL;

    if (!o->matrix) {
        vs[0].name[0] = 0;
        vs[0].http = o->c.http;
        if (bench_url_copy(&vs[0].url, &o->url_parsed) != 0)
            return -1;
        *n = 1;
        return 0;
    }
    /* plain HTTP: as the connection reuse flag says */
    variant *v = &vs[k++];
    snprintf(v->name, sizeof v->name, "plain%s", suffix);
    snprintf(v->what, sizeof v->what, "plain HTTP, %s",
             reuse ? "connections kept alive" : "a new connection per request");
    v->http = server_only;
    if (o->plain_url) {
        if (bench_url_copy(&v->url, &o->plain_parsed) != 0)
            return -1;
    } else if (o->plain_port) {
        char why[256];
        if (bench_url_rebase(&v->url, &o->url_parsed, BENCH_URL_HTTP, o->plain_port, why,
                             sizeof why) != 0) {
            bench_error("--plain-port: cannot make a plain URL from %s: %s",
                        o->url_parsed.identity, why);
            return -2;
        }
    } else {
        if (bench_url_copy(&v->url, &o->url_parsed) != 0)
            return -1;
        v->skip = "no --plain-url or --plain-port";
    }
    /* TLS, keep-alive */
    v = &vs[k++];
    snprintf(v->name, sizeof v->name, "tls");
    snprintf(v->what, sizeof v->what, "TLS, connections kept alive (one handshake per worker)");
    v->http = server_only;
    v->http.no_reuse = 0;
    if (bench_url_copy(&v->url, &o->url_parsed) != 0)
        return -1;
    /* TLS, a handshake for every request */
    v = &vs[k++];
    snprintf(v->name, sizeof v->name, "tls-no-reuse");
    snprintf(v->what, sizeof v->what, "TLS, a new connection and full handshake per request");
    v->http = server_only;
    v->http.no_reuse = 1;
    if (bench_url_copy(&v->url, &o->url_parsed) != 0)
        return -1;
    /* mutual TLS */
    if (o->c.http.cert) {
        v = &vs[k++];
        snprintf(v->name, sizeof v->name, "mtls%s", suffix);
        snprintf(v->what, sizeof v->what, "mutual TLS (client certificate), %s",
                 reuse ? "connections kept alive" : "a new connection and full handshake per "
                                                    "request");
        v->http = o->c.http;
        if (bench_url_copy(&v->url, &o->url_parsed) != 0)
            return -1;
    }
    *n = k;
    return 0;
}

#define NCOL 9
static const int col_w[NCOL] = { 14, 11, 9, 9, 9, 9, 9, 9, 7 };

static void print_cells(FILE *f, char cells[NCOL][48])
{
    size_t last = NCOL;
    while (last > 1 && !cells[last - 1][0])
        last--;
    for (size_t c = 0; c < last; c++) {
        fputs(c ? " " : "  ", f);
        bench_fput_cell(f, cells[c], col_w[c], c != 0);
    }
    fputc('\n', f);
}

static const char *pct_change(double base, double v, char *buf, size_t len)
{
    if (base <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.2f%%", 100.0 * (v - base) / base);
    return buf;
}

static const char *fmt_us(double us, char *buf, size_t len)
{
    if (us <= 0)
        snprintf(buf, len, "0s");
    else
        bench_fmt_ns(us * 1000.0, buf, (unsigned)len);
    return buf;
}

static double phase(const json_t *run, const char *name, const char *stat)
{
    const json_t *p = json_object_get(json_object_get(json_object_get(run, "http"), "phases_us"),
                                      name);
    return bench_json_num(p, stat, 0);
}

static void print_table(void *arg, FILE *f, const json_t *runs)
{
    const http_opts *o = arg;
    const json_t *base = NULL, *r;
    size_t i;
    char bound[64];
    if (o->c.lo.load.duration_ns)
        snprintf(bound, sizeof bound, "%.4gs each", (double)o->c.lo.load.duration_ns / 1e9);
    else
        snprintf(bound, sizeof bound, "%llu requests each",
                 (unsigned long long)o->c.lo.load.iterations);
    json_array_foreach(runs, i, r) {
        if (!base && bench_run_measured(r))
            base = r;
    }
    fprintf(f, "\nTLS matrix: %s %s \xc2\xb7 %u thread%s \xc2\xb7 %s \xc2\xb7 %s", o->method, o->url_parsed.identity,
            o->c.lo.load.threads, o->c.lo.load.threads == 1 ? "" : "s",
            o->c.lo.load.mode == BENCH_MODE_NONBLOCKING ? "nonblocking" : "blocking", bound);
    if (base)
        fprintf(f, " (changes against %s)", bench_json_str(base, "variant", "?"));
    fputs("\n\n", f);
    char head[NCOL][48] = { "VARIANT", "REQ/S", "CHANGE", "P50", "CHANGE", "P95", "P99",
                            "TLS P50", "ERR%" };
    print_cells(f, head);
    json_array_foreach(runs, i, r) {
        char cells[NCOL][48];
        memset(cells, 0, sizeof cells);
        snprintf(cells[0], sizeof cells[0], "%s", bench_json_str(r, "variant", "?"));
        if (!bench_run_measured(r)) {
            fputs("  ", f);
            bench_fput_cell(f, cells[0], col_w[0], 0);
            fprintf(f, " %s: %s\n", bench_json_str(r, "status", "?"),
                    bench_json_str(r, "reason", "not measured"));
            continue;
        }
        double rate = bench_json_num(r, "ops_per_s", 0);
        double p50 = phase(r, "duration", "p50");
        snprintf(cells[1], sizeof cells[1], "%.2f", rate);
        fmt_us(p50, cells[3], sizeof cells[3]);
        fmt_us(phase(r, "duration", "p95"), cells[5], sizeof cells[5]);
        fmt_us(phase(r, "duration", "p99"), cells[6], sizeof cells[6]);
        fmt_us(phase(r, "tls_handshaking", "p50"), cells[7], sizeof cells[7]);
        snprintf(cells[8], sizeof cells[8], "%.2f", bench_json_num(r, "error_pct", 0));
        if (r == base) {
            snprintf(cells[2], sizeof cells[2], "-");
            snprintf(cells[4], sizeof cells[4], "-");
        } else if (base) {
            pct_change(bench_json_num(base, "ops_per_s", 0), rate, cells[2], sizeof cells[2]);
            pct_change(phase(base, "duration", "p50"), p50, cells[4], sizeof cells[4]);
        }
        print_cells(f, cells);
    }
    fputs("\n  REQ/S: requests per second; P50, P95, P99: http_req_duration (sending, waiting,\n"
          "  receiving); TLS P50: the median http_req_tls_handshaking, 0 without a handshake.\n", f);
    bench_flush(f);
}

/* ---- the command ------------------------------------------------------------------------------ */

/* The bearer token (--bearer-env, --bearer-file) read, and the warnings
 * about credentials others may read.  0, or an exit code (printed). */
static int read_credentials(const http_opts *o, char **bearer)
{
    int rc;
    if (o->bearer_env || o->bearer_file) {
        if (!(*bearer = malloc(SECRET_MAX))) {
            bench_error("out of memory");
            return BENCH_EXIT_USAGE;
        }
        if ((rc = read_bearer(o, *bearer, SECRET_MAX)) != 0)
            return rc;
    }
    const int creds = *bearer || o->c.token_cmd || o->secret_headers;
    if (o->c.http.insecure)
        bench_warn("--insecure: the server's certificate is not verified%s",
                   creds ? "; anyone on the path can read the credentials" : "");
    if (o->url_parsed.scheme == BENCH_URL_HTTP && creds)
        bench_warn("--url is plain http://: the credentials cross the network unencrypted");
    return 0;
}

/* The variants run one after another, then the results: an exit code. */
static int run_variants(session *ss, bench_metrics *metrics, int argc, char **argv,
                        unsigned char *marks)
{
    http_opts *o = ss->o;
    variant vs[MAX_VARIANTS];
    size_t nv = 0;
    bench_session bs;
    bench_capacity cap;
    int rc;
    memset(vs, 0, sizeof vs);
    memset(&cap, 0, sizeof cap);
    int mv = make_variants(o, vs, &nv);
    if (mv != 0) {
        if (mv == -1)
            bench_error("out of memory");
        rc = mv == -1 ? BENCH_EXIT_FAILED : BENCH_EXIT_USAGE;
        goto out;
    }
    /* --token-cmd's first token before anything else: without one, no run. */
    if (o->c.token_cmd &&
        !(ss->tokens = rest_tokcmd_open(o->c.token_cmd, o->c.token_ttl_ns, ss->interrupt, &rc)))
        goto out;
    ss->bs = &bs;
    ss->cap = o->c.cap.nobjectives ? &cap : NULL;
    if (bench_session_init(&bs, &o->c.out, ss->interrupt) != 0) {
        rc = BENCH_EXIT_FAILED;
        goto out;
    }
    bs.metrics = metrics;
    bench_metrics_target(metrics, metrics ? env_json(o, NULL) : NULL);
    if (o->matrix) {
        bs.table = print_table;
        bs.table_arg = o;
    }
    for (size_t i = 0; i < nv && !bs.interrupted && !*ss->interrupt; i++) {
        run_variant(ss, &vs[i], o->test);
        /* Without the matrix, a failure at set-up ends it all (nothing measured). */
        if (!o->matrix && bs.setup_failed)
            break;
    }
    const bench_url *plain = o->matrix && nv && !vs[0].skip ? &vs[0].url : NULL;
    if (ss->tokens)
        rest_tokcmd_warn(ss->tokens);
    json_t *cmd = bench_command_json(argc, argv, bench_redact_marks, marks);
    /* A search that never began (the endpoint failed at set-up) ends as a plain run. */
    rc = ss->cap && cap.s ? bench_capacity_finish(&cap, env_json(o, plain), cmd)
                          : bench_session_finish(&bs, env_json(o, plain), cmd);
    bench_session_free(&bs);
out:
    rest_tokcmd_stop(ss->tokens);
    for (size_t i = 0; i < MAX_VARIANTS; i++)
        bench_url_free(&vs[i].url);
    return rc;
}

int rest_cmd_http(int argc, char **argv)
{
    bench_metrics *metrics = NULL;
    char *bearer = NULL;
    session ss;
    http_opts o;
    memset(&ss, 0, sizeof ss);
    memset(&o, 0, sizeof o);
    /* getopt sees "http" as argv[0]; the marks index the full argv. */
    unsigned char *marks = calloc((size_t)argc + 1, 1);
    if (!marks) {
        bench_error("out of memory");
        return BENCH_EXIT_USAGE;
    }
    o.marks = marks + 1;
    int rc = parse_args(argc - 1, argv + 1, &o);
    scrub_argv(argc - 1, argv + 1, o.marks);
    if (rc != 0) {
        rc = rc < 0 ? BENCH_EXIT_OK : rc;
        goto out_opts;
    }
    if ((rc = read_credentials(&o, &bearer)) != 0)
        goto out_secret;
    /* The live endpoint first: a port in use is bad input, before a request. */
    if (bench_metrics_start(&o.c.lo.metrics, &metrics) != 0) {
        rc = BENCH_EXIT_USAGE;
        goto out_secret;
    }
    ss.o = &o;
    ss.bearer = bearer;
    if ((rc = rest_cmdline_begin(&o.c, &ss.interrupt)) != 0)
        goto out_secret;
    rc = run_variants(&ss, metrics, argc, argv, marks);
    curl_global_cleanup();
out_secret:
    bench_metrics_stop(metrics, o.c.http.interrupt);
    if (bearer) {
        bench_secret_wipe(bearer, SECRET_MAX);
        free(bearer);
    }
out_opts:
    opts_free(&o);
    free(marks);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/cmdline.c - the command line the REST commands share (rest/cmdline.h). */
#include "rest/cmdline.h"

#include <signal.h>
#include <string.h>
#include <curl/curl.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/util/signals.h"
#include "rest/views/k6.h"
#include "rest/views/stats.h"
#include "rest/views/views.h"

#define DEFAULT_DURATION_NS (10ULL * 1000000000ULL)
#define DEFAULT_TIMEOUT_MS  10000L

static const bench_option token_rows[] = {
    { "token-cmd", 0, BENCH_ARG_REQUIRED, "CMD", REST_CMD_OPT_TOKEN_CMD,
      "the bearer token is what CMD (run by /bin/sh) prints, one\n"
      "line; run again before the token expires and on a 401\n"
      "(e.g. 'gcloud auth print-access-token'); at most 30 s a run", NULL },
    { "token-ttl", 0, BENCH_ARG_REQUIRED, "TIME", REST_CMD_OPT_TOKEN_TTL,
      "--token-cmd: the lifetime of a token that is no JWT with\n"
      "an exp (default 55m); renewed at 90 % of it", NULL },
};

static const bench_option interval_rows[] = {
    { "summary-interval", 0, BENCH_ARG_REQUIRED, "TIME", REST_CMD_OPT_SUMMARY_INTERVAL,
      "--summary jmeter: a 'summary +' line every TIME, whole\n"
      "seconds (JMeter's summariser.interval; default 30s)", NULL },
};

const bench_opt_group rest_cmd_token_group = BENCH_OPT_GROUP(NULL, token_rows, NULL);
const bench_opt_group rest_cmd_interval_group = BENCH_OPT_GROUP(NULL, interval_rows, NULL);

void rest_cmdline_init(rest_cmdline *c, const char *summaries_of)
{
    bench_load_opts_init(&c->lo);
    bench_cap_opts_init(&c->cap, rest_sections());
    c->out.sections = rest_sections();
    c->http.timeout_ms = DEFAULT_TIMEOUT_MS;
    c->summaries_of = summaries_of;
}

/* One shared option: 1 taken, 0 not one of them, -1 refused (printed). */
static int take_shared(rest_cmdline *c, int code, char *arg)
{
    int t = bench_load_opt(&c->lo, code, arg);
    if (t == 0)
        t = rest_http_opt(&c->http, code, arg);
    if (t == 0)
        t = bench_out_opt(&c->out, code, arg);
    if (t == 0)
        t = bench_cap_opt(&c->cap, code, arg);
    if (t != 0)
        return t;
    switch (code) {
    case 'v':
        c->http.verbose = 1;
        return 1;
    case REST_CMD_OPT_TOKEN_CMD:
        if (!*arg) {
            bench_error("--token-cmd: the command is empty");
            return -1;
        }
        c->token_cmd = arg;
        return 1;
    case REST_CMD_OPT_TOKEN_TTL:
        return rest_tokcmd_ttl_opt(arg, &c->token_ttl_ns) != 0 ? -1 : 1;
    case REST_CMD_OPT_SUMMARY:
        if (strcmp(arg, "jmeter") == 0) {
            c->jmeter = 1;
        } else if (strcmp(arg, "k6") == 0) {
            c->k6 = 1;
        } else {
            bench_error("--summary %s: the extra summaries%s are 'jmeter' and 'k6'", arg,
                        c->summaries_of);
            return -1;
        }
        return 1;
    case REST_CMD_OPT_SUMMARY_INTERVAL:
        return rest_jmeter_interval_parse(arg, &c->summary_interval_s) != 0 ? -1 : 1;
    default:
        return 0;
    }
}

int rest_cmdline_take_all(rest_cmdline *c, bench_opts_parser *p, int argc, char **argv,
                          const rest_cmd_takers *t)
{
    int code, rc;
    while ((code = bench_opts_next(p, argc, argv)) != -1) {
        int taken = t->pre ? t->pre(t->arg, code, optarg) : 0;
        if (taken == 0)
            taken = take_shared(c, code, optarg);
        if (taken < 0)
            return BENCH_EXIT_USAGE;
        if (taken > 0)
            continue;
        if (code == 'h') {
            t->help(t->arg);
            return -1;
        }
        if ((rc = t->take(t->arg, code, argv)) != 0)
            return rc;
    }
    return 0;
}

int rest_cmdline_check(const rest_cmdline *c)
{
    if (c->token_ttl_ns && !c->token_cmd) {
        bench_error("--token-ttl is the lifetime of --token-cmd's tokens: it needs --token-cmd");
        return -1;
    }
    if (c->summary_interval_s && !c->jmeter) {
        bench_error("--summary-interval is the interval of JMeter's summariser: it needs "
                    "--summary jmeter");
        return -1;
    }
    return 0;
}

int rest_cmdline_finish_load(rest_cmdline *c)
{
    if (bench_cap_finish(&c->cap, &c->lo) != 0 ||
        bench_load_finish(&c->lo, DEFAULT_DURATION_NS) != 0)
        return -1;
    /* A connection each slot; each thread its multi handle's wake-up pair. */
    if (bench_load_check_fds(&c->lo, 2, 1) != 0)
        return -1;
    bench_load_stuck_floor(&c->lo, (uint64_t)c->http.timeout_ms * 1000000ULL);
    if (c->lo.nthreads > 1) {
        bench_error("--threads: rest runs one thread count at a time (no sweeps)");
        return -1;
    }
    return 0;
}

int rest_cmdline_finish_out(rest_cmdline *c, const bench_opts_parser *parser, const char *test)
{
    const char *names[1] = { test };
    if (bench_opts_check_files(parser) != 0 || bench_out_finish(&c->out, names, 1) != 0)
        return -1;
    return 0;
}

int rest_cmdline_begin(rest_cmdline *c, const bench_flag **interrupt)
{
    *interrupt = bench_signals_install();
    c->http.interrupt = *interrupt;
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        bench_error("cannot ignore SIGPIPE");
        return BENCH_EXIT_FAILED;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        bench_error("cannot initialise libcurl");
        return BENCH_EXIT_MODULE;
    }
    return 0;
}

const char *rest_cmdline_tls_hint(const rest_http_opts *h)
{
    return h->cacert ? " (is --cacert the CA that signed the server's certificate? "
                       "does the server want a client certificate: --cert/--key?)"
                     : " (a private CA: --cacert FILE; not verifying at all: --insecure)";
}

void rest_cmd_extra_second(void *arg, const bench_sample *smp)
{
    rest_cmd_extra *x = arg;
    rest_jmeter_second(&x->js, smp);
}

void rest_cmd_extra_summary(void *arg, FILE *f, const json_t *run, const bench_run_model *m)
{
    const rest_cmd_extra *x = arg;
    rest_stats_print(f, json_object_get(run, rest_http_section.key), m);
    if (x->tokens)
        rest_tokcmd_print(x->tokens, f);
}

int rest_cmd_extra_tokens(const rest_cmd_extra *x, json_t *restj)
{
    if (!x->tokens)
        return 0;
    rest_tokcmd_halt(x->tokens);
    return json_object_set_new(restj, "token_refreshes", rest_tokcmd_json(x->tokens));
}

int rest_cmd_extra_done(void *arg, const json_t *run, const bench_run_model *m)
{
    rest_cmd_extra *x = arg;
    if (x->c->k6 &&
        rest_k6_summary(json_object_get(json_object_get(run, rest_http_section.key), "k6")) != 0)
        return -1;
    if (!x->c->jmeter)
        return 0;
    const int failed = rest_jmeter_end(&x->js, m) != 0;
    return bench_stdout_check("--summary jmeter") != 0 || failed ? -1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/cmdline.h - what "rest ekm|sdkms" (cmd_rest.c) and "rest http"
 * (http_cmd.c) share on the command line, so that each option they both
 * take is declared, taken and checked once: the load, the TLS and HTTP
 * settings, the outputs and the capacity search (through their own
 * takers), -v, --token-cmd and --token-ttl, --summary and
 * --summary-interval; then the set-up every run needs (signals, libcurl)
 * and the lines both add to a run's summary.
 */
#ifndef REST_CMDLINE_H
#define REST_CMDLINE_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/driver/capacity.h"
#include "bench/driver/loadopts.h"
#include "bench/driver/outopts.h"
#include "bench/driver/session.h"
#include "bench/util/options.h"
#include "rest/http_any.h"
#include "rest/tokencmd.h"
#include "rest/transport/http.h"

/* The codes of the shared options; each command lists its --summary row
 * (its help differs) with REST_CMD_OPT_SUMMARY, and -v as 'v'. */
enum {
    REST_CMD_OPT_TOKEN_CMD = 1280, REST_CMD_OPT_TOKEN_TTL, REST_CMD_OPT_SUMMARY,
    REST_CMD_OPT_SUMMARY_INTERVAL,
};
/* --token-cmd and --token-ttl, listed under the heading before them. */
extern const bench_opt_group rest_cmd_token_group;
/* --summary-interval, listed under the command's --summary. */
extern const bench_opt_group rest_cmd_interval_group;

typedef struct rest_cmdline {
    rest_http_opts  http;
    bench_load_opts lo;
    bench_out_opts  out;
    bench_cap_opts  cap;
    const char     *token_cmd;          /* --token-cmd */
    uint64_t        token_ttl_ns;       /* --token-ttl (0: not given) */
    int             k6;                 /* --summary k6 */
    int             jmeter;             /* --summary jmeter */
    unsigned        summary_interval_s; /* --summary-interval (0: JMeter's 30 s) */
    const char     *summaries_of;       /* in --summary's refusal: " of rest ekm|sdkms" or "" */
} rest_cmdline;

/* The defaults, before the first option. */
void rest_cmdline_init(rest_cmdline *c, const char *summaries_of);
/*
 * A command's own options: pre (or NULL) sees each option before the
 * shared takers do (rest sdkms's --mode, an option of the other service):
 * 1 taken, 0 not, -1 refused (printed); take gets each that no taker
 * took: 0, or an exit code (printed); help prints the command's --help.
 */
typedef struct rest_cmd_takers {
    int  (*pre)(void *arg, int code, const char *value);
    int  (*take)(void *arg, int code, char **argv);
    void (*help)(const void *arg);
    void  *arg;
} rest_cmd_takers;
/* Every option in turn, each to its taker, until the first operand
 * (optind) or the end: 0, -1 after --help, or an exit code (printed). */
int  rest_cmdline_take_all(rest_cmdline *c, bench_opts_parser *p, int argc, char **argv,
                           const rest_cmd_takers *t);
/* The rules between shared options: --token-ttl needs --token-cmd,
 * --summary-interval needs --summary jmeter.  0 or -1 (printed). */
int  rest_cmdline_check(const rest_cmdline *c);
/* The load made whole (the capacity search's, the defaults, one thread
 * count, descriptors for a connection a slot): 0 or -1 (printed). */
int  rest_cmdline_finish_load(rest_cmdline *c);
/* Last: no output is another file named, the outputs' names from the
 * run's test.  0 or -1 (printed). */
int  rest_cmdline_finish_out(rest_cmdline *c, const bench_opts_parser *parser, const char *test);

/* Before a run: the signals handled (c->http.interrupt), SIGPIPE ignored
 * (libcurl runs with CURLOPT_NOSIGNAL, so a write to a connection the
 * server closed must be an error class, not the end of the process),
 * libcurl initialised.  0, or an exit code (printed); on 0 the caller
 * ends with curl_global_cleanup(). */
int  rest_cmdline_begin(rest_cmdline *c, const bench_flag **interrupt);

/* The TLS hint of a set-up failure: is --cacert the right CA, or none given. */
const char *rest_cmdline_tls_hint(const rest_http_opts *h);

/* What both commands add to a run (bench_run_hooks.arg): each command's
 * own extra begins with it, so these hooks serve both. */
typedef struct rest_cmd_extra {
    const rest_cmdline    *c;
    rest_tokcmd           *tokens;  /* --token-cmd, or NULL */
    rest_jmeter_summariser js;      /* --summary jmeter (each run's) */
} rest_cmd_extra;

void rest_cmd_extra_second(void *arg, const bench_sample *smp);
void rest_cmd_extra_summary(void *arg, FILE *f, const json_t *run, const bench_run_model *m);
int  rest_cmd_extra_done(void *arg, const json_t *run, const bench_run_model *m);
/* For the json hook, when a run has ended (its workers closed): with
 * --token-cmd, the refresher halted (rest_tokcmd_halt: a refresh in flight
 * cut off) and rest.token_refreshes set in restj, so that the results and
 * the summary count every run of the command so far.  0, or -1 when out of
 * memory.  Each run begins with rest_tokcmd_resume. */
int  rest_cmd_extra_tokens(const rest_cmd_extra *x, json_t *restj);

#endif

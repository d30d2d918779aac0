/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/tokencmd.h - a bearer token that a command prints (--token-cmd), kept
 * fresh for the whole run.
 *
 * Google's EKM tokens last an hour; the Thales k6 package re-runs its
 * set-up to get another, so its runs end at the hour.  Here the command
 * (run by /bin/sh; its standard output, one line, trimmed, is the token) runs
 * once at start, then again on a thread of its own before the token expires
 * (at 90 % of its lifetime: the JWT's exp when the token is a JWT, else the
 * --token-ttl), and when a request is refused with 401.  One refresh at a
 * time; workers keep the old token until the new one is in, and look for a
 * new one with one atomic load before each request.
 *
 * The token is never printed: a failing command is reported by its exit
 * status and at most the first line of its standard error, with every
 * token-like word (20 characters or more of a token's alphabet) and the
 * current token cut out.  Each run of the command is bounded (timeout_ns,
 * then its process group is killed); a failed refresh is retried with a
 * backoff (1 s, doubling, at most 30 s), the workers keeping the last token.
 *
 * Each run ends with the refresher halted before its results are built: a
 * refresh still running is killed (and counted as cut off: the server may
 * have issued its token) and no new one starts until the next run resumes
 * it, so that the counts a run reports are every run of the command so far.
 */
#ifndef REST_TOKENCMD_H
#define REST_TOKENCMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/util/signals.h"

#define REST_TOKCMD_MAX         16384                    /* an ID token (JWT) is a few kB */
#define REST_TOKCMD_TIMEOUT_NS  (30ULL * 1000000000ULL)  /* one run of the command at most */
#define REST_TOKCMD_DEFAULT_TTL (55ULL * 60ULL * 1000000000ULL)

typedef struct rest_tokcmd_cfg {
    const char       *cmd;         /* run as /bin/sh -c cmd */
    uint64_t          ttl_ns;      /* lifetime of a token that carries no exp */
    uint64_t          timeout_ns;  /* one run of the command at most */
    const bench_flag *interrupt;   /* Ctrl-C ends a run of the command; may be NULL */
} rest_tokcmd_cfg;

/* What happened since the start, for the summary and the results. */
typedef struct rest_tokcmd_counts {
    uint64_t refreshes;   /* new tokens after the first */
    uint64_t after_401;   /* of them, asked for by a request refused with 401 */
    uint64_t failures;    /* runs of the command that gave no token */
    uint64_t retries;     /* requests sent again with a new token after a 401 */
    uint64_t cancelled;   /* runs killed by a halt or a stop, their token unknown */
} rest_tokcmd_counts;

typedef struct rest_tokcmd rest_tokcmd;

/* Run the command once and start the refresher: NULL with one line in err
 * (the command's failure, or out of resources). */
rest_tokcmd *rest_tokcmd_start(const rest_tokcmd_cfg *cfg, char *err, size_t errlen);
/* The run is over: no refresh starts from now on, and one in progress is
 * killed (counted in cancelled) before this returns, so that the counts
 * stay as they are until rest_tokcmd_resume.  Meanwhile rest_tokcmd_renew
 * returns -1 at once.  Again, or NULL: nothing. */
void rest_tokcmd_halt(rest_tokcmd *t);
/* A run begins: the refresher goes on (a token due meanwhile is renewed at
 * once).  Not halted, or NULL: nothing. */
void rest_tokcmd_resume(rest_tokcmd *t);
/* Stop the refresher (a refresh in progress killed) and wipe the token
 * (NULL: nothing); after a halt too. */
void rest_tokcmd_stop(rest_tokcmd *t);

/* The generation of the current token: it changes with each new token. */
unsigned long rest_tokcmd_gen(const rest_tokcmd *t);
/* A copy of the current token in buf (cut to cap - 1 bytes: cap of
 * REST_TOKCMD_MAX holds any); its generation. */
unsigned long rest_tokcmd_get(rest_tokcmd *t, char *buf, size_t cap);
/* A copy of the current token (malloc'd; give it back with
 * rest_tokcmd_wipe) and its generation in *gen; NULL when out of memory. */
char *rest_tokcmd_copy(rest_tokcmd *t, unsigned long *gen);
void  rest_tokcmd_wipe(char *copy);
/* A request sent with the token of generation `seen` was refused with 401:
 * wait (at most the command's timeout) for a newer token.  0 when one is
 * in (it may already have been), -1 when the refresh failed or the
 * refresher is halted. */
int  rest_tokcmd_renew(rest_tokcmd *t, unsigned long seen);
/* A request was sent again with the new token after a 401. */
void rest_tokcmd_note_retry(rest_tokcmd *t);
void rest_tokcmd_counts_get(rest_tokcmd *t, rest_tokcmd_counts *out);
/* The last refresh failure's line ("" when none failed). */
void rest_tokcmd_last_error(rest_tokcmd *t, char *buf, size_t cap);

/* --token-ttl's value, 1s to 30 days: 0, or -1 (printed). */
int rest_tokcmd_ttl_opt(const char *arg, uint64_t *ttl_ns);
/* For a command's main: the first token of --token-cmd CMD (ttl_ns: --token-ttl,
 * 0 for the default), or NULL with one line printed and *exit_code set
 * (BENCH_EXIT_MODULE, or BENCH_EXIT_INTERRUPTED after Ctrl-C). */
rest_tokcmd *rest_tokcmd_open(const char *cmd, uint64_t ttl_ns, const bench_flag *interrupt,
                              int *exit_code);
/* The summary's line ("  token refreshes:   ...") on f. */
void rest_tokcmd_print(rest_tokcmd *t, FILE *f);
/* The results' rest.token_refreshes object (NULL when out of memory). */
json_t *rest_tokcmd_json(rest_tokcmd *t);
/* After the run: a warning naming the last failure, when a refresh failed. */
void rest_tokcmd_warn(rest_tokcmd *t);

/* ---- exposed for tests ---------------------------------------------------- */

/* The exp claim of a JWT (header.payload.signature, base64url), in seconds
 * since the epoch: 0, or -1 when the token is no JWT or carries no exp. */
int rest_jwt_exp(const char *token, double *exp);

/* Run cmd once: its first line (trimmed) in out.  0, or -1 with one line in
 * err that names the exit status or signal and at most the first line of
 * the command's standard error, token-like words cut out. */
int rest_tokcmd_exec(const char *cmd, uint64_t timeout_ns, const bench_flag *interrupt, char *out,
                     size_t cap, char *err, size_t errlen);

#endif

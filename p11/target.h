/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/target.h - from the selection flags to a token ready to benchmark:
 * the module loaded and initialised, the token chosen, a control session
 * open, the user logged in.  Shared by run, list, and the tools in tests/.
 *
 * Several tokens of the one module (hsmbench run only: --slot 1,2,3,
 * --token a,b, --uri given more than once): each is chosen, gets its own
 * control session and is logged in once, with the one PIN (the same
 * --pin-env, --pin-file or --pin for every token; asked once on a
 * terminal).  The first token is `token`/`control` as with one token; all
 * of them are reached with p11_target_token / p11_target_control.
 */
#ifndef P11_TARGET_H
#define P11_TARGET_H

#include <getopt.h>
#include <jansson.h>

#include "bench/util/options.h"
#include "p11/module.h"
#include "p11/token.h"

typedef struct p11_target_opts {
    const char *module;      /* --module NAME|PATH; NULL: the private SoftHSM token */
    const char *init_args;   /* --init-args STRING */
    int         has_slot;
    CK_SLOT_ID  slot;        /* --slot ID: the first of slots[] */
    CK_SLOT_ID  slots[P11_MAX_TOKENS];   /* --slot ID[,ID...] */
    unsigned    nslots;
    const char *token;       /* --token LABEL[,LABEL...], as given */
    const char *uri;         /* --uri PKCS11-URI: the first of uris[] */
    const char *uris[P11_MAX_TOKENS];    /* every --uri, in order */
    unsigned    nuris;
    int         many;        /* set by a command that can use several tokens (run) */
    const char *pin_env;     /* --pin-env VAR */
    const char *pin_file;    /* --pin-file FILE */
    const char *pin;         /* --pin PIN (warned about) */
    const char *pin_user;    /* --pin-user USER: the PIN sent is USER:PIN (run, menu) */
} p11_target_opts;

/* A token beyond the first of a target of several. */
typedef struct p11_target_tok {
    p11_token         token;
    CK_SESSION_HANDLE control;
    int               has_control;
    int               logged_in;
} p11_target_tok;

typedef struct p11_target {
    p11_module       *mod;
    p11_token         token;       /* the (first) token */
    CK_SESSION_HANDLE control;     /* read-write session that owns our keys */
    int               has_control;
    int               logged_in;
    int               demo;        /* the private SoftHSM token */
    unsigned          ntokens;     /* tokens opened (1 when one was selected) */
    p11_target_tok    more[P11_MAX_TOKENS - 1];   /* tokens 2 .. ntokens */
    /* A thread was given up on inside the module (a stuck worker, a destroy
     * that did not return): p11_target_close then calls nothing in it
     * (no C_CloseSession, C_Logout nor C_Finalize) and leaves it loaded. */
    int               abandoned;
} p11_target;

/* The codes of the selection flags. */
enum {
    P11_OPT_MODULE = 1000, P11_OPT_INIT_ARGS, P11_OPT_SLOT, P11_OPT_TOKEN, P11_OPT_URI,
    P11_OPT_PIN_ENV, P11_OPT_PIN_FILE, P11_OPT_PIN, P11_OPT_PIN_USER,
};
/* The Selection group of the option table (bench/util/options.h). */
extern const bench_opt_group p11_target_group;
/* --pin-user USER (AWS CloudHSM's USER:PASSWORD PIN), for run and menu. */
extern const bench_opt_group p11_pin_user_group;
/* pkpspeed's -p PASSWORD (--pin) and -s USER (--pin-user), for run and menu. */
extern const bench_opt_group p11_pkpspeed_spellings;

/* Take one selection option; 1 if it was one, 0 if not, -1 bad value (printed).
 * arg is optarg, a word of argv: a --uri's pin-value is taken out of it
 * (bench_secret_keep; '*'s in the process list) and the copy kept. */
int p11_target_opt(p11_target_opts *o, int code, char *arg);
/* After parsing: reject contradictory selections, a slot, label or URI
 * given twice, and several tokens for a command that has not set `many`
 * (printed); 0 when fine. */
int p11_target_check(const p11_target_opts *o);
/* How many tokens the flags select (1 when they select one or none). */
unsigned p11_target_count(const p11_target_opts *o);

/* How far p11_target_open goes. */
typedef enum {
    P11_OPEN_MODULE,     /* load and initialise the module only */
    P11_OPEN_TOKEN,      /* and choose the token, open the control session */
    P11_OPEN_LOGIN,      /* and log the user in (when the token wants it) */
} p11_open_level;

/*
 * Open the target.  `threads` is how many threads will call the module.
 * Returns a BENCH_EXIT_* code (0 on success); on failure t is closed.
 * With several tokens, two selectors that land on the same token are bad
 * usage (BENCH_EXIT_USAGE).
 */
int  p11_target_open(const p11_target_opts *o, unsigned threads, p11_open_level level,
                     p11_target *t);
void p11_target_close(p11_target *t);

/* Token i (0 .. ntokens-1) of an open target, and its control session. */
const p11_token  *p11_target_token(const p11_target *t, unsigned i);
CK_SESSION_HANDLE p11_target_control(const p11_target *t, unsigned i);

/* {"target": {...}, "module": {...}, "token": {...}, "host": {...}} for the
 * results file (target: kind "pkcs11", name and id, bench/results/target.h).  With
 * several tokens, "tokens" lists them all ("token" is the first) and the
 * target's name and id name every one. */
json_t *p11_target_env_json(const p11_target *t);

#endif

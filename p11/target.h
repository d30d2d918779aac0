/*
 * p11/target.h - from the selection flags to a token ready to benchmark:
 * the module loaded and initialised, the token chosen, a control session
 * open, the user logged in.  Shared by run, list, and the tools in tests/.
 */
#ifndef P11_TARGET_H
#define P11_TARGET_H

#include <getopt.h>
#include <jansson.h>

#include "p11/module.h"
#include "p11/token.h"

typedef struct p11_target_opts {
    const char *module;      /* --module NAME|PATH; NULL: the private SoftHSM token */
    const char *init_args;   /* --init-args STRING */
    int         has_slot;
    CK_SLOT_ID  slot;        /* --slot ID */
    const char *token;       /* --token LABEL */
    const char *uri;         /* --uri PKCS11-URI */
    const char *pin_env;     /* --pin-env VAR */
    const char *pin_file;    /* --pin-file FILE */
    const char *pin;         /* --pin PIN (warned about) */
} p11_target_opts;

typedef struct p11_target {
    p11_module       *mod;
    p11_token         token;
    CK_SESSION_HANDLE control;     /* read-write session that owns our keys */
    int               has_control;
    int               logged_in;
    int               demo;        /* the private SoftHSM token */
} p11_target;

/* getopt codes and long options for the selection flags (append to a command's table). */
enum {
    P11_OPT_MODULE = 1000, P11_OPT_INIT_ARGS, P11_OPT_SLOT, P11_OPT_TOKEN, P11_OPT_URI,
    P11_OPT_PIN_ENV, P11_OPT_PIN_FILE, P11_OPT_PIN,
};
#define P11_TARGET_LONGOPTS \
    { "module", required_argument, NULL, P11_OPT_MODULE }, \
    { "init-args", required_argument, NULL, P11_OPT_INIT_ARGS }, \
    { "slot", required_argument, NULL, P11_OPT_SLOT }, \
    { "token", required_argument, NULL, P11_OPT_TOKEN }, \
    { "uri", required_argument, NULL, P11_OPT_URI }, \
    { "pin-env", required_argument, NULL, P11_OPT_PIN_ENV }, \
    { "pin-file", required_argument, NULL, P11_OPT_PIN_FILE }, \
    { "pin", required_argument, NULL, P11_OPT_PIN }

/* Take one selection option; 1 if it was one, 0 if not, -1 bad value (printed). */
int p11_target_opt(p11_target_opts *o, int code, const char *arg);
/* After parsing: reject contradictory selections (printed); 0 when fine. */
int p11_target_check(const p11_target_opts *o);

/* How far p11_target_open goes. */
typedef enum {
    P11_OPEN_MODULE,     /* load and initialise the module only */
    P11_OPEN_TOKEN,      /* and choose the token, open the control session */
    P11_OPEN_LOGIN,      /* and log the user in (when the token wants it) */
} p11_open_level;

/*
 * Open the target.  `threads` is how many threads will call the module.
 * Returns a BENCH_EXIT_* code (0 on success); on failure t is closed.
 */
int  p11_target_open(const p11_target_opts *o, unsigned threads, p11_open_level level,
                     p11_target *t);
void p11_target_close(p11_target *t);

/* {"target": {...}, "module": {...}, "token": {...}, "host": {...}} for the
 * results file (target: kind "pkcs11", name and id, bench/target.h). */
json_t *p11_target_env_json(const p11_target *t);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/demo.h - the private SoftHSM token hsmbench uses when no module is
 * named.  It lives under $HSMBENCH_HOME (default $XDG_STATE_HOME/hsmbench,
 * else ~/.local/state/hsmbench), never in the system token store: the
 * directory holds a softhsm2.conf, the token directory, and the user PIN
 * (mode 0600) that hsmbench generated when it created the token.
 */
#ifndef P11_DEMO_H
#define P11_DEMO_H

#include <limits.h>
#include <stddef.h>

#include "bench/util/options.h"
#include "p11/module.h"

#define P11_DEMO_LABEL "hsmbench-demo"

/*
 * Create the directory and configuration if needed, point SOFTHSM2_CONF at
 * it, and return the SoftHSM module to load ($HSMBENCH_SOFTHSM_MODULE, else
 * the path found at build time) and the path of the PIN file.  -1 (printed)
 * on failure.
 *
 * It also takes the directory's lock (*lock_fd): SoftHSM reads its token
 * store once, in C_Initialize, so two processes starting together must not
 * both see "no demo token" and create one each.  Hold the lock from before
 * loading the module until p11_demo_ensure_token is done, then release it
 * with p11_demo_unlock.
 */
int p11_demo_prepare(char *module, size_t modlen, char *pin_file, size_t pinlen, int *lock_fd);

/* With the module open (and the lock held): create the demo token if it
 * does not exist yet. */
int p11_demo_ensure_token(const p11_module *m);

/* Release the lock p11_demo_prepare took (-1 is ignored). */
void p11_demo_unlock(int lock_fd);

/*
 * The files a command reads without an option naming them, which no output
 * may overwrite (writing --json onto the demo token's user.pin destroyed
 * the token): with no --module, the demo token's PIN files, configuration
 * and SoftHSM module; a --module given as a path; the files SOFTHSM2_CONF,
 * HSMBENCH_TRACE_CONFIG and HSMBENCH_TRACE_MODULE name.  Found, not
 * created; what[i] names path[i] in a message.  p11_inputs_note records
 * them in p as inputs, for bench_opts_check_files (in must live until
 * then); -1 (printed) when the parser has no room left.
 */
#define P11_INPUTS_MAX 8
typedef struct p11_inputs {
    char        path[P11_INPUTS_MAX][PATH_MAX];
    const char *what[P11_INPUTS_MAX];
    size_t      n;
} p11_inputs;
int p11_inputs_note(const char *module, p11_inputs *in, bench_opts_parser *p);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/token.h - choosing the token (by slot, label or PKCS#11 URI), and
 * logging in to it.
 */
#ifndef P11_TOKEN_H
#define P11_TOKEN_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

#include "p11/module.h"

/* Tokens one command may use at most (run --slot 1,2,... --token a,b,...). */
#define P11_MAX_TOKENS 32

typedef struct p11_selector {
    int         has_slot;
    CK_SLOT_ID  slot;        /* --slot */
    const char *label;       /* --token */
    const char *uri;         /* --uri (RFC 7512) */
} p11_selector;

typedef struct p11_token {
    CK_SLOT_ID    slot;
    CK_SLOT_INFO  slot_info;
    CK_TOKEN_INFO info;
    char label[33], manufacturer[33], model[17], serial[17], slot_desc[65];
} p11_token;

/* Slots (with a token present, when present_only); *slots is malloc'd. */
int p11_slots(const p11_module *m, int present_only, CK_SLOT_ID **slots, CK_ULONG *n);

/* Fill t for one slot; CK_RV of the failing call. */
CK_RV p11_token_read(const p11_module *m, CK_SLOT_ID slot, p11_token *t);

/*
 * Pick the token.  With no selector: the only initialised token, or an
 * error asking the user to choose when there are several.  Prints one line
 * and returns -1 on failure.
 */
int p11_token_select(const p11_module *m, const p11_selector *sel, p11_token *out);

/* Validate a URI and copy its module-path/module-name (if any) and whether
 * it carries a pin-value.  -1 (printed) when the URI does not parse. */
int p11_uri_inspect(const char *uri, char *module, size_t modlen, char *pin, size_t pinlen);

/* A copy of a PKCS#11 URI fit to print: every pin-value replaced by "***".
 * Cut to fit LEN, never inside a "pin-value=***". */
const char *p11_uri_redact(const char *uri, char *buf, size_t len);

/* bench_command_json's redactor for a PKCS#11 command's words (arg: its
 * argv): the word after --pin, --pin=PIN and a URI's pin-value shown as
 * "***"; NULL for a word kept as it is. */
const char *p11_command_redact(void *arg, int i, const char *word, char *buf, size_t len);

/* Does this token want a PIN from us (login required, no PIN pad)? */
int p11_token_wants_pin(const p11_token *t);

/*
 * C_Login as the user; "already logged in" is success.  pin may be NULL for
 * a protected authentication path.  Prints one line naming the CKR_* code
 * and returns -1 on failure.
 */
int p11_login(const p11_module *m, CK_SESSION_HANDLE s, const p11_token *t,
              const char *pin, size_t pinlen);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/module.h - loading and initialising a PKCS#11 module.
 *
 * A module is named by path ("/usr/lib/softhsm/libsofthsm2.so") or by the
 * name p11-kit registers it under ("softhsm2"); in the second case its
 * initialisation string comes from p11-kit's configuration (x-init-reserved)
 * unless --init-args overrides it.  Modules are loaded unmanaged: hsmbench
 * talks to the module's own function list, with nothing in between, so what
 * is measured is the module.  The module is initialised for multi-threaded
 * use (CKF_OS_LOCKING_OK).
 */
#ifndef P11_MODULE_H
#define P11_MODULE_H

#include <stddef.h>
#include <p11-kit/pkcs11.h>

#include "p11/codes.h"

typedef struct p11_module {
    CK_FUNCTION_LIST *fn;
    char  path[4096];         /* the file loaded */
    char  name[256];          /* registered name, or the file's base name */
    int   finalize;           /* we initialised it, so we finalise it */
    int   single_threaded;    /* module refused OS locking (CKR_CANT_LOCK) */
    CK_INFO info;
    p11_codes codes;          /* its return values of 2^48 and up (p11/codes.h) */
} p11_module;

/*
 * Load and initialise.  `spec` is a path or registered name; init_args may
 * be NULL.  `threads` is how many threads will call the module: a module
 * that cannot lock is refused when it is more than one.  On failure returns
 * NULL after printing one line naming the flag and the cause.
 */
p11_module *p11_module_open(const char *spec, const char *init_args, unsigned threads);
void p11_module_close(p11_module *m);
/* Forget the module without a call into it (no C_Finalize, not unloaded):
 * a thread given up on may still be inside it (p11_target_close). */
void p11_module_abandon(p11_module *m);


/* The modules hsmbench ships (hsmbench-mock, hsmbench-null,
 * hsmbench-trace), which --module takes by name: their names and what each
 * is, n set to how many. */
typedef struct p11_own_module {
    const char *name;
    const char *what;
} p11_own_module;
const p11_own_module *p11_own_modules(size_t *n);

/* Where the own module `name` is (HSMBENCH_LIBDIR's directory when set, else
 * the one compiled in) into path: 0, or -1 when name is not one of them. */
int p11_own_module_path(const char *name, char *path, size_t pathlen);

/* Copy a blank-padded PKCS#11 string into a NUL-terminated trimmed one. */
void p11_trim(char *dst, size_t dstlen, const unsigned char *src, size_t srclen);

#endif

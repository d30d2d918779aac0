/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/secret.h - PINs, tokens and API keys: where they may come from and
 * how they are kept.  A secret comes from an environment variable, a file,
 * a prompt without echo, or (with a warning) the command line; it lives in
 * a caller-owned buffer that the caller wipes with bench_secret_wipe().
 */
#ifndef BENCH_SECRET_H
#define BENCH_SECRET_H

#include <stddef.h>

typedef struct bench_secret_src {
    const char *env;         /* name of an environment variable, or NULL */
    const char *file;        /* path of a file whose first line is the secret, or NULL */
    const char *value;       /* given on the command line (already warned about), or NULL */
    const char *what;        /* "PIN", "token": used in messages */
    const char *env_flag;    /* "--pin-env": used in messages */
    const char *file_flag;   /* "--pin-file" */
    const char *value_flag;  /* "--pin": the command-line flag (NULL: "--pin") */
} bench_secret_src;

enum { BENCH_SECRET_OK = 0, BENCH_SECRET_NONE = 1, BENCH_SECRET_ERROR = -1 };

/*
 * Fill buf (NUL-terminated, *len without the NUL).  With no source given,
 * prompts without echo when standard input is a terminal, else returns
 * BENCH_SECRET_NONE.  Errors (unset variable, unreadable file, empty
 * secret, too long) are printed as one line and give BENCH_SECRET_ERROR.
 */
int bench_secret_read(const bench_secret_src *src, const char *prompt, char *buf, size_t cap,
                      size_t *len);

/* Overwrite a secret in a way the compiler may not optimise away. */
void bench_secret_wipe(void *buf, size_t len);

/*
 * From the first secret on (bench_secret_read, bench_secret_keep), the
 * process is not dumpable (prctl(PR_SET_DUMPABLE, 0)): no core file, and
 * no debugger of the same user may attach, so no copy of a secret (ours,
 * libcurl's header lists and request buffers, jansson's, OpenSSL's, the
 * PKCS#11 module's, the environment's) can be read from a core.  If the
 * kernel refuses, both fail with one line.
 */

/*
 * A secret given on the command line, taken out of it: s copied into the
 * process's secret store (pages marked MADV_DONTDUMP, wiped at exit by bench_secret_forget), the process made
 * undumpable; the caller then overwrites what argv
 * shows (bench_secret_mask).  The copy, or NULL (printed) when out of memory.
 */
char *bench_secret_keep(const char *s);

/* What /proc/PID/cmdline shows of a secret from now on: n '*'s at s. */
void bench_secret_mask(char *s, size_t n);

/* Wipe and release the secret store (at the end of main). */
void bench_secret_forget(void);

#endif

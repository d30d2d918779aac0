/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/secret.c - reading secrets without leaving them about. */
#include "bench/util/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "bench/util/cli.h"

void bench_secret_wipe(void *buf, size_t len)
{
    if (buf && len)
        explicit_bzero(buf, len);
}

/* Not dumpable from now on (secret.h). */
static int secret_hold(void)
{
    if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
        return 0;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        bench_error("prctl(PR_SET_DUMPABLE, 0): %s: a core dump could hold the secrets",
                    strerror(errno));
        return -1;
    }
    return 0;
}

void bench_secret_mask(char *s, size_t n)
{
    memset(s, '*', n);
}

/* The secret store: one mapping of pages kept out of core dumps, filled
 * from the start; secrets from argv live as long as the process. */
typedef struct secret_store {
    char  *base;
    size_t used, cap;
} secret_store;

static secret_store store;

#define STORE_CAP ((size_t)1 << 20)    /* more than ARG_MAX's 128 KiB a word */

char *bench_secret_keep(const char *s)
{
    const size_t n = strlen(s) + 1;
    if (secret_hold() != 0)
        return NULL;
    if (!store.base) {
        void *m = mmap(NULL, STORE_CAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            bench_error("cannot map memory for secrets: %s", strerror(errno));
            return NULL;
        }
        /* Advice only: the process is undumpable already. */
        (void)madvise(m, STORE_CAP, MADV_DONTDUMP);
        store.base = m;
        store.cap = STORE_CAP;
    }
    if (n > store.cap - store.used) {
        bench_error("the secrets on the command line exceed %zu bytes", store.cap);
        return NULL;
    }
    char *copy = store.base + store.used;
    memcpy(copy, s, n);
    store.used += n;
    return copy;
}

void bench_secret_forget(void)
{
    if (!store.base)
        return;
    bench_secret_wipe(store.base, store.used);
    (void)munmap(store.base, store.cap);
    store = (secret_store){ NULL, 0, 0 };
}

static void chomp(char *buf, size_t *len)
{
    while (*len && (buf[*len - 1] == '\n' || buf[*len - 1] == '\r'))
        buf[--*len] = 0;
}

static int from_file(const bench_secret_src *src, char *buf, size_t cap, size_t *len)
{
    struct stat st;
    char why[128];
    /* A pipe is a fine way to hand over a secret (--pin-file <(...)). */
    int fd = bench_open_input(src->file, 1, why, sizeof why);
    if (fd < 0) {
        bench_error("%s %s: %s", src->file_flag, src->file, why);
        return BENCH_SECRET_ERROR;
    }
    if (fstat(fd, &st) == 0 && (st.st_mode & (S_IROTH | S_IWOTH)))
        bench_warn("%s %s: the file is readable by other users; chmod 600 it", src->file_flag,
                   src->file);
    ssize_t n = read(fd, buf, cap - 1);
    int saved = errno;
    close(fd);
    if (n < 0) {
        bench_error("%s %s: %s", src->file_flag, src->file, strerror(saved));
        return BENCH_SECRET_ERROR;
    }
    buf[n] = 0;
    /* Only the first line counts: a trailing newline is not part of a PIN. */
    char *nl = memchr(buf, '\n', (size_t)n);
    if (nl) {
        bench_secret_wipe(nl, (size_t)(buf + n - nl));
        n = nl - buf;
    } else if ((size_t)n == cap - 1) {
        bench_secret_wipe(buf, cap);
        bench_error("%s %s: the %s is too long (over %zu bytes)", src->file_flag, src->file,
                    src->what, cap - 2);
        return BENCH_SECRET_ERROR;
    }
    *len = (size_t)n;
    chomp(buf, len);
    if (*len == 0) {
        bench_error("%s %s: the file is empty", src->file_flag, src->file);
        return BENCH_SECRET_ERROR;
    }
    return BENCH_SECRET_OK;
}

static int copy_in(const char *what, const char *where, const char *s, char *buf, size_t cap,
                   size_t *len)
{
    size_t n = strlen(s);
    if (n == 0) {
        bench_error("%s: the %s is empty", where, what);
        return BENCH_SECRET_ERROR;
    }
    if (n >= cap) {
        bench_error("%s: the %s is too long (over %zu bytes)", where, what, cap - 1);
        return BENCH_SECRET_ERROR;
    }
    memcpy(buf, s, n + 1);
    *len = n;
    return BENCH_SECRET_OK;
}

static int from_prompt(const char *prompt, char *buf, size_t cap, size_t *len)
{
    struct termios old, quiet;
    int fd = STDIN_FILENO;

    if (!isatty(fd))
        return BENCH_SECRET_NONE;
    if (tcgetattr(fd, &old) != 0)
        return BENCH_SECRET_NONE;
    quiet = old;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    quiet.c_lflag |= ICANON;
    fprintf(stderr, "%s", prompt);
    fflush(stderr);
    if (tcsetattr(fd, TCSAFLUSH, &quiet) != 0)
        return BENCH_SECRET_NONE;

    size_t n = 0;
    int rc = BENCH_SECRET_OK;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR) {
            rc = BENCH_SECRET_ERROR;      /* Ctrl-C at the prompt: leave quietly */
            break;
        }
        if (r <= 0 || c == '\n' || c == '\r')
            break;
        if (n + 1 < cap)
            buf[n++] = c;
    }
    buf[n] = 0;
    tcsetattr(fd, TCSAFLUSH, &old);
    fputc('\n', stderr);
    if (rc != BENCH_SECRET_OK) {
        bench_secret_wipe(buf, cap);
        return rc;
    }
    if (n == 0) {
        bench_error("no %s entered", prompt[0] ? "input" : "secret");
        return BENCH_SECRET_ERROR;
    }
    *len = n;
    return BENCH_SECRET_OK;
}

int bench_secret_read(const bench_secret_src *src, const char *prompt, char *buf, size_t cap,
                      size_t *len)
{
    *len = 0;
    buf[0] = 0;
    if (secret_hold() != 0)
        return BENCH_SECRET_ERROR;
    if (src->value)
        return copy_in(src->what, src->value_flag ? src->value_flag : "--pin", src->value, buf, cap,
                       len);
    if (src->env) {
        const char *v = getenv(src->env);
        if (!v) {
            bench_error("%s %s: the variable is not set", src->env_flag, src->env);
            return BENCH_SECRET_ERROR;
        }
        char where[160];
        snprintf(where, sizeof where, "%s %s", src->env_flag, src->env);
        return copy_in(src->what, where, v, buf, cap, len);
    }
    if (src->file)
        return from_file(src, buf, cap, len);
    return from_prompt(prompt, buf, cap, len);
}

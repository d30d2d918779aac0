/* bench/util/secret.c - reading secrets without leaving them about. */
#include "bench/util/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "bench/util/cli.h"

void bench_secret_wipe(void *buf, size_t len)
{
    if (buf && len)
        explicit_bzero(buf, len);
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

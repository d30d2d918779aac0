/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/outfile.c - see outfile.h for the rules. */
#include "bench/util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/util/cli.h"

/* Write to an open stream, then close it; 0 or -1 with errno set. */
static int write_close(FILE *f, bench_out_writer write, const void *ctx)
{
    int werr = write(f, ctx);
    int ferr = fflush(f) != 0 || ferror(f);
    int saved = errno;
    int cerr = fclose(f) != 0;
    if (werr || ferr || cerr) {
        errno = saved ? saved : EIO;
        return -1;
    }
    return 0;
}

/*
 * Open path for writing in place without waiting: a FIFO no one reads
 * would block open() forever (and write() after it), so it is opened
 * O_NONBLOCK, which fails with ENXIO then, and made blocking again once a
 * reader is known.  The fd, or -1 with errno set (ENXIO: no reader).
 */
static int open_in_place(const char *path, int flags)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | flags, 0666);
    if (fd < 0)
        return -1;
    const int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        const int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The message for an open_in_place that failed. */
static const char *in_place_error(int err)
{
    return err == ENXIO ? "a FIFO no one reads: start its reader first (the results would wait for "
                          "one forever)"
                        : strerror(err);
}

/* Open a new file in dir exclusively, with a name no one can guess. */
static int create_temp(const char *dir, const char *base, char *tmp, size_t len)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)getpid() ^ (uint64_t)attempt << 40;
        }
        int n = snprintf(tmp, len, "%s/.%s.%016llx.tmp", dir, base, (unsigned long long)r);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/*
 * What a path names for writing: *target is path, or for a symbolic link
 * what it points at (in real); *exists and st say what is there, dir the
 * directory a temporary file goes in.  -1 (message printed) for a link to
 * nothing or a directory.
 */
static int resolve(const char *flag, const char *path, char *real, const char **target,
                   struct stat *st, int *exists, char *dir, size_t dirlen)
{
    *target = path;
    if (lstat(path, st) == 0 && S_ISLNK(st->st_mode)) {
        if (!realpath(path, real)) {
            bench_error("%s %s: a symbolic link to nothing (%s); not replacing the link", flag, path,
                        strerror(errno));
            return -1;
        }
        *target = real;
    }
    *exists = stat(*target, st) == 0;
    if (*exists && S_ISDIR(st->st_mode)) {
        bench_error("%s %s: is a directory", flag, path);
        return -1;
    }
    const char *slash = strrchr(*target, '/');
    if (!slash)
        snprintf(dir, dirlen, ".");
    else if (slash == *target)
        snprintf(dir, dirlen, "/");
    else
        snprintf(dir, dirlen, "%.*s", (int)(slash - *target), *target);
    return 0;
}

int bench_path_writable(const char *flag, const char *path)
{
    char real[PATH_MAX], dir[PATH_MAX];
    const char *target;
    struct stat st;
    int exists;

    if (!path || !*path) {
        bench_error("%s: a file name is required", flag);
        return 0;
    }
    if (resolve(flag, path, real, &target, &st, &exists, dir, sizeof dir) != 0)
        return 0;
    if (exists && access(target, W_OK) != 0) {
        bench_error("%s %s: not writable: %s", flag, path, strerror(errno));
        return 0;
    }
    if (exists && S_ISFIFO(st.st_mode)) {
        /* Written in place after the run: a reader must be there now.  The
         * fd stays open until hsmbench exits, on purpose: closing it would
         * give that reader its end of file before the results come. */
        if (open_in_place(target, 0) < 0) {
            bench_error("%s %s: %s", flag, path, in_place_error(errno));
            return 0;
        }
        return 1;
    }
    if (exists && !S_ISREG(st.st_mode))
        return 1;              /* a device: written in place */
    if (stat(dir, &st) != 0) {
        bench_error("%s %s: directory %s: %s", flag, path, dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        bench_error("%s %s: cannot create a file in %s: %s", flag, path, dir,
                    S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
        return 0;
    }
    return 1;
}

int bench_out_write(const char *flag, const char *path, bench_out_writer write, const void *ctx)
{
    char real[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 64];
    const char *target;
    struct stat st;
    int exists;

    if (resolve(flag, path, real, &target, &st, &exists, dir, sizeof dir) != 0)
        return -1;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or a FIFO: written in place, never replaced. */
        int fd = open_in_place(target, 0);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f) {
            bench_error("%s %s: %s", flag, path, in_place_error(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        if (write_close(f, write, ctx) != 0) {
            bench_error("%s %s: cannot write: %s", flag, path, strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *slash = strrchr(target, '/');
    int fd = create_temp(dir, slash ? slash + 1 : target, tmp, sizeof tmp);
    if (fd < 0) {
        bench_error("%s %s: cannot create a file in %s: %s", flag, path, dir, strerror(errno));
        return -1;
    }
    /* Keep a replaced file's permissions (the umask applied to a new one). */
    if (exists && fchmod(fd, st.st_mode & 07777) != 0)
        bench_warn("%s %s: cannot keep the file's mode: %s", flag, path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        bench_error("%s %s: %s", flag, path, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (write_close(f, write, ctx) != 0) {
        bench_error("%s %s: cannot write: %s", flag, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, target) != 0) {
        bench_error("%s %s: %s", flag, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

FILE *bench_out_open_stream(const char *flag, const char *path)
{
    int fd = open_in_place(path, O_CREAT | O_TRUNC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        bench_error("%s%s: %s", flag, path, in_place_error(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

int bench_file_id_of(const char *path, bench_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return -1;
        id->dev = (unsigned long long)st.st_dev;
        id->ino = (unsigned long long)st.st_ino;
        return 0;
    }
    if (errno != ENOENT)
        return -1;
    /* Not there yet (or a link to nothing, which writing refuses): the
     * directory it would be made in, and its name there. */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) >= sizeof dir)
        return -1;
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!*base || strlen(base) >= sizeof id->name || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    id->dev = (unsigned long long)st.st_dev;
    id->ino = (unsigned long long)st.st_ino;
    snprintf(id->name, sizeof id->name, "%s", base);
    return 0;
}

int bench_file_id_same(const bench_file_id *a, const bench_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && strcmp(a->name, b->name) == 0;
}

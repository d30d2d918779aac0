/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/cli.c - messages and number parsing for the front ends. */
#include "bench/util/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/util/exit.h"
#include "bench/util/signals.h"

static void vmsg(const char *kind, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* One line, always: a message must never spill a multi-line dump. */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "hsmbench: %s: %s\n", kind, line);
}

void bench_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("error", fmt, ap);
    va_end(ap);
}

void bench_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning", fmt, ap);
    va_end(ap);
}

void bench_note(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "hsmbench: %s\n", line);
}

/* Why an unchecked flush of stdout failed, for bench_stdout_check. */
static _Atomic int stdout_lost;

void bench_flush(FILE *f)
{
    const int saved = errno;
    errno = 0;
    if (fflush(f) != 0 && f == stdout && errno != 0) {
        int none = 0;
        atomic_compare_exchange_strong(&stdout_lost, &none, errno);
        if (errno == EPIPE)
            bench_signals_output_closed();   /* the run stops as if interrupted */
    }
    errno = saved;
}

int bench_stdout_check(const char *what)
{
    errno = 0;
    const int flushed = fflush(stdout) == 0;
    int e = errno;
    if (flushed || e == 0)
        e = atomic_exchange(&stdout_lost, 0);
    else
        atomic_store(&stdout_lost, 0);
    if (flushed && !ferror(stdout))
        return 0;
    clearerr(stdout);
    /* Failed earlier, in a flush nobody checked or a printf's own. */
    const int known = e != 0;
    if (e == EPIPE)
        bench_signals_output_closed();
    else
        bench_error("%s%scannot write to standard output%s%s", what ? what : "", what ? ": " : "",
                    known ? ": " : "", known ? strerror(e) : "");
    return known ? e : EIO;
}

double bench_strtod(const char *text, char **end)
{
    const char *p = text + (*text == '+' || *text == '-');
    const int digit = isdigit((unsigned char)p[0]) || (p[0] == '.' && isdigit((unsigned char)p[1]));
    if (!digit || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
        *end = (char *)text;
        return 0;
    }
    return strtod(text, end);
}

int bench_parse_pct(const char *flag, const char *text, double min, double max, const char *example,
                    double *out_fraction)
{
    char *end = NULL;
    const double v = bench_strtod(text, &end);
    if (end != text) {
        while (*end == ' ')
            end++;
        if (*end == '%')
            end++;
    }
    if (end == text || *end || !(v >= min) || !(v <= max)) {
        bench_error("%s %s: a percentage from %g%% to %g%% (e.g. %s)", flag, text, min, max, example);
        return -1;
    }
    *out_fraction = v / 100.0;
    return 0;
}

int bench_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *p = text;
    uint64_t v = 0;

    if (!text || !*text) {
        bench_error("%s: a number is required", flag);
        return -1;
    }
    if (*p == '-') {
        bench_error("%s: '%s' is negative; expected %llu to %llu", flag, text,
                    (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    if (*p == '+')
        p++;
    if (!*p) {
        bench_error("%s: '%s' is not a number", flag, text);
        return -1;
    }
    int overflow = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') {
            bench_error("%s: '%s' is not a whole number", flag, text);
            return -1;
        }
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1; /* read on: trailing garbage is named as such */
        else
            v = v * 10 + d;
    }
    if (overflow || v < min || v > max) {
        bench_error("%s: %s is out of range; expected %llu to %llu", flag, text,
                    (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *out = v;
    return 0;
}

/* The units of a duration, as k6 (Go's time.ParseDuration) spells them,
 * largest first: a compound duration ("1h30m15s") takes them in this order,
 * each at most once.  "ms" is tried before "m" by its length. */
static const struct { const char *name; double ns; } duration_units[] = {
    { "h", 3600e9 }, { "m", 60e9 }, { "s", 1e9 }, { "ms", 1e6 },
    { "us", 1e3 }, { "\xc2\xb5s", 1e3 } /* µs */, { "ns", 1 },
};

/* The unit at p (the longest that matches), its index, or -1. */
static int duration_unit(const char *p, size_t *len)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        const size_t n = strlen(duration_units[i].name);
        if (n > best_len && strncmp(p, duration_units[i].name, n) == 0) {
            best = (int)i;
            best_len = n;
        }
    }
    *len = best_len;
    return best;
}

int bench_duration_of(const char *text, uint64_t min_ns, uint64_t max_ns, uint64_t *out_ns, char *why,
                      size_t len)
{
    double ns = 0;
    int last = -1;   /* the previous part's unit: the next one must be smaller */

    if (!text || !*text) {
        bench_seterr(why, len, "a duration is required (e.g. 30, 30s, 500ms, 1m30s)");
        return -1;
    }
    if (text[0] == '-') {
        bench_seterr(why, len, "'%s' is negative", text);
        return -1;
    }
    for (const char *p = text; *p;) {
        char *end = NULL;
        /* each part starts with a digit or a point: no sign, no blank inside */
        errno = 0;
        const double v = (isdigit((unsigned char)*p) || *p == '.' || p == text) ? bench_strtod(p, &end) : 0;
        if (!end || end == p || errno || !isfinite(v) || v < 0) {
            bench_seterr(why, len, "'%s' is not a duration (e.g. 30, 30s, 500ms, 1m30s)", text);
            return -1;
        }
        if (*end == 0 && p == text) {   /* a bare number: seconds */
            ns = v * 1e9;
            break;
        }
        size_t n = 0;
        const int u = duration_unit(end, &n);
        if (u < 0) {
            bench_seterr(why, len, "'%s' has %s; use ns, us, ms, s, m or h (e.g. 1m30s)", text,
                         *end ? "an unknown unit" : "a number without a unit");
            return -1;
        }
        if (u <= last) {
            bench_seterr(why, len, "'%s': units from largest to smallest, each once (e.g. 1h30m15s)", text);
            return -1;
        }
        last = u;
        ns += v * duration_units[u].ns;
        p = end + n;
    }
    if (ns < (double)min_ns || ns > (double)max_ns) {
        char lo[32], hi[32];
        bench_seterr(why, len, "%s is out of range; expected %s to %s", text,
                     bench_fmt_ns((double)min_ns, lo, sizeof lo), bench_fmt_ns((double)max_ns, hi, sizeof hi));
        return -1;
    }
    *out_ns = (uint64_t)llround(ns);
    return 0;
}

int bench_parse_duration(const char *flag, const char *text, uint64_t min_ns, uint64_t max_ns,
                         uint64_t *out_ns)
{
    char why[256];
    if (bench_duration_of(text, min_ns, max_ns, out_ns, why, sizeof why) != 0) {
        bench_error("%s: %s", flag, why);
        return -1;
    }
    return 0;
}

void bench_seterr(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!err || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

const char *bench_fmt_ns(double ns, char *buf, unsigned len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.4gµs", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.4gms", ns / 1e6);
    else if (ns < 1e13)
        snprintf(buf, len, "%.4gs", ns / 1e9);
    else    /* past 9999 s, hours: "168h", never "6.048e+05s" */
        snprintf(buf, len, ns < 3.6e16 ? "%.4gh" : "%.0fh", ns / 3.6e12);
    return buf;
}

const char *bench_fmt_bytes(double b, char *buf, unsigned len)
{
    /* Binary units, the units data sizes are chosen in (8192 is 8 KiB, not
     * "8.2 kB"); a whole number of the unit without a decimal, so a size
     * reads as it was given. */
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
    if (!(fabs(b) >= 1024)) {
        snprintf(buf, len, "%.0f B", b);
        return buf;
    }
    double v = b / 1024;
    size_t u = 0;
    while (fabs(v) >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, v == floor(v) ? "%.0f %s" : "%.1f %s", v, unit[u]);
    return buf;
}

/* The option getopt_long just refused, for its message: getopt's optopt is
 * the short option it refused; for long options it is 0 (unknown) or the
 * option's code (value missing): then the argument is named.  Its length
 * without "=value" in *n; shortopt holds "-x". */
static const char *refused_word(char **argv, char shortopt[3], int *n)
{
    const char *name = argv[optind - 1];
    if (optopt > 0 && optopt < 128 && optopt != '?') {
        shortopt[0] = '-';
        shortopt[1] = (char)optopt;
        shortopt[2] = 0;
        name = shortopt;
    }
    *n = strncmp(name, "--", 2) == 0 ? (int)strcspn(name, "=") : (int)strlen(name);
    return name;
}

/* "--thread: unknown option; did you mean --threads? (see: ...)" */
static int refuse_unknown(const bench_getopt *st, const char *word, int n, const char *cmd)
{
    char hint[512] = "";
    if (st->hint)
        st->hint(st->hint_arg, word, (size_t)n, hint, sizeof hint);
    bench_error("%.*s: unknown option%s (see: hsmbench %s --help)", n, word, hint, cmd);
    return BENCH_OPT_REFUSED;
}

int bench_getopt_long(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      bench_getopt *st)
{
    int index = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &index);
    const char *cmd = st->cmd ? st->cmd : "COMMAND";
    if (c == '?' && st->hint) {
        char shortopt[3] = "";
        int n = 0;
        const char *word = refused_word(argv, shortopt, &n);
        return refuse_unknown(st, word, n, cmd);
    }
    if (c == -1 || c == '?' || c == ':')
        return c;
    if (index >= 0) {
        /* The word getopt_long matched: "--name", "--name=value", or the one
         * before a separate value. */
        const char *word = argv[optind - 1];
        if (optarg && optind >= 2 && optarg == argv[optind - 1])
            word = argv[optind - 2];
        size_t n = strcspn(word + 2, "=");
        if (strncmp(word, "--", 2) != 0 || n != strlen(longopts[index].name) ||
            strncmp(word + 2, longopts[index].name, n) != 0)
            return refuse_unknown(st, word, (int)(n + 2), cmd);
    } else {
        /* A short option counts as its long twin, when it has one. */
        for (int i = 0; longopts[i].name; i++)
            if (!longopts[i].flag && longopts[i].val == c) {
                index = i;
                break;
            }
        if (index < 0 && c > 0 && c < 128 && st->same_short[c])
            index = st->same_short[c] - 1;
    }
    /* An old spelling is its option: the two are given once. */
    const int at = index >= 0 && index < BENCH_OPT_MAX && st->same[index] ? st->same[index] - 1 : index;
    if (at >= 0 && at < BENCH_OPT_MAX && longopts[at].has_arg != no_argument && !st->repeat[at]) {
        if (st->seen[at]) {
            bench_error("--%s given twice (see: hsmbench %s --help)", longopts[at].name, cmd);
            return BENCH_OPT_REFUSED;
        }
        st->seen[at] = 1;
    }
    return c;
}

int bench_option_error(char **argv, int c, const char *cmd)
{
    if (c == BENCH_OPT_REFUSED)
        return BENCH_EXIT_USAGE;
    char shortopt[3] = "";
    int n = 0;
    const char *name = refused_word(argv, shortopt, &n);
    if (c == ':')
        bench_error("%.*s: a value is required (see: hsmbench %s --help)", n, name, cmd);
    else
        bench_error("%.*s: unknown option (see: hsmbench %s --help)", n, name, cmd);
    return BENCH_EXIT_USAGE;
}

/* What a file that is not a regular one is, for messages. */
static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
           : S_ISSOCK(m) ? "a socket" : "not a file";
}

int bench_open_input(const char *path, int allow_pipe, char *err, size_t len)
{
    /* O_NONBLOCK: opening a FIFO with no writer, or a device, must not
     * wait; what it is is judged by fstat before anything is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        bench_seterr(err, len, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        bench_seterr(err, len, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !(allow_pipe && S_ISFIFO(st.st_mode))) {
        bench_seterr(err, len, "%s, not a regular file", kind_of(st.st_mode));
        close(fd);
        return -1;
    }
    const int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        bench_seterr(err, len, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int bench_read_file(const char *flag, const char *path, size_t max, char **out, size_t *len)
{
    char why[128];
    int fd = bench_open_input(path, 0, why, sizeof why);
    struct stat st;
    if (fd < 0) {
        bench_error("%s %s: %s", flag, path, why);
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        bench_error("%s %s: %s", flag, path, strerror(errno));
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        bench_error("%s %s: over %zu bytes", flag, path, max);
        close(fd);
        return -1;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *b = malloc(cap);
    if (!b) {
        bench_error("%s %s: out of memory reading the file (%zu bytes)", flag, path, cap - 1);
        close(fd);
        return -1;
    }
    for (;;) {
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            bench_error("%s %s: %s", flag, path, strerror(errno));
            free(b);
            close(fd);
            return -1;
        }
        if (r == 0 || n + (size_t)r == cap - 1) {
            n += (size_t)r;
            break;
        }
        n += (size_t)r;
    }
    if (close(fd) != 0) {
        bench_error("%s %s: %s", flag, path, strerror(errno));
        free(b);
        return -1;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return 0;
}

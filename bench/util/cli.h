/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/cli.h - what every front end shares: one-line messages, and parsers
 * for the numbers users type (counts, sizes, durations) that reject what is
 * not a number, out of range, or absurd, naming the flag.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "hsmbench: error: ..." / "hsmbench: warning: ..." on stderr, one line. */
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A one-line reason into err (len bytes, cut to fit) for the caller to
 * print or pass on; nothing when err is NULL or len 0. */
void bench_seterr(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void bench_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hsmbench: ..." on stderr, one line: a remark that is neither an error
 * nor a warning ("--vus is k6's spelling of --threads"). */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Flush standard output and say whether every write to it got through.
 * 0 when it did; otherwise the reason (an errno value; EIO when the failed
 * write's own reason is gone), after one line "WHAT: cannot write to
 * standard output: REASON" (WHAT NULL: without it) -- none for EPIPE, a
 * reader gone ("| head"), which the caller maps to exit 130 (and which
 * sets the interruption flag, bench_signals_output_closed).  The stream's
 * error flag is cleared, so a later check reports only a later failure.
 */
int bench_stdout_check(const char *what);
/* fflush(f) where a failure is for the check above to report: when f is
 * stdout, the first failed flush's reason is kept for it (stdout is the
 * process's one standard output, so is its record), and EPIPE, its reader
 * gone, stops a run as an interruption does (bench_signals_output_closed:
 * the one way hsmbench learns that standard output is closed). */
void bench_flush(FILE *f);

/*
 * Parse a whole unsigned decimal in [min, max].  On failure prints
 * "FLAG: 'TEXT' is not ..." and returns -1.
 */
int bench_parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Parse a duration: "30" or "30s" (seconds), "500ms", "2m", "1h", "1.5s", and
 * k6's (Go's) compound forms "1m30s", "1h30m15s", "2m0.5s": parts of a
 * number and a unit (h, m, s, ms, us or µs, ns), units from largest to
 * smallest, each once.  Result in nanoseconds within [min_ns, max_ns]; -1
 * (one-line message printed) if not.
 */
int bench_parse_duration(const char *flag, const char *text, uint64_t min_ns, uint64_t max_ns,
                         uint64_t *out_ns);
/* The same parser, printing nothing: -1 with the reason, without a flag
 * ("'1m30' has a number without a unit; ..."), in why. */
int bench_duration_of(const char *text, uint64_t min_ns, uint64_t max_ns, uint64_t *out_ns, char *why,
                      size_t len);

/*
 * strtod for what users type: a decimal number with an optional sign, and
 * nothing strtod also takes (leading white space, hexadecimal "0x10",
 * "inf", "nan"): for those *end is text and the result 0, as for no number.
 */
double bench_strtod(const char *text, char **end);

/*
 * Parse a percentage: "2%", "2", "0.5 %", within [min, max] (in percent).
 * The value as a fraction (2% -> 0.02); -1 when it is not one, printing
 * "FLAG TEXT: a percentage from MIN% to MAX% (e.g. EXAMPLE)".
 */
int bench_parse_pct(const char *flag, const char *text, double min, double max, const char *example,
                    double *out_fraction);

/* Format a duration given in ns the way k6 does: "812µs", "4.21ms", "1.02s". */
const char *bench_fmt_ns(double ns, char *buf, unsigned len);
/* Format a byte count in binary units (1 KiB = 1024 B), sizes and rates
 * alike: "512 B", "8 KiB", "1.5 KiB", "3.1 MiB" (a rate: append "/s").
 * k6's own summary keeps k6's decimal units (rest/views/k6.c). */
const char *bench_fmt_bytes(double bytes, char *buf, unsigned len);

/* True when bench_out_write (bench/util/outfile.h) can write the path: an
 * existing device or FIFO that is writable (/dev/null), or a regular file or
 * new name in a writable directory, a symbolic link judged by what it
 * points at; never a directory or a link to nothing.  The one check every
 * output flag gets before a run; on false prints "FLAG PATH: why".
 * A FIFO must have a reader now; its fd is kept open (until exit) so that
 * reader does not see end of file before the results. */
int bench_path_writable(const char *flag, const char *path);

/*
 * getopt_long, strictly, for every command: a long option is known only by
 * its whole name ("--time" is not "--timeout": abbreviations are unknown
 * options), and an option that takes a value may be given once, unless
 * st->repeat marks it repeatable (the option table's BENCH_ARG_REPEATED:
 * --threshold, --header/-H, --summary, --find-capacity, --uri).  A refused
 * option is one line ("--time: unknown option; did you
 * mean --timeout? (see: hsmbench rest http --help)",
 * "--json given twice (see: hsmbench run --help)") and the return value
 * BENCH_OPT_REFUSED, which bench_option_error turns into exit status 2
 * without a second message.  Otherwise it returns what getopt_long does.
 */
#define BENCH_OPT_REFUSED (-2)
#define BENCH_OPT_MAX 256
/*
 * With a hint function, an unknown option is refused here too (one line,
 * BENCH_OPT_REFUSED), the hint's text after "unknown option": word is the
 * option as given ("--thread", "-l"), n its length without any "=value";
 * the hint writes "; did you mean --threads?" into buf, or nothing.
 */
typedef void (*bench_getopt_hint_fn)(const void *arg, const char *word, size_t n, char *buf,
                                     size_t len);
typedef struct bench_getopt {
    const char *cmd;                    /* "run", "rest http": named in messages */
    unsigned char seen[BENCH_OPT_MAX];  /* longopts entries given so far */
    unsigned char repeat[BENCH_OPT_MAX]; /* longopts entries that may be given again */
    /* 1 + the entry another entry, or a short letter without one, counts
     * as (an old spelling: its option's), so the two are given once; 0: none. */
    unsigned short same[BENCH_OPT_MAX];
    unsigned short same_short[128];
    bench_getopt_hint_fn hint;          /* NULL: '?' returned, as getopt_long does */
    const void *hint_arg;
} bench_getopt;
int bench_getopt_long(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      bench_getopt *st);

/*
 * The one-line error for an option getopt_long refused (c is ':' for a
 * missing value, anything else for an unknown option), naming the option
 * ("-x", "--bogus") and the command's help; returns BENCH_EXIT_USAGE.
 * For BENCH_OPT_REFUSED (already reported) it only returns the status.
 */
int bench_option_error(char **argv, int c, const char *cmd);

/* Open an input file for reading without ever blocking in open: a FIFO
 * (unless allow_pipe, for secrets given as <(...)), directory, device or
 * socket is refused; the descriptor is blocking again once judged.  The fd,
 * or -1 with why in err ("a FIFO, not a regular file", strerror). */
int bench_open_input(const char *path, int allow_pipe, char *err, size_t len);

/* A regular file's contents, at most max bytes, NUL-terminated (malloc'd,
 * *len without the NUL).  0, or -1 with one line printed naming flag. */
int bench_read_file(const char *flag, const char *path, size_t max, char **out, size_t *len);

#endif

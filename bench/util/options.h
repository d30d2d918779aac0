/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/options.h - the one option table.
 *
 * Every command declares its options once, as groups of bench_option rows
 * (long name, short letter, argument, metavar, help text, code).  From the
 * command's list of groups the getopt table and short-option string are
 * generated at run time (bench_opts_begin), its --help option listing is
 * printed (bench_opts_help), and the table is dumped for the checks that
 * compare it with the man pages and the bash completion (bench_opts_dump).
 * A command's parse loop only maps the codes bench_opts_next returns to
 * its fields.  Parsing goes through bench_getopt_long (cli.h): whole names
 * only, a valued option once unless repeatable, one-line refusals.
 */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

#include "bench/util/cli.h"

/* REPEATED: a value required, and the option may be given again (each adds one). */
typedef enum { BENCH_ARG_NONE, BENCH_ARG_REQUIRED, BENCH_ARG_OPTIONAL, BENCH_ARG_REPEATED } bench_arg_kind;

typedef struct bench_option {
    const char    *name;      /* long name without "--" */
    int            short_name; /* 'h', 'v', 'H', 'o', or 0; then code is the same letter */
    bench_arg_kind arg;
    const char    *metavar;   /* "N[,N...]" as --help shows it ("=sample:N" when optional) */
    int            code;      /* what bench_opts_next returns for it */
    /*
     * The --help text: lines separated by '\n', the first beside the flag,
     * the others under it; a leading '\n' puts the whole text under it.
     * NULL: the option is listed on the line of the row before it, whose
     * `left` names it too ("--slot ID | --token LABEL | --uri PKCS11-URI").
     */
    const char    *help;
    const char    *left;      /* the flag column, when not "--name METAVAR" */
} bench_option;

/*
 * Old spellings: another tool's name for an option (k6's --vus, the SDKMS
 * bench's --threadcount, pkpspeed's -p), entries of the command's table in
 * groups of their own (BENCH_OPT_SPELLINGS).  --help lists none of them;
 * the dump (bench_opts_dump) and docs/migrating.md list every one.
 *   SAME     taken as option `to` (its long name), the value as given, and
 *            said once on stderr: "--vus is k6's spelling of --threads";
 *            `other`: the option a value that is not a whole number means
 *            instead (the SDKMS bench's --keysize NistP384 is --curve);
 *            arg REPEATED: it may be given again, each time returned as
 *            `to` with its value, as k6 adds one --stage a flag (the
 *            command adds them up); `to` itself is then refused, and
 *            there is one such spelling a command
 *   VALUE    a value of option `to` (name NULL): `value` taken as `to_value`
 *            ("--op encryption" as "--op encrypt"), said once
 *   IGNORED  taken, its value dropped, said once with `note` (pkpspeed's
 *            -s USER: PKCS#11 logs in without a user name)
 *   REFUSED  no one option means the same: still an unknown option, whose
 *            error adds `note` ("did you mean --json FILE ...?"); with
 *            `value`, a value of option `to` that starts so ("--out json=")
 * A note names hsmbench's options only, each an option of the command
 * (bench_opts_begin checks), so the dump can list what a REFUSED one names.
 * The old tool takes its value as `arg` says (NONE or REQUIRED, or REPEATED).
 */
typedef enum { BENCH_OLD_SAME, BENCH_OLD_VALUE, BENCH_OLD_IGNORED, BENCH_OLD_REFUSED } bench_old_kind;

typedef struct bench_old_spelling {
    const char    *tool;        /* "k6", "SDKMS bench", "pkpspeed", "JMeter" */
    bench_old_kind kind;
    const char    *name;        /* the old long name without "--", or NULL */
    int            short_name;  /* the old short letter, or 0 */
    bench_arg_kind arg;
    const char    *to;          /* hsmbench's option, its long name */
    const char    *value;       /* VALUE: the old value; REFUSED: the start of one */
    const char    *to_value;    /* VALUE: hsmbench's value */
    const char    *other;       /* SAME: a long name, for a value not a whole number */
    const char    *note;        /* SAME: a remark or NULL; IGNORED: why; REFUSED: instead */
} bench_old_spelling;

/* Options shown under one heading ("Load:"); note is text printed after them. */
typedef struct bench_opt_group {
    const char         *title;   /* NULL: listed under the previous heading */
    const bench_option *opts;
    size_t              n;
    const char         *note;    /* NULL or lines ending in '\n' */
    int                 writes;  /* its FILE options name files the command writes */
    const bench_old_spelling *old;  /* BENCH_OPT_SPELLINGS: old spellings, no option */
    size_t              nold;
} bench_opt_group;

/*
 * Files: a row whose metavar ends in "FILE" ("FILE", "jsonl=FILE": the path
 * after the '=') names a file.  The command reads it, unless its group was
 * declared with BENCH_OPT_OUTPUTS: then the command writes it.  The parser
 * records each such option as it is taken, and bench_opts_check_files
 * refuses an output that is another output or an input (the class of
 * `--pin-file P --json P`, which destroyed the PIN file).
 */
#define BENCH_OPT_GROUP(title, rows, note) { title, rows, sizeof rows / sizeof rows[0], note, 0, NULL, 0 }
#define BENCH_OPT_OUTPUTS(title, rows, note) { title, rows, sizeof rows / sizeof rows[0], note, 1, NULL, 0 }
/* A group of no option: lines of text in the listing. */
#define BENCH_OPT_NOTE(text) { NULL, NULL, 0, text, 0, NULL, 0 }
/* A group of old spellings (bench_old_spelling rows): nothing in the listing. */
#define BENCH_OPT_SPELLINGS(rows) { NULL, NULL, 0, NULL, 0, rows, sizeof rows / sizeof rows[0] }

/*
 * Secrets: a row whose metavar is PIN, SO-PIN, TOKEN, KEY or SECRET takes a
 * secret on the command line.  The parser moves its value out of argv as it
 * takes it (bench_secret_keep: /proc/PID/cmdline shows '*'s from then on)
 * and hands the command the copy in optarg; the command warns.  A value
 * that holds a secret in part (a PKCS#11 URI's pin-value, a secret
 * header's value) is its command's to take out (bench_secret_keep too).
 */

/* A command: its name in messages, and its groups in --help order. */
typedef struct bench_cmd_opts {
    const char                   *cmd;        /* "run", "rest http" */
    int                           in_order;   /* 1: stop at the first non-option ("+") */
    const bench_opt_group *const *groups;     /* NULL-terminated */
} bench_cmd_opts;

/* -h, --help, "this help": the last group of every command (code 'h'). */
extern const bench_opt_group bench_help_group;

/* A file an option (or an operand) names: "--json" and its path. */
typedef struct bench_opt_file {
    const char *flag;     /* "--json", or what an operand is ("results file") */
    const char *path;     /* points into argv */
    int         writes;   /* an output */
} bench_opt_file;

#define BENCH_OPT_FILES 32
#define BENCH_OLD_MAX   64
/* What getopt returns for the command's old spelling k that has no short letter. */
#define BENCH_OPT_OLD_CODE 0x4000000

/* The generated getopt table, and the parse state. */
typedef struct bench_opts_parser {
    const bench_cmd_opts *cmd;
    struct option         longopts[BENCH_OPT_MAX];
    char                  shortopts[64];
    bench_getopt          gs;
    bench_opt_file        files[BENCH_OPT_FILES];
    size_t                nfiles;
    char                  flags[BENCH_OPT_FILES][48];   /* "--name" of each file option */
    const bench_old_spelling *old[BENCH_OLD_MAX];       /* the command's old spellings */
    size_t                nold;
    unsigned char         old_short[128];    /* 1 + the old spelling of a short letter, or 0 */
    unsigned char         noted[BENCH_OLD_MAX];          /* said once already */
} bench_opts_parser;

/* Build the tables (an option named twice is taken once) and reset getopt.
 * -1 with a message if the table does not fit; a programming error. */
int  bench_opts_begin(bench_opts_parser *p, const bench_cmd_opts *cmd);
/* After bench_opts_begin: option `name` may be given again, its command
 * judging the repeats (rest sdkms's --mode, a load mode and the old
 * spelling of the cipher mode, each once).  -1 when it is not in the table. */
int  bench_opts_again(bench_opts_parser *p, const char *name);
/* The next option's code (optarg set), -1 at the end, or what
 * bench_option_error takes ('?', ':', BENCH_OPT_REFUSED). */
int  bench_opts_next(bench_opts_parser *p, int argc, char **argv);
/* Record a file the command reads or writes that no option names (an
 * operand: report's and merge's results files).  -1 (printed) when more
 * than BENCH_OPT_FILES files were named. */
int  bench_opts_add_file(bench_opts_parser *p, const char *what, const char *path, int writes);
/* After parsing: no output is the same file as another output or an input
 * (same device and inode, links followed; for an output not yet there, the
 * same directory and name).  Standard output ("-") and devices, FIFOs and
 * sockets are left out: /dev/null twice is fine.  -1 with one line naming
 * both options when one is. */
int  bench_opts_check_files(const bench_opts_parser *p);
/* hsmbench's value for an old tool's value of option `name` (the SDKMS
 * bench's "encryption" of --op: "encrypt"), or NULL: for a command's
 * messages about a word that is no option ("rest sdkms encryption"). */
const char *bench_opts_old_value(const bench_cmd_opts *cmd, const char *name, const char *value);
/* The option listing of --help, group by group. */
void bench_opts_help(const bench_cmd_opts *cmd, FILE *f);
/* The same, calling more(arg, code, f) after each option's text: where a
 * command adds lines that depend on the run (the side metrics a workload
 * section offers under --threshold). */
typedef void (*bench_opts_more_fn)(const void *arg, int code, FILE *f);
void bench_opts_help_more(const bench_cmd_opts *cmd, FILE *f, bench_opts_more_fn more,
                          const void *arg);
/* A command's --help: head, the option listing (more's lines added, as
 * bench_opts_help_more), tail (NULL: none). */
typedef struct bench_cmd_help {
    const char        *head, *tail;
    bench_opts_more_fn more;         /* NULL: none */
    const void        *more_arg;
} bench_cmd_help;

/*
 * The loop every command's option parsing shares, bench_opts_begin
 * included: each option's code and value go to take(opts, code, arg),
 * which stores the value and returns 1, 0 for an option not the command's
 * (then bench_option_error's one line), or -1 for a bad value (printed);
 * -h/--help prints help on standard output and stops.  0 with every option
 * taken (optind at the first operand), -1 after --help, BENCH_EXIT_USAGE
 * (2) otherwise.  What the options mean together is the command's to check.
 */
typedef int (*bench_opts_take_fn)(void *opts, int code, char *arg);
int  bench_opts_take_all(bench_opts_parser *p, const bench_cmd_opts *cmd, const bench_cmd_help *help,
                         int argc, char **argv, bench_opts_take_fn take, void *opts);
/* One line per option, in table order, each name once: "--name ARG" with
 * ARG one of none, required, optional, repeated, then " -x" for a short letter.
 * Then one line per old spelling (a long and a short one each its own),
 * its fields separated by tabs: "old", the tool, the spelling ("--vus",
 * "-u", "--op encryption", "--out json="), its kind (same, value, ignored,
 * refused), and hsmbench's spelling: "--threads", "--key-size --curve",
 * "--op encrypt", "-" (ignored), the options a refusal names. */
void bench_opts_dump(const bench_cmd_opts *cmd, FILE *f);

#endif

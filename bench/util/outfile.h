/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/outfile.h - writing results files without damaging what a path
 * names: the one place every output (--json, --csv, --html, report, merge
 * -o) is checked before the run and written after it.
 *
 * The rules, for a path P:
 *  - P is a symbolic link: it is followed, and the rules apply to what it
 *    points at; the link itself is never replaced.  A link to nothing is
 *    refused (hsmbench does not create files where a link points).
 *  - P (or its target) is an existing regular file, or does not exist: the
 *    document goes to a temporary file created exclusively (O_CREAT|O_EXCL|
 *    O_NOFOLLOW, a random name) in the same directory, then renamed over
 *    P, so a reader sees the old file or the whole new one, and a link
 *    planted at a guessable name is never followed.
 *  - P is an existing device, FIFO or socket (/dev/null, /dev/stdout, a
 *    pipe): it is opened and written in place, never replaced; a FIFO no
 *    one reads is refused by bench_path_writable before the run, and
 *    never waited for when written.
 *  - P is a directory: refused.
 */
#ifndef BENCH_OUTFILE_H
#define BENCH_OUTFILE_H

#include <stdio.h>

/* Writes a whole document to f; 0, or -1 on a write error. */
typedef int (*bench_out_writer)(FILE *f, const void *ctx);

/*
 * Write PATH as above through write(f, ctx).  flag names the option in the
 * one-line error ("--json out.json: Permission denied").  Returns 0 or -1
 * (message printed; no temporary file left behind).
 */
int bench_out_write(const char *flag, const char *path, bench_out_writer write, const void *ctx);
/*
 * A stream written while the run goes (--out jsonl=FILE): PATH truncated
 * or made, or a FIFO or device opened in place; never waiting for a FIFO's
 * reader (refused with one line when it has none).  flag prefixes the
 * path in the message as given ("--out jsonl=").  NULL (printed) or the
 * stream.
 */
FILE *bench_out_open_stream(const char *flag, const char *path);

/*
 * What a path names, to tell two paths for one file apart from two files:
 * an existing regular file by device and inode (links followed); a path to
 * nothing yet by its directory's device and inode and its last name.
 * Devices, FIFOs and sockets are not identified (two of them may be one).
 */
typedef struct bench_file_id {
    unsigned long long dev, ino;
    char               name[256];    /* "" for an existing file */
} bench_file_id;

/* 0 and *id filled, or -1: no identity (standard output, a device, a
 * directory that cannot be read: other checks report those). */
int bench_file_id_of(const char *path, bench_file_id *id);
int bench_file_id_same(const bench_file_id *a, const bench_file_id *b);

#endif

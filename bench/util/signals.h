/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/signals.h - the stopping signals and a closed standard output
 * as a flag the sampler polls.
 *
 * A signal handler can only talk to the program through globals, so this
 * file owns the only ones the program has (the flag, the long call in
 * progress, the token keys made); everything else receives the flag's
 * address as a parameter.
 *
 *  - Standard output closed ("| head -1"), known from EPIPE on a write
 *    of hsmbench's own (bench_signals_output_closed), sets the flag to
 *    SIGPIPE and stops the run as an interruption does (keys destroyed,
 *    files written, exit 130).  The signal SIGPIPE itself is ignored: the
 *    process never dies of it, and one a module's client library raises
 *    writing to its dead server is that call's failure, not a stop.
 *  - SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM stop
 *    it alike.  The first sets the flag; when the main thread is in a long
 *    module call (bench_signals_waiting), it prints at once "hsmbench:
 *    stopping: waiting for C_GenerateKeyPair to return; Ctrl-C again to
 *    stop waiting, keys will then be listed for removal".
 *  - The second, in such a call, stops waiting: it lists the token keys
 *    noted so far (bench_signals_note_key) for removal and exits with 130
 *    at once, without clean-up.  Out of one, the program's waits are
 *    bounded (the join of the workers, the keys' destruction): the second
 *    adds BENCH_SIGNAL_AGAIN to the flag and they give up at once, the
 *    results are written and the keys left listed; a third exits at once.
 * The messages are written from the handler with write(2).
 */
#ifndef BENCH_SIGNALS_H
#define BENCH_SIGNALS_H

#include <signal.h>

/*
 * The flag: which signal arrived (0: none).  An atomic, not a volatile
 * sig_atomic_t, because threads read it too (a transfer's progress
 * callback abandons the request on Ctrl-C); a lock-free atomic may be
 * written from a signal handler.
 */
typedef _Atomic int bench_flag;

/* Added to the flag (the signal's number) by a second signal out of a
 * module call: bounded waits give up at once. */
#define BENCH_SIGNAL_AGAIN 0x10000

/* Install the handler (no SA_RESTART: blocking reads return EINTR) and
 * return the flag it sets. */
const bench_flag *bench_signals_install(void);
/* Standard output's reader is gone (a write of hsmbench's own to it
 * failed with EPIPE): the flag becomes SIGPIPE unless a signal set it. */
void bench_signals_output_closed(void);
/* Clear the flag (the menu does, after returning from an interrupted run). */
void bench_signals_clear(void);

/* Publish the long module call the main thread enters ("C_GenerateKeyPair",
 * "C_Login"), NULL when it returned; returns the
 * one published before, to restore.  The string must outlive its
 * publication (a literal). */
const char *bench_signals_waiting(const char *call);
/* The same for a wait that is not a module call ("the endpoint's answer to
 * the set-up request"): the first Ctrl-C says "stopping: waiting for ...;
 * Ctrl-C again to stop at once". */
const char *bench_signals_waiting_for(const char *what);

/* Note the label of a token object about to be made, for the second
 * Ctrl-C's list (at most 8 are kept, each cut to 200 bytes). */
void bench_signals_note_key(const char *label);

/* What stopped the run, for reasons: "SIGINT", "SIGTERM", "SIGHUP", ...,
 * "standard output closed" (BENCH_SIGNAL_AGAIN ignored). */
const char *bench_signal_what(int sig);

#endif

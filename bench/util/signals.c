/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/signals.c - see signals.h for why this is where the globals are. */
#include "bench/util/signals.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/exit.h"

static bench_flag interrupted;
static volatile sig_atomic_t stops;               /* stopping signals received since install */
static _Atomic(const char *) waiting;             /* the long call in progress, or NULL */
static atomic_int waiting_call;                   /* it is a module call (not another wait) */

/* Labels of token objects this run made, for the line the second Ctrl-C
 * prints: copied first, published by the count after, so the handler
 * never reads a half-written one. */
#define NOTED_MAX 8
#define NOTED_LEN 200
static char noted[NOTED_MAX][NOTED_LEN];
static atomic_int nnoted;

/* write(2) a string: all a handler may do.  The result is ignored on
 * purpose: there is nowhere to report a failure to write to stderr. */
static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* The list of token keys noted, for the line before an exit at once. */
static void say_keys(void)
{
    int n = atomic_load(&nnoted);
    if (n == 0) {
        say("; exiting without clean-up\n");
    } else {
        say("; token keys this run made, which may remain:");
        for (int i = 0; i < n && i < NOTED_MAX; i++) {
            say(" ");
            say(noted[i]);
        }
        say("; remove them with: hsmbench keys destroy --all\n");
    }
}

/*
 * SIGPIPE is not handled here but ignored (bench_signals_install): the
 * kernel raises it in whichever thread wrote to a pipe or socket whose
 * reader is gone, and that is as often a module's client library writing
 * to its dead server (Caml Crush's, inside C_Sign) as hsmbench writing to
 * a closed standard output.  Ignored, the write fails with EPIPE where it
 * was made: a module's call fails with the module's own code, and
 * hsmbench's own output reports EPIPE to bench_signals_output_closed.
 * The first stopping signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2, SIGALRM) asks for a clean stop, and when the program waits for
 * a module call that has not returned, says so at once.  The second, while
 * that call still has not returned, stops waiting: it lists the token
 * objects the run made, which could not be destroyed, and ends the process
 * with 130.  Otherwise the program is in waits that are bounded (the join
 * of the workers, the destruction of the keys): the second sets
 * BENCH_SIGNAL_AGAIN, and they give up at once, so that the results are
 * still written and the keys left listed; a third ends the process.
 */
static void on_signal(int sig)
{
    const char *call = atomic_load(&waiting);
    stops = stops + 1;
    if (stops == 1) {
        int prev = atomic_load(&interrupted);
        if (prev == 0 || prev == SIGPIPE)
            atomic_store(&interrupted, sig);
        if (call) {
            say("hsmbench: stopping: waiting for ");
            say(call);
            say(atomic_load(&waiting_call)
                    ? " to return; Ctrl-C again to stop waiting, keys will then be listed for removal\n"
                    : "; Ctrl-C again to stop at once\n");
        }
        return;
    }
    if (stops == 2 && !call) {
        atomic_fetch_or(&interrupted, BENCH_SIGNAL_AGAIN);
        say("hsmbench: giving up waiting: the results follow, keys not destroyed are listed; "
            "a third signal exits at once\n");
        return;
    }
    say(call ? "hsmbench: stopped waiting for " : "hsmbench: stopped at once");
    if (call)
        say(call);
    say_keys();
    _exit(BENCH_EXIT_INTERRUPTED);
}

/* The signals that stop a run, SIGPIPE apart. */
static const int stopping[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM };

const bench_flag *bench_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    for (size_t i = 0; i < sizeof stopping / sizeof stopping[0]; i++)
        (void)sigaction(stopping[i], &sa, NULL);   /* fails only for a bad number */
    sa.sa_handler = SIG_IGN;
    (void)sigaction(SIGPIPE, &sa, NULL);
    return &interrupted;
}

void bench_signals_output_closed(void)
{
    int none = 0;
    atomic_compare_exchange_strong(&interrupted, &none, SIGPIPE);
}

void bench_signals_clear(void)
{
    atomic_store(&interrupted, 0);
    stops = 0;
    (void)bench_signals_install();
}

const char *bench_signals_waiting(const char *call)
{
    atomic_store(&waiting_call, 1);
    return atomic_exchange(&waiting, call);
}

const char *bench_signals_waiting_for(const char *what)
{
    atomic_store(&waiting_call, 0);
    return atomic_exchange(&waiting, what);
}

void bench_signals_note_key(const char *label)
{
    int n = atomic_load(&nnoted);
    if (!label || n >= NOTED_MAX)
        return;
    for (int i = 0; i < n; i++)
        if (strncmp(noted[i], label, NOTED_LEN - 1) == 0)
            return;
    size_t len = strlen(label);
    if (len >= NOTED_LEN) {
        memcpy(noted[n], label, NOTED_LEN - 4);
        memcpy(noted[n] + NOTED_LEN - 4, "...", 4);
    } else {
        memcpy(noted[n], label, len + 1);
    }
    atomic_store(&nnoted, n + 1);
}

const char *bench_signal_what(int sig)
{
    switch (sig & ~BENCH_SIGNAL_AGAIN) {
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGALRM: return "SIGALRM";
    case SIGPIPE: return "standard output closed";
    default:      return "SIGINT";
    }
}

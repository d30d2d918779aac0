/*
 * bench/signals.h - SIGINT/SIGTERM as a flag the sampler polls.
 *
 * A signal handler can only talk to the program through a global, so this
 * file owns the one global the program has; everything else receives the
 * flag's address as a parameter.
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

/* Install the handler (no SA_RESTART: blocking reads return EINTR) and
 * return the flag it sets. */
const bench_flag *bench_signals_install(void);
/* Clear the flag (the menu does, after returning from an interrupted run). */
void bench_signals_clear(void);

#endif

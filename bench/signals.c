/* bench/signals.c - see signals.h for why this is the program's one global. */
#include "bench/signals.h"

#include <string.h>

static bench_flag interrupted;

/* The first signal asks for a clean stop; if a module call never returns,
 * the second one restores the default action, so a third ends the process. */
static void on_signal(int sig)
{
    if (interrupted) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    }
    interrupted = sig;
}

const bench_flag *bench_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &interrupted;
}

void bench_signals_clear(void)
{
    interrupted = 0;
    (void)bench_signals_install();
}

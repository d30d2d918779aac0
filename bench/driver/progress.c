/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/progress.c - the progress bar (see progress.h). */
#include "bench/driver/progress.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BAR_MIN 10
#define BAR_MAX 40

static int columns(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

void bench_progress_begin(bench_progress *p, FILE *f, double total_s, int enabled)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->total_s = total_s > 0 ? total_s : 0;
    /* A known short run needs no bar; an unknown one gets it once it is long. */
    p->active = enabled && f && isatty(fileno(f)) &&
                (p->total_s == 0 || p->total_s >= BENCH_PROGRESS_MIN_S);
    if (p->active)
        p->width = columns(f);
}

/* "12s", "4m05s", "1h02m" */
static void fmt_time(char *buf, size_t len, double s)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t < 60)
        snprintf(buf, len, "%lds", t);
    else if (t < 3600)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%ldh%02ldm", t / 3600, (t / 60) % 60);
}

void bench_progress_update(bench_progress *p, double elapsed_s, double ops_per_s)
{
    if (!p->active || (p->total_s == 0 && elapsed_s < BENCH_PROGRESS_MIN_S))
        return;
    char el[32], tot[32], text[128];
    fmt_time(el, sizeof el, elapsed_s);
    if (ops_per_s < 0)
        ops_per_s = 0;
    if (p->total_s == 0) {
        snprintf(text, sizeof text, "  %s  %.0f ops/s", el, ops_per_s);
        fprintf(p->f, "\r%s\033[K", text);
    } else {
        double frac = elapsed_s / p->total_s;
        frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
        fmt_time(tot, sizeof tot, p->total_s);
        snprintf(text, sizeof text, "  %s/%s  %3.0f%%  %.0f ops/s", el, tot, frac * 100, ops_per_s);
        int bar = p->width - (int)strlen(text) - 3;
        bar = bar > BAR_MAX ? BAR_MAX : bar;
        if (bar < BAR_MIN) {
            fprintf(p->f, "\r%s\033[K", text);
        } else {
            int full = (int)(frac * bar + 0.5);
            fputs("\r[", p->f);
            for (int i = 0; i < bar; i++)
                fputs(i < full ? "\xe2\x96\x88" : "\xe2\x96\x91", p->f);   /* █ ░ */
            fprintf(p->f, "]%s\033[K", text);
        }
    }
    fflush(p->f);
    p->shown = 1;
}

void bench_progress_clear(bench_progress *p)
{
    if (!p->active || !p->shown)
        return;
    fputs("\r\033[K", p->f);
    fflush(p->f);
    p->shown = 0;
}

void bench_progress_end(bench_progress *p)
{
    bench_progress_clear(p);
    p->active = 0;
}

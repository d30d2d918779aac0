/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/rundesc.c - the run description's load fields. */
#include "bench/driver/rundesc.h"

void bench_run_desc_load(bench_run_desc *d, const bench_load *l, const char *stages_text,
                         const char *engine, unsigned slots)
{
    const int nb = l->mode == BENCH_MODE_NONBLOCKING;
    d->mode = nb ? "nonblocking" : "blocking";
    d->threads = l->threads;
    d->warmup_s = (double)l->warmup_ns / 1e9;
    d->duration_s = (double)l->duration_ns / 1e9;
    d->iterations = l->iterations;
    d->per_thread = l->iterations && l->per_thread;
    d->ramp_up_s = nb ? 0 : (double)l->ramp_up_ns / 1e9;
    d->rate = nb ? l->rate : 0;
    d->inflight = nb ? l->inflight : 0;
    d->stages = l->stages ? stages_text : NULL;
    d->think_s = (double)l->think_ns / 1e9;
    d->engine = nb ? engine : NULL;
    d->slots = nb ? slots : 0;
}

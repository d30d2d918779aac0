/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/sweep.c - a load's sweep over thread counts and data sizes (sweep.h). */
#include "bench/driver/sweep.h"

/* Interrupted, or a worker stuck: no further run. */
static int stopped(const bench_session *s)
{
    return s->interrupted || s->stuck || *s->interrupt;
}

void bench_sweep_run(bench_session *s, const bench_load_opts *lo, bench_load *load, size_t ndata,
                     unsigned repeat, bench_sweep_point point, void *arg)
{
    const unsigned reps = repeat ? repeat : 1;
    s->repeat_of = repeat;
    for (size_t ti = 0; ti < lo->nthreads && !stopped(s); ti++)
        for (size_t di = 0; di < ndata && !stopped(s); di++) {
            load->threads = lo->threads_list[ti];
            for (unsigned k = 1; k <= reps && !stopped(s); k++) {
                s->repeat_run = k;
                point(arg, di);
                if (!bench_session_last_measured(s))
                    break;
            }
        }
}

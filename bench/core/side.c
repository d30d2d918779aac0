/* SPDX-License-Identifier: Apache-2.0 */
/* bench/core/side.c - per-worker side metrics, merged after the run. */
#include "bench/core/side.h"

#include <stdlib.h>
#include <string.h>

int bench_side_init(bench_side *s, const bench_side_spec *spec)
{
    memset(s, 0, sizeof *s);
    if (!spec || (!spec->nhist && !spec->ncount))
        return 0;
    s->nhist = spec->nhist;
    s->ncount = spec->ncount;
    s->hist = calloc(spec->nhist ? spec->nhist : 1, sizeof *s->hist);
    s->count = calloc(spec->ncount ? spec->ncount : 1, sizeof *s->count);
    if (!s->hist || !s->count) {
        bench_side_free(s);
        return -1;
    }
    return 0;
}

void bench_side_free(bench_side *s)
{
    for (unsigned i = 0; s->hist && i < s->nhist; i++)
        bench_hist_free(s->hist[i]);
    free(s->hist);
    free(s->count);
    memset(s, 0, sizeof *s);
}

int bench_side_make(bench_side *s, unsigned i)
{
    if (i >= s->nhist)
        return -1;
    if (!s->hist[i] && !(s->hist[i] = bench_hist_new())) {
        s->lost = 1;
        return -1;
    }
    return 0;
}

int bench_side_merge(bench_side *into, const bench_side *from)
{
    if (into->nhist != from->nhist || into->ncount != from->ncount)
        return -1;
    for (unsigned i = 0; i < from->nhist; i++) {
        if (!from->hist[i])
            continue;
        if (!into->hist[i] && !(into->hist[i] = bench_hist_new()))
            return -1;
        bench_hist_add(into->hist[i], from->hist[i]);
    }
    for (unsigned i = 0; i < from->ncount; i++)
        into->count[i] += from->count[i];
    into->lost |= from->lost;
    return 0;
}

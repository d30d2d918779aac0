/* SPDX-License-Identifier: Apache-2.0 */
/* bench/core/stages.c - k6-style ramps. */
#include "bench/core/stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"

int bench_stages_parse(const char *flag, const char *text, double max_target, bench_stages *out)
{
    char *copy = strdup(text ? text : ""), *save = NULL;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (!copy) {
        bench_error("out of memory");
        return -1;
    }
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (!colon) {
            bench_error("%s %s: '%s' is not DURATION:TARGET (e.g. 5s:70,30s:70,5s:0)", flag, text, item);
            rc = -1;
            break;
        }
        *colon = 0;
        if (out->n == BENCH_STAGES_MAX) {
            bench_error("%s: at most %d stages", flag, BENCH_STAGES_MAX);
            rc = -1;
            break;
        }
        bench_stage *s = &out->s[out->n];
        if (bench_parse_duration(flag, item, 1000000ULL, 7ULL * 24 * 3600 * 1000000000ULL,
                                 &s->duration_ns) != 0) {
            rc = -1;
            break;
        }
        char *end = NULL;
        double v = bench_strtod(colon + 1, &end);
        if (end == colon + 1 || *end || !(v >= 0) || v > max_target) {
            bench_error("%s %s: target '%s' must be a number from 0 to %g", flag, text, colon + 1,
                        max_target);
            rc = -1;
            break;
        }
        s->target = v;
        out->n++;
    }
    if (rc == 0 && out->n == 0) {
        bench_error("%s: no stages given (e.g. 5s:70,30s:70,5s:0)", flag);
        rc = -1;
    }
    free(copy);
    return rc;
}

uint64_t bench_stages_total_ns(const bench_stages *st)
{
    uint64_t t = 0;
    for (size_t i = 0; i < st->n; i++)
        t += st->s[i].duration_ns;
    return t;
}

double bench_stages_at(const bench_stages *st, uint64_t t_ns)
{
    double from = 0;
    for (size_t i = 0; i < st->n; i++) {
        const bench_stage *s = &st->s[i];
        if (t_ns < s->duration_ns)
            return from + (s->target - from) * ((double)t_ns / (double)s->duration_ns);
        t_ns -= s->duration_ns;
        from = s->target;
    }
    return st->n ? st->s[st->n - 1].target : 0;
}

double bench_stages_peak(const bench_stages *st)
{
    double peak = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->s[i].target > peak)
            peak = st->s[i].target;
    return peak;
}

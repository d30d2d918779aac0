/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_parsers.c - the parsers of what users type: durations,
 * counts, --stages profiles (and what is computed from them), thresholds,
 * the load flags with their rules (--rate, --inflight, --think ...), and
 * rest http's --expect-status, --expect-json and --header checks.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/driver/loadopts.h"
#include "bench/core/stages.h"
#include "bench/results/threshold.h"
#include "rest/http_any.h"
#include "rest/views/views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *s = fuzz_text(data + 1, size - 1);
    if (!s)
        return 0;
    uint64_t v = 0;
    char err[256];
    switch (data[0] % 6) {
    case 0:
        (void)bench_parse_duration("--d", s, 0, UINT64_MAX, &v);
        (void)bench_parse_duration("--d", s, 1000, 3600ULL * 1000000000ULL, &v);
        if (bench_parse_u64("--n", s, 0, UINT64_MAX, &v) == 0) {
            /* Taken only as the number it spells: never clamped (issue 23). */
            char back[24];
            const char *digits = s + (*s == '+');
            while (digits[0] == '0' && digits[1])
                digits++;
            snprintf(back, sizeof back, "%llu", (unsigned long long)v);
            if (strcmp(back, digits) != 0)
                __builtin_trap();
        }
        break;
    case 1: {
        bench_stages st;
        if (bench_stages_parse("--stages", s, 1e7, &st) == 0) {
            uint64_t total = bench_stages_total_ns(&st);
            double peak = bench_stages_peak(&st);
            for (uint64_t t = 0; t <= total && t / 8 <= total; t += total / 8 + 1)
                if (bench_stages_at(&st, t) > peak + 1e-9)
                    abort();       /* no point of a profile is above its peak */
        }
        break;
    }
    case 2: {
        bench_threshold t;
        (void)bench_threshold_parse(s, rest_sections(), &t, err, sizeof err);
        break;
    }
    case 3: {
        /* One load flag per line: "CODE VALUE", then the rules between them. */
        static const int codes[] = { BENCH_OPT_THREADS, BENCH_OPT_DURATION, BENCH_OPT_ITERATIONS,
                                     BENCH_OPT_ITER_THREAD, BENCH_OPT_WARMUP, BENCH_OPT_MODE,
                                     BENCH_OPT_RATE, BENCH_OPT_INFLIGHT, BENCH_OPT_STAGES,
                                     BENCH_OPT_THINK };
        bench_load_opts o;
        bench_load_opts_init(&o);
        char *save = NULL;
        int ok = 1;
        for (char *line = strtok_r(s, "\n", &save); line && ok; line = strtok_r(NULL, "\n", &save)) {
            int code = codes[(unsigned char)line[0] % (sizeof codes / sizeof codes[0])];
            ok = bench_load_opt(&o, code, line[1] ? line + 1 : "") >= 0;
        }
        if (ok)
            (void)bench_load_finish(&o, 10ULL * 1000000000ULL);
        break;
    }
    case 4: {
        rest_status_set set;
        (void)rest_status_set_parse(s, &set, err, sizeof err);
        rest_jpath p;
        if (rest_jpath_parse(s, &p, err, sizeof err) == 0)
            rest_jpath_free(&p);
        break;
    }
    default:
        (void)rest_header_check(s, err, sizeof err);
        (void)rest_method_check(s);
        break;
    }
    free(s);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/capanswer.h - the texts of a capacity search's answer, from
 * its "capacity" JSON object (bench/driver/capacity.h runs the search).
 */
#ifndef BENCH_CAPANSWER_H
#define BENCH_CAPANSWER_H

#include <stddef.h>
#include <jansson.h>

/* A search has at most this many objectives (--find-capacity, repeated). */
#define BENCH_CAP_MAX_OBJECTIVES 8
/* Steps past disputed boundaries, at most, before an unsettled answer. */
#define BENCH_CAP_MAX_EDGES 4

/* "p99 < 20 ms, errors < 0.1 %": the objectives as people read them. */
const char *bench_cap_objectives_text(const json_t *objectives, char *buf, size_t len);

/* The answer line from a "capacity" object: "capacity 3 720 ops/s at
 * p99 < 20 ms, 8 threads, -0 %/+1.9 % by repeated steps (3 720 to 3 790
 * ops/s); bracket 1.9 %", "capacity unsettled: ...", or "no rate met the
 * objectives: ...". */
const char *bench_cap_answer_text(const json_t *capacity, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/views/stats.h - the "http" object of a REST run's results, made once
 * from the side metrics the HTTP client recorded (rest/transport/side.h),
 * and the k6-style block of the run's summary, rendered from it.
 */
#ifndef REST_STATS_H
#define REST_STATS_H

#include <stdio.h>
#include <jansson.h>

#include "bench/core/pool.h"
#include "bench/results/model.h"
#include "rest/transport/side.h"

/* After the run, on its outcome (the merged recorder in o->side): the
 * "http" object, with k6's whole summary (rest/views/k6.h) in it, computed
 * once.  track_reauth: SDKMS runs count their re-authentications. */
struct rest_k6_ctx;
json_t *rest_stats_json(const bench_outcome *o, const struct rest_k6_ctx *k6, int track_reauth);
/* The k6-style block of a run's summary, rendered from its "http" object
 * and its model (the client's CPU). */
void rest_stats_print(FILE *f, const json_t *http, const bench_run_model *m);
#endif

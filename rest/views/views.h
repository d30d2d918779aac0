/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/views/views.h - the "http" section of a REST run's results (the
 * object rest_stats_json writes), as the results floor shows it
 * (bench/results/section.h): k6's HTTP metrics for thresholds
 * (http_req_duration:p95<200ms, http_req_failed<1%, http_reqs>1000), the
 * exact merge of several load generators' sections, and the HTML part of a
 * run: requests, failures and statuses, the table of k6's phases and two
 * charts (the phases stacked per statistic; requests by status).
 */
#ifndef REST_VIEWS_H
#define REST_VIEWS_H

#include "bench/results/section.h"

extern const bench_section rest_http_section;

/* The REST floor's sections, NULL-terminated: what the composition root
 * and the REST commands give to thresholds, merges and reports. */
const bench_section *const *rest_sections(void);

#endif

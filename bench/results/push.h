/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/push.h - --metrics-push: the exposition text sent to a
 * Prometheus Pushgateway (libcurl; http or https, credentials in the URL
 * taken as basic authentication).
 *
 * A generator's group is its run and index: PUT to
 *   URL/metrics/job/hsmbench/run_id@base64/R/generator@base64/G
 * (the values base64url-encoded, so a run id with a slash is one value),
 * which replaces the group's previous push whole: the Pushgateway keeps
 * the last figures after the generator ended, and a fleet's generators
 * never overwrite each other.  Nothing printed carries the URL's
 * credentials or query: messages name its identity (bench/util/url.h).
 */
#ifndef BENCH_PUSH_H
#define BENCH_PUSH_H

#include <stddef.h>

typedef struct bench_push bench_push;

/* Parse url (an http or https URL): 0 and *out, or -1 with one line
 * printed naming --metrics-push (the URL without its secrets). */
int bench_push_new(const char *url, bench_push **out);
/* The URL safe to print: no credentials, no query. */
const char *bench_push_identity(const bench_push *p);
/* PUT body as the group of run_id and generator: 0, or -1 with one line
 * in err (the identity, the status or the transport's error). */
int bench_push_put(bench_push *p, const char *run_id, const char *generator, const char *body,
                   char *err, size_t errlen);
void bench_push_free(bench_push *p);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/jtl.h - per-request results (--out jtl=FILE): a line a
 * measured request in JMeter's CSV results format (a JTL file), so that
 * JMeter's own tools read it (jmeter -g FILE -o DIR makes its dashboard).
 *
 * The columns are JMeter 5.x's default CSV set (BENCH_JTL_HEADER), quoted
 * as JMeter quotes them: a field holding a comma, a quote or a line break
 * is put in quotes, its quotes doubled.  What each column holds here is in
 * hsmbench-run(1) and docs/results-schema.md.
 *
 * Memory stays the same however long the run: each worker formats into
 * its own fixed buffer (the pool's bench_request_sink, called by the
 * worker that did the request) and writes whole lines to the file when it
 * fills, under one lock, and the driver writes what is left after the
 * join; so no line is torn or lost between threads, and an interrupted
 * run's file ends with whole lines.  A failed write stops the writing,
 * and bench_jtl_end says it once.
 */
#ifndef BENCH_JTL_H
#define BENCH_JTL_H

#include <stddef.h>
#include <stdint.h>

#include "bench/core/pool.h"

#define BENCH_JTL_HEADER                                                                          \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"            \
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n"

/* Each worker's buffer: the memory a run's lines take is this a thread. */
#define BENCH_JTL_BUF (64u * 1024u)

/*
 * One line of request r (its start at epoch_ms) under `label` (or r's
 * own), with its newline and a NUL after it, into buf: its length, or 0
 * when it does not fit in cap (nothing useful is then in buf).
 */
size_t bench_jtl_line(char *buf, size_t cap, const char *label, uint64_t epoch_ms, const bench_request *r);

typedef struct bench_jtl bench_jtl;

/* Make or truncate PATH (flag names it in messages: "--out jtl=") and
 * write the header; NULL (printed) when it cannot. */
bench_jtl *bench_jtl_open(const char *flag, const char *path);
/* Before a run of `workers` worker threads whose lines are labelled
 * `label` (kept, not copied): the sink to give the pool (bench_load.sink),
 * or NULL (printed) when out of memory or writing has failed. */
const bench_request_sink *bench_jtl_begin(bench_jtl *j, const char *label, unsigned workers);
/* After the join: write what the workers' buffers hold.  0, or -1 when a
 * write of this run or before failed (said once, naming the file and the
 * error). */
int bench_jtl_end(bench_jtl *j);
/* Close the file and free; NULL is fine. */
void bench_jtl_close(bench_jtl *j);

#endif

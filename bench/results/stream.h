/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/stream.h - the --out jsonl stream: one JSON line per second
 * of each run, written as the run goes, for other tools (a log shipper, a
 * live plot, jq).
 *
 * A line holds who measured (run_id, generator), what (test, threads,
 * mode), the phase (warmup or measured), the wall clock at the end of the
 * second (epoch_ms), and the second's figures exactly as the results file's
 * per_second element holds them: bench_model_second_of and
 * bench_model_second_json, the one per-second model.  Lines are flushed as
 * they are written.
 */
#ifndef BENCH_STREAM_H
#define BENCH_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "bench/core/pool.h"

/* The run a line belongs to. */
typedef struct bench_stream_run {
    const char *run_id, *generator;
    const char *test, *mode;
    unsigned    threads;
    int         open_loop, staged;   /* as bench_model_second_of takes them */
} bench_stream_run;

/* Write the line of sample s, ended at epoch_ms.  0, or -1 when it could
 * not be written (out of memory, a write error). */
int bench_stream_line(FILE *f, const bench_stream_run *r, const bench_sample *s, uint64_t epoch_ms);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/stream.c - the --out jsonl stream: a JSON line per second. */
#include "bench/results/stream.h"

#include <jansson.h>

#include "bench/results/jsondump.h"
#include "bench/results/model.h"

int bench_stream_line(FILE *f, const bench_stream_run *r, const bench_sample *s, uint64_t epoch_ms)
{
    bench_model_second x;
    bench_model_second_of(s, r->open_loop, r->staged, &x);
    json_t *line = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:I}", "type", "second", "run_id", r->run_id,
                             "generator", r->generator, "test", r->test, "threads", (int)r->threads, "mode",
                             r->mode, "phase", s->warmup ? "warmup" : "measured", "epoch_ms",
                             (json_int_t)epoch_ms);
    json_t *fig = bench_model_second_json(&x);
    int rc = line && fig && json_object_update(line, fig) == 0 ? 0 : -1;
    if (rc == 0 && (bench_json_dumpf(line, f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0 || fputc('\n', f) == EOF ||
                    fflush(f) != 0))
        rc = -1;
    json_decref(fig);
    json_decref(line);
    return rc;
}

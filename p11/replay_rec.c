/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_rec.c - the replay model of a recording of hsmbench's call
 * recorder: p11/trace.c's one pass over the file tells each operation and
 * each call outside one (p11_trace_read_ex), and the segmentation all
 * readers share (replay_seg.c) cuts them into transactions.  The recording
 * has exact times, the recorder's threads and the keys' sizes, and never
 * any data: nothing here can leak.
 */
#include "p11/replay_int.h"

#include "bench/util/cli.h"
#include "p11/trace.h"

static int on_event(void *ctx, const p11_trace_event *ev)
{
    const p11_replay_op op = {
        .op = ev->op, .fn = ev->fn, .pid = ev->pid, .thread = ev->thread, .session = ev->session,
        .mechanism = ev->mechanism, .key_bits = ev->key_bits, .in_len = ev->in_len,
        .out_len = ev->out_len, .start_ns = ev->start_ns, .end_ns = ev->end_ns, .rv = ev->rv,
    };
    return p11_replay_seg_add(ctx, &op);
}

int p11_replay_read_recording(const char *path, p11_replay_model *m, char *err, size_t errlen)
{
    p11_trace t;
    int rc = -1;
    p11_replay_seg *s = p11_replay_seg_new();
    if (!s) {
        bench_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (p11_trace_read_ex(path, &t, on_event, s, err, errlen) != 0)
        goto cleanup;
    m->source = P11_REPLAY_RECORDING;
    m->resolution_ns = 1;
    if (t.unfinished)
        p11_replay_limit(m, "calls that had not returned when the recording ended are left out");
    p11_trace_free(&t);
    rc = p11_replay_seg_finish(s, m, path, err, errlen);
cleanup:
    p11_replay_seg_free(s);
    return rc;
}

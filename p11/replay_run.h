/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/replay_run.h - a replay's run: the model's transactions (p11/replay.h)
 * as one workload of the timing core, on keys hsmbench makes for it.
 *
 * Every distinct step (a catalogue test with its parameters) is prepared
 * once, before the clock, with keys made for the run and destroyed after it
 * whatever happens (never the application's).  Each worker opens its own
 * state of every prepared step.  One operation of the core is one
 * transaction: do_one takes the next arrival by an atomic counter (arrival k
 * is model->arrivals[k % n]: the kinds in their recorded order) and runs its
 * kind's steps in order, each after its think time, stopping at the first
 * that fails, whose code the transaction fails with.  So the core's latency
 * is the transaction's, from when it fell due (open loop) to its last
 * call's return, think times included; each call's own latency is a side
 * metric per (kind, step), and the breakdown "transaction" splits the run
 * by kind.
 */
#ifndef P11_REPLAY_RUN_H
#define P11_REPLAY_RUN_H

#include <stdatomic.h>
#include <stdint.h>

#include "bench/core/pool.h"
#include "bench/core/workload.h"
#include "p11/replay.h"
#include "p11/runner.h"
#include "p11/tests.h"

/* Distinct steps (test and parameters) one model may prepare. */
#define P11_REPLAY_MAX_PREPARED 64

/* The prepared steps and the workload over them; workers only read it,
 * but for the arrival counter. */
typedef struct p11_replay_ctx {
    const p11_replay_model *m;
    unsigned            nprep;
    const p11_test_def *defs[P11_REPLAY_MAX_PREPARED];
    p11_test_params     params[P11_REPLAY_MAX_PREPARED];    /* resolved */
    const char         *labels[P11_REPLAY_MAX_PREPARED];    /* the tests' names */
    p11_test_ctx       *ctx[P11_REPLAY_MAX_PREPARED];       /* prepared */
    bench_workload      inner[P11_REPLAY_MAX_PREPARED];     /* each step's own workload */
    /* Per kind and step: which prepared step, and its side metric. */
    unsigned            prep_of[P11_REPLAY_MAX_KINDS][P11_REPLAY_MAX_STEPS];
    unsigned            side_of[P11_REPLAY_MAX_KINDS][P11_REPLAY_MAX_STEPS];
    bench_side_spec     side;     /* a distribution (latency) and a counter (failures) a step */
    const char         *kind_labels[P11_REPLAY_MAX_KINDS];
    double              weights[P11_REPLAY_MAX_KINDS];
    uint64_t            kind_bytes[P11_REPLAY_MAX_KINDS];
    bench_breakdown     by;       /* "transaction" */
    _Atomic uint64_t    next;     /* arrivals taken so far */
} p11_replay_ctx;

/*
 * The distinct steps of m into rc (defs, params unresolved as the model
 * has them: already resolved by its reader), prep_of, side_of and the
 * side spec: 0, or -1 with one line in err when the model has more
 * distinct steps than P11_REPLAY_MAX_PREPARED.
 */
int  p11_replay_plan(const p11_replay_model *m, p11_replay_ctx *rc, char *err, size_t errlen);

/*
 * One replay run through the runner, recorded as test "replay:<base name>"
 * with its "replay" object; keys are made for it and destroyed after it.
 * r->load is the load: a blocking one is the closed loop as it is; a
 * non-blocking one replays the arrivals at `speed` (the model's times
 * divided by it), one pass when r->load.duration_ns is 0 (the run ends
 * when its last transaction has, bounded by the pass's length, a tenth
 * and a second), looped every span / speed when a duration longer than
 * that is given, cut when shorter.
 */
void p11_replay_run(p11_runner *r, const p11_replay_model *m, double speed);

/* A step of --find-speed's search (bench_cap_step_fn): the replay at the
 * speed the step's rate is of the model's; arg is a p11_replay_step_arg. */
typedef struct p11_replay_step_arg {
    p11_runner             *r;
    const p11_replay_model *m;
} p11_replay_step_arg;
void p11_replay_cap_step(void *arg, const bench_load *load);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/runner.h - one catalogue test on an open token, from capability check
 * to clean-up, run through the run driver (bench/driver/session.h), which keeps
 * every run's JSON and closing-table row.  Shared by "hsmbench run" and the
 * interactive menu.
 */
#ifndef P11_RUNNER_H
#define P11_RUNNER_H

#include "bench/core/pool.h"
#include "bench/driver/session.h"
#include "p11/mix.h"
#include "p11/target.h"
#include "p11/tests.h"

typedef struct p11_runner {
    p11_target          *target;
    bench_session       *session;
    bench_load           load;
    bench_stages         stages;      /* load.stages points here when given */
    const char          *stages_text; /* as the user wrote it */
    /* Keys and input of the last test (on every token of the target), kept
     * for the next run when only the thread count changes (a sweep shares
     * its keys). */
    p11_test_set        *kept;
    const p11_test_def  *kept_def;
    p11_test_params      kept_params;
    p11_leftovers        left;        /* token objects that could not be destroyed */
    /* After a stuck worker: what it may still use, never freed (runner.c:
     * discard_bounded) */
    void                *stranded, *stranded_job;
    char                 why[240];    /* why the last preparation failed */
    char                 selection[4200]; /* --module M, for the commands it prints */
} p11_runner;

/* 0, or -1 when out of memory (printed). */
int  p11_runner_init(p11_runner *r, p11_target *t, bench_session *s, const bench_load *load,
                     const char *stages_text);
/* Check, prepare, run, report and clean up one test (params already resolved or not). */
void p11_runner_test(p11_runner *r, const p11_test_def *def, const p11_test_params *params);
/* One run of a --mix: every type checked and prepared, the run, every
 * type's keys destroyed after it (in every case); params[i] are type i's. */
void p11_runner_mix(p11_runner *r, const p11_mix *mix, const p11_test_params *params);
/*
 * Several tests in one run (a --mix's types, a replay's steps), in three
 * parts.  p11_runner_offered_all: does the token offer each of the n tests
 * (in[i] resolved into out[i])?  1 when it does; 0 after the run was
 * recorded as skipped (d, h), naming labels[i]; -1 on bad usage (printed).
 * p11_runner_prepare_all: each test's keys and input into ctx[i], before
 * the clock: 0, or -1 after what was made was destroyed and the run was
 * recorded as failed or interrupted.  p11_runner_run_prepared: the run of
 * w, then the contexts' keys destroyed whatever happened (only the keys,
 * owner kept, after a stuck worker), free_owner(owner) releasing ctx and
 * owner; returns bench_session_run's value.
 */
int p11_runner_offered_all(p11_runner *r, const bench_run_desc *d, const bench_run_hooks *h,
                           unsigned n, const p11_test_def *const *defs, const char *const *labels,
                           const p11_test_params *in, p11_test_params *out);
int p11_runner_prepare_all(p11_runner *r, const bench_run_desc *d, const bench_run_hooks *h,
                           unsigned n, const p11_test_def *const *defs, const char *const *labels,
                           const p11_test_params *p, p11_test_ctx **ctx);
int p11_runner_run_prepared(p11_runner *r, const bench_run_desc *d, const bench_workload *w,
                            const bench_run_hooks *h, p11_test_ctx *const *ctx, unsigned n,
                            void (*free_owner)(void *), void *owner);
/* One step of a capacity search (bench_cap_step_fn): the test at this
 * load, its keys kept between steps; arg is a p11_cap_step_arg. */
typedef struct p11_cap_step_arg {
    p11_runner            *r;
    const p11_test_def    *def;
    const p11_test_params *params;
} p11_cap_step_arg;
void p11_runner_cap_step(void *arg, const bench_load *load);
/* Destroy the keys kept for a next run (before the token is closed). */
void p11_runner_release(p11_runner *r);
/* List what could not be destroyed (stderr), then free everything. */
void p11_runner_free(p11_runner *r);
/* The clean-up of a command that opened a target, a session and a runner
 * (each when its flag says so): the runner freed (what stayed on the
 * token said last), the target closed, the session freed. */
void p11_runner_teardown(p11_runner *r, int runner, p11_target *t, int opened, bench_session *s,
                         int session);

#endif

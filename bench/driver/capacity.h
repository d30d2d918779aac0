/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/driver/capacity.h - capacity under an objective: the highest open-loop
 * rate at which every objective holds (--find-capacity 'p99<20ms').
 *
 * Three parts:
 *
 *   the flags   bench_cap_opt / bench_cap_finish: --find-capacity EXPR
 *               (repeatable; the threshold syntax, upper bounds on latency
 *               or errors), --step, --precision, --max-steps; shared by
 *               run and rest ekm|sdkms|http, like loadopts.h
 *   the search  bench_capsearch: a pure state machine that says which rate
 *               to try next from the verdicts so far (grow x2 from a start
 *               until a step fails, then bisect between the highest passing
 *               and the lowest failing rate until (hi - lo) / lo <= the
 *               precision; a failing rate confirmed by a re-run, the
 *               bracket repeated, the uncertainty measured from the repeats;
 *               at most max_steps steps); and bench_cap_judge,
 *               the verdict on one step's run JSON (pure too)
 *   the driver  bench_capacity_run: a short low-rate baseline step, then
 *               each step a non-blocking run through
 *               the command's own call of bench_session_run, judged, one
 *               line printed; bench_capacity_finish: the "capacity" object
 *               of the results file, the closing table, the answer, the
 *               exit status
 */
#ifndef BENCH_CAPACITY_H
#define BENCH_CAPACITY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "bench/driver/loadopts.h"
#include "bench/core/pool.h"
#include "bench/driver/session.h"
#include "bench/results/threshold.h"
#include "bench/results/capanswer.h"

#define BENCH_CAP_DEFAULT_STEPS  30
#define BENCH_CAP_MAX_STEPS      100
#define BENCH_CAP_MAX_RATE       10000000.0
#define BENCH_CAP_DEFAULT_STEP_NS (10ULL * 1000000000ULL)
#define BENCH_CAP_DEFAULT_PRECISION 0.02
/* A step fails when fewer successes than this share of the offered rate
 * were achieved. */
#define BENCH_CAP_KEEP_UP 0.95
/* The bracket's upper rate is run this many times before the search ends
 * (it stays a failure only if at least three of them fail). */
#define BENCH_CAP_HI_RUNS 4
/* A failure within this many precisions above the highest pass is confirmed. */
#define BENCH_CAP_NEAR 4
/* When the first rate fails, it is halved at most this many times. */
#define BENCH_CAP_MAX_HALVINGS 4

/* ---- the flags ---- */

typedef struct bench_cap_opts {
    const bench_section *const *sections;   /* whose side metrics an objective may name */
    const char     *flag;            /* the objectives' flag, as messages name it:
                                        "--find-capacity" (set by init), "--capacity",
                                        "--find-speed" */
    bench_threshold objectives[BENCH_CAP_MAX_OBJECTIVES];
    size_t          nobjectives;     /* 0: no capacity search */
    uint64_t        step_ns;         /* measured length of each step */
    double          precision;       /* a fraction: 0.02 */
    unsigned        max_steps;       /* the probe not included */
    double          start_rate;      /* --rate: the first step's rate (0: probe) */
    int             step_given, precision_given, steps_given;
} bench_cap_opts;

enum { BENCH_OPT_FIND_CAPACITY = 1400, BENCH_OPT_STEP, BENCH_OPT_PRECISION, BENCH_OPT_MAX_STEPS };

/* The Capacity group of the option table. */
extern const bench_opt_group bench_cap_group;

/* sections: whose side metrics an objective may name (NULL: none, as for
 * PKCS#11, which has no REST metrics to judge).  flag is --find-capacity
 * until the command names its own. */
void bench_cap_opts_init(bench_cap_opts *o, const bench_section *const *sections);

/* Take one capacity option: 1 taken, 0 not one, -1 bad value (printed; a
 * bad objective is a usage error, exit 2). */
int bench_cap_opt(bench_cap_opts *o, int code, const char *arg);

/*
 * After parsing, before bench_load_finish: refuse what contradicts a search
 * (--stages, a --threads list, --duration, --iterations, --mode blocking;
 * --step, --precision or --max-steps without --find-capacity), take --rate
 * as the start, and set the load up as the steps run it (non-blocking,
 * --step long).  -1 (printed) on a contradiction.
 */
int bench_cap_finish(bench_cap_opts *o, bench_load_opts *lo);

/* ---- the search (pure) ---- */

/*
 * A step's verdict is noisy: a transient stall can fail a step at a rate the
 * target carries (it can never make an overloaded one pass).  So the search
 * keeps every rate's runs and judges the rate, not the step:
 *
 *   - a rate's verdict is pass when at least half its runs passed (a tie
 *     passes: transients only ever fail a step); one failing run alone is
 *     pending when the rate is near the answer (no pass yet, or within
 *     BENCH_CAP_NEAR precisions above the highest pass): the next step
 *     re-runs it at once (a confirmation), so a bound near the answer moves
 *     only on two failures;
 *   - once the bracket [lo, hi] is within the precision, its two rates are
 *     run again (boundary repeats) until hi has BENCH_CAP_HI_RUNS runs and
 *     lo two: a transient would have to fail hi three times in four;
 *   - the measured uncertainty is [L, H]: L the highest rate at or below lo
 *     whose runs all passed, H the lowest at or above hi whose runs (two or
 *     more) all failed; when a boundary rate's repeats disagreed and the
 *     nearest clean verdict beyond it is missing or further than 1 + 2 x
 *     precision, the search tries a rate that far past it (at most
 *     BENCH_CAP_MAX_EDGES such steps);
 *   - the answer is settled when L and H exist (H when hi does) and no
 *     rate below L failed every run (two or more) nor any above H passed
 *     every one; else the steps disagree beyond the uncertainty: the result
 *     is "unsettled" (exit 1).
 */
typedef enum {
    BENCH_CAP_SEARCHING = 0,
    BENCH_CAP_FOUND,       /* lo passed, hi failed, within the precision, repeated */
    BENCH_CAP_NONE,        /* nothing passed, down to start / 2^MAX_HALVINGS */
    BENCH_CAP_CEILING,     /* everything passed up to max_rate */
    BENCH_CAP_STEPS,       /* max_steps ran out before the precision was met */
} bench_cap_end;

/* Why next() chose its rate: a step's role. */
typedef enum {
    BENCH_CAP_ROLE_SEARCH = 0, /* grow, halve or bisect */
    BENCH_CAP_ROLE_CONFIRM,    /* a re-run of a rate whose one run failed */
    BENCH_CAP_ROLE_REPEAT,     /* a boundary repeat of lo or hi */
    BENCH_CAP_ROLE_EDGE,       /* past a boundary whose repeats disagreed */
    BENCH_CAP_ROLE_BASELINE,   /* the driver's low-rate step before the search (not next()'s) */
} bench_cap_role;

typedef struct bench_cap_rate {
    double   rate;
    unsigned runs, passes;
    int      far;         /* first run more than BENCH_CAP_NEAR precisions above lo */
} bench_cap_rate;

typedef struct bench_capsearch {
    double   start, precision, max_rate;
    double   min_rate;    /* no halving below it: one request a step (0: none) */
    unsigned max_steps;
    double   lo;          /* highest rate whose verdict is pass (0: none yet) */
    double   hi;          /* lowest rate above lo whose verdict is fail (0: none yet) */
    double   lowest;      /* lowest rate tried */
    unsigned steps, halvings, edges;
    bench_cap_role role;  /* of the rate next() gave last */
    bench_cap_end end;
    bench_cap_rate rates[BENCH_CAP_MAX_STEPS];
    size_t   nrates;
} bench_capsearch;

void bench_capsearch_init(bench_capsearch *c, double start, double precision, double max_rate,
                          unsigned max_steps);
/* The next rate to try, or 0 when the search is over (then c->end says why);
 * c->role says why this rate. */
double bench_capsearch_next(bench_capsearch *c);
/* The verdict on a step at `rate` (the one next() gave). */
void bench_capsearch_record(bench_capsearch *c, double rate, int pass);

/* What the repeated steps measured around the answer. */
typedef struct bench_cap_spread {
    double   low, high;   /* [L, H] (0: none) */
    int      settled;     /* L and H exist (H only when hi does) and no verdict beyond them */
    double   against;     /* a rate beyond [L, H] whose clean verdict contradicts the answer (0: none) */
    int      against_pass;/* ... and whether it passed every run (1) or failed every one (0) */
    unsigned overruled;   /* failing runs at rates whose verdict is pass */
    unsigned disputed;    /* rates whose runs disagree */
} bench_cap_spread;

void bench_capsearch_spread(const bench_capsearch *c, bench_cap_spread *out);

/* ---- one step's verdict (pure) ---- */

typedef struct bench_cap_step {
    double   rate;              /* offered, operations/s */
    double   achieved;          /* successes/s */
    double   p50_us, p99_us, error_pct;
    double   service_p50_us, service_mean_us;
    uint64_t scheduled, late, dropped;
    double   utilisation;       /* of the threads (or slots) by service time */
    double   client_cpu;        /* the run's client_cpu: CPUs hsmbench kept busy (< 0: unknown) */
    int      pass;
    int      interrupted;
    bench_cap_role role;        /* why the search ran it */
    const char *limit;          /* failing: "target", "threads", "generator" */
    char     why[240];          /* failing: what failed; passing: "" */
} bench_cap_step;

/*
 * Judge a step from its element of "runs": every objective holds
 * (bench_threshold_eval), the achieved rate of successes is at least
 * BENCH_CAP_KEEP_UP of the offered rate, and the schedule was kept: no more
 * requests were dropped (never started) than the run's --max-unstarted
 * share of them (1 %) and the threads (or slots) could hold
 * (bench_schedule_unkept, as the run's own verdict).
 * `baseline_service_us` is the median service time of the lowest rate
 * measured so far (the baseline step's, run first; 0: unknown, so not
 * grown); `host_cpus` the machine's CPUs
 * (0: unknown).  When a step fails, its limit is "generator" when
 * hsmbench's process kept BENCH_CLIENT_CPU_BOUND of the machine's CPUs busy or
 * more (its client_cpu: then every figure, service times included, is this
 * machine's), else "target" when the service time grew past 1.5 x the
 * baseline, else "threads" when they were busy (80 % or
 * more by service time),
 * else "generator" when requests went out late (by more than 1 ms) or were
 * dropped, more than 1 % of them, else "target" (its own latency at a load
 * it carries).
 */
void bench_cap_judge(const bench_threshold *objs, size_t n, const json_t *run, double rate,
                     double baseline_service_us, double host_cpus, bench_cap_step *out);


/* ---- the driver ---- */

/* Run one step or the probe: the command's bench_session_run (through its
 * runner) with this load. */
typedef void (*bench_cap_step_fn)(void *arg, const bench_load *load);

typedef struct bench_capacity {
    const bench_cap_opts *o;
    bench_session        *s;
    bench_capsearch       search;
    bench_load            base;           /* the load as parsed (a copy) */
    bench_cap_step        steps[BENCH_CAP_MAX_STEPS];
    size_t                nsteps;
    double                probe_rate;     /* closed-loop probe: successes/s (0: none) */
    double                baseline_us;    /* service p50 at the lowest rate measured (0: none) */
    double                baseline_rate;  /* ... that rate */
    unsigned              threads;
    int                   run_failed;     /* a step could not be measured */
    int                   interrupted;
    json_t               *obj;            /* the "capacity" object, after the search */
} bench_capacity;

/*
 * The whole search on session s: a closed-loop probe first when no --rate
 * gave the start (its rate halved, two significant digits, is the first
 * step's), then a baseline step (a quarter of the start, half a step long:
 * the service time every later step is judged against), then the steps.  base is the load as parsed (threads, warm-up,
 * the step's length); fn runs each step.  The session prints no header,
 * summary or per-second lines meanwhile, one line per step instead.
 */
void bench_capacity_run(bench_capacity *c, bench_session *s, const bench_cap_opts *o,
                        const bench_load *base, bench_cap_step_fn fn, void *arg);

/*
 * After the search (and after the command released its keys): the results
 * document with its "capacity" object, the closing table of the steps,
 * the answer; returns the exit status: 130 interrupted, 3 set-up failure,
 * 1 no rate passed, a step could not run, a threshold failed or a file
 * could not be written, else 0.  Takes environment and command; frees c.
 */
int bench_capacity_finish(bench_capacity *c, json_t *environment, json_t *command);

#endif

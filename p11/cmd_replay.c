/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/cmd_replay.c - "hsmbench replay FILE": an application's recorded
 * traffic, or a written scenario, replayed against any module (the model:
 * p11/replay.h; the run: p11/replay_run.h), once at a speed, or searched
 * for the speed at which an objective stops holding (--find-speed).
 */
#include "p11/cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/driver/capacity.h"
#include "bench/driver/outopts.h"
#include "bench/driver/session.h"
#include "bench/results/capanswer.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/results/threshold.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/util/signals.h"
#include "p11/replay.h"
#include "p11/replay_run.h"
#include "p11/runner.h"
#include "p11/target.h"
#include "p11/token.h"

static const char replay_usage_head[] =
    "Usage: hsmbench replay FILE [--speed F] [--closed [--threads N]] [--model-only]\n"
    "                        [--duration D] [--find-speed EXPR] [selection] [output]\n"
    "\n"
    "Replay an application's PKCS#11 traffic against a module: a recording of the\n"
    "call recorder (hsmbench-trace(7)), a pkcs11-spy log, or a scenario written by\n"
    "hand (hsmbench-replay(5)).  The model (transactions, their steps, arrivals) is\n"
    "printed first; keys are made for the run and destroyed after it.  Open loop at\n"
    "the recorded times divided by --speed, one pass, by default.\n"
    "\n";

static const char replay_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 the replay finished but transactions failed, or\n"
    "--find-speed found no speed that holds; 2 bad usage or a file that is not a\n"
    "model; 3 module, token or login failure; 99 a --threshold failed; 130\n"
    "interrupted.\n";

enum { OPT_SPEED = 3300, OPT_CLOSED, OPT_THREADS, OPT_MODEL_ONLY, OPT_DURATION, OPT_FIND_SPEED };

#define MAX_SPEED 10000.0
#define MAX_THREADS 1024
#define MAX_DURATION_NS (24ULL * 3600 * 1000000000ULL)

static const bench_option replay_rows[] = {
    { "speed", 0, BENCH_ARG_REQUIRED, "F", OPT_SPEED,
      "replay the arrivals F times as fast (their times divided\n"
      "by F; think times kept): 1 (default), 2, 0.5, ...", NULL },
    { "closed", 0, BENCH_ARG_NONE, NULL, OPT_CLOSED,
      "closed loop: threads each take the next transaction as\n"
      "soon as theirs ended, instead of the recorded times", NULL },
    { "threads", 0, BENCH_ARG_REQUIRED, "N", OPT_THREADS,
      "--closed: its threads (default the model's concurrency);\n"
      "open loop: transactions under way at once at most\n"
      "(default 16, or 2 x concurrency x F when more)", NULL },
    { "duration", 0, BENCH_ARG_REQUIRED, "D", OPT_DURATION,
      "how long (default one pass, the model's span / F): longer\n"
      "loops the arrivals, shorter cuts them", NULL },
    { "model-only", 0, BENCH_ARG_NONE, NULL, OPT_MODEL_ONLY,
      "print the model and exit, touching no module", NULL },
    { "find-speed", 0, BENCH_ARG_REPEATED, "EXPR", OPT_FIND_SPEED,
      "the speed at which EXPR stops holding ('p99<20ms',\n"
      "'errors<0.1%'; repeatable): --find-capacity's search over\n"
      "the model's rate x speed, each step a replay at its speed;\n"
      "--step, --precision, --max-steps as for run", NULL },
    /* The search's own options, parsed by bench_cap_opt as run's are. */
    { "step", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_STEP,
      "--find-speed: each step's length (default 10s)", NULL },
    { "precision", 0, BENCH_ARG_REQUIRED, "PCT", BENCH_OPT_PRECISION,
      "--find-speed: the bracket to stop at (default 2%)", NULL },
    { "max-steps", 0, BENCH_ARG_REQUIRED, "N", BENCH_OPT_MAX_STEPS,
      "--find-speed: at most N steps (default 30)", NULL },
};
static const bench_opt_group replay_group = BENCH_OPT_GROUP("Replay:", replay_rows, NULL);

static const bench_opt_group *const replay_groups[] = {
    &p11_target_group, &replay_group, &bench_out_group, &bench_help_group, NULL,
};
const bench_cmd_opts p11_replay_options = { "replay", 0, replay_groups };

typedef struct replay_opts {
    p11_target_opts target;
    bench_out_opts  out;
    bench_cap_opts  cap;
    const char     *file;
    double          speed;
    int             closed, model_only, speed_given;
    unsigned        threads;
    uint64_t        duration_ns;
    char            test[96];     /* "replay:<base name>", for --threshold */
} replay_opts;

/* Take one option, its value only stored: 1 taken, 0 not one of replay's,
 * -1 bad value (printed). */
static int take_option(void *opts, int c, char *arg)
{
    replay_opts *o = opts;
    uint64_t v;
    int t = p11_target_opt(&o->target, c, arg);
    if (t == 0)
        t = bench_out_opt(&o->out, c, arg);
    if (t == 0 && c != OPT_FIND_SPEED)
        t = bench_cap_opt(&o->cap, c, arg);
    if (t != 0)
        return t;
    switch (c) {
    case OPT_SPEED: {
        char *end = NULL;
        o->speed = bench_strtod(arg, &end);
        if (!*arg || !end || *end || !isfinite(o->speed) || o->speed <= 0 || o->speed > MAX_SPEED) {
            bench_error("--speed %s: give a factor above 0, at most %g (2 replays twice as fast)",
                        arg, MAX_SPEED);
            return -1;
        }
        o->speed_given = 1;
        return 1;
    }
    case OPT_CLOSED:
        o->closed = 1;
        return 1;
    case OPT_THREADS:
        if (bench_parse_u64("--threads", arg, 1, MAX_THREADS, &v) != 0)
            return -1;
        o->threads = (unsigned)v;
        return 1;
    case OPT_DURATION:
        return bench_parse_duration("--duration", arg, 100000000ULL, MAX_DURATION_NS,
                                    &o->duration_ns) == 0 ? 1 : -1;
    case OPT_MODEL_ONLY:
        o->model_only = 1;
        return 1;
    case OPT_FIND_SPEED:
        return bench_cap_opt(&o->cap, BENCH_OPT_FIND_CAPACITY, arg) < 0 ? -1 : 1;
    default:
        return 0;
    }
}

/* The options checked together, once all are taken: 0, or -1 (printed). */
static int check_options(replay_opts *o, bench_opts_parser *parser)
{
    if (p11_target_check(&o->target) != 0)
        return -1;
    if (o->closed && o->speed_given) {
        bench_error("--speed and --closed: a closed loop takes no recorded times to speed up; "
                    "give one");
        return -1;
    }
    if (o->cap.nobjectives && (o->closed || o->speed_given || o->duration_ns)) {
        bench_error("--find-speed chooses the speeds and runs each step for --step: leave out %s",
                    o->closed ? "--closed" : o->speed_given ? "--speed" : "--duration");
        return -1;
    }
    if (!o->cap.nobjectives && (o->cap.step_given || o->cap.precision_given || o->cap.steps_given)) {
        bench_error("%s applies to --find-speed", o->cap.step_given        ? "--step"
                                                  : o->cap.precision_given ? "--precision"
                                                                           : "--max-steps");
        return -1;
    }
    const char *slash = strrchr(o->file, '/');
    snprintf(o->test, sizeof o->test, "replay:%.80s", slash && slash[1] ? slash + 1 : o->file);
    const char *names[1] = { o->test };
    if (bench_opts_add_file(parser, "the model's file", o->file, 0) != 0 ||
        bench_opts_check_files(parser) != 0 || bench_out_finish(&o->out, names, 1) != 0)
        return -1;
    return 0;
}

static const bench_cmd_help replay_help = { replay_usage_head, replay_usage_tail, NULL, NULL };

/* 0, -1 after --help, or an exit code (printed). */
static int parse_args(int argc, char **argv, replay_opts *o)
{
    memset(o, 0, sizeof *o);
    o->speed = 1;
    bench_cap_opts_init(&o->cap, NULL);
    o->cap.flag = "--find-speed";
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_replay_options, &replay_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind >= argc) {
        bench_error("replay: a recording, pkcs11-spy log or scenario is required "
                    "(see: hsmbench replay --help)");
        return BENCH_EXIT_USAGE;
    }
    if (argc - optind > 1) {
        bench_error("%s: unexpected argument; replay reads one file (see: hsmbench replay --help)",
                    argv[optind + 1]);
        return BENCH_EXIT_USAGE;
    }
    o->file = argv[optind];
    return check_options(o, &parser) == 0 ? 0 : BENCH_EXIT_USAGE;
}

/* The load of a replay: a closed loop of --threads (the model's
 * concurrency), or the open loop's pool. */
static void make_load(const replay_opts *o, const p11_replay_model *m, bench_load *l)
{
    memset(l, 0, sizeof *l);
    l->max_unstarted = BENCH_MAX_UNSTARTED_DEFAULT;
    l->duration_ns = o->duration_ns;
    if (o->closed) {
        l->mode = BENCH_MODE_BLOCKING;
        l->threads = o->threads ? o->threads : m->concurrency ? m->concurrency : 1;
        if (!l->duration_ns)
            l->duration_ns = m->span_ns > 100000000ULL ? m->span_ns : 100000000ULL;
        return;
    }
    l->mode = BENCH_MODE_NONBLOCKING;
    /* Enough threads that the pool is not what holds transactions back:
     * each holds one transaction, think times included. */
    const double want = 2.0 * (m->concurrency ? m->concurrency : 1) * o->speed;
    l->threads = o->threads ? o->threads
               : want > 16 ? (want > MAX_THREADS ? MAX_THREADS : (unsigned)ceil(want)) : 16;
}

/* Which transaction fails the objectives first at the search's boundary:
 * at the lowest failing speed's step, the kind whose own figures (its
 * latency and errors) break an objective by the largest factor. */
static const char *first_to_break(const bench_cap_opts *cap, const json_t *runs, double hi)
{
    size_t i, k;
    const json_t *run, *t;
    const char *worst = NULL;
    double worst_ratio = 0;
    json_array_foreach(runs, i, run) {
        const json_t *rp = json_object_get(run, "replay");
        if (!rp || fabs(bench_json_num(rp, "speed", 0) * bench_json_num(json_object_get(rp, "model"), "rate", 0) - hi) > 1e-6 * hi)
            continue;
        bench_run_model rm;
        if (bench_model_from_run(run, NULL, &rm) != 0)
            continue;
        json_array_foreach(json_object_get(rp, "transactions"), k, t) {
            /* The kind's figures as a run's, for the objectives' own reader:
             * the run's model (a shallow copy, read and never freed) with
             * the kind's latency and errors, and no histogram. */
            bench_run_model as = rm;
            const long long att = bench_json_int(t, "attempts", 0), err = bench_json_int(t, "errors", 0);
            as.hist = NULL;
            bench_model_latency_of(json_object_get(t, "latency_us"), &as.latency);
            as.errors = err > 0 ? (uint64_t)err : 0;
            as.error_pct = att ? 100.0 * (double)err / (double)att : 0;
            for (size_t j = 0; j < cap->nobjectives; j++) {
                double seen = 0;
                const bench_threshold *ob = &cap->objectives[j];
                if (bench_threshold_eval(ob, &as, &seen) != 0)
                    continue;
                const double ratio = ob->value > 0 ? seen / ob->value : INFINITY;
                if (!worst || ratio > worst_ratio) {
                    worst = bench_json_str(t, "name", NULL);
                    worst_ratio = ratio;
                }
            }
        }
        bench_model_free(&rm);
        if (worst)
            break;
    }
    return worst;
}

/* The headroom answer, from the search's answer a (read from its capacity
 * object capo): into capo as "replay", and as one line. */
static void speed_answer(const bench_cap_opts *cap, const p11_replay_model *m, bench_session *s,
                         const bench_cap_answer *a, json_t *capo, char *line, size_t len)
{
    const double lo = a->ops_per_s, low = a->low, high = a->high, hi = a->hi;
    char objs[300];
    bench_cap_objectives_text(a, objs, sizeof objs);
    line[0] = 0;
    if (!a->present || !(lo > 0) || !(m->rate > 0)) {
        snprintf(line, len, "no speed met %s: not even %.2fx the recorded traffic", objs,
                 a->start_rate / (m->rate > 0 ? m->rate : 1));
        return;
    }
    const char *brk = hi > 0 ? first_to_break(cap, s->runs, hi) : NULL;
    int at = snprintf(line, len, "this token carries %.2fx", lo / m->rate);
    if (at > 0 && (size_t)at < len && low > 0 && high > 0)
        at += snprintf(line + at, len - (size_t)at, " (%.2f-%.2fx)", low / m->rate, high / m->rate);
    if (at > 0 && (size_t)at < len)
        at += snprintf(line + at, len - (size_t)at, " the recorded traffic at %s", objs);
    if (at > 0 && (size_t)at < len && brk)
        snprintf(line + at, len - (size_t)at, "; the first transaction to break is %s", brk);
    else if (at > 0 && (size_t)at < len && !(hi > 0))
        snprintf(line + at, len - (size_t)at, "; no speed tried broke it");
    json_t *r = json_pack("{s:f,s:o,s:o,s:o,s:s?,s:s}", "model_rate", m->rate, "speed",
                          json_real(lo / m->rate), "low", low > 0 ? json_real(low / m->rate) : json_null(),
                          "high", high > 0 ? json_real(high / m->rate) : json_null(), "first_to_break",
                          brk, "answer", line);
    if (!r || json_object_set_new(capo, "replay", r) != 0)
        s->any_failed = 1;
}

/* The search for the speed at which the objectives stop holding: the
 * exit code. */
static int search_speed(p11_runner *r, const replay_opts *o, const p11_replay_model *m, bench_load *load,
                        json_t *command)
{
    bench_capacity cap;
    p11_replay_step_arg a = { r, m };
    char line[600] = "";
    bench_capacity_run(&cap, r->session, &o->cap, load, p11_replay_cap_step, &a);
    p11_runner_release(r);
    if (cap.obj) {   /* the answer in speeds, into the object the document takes */
        bench_cap_answer ans;
        if (bench_cap_answer_of(cap.obj, &ans) != 0)
            r->session->any_failed = 1;
        else
            speed_answer(&o->cap, m, r->session, &ans, cap.obj, line, sizeof line);
        bench_cap_answer_free(&ans);
    }
    const int searched = cap.obj && !cap.interrupted && !cap.run_failed;
    const int rc = bench_capacity_finish(&cap, p11_target_env_json(r->target), command);
    if (searched && line[0])
        printf("%s\n", line);
    return rc;
}

int p11_cmd_replay(int argc, char **argv, const bench_section *const *sections)
{
    replay_opts o;
    p11_replay_model m;
    p11_target t;
    p11_runner r;
    bench_session s;
    bench_load_opts lo;
    char err[512];
    int opened = 0, session = 0, runner = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    memset(&m, 0, sizeof m);
    if (p11_replay_load(o.file, &m, err, sizeof err) != 0) {
        bench_error("%s", err);
        rc = BENCH_EXIT_USAGE;
        goto cleanup;
    }
    /* The model before anything runs (on standard error when a document
     * takes standard output). */
    if (!o.out.quiet || o.model_only) {
        FILE *f = bench_out_to_stdout(&o.out) ? stderr : stdout;
        p11_replay_model_print(&m, f);
        bench_flush(f);
    }
    if (o.model_only)
        goto cleanup;
    /* The load, held once: the search's first step at the recorded traffic, 1x. */
    bench_load_opts_init(&lo);
    make_load(&o, &m, &lo.load);
    if (o.cap.nobjectives) {
        lo.load.rate = m.rate;
        if (bench_cap_finish(&o.cap, &lo) != 0) {
            rc = BENCH_EXIT_USAGE;
            goto cleanup;
        }
    }
    const bench_flag *interrupt = bench_signals_install();
    rc = p11_target_open(&o.target, lo.load.threads, P11_OPEN_LOGIN, &t);
    if (rc != 0) {
        rc = *interrupt ? BENCH_EXIT_INTERRUPTED : rc;
        goto cleanup;
    }
    opened = 1;
    rc = BENCH_EXIT_FAILED;
    if (bench_session_init(&s, &o.out, interrupt) != 0)
        goto cleanup;
    session = 1;
    if (p11_runner_init(&r, &t, &s, &lo.load, NULL) != 0)
        goto cleanup;
    runner = 1;
    json_t *command = bench_command_json(argc, argv, p11_command_redact, argv);
    if (o.cap.nobjectives) {
        rc = search_speed(&r, &o, &m, &lo.load, command);
    } else {
        p11_replay_run(&r, &m, o.speed);
        p11_runner_release(&r);
        rc = bench_session_finish(&s, p11_target_env_json(&t), command);
    }
cleanup:
    p11_runner_teardown(&r, runner, &t, opened, &s, session);
    p11_replay_model_free(&m);
    return rc;
}

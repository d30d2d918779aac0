/* bench/driver/capacity.c - the capacity search's flags, state machine and verdicts
 * (pure: no I/O but the flags' one-line errors); the driver is capdrive.c. */
#include "bench/driver/capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/results/results.h"

#define MAX_STEP_NS (3600ULL * 1000000000ULL)

static const bench_option cap_rows[] = {
    { "find-capacity", 0, BENCH_ARG_REPEATED, "EXPR", BENCH_OPT_FIND_CAPACITY,
      "the highest rate at which EXPR holds, repeatable: an upper\n"
      "bound on latency (p50, p90, p95, p99, p(99.9), avg, max <\n"
      "TIME, counted from the scheduled time) or errors (errors<0.1%)\n"
      "(REST also k6's HTTP metrics of latency and failures);\n"
      "a step also fails below 95 % of its rate achieved", NULL },
    { "step", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_STEP,
      "each step's measured length (default 10s; --warmup before it)", NULL },
    { "precision", 0, BENCH_ARG_REQUIRED, "PCT", BENCH_OPT_PRECISION,
      "stop when the highest passing and lowest failing rates are\n"
      "this close (default 2%)", NULL },
    { "max-steps", 0, BENCH_ARG_REQUIRED, "N", BENCH_OPT_MAX_STEPS,
      "at most N steps (default 20)\n"
      "--rate gives the first step's rate; without it a closed-loop\n"
      "probe of --step measures one, and the search starts at half", NULL },
};
const bench_opt_group bench_cap_group =
    BENCH_OPT_GROUP("Capacity (open-loop steps at growing, then bisected rates):", cap_rows, NULL);

void bench_cap_opts_init(bench_cap_opts *o, const bench_section *const *sections)
{
    memset(o, 0, sizeof *o);
    o->sections = sections;
    o->step_ns = BENCH_CAP_DEFAULT_STEP_NS;
    o->precision = BENCH_CAP_DEFAULT_PRECISION;
    o->max_steps = BENCH_CAP_DEFAULT_STEPS;
}

/* An objective must bound what the search can break: latency or errors. */
static int objective_check(const bench_threshold *t, char *err, size_t len)
{
    switch (t->metric) {
    case BENCH_TM_RATE:
    case BENCH_TM_SIDE_RATE:
    case BENCH_TM_SIDE_COUNT:
        snprintf(err, len, "--find-capacity '%s': the search finds the rate; an objective "
                 "bounds latency or errors (p99<20ms, errors<0.1%%)", t->expr);
        return -1;
    default:
        break;
    }
    if (t->op != BENCH_OP_LT && t->op != BENCH_OP_LE) {
        snprintf(err, len, "--find-capacity '%s': an objective is an upper bound: use < or <=",
                 t->expr);
        return -1;
    }
    if (t->test[0]) {
        snprintf(err, len, "--find-capacity '%s': an objective applies to the one test searched; "
                 "leave out '%s:'", t->expr, t->test);
        return -1;
    }
    return 0;
}

static int parse_objective(bench_cap_opts *o, const char *arg)
{
    char err[300];
    if (o->nobjectives == BENCH_CAP_MAX_OBJECTIVES) {
        bench_error("--find-capacity: at most %d objectives", BENCH_CAP_MAX_OBJECTIVES);
        return -1;
    }
    bench_threshold *t = &o->objectives[o->nobjectives];
    if (bench_threshold_parse(arg, o->sections, t, err, sizeof err) != 0) {
        /* The threshold parser names its flag; this is another. */
        static const char th[] = "--threshold ";
        if (strncmp(err, th, sizeof th - 1) == 0)
            bench_error("--find-capacity %s", err + sizeof th - 1);
        else
            bench_error("--find-capacity: %s", err);
        return -1;
    }
    if (objective_check(t, err, sizeof err) != 0) {
        bench_error("%s", err);
        return -1;
    }
    o->nobjectives++;
    return 0;
}

int bench_cap_opt(bench_cap_opts *o, int code, const char *arg)
{
    uint64_t v;
    switch (code) {
    case BENCH_OPT_FIND_CAPACITY:
        return parse_objective(o, arg) == 0 ? 1 : -1;
    case BENCH_OPT_STEP:
        o->step_given = 1;
        return bench_parse_duration("--step", arg, 100000000ULL, MAX_STEP_NS, &o->step_ns) == 0 ? 1
                                                                                              : -1;
    case BENCH_OPT_PRECISION:
        o->precision_given = 1;
        return bench_parse_pct("--precision", arg, 0.1, 50, "2%", &o->precision) == 0 ? 1 : -1;
    case BENCH_OPT_MAX_STEPS:
        o->steps_given = 1;
        if (bench_parse_u64("--max-steps", arg, 3, BENCH_CAP_MAX_STEPS, &v) != 0)
            return -1;
        o->max_steps = (unsigned)v;
        return 1;
    default:
        return 0;
    }
}

int bench_cap_finish(bench_cap_opts *o, bench_load_opts *lo)
{
    bench_load *l = &lo->load;
    if (!o->nobjectives) {
        if (o->step_given || o->precision_given || o->steps_given) {
            bench_error("%s applies to --find-capacity",
                        o->step_given ? "--step" : o->precision_given ? "--precision" : "--max-steps");
            return -1;
        }
        return 0;
    }
    const char *clash = lo->stages_text ? "--stages"
                      : lo->nthreads > 1 ? "a --threads list"
                      : lo->has_duration ? "--duration"
                      : l->iterations ? (l->per_thread ? "--iterations-per-thread" : "--iterations")
                      : lo->mode_given && l->mode == BENCH_MODE_BLOCKING ? "--mode blocking"
                      : NULL;
    if (clash) {
        bench_error("--find-capacity runs open-loop steps at rates it chooses, each --step "
                    "long, at one thread count: leave out %s", clash);
        return -1;
    }
    o->start_rate = l->rate;      /* 0: measured by the probe */
    l->mode = BENCH_MODE_NONBLOCKING;
    /* Each step sets its own rate; this one only satisfies the load's rules. */
    if (!(l->rate > 0))
        l->rate = 1;
    l->duration_ns = o->step_ns;
    lo->has_duration = 1;
    return 0;
}

/* ---- the search ---- */

void bench_capsearch_init(bench_capsearch *c, double start, double precision, double max_rate,
                          unsigned max_steps)
{
    memset(c, 0, sizeof *c);
    c->max_rate = max_rate > 0 ? max_rate : BENCH_CAP_MAX_RATE;
    c->start = start > c->max_rate ? c->max_rate : start > 0 ? start : 1;
    c->precision = precision > 0 ? precision : BENCH_CAP_DEFAULT_PRECISION;
    c->max_steps = max_steps ? max_steps : BENCH_CAP_DEFAULT_STEPS;
}

double bench_capsearch_next(bench_capsearch *c)
{
    if (c->end != BENCH_CAP_SEARCHING)
        return 0;
    if (c->lo > 0 && c->hi > 0 && (c->hi - c->lo) / c->lo <= c->precision) {
        c->end = BENCH_CAP_FOUND;
        return 0;
    }
    if (c->lo > 0 && c->hi == 0 && c->lo >= c->max_rate) {
        c->end = BENCH_CAP_CEILING;
        return 0;
    }
    if (c->lo == 0 && c->hi > 0 && c->halvings >= BENCH_CAP_MAX_HALVINGS) {
        c->end = BENCH_CAP_NONE;
        return 0;
    }
    if (c->steps >= c->max_steps) {
        c->end = c->lo > 0 ? BENCH_CAP_STEPS : BENCH_CAP_NONE;
        return 0;
    }
    if (c->lo == 0 && c->hi == 0)
        return c->start;
    if (c->lo == 0) {
        c->halvings++;
        return c->hi / 2;
    }
    if (c->hi == 0)
        return c->lo * 2 < c->max_rate ? c->lo * 2 : c->max_rate;
    return (c->lo + c->hi) / 2;
}

void bench_capsearch_record(bench_capsearch *c, double rate, int pass)
{
    c->steps++;
    if (c->lowest == 0 || rate < c->lowest)
        c->lowest = rate;
    if (pass) {
        if (rate > c->lo)
            c->lo = rate;
        if (c->hi > 0 && c->hi <= c->lo)
            c->hi = 0;            /* passed above a failure: look higher again */
    } else if (c->hi == 0 || rate < c->hi) {
        c->hi = rate;
        if (c->lo >= c->hi)
            c->lo = 0;            /* failed below a pass: the pass no longer bounds it */
    }
}

/* ---- a step's verdict ---- */

static void append(char *buf, size_t len, const char *text)
{
    const size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s%s", n ? "; " : "", text);
}

void bench_cap_judge(const bench_threshold *objs, size_t n, const json_t *run, double rate,
                     double baseline_service_us, double host_cpus, bench_cap_step *st)
{
    const json_t *lat = json_object_get(run, "latency_us");
    const json_t *svc = json_object_get(run, "service_us");
    const json_t *sch = json_object_get(run, "schedule");
    const json_t *set = json_object_get(run, "settings");
    char text[200], obs[64];

    memset(st, 0, sizeof *st);
    st->rate = rate;
    st->achieved = bench_json_num(run, "ops_per_s", 0);
    st->p50_us = bench_json_num(lat, "p50", 0);
    st->p99_us = bench_json_num(lat, "p99", 0);
    st->error_pct = bench_json_num(run, "error_pct", 0);
    st->service_p50_us = bench_json_num(svc, "p50", 0);
    st->service_mean_us = bench_json_num(svc, "mean", 0);
    st->scheduled = (uint64_t)bench_json_int(sch, "scheduled", 0);
    st->late = (uint64_t)bench_json_int(sch, "late", 0);
    st->dropped = (uint64_t)bench_json_int(sch, "dropped", 0);
    /* Operations in service at once: the threads, or an engine's slots. */
    long long conc = bench_json_int(set, "slots", 0);
    if (conc <= 0)
        conc = bench_json_int(run, "threads", 1);
    st->utilisation = conc > 0 ? st->achieved * st->service_mean_us / 1e6 / (double)conc : 0;
    st->client_cpu = bench_json_num(run, "client_cpu", -1);

    if (strcmp(bench_json_str(run, "status", ""), "interrupted") == 0) {
        st->interrupted = 1;
        snprintf(st->why, sizeof st->why, "interrupted");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        const int ok = bench_threshold_eval(&objs[i], run, &v);
        if (ok == 1)
            continue;
        if (ok < 0)
            snprintf(text, sizeof text, "'%s' cannot be judged (no successful operation)",
                     objs[i].expr);
        else
            snprintf(text, sizeof text, "'%s' %s", objs[i].expr,
                     bench_threshold_observed_text(&objs[i], v, obs, sizeof obs));
        append(st->why, sizeof st->why, text);
    }
    if (st->achieved < BENCH_CAP_KEEP_UP * rate) {
        snprintf(text, sizeof text, "achieved %.0f %% of the offered rate",
                 rate > 0 ? 100.0 * st->achieved / rate : 0);
        append(st->why, sizeof st->why, text);
    }
    /* Requests the stop caught in the queue, beyond what the threads (or
     * slots) could have had in hand: the target did not keep up. */
    if (bench_schedule_unkept(st->scheduled, st->dropped, (uint64_t)conc,
                              bench_json_num(sch, "max_unstarted_pct", 100 * BENCH_MAX_UNSTARTED_DEFAULT) / 100)) {
        snprintf(text, sizeof text, "%llu requests (%.1f %%) never started",
                 (unsigned long long)st->dropped,
                 100.0 * (double)st->dropped / (double)st->scheduled);
        append(st->why, sizeof st->why, text);
    }
    st->pass = st->why[0] == 0;
    if (st->pass)
        return;
    if (bench_client_cpu_bound(st->client_cpu, host_cpus)) {
        /* This machine was saturated: the client's own work (and a module's
         * in its process) waited for a CPU, inside every time measured. */
        snprintf(text, sizeof text, "hsmbench kept %.1f of %.0f CPUs busy", st->client_cpu, host_cpus);
        append(st->why, sizeof st->why, text);
        st->limit = "generator";
        return;
    }
    const double late_frac = st->scheduled ? (double)st->late / (double)st->scheduled : 0;
    const double drop_frac = st->scheduled ? (double)st->dropped / (double)st->scheduled : 0;
    const int busy = st->utilisation >= 0.8;
    const int grown = baseline_service_us <= 0 || st->service_p50_us > 1.5 * baseline_service_us;
    if (grown)
        st->limit = "target";
    else if (busy)
        st->limit = "threads";
    else if (late_frac > 0.01 || drop_frac > 0.01)
        st->limit = "generator";
    else
        st->limit = "target";     /* its own latency, at a load it carries */
}

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/capacity.c - the capacity search's flags, state machine and verdicts
 * (pure: no I/O but the flags' one-line errors); the driver is capdrive.c. */
#include "bench/driver/capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/results/model.h"
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
      "at most N steps, the baseline counted (default 30)\n"
      "--rate gives the first step's rate; without it a closed-loop\n"
      "probe of --step measures one, and the search starts at half", NULL },
};
const bench_opt_group bench_cap_group =
    BENCH_OPT_GROUP("Capacity (open-loop steps at growing, then bisected rates):", cap_rows, NULL);

void bench_cap_opts_init(bench_cap_opts *o, const bench_section *const *sections)
{
    memset(o, 0, sizeof *o);
    o->sections = sections;
    o->flag = "--find-capacity";
    o->step_ns = BENCH_CAP_DEFAULT_STEP_NS;
    o->precision = BENCH_CAP_DEFAULT_PRECISION;
    o->max_steps = BENCH_CAP_DEFAULT_STEPS;
}

/* An objective must bound what the search can break: latency or errors. */
static int objective_check(const bench_threshold *t, const char *flag, char *err, size_t len)
{
    switch (t->metric) {
    case BENCH_TM_RATE:
    case BENCH_TM_SIDE_RATE:
    case BENCH_TM_SIDE_COUNT:
    case BENCH_TM_SIDE_VALUE:
        snprintf(err, len, "%s '%s': the search finds the rate; an objective "
                 "bounds latency or errors (p99<20ms, errors<0.1%%)", flag, t->expr);
        return -1;
    default:
        break;
    }
    if (t->op != BENCH_OP_LT && t->op != BENCH_OP_LE) {
        snprintf(err, len, "%s '%s': an objective is an upper bound: use < or <=", flag,
                 t->expr);
        return -1;
    }
    if (t->test[0]) {
        snprintf(err, len, "%s '%s': an objective applies to the one test searched; "
                 "leave out '%s:'", flag, t->expr, t->test);
        return -1;
    }
    if (t->abort) {
        /* Each step is judged whole, after it: there is nothing to stop. */
        snprintf(err, len, "%s '%s': a search judges each step when it ends; ':abort' means "
                 "nothing here: leave it out", flag, t->expr);
        return -1;
    }
    return 0;
}

static int parse_objective(bench_cap_opts *o, const char *arg)
{
    char err[300];
    if (o->nobjectives == BENCH_CAP_MAX_OBJECTIVES) {
        bench_error("%s: at most %d objectives", o->flag, BENCH_CAP_MAX_OBJECTIVES);
        return -1;
    }
    bench_threshold *t = &o->objectives[o->nobjectives];
    if (bench_threshold_parse(arg, o->sections, t, err, sizeof err) != 0) {
        /* The threshold parser names its flag; this is another. */
        static const char th[] = "--threshold ";
        if (strncmp(err, th, sizeof th - 1) == 0)
            bench_error("%s %s", o->flag, err + sizeof th - 1);
        else
            bench_error("%s: %s", o->flag, err);
        return -1;
    }
    if (objective_check(t, o->flag, err, sizeof err) != 0) {
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

/* Do two objectives bound one figure (p99 and p99, errors and errors)? */
static int same_figure(const bench_threshold *a, const bench_threshold *b)
{
    return a->metric == b->metric && a->section == b->section && a->side == b->side &&
           strcmp(a->path, b->path) == 0 && (a->metric != BENCH_TM_PCT || a->pct == b->pct);
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
                      : l->stable_pct > 0 ? "--until-stable"
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
    for (size_t i = 0; i < o->nobjectives; i++)
        for (size_t k = 0; k < i; k++)
            if (same_figure(&o->objectives[k], &o->objectives[i])) {
                bench_error("%s '%s' and %s '%s' bound the same figure: give it once", o->flag,
                            o->objectives[k].expr, o->flag, o->objectives[i].expr);
                return -1;
            }
    const double step_s = (double)o->step_ns / 1e9;
    if (l->rate > 0 && l->rate * step_s < 1) {
        char st[32], longer[64] = "";
        if (ceil(1 / l->rate) * 1e9 <= (double)MAX_STEP_NS)
            snprintf(longer, sizeof longer, " or a --step of at least %gs", ceil(1 / l->rate));
        bench_error("--rate %g and --step %s: a step would schedule %g requests, fewer than one; "
                    "give a --rate of at least %g%s", l->rate,
                    bench_fmt_ns((double)o->step_ns, st, sizeof st), l->rate * step_s, 1 / step_s,
                    longer);
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
    if (c->max_steps > BENCH_CAP_MAX_STEPS)
        c->max_steps = BENCH_CAP_MAX_STEPS;
}

/* A rate's runs: one failure alone near the answer is pending (to be
 * confirmed); else pass when at least half passed. */
static int pending(const bench_cap_rate *r)
{
    return r->runs == 1 && r->passes == 0 && !r->far;
}

static int passes(const bench_cap_rate *r)
{
    return !pending(r) && 2 * r->passes >= r->runs;
}

static int clean_pass(const bench_cap_rate *r)
{
    return r->runs && r->passes == r->runs;
}

/* A far rate's one failure bounds the search, not the uncertainty. */
static int clean_fail(const bench_cap_rate *r)
{
    return r->passes == 0 && r->runs >= 2;
}

static bench_cap_rate *rate_of(bench_capsearch *c, double rate)
{
    for (size_t i = 0; i < c->nrates; i++)
        if (c->rates[i].rate == rate)
            return &c->rates[i];
    return NULL;
}

/* lo: the highest passing rate; hi: the lowest failing one above it. */
static void bounds(bench_capsearch *c)
{
    c->lo = c->hi = 0;
    for (size_t i = 0; i < c->nrates; i++)
        if (passes(&c->rates[i]) && c->rates[i].rate > c->lo)
            c->lo = c->rates[i].rate;
    for (size_t i = 0; i < c->nrates; i++) {
        const bench_cap_rate *r = &c->rates[i];
        if (!pending(r) && !passes(r) && r->rate > c->lo && (c->hi == 0 || r->rate < c->hi))
            c->hi = r->rate;
    }
}

void bench_capsearch_spread(const bench_capsearch *c, bench_cap_spread *sp)
{
    memset(sp, 0, sizeof *sp);
    for (size_t i = 0; i < c->nrates; i++) {
        const bench_cap_rate *r = &c->rates[i];
        if (c->lo > 0 && r->rate <= c->lo && clean_pass(r) && r->rate > sp->low)
            sp->low = r->rate;
        if (c->hi > 0 && r->rate >= c->hi && clean_fail(r) && (sp->high == 0 || r->rate < sp->high))
            sp->high = r->rate;
        if (passes(r))
            sp->overruled += r->runs - r->passes;
        if (r->passes && r->passes < r->runs)
            sp->disputed++;
    }
    sp->settled = c->lo > 0 && sp->low > 0 && (c->hi == 0 || sp->high > 0);
    /* A clean verdict beyond [L, H] that contradicts the answer: a rate
     * below L whose runs (two or more) all failed, or one above H whose runs
     * all passed.  (Disputed rates there are transients the verdicts
     * outvoted.) */
    for (size_t i = 0; c->lo > 0 && i < c->nrates; i++) {
        const bench_cap_rate *r = &c->rates[i];
        if ((clean_fail(r) && sp->low > 0 && r->rate < sp->low) ||
            (clean_pass(r) && sp->high > 0 && r->rate > sp->high)) {
            sp->settled = 0;
            sp->against = r->rate;
            sp->against_pass = clean_pass(r);
        }
    }
}

/* Past a boundary whose repeats disagreed, towards the clean verdict found
 * so far on that side (edge; 0: none): first a rate in between that failed
 * once, far above the pass of its time (run again: its failure bounded the
 * search, it may bound the uncertainty); else 1 + 2 x precision beyond the
 * furthest disputed rate, when that is nearer than edge.  0: no step. */
static double edge_rate(const bench_capsearch *c, int above, double edge)
{
    const double f = 1 + 2 * c->precision;
    double far = above ? c->hi : c->lo, once = 0;
    for (size_t i = 0; i < c->nrates; i++) {
        const bench_cap_rate *r = &c->rates[i];
        if (above && r->rate > c->hi && (!edge || r->rate < edge)) {
            if (r->runs == 1 && r->passes == 0 && (!once || r->rate < once))
                once = r->rate;
            if (r->rate > far && !clean_fail(r))
                far = r->rate;
        }
        if (!above && r->rate < far && r->rate > edge && !clean_pass(r))
            far = r->rate;
    }
    if (once > 0)
        return once;
    const double next = above ? (far * f < c->max_rate ? far * f : c->max_rate) : far / f;
    if (above)
        return (!edge || next < edge) && next > far ? next : 0;
    return next > edge ? next : 0;
}

double bench_capsearch_next(bench_capsearch *c)
{
    if (c->end != BENCH_CAP_SEARCHING)
        return 0;
    if (c->steps >= c->max_steps) {
        c->end = c->lo > 0 ? BENCH_CAP_STEPS : BENCH_CAP_NONE;
        return 0;
    }
    c->role = BENCH_CAP_ROLE_SEARCH;
    for (size_t i = 0; i < c->nrates; i++)
        if (pending(&c->rates[i])) {
            c->role = BENCH_CAP_ROLE_CONFIRM;
            return c->rates[i].rate;
        }
    if (c->lo == 0 && c->hi == 0)
        return c->start;
    if (c->lo == 0) {
        if (c->halvings >= BENCH_CAP_MAX_HALVINGS || c->hi / 2 < c->min_rate) {
            c->end = BENCH_CAP_NONE;
            return 0;
        }
        c->halvings++;
        return c->hi / 2;
    }
    if (c->hi == 0) {
        if (c->lo >= c->max_rate) {
            c->end = BENCH_CAP_CEILING;
            return 0;
        }
        return c->lo * 2 < c->max_rate ? c->lo * 2 : c->max_rate;
    }
    if ((c->hi - c->lo) / c->lo > c->precision)
        return (c->lo + c->hi) / 2;
    /* Within the precision: repeat the bracket, hi to three runs, lo to two. */
    c->role = BENCH_CAP_ROLE_REPEAT;
    if (rate_of(c, c->hi)->runs < BENCH_CAP_HI_RUNS)
        return c->hi;
    if (rate_of(c, c->lo)->runs < 2)
        return c->lo;
    bench_cap_spread sp;
    bench_capsearch_spread(c, &sp);
    c->role = BENCH_CAP_ROLE_EDGE;
    double r = edge_rate(c, 1, sp.high);
    if (!(r > 0))
        r = edge_rate(c, 0, sp.low);
    if (r > 0 && c->edges < BENCH_CAP_MAX_EDGES) {
        c->edges++;
        return r;
    }
    /* Settled, or the repeats disagree further than the edge steps reach:
     * bench_capsearch_spread says which. */
    c->end = BENCH_CAP_FOUND;
    return 0;
}

void bench_capsearch_record(bench_capsearch *c, double rate, int pass)
{
    c->steps++;
    if (c->lowest == 0 || rate < c->lowest)
        c->lowest = rate;
    bench_cap_rate *r = rate_of(c, rate);
    if (!r && c->nrates < BENCH_CAP_MAX_STEPS) {
        r = &c->rates[c->nrates++];
        r->rate = rate;
        /* Far above the highest pass, one failure is taken as it is: a
         * transient there only wastes part of the bracket, and the bracket's
         * upper rate is repeated before the search ends. */
        r->far = c->role == BENCH_CAP_ROLE_SEARCH && c->lo > 0 &&
                 rate > c->lo * (1 + BENCH_CAP_NEAR * c->precision);
    }
    if (r) {
        r->runs++;
        r->passes += pass ? 1 : 0;
    }
    bounds(c);
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
    /* The objectives judged on the step's run model, read once. */
    bench_run_model m;
    const int no_model = n && bench_model_from_run(run, NULL, &m) != 0;
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        const int ok = no_model ? -2 : bench_threshold_eval(&objs[i], &m, &v);
        if (ok == 1)
            continue;
        if (ok == -2)
            snprintf(text, sizeof text, "'%s' cannot be judged (out of memory)", objs[i].expr);
        else if (ok < 0)
            snprintf(text, sizeof text, "'%s' cannot be judged (no successful operation)",
                     objs[i].expr);
        else
            snprintf(text, sizeof text, "'%s' %s", objs[i].expr,
                     bench_threshold_observed_text(&objs[i], v, obs, sizeof obs));
        append(st->why, sizeof st->why, text);
    }
    if (n && !no_model)
        bench_model_free(&m);
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
    /* No baseline (the baseline step itself): unknown, so not grown. */
    const int grown = baseline_service_us > 0 && st->service_p50_us > 1.5 * baseline_service_us;
    if (grown)
        st->limit = "target";
    else if (busy)
        st->limit = "threads";
    else if (late_frac > 0.01 || drop_frac > 0.01)
        st->limit = "generator";
    else
        st->limit = "target";     /* its own latency, at a load it carries */
}

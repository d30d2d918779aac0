/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/capdrive.c - the capacity search's driver: each step a run of the
 * run driver (session.c), judged and printed; the answer (capacity.h). */
#include "bench/driver/capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/model.h"
#include "bench/results/results.h"

/* A latency in µs as the summary writes it: 2.079ms, 480µs. */
static const char *lat_text(double us, char *buf, size_t len)
{
    return bench_fmt_ns(us * 1000.0, buf, (unsigned)len);
}

/* Two significant digits: 1998 -> 2000, 437 -> 440. */
static double round2(double v)
{
    if (!(v > 0))
        return 0;
    const double mag = pow(10, floor(log10(v)) - 1);
    return round(v / mag) * mag;
}

static const char *limit_text(const char *limit)
{
    if (!limit)
        return "";
    if (strcmp(limit, "generator") == 0)
        return "the generator: its CPUs were all busy, or requests went out late or were dropped "
               "while the threads were not; hsmbench's machine, not the target, may be the limit";
    if (strcmp(limit, "threads") == 0)
        return "the threads: every one was busy while the target's service time stayed flat; "
               "more --threads may carry more";
    return "the target, saturated: its service time grew with the load";
}

/* Run one step (or the probe); its run element, or NULL when it was not
 * measured.  The step's errors and verdict are judged by the objectives,
 * not counted towards the exit status as a plain run's are. */
static json_t *one_run(bench_capacity *c, const bench_load *load, bench_cap_step_fn fn, void *arg,
                       int step)
{
    bench_session *s = c->s;
    const size_t before = s->nrows;
    const int errors = s->any_errors, failed = s->any_failed;
    fn(arg, load);
    if (s->nrows == before || !s->rows[s->nrows - 1].measured) {
        if (*s->interrupt || s->interrupted) {
            c->interrupted = 1;
        } else {
            c->run_failed = 1;
            /* A run that failed said why already (and the closing table
             * says it again); a skipped one has not. */
            const bench_row *row = s->nrows > before ? &s->rows[s->nrows - 1] : NULL;
            if (row && strcmp(row->status, "failed") != 0) {
                char name[32];
                if (step)
                    snprintf(name, sizeof name, "step %d", step);
                else
                    snprintf(name, sizeof name, "the probe");
                bench_error("--find-capacity: %s was %s: %s", name, row->status, row->reason);
            }
        }
        return NULL;
    }
    if (s->stuck) {
        /* A worker never returned from a call: nothing more is run. */
        c->run_failed = 1;
        bench_error("--find-capacity: the search stops: %s", s->rows[s->nrows - 1].reason);
        return NULL;
    }
    json_t *run = json_array_get(s->runs, json_array_size(s->runs) - 1);
    if (!run) {
        c->run_failed = 1;   /* the run could not be recorded (out of memory, said) */
        return NULL;
    }
    s->any_errors = errors;
    s->any_failed = failed;
    if (json_object_set_new(run, "capacity_step", json_integer(step)) != 0)
        c->run_failed = 1;
    return run;
}

/* What a step was for, after its verdict: "" for a plain search step. */
static const char *role_note(const bench_cap_step *st, char *buf, size_t len)
{
    char svc[32];
    switch (st->role) {
    case BENCH_CAP_ROLE_BASELINE:
        snprintf(buf, len, "  (baseline: service p50 %s)",
                 lat_text(st->service_p50_us, svc, sizeof svc));
        break;
    case BENCH_CAP_ROLE_CONFIRM:
        snprintf(buf, len, "  (re-run of a failure: %s)", st->pass ? "transient, overruled"
                                                                   : "confirmed");
        break;
    case BENCH_CAP_ROLE_REPEAT:
        snprintf(buf, len, "  (boundary repeat)");
        break;
    case BENCH_CAP_ROLE_EDGE:
        snprintf(buf, len, "  (past a boundary whose repeats disagreed)");
        break;
    case BENCH_CAP_ROLE_SEARCH:
        buf[0] = 0;
        break;
    }
    return buf;
}

static void print_step(const bench_cap_step *st, size_t k)
{
    char p50[32], p99[32], note[96];
    printf("step %zu: offered %.0f/s  achieved %.0f/s  p50 %s  p99 %s  errors %.2f %%  ", k,
           st->rate, st->achieved, lat_text(st->p50_us, p50, sizeof p50),
           lat_text(st->p99_us, p99, sizeof p99), st->error_pct);
    role_note(st, note, sizeof note);
    if (st->interrupted)
        printf("interrupted\n");
    else if (st->pass)
        printf("pass%s\n", note);
    else
        printf("fail: %s [%s]%s\n", st->why, st->limit ? st->limit : "?", note);
    bench_flush(stdout);
}

static const char *end_name(bench_cap_end e)
{
    switch (e) {
    case BENCH_CAP_FOUND:   return "found";
    case BENCH_CAP_CEILING: return "ceiling";
    case BENCH_CAP_STEPS:   return "steps";
    case BENCH_CAP_NONE:    return "none";
    case BENCH_CAP_SEARCHING: break;
    }
    return "incomplete";
}

static const char *role_name(bench_cap_role r)
{
    switch (r) {
    case BENCH_CAP_ROLE_BASELINE: return "baseline";
    case BENCH_CAP_ROLE_CONFIRM:  return "confirm";
    case BENCH_CAP_ROLE_REPEAT:   return "repeat";
    case BENCH_CAP_ROLE_EDGE:     return "edge";
    case BENCH_CAP_ROLE_SEARCH:   break;
    }
    return "search";
}

/* The failing bound just above the answer (its first failing step): what
 * limited it. */
static const bench_cap_step *limiting_step(const bench_capacity *c)
{
    for (size_t i = 0; c->search.hi > 0 && i < c->nsteps; i++) {
        const bench_cap_step *st = &c->steps[i];
        if (!st->pass && !st->interrupted && st->role != BENCH_CAP_ROLE_BASELINE &&
            st->rate == c->search.hi)
            return st;
    }
    return NULL;
}

/* The search's result: "unsettled" when a rate's clean verdict contradicts
 * the answer beyond its measured uncertainty. */
static const char *result_name(const bench_capacity *c, const bench_cap_spread *sp)
{
    if (c->interrupted)
        return "interrupted";
    if (c->run_failed)
        return "failed";
    if (c->search.lo > 0 && (sp->against > 0 || (c->search.end == BENCH_CAP_FOUND && !sp->settled)))
        return "unsettled";
    return end_name(c->search.end);
}

static json_t *rate_or_null(double v)
{
    return v > 0 ? json_real(v) : json_null();
}

/* The "uncertainty" member: [L, H] and their distances from the answer
 * (null: no answer). */
static json_t *uncertainty_json(const bench_capsearch *cs, const bench_cap_spread *sp)
{
    if (!(cs->lo > 0))
        return json_null();
    const double a = cs->lo;
    return json_pack("{s:o,s:o,s:o,s:o,s:b,s:I,s:I}", "low", rate_or_null(sp->low), "high",
                     rate_or_null(sp->high), "minus_pct",
                     sp->low > 0 ? json_real(round(1000 * (a - sp->low) / a) / 10) : json_null(),
                     "plus_pct",
                     sp->high > 0 ? json_real(round(1000 * (sp->high - a) / a) / 10) : json_null(),
                     "settled", sp->settled, "overruled", (json_int_t)sp->overruled, "disputed",
                     (json_int_t)sp->disputed);
}

static json_t *capacity_json(const bench_capacity *c)
{
    const bench_cap_opts *o = c->o;
    const bench_capsearch *cs = &c->search;
    json_t *obj = json_object(), *objs = json_array(), *steps = json_array();
    int rc = !obj || !objs || !steps;
    for (size_t i = 0; !rc && i < o->nobjectives; i++)
        rc |= json_array_append_new(objs, json_string(o->objectives[i].expr));
    for (size_t i = 0; !rc && i < c->nsteps; i++) {
        const bench_cap_step *st = &c->steps[i];
        json_t *j = json_pack("{s:f,s:s,s:f,s:f,s:f,s:f,s:b,s:s?,s:s?,s:f,s:I,s:I,s:I}", "rate",
                              st->rate, "role", role_name(st->role), "achieved", round(st->achieved * 100) / 100, "p50_us",
                              st->p50_us, "p99_us", st->p99_us, "error_pct", st->error_pct, "pass",
                              st->pass, "why", st->why[0] ? st->why : NULL, "limit", st->limit,
                              "utilisation", round(st->utilisation * 1000) / 1000, "scheduled",
                              (json_int_t)st->scheduled, "late", (json_int_t)st->late, "dropped",
                              (json_int_t)st->dropped);
        rc |= !j || json_array_append_new(steps, j);
    }
    const bench_cap_end end = c->interrupted ? BENCH_CAP_SEARCHING : cs->end;
    const bench_cap_step *lim = limiting_step(c);
    bench_cap_spread sp;
    bench_capsearch_spread(cs, &sp);
    const char *limited_by = end == BENCH_CAP_CEILING ? "ceiling"
                           : end == BENCH_CAP_STEPS && !cs->hi ? "steps"
                           : lim ? lim->limit : NULL;
    if (!rc) {
        rc |= json_object_set_new(obj, "objectives", objs);
        objs = NULL;
        rc |= json_object_set_new(obj, "precision", json_real(o->precision));
        rc |= json_object_set_new(obj, "step_s", json_real((double)o->step_ns / 1e9));
        rc |= json_object_set_new(obj, "threads", json_integer(c->threads));
        rc |= json_object_set_new(obj, "result", json_string(result_name(c, &sp)));
        rc |= json_object_set_new(obj, "ops_per_s", rate_or_null(cs->lo));
        rc |= json_object_set_new(obj, "bounds", json_pack("[o,o]", rate_or_null(cs->lo),
                                                           rate_or_null(cs->hi)));
        rc |= json_object_set_new(obj, "bracket_pct",
                                  cs->lo > 0 && cs->hi > 0
                                      ? json_real(round(1000 * (cs->hi - cs->lo) / cs->lo) / 10)
                                      : json_null());
        rc |= json_object_set_new(obj, "uncertainty", uncertainty_json(cs, &sp));
        if (sp.against > 0)
            rc |= json_object_set_new(obj, "against",
                                      json_pack("{s:f,s:b}", "rate", sp.against, "pass",
                                                sp.against_pass));
        rc |= json_object_set_new(obj, "start_rate", json_real(cs->start));
        rc |= json_object_set_new(obj, "baseline_service_us",
                                  c->baseline_us > 0 ? json_real(round(c->baseline_us * 100) / 100)
                                                     : json_null());
        rc |= json_object_set_new(obj, "probe_ops_per_s",
                                  c->probe_rate > 0 ? json_real(round(c->probe_rate * 100) / 100)
                                                    : json_null());
        rc |= json_object_set_new(obj, "limited_by",
                                  limited_by ? json_string(limited_by) : json_null());
        rc |= json_object_set_new(obj, "steps", steps);
        steps = NULL;
    }
    json_decref(objs);
    json_decref(steps);
    if (rc) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* The baseline step: a quarter of the first rate, half a step (at least
 * 100 ms, at most the step), to measure the target's service time before
 * any step is judged: the probe ran every thread back to back, and a target
 * with fewer engines than threads queued them inside, in its service time. */
static double baseline_rate(double start)
{
    return start / 4;
}

static uint64_t baseline_ns(uint64_t step_ns)
{
    const uint64_t half = step_ns / 2, floor_ns = 100000000ULL;
    return half >= floor_ns ? half : step_ns < floor_ns ? step_ns : floor_ns;
}

void bench_capacity_run(bench_capacity *c, bench_session *s, const bench_cap_opts *o,
                        const bench_load *base, bench_cap_step_fn fn, void *arg)
{
    const int quiet = s->out->quiet;
    memset(c, 0, sizeof *c);
    c->o = o;
    c->s = s;
    c->base = *base;             /* fn may change what base points to */
    base = &c->base;
    c->threads = base->threads;
    s->brief = 1;

    double start = o->start_rate;
    if (!(start > 0)) {
        /* A closed-loop probe: what the threads carry back to back. */
        bench_load pl = *base;
        pl.mode = BENCH_MODE_BLOCKING;
        pl.rate = 0;
        pl.inflight = 0;
        pl.stages = NULL;
        if (!quiet) {
            printf("probe: closed loop, %u thread%s, %.4g s\n", base->threads,
                   base->threads == 1 ? "" : "s", (double)base->duration_ns / 1e9);
            bench_flush(stdout);
        }
        const json_t *run = one_run(c, &pl, fn, arg, 0);
        if (!run)
            goto out;
        bench_run_model pm;
        if (bench_model_from_run(run, NULL, &pm) != 0) {
            bench_error("out of memory");
            c->run_failed = 1;
            goto out;
        }
        const int interrupted = strcmp(pm.status, "interrupted") == 0;
        const int sound = bench_model_status_sound(pm.status);
        c->probe_rate = pm.ops_per_s;
        if (!interrupted && (!sound || !(c->probe_rate > 0)))
            bench_error("--find-capacity: the closed-loop probe %s (%s); give the first rate "
                        "with --rate", c->probe_rate > 0 ? "failed" : "completed no operation",
                        pm.reason[0] ? pm.reason : "no successes");
        bench_model_free(&pm);
        if (interrupted) {
            c->interrupted = 1;
            goto out;
        }
        if (!sound || !(c->probe_rate > 0)) {
            c->run_failed = 1;
            goto out;
        }
        start = round2(c->probe_rate / 2);
        if (!quiet) {
            printf("probe: %.0f/s closed loop; first step at %.0f/s\n", c->probe_rate, start);
            bench_flush(stdout);
        }
    }
    /* The baseline step counts as one of --max-steps. */
    /* A step schedules one request at least: the search goes no lower. */
    const double min_rate = 1e9 / (double)o->step_ns;
    if (start < min_rate) {
        char st[32];
        bench_error("--find-capacity: the probe measured %g/s, fewer than one request a --step of "
                    "%s; give a --step of at least %gs", c->probe_rate,
                    bench_fmt_ns((double)o->step_ns, st, sizeof st), ceil(1 / start));
        c->run_failed = 1;
        goto out;
    }
    bench_capsearch_init(&c->search, start, o->precision, BENCH_CAP_MAX_RATE, o->max_steps - 1);
    c->search.min_rate = min_rate;
    /* As environment.host.cpus has it: what client_cpu is judged against. */
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const double host_cpus = ncpu > 0 ? (double)ncpu : 0;
    if (!quiet) {
        /* Every step, the baseline's included, is at most --step and its warm-up. */
        char worst[32];
        bench_fmt_ns((double)o->max_steps * (double)(base->duration_ns + base->warmup_ns), worst,
                     sizeof worst);
        printf("search: at most %u steps of %.4g s%s (%s at most)\n", o->max_steps,
               (double)base->duration_ns / 1e9, base->warmup_ns ? " and the warm-up" : "", worst);
        bench_flush(stdout);
    }
    double rate = baseline_rate(start);
    bench_cap_role role = BENCH_CAP_ROLE_BASELINE;
    while (rate > 0 && c->nsteps < BENCH_CAP_MAX_STEPS) {
        if (*s->interrupt) {
            c->interrupted = 1;
            break;
        }
        bench_load l = *base;
        l.mode = BENCH_MODE_NONBLOCKING;
        l.rate = rate;
        l.stages = NULL;
        if (role == BENCH_CAP_ROLE_BASELINE)
            l.duration_ns = baseline_ns(base->duration_ns);
        const json_t *run = one_run(c, &l, fn, arg, (int)c->nsteps + 1);
        if (!run)
            break;
        bench_cap_step *st = &c->steps[c->nsteps++];
        bench_cap_judge(o->objectives, o->nobjectives, run, rate, c->baseline_us, host_cpus, st);
        st->role = role;
        if (role == BENCH_CAP_ROLE_BASELINE && !st->interrupted) {
            c->baseline_us = st->service_p50_us;
            c->baseline_rate = rate;
        }
        if (!quiet)
            print_step(st, c->nsteps);
        if (st->interrupted) {
            c->interrupted = 1;
            break;
        }
        if (role != BENCH_CAP_ROLE_BASELINE) {
            bench_capsearch_record(&c->search, rate, st->pass);
            /* The target's service time at the lowest rate measured so far. */
            if (rate < c->baseline_rate || !(c->baseline_us > 0)) {
                c->baseline_rate = rate;
                c->baseline_us = st->service_p50_us;
            }
        }
        rate = bench_capsearch_next(&c->search);
        role = c->search.role;
    }
out:
    s->brief = 0;
    if (!(c->obj = capacity_json(c)))
        bench_error("out of memory while recording the capacity search");
}

/* One run's line of the closing table, from its run model. */
static void table_row(const bench_capacity *c, FILE *f, const bench_run_model *m)
{
    const long long k = m->capacity_step;
    char step[16], p50[32], p99[32];
    if (k == 0)
        snprintf(step, sizeof step, "probe");
    else
        snprintf(step, sizeof step, "%lld", k);
    if (!m->measured) {
        fprintf(f, "%-6s %12s %12s %10s %10s %7s  %s: %s\n", k < 0 ? "-" : step, "-", "-", "-",
                "-", "-", m->status[0] ? m->status : "?", m->reason);
        return;
    }
    const char *verdict = "closed loop";
    char offered[32], vbuf[48];
    snprintf(offered, sizeof offered, "-");
    if (k > 0 && (size_t)k <= c->nsteps) {
        const bench_cap_step *st = &c->steps[k - 1];
        snprintf(offered, sizeof offered, "%.0f", st->rate);
        verdict = st->interrupted ? "interrupted" : st->pass ? "pass" : "fail";
        if (st->role != BENCH_CAP_ROLE_SEARCH && !st->interrupted) {
            snprintf(vbuf, sizeof vbuf, "%s (%s)", verdict, role_name(st->role));
            verdict = vbuf;
        }
    }
    fprintf(f, "%-6s %12s %12.0f %10s %10s %7.2f  %s", step, offered, m->ops_per_s,
            lat_text(m->latency.present ? m->latency.p50 : 0, p50, sizeof p50),
            lat_text(m->latency.present ? m->latency.p99 : 0, p99, sizeof p99), m->error_pct, verdict);
    if (k > 0 && (size_t)k <= c->nsteps && c->steps[k - 1].why[0] && !c->steps[k - 1].pass)
        fprintf(f, ": %s", c->steps[k - 1].why);
    fputc('\n', f);
}

/* The closing table: every run of the search, the probe first. */
static void table(void *arg, FILE *f, const json_t *runs)
{
    const bench_capacity *c = arg;
    size_t i;
    const json_t *run;
    fprintf(f, "\n%-6s %12s %12s %10s %10s %7s  %s\n", "STEP", "OFFERED/S", "ACHIEVED/S", "P50",
            "P99", "ERR%", "VERDICT");
    json_array_foreach(runs, i, run) {
        bench_run_model m;
        if (bench_model_from_run(run, NULL, &m) != 0) {
            fputs("(out of memory)\n", f);
            continue;
        }
        table_row(c, f, &m);
        bench_model_free(&m);
    }
    bench_flush(f);
}


int bench_capacity_finish(bench_capacity *c, json_t *environment, json_t *command)
{
    bench_session *s = c->s;
    const int quiet = s->out->quiet;
    if (c->obj) {
        json_t *extra = json_pack("{s:O}", "capacity", c->obj);
        if (!extra)
            s->any_failed = 1;
        json_decref(s->doc_extra);
        s->doc_extra = extra;
    } else {
        s->any_failed = 1;
    }
    s->table = table;
    s->table_arg = c;
    int rc = bench_session_finish(s, environment, command);
    if (c->obj && !c->interrupted && !c->run_failed) {
        char line[1200];
        /* The answer is the command's result: printed even with --quiet,
         * from the object the file has, read as a saved file's is. */
        bench_cap_answer ans;
        if (bench_cap_answer_of(c->obj, &ans) != 0) {
            bench_error("out of memory");
            rc = rc == BENCH_EXIT_OK ? BENCH_EXIT_FAILED : rc;
        } else {
            printf("%s%s\n", quiet ? "" : "\n", bench_cap_answer_text(&ans, line, sizeof line));
        }
        const bench_cap_step *lim = limiting_step(c);
        if (!quiet && lim && c->search.lo > 0)
            printf("limited by: %s (at %.0f/s: %s)\n", limit_text(lim->limit), lim->rate, lim->why);
        if (bench_stdout_check("--find-capacity") != 0 && rc == BENCH_EXIT_OK)
            rc = BENCH_EXIT_FAILED;
        /* No rate passed, or the steps contradict the answer beyond its
         * measured uncertainty. */
        if ((!(c->search.lo > 0) || (ans.result && strcmp(ans.result, "unsettled") == 0)) && rc == BENCH_EXIT_OK)
            rc = BENCH_EXIT_FAILED;
        bench_cap_answer_free(&ans);
    } else if (rc == BENCH_EXIT_OK) {
        rc = BENCH_EXIT_FAILED;     /* a step could not run: no answer */
    }
    json_decref(c->obj);
    c->obj = NULL;
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* p11/replay_run.c - a replay's run: the model's transactions as one workload. */
#include "p11/replay_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/driver/rundesc.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "p11/mix.h"
#include "p11/names.h"

/* ---- the plan: distinct steps ------------------------------------------ */

static int same_params(const p11_test_params *a, const p11_test_params *b)
{
    return a->key_bits == b->key_bits && a->data_size == b->data_size && a->hash == b->hash &&
           a->aad_size == b->aad_size &&
           (a->curve == b->curve || (a->curve && b->curve && strcmp(a->curve, b->curve) == 0));
}

int p11_replay_plan(const p11_replay_model *m, p11_replay_ctx *rc, char *err, size_t errlen)
{
    memset(rc, 0, sizeof *rc);
    rc->m = m;
    unsigned nside = 0;
    for (unsigned k = 0; k < m->nkinds; k++) {
        const p11_replay_kind *kd = &m->kinds[k];
        for (unsigned i = 0; i < kd->nsteps; i++) {
            const p11_replay_step *st = &kd->steps[i];
            unsigned p = 0;
            while (p < rc->nprep && !(rc->defs[p] == st->def && same_params(&rc->params[p], &st->params)))
                p++;
            if (p == rc->nprep) {
                if (rc->nprep == P11_REPLAY_MAX_PREPARED) {
                    snprintf(err, errlen, "%s: more than %d distinct steps (test and parameters) "
                             "to prepare", m->path, P11_REPLAY_MAX_PREPARED);
                    return -1;
                }
                rc->defs[p] = st->def;
                rc->params[p] = st->params;
                rc->labels[p] = st->def->name;
                rc->nprep++;
            }
            rc->prep_of[k][i] = p;
            rc->side_of[k][i] = nside++;
        }
        rc->kind_labels[k] = kd->name;
        rc->weights[k] = kd->share;
    }
    rc->side = (bench_side_spec){ nside, nside };
    return 0;
}

/* ---- the workload ------------------------------------------------------ */

typedef struct replay_worker {
    p11_replay_ctx *rc;                      /* read only, but for its arrival counter */
    void       *st[P11_REPLAY_MAX_PREPARED];   /* each prepared step's state */
    bench_side *side;
    unsigned    cur;                         /* the kind of the transaction just ended */
    unsigned    ndone;                       /* its steps that succeeded */
    int         failed;                      /* its step ndone failed */
    uint64_t    call_ns[P11_REPLAY_MAX_STEPS];
} replay_worker;

static void replay_close(void *state)
{
    replay_worker *rw = state;
    p11_states_close(rw->rc->inner, rw->rc->nprep, rw->st);
    free(rw);
}

static int replay_open(void *ctx, unsigned index, void **state, char *err, size_t errlen)
{
    p11_replay_ctx *rc = ctx;
    replay_worker *rw = calloc(1, sizeof *rw);
    if (!rw) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rw->rc = rc;
    if (p11_states_open(rc->inner, rc->labels, rc->nprep, index, rw->st, err, errlen) != 0) {
        free(rw);
        return -1;
    }
    *state = rw;
    return 0;
}

/*
 * One transaction: the next arrival's kind, its steps in order, each after
 * its think time; the first failure ends it with that step's code (after
 * the step's own after(), which may recover a session or destroy what the
 * step made: inside the transaction, as the application would wait for it).
 */
static bench_code replay_do(void *state)
{
    replay_worker *rw = state;
    p11_replay_ctx *rc = rw->rc;
    const p11_replay_model *m = rc->m;
    const uint64_t k = atomic_fetch_add_explicit(&rc->next, 1, memory_order_relaxed);
    const unsigned kind = m->arrivals[k % m->narrivals].kind;
    const p11_replay_kind *kd = &m->kinds[kind];
    rw->cur = kind;
    rw->ndone = 0;
    rw->failed = 0;
    for (unsigned i = 0; i < kd->nsteps; i++) {
        if (kd->steps[i].think_ns)
            bench_sleep_until_ns(bench_now_ns() + kd->steps[i].think_ns);
        const unsigned p = rc->prep_of[kind][i];
        const bench_workload *in = &rc->inner[p];
        const uint64_t t0 = bench_now_ns();
        bench_code code = in->do_one(rw->st[p]);
        const uint64_t t1 = bench_now_ns();
        if (in->after && (code != BENCH_OK || in->after_always))
            code = in->after(rw->st[p], code);
        if (code != BENCH_OK) {
            rw->failed = 1;
            return code;
        }
        rw->call_ns[rw->ndone++] = t1 - t0;
    }
    return BENCH_OK;
}

static void replay_side_bind(void *state, bench_side *side)
{
    ((replay_worker *)state)->side = side;
}

/* Each successful call's latency under its (kind, step); a failed step counted. */
static void replay_side_flush(void *state)
{
    const replay_worker *rw = state;
    const p11_replay_ctx *rc = rw->rc;
    for (unsigned i = 0; i < rw->ndone; i++)
        bench_side_record(rw->side, rc->side_of[rw->cur][i], rw->call_ns[i]);
    if (rw->failed)
        bench_side_add(rw->side, rc->side_of[rw->cur][rw->ndone], 1);
}

static unsigned replay_class_of(const void *state)
{
    return ((const replay_worker *)state)->cur;
}

static void replay_code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    const p11_replay_ctx *rc = ctx;
    rc->inner[0].code_name(rc->inner[0].ctx, code, buf, len);
}

/* The workload, once rc->ctx[] are prepared: fills rc->inner, the
 * breakdown, and w. */
static void p11_replay_workload(p11_replay_ctx *rc, bench_workload *w)
{
    const p11_replay_model *m = rc->m;
    memset(w, 0, sizeof *w);
    for (unsigned i = 0; i < rc->nprep; i++)
        p11_test_workload(rc->ctx[i], &rc->inner[i]);
    for (unsigned k = 0; k < m->nkinds; k++) {
        rc->kind_bytes[k] = 0;
        for (unsigned i = 0; i < m->kinds[k].nsteps; i++)
            rc->kind_bytes[k] += rc->inner[rc->prep_of[k][i]].bytes_per_op;
    }
    rc->by = (bench_breakdown){ "transaction", m->nkinds, rc->kind_labels, rc->weights,
                                replay_class_of, rc->kind_bytes };
    w->ctx = rc;
    w->open = replay_open;
    w->do_one = replay_do;
    w->close = replay_close;
    w->code_name = replay_code_name;
    w->call = "a module call";
    w->side = &rc->side;
    w->side_bind = replay_side_bind;
    w->side_flush = replay_side_flush;
    w->breakdown[0] = &rc->by;
}

/* ---- the run ------------------------------------------------------------ */

/* What a replay's run owns, destroyed after it in every case. */
typedef struct replay_run {
    p11_replay_ctx  rc;
    double          speed;
    int             closed;
    bench_arrivals  arr;
    uint64_t       *at;
    char            test[96];   /* "replay:<base name>" */
} replay_run;

static void replay_free(void *arg)
{
    replay_run *x = arg;
    for (unsigned i = 0; i < x->rc.nprep; i++)
        if (x->rc.ctx[i]) {
            p11_test_release(x->rc.ctx[i]);
            free(x->rc.ctx[i]);
        }
    free(x->at);
    free(x);
}

/* A distribution as other runs' latency objects, or {"count": 0}. */
static json_t *dist_json(const bench_hist *h)
{
    return h && bench_hist_count(h) ? bench_report_latency_json(h) : json_pack("{s:i}", "count", 0);
}

/* "replay": source, path, speed, loop, the model, and per transaction and
 * per step: attempts, errors and latency. */
static int replay_json(void *arg, json_t *run, const bench_outcome *o)
{
    const replay_run *x = arg;
    const p11_replay_model *m = x->rc.m;
    json_t *model = p11_replay_model_json(m);
    json_t *rp = json_object(), *txs = json_array();
    int rc = !model || !rp || !txs;
    if (!rc) {
        rc |= json_object_set(rp, "source", json_object_get(model, "source"));
        rc |= json_object_set_new(rp, "path", json_string(m->path));
        rc |= json_object_set_new(rp, "speed", json_real(x->speed));
        rc |= json_object_set_new(rp, "loop", json_string(x->closed ? "closed" : "open"));
        rc |= json_object_set_new(rp, "model", model);
        model = NULL;
    }
    for (unsigned k = 0; !rc && o && k < m->nkinds; k++) {
        const p11_replay_kind *kd = &m->kinds[k];
        const bench_class_outcome *c = o->by[0] && k < o->nby[0] ? &o->by[0][k] : NULL;
        json_t *t = json_object(), *steps = json_array();
        rc |= !t || !steps || json_array_append_new(txs, t);
        if (rc) {
            json_decref(steps);
            break;
        }
        rc |= json_object_set_new(t, "name", json_string(kd->name));
        rc |= json_object_set_new(t, "share", json_real(kd->share));
        rc |= json_object_set_new(t, "attempts", json_integer(c ? (json_int_t)c->ops : 0));
        rc |= json_object_set_new(t, "errors", json_integer(c ? (json_int_t)c->errors : 0));
        rc |= json_object_set_new(t, "latency_us", dist_json(c ? c->hist : NULL));
        rc |= json_object_set_new(t, "steps", steps);
        for (unsigned i = 0; !rc && i < kd->nsteps; i++) {
            const unsigned si = x->rc.side_of[k][i];
            char mech[48];
            const p11_replay_step *st = &kd->steps[i];
            const char *mname = st->def->op == P11_OP_RANDOM ? "C_GenerateRandom"
                              : st->def->op == P11_OP_FIND   ? "C_FindObjects"
                                                             : p11_mech_name(p11_test_mech(st->def, &st->params),
                                                                             mech, sizeof mech);
            json_t *so = json_pack("{s:s,s:s,s:f,s:I,s:o}", "test", st->def->name, "mechanism", mname,
                                   "think_us", (double)st->think_ns / 1e3, "errors",
                                   (json_int_t)bench_side_count(&o->side, si), "latency_us",
                                   dist_json(bench_side_hist(&o->side, si)));
            rc |= !so || json_array_append_new(steps, so);
        }
    }
    if (!rc)
        rc |= json_object_set_new(rp, "transactions", txs);
    else
        json_decref(txs);
    json_decref(model);
    if (!rc)
        return json_object_set_new(run, "replay", rp) ? -1 : 0;
    json_decref(rp);
    return -1;
}

/* A line per step after the summary: each call's own latency. */
static void replay_summary(void *arg, FILE *f, const json_t *run, const bench_run_model *mod)
{
    (void)arg;
    (void)mod;
    const json_t *rp = json_object_get(run, "replay");
    size_t k, i;
    const json_t *t, *st;
    if (!rp)
        return;
    fprintf(f, "    replay................: %s at %.2fx (%s loop); each call's own latency:\n",
            bench_json_str(rp, "path", "?"), bench_json_num(rp, "speed", 1),
            bench_json_str(rp, "loop", "open"));
    json_array_foreach(json_object_get(rp, "transactions"), k, t) {
        json_array_foreach(json_object_get(t, "steps"), i, st) {
            const json_t *l = json_object_get(st, "latency_us");
            char a[32], b[32];
            fprintf(f, "      %-24s %2zu %-22s p50 %9s  p99 %9s  %lld calls, %lld failed\n",
                    i ? "" : bench_json_str(t, "name", "?"), i + 1, bench_json_str(st, "test", "?"),
                    bench_fmt_ns(bench_json_num(l, "p50", 0) * 1e3, a, sizeof a),
                    bench_fmt_ns(bench_json_num(l, "p99", 0) * 1e3, b, sizeof b),
                    bench_json_int(l, "count", 0), bench_json_int(st, "errors", 0));
        }
    }
}

/* The model's base name: "jwe-decrypt.scn" of "/x/y/jwe-decrypt.scn". */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* The arrivals at `speed` into x->arr: one pass, or, with `loop`, looped
 * when the load's duration is longer than the pass.  0, or -1 when out of
 * memory. */
static int schedule(replay_run *x, const p11_replay_model *m, bench_load *load, int loop)
{
    if (!(x->at = malloc(m->narrivals * sizeof *x->at)))
        return -1;
    for (size_t i = 0; i < m->narrivals; i++)
        x->at[i] = (uint64_t)((double)m->arrivals[i].at_ns / x->speed);
    uint64_t period = (uint64_t)((double)m->span_ns / x->speed);
    if (period <= x->at[m->narrivals - 1])
        period = x->at[m->narrivals - 1] + 1;
    x->arr = (bench_arrivals){ x->at, m->narrivals, 0 };
    if (loop && load->duration_ns > period)
        x->arr.period_ns = period;
    load->arrivals = &x->arr;
    load->rate = 0;
    load->stages = NULL;
    load->inflight = 0;
    return 0;
}

void p11_replay_run(p11_runner *r, const p11_replay_model *m, double speed)
{
    bench_session *s = r->session;
    char err[300], keydesc[48];
    bench_run_desc d;
    replay_run *x = calloc(1, sizeof *x);

    p11_runner_release(r);
    if (!x) {
        bench_error("out of memory");
        s->any_failed = 1;
        return;
    }
    if (p11_replay_plan(m, &x->rc, err, sizeof err) != 0) {
        bench_error("%s", err);
        s->any_failed = 1;
        free(x);
        return;
    }
    x->speed = speed;
    x->closed = r->load.mode == BENCH_MODE_BLOCKING;
    snprintf(x->test, sizeof x->test, "replay:%.80s", base_name(m->path));
    const bench_load saved = r->load;
    if (!r->load.duration_ns) {
        /* One pass: it ends when its last transaction has; this bounds it
         * when the token cannot keep up (a tenth and a second past it). */
        const double pass_ns = (double)m->span_ns / speed;
        r->load.duration_ns = (uint64_t)(pass_ns * 1.1) + 1000000000ULL;
    }
    if (!x->closed && schedule(x, m, &r->load, saved.duration_ns != 0) != 0) {
        bench_error("out of memory for %zu arrivals", m->narrivals);
        s->any_failed = 1;
        free(x);
        return;
    }
    memset(&d, 0, sizeof d);
    bench_run_desc_load(&d, &r->load, NULL, "worker pool", 0);
    d.test = x->test;
    snprintf(keydesc, sizeof keydesc, "%u transaction kind%s", m->nkinds, m->nkinds == 1 ? "" : "s");
    d.key_desc = keydesc;
    d.data_desc = "the steps' data sizes";
    bench_run_hooks hooks = { .arg = x, .summary = replay_summary, .json = replay_json };
    p11_test_params in[P11_REPLAY_MAX_PREPARED];
    memcpy(in, x->rc.params, sizeof in);
    if (p11_runner_offered_all(r, &d, &hooks, x->rc.nprep, x->rc.defs, x->rc.labels, in,
                               x->rc.params) <= 0 ||
        p11_runner_prepare_all(r, &d, &hooks, x->rc.nprep, x->rc.defs, x->rc.labels, x->rc.params,
                               x->rc.ctx) != 0) {
        r->load = saved;
        free(x->at);
        free(x);
        return;
    }
    bench_workload w;
    p11_replay_workload(&x->rc, &w);
    (void)p11_runner_run_prepared(r, &d, &w, &hooks, x->rc.ctx, x->rc.nprep, replay_free, x);
    r->load = saved;
}

void p11_replay_cap_step(void *arg, const bench_load *load)
{
    const p11_replay_step_arg *a = arg;
    a->r->load = *load;    /* the step's length: the arrivals loop over it */
    p11_replay_run(a->r, a->m, load->rate / a->m->rate);
}

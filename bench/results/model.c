/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/model.c - the run model: a run element read once into every figure its views show. */
#include "bench/results/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/results/series.h"

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static uint64_t count_of(const json_t *obj, const char *key)
{
    const long long v = bench_json_int(obj, key, 0);
    return v > 0 ? (uint64_t)v : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void bench_model_latency_of(const json_t *lat, bench_model_latency *l)
{
    memset(l, 0, sizeof *l);
    if (!json_is_object(lat))
        return;
    l->present = 1;
    l->min = bench_json_num(lat, "min", 0);
    l->mean = bench_json_num(lat, "mean", 0);
    l->stddev = bench_json_num(lat, "stddev", 0);
    l->p50 = bench_json_num(lat, "p50", 0);
    l->p90 = bench_json_num(lat, "p90", 0);
    l->p95 = bench_json_num(lat, "p95", 0);
    l->p99 = bench_json_num(lat, "p99", 0);
    l->p999 = bench_json_num(lat, "p999", 0);
    l->max = bench_json_num(lat, "max", 0);
    l->count = count_of(lat, "count");
}

static int by_count(const void *a, const void *b)
{
    const bench_model_code *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* errors_by_code, most frequent first (ties by name: the same order every time). */
static int codes_of(const json_t *by, bench_model_code **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const size_t k = json_is_object(by) ? json_object_size(by) : 0;
    if (!k)
        return 0;
    bench_model_code *c = calloc(k, sizeof *c);
    if (!c)
        return -1;
    const char *name;
    json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)by, name, v) {
        if (i == k)
            break;
        copy(c[i].name, sizeof c[i].name, name);
        c[i].count = json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
        i++;
    }
    qsort(c, i, sizeof *c, by_count);
    *out = c;
    *n = i;
    return 0;
}

/* The run's per-second series, however its document holds it (series.h). */
static int seconds_of(const json_t *run, bench_run_model *m)
{
    bench_seconds s;
    if (bench_run_seconds(run, &s) != 0)
        return -1;
    if (s.n && !(m->seconds = malloc(s.n * sizeof *m->seconds))) {
        bench_seconds_release(&s);
        return -1;
    }
    if (s.n)
        memcpy(m->seconds, s.s, s.n * sizeof *m->seconds);
    m->nseconds = s.n;
    bench_seconds_release(&s);
    return 0;
}

static int classes_of(const json_t *breakdown, bench_run_model *m)
{
    const size_t n = json_is_object(breakdown) ? json_object_size(breakdown) : 0;
    if (!n)
        return 0;
    if (!(m->by = calloc(n, sizeof *m->by)))
        return -1;
    const char *dim;
    json_t *arr;
    json_object_foreach((json_t *)breakdown, dim, arr) {
        if (m->nby == n)
            break;
        bench_model_breakdown *b = &m->by[m->nby++];
        copy(b->dimension, sizeof b->dimension, dim);
        const size_t k = json_is_array(arr) ? json_array_size(arr) : 0;
        if (!k)
            continue;
        if (!(b->classes = calloc(k, sizeof *b->classes)))
            return -1;
        size_t i;
        const json_t *cl;
        json_array_foreach(arr, i, cl) {
            bench_model_class *c = &b->classes[i];
            copy(c->label, sizeof c->label, bench_json_str(cl, "class", "?"));
            const json_t *w = json_object_get(cl, "weight");
            c->has_weight = json_is_number(w);
            c->weight = c->has_weight ? json_number_value(w) : 0;
            c->ops = count_of(cl, "ops");
            c->errors = count_of(cl, "errors");
            c->attempts = c->ops + c->errors;
            c->error_pct = pct(c->errors, c->attempts);
            c->ops_per_s = bench_json_num(cl, "ops_per_s", 0);
            c->attempts_per_s = bench_json_num(cl, "attempts_per_s", c->ops_per_s);
            c->share_pct = pct(c->attempts, m->attempts);
            bench_model_latency_of(json_object_get(cl, "latency_us"), &c->latency);
            bench_model_code *codes;
            size_t nc;
            if (codes_of(json_object_get(cl, "errors_by_code"), &codes, &nc) != 0)
                return -1;
            if (nc)
                copy(c->top_error, sizeof c->top_error, codes[0].name);
            free(codes);
        }
        b->n = k;
    }
    return 0;
}

/* Every token's label when the run spans several (environment.tokens). */
static int tokens_of(const json_t *env, bench_run_model *m)
{
    const json_t *toks = json_object_get(env, "tokens");
    const size_t n = json_is_array(toks) ? json_array_size(toks) : 0;
    if (!n)
        return 0;
    if (!(m->tokens = calloc(n, sizeof *m->tokens)))
        return -1;
    size_t i;
    const json_t *t;
    json_array_foreach(toks, i, t) {
        const char *label = json_is_string(t) ? json_string_value(t) : bench_json_str(t, "label", "?");
        const char *serial = bench_json_str(t, "serial", NULL);
        const size_t len = strlen(label) + (serial ? strlen(serial) + 16 : 0) + 1;
        if (!(m->tokens[i] = malloc(len)))
            return -1;
        m->ntokens = i + 1;
        if (serial && *serial)
            snprintf(m->tokens[i], len, "%s (serial %s)", label, serial);
        else
            snprintf(m->tokens[i], len, "%s", label);
    }
    return 0;
}

/* The run's judged thresholds (threshold.h), strings copied. */
static int thresholds_of(const json_t *ths, bench_run_model *m)
{
    const size_t n = json_array_size(ths);   /* 0 for what is not an array */
    if (n && !(m->thresholds = calloc(n, sizeof *m->thresholds)))
        return -1;
    size_t i;
    const json_t *t;
    json_array_foreach(ths, i, t) {
        const json_t *obs = json_object_get(t, "observed");
        bench_model_threshold *x = &m->thresholds[i];
        m->nthresholds = i + 1;
        const char *expr = bench_json_str(t, "expr", NULL), *unit = bench_json_str(t, "unit", NULL);
        x->ok = json_is_true(json_object_get(t, "ok"));
        x->has_observed = json_is_number(obs);
        x->observed = x->has_observed ? json_number_value(obs) : 0;
        if ((expr && !(x->expr = strdup(expr))) || (unit && !(x->unit = strdup(unit))))
            return -1;
    }
    return 0;
}

static int flag(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* TLS as the endpoint says: none over http:// whatever an older file's
 * "tls" object claims (it said verify: true for plain HTTP). */
static void tls_of(const json_t *env, const json_t *run, bench_model_tls *t)
{
    memset(t, 0, sizeof *t);
    t->verified = t->custom_ca = t->client_cert = -1;
    const json_t *ep = json_object_get(env, "endpoint");
    if (!json_is_object(ep))
        return;
    const char *url = bench_json_str(json_object_get(run, "rest"), "url", bench_json_str(ep, "url", ""));
    const json_t *tls = json_object_get(ep, "tls");
    if (strncasecmp(url, "http://", 7) == 0 || (json_is_null(tls) && strncasecmp(url, "https://", 8) != 0)) {
        t->kind = BENCH_TLS_NONE;
        copy(t->scheme, sizeof t->scheme, "http");
        return;
    }
    t->kind = BENCH_TLS_ON;
    copy(t->scheme, sizeof t->scheme, "https");
    t->verified = flag(tls, "verify");
    t->custom_ca = flag(tls, "custom_ca");
    t->client_cert = flag(tls, "client_cert");
}

/* A capacity step's verdict: capacity.steps[k - 1] of the document. */
static void step_of(const json_t *doc, const json_t *run, bench_run_model *m)
{
    const json_t *k = json_object_get(run, "capacity_step");
    m->capacity_step = json_is_integer(k) ? (long long)json_integer_value(k) : -1;
    if (m->capacity_step < 1)
        return;
    const json_t *st = json_array_get(json_object_get(json_object_get(doc, "capacity"), "steps"),
                                      (size_t)(m->capacity_step - 1));
    const json_t *pass = json_object_get(st, "pass");
    if (!json_is_boolean(pass))
        return;
    m->step_judged = 1;
    m->step_pass = json_is_true(pass);
    const char *why = bench_json_str(st, "why", "");
    const char *limit = bench_json_str(st, "limit", NULL);
    if (limit && *why)
        snprintf(m->step_why, sizeof m->step_why, "%s [%s]", why, limit);
    else
        copy(m->step_why, sizeof m->step_why, *why ? why : limit);
}

/* A mix's data_size is 0: its types each have their own (run["mix"]). */
static void data_text(const json_t *run, bench_run_model *m)
{
    const json_t *mix = json_object_get(run, "mix"), *t;
    size_t i;
    if (!json_is_array(mix)) {
        /* A raw RSA operation's input is one modulus-sized block (rsa-x509-*). */
        snprintf(m->data_text, sizeof m->data_text, "%llu B",
                 (unsigned long long)(m->data_size ? m->data_size : m->block_size));
        return;
    }
    uint64_t size = 0;
    int mixed = 0;
    json_array_foreach(mix, i, t) {
        const long long s = bench_json_int(t, "data_size", 0);
        if (s <= 0)
            continue;
        if (size && (uint64_t)s != size)
            mixed = 1;
        size = (uint64_t)s;
    }
    if (mixed)
        snprintf(m->data_text, sizeof m->data_text, "mixed");
    else if (size)
        snprintf(m->data_text, sizeof m->data_text, "%llu B", (unsigned long long)size);
    else
        snprintf(m->data_text, sizeof m->data_text, "-");
}

/* The run's "stable" object (validated by bench_results_check) into st. */
static void stable_of(const json_t *j, bench_model_stable *st)
{
    memset(st, 0, sizeof *st);
    if (!json_is_object(j))
        return;
    st->present = 1;
    st->target_pct = bench_json_num(j, "target_pct", 0);
    copy(st->stopped, sizeof st->stopped, bench_json_str(j, "stopped", "?"));
    copy(st->method, sizeof st->method, bench_json_str(j, "method", "?"));
    st->bound_s = bench_json_num(j, "bound_s", 0);
    st->warmup_s = bench_json_num(j, "warmup_s", 0);
    st->batch_s = bench_json_num(j, "batch_s", 0);
    st->lag1 = bench_json_num(j, "lag1", 0);
    st->batches = count_of(j, "batches");
    st->has_interval = json_is_number(json_object_get(j, "mean_ops_per_s"));
    st->mean = bench_json_num(j, "mean_ops_per_s", 0);
    st->low = bench_json_num(j, "ci95_low", 0);
    st->high = bench_json_num(j, "ci95_high", 0);
    st->half_width_pct = bench_json_num(j, "half_width_pct", -1);
}

bench_model_stable_class bench_model_stable_judge(const bench_model_stable *st)
{
    if (!st->has_interval || st->half_width_pct < 0)
        return BENCH_MODEL_STABLE_UNJUDGED;
    if (st->half_width_pct > st->target_pct)
        return BENCH_MODEL_STABLE_OUTSIDE;
    return st->batches >= BENCH_STABLE_MIN_BATCHES ? BENCH_MODEL_STABLE_WITHIN : BENCH_MODEL_STABLE_TOO_SHORT;
}

const char *bench_model_stable_text(const bench_run_model *m, char *buf, size_t len)
{
    const bench_model_stable *st = &m->stable;
    char head[200], corr[64] = "", warm[48], tail[128];
    if (!st->present)
        return NULL;
    if (st->lag1 > BENCH_STABLE_MAX_LAG1)
        snprintf(corr, sizeof corr, ", widened for a lag-1 autocorrelation of %.2f", st->lag1);
    /* The interval is of this run alone (batch means inside it), not of the
     * token's rate from run to run (that is --repeat's): said every time. */
    if (st->has_interval && st->half_width_pct >= 0)
        snprintf(head, sizeof head, "%.2f/s ±%.2f %% (95 %%, %s: %llu batch means of %g s%s)", st->mean,
                 st->half_width_pct, BENCH_STABLE_COVERS, (unsigned long long)st->batches, st->batch_s, corr);
    else if (st->has_interval)
        snprintf(head, sizeof head, "%.2f/s (95 %%, %s: %.2f to %.2f, %llu batch means of %g s%s)", st->mean,
                 BENCH_STABLE_COVERS, st->low, st->high, (unsigned long long)st->batches, st->batch_s, corr);
    else
        snprintf(head, sizeof head, "too short for an interval of %s (%llu batches of %g s)",
                 BENCH_STABLE_COVERS, (unsigned long long)st->batches, st->batch_s);
    if (st->warmup_s > 0)
        snprintf(warm, sizeof warm, " after a %g s warm-up (MSER-5)", st->warmup_s);
    else
        snprintf(warm, sizeof warm, ", no warm-up found (MSER-5)");
    if (strcmp(st->stopped, "stable") == 0)
        snprintf(tail, sizeof tail, "stopped: stable at %.1f s of %g s", m->duration_s, st->bound_s);
    else if (strcmp(st->stopped, "bound") == 0) {
        switch (bench_model_stable_judge(st)) {
        case BENCH_MODEL_STABLE_WITHIN:
            /* Judged stable only by the bound's own last look (the batches
             * or the measured time the stop needs came with it). */
            snprintf(tail, sizeof tail, "stopped: at the bound, %g s, stable there (within the target %g %%)",
                     st->bound_s, st->target_pct);
            break;
        case BENCH_MODEL_STABLE_TOO_SHORT:
            snprintf(tail, sizeof tail, "stopped: at the bound, %g s, too short to judge (%llu of the %d "
                     "batches a judgement needs)", st->bound_s, (unsigned long long)st->batches,
                     BENCH_STABLE_MIN_BATCHES);
            break;
        case BENCH_MODEL_STABLE_OUTSIDE:
            snprintf(tail, sizeof tail, "stopped: at the bound, %g s, still ±%.2f %% (target %g %%)",
                     st->bound_s, st->half_width_pct, st->target_pct);
            break;
        default:
            snprintf(tail, sizeof tail, "stopped: at the bound, %g s, not stable (target %g %%)", st->bound_s,
                     st->target_pct);
        }
    }
    else
        snprintf(tail, sizeof tail, "stopped: %s at %.1f s of %g s, not stable (target %g %%)",
                 st->stopped, m->duration_s, st->bound_s, st->target_pct);
    snprintf(buf, len, "%s%s; %s", head, warm, tail);
    return buf;
}

/*
 * The rule of bench_model_settle_status: 1 with the status "errors" and its
 * reason in why when a finished run has failed operations, 2 when a run
 * says "errors" without any (then ok, no reason), 0 when the status stands.
 */
static int settled(const json_t *run, char *why, size_t len)
{
    const char *status = bench_json_str(run, "status", "");
    const long long errors = bench_json_int(run, "errors", 0);
    if (!bench_model_status_sound(status))
        return 0;
    if (errors <= 0)
        return strcmp(status, "errors") == 0 ? 2 : 0;   /* a hand-made file */
    const long long attempts = bench_json_int(run, "ops", 0) + errors;
    /* The most frequent cause (ties: the first name in order). */
    const char *top = NULL, *name;
    long long most = 0;
    size_t ncodes = 0;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(run, "errors_by_code"), name, v) {
        const long long c = json_is_integer(v) ? (long long)json_integer_value(v) : 0;
        ncodes++;
        if (c > most || (c == most && top && strcmp(name, top) < 0)) {
            most = c;
            top = name;
        }
    }
    const int n = snprintf(why, len, "%lld of %lld attempts failed (%.2f %%)", errors, attempts,
                           100.0 * (double)errors / (double)attempts);
    if (top && n > 0 && (size_t)n < len)
        snprintf(why + n, len - (size_t)n, "%s%.160s", ncodes > 1 ? ", most often " : ": ", top);
    return 1;
}

int bench_model_settle_status(json_t *run)
{
    char why[320];
    switch (settled(run, why, sizeof why)) {
    case 1:
        if (json_object_set_new(run, "status", json_string("errors")) != 0 ||
            json_object_set_new(run, "reason", json_string(why)) != 0)
            return -1;
        return 0;
    case 2:
        if (json_object_set_new(run, "status", json_string("ok")) != 0 ||
            (json_object_get(run, "reason") && json_object_del(run, "reason") != 0))
            return -1;
        return 0;
    default:
        return 0;
    }
}

int bench_model_from_run(const json_t *run, const json_t *doc, bench_run_model *m)
{
    memset(m, 0, sizeof *m);
    m->run = run;
    m->doc = doc;
    m->client_cpu = -1;
    m->capacity_step = -1;
    m->max_unstarted_pct = -1;
    m->latency_complete = 1;
    copy(m->test, sizeof m->test, bench_json_str(run, "test", "?"));
    copy(m->variant, sizeof m->variant, bench_json_str(run, "variant", ""));
    snprintf(m->name, sizeof m->name, "%s%s%s", m->test, *m->variant ? " " : "", m->variant);
    copy(m->mechanism, sizeof m->mechanism, bench_json_str(run, "mechanism", ""));
    copy(m->mode, sizeof m->mode, bench_json_str(run, "mode", "?"));
    bench_run_key_desc(run, m->key, sizeof m->key);
    m->threads = (unsigned)count_of(run, "threads");
    m->data_size = count_of(run, "data_size");
    m->block_size = count_of(run, "block_size");
    data_text(run, m);
    m->warmup_s = bench_json_num(json_object_get(run, "settings"), "warmup_s", 0);
    copy(m->status, sizeof m->status, bench_json_str(run, "status", "?"));
    copy(m->reason, sizeof m->reason, bench_json_str(run, "reason", ""));
    /* The status word by the one rule, whoever wrote the element. */
    switch (settled(run, m->reason, sizeof m->reason)) {
    case 1:
        copy(m->status, sizeof m->status, "errors");
        break;
    case 2:
        copy(m->status, sizeof m->status, "ok");
        m->reason[0] = '\0';
        break;
    default:
        break;
    }

    const json_t *env = json_object_get(doc, "environment");
    if (doc && bench_target_of_run(doc, run, &m->target) < 0)
        copy(m->target.kind, sizeof m->target.kind, "?");
    tls_of(env, run, &m->tls);
    step_of(doc, run, m);
    if (tokens_of(env, m) != 0 || thresholds_of(json_object_get(run, "thresholds"), m) != 0)
        goto oom;

    const json_t *ds = json_object_get(run, "datasheet");
    copy(m->ds_family, sizeof m->ds_family, bench_json_str(ds, "family", ""));
    copy(m->ds_step, sizeof m->ds_step, bench_json_str(ds, "step", ""));
    m->has_breakdown = json_object_size(json_object_get(run, "breakdown")) > 0;
    m->measured = bench_run_measured(run);
    if (!m->measured)
        return 0;
    m->duration_s = bench_json_num(run, "duration_s", 0);
    m->ops = count_of(run, "ops");
    m->errors = count_of(run, "errors");
    m->attempts = m->ops + m->errors;
    m->error_pct = pct(m->errors, m->attempts);
    m->ops_per_s = bench_json_num(run, "ops_per_s", 0);
    m->attempts_per_s = bench_json_num(run, "attempts_per_s", m->ops_per_s);
    m->bytes_per_s = bench_json_num(run, "bytes_per_s", 0);
    m->bytes = m->bytes_per_s * m->duration_s;
    const json_t *cpu = json_object_get(run, "client_cpu");
    if (json_is_number(cpu))
        m->client_cpu = json_number_value(cpu);

    bench_model_latency_of(json_object_get(run, "latency_us"), &m->latency);
    bench_model_latency_of(json_object_get(run, "service_us"), &m->service);
    bench_model_latency_of(json_object_get(run, "queue_us"), &m->queue);
    bench_model_latency_of(json_object_get(run, "attempts_latency_us"), &m->attempts_latency);
    if (!m->attempts_latency.present && m->errors == 0)
        m->attempts_latency = m->latency;    /* no failure: the attempts are the successes */
    const json_t *hj = json_object_get(run, "histogram");
    if (json_is_object(hj)) {
        if (!(m->hist = bench_hist_new()))
            goto oom;
        if (bench_hist_from_json(hj, m->hist) != 0) {
            bench_hist_free(m->hist);
            m->hist = NULL;
        }
    }
    const json_t *sched = json_object_get(run, "schedule");
    if ((m->open_loop = json_is_object(sched))) {
        m->target_ops_per_s = bench_json_num(sched, "target_ops_per_s", 0);
        m->achieved_ops_per_s = bench_json_num(sched, "achieved_ops_per_s", m->ops_per_s);
        m->scheduled = count_of(sched, "scheduled");
        m->late = count_of(sched, "late");
        m->dropped = count_of(sched, "dropped");
        bench_model_latency_of(json_object_get(sched, "unstarted_latency_us"), &m->unstarted);
        bench_model_latency_of(json_object_get(sched, "scheduled_latency_us"), &m->scheduled_latency);
        m->max_unstarted_pct = bench_json_num(sched, "max_unstarted_pct", -1);
    }
    m->latency_complete = !json_is_false(json_object_get(run, "latency_complete"));
    if (codes_of(json_object_get(run, "errors_by_code"), &m->codes, &m->ncodes) != 0 ||
        seconds_of(run, m) != 0 ||
        classes_of(json_object_get(run, "breakdown"), m) != 0)
        goto oom;
    m->seconds_upper_bound = json_is_true(json_object_get(run, BENCH_MODEL_UPPER_BOUND_KEY));
    for (size_t i = 0; i < m->nseconds && m->target_kind == BENCH_MODEL_TARGET_NONE; i++)
        if (m->seconds[i].has_target)   /* results-schema.md: per_second[].target */
            m->target_kind = strcmp(m->mode, "blocking") == 0 ? BENCH_MODEL_TARGET_THREADS
                                                               : BENCH_MODEL_TARGET_REQUESTS;
    stable_of(json_object_get(run, "stable"), &m->stable);
    return 0;
oom:
    bench_model_free(m);
    return -1;
}

void bench_model_free(bench_run_model *m)
{
    free(m->codes);
    free(m->seconds);
    for (size_t k = 0; m->by && k < m->nby; k++)
        free(m->by[k].classes);
    free(m->by);
    for (size_t i = 0; i < m->ntokens; i++)
        free(m->tokens[i]);
    free(m->tokens);
    for (size_t i = 0; i < m->nthresholds; i++) {
        free(m->thresholds[i].expr);
        free(m->thresholds[i].unit);
    }
    free(m->thresholds);
    bench_hist_free(m->hist);
    memset(m, 0, sizeof *m);
    m->client_cpu = -1;
    m->capacity_step = -1;
}

/* An array's strings (NULL for an element that is not one); -1 when out of memory. */
static int words_of(const json_t *arr, const char ***out, size_t *n, int *has)
{
    *has = json_is_array(arr);
    *n = *has ? json_array_size(arr) : 0;
    *out = NULL;
    if (!*n)
        return 0;
    if (!(*out = calloc(*n, sizeof **out)))
        return -1;
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = json_string_value(json_array_get(arr, i));
    return 0;
}

int bench_doc_facts_of(const json_t *doc, bench_doc_facts *x)
{
    const json_t *env = json_object_get(doc, "environment");
    const json_t *mod = json_object_get(env, "module"), *tok = json_object_get(env, "token");
    const json_t *host = json_object_get(env, "host"), *ep = json_object_get(env, "endpoint");
    const json_t *client = json_object_get(env, "client"), *reuse = json_object_get(ep, "connection_reuse");
    memset(x, 0, sizeof *x);
    x->has_module = mod != NULL;
    x->module_name = bench_json_str(mod, "name", NULL);
    x->module_path = bench_json_str(mod, "path", NULL);
    x->module_manufacturer = bench_json_str(mod, "manufacturer", NULL);
    x->library = bench_json_str(mod, "library", NULL);
    x->library_version = bench_json_str(mod, "library_version", NULL);
    x->cryptoki_version = bench_json_str(mod, "cryptoki_version", NULL);
    x->has_token = tok != NULL;
    x->token_object = json_is_object(tok);
    x->token_label = bench_json_str(tok, "label", NULL);
    x->token_manufacturer = bench_json_str(tok, "manufacturer", NULL);
    x->token_model = bench_json_str(tok, "model", NULL);
    x->token_serial = bench_json_str(tok, "serial", NULL);
    x->token_firmware = bench_json_str(tok, "firmware", NULL);
    x->token_hardware = bench_json_str(tok, "hardware", NULL);
    x->token_slot = bench_json_int(tok, "slot", 0);
    x->has_host = host != NULL;
    x->hostname = bench_json_str(host, "hostname", NULL);
    x->os = bench_json_str(host, "os", NULL);
    x->kernel = bench_json_str(host, "kernel", NULL);
    x->machine = bench_json_str(host, "machine", NULL);
    x->cpus = bench_json_int(host, "cpus", 0);
    x->has_endpoint = json_is_object(ep);
    x->url = bench_json_str(ep, "url", NULL);
    x->service = bench_json_str(ep, "service", NULL);
    x->plain_url = bench_json_str(ep, "plain_url", NULL);
    x->http_version = bench_json_str(ep, "http_version", NULL);
    x->connection_reuse = json_is_boolean(reuse) ? json_is_true(reuse) : -1;
    x->timeout_s = bench_json_num(ep, "timeout_s", 0);
    x->has_client = json_is_object(client);
    x->libcurl = bench_json_str(client, "libcurl", NULL);
    x->tls_library = bench_json_str(client, "tls_library", NULL);
    x->started_at = bench_json_str(doc, "started_at", NULL);
    x->version = bench_json_str(json_object_get(doc, "tool"), "version", NULL);
    x->datasheet = json_is_object(json_object_get(doc, "datasheet"));
    x->has_environment = env != NULL;
    x->schema = bench_json_str(doc, "upgraded_from", bench_json_str(doc, "schema", NULL));
    if (words_of(json_object_get(doc, "command"), &x->command, &x->ncommand, &x->has_command) != 0 ||
        words_of(json_object_get(doc, "merged_from"), &x->merged_from, &x->nmerged_from,
                 &x->has_merged_from) != 0) {
        bench_doc_facts_free(x);
        return -1;
    }
    return 0;
}

void bench_doc_facts_free(bench_doc_facts *x)
{
    free(x->command);
    free(x->merged_from);
    x->command = NULL;
    x->merged_from = NULL;
}

size_t bench_doc_nruns(const json_t *doc)
{
    const json_t *runs = json_object_get(doc, "runs");
    return json_is_array(runs) ? json_array_size(runs) : 0;
}

int bench_model_from_doc(const json_t *doc, size_t i, bench_run_model *m)
{
    const json_t *run = json_array_get(json_object_get(doc, "runs"), i);
    if (!run) {
        memset(m, 0, sizeof *m);
        return -1;
    }
    return bench_model_from_run(run, doc, m);
}

int bench_doc_model_of(const json_t *doc, bench_doc_model *d)
{
    const json_t *runs = json_object_get(doc, "runs");
    const size_t n = json_is_array(runs) ? json_array_size(runs) : 0;
    memset(d, 0, sizeof *d);
    d->doc = doc;
    if (bench_doc_facts_of(doc, &d->facts) != 0) {
        bench_doc_model_free(d);
        return -1;
    }
    d->runs = n ? calloc(n, sizeof *d->runs) : NULL;
    if (n && !d->runs) {
        bench_doc_model_free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (bench_model_from_run(json_array_get(runs, i), doc, &d->runs[i]) != 0) {
            bench_doc_model_free(d);
            return -1;
        }
        d->nruns = i + 1;
    }
    if (bench_cap_answer_of_doc(doc, &d->capacity) != 0 ||
        bench_ds_facts_of(doc, &d->datasheet) != 0 ||
        bench_scal_sweeps_read(json_object_get(doc, "scalability"), runs, &d->sweeps) != 0 ||
        bench_repeat_groups_of(runs, &d->repeats) != 0) {
        bench_doc_model_free(d);
        return -1;
    }
    return 0;
}

const bench_scal_sweep *bench_doc_model_sweep(const bench_doc_model *d, const bench_run_model *m)
{
    for (size_t i = 0; i < d->nruns && i < d->sweeps.nruns; i++)
        if (&d->runs[i] == m)
            return d->sweeps.of_run[i] >= 0 ? &d->sweeps.v[d->sweeps.of_run[i]] : NULL;
    return NULL;
}

void bench_doc_model_free(bench_doc_model *d)
{
    for (size_t i = 0; i < d->nruns; i++)
        bench_model_free(&d->runs[i]);
    free(d->runs);
    bench_doc_facts_free(&d->facts);
    bench_cap_answer_free(&d->capacity);
    bench_ds_facts_free(&d->datasheet);
    bench_scal_sweeps_free(&d->sweeps);
    bench_repeat_groups_free(&d->repeats);
    memset(d, 0, sizeof *d);
}

void bench_model_doc_tls(const json_t *doc, bench_model_tls *t)
{
    tls_of(json_object_get(doc, "environment"), NULL, t);
}

static const char *yes_no(int v)
{
    return v < 0 ? "?" : v ? "yes" : "no";
}

const char *bench_model_tls_text(const bench_model_tls *t, char *buf, size_t len)
{
    switch (t->kind) {
    case BENCH_TLS_NONE:
        snprintf(buf, len, "none (plain HTTP)");
        return buf;
    case BENCH_TLS_ON:
        snprintf(buf, len, "certificate verified: %s · own CA (--cacert): %s · client certificate: %s",
                 yes_no(t->verified), yes_no(t->custom_ca), yes_no(t->client_cert));
        return buf;
    case BENCH_TLS_UNKNOWN:
        break;
    }
    return NULL;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/results/compare.c - the compare model (compare.h): built once from
 * the files' document models, and written as hsmbench.compare/1 by its one
 * writer.  What the model holds that a run model does not (a datasheet's
 * step id and capacity answers, a section's peer latency, a host's CPU
 * model, the --repeat groups) is read here from the documents the models
 * carry, so that no view of the comparison reads JSON.
 */
#include "bench/results/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/exit.h"
#include "bench/results/capanswer.h"
#include "bench/results/codec.h"
#include "bench/results/repeat.h"
#include "bench/results/results.h"

/* What the comparison was asked. */
typedef struct cmp_in {
    const bench_doc_model      *docs;
    const bench_section *const *sections;
} cmp_in;

static const char *or_unknown(const char *s)
{
    return s ? s : "?";
}

/* ---- files and their environments --------------------------------------------- */

static const json_t *host_of(const bench_doc_model *d)
{
    return json_object_get(json_object_get(d->doc, "environment"), "host");
}

/* The machine a file's figures come from, as a reader compares machines:
 * "4 CPUs, Intel(R) Xeon(R) ... (m5.xlarge)" (model and product when known). */
static void machine_of(const json_t *h, char *buf, size_t len)
{
    const char *model = bench_json_str(h, "cpu_model", NULL), *product = bench_json_str(h, "product", NULL);
    snprintf(buf, len, "%lld CPUs%s%s%s%s%s", bench_json_int(h, "cpus", 0), model ? ", " : "", model ? model : "",
             product ? " (" : "", product ? product : "", product ? ")" : "");
}

/* Two known values that differ (an absent one differs from nothing). */
static int fact_differs(const json_t *a, const json_t *b, const char *key)
{
    const char *x = bench_json_str(a, key, NULL), *y = bench_json_str(b, key, NULL);
    return x && y && strcmp(x, y) != 0;
}

/* What differs between file f (of d) and A (f0 of d0).  Between two PKCS#11
 * files the module and the token are named apart. */
static void env_of(const bench_doc_model *d0, const bench_cmp_file *f0, const bench_doc_model *d, bench_cmp_file *f)
{
    const bench_doc_facts *x0 = &d0->facts, *x = &d->facts;
    const bench_target *g0 = &f0->target, *g = &f->target;
    bench_cmp_env *e = &f->env;
    if (strcmp(g0->kind, "pkcs11") == 0 && strcmp(g->kind, "pkcs11") == 0) {
        e->base_module = x0->module_path ? x0->module_path : or_unknown(x0->module_name);
        e->module = x->module_path ? x->module_path : or_unknown(x->module_name);
        e->module_differs = strcmp(e->base_module, e->module) != 0;
        e->base_label = or_unknown(x0->token_label);
        e->token_label = or_unknown(x->token_label);
        e->base_serial = or_unknown(x0->token_serial);
        e->token_serial = or_unknown(x->token_serial);
        e->token_differs = strcmp(e->base_label, e->token_label) != 0 || strcmp(e->base_serial, e->token_serial) != 0;
    }
    const int flagged = e->module_differs || e->token_differs;
    if (!flagged && bench_target_tls_pair(g0, g)) {
        e->target = BENCH_CMP_TARGET_TLS_PAIR;
        e->tls_on = strstr(g->id, ":https://") != NULL;
        e->target_text = g->name;
        e->base_target_text = g0->name;
    } else if (!flagged && bench_target_differs(g0, g)) {
        const int same_name = strcmp(g0->name, g->name) == 0;   /* then only the ids tell them apart */
        e->target = BENCH_CMP_TARGET_DIFFERS;
        e->target_text = same_name ? g->id : g->name;
        e->base_target_text = same_name ? g0->id : g0->name;
    }
    e->hostname = or_unknown(x->hostname);
    e->base_hostname = or_unknown(x0->hostname);
    e->host_differs = strcmp(e->base_hostname, e->hostname) != 0;
    /* The figures of 4 CPUs against 2 (seed 004's two instance sizes) are
     * the machines' as much as the target's: said, whatever the names. */
    const json_t *h0 = host_of(d0), *h = host_of(d);
    if (x0->cpus != x->cpus || fact_differs(h0, h, "cpu_model") || fact_differs(h0, h, "product")) {
        e->machine_differs = 1;
        machine_of(h0, e->base_machine, sizeof e->base_machine);
        machine_of(h, e->machine, sizeof e->machine);
    }
}

/* A file's --repeat groups (bench/results/repeat.c), a line each: two
 * intervals between runs that do not overlap are a difference of the
 * token, not of one run.  0, or -1 when out of memory. */
static int repeats_of(const bench_doc_model *d, bench_cmp_file *cf)
{
    const bench_repeat_groups *reps = &d->repeats;
    if (reps->n && !(cf->repeats = calloc(reps->n, sizeof *cf->repeats)))
        return -1;
    for (size_t k = 0; k < reps->n; k++) {
        char line[640];
        snprintf(cf->repeats[cf->nrepeats++], sizeof cf->repeats[0], "%s",
                 bench_repeat_text(&reps->v[k], line, sizeof line));
    }
    return 0;
}

static int files_of(const bench_doc_model *docs, const char *const *paths, size_t n, bench_compare *c)
{
    if (!(c->files = calloc(n, sizeof *c->files)))
        return -1;
    c->nfiles = n;
    for (size_t i = 0; i < n; i++) {
        bench_cmp_file *f = &c->files[i];
        f->path = paths[i];
        f->label[0] = (char)('A' + i);
        (void)bench_target_of(docs[i].doc, &f->target);   /* "?" when the file names none */
        f->hostname = or_unknown(docs[i].facts.hostname);
        f->started_at = docs[i].facts.started_at;
        if (i)
            env_of(&docs[0], &c->files[0], &docs[i], f);
        if (repeats_of(&docs[i], f) != 0)
            return -1;
    }
    return 0;
}

/* ---- matching ------------------------------------------------------------------ */

/* A datasheet's step of a run (runs[i].datasheet.id), or NULL. */
static const char *ds_id(const bench_run_model *m)
{
    return bench_json_str(json_object_get(m->run, "datasheet"), "id", NULL);
}

/* Same datasheet step, or neither of a datasheet. */
static int same_step(const bench_run_model *a, const bench_run_model *b)
{
    const char *x = ds_id(a), *y = ds_id(b);
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* A run of d not yet used matching `want` exactly (a datasheet's: the same
 * step too), else one of the same test (not for a datasheet's step: it is
 * missing); -1 if none. */
static long find_run(const bench_doc_model *d, const char *used, const bench_run_model *want, int *exact)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < d->nruns; k++) {
            const bench_run_model *r = &d->runs[k];
            if (used[k])
                continue;
            if (pass == 0 && same_step(want, r) && bench_run_same_setup(want->run, r->run, 0, NULL, 0)) {
                *exact = 1;
                return (long)k;
            }
            if (pass == 1 && !ds_id(want) && strcmp(bench_json_str(want->run, "test", ""),
                                                    bench_json_str(r->run, "test", "")) == 0) {
                *exact = 0;
                return (long)k;
            }
        }
    }
    return -1;
}

static const json_t *peer_json(const bench_run_model *m, const bench_section *sec)
{
    return json_object_get(json_object_get(json_object_get(m->run, sec->key), sec->dists), sec->peer_latency);
}

/* Each section's peer latency (a peer load tool's request duration) where
 * run has it, against base's (NULL: none): what that tool's summary of the
 * same run would have compared.  0, or -1 when out of memory. */
static int peers_of(const bench_section *const *sections, const bench_run_model *run, const bench_run_model *base,
                    bench_cmp_peer **out, size_t *n)
{
    size_t k = 0;
    for (size_t s = 0; sections && sections[s]; s++)
        k += sections[s]->peer_latency != NULL;
    *n = 0;
    if (!k)
        return 0;
    if (!(*out = calloc(k, sizeof **out)))
        return -1;
    for (size_t s = 0; sections[s]; s++) {
        const bench_section *sec = sections[s];
        if (!sec->peer_latency)
            continue;
        bench_cmp_peer *p = &(*out)[*n];
        bench_model_latency_of(peer_json(run, sec), &p->l);
        if (!p->l.present || !p->l.count)
            continue;
        p->name = sec->peer_latency_name;
        memset(&p->base, 0, sizeof p->base);
        if (base)
            bench_model_latency_of(peer_json(base, sec), &p->base);
        (*n)++;
    }
    return 0;
}

/* ---- verdicts ------------------------------------------------------------------ */

/* The pair's word over its figures: "slower", "faster", "mixed", "no change
 * (within noise)" or "not comparable". */
static const char *bench_cmp_word(const bench_pair_cmp *p)
{
    int worse = 0, better = 0;
    for (size_t i = 0; i < p->n; i++) {
        worse |= p->figs[i].verdict == BENCH_CHANGE_WORSE;
        better |= p->figs[i].verdict == BENCH_CHANGE_BETTER;
    }
    if (p->n == 1 && p->figs[0].verdict == BENCH_CHANGE_NA)
        return "not comparable";
    return worse && better ? "mixed" : worse ? "slower" : better ? "faster" : "no change (within noise)";
}

/* A class of a run's breakdown as a run of its own: the run's element with
 * the class's counts, rates, latency and histogram, without the per-second
 * series and the parts that are the whole run's.  NULL when out of memory. */
static json_t *class_as_run(const json_t *run, const json_t *cls)
{
    static const char *const whole[] = { "breakdown", "per_second", "attempts_latency_us", "service_us",
                                         "queue_us", "replay", "mix" };
    static const char *const own[] = { "ops", "attempts", "errors", "error_pct", "ops_per_s",
                                       "attempts_per_s", "latency_us", "errors_by_code", "histogram" };
    json_t *x = json_copy((json_t *)run);
    if (!x)
        return NULL;
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        json_object_del(x, whole[i]);
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        json_t *v = json_object_get(cls, own[i]);
        if (!v) {
            (void)json_object_del(x, own[i]);   /* -1: it was not there either */
        } else if (json_object_set(x, own[i], v) != 0) {
            json_decref(x);
            return NULL;
        }
    }
    return x;
}

/* Two classes' verdict, each class as a run of its own (of its file's
 * document): 0, or -1 when out of memory. */
static int class_pair(const cmp_in *in, double min_change_pct, const bench_cmp_pair *p, const json_t *ca,
                      const json_t *cb, bench_pair_cmp *out)
{
    int rc = -1;
    bench_run_model ma, mb;
    json_t *xa = class_as_run(p->a->run, ca), *xb = class_as_run(p->b->run, cb);
    if (!xa || !xb || bench_model_from_run(xa, p->a->doc, &ma) != 0)
        goto cleanup;
    if (bench_model_from_run(xb, p->b->doc, &mb) == 0) {
        rc = bench_pair_compare(&ma, &mb, xa, xb, in->sections, min_change_pct, out);
        bench_model_free(&mb);
    }
    bench_model_free(&ma);
cleanup:
    json_decref(xa);
    json_decref(xb);
    return rc;
}

/* Each class both runs' breakdowns have (a replay's transactions, a mix's
 * types, a run's tokens): its own verdict.  -1 when out of memory. */
static int classes_of(const cmp_in *in, double min_change_pct, bench_cmp_pair *p)
{
    const json_t *ba = json_object_get(p->a->run, "breakdown"), *bb = json_object_get(p->b->run, "breakdown");
    const json_t *arr;
    const char *dim;
    size_t most = 0;
    json_object_foreach((json_t *)ba, dim, arr)
        most += json_array_size(arr);
    if (!most)
        return 0;
    if (!(p->classes = calloc(most, sizeof *p->classes)))
        return -1;
    json_object_foreach((json_t *)ba, dim, arr) {
        size_t i, k;
        const json_t *ca, *cb, *cl;
        json_array_foreach(arr, i, ca) {
            const char *name = bench_json_str(ca, "class", "?");
            cb = NULL;
            json_array_foreach(json_object_get(bb, dim), k, cl)
                if (!cb && strcmp(bench_json_str(cl, "class", ""), name) == 0)
                    cb = cl;
            if (!cb)
                continue;
            bench_cmp_class *x = &p->classes[p->nclasses];
            if (class_pair(in, min_change_pct, p, ca, cb, &x->cmp) != 0)
                return -1;
            x->dimension = dim;
            snprintf(x->name, sizeof x->name, "%s", name);
            x->verdict = bench_cmp_word(&x->cmp);
            p->nclasses++;
        }
    }
    return 0;
}

/* B against A, both of the same setup: the figures, the rules, the classes,
 * the peer latencies.  -1 when out of memory. */
static int judge(const cmp_in *in, bench_compare *c, bench_cmp_pair *p)
{
    if (bench_pair_compare(p->a, p->b, p->a->run, p->b->run, in->sections, c->min_change_pct, &p->cmp) != 0)
        return -1;
    p->verdict = bench_cmp_word(&p->cmp);
    if (c->nrules && !(p->rules = calloc(c->nrules, sizeof *p->rules)))
        return -1;
    for (size_t i = 0; i < c->nrules; i++) {
        bench_cmp_rule *r = &p->rules[p->nrules++];
        r->rule = c->rules[i].text;
        r->result = bench_rule_check(&c->rules[i], &p->cmp, r->why, sizeof r->why);
        if (r->result == BENCH_RULE_FAIL)
            c->failed++;
    }
    if (peers_of(in->sections, p->b, p->a, &p->peers, &p->npeers) != 0)
        return -1;
    return classes_of(in, c->min_change_pct, p);
}

/* File i's run matching A's run `base` (marked in used), as pair p. */
static int match_one(const cmp_in *in, bench_compare *c, size_t i, char *used, bench_cmp_pair *p)
{
    int exact = 0;
    const bench_doc_model *d = &in->docs[i];
    const long k = find_run(d, used, p->a, &exact);
    p->run_file = i;
    if (k < 0) {
        p->match = BENCH_CMP_MISSING;
        snprintf(p->why, sizeof p->why, "%s", p->ds_id ? "missing: no such step" : "no run of this test");
        return 0;
    }
    used[k] = 1;
    p->b = &d->runs[k];
    if (!exact) {
        p->match = BENCH_CMP_OTHER_SETUP;
        (void)bench_run_same_setup(p->a->run, p->b->run, 0, p->why, sizeof p->why);   /* 0: we want the why */
        return 0;
    }
    p->match = BENCH_CMP_COMPARED;
    p->different_target = bench_target_differs(&p->a->target, &p->b->target) &&
                          !bench_target_tls_pair(&p->a->target, &p->b->target);
    return judge(in, c, p);
}

static const char *mechanism_of(const bench_run_model *m)
{
    return json_object_get(m->run, "mechanism") ? bench_json_str(m->run, "mechanism", "?") : NULL;
}

/* Every run of A against each other file, then the runs only the other
 * files have: the groups and the pairs.  -1 when out of memory. */
static int match_all(const cmp_in *in, bench_compare *c)
{
    int rc = -1;
    size_t most = 0;
    char **used = calloc(c->nfiles, sizeof *used);
    if (!used)
        return -1;
    for (size_t i = 0; i < c->nfiles; i++) {
        most += in->docs[i].nruns;
        if (!(used[i] = calloc(in->docs[i].nruns ? in->docs[i].nruns : 1, 1)))
            goto cleanup;
    }
    const size_t npairs = in->docs[0].nruns * (c->nfiles - 1);
    if (!(c->groups = calloc(most, sizeof *c->groups)) || (npairs && !(c->pairs = calloc(npairs, sizeof *c->pairs))))
        goto cleanup;
    for (size_t j = 0; j < in->docs[0].nruns; j++) {
        bench_cmp_group *g = &c->groups[c->ngroups++];
        g->run = &in->docs[0].runs[j];
        g->mechanism = mechanism_of(g->run);
        g->first_pair = c->npairs;
        if (peers_of(in->sections, g->run, NULL, &g->peers, &g->npeers) != 0)
            goto cleanup;
        for (size_t i = 1; i < c->nfiles; i++) {
            bench_cmp_pair *p = &c->pairs[c->npairs++];
            g->npairs++;
            p->a = g->run;
            p->ds_id = ds_id(p->a);
            p->ds_step = json_object_get(p->a->run, "datasheet")
                             ? bench_json_str(json_object_get(p->a->run, "datasheet"), "step", "?") : NULL;
            if (match_one(in, c, i, used[i], p) != 0)
                goto cleanup;
        }
    }
    for (size_t i = 1; i < c->nfiles; i++)
        for (size_t k = 0; k < in->docs[i].nruns; k++) {
            if (used[i][k])
                continue;
            bench_cmp_group *g = &c->groups[c->ngroups++];
            g->file = i;
            g->run = &in->docs[i].runs[k];
            g->mechanism = mechanism_of(g->run);
        }
    rc = 0;
cleanup:
    for (size_t i = 0; i < c->nfiles; i++)
        free(used[i]);
    free(used);
    return rc;
}

/* ---- datasheets: capacity answers and test-by-test verdicts --------------------- */

/*
 * The capacity answers of a test in A and B (with --capacity): "slower"
 * when B's interval is wholly below A's and the change is beyond
 * --min-change, "faster" the other way, "no change" when the intervals
 * overlap or the change is within it; "missing" when B has no answer,
 * "not comparable" when the objectives differ or either found no rate.
 * Nothing when A has no answer (t->cap_verdict stays NULL).
 */
static void cap_verdict(const bench_cap_answer *a, const bench_cap_answer *b, double min_change_pct,
                        bench_cmp_ds_test *t)
{
    if (!a)
        return;
    char objs[160], *line = t->cap_line;
    const size_t len = sizeof t->cap_line;
    bench_cap_objectives_text(a, objs, sizeof objs);
    /* a found answer's interval (capanswer.h); fa, fb: none found */
    const int fa = !a->has_interval, fb = !b || !b->has_interval;
    const double ra = a->ops_per_s, la = a->interval_lo, ha = a->interval_hi;
    const double rb = b ? b->ops_per_s : 0, lb = b ? b->interval_lo : 0, hb = b ? b->interval_hi : 0;
    const char *word;
    double pct = 0;
    if (!b) {
        word = "missing";
        snprintf(line, len, "capacity at %s: missing", objs);
    } else if (!bench_cap_same_objectives(a, b)) {
        word = "not comparable";
        snprintf(line, len, "capacity at %s: not comparable (other objectives)", objs);
    } else if (fa || fb) {
        word = "not comparable";
        const char *result = (fa ? a : b)->result;
        snprintf(line, len, "capacity at %s: not comparable (%s: %s)", objs, fa ? "A" : "B", result ? result : "?");
    } else {
        pct = 100 * (rb - ra) / ra;
        const int below = hb < la, above = lb > ha;
        word = fabs(pct) <= min_change_pct ? "no change" : below ? "slower" : above ? "faster" : "no change";
        snprintf(line, len, "capacity at %s: %.0f to %.0f ops/s (%+.1f%%), %s: %s", objs, ra, rb, pct,
                 below || above ? "the intervals apart" : "the intervals overlap", word);
    }
    t->cap_verdict = word;
    t->has_cap_base = !fa;
    t->cap_base = fa ? 0 : ra;
    t->has_cap_rate = !fb;
    t->cap_rate = fb ? 0 : rb;
    t->has_cap_pct = !fa && !fb;
    t->cap_pct = round(pct * 100) / 100;
}

/* Pair p is of file fi, test and key. */
static int pair_is(const bench_cmp_pair *p, size_t fi, const char *test, const char *key)
{
    return p->run_file == fi && strcmp(p->a->test, test) == 0 && strcmp(p->a->key, key) == 0;
}

/* Test t of file fi from every pair of it. */
static void ds_count(const bench_compare *c, bench_cmp_ds_test *t)
{
    size_t other = 0;
    for (size_t k = 0; k < c->npairs; k++) {
        const bench_cmp_pair *q = &c->pairs[k];
        if (!pair_is(q, t->file, t->test, t->key))
            continue;
        const char *v = q->match == BENCH_CMP_COMPARED ? q->verdict : "";
        if (q->match != BENCH_CMP_COMPARED)
            t->missing++;
        else if (strcmp(v, "slower") == 0)
            t->slower++;
        else if (strcmp(v, "faster") == 0)
            t->faster++;
        else if (strcmp(v, "mixed") == 0)
            t->slower++, t->faster++;
        else if (strncmp(v, "no change", 9) == 0)
            t->same++;
        else
            other++;
    }
    t->steps = t->slower + t->faster + t->same + t->missing + other;
}

/*
 * Two datasheets, test by test: each test (and key) of A against each
 * other file, from the pairs of its steps: slower when a step is slower and
 * none faster, faster the other way, mixed when both, missing when no step
 * of it is in the other file, else no change.  -1 when out of memory.
 */
static int ds_tests_of(const cmp_in *in, bench_compare *c)
{
    if (!(c->datasheet = in->docs[0].facts.datasheet) || !c->npairs)
        return 0;
    if (!(c->ds = calloc(c->npairs, sizeof *c->ds)))
        return -1;
    for (size_t fi = 1; fi < c->nfiles; fi++)
        for (size_t i = 0; i < c->npairs; i++) {
            const bench_cmp_pair *p = &c->pairs[i];
            if (p->run_file != fi || !p->ds_step)
                continue;
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++)
                seen = pair_is(&c->pairs[k], fi, p->a->test, p->a->key);
            if (seen)
                continue;      /* its test was summed up at its first step */
            bench_cmp_ds_test *t = &c->ds[c->nds++];
            t->file = fi;
            t->test = p->a->test;
            t->key = p->a->key;
            ds_count(c, t);
            cap_verdict(bench_ds_capacity_of(&in->docs[0].datasheet, t->test, t->key, 1),
                        bench_ds_capacity_of(&in->docs[fi].datasheet, t->test, t->key, 1), c->min_change_pct, t);
            const char *cw = t->cap_verdict;
            const size_t sl = t->slower + (cw && strcmp(cw, "slower") == 0);
            const size_t fa = t->faster + (cw && strcmp(cw, "faster") == 0);
            t->verdict = sl && fa ? "mixed" : sl ? "slower" : fa ? "faster"
                         : t->same || (cw && strcmp(cw, "no change") == 0) ? "no change" : "missing";
        }
    return 0;
}

/* ---- the model ------------------------------------------------------------------ */

int bench_compare_build(const bench_doc_model *docs, const char *const *paths, size_t n,
                        const bench_section *const *sections, const bench_rule *rules, size_t nrules,
                        double min_change_pct, bench_compare *c)
{
    const cmp_in in = { docs, sections };
    memset(c, 0, sizeof *c);
    c->rules = rules;
    c->nrules = nrules;
    c->alpha = BENCH_VERDICT_ALPHA;
    c->min_change_pct = min_change_pct;
    if (n < 1 || files_of(docs, paths, n, c) != 0 || match_all(&in, c) != 0 || ds_tests_of(&in, c) != 0) {
        bench_compare_free(c);
        return -1;
    }
    return 0;
}

void bench_compare_free(bench_compare *c)
{
    for (size_t i = 0; c->files && i < c->nfiles; i++)
        free(c->files[i].repeats);
    for (size_t i = 0; c->groups && i < c->ngroups; i++)
        free(c->groups[i].peers);
    for (size_t i = 0; c->pairs && i < c->npairs; i++) {
        free(c->pairs[i].peers);
        free(c->pairs[i].rules);
        free(c->pairs[i].classes);
    }
    free(c->files);
    free(c->groups);
    free(c->pairs);
    free(c->ds);
    memset(c, 0, sizeof *c);
}

int bench_compare_exit(const bench_compare *c)
{
    return c->failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}

/* ---- the document: hsmbench.compare/1 (docs/results-schema.md) ------------------ */

static json_t *num_or_null(int has, double v)
{
    return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *fig_json(const bench_fig_cmp *x)
{
    static const char *const units[] = { "ops/s", "us", "%" };
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "name", x->name, "label", x->label,
                          "unit", units[x->unit], "a", num_or_null(1, x->a), "b", num_or_null(1, x->b),
                          "change_pct", num_or_null(x->has_pct, x->pct), "delta", num_or_null(1, x->delta),
                          "verdict", bench_change_word(x));
    if (!o)
        return NULL;
    json_t *t = x->tested ? json_pack("{s:s, s:f, s:b}", "method", x->method, "p", x->p, "significant",
                                      x->significant)
                          : json_null();
    if (json_object_set_new(o, "test", t) != 0 ||
        (*x->why && json_object_set_new(o, "why", json_string(x->why)) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The figures of a pair as an array; NULL when out of memory. */
static json_t *figs_json(const bench_pair_cmp *p)
{
    json_t *figs = json_array();
    for (size_t j = 0; figs && j < p->n; j++)
        if (json_array_append_new(figs, fig_json(&p->figs[j])) != 0) {
            json_decref(figs);
            return NULL;
        }
    return figs;
}

/* A compared pair's verdict, figures, rules and classes into o; 0 or -1. */
static int judged_json(const bench_cmp_pair *p, json_t *o)
{
    static const char *const results[] = { "pass", "fail", "not judged" };
    json_t *rules = json_array(), *classes = json_array();
    int bad = !rules || !classes;
    for (size_t i = 0; !bad && i < p->nrules; i++)
        bad = json_array_append_new(rules, json_pack("{s:s, s:s, s:s}", "rule", p->rules[i].rule, "result",
                                                     results[p->rules[i].result], "why", p->rules[i].why)) != 0;
    for (size_t i = 0; !bad && i < p->nclasses; i++) {
        const bench_cmp_class *x = &p->classes[i];
        bad = json_array_append_new(classes, json_pack("{s:s,s:s,s:s,s:o}", "dimension", x->dimension, "class",
                                                       x->name, "verdict", x->verdict, "figures",
                                                       figs_json(&x->cmp))) != 0;
    }
    if (bad || json_object_set_new(o, "figures", figs_json(&p->cmp)) != 0 ||
        json_object_set_new(o, "verdict", json_string(p->verdict)) != 0)
        goto cleanup;
    /* json_object_set_new takes each array, set or not; rules go first */
    const int rules_bad = json_object_set_new(o, "rules", rules) != 0;
    const int classes_bad = json_object_set_new(o, "classes", classes) != 0;
    return rules_bad || classes_bad ? -1 : 0;
cleanup:
    json_decref(rules);
    json_decref(classes);
    return -1;
}

/* The pair's element of the document; NULL when out of memory. */
static json_t *pair_json(const bench_compare *c, const bench_cmp_pair *p)
{
    const bench_run_model *a = p->a;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s}", "test", a->test, "mechanism", a->mechanism,
                          "key", a->key, "data_size", (json_int_t)a->data_size, "threads", (json_int_t)a->threads,
                          "mode", a->mode, "base", c->files[p->base_file].label, "run",
                          c->files[p->run_file].label);
    if (!o || (p->ds_step && json_object_set_new(o, "datasheet_step", json_string(p->ds_step)) != 0))
        goto fail;
    if (p->match != BENCH_CMP_COMPARED) {
        if (json_object_set_new(o, "comparable", json_false()) != 0 ||
            json_object_set_new(o, "why", json_string(p->why)) != 0)
            goto fail;
        return o;
    }
    if (json_object_set_new(o, "comparable", json_true()) != 0 ||
        json_object_set_new(o, "different_target", json_boolean(p->different_target)) != 0 ||
        judged_json(p, o) != 0)
        goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

/* The datasheet's test-by-test element; NULL when out of memory. */
static json_t *ds_json(const bench_compare *c, const bench_cmp_ds_test *t)
{
    json_t *el = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I}", "test", t->test, "key", t->key, "run",
                           c->files[t->file].label, "verdict", t->verdict, "slower", (json_int_t)t->slower,
                           "faster", (json_int_t)t->faster, "no_change", (json_int_t)t->same, "missing",
                           (json_int_t)t->missing);
    if (el && t->cap_verdict &&
        json_object_set_new(el, "capacity",
                            json_pack("{s:s,s:o,s:o,s:o}", "verdict", t->cap_verdict, "base_ops_per_s",
                                      t->has_cap_base ? json_real(t->cap_base) : json_null(), "ops_per_s",
                                      t->has_cap_rate ? json_real(t->cap_rate) : json_null(), "change_pct",
                                      t->has_cap_pct ? json_real(t->cap_pct) : json_null())) != 0) {
        json_decref(el);
        return NULL;
    }
    return el;
}

/* The files, the comparisons and the rules as arrays; 0, or -1 (none made). */
static int arrays_json(const bench_compare *c, json_t **files, json_t **pairs, json_t **rules)
{
    *files = json_array();
    *pairs = json_array();
    *rules = json_array();
    int bad = !*files || !*pairs || !*rules;
    for (size_t i = 0; !bad && i < c->nfiles; i++) {
        const bench_cmp_file *f = &c->files[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "label", f->label, "path", f->path, "target", f->target.name,
                              "host", f->hostname);
        if (o && f->started_at && json_object_set_new(o, "started_at", json_string(f->started_at)) != 0) {
            json_decref(o);
            o = NULL;
        }
        bad = json_array_append_new(*files, o) != 0;
    }
    for (size_t i = 0; !bad && i < c->npairs; i++)
        bad = json_array_append_new(*pairs, pair_json(c, &c->pairs[i])) != 0;
    for (size_t i = 0; !bad && i < c->nrules; i++)
        bad = json_array_append_new(*rules, json_string(c->rules[i].text)) != 0;
    if (bad) {
        json_decref(*files);
        json_decref(*pairs);
        json_decref(*rules);
        return -1;
    }
    return 0;
}

json_t *bench_compare_json(const bench_compare *c)
{
    json_t *files, *pairs, *rules, *ds = NULL;
    if (arrays_json(c, &files, &pairs, &rules) != 0)
        return NULL;
    json_t *doc = json_pack("{s:s, s:{s:s, s:s}, s:f, s:f, s:o, s:o, s:o, s:I, s:i}", "schema",
                            BENCH_COMPARE_SCHEMA, "tool", "name", "hsmbench", "version", HSMBENCH_VERSION,
                            "alpha", c->alpha, "min_change_pct", c->min_change_pct, "files", files,
                            "comparisons", pairs, "rules", rules, "failed_rules", (json_int_t)c->failed,
                            "exit_status", bench_compare_exit(c));
    if (!doc || !c->datasheet)
        return doc;
    if (!(ds = json_array()) || json_object_set_new(doc, "datasheet", ds) != 0)
        goto fail;
    for (size_t i = 0; i < c->nds; i++)
        if (json_array_append_new(ds, ds_json(c, &c->ds[i])) != 0)
            goto fail;
    return doc;
fail:
    json_decref(doc);
    return NULL;
}

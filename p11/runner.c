/* SPDX-License-Identifier: Apache-2.0 */
/* p11/runner.c - one catalogue test from capability check to clean-up. */
#include "p11/runner.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/core/emulate.h"
#include "bench/driver/rundesc.h"
#include "bench/util/cli.h"
#include "bench/results/report.h"
#include "bench/results/results.h"
#include "bench/util/signals.h"
#include <math.h>

#include "p11/async.h"
#include "p11/names.h"

int p11_runner_init(p11_runner *r, p11_target *t, bench_session *s, const bench_load *load,
                    const char *stages_text)
{
    memset(r, 0, sizeof *r);
    r->target = t;
    r->session = s;
    r->load = *load;
    if (load->stages) {
        r->stages = *load->stages;
        r->load.stages = &r->stages;
    }
    r->stages_text = stages_text;
    snprintf(r->selection, sizeof r->selection, "--module %s", t->mod->path);
    if (p11_leftovers_init(&r->left) != 0) {
        bench_error("out of memory");
        return -1;
    }
    return 0;
}

/* Destroy what a set holds on every token, and free it. */
static void discard(p11_test_set *set)
{
    for (unsigned i = 0; i < set->n; i++) {
        p11_test_release(set->ctx[i]);
        free(set->ctx[i]);
    }
    free(set);
}

static void discard_job(void *set)
{
    discard(set);
}

/* Free a --mix's run: its types' keys destroyed. */
static void mix_free(void *m);

/*
 * Destroy what fn(arg) destroys (a set's keys, a mix's), in a thread given
 * up on after the run's --stuck-after, or at a second signal: the token
 * keys it had then not destroyed (all that the n contexts made: which of
 * them went cannot be known) are listed with the command that removes
 * them, and the module is left alone from then on.  After a run with a
 * stuck worker, the module is left alone in any case.  0, or -1 when given
 * up on (arg is then the thread's).
 */
static int destroy_bounded(p11_runner *r, void (*fn)(void *), void *arg, p11_test_ctx *const *ctx,
                           unsigned n)
{
    int rc = 0;
    p11_leftovers maybe;
    const int noted = p11_leftovers_init(&maybe) == 0;
    for (unsigned i = 0; noted && i < n; i++)
        if (ctx[i])
            p11_test_note_keys(ctx[i], &maybe);
    if (r->session->stuck)
        r->target->abandoned = 1;    /* a worker may still be inside the module */
    if (p11_bounded(fn, arg, r->load.stuck_ns, r->session->interrupt) != 0) {
        rc = -1;
        r->target->abandoned = 1;
        bench_warn("destroying the run's keys did not end%s: given up",
                   atomic_load(r->session->interrupt) & BENCH_SIGNAL_AGAIN ? " before the second signal"
                                                                           : " within --stuck-after");
        for (size_t i = 0; noted && i < maybe.n; i++)
            p11_leftovers_add(&r->left, maybe.v[i].slot, maybe.v[i].label, maybe.v[i].type,
                              maybe.v[i].id);
        r->session->any_failed = 1;
    }
    if (noted)
        p11_leftovers_free(&maybe);
    return rc;
}

/* After a stuck worker: the keys only; the contexts stay allocated for the
 * process's life (r->stranded), since the abandoned thread may still read
 * their input and write their buffers. */
typedef struct stranded_keys {
    p11_test_ctx *const *ctx;
    unsigned n;
} stranded_keys;

static void keys_job(void *arg)
{
    const stranded_keys *k = arg;
    for (unsigned i = 0; i < k->n; i++)
        if (k->ctx[i])
            p11_test_destroy_keys(k->ctx[i]);
}

/* After a stuck worker: destroy the keys of the n contexts `owner` holds
 * (a set, a mix's run), which is kept, as the job is; 0 when the destroy
 * ended (the job freed), -1 when it was given up on or could not start. */
static int strand(p11_runner *r, void *owner, p11_test_ctx *const *ctx, unsigned n)
{
    /* A key generation abandoned inside the call makes its keys all the
     * same (or has made them, the answer lost): listed by their label. */
    for (unsigned i = 0; i < n; i++)
        if (ctx[i] && p11_test_note_abandoned(ctx[i], &r->left))
            r->session->any_failed = 1;
    stranded_keys *k = malloc(sizeof *k);
    r->stranded = owner;
    r->stranded_job = k;
    if (!k) {
        bench_error("out of memory: the run's keys are not destroyed");
        r->session->any_failed = 1;
        return -1;
    }
    *k = (stranded_keys){ ctx, n };
    if (destroy_bounded(r, keys_job, k, ctx, n) != 0)
        return -1;
    free(k);               /* done: only a job given up on is its thread's */
    r->stranded_job = NULL;
    return 0;
}

/* Destroy a set (or, after a stuck worker, only its keys: strand).  An
 * abandoned worker uses its context, never the set (tokens_open, before
 * the run): the set itself goes once no destroy job reads it. */
static void discard_bounded(p11_runner *r, p11_test_set *set)
{
    if (!r->session->stuck) {
        destroy_bounded(r, discard_job, set, set->ctx, set->n);
    } else if (strand(r, set, set->ctx, set->n) == 0) {
        free(set);
        r->stranded = NULL;
    }
}

void p11_runner_release(p11_runner *r)
{
    if (r->kept) {
        discard_bounded(r, r->kept);
        r->kept = NULL;
    }
    if (r->left.n)
        r->session->any_failed = 1;   /* something stayed on the token: exit status 1 */
}

void p11_runner_free(p11_runner *r)
{
    p11_runner_release(r);
    p11_leftovers_print(&r->left, stderr, r->selection);
    p11_leftovers_free(&r->left);
}

void p11_runner_teardown(p11_runner *r, int runner, p11_target *t, int opened, bench_session *s,
                         int session)
{
    if (runner)
        p11_runner_free(r);
    if (opened)
        p11_target_close(t);
    if (session)
        bench_session_free(s);
}

/* Tokens of the target (1 for a target opened with one). */
static unsigned ntokens(const p11_target *t)
{
    return t->ntokens > 1 ? t->ntokens : 1;
}

/* "token 'a' (slot 1)" */
static const char *token_where(const p11_token *tok, char *buf, size_t len)
{
    snprintf(buf, len, "token '%s' (slot %lu)", tok->label, (unsigned long)tok->slot);
    return buf;
}

/* The classes of the breakdown by token: the labels, or "slot N: label"
 * for every token when two tokens share a label. */
static void name_tokens(const p11_target *t, p11_test_set *set)
{
    int shared = 0;
    for (unsigned i = 0; i < set->n && !shared; i++)
        for (unsigned k = 0; k < i && !shared; k++)
            shared = strcmp(p11_target_token(t, i)->label, p11_target_token(t, k)->label) == 0;
    for (unsigned i = 0; i < set->n; i++) {
        const p11_token *tok = p11_target_token(t, i);
        if (shared)
            snprintf(set->names[i], sizeof set->names[i], "slot %lu: %s", (unsigned long)tok->slot,
                     tok->label);
        else
            snprintf(set->names[i], sizeof set->names[i], "%s", tok->label);
        set->labels[i] = set->names[i];
    }
}

/*
 * The prepared test for these parameters, on every token: the kept one
 * when it matches (a thread sweep reuses its keys and input), else freshly
 * prepared, token after token, before the clock.  When a token fails, what
 * the others got is destroyed and r->why names the token.
 */
static p11_test_set *prepared(p11_runner *r, const p11_test_def *def, const p11_test_params *p,
                              CK_RV *rv)
{
    p11_target *t = r->target;
    if (r->kept && r->kept_def == def && memcmp(&r->kept_params, p, sizeof *p) == 0) {
        p11_test_set *set = r->kept;
        r->kept = NULL;
        for (unsigned i = 0; i < set->n; i++) {
            p11_test_ctx *ctx = set->ctx[i];
            atomic_store(&ctx->reopened, 0);
            atomic_store(&ctx->verified, 0);
            atomic_store(&ctx->grown, 0);
            atomic_store(&ctx->mismatched, 0);
            ctx->run_seq++;
        }
        *rv = CKR_OK;
        return set;
    }
    p11_runner_release(r);
    p11_test_set *set = calloc(1, sizeof *set);
    if (!set) {
        *rv = CKR_HOST_MEMORY;
        return NULL;
    }
    const unsigned n = ntokens(t);
    set->n = n;
    name_tokens(t, set);
    for (unsigned i = 0; i < n; i++) {
        char where[80];
        p11_test_params pi = *p;
        if (n > 1)
            pi.where = token_where(p11_target_token(t, i), where, sizeof where);
        if (i > 0 && *r->session->interrupt) {
            /* Ctrl-C between tokens: no further keys are made. */
            *rv = CKR_FUNCTION_CANCELED;
            snprintf(r->why, sizeof r->why, "interrupted before the run started");
        } else if (!(set->ctx[i] = malloc(sizeof *set->ctx[i]))) {
            *rv = CKR_HOST_MEMORY;
        } else {
            *rv = p11_test_prepare(set->ctx[i], t->mod, p11_target_token(t, i)->slot,
                                   p11_target_control(t, i), def, &pi, &r->left, r->why,
                                   sizeof r->why);
            set->ctx[i]->params.where = NULL;    /* where pointed into this frame */
            if (*rv == CKR_OK)
                continue;
            p11_test_release(set->ctx[i]);       /* what it made before failing */
            free(set->ctx[i]);
            set->ctx[i] = NULL;
        }
        set->n = i;
        discard(set);
        return NULL;
    }
    return set;
}

static const char *source_name(p11_key_source s)
{
    switch (s) {
    case P11_KEYS_GENERATE: return "session";
    case P11_KEYS_TOKEN:    return "token";
    case P11_KEYS_STATIC:   return "static";
    case P11_KEYS_EXISTING: return "existing";
    }
    return "session";
}

/* What the PKCS#11 workload adds to a run's summary and JSON. */
typedef struct p11_run_extra {
    const p11_test_def    *def;
    const p11_test_params *p;
    p11_test_ctx          *ctx;     /* the first token's; NULL: not measured */
    const p11_test_set    *set;     /* every token's */
    int                    unlisted; /* a token's list lacks the mechanism, which works */
} p11_run_extra;

/* A counter of the run, summed over its tokens. */
static uint64_t total(const p11_test_set *set, size_t offset)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < set->n; i++)
        n += atomic_load((_Atomic uint64_t *)((char *)set->ctx[i] + offset));
    return n;
}
#define TOTAL(set, member) total((set), offsetof(p11_test_ctx, member))

/* How --verify checked, as the summary says it: the run's verify.checked_by
 * (files written before it have only verify.method). */
static const char *verify_how(const json_t *v)
{
    const char *by = json_string_value(json_object_get(v, "checked_by"));
    const char *method = bench_json_str(v, "method", "");
    if (by)
        return by;
    if (strcmp(method, "openssl") == 0)
        return "with OpenSSL";
    if (strcmp(method, "round-trip in token") == 0)
        return "by a round trip in the token";
    return method;   /* "mixed" */
}

/* The PKCS#11 lines of a run's summary, from its element (what extra_json
 * and mix_json wrote). */
static void extra_summary(void *arg, FILE *f, const json_t *run, const bench_run_model *m)
{
    (void)arg;
    (void)m;
    const json_t *v = json_object_get(run, "verify");
    const char *variant = json_string_value(json_object_get(run, "mechanism_variant"));
    const int unlisted = json_is_true(json_object_get(run, "mechanism_unlisted"));
    const long long reopened = bench_json_int(run, "sessions_reopened", 0),
                    grown = bench_json_int(run, "buffers_grown", 0);
    if (json_is_object(v))
        fprintf(f, "    verified..............: %lld results checked: %s\n",
                bench_json_int(v, "checked", 0), verify_how(v));
    if (variant)
        fprintf(f, "    mechanism variant.....: %s\n", p11_test_variant_text(variant));
    if (unlisted)
        fprintf(f, "    mechanism listed......: no: not in the token's mechanism list, yet it works "
                "(tried before the run)\n");
    if (reopened)
        fprintf(f, "    sessions reopened.....: %lld\n", reopened);
    if (grown)
        fprintf(f, "    buffers grown.........: %lld (the module asked for more room)\n", grown);
}

/* --verify's object: mode, method, checked_by, checked, mismatched. */
static json_t *verify_json(const p11_test_params *p, const char *method, const char *how,
                           uint64_t checked, uint64_t mismatched)
{
    char mode[32];
    if (p->verify_every)
        snprintf(mode, sizeof mode, "sample:%llu", (unsigned long long)p->verify_every);
    else
        snprintf(mode, sizeof mode, "first");
    return json_pack("{s:s,s:s,s:s,s:I,s:I}", "mode", mode, "method", method, "checked_by", how,
                     "checked", (json_int_t)checked, "mismatched", (json_int_t)mismatched);
}

static int extra_json(void *arg, json_t *run, const bench_outcome *o)
{
    const p11_run_extra *x = arg;
    if (!o || !x->ctx)
        return 0;
    const p11_test_params *p = x->p;
    const uint64_t reopened = TOTAL(x->set, reopened), grown = TOTAL(x->set, grown);
    int rc = 0;
    if (p11_test_mech(x->def, p) && x->def->hashes)
        rc |= json_object_set_new(run, "hash", json_string(p11_hash_name(p->hash)));
    rc |= json_object_set_new(run, "key_source", json_string(source_name(p->keys)));
    rc |= json_object_set_new(run, "sessions_reopened", json_integer((json_int_t)reopened));
    rc |= json_object_set_new(run, "buffers_grown", json_integer((json_int_t)grown));
    if (p->verify)
        rc |= json_object_set_new(run, "verify",
                                  verify_json(p, x->ctx->verify_method, x->ctx->verify_how,
                                              TOTAL(x->set, verified),
                                              TOTAL(x->set, mismatched)));
    if (x->ctx->variant)
        rc |= json_object_set_new(run, "mechanism_variant", json_string(x->ctx->variant));
    if (x->unlisted)
        rc |= json_object_set_new(run, "mechanism_unlisted", json_true());
    return rc ? -1 : 0;
}

/* What every run's description takes from the load. */
static void load_desc(const p11_runner *r, bench_run_desc *d)
{
    memset(d, 0, sizeof *d);
    bench_run_desc_load(d, &r->load, r->stages_text, "worker pool", 0);
}

void p11_runner_test(p11_runner *r, const p11_test_def *def, const p11_test_params *in)
{
    p11_target *t = r->target;
    bench_session *s = r->session;
    const int quiet = s->out->quiet || s->brief;
    p11_test_params p;
    char keydesc[48], mech[48], reason[256], rb[32], note[128];
    bench_run_desc d;

    if (p11_test_resolve(def, in, &p) != 0) {
        s->any_failed = 1;
        return;
    }
    load_desc(r, &d);
    d.test = def->name;
    d.mechanism = def->op == P11_OP_RANDOM ? "C_GenerateRandom"
                : def->op == P11_OP_FIND ? "C_FindObjects"
                                         : p11_mech_name(p11_test_mech(def, &p), mech, sizeof mech);
    d.key_type = p11_test_key_type(def);
    d.key_desc = p11_test_key_desc(def, &p, keydesc, sizeof keydesc);
    d.key_bits = p.key_bits;
    d.curve = def->key == KEYS_EC ? p.curve : NULL;
    d.data_size = p.data_size;
    d.block_size = def->input == P11_IN_MODULUS ? (p.key_bits + 7) / 8 : 0;

    p11_run_extra extra = { def, &p, NULL, NULL, 0 };
    bench_run_hooks hooks = { .arg = &extra, .deprecated = def->deprecated, .summary = extra_summary,
                              .json = extra_json };
    if (def->deprecated) {
        snprintf(note, sizeof note,
                 "(%s is deprecated: kept for legacy HSMs; NIST disallows 3DES after 2023)", def->name);
        hooks.note = note;
    }

    /* Every token must offer the test; the first that does not is named. */
    for (unsigned i = 0; i < ntokens(t); i++) {
        const p11_token *tok = p11_target_token(t, i);
        char where[80];
        int at = ntokens(t) > 1 ? snprintf(reason, sizeof reason, "%s: ",
                                           token_where(tok, where, sizeof where)) : 0;
        if (at < 0 || (size_t)at >= sizeof reason)
            at = 0;
        /* in resolves as it did into p above: the same p again. */
        const int offered = p11_test_offered(t->mod, tok->slot, def, in, &p, reason + at,
                                             sizeof reason - (size_t)at);
        if (offered == P11_TEST_UNLISTED) {
            /* Not listed, yet it works: run, and say so (NSS's digests). */
            extra.unlisted = 1;
            if (!quiet)
                printf("\n%s: %s\n", def->name, reason);
        }
        if (offered > 0)
            continue;
        if (offered < 0) {
            s->any_failed = 1;
            return;
        }
        if (!quiet)
            printf("\n%s: skipped: %s\n", def->name, reason);
        bench_session_not_run(s, &d, "skipped", reason, &hooks);
        return;
    }

    CK_RV rv;
    p11_test_set *const set = prepared(r, def, &p, &rv);
    if (!set && *s->interrupt) {
        bench_session_not_run(s, &d, "interrupted", "interrupted before the run started", &hooks);
        return;
    }
    if (!set) {
        snprintf(reason, sizeof reason, "%s", r->why[0] ? r->why : p11_rv_name(rv, rb, sizeof rb));
        bench_session_not_run(s, &d, "failed", reason, &hooks);
        return;
    }
    if (*s->interrupt) {
        /* Ctrl-C while keys were made: nothing measured, keys still go. */
        discard(set);
        bench_session_not_run(s, &d, "interrupted", "interrupted before the run started", &hooks);
        return;
    }

    p11_test_ctx *const ctx = set->ctx[0];
    if (def->key == KEYS_RSA && !quiet) {
        /* pkpspeed's banner line, from the key the run uses. */
        const uint64_t e = keys_rsa_exponent(ctx->fn, ctx->control, &ctx->keys);
        if (e)
            printf("\nFor RSA, Exponent will be %llu\n", (unsigned long long)e);
    }
    bench_workload w;
    if (set->n > 1)
        p11_tokens_workload(set, &w);
    else
        p11_test_workload(ctx, &w);
    if (r->load.mode == BENCH_MODE_NONBLOCKING && set->n > 1) {
        /* Each worker thread stays on its token: the worker pool. */
        if (!quiet && r->load.inflight > r->load.threads)
            printf("(non-blocking on the worker pool: the run spans %u tokens; at most %u in flight "
                   "at the module, one a thread)\n", set->n, r->load.threads);
        else if (!quiet)
            printf("(non-blocking on the worker pool: the run spans %u tokens)\n", set->n);
    } else if (r->load.mode == BENCH_MODE_NONBLOCKING) {
        /* Many operations in flight over few threads where the module can
         * (PKCS#11 3.2 async sessions); the worker pool otherwise. */
        char why[160], why2[160];
        const unsigned slots = bench_async_slots(&r->load);
        if (p11_async_setup(ctx, t->mod, &w, slots, why, sizeof why)) {
            d.engine = "PKCS#11 async sessions";
            d.slots = slots;
        } else if (r->load.inflight > r->load.threads) {
            /* A window wider than the threads: without asynchronous
             * sessions, K requests are in flight at the module only on K
             * sessions each called by a thread of its own. */
            if (bench_async_emulate(&w, r->load.inflight, why2, sizeof why2)) {
                d.engine = BENCH_EMULATED_ENGINE;
                d.slots = r->load.inflight;
                if (!quiet)
                    printf("(non-blocking emulated: %s; %u sessions, each with a thread of its own)\n",
                           why, d.slots);
            } else if (!quiet) {
                printf("(non-blocking on the worker pool: %s; %s; at most %u in flight at the module, "
                       "one a thread)\n", why, why2, r->load.threads);
            }
        } else if (!quiet) {
            printf("(non-blocking on the worker pool: %s)\n", why);
        }
    }
    extra.ctx = ctx;
    extra.set = set;
    if (bench_session_run(s, &d, &w, &r->load, &hooks) != 0 || s->stuck) {
        discard_bounded(r, set);     /* nothing runs after a stuck worker: not kept */
        return;
    }
    if (TOTAL(set, mismatched))
        s->any_errors = 1;   /* a wrong result fails the run, warm-up or not */
    /* Kept for a next run with the same parameters; released otherwise. */
    r->kept = set;
    r->kept_def = def;
    r->kept_params = p;
}

/* ---- a --mix ----------------------------------------------------------------- */

/* A mix's prepared types and what its summary and JSON show. */
typedef struct mix_run {
    p11_mix_ctx     mc;
    p11_test_params p[P11_MIX_MAX];
} mix_run;


/* Each type's PKCS#11 line, from the run's mix entries. */
static void mix_summary(void *arg, FILE *f, const json_t *run, const bench_run_model *m)
{
    (void)arg;
    (void)m;
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(run, "mix"), i, e) {
        const json_t *v = json_object_get(e, "verify");
        const long long reopened = bench_json_int(e, "sessions_reopened", 0),
                        grown = bench_json_int(e, "buffers_grown", 0);
        if (!json_is_object(v) && !reopened && !grown)
            continue;
        fprintf(f, "    %s:", bench_json_str(e, "test", "?"));
        if (json_is_object(v))
            fprintf(f, " %lld results checked (%s), %lld wrong;", bench_json_int(v, "checked", 0),
                    verify_how(v), bench_json_int(v, "mismatched", 0));
        if (reopened)
            fprintf(f, " %lld sessions reopened;", reopened);
        if (grown)
            fprintf(f, " %lld buffers grown;", grown);
        fputc('\n', f);
    }
}

/* "mix": the types in order, with their weights, mechanisms, keys and data
 * sizes; for a measured run the PKCS#11 fields, summed over the types. */
static int mix_json(void *arg, json_t *run, const bench_outcome *o)
{
    const mix_run *m = arg;
    const p11_mix *mix = m->mc.mix;
    json_t *arr = json_array();
    int rc = !arr || json_object_set_new(run, "mix", arr);
    /* The seed of the draw, as text: it may pass 2^53, which a JSON number
     * does not carry exactly. */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)mix->seed);
    json_t *settings = json_object_get(run, "settings");
    rc |= !settings || json_object_set_new(settings, "seed", json_string(seed));
    uint64_t reopened = 0, grown = 0, checked = 0, wrong = 0;
    const char *method = NULL, *how = NULL;
    for (unsigned i = 0; !rc && i < mix->n; i++) {
        const p11_test_def *def = mix->defs[i];
        const p11_test_params *p = &m->p[i];
        char mech[48], kd[48];
        json_t *e = json_pack("{s:s,s:f,s:s,s:s,s:I}", "test", def->name, "weight",
                              round(mix->weights[i] * 1e6) / 1e6, "mechanism",
                              def->op == P11_OP_RANDOM ? "C_GenerateRandom"
                              : def->op == P11_OP_FIND ? "C_FindObjects"
                                                       : p11_mech_name(p11_test_mech(def, p), mech,
                                                                       sizeof mech),
                              "key", p11_test_key_desc(def, p, kd, sizeof kd), "data_size",
                              (json_int_t)p->data_size);
        const p11_test_ctx *c = m->mc.ctx[i];
        if (e && o && c) {
            const uint64_t r1 = atomic_load(&c->reopened), g1 = atomic_load(&c->grown);
            reopened += r1;
            grown += g1;
            rc |= json_object_set_new(e, "sessions_reopened", json_integer((json_int_t)r1));
            rc |= json_object_set_new(e, "buffers_grown", json_integer((json_int_t)g1));
            if (p->verify) {
                checked += atomic_load(&c->verified);
                wrong += atomic_load(&c->mismatched);
                method = !method || strcmp(method, c->verify_method) == 0 ? c->verify_method : "mixed";
                how = !how || strcmp(how, c->verify_how) == 0 ? c->verify_how : "each type's own (see mix)";
                rc |= json_object_set_new(e, "verify",
                                          verify_json(p, c->verify_method, c->verify_how,
                                                      atomic_load(&c->verified),
                                                      atomic_load(&c->mismatched)));
            }
        }
        rc |= !e || json_array_append_new(arr, e);
    }
    if (rc || !o)
        return rc ? -1 : 0;
    rc |= json_object_set_new(run, "key_source", json_string(source_name(m->p[0].keys)));
    rc |= json_object_set_new(run, "sessions_reopened", json_integer((json_int_t)reopened));
    rc |= json_object_set_new(run, "buffers_grown", json_integer((json_int_t)grown));
    if (m->p[0].verify)
        rc |= json_object_set_new(run, "verify", verify_json(&m->p[0], method ? method : "none",
                                                             how ? how : "not checked", checked, wrong));
    return rc ? -1 : 0;
}

int p11_runner_offered_all(p11_runner *r, const bench_run_desc *d, const bench_run_hooks *h,
                           unsigned n, const p11_test_def *const *defs, const char *const *labels,
                           const p11_test_params *in, p11_test_params *out)
{
    p11_target *t = r->target;
    bench_session *s = r->session;
    char reason[300];
    for (unsigned i = 0; i < n; i++) {
        char why[256];
        const int offered = p11_test_offered(t->mod, t->token.slot, defs[i], &in[i], &out[i], why,
                                             sizeof why);
        if (offered < 0) {
            s->any_failed = 1;
            return -1;
        }
        if (!offered) {
            snprintf(reason, sizeof reason, "%s: %s", labels[i], why);
            if (!s->out->quiet)
                printf("\n%s: skipped: %s\n", d->test, reason);
            bench_session_not_run(s, d, "skipped", reason, h);
            return 0;
        }
    }
    return 1;
}

static void release_all(p11_test_ctx **ctx, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (ctx[i]) {
            p11_test_release(ctx[i]);
            free(ctx[i]);
            ctx[i] = NULL;
        }
}

int p11_runner_prepare_all(p11_runner *r, const bench_run_desc *d, const bench_run_hooks *h,
                           unsigned n, const p11_test_def *const *defs, const char *const *labels,
                           const p11_test_params *p, p11_test_ctx **ctx)
{
    p11_target *t = r->target;
    bench_session *s = r->session;
    char reason[300], rb[32];
    for (unsigned i = 0; i < n && !*s->interrupt; i++) {
        p11_test_ctx *c = malloc(sizeof *c);
        const CK_RV rv = c ? p11_test_prepare(c, t->mod, t->token.slot, t->control, defs[i], &p[i],
                                              &r->left, r->why, sizeof r->why)
                           : CKR_HOST_MEMORY;
        if (rv != CKR_OK) {
            free(c);
            snprintf(reason, sizeof reason, "%s: %s", labels[i],
                     r->why[0] ? r->why : p11_rv_name(rv, rb, sizeof rb));
            release_all(ctx, n);
            bench_session_not_run(s, d, "failed", reason, h);
            return -1;
        }
        ctx[i] = c;
    }
    if (*s->interrupt) {
        release_all(ctx, n);
        bench_session_not_run(s, d, "interrupted", "interrupted before the run started", h);
        return -1;
    }
    return 0;
}

int p11_runner_run_prepared(p11_runner *r, const bench_run_desc *d, const bench_workload *w,
                            const bench_run_hooks *h, p11_test_ctx *const *ctx, unsigned n,
                            void (*free_owner)(void *), void *owner)
{
    bench_session *s = r->session;
    const int rc = bench_session_run(s, d, w, &r->load, h);
    if (rc == 0)
        for (unsigned i = 0; i < n; i++)
            if (atomic_load(&ctx[i]->mismatched))
                s->any_errors = 1;   /* a wrong result fails the run */
    if (s->stuck)
        strand(r, owner, ctx, n);
    else
        destroy_bounded(r, free_owner, owner, ctx, n);
    return rc;
}

void p11_runner_mix(p11_runner *r, const p11_mix *mix, const p11_test_params *in)
{
    bench_session *s = r->session;
    char keydesc[48];
    bench_run_desc d;
    mix_run *m = calloc(1, sizeof *m);

    p11_runner_release(r);       /* a single test's kept keys go first */
    if (!m) {
        bench_error("out of memory");
        s->any_failed = 1;
        return;
    }
    m->mc.mix = mix;
    for (unsigned i = 0; i < mix->n; i++)
        if (p11_test_resolve(mix->defs[i], &in[i], &m->p[i]) != 0) {
            s->any_failed = 1;
            free(m);
            return;
        }
    load_desc(r, &d);
    d.test = "mix";
    snprintf(keydesc, sizeof keydesc, "%u types", mix->n);
    d.key_desc = keydesc;
    /* The types' data sizes: one they share, or "mixed" (d.data_size stays 0). */
    char datadesc[48] = "no data";
    uint64_t size = 0;
    for (unsigned i = 0; i < mix->n; i++) {
        if (!m->p[i].data_size)
            continue;
        if (size && m->p[i].data_size != size)
            snprintf(datadesc, sizeof datadesc, "mixed data sizes");
        else if (!size)
            snprintf(datadesc, sizeof datadesc, "data %llu B", (unsigned long long)m->p[i].data_size);
        size = m->p[i].data_size;
    }
    d.data_desc = datadesc;
    bench_run_hooks hooks = { .arg = m, .summary = mix_summary, .json = mix_json };
    /* Every type offered, then its keys and input, before the clock. */
    if (p11_runner_offered_all(r, &d, &hooks, mix->n, mix->defs, mix->labels, in, m->p) <= 0 ||
        p11_runner_prepare_all(r, &d, &hooks, mix->n, mix->defs, mix->labels, m->p, m->mc.ctx) != 0) {
        free(m);
        return;
    }
    bench_workload w;
    p11_mix_workload(&m->mc, &w);
    if (r->load.mode == BENCH_MODE_NONBLOCKING && r->load.inflight > r->load.threads &&
        !s->out->quiet && !s->brief)
        printf("(non-blocking on the worker pool: a mix is counted by type; at most %u in flight at "
               "the module, one a thread)\n", r->load.threads);
    (void)p11_runner_run_prepared(r, &d, &w, &hooks, m->mc.ctx, mix->n, mix_free, m);
}

static void mix_free(void *arg)
{
    mix_run *m = arg;
    release_all(m->mc.ctx, m->mc.mix->n);
    free(m);
}

void p11_runner_cap_step(void *arg, const bench_load *load)
{
    p11_cap_step_arg *a = arg;
    a->r->load = *load;
    p11_runner_test(a->r, a->def, a->params);
}

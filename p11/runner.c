/* p11/runner.c - one catalogue test from capability check to clean-up. */
#include "p11/runner.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli.h"
#include "bench/report.h"
#include "bench/signals.h"
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

void p11_runner_release(p11_runner *r)
{
    if (r->kept) {
        discard(r->kept);
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

static void extra_summary(void *arg, FILE *f, const bench_outcome *o)
{
    const p11_run_extra *x = arg;
    const uint64_t reopened = TOTAL(x->set, reopened), grown = TOTAL(x->set, grown);
    (void)o;
    if (x->p->verify)
        fprintf(f, "    verified..............: %llu results checked %s\n",
                (unsigned long long)TOTAL(x->set, verified),
                x->ctx->round_trip ? "by a round trip in the token" : "with OpenSSL");
    if (x->ctx->variant)
        fprintf(f, "    mechanism variant.....: %s\n", p11_test_variant_text(x->ctx->variant));
    if (reopened)
        fprintf(f, "    sessions reopened.....: %llu\n", (unsigned long long)reopened);
    if (grown)
        fprintf(f, "    buffers grown.........: %llu (the module asked for more room)\n",
                (unsigned long long)grown);
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
    if (p->verify) {
        char mode[32];
        if (p->verify_every)
            snprintf(mode, sizeof mode, "sample:%llu", (unsigned long long)p->verify_every);
        else
            snprintf(mode, sizeof mode, "first");
        rc |= json_object_set_new(run, "verify",
                                  json_pack("{s:s,s:s,s:I,s:I}", "mode", mode, "method",
                                            x->ctx->verify_method, "checked",
                                            (json_int_t)TOTAL(x->set, verified),
                                            "mismatched",
                                            (json_int_t)TOTAL(x->set, mismatched)));
    }
    if (x->ctx->variant)
        rc |= json_object_set_new(run, "mechanism_variant", json_string(x->ctx->variant));
    return rc ? -1 : 0;
}

void p11_runner_test(p11_runner *r, const p11_test_def *def, const p11_test_params *in)
{
    p11_target *t = r->target;
    bench_session *s = r->session;
    const int quiet = s->out->quiet;
    p11_test_params p;
    char keydesc[48], mech[48], reason[256], rb[32], note[128];
    bench_run_desc d;

    if (p11_test_resolve(def, in, &p) != 0) {
        s->any_failed = 1;
        return;
    }
    memset(&d, 0, sizeof d);
    d.test = def->name;
    d.mechanism = def->op == P11_OP_RANDOM ? "C_GenerateRandom"
                : def->op == P11_OP_FIND ? "C_FindObjects"
                                         : p11_mech_name(p11_test_mech(def, &p), mech, sizeof mech);
    d.mode = r->load.mode == BENCH_MODE_NONBLOCKING ? "nonblocking" : "blocking";
    d.rate = r->load.rate;
    d.inflight = r->load.inflight;
    d.stages = r->load.stages ? r->stages_text : NULL;
    d.think_s = (double)r->load.think_ns / 1e9;
    d.engine = r->load.mode == BENCH_MODE_NONBLOCKING ? "worker pool" : NULL;
    d.key_type = p11_test_key_type(def);
    d.key_desc = p11_test_key_desc(def, &p, keydesc, sizeof keydesc);
    d.key_bits = p.key_bits;
    d.curve = def->key == KEYS_EC ? p.curve : NULL;
    d.threads = r->load.threads;
    d.data_size = p.data_size;
    d.block_size = def->input == P11_IN_MODULUS ? (p.key_bits + 7) / 8 : 0;
    d.warmup_s = (double)r->load.warmup_ns / 1e9;
    d.duration_s = (double)r->load.duration_ns / 1e9;
    d.iterations = r->load.iterations;

    p11_run_extra extra = { def, &p, NULL, NULL };
    bench_run_hooks hooks = { &extra, NULL, def->deprecated, extra_summary, extra_json, NULL, NULL };
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
        if (p11_test_supported(t->mod, tok->slot, def, &p, reason + at, sizeof reason - (size_t)at))
            continue;
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
    bench_workload w;
    if (set->n > 1)
        p11_tokens_workload(set, &w);
    else
        p11_test_workload(ctx, &w);
    if (r->load.mode == BENCH_MODE_NONBLOCKING && set->n > 1) {
        /* Each worker thread stays on its token: the worker pool. */
        if (!quiet)
            printf("(non-blocking on the worker pool: the run spans %u tokens)\n", set->n);
    } else if (r->load.mode == BENCH_MODE_NONBLOCKING) {
        /* Many operations in flight over few threads where the module can
         * (PKCS#11 3.2 async sessions); the worker pool otherwise. */
        char why[160];
        const unsigned slots = bench_async_slots(&r->load);
        if (p11_async_setup(ctx, t->mod, &w, slots, why, sizeof why)) {
            d.engine = "PKCS#11 async sessions";
            d.slots = slots;
        }
        else if (!quiet)
            printf("(non-blocking on the worker pool: %s)\n", why);
    }
    extra.ctx = ctx;
    extra.set = set;
    if (bench_session_run(s, &d, &w, &r->load, &hooks) != 0) {
        discard(set);
        return;
    }
    if (TOTAL(set, mismatched))
        s->any_errors = 1;   /* a wrong result fails the run, warm-up or not */
    /* Kept for a next run with the same parameters; released otherwise. */
    r->kept = set;
    r->kept_def = def;
    r->kept_params = p;
}

/* p11/runner.c - one catalogue test from capability check to clean-up. */
#include "p11/runner.h"

#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "bench/cli.h"
#include "bench/report.h"
#include "bench/signals.h"
#include "p11/async.h"
#include "p11/names.h"

int p11_runner_init(p11_runner *r, p11_target *t, const bench_load *load,
                    const char *stages_text, int quiet, const bench_flag *interrupt)
{
    memset(r, 0, sizeof *r);
    r->target = t;
    r->load = *load;
    if (load->stages) {
        r->stages = *load->stages;
        r->load.stages = &r->stages;
    }
    r->stages_text = stages_text;
    r->quiet = quiet;
    r->interrupt = interrupt;
    r->runs = json_array();
    return r->runs ? 0 : -1;
}

void p11_runner_release(p11_runner *r)
{
    if (r->kept) {
        p11_test_release(r->kept);
        free(r->kept);
        r->kept = NULL;
    }
}

/*
 * The prepared test for these parameters: the kept one when it matches (a
 * thread sweep reuses its keys and input), else freshly prepared.
 */
static p11_test_ctx *prepared(p11_runner *r, const p11_test_def *def, const p11_test_params *p,
                              CK_RV *rv)
{
    p11_target *t = r->target;
    if (r->kept && r->kept_def == def && memcmp(&r->kept_params, p, sizeof *p) == 0) {
        p11_test_ctx *ctx = r->kept;
        r->kept = NULL;
        atomic_store(&ctx->reopened, 0);
        atomic_store(&ctx->verified, 0);
        atomic_store(&ctx->grown, 0);
        atomic_store(&ctx->mismatched, 0);
        ctx->run_seq++;
        *rv = CKR_OK;
        return ctx;
    }
    p11_runner_release(r);
    p11_test_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx) {
        *rv = CKR_HOST_MEMORY;
        return NULL;
    }
    *rv = p11_test_prepare(ctx, t->mod, t->token.slot, t->control, def, p);
    if (*rv != CKR_OK) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

static void discard(p11_test_ctx *ctx)
{
    p11_test_release(ctx);
    free(ctx);
}

void p11_runner_free(p11_runner *r)
{
    p11_runner_release(r);
    json_decref(r->runs);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static void print_second(void *arg, const bench_sample *s)
{
    p11_runner *r = arg;
    bench_progress_clear(&r->progress);
    if (r->on_second)
        r->on_second(r->arg, s);
    else if (!r->quiet)
        bench_report_second(stdout, s);
    if (!s->warmup) {
        r->progress_elapsed += s->span_s;
        bench_progress_update(&r->progress, r->progress_elapsed, s->span_s > 0 ? (double)s->ops / s->span_s : 0);
    }
}

static uint64_t epoch_ms_now(void)
{
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    return (uint64_t)rt.tv_sec * 1000 + (uint64_t)rt.tv_nsec / 1000000;
}

/* --start-at: several generators begin together.  Ctrl-C still works. */
static void wait_for_start(p11_runner *r)
{
    if (!r->start_at_ms)
        return;
    uint64_t now = epoch_ms_now();
    if (now < r->start_at_ms && !r->quiet)
        printf("waiting %.1f s for --start-at\n", (double)(r->start_at_ms - now) / 1000.0);
    fflush(stdout);
    while ((now = epoch_ms_now()) < r->start_at_ms && !*r->interrupt) {
        uint64_t left = r->start_at_ms - now;
        struct timespec ts = { 0, (long)((left < 100 ? left : 100) * 1000000) };
        nanosleep(&ts, NULL);
    }
    r->start_at_ms = 0;   /* only the first run waits */
}

static p11_row *add_row(p11_runner *r, const bench_run_desc *d, const char *status,
                        const char *reason, int deprecated)
{
    if (r->nrows == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 16;
        p11_row *nr = realloc(r->rows, ncap * sizeof *nr);
        if (!nr)
            return NULL;
        r->rows = nr;
        r->cap = ncap;
    }
    p11_row *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->test, sizeof row->test, "%s", d->test);
    snprintf(row->key, sizeof row->key, "%s", d->key_desc ? d->key_desc : "-");
    snprintf(row->status, sizeof row->status, "%s", status);
    snprintf(row->reason, sizeof row->reason, "%s", reason ? reason : "");
    row->data_size = d->data_size;
    row->threads = d->threads;
    row->deprecated = deprecated;
    return row;
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

/* Say what went wrong, add the failed/skipped element and row. */
static void not_run(p11_runner *r, const bench_run_desc *d, const char *status, const char *reason,
                    int deprecated)
{
    json_t *run = bench_report_run_json(d, NULL, NULL, status, reason);
    if (deprecated)
        json_object_set_new(run, "deprecated", json_true());
    json_array_append_new(r->runs, run);
    add_row(r, d, status, reason, deprecated);
}

void p11_runner_test(p11_runner *r, const p11_test_def *def, const p11_test_params *in)
{
    p11_target *t = r->target;
    p11_test_params p;
    char keydesc[48], mech[48], reason[256], rb[32];
    bench_run_desc d;

    if (p11_test_resolve(def, in, &p) != 0) {
        r->any_failed = 1;
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
    d.warmup_s = (double)r->load.warmup_ns / 1e9;
    d.duration_s = (double)r->load.duration_ns / 1e9;
    d.iterations = r->load.iterations;

    if (!p11_test_supported(t->mod, t->token.slot, def, &p, reason, sizeof reason)) {
        if (!r->quiet)
            printf("\n%s: skipped: %s\n", def->name, reason);
        not_run(r, &d, "skipped", reason, def->deprecated);
        return;
    }

    CK_RV rv;
    p11_test_ctx *ctxp = prepared(r, def, &p, &rv);
    if (!ctxp) {
        snprintf(reason, sizeof reason, "preparing keys and input failed: %s",
                 rv == CKR_GENERAL_ERROR ? "see the message above" : p11_rv_name(rv, rb, sizeof rb));
        not_run(r, &d, "failed", reason, def->deprecated);
        r->any_failed = 1;
        return;
    }
    p11_test_ctx *const ctx = ctxp;
    if (*r->interrupt) {
        /* Ctrl-C while keys were made: nothing measured, keys still go. */
        discard(ctx);
        r->interrupted = 1;
        not_run(r, &d, "interrupted", "interrupted before the run started", def->deprecated);
        return;
    }

    bench_workload w;
    bench_outcome out;
    p11_test_workload(ctx, &w);
    if (r->load.mode == BENCH_MODE_NONBLOCKING) {
        /* Many operations in flight over few threads where the module can
         * (PKCS#11 3.2 async sessions); the worker pool otherwise. */
        char why[160];
        const unsigned slots = bench_async_slots(&r->load);
        if (p11_async_setup(ctx, t->mod, &w, slots, why, sizeof why)) {
            d.engine = "PKCS#11 async sessions";
            d.slots = slots;
        }
        else if (!r->quiet)
            printf("(non-blocking on the worker pool: %s)\n", why);
    }
    if (!r->quiet) {
        bench_report_header(stdout, &d);
        if (def->deprecated)
            printf("(%s is deprecated: kept for legacy HSMs; NIST disallows 3DES after 2023)\n",
                   def->name);
    }
    wait_for_start(r);
    r->progress_elapsed = 0;
    bench_progress_begin(&r->progress, stderr, (double)r->load.duration_ns / 1e9,
                         !r->quiet && !r->on_second);
    int rc = bench_pool_run(&w, &r->load, r->interrupt, print_second, r, &out);
    bench_progress_end(&r->progress);
    if (rc == 0 && !r->first_epoch_ms)
        r->first_epoch_ms = out.measure_start_epoch_ms;
    if (rc != 0 && *r->interrupt) {
        /* Ctrl-C while the threads set up: nothing measured, keys still go. */
        r->interrupted = 1;
        not_run(r, &d, "interrupted", "interrupted before the run started", def->deprecated);
        bench_outcome_free(&out);
        discard(ctx);
        return;
    }
    if (rc != 0) {
        bench_error("%s: %s", def->name, out.reason);
        not_run(r, &d, "failed", out.reason, def->deprecated);
        r->any_failed = 1;
        bench_outcome_free(&out);
        discard(ctx);
        return;
    }

    uint64_t reopened = atomic_load(&ctx->reopened), verified = atomic_load(&ctx->verified);
    uint64_t grown = atomic_load(&ctx->grown), mismatched = atomic_load(&ctx->mismatched);
    if (mismatched)
        r->any_errors = 1;   /* a wrong result fails the run, warm-up or not */
    if (!r->quiet) {
        bench_report_summary(stdout, &d, &out, &w);
        if (p.verify)
            printf("    verified..............: %llu results checked with OpenSSL\n",
                   (unsigned long long)verified);
        if (reopened)
            printf("    sessions reopened.....: %llu\n", (unsigned long long)reopened);
        if (grown)
            printf("    buffers grown.........: %llu (the module asked for more room)\n",
                   (unsigned long long)grown);
    }
    const char *status = bench_outcome_status(&out);
    char why[64] = "";
    if (out.status == BENCH_RUN_INTERRUPTED)
        snprintf(why, sizeof why, "interrupted (%s)", bench_signal_what(*r->interrupt));
    json_t *run = bench_report_run_json(&d, &out, &w, status, why[0] ? why : NULL);
    if (p11_test_mech(def, &p) && def->hashes)
        json_object_set_new(run, "hash", json_string(p11_hash_name(p.hash)));
    json_object_set_new(run, "key_source", json_string(source_name(p.keys)));
    json_object_set_new(run, "sessions_reopened", json_integer((json_int_t)reopened));
    json_object_set_new(run, "buffers_grown", json_integer((json_int_t)grown));
    if (p.verify) {
        char mode[32];
        if (p.verify_every)
            snprintf(mode, sizeof mode, "sample:%llu", (unsigned long long)p.verify_every);
        else
            snprintf(mode, sizeof mode, "first");
        json_object_set_new(run, "verify", json_pack("{s:s,s:I,s:I}", "mode", mode, "checked",
                                                     (json_int_t)verified, "mismatched",
                                                     (json_int_t)mismatched));
    }
    if (def->deprecated)
        json_object_set_new(run, "deprecated", json_true());
    json_array_append_new(r->runs, run);

    p11_row *row = add_row(r, &d, status, why, def->deprecated);
    if (row) {
        row->ops_per_s = out.duration_s > 0 ? (double)out.ops / out.duration_s : 0;
        row->p50_us = (double)bench_hist_percentile(out.hist, 50) / 1e3;
        row->p99_us = (double)bench_hist_percentile(out.hist, 99) / 1e3;
        row->error_pct = out.ops ? 100.0 * (double)out.errors / (double)out.ops : 0;
    }
    if (out.status == BENCH_RUN_INTERRUPTED)
        r->interrupted = 1;
    if (out.errors)
        r->any_errors = 1;
    bench_outcome_free(&out);
    /* Kept for a next run with the same parameters; released otherwise. */
    r->kept = ctx;
    r->kept_def = def;
    r->kept_params = p;
}

void p11_runner_table(const p11_runner *r, FILE *f)
{
    char a[32], b[32];
    fprintf(f, "\n%-26s %-12s %7s %7s %12s %10s %10s %7s  %s\n", "TEST", "KEY", "DATA", "THREADS",
            "OPS/S", "P50", "P99", "ERR%", "STATUS");
    for (size_t i = 0; i < r->nrows; i++) {
        const p11_row *row = &r->rows[i];
        int measured = row->ops_per_s > 0 || strcmp(row->status, "ok") == 0;
        char status[240];
        if (row->reason[0] && strcmp(row->status, "ok") != 0)
            snprintf(status, sizeof status, "%s: %s", row->status, row->reason);
        else
            snprintf(status, sizeof status, "%s%s", row->status, row->deprecated ? " (deprecated)" : "");
        if (measured)
            fprintf(f, "%-26s %-12s %7llu %7u %12.1f %10s %10s %7.2f  %s\n", row->test, row->key,
                    (unsigned long long)row->data_size, row->threads, row->ops_per_s,
                    bench_fmt_ns(row->p50_us * 1e3, a, sizeof a), bench_fmt_ns(row->p99_us * 1e3, b, sizeof b),
                    row->error_pct, status);
        else
            fprintf(f, "%-26s %-12s %7llu %7u %12s %10s %10s %7s  %s\n", row->test, row->key,
                    (unsigned long long)row->data_size, row->threads, "-", "-", "-", "-", status);
    }
    fflush(f);
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/bench/minloop.c - the minimal loop `make bench` holds hsmbench to.
 *
 * Same module, same token, same keys and input (it prepares the test with
 * hsmbench's own p11/ code), but the timed part is a bare loop: each thread
 * calls the operation's two PKCS#11 functions back to back and counts, with
 * no clock read, no histogram and no sampler.  The ratio of hsmbench's
 * ops/s to this one's is the harness's overhead.
 *
 *   minloop --test NAME --threads N --duration SECONDS [selection] [--key-size B]
 *           [--curve C] [--data-size N]        prints: ops_per_s=NNN
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/exit.h"
#include "bench/util/heap.h"
#include "p11/target.h"
#include "p11/tests.h"

typedef struct shared {
    const p11_test_ctx *ctx;
    pthread_barrier_t   go;
    _Atomic int         stop;
} shared;

typedef struct loop {
    shared           *sh;
    pthread_t         tid;
    unsigned          index;
    uint64_t          ops, errors;
} loop;

static void *loop_main(void *arg)
{
    loop *lp = arg;
    const p11_test_ctx *ctx = lp->sh->ctx;
    CK_FUNCTION_LIST *fn = ctx->fn;
    CK_SESSION_HANDLE s;
    p11_mech_state ms;
    unsigned char *out = malloc(ctx->out_cap);
    const CK_OBJECT_HANDLE key = ctx->keys.priv;
    const CK_OBJECT_HANDLE pub = ctx->keys.pub ? ctx->keys.pub : ctx->keys.priv;
    uint64_t n = 0, errs = 0;

    p11_mech_init(ctx, lp->index, &ms);
    CK_RV rv = fn->C_OpenSession(ctx->slot, CKF_SERIAL_SESSION, NULL, NULL, &s);
    pthread_barrier_wait(&lp->sh->go);
    if (rv != CKR_OK || !out) {
        lp->errors = 1;
        free(out);
        return NULL;
    }
    while (!atomic_load_explicit(&lp->sh->stop, memory_order_relaxed)) {
        CK_ULONG len = ctx->out_cap;
        n++;
        p11_mech_next(ctx, &ms, n);
        switch (ctx->def->op) {
        case P11_OP_SIGN:
            rv = fn->C_SignInit(s, &ms.mech, key);
            if (rv == CKR_OK)
                rv = fn->C_Sign(s, ctx->input, ctx->input_len, out, &len);
            break;
        case P11_OP_VERIFY:
            rv = fn->C_VerifyInit(s, &ms.mech, pub);
            if (rv == CKR_OK)
                rv = fn->C_Verify(s, ctx->input, ctx->input_len, ctx->sig, ctx->sig_len);
            break;
        case P11_OP_ENCRYPT:
            rv = fn->C_EncryptInit(s, &ms.mech, pub);
            if (rv == CKR_OK)
                rv = fn->C_Encrypt(s, ctx->input, ctx->input_len, out, &len);
            break;
        case P11_OP_DECRYPT:
            rv = fn->C_DecryptInit(s, &ms.mech, key);
            if (rv == CKR_OK)
                rv = fn->C_Decrypt(s, ctx->input, ctx->input_len, out, &len);
            break;
        case P11_OP_DIGEST:
            rv = fn->C_DigestInit(s, &ms.mech);
            if (rv == CKR_OK)
                rv = fn->C_Digest(s, ctx->input, ctx->input_len, out, &len);
            break;
        default:
            rv = CKR_FUNCTION_NOT_SUPPORTED;
            break;
        }
        errs += rv != CKR_OK;
    }
    fn->C_CloseSession(s);
    free(out);
    lp->ops = n;
    lp->errors = errs;
    return NULL;
}

int main(int argc, char **argv)
{
    /* hsmbench's own heap policy (bench/util/heap.c), so that the ratio is the
     * code's, not the allocator setting's. */
    (void)bench_heap_keep_freed();
    static const bench_option rows[] = {
        { "test", 0, BENCH_ARG_REQUIRED, "NAME", 't', "the test", NULL },
        { "threads", 0, BENCH_ARG_REQUIRED, "N", 'n', "worker threads", NULL },
        { "duration", 0, BENCH_ARG_REQUIRED, "TIME", 'd', "measured time", NULL },
        { "key-size", 0, BENCH_ARG_REQUIRED, "BITS", 'k', "key size", NULL },
        { "curve", 0, BENCH_ARG_REQUIRED, "CURVE", 'c', "EC curve", NULL },
        { "data-size", 0, BENCH_ARG_REQUIRED, "BYTES", 's', "input size", NULL },
    };
    static const bench_opt_group group = BENCH_OPT_GROUP("Loop:", rows, NULL);
    static const bench_opt_group *const groups[] = { &p11_target_group, &group, NULL };
    static const bench_cmd_opts cmd = { "minloop", 0, groups };
    bench_opts_parser parser;
    p11_target_opts o;
    p11_test_params in, p;
    const p11_test_def *def = NULL;
    uint64_t threads = 1, duration_ns = 2000000000ULL, v;
    int c;

    memset(&o, 0, sizeof o);
    memset(&in, 0, sizeof in);
    if (bench_opts_begin(&parser, &cmd) != 0)
        return BENCH_EXIT_USAGE;
    while ((c = bench_opts_next(&parser, argc, argv)) != -1) {
        int t = p11_target_opt(&o, c, optarg);
        if (t < 0)
            return BENCH_EXIT_USAGE;
        if (t > 0)
            continue;
        switch (c) {
        case 't':
            if (!(def = p11_test_find(optarg))) {
                bench_error("--test %s: unknown test", optarg);
                return BENCH_EXIT_USAGE;
            }
            break;
        case 'n':
            if (bench_parse_u64("--threads", optarg, 1, 1024, &threads) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case 'd':
            if (bench_parse_duration("--duration", optarg, 1000000, 3600000000000ULL, &duration_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case 'k':
            if (bench_parse_u64("--key-size", optarg, 1, 65536, &v) != 0)
                return BENCH_EXIT_USAGE;
            in.key_bits = (unsigned)v;
            break;
        case 'c':
            in.curve = optarg;
            break;
        case 's':
            if (bench_parse_u64("--data-size", optarg, 1, 16200, &in.data_size) != 0)
                return BENCH_EXIT_USAGE;
            break;
        default:
            return BENCH_EXIT_USAGE;
        }
    }
    if (!def || p11_test_resolve(def, &in, &p) != 0) {
        bench_error("minloop: --test is required");
        return BENCH_EXIT_USAGE;
    }

    p11_target tgt;
    int rc = p11_target_open(&o, (unsigned)threads, P11_OPEN_LOGIN, &tgt);
    if (rc != 0)
        return rc;
    p11_test_ctx ctx;
    if (p11_test_prepare(&ctx, tgt.mod, tgt.token.slot, tgt.control, def, &p, NULL, NULL, 0) != CKR_OK) {
        p11_target_close(&tgt);
        return BENCH_EXIT_MODULE;
    }

    shared sh = { .ctx = &ctx };
    loop *loops = calloc(threads, sizeof *loops);
    if (!loops || pthread_barrier_init(&sh.go, NULL, (unsigned)threads + 1) != 0) {
        bench_error("out of memory");
        return BENCH_EXIT_FAILED;
    }
    for (unsigned i = 0; i < threads; i++) {
        loops[i].sh = &sh;
        loops[i].index = i;
        if (pthread_create(&loops[i].tid, NULL, loop_main, &loops[i]) != 0) {
            bench_error("cannot create thread %u", i);
            return BENCH_EXIT_FAILED;
        }
    }
    pthread_barrier_wait(&sh.go);
    uint64_t t0 = bench_now_ns();
    bench_sleep_until_ns(t0 + duration_ns);
    atomic_store(&sh.stop, 1);
    uint64_t ops = 0, errs = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(loops[i].tid, NULL);
        ops += loops[i].ops;
        errs += loops[i].errors;
    }
    double secs = (double)(bench_now_ns() - t0) / 1e9;
    printf("ops_per_s=%.1f ops=%llu errors=%llu seconds=%.3f\n", (double)ops / secs,
           (unsigned long long)ops, (unsigned long long)errs, secs);
    pthread_barrier_destroy(&sh.go);
    free(loops);
    p11_test_release(&ctx);
    p11_target_close(&tgt);
    return errs ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}

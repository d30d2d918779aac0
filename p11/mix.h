/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/mix.h - a --mix: one run whose operations are drawn by weight from
 * several catalogue tests, each with its own prepared keys and input.
 *
 * Every worker opens one state per type (its own session for each, as a
 * single test's worker would) and, before each operation, draws the type
 * from its own generator (xoshiro256**, seeded from --seed and the
 * worker's index), so the same seed, thread count and iteration count give
 * the same sequence of types.  The run reports per type through the core's
 * breakdown (dimension "type", weights the normalised shares).
 */
#ifndef P11_MIX_H
#define P11_MIX_H

#include <stdint.h>

#include "bench/results/stats.h"
#include "bench/core/workload.h"
#include "p11/tests.h"

#define P11_MIX_MAX 16               /* types in one mix */
#define P11_MIX_DEFAULT_SEED 1       /* --seed when not given */

typedef struct p11_mix {
    unsigned            n;
    const p11_test_def *defs[P11_MIX_MAX];
    double              weights[P11_MIX_MAX];   /* normalised: they sum to 1 */
    const char         *labels[P11_MIX_MAX];    /* the tests' names */
    uint64_t            seed;
} p11_mix;

/*
 * "rsa-pkcs-sign:60,ecdsa-verify:30,aes-gcm-encrypt:10": NAME:WEIGHT items,
 * each weight a positive number, each test once.  0, or -1 with one line
 * printed (--mix ...: why).  Sets seed to P11_MIX_DEFAULT_SEED.
 */
int p11_mix_parse(const char *text, p11_mix *mix);

/* The prepared types and the workload over them; workers only read it. */
typedef struct p11_mix_ctx {
    const p11_mix  *mix;
    p11_test_ctx   *ctx[P11_MIX_MAX];       /* prepared, one per type */
    bench_workload  inner[P11_MIX_MAX];     /* each type's own workload */
    double          cum[P11_MIX_MAX];       /* cumulative weights, the last 1 */
    bench_breakdown by;                     /* "type" */
    uint64_t        bytes[P11_MIX_MAX];     /* each type's bytes per operation */
} p11_mix_ctx;

/* Worker `index`'s state of each of n workloads into st[] (a mix's
 * types, a replay's steps): 0, or -1 with err naming labels[i], the one
 * that failed, and those opened closed again.  Closing sets st[i] NULL. */
int  p11_states_open(const bench_workload *inner, const char *const *labels, unsigned n,
                     unsigned index, void **st, char *err, size_t errlen);
void p11_states_close(const bench_workload *inner, unsigned n, void **st);

/* The mix's workload, after mc->mix and mc->ctx[] are set: fills
 * mc->inner, mc->cum and mc->by, and w. */
void p11_mix_workload(p11_mix_ctx *mc, bench_workload *w);

#endif

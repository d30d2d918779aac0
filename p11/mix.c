/* SPDX-License-Identifier: Apache-2.0 */
/* p11/mix.c - a --mix: operation types drawn by weight, one run. */
#include "p11/mix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"

int p11_mix_parse(const char *text, p11_mix *mix)
{
    char buf[1024];
    char *save = NULL;
    double total = 0;
    memset(mix, 0, sizeof *mix);
    mix->seed = P11_MIX_DEFAULT_SEED;
    if (strlen(text) >= sizeof buf) {
        bench_error("--mix: the list is too long");
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    if (!*buf || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) {
        bench_error("--mix %s: empty item in the list; give NAME:WEIGHT,...", text);
        return -1;
    }
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':');
        if (!colon) {
            bench_error("--mix %s: give a weight (NAME:WEIGHT, e.g. %s:50)", item, item);
            return -1;
        }
        *colon = '\0';
        const char *wtext = colon + 1;
        const p11_test_def *def = p11_test_find(item);
        if (!def) {
            bench_error("--mix %s: unknown test (see: hsmbench list tests)", item);
            return -1;
        }
        char *end = NULL;
        const double w = bench_strtod(wtext, &end);
        if (!*wtext || !end || *end || !isfinite(w) || w <= 0) {
            bench_error("--mix %s:%s: the weight must be a positive number", item, wtext);
            return -1;
        }
        for (unsigned i = 0; i < mix->n; i++)
            if (mix->defs[i] == def) {
                bench_error("--mix: %s is given twice; give each test once", item);
                return -1;
            }
        if (mix->n == P11_MIX_MAX) {
            bench_error("--mix: at most %d tests in a mix", P11_MIX_MAX);
            return -1;
        }
        mix->defs[mix->n] = def;
        mix->labels[mix->n] = def->name;
        mix->weights[mix->n] = w;
        mix->n++;
        total += w;
    }
    if (!isfinite(total)) {
        bench_error("--mix %s: the weights add up past what a number holds", text);
        return -1;
    }
    for (unsigned i = 0; i < mix->n; i++)
        mix->weights[i] /= total;
    return 0;
}

/* ---- the workload ---------------------------------------------------------- */

typedef struct mix_worker {
    const p11_mix_ctx *mc;
    void              *st[P11_MIX_MAX];   /* each type's state */
    bench_rng          rng;
    unsigned           cur;               /* the type of the operation under way */
} mix_worker;

void p11_states_close(const bench_workload *inner, unsigned n, void **st)
{
    for (unsigned i = 0; i < n; i++)
        if (st[i]) {
            inner[i].close(st[i]);
            st[i] = NULL;
        }
}

int p11_states_open(const bench_workload *inner, const char *const *labels, unsigned n,
                    unsigned index, void **st, char *err, size_t errlen)
{
    for (unsigned i = 0; i < n; i++) {
        char why[200];
        if (inner[i].open(inner[i].ctx, index, &st[i], why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", labels[i], why);
            st[i] = NULL;
            p11_states_close(inner, i, st);
            return -1;
        }
    }
    return 0;
}

static void mix_close(void *state)
{
    mix_worker *mw = state;
    p11_states_close(mw->mc->inner, mw->mc->mix->n, mw->st);
    free(mw);
}

static int mix_open(void *ctx, unsigned index, void **state, char *err, size_t errlen)
{
    const p11_mix_ctx *mc = ctx;
    mix_worker *mw = calloc(1, sizeof *mw);
    if (!mw) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    mw->mc = mc;
    /* Each worker its own sequence, fixed by the seed and its index. */
    bench_rng_seed(&mw->rng, mc->mix->seed + 0x9e3779b97f4a7c15ULL * (index + 1ULL));
    if (p11_states_open(mc->inner, mc->mix->labels, mc->mix->n, index, mw->st, err, errlen) != 0) {
        free(mw);
        return -1;
    }
    *state = mw;
    return 0;
}

static bench_code mix_do(void *state)
{
    mix_worker *mw = state;
    const p11_mix_ctx *mc = mw->mc;
    /* 53 random bits as a number in [0, 1), against the cumulative weights */
    const double u = (double)(bench_rng_next(&mw->rng) >> 11) * 0x1.0p-53;
    unsigned c = 0;
    while (c + 1 < mc->mix->n && u >= mc->cum[c])
        c++;
    mw->cur = c;
    return mc->inner[c].do_one(mw->st[c]);
}

static bench_code mix_after(void *state, bench_code rc)
{
    mix_worker *mw = state;
    const bench_workload *in = &mw->mc->inner[mw->cur];
    if (in->after && (rc != BENCH_OK || in->after_always))
        rc = in->after(mw->st[mw->cur], rc);
    return rc;
}

static unsigned mix_class_of(const void *state)
{
    return ((const mix_worker *)state)->cur;
}

/* --out jtl: the type's own description, under the type's name. */
static void mix_describe(const void *state, bench_request *r)
{
    const mix_worker *mw = state;
    const bench_workload *in = &mw->mc->inner[mw->cur];
    r->label = mw->mc->mix->labels[mw->cur];
    if (in->describe)
        in->describe(mw->st[mw->cur], r);
}

static void mix_code_name(const void *ctx, bench_code code, char *buf, size_t len)
{
    const p11_mix_ctx *mc = ctx;
    mc->inner[0].code_name(mc->inner[0].ctx, code, buf, len);
}

void p11_mix_workload(p11_mix_ctx *mc, bench_workload *w)
{
    const p11_mix *mix = mc->mix;
    double sum = 0;
    memset(w, 0, sizeof *w);
    for (unsigned i = 0; i < mix->n; i++) {
        p11_test_workload(mc->ctx[i], &mc->inner[i]);
        sum += mix->weights[i];
        mc->cum[i] = sum;
        w->after_always |= mc->inner[i].after_always;
    }
    mc->cum[mix->n - 1] = 1.0;
    for (unsigned i = 0; i < mix->n; i++)
        mc->bytes[i] = mc->inner[i].bytes_per_op;
    mc->by = (bench_breakdown){ "type", mix->n, mix->labels, mix->weights, mix_class_of, mc->bytes };
    w->ctx = mc;
    w->open = mix_open;
    w->do_one = mix_do;
    w->after = mix_after;
    w->close = mix_close;
    w->code_name = mix_code_name;
    w->describe = mix_describe;
    w->call = "a module call";
    w->bytes_per_op = 0;     /* the types process different sizes: their classes' bytes add up */
    w->breakdown[0] = &mc->by;
}

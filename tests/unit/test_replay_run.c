/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_replay_run.c - a replay's plan: the model's distinct
 * steps, each prepared once however many kinds use it, every (kind, step)
 * its own side metric, and a model with more distinct steps than a run
 * prepares refused in one line.  No module: the run itself is
 * tests/e2e/test_replay.sh's.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <stdio.h>
#include <string.h>

#include "p11/replay_run.h"
#include "tests/unit/check.h"

/* Step i of kind k: the test of that name at these parameters, resolved. */
static void step(p11_replay_model *m, unsigned k, const char *test, unsigned bits, uint64_t data)
{
    p11_replay_kind *kd = &m->kinds[k];
    p11_replay_step *st = &kd->steps[kd->nsteps++];
    p11_test_params in = { .key_bits = bits, .data_size = data };
    st->def = p11_test_find(test);
    CHECK_MSG(st->def && p11_test_resolve(st->def, &in, &st->params) == 0, "%s resolves", test);
    if (k >= m->nkinds)
        m->nkinds = k + 1;
}

static void test_plan_shares_steps(void)
{
    static p11_replay_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "t.scn");
    /* find-then-sign and sign alone share the sign; the decrypts differ by size */
    step(&m, 0, "find-objects", 0, 0);
    step(&m, 0, "ecdsa-sign", 0, 0);
    step(&m, 1, "ecdsa-sign", 0, 0);
    step(&m, 2, "aes-gcm-decrypt", 256, 1024);
    step(&m, 2, "aes-gcm-decrypt", 256, 4096);
    m.kinds[0].share = 0.5;
    m.kinds[1].share = 0.3;
    m.kinds[2].share = 0.2;
    static p11_replay_ctx rc;
    char err[200] = "";
    CHECK(p11_replay_plan(&m, &rc, err, sizeof err) == 0);
    CHECK_MSG(rc.nprep == 4, "%u distinct steps", rc.nprep);
    CHECK(rc.prep_of[0][1] == rc.prep_of[1][0]);            /* one sign, prepared once */
    CHECK(rc.prep_of[2][0] != rc.prep_of[2][1]);            /* two sizes, two inputs */
    CHECK(strcmp(rc.labels[rc.prep_of[2][1]], "aes-gcm-decrypt") == 0);
    /* every (kind, step) its own distribution and failure count */
    CHECK(rc.side.nhist == 5 && rc.side.ncount == 5);
    CHECK(rc.side_of[0][0] == 0 && rc.side_of[1][0] == 2 && rc.side_of[2][1] == 4);
    CHECK(rc.weights[1] == 0.3 && rc.kind_labels[2] == m.kinds[2].name);
}

static void test_plan_refuses_too_many(void)
{
    static p11_replay_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "big.scn");
    /* 4 kinds of 16 steps, 64 data sizes, and one more */
    for (unsigned i = 0; i <= P11_REPLAY_MAX_PREPARED; i++)
        step(&m, i / P11_REPLAY_MAX_STEPS, "aes-gcm-decrypt", 256, 16 * (i + 1));
    static p11_replay_ctx rc;
    char err[200] = "";
    CHECK(p11_replay_plan(&m, &rc, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "big.scn") && strstr(err, "distinct steps"), "err: %s", err);
}

int main(void)
{
    RUN(test_plan_shares_steps);
    RUN(test_plan_refuses_too_many);
    return check_finish();
}

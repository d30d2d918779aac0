/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_replay_scenario.c - the replay model's scenario reader
 * (p11/replay_model.c): transactions, steps and think times as written,
 * arrivals made from the seed (the same every time, at the rate asked),
 * shares drawn by weight, and every malformed line refused with one line
 * naming the file and the line.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p11/replay.h"
#include "tests/unit/check.h"

static int load_text(const char *text, p11_replay_model *m, char *err, size_t errlen)
{
    char path[] = "/tmp/hsmbench-scn-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return -2;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return -2;
    }
    fputs(text, f);
    fclose(f);
    const int rc = p11_replay_load(path, m, err, errlen);
    unlink(path);
    return rc;
}

static const char jwe[] =
    "# JWE decrypt\n"
    "arrivals constant 100/s for 10s\n"
    "seed 7\n"
    "transaction jwe-decrypt weight 3\n"
    "  step rsa-oaep-unwrap key 2048 hash SHA256\n"
    "  think 2ms\n"
    "  step aes-gcm-decrypt key 256 data 4096   # the content\n"
    "transaction sign weight 1\n"
    "  step ecdsa-sign key P-384\n";

static void test_scenario_model(void)
{
    p11_replay_model m;
    char err[512] = "";
    CHECK_MSG(load_text(jwe, &m, err, sizeof err) == 0, "%s", err);
    CHECK(m.source == P11_REPLAY_SCENARIO && m.nkinds == 2);
    CHECK(strcmp(m.kinds[0].name, "jwe-decrypt") == 0 && m.kinds[0].nsteps == 2);
    CHECK(m.kinds[0].steps[0].def == p11_test_find("rsa-oaep-unwrap"));
    CHECK(m.kinds[0].steps[0].params.key_bits == 2048 &&
          m.kinds[0].steps[0].params.hash == P11_HASH_SHA256);
    CHECK(m.kinds[0].steps[0].think_ns == 0 && m.kinds[0].steps[1].think_ns == 2000000);
    CHECK(m.kinds[0].steps[1].params.data_size == 4096);
    CHECK(m.kinds[1].steps[0].params.key_bits == 384 &&
          strcmp(m.kinds[1].steps[0].params.curve, "P-384") == 0);
    /* constant 100/s for 10 s: exactly 1 000, every 10 ms from 0 */
    CHECK(m.narrivals == 1000 && m.arrivals[0].at_ns == 0 && m.arrivals[1].at_ns == 10000000);
    CHECK(m.span_ns == 10000000000ULL && fabs(m.rate - 100.0) < 1e-9);
    CHECK(m.kinds[0].count + m.kinds[1].count == 1000);
    /* weights 3:1, drawn: within 5 % of 750 */
    CHECK_MSG(m.kinds[0].count > 700 && m.kinds[0].count < 800, "%llu",
              (unsigned long long)m.kinds[0].count);
    CHECK(fabs(m.kinds[0].share + m.kinds[1].share - 1.0) < 1e-12);
    /* the same file, the same arrivals */
    p11_replay_model again;
    CHECK(load_text(jwe, &again, err, sizeof err) == 0);
    CHECK(again.narrivals == m.narrivals &&
          memcmp(again.arrivals, m.arrivals, m.narrivals * sizeof *m.arrivals) == 0);
    p11_replay_model_free(&again);
    json_t *j = p11_replay_model_json(&m);
    CHECK(j && json_integer_value(json_object_get(j, "transactions")) == 1000);
    CHECK(j && json_array_size(json_object_get(j, "kinds")) == 2);
    json_decref(j);
    p11_replay_model_free(&m);
}

static void test_poisson_and_stages(void)
{
    p11_replay_model m;
    char err[512] = "";
    CHECK_MSG(load_text("arrivals poisson 500/s for 20s\ntransaction t\n step sha256-digest\n", &m,
                        err, sizeof err) == 0, "%s", err);
    /* 10 000 expected; a Poisson count's sd is 100: within 5 sd */
    CHECK_MSG(m.narrivals > 9500 && m.narrivals < 10500, "%zu", m.narrivals);
    /* bursts: the busiest 100 ms holds more than the mean's 50 */
    CHECK(m.peak_rate > m.rate);
    p11_replay_model_free(&m);
    CHECK_MSG(load_text("arrivals constant stages 1s:100,1s:100\ntransaction t\n step random\n", &m,
                        err, sizeof err) == 0, "%s", err);
    /* a ramp to 100/s over 1 s (50 requests), then 100 over the next */
    CHECK_MSG(m.narrivals >= 148 && m.narrivals <= 151, "%zu", m.narrivals);
    /* time 0 is the first arrival, about 0.14 s in */
    CHECK_MSG(m.span_ns > 1800000000ULL && m.span_ns < 1900000000ULL, "%llu", (unsigned long long)m.span_ns);
    p11_replay_model_free(&m);
}

static void test_refused(void)
{
    static const struct { const char *text, *says; } bad[] = {
        { "transaction t\n step sha256-digest\n", ":3: no arrivals line" },
        { "arrivals constant 10/s for 1s\n", ":2: no transaction" },
        { "arrivals constant 10/s for 1s\ntransaction t\n", "has no step" },
        { "arrivals constant 10/s for 1s\nstep sha256-digest\n", ":2: step before any transaction" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step nope\n", ":3: step nope: unknown test" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step ecdsa-sign key P-999\n", "not a curve" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step aes-key-wrap data 5\n", "takes no data" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step ecdsa-sign hash MD5\n", "hash MD5" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step ecdsa-sign colour red\n", "colour" },
        { "arrivals constant 10/s for 1s\ntransaction t\n think 1ms\n step random\n", "think before its first step" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step random\n think 1ms\n", "think after the last step" },
        { "arrivals constant 0/s for 1s\ntransaction t\n step random\n", ":1: arrivals 0/s" },
        { "arrivals steady 10/s for 1s\ntransaction t\n step random\n", "constant or poisson" },
        { "arrivals constant 10/s\ntransaction t\n step random\n", "for how long" },
        { "arrivals constant 10/s for 1s\narrivals constant 10/s for 1s\n", ":2: arrivals is given twice" },
        { "arrivals constant 10/s for 1s\ntransaction t\n step random\ntransaction t\n", "given twice" },
        { "arrivals constant 10/s for 1s\ntransaction a/b\n step random\n", "a name of letters" },
        { "arrivals constant 10/s for 1s\ntransaction t weight -1\n step random\n", "positive" },
        { "arrivals constant 10/s for 1s\nwhat now\n", ":2: not a scenario line" },
        { "arrivals constant 20000000/s for 86400s\ntransaction t\n step random\n", "at most 1000000" },
        { "arrivals constant 1000000/s for 86400s\ntransaction t\n step random\n", "more than 10000000 transactions" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p11_replay_model m;
        char err[512] = "";
        const int rc = load_text(bad[i].text, &m, err, sizeof err);
        CHECK_MSG(rc == -1 && strstr(err, bad[i].says) && !strchr(err, '\n'),
                  "case %zu: rc %d, '%s' (wanted '%s')", i, rc, err, bad[i].says);
    }
}

int main(void)
{
    RUN(test_scenario_model);
    RUN(test_poisson_and_stages);
    RUN(test_refused);
    return check_finish();
}

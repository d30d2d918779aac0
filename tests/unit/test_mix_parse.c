/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_mix_parse.c - parsing --mix (p11/mix.c): weights normalised,
 * the order kept, and every malformed list refused with one line.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "p11/mix.h"
#include "tests/unit/check.h"

static void test_parse_weights(void)
{
    p11_mix m;
    CHECK(p11_mix_parse("rsa-pkcs-sign:60,ecdsa-verify:30,aes-gcm-encrypt:10", &m) == 0);
    CHECK(m.n == 3 && m.seed == P11_MIX_DEFAULT_SEED);
    CHECK(strcmp(m.labels[0], "rsa-pkcs-sign") == 0 && strcmp(m.labels[2], "aes-gcm-encrypt") == 0);
    CHECK(m.defs[1] == p11_test_find("ecdsa-verify"));
    CHECK(fabs(m.weights[0] - 0.6) < 1e-12 && fabs(m.weights[1] - 0.3) < 1e-12 &&
          fabs(m.weights[2] - 0.1) < 1e-12);
    CHECK(p11_mix_parse("sha256-digest:0.5,hmac-sha256:1.5", &m) == 0);
    CHECK(m.n == 2 && fabs(m.weights[0] - 0.25) < 1e-12);
    CHECK(p11_mix_parse("rsa-pkcs-sign:1e3", &m) == 0 && m.n == 1 && m.weights[0] == 1.0);
}

static void test_parse_refused(void)
{
    static const char *const bad[] = {
        "", ",", "rsa-pkcs-sign", "rsa-pkcs-sign:", "rsa-pkcs-sign:0", "rsa-pkcs-sign:-2",
        "rsa-pkcs-sign:abc", "rsa-pkcs-sign:1x", "rsa-pkcs-sign:inf", "rsa-pkcs-sign:nan",
        "nosuch:1", "rsa-pkcs-sign:1,,ecdsa-sign:1", "rsa-pkcs-sign:1,", "rsa-pkcs-sign:1,rsa-pkcs-sign:2",
        "rsa-pkcs-sign:1e308,ecdsa-sign:1e308",
    };
    p11_mix m;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(p11_mix_parse(bad[i], &m) != 0, "accepted '%s'", bad[i]);
    /* More types than a mix holds. */
    char many[1024] = "";
    for (size_t i = 0, n = 0; i < p11_test_count() && n <= P11_MIX_MAX; i++, n++) {
        char item[64];
        snprintf(item, sizeof item, "%s%s:1", n ? "," : "", p11_test_at(i)->name);
        strncat(many, item, sizeof many - strlen(many) - 1);
    }
    CHECK(p11_mix_parse(many, &m) != 0);
}

int main(void)
{
    RUN(test_parse_weights);
    RUN(test_parse_refused);
    return check_finish();
}

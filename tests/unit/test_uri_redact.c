/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_uri_redact.c - p11_uri_redact: every pin-value of a
 * PKCS#11 URI masked, and a cut copy never showing a part of the mask
 * (the fuzz_uri finding: a long URI cut "pin-value=***" to "pin-value=**",
 * and a second pin-value survived). */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p11/token.h"
#include "tests/unit/check.h"

/* No "pin-value=" in S that is not followed by "***". */
static int all_masked(const char *s)
{
    for (const char *p = s; (p = strstr(p, "pin-value=")) != NULL; p += 10)
        if (strncmp(p + 10, "***", 3) != 0)
            return 0;
    return 1;
}

/* p11_uri_redact(in) into a roomy buffer is exactly want. */
static int redacts_to(const char *in, const char *want)
{
    char b[256];
    return strcmp(p11_uri_redact(in, b, sizeof b), want) == 0;
}

static void test_plain(void)
{
    CHECK(redacts_to("pkcs11:token=a", "pkcs11:token=a"));
    CHECK(redacts_to("pkcs11:token=a?pin-value=1234", "pkcs11:token=a?pin-value=***"));
    CHECK(redacts_to("pkcs11:token=a?pin-value=1234&module-name=x",
                     "pkcs11:token=a?pin-value=***&module-name=x"));
    CHECK(redacts_to("pkcs11:pin-value=9;token=a", "pkcs11:pin-value=***;token=a"));
    CHECK(redacts_to("pin-value=", "pin-value=***"));
    CHECK(redacts_to("", ""));
}

static void test_every_pin(void)
{
    CHECK(redacts_to("pkcs11:?pin-value=1&pin-value=2", "pkcs11:?pin-value=***&pin-value=***"));
    CHECK(redacts_to("pkcs11:?pin-value=pin-value=2", "pkcs11:?pin-value=***"));
    CHECK(redacts_to("pin-pin-value=x;pin-value=y", "pin-pin-value=***;pin-value=***"));
    char b[256];
    const char *r = p11_uri_redact("pin-pin-value=x;pin-value=y", b, sizeof b);
    CHECK(strstr(r, "x") == NULL && strstr(r, "y") == NULL);
}

static void test_cut(void)
{
    /* Every cut length of a URI whose mask falls across the end. */
    const char *uri = "pkcs11:token=abcdef?pin-value=secret&pin-value=more";
    for (size_t len = 1; len <= strlen(uri) + 8; len++) {
        char b[128];
        memset(b, 'Z', sizeof b);
        const char *r = p11_uri_redact(uri, b, len);
        CHECK(strlen(r) < len);
        CHECK(all_masked(r));
        CHECK(strstr(r, "secret") == NULL && strstr(r, "more") == NULL && strstr(r, "sec") == NULL);
        CHECK(b[len] == 'Z'); /* nothing written past LEN */
    }
    /* The finding's shape: a prefix just short of the buffer. */
    char uri2[1100];
    memset(uri2, 'a', 1011);
    snprintf(uri2 + 1011, sizeof uri2 - 1011, "pin-value=1234");
    char shown[1024];
    const char *r = p11_uri_redact(uri2, shown, sizeof shown);
    CHECK(all_masked(r));
    CHECK(strlen(r) == 1011);
    CHECK(strcmp(p11_uri_redact("abc", shown, 0), "") == 0);
}

int main(void)
{
    RUN(test_plain);
    RUN(test_every_pin);
    RUN(test_cut);
    return check_finish();
}

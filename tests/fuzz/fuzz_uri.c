/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_uri.c - PKCS#11 URI handling (--uri): parsing through
 * p11-kit, the %00 refusal, the module and pin-value it names, and the
 * redaction that keeps a pin-value out of messages.
 */
#include "tests/fuzz/fuzz.h"

#include "p11/token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    if (!s)
        return 0;
    char module[4096], pin[256], shown[1024];
    (void)p11_uri_inspect(s, module, sizeof module, pin, sizeof pin);
    const char *r = p11_uri_redact(s, shown, sizeof shown);
    /* Whatever the URI, a pin-value never survives redaction. */
    const char *pv = strstr(r, "pin-value=");
    if (pv && strncmp(pv + 10, "***", 3) != 0)
        abort();
    free(s);
    return 0;
}

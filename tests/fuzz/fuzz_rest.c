/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_rest.c - the checks of what a REST server answers: EKM
 * wrap and unwrap answers, SDKMS answers of every operation and its
 * authentication, rest http's status/body/JSON-path checks, the
 * Profiling-Data header, error bodies, base64.  The first byte chooses the
 * check, the rest is the body.
 */
#include "tests/fuzz/fuzz.h"

#include "bench/util/b64.h"
#include "rest/client.h"
#include "rest/transport/codes.h"
#include "rest/ekm.h"
#include "rest/transport/http.h"
#include "rest/http_any.h"
#include "rest/sdkms.h"
#include "rest/transport/side.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const unsigned how = data[0];
    char *body = fuzz_text(data + 1, size - 1);
    if (!body)
        return 0;
    const size_t n = size - 1;
    static const uint8_t expect[] = "the plaintext";
    char err[256];
    switch (how % 6) {
    case 0: {
        char *blob = NULL;
        (void)rest_ekm_check_wrap(body, n, &blob);
        free(blob);
        (void)rest_ekm_check_unwrap(body, n, expect, sizeof expect - 1);
        break;
    }
    case 1: {
        static const rest_sdkms_op ops[] = { REST_SDKMS_KEYGEN, REST_SDKMS_ENCRYPT, REST_SDKMS_DECRYPT,
                                             REST_SDKMS_SIGN, REST_SDKMS_VERIFY, REST_SDKMS_MAC };
        rest_sdkms_cfg c = { .op = ops[(how / 6) % 6], .transient = (int)((how / 36) & 1) };
        if (rest_sdkms_resolve(&c, err, sizeof err) == 0)
            (void)rest_sdkms_check(&c, body, n, expect, sizeof expect - 1);
        char *tok = NULL;
        (void)rest_sdkms_parse_auth(body, n, &tok);
        free(tok);
        (void)rest_sdkms_session_gone(401, body);
        break;
    }
    case 2: {
        rest_any_cfg c;
        memset(&c, 0, sizeof c);
        rest_status_set_default(&c.expect);
        rest_jpath p;
        int have_path = rest_jpath_parse(".result.items[0].id", &p, err, sizeof err) == 0;
        c.expect_json = have_path ? &p : NULL;
        c.expect_body = (how / 6) & 1 ? "\"ok\"" : NULL;
        rest_response r = { .status = 200 + (long)(how / 12) * 50, .body = body, .body_len = n };
        (void)rest_any_check(&c, &r);
        if (have_path)
            rest_jpath_free(&p);
        break;
    }
    case 3: {
        int64_t ns[REST_PROF_COUNT];
        unsigned mask = 0;
        (void)rest_profiling_parse(body, ns, &mask);
        break;
    }
    case 4: {
        char text[200];
        (void)rest_error_text(body, n, text, sizeof text);
        break;
    }
    default: {
        uint8_t out[512];
        size_t got = 0;
        (void)bench_b64_valid(body, n);
        if (bench_b64_decode(body, n, out, sizeof out, &got) == 0 && got > sizeof out)
            abort();
        break;
    }
    }
    free(body);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_rest.c - the REST shim's pure parts: base64, phases from
 * curl stamps, error codes and their names, fault specs, EKM and SDKMS
 * bodies and answer checks, statistics, and the emulator's key and session
 * stores.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <errno.h>

#include "check.h"
#include "bench/util/clock.h"
#include "bench/util/b64.h"
#include "rest/client.h"
#include "rest/transport/codes.h"
#include "rest/ekm.h"
#include "rest/jscan.h"
#include "rest/views/k6.h"
#include "serve/fault.h"
#include "rest/transport/phases.h"
#include "rest/sdkms.h"
#include "serve/keys.h"
#include "serve/reply.h"
#include "serve/session.h"
#include "rest/views/stats.h"

/* ---- base64 --------------------------------------------------------------- */

static void test_b64_vectors(void)
{
    static const struct { const char *in, *out; } v[] = {
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
    };
    char buf[64];
    uint8_t dec[64];
    size_t n;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t len = bench_b64_encode((const uint8_t *)v[i].in, strlen(v[i].in), buf);
        CHECK_MSG(len == strlen(v[i].out) && strcmp(buf, v[i].out) == 0, "encode %s -> %s", v[i].in, buf);
        CHECK(bench_b64_encoded_len(strlen(v[i].in)) == strlen(v[i].out));
        CHECK(bench_b64_decode(v[i].out, strlen(v[i].out), dec, sizeof dec, &n) == 0);
        CHECK_MSG(n == strlen(v[i].in) && memcmp(dec, v[i].in, n) == 0, "decode %s", v[i].out);
    }
}

static void test_b64_roundtrip_binary(void)
{
    uint8_t in[256], dec[256];
    char enc[400];
    size_t n;
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)(255 - i);
    for (size_t len = 0; len <= sizeof in; len += 17) {
        bench_b64_encode(in, len, enc);
        CHECK(bench_b64_decode(enc, strlen(enc), dec, sizeof dec, &n) == 0 && n == len &&
              memcmp(in, dec, len) == 0);
    }
}

static void test_b64_alphabets_and_padding(void)
{
    uint8_t dec[16];
    size_t n;
    /* 0xfb 0xff: "+/8=" standard, "-_8" URL-safe, unpadded accepted. */
    CHECK(bench_b64_decode("+/8=", 4, dec, sizeof dec, &n) == 0 && n == 2 && dec[0] == 0xfb && dec[1] == 0xff);
    CHECK(bench_b64_decode("-_8", 3, dec, sizeof dec, &n) == 0 && n == 2 && dec[0] == 0xfb);
    CHECK(bench_b64_decode("Zg", 2, dec, sizeof dec, &n) == 0 && n == 1 && dec[0] == 'f');
    /* "test", the k6 package's plaintext, is valid base64 for 3 bytes. */
    CHECK(bench_b64_decode("test", 4, dec, sizeof dec, &n) == 0 && n == 3 && dec[0] == 0xb5);
}

/* The validating path (a lookup per character, no output) agrees with the
 * decoder on every short text over digits, padding and bytes of neither. */
static void test_b64_valid_matches_decode(void)
{
    static const char cs[] = { 'A', 'z', '0', '+', '-', '_', '/', '=', ' ', '\x80', '.' };
    const size_t k = sizeof cs;
    char t[5];
    uint8_t dec[8];
    for (size_t len = 0; len <= 5; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= k;
        for (size_t v = 0; v < total; v++) {
            size_t x = v, n = 0;
            for (size_t i = 0; i < len; i++, x /= k)
                t[i] = cs[x % k];
            const int ok = bench_b64_decode(t, len, dec, sizeof dec, &n) == 0;
            CHECK_MSG(bench_b64_valid(t, len) == ok, "'%.*s': valid %d, decode %d", (int)len, t,
                      bench_b64_valid(t, len), ok);
        }
    }
}

/* The answer's check reads a base64 field once for its JSON and its
 * base64 (rest_jscan_b64): the verdicts are bench_b64_valid's, on every
 * short text over digits, padding and characters of neither. */
static void test_jscan_b64_matches_valid(void)
{
    static const char cs[] = { 'A', 'z', '0', '+', '-', '_', '/', '=', ' ', '.' };
    const size_t k = sizeof cs;
    char t[6], body[64];
    for (size_t len = 0; len <= 6; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= k;
        for (size_t v = 0; v < total; v++) {
            size_t x = v;
            for (size_t i = 0; i < len; i++, x /= k)
                t[i] = cs[x % k];
            const int n = snprintf(body, sizeof body, "{\"wrappedBlob\":\"%.*s\"}", (int)len, t);
            const char *val = NULL;
            size_t vn = 0;
            int b64 = -1;
            CHECK_MSG(rest_jscan_b64(body, (size_t)n, "wrappedBlob", &val, &vn, &b64) == 1 &&
                          vn == len && val == body + 16 && b64 == bench_b64_valid(t, len),
                      "'%.*s': b64 %d, valid %d", (int)len, t, b64, bench_b64_valid(t, len));
            const bench_code want = !len ? REST_E_MISSING_FIELD
                                         : bench_b64_valid(t, len) ? BENCH_OK : REST_E_BAD_BASE64;
            CHECK_MSG(rest_ekm_check_wrap(body, (size_t)n, NULL) == want, "'%.*s'", (int)len, t);
        }
    }
    /* Not plain: jansson's verdict, through the escape. */
    const char *val = NULL;
    size_t vn = 0;
    int b64 = -1;
    CHECK(rest_jscan_b64("{\"w\":\"QU\\/A\"}", 13, "w", &val, &vn, &b64) == 0);
}

static void test_b64_rejects(void)
{
    static const char *const bad[] = {
        "@@not*base64@@", "Zg=", "Zg===", "Z", "Zm9v Yg==", "Zm9v\nYg==", "Z=g=", "====", "Zm9=v",
        "Zg==Zg==",
    };
    uint8_t dec[32];
    size_t n;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(bench_b64_decode(bad[i], strlen(bad[i]), dec, sizeof dec, &n) != 0, "accepted '%s'", bad[i]);
        CHECK_MSG(!bench_b64_valid(bad[i], strlen(bad[i])), "valid '%s'", bad[i]);
    }
    /* Does not fit. */
    CHECK(bench_b64_decode("Zm9vYmFy", 8, dec, 5, &n) != 0);
}

/* ---- phases --------------------------------------------------------------- */

static void test_phases_fresh_tls(void)
{
    rest_stamps s = { .namelookup_us = 10, .connect_us = 60, .appconnect_us = 2060,
                      .pretransfer_us = 2070, .posttransfer_us = -1, .starttransfer_us = 2570,
                      .total_us = 2600, .num_connects = 1 };
    int64_t p[REST_PH_COUNT];
    rest_phases_compute(&s, p);
    CHECK(p[REST_PH_BLOCKED] == 2060);
    CHECK(p[REST_PH_CONNECTING] == 50);
    CHECK(p[REST_PH_TLS] == 2000);
    CHECK(p[REST_PH_SENDING] == 10);
    CHECK(p[REST_PH_WAITING] == 500);
    CHECK(p[REST_PH_RECEIVING] == 30);
    CHECK(p[REST_PH_DURATION] == 540);
    CHECK(p[REST_PH_DURATION] == p[REST_PH_SENDING] + p[REST_PH_WAITING] + p[REST_PH_RECEIVING]);
}

static void test_phases_reused_connection(void)
{
    /* libcurl may report small connect stamps on a kept connection. */
    rest_stamps s = { .namelookup_us = 2, .connect_us = 3, .appconnect_us = 4,
                      .pretransfer_us = 6, .posttransfer_us = 20, .starttransfer_us = 120,
                      .total_us = 125, .num_connects = 0 };
    int64_t p[REST_PH_COUNT];
    rest_phases_compute(&s, p);
    CHECK(p[REST_PH_CONNECTING] == 0);
    CHECK(p[REST_PH_TLS] == 0);
    CHECK(p[REST_PH_BLOCKED] == 4);
    CHECK(p[REST_PH_SENDING] == 16);      /* posttransfer is used when known */
    CHECK(p[REST_PH_WAITING] == 100);
    CHECK(p[REST_PH_RECEIVING] == 5);
    CHECK(p[REST_PH_DURATION] == 121);
}

static void test_phases_plain_http_and_odd_stamps(void)
{
    int64_t p[REST_PH_COUNT];
    rest_stamps s = { .namelookup_us = 5, .connect_us = 40, .appconnect_us = 0,
                      .pretransfer_us = 41, .posttransfer_us = -1, .starttransfer_us = 0,
                      .total_us = 90, .num_connects = 1 };
    rest_phases_compute(&s, p);
    CHECK(p[REST_PH_TLS] == 0);
    CHECK(p[REST_PH_BLOCKED] == 40);
    CHECK(p[REST_PH_CONNECTING] == 35);
    CHECK(p[REST_PH_WAITING] == 49);       /* no first byte: all of it was waiting */
    CHECK(p[REST_PH_RECEIVING] == 0);
    /* Out-of-order stamps never give negative phases. */
    rest_stamps o = { .namelookup_us = 50, .connect_us = 10, .appconnect_us = 0,
                      .pretransfer_us = 5, .posttransfer_us = -1, .starttransfer_us = 3,
                      .total_us = 1, .num_connects = 1 };
    rest_phases_compute(&o, p);
    for (int i = 0; i < REST_PH_COUNT; i++)
        CHECK_MSG(p[i] >= 0, "phase %s = %lld", rest_phase_name(i), (long long)p[i]);
    CHECK(strcmp(rest_phase_name(REST_PH_TLS), "tls_handshaking") == 0);
}

/* ---- codes ---------------------------------------------------------------- */

static void name_is(bench_code c, const char *want)
{
    char buf[64];
    rest_code_name(c, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, want) == 0, "code %llu named '%s', want '%s'", (unsigned long long)c, buf, want);
}

static void test_code_names(void)
{
    name_is(rest_code_http(503), "HTTP 503");
    name_is(rest_code_http(401), "HTTP 401");
    name_is(REST_E_TIMEOUT, "TIMEOUT");
    name_is(REST_E_CONNECT_REFUSED, "CONNECT_REFUSED");
    name_is(REST_E_TLS, "TLS");
    name_is(REST_E_BAD_JSON, "BAD_JSON");
    name_is(REST_E_MISSING_FIELD, "MISSING_FIELD");
    name_is(REST_E_BAD_BASE64, "BAD_BASE64");
    name_is(REST_E_ROUNDTRIP_MISMATCH, "ROUNDTRIP_MISMATCH");
    name_is(REST_E_VERIFY_FALSE, "VERIFY_FALSE");
    name_is(REST_CODE_CURL_BASE + CURLE_SEND_FAIL_REWIND, "CURLE_SEND_FAIL_REWIND");
    name_is(REST_CODE_CURL_BASE + 999, "CURLE_999");
    /* HTTP allows any three digits: 999 is "HTTP 999", not "code 1999". */
    name_is(rest_code_http(999), "HTTP 999");
    name_is(rest_code_http(600), "HTTP 600");
    name_is(REST_E_HEADER_TOO_LARGE, "HEADER_TOO_LARGE");
    name_is(REST_E_BAD_CHUNK, "BAD_CHUNK");
    CHECK(rest_code_http_status(rest_code_http(404)) == 404);
    CHECK(rest_code_http_status(REST_E_TIMEOUT) == 0);
    /* Every code stays below the core's own range. */
    CHECK(REST_E_CLASS_END < BENCH_CODE_CORE);
}

static void test_codes_from_curl(void)
{
    CHECK(rest_code_from_curl(CURLE_OK, 0, NULL) == BENCH_OK);
    CHECK(rest_code_from_curl(CURLE_OPERATION_TIMEDOUT, 0, NULL) == REST_E_TIMEOUT);
    CHECK(rest_code_from_curl(CURLE_COULDNT_CONNECT, ECONNREFUSED, NULL) == REST_E_CONNECT_REFUSED);
    CHECK(rest_code_from_curl(CURLE_COULDNT_CONNECT, EHOSTUNREACH, NULL) == REST_E_CONNECT_FAILED);
    CHECK(rest_code_from_curl(CURLE_COULDNT_RESOLVE_HOST, 0, NULL) == REST_E_DNS);
    CHECK(rest_code_from_curl(CURLE_PEER_FAILED_VERIFICATION, 0, NULL) == REST_E_TLS);
    CHECK(rest_code_from_curl(CURLE_SSL_CONNECT_ERROR, 0, NULL) == REST_E_TLS);
    CHECK(rest_code_from_curl(CURLE_RECV_ERROR, 0, "Connection reset by peer") == REST_E_CONNECTION_RESET);
    /* libcurl's receive errors that are the answer's (issue 38, item 8). */
    CHECK(rest_code_from_curl(CURLE_RECV_ERROR, 0, "Too large response headers: 307223 > 307200") ==
          REST_E_HEADER_TOO_LARGE);
    CHECK(rest_code_from_curl(CURLE_RECV_ERROR, 0,
                              "Illegal or missing hexadecimal sequence in chunked-encoding") == REST_E_BAD_CHUNK);
    CHECK(rest_code_from_curl(CURLE_RECV_ERROR, 0, "Too long hexadecimal number in chunked-encoding") ==
          REST_E_BAD_CHUNK);
    CHECK(rest_code_from_curl(CURLE_SEND_ERROR, 0, "Too large response headers") == REST_E_CONNECTION_RESET);
    CHECK(rest_code_from_curl(CURLE_RECV_ERROR, 0,
                              "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required") == REST_E_TLS);
    CHECK(rest_code_from_curl(CURLE_GOT_NOTHING, 0, NULL) == REST_E_EMPTY_REPLY);
    CHECK(rest_code_from_curl(CURLE_PARTIAL_FILE, 0, NULL) == REST_E_TRUNCATED);
    CHECK(rest_code_from_curl(CURLE_SEND_FAIL_REWIND, 0, NULL) == REST_CODE_CURL_BASE + CURLE_SEND_FAIL_REWIND);
    /* HTTP/2's two failures under their own names, not CURLE_<n>. */
    char name[32];
    CHECK(rest_code_from_curl(CURLE_HTTP2, 0, NULL) == REST_E_HTTP2_FRAMING);
    CHECK(rest_code_from_curl(CURLE_HTTP2_STREAM, 0, NULL) == REST_E_HTTP2_STREAM);
    rest_code_name(REST_E_HTTP2_FRAMING, name, sizeof name);
    CHECK_MSG(strcmp(name, "HTTP2_FRAMING") == 0, "%s", name);
    rest_code_name(REST_E_HTTP2_STREAM, name, sizeof name);
    CHECK_MSG(strcmp(name, "HTTP2_STREAM") == 0, "%s", name);
}

/* The lean engine's codes get the class (or the CURLE_ name) libcurl's code
 * for the same event gets, with the same errno and message: a run's errors
 * read the same whichever engine sent (issue 37, item 3). */
static void test_codes_from_lean(void)
{
    static const struct { rest_lean_rc lean; CURLcode curl; long os_errno; const char *text; } same[] = {
        { REST_LEAN_OK, CURLE_OK, 0, NULL },
        { REST_LEAN_TIMEOUT, CURLE_OPERATION_TIMEDOUT, 0, "Operation timed out after 5 milliseconds" },
        { REST_LEAN_CONNECT, CURLE_COULDNT_CONNECT, ECONNREFUSED, "Failed to connect" },
        { REST_LEAN_CONNECT, CURLE_COULDNT_CONNECT, EHOSTUNREACH, "Failed to connect" },
        { REST_LEAN_RESOLVE, CURLE_COULDNT_RESOLVE_HOST, 0, "Could not resolve host: x" },
        { REST_LEAN_TLS, CURLE_SSL_CONNECT_ERROR, 0, "OpenSSL SSL_connect: x" },
        { REST_LEAN_PEER_UNVERIFIED, CURLE_PEER_FAILED_VERIFICATION, 0, "SSL certificate problem: x" },
        { REST_LEAN_CA_FILE, CURLE_SSL_CACERT_BADFILE, 0, "error setting certificate file: x" },
        { REST_LEAN_CLIENT_CERT, CURLE_SSL_CERTPROBLEM, 0, "could not load PEM client certificate" },
        { REST_LEAN_RECV, CURLE_RECV_ERROR, ECONNRESET, "Recv failure: Connection reset by peer" },
        { REST_LEAN_RECV, CURLE_RECV_ERROR, 0,
          "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0" },
        { REST_LEAN_SEND, CURLE_SEND_ERROR, EPIPE, "Send failure: Broken pipe" },
        { REST_LEAN_EMPTY, CURLE_GOT_NOTHING, 0, "Empty reply from server" },
        { REST_LEAN_PARTIAL, CURLE_PARTIAL_FILE, 0, "transfer closed with 3 bytes remaining to read" },
        { REST_LEAN_HEADER_TOO_LARGE, CURLE_RECV_ERROR, 0, "Too large response headers: 307223 > 307200" },
        { REST_LEAN_BAD_CHUNK, CURLE_RECV_ERROR, 0, "Too long hexadecimal number in chunked-encoding" },
        { REST_LEAN_BAD_VERSION, CURLE_UNSUPPORTED_PROTOCOL, 0, "Unsupported HTTP version in response" },
        { REST_LEAN_BAD_ANSWER, CURLE_WEIRD_SERVER_REPLY, 0, "Invalid response: x" },
        { REST_LEAN_SINK, CURLE_WRITE_ERROR, 0, "Failure writing output to destination" },
        { REST_LEAN_ABORTED, CURLE_ABORTED_BY_CALLBACK, 0, "Callback aborted" },
        { REST_LEAN_NO_MEMORY, CURLE_OUT_OF_MEMORY, 0, "out of memory reading the answer" },
        { REST_LEAN_IDLE, CURLE_FAILED_INIT, 0, NULL },
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const bench_code lean = rest_code_from_lean(same[i].lean, same[i].os_errno, same[i].text),
                         curl = rest_code_from_curl(same[i].curl, same[i].os_errno, same[i].text);
        CHECK_MSG(lean == curl, "lean code %d: %u, libcurl's %d: %u", (int)same[i].lean,
                  (unsigned)lean, (int)same[i].curl, (unsigned)curl);
        /* Its words for an event with no message are libcurl's. */
        CHECK_MSG(same[i].lean == REST_LEAN_HEADER_TOO_LARGE || same[i].lean == REST_LEAN_BAD_CHUNK ||
                  strcmp(rest_lean_strerror(same[i].lean), curl_easy_strerror(same[i].curl)) == 0,
                  "%s / %s", rest_lean_strerror(same[i].lean), curl_easy_strerror(same[i].curl));
    }
    /* A line over 100 KiB: libcurl's out-of-memory, which rest_http_finish
     * tells from a real one by where it came; the lean engine says it. */
    CHECK(rest_code_from_lean(REST_LEAN_HEADER_TOO_LARGE, 0, REST_HEADER_TOO_LARGE_TEXT) ==
          REST_E_HEADER_TOO_LARGE);
}

static void test_code_kinds(void)
{
    CHECK(rest_code_is_transient(rest_code_http(503)));
    CHECK(rest_code_is_transient(rest_code_http(429)));
    CHECK(!rest_code_is_transient(rest_code_http(401)));
    CHECK(!rest_code_is_transient(REST_E_TLS));
    CHECK(rest_code_is_transient(REST_E_TIMEOUT));
    CHECK(rest_code_is_fatal_setup(rest_code_http(401)));
    CHECK(rest_code_is_fatal_setup(rest_code_http(403)));
    CHECK(rest_code_is_fatal_setup(REST_E_TLS));
    CHECK(rest_code_is_fatal_setup(REST_E_CONNECT_REFUSED));
    CHECK(!rest_code_is_fatal_setup(rest_code_http(500)));
    CHECK(!rest_code_is_fatal_setup(REST_E_BAD_JSON));
}

/* ---- faults --------------------------------------------------------------- */

static void test_fault_parse(void)
{
    serve_faults f;
    char err[256];
    CHECK(serve_faults_parse("500:0.05,timeout:0.01,badjson:0.01,truncate:0.01,nofield:0.01,badb64:0.01",
                            &f, err, sizeof err) == 0);
    CHECK(f.n == 6 && f.rule[0].kind == SERVE_FAULT_STATUS && f.rule[0].status == 500);
    CHECK(f.rule[1].kind == SERVE_FAULT_TIMEOUT && f.rule[5].kind == SERVE_FAULT_BADB64);
    CHECK(f.total > 0.0999 && f.total < 0.1001);
    /* Draws land on the rules in order, or on none. */
    CHECK(serve_faults_pick(&f, 0.0)->status == 500);
    CHECK(serve_faults_pick(&f, 0.055)->kind == SERVE_FAULT_TIMEOUT);
    CHECK(serve_faults_pick(&f, 0.5) == NULL);
    CHECK(serve_faults_parse("reset:1", &f, err, sizeof err) == 0 && serve_faults_pick(&f, 0.999)->kind == SERVE_FAULT_RESET);
    CHECK(serve_faults_parse("200:0.1", &f, err, sizeof err) != 0);
    CHECK(serve_faults_parse("bogus:0.1", &f, err, sizeof err) != 0);
    CHECK(serve_faults_parse("500", &f, err, sizeof err) != 0);
    CHECK(serve_faults_parse("500:2", &f, err, sizeof err) != 0);
    CHECK(serve_faults_parse("500:0.6,503:0.6", &f, err, sizeof err) != 0 && strstr(err, "more than 1"));
    CHECK(serve_faults_parse("500:x", &f, err, sizeof err) != 0);
}

/* The emulator's replies, built apart from its HTTP front: an EKM error is
 * a google.rpc.Status, and a body fault damages only a 2xx JSON answer. */
static void test_reply_faults(void)
{
    serve_reply r = { 0, 0, NULL, 0, 0 };
    serve_reply_rpc(&r, 503, serve_reply_grpc_of(503), "down %d", 1);
    CHECK(r.status == 503 && r.json);
    CHECK(strcmp(r.body, "{\"code\":14,\"message\":\"down 1\",\"details\":[]}") == 0);
    CHECK(serve_reply_grpc_of(401) == 16 && serve_reply_grpc_of(502) == 13 &&
          serve_reply_grpc_of(418) == 2);
    /* Not a 2xx: left as it is. */
    CHECK(!serve_reply_damage(&r, SERVE_FAULT_BADJSON) && strstr(r.body, "down 1"));
    serve_reply_json(&r, 200, json_pack("{s:s,s:i}", "wrappedBlob", "QUJD", "n", 1));
    CHECK(serve_reply_damage(&r, SERVE_FAULT_BADB64));
    CHECK(strcmp(r.body, "{\"wrappedBlob\":\"@@not*base64@@\",\"n\":1}") == 0);
    CHECK(serve_reply_damage(&r, SERVE_FAULT_BADJSON) && json_loadb(r.body, r.len, 0, NULL) == NULL);
    serve_reply_json(&r, 200, json_pack("{s:s}", "plaintext", "QUJD"));
    CHECK(serve_reply_damage(&r, SERVE_FAULT_NOFIELD) && strstr(r.body, "hsmbench_fault"));
    /* A text answer is never damaged; nor is one by a fault of another kind. */
    serve_reply_text(&r, 200, "hello %s", "world");
    CHECK(!r.json && r.len == 11 && !serve_reply_damage(&r, SERVE_FAULT_BADJSON));
    serve_reply_json(&r, 200, json_pack("{s:s}", "mac", "QUJD"));
    CHECK(!serve_reply_damage(&r, SERVE_FAULT_TIMEOUT) && strstr(r.body, "QUJD"));
    free(r.body);
    CHECK(serve_secret_eq("abc", 3, "abc", 3) && !serve_secret_eq("abc", 3, "abd", 3) &&
          !serve_secret_eq("abc", 3, "abcd", 4));
}

/* ---- EKM bodies and checks ------------------------------------------------ */

static void test_ekm_wrap_body(void)
{
    const uint8_t pt[] = { 0xb5, 0xeb, 0x2d }, aad[] = { 1, 2 };
    char *b = rest_ekm_wrap_body(pt, sizeof pt, aad, sizeof aad, "CUSTOMER_INITIATED_ACCESS");
    CHECK(b != NULL);
    json_t *j = json_loads(b, 0, NULL);
    CHECK(json_is_object(j));
    CHECK(strcmp(json_string_value(json_object_get(j, "plaintext")), "test") == 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "additionalAuthenticatedData")), "AQI=") == 0);
    json_t *reason = json_object_get(json_object_get(json_object_get(j, "additionalContext"),
                                                     "accessReasonContext"), "reason");
    CHECK(json_is_string(reason) && strcmp(json_string_value(reason), "CUSTOMER_INITIATED_ACCESS") == 0);
    json_decref(j);
    free(b);
    /* No AAD: the field is left out. */
    b = rest_ekm_wrap_body(pt, sizeof pt, NULL, 0, "GOOGLE_INITIATED_SERVICE");
    CHECK(b && !strstr(b, "additionalAuthenticatedData") && strstr(b, "GOOGLE_INITIATED_SERVICE"));
    free(b);
    b = rest_ekm_unwrap_body("QUJD", NULL, 0, "CUSTOMER_INITIATED_ACCESS");
    CHECK(b && strstr(b, "\"wrappedBlob\":\"QUJD\""));
    free(b);
}

static void test_ekm_checks(void)
{
    char *blob = NULL;
    const char ok[] = "{\"wrappedBlob\":\"QUJDRA==\"}";
    CHECK(rest_ekm_check_wrap(ok, strlen(ok), &blob) == BENCH_OK && blob && strcmp(blob, "QUJDRA==") == 0);
    free(blob);
    CHECK(rest_ekm_check_wrap("{\"wrappedBlob\":", 15, NULL) == REST_E_BAD_JSON);
    CHECK(rest_ekm_check_wrap("[1]", 3, NULL) == REST_E_BAD_JSON);
    CHECK(rest_ekm_check_wrap("{}", 2, NULL) == REST_E_MISSING_FIELD);
    CHECK(rest_ekm_check_wrap("{\"wrappedBlob\":7}", 17, NULL) == REST_E_MISSING_FIELD);
    CHECK(rest_ekm_check_wrap("{\"wrappedBlob\":\"\"}", 18, NULL) == REST_E_MISSING_FIELD);
    const char bad[] = "{\"wrappedBlob\":\"@@not*base64@@\"}";
    CHECK(rest_ekm_check_wrap(bad, strlen(bad), NULL) == REST_E_BAD_BASE64);

    const uint8_t abcd[] = { 'A', 'B', 'C', 'D' };
    const char un[] = "{\"plaintext\":\"QUJDRA==\"}";
    CHECK(rest_ekm_check_unwrap(un, strlen(un), abcd, 4) == BENCH_OK);
    CHECK(rest_ekm_check_unwrap(un, strlen(un), abcd, 3) == REST_E_ROUNDTRIP_MISMATCH);
    const uint8_t other[] = { 'A', 'B', 'C', 'E' };
    CHECK(rest_ekm_check_unwrap(un, strlen(un), other, 4) == REST_E_ROUNDTRIP_MISMATCH);
    CHECK(rest_ekm_check_unwrap("{}", 2, abcd, 4) == REST_E_MISSING_FIELD);
    rest_ekm_op op;
    CHECK(rest_ekm_op_parse("wrap-unwrap", &op) == 0 && op == REST_EKM_WRAP_UNWRAP);
    CHECK(rest_ekm_op_parse("sign", &op) != 0);
}

/* The fast read of an answer's field decides only what jansson would. */
static void test_jscan(void)
{
    const char *v = NULL;
    size_t n = 0;
#define JS(text, field) rest_jscan_string(text, strlen(text), field, &v, &n)
    CHECK(JS("{\"wrappedBlob\":\"QUJDRA==\"}", "wrappedBlob") == 1 && n == 8 &&
          memcmp(v, "QUJDRA==", 8) == 0);
    CHECK(JS(" \r\n{ \"a\" : [true, false, null, {\"b\": []}, \"x\"] ,\n \"k\":\"\" }\t", "k") == 1 &&
          n == 0);
    CHECK(JS("{\"a\":{\"k\":\"inner\"},\"k\":\"outer\"}", "k") == 1 && n == 5 &&
          memcmp(v, "outer", 5) == 0);
    /* Not decided here: jansson reads these. */
    CHECK(JS("{\"k\":\"a\\/b\"}", "k") == 0);          /* an escape */
    CHECK(JS("{\"k\":\"caf\xc3\xa9\"}", "k") == 0);     /* not ASCII */
    CHECK(JS("{\"n\":1,\"k\":\"x\"}", "k") == 0);       /* a number */
    CHECK(JS("{\"k\":\"x\",\"k\":\"y\"}", "k") == 0); /* repeated: jansson keeps the last */
    CHECK(JS("{\"k\":7}", "k") == 0);
    CHECK(JS("{}", "k") == 0);
    CHECK(JS("{\"k\":\"x\"} x", "k") == 0);
    CHECK(JS("{\"k\":\"x\",}", "k") == 0);
    CHECK(JS("{\"k\":\"x\"", "k") == 0);
    CHECK(JS("[{\"k\":\"x\"}]", "k") == 0);
    CHECK(JS("{\"k\":\"x\", \"t\": tru}", "k") == 0);
#undef JS
    /* Both ways give the same verdicts. */
    char *blob = NULL;
    const char *esc = "{\"wrappedBlob\":\"QUJD\\/A==\"}";
    CHECK(rest_ekm_check_wrap(esc, strlen(esc), &blob) == BENCH_OK && blob &&
          strcmp(blob, "QUJD/A==") == 0);
    free(blob);
    const char *badb = "{\"wrappedBlob\":\"*not base64*\"}";
    CHECK(rest_ekm_check_wrap(badb, strlen(badb), NULL) == REST_E_BAD_BASE64);
}
/* ---- SDKMS ---------------------------------------------------------------- */

static void test_sdkms_resolve_defaults(void)
{
    char err[256];
    rest_sdkms_cfg c = { .op = REST_SDKMS_ENCRYPT };
    CHECK(rest_sdkms_resolve(&c, err, sizeof err) == 0);
    CHECK(c.alg == REST_ALG_AES && c.key_bits == 256 && strcmp(c.mode, "GCM") == 0 && c.data_size == 32);
    rest_sdkms_cfg s = { .op = REST_SDKMS_SIGN };
    CHECK(rest_sdkms_resolve(&s, err, sizeof err) == 0);
    CHECK(s.alg == REST_ALG_RSA && s.key_bits == 2048 && strcmp(s.mode, "PKCS1_V15") == 0 &&
          strcmp(s.hash, "SHA256") == 0);
    rest_sdkms_cfg m = { .op = REST_SDKMS_MAC, .hash = "sha512" };
    CHECK(rest_sdkms_resolve(&m, err, sizeof err) == 0);
    CHECK(m.alg == REST_ALG_HMAC && m.key_bits == 512 && strcmp(m.hash, "SHA512") == 0);
    rest_sdkms_cfg e = { .op = REST_SDKMS_VERIFY, .alg = REST_ALG_EC, .curve = "P-384" };
    CHECK(rest_sdkms_resolve(&e, err, sizeof err) == 0);
    CHECK(strcmp(e.curve, "NistP384") == 0 && e.key_bits == 384 && e.mode == NULL);
    rest_sdkms_cfg k = { .op = REST_SDKMS_KEYGEN, .alg = REST_ALG_EC, .key_bits = 521 };
    CHECK(rest_sdkms_resolve(&k, err, sizeof err) == 0 && strcmp(k.curve, "NistP521") == 0);
    char buf[64];
    CHECK(strcmp(rest_sdkms_key_desc(&e, buf, sizeof buf), "EC NistP384") == 0);
    CHECK(strcmp(rest_sdkms_mech_desc(&s, buf, sizeof buf), "RSA-PKCS1v15 SHA256") == 0);
    CHECK(strcmp(rest_sdkms_mech_desc(&c, buf, sizeof buf), "AES-GCM") == 0);
}

static void test_sdkms_resolve_curves(void)
{
    /* Every curve of the SDKMS test bench, by its name or an alias. */
    static const struct { const char *in; unsigned bits; const char *want; } cases[] = {
        { "SecP192K1", 0, "SecP192K1" }, { "secp224k1", 0, "SecP224K1" },
        { "secp256k1", 0, "SecP256K1" }, { "NistP192", 0, "NistP192" },
        { "P-224", 0, "NistP224" }, { "nistp256", 0, "NistP256" }, { "NistP384", 0, "NistP384" },
        { "secp521r1", 0, "NistP521" }, { NULL, 192, "NistP192" }, { NULL, 224, "NistP224" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rest_sdkms_cfg c = { .op = REST_SDKMS_SIGN, .alg = REST_ALG_EC, .curve = cases[i].in,
                             .key_bits = cases[i].bits };
        char err[256];
        CHECK(rest_sdkms_resolve(&c, err, sizeof err) == 0 && strcmp(c.curve, cases[i].want) == 0);
    }
    rest_sdkms_cfg bad = { .op = REST_SDKMS_SIGN, .alg = REST_ALG_EC, .curve = "P-666" };
    char err[256];
    CHECK(rest_sdkms_resolve(&bad, err, sizeof err) != 0 && strstr(err, "SecP256K1") != NULL);
}

static void test_sdkms_resolve_rejects(void)
{
    char err[256];
    rest_sdkms_cfg a = { .op = REST_SDKMS_SIGN, .alg = REST_ALG_AES };
    CHECK(rest_sdkms_resolve(&a, err, sizeof err) != 0 && strstr(err, "RSA or EC"));
    rest_sdkms_cfg b = { .op = REST_SDKMS_ENCRYPT, .key_bits = 100 };
    CHECK(rest_sdkms_resolve(&b, err, sizeof err) != 0 && strstr(err, "--key-size"));
    rest_sdkms_cfg c = { .op = REST_SDKMS_ENCRYPT, .alg = REST_ALG_RSA, .data_size = 215 };
    CHECK(rest_sdkms_resolve(&c, err, sizeof err) != 0 && strstr(err, "214"));
    rest_sdkms_cfg d = { .op = REST_SDKMS_ENCRYPT, .mode = "CTR" };
    CHECK(rest_sdkms_resolve(&d, err, sizeof err) != 0 && strstr(err, "--cipher-mode CTR"));
    /* The bench's RSA --filepath too large: the file named, not a --data-size never typed. */
    rest_sdkms_cfg c2 = { .op = REST_SDKMS_ENCRYPT, .alg = REST_ALG_RSA, .data_size = 4096,
                          .data_path = "big.bin" };
    CHECK(rest_sdkms_resolve(&c2, err, sizeof err) != 0 &&
          strstr(err, "--filepath big.bin: 4096 bytes; RSA 2048 with OAEP encrypts at most 214") &&
          !strstr(err, "--data-size"));
    /* The SDKMS bench's --mode values are cipher modes; load modes are not. */
    CHECK(rest_sdkms_is_cipher_mode("CBC") && rest_sdkms_is_cipher_mode("gcm") &&
          rest_sdkms_is_cipher_mode("PKCS1_V15") && rest_sdkms_is_cipher_mode("PSS") &&
          rest_sdkms_is_cipher_mode("OAEP"));
    CHECK(!rest_sdkms_is_cipher_mode("nonblocking") && !rest_sdkms_is_cipher_mode("GSM"));
    rest_sdkms_cfg e = { .op = REST_SDKMS_MAC, .mode = "GCM" };
    CHECK(rest_sdkms_resolve(&e, err, sizeof err) != 0);
    rest_sdkms_cfg f = { .op = REST_SDKMS_SIGN, .alg = REST_ALG_EC, .curve = "P-256", .key_bits = 384 };
    CHECK(rest_sdkms_resolve(&f, err, sizeof err) != 0);
    rest_sdkms_cfg g = { .op = REST_SDKMS_ENCRYPT, .mode = "CBC", .aad = (const uint8_t *)"x", .aadlen = 1 };
    CHECK(rest_sdkms_resolve(&g, err, sizeof err) != 0 && strstr(err, "--aad"));
    rest_sdkms_cfg h = { .op = REST_SDKMS_SIGN, .hash = "MD5" };
    CHECK(rest_sdkms_resolve(&h, err, sizeof err) != 0 && strstr(err, "--hash-alg"));
}

static void test_sdkms_bodies_and_checks(void)
{
    char err[256];
    rest_sdkms_cfg c = { .op = REST_SDKMS_KEYGEN, .alg = REST_ALG_EC, .transient = 1 };
    CHECK(rest_sdkms_resolve(&c, err, sizeof err) == 0);
    char *b = rest_sdkms_key_body(&c, "k1");
    json_t *j = json_loads(b, 0, NULL);
    CHECK(json_is_object(j) && strcmp(json_string_value(json_object_get(j, "name")), "k1") == 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "obj_type")), "EC") == 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "elliptic_curve")), "NistP256") == 0);
    CHECK(json_is_true(json_object_get(j, "transient")) && !json_object_get(j, "key_size"));
    json_decref(j);
    free(b);

    CHECK(rest_sdkms_check(&c, "{\"transient_key\":\"QUJD\"}", 24, NULL, 0) == BENCH_OK);
    CHECK(rest_sdkms_check(&c, "{\"kid\":\"x\"}", 11, NULL, 0) == REST_E_MISSING_FIELD);
    c.transient = 0;
    CHECK(rest_sdkms_check(&c, "{\"kid\":\"x\"}", 11, NULL, 0) == BENCH_OK);

    rest_sdkms_cfg e = { .op = REST_SDKMS_ENCRYPT };
    CHECK(rest_sdkms_resolve(&e, err, sizeof err) == 0);
    const char gcm[] = "{\"cipher\":\"QUJD\",\"iv\":\"QUJD\",\"tag\":\"QUJD\"}";
    CHECK(rest_sdkms_check(&e, gcm, strlen(gcm), NULL, 0) == BENCH_OK);
    CHECK(rest_sdkms_check(&e, "{\"cipher\":\"QUJD\"}", 17, NULL, 0) == REST_E_MISSING_FIELD);
    rest_sdkms_cfg d = { .op = REST_SDKMS_DECRYPT };
    CHECK(rest_sdkms_resolve(&d, err, sizeof err) == 0);
    CHECK(rest_sdkms_check(&d, "{\"plain\":\"QUJD\"}", 16, (const uint8_t *)"ABC", 3) == BENCH_OK);
    CHECK(rest_sdkms_check(&d, "{\"plain\":\"QUJD\"}", 16, (const uint8_t *)"ABD", 3) == REST_E_ROUNDTRIP_MISMATCH);
    rest_sdkms_cfg v = { .op = REST_SDKMS_VERIFY };
    CHECK(rest_sdkms_resolve(&v, err, sizeof err) == 0);
    CHECK(rest_sdkms_check(&v, "{\"result\":true}", 15, NULL, 0) == BENCH_OK);
    CHECK(rest_sdkms_check(&v, "{\"result\":false}", 16, NULL, 0) == REST_E_VERIFY_FALSE);
    CHECK(rest_sdkms_check(&v, "{\"result\":\"yes\"}", 16, NULL, 0) == REST_E_MISSING_FIELD);
    rest_sdkms_cfg m = { .op = REST_SDKMS_MAC };
    CHECK(rest_sdkms_resolve(&m, err, sizeof err) == 0);
    CHECK(rest_sdkms_check(&m, "{\"mac\":\"QUJD\"}", 14, NULL, 0) == BENCH_OK);
    CHECK(rest_sdkms_check(&m, "{\"digest\":\"QUJD\"}", 17, NULL, 0) == BENCH_OK);
    CHECK(rest_sdkms_check(&m, "{\"mac\":\"!!\"}", 12, NULL, 0) == REST_E_BAD_BASE64);
    CHECK(rest_sdkms_check(&m, "not json", 8, NULL, 0) == REST_E_BAD_JSON);
}

static void test_sdkms_session_helpers(void)
{
    CHECK(rest_sdkms_session_gone(401, ""));
    CHECK(rest_sdkms_session_gone(400, "Session does not exist"));
    CHECK(!rest_sdkms_session_gone(403, "Forbidden"));
    const char a[] = "{\"token_type\":\"Bearer\",\"expires_in\":3600,\"access_token\":\"tok-1\"}";
    char *t = NULL;
    CHECK(rest_sdkms_parse_auth(a, strlen(a), &t) == BENCH_OK);
    CHECK(t && strcmp(t, "tok-1") == 0);
    free(t);
    CHECK(rest_sdkms_parse_auth("{}", 2, &t) == REST_E_MISSING_FIELD && t == NULL);
    CHECK(rest_sdkms_parse_auth("{\"access_token\":\"\"}", 19, &t) == REST_E_MISSING_FIELD && !t);
    /* A token from the server goes into a header: CR LF, a space, a byte
     * past ASCII are refused (issue 23, item 3). */
    static const char *const bad[] = {
        "{\"access_token\":\"abc\\r\\nX-Injected: yes\"}", "{\"access_token\":\"a\\nb\"}",
        "{\"access_token\":\"a b\"}", "{\"access_token\":\"a\\u0001b\"}",
        "{\"access_token\":\"a\\u00e9\"}", "{\"access_token\":\"a\\tb\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = NULL;
        CHECK(rest_sdkms_parse_auth(bad[i], strlen(bad[i]), &t) == REST_E_BAD_VALUE && t == NULL);
    }
}

static void test_server_values(void)
{
    CHECK(rest_server_value("tok-1.AZ_~+/=", 13, REST_INTO_HEADER) == BENCH_OK);
    CHECK(rest_server_value("a\r\nb", 4, REST_INTO_HEADER) == REST_E_BAD_VALUE);
    CHECK(rest_server_value("a\x7f", 2, REST_INTO_HEADER) == REST_E_BAD_VALUE);
    CHECK(rest_server_value("", 0, REST_INTO_HEADER) == REST_E_BAD_VALUE);
    CHECK(rest_server_value("a b/c?d#e%f", 11, REST_INTO_PATH) == BENCH_OK);
    CHECK(rest_server_value("k\n1", 3, REST_INTO_PATH) == REST_E_BAD_VALUE);
    CHECK(rest_server_value(".", 1, REST_INTO_PATH) == REST_E_BAD_VALUE);
    CHECK(rest_server_value("..", 2, REST_INTO_PATH) == REST_E_BAD_VALUE);
    CHECK(rest_server_value("...", 3, REST_INTO_PATH) == BENCH_OK);
    /* The user's secrets: control characters refused, a space or a byte past 0x7e not. */
    CHECK(rest_has_control("Bearer a b\xc3\xa9", 12) == 0);
    CHECK(rest_has_control("a\tb", 3) == 1);
    CHECK(rest_has_control("ab\x7f", 3) == 1);
    CHECK(rest_has_control("", 0) == 0);
    char *p = rest_path_segment("../a b?c#d%e/f~g_h-i.j");
    CHECK(p && strcmp(p, "..%2Fa%20b%3Fc%23d%25e%2Ff~g_h-i.j") == 0);
    free(p);
    p = rest_path_segment("0f5a7c1e-3b2d-4e6f-8a9b-0c1d2e3f4a5b");
    CHECK(p && strcmp(p, "0f5a7c1e-3b2d-4e6f-8a9b-0c1d2e3f4a5b") == 0);
    free(p);
    char name[64];
    rest_code_name(REST_E_BAD_VALUE, name, sizeof name);
    CHECK(strcmp(name, "BAD_VALUE") == 0);
}

/* ---- client helpers ------------------------------------------------------- */

static void test_client_helpers(void)
{
    char buf[64], err[256];
    const char rpc[] = "{\"code\":16,\"message\":\"bad\\ntoken\",\"details\":[]}";
    CHECK(strcmp(rest_error_text(rpc, strlen(rpc), buf, sizeof buf), "bad token") == 0);
    CHECK(strcmp(rest_error_text("Session does not exist", 22, buf, sizeof buf), "Session does not exist") == 0);
    char longtext[200];
    memset(longtext, 'x', sizeof longtext);
    rest_error_text(longtext, sizeof longtext, buf, sizeof buf);
    CHECK(strlen(buf) < sizeof buf && strcmp(buf + strlen(buf) - 3, "...") == 0);
    /* rest_url_parse: bench_url_parse (tests/unit/test_url.c), and no credentials. */
    static const struct { const char *url; int ok; const char *why; } urls[] = {
        { "https://h.example/api/v1/cckm/ekm/endpoints/x", 1, "" },
        { "http://127.0.0.1:8080", 1, "" },
        { "ftp://h/x", 0, "not an http:// or https:// URL" },
        { "https://", 0, "has no host" },
        { "https://user:pw@h/x", 0, "credentials in the URL are not accepted" },
        { "https://user@h/x", 0, "credentials in the URL are not accepted" },
        { "https://h/a b", 0, "space or control character" },
    };
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        bench_url u;
        err[0] = 0;
        int rc = rest_url_parse(&u, urls[i].url, err, sizeof err);
        CHECK_MSG((rc == 0) == urls[i].ok && strstr(err, urls[i].why), "%s: %d '%s'", urls[i].url, rc, err);
        CHECK(rc == 0 || u.mem == NULL);
        CHECK(!strstr(err, "pw"));
        bench_url_free(&u);
    }
}

/* ---- statistics ----------------------------------------------------------- */

static int expect_503(const void *arg, long status)
{
    (void)arg;
    return status == 503;
}

static void test_k6_formats(void)
{
    /* k6's humanizeDuration and humanizeBytes. */
    static const struct { double v; int bytes; const char *want; } cases[] = {
        { 0, 0, "0s" }, { 253600, 0, "253.6µs" }, { 87000, 0, "87µs" },
        { 144670000, 0, "144.67ms" }, { 1e9, 0, "1s" }, { 62.5e9, 0, "1m2.5s" },
        { 500, 0, "500ns" }, { 4.6e6, 1, "4.6 MB" }, { 115000, 1, "115 kB" },
        { 7, 1, "7 B" }, { 1910, 1, "1.9 kB" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char b[32];
        const char *got = cases[i].bytes ? rest_k6_bytes(cases[i].v, b, sizeof b)
                                         : rest_k6_duration(cases[i].v, b, sizeof b);
        CHECK(strcmp(got, cases[i].want) == 0);
    }
    /* k6's progress line: GetFixedLengthDuration, the fields the planned
     * length needs (seed 003: "running (05.0s)") */
    static const struct { double ms, max_ms; const char *want; } fixed[] = {
        { 5000, 5000, "05.0s" }, { 5004, 5000, "05.0s" }, { 40000, 40000, "40.0s" },
        { 0, 0, "00.0s" }, { 1234, 90000, "00m01.2s" }, { 90000, 90000, "01m30.0s" },
        { 5000, 7200000, "00h00m05.0s" }, { 3605000, 3605000, "01h00m05.0s" },
        { 59960, 59960, "01m00.0s" },   /* rounds up into the next minute */
        { 90061000, 90061000, "1d01h01m01.0s" },
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        char b[32];
        const char *got = rest_k6_fixed_duration(fixed[i].ms, fixed[i].max_ms, b, sizeof b);
        CHECK_MSG(strcmp(got, fixed[i].want) == 0, "%g ms of %g: '%s', want '%s'", fixed[i].ms, fixed[i].max_ms,
                  got, fixed[i].want);
    }
}

static void test_stats_counts_and_json(void)
{
    /* Three workers' recorders, merged after the run as the pool does. */
    bench_side w[3], t;
    int made = bench_side_init(&t, &rest_side_spec) == 0;
    for (unsigned i = 0; i < 3; i++)
        made &= bench_side_init(&w[i], &rest_side_spec) == 0;
    CHECK(made);
    if (!made)
        return;
    rest_req_result ok = { 200, 1, { 100, 0, 0, 10, 80, 5, 95 }, NULL, 300, 200 };
    rest_req_result bad = { 503, 1, { 0, 0, 0, 10, 50, 5, 65 }, NULL, 100, 50 };
    rest_req_result none = { 0, 0, { 0 }, NULL, 0, 0 };
    rest_req_result prof = { 200, 1, { 0, 0, 0, 1, 1, 1, 3 },
                             "{\"in_queue\":1000,\"operate\":25000,\"total\":40000,\"bogus\":1}",
                             10, 10 };
    /* Switched off (a warm-up operation): nothing is recorded. */
    rest_stats_record(&w[0], NULL, NULL, &ok);
    bench_side_add(&w[0], REST_SC_REAUTH, 5);
    CHECK(bench_side_count(&w[0], REST_SC_REQUESTS) == 0 && !bench_side_hist(&w[0], REST_SH_PHASE));
    for (unsigned i = 0; i < 3; i++) {
        w[i].on = 1;
        rest_stats_record(&w[i], NULL, NULL, &ok);
        rest_stats_record(&w[i], NULL, NULL, &ok);
    }
    rest_stats_record(&w[1], NULL, NULL, &bad);
    rest_stats_record(&w[2], NULL, NULL, &none);
    rest_stats_record(&w[0], NULL, NULL, &prof);
    bench_side_add(&w[2], REST_SC_REAUTH, 1);
    CHECK(bench_side_count(&t, REST_SC_REQUESTS) == 0);
    CHECK(bench_side_count(&w[0], REST_SC_REQUESTS) + bench_side_count(&w[1], REST_SC_REQUESTS) +
          bench_side_count(&w[2], REST_SC_REQUESTS) == 9);
    /* The checks, as the handle's side flush adds them. */
    bench_side_add(&w[1], REST_SC_CHECK + 2 * REST_CHECK_STATUS, 7);
    bench_side_add(&w[1], REST_SC_CHECK + 2 * REST_CHECK_STATUS + 1, 1);
    bench_side_add(&w[2], REST_SC_CHECK + 2 * REST_CHECK_BODY, 6);
    bench_side_add(&w[2], REST_SC_CHECK + 2 * REST_CHECK_BODY + 1, 1);
    for (unsigned i = 0; i < 3; i++)
        CHECK(bench_side_merge(&t, &w[i]) == 0);
    bench_outcome o;
    memset(&o, 0, sizeof o);
    o.side = t;
    o.duration_s = 2.0;
    o.ops = 8;
    o.hist = bench_hist_new();
    CHECK(o.hist != NULL);
    for (int i = 0; o.hist && i < 7; i++)
        bench_hist_record(o.hist, 1000000);      /* 1 ms */
    /* 3 threads, --think 0.5ms; the body checks are checks (rest http --expect-body) */
    const rest_k6_ctx k6 = { .threads = 3, .think_ns = 500000, .planned_ns = 2000000000, .answer_checks = 1 };
    json_t *j = rest_stats_json(&o, &k6, 1);
    CHECK(json_integer_value(json_object_get(j, "requests")) == 9);
    CHECK(json_integer_value(json_object_get(j, "failed")) == 2);
    json_t *sc = json_object_get(j, "status_counts");
    CHECK(json_integer_value(json_object_get(sc, "200")) == 7 &&
          json_integer_value(json_object_get(sc, "503")) == 1 && json_object_size(sc) == 2);
    CHECK(json_integer_value(json_object_get(j, "reauth")) == 1);
    json_t *ph = json_object_get(j, "phases_us");
    CHECK(json_object_size(ph) == REST_PH_COUNT);
    json_t *dur = json_object_get(ph, "duration");
    CHECK(json_integer_value(json_object_get(dur, "count")) == 8);
    CHECK(json_real_value(json_object_get(dur, "max")) == 95.0);
    CHECK(json_real_value(json_object_get(dur, "min")) == 3.0);
    json_t *sp = json_object_get(j, "server_profile_us");
    CHECK(json_object_size(sp) == 3);
    CHECK(json_real_value(json_object_get(json_object_get(sp, "operate"), "p50")) == 25.0);
    CHECK(bench_side_count(&t, REST_SC_STATUS + 200) == 7);
    /* k6's whole summary, by k6's names. */
    json_t *k = json_object_get(j, "k6");
    static const char *const names[] = {
        "checks", "data_received", "data_sent", "http_req_blocked", "http_req_connecting",
        "http_req_duration", "http_req_duration{expected_response:true}", "http_req_failed",
        "http_req_receiving", "http_req_sending", "http_req_tls_handshaking", "http_req_waiting",
        "http_reqs", "iteration_duration", "iterations", "vus", "vus_max",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK(json_object_get(k, names[i]) != NULL);
    json_t *ck = json_object_get(k, "checks");
    CHECK(json_integer_value(json_object_get(ck, "passes")) == 13 &&
          json_integer_value(json_object_get(ck, "fails")) == 2);
    CHECK(json_integer_value(json_object_get(json_object_get(json_object_get(ck, "by_check"),
                                                             "answer"), "fails")) == 1);
    CHECK(json_object_get(ck, "verified") == NULL);
    /* ekm, sdkms: one check a request, the status, as the EKM package's
     * script (status 200); their own verification of the answers apart. */
    {
        const rest_k6_ctx own = { .threads = 3 };
        json_t *oj = rest_k6_json(&o, &own);
        const json_t *oc = json_object_get(oj, "checks");
        CHECK(json_integer_value(json_object_get(oc, "passes")) == 7 &&
              json_integer_value(json_object_get(oc, "fails")) == 1);
        CHECK(json_object_get(json_object_get(oc, "by_check"), "answer") == NULL);
        CHECK(json_integer_value(json_object_get(json_object_get(oc, "verified"), "passes")) == 6 &&
              json_integer_value(json_object_get(json_object_get(oc, "verified"), "fails")) == 1);
        json_decref(oj);
    }
    /* bytes: 6 x (300 in, 200 out) + (100, 50) + (10, 10); none sent nothing */
    CHECK(json_integer_value(json_object_get(json_object_get(k, "data_received"), "count")) == 1910);
    CHECK(json_integer_value(json_object_get(json_object_get(k, "data_sent"), "count")) == 1260);
    CHECK(json_real_value(json_object_get(json_object_get(k, "data_sent"), "rate")) == 630.0);
    /* expected_response: the 7 answers with status 200 (the 503 is not one) */
    json_t *eo = json_object_get(k, "http_req_duration{expected_response:true}");
    CHECK(json_integer_value(json_object_get(eo, "count")) == 7);
    CHECK(json_real_value(json_object_get(eo, "max")) == 95.0);
    CHECK(json_integer_value(json_object_get(json_object_get(k, "iterations"), "count")) == 8);
    /* iteration_duration: 1 ms + 0.5 ms think */
    CHECK(fabs(json_real_value(json_object_get(json_object_get(k, "iteration_duration"), "p50")) -
               1500.0) < 5.0);
    CHECK(json_integer_value(json_object_get(json_object_get(k, "vus"), "max")) == 3);
    CHECK(json_integer_value(json_object_get(json_object_get(k, "vus_max"), "value")) == 3);
    CHECK(json_real_value(json_object_get(json_object_get(k, "http_req_failed"), "rate")) ==
          2.0 / 9.0);
    /* Both printers carry every k6 name, rendered from the object. */
    bench_run_model m;
    memset(&m, 0, sizeof m);
    m.client_cpu = 0;
    char *buf = NULL;
    size_t blen = 0;
    FILE *mf = open_memstream(&buf, &blen);
    CHECK(mf != NULL);
    if (mf) {
        rest_stats_print(mf, j, &m);
        rest_k6_print(mf, k);
        fclose(mf);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            const char *nm = strcmp(names[i], "http_req_duration{expected_response:true}") == 0
                                 ? "{ expected_response:true }" : names[i];
            CHECK(strstr(buf, nm) != NULL);
        }
        CHECK(strstr(buf, "     checks.........................: 86.67% ✓ 13 ✗ 2\n") != NULL);
        /* k6's closing progress line, from the k6 object's state */
        CHECK_MSG(strstr(buf, "running (02.0s), 0/3 VUs, 8 complete and 0 interrupted iterations\n\n") != NULL,
                  "%s", buf);
        CHECK(strstr(buf, "     data_received..................: 1.9 kB 955 B/s\n") != NULL);
        CHECK(strstr(buf, "     http_reqs......................: 9 4.5/s\n") != NULL);
        CHECK(strstr(buf, "     vus_max........................: 3 min=3 max=3\n") != NULL);
        CHECK(strstr(buf, "       { expected_response:true }...: avg=") != NULL);
        CHECK(strstr(buf, "     ✗ answer\n      ↳  85% — ✓ 6 / ✗ 1\n") != NULL);
        /* client_cpu 0 (known, idle): the line, without the note. */
        CHECK(strstr(buf, "    client_cpu................: 0.00 of ") != NULL);
        CHECK(strstr(buf, "may be the limit") == NULL);
        /* the summary's own lines, from the same figures */
        CHECK_MSG(strstr(buf, "    http_reqs.................: 9          4.50/s\n") &&
                      strstr(buf, "    http_req_failed...........: 22.22%     2 of 9\n") &&
                      strstr(buf, "    http_status...............: 200=7 503=1\n") &&
                      strstr(buf, "    sdkms_reauth..............: 1\n") &&
                      strstr(buf, "    iterations................: 8          4.00/s\n") &&
                      strstr(buf, "    checks....................: 86.67%   ✓ 13 ✗ 2  (status ✓ 7 ✗ 1)  (answer ✓ 6 ✗ 1)\n") &&
                      strstr(buf, "    server_operate............: avg=25µs min=25µs med=25µs ") &&
                      strstr(buf, "    http_req_duration.........: avg=") &&
                      strstr(buf, " max=95µs ") && !strstr(buf, "http_req_retried"),
                  "%s", buf);
    }
    free(buf);
    /* Unknown: no line.  More CPUs busy than any machine has: the note. */
    buf = NULL;
    m.client_cpu = -1;
    if ((mf = open_memstream(&buf, &blen)) != NULL) {
        rest_stats_print(mf, j, &m);
        fclose(mf);
        CHECK(strstr(buf, "client_cpu") == NULL);
    }
    free(buf);
    buf = NULL;
    m.client_cpu = 4096;
    if ((mf = open_memstream(&buf, &blen)) != NULL) {
        rest_stats_print(mf, j, &m);
        fclose(mf);
        CHECK_MSG(strstr(buf, "client_cpu................: 4096.00 of ") != NULL &&
                      strstr(buf, "CPUs  (the client kept this machine busy: it may be the limit, not the service)\n"),
                  "%s", buf);
    }
    free(buf);
    json_decref(j);
    bench_hist_free(o.hist);
    /* http_req_failed follows the expected statuses when given. */
    bench_side e;
    CHECK(bench_side_init(&e, &rest_side_spec) == 0);
    e.on = 1;
    rest_stats_record(&e, expect_503, NULL, &bad);
    rest_stats_record(&e, expect_503, NULL, &ok);
    CHECK(bench_side_count(&e, REST_SC_FAILED) == 1);
    bench_side_free(&e);
    for (unsigned i = 0; i < 3; i++)
        bench_side_free(&w[i]);
    bench_side_free(&t);

    int64_t ns[REST_PROF_COUNT];
    unsigned mask;
    CHECK(rest_profiling_parse("not json", ns, &mask) != 0);
    CHECK(rest_profiling_parse("{\"total\":5,\"db_flush\":-1}", ns, &mask) == 0 &&
          mask == (1u << REST_PROF_TOTAL) && ns[REST_PROF_TOTAL] == 5);
    /* Found by fuzz_rest (tests/fuzz/corpus/rest/regress-profiling-huge-real):
     * a real too large for int64_t was converted anyway (undefined). */
    CHECK(rest_profiling_parse("{\"sign\":0,\"total\":2.7e107,\"queue\":1e19}", ns, &mask) == 0 &&
          !(mask & (1u << REST_PROF_TOTAL)));
}

/* ---- the emulator's stores ------------------------------------------------ */

static serve_key *key(int transient)
{
    serve_key *k = calloc(1, sizeof *k);
    k->type = SERVE_KEY_AES;
    k->bits = 256;
    k->transient = transient;
    return k;
}

static void test_keys_store(void)
{
    serve_keys *ks = serve_keys_new(4, 2);
    serve_key *ev = NULL, *a = key(0), *gone;
    CHECK(serve_keys_add(ks, a, &ev) == 0 && ev == NULL);
    CHECK(strlen(a->kid) == SERVE_KID_LEN && a->kid[8] == '-' && a->kid[14] == '4');
    CHECK(serve_keys_put(ks, a) == NULL);               /* the adder's hold */
    char kid[SERVE_KID_LEN + 1];
    strcpy(kid, a->kid);
    serve_key *h = serve_keys_get(ks, kid, strlen(kid));
    CHECK(h == a);
    CHECK(serve_keys_get(ks, "nope", 4) == NULL);
    CHECK(serve_keys_get_transient(ks, kid, strlen(kid)) == NULL);
    /* Deleted while held: destroyed by the last holder, not by the delete. */
    CHECK(serve_keys_delete(ks, kid, strlen(kid), &gone) == 0 && gone == NULL);
    CHECK(serve_keys_get(ks, kid, strlen(kid)) == NULL);
    CHECK(serve_keys_delete(ks, kid, strlen(kid), &gone) != 0);
    gone = serve_keys_put(ks, h);
    CHECK(gone == a);
    free(gone);

    /* Transient keys: an opaque blob, the oldest pushed out past the limit. */
    serve_key *t1 = key(1), *t2 = key(1), *t3 = key(1);
    CHECK(serve_keys_add(ks, t1, &ev) == 0 && ev == NULL);
    char *blob1 = serve_keys_transient_blob(t1);
    serve_keys_put(ks, t1);
    CHECK(serve_keys_add(ks, t2, &ev) == 0 && ev == NULL);
    serve_keys_put(ks, t2);
    CHECK(serve_keys_get_transient(ks, blob1, strlen(blob1)) == t1);
    serve_keys_put(ks, t1);
    CHECK(serve_keys_get(ks, t1->kid, SERVE_KID_LEN) == NULL);   /* no kid access */
    CHECK(serve_keys_add(ks, t3, &ev) == 0 && ev == t1);
    free(ev);
    serve_keys_put(ks, t3);
    CHECK(serve_keys_get_transient(ks, blob1, strlen(blob1)) == NULL);
    CHECK(serve_keys_get_transient(ks, "QUJD", 4) == NULL);
    free(blob1);

    /* Full. */
    serve_key *f1 = key(0), *f2 = key(0), *f3 = key(0);
    CHECK(serve_keys_add(ks, f1, &ev) == 0);
    CHECK(serve_keys_add(ks, f2, &ev) == 0);
    CHECK(serve_keys_add(ks, f3, &ev) != 0);
    free(f3);
    serve_keys_put(ks, f1);
    serve_keys_put(ks, f2);
    serve_keys_free(ks);
}

static void test_sessions_store(void)
{
    serve_sessions *s = serve_sessions_new(2, 0);
    char a[SERVE_SESSION_TOKEN_MAX], b[SERVE_SESSION_TOKEN_MAX], c[SERVE_SESSION_TOKEN_MAX];
    CHECK(serve_sessions_create(s, a) == 0 && serve_sessions_create(s, b) == 0);
    CHECK(strcmp(a, b) != 0);
    CHECK(serve_sessions_create(s, c) != 0);             /* full */
    CHECK(serve_sessions_check(s, a, strlen(a)) && serve_sessions_check(s, b, strlen(b)));
    char forged[SERVE_SESSION_TOKEN_MAX];
    strcpy(forged, a);
    forged[strlen(forged) - 1] ^= 1;
    CHECK(!serve_sessions_check(s, forged, strlen(forged)));
    CHECK(!serve_sessions_check(s, "0.short", 7));
    CHECK(!serve_sessions_check(s, "", 0));
    CHECK(serve_sessions_end(s, a, strlen(a)) == 0);
    CHECK(!serve_sessions_check(s, a, strlen(a)));
    CHECK(serve_sessions_end(s, a, strlen(a)) != 0);
    CHECK(serve_sessions_create(s, c) == 0 && serve_sessions_check(s, c, strlen(c)));
    serve_sessions_free(s);

    /* With a time limit: a session ends by itself. */
    serve_sessions *t = serve_sessions_new(4, 20 * 1000 * 1000);
    CHECK(serve_sessions_create(t, a) == 0 && serve_sessions_check(t, a, strlen(a)));
    CHECK(serve_sessions_ttl_s(t) == 0);
    bench_sleep_until_ns(bench_now_ns() + 40 * 1000 * 1000);
    CHECK(!serve_sessions_check(t, a, strlen(a)));
    serve_sessions_free(t);
}

int main(void)
{
    RUN(test_b64_vectors);
    RUN(test_b64_roundtrip_binary);
    RUN(test_b64_alphabets_and_padding);
    RUN(test_b64_rejects);
    RUN(test_b64_valid_matches_decode);
    RUN(test_jscan_b64_matches_valid);
    RUN(test_phases_fresh_tls);
    RUN(test_phases_reused_connection);
    RUN(test_phases_plain_http_and_odd_stamps);
    RUN(test_code_names);
    RUN(test_codes_from_curl);
    RUN(test_codes_from_lean);
    RUN(test_code_kinds);
    RUN(test_fault_parse);
    RUN(test_reply_faults);
    RUN(test_ekm_wrap_body);
    RUN(test_ekm_checks);
    RUN(test_jscan);
    RUN(test_sdkms_resolve_defaults);
    RUN(test_sdkms_resolve_rejects);
    RUN(test_sdkms_resolve_curves);
    RUN(test_sdkms_bodies_and_checks);
    RUN(test_sdkms_session_helpers);
    RUN(test_server_values);
    RUN(test_client_helpers);
    RUN(test_stats_counts_and_json);
    RUN(test_k6_formats);
    RUN(test_keys_store);
    RUN(test_sessions_store);
    return check_finish();
}

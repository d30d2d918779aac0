/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_jtl.c - bench/results/jtl.c: a request's line in JMeter's
 * CSV results format.  The expected lines are written out by hand from
 * JMeter's rules: the default columns of JMeter 5.x in their order,
 * milliseconds rounded, a field quoted only when it holds a comma, a quote
 * or a line break, its quotes doubled (CSVSaveService.quoteDelimiters).
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/jtl.h"
#include "tests/unit/check.h"

#include <stdlib.h>

static bench_request request(bench_code code)
{
    bench_request r;
    memset(&r, 0, sizeof r);
    r.start_ns = 5;
    r.elapsed_ns = 2500000;     /* 2.5 ms: 3 */
    r.code = code;
    r.thread = 3;
    r.active = 4;
    return r;
}

static void test_header(void)
{
    CHECK(strcmp(BENCH_JTL_HEADER,
                 "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
                 "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n") == 0);
}

static void test_pkcs11_success(void)
{
    bench_request r = request(BENCH_OK);
    memcpy(r.code_text, "CKR_OK", 7);
    r.bytes_in = 64;
    r.bytes_out = 32;
    char buf[512];
    const size_t n = bench_jtl_line(buf, sizeof buf, "ecdsa-sign", 1700000000123ULL, &r);
    const char *want = "1700000000123,3,ecdsa-sign,CKR_OK,OK,hsmbench 1-3,bin,true,,64,32,4,4,,3,0,0\n";
    CHECK_MSG(n == strlen(want) && strcmp(buf, want) == 0, "%s", buf);
}

static void test_http_failure_quoted(void)
{
    bench_request r = request(500);
    memcpy(r.code_text, "500", 4);
    r.message = "Internal Server Error";
    r.failure = "said \"no\", twice\nthen stopped";
    r.url = "http://127.0.0.1:1/a,b";
    r.first_byte_ns = 1400000;      /* 1.4 ms: 1 */
    r.connect_ns = 600000;          /* 0.6 ms: 1 */
    r.bytes_in = 175;
    r.bytes_out = 384;
    char buf[512];
    const size_t n = bench_jtl_line(buf, sizeof buf, "sign", 1, &r);
    const char *want = "1,3,sign,500,Internal Server Error,hsmbench 1-3,text,false,"
                       "\"said \"\"no\"\", twice\nthen stopped\",175,384,4,4,\"http://127.0.0.1:1/a,b\",1,0,1\n";
    CHECK_MSG(n == strlen(want) && strcmp(buf, want) == 0, "%s", buf);
}

static void test_own_label_and_latency_bound(void)
{
    bench_request r = request(BENCH_OK);
    r.label = "mix \"a\"";
    r.first_byte_ns = 9000000;      /* past elapsed: Latency is at most elapsed */
    r.connect_ns = 9000000;
    char buf[512];
    bench_jtl_line(buf, sizeof buf, "run", 0, &r);
    const char *want = "0,3,\"mix \"\"a\"\"\",OK,OK,hsmbench 1-3,bin,true,,0,0,4,4,,3,0,3\n";
    CHECK_MSG(strcmp(buf, want) == 0, "%s", buf);
}

static void test_failure_named_by_its_code(void)
{
    /* No workload text: the core's name of the code, in both columns. */
    bench_request r = request(BENCH_CODE_VERIFY_MISMATCH);
    char buf[512];
    bench_jtl_line(buf, sizeof buf, "t", 0, &r);
    CHECK_MSG(strstr(buf, ",VERIFY_MISMATCH,VERIFY_MISMATCH,hsmbench 1-3,bin,false,VERIFY_MISMATCH,") != NULL,
              "%s", buf);
}

static void test_does_not_fit(void)
{
    bench_request r = request(BENCH_OK);
    char buf[512];
    const size_t whole = bench_jtl_line(buf, sizeof buf, "ecdsa-sign", 1, &r);
    CHECK(whole > 0);
    /* One byte short (its NUL included) is no line at all, never half of one. */
    CHECK(bench_jtl_line(buf, whole, "ecdsa-sign", 1, &r) == 0);
    CHECK(bench_jtl_line(buf, whole + 1, "ecdsa-sign", 1, &r) == whole);
}

int main(void)
{
    RUN(test_header);
    RUN(test_pkcs11_success);
    RUN(test_http_failure_quoted);
    RUN(test_own_label_and_latency_bound);
    RUN(test_failure_named_by_its_code);
    RUN(test_does_not_fit);
    return check_finish();
}

/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_rundesc.c - the run description's load fields, from the load. */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <string.h>

#include "bench/driver/rundesc.h"
#include "tests/unit/check.h"

static void test_blocking(void)
{
    bench_load l;
    bench_run_desc d;
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    d.test = "rsa-pkcs-sign";
    d.data_size = 32;
    l.threads = 4;
    l.duration_ns = 2500000000ULL;
    l.warmup_ns = 500000000ULL;
    l.think_ns = 10000000ULL;
    l.inflight = 8;                  /* a blocking run has no window */
    bench_run_desc_load(&d, &l, "1s:4", "worker pool", 16);
    CHECK(strcmp(d.mode, "blocking") == 0);
    CHECK(d.threads == 4 && d.duration_s == 2.5 && d.warmup_s == 0.5 && d.think_s == 0.01);
    CHECK(d.iterations == 0 && d.rate == 0 && d.inflight == 0);
    CHECK(d.stages == NULL);         /* the text only when the load has stages */
    CHECK(d.engine == NULL && d.slots == 0);
    CHECK(strcmp(d.test, "rsa-pkcs-sign") == 0 && d.data_size == 32);   /* the caller's, kept */
}

static void test_nonblocking(void)
{
    bench_load l;
    bench_run_desc d;
    bench_stages st;
    memset(&l, 0, sizeof l);
    memset(&d, 0, sizeof d);
    memset(&st, 0, sizeof st);
    l.mode = BENCH_MODE_NONBLOCKING;
    l.threads = 2;
    l.iterations = 0;
    l.duration_ns = 10000000000ULL;
    l.rate = 500;
    l.inflight = 32;
    l.stages = &st;
    bench_run_desc_load(&d, &l, "5s:100,5s:500", "curl multi", 32);
    CHECK(strcmp(d.mode, "nonblocking") == 0);
    CHECK(d.rate == 500 && d.inflight == 32 && d.duration_s == 10);
    CHECK(d.stages && strcmp(d.stages, "5s:100,5s:500") == 0);
    CHECK(d.engine && strcmp(d.engine, "curl multi") == 0 && d.slots == 32);
}

int main(void)
{
    RUN(test_blocking);
    RUN(test_nonblocking);
    return check_finish();
}

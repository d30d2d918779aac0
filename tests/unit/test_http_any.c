/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_http_any.c - "hsmbench rest http"'s pure parts: expected
 * status sets, JSON paths, header and method checks, judging an answer,
 * JMeter's summary line and the plain-HTTP twin of a URL.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "bench/core/hist.h"
#include "rest/http_any.h"

static void test_status_sets(void)
{
    rest_status_set s;
    char err[256], buf[128];
    rest_status_set_default(&s);
    CHECK(rest_status_set_has(&s, 200) && rest_status_set_has(&s, 302) && rest_status_set_has(&s, 399));
    CHECK(!rest_status_set_has(&s, 199) && !rest_status_set_has(&s, 400) && !rest_status_set_has(&s, 0));
    CHECK(strcmp(rest_status_set_text(&s, buf, sizeof buf), "200-399") == 0);

    CHECK(rest_status_set_parse("200,204", &s, err, sizeof err) == 0);
    CHECK(rest_status_set_has(&s, 204) && !rest_status_set_has(&s, 201));
    CHECK(strcmp(rest_status_set_text(&s, buf, sizeof buf), "200,204") == 0);
    CHECK(rest_status_set_parse("200-299,404", &s, err, sizeof err) == 0);
    CHECK(rest_status_set_has(&s, 250) && rest_status_set_has(&s, 404) && !rest_status_set_has(&s, 300));
    CHECK(rest_status_set_parse("4xx", &s, err, sizeof err) == 0);
    CHECK(rest_status_set_has(&s, 400) && rest_status_set_has(&s, 499) && !rest_status_set_has(&s, 500));
    CHECK(strcmp(rest_status_set_text(&s, buf, sizeof buf), "400-499") == 0);

    static const char *const bad[] = { "", "20", "2000", "600", "099", "299-200", "200,", ",200",
                                       "200,,204", "abc", "6xx", "2x", "200-", "-200", "2OO" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(rest_status_set_parse(bad[i], &s, err, sizeof err) != 0, "'%s' accepted", bad[i]);
    CHECK(rest_status_set_parse("2000", &s, err, sizeof err) != 0 && strstr(err, "--expect-status"));
}

static void test_jpath(void)
{
    rest_jpath p;
    char err[256];
    json_t *doc = json_loads("{\"result\":{\"allow\":true,\"n\":null},\"items\":[{\"id\":7},[1,2]],"
                             "\"a.b\":1,\"x-y\":2}", 0, NULL);
    CHECK(doc != NULL);
    static const char *const found[] = { ".", ".result", ".result.allow", ".result.n", ".items[0]",
                                         ".items[0].id", ".items[1][1]", ".\"a.b\"", ".x-y" };
    for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
        CHECK_MSG(rest_jpath_parse(found[i], &p, err, sizeof err) == 0, "%s: %s", found[i], err);
        CHECK_MSG(rest_jpath_get(&p, doc) != NULL, "%s not found", found[i]);
        rest_jpath_free(&p);
    }
    static const char *const missing[] = { ".nope", ".result.deny", ".items[2]", ".items[0].name",
                                           ".result[0]", ".items.id", ".result.allow.x" };
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        CHECK_MSG(rest_jpath_parse(missing[i], &p, err, sizeof err) == 0, "%s: %s", missing[i], err);
        CHECK_MSG(rest_jpath_get(&p, doc) == NULL, "%s found", missing[i]);
        rest_jpath_free(&p);
    }
    json_t *arr = json_loads("[{\"id\":1}]", 0, NULL);
    CHECK(rest_jpath_parse(".[0].id", &p, err, sizeof err) == 0 && rest_jpath_get(&p, arr) != NULL);
    rest_jpath_free(&p);
    json_decref(arr);

    static const char *const bad[] = { "", "result", "..a", ".a.", ".a[", ".a[]", ".a[x]", ".a[1",
                                       ".\"a", ".a]", ".a\"b\"" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(rest_jpath_parse(bad[i], &p, err, sizeof err) != 0, "'%s' accepted", bad[i]);
        CHECK(p.n == 0 && p.seg == NULL);
    }
    json_decref(doc);
}

static void test_headers_and_methods(void)
{
    char err[256];
    CHECK(rest_header_check("Content-Type: application/json", err, sizeof err) == 0);
    CHECK(rest_header_check("X-Empty:", err, sizeof err) == 0);
    CHECK(rest_header_check("Accept:*/*", err, sizeof err) == 0);
    CHECK(rest_header_check("No colon", err, sizeof err) != 0);
    CHECK(rest_header_check(": value", err, sizeof err) != 0);
    CHECK(rest_header_check("Bad Name: v", err, sizeof err) != 0);
    CHECK(rest_header_check("X-Inject: a\r\nHost: evil", err, sizeof err) != 0);
    CHECK(rest_header_is("content-type: x", "Content-Type"));
    CHECK(!rest_header_is("Content-Typo: x", "Content-Type"));
    CHECK(!rest_header_is("Content-Type-X: x", "Content-Type"));
    CHECK(rest_header_is_secret("Authorization: Bearer x", NULL, 0));
    CHECK(rest_header_is_secret("authorization:x", NULL, 0));
    CHECK(rest_header_is_secret("Proxy-Authorization: Basic x", NULL, 0));
    CHECK(rest_header_is_secret("Cookie: a=b", NULL, 0));
    CHECK(rest_header_is_secret("Set-Cookie: a=b", NULL, 0));
    CHECK(rest_header_is_secret("x-api-key: k", NULL, 0));
    CHECK(rest_header_is_secret("X-Auth-Token: t", NULL, 0));
    CHECK(!rest_header_is_secret("X-Authorization-Hint: no", NULL, 0));
    const char *const extra[] = { "X-Vault-Token", "X-Custom" };
    CHECK(rest_header_is_secret("x-custom: s", extra, 2));
    CHECK(!rest_header_is_secret("X-Custom-Not: s", extra, 2));
    CHECK(rest_method_check("GET") == 0 && rest_method_check("PATCH") == 0);
    CHECK(rest_method_check("M-SEARCH") == 0);
    CHECK(rest_method_check("") != 0 && rest_method_check("GE T") != 0 &&
          rest_method_check("GET\r\n") != 0);
}

static rest_response answer(long status, const char *body)
{
    rest_response r;
    memset(&r, 0, sizeof r);
    r.status = status;
    r.error = "";
    r.body = body;
    r.body_len = strlen(body);
    return r;
}

static void test_check_answer(void)
{
    rest_any_cfg c;
    rest_jpath p;
    char err[256];
    memset(&c, 0, sizeof c);
    rest_status_set_default(&c.expect);
    rest_response r = answer(200, "{\"result\":true}");
    CHECK(rest_any_check(&c, &r) == BENCH_OK);
    r = answer(404, "no");
    CHECK(rest_any_check(&c, &r) == rest_code_http(404));
    r = answer(0, "");
    r.transport = REST_E_TIMEOUT;
    CHECK(rest_any_check(&c, &r) == REST_E_TIMEOUT);

    c.expect_body = "\"result\"";
    r = answer(200, "{\"result\":true}");
    CHECK(rest_any_check(&c, &r) == BENCH_OK);
    r = answer(200, "{\"other\":true}");
    CHECK(rest_any_check(&c, &r) == REST_E_EXPECT_BODY);
    c.expect_body = NULL;

    CHECK(rest_jpath_parse(".result", &p, err, sizeof err) == 0);
    c.expect_json = &p;
    r = answer(200, "{\"result\":false}");
    CHECK(rest_any_check(&c, &r) == BENCH_OK);
    r = answer(200, "{\"resul\":1}");
    CHECK(rest_any_check(&c, &r) == REST_E_EXPECT_JSON);
    r = answer(200, "{\"result\":");
    CHECK(rest_any_check(&c, &r) == REST_E_BAD_JSON);
    r = answer(200, "");
    CHECK(rest_any_check(&c, &r) == REST_E_BAD_JSON);
    /* The status comes first: a 500 with a JSON body is HTTP 500. */
    r = answer(500, "{\"result\":1}");
    CHECK(rest_any_check(&c, &r) == rest_code_http(500));
    rest_jpath_free(&p);

    char name[64];
    rest_any_code_name(NULL, REST_E_EXPECT_BODY, name, sizeof name);
    CHECK(strcmp(name, "EXPECT_BODY") == 0);
    rest_any_code_name(NULL, REST_E_EXPECT_JSON, name, sizeof name);
    CHECK(strcmp(name, "EXPECT_JSON") == 0);
    rest_any_code_name(NULL, REST_E_BAD_JSON, name, sizeof name);
    CHECK(strcmp(name, "BAD_JSON") == 0);
    rest_any_code_name(NULL, rest_code_http(404), name, sizeof name);
    CHECK(strcmp(name, "HTTP 404") == 0);
}

/* A model with the JMeter line's figures, as bench_model_from_run reads them. */
static bench_run_model jm(uint64_t attempts, uint64_t errors, double duration_s, double mean_us,
                          double min_us, double max_us)
{
    bench_run_model m;
    memset(&m, 0, sizeof m);
    m.attempts = attempts;
    m.errors = errors;
    m.ops = attempts - errors;
    m.duration_s = duration_s;
    m.attempts_per_s = duration_s > 0 ? (double)attempts / duration_s : 0;
    m.error_pct = attempts ? 100.0 * (double)errors / (double)attempts : 0;
    m.attempts_latency.present = mean_us > 0;
    m.attempts_latency.count = mean_us > 0 ? attempts : 0;
    m.attempts_latency.mean = mean_us;
    m.attempts_latency.min = min_us;
    m.attempts_latency.max = max_us;
    return m;
}

static void test_jmeter_line(void)
{
    char buf[256];
    /* 12 ms, 155.4 ms, 2.707 s: avg 958.1 ms; JMeter's columns (6, 6, 5 wide) */
    bench_run_model m = jm(12000, 0, 42.3, 958133.33, 12000, 2707000);
    rest_jmeter_line(buf, sizeof buf, &m);
    CHECK_MSG(strcmp(buf, "summary =  12000 in 00:00:42 =  283.7/s Avg:   958 Min:    12 Max:  2707 "
                          "Err:     0 (0.00%)") == 0, "%s", buf);
    m = jm(3, 1, 3725.6, 958133.33, 12000, 2707000);
    rest_jmeter_line(buf, sizeof buf, &m);
    CHECK_MSG(strncmp(buf, "summary =      3 in 01:02:06 =    0.0/s ", 40) == 0 &&
              strstr(buf, "Err:     1 (33.33%)"), "%s", buf);
    /* Every request failed: JMeter still counts their latency (no successes). */
    m = jm(2, 2, 1.0, 40000, 30000, 50000);
    rest_jmeter_line(buf, sizeof buf, &m);
    CHECK_MSG(strcmp(buf, "summary =      2 in 00:00:01 =    2.0/s Avg:    40 Min:    30 Max:    50 "
                          "Err:     2 (100.00%)") == 0, "%s", buf);
    /* A short run: the rate is the model's attempts_per_s (245.97/s), not
     * 20 over a duration rounded to 81 ms (246.9/s, which test_views caught). */
    m = jm(20, 0, 0.08131, 3000, 3000, 3000);
    rest_jmeter_line(buf, sizeof buf, &m);
    CHECK_MSG(strncmp(buf, "summary =     20 in 00:00:00 =  246.0/s ", 40) == 0, "%s", buf);
    /* No time at all: JMeter's infinite rate. */
    m = jm(0, 0, 0, 0, 0, 0);
    rest_jmeter_line(buf, sizeof buf, &m);
    CHECK_MSG(strcmp(buf, "summary =      0 in 00:00:00 = ******/s Avg:     0 Min:     0 Max:     0 "
                          "Err:     0 (0.00%)") == 0, "%s", buf);
}

/* One measured interval as the sampler hands it over. */
static bench_sample second_of(uint64_t ops, uint64_t errors, double mean_ms, uint64_t min_ms,
                              uint64_t max_ms, unsigned started, unsigned finished)
{
    bench_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.span_s = 1.0;
    smp.ops = ops;
    smp.errors = errors;
    smp.all_mean_ns = mean_ms * 1e6;
    smp.all_min_ns = min_ms * 1000000;
    smp.all_max_ns = max_ms * 1000000;
    smp.started = started;
    smp.finished = finished;
    return smp;
}

/* JMeter's summariser: "+" each interval, "=" from the second on, the end's "+" and "=". */
static void test_jmeter_summariser(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    rest_jmeter_summariser js;
    rest_jmeter_begin(&js, f, 2);
    bench_sample a = second_of(10, 1, 5, 1, 20, 1, 0), b = second_of(20, 0, 10, 2, 30, 2, 0);
    rest_jmeter_second(&js, &a);
    rest_jmeter_second(&js, &b);
    bench_sample c = second_of(30, 3, 4, 3, 40, 2, 1), d = second_of(30, 0, 4, 3, 9, 2, 1);
    rest_jmeter_second(&js, &c);
    rest_jmeter_second(&js, &d);
    bench_sample e = second_of(5, 0, 2, 2, 2, 2, 2);
    rest_jmeter_second(&js, &e);
    bench_run_model m = jm(95, 4, 5.0, 6000, 1000, 40000);
    CHECK(rest_jmeter_end(&js, &m) == 0);
    fclose(f);
    static const char want[] =
        /* 30 in 2 s, (10 x 5 + 20 x 10) / 30 = 8.3 ms, the failed sample's 1 ms the Min */
        "summary +     30 in 00:00:02 =   15.0/s Avg:     8 Min:     1 Max:    30 Err:     1 (3.33%) "
        "Active: 2 Started: 2 Finished: 0\n"
        "summary +     60 in 00:00:02 =   30.0/s Avg:     4 Min:     3 Max:    40 Err:     3 (5.00%) "
        "Active: 1 Started: 2 Finished: 1\n"
        "summary =     90 in 00:00:04 =   22.5/s Avg:     5 Min:     1 Max:    40 Err:     4 (4.44%)\n"
        "summary +      5 in 00:00:01 =    5.0/s Avg:     2 Min:     2 Max:     2 Err:     0 (0.00%) "
        "Active: 0 Started: 2 Finished: 2\n"
        "summary =     95 in 00:00:05 =   19.0/s Avg:     6 Min:     1 Max:    40 Err:     4 (4.21%)\n";
    CHECK_MSG(text && strcmp(text, want) == 0, "%s", text ? text : "(none)");
    free(text);

    /* A run shorter than the interval: the total alone, as JMeter prints it. */
    f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    rest_jmeter_begin(&js, f, 30);
    rest_jmeter_second(&js, &a);
    m = jm(10, 1, 1.0, 5000, 1000, 20000);
    CHECK(rest_jmeter_end(&js, &m) == 0);
    fclose(f);
    CHECK_MSG(text && strncmp(text, "summary =     10 in 00:00:01 = ", 31) == 0 && !strchr(text, '+'),
              "%s", text ? text : "(none)");
    free(text);
}

int main(void)
{
    RUN(test_status_sets);
    RUN(test_jpath);
    RUN(test_headers_and_methods);
    RUN(test_check_answer);
    RUN(test_jmeter_line);
    RUN(test_jmeter_summariser);
    return check_finish();
}

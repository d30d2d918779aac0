/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_cli.c - the number and duration parsers, and formatting. */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "tests/unit/check.h"

static void test_u64(void)
{
    uint64_t v = 0;
    CHECK(bench_parse_u64("--x", "42", 1, 100, &v) == 0 && v == 42);
    CHECK(bench_parse_u64("--x", "+7", 1, 100, &v) == 0 && v == 7);
    CHECK(bench_parse_u64("--x", "1", 1, 100, &v) == 0 && v == 1);
    CHECK(bench_parse_u64("--x", "100", 1, 100, &v) == 0 && v == 100);
    CHECK(bench_parse_u64("--x", "0", 1, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "101", 1, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "-1", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "+", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "1.5", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "12abc", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", " 5", 0, 100, &v) == -1);
    CHECK(bench_parse_u64("--x", "99999999999999999999999", 0, UINT64_MAX, &v) == -1 ||
          v == UINT64_MAX);
    CHECK(bench_parse_u64("--x", "18446744073709551615", 0, UINT64_MAX, &v) == 0 &&
          v == UINT64_MAX);
}

static void test_duration(void)
{
    uint64_t ns = 0;
    const uint64_t S = 1000000000ULL;
    /* Only decimal numbers: no white space, hexadecimal, inf or nan (strtod's). */
    {
        char *e = NULL;
        CHECK(bench_strtod("2.5", &e) == 2.5 && *e == 0);
        CHECK(bench_strtod("-0.5x", &e) == -0.5 && *e == 'x');
        CHECK(bench_strtod("+.5", &e) == 0.5 && *e == 0);
        CHECK(bench_strtod("1e3", &e) == 1000 && *e == 0);
        static const char *const bad[] = { " 5", "0x10", "-0X1p3", "inf", "nan", "", "+", ".", "\t1" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            bench_strtod(bad[i], &e);
            CHECK(e == bad[i]);
        }
    }
    CHECK(bench_parse_duration("--d", "0x10", 1, 1000 * S, &ns) != 0);
    CHECK(bench_parse_duration("--d", " 3", 1, 1000 * S, &ns) != 0);
    CHECK(bench_parse_duration("--d", "30", 1, 1000 * S, &ns) == 0 && ns == 30 * S);
    CHECK(bench_parse_duration("--d", "30s", 1, 1000 * S, &ns) == 0 && ns == 30 * S);
    CHECK(bench_parse_duration("--d", "500ms", 1, 1000 * S, &ns) == 0 && ns == S / 2);
    CHECK(bench_parse_duration("--d", "1.5", 1, 1000 * S, &ns) == 0 && ns == 3 * S / 2);
    CHECK(bench_parse_duration("--d", "2m", 1, 1000 * S, &ns) == 0 && ns == 120 * S);
    CHECK(bench_parse_duration("--d", "250us", 1, 1000 * S, &ns) == 0 && ns == 250000);
    CHECK(bench_parse_duration("--d", "1h", 1, 4000 * S, &ns) == 0 && ns == 3600 * S);
    CHECK(bench_parse_duration("--d", "0", 0, 10 * S, &ns) == 0 && ns == 0);
    CHECK(bench_parse_duration("--d", "0", 1, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "-1", 0, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "abc", 0, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "10x", 0, 100 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "11", 0, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "nan", 0, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "inf", 0, 10 * S, &ns) == -1);
    CHECK(bench_parse_duration("--d", "", 0, 10 * S, &ns) == -1);
    /* k6's compound forms (seeds 000 and 003), and what they must not take */
    CHECK(bench_parse_duration("--d", "1m30s", 1, 4000 * S, &ns) == 0 && ns == 90 * S);
    CHECK(bench_parse_duration("--d", "2h", 1, 8000 * S, &ns) == 0 && ns == 7200 * S);
    CHECK(bench_parse_duration("--d", "1h30m15s", 1, 8000 * S, &ns) == 0 && ns == 5415 * S);
    CHECK(bench_parse_duration("--d", "1m0.5s", 1, 4000 * S, &ns) == 0 && ns == 60 * S + S / 2);
    CHECK(bench_parse_duration("--d", "1s500ms", 1, 4000 * S, &ns) == 0 && ns == 3 * S / 2);
    CHECK(bench_parse_duration("--d", "2\xc2\xb5s", 1, S, &ns) == 0 && ns == 2000);
    CHECK(bench_parse_duration("--d", "1m30", 1, 4000 * S, &ns) == -1);      /* a part without a unit */
    CHECK(bench_parse_duration("--d", "30s1m", 1, 4000 * S, &ns) == -1);     /* units out of order */
    CHECK(bench_parse_duration("--d", "1m1m", 1, 4000 * S, &ns) == -1);      /* a unit twice */
    CHECK(bench_parse_duration("--d", "1m-30s", 1, 4000 * S, &ns) == -1);    /* a sign inside */
    CHECK(bench_parse_duration("--d", "1m 30s", 1, 4000 * S, &ns) == -1);    /* a blank inside */
    CHECK(bench_parse_duration("--d", "1h30m", 1, 10 * S, &ns) == -1);       /* out of range */
}

static void test_format(void)
{
    char b[32];
    CHECK(strcmp(bench_fmt_ns(812, b, sizeof b), "812ns") == 0);
    CHECK(strcmp(bench_fmt_ns(4210000, b, sizeof b), "4.21ms") == 0);
    CHECK(strcmp(bench_fmt_ns(1020000000, b, sizeof b), "1.02s") == 0);
    CHECK(strcmp(bench_fmt_ns(646800, b, sizeof b), "646.8µs") == 0);
    /* --duration's upper bound read "6.048e+05s": past 9999 s, hours */
    CHECK(strcmp(bench_fmt_ns(9999e9, b, sizeof b), "9999s") == 0);
    CHECK(strcmp(bench_fmt_ns(604800e9, b, sizeof b), "168h") == 0);
    CHECK(strcmp(bench_fmt_ns(3.6e12 * 123456, b, sizeof b), "123456h") == 0);
    CHECK(strcmp(bench_fmt_bytes(512, b, sizeof b), "512 B") == 0);
    /* binary units: a data size as it was chosen (issue 41) */
    CHECK(strcmp(bench_fmt_bytes(1024, b, sizeof b), "1 KiB") == 0);
    CHECK(strcmp(bench_fmt_bytes(8192, b, sizeof b), "8 KiB") == 0);
    CHECK(strcmp(bench_fmt_bytes(1500, b, sizeof b), "1.5 KiB") == 0);
    CHECK(strcmp(bench_fmt_bytes(3200000, b, sizeof b), "3.1 MiB") == 0);
    CHECK(strcmp(bench_fmt_bytes(1048576, b, sizeof b), "1 MiB") == 0);
    CHECK(strcmp(bench_fmt_bytes(1.5 * 1024 * 1024 * 1024, b, sizeof b), "1.5 GiB") == 0);
}

static void test_path_writable(void)
{
    char dir[] = "/tmp/hsmbench-cli-XXXXXX";
    char path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/out.json", dir);
    CHECK(bench_path_writable("--json", path) == 1);
    CHECK(bench_path_writable("--json", dir) == 0);                    /* a directory */
    CHECK(bench_path_writable("--json", "/nonexistent-dir/x.json") == 0);
    CHECK(bench_path_writable("--json", "") == 0);
    CHECK(rmdir(dir) == 0);
}

/* Parse argv with the strict wrapper; the codes it returned, -1 terminated. */
static int parse_codes(int argc, char **argv, int *codes, int max)
{
    static const struct option longopts[] = {
        { "timeout", required_argument, NULL, 't' }, { "threshold", required_argument, NULL, 'T' },
        { "output", required_argument, NULL, 'o' },  { "quiet", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 },
    };
    bench_getopt gs = { .cmd = "test" };
    gs.repeat[1] = 1;                    /* --threshold adds a value each time */
    int c, n = 0;
    opterr = 0;
    optind = 0;
    while ((c = bench_getopt_long(argc, argv, ":o:", longopts, &gs)) != -1 && n < max - 1)
        codes[n++] = c;
    codes[n] = c;
    return n;
}

static void test_strict_options(void)
{
    int codes[8];
    char a0[] = "x", a1[] = "--time", a2[] = "2";
    char *v1[] = { a0, a1, a2, NULL };
    parse_codes(3, v1, codes, 8);
    CHECK(codes[0] == BENCH_OPT_REFUSED);                       /* an abbreviation */
    char b1[] = "--timeout=1", b2[] = "--timeout", b3[] = "2";
    char *v2[] = { a0, b1, b2, b3, NULL };
    parse_codes(4, v2, codes, 8);
    CHECK(codes[0] == 't' && codes[1] == BENCH_OPT_REFUSED);    /* given twice */
    char c1[] = "--threshold", c2[] = "a", c3[] = "--threshold=b", c4[] = "--quiet", c5[] = "--quiet";
    char *v3[] = { a0, c1, c2, c3, c4, c5, NULL };
    parse_codes(6, v3, codes, 8);
    CHECK(codes[0] == 'T' && codes[1] == 'T' && codes[2] == 'q' && codes[3] == 'q' && codes[4] == -1);
    char d1[] = "-o", d2[] = "f", d3[] = "--output", d4[] = "g";
    char *v4[] = { a0, d1, d2, d3, d4, NULL };
    parse_codes(5, v4, codes, 8);
    CHECK(codes[0] == 'o' && codes[1] == BENCH_OPT_REFUSED);    /* -o and --output are one */
}

int main(void)
{
    RUN(test_u64);
    RUN(test_duration);
    RUN(test_format);
    RUN(test_path_writable);
    RUN(test_strict_options);
    return check_finish();
}

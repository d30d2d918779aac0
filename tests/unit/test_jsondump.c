/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_jsondump.c - bench/results/jsondump.h: each real written in
 * the fewest digits that read back to the same double (2854.91, not jansson's
 * 2854.9099999999999), still a real (1.0), and nothing else changed: strings
 * that look like numbers, integers, true and false, indentation.
 *
 * early: no check depends on the cores it gets (fixed inputs, no clock)
 */
#include "bench/results/jsondump.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "tests/unit/check.h"

static void test_shortest_text(void)
{
    static const struct {
        double      v;
        const char *want;
    } cases[] = {
        { 2854.91, "2854.91" }, { 0.1, "0.1" }, { 1.0, "1.0" }, { -0.0, "-0.0" }, { 100.0, "100.0" },
        { 1e-7, "1e-7" }, { 1.5e300, "1.5e300" }, { 123456789012.5, "123456789012.5" },
        { 0.30000000000000004, "0.30000000000000004" }, { 1e21, "1e21" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        size_t n = bench_json_real_text(cases[i].v, buf, sizeof buf);
        CHECK_MSG(strcmp(buf, cases[i].want) == 0 && n == strlen(buf), "%.17g: \"%s\", expected \"%s\"", cases[i].v,
                  buf, cases[i].want);
    }
}

/* Every double of a wide spread (and the edges) reads back exactly, and no
 * text is longer than %.17g's. */
static void test_round_trip(void)
{
    const double edges[] = { DBL_MIN, DBL_MAX, DBL_EPSILON, 5e-324, -DBL_MAX, 2854.9099999999999 };
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 200000 + 6; i++) {
        double v;
        if (i < 6) {
            v = edges[i];
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            memcpy(&v, &x, sizeof v);
            if (!isfinite(v))
                continue;
        }
        char buf[32], full[40];
        bench_json_real_text(v, buf, sizeof buf);
        snprintf(full, sizeof full, "%.17g", v);
        CHECK_MSG(strtod(buf, NULL) == v && signbit(strtod(buf, NULL)) == signbit(v), "%s reads back as %.17g, not %s",
                  buf, strtod(buf, NULL), full);
        CHECK_MSG(strlen(buf) <= strlen(full) + 2, "%s longer than %s", buf, full);
        CHECK_MSG(strpbrk(buf, ".e") != NULL, "%s is not a real", buf);
    }
}

static void test_documents(void)
{
    json_t *doc = json_pack("{s:f,s:f,s:I,s:s,s:b,s:b,s:n,s:[f,f,I],s:{s:f}}", "p90", 2854.91, "one", 1.0, "ops",
                            (json_int_t)1234567, "name", "2854.9099999999999 \"x\\\" e-5 true", "ok", 1, "no", 0,
                            "none", "list", 0.1, -3.25e-9, (json_int_t)-7, "in", "ms", 12.7);
    CHECK(doc != NULL);
    char *compact = bench_json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_MSG(compact && strcmp(compact, "{\"p90\":2854.91,\"one\":1.0,\"ops\":1234567,"
                                          "\"name\":\"2854.9099999999999 \\\"x\\\\\\\" e-5 true\","
                                          "\"ok\":true,\"no\":false,\"none\":null,"
                                          "\"list\":[0.1,-3.25e-9,-7],\"in\":{\"ms\":12.7}}") == 0,
              "%s", compact ? compact : "(null)");
    /* It reads back to the same document, equal to jansson's own text's. */
    json_t *back = compact ? json_loads(compact, 0, NULL) : NULL;
    CHECK(back && json_equal(back, doc));
    /* Indented as jansson indents; to a file the same text. */
    char *indented = bench_json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *theirs = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    CHECK(indented && theirs && strstr(theirs, "\"p90\": 2854.9099999999999,\n"));
    CHECK(indented && strstr(indented, "\"p90\": 2854.91,\n  \"one\": 1.0,\n"));
    FILE *f = tmpfile();
    CHECK(f && bench_json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0);
    if (f && indented) {
        char buf[1024] = "";
        rewind(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        CHECK(strcmp(buf, indented) == 0);
    }
    if (f)
        fclose(f);
    /* A full disk is an error, not a truncated file. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        CHECK(bench_json_dumpf(doc, full, JSON_INDENT(2)) != 0);
        fclose(full);
    }
    free(theirs);
    free(indented);
    json_decref(back);
    free(compact);
    json_decref(doc);
}

int main(void)
{
    RUN(test_shortest_text);
    RUN(test_round_trip);
    RUN(test_documents);
    return check_finish();
}

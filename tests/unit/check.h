/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/check.h - the smallest test harness that does the job.
 *
 * Each test binary runs its cases with RUN(fn); every case prints one line
 * "PASS name", "FAIL name: why", or "SKIP name: why" when it called
 * SKIP(...) because this machine lacks what it needs (a pseudo-terminal,
 * say): a skipped case checked nothing, so it never prints PASS.  main
 * returns check_finish(), which is non-zero when anything failed (a skip
 * alone is not a failure here).  tests/run.sh counts the lines, skips apart;
 * under CI (CI=true) a skip fails the run.  A case that cannot apply to a
 * build at all (glibc's allocator under a sanitizer) is not RUN there.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_cases;
static int check_current_failed;
static int check_current_skipped;

#define CHECK(cond) do { \
        if (!(cond)) { \
            if (!check_current_failed) \
                printf("FAIL %s: %s:%d: %s\n", check_case_name, __FILE__, __LINE__, #cond); \
            check_current_failed = 1; \
        } \
    } while (0)

#define CHECK_MSG(cond, ...) do { \
        if (!(cond)) { \
            if (!check_current_failed) { \
                printf("FAIL %s: %s:%d: ", check_case_name, __FILE__, __LINE__); \
                printf(__VA_ARGS__); \
                printf("\n"); \
            } \
            check_current_failed = 1; \
        } \
    } while (0)

/* SKIP(why...): the case cannot run here; say why (printf arguments), and
 * return from the case (a void function).  A case that already failed
 * stays failed. */
#define SKIP(...) do { \
        if (!check_current_failed) { \
            printf("SKIP %s: ", check_case_name); \
            printf(__VA_ARGS__); \
            printf("\n"); \
            check_current_skipped = 1; \
        } \
        return; \
    } while (0)

static const char *check_case_name = "";

#define RUN(fn) do { \
        check_case_name = #fn; \
        check_current_failed = 0; \
        check_current_skipped = 0; \
        fn(); \
        if (check_current_failed) check_failed_cases++; \
        else if (!check_current_skipped) printf("PASS %s\n", #fn); \
        fflush(stdout); \
    } while (0)

static inline int check_finish(void) { return check_failed_cases ? 1 : 0; }

#endif

/*
 * tests/unit/check.h - the smallest test harness that does the job.
 *
 * Each test binary runs its cases with RUN(fn); every case prints one line
 * "PASS name" or "FAIL name: why", and main returns check_finish(), which
 * is non-zero when anything failed.  tests/run.sh counts the lines.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_cases;
static int check_current_failed;

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

static const char *check_case_name = "";

#define RUN(fn) do { \
        check_case_name = #fn; \
        check_current_failed = 0; \
        fn(); \
        if (check_current_failed) check_failed_cases++; \
        else printf("PASS %s\n", #fn); \
        fflush(stdout); \
    } while (0)

static inline int check_finish(void) { return check_failed_cases ? 1 : 0; }

#endif

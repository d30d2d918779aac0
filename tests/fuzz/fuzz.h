/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz.h - what the libFuzzer harnesses share: a NUL-terminated
 * copy of the input, and a sink for reports nobody reads.
 */
#ifndef TESTS_FUZZ_H
#define TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (malloc'd; NULL only when out of memory). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = 0;
    }
    return s;
}

/* Where reports go: opened once, never read. */
static inline FILE *fuzz_sink(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

#endif

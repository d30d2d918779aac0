/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/codes.h - a module's return values as the core counts them, whole.
 *
 * A CK_RV is an unsigned long, 64 bits on LP64, and a module may return
 * any of them (Caml Crush answers (CK_RV)-1).  The core keeps its own
 * classes (VERIFY_MISMATCH, ...) at BENCH_CODE_CORE, 2^48, and up
 * (bench/core/workload.h), so a value that wide cannot stand for itself
 * in a bench_code: it is written in its module's book, and counted as
 * BENCH_CODE_WORKLOAD + its place there, which the book turns back into
 * the value when the code is named or acted on.  Every value below 2^48
 * (every value a standard or vendor code of 32 bits can be) is its own code.
 */
#ifndef P11_CODES_H
#define P11_CODES_H

#include <stdatomic.h>
#include <stdint.h>
#include <p11-kit/pkcs11.h>

#include "bench/core/workload.h"

/* Distinct wide values a module's book keeps; more are counted as OTHER
 * (the error tables keep 32 distinct codes a worker anyway). */
#define P11_WIDE_CODES 64

/* Zeroed: empty.  Written by any worker at once (no lock: a compare and
 * swap into the first empty place); 0 marks an empty place, as CKR_OK is
 * never wide. */
typedef struct p11_codes {
    _Atomic uint64_t rv[P11_WIDE_CODES];
} p11_codes;

/* The bench_code of a module's return value: the value itself below 2^48,
 * else its stand-in in `book` (BENCH_CODE_OTHER when the book is full or
 * NULL). */
bench_code p11_code_of(p11_codes *book, CK_RV rv);

/* The module's return value a code stands for: 1 with *rv set, or 0 for a
 * class of the core's own (VERIFY_MISMATCH, OTHER, ...). */
int p11_code_rv(const p11_codes *book, bench_code code, CK_RV *rv);

#endif

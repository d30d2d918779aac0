/* SPDX-License-Identifier: Apache-2.0 */
/* p11/codes.c - a module's return values kept whole in a bench_code (p11/codes.h). */
#include "p11/codes.h"

bench_code p11_code_of(p11_codes *book, CK_RV rv)
{
    const uint64_t v = (uint64_t)rv;
    if (v < BENCH_CODE_CORE)
        return v;
    if (!book)
        return BENCH_CODE_OTHER;
    for (unsigned i = 0; i < P11_WIDE_CODES; i++) {
        uint64_t seen = atomic_load_explicit(&book->rv[i], memory_order_acquire);
        /* An empty place is taken here, unless another worker took it first
         * (then seen is what it wrote, maybe this very value). */
        if (seen == 0 && atomic_compare_exchange_strong_explicit(
                             &book->rv[i], &seen, v, memory_order_acq_rel, memory_order_acquire))
            return BENCH_CODE_WORKLOAD + i;
        if (seen == v)
            return BENCH_CODE_WORKLOAD + i;
    }
    return BENCH_CODE_OTHER;
}

int p11_code_rv(const p11_codes *book, bench_code code, CK_RV *rv)
{
    if (code < BENCH_CODE_CORE) {
        *rv = (CK_RV)code;
        return 1;
    }
    if (!book || code < BENCH_CODE_WORKLOAD || code - BENCH_CODE_WORKLOAD >= P11_WIDE_CODES)
        return 0;
    const uint64_t v = atomic_load_explicit(&book->rv[code - BENCH_CODE_WORKLOAD],
                                            memory_order_acquire);
    if (v == 0)
        return 0;
    *rv = (CK_RV)v;
    return 1;
}

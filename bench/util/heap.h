/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/heap.h - the process's heap while it measures. */
#ifndef BENCH_HEAP_H
#define BENCH_HEAP_H

#include <stddef.h>

/* Freed memory the allocator keeps rather than give back (bytes). */
#define BENCH_HEAP_KEEP_BYTES ((size_t)64 << 20)

/*
 * Keep freed memory in the process instead of giving it back to the kernel
 * at every free, so that what is measured pays no page faults for memory
 * it had already touched.  Call it first in main(), before any thread.
 * Returns 1 when the allocator took the setting, 0 when it has none or
 * ignores it (a sanitizer's allocator): nothing but that speed is lost.
 */
int bench_heap_keep_freed(void);

#endif

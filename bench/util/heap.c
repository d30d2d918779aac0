/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/util/heap.c - keep freed memory in the process.
 *
 * Why: libcurl 7.88 frees a transfer's 16 KiB receive buffer when the
 * transfer ends and allocates it again for the next one.  With glibc's
 * default trim threshold (128 KiB), a thread's heap gave its freed top
 * back to the kernel whenever enough transfers ended together, and the
 * next ones faulted the pages in again, in malloc and in recv() into the
 * new buffer.  A non-blocking REST run at 64 connections against nginx
 * took 15 to 18 thousand page faults in 3 s (the minimal libcurl loop,
 * whose heap happened not to trim: 900), and a fifth more CPU time per
 * request.  Any workload that allocates and frees per operation (a PKCS#11
 * module among them) could meet the same; the timing core's own memory is
 * allocated before the run.
 */
#include "bench/util/heap.h"

#include <malloc.h>

int bench_heap_keep_freed(void)
{
#if defined(M_TRIM_THRESHOLD)
    /* Also fixes the threshold: glibc no longer moves it on its own. */
    return mallopt(M_TRIM_THRESHOLD, (int)BENCH_HEAP_KEEP_BYTES) == 1;
#else
    return 0;
#endif
}

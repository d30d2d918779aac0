/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_heap.c - bench_heap_keep_freed: memory freed and used
 * again on a thread costs no page fault (the REST client's finding: libcurl
 * frees and allocates a 16 KiB buffer per transfer, and glibc's default
 * trim gave a thread heap's top back to the kernel each time). */
/* early: no check depends on the cores it gets (page faults counted, no clock) */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/util/heap.h"
#include "tests/unit/check.h"

/* A sanitizer's allocator is not glibc's: it may take the setting and
 * still never trim, so there is nothing to compare. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OTHER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OTHER_ALLOCATOR 1
#endif
#endif

#define BLOCKS 32
#define BLOCK  (16u << 10)   /* libcurl 7.88's receive buffer, about */
#define ROUNDS 200

/* Minor page faults of the calling thread. */
static long thread_faults(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return ru.ru_minflt;
}

/* Transfers ending together, in a thread's own heap: BLOCKS buffers
 * allocated and written, then all freed, ROUNDS times.  The faults after
 * the first round (which may grow the heap) go to *arg. */
static void *churn(void *arg)
{
    long *faults = arg, first = 0;
    for (int r = 0; r < ROUNDS; r++) {
        char *b[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            if ((b[i] = malloc(BLOCK)) == NULL) {
                *faults = -1;
                return NULL;
            }
            memset(b[i], r, BLOCK);
        }
        for (int i = BLOCKS - 1; i >= 0; i--)
            free(b[i]);
        if (r == 0)
            first = thread_faults();
    }
    *faults = first < 0 ? -1 : thread_faults() - first;
    return NULL;
}

static long churn_faults(void)
{
    long faults = -1;
    pthread_t t;
    if (pthread_create(&t, NULL, churn, &faults) != 0 || pthread_join(t, NULL) != 0)
        return -1;
    return faults;
}

static void test_freed_memory_is_kept(void)
{
#if defined(M_TRIM_THRESHOLD)
    /* glibc's default first: the pattern does fault, so this test can
     * see the difference. */
    if (mallopt(M_TRIM_THRESHOLD, 128 * 1024) != 1 || !bench_heap_keep_freed())
        SKIP("the allocator ignores M_TRIM_THRESHOLD: nothing to compare");
    CHECK(mallopt(M_TRIM_THRESHOLD, 128 * 1024) == 1);
    const long trimmed = churn_faults();
    CHECK(bench_heap_keep_freed() == 1);
    const long kept = churn_faults();
    CHECK_MSG(trimmed >= 0 && kept >= 0, "getrusage or a thread failed");
    /* ROUNDS x 512 KiB given back and faulted in again, against none. */
    CHECK_MSG(trimmed > 10 * ROUNDS, "the default trim faulted %ld times only", trimmed);
    CHECK_MSG(kept <= 16, "%ld page faults for memory already used (default: %ld)", kept, trimmed);
#else
    CHECK(bench_heap_keep_freed() == 0);
#endif
}

int main(void)
{
#if defined(OTHER_ALLOCATOR)
    /* Not a skip: the case does not apply to a sanitizer's allocator, and
     * the plain build runs it. */
    (void)test_freed_memory_is_kept;
#else
    RUN(test_freed_memory_is_kept);
#endif
    return check_finish();
}

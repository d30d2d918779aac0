/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/fuzz/fuzz_trace.c - hsmbench trace's reader (p11/trace.c) on
 * recordings a damaged disk, a killed writer or an attacker could leave: a
 * valid header (so the input reaches the chunks and records), then up to
 * three chunks whose headers and first records are the input's bytes.
 * Read through a memfd, as the command reads a file.
 */
#include "tests/fuzz/fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "p11/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const size_t nchunks = 1 + data[0] % 3;
    const size_t len = HSMBENCH_TRACE_HEADER_SIZE + nchunks * HSMBENCH_TRACE_CHUNK_SIZE;
    unsigned char *file = calloc(1, len);
    if (!file)
        return 0;
    hsmbench_trace_header *h = (hsmbench_trace_header *)file;
    memcpy(h->magic, HSMBENCH_TRACE_MAGIC, 8);
    h->version = HSMBENCH_TRACE_VERSION;
    h->byte_order = HSMBENCH_TRACE_BYTE_ORDER;
    h->header_size = HSMBENCH_TRACE_HEADER_SIZE;
    h->chunk_size = HSMBENCH_TRACE_CHUNK_SIZE;
    h->record_size = sizeof(hsmbench_trace_record);
    h->chunk_header_size = sizeof(hsmbench_trace_chunk);
    snprintf(h->module, sizeof h->module, "fuzz");
    /* the input spread over the chunks' starts: headers and first records */
    const size_t per = (size - 1 + nchunks - 1) / nchunks;
    for (size_t k = 0, at = 1; k < nchunks && at < size; k++) {
        size_t n = size - at < per ? size - at : per;
        if (n > HSMBENCH_TRACE_CHUNK_SIZE)
            n = HSMBENCH_TRACE_CHUNK_SIZE;
        memcpy(file + HSMBENCH_TRACE_HEADER_SIZE + k * HSMBENCH_TRACE_CHUNK_SIZE, data + at, n);
        at += n;
    }
    int fd = memfd_create("fuzz-trace", 0);
    if (fd >= 0 && write(fd, file, len) == (ssize_t)len) {
        char path[64], err[512];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        p11_trace t;
        if (p11_trace_read(path, &t, err, sizeof err) == 0) {
            /* what a view reads: every group's figures are coherent */
            for (size_t i = 0; i < t.ngroups; i++) {
                const p11_trace_group *g = &t.groups[i];
                uint64_t ops = 0, errors = 0;
                for (size_t s = 0; s < g->nslots; s++) {
                    ops += g->slots[s].ops;
                    errors += g->slots[s].errors;
                }
                if (ops != g->ops || errors != g->errors || bench_hist_count(g->time) != g->ops)
                    __builtin_trap();
            }
            p11_trace_free(&t);
        }
    }
    if (fd >= 0)
        close(fd);
    free(file);
    return 0;
}

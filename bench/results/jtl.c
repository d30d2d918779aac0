/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/jtl.c - per-request results in JMeter's CSV (jtl.h). */
#include "bench/results/jtl.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/outfile.h"

/* A worker's buffer, alone on its cache lines. */
typedef struct jtl_buf {
    char  *data;
    size_t len;
} __attribute__((aligned(64))) jtl_buf;

struct bench_jtl {
    FILE              *f;
    int                fd;
    char               path[512];
    char               flag[32];
    const char        *label;
    int64_t            epoch_off_ns;   /* CLOCK_REALTIME - bench_now_ns() at the run's start */
    jtl_buf           *bufs;
    unsigned           nbufs;
    bench_request_sink sink;
    pthread_mutex_t    mu;             /* one write to the file at a time */
    _Atomic int        failed_errno;   /* the first failed write's errno (0: none) */
    int                said;
};

/* ---- one line ---- */

typedef struct out {
    char  *p;
    size_t left;
    int    full;
} out;

static void put_bytes(out *o, const char *s, size_t n)
{
    if (o->full || n >= o->left) {
        o->full = 1;
        return;
    }
    memcpy(o->p, s, n);
    o->p += n;
    o->left -= n;
}

static void put_str(out *o, const char *s)
{
    put_bytes(o, s, strlen(s));
}

/* A number's digits (not snprintf's: a line has nine, on every request). */
static void put_u64(out *o, uint64_t v)
{
    char t[20];
    size_t i = sizeof t;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_bytes(o, t + i, sizeof t - i);
}

/* A field as JMeter's CSVSaveService.quoteDelimiters writes it: in quotes,
 * its quotes doubled, when it holds the delimiter, a quote or a line break;
 * as it is otherwise. */
static void put_field(out *o, const char *s)
{
    if (!s)
        return;
    if (!s[strcspn(s, ",\"\r\n")]) {
        put_str(o, s);
        return;
    }
    put_bytes(o, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        put_bytes(o, s, (size_t)(q - s) + 1);
        put_bytes(o, "\"", 1);
    }
    put_str(o, s);
    put_bytes(o, "\"", 1);
}

/* Nanoseconds to JMeter's whole milliseconds, rounded. */
static uint64_t ms_of(uint64_t ns)
{
    return (ns + 500000u) / 1000000u;
}

size_t bench_jtl_line(char *buf, size_t cap, const char *label, uint64_t epoch_ms, const bench_request *r)
{
    out o = { buf, cap, 0 };
    const int ok = r->code == BENCH_OK;
    char name[BENCH_REQ_TEXT] = "OK";
    if (!ok && !r->code_text[0])
        bench_code_name(r->workload, r->code, name, sizeof name);
    const char *code = r->code_text[0] ? r->code_text : name;
    const uint64_t first = r->first_byte_ns && r->first_byte_ns < r->elapsed_ns ? r->first_byte_ns : r->elapsed_ns;
    const uint64_t connect = r->connect_ns < first ? r->connect_ns : first;

    put_u64(&o, epoch_ms);
    put_bytes(&o, ",", 1);
    put_u64(&o, ms_of(r->elapsed_ns));
    put_bytes(&o, ",", 1);
    put_field(&o, r->label ? r->label : label);
    put_bytes(&o, ",", 1);
    put_field(&o, code);
    put_bytes(&o, ",", 1);
    put_field(&o, r->message ? r->message : ok ? "OK" : code);
    /* JMeter's "Thread Group 1-3": the group, then the thread */
    put_str(&o, ",hsmbench 1-");
    put_u64(&o, r->thread);
    put_str(&o, r->url ? ",text," : ",bin,");
    put_str(&o, ok ? "true," : "false,");
    if (!ok)
        put_field(&o, r->failure ? r->failure : code);
    put_bytes(&o, ",", 1);
    put_u64(&o, r->bytes_in);
    put_bytes(&o, ",", 1);
    put_u64(&o, r->bytes_out);
    put_bytes(&o, ",", 1);
    put_u64(&o, r->active);
    put_bytes(&o, ",", 1);
    put_u64(&o, r->active);
    put_bytes(&o, ",", 1);
    put_field(&o, r->url);
    put_bytes(&o, ",", 1);
    put_u64(&o, ms_of(first));
    put_str(&o, ",0,");
    put_u64(&o, ms_of(connect));
    put_bytes(&o, "\n", 1);
    if (o.full)
        return 0;
    *o.p = 0;   /* put_bytes always leaves a byte */
    return cap - o.left;
}

/* ---- the file ---- */

static void fail_once(bench_jtl *j, int err)
{
    int none = 0;
    atomic_compare_exchange_strong(&j->failed_errno, &none, err ? err : EIO);
}

/* Write a buffer's whole lines to the file; empties it either way. */
static void drain(bench_jtl *j, jtl_buf *b)
{
    if (b->len && !atomic_load_explicit(&j->failed_errno, memory_order_relaxed)) {
        pthread_mutex_lock(&j->mu);
        for (size_t off = 0; off < b->len;) {
            const ssize_t n = write(j->fd, b->data + off, b->len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                fail_once(j, n < 0 ? errno : EIO);
                break;
            }
            off += (size_t)n;
        }
        pthread_mutex_unlock(&j->mu);
    }
    b->len = 0;
}

/* The sink: called by worker r->worker only, for its own buffer. */
static void jtl_put(void *arg, const bench_request *r)
{
    bench_jtl *j = arg;
    if (r->worker >= j->nbufs || atomic_load_explicit(&j->failed_errno, memory_order_relaxed))
        return;
    jtl_buf *b = &j->bufs[r->worker];
    const int64_t at = (int64_t)r->start_ns + j->epoch_off_ns;
    const uint64_t ms = at > 0 ? (uint64_t)at / 1000000u : 0;
    size_t n = bench_jtl_line(b->data + b->len, BENCH_JTL_BUF - b->len, j->label, ms, r);
    if (!n) {
        drain(j, b);
        n = bench_jtl_line(b->data, BENCH_JTL_BUF, j->label, ms, r);
        if (!n) {
            fail_once(j, EMSGSIZE);   /* a line longer than the buffer: never with the workloads here */
            return;
        }
    }
    b->len += n;
}

bench_jtl *bench_jtl_open(const char *flag, const char *path)
{
    bench_jtl *j = calloc(1, sizeof *j);
    if (!j) {
        bench_error("%s%s: out of memory", flag, path);
        return NULL;
    }
    snprintf(j->path, sizeof j->path, "%s", path);
    snprintf(j->flag, sizeof j->flag, "%s", flag);
    atomic_init(&j->failed_errno, 0);
    j->sink = (bench_request_sink){ jtl_put, j };
    if (pthread_mutex_init(&j->mu, NULL) != 0) {
        bench_error("%s%s: cannot make a lock", flag, path);
        free(j);
        return NULL;
    }
    if (!(j->f = bench_out_open_stream(flag, path))) {
        pthread_mutex_destroy(&j->mu);
        free(j);
        return NULL;
    }
    j->fd = fileno(j->f);
    jtl_buf head = { (char *)BENCH_JTL_HEADER, sizeof BENCH_JTL_HEADER - 1 };
    drain(j, &head);
    return j;
}

/* -1 and the failure said, once, when a write has failed; else 0. */
static int failed(bench_jtl *j)
{
    const int err = atomic_load(&j->failed_errno);
    if (!err)
        return 0;
    if (!j->said)
        bench_error("%s%s: cannot write: %s", j->flag, j->path, strerror(err));
    j->said = 1;
    return -1;
}

const bench_request_sink *bench_jtl_begin(bench_jtl *j, const char *label, unsigned workers)
{
    if (failed(j))
        return NULL;
    if (workers > j->nbufs) {
        jtl_buf *nb = aligned_alloc(64, sizeof *nb * workers);
        if (!nb) {
            bench_error("%s%s: out of memory", j->flag, j->path);
            return NULL;
        }
        memset(nb, 0, sizeof *nb * workers);
        for (unsigned i = 0; i < j->nbufs; i++)
            nb[i].data = j->bufs[i].data;
        free(j->bufs);
        j->bufs = nb;
        j->nbufs = workers;
    }
    for (unsigned i = 0; i < workers; i++) {
        if (!j->bufs[i].data && !(j->bufs[i].data = malloc(BENCH_JTL_BUF))) {
            bench_error("%s%s: out of memory", j->flag, j->path);
            return NULL;
        }
        j->bufs[i].len = 0;
    }
    j->label = label;
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    j->epoch_off_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)bench_now_ns();
    return &j->sink;
}

int bench_jtl_end(bench_jtl *j)
{
    for (unsigned i = 0; i < j->nbufs; i++)
        drain(j, &j->bufs[i]);
    return failed(j);
}

void bench_jtl_close(bench_jtl *j)
{
    if (!j)
        return;
    for (unsigned i = 0; i < j->nbufs; i++)
        free(j->bufs[i].data);
    free(j->bufs);
    if (j->f)
        fclose(j->f);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/metrics.c - live metrics for Prometheus (text exposition format 0.0.4). */
#include "bench/results/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/procstat.h"
#include "bench/util/url.h"
#include "bench/core/hist.h"
#include "bench/results/push.h"

#define MAX_LINGER_NS (3600ULL * 1000000000ULL)

/*
 * The listener cannot be locked out by clients that connect and send a
 * byte now and then (libmicrohttpd's own timeout starts again at every
 * byte): each connection must bring a whole request within REQUEST_NS of
 * its accept or of its last answer, whatever it sends meanwhile, or it is
 * dropped; and CONN_KEEP connections at most wait for one: a new one past
 * that drops the oldest of them, so a scrape always gets in.  MHD's own
 * limit (CONN_HARD) leaves room for those being closed.
 */
#define CONN_KEEP  64
#define CONN_HARD  (CONN_KEEP + 32)
#define REQUEST_NS (5ULL * BENCH_NS_PER_S)
#define SWEEP_NS   (BENCH_NS_PER_S / 10)

typedef struct mconn {
    int      used, busy, dropped;   /* busy: a request read, its answer not yet sent */
    int      fd;
    uint64_t since_ns;              /* accept, or the last answer sent */
} mconn;

/*
 * The histogram's le boundaries follow hsmbench's own HDR histogram
 * (bench/core/hist.h): geometric, each moved to the top of the HDR slot it
 * falls in, so that every slot lands whole in one bucket and the folding
 * is exact; values above the last go to +Inf.
 *
 * By default 25 boundaries, 4 a decade (a ratio of 10^(1/4), 1.78) from
 * 10 us to 10 s: a scrape of a test is about 40 lines, not 430, and a fleet
 * of 100 generators x 10 tests stores 28 k latency series, not 417 k.  A
 * histogram_quantile() (linear within a bucket) is then off by at most a
 * bucket's width (-44 % .. +78 %) on a distribution narrower than a
 * bucket, and by a few per cent on the wide ones real devices show: the
 * figures, measured by tests/unit/test_metrics_quantile.c, are in
 * docs/multi-host.md.  --metrics-buckets fine: 16 a power of two (a ratio
 * of 2^(1/16), 4.4 %) from 1 us to 60 s (BENCH_METRICS_LE_*); between two
 * boundaries lies at most 4.4 % + one slot (0.1 %) of the lower one, so a
 * histogram_quantile() is within 4.6 % of the exact quantile.  Native
 * histograms would make both unnecessary, but Debian 12's Prometheus (2.42)
 * takes them only over protobuf behind a feature flag, and its Pushgateway
 * (1.5) not at all.
 */
#define LE_PER_OCTAVE 16
#define LE_MAX 448   /* log2(60 s / 1 us) * 16 = 413, and room */

enum { PH_WARMUP, PH_MEASURED, PH_DONE, PH_COUNT };
static const char *const phase_name[PH_COUNT] = { "warmup", "measured", "done" };

/* A latency distribution at the le boundaries (bucket le.n: above the last). */
typedef struct buckets {
    uint64_t n[LE_MAX + 1];
    double   sum_s;
} buckets;

/* The boundaries, ns and as printed (seconds). */
typedef struct le_table {
    uint64_t ns[LE_MAX];
    char     text[LE_MAX][24];
    size_t   n;
} le_table;

/* One series of a run: a test at a thread count in a mode (a --threads
 * sweep is one series a thread count). */
typedef struct mtest {
    char     name[64];
    unsigned nthreads;
    char     mode[16];
    int      phase;
    uint64_t ops_done, ops_live;    /* successes: finished runs of this test; the current one so far */
    uint64_t attempts_done, attempts_live;   /* the same, errors included */
    buckets  lat_done, lat_live;
    double   threads, in_flight, target;
    int      has_target;
    uint64_t scheduled_done, unstarted_done;   /* a schedule's requests and those that never
                                                  started, of its finished runs */
    double   client_cpu;                       /* CPUs busy: the last second's, then the
                                                  run's (-1: not known) */
} mtest;

typedef struct merr {
    size_t   test;
    char     code[BENCH_MODEL_NAME_MAX];
    uint64_t done, live;
} merr;

typedef struct mserved {
    char     route[64];
    unsigned status;
    char     kind[16];    /* a fault's (bench_metrics_fault); "" for an answer */
    uint64_t count;
} mserved;

struct bench_metrics {
    pthread_mutex_t     mu;
    struct MHD_Daemon  *d;
    /* the connections (cmu; MHD's thread and the sweeper) */
    pthread_mutex_t     cmu;
    mconn               conns[CONN_HARD];
    pthread_t           sweeper;
    atomic_int          stop;
    uint64_t            linger_ns;
    le_table            le;
    /* --metrics-push: the pusher thread every BENCH_METRICS_PUSH_EVERY_NS,
     * and once more at the end (pmu: one push at a time) */
    bench_push         *push;
    pthread_t           pusher;
    int                 pushing;
    atomic_int          push_stop;
    pthread_mutex_t     pmu;
    unsigned            push_failures;
    /* labels of every series: who measures (run, generator) and what */
    char                run_id[64], generator[32];
    char                target_kind[BENCH_TARGET_KIND_MAX], target_id[BENCH_TARGET_TEXT_MAX];
    mtest              *tests;
    size_t              ntests, cap_tests;
    merr               *errs;
    size_t              nerrs, cap_errs;
    mserved            *served;
    size_t              nserved, cap_served;
    /* the current run: the sampler's thread only */
    size_t              cur;
    int                 running;
    const bench_workload *w;
    const bench_load   *load;
    uint64_t            cpu_prev_ns, wall_prev_ns;   /* the client CPU's last reading */
};

/* ---- options ------------------------------------------------------------ */

void bench_metrics_opts_init(bench_metrics_opts *o)
{
    o->listen = NULL;
    o->linger_ns = BENCH_METRICS_LINGER_DEFAULT_NS;
    o->fine = 0;
    o->push = NULL;
}

int bench_metrics_opt(bench_metrics_opts *o, int code, char *arg)
{
    switch (code) {
    case BENCH_OPT_METRICS_LISTEN:
        o->listen = arg;
        return 1;
    case BENCH_OPT_METRICS_BUCKETS:
        if (strcmp(arg, "coarse") == 0 || strcmp(arg, "fine") == 0) {
            o->fine = arg[0] == 'f';
            return 1;
        }
        bench_error("--metrics-buckets %s: expected coarse (25 buckets, the default) or fine (416)", arg);
        return -1;
    case BENCH_OPT_METRICS_PUSH:
        /* credentials and query masked in argv; the URL is checked at the start */
        return (o->push = bench_url_take(arg)) != NULL ? 1 : -1;
    case BENCH_OPT_METRICS_LINGER:
        return bench_parse_duration("--metrics-linger", arg, 0, MAX_LINGER_NS, &o->linger_ns) == 0
                   ? 1 : -1;
    default:
        return 0;
    }
}

/* "9464", "127.0.0.1:9464", "[::1]:9464": a numeric address, loopback by default. */
static int parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    char buf[128];
    const char *host = BENCH_METRICS_DEFAULT_HOST, *port = buf;
    if (strlen(text) >= sizeof buf || !*text)
        return -1;
    strcpy(buf, text);
    int v6 = 0;
    if (buf[0] == '[') {
        char *close = strchr(buf, ']');
        if (!close || close[1] != ':')
            return -1;
        *close = 0;
        host = buf + 1;
        port = close + 2;
        v6 = 1;
    } else {
        char *colon = strrchr(buf, ':');
        if (colon) {
            *colon = 0;
            host = buf;
            port = colon + 1;
        }
    }
    char *end;
    errno = 0;
    unsigned long pv = strtoul(port, &end, 10);
    if (!*port || *end || errno || pv > 65535)
        return -1;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = v6 ? AF_INET6 : AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    if (getaddrinfo(host, port, &hints, &res) != 0 || !res || res->ai_addrlen > sizeof *ss) {
        if (res)
            freeaddrinfo(res);
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* ---- the exposition text ------------------------------------------------ */

typedef struct sbuf {
    char  *p;
    size_t len, cap;
    int    oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = b->oom ? -1 : vsnprintf(b->p ? b->p + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = (b->cap + (size_t)n + 1) * 2;
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
}

/* A label value: backslash, double quote and newline escaped. */
static const char *esc(const char *in, char *out, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; in[i] && j + 3 < len; i++) {
        char c = in[i];
        if (c == '\\' || c == '"' || c == '\n') {
            out[j++] = '\\';
            c = c == '\n' ? 'n' : c;
        }
        out[j++] = c;
    }
    out[j] = 0;
    return out;
}

static void family(sbuf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A code as a label value: the provider's name with spaces as underscores
 * ("HTTP 503" -> HTTP_503, beside CKR_DEVICE_ERROR and CURLE_...). */
static const char *code_label(const char *name, char *out, size_t len)
{
    char tmp[BENCH_MODEL_NAME_MAX];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof tmp; i++)
        tmp[i] = name[i] == ' ' ? '_' : name[i];
    tmp[i] = 0;
    return esc(tmp, out, len);
}

/* The labels of series i: the fleet's (run, generator, target) and the
 * run's (test, threads, mode), in that order, without braces. */
static const char *labels(const bench_metrics *m, size_t i, char *out, size_t len)
{
    char r[160], g[96], k[64], id[BENCH_TARGET_TEXT_MAX * 2], t[160], mo[48];
    const mtest *x = &m->tests[i];
    snprintf(out, len,
             "run_id=\"%s\",generator=\"%s\",target_kind=\"%s\",target_id=\"%s\",test=\"%s\","
             "threads=\"%u\",mode=\"%s\"",
             esc(m->run_id, r, sizeof r), esc(m->generator, g, sizeof g), esc(m->target_kind, k, sizeof k),
             esc(m->target_id, id, sizeof id), esc(x->name, t, sizeof t), x->nthreads,
             esc(x->mode, mo, sizeof mo));
    return out;
}

static void render_tests(sbuf *b, const bench_metrics *m)
{
    char l[2048], c[200];
    family(b, "hsmbench_operations_total", "counter",
           "Measured operations that succeeded (the results file's ops; warm-up excluded).");
    for (size_t i = 0; i < m->ntests; i++)
        put(b, "hsmbench_operations_total{%s} %llu\n", labels(m, i, l, sizeof l),
            (unsigned long long)(m->tests[i].ops_done + m->tests[i].ops_live));
    family(b, "hsmbench_attempts_total", "counter",
           "Measured operations attempted, errors included (the results file's attempts).");
    for (size_t i = 0; i < m->ntests; i++)
        put(b, "hsmbench_attempts_total{%s} %llu\n", labels(m, i, l, sizeof l),
            (unsigned long long)(m->tests[i].attempts_done + m->tests[i].attempts_live));
    family(b, "hsmbench_errors_total", "counter",
           "Measured operations that failed, by the provider's code (HTTP_503, CKR_DEVICE_ERROR).");
    for (size_t i = 0; i < m->nerrs; i++) {
        const merr *e = &m->errs[i];
        put(b, "hsmbench_errors_total{%s,code=\"%s\"} %llu\n", labels(m, e->test, l, sizeof l),
            code_label(e->code, c, sizeof c), (unsigned long long)(e->done + e->live));
    }
    family(b, "hsmbench_latency_seconds", "histogram",
           /* one help for both bucket sets: a Pushgateway refuses a family
            * whose help differs between two groups */
           "Latency of successful measured operations (hsmbench's HDR histogram; "
           "buckets: --metrics-buckets).");
    for (size_t i = 0; i < m->ntests; i++) {
        const mtest *x = &m->tests[i];
        uint64_t cum = 0;
        labels(m, i, l, sizeof l);
        for (size_t k = 0; k <= m->le.n; k++) {
            cum += x->lat_done.n[k] + x->lat_live.n[k];
            put(b, "hsmbench_latency_seconds_bucket{%s,le=\"%s\"} %llu\n", l,
                k < m->le.n ? m->le.text[k] : "+Inf", (unsigned long long)cum);
        }
        put(b, "hsmbench_latency_seconds_sum{%s} %.9g\n", l, x->lat_done.sum_s + x->lat_live.sum_s);
        put(b, "hsmbench_latency_seconds_count{%s} %llu\n", l, (unsigned long long)cum);
    }
    family(b, "hsmbench_threads", "gauge", "Worker threads running the test now (0 once it ended).");
    for (size_t i = 0; i < m->ntests; i++)
        put(b, "hsmbench_threads{%s} %.9g\n", labels(m, i, l, sizeof l), m->tests[i].threads);
    family(b, "hsmbench_in_flight", "gauge",
           "Operations started and not completed at the last second (0 once the test ended).");
    for (size_t i = 0; i < m->ntests; i++)
        put(b, "hsmbench_in_flight{%s} %.9g\n", labels(m, i, l, sizeof l), m->tests[i].in_flight);
    family(b, "hsmbench_target_operations_per_second", "gauge",
           "Non-blocking runs: the rate the schedule asks for now (0 once the test ended).");
    for (size_t i = 0; i < m->ntests; i++)
        if (m->tests[i].has_target)
            put(b, "hsmbench_target_operations_per_second{%s} %.9g\n", labels(m, i, l, sizeof l),
                m->tests[i].target);
    family(b, "hsmbench_scheduled_requests_total", "counter",
           "Non-blocking runs with a schedule: requests due in the measured run (schedule.scheduled), "
           "counted as each run ends.");
    for (size_t i = 0; i < m->ntests; i++)
        if (m->tests[i].has_target)
            put(b, "hsmbench_scheduled_requests_total{%s} %llu\n", labels(m, i, l, sizeof l),
                (unsigned long long)m->tests[i].scheduled_done);
    family(b, "hsmbench_unstarted_requests_total", "counter",
           "Non-blocking runs with a schedule: requests due that never started (schedule.dropped), "
           "counted as each run ends.");
    for (size_t i = 0; i < m->ntests; i++)
        if (m->tests[i].has_target)
            put(b, "hsmbench_unstarted_requests_total{%s} %llu\n", labels(m, i, l, sizeof l),
                (unsigned long long)m->tests[i].unstarted_done);
    family(b, "hsmbench_client_cpu", "gauge",
           "CPUs hsmbench keeps busy: over the last second while the test runs, the results file's "
           "client_cpu once it ended.");
    for (size_t i = 0; i < m->ntests; i++)
        if (m->tests[i].client_cpu >= 0)
            put(b, "hsmbench_client_cpu{%s} %.4g\n", labels(m, i, l, sizeof l), m->tests[i].client_cpu);
    family(b, "hsmbench_phase", "gauge", "1 for the phase the test is in: warmup, measured or done.");
    for (size_t i = 0; i < m->ntests; i++) {
        labels(m, i, l, sizeof l);
        for (int p = 0; p < PH_COUNT; p++)
            put(b, "hsmbench_phase{%s,phase=\"%s\"} %d\n", l, phase_name[p], m->tests[i].phase == p);
    }
}

/* process_*, by the names and help texts of Prometheus's Go client (the
 * Pushgateway, itself a Go program, refuses a family whose help differs
 * from its own). */
static void render_process(sbuf *b)
{
    static const struct {
        const char *name, *type, *help;
        size_t      at;
    } rows[] = {
        { "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
          offsetof(bench_procstat, cpu_seconds) },
        { "process_open_fds", "gauge", "Number of open file descriptors.", offsetof(bench_procstat, open_fds) },
        { "process_max_fds", "gauge", "Maximum number of open file descriptors.",
          offsetof(bench_procstat, max_fds) },
        { "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
          offsetof(bench_procstat, virtual_bytes) },
        { "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
          offsetof(bench_procstat, resident_bytes) },
        { "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
          offsetof(bench_procstat, start_time_seconds) },
    };
    bench_procstat ps;
    bench_procstat_read(&ps);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double v;
        memcpy(&v, (const char *)&ps + rows[i].at, sizeof v);
        if (v < 0)
            continue;   /* not known here: left out */
        family(b, rows[i].name, rows[i].type, rows[i].help);
        put(b, "%s %.10g\n", rows[i].name, v);
    }
}

char *bench_metrics_render(bench_metrics *m)
{
    sbuf b = { NULL, 0, 0, 0 };
    char r[160];
    pthread_mutex_lock(&m->mu);
    family(&b, "hsmbench_build_info", "gauge", "The version of hsmbench serving these metrics.");
    put(&b, "hsmbench_build_info{version=\"%s\"} 1\n", HSMBENCH_VERSION);
    family(&b, "hsmbench_run_info", "gauge",
           "1: the run and generator these series come from, and what they measure.");
    char ri[160], gi[96], ki[64], ti[BENCH_TARGET_TEXT_MAX * 2];
    put(&b, "hsmbench_run_info{run_id=\"%s\",generator=\"%s\",target_kind=\"%s\",target_id=\"%s\"} 1\n",
        esc(m->run_id, ri, sizeof ri), esc(m->generator, gi, sizeof gi),
        esc(m->target_kind, ki, sizeof ki), esc(m->target_id, ti, sizeof ti));
    render_tests(&b, m);
    render_process(&b);
    if (m->nserved) {
        family(&b, "hsmbench_serve_requests_total", "counter",
               "Requests hsmbench serve answered, by route and status (0: none sent).");
        for (size_t i = 0; i < m->nserved; i++)
            if (!m->served[i].kind[0])
                put(&b, "hsmbench_serve_requests_total{route=\"%s\",status=\"%u\"} %llu\n",
                    esc(m->served[i].route, r, sizeof r), m->served[i].status,
                    (unsigned long long)m->served[i].count);
    }
    int faults = 0;
    for (size_t i = 0; i < m->nserved; i++) {
        if (!m->served[i].kind[0])
            continue;
        if (!faults++)
            family(&b, "hsmbench_serve_faults_total", "counter",
                   "Faults hsmbench serve --fault injected, by route and kind.");
        put(&b, "hsmbench_serve_faults_total{route=\"%s\",kind=\"%s\"} %llu\n",
            esc(m->served[i].route, r, sizeof r), m->served[i].kind,
            (unsigned long long)m->served[i].count);
    }
    pthread_mutex_unlock(&m->mu);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ---- connections --------------------------------------------------------- */

/* Drop one connection (cmu held): MHD sees it end and closes it, after
 * on_conn's CLOSED, which waits for cmu, so the fd is still this one's. */
static void conn_drop(mconn *c)
{
    if (!c->dropped) {
        c->dropped = 1;
        (void)shutdown(c->fd, SHUT_RDWR);
    }
}

static void on_conn(void *cls, struct MHD_Connection *conn, void **ctx,
                    enum MHD_ConnectionNotificationCode what)
{
    bench_metrics *m = cls;
    pthread_mutex_lock(&m->cmu);
    if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
        mconn *c = *ctx;
        if (c)
            memset(c, 0, sizeof *c);
        *ctx = NULL;
        pthread_mutex_unlock(&m->cmu);
        return;
    }
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    const uint64_t now = bench_now_ns();
    mconn *slot = NULL, *oldest = NULL;
    size_t waiting = 0;
    for (size_t i = 0; i < CONN_HARD; i++) {
        mconn *c = &m->conns[i];
        if (!c->used) {
            if (!slot)
                slot = c;
            continue;
        }
        if (c->busy || c->dropped)
            continue;
        waiting++;
        if (!oldest || c->since_ns < oldest->since_ns)
            oldest = c;
    }
    if (waiting >= CONN_KEEP && oldest)
        conn_drop(oldest);            /* room for this one: a scrape gets in */
    if (slot && fd) {
        *slot = (mconn){ .used = 1, .fd = fd->connect_fd, .since_ns = now };
        *ctx = slot;
    } else if (fd) {
        (void)shutdown(fd->connect_fd, SHUT_RDWR);   /* no slot: MHD's limit is CONN_HARD */
    }
    pthread_mutex_unlock(&m->cmu);
}

/* A whole request read (busy 1), or its answer sent (busy 0, a new wait). */
static void conn_busy(bench_metrics *m, struct MHD_Connection *conn, int busy)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    pthread_mutex_lock(&m->cmu);
    mconn *c = ci ? ci->socket_context : NULL;
    if (c) {
        c->busy = busy;
        c->since_ns = bench_now_ns();
    }
    pthread_mutex_unlock(&m->cmu);
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                    enum MHD_RequestTerminationCode why)
{
    conn_busy(cls, conn, 0);
}

/* Every SWEEP_NS: drop each connection that has waited REQUEST_NS for a
 * whole request, however many bytes it sent meanwhile. */
static void *sweep(void *arg)
{
    bench_metrics *m = arg;
    while (!atomic_load(&m->stop)) {
        const uint64_t now = bench_now_ns();
        pthread_mutex_lock(&m->cmu);
        for (size_t i = 0; i < CONN_HARD; i++) {
            mconn *c = &m->conns[i];
            if (c->used && !c->busy && now - c->since_ns >= REQUEST_NS)
                conn_drop(c);
        }
        pthread_mutex_unlock(&m->cmu);
        bench_sleep_until_ns(bench_now_ns() + SWEEP_NS);
    }
    return NULL;
}

/* ---- requests ------------------------------------------------------------ */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    bench_metrics *m = cls;
    struct MHD_Response *resp;
    conn_busy(m, conn, 1);
    unsigned status = MHD_HTTP_OK;
    const char *type = "text/plain; version=0.0.4; charset=utf-8";
    char *text = NULL;

    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static char no[] = "GET /metrics\n";
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        resp = MHD_create_response_from_buffer(strlen(no), no, MHD_RESPMEM_PERSISTENT);
    } else if (strcmp(url, "/metrics") != 0) {
        static char nf[] = "Not found: the metrics are at /metrics\n";
        status = MHD_HTTP_NOT_FOUND;
        resp = MHD_create_response_from_buffer(strlen(nf), nf, MHD_RESPMEM_PERSISTENT);
    } else if ((text = bench_metrics_render(m)) != NULL) {
        resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
        if (!resp)
            free(text);
    } else {
        return MHD_NO;
    }
    if (!resp)
        return MHD_NO;
    if (status == MHD_HTTP_OK)
        MHD_add_response_header(resp, "Content-Type", type);
    enum MHD_Result ok = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ok;
}

/* ---- the server --------------------------------------------------------- */

/* The boundaries, each the top of its HDR slot: fine, 1 us * 2^(i/16) to
 * 60 s; coarse, 10 us * 10^(i/4) to 10 s. */
static void le_init(le_table *t, int fine)
{
    const double lowest = fine ? (double)BENCH_METRICS_LE_LOWEST_NS : (double)BENCH_METRICS_COARSE_LOWEST_NS;
    const size_t count = fine ? LE_MAX : BENCH_METRICS_COARSE_COUNT;
    t->n = 0;
    for (unsigned i = 0; t->n < count; i++) {
        const double want = fine ? lowest * exp2((double)i / LE_PER_OCTAVE)
                                 : lowest * pow(10.0, (double)i / BENCH_METRICS_COARSE_PER_DECADE);
        const uint64_t top = bench_hist_slot_highest(bench_hist_index((uint64_t)llround(want)));
        if (t->n && top <= t->ns[t->n - 1])
            continue;   /* below 2048 ns a slot is one value: no two boundaries alike */
        t->ns[t->n] = top;
        snprintf(t->text[t->n], sizeof t->text[t->n], "%.9g", (double)top / 1e9);
        t->n++;
        if (fine && top >= BENCH_METRICS_LE_HIGHEST_NS)
            break;
    }
}

/* One push of the whole text to the group; a failure is one line, the
 * first of a run of them only (the next success says so). */
static void push_now(bench_metrics *m)
{
    char err[512], run[64], gen[32];
    pthread_mutex_lock(&m->pmu);
    char *text = bench_metrics_render(m);
    pthread_mutex_lock(&m->mu);
    snprintf(run, sizeof run, "%s", m->run_id);
    snprintf(gen, sizeof gen, "%s", m->generator);
    pthread_mutex_unlock(&m->mu);
    if (!text)
        snprintf(err, sizeof err, "--metrics-push: out of memory");
    if (text && bench_push_put(m->push, run, gen, text, err, sizeof err) == 0) {
        if (m->push_failures)
            bench_warn("--metrics-push %s: pushed again, after %u failed pushes",
                       bench_push_identity(m->push), m->push_failures);
        m->push_failures = 0;
    } else if (!m->push_failures++) {
        bench_warn("%s", err);
    }
    free(text);
    pthread_mutex_unlock(&m->pmu);
}

/* Every BENCH_METRICS_PUSH_EVERY_NS until stop; the final push is
 * bench_metrics_stop's. */
static void *pusher(void *arg)
{
    bench_metrics *m = arg;
    uint64_t next = bench_now_ns() + BENCH_METRICS_PUSH_EVERY_NS;
    while (!atomic_load(&m->push_stop)) {
        if (bench_now_ns() >= next) {
            push_now(m);
            next += BENCH_METRICS_PUSH_EVERY_NS;
        }
        bench_sleep_until_ns(bench_now_ns() + SWEEP_NS);
    }
    return NULL;
}

/* Listen as --metrics-listen asks (m->d, the sweeper); prints the URL.
 * 0, or -1 (printed). */
static int listen_on(bench_metrics *m, const bench_metrics_opts *o)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (parse_addr(o->listen, &ss, &len) != 0) {
        bench_error("--metrics-listen %s: expected a port or a numeric ADDRESS:PORT "
                    "(9464, 127.0.0.1:9464, [::1]:9464)", o->listen);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0) {
        bench_error("--metrics-listen %s: cannot listen there: %s", o->listen, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char host[INET6_ADDRSTRLEN] = "?";
    len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        bench_error("--metrics-listen %s: %s", o->listen, strerror(errno));
        close(fd);
        return -1;
    }
    const int v6 = ss.ss_family == AF_INET6;
    const unsigned port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                   : ((struct sockaddr_in *)&ss)->sin_port);
    if (!inet_ntop(ss.ss_family, v6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                    : (void *)&((struct sockaddr_in *)&ss)->sin_addr,
                   host, sizeof host))
        snprintf(host, sizeof host, "?");

    /* The server's thread takes no signals: Ctrl-C reaches the sampler. */
    sigset_t block, old;
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
                            on_request, m, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_HARD,
                            MHD_OPTION_NOTIFY_CONNECTION, on_conn, m,
                            MHD_OPTION_NOTIFY_COMPLETED, on_done, m, MHD_OPTION_END);
    const int swept = m->d ? pthread_create(&m->sweeper, NULL, sweep, m) : -1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!m->d || swept != 0) {
        bench_error("--metrics-listen %s: cannot start the metrics server", o->listen);
        if (m->d)
            MHD_stop_daemon(m->d);
        else
            close(fd);
        m->d = NULL;
        return -1;
    }
    fprintf(stderr, "hsmbench: metrics on http://%s%s%s:%u/metrics\n", v6 ? "[" : "", host,
            v6 ? "]" : "", port);
    return 0;
}

int bench_metrics_start(const bench_metrics_opts *o, bench_metrics **out)
{
    *out = NULL;
    if (!o->listen && !o->push)
        return 0;
    bench_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        bench_error("out of memory");
        return -1;
    }
    int inited = 0;
    if (pthread_mutex_init(&m->mu, NULL) != 0 || (inited++, pthread_mutex_init(&m->cmu, NULL) != 0) ||
        (inited++, pthread_mutex_init(&m->pmu, NULL) != 0)) {
        bench_error("out of memory");
        goto fail;
    }
    inited++;
    atomic_init(&m->stop, 0);
    atomic_init(&m->push_stop, 0);
    m->linger_ns = o->linger_ns;
    le_init(&m->le, o->fine);
    snprintf(m->run_id, sizeof m->run_id, "-");
    snprintf(m->generator, sizeof m->generator, "0");
    snprintf(m->target_kind, sizeof m->target_kind, "-");
    snprintf(m->target_id, sizeof m->target_id, "-");
    if (o->push && bench_push_new(o->push, &m->push) != 0)
        goto fail;
    if (o->listen && listen_on(m, o) != 0)
        goto fail;
    if (m->push) {
        sigset_t block, old;
        sigfillset(&block);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        m->pushing = pthread_create(&m->pusher, NULL, pusher, m) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!m->pushing) {
            bench_error("--metrics-push %s: cannot start the pusher", bench_push_identity(m->push));
            goto fail;
        }
        fprintf(stderr, "hsmbench: metrics pushed to %s every %.3g s and at the end\n",
                bench_push_identity(m->push), (double)BENCH_METRICS_PUSH_EVERY_NS / 1e9);
    }
    *out = m;
    return 0;
fail:
    if (m->d) {
        atomic_store(&m->stop, 1);
        (void)pthread_join(m->sweeper, NULL);
        MHD_stop_daemon(m->d);
    }
    bench_push_free(m->push);
    if (inited > 2)
        pthread_mutex_destroy(&m->pmu);
    if (inited > 1)
        pthread_mutex_destroy(&m->cmu);
    if (inited > 0)
        pthread_mutex_destroy(&m->mu);
    free(m);
    return -1;
}

void bench_metrics_stop(bench_metrics *m, const bench_flag *interrupt)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->ntests; i++)
        m->tests[i].phase = PH_DONE;
    const int ran = m->ntests || m->nserved;
    pthread_mutex_unlock(&m->mu);
    if (m->pushing) {
        atomic_store(&m->push_stop, 1);
        (void)pthread_join(m->pusher, NULL);
        if (ran)
            push_now(m);   /* the final figures, which outlive this process */
    }
    /* A last scrape sees the final figures; Ctrl-C does not wait for it,
     * nor an error before anything ran. */
    const uint64_t end = bench_now_ns() + (ran && m->d ? m->linger_ns : 0);
    if (ran && m->d && m->linger_ns && (!interrupt || !*interrupt))
        fprintf(stderr, "hsmbench: metrics answer for %.3g s more (--metrics-linger)\n",
                (double)m->linger_ns / 1e9);
    uint64_t now;
    while ((!interrupt || !*interrupt) && (now = bench_now_ns()) < end)
        bench_sleep_until_ns(end - now > BENCH_NS_PER_S / 10 ? now + BENCH_NS_PER_S / 10 : end);
    atomic_store(&m->stop, 1);
    if (m->d) {
        (void)pthread_join(m->sweeper, NULL);
        MHD_stop_daemon(m->d);   /* closes the listening socket too */
    }
    bench_push_free(m->push);
    pthread_mutex_destroy(&m->pmu);
    pthread_mutex_destroy(&m->cmu);
    pthread_mutex_destroy(&m->mu);
    free(m->tests);
    free(m->errs);
    free(m->served);
    free(m);
}

/* ---- recording ---------------------------------------------------------- */

/* Room for one more element of an array of n (with mu held): the array,
 * perhaps moved, or NULL when out of memory (the old one is kept). */
static void *grow(void *arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *na = realloc(arr, ncap * size);
    if (na)
        *cap = ncap;
    return na;
}

/* Folding hsmbench's histogram into the le buckets: its slots come in
 * increasing order, so the bucket only moves up. */
typedef struct folding {
    buckets        *b;
    const le_table *le;
    size_t          k;
} folding;

/* A slot lands whole in the first bucket whose boundary is not below its
 * highest value (the boundaries are slot tops: le_init). */
static int fold_slot(void *arg, size_t index, uint64_t count)
{
    folding *f = arg;
    const uint64_t hi = bench_hist_slot_highest(index);
    while (f->k < f->le->n && hi > f->le->ns[f->k])
        f->k++;
    f->b->n[f->k] += count;
    f->b->sum_s += (double)count * (((double)bench_hist_slot_lowest(index) + (double)hi) / 2e9);
    return 0;
}

static void fold_hist(buckets *b, const le_table *le, const bench_hist *h)
{
    memset(b, 0, sizeof *b);
    folding f = { b, le, 0 };
    if (h)
        bench_hist_foreach(h, fold_slot, &f);
}

void bench_metrics_fleet(bench_metrics *m, const char *run_id, const char *generator)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    snprintf(m->run_id, sizeof m->run_id, "%s", run_id && *run_id ? run_id : "-");
    snprintf(m->generator, sizeof m->generator, "%s", generator && *generator ? generator : "0");
    pthread_mutex_unlock(&m->mu);
}

void bench_metrics_target(bench_metrics *m, json_t *environment)
{
    bench_target t;
    json_t *doc = m && environment ? json_pack("{s:O}", "environment", environment) : NULL;
    const int known = doc && bench_target_of(doc, &t) >= 0;
    json_decref(doc);
    json_decref(environment);
    if (!known)
        return;
    pthread_mutex_lock(&m->mu);
    snprintf(m->target_kind, sizeof m->target_kind, "%s", t.kind);
    snprintf(m->target_id, sizeof m->target_id, "%s", t.id[0] ? t.id : "-");
    pthread_mutex_unlock(&m->mu);
}

void bench_metrics_begin(bench_metrics *m, const char *test, const bench_load *load,
                         const bench_workload *w)
{
    if (!m)
        return;
    const char *mode = load->mode == BENCH_MODE_NONBLOCKING ? "nonblocking" : "blocking";
    pthread_mutex_lock(&m->mu);
    size_t i = 0;
    while (i < m->ntests && (strcmp(m->tests[i].name, test) != 0 || m->tests[i].nthreads != load->threads ||
                             strcmp(m->tests[i].mode, mode) != 0))
        i++;
    if (i == m->ntests) {
        mtest *nt = grow(m->tests, m->ntests, &m->cap_tests, sizeof *nt);
        if (!nt) {
            pthread_mutex_unlock(&m->mu);
            return;   /* out of memory: this run is not exported */
        }
        m->tests = nt;
        memset(&m->tests[i], 0, sizeof m->tests[i]);
        snprintf(m->tests[i].name, sizeof m->tests[i].name, "%s", test);
        snprintf(m->tests[i].mode, sizeof m->tests[i].mode, "%s", mode);
        m->tests[i].nthreads = load->threads;
        m->tests[i].client_cpu = -1;
        m->ntests++;
    }
    mtest *x = &m->tests[i];
    x->phase = load->warmup_ns || load->warmup_ops ? PH_WARMUP : PH_MEASURED;
    x->threads = load->threads;
    x->in_flight = 0;
    x->has_target = load->mode == BENCH_MODE_NONBLOCKING && (load->rate > 0 || load->stages);
    x->target = load->rate;
    m->cur = i;
    m->running = 1;
    m->cpu_prev_ns = bench_process_cpu_ns();
    m->wall_prev_ns = bench_now_ns();
    m->w = w;
    m->load = load;
    pthread_mutex_unlock(&m->mu);
}

/* The current test's series of error `name`, made on first sight; NULL when
 * out of memory. */
static merr *err_of(bench_metrics *m, const char *name)
{
    for (size_t k = 0; k < m->nerrs; k++)
        if (m->errs[k].test == m->cur && strcmp(m->errs[k].code, name) == 0)
            return &m->errs[k];
    merr *ne = grow(m->errs, m->nerrs, &m->cap_errs, sizeof *ne);
    if (!ne)
        return NULL;
    m->errs = ne;
    merr *e = &m->errs[m->nerrs++];
    memset(e, 0, sizeof *e);
    e->test = m->cur;
    snprintf(e->code, sizeof e->code, "%s", name);
    return e;
}

/* The current run's errors so far, by name (at its end the model's replace them). */
static void set_errors(bench_metrics *m, const bench_err *errs, size_t nerrs)
{
    for (size_t j = 0; j < nerrs; j++) {
        char name[64] = "";
        /* the summary's names, the core's own classes (VERIFY_MISMATCH) included */
        bench_code_name(m->w, errs[j].code, name, sizeof name);
        merr *e = err_of(m, name);
        if (!e)
            return;
        e->live = errs[j].count;
    }
}

void bench_metrics_second(bench_metrics *m, const bench_sample *s)
{
    if (!m || !m->running)
        return;
    buckets b;
    if (!s->warmup)
        fold_hist(&b, &m->le, s->hist_so_far);    /* outside the lock: the sampler owns it */
    const uint64_t cpu = bench_process_cpu_ns(), wall = bench_now_ns();
    pthread_mutex_lock(&m->mu);
    mtest *x = &m->tests[m->cur];
    if (cpu && m->cpu_prev_ns && cpu >= m->cpu_prev_ns && wall > m->wall_prev_ns)
        x->client_cpu = (double)(cpu - m->cpu_prev_ns) / (double)(wall - m->wall_prev_ns);
    m->cpu_prev_ns = cpu;
    m->wall_prev_ns = wall;
    x->phase = s->warmup ? PH_WARMUP : PH_MEASURED;
    if (!s->warmup) {
        x->ops_live += s->ops - s->errors;
        x->attempts_live += s->ops;
        if (s->hist_so_far)
            x->lat_live = b;
        set_errors(m, s->errs_so_far, s->nerrs_so_far);
    }
    const int nonblocking = m->load->mode == BENCH_MODE_NONBLOCKING;
    if (!nonblocking && m->load->stages)
        x->threads = s->target;
    x->in_flight = nonblocking ? (double)s->in_flight : x->threads;
    if (nonblocking && m->load->stages && s->span_s > 0)
        x->target = s->target / s->span_s;
    pthread_mutex_unlock(&m->mu);
}

void bench_metrics_end(bench_metrics *m, const bench_run_model *model)
{
    if (!m || !m->running)
        return;
    buckets b;
    if (model)
        fold_hist(&b, &m->le, model->hist);
    pthread_mutex_lock(&m->mu);
    mtest *x = &m->tests[m->cur];
    x->phase = PH_DONE;
    /* the gauges of a run that ended: nothing runs, nothing is asked for */
    x->threads = 0;
    x->in_flight = 0;
    x->target = 0;
    x->ops_live = 0;
    x->attempts_live = 0;
    memset(&x->lat_live, 0, sizeof x->lat_live);
    for (size_t k = 0; k < m->nerrs; k++)
        if (m->errs[k].test == m->cur)
            m->errs[k].live = 0;
    if (model) {
        /* the results file's figures, from the one run model */
        x->client_cpu = model->client_cpu;
        x->ops_done += model->ops;
        x->attempts_done += model->attempts;
        if (model->open_loop) {
            x->scheduled_done += model->scheduled;
            x->unstarted_done += model->dropped;
        }
        for (size_t k = 0; k <= m->le.n; k++)
            x->lat_done.n[k] += b.n[k];
        x->lat_done.sum_s += b.sum_s;
        for (size_t j = 0; j < model->ncodes; j++) {
            merr *e = err_of(m, model->codes[j].name);
            if (!e)
                break;
            e->done += model->codes[j].count;
        }
    }
    m->running = 0;
    m->w = NULL;
    m->load = NULL;
    pthread_mutex_unlock(&m->mu);
}

/* Count one more of route's answers with status, or of its faults of kind
 * (not ""). */
static void served_add(bench_metrics *m, const char *route, unsigned status, const char *kind)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    size_t i = 0;
    while (i < m->nserved && (m->served[i].status != status || strcmp(m->served[i].kind, kind) != 0 ||
                              strcmp(m->served[i].route, route) != 0))
        i++;
    mserved *ns = i < m->nserved ? m->served : grow(m->served, m->nserved, &m->cap_served, sizeof *ns);
    if (ns) {
        m->served = ns;
        if (i == m->nserved) {
            memset(&m->served[i], 0, sizeof m->served[i]);
            snprintf(m->served[i].route, sizeof m->served[i].route, "%s", route);
            m->served[i].status = status;
            snprintf(m->served[i].kind, sizeof m->served[i].kind, "%s", kind);
            m->nserved++;
        }
        m->served[i].count++;
    }
    pthread_mutex_unlock(&m->mu);
}

void bench_metrics_served(bench_metrics *m, const char *route, unsigned status)
{
    served_add(m, route, status, "");
}

void bench_metrics_fault(bench_metrics *m, const char *route, const char *kind)
{
    served_add(m, route, 0, kind && kind[0] ? kind : "other");
}

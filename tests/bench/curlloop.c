/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/bench/curlloop.c - the minimal libcurl loop the REST benchmark
 * compares hsmbench against: the same request through the same libcurl,
 * with nothing else (no checks of the answer, no phase timings, no
 * histograms, no scheduler).
 *
 *   curlloop URL BODY_FILE SECONDS CONNECTIONS THREADS [--no-connection-reuse]
 *
 * One connection: one easy handle and curl_easy_perform() in a loop.  More:
 * each thread drives its share of CONNECTIONS easy handles on one multi
 * handle, adding each again as soon as it completes.  The header lines are
 * hsmbench's own (Content-Type, Accept, its User-Agent, Authorization from
 * $REST_BENCH_TOKEN), so the bytes on the wire are the same.  TLS is not verified (the benchmark's own server).
 * Prints "requests N failed F seconds S rate R cpu C" counting 2xx answers
 * only; C is the CPU time (user + system) the loop took, in seconds.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/clock.h"
#include "bench/util/heap.h"
#include "rest/transport/http.h"

typedef struct loop {
    const char        *url, *body;
    long               body_len;
    struct curl_slist *headers;
    int                no_reuse;
    unsigned           conns;        /* this thread's */
    uint64_t           end_ns;
    uint64_t           ok, failed;
} loop;

static size_t sink(char *data, size_t size, size_t n, void *arg)
{
    (void)data;
    (void)arg;
    return size * n;
}

static CURL *make_easy(const loop *l)
{
    CURL *e = curl_easy_init();
    if (!e)
        return NULL;
    curl_easy_setopt(e, CURLOPT_URL, l->url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, l->headers);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, l->body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, l->body_len);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    if (l->no_reuse) {
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
        curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    }
    return e;
}

static void count(loop *l, CURL *e, CURLcode cc)
{
    long status = 0;
    if (cc == CURLE_OK && curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
        status >= 200 && status <= 299)
        l->ok++;
    else
        l->failed++;
}

static void *run_easy(void *arg)
{
    loop *l = arg;
    CURL *e = make_easy(l);
    if (!e)
        return NULL;
    while (bench_now_ns() < l->end_ns)
        count(l, e, curl_easy_perform(e));
    curl_easy_cleanup(e);
    return NULL;
}

static void *run_multi(void *arg)
{
    loop *l = arg;
    CURLM *m = curl_multi_init();
    CURL **easy = calloc(l->conns, sizeof *easy);
    if (!m || !easy)
        return NULL;
    for (unsigned i = 0; i < l->conns; i++)
        if ((easy[i] = make_easy(l)) == NULL || curl_multi_add_handle(m, easy[i]) != CURLM_OK)
            return NULL;
    int running = 1;
    while (running) {
        (void)curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        const int more = bench_now_ns() < l->end_ns;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *e = msg->easy_handle;
            const CURLcode cc = msg->data.result;
            curl_multi_remove_handle(m, e);
            count(l, e, cc);
            if (more && curl_multi_add_handle(m, e) == CURLM_OK)
                running = 1;
        }
        if (running)
            (void)curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    for (unsigned i = 0; i < l->conns; i++)
        curl_easy_cleanup(easy[i]);
    free(easy);
    curl_multi_cleanup(m);
    return NULL;
}

int main(int argc, char **argv)
{
    /* hsmbench's own heap policy (bench/util/heap.c), so that the ratio is the
     * code's, not the allocator setting's. */
    (void)bench_heap_keep_freed();
    if (argc < 6) {
        fprintf(stderr, "usage: curlloop URL BODY_FILE SECONDS CONNECTIONS THREADS [--no-connection-reuse]\n");
        return 2;
    }
    static char body[65536];
    FILE *f = fopen(argv[2], "rb");
    size_t n = f ? fread(body, 1, sizeof body - 1, f) : 0;
    if (f)
        fclose(f);
    const char *token = getenv("REST_BENCH_TOKEN");
    const unsigned secs = (unsigned)atoi(argv[3]), conns = (unsigned)atoi(argv[4]);
    unsigned threads = (unsigned)atoi(argv[5]);
    if (!n || !token || !secs || !conns || !threads) {
        fprintf(stderr, "curlloop: need a body, $REST_BENCH_TOKEN, seconds, connections, threads\n");
        return 2;
    }
    if (threads > conns)
        threads = conns;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return 1;
    char auth[512];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/json");
    /* hsmbench's own User-Agent line, so that the request is the same. */
    h = curl_slist_append(h, REST_USER_AGENT);
    h = curl_slist_append(h, auth);

    loop ls[64];
    pthread_t tid[64];
    if (threads > 64)
        threads = 64;
    const uint64_t t0 = bench_now_ns(), cpu0 = bench_process_cpu_ns();
    for (unsigned i = 0; i < threads; i++) {
        ls[i] = (loop){ argv[1], body, (long)n, h, argc > 6 && strcmp(argv[6], "--no-connection-reuse") == 0,
                        conns / threads + (i < conns % threads ? 1 : 0),
                        t0 + (uint64_t)secs * BENCH_NS_PER_S, 0, 0 };
        if (pthread_create(&tid[i], NULL, conns == 1 ? run_easy : run_multi, &ls[i]) != 0)
            return 1;
    }
    uint64_t ok = 0, failed = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        ok += ls[i].ok;
        failed += ls[i].failed;
    }
    const double s = (double)(bench_now_ns() - t0) / 1e9;
    const double cpu = (double)(bench_process_cpu_ns() - cpu0) / 1e9;
    printf("requests %llu failed %llu seconds %.3f rate %.1f cpu %.3f\n", (unsigned long long)ok,
           (unsigned long long)failed, s, (double)ok / s, cpu);
    curl_slist_free_all(h);
    curl_global_cleanup();
    return failed ? 1 : 0;
}

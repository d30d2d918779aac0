/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/unit/test_tokencmd.c - rest/tokencmd.h: a JWT's exp; one run of the
 * command (its token trimmed, its failures as one line with the exit status
 * and a redacted first line of stderr, bounded in time); the refresher
 * (tokens renewed before they expire while other threads read them, a 401's
 * renewal, a failing refresh counted, the old token kept); a halt at a run's
 * end (a refresh in flight killed and counted, no new one, a 401 not waited
 * on), a resume, and a stop after a halt.
 * tsan: yes (the refresher thread replaces the token while other threads read it)
 */
#include "rest/tokencmd.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/util/clock.h"
#include "tests/unit/check.h"

static void test_jwt_exp(void)
{
    double exp = 0;
    /* {"alg":"none"} . {"exp":1700000000.5,"sub":"x"} . (no signature) */
    CHECK(rest_jwt_exp("eyJhbGciOiJub25lIn0.eyJleHAiOjE3MDAwMDAwMDAuNSwic3ViIjoieCJ9.", &exp) == 0);
    CHECK(exp > 1700000000.4 && exp < 1700000000.6);
    /* {"sub":"x"}: no exp */
    CHECK(rest_jwt_exp("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig", &exp) == -1);
    CHECK(rest_jwt_exp("ya29.opaque-google-access-token", &exp) == -1);
    CHECK(rest_jwt_exp("a.b.c.d", &exp) == -1);
    CHECK(rest_jwt_exp("a..c", &exp) == -1);
    CHECK(rest_jwt_exp("", &exp) == -1);
}

static void test_exec(void)
{
    char out[256], err[512];
    CHECK(rest_tokcmd_exec("printf '  tok-123 \\n'", BENCH_NS_PER_S * 10, NULL, out, sizeof out, err,
                           sizeof err) == 0);
    CHECK(strcmp(out, "tok-123") == 0);

    /* A failure: the status and the first line of stderr, the token-like
     * word in it cut out, the second line never shown. */
    CHECK(rest_tokcmd_exec("echo 'denied for ya29AAAAAAAAAAAAAAAAAAAAAAAAAAAA now' >&2; "
                           "echo second-line >&2; echo ya29-printed; exit 3",
                           BENCH_NS_PER_S * 10, NULL, out, sizeof out, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "exited with status 3") != NULL, "%s", err);
    CHECK_MSG(strstr(err, "denied for *** now") != NULL, "%s", err);
    CHECK(strstr(err, "ya29A") == NULL && strstr(err, "second-line") == NULL);
    CHECK(strstr(err, "ya29-printed") == NULL && out[0] == 0);

    CHECK(rest_tokcmd_exec("true", BENCH_NS_PER_S * 10, NULL, out, sizeof out, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "printed no token") != NULL, "%s", err);
    CHECK(rest_tokcmd_exec("echo a; echo b", BENCH_NS_PER_S * 10, NULL, out, sizeof out, err,
                           sizeof err) == -1);
    CHECK_MSG(strstr(err, "more than one line") != NULL, "%s", err);
    CHECK(rest_tokcmd_exec("kill -9 $$", BENCH_NS_PER_S * 10, NULL, out, sizeof out, err,
                           sizeof err) == -1);
    CHECK_MSG(strstr(err, "killed by signal 9") != NULL, "%s", err);
    CHECK(rest_tokcmd_exec("/nonexistent/gcloud auth print-access-token", BENCH_NS_PER_S * 10, NULL,
                           out, sizeof out, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "status 127") != NULL, "%s", err);
    CHECK(rest_tokcmd_exec("head -c 1000 /dev/zero | tr '\\0' x", BENCH_NS_PER_S * 10, NULL, out,
                           sizeof out, err, sizeof err) == -1);
    CHECK_MSG(strstr(err, "more than 255 bytes") != NULL, "%s", err);

    /* Bounded: a command that hangs (its child too) is killed at the timeout. */
    const uint64_t t0 = bench_now_ns();
    CHECK(rest_tokcmd_exec("sleep 30 & sleep 30", BENCH_NS_PER_S / 4, NULL, out, sizeof out, err,
                           sizeof err) == -1);
    CHECK(bench_now_ns() - t0 < 20 * BENCH_NS_PER_S);
    CHECK_MSG(strstr(err, "did not finish") != NULL, "%s", err);
}

/* The refresher of cmd (its tokens living ttl_ns, a run at most
 * timeout_ns), or NULL with a FAIL. */
static rest_tokcmd *start(const char *cmd, uint64_t ttl_ns, uint64_t timeout_ns)
{
    char err[512];
    const rest_tokcmd_cfg cfg = { cmd, ttl_ns, timeout_ns, NULL };
    rest_tokcmd *t = rest_tokcmd_start(&cfg, err, sizeof err);
    CHECK_MSG(t != NULL, "%s", err);
    return t;
}

/* Readers that use the token while the refresher replaces it (TSan). */
typedef struct reader_arg {
    rest_tokcmd     *t;
    _Atomic int     *stop;
    unsigned long    seen_max;
    int              bad;
} reader_arg;

static void *reader(void *arg)
{
    reader_arg *r = arg;
    char buf[64];
    while (!atomic_load(r->stop)) {
        const unsigned long g = rest_tokcmd_get(r->t, buf, sizeof buf);
        if (strncmp(buf, "tok-", 4) != 0)
            r->bad = 1;
        if (g > r->seen_max)
            r->seen_max = g;
        usleep(1000);
    }
    return NULL;
}

static void test_refresher(void)
{
    /* No exp: --token-ttl's lifetime, 300 ms: renewed every 270 ms. */
    rest_tokcmd *t = start("echo tok-$$", 300ULL * 1000000ULL, 10 * BENCH_NS_PER_S);
    if (!t)
        return;
    _Atomic int stop = 0;
    reader_arg ra[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        ra[i] = (reader_arg){ t, &stop, 0, 0 };
        CHECK(pthread_create(&th[i], NULL, reader, &ra[i]) == 0);
    }
    /* Wait for two refreshes (bounded: 20 s on a very busy machine). */
    const uint64_t end = bench_now_ns() + 20 * BENCH_NS_PER_S;
    while (rest_tokcmd_gen(t) < 3 && bench_now_ns() < end)
        usleep(10000);
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK(!ra[i].bad);
    }
    rest_tokcmd_counts c;
    rest_tokcmd_counts_get(t, &c);
    CHECK(c.refreshes >= 2 && c.failures == 0 && c.after_401 == 0);
    rest_tokcmd_stop(t);
}

static void test_renew(void)
{
    char err[512], path[64], cmd[160], buf[64];
    snprintf(path, sizeof path, "/tmp/hsmbench-tokcmd-%d", (int)getpid());
    unlink(path);
    /* Fails once the file exists, with a token-like word on stderr. */
    snprintf(cmd, sizeof cmd,
             "if test -e %s; then echo 'no: eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0' >&2; exit 5; fi; "
             "echo tok-$$",
             path);
    rest_tokcmd *t = start(cmd, 3600ULL * BENCH_NS_PER_S, 10 * BENCH_NS_PER_S);
    if (!t)
        return;
    const unsigned long g1 = rest_tokcmd_get(t, buf, sizeof buf);
    /* A 401 on a token just got: not renewed again (no command storm). */
    CHECK(rest_tokcmd_renew(t, g1) == -1);
    usleep(1100 * 1000);
    CHECK(rest_tokcmd_renew(t, g1) == 0);
    const unsigned long g2 = rest_tokcmd_gen(t);
    CHECK(g2 == g1 + 1);
    /* A 401 on the old token once the new one is in: no new run. */
    CHECK(rest_tokcmd_renew(t, g1) == 0 && rest_tokcmd_gen(t) == g2);
    rest_tokcmd_note_retry(t);

    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    usleep(1100 * 1000);
    CHECK(rest_tokcmd_renew(t, g2) == -1);
    CHECK(rest_tokcmd_get(t, buf, sizeof buf) == g2 && strncmp(buf, "tok-", 4) == 0);
    rest_tokcmd_counts c;
    rest_tokcmd_counts_get(t, &c);
    CHECK(c.refreshes == 1 && c.after_401 == 1 && c.failures == 1 && c.retries == 1);
    rest_tokcmd_last_error(t, err, sizeof err);
    CHECK_MSG(strstr(err, "status 5") != NULL && strstr(err, "eyJ") == NULL, "%s", err);
    rest_tokcmd_stop(t);
    unlink(path);

    /* A JWT already expired: no first token. */
    rest_tokcmd_cfg old = { "echo eyJhbGciOiJub25lIn0.eyJleHAiOjE3MDAwMDAwMDB9.", BENCH_NS_PER_S,
                            10 * BENCH_NS_PER_S, NULL };
    CHECK(rest_tokcmd_start(&old, err, sizeof err) == NULL);
    CHECK_MSG(strstr(err, "expired already") != NULL, "%s", err);
}

/* Stopping does not wait for a refresh that hangs: it is killed. */
static void test_stop_bounded(void)
{
    char path[64], cmd[256];
    snprintf(path, sizeof path, "/tmp/hsmbench-tokcmd-stop-%d", (int)getpid());
    unlink(path);
    snprintf(cmd, sizeof cmd, "if test -e %s; then exec sleep 60; fi; touch %s; echo tok-1", path,
             path);
    rest_tokcmd *t = start(cmd, BENCH_NS_PER_S, 60 * BENCH_NS_PER_S);
    if (!t)
        return;
    usleep(1500 * 1000);             /* the refresh (at 0.9 s) hangs in sleep 60 */
    const uint64_t t0 = bench_now_ns();
    rest_tokcmd_stop(t);
    CHECK(bench_now_ns() - t0 < 30 * BENCH_NS_PER_S);
    unlink(path);
}

/* A halt cuts off the refresh in flight and counts it; nothing starts until
 * the resume, which renews the token due at once. */
static void test_halt(void)
{
    char path[64], cmd[256], buf[64];
    snprintf(path, sizeof path, "/tmp/hsmbench-tokcmd-halt-%d", (int)getpid());
    unlink(path);
    /* Runs 0 and 2 print a token at once; run 1 (the first refresh) hangs. */
    snprintf(cmd, sizeof cmd,
             "n=$(cat %s 2>/dev/null || echo 0); echo $((n + 1)) > %s; "
             "if [ $n -eq 1 ]; then exec sleep 60; fi; echo tok-$n",
             path, path);
    rest_tokcmd *t = start(cmd, BENCH_NS_PER_S, 60 * BENCH_NS_PER_S);
    if (!t)
        return;
    usleep(1500 * 1000);             /* the refresh (at 0.9 s) hangs in sleep 60 */
    const unsigned long g1 = rest_tokcmd_get(t, buf, sizeof buf);
    uint64_t t0 = bench_now_ns();
    rest_tokcmd_halt(t);
    CHECK_MSG(bench_now_ns() - t0 < 5 * BENCH_NS_PER_S, "halt took %.1f s",
              (double)(bench_now_ns() - t0) / 1e9);
    rest_tokcmd_counts c;
    rest_tokcmd_counts_get(t, &c);
    CHECK_MSG(c.refreshes == 0 && c.cancelled == 1 && c.failures == 0, "%llu %llu %llu",
              (unsigned long long)c.refreshes, (unsigned long long)c.cancelled,
              (unsigned long long)c.failures);
    /* Halted: a 401 gets no new token, at once; halting again changes nothing. */
    t0 = bench_now_ns();
    CHECK(rest_tokcmd_renew(t, g1) == -1);
    CHECK(bench_now_ns() - t0 < BENCH_NS_PER_S);
    rest_tokcmd_halt(t);
    usleep(300 * 1000);
    rest_tokcmd_counts_get(t, &c);
    CHECK(c.refreshes == 0 && c.cancelled == 1 && rest_tokcmd_gen(t) == g1);
    /* Resumed: the refresh due runs again (run 2), bounded on a busy machine. */
    rest_tokcmd_resume(t);
    const uint64_t end = bench_now_ns() + 20 * BENCH_NS_PER_S;
    while (rest_tokcmd_gen(t) == g1 && bench_now_ns() < end)
        usleep(10000);
    /* (a slow machine may have renewed it once more since, 0.9 s on) */
    CHECK(rest_tokcmd_get(t, buf, sizeof buf) > g1 && strncmp(buf, "tok-", 4) == 0 &&
          strcmp(buf, "tok-0") != 0);
    rest_tokcmd_halt(t);
    rest_tokcmd_counts_get(t, &c);
    CHECK(c.refreshes >= 1 && c.cancelled == 1 && c.failures == 0 && c.after_401 == 0);
    rest_tokcmd_stop(t);             /* after a halt: the thread joined, all freed */
    rest_tokcmd_halt(NULL);
    rest_tokcmd_resume(NULL);
    unlink(path);
}

int main(void)
{
    RUN(test_jwt_exp);
    RUN(test_exec);
    RUN(test_refresher);
    RUN(test_renew);
    RUN(test_stop_bounded);
    RUN(test_halt);
    return check_finish();
}

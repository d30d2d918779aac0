/* SPDX-License-Identifier: Apache-2.0 */
/* rest/tokencmd.c - --token-cmd: run the command, keep its token fresh. */
#include "rest/tokencmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "bench/util/b64.h"
#include "bench/util/clock.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"

#define ERR_LINE      160          /* the command's stderr line, at most */
#define TOKEN_WORD    20           /* a word this long of a token's alphabet is cut out */
#define BACKOFF_MIN   (1ULL * BENCH_NS_PER_S)
#define BACKOFF_MAX   (30ULL * BENCH_NS_PER_S)
#define RENEW_MIN     (1ULL * BENCH_NS_PER_S)     /* a 401 renews a token this old at least */
#define REFRESH_MIN   (100ULL * 1000000ULL)   /* never sooner than this after a token */

struct rest_tokcmd {
    rest_tokcmd_cfg   cfg;
    pthread_mutex_t   mu;
    pthread_cond_t    cv;              /* CLOCK_MONOTONIC */
    pthread_t         th;
    char              token[REST_TOKCMD_MAX];
    _Atomic unsigned long gen;         /* written under mu */
    uint64_t          refresh_at;      /* monotonic ns */
    uint64_t          got_at;          /* when the current token came */
    uint64_t          backoff;
    unsigned long     fail_seq;        /* failed refreshes, for waiters */
    int               want;            /* a 401 asked for a refresh */
    int               stop;
    int               halted;          /* between runs: no refresh starts */
    int               busy;            /* a run of the command is in progress */
    bench_flag        cancel;          /* set by halt and stop: a refresh in progress is killed */
    rest_tokcmd_counts counts;         /* under mu, but retries */
    _Atomic uint64_t  retries;
    char              last_err[256];
};

/* ---- JWT ---------------------------------------------------------------- */

int rest_jwt_exp(const char *token, double *exp)
{
    const char *d1 = strchr(token, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '.') || d2 == d1 + 1)
        return -1;
    const size_t n = (size_t)(d2 - d1 - 1);
    uint8_t *buf = malloc(bench_b64_decoded_max(n) + 1);
    size_t len = 0;
    int rc = -1;
    if (!buf)
        return -1;
    if (bench_b64_decode(d1 + 1, n, buf, bench_b64_decoded_max(n), &len) == 0) {
        json_t *j = json_loadb((const char *)buf, len, 0, NULL);
        const json_t *e = json_object_get(j, "exp");
        if (json_is_number(e)) {
            *exp = json_number_value(e);
            rc = 0;
        }
        json_decref(j);
    }
    free(buf);
    return rc;
}

/* ---- one run of the command --------------------------------------------- */

static int token_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           strchr("-._~+/=", c) != NULL;
}

/* Cut out of line every word of TOKEN_WORD or more token characters, and
 * any control character. */
static void redact(char *line)
{
    char out[ERR_LINE + 8];
    size_t o = 0;
    for (size_t i = 0; line[i] && o < ERR_LINE;) {
        size_t j = i;
        while (line[j] && token_char(line[j]))
            j++;
        if (j - i >= TOKEN_WORD) {
            memcpy(out + o, "***", 3);
            o += 3;
            i = j;
            continue;
        }
        if (j == i)
            j = i + 1;
        for (; i < j && o < ERR_LINE; i++)
            out[o++] = (unsigned char)line[i] < 0x20 ? ' ' : line[i];
    }
    out[o] = 0;
    memcpy(line, out, o + 1);
}

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    memmove(s, s + i, n - i + 1);
}

typedef struct child_io {
    int    fd[2];                  /* stdout, stderr; -1 when closed */
    char  *out;
    size_t cap, len;
    int    too_long;
    char   errl[ERR_LINE + 1];
    size_t errn;
    int    err_done;               /* the first line is complete */
} child_io;

static void take(child_io *c, int which)
{
    char buf[4096];
    const ssize_t n = read(c->fd[which], buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(c->fd[which]);
        c->fd[which] = -1;
        return;
    }
    if (which == 0) {
        if (c->len + (size_t)n >= c->cap) {
            c->too_long = 1;
            return;
        }
        memcpy(c->out + c->len, buf, (size_t)n);
        c->len += (size_t)n;
        c->out[c->len] = 0;
        return;
    }
    for (ssize_t i = 0; i < n && !c->err_done; i++) {
        if (buf[i] == '\n' && c->errn)
            c->err_done = 1;
        else if (buf[i] != '\n' && c->errn < ERR_LINE)
            c->errl[c->errn++] = buf[i];
    }
    c->errl[c->errn] = 0;
}

/* The child: the command's stdin /dev/null, its stdout and stderr the pipes,
 * a process group of its own (killed whole on a timeout).  Async-signal-safe
 * calls only (the parent has threads). */
static void child(const char *cmd, int devnull, const int out[2], const int err[2])
{
    (void)setpgid(0, 0);
    if (dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
        _exit(126);
    close(out[0]);
    close(err[0]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
}

/* Wait for the child to end, reading its output, killing it at deadline. */
static int reap(pid_t pid, child_io *c, uint64_t deadline, const bench_flag *interrupt,
                int *killed)
{
    int status = 0;
    *killed = 0;
    while (c->fd[0] >= 0 || c->fd[1] >= 0) {
        const uint64_t now = bench_now_ns();
        if (now >= deadline || (interrupt && *interrupt)) {
            *killed = now >= deadline ? 1 : 2;
            break;
        }
        struct pollfd p[2] = { { c->fd[0], POLLIN, 0 }, { c->fd[1], POLLIN, 0 } };
        const uint64_t left_ms = (deadline - now) / 1000000ULL + 1;
        const int r = poll(p, 2, left_ms > 100 ? 100 : (int)left_ms);
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && r > 0; i++)
            if (c->fd[i] >= 0 && p[i].revents)
                take(c, i);
    }
    if (*killed)
        (void)kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    /* A grandchild still holding the pipes is the group's: killed with it. */
    if (!*killed && WIFEXITED(status) && (c->fd[0] >= 0 || c->fd[1] >= 0))
        (void)kill(-pid, SIGKILL);
    return status;
}

/* rest_tokcmd_exec, and in *cut whether interrupt ended the command (it
 * was killed: it may have done what it does, as getting a token). */
static int exec_cmd(const char *cmd, uint64_t timeout_ns, const bench_flag *interrupt, char *out,
                    size_t cap, char *err, size_t errlen, int *cut)
{
    int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc = -1, killed = 0;
    child_io c;
    memset(&c, 0, sizeof c);
    c.fd[0] = c.fd[1] = -1;
    c.out = out;
    c.cap = cap;
    out[0] = 0;
    const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "--token-cmd: cannot run the command: %s", strerror(errno));
        goto cleanup;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "--token-cmd: cannot run the command: %s", strerror(errno));
        goto cleanup;
    }
    if (pid == 0)
        child(cmd, devnull, po, pe);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    c.fd[0] = po[0];
    c.fd[1] = pe[0];
    po[0] = pe[0] = -1;
    const int status = reap(pid, &c, bench_now_ns() + timeout_ns, interrupt, &killed);
    *cut = killed == 2;
    redact(c.errl);
    const char *sep = c.errl[0] ? ": " : "";
    if (killed == 1)
        snprintf(err, errlen, "--token-cmd: the command did not finish in %llu s (killed)%s%s",
                 (unsigned long long)(timeout_ns / BENCH_NS_PER_S), sep, c.errl);
    else if (killed == 2)
        snprintf(err, errlen, "--token-cmd: interrupted");
    else if (status < 0 || !WIFEXITED(status))
        snprintf(err, errlen, "--token-cmd: the command was killed by signal %d%s%s",
                 status >= 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0, sep, c.errl);
    else if (WEXITSTATUS(status) != 0)
        snprintf(err, errlen, "--token-cmd: the command exited with status %d%s%s",
                 WEXITSTATUS(status), sep, c.errl);
    else if (c.too_long)
        snprintf(err, errlen, "--token-cmd: the command printed more than %zu bytes; a token "
                 "is one line", cap - 1);
    else {
        trim(out);
        const char *nl = strchr(out, '\n');
        size_t bad = 0;
        for (const char *p = out; *p && !bad; p++)
            bad = (unsigned char)*p < 0x20 || *p == 0x7f;
        if (!out[0])
            snprintf(err, errlen, "--token-cmd: the command printed no token%s%s", sep, c.errl);
        else if (nl)
            snprintf(err, errlen, "--token-cmd: the command printed more than one line; a token "
                     "is one line");
        else if (bad)
            snprintf(err, errlen, "--token-cmd: the token contains a control character");
        else
            rc = 0;
    }
cleanup:
    if (rc != 0)
        explicit_bzero(out, cap);
    explicit_bzero(c.errl, sizeof c.errl);
    for (int i = 0; i < 2; i++) {
        if (c.fd[i] >= 0)
            close(c.fd[i]);
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    if (devnull >= 0)
        close(devnull);
    return rc;
}

int rest_tokcmd_exec(const char *cmd, uint64_t timeout_ns, const bench_flag *interrupt, char *out,
                     size_t cap, char *err, size_t errlen)
{
    int cut = 0;
    return exec_cmd(cmd, timeout_ns, interrupt, out, cap, err, errlen, &cut);
}

/* ---- the refresher ------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* When to refresh a token got at `now`: at 90 % of its lifetime.  -1 when
 * the token has expired already (its exp is past). */
static int plan(const rest_tokcmd_cfg *cfg, const char *token, uint64_t now, uint64_t *at,
                char *err, size_t errlen)
{
    double exp = 0;
    uint64_t life = cfg->ttl_ns;
    if (rest_jwt_exp(token, &exp) == 0) {
        const double left = exp - wall_now();
        if (left <= 0) {
            snprintf(err, errlen, "--token-cmd: the token has expired already (its exp is %.0f s "
                     "ago: is the clock right?)", -left);
            return -1;
        }
        life = (uint64_t)(left * 1e9);
    }
    const uint64_t wait = life / 10 * 9;
    *at = now + (wait > REFRESH_MIN ? wait : REFRESH_MIN);
    return 0;
}

static void *refresher(void *arg)
{
    rest_tokcmd *t = arg;
    char *tok = malloc(REST_TOKCMD_MAX);
    char err[256];
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        if (t->halted) {
            pthread_cond_wait(&t->cv, &t->mu);
            continue;
        }
        const uint64_t now = bench_now_ns();
        if (!t->want && now < t->refresh_at) {
            struct timespec ts = { (time_t)(t->refresh_at / BENCH_NS_PER_S),
                                   (long)(t->refresh_at % BENCH_NS_PER_S) };
            pthread_cond_timedwait(&t->cv, &t->mu, &ts);
            continue;
        }
        const int asked = t->want;
        t->busy = 1;
        pthread_mutex_unlock(&t->mu);
        int rc = -1, cut = 0;
        uint64_t at = 0;
        if (!tok)
            snprintf(err, sizeof err, "--token-cmd: out of memory");
        else if ((rc = exec_cmd(t->cfg.cmd, t->cfg.timeout_ns, &t->cancel, tok, REST_TOKCMD_MAX,
                                err, sizeof err, &cut)) == 0)
            rc = plan(&t->cfg, tok, bench_now_ns(), &at, err, sizeof err);
        pthread_mutex_lock(&t->mu);
        t->busy = 0;
        if (cut) {
            /* Killed by a halt or a stop: no failure, and no backoff (its
             * refresh is still due), but a run of the command that may have
             * had its token from the server. */
            t->counts.cancelled++;
        } else if (rc == 0) {
            memcpy(t->token, tok, strlen(tok) + 1);
            atomic_store(&t->gen, atomic_load(&t->gen) + 1);
            t->refresh_at = at;
            t->got_at = bench_now_ns();
            t->backoff = 0;
            t->counts.refreshes++;
            t->counts.after_401 += asked != 0;
        } else {
            t->counts.failures++;
            t->fail_seq++;
            t->backoff = t->backoff ? t->backoff * 2 : BACKOFF_MIN;
            if (t->backoff > BACKOFF_MAX)
                t->backoff = BACKOFF_MAX;
            t->refresh_at = bench_now_ns() + t->backoff;
            snprintf(t->last_err, sizeof t->last_err, "%s", err);
        }
        if (tok)
            explicit_bzero(tok, REST_TOKCMD_MAX);
        t->want = 0;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    free(tok);
    return NULL;
}

rest_tokcmd *rest_tokcmd_start(const rest_tokcmd_cfg *cfg, char *err, size_t errlen)
{
    rest_tokcmd *t = calloc(1, sizeof *t);
    pthread_condattr_t ca;
    int have_mu = 0, have_cv = 0;
    if (!t) {
        snprintf(err, errlen, "--token-cmd: out of memory");
        return NULL;
    }
    t->cfg = *cfg;
    if (rest_tokcmd_exec(cfg->cmd, cfg->timeout_ns, cfg->interrupt, t->token, sizeof t->token, err,
                         errlen) != 0 ||
        plan(cfg, t->token, bench_now_ns(), &t->refresh_at, err, errlen) != 0)
        goto fail;
    atomic_store(&t->gen, 1);
    t->got_at = bench_now_ns();
    if (pthread_mutex_init(&t->mu, NULL) != 0)
        goto fail_sys;
    have_mu = 1;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_sys;
    const int cok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                    pthread_cond_init(&t->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!cok)
        goto fail_sys;
    have_cv = 1;
    if (pthread_create(&t->th, NULL, refresher, t) != 0)
        goto fail_sys;
    return t;
fail_sys:
    snprintf(err, errlen, "--token-cmd: cannot start the refresher: %s", strerror(errno));
fail:
    if (have_cv)
        pthread_cond_destroy(&t->cv);
    if (have_mu)
        pthread_mutex_destroy(&t->mu);
    explicit_bzero(t->token, sizeof t->token);
    free(t);
    return NULL;
}

void rest_tokcmd_halt(rest_tokcmd *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->halted = 1;
    t->want = 0;
    /* The refresher sees cancel within reap's 100 ms poll and kills the
     * command's process group. */
    atomic_store(&t->cancel, 1);
    pthread_cond_broadcast(&t->cv);
    while (t->busy)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

void rest_tokcmd_resume(rest_tokcmd *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    /* halt waited for the run in progress, and none starts while halted:
     * cancel is read by no one now. */
    if (t->halted && !t->stop) {
        t->halted = 0;
        atomic_store(&t->cancel, 0);
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
}

void rest_tokcmd_stop(rest_tokcmd *t)
{
    if (!t)
        return;
    /* The run is over (or interrupted): a refresh in progress is killed
     * rather than waited for. */
    atomic_store(&t->cancel, 1);
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    (void)pthread_join(t->th, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    explicit_bzero(t->token, sizeof t->token);
    free(t);
}

unsigned long rest_tokcmd_gen(const rest_tokcmd *t)
{
    return atomic_load(&t->gen);
}

unsigned long rest_tokcmd_get(rest_tokcmd *t, char *buf, size_t cap)
{
    pthread_mutex_lock(&t->mu);
    snprintf(buf, cap, "%s", t->token);
    const unsigned long g = atomic_load(&t->gen);
    pthread_mutex_unlock(&t->mu);
    return g;
}

char *rest_tokcmd_copy(rest_tokcmd *t, unsigned long *gen)
{
    pthread_mutex_lock(&t->mu);
    char *c = strdup(t->token);
    *gen = atomic_load(&t->gen);
    pthread_mutex_unlock(&t->mu);
    return c;
}

void rest_tokcmd_wipe(char *copy)
{
    if (copy)
        explicit_bzero(copy, strlen(copy));
    free(copy);
}

int rest_tokcmd_renew(rest_tokcmd *t, unsigned long seen)
{
    pthread_mutex_lock(&t->mu);
    /* Halted: the counts are the run's results already; no retry after them. */
    if (t->halted) {
        pthread_mutex_unlock(&t->mu);
        return -1;
    }
    const unsigned long fails = t->fail_seq;
    const uint64_t deadline = bench_now_ns() + t->cfg.timeout_ns + BENCH_NS_PER_S;
    /* One refresh at a time: a 401 during a refresh waits for that one;
     * after a failure the backoff holds, and a token refused within a
     * second of coming is not renewed again (no command storm on 401s). */
    if (atomic_load(&t->gen) == seen && bench_now_ns() - t->got_at < RENEW_MIN) {
        pthread_mutex_unlock(&t->mu);
        return -1;
    }
    if (atomic_load(&t->gen) == seen && !t->backoff) {
        t->want = 1;
        pthread_cond_broadcast(&t->cv);
    }
    while (atomic_load(&t->gen) == seen && t->fail_seq == fails && !t->stop && !t->halted &&
           !t->backoff) {
        if (bench_now_ns() >= deadline)
            break;
        struct timespec ts = { (time_t)(deadline / BENCH_NS_PER_S),
                               (long)(deadline % BENCH_NS_PER_S) };
        pthread_cond_timedwait(&t->cv, &t->mu, &ts);
    }
    const int rc = atomic_load(&t->gen) != seen && !t->halted ? 0 : -1;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void rest_tokcmd_note_retry(rest_tokcmd *t)
{
    atomic_fetch_add(&t->retries, 1);
}

void rest_tokcmd_counts_get(rest_tokcmd *t, rest_tokcmd_counts *out)
{
    pthread_mutex_lock(&t->mu);
    *out = t->counts;
    pthread_mutex_unlock(&t->mu);
    out->retries = atomic_load(&t->retries);
}

void rest_tokcmd_last_error(rest_tokcmd *t, char *buf, size_t cap)
{
    pthread_mutex_lock(&t->mu);
    snprintf(buf, cap, "%s", t->last_err);
    pthread_mutex_unlock(&t->mu);
}

void rest_tokcmd_print(rest_tokcmd *t, FILE *f)
{
    rest_tokcmd_counts c;
    rest_tokcmd_counts_get(t, &c);
    fprintf(f, "  token refreshes:   %llu (%llu after a 401; %llu requests sent again with the "
            "new token; %llu runs of --token-cmd failed",
            (unsigned long long)c.refreshes, (unsigned long long)c.after_401,
            (unsigned long long)c.retries, (unsigned long long)c.failures);
    if (c.cancelled)
        fprintf(f, "; %llu cut off when a run ended", (unsigned long long)c.cancelled);
    fputs(")\n", f);
}

json_t *rest_tokcmd_json(rest_tokcmd *t)
{
    rest_tokcmd_counts c;
    rest_tokcmd_counts_get(t, &c);
    return json_pack("{s:I,s:I,s:I,s:I,s:I}", "refreshes", (json_int_t)c.refreshes, "after_401",
                     (json_int_t)c.after_401, "retried_requests", (json_int_t)c.retries, "failed",
                     (json_int_t)c.failures, "cancelled", (json_int_t)c.cancelled);
}

void rest_tokcmd_warn(rest_tokcmd *t)
{
    rest_tokcmd_counts c;
    char last[256];
    rest_tokcmd_counts_get(t, &c);
    if (!c.failures)
        return;
    rest_tokcmd_last_error(t, last, sizeof last);
    bench_warn("%llu run%s of --token-cmd gave no token (the last: %s)",
               (unsigned long long)c.failures, c.failures == 1 ? "" : "s", last);
}

rest_tokcmd *rest_tokcmd_open(const char *cmd, uint64_t ttl_ns, const bench_flag *interrupt,
                              int *exit_code)
{
    char err[512];
    const rest_tokcmd_cfg tc = { cmd, ttl_ns ? ttl_ns : REST_TOKCMD_DEFAULT_TTL,
                                 REST_TOKCMD_TIMEOUT_NS, interrupt };
    rest_tokcmd *t = rest_tokcmd_start(&tc, err, sizeof err);
    if (t)
        return t;
    if (interrupt && *interrupt) {
        *exit_code = BENCH_EXIT_INTERRUPTED;
    } else {
        *exit_code = BENCH_EXIT_MODULE;
        bench_error("%s", err);
    }
    return NULL;
}

int rest_tokcmd_ttl_opt(const char *arg, uint64_t *ttl_ns)
{
    return bench_parse_duration("--token-ttl", arg, BENCH_NS_PER_S,
                                30ULL * 24 * 3600 * BENCH_NS_PER_S, ttl_ns);
}

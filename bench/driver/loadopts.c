/* SPDX-License-Identifier: Apache-2.0 */
/* bench/driver/loadopts.c - the shared load flags and their rules. */
#include "bench/driver/loadopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/util/cli.h"

#define MAX_DURATION_NS (7ULL * 24 * 3600 * 1000000000ULL)   /* a week */

static const bench_option load_rows[] = {
    { "threads", 0, BENCH_ARG_REQUIRED, "N[,N...]", BENCH_OPT_THREADS,
      "worker threads, each with its own session or connection\n"
      "(default 1, max 1024); a list sweeps (run only), and a\n"
      "blocking sweep of 3+ counts ends with a scalability fit:\n"
      "contention, coherency, predicted peak, knee", NULL },
    { "duration", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_DURATION,
      "measured time: 30, 30s, 500ms, 2m (default 10s)", NULL },
    { "iterations", 0, BENCH_ARG_REQUIRED, "N", BENCH_OPT_ITERATIONS,
      "measured operations in total, instead of a duration", NULL },
    { "iterations-per-thread", 0, BENCH_ARG_REQUIRED, "N", BENCH_OPT_ITER_THREAD,
      "measured operations per thread, instead", NULL },
    { "loops", 0, BENCH_ARG_REQUIRED, "N", BENCH_OPT_LOOPS,
      "JMeter's loop count: each thread does N operations,\n"
      "then stops (--iterations-per-thread N)", NULL },
    { "ramp-up", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_RAMP_UP,
      "blocking: JMeter's ramp-up, threads started evenly\n"
      "over TIME (thread i of N at i*TIME/N), measured as\n"
      "JMeter counts it; with --loops, --duration or alone", NULL },
    { "until-stable", 0, BENCH_ARG_REQUIRED, "PCT", BENCH_OPT_UNTIL_STABLE,
      "end the run once the 95% interval of this run's steady-\n"
      "state throughput is within PCT of its mean (0 < PCT <= 50;\n"
      "warm-up found by MSER-5, batch means; at least 5s and\n"
      "10 batches), or at --duration (default 60s with it)", NULL },
    { "warmup", 0, BENCH_ARG_REQUIRED, "TIME|Nit", BENCH_OPT_WARMUP,
      "run this long first (or each thread's first N operations),\n"
      "excluded from results (default 0)", NULL },
    { "mode", 0, BENCH_ARG_REQUIRED, "blocking|nonblocking", BENCH_OPT_MODE,
      "closed loop (default), or requests issued on a\n"
      "schedule and executed by the threads; latency then counts\n"
      "from when each request was due (coordinated omission)", NULL },
    { "rate", 0, BENCH_ARG_REQUIRED, "OPS_PER_S", BENCH_OPT_RATE,
      "requests per second in total: an open loop (k6's\n"
      "constant-arrival-rate), --mode nonblocking implied", NULL },
    { "inflight", 0, BENCH_ARG_REQUIRED, "K", BENCH_OPT_INFLIGHT,
      "non-blocking: at most K requests outstanding", NULL },
    { "stages", 0, BENCH_ARG_REQUIRED, "5s:70,30s:70,5s:0", BENCH_OPT_STAGES,
      "ramps (k6 syntax): threads when blocking,\n"
      "requests/s when non-blocking; replaces --duration", NULL },
    { "think", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_THINK,
      "blocking: pause after each operation (untimed)", NULL },
    { "abort-on-errors", 0, BENCH_ARG_REQUIRED, "TIME|off", BENCH_OPT_ABORT,
      "stop the run, as failed, once every operation\n"
      "failed for this long (the device is gone; default 3s)", NULL },
    { "max-unstarted", 0, BENCH_ARG_REQUIRED, "PCT", BENCH_OPT_MAX_UNSTARTED,
      "non-blocking with --rate or --stages: the run fails,\n"
      "target saturated, when more than PCT of its scheduled\n"
      "requests never started (and more than its threads or\n"
      "slots; default 1%, 100% never)", NULL },
    { "stuck-after", 0, BENCH_ARG_REQUIRED, "TIME|off", BENCH_OPT_STUCK,
      "a worker inside one call this long is stuck: the run\n"
      "stops as failed, naming it, writes its results and ends\n"
      "(default 10s; rest: --timeout + 5s if longer)", NULL },
};
const bench_opt_group bench_load_group = BENCH_OPT_GROUP("Load:", load_rows, NULL);

static const bench_option metrics_rows[] = {
    { "metrics-listen", 0, BENCH_ARG_REQUIRED, "[ADDR:]PORT", BENCH_OPT_METRICS_LISTEN,
      "serve Prometheus metrics on http://ADDR:PORT/metrics\n"
      "while running (ADDR default 127.0.0.1; [::1]:9464 for IPv6;\n"
      "0.0.0.0:9464 for a scraper on another machine)", NULL },
    { "metrics-linger", 0, BENCH_ARG_REQUIRED, "TIME", BENCH_OPT_METRICS_LINGER,
      "keep answering this long after the end (default 5s)", NULL },
    { "metrics-buckets", 0, BENCH_ARG_REQUIRED, "coarse|fine", BENCH_OPT_METRICS_BUCKETS,
      "the latency histogram's buckets: coarse, 25, 4 a decade\n"
      "from 10us to 10s (default); fine, 416, 16 an octave\n"
      "from 1us to 60s (a scrape 10 times the size)", NULL },
    { "metrics-push", 0, BENCH_ARG_REQUIRED, "URL", BENCH_OPT_METRICS_PUSH,
      "push the metrics to a Prometheus Pushgateway at URL\n"
      "every 5s and at the end (group: job hsmbench, run_id,\n"
      "generator)", NULL },
};
const bench_opt_group bench_metrics_group = BENCH_OPT_GROUP("Metrics:", metrics_rows, NULL);

void bench_load_opts_init(bench_load_opts *o)
{
    memset(o, 0, sizeof *o);
    o->load.threads = 1;
    o->load.abort_ns = BENCH_ABORT_DEFAULT_NS;
    o->load.max_unstarted = BENCH_MAX_UNSTARTED_DEFAULT;
    o->load.stuck_ns = BENCH_STUCK_DEFAULT_NS;
    bench_metrics_opts_init(&o->metrics);
}

int bench_load_is_mode(const char *value)
{
    return strcmp(value, "blocking") == 0 || strcmp(value, "nonblocking") == 0 ||
           strcmp(value, "non-blocking") == 0;
}

/* "4" or "1,2,4,8": a list of thread counts. */
static int parse_threads(bench_load_opts *o, const char *text)
{
    char buf[512];
    char *save = NULL;
    uint64_t v;

    o->nthreads = 0;
    if (strlen(text) >= sizeof buf || !*text || text[0] == ',' || text[strlen(text) - 1] == ',' ||
        strstr(text, ",,")) {
        bench_error("--threads %s: give a number or a comma-separated list", text);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (o->nthreads == BENCH_MAX_SWEEP) {
            bench_error("--threads: at most %d values", BENCH_MAX_SWEEP);
            return -1;
        }
        if (bench_parse_u64("--threads", item, 1, BENCH_MAX_THREADS, &v) != 0)
            return -1;
        o->threads_list[o->nthreads++] = (unsigned)v;
    }
    o->threads_given = 1;
    return 0;
}

int bench_parse_stable_pct(const char *text, int zero_off, double *pct)
{
    /* Not bench_parse_pct: its range includes 0, which only a datasheet takes (off). */
    char *end = NULL;
    const double v = bench_strtod(text, &end);
    if (end != text && *end == '%')
        end++;
    if (end == text || *end || !(zero_off ? v >= 0 : v > 0) || !(v <= BENCH_STABLE_MAX_PCT)) {
        if (zero_off)
            bench_error("--until-stable %s: a percentage from 0 (off) to %g%% (e.g. 5%%)", text,
                        BENCH_STABLE_MAX_PCT);
        else
            bench_error("--until-stable %s: a percentage more than 0%% and at most %g%% (e.g. 2%%)", text,
                        BENCH_STABLE_MAX_PCT);
        return -1;
    }
    *pct = v;
    return 0;
}

int bench_load_opt(bench_load_opts *o, int code, char *arg)
{
    uint64_t v;
    switch (code) {
    case BENCH_OPT_THREADS:
        return parse_threads(o, arg) == 0 ? 1 : -1;
    case BENCH_OPT_DURATION:
        if (bench_parse_duration("--duration", arg, 1000000ULL, MAX_DURATION_NS, &o->load.duration_ns) != 0)
            return -1;
        o->has_duration = 1;
        return 1;
    case BENCH_OPT_ITERATIONS:
        if (bench_parse_u64("--iterations", arg, 1, 1000000000000ULL, &v) != 0)
            return -1;
        o->load.iterations = v;
        o->iter_total = 1;
        return 1;
    case BENCH_OPT_ITER_THREAD:
    case BENCH_OPT_LOOPS: {
        const char *flag = code == BENCH_OPT_LOOPS ? "--loops" : "--iterations-per-thread";
        if (o->per_thread_flag) {
            bench_error("%s and %s each give the operations per thread: give only one",
                        o->per_thread_flag, flag);
            return -1;
        }
        if (bench_parse_u64(flag, arg, 1, 1000000000000ULL, &v) != 0)
            return -1;
        o->load.iterations = v;
        o->load.per_thread = 1;
        o->per_thread_flag = flag;
        return 1;
    }
    case BENCH_OPT_UNTIL_STABLE:
        return bench_parse_stable_pct(arg, 0, &o->load.stable_pct) == 0 ? 1 : -1;
    case BENCH_OPT_RAMP_UP:
        return bench_parse_duration("--ramp-up", arg, 0, 3600ULL * 1000000000ULL, &o->load.ramp_up_ns) == 0
                   ? 1 : -1;
    case BENCH_OPT_WARMUP: {
        size_t n = strlen(arg);
        if (n > 2 && strcmp(arg + n - 2, "it") == 0) {
            /* p11perftest's skip: each thread's first N operations. */
            char num[32];
            snprintf(num, sizeof num, "%.*s", (int)(n - 2), arg);
            return bench_parse_u64("--warmup", num, 1, 1000000000ULL, &o->load.warmup_ops) == 0 ? 1 : -1;
        }
        return bench_parse_duration("--warmup", arg, 0, 3600ULL * 1000000000ULL, &o->load.warmup_ns) == 0
                   ? 1 : -1;
    }
    case BENCH_OPT_MODE:
        o->mode_given = 1;
        if (strcmp(arg, "blocking") == 0) {
            o->load.mode = BENCH_MODE_BLOCKING;
        } else if (bench_load_is_mode(arg)) {
            o->load.mode = BENCH_MODE_NONBLOCKING;
        } else {
            bench_error("--mode %s: use blocking or nonblocking", arg);
            return -1;
        }
        return 1;
    case BENCH_OPT_RATE: {
        char *end = NULL;
        o->load.rate = bench_strtod(arg, &end);
        if (end == arg || *end || !(o->load.rate > 0) || o->load.rate > 10000000.0) {
            bench_error("--rate %s: operations per second, more than 0 and at most 10000000", arg);
            return -1;
        }
        return 1;
    }
    case BENCH_OPT_INFLIGHT:
        if (bench_parse_u64("--inflight", arg, 1, 100000, &v) != 0)
            return -1;
        o->load.inflight = (unsigned)v;
        return 1;
    case BENCH_OPT_STAGES:
        /* Given once as --stages (the parser's rule); again only as k6's
         * repeated --stage, an old spelling (options.h): each adds stages. */
        if (o->stages_text) {
            const size_t used = strlen(o->stages_text);
            if (used + 1 + strlen(arg) >= sizeof o->stages_buf) {
                bench_error("--stages: the stages given are over %zu characters together",
                            sizeof o->stages_buf - 1);
                return -1;
            }
            if (o->stages_text != o->stages_buf)
                memcpy(o->stages_buf, o->stages_text, used + 1);
            snprintf(o->stages_buf + used, sizeof o->stages_buf - used, ",%s", arg);
            arg = o->stages_buf;
        }
        o->stages_text = arg;
        return 1;
    case BENCH_OPT_ABORT:
        if (strcmp(arg, "off") == 0 || strcmp(arg, "0") == 0) {
            o->load.abort_ns = 0;
            return 1;
        }
        return bench_parse_duration("--abort-on-errors", arg, 1000000000ULL, MAX_DURATION_NS,
                                    &o->load.abort_ns) == 0 ? 1 : -1;
    case BENCH_OPT_MAX_UNSTARTED:
        o->max_unstarted_given = 1;
        return bench_parse_pct("--max-unstarted", arg, 0, 100, "1%", &o->load.max_unstarted) == 0 ? 1 : -1;
    case BENCH_OPT_STUCK:
        o->stuck_given = 1;
        if (strcmp(arg, "off") == 0 || strcmp(arg, "0") == 0) {
            o->load.stuck_ns = 0;
            return 1;
        }
        return bench_parse_duration("--stuck-after", arg, 100000000ULL, MAX_DURATION_NS,
                                    &o->load.stuck_ns) == 0 ? 1 : -1;
    case BENCH_OPT_THINK:
        return bench_parse_duration("--think", arg, 0, 3600ULL * 1000000000ULL, &o->load.think_ns) == 0
                   ? 1 : -1;
    default:
        return bench_metrics_opt(&o->metrics, code, arg);
    }
}

void bench_load_stuck_floor(bench_load_opts *o, uint64_t call_bound_ns)
{
    const uint64_t floor = call_bound_ns + BENCH_STUCK_MARGIN_NS;
    if (!o->stuck_given && o->load.stuck_ns < floor)
        o->load.stuck_ns = floor;
}

int bench_load_finish(bench_load_opts *o, uint64_t default_duration_ns)
{
    bench_load *l = &o->load;

    /* A fixed rate is an open loop (k6's constant-arrival-rate): requests
     * are issued when due whatever the target's answers, so --rate alone
     * chooses the non-blocking schedule. */
    if (l->rate > 0 && !o->mode_given)
        l->mode = BENCH_MODE_NONBLOCKING;
    const int nb = l->mode == BENCH_MODE_NONBLOCKING;

    if (l->iterations && l->per_thread && o->iter_total) {
        bench_error("--iterations and %s both bound the run: give only one", o->per_thread_flag);
        return -1;
    }
    if (l->ramp_up_ns && nb) {
        bench_error("--ramp-up starts the threads of a blocking run; a non-blocking run ramps its "
                    "rate with --stages");
        return -1;
    }
    if (l->ramp_up_ns && o->stages_text) {
        bench_error("--stages ramps the threads already: leave out --ramp-up");
        return -1;
    }

    if (o->stages_text) {
        if (bench_stages_parse("--stages", o->stages_text, nb ? 10000000.0 : 1024.0, &o->stages) != 0)
            return -1;
        if (o->has_duration || l->iterations) {
            bench_error("--stages sets the run's length: leave out --duration and --iterations");
            return -1;
        }
        if (!nb && o->threads_given) {
            bench_error("--stages sets the threads of a blocking run: leave out --threads");
            return -1;
        }
        if (nb && l->rate > 0) {
            bench_error("--stages sets the rate of a non-blocking run: leave out --rate");
            return -1;
        }
        l->stages = &o->stages;
        l->duration_ns = bench_stages_total_ns(&o->stages);
        o->has_duration = 1;
        if (!nb) {
            double peak = bench_stages_peak(&o->stages);
            l->threads = peak < 1 ? 1 : (unsigned)(peak + 0.999);
        }
    }
    if (nb) {
        if (!l->rate && !l->inflight && !o->stages_text) {
            bench_error("--mode nonblocking needs a schedule: --rate, --inflight or --stages");
            return -1;
        }
        if (l->iterations) {
            bench_error("--mode nonblocking runs for a time: use --duration or --stages, not --iterations");
            return -1;
        }
        if (l->think_ns) {
            bench_error("--think applies to blocking runs; a non-blocking run's schedule sets its pace");
            return -1;
        }
        if (l->warmup_ops) {
            /* The schedule cannot tell whose first operations those would be. */
            bench_error("--warmup Nit applies to blocking runs; give a non-blocking run a warm-up time");
            return -1;
        }
    } else if (l->rate) {
        bench_error("--rate is an open loop, requests issued when due: it cannot run with --mode "
                    "blocking (a closed loop paces itself: use --think); leave out --mode");
        return -1;
    } else if (l->inflight) {
        bench_error("--inflight needs --mode nonblocking");
        return -1;
    }
    if (o->max_unstarted_given && !(nb && (l->rate > 0 || o->stages_text))) {
        bench_error("--max-unstarted bounds a schedule's requests that never started: it needs "
                    "--mode nonblocking with --rate or --stages");
        return -1;
    }
    if (l->warmup_ops && l->warmup_ns) {
        bench_error("--warmup takes a time or a count (Nit), once");
        return -1;
    }
    if (o->has_duration && l->iterations) {
        bench_error("--duration and --iterations both bound the run: give only one");
        return -1;
    }
    if (l->stable_pct > 0) {
        /* A count or a ramp sets the run's end or its load: no steady state to wait for. */
        const char *clash = l->iterations && o->iter_total ? "--iterations"
                          : l->iterations ? o->per_thread_flag
                          : o->stages_text ? "--stages" : NULL;
        if (clash) {
            bench_error("--until-stable ends a run bounded by --duration: leave out %s", clash);
            return -1;
        }
        if (!o->has_duration)
            l->duration_ns = BENCH_STABLE_BOUND_NS;
        o->has_duration = 1;
    }
    if (o->nthreads > 1 && o->stages_text) {
        bench_error("--threads lists and --stages both vary the load: give one");
        return -1;
    }
    if (!o->has_duration && !l->iterations)
        l->duration_ns = default_duration_ns;
    if (l->ramp_up_ns && l->duration_ns && l->ramp_up_ns >= l->duration_ns) {
        bench_error("--ramp-up: its last threads would start after the run's %g s end: give a "
                    "shorter ramp-up, or a longer --duration", (double)l->duration_ns / 1e9);
        return -1;
    }
    /* The list holds the thread counts; the load runs the first (a sweep,
     * bench_sweep_run, each in turn). */
    if (!o->nthreads) {
        o->threads_list[0] = l->threads;
        o->nthreads = 1;
    }
    l->threads = o->threads_list[0];
    return 0;
}

int bench_load_check_fds(const bench_load_opts *o, unsigned per_thread, unsigned per_slot)
{
    const bench_load *l = &o->load;
    unsigned threads = l->threads;
    for (size_t i = 0; i < o->nthreads; i++)
        if (o->threads_list[i] > threads)
            threads = o->threads_list[i];
    /* A non-blocking run's slots: --inflight, else 16 a thread (as the
     * engines that keep several in flight size themselves). */
    const int nb = l->mode == BENCH_MODE_NONBLOCKING;
    const unsigned slots = !per_slot ? 0 : nb ? (l->inflight ? l->inflight : 16 * threads) : threads;
    const uint64_t need = BENCH_FDS_BASE + (uint64_t)threads * per_thread + (uint64_t)slots * per_slot;
    char flag[48];
    if (nb && l->inflight && per_slot)
        snprintf(flag, sizeof flag, "--inflight %u", l->inflight);
    else
        snprintf(flag, sizeof flag, "--threads %u", threads);

    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        bench_error("getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
        return -1;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        const rlim_t was = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0) {
            if (rl.rlim_max == RLIM_INFINITY)
                bench_warn("%s needs about %llu file descriptors: raised the soft limit (ulimit -n) "
                           "from %llu to unlimited", flag, (unsigned long long)need,
                           (unsigned long long)was);
            else
                bench_warn("%s needs about %llu file descriptors: raised the soft limit (ulimit -n) "
                           "from %llu to the hard limit, %llu", flag, (unsigned long long)need,
                           (unsigned long long)was, (unsigned long long)rl.rlim_max);
            return 0;
        }
        rl.rlim_cur = was;
    }
    bench_error("%s needs about %llu file descriptors; the limit (ulimit -n) is %llu%s", flag,
                (unsigned long long)need, (unsigned long long)rl.rlim_cur,
                rl.rlim_max == rl.rlim_cur ? ", the hard limit too" : "");
    return -1;
}

/* p11/cmd_run.c - "hsmbench run": batch benchmarks of a PKCS#11 token. */
#include "p11/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/cli.h"
#include "bench/exit.h"
#include "bench/pool.h"
#include "bench/report.h"
#include "bench/signals.h"
#include "p11/names.h"
#include "p11/target.h"
#include "p11/token.h"
#include "p11/tests.h"

#define MAX_TESTS      32
#define MAX_THREADS    1024
#define MAX_DURATION_NS (7ULL * 24 * 3600 * 1000000000ULL)   /* a week */
#define DEFAULT_DURATION_NS (10ULL * 1000000000ULL)

static const char run_usage[] =
    "Usage: hsmbench run [selection] [test] [load] [output]\n"
    "\n"
    "Benchmark PKCS#11 operations on a token.  With no --module, hsmbench's own\n"
    "SoftHSM token is used (created on first use under $HSMBENCH_HOME).\n"
    "\n"
    "Selection:\n"
    "  --module NAME|PATH   PKCS#11 module: a file, or a name p11-kit registers\n"
    "  --init-args STRING   initialisation string for the module (pReserved)\n"
    "  --slot ID | --token LABEL | --uri PKCS11-URI   the token to use\n"
    "  --pin-env VAR | --pin-file FILE | --pin PIN     the user PIN (--pin warns);\n"
    "                       with none, the PIN is asked without echo on a terminal\n"
    "Test:\n"
    "  --test NAME[,NAME...]  tests to run in turn (see: hsmbench list tests)\n"
    "                       default rsa-pkcs-sign\n"
    "  --key-size BITS      RSA 1024/2048/3072/4096/8192, AES 128/192/256, HMAC key\n"
    "  --curve P-256|P-384|P-521   EC curve for ecdsa-sign\n"
    "  --data-size BYTES    input size, 1..16200 (default per test)\n"
    "Load:\n"
    "  --threads N          worker threads, each with its own session (default 1, max 1024)\n"
    "  --duration TIME      measured time: 30, 30s, 500ms, 2m (default 10s)\n"
    "  --iterations N       measured operations in total, instead of a duration\n"
    "  --warmup TIME        run this long first, excluded from results (default 0)\n"
    "Output:\n"
    "  --json FILE          write results (schema hsmbench.result/1)\n"
    "  --quiet              no per-second lines and no summary; errors only\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit codes: 0 success; 1 the run finished but operations failed; 2 bad usage\n"
    "or input; 3 module, token or login failure; 130 interrupted.\n";

enum {
    OPT_TEST = 2000, OPT_KEY_SIZE, OPT_CURVE, OPT_DATA_SIZE, OPT_THREADS, OPT_DURATION,
    OPT_ITERATIONS, OPT_WARMUP, OPT_JSON, OPT_QUIET,
};

typedef struct run_opts {
    p11_target_opts    target;
    const p11_test_def *tests[MAX_TESTS];
    size_t             ntests;
    p11_test_params    params;
    bench_load         load;
    const char        *json;
    int                quiet;
    int                has_duration;
} run_opts;

static int parse_tests(run_opts *o, const char *arg)
{
    char *copy = strdup(arg), *save = NULL;
    int rc = 0;
    if (!copy) {
        bench_error("out of memory");
        return -1;
    }
    o->ntests = 0;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const p11_test_def *def = p11_test_find(name);
        if (!def) {
            bench_error("--test %s: unknown test (see: hsmbench list tests)", name);
            rc = -1;
            break;
        }
        if (o->ntests == MAX_TESTS) {
            bench_error("--test: at most %d tests in one run", MAX_TESTS);
            rc = -1;
            break;
        }
        o->tests[o->ntests++] = def;
    }
    if (rc == 0 && o->ntests == 0) {
        bench_error("--test: no test named");
        rc = -1;
    }
    free(copy);
    return rc;
}

static int parse_args(int argc, char **argv, run_opts *o)
{
    static const struct option longopts[] = {
        P11_TARGET_LONGOPTS,
        { "test", required_argument, NULL, OPT_TEST },
        { "key-size", required_argument, NULL, OPT_KEY_SIZE },
        { "curve", required_argument, NULL, OPT_CURVE },
        { "data-size", required_argument, NULL, OPT_DATA_SIZE },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "duration", required_argument, NULL, OPT_DURATION },
        { "iterations", required_argument, NULL, OPT_ITERATIONS },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "json", required_argument, NULL, OPT_JSON },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t v;
    int c;
    char so[3];

    memset(o, 0, sizeof *o);
    o->load.threads = 1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int t = p11_target_opt(&o->target, c, optarg);
        if (t < 0)
            return BENCH_EXIT_USAGE;
        if (t > 0)
            continue;
        switch (c) {
        case 'h':
            fputs(run_usage, stdout);
            return -1;
        case OPT_TEST:
            if (parse_tests(o, optarg) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_KEY_SIZE:
            if (bench_parse_u64("--key-size", optarg, 1, 65536, &v) != 0)
                return BENCH_EXIT_USAGE;
            o->params.key_bits = (unsigned)v;
            break;
        case OPT_CURVE:
            o->params.curve = optarg;
            break;
        case OPT_DATA_SIZE:
            if (bench_parse_u64("--data-size", optarg, 1, 16200, &v) != 0)
                return BENCH_EXIT_USAGE;
            o->params.data_size = v;
            break;
        case OPT_THREADS:
            if (bench_parse_u64("--threads", optarg, 1, MAX_THREADS, &v) != 0)
                return BENCH_EXIT_USAGE;
            o->load.threads = (unsigned)v;
            break;
        case OPT_DURATION:
            if (bench_parse_duration("--duration", optarg, 1000000ULL, MAX_DURATION_NS,
                                     &o->load.duration_ns) != 0)
                return BENCH_EXIT_USAGE;
            o->has_duration = 1;
            break;
        case OPT_ITERATIONS:
            if (bench_parse_u64("--iterations", optarg, 1, 1000000000000ULL, &v) != 0)
                return BENCH_EXIT_USAGE;
            o->load.iterations = v;
            break;
        case OPT_WARMUP:
            if (bench_parse_duration("--warmup", optarg, 0, 3600ULL * 1000000000ULL,
                                     &o->load.warmup_ns) != 0)
                return BENCH_EXIT_USAGE;
            break;
        case OPT_JSON:
            o->json = optarg;
            break;
        case OPT_QUIET:
            o->quiet = 1;
            break;
        case ':':
            bench_error("%s: a value is required (see: hsmbench run --help)", bench_bad_option(argv, optind, optopt, so));
            return BENCH_EXIT_USAGE;
        default:
            bench_error("%s: unknown option (see: hsmbench run --help)", bench_bad_option(argv, optind, optopt, so));
            return BENCH_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench run --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    if (p11_target_check(&o->target) != 0)
        return BENCH_EXIT_USAGE;
    if (o->has_duration && o->load.iterations) {
        bench_error("--duration and --iterations both bound the run: give only one");
        return BENCH_EXIT_USAGE;
    }
    if (!o->has_duration && !o->load.iterations)
        o->load.duration_ns = DEFAULT_DURATION_NS;
    if (o->ntests == 0) {
        o->tests[0] = p11_test_find("rsa-pkcs-sign");
        o->ntests = 1;
    }
    /* Every value must fit every test named, before anything is loaded. */
    for (size_t i = 0; i < o->ntests; i++) {
        p11_test_params resolved;
        if (p11_test_resolve(o->tests[i], &o->params, &resolved) != 0)
            return BENCH_EXIT_USAGE;
    }
    if (o->json && !bench_path_writable("--json", o->json))
        return BENCH_EXIT_USAGE;
    return 0;
}

/* The command line as run, secrets replaced by "***". */
static json_t *redacted_argv(int argc, char **argv)
{
    json_t *arr = json_array();
    json_array_append_new(arr, json_string("hsmbench"));
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i > 0 && strcmp(argv[i - 1], "--pin") == 0) {
            json_array_append_new(arr, json_string("***"));
        } else if (strncmp(a, "--pin=", 6) == 0) {
            json_array_append_new(arr, json_string("--pin=***"));
        } else if (strstr(a, "pin-value=")) {
            char buf[2048];
            json_array_append_new(arr, json_string(p11_uri_redact(a, buf, sizeof buf)));
        } else {
            json_array_append_new(arr, json_string(a));
        }
    }
    return arr;
}

static void on_second(void *arg, const bench_sample *s)
{
    const run_opts *o = arg;
    if (!o->quiet)
        bench_report_second(stdout, s);
}

typedef struct run_state {
    const run_opts *o;
    p11_target     *t;
    const volatile sig_atomic_t *interrupt;
    json_t         *runs;
    int             any_failed, any_errors, interrupted;
} run_state;

static void desc_fill(bench_run_desc *d, const run_opts *o, const p11_test_def *def,
                      const p11_test_params *p, char *keydesc, size_t klen, char *mech, size_t mlen)
{
    memset(d, 0, sizeof *d);
    d->test = def->name;
    d->mechanism = p11_mech_name(def->mech, mech, mlen);
    d->mode = "blocking";
    d->key_type = p11_test_key_type(def);
    d->key_desc = p11_test_key_desc(def, p, keydesc, klen);
    d->key_bits = p->key_bits;
    d->curve = def->key == KEYS_EC ? p->curve : NULL;
    d->threads = o->load.threads;
    d->data_size = p->data_size;
    d->warmup_s = (double)o->load.warmup_ns / 1e9;
    d->duration_s = (double)o->load.duration_ns / 1e9;
    d->iterations = o->load.iterations;
}

static void run_one(run_state *st, const p11_test_def *def)
{
    const run_opts *o = st->o;
    p11_test_params p;
    char keydesc[48], mech[48], reason[256];
    bench_run_desc d;

    if (p11_test_resolve(def, &o->params, &p) != 0) {   /* validated already */
        st->any_failed = 1;
        return;
    }
    desc_fill(&d, o, def, &p, keydesc, sizeof keydesc, mech, sizeof mech);

    if (!p11_test_supported(st->t->mod, st->t->token.slot, def, &p, reason, sizeof reason)) {
        if (!o->quiet)
            printf("\n%s: skipped: %s\n", def->name, reason);
        json_array_append_new(st->runs, bench_report_run_json(&d, NULL, NULL, "skipped", reason));
        return;
    }

    p11_test_ctx ctx;
    CK_RV rv = p11_test_prepare(&ctx, st->t->mod, st->t->token.slot, st->t->control, def, &p);
    if (rv != CKR_OK) {
        char rb[32];
        snprintf(reason, sizeof reason, "key generation failed: %s", p11_rv_name(rv, rb, sizeof rb));
        json_array_append_new(st->runs, bench_report_run_json(&d, NULL, NULL, "failed", reason));
        st->any_failed = 1;
        return;
    }
    if (*st->interrupt) {
        /* Ctrl-C during key generation: nothing measured, keys still go. */
        p11_test_release(&ctx);
        st->interrupted = 1;
        json_array_append_new(st->runs, bench_report_run_json(&d, NULL, NULL, "interrupted",
                                                              "interrupted before the run started"));
        return;
    }

    bench_workload w;
    bench_outcome out;
    p11_test_workload(&ctx, &w);
    if (!o->quiet)
        bench_report_header(stdout, &d);
    int rc = bench_pool_run(&w, &o->load, st->interrupt, on_second, (void *)o, &out);
    if (rc != 0) {
        bench_error("%s: %s", def->name, out.reason);
        json_array_append_new(st->runs, bench_report_run_json(&d, NULL, NULL, "failed", out.reason));
        st->any_failed = 1;
    } else {
        if (!o->quiet)
            bench_report_summary(stdout, &d, &out, &w);
        const char *status = bench_outcome_status(&out);
        char why[64];
        snprintf(why, sizeof why, "interrupted (%s)", *st->interrupt == SIGTERM ? "SIGTERM" : "SIGINT");
        json_array_append_new(st->runs, bench_report_run_json(&d, &out, &w, status,
                                                              out.status == BENCH_RUN_INTERRUPTED
                                                                  ? why : NULL));
        if (out.status == BENCH_RUN_INTERRUPTED)
            st->interrupted = 1;
        if (out.errors)
            st->any_errors = 1;
    }
    bench_outcome_free(&out);
    p11_test_release(&ctx);
}

int p11_cmd_run(int argc, char **argv)
{
    run_opts o;
    p11_target t;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;

    const volatile sig_atomic_t *interrupt = bench_signals_install();
    rc = p11_target_open(&o.target, o.load.threads, P11_OPEN_LOGIN, &t);
    if (rc != 0)
        return *interrupt ? BENCH_EXIT_INTERRUPTED : rc;

    time_t started = time(NULL);
    run_state st = { &o, &t, interrupt, json_array(), 0, 0, 0 };
    for (size_t i = 0; i < o.ntests && !st.interrupted && !*interrupt; i++)
        run_one(&st, o.tests[i]);
    if (*interrupt)
        st.interrupted = 1;

    if (o.json) {
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&started));
        json_t *doc = json_pack("{s:s,s:{s:s},s:o,s:s,s:o,s:o}", "schema", BENCH_RESULT_SCHEMA,
                                "tool", "version", HSMBENCH_VERSION, "command",
                                redacted_argv(argc, argv), "started_at", when, "environment",
                                p11_target_env_json(&t), "runs", st.runs);
        if (!doc || bench_report_write(o.json, doc) != 0)
            st.any_failed = 1;
        json_decref(doc);
    } else {
        json_decref(st.runs);
    }
    p11_target_close(&t);

    if (st.interrupted) {
        if (!o.quiet)
            fprintf(stderr, "hsmbench: interrupted; partial results %s\n",
                    o.json ? "written" : "shown above");
        return BENCH_EXIT_INTERRUPTED;
    }
    return (st.any_failed || st.any_errors) ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}

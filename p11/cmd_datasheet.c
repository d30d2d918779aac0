/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/cmd_datasheet.c - "hsmbench datasheet": a token's datasheet in one
 * command.
 *
 * A planner over the run machinery (p11/runner.h, bench/driver/session.h):
 * for every test the token offers (or --test LIST) and every key size,
 * asked as run asks (p11_test_offered: parameters resolved first; a test
 * left out gets a line saying why, and datasheet.left_out), the
 * steps are the runs "hsmbench run" would make of
 *   latency  --threads 1 (p50/p99, --until-stable bounded by --step-time)
 *   threads  --threads 2,4,8... up to --max-threads, stopped once two counts
 *            in a row are within DS_FLAT of the best (past the knee)
 *   data     --data-size LIST at one thread, for ciphers, digests and HMAC
 * each of a fixed length (--step-time), on one loaded module and token,
 * into ONE results file: each run tagged runs[i].datasheet = {step, family,
 * id}, the document's "datasheet" object holding the plan and the announced
 * time.  The file is rewritten after every step, so --resume FILE carries
 * on after an interruption.  The page (report_html.c) is report --html's.
 */
#include "p11/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/core/stable.h"
#include "bench/driver/capacity.h"
#include "bench/driver/loadopts.h"
#include "bench/driver/session.h"
#include "bench/results/model.h"
#include "bench/results/results.h"
#include "bench/util/cli.h"
#include "bench/util/clock.h"
#include "bench/util/exit.h"
#include "bench/util/signals.h"
#include "p11/demo.h"
#include "p11/runner.h"
#include "p11/target.h"
#include "p11/tests.h"
#include "p11/token.h"

#define DS_MAX_TESTS   128
#define DS_MAX_LIST    16
#define DS_MAX_STEPS   4096
#define DS_FLAT        0.05     /* a thread count within 5 % of the best adds nothing */
#define DS_DEFAULT_STEP_NS (500ULL * 1000000ULL)
#define DS_DEFAULT_STABLE  5.0
/* The latency step at one thread is judged for stability (--until-stable):
 * it lasts at most ds_latency_bound (three steps, at least 1.5 s) and may
 * stop stable from ds_latency_min on (two thirds of it, in whole seconds,
 * at least 1 s: the sampler judges at each second), with batches of one
 * 100 ms sub-interval so that ten fit in a second; the announcement counts
 * it at the middle of the two, so a datasheet of steps that all stop early
 * or all run to the bound still ends within a sixth of its latency steps'
 * share of the announced time. */
#define DS_LATENCY_FLOOR_NS (1500ULL * 1000000ULL)
static uint64_t ds_latency_bound(uint64_t step_ns)
{
    return 3 * step_ns > DS_LATENCY_FLOOR_NS ? 3 * step_ns : DS_LATENCY_FLOOR_NS;
}
static uint64_t ds_latency_min(uint64_t step_ns)
{
    const uint64_t two_thirds = ds_latency_bound(step_ns) * 2 / 3 / BENCH_NS_PER_S * BENCH_NS_PER_S;
    return two_thirds > BENCH_NS_PER_S ? two_thirds : BENCH_NS_PER_S;
}
/* The latency step's length as the announcement counts it. */
static uint64_t ds_latency_expected(uint64_t step_ns, double stable_pct)
{
    const uint64_t b = ds_latency_bound(step_ns);
    return stable_pct > 0 ? (ds_latency_min(step_ns) + b) / 2 : b;
}
/* What a step costs beside its measured time (the pool's start and stop,
 * the sessions, the file rewritten), and a test's preparation (its keys:
 * an RSA key pair of 2048 bits takes about DS_RSA_PREP_NS in a software
 * token, growing with the cube of its size): the announcement counts them. */
#define DS_STEP_OVERHEAD_NS (70ULL * 1000000ULL)
#define DS_PREP_NS          (30ULL * 1000000ULL)
#define DS_RSA_PREP_NS      (300ULL * 1000000ULL)
/* The file is rewritten after a step unless the last rewrite took more than
 * a tenth of the time since: a large file is written every few steps. */
#define DS_WRITE_SHARE      10

static const uint64_t default_data[] = { 16, 256, 1024, 8192 };

enum {
    OPT_TEST = 2100, OPT_KEY_SIZE, OPT_DATA_SIZE, OPT_STEP_TIME, OPT_MAX_THREADS, OPT_UNTIL_STABLE,
    OPT_RESUME, OPT_JSON, OPT_HTML, OPT_QUIET, OPT_CAPACITY,
};

static const bench_option plan_rows[] = {
    { "test", 0, BENCH_ARG_REQUIRED, "NAME[,NAME...]|all", OPT_TEST,
      "the tests (default all: every catalogue test the\n"
      "token offers; see: hsmbench list tests)", NULL },
    { "key-size", 0, BENCH_ARG_REQUIRED, "BITS[,BITS...]", OPT_KEY_SIZE,
      "key sizes, each for the tests that take it (the\n"
      "others keep their default)", NULL },
    { "data-size", 0, BENCH_ARG_REQUIRED, "BYTES[,BYTES...]", OPT_DATA_SIZE,
      "the bytes/s table's sizes for ciphers, digests and\n"
      "HMAC (default 16,256,1024,8192)", NULL },
    { "step-time", 0, BENCH_ARG_REQUIRED, "TIME", OPT_STEP_TIME,
      "each step's measured length (default 500ms)", NULL },
    { "max-threads", 0, BENCH_ARG_REQUIRED, "N", OPT_MAX_THREADS,
      "the thread sweep's bound (default twice the CPUs)", NULL },
    { "until-stable", 0, BENCH_ARG_REQUIRED, "PCT", OPT_UNTIL_STABLE,
      "the latency step ends once stable within PCT (default\n"
      "5; 0: off), from 1 s on; its bound three --step-time\n"
      "(at least 1.5 s)", NULL },
    { "capacity", 0, BENCH_ARG_REQUIRED, "EXPR", OPT_CAPACITY,
      "also each test's capacity under this objective\n"
      "('p99<20ms'): run --find-capacity's search, open-loop\n"
      "steps --step-time long on --max-threads threads", NULL },
    { "resume", 0, BENCH_ARG_REQUIRED, "FILE.json", OPT_RESUME,
      "carry on an interrupted datasheet: the steps in FILE\n"
      "are kept, the others run and are added to it", NULL },
};

static const bench_option out_rows[] = {
    { "json", 0, BENCH_ARG_REQUIRED, "FILE", OPT_JSON,
      "the results file (default datasheet.json)", NULL },
    { "html", 0, BENCH_ARG_REQUIRED, "FILE", OPT_HTML,
      "the page (default: the results file's name, .html)", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, OPT_QUIET, "only the plan, progress and errors", NULL },
};

static const bench_opt_group ds_plan_group = BENCH_OPT_GROUP("Datasheet:", plan_rows, NULL);
static const bench_opt_group ds_out_group = BENCH_OPT_OUTPUTS("Output:", out_rows, NULL);
static const bench_opt_group *const ds_groups[] = {
    &p11_target_group, &ds_plan_group, &ds_out_group, &bench_help_group, NULL,
};
const bench_cmd_opts p11_datasheet_options = { "datasheet", 0, ds_groups };

static const char ds_usage_head[] =
    "Usage: hsmbench datasheet [selection] [datasheet] [output]\n"
    "\n"
    "A token's datasheet: for every test it offers (or --test), latency at one\n"
    "thread, a thread sweep past the knee (USL peak and knee) and bytes/s over\n"
    "data sizes, each step of a fixed length, in a time announced before it\n"
    "starts; one results file (rewritten after every step) and one page.\n"
    "\n";

static const char ds_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 a step failed or had errors, or a file could not\n"
    "be written (kept --resume steps count); 2 bad usage or input (an unknown\n"
    "test, a --resume file that is not a datasheet, of another plan or of another\n"
    "token); 3 module, token or login failure; 130\n"
    "interrupted (the results so far are kept; the message says how to resume).\n";

typedef enum { STEP_LATENCY, STEP_THREADS, STEP_DATA, STEP_CAPACITY } step_kind;
static const char *const step_name[] = { "latency", "threads", "data", "capacity" };

typedef struct ds_step {
    const p11_test_def *def;
    unsigned            key_bits;   /* 0: the test's default */
    step_kind           kind;
    unsigned            threads;
    uint64_t            data;       /* 0: the test's default */
    size_t              first;      /* the latency step of its test and key */
    char                id[120];
} ds_step;

typedef struct ds_opts {
    p11_target_opts     target;
    p11_inputs          inputs;     /* the files read with no option naming them */
    const p11_test_def *tests[DS_MAX_TESTS];
    size_t              ntests;
    int                 all;
    uint64_t            keys[DS_MAX_LIST], data[DS_MAX_LIST];
    size_t              nkeys, ndata;
    uint64_t            step_ns;
    unsigned            max_threads;
    double              stable_pct;
    const char         *resume;
    const char         *capacity;   /* --capacity EXPR (NULL: none) */
    bench_cap_opts      cap;
    char                html_buf[4096];
    bench_out_opts      out;
} ds_opts;

/* "16,256": each value in [min, max]. */
static int parse_list(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                      size_t *n)
{
    char buf[256], *save = NULL;
    *n = 0;
    if (!*text || strlen(text) >= sizeof buf || text[0] == ',' || text[strlen(text) - 1] == ',' ||
        strstr(text, ",,")) {
        bench_error("%s %s: give a number or a comma-separated list", flag, text);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*n == DS_MAX_LIST) {
            bench_error("%s: at most %d values", flag, DS_MAX_LIST);
            return -1;
        }
        if (bench_parse_u64(flag, item, min, max, &out[*n]) != 0)
            return -1;
        (*n)++;
    }
    return 0;
}

static int parse_tests(ds_opts *o, const char *arg)
{
    char buf[4096], *save = NULL;
    o->ntests = 0;
    o->all = strcmp(arg, "all") == 0;
    if (o->all)
        return 0;
    if (!*arg || strlen(arg) >= sizeof buf) {
        bench_error("--test: give test names, comma-separated, or all");
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const p11_alias *alias = NULL;
        const p11_test_def *def = p11_test_named(name, &alias);
        if (!def) {
            bench_error("--test %s: unknown test (see: hsmbench list tests)", name);
            return -1;
        }
        if (o->ntests == DS_MAX_TESTS) {
            bench_error("--test: at most %d tests", DS_MAX_TESTS);
            return -1;
        }
        o->tests[o->ntests++] = def;
    }
    if (o->ntests == 0) {
        bench_error("--test: no test named");
        return -1;
    }
    return 0;
}

/* A datasheet's files are rewritten after every step (and --resume reads
 * the results file back): a FIFO would get a document a step and give
 * none back.  1 (printed) for a FIFO. */
static int is_fifo(const char *flag, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
        return 0;
    bench_error("%s %s: a FIFO: a datasheet rewrites its files after every step; give a file", flag, path);
    return 1;
}

/*
 * Take one option: its value parsed and stored, nothing checked against
 * the others (check_options does).  1 taken, 0 not one of datasheet's, -1
 * bad value (printed).
 */
static int take_option(void *opts, int c, char *arg)
{
    ds_opts *o = opts;
    uint64_t v;
    const int t = p11_target_opt(&o->target, c, arg);
    if (t != 0)
        return t;
    switch (c) {
    case OPT_TEST:
        return parse_tests(o, arg) == 0 ? 1 : -1;
    case OPT_KEY_SIZE:
        return parse_list("--key-size", arg, 1, 65536, o->keys, &o->nkeys) == 0 ? 1 : -1;
    case OPT_DATA_SIZE:
        return parse_list("--data-size", arg, 1, 16200, o->data, &o->ndata) == 0 ? 1 : -1;
    case OPT_STEP_TIME:
        return bench_parse_duration("--step-time", arg, 100000000ULL, 3600ULL * 1000000000ULL,
                                    &o->step_ns) == 0 ? 1 : -1;
    case OPT_MAX_THREADS:
        if (bench_parse_u64("--max-threads", arg, 1, 1024, &v) != 0)
            return -1;
        o->max_threads = (unsigned)v;
        return 1;
    case OPT_UNTIL_STABLE:
        /* 0 turns it off. */
        return bench_parse_stable_pct(arg, 1, &o->stable_pct) == 0 ? 1 : -1;
    case OPT_RESUME:
        o->resume = arg;
        return 1;
    case OPT_CAPACITY:
        o->capacity = arg;
        return 1;
    case OPT_JSON:
        o->out.json = arg;
        return 1;
    case OPT_HTML:
        o->out.html = arg;
        return 1;
    case OPT_QUIET:
        o->out.quiet = 1;
        return 1;
    default:
        return 0;
    }
}

/* The results file and the page: --resume's file, the defaults, files not
 * standard output nor FIFOs, writable.  0, or -1 (printed). */
static int check_files(ds_opts *o, bench_opts_parser *parser)
{
    if (o->resume && o->out.json && strcmp(o->resume, o->out.json) != 0) {
        bench_error("--resume %s --json %s: a resumed datasheet is written back to its file; "
                    "give one", o->resume, o->out.json);
        return -1;
    }
    /* The file --resume reads is the one written (--json, when given, names
     * it too): checked against the other files as an output. */
    if (o->resume && !o->out.json && bench_opts_add_file(parser, "--resume", o->resume, 1) != 0)
        return -1;
    if (o->resume)
        o->out.json = o->resume;
    if (!o->out.json)
        o->out.json = "datasheet.json";
    if (strcmp(o->out.json, "-") == 0 || (o->out.html && strcmp(o->out.html, "-") == 0)) {
        bench_error("datasheet: the results file and the page are files (not -): the file is "
                    "rewritten after every step");
        return -1;
    }
    if (!o->out.html) {
        const char *dot = strrchr(o->out.json, '.'), *slash = strrchr(o->out.json, '/');
        const int stem = dot && (!slash || dot > slash) ? (int)(dot - o->out.json) : (int)strlen(o->out.json);
        snprintf(o->html_buf, sizeof o->html_buf, "%.*s.html", stem, o->out.json);
        o->out.html = o->html_buf;
    }
    if (!o->ndata) {
        memcpy(o->data, default_data, sizeof default_data);
        o->ndata = sizeof default_data / sizeof default_data[0];
    }
    if (p11_inputs_note(o->target.module, &o->inputs, parser) != 0 ||
        bench_opts_check_files(parser) != 0 || is_fifo("--json", o->out.json) ||
        is_fifo("--html", o->out.html))
        return -1;
    if (!o->resume && !bench_path_writable("--json", o->out.json))
        return -1;
    if (!bench_path_writable("--html", o->out.html))
        return -1;
    return bench_out_finish(&o->out, NULL, 0);
}

/* The options checked together, once all are taken: 0, or -1 (printed). */
static int check_options(ds_opts *o, bench_opts_parser *parser)
{
    if (p11_target_check(&o->target) != 0)
        return -1;
    if (o->capacity) {
        /* run --find-capacity's search, its steps the datasheet's length. */
        bench_cap_opts_init(&o->cap, NULL);     /* the REST metrics are no objective here */
        o->cap.flag = "--capacity";
        if (bench_cap_opt(&o->cap, BENCH_OPT_FIND_CAPACITY, o->capacity) <= 0)
            return -1;
        o->cap.step_ns = o->step_ns;
    }
    return check_files(o, parser);
}

static const bench_cmd_help datasheet_help = { ds_usage_head, ds_usage_tail, NULL, NULL };

/* 0, -1 after --help, or an exit code (printed). */
static int parse_args(int argc, char **argv, ds_opts *o)
{
    memset(o, 0, sizeof *o);
    o->all = 1;
    o->step_ns = DS_DEFAULT_STEP_NS;
    o->stable_pct = DS_DEFAULT_STABLE;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->max_threads = cpus > 0 ? (unsigned)(2 * cpus) : 4;
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_datasheet_options, &datasheet_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench datasheet --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    return check_options(o, &parser) == 0 ? 0 : BENCH_EXIT_USAGE;
}

/* The family a test's table is in on the page. */
static const char *family_of(const p11_test_def *d)
{
    static const struct { const char *prefix, *contains, *family; } map[] = {
        { "rsa-", "sign", "RSA sign" },      { "rsa-", "verify", "RSA sign" },
        { "rsa-", NULL, "RSA encrypt" },     { "ecdsa-", NULL, "ECDSA" },
        { "ecdh-", NULL, "ECDH" },           { "ed25519-", NULL, "EdDSA" },
        { "aes-key", NULL, "AES key wrap" }, { "aes-keygen", NULL, "Key generation" },
        { "aes-", NULL, "AES" },             { "des3-", NULL, "3DES" },
        { "hmac-", NULL, "HMAC" },           { "rsa-keygen", NULL, "Key generation" },
        { "ec-keygen", NULL, "Key generation" }, { "random", NULL, "Random" },
    };
    if (strstr(d->name, "keygen"))
        return "Key generation";
    if (strstr(d->name, "-digest"))
        return "Digest";
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncmp(d->name, map[i].prefix, strlen(map[i].prefix)) == 0 &&
            (!map[i].contains || strstr(d->name, map[i].contains)))
            return map[i].family;
    return "Other";
}

static int takes_key(const p11_test_def *d, uint64_t bits)
{
    for (const unsigned *k = d->key_sizes; k && *k; k++)
        if (*k == bits)
            return 1;
    return 0;
}

static int add_step(ds_step *steps, size_t *n, const p11_test_def *def, unsigned key, step_kind kind,
                    unsigned threads, uint64_t data, size_t first)
{
    if (*n == DS_MAX_STEPS) {
        bench_error("datasheet: more than %d steps; give fewer tests, key or data sizes", DS_MAX_STEPS);
        return -1;
    }
    ds_step *s = &steps[(*n)++];
    *s = (ds_step){ def, key, kind, threads, data, first, "" };
    snprintf(s->id, sizeof s->id, "%s %s key=%u data=%llu threads=%u", step_name[kind], def->name, key,
             (unsigned long long)data, threads);
    return 0;
}

/* The steps of one test at one key size (0: its default); dflt its
 * parameters resolved. */
static int plan_test(const ds_opts *o, const p11_test_def *def, unsigned key, const p11_test_params *dflt,
                     ds_step *steps, size_t *n)
{
    const size_t first = *n;
    if (add_step(steps, n, def, key, STEP_LATENCY, 1, 0, first) != 0)
        return -1;
    for (unsigned t = 2; t <= o->max_threads; t *= 2)
        if (add_step(steps, n, def, key, STEP_THREADS, t, 0, first) != 0)
            return -1;
    if (o->capacity && add_step(steps, n, def, key, STEP_CAPACITY, o->max_threads, 0, first) != 0)
        return -1;
    if (!def->data_op)
        return 0;
    for (size_t i = 0; i < o->ndata; i++) {
        const uint64_t d = o->data[i];
        if (d < def->data_min || d > def->data_max || (def->data_multiple && d % def->data_multiple))
            continue;      /* a size the test cannot take (AES-ECB: whole blocks) */
        if (d == dflt->data_size)
            continue;      /* the latency step measured it */
        if (add_step(steps, n, def, key, STEP_DATA, 1, d, first) != 0)
            return -1;
    }
    return 0;
}

/* A test (at one key) the token does not offer, into left: {test, key, why}.
 * 0, or -1 when out of memory (printed). */
static int left_out(json_t *left, const p11_test_def *def, const p11_test_params *p, const char *why)
{
    char key[48];
    if (json_array_append_new(left, json_pack("{s:s,s:s,s:s}", "test", def->name, "key",
                                              p11_test_key_desc(def, p, key, sizeof key), "why",
                                              why)) != 0) {
        bench_error("out of memory");
        return -1;
    }
    return 0;
}

/* A line for each test left out, naming it and why. */
static void print_left(const ds_opts *o, const json_t *left)
{
    size_t i;
    const json_t *el;
    json_array_foreach(left, i, el) {
        const char *key = bench_json_str(el, "key", "-");
        printf("datasheet: %s", bench_json_str(el, "test", "?"));
        if (o->nkeys && strcmp(key, "-") != 0)
            printf(", key %s,", key);
        printf(" left out: %s\n", bench_json_str(el, "why", "?"));
    }
}

/*
 * Every step, for the tests the token offers; the others, with why, into
 * left.  Each test at each key is asked with the parameters run would use
 * (p11_test_offered resolves them: the hash that picks the mechanism, the
 * key size), so the datasheet covers what run --test all runs.  -1 when a
 * test's parameters do not resolve, or out of memory (printed).
 */
static int plan(ds_opts *o, const p11_target *t, ds_step *steps, size_t *n, uint64_t *prep_ns, json_t *left)
{
    *n = 0;
    *prep_ns = 0;
    if (o->all)
        for (size_t i = 0; i < p11_test_count() && o->ntests < DS_MAX_TESTS; i++)
            o->tests[o->ntests++] = p11_test_at(i);
    for (size_t i = 0; i < o->ntests; i++) {
        const p11_test_def *def = o->tests[i];
        unsigned keys[DS_MAX_LIST];
        size_t nk = 0;
        for (size_t k = 0; k < o->nkeys; k++)
            if (takes_key(def, o->keys[k]))
                keys[nk++] = (unsigned)o->keys[k];
        if (!nk)
            keys[nk++] = 0;        /* its default */
        for (size_t k = 0; k < nk; k++) {
            char why[256];
            const p11_test_params in = { .key_bits = keys[k] };
            p11_test_params p;
            const int offered = p11_test_offered(t->mod, t->token.slot, def, &in, &p, why, sizeof why);
            if (offered < 0)
                return -1;
            if (!offered) {
                if (left_out(left, def, &p, why) != 0)
                    return -1;
                continue;
            }
            if (plan_test(o, def, keys[k], &p, steps, n) != 0)
                return -1;
        }
    }
    /* What preparing the keys costs: at each test's (and key's) first step,
     * and at each data step (new input, new keys). */
    for (size_t k = 0; k < *n; k++) {
        const ds_step *st = &steps[k];
        if (st->kind == STEP_THREADS || st->kind == STEP_CAPACITY)
            continue;      /* the keys of the sweep's first step */
        uint64_t ns = DS_PREP_NS;
        if (st->def->key == steps[st->first].def->key && strncmp(st->def->name, "rsa-", 4) == 0) {
            const double b = (st->key_bits ? st->key_bits : st->def->key_default) / 2048.0;
            ns = (uint64_t)((double)DS_RSA_PREP_NS * b * b * b);
        }
        *prep_ns += ns;
    }
    return 0;
}

/* The plan as the results file records it; what --resume compares. */
static json_t *plan_json(const ds_opts *o, const ds_step *steps, size_t n)
{
    json_t *tests = json_array(), *keys = json_array(), *data = json_array(), *ids = json_array();
    for (size_t i = 0; i < o->ntests; i++)
        json_array_append_new(tests, json_string(o->tests[i]->name));
    for (size_t i = 0; i < o->nkeys; i++)
        json_array_append_new(keys, json_integer((json_int_t)o->keys[i]));
    for (size_t i = 0; i < o->ndata; i++)
        json_array_append_new(data, json_integer((json_int_t)o->data[i]));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(ids, json_string(steps[i].id));
    return json_pack("{s:o,s:o,s:o,s:f,s:I,s:f,s:s?,s:o}", "tests", tests, "key_sizes", keys, "data_sizes",
                     data, "step_time_s", (double)o->step_ns / 1e9, "max_threads",
                     (json_int_t)o->max_threads, "until_stable_pct", o->stable_pct, "capacity",
                     o->capacity, "steps", ids);
}

static const char *fmt_time(double s, char *buf, size_t len)
{
    const long v = (long)(s + 0.5);
    if (v >= 60)
        snprintf(buf, len, "%ldm%02lds", v / 60, v % 60);
    else
        snprintf(buf, len, "%lds", v);
    return buf;
}

/* The run of step id in runs, or NULL. */
static const json_t *step_run(const json_t *runs, const char *id)
{
    size_t i;
    const json_t *run;
    json_array_foreach(runs, i, run) {
        const json_t *tag = json_object_get(run, "datasheet");
        if (tag && strcmp(bench_json_str(tag, "id", ""), id) == 0)
            return run;
    }
    return NULL;
}

/* The capacity search of step id in the document's datasheet.capacity, or NULL. */
static const json_t *capacity_done(const json_t *extra, const char *id)
{
    size_t i;
    const json_t *el;
    json_array_foreach(json_object_get(json_object_get(extra, "datasheet"), "capacity"), i, el)
        if (strcmp(bench_json_str(el, "id", ""), id) == 0)
            return el;
    return NULL;
}

/*
 * A thread step is left out once the sweep is past its knee: the two counts
 * before it both within DS_FLAT of the best throughput of the sweep so far.
 */
static int sweep_done(const json_t *runs, const ds_step *steps, size_t k)
{
    double best = 0, last[2] = { -1, -1 };
    for (size_t i = steps[k].first; i < k; i++) {
        if (steps[i].kind != STEP_LATENCY && steps[i].kind != STEP_THREADS)
            break;
        const json_t *run = step_run(runs, steps[i].id);
        const double x = run && bench_model_status_sound(bench_json_str(run, "status", ""))
                             ? bench_json_num(run, "ops_per_s", 0) : -1;
        if (x > best)
            best = x;
        last[0] = last[1];
        last[1] = x;
    }
    return best > 0 && last[0] >= (1 - DS_FLAT) * best && last[1] >= (1 - DS_FLAT) * best;
}

/* Tag the runs runs[from..] with their step; 0, or -1 when out of memory. */
static int tag_runs(json_t *runs, size_t from, const ds_step *st)
{
    for (size_t i = from; i < json_array_size(runs); i++)
        if (json_object_set_new(json_array_get(runs, i), "datasheet",
                                json_pack("{s:s,s:s,s:s}", "step", step_name[st->kind], "family",
                                          family_of(st->def), "id", st->id)) != 0)
            return -1;
    return 0;
}

/* What of the two plans differs, by member, in buf ("" when nothing). */
static void plan_diff(const json_t *was, const json_t *now, char *buf, size_t len)
{
    const char *key;
    json_t *v;
    buf[0] = 0;
    json_object_foreach((json_t *)now, key, v) {
        if (json_equal(v, json_object_get(was, key)))
            continue;
        const size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", key);
    }
}

/* The module and token a file was made on, against this session's: 0 the
 * same, or -1 with what differs (and the file's value) in buf. */
static int same_target(const json_t *was, const json_t *now, char *buf, size_t len)
{
    static const char *const keys[][2] = {
        { "module", "path" }, { "token", "label" }, { "token", "serial" }, { "token", "model" },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *a = bench_json_str(json_object_get(was, keys[i][0]), keys[i][1], "");
        const char *b = bench_json_str(json_object_get(now, keys[i][0]), keys[i][1], "");
        if (strcmp(a, b) != 0) {
            snprintf(buf, len, "%s %s '%.80s', here '%.80s'", keys[i][0], keys[i][1], a, b);
            return -1;
        }
    }
    return 0;
}

/* Is id one of the plan's steps? */
static int in_plan(const json_t *plan, const char *id)
{
    size_t i;
    const json_t *st;
    json_array_foreach(json_object_get(plan, "steps"), i, st)
        if (json_is_string(st) && strcmp(json_string_value(st), id) == 0)
            return 1;
    return 0;
}

/*
 * --resume: the file's finished steps into s->runs, its capacity searches
 * into *caps (new).  The file must be of this target, each step in the plan
 * and once; a kept step's errors count in the exit status as if run now.
 * 0, or a BENCH_EXIT_* (printed).
 */
static int resume_load(const char *path, const json_t *plan_now, const json_t *env_now,
                       bench_session *s, size_t *kept, json_t **caps)
{
    char err[512], diff[256];
    json_t *doc = bench_results_load(path, err, sizeof err);
    *kept = 0;
    if (!doc) {
        bench_error("--resume %s", err);
        return BENCH_EXIT_USAGE;
    }
    const json_t *ds = json_object_get(doc, "datasheet");
    if (!json_is_object(ds)) {
        bench_error("--resume %s: not a datasheet (no \"datasheet\" object; made by hsmbench run?)", path);
        json_decref(doc);
        return BENCH_EXIT_USAGE;
    }
    plan_diff(json_object_get(ds, "plan"), plan_now, diff, sizeof diff);
    if (diff[0]) {
        bench_error("--resume %s: the plan differs from the file's (%s): give the options it was "
                    "made with", path, diff);
        json_decref(doc);
        return BENCH_EXIT_USAGE;
    }
    if (same_target(json_object_get(doc, "environment"), env_now, diff, sizeof diff) != 0) {
        bench_error("--resume %s: made on another module or token (%s): resume it there",
                    path, diff);
        json_decref(doc);
        return BENCH_EXIT_USAGE;
    }
    size_t i;
    json_t *run;
    json_array_foreach(json_object_get(doc, "runs"), i, run) {
        const char *st = bench_json_str(run, "status", "");
        if (!json_object_get(run, "datasheet") || strcmp(st, "interrupted") == 0)
            continue;      /* an interrupted step runs again */
        const char *id = bench_json_str(json_object_get(run, "datasheet"), "id", "");
        const char *why = !in_plan(plan_now, id) ? "is not a step of the plan"
                          : step_run(s->runs, id) ? "is in the file twice"
                                                  : NULL;
        if (why) {
            bench_error("--resume %s: runs[%zu]: step '%.80s' %s: not a datasheet this command "
                        "wrote", path, i, id, why);
            json_decref(doc);
            return BENCH_EXIT_USAGE;
        }
        if (strcmp(st, "failed") == 0)
            s->any_failed = 1;
        else if (strcmp(st, "errors") == 0 || bench_json_num(run, "errors", 0) > 0)
            s->any_errors = 1;
        if (json_array_append(s->runs, run) != 0) {
            json_decref(doc);
            bench_error("out of memory");
            return BENCH_EXIT_FAILED;
        }
        (*kept)++;
    }
    const json_t *c = json_object_get(json_object_get(doc, "datasheet"), "capacity");
    *caps = json_is_array(c) ? json_deep_copy(c) : NULL;
    *kept += json_array_size(*caps);
    json_decref(doc);
    return 0;
}

typedef struct ds_run {
    ds_opts      *o;
    p11_target   *t;
    p11_runner   *r;
    bench_session *s;
    ds_step      *steps;
    size_t        nsteps;
    json_t       *env, *command, *extra;
    bench_load    load;         /* each step's, but its threads */
    size_t        ran;          /* steps done in this session */
} ds_run;

/*
 * The capacity step: run --find-capacity's search on this test, its runs
 * taken out of the file once done (the answer's steps hold them) and the
 * answer added to datasheet.capacity.  0, or -1 when interrupted or out of
 * memory (the search's runs then go too: it runs again on --resume).
 */
static int capacity_step(ds_run *d, const ds_step *st, const p11_test_params *p, const bench_flag *interrupt)
{
    bench_capacity *c = calloc(1, sizeof *c);
    if (!c) {
        bench_error("out of memory");
        return -1;
    }
    const size_t before = json_array_size(d->s->runs);
    bench_load base = d->load;
    base.threads = st->threads;
    base.mode = BENCH_MODE_NONBLOCKING;
    base.rate = 1;
    base.stable_pct = 0;
    p11_cap_step_arg a = { d->r, st->def, p };
    bench_capacity_run(c, d->s, &d->o->cap, &base, p11_runner_cap_step, &a);
    int rc = c->obj && !c->interrupted && !*interrupt ? 0 : -1;
    char key[64];
    const json_t *first = json_array_get(d->s->runs, before);
    json_t *el = rc ? NULL : json_pack("{s:s,s:s,s:s,s:s,s:O}", "id", st->id, "test", st->def->name,
                                       "key", first ? bench_run_key_desc(first, key, sizeof key) : "-",
                                       "family", family_of(st->def), "search", c->obj);
    if (!rc && (!el || json_array_append_new(json_object_get(json_object_get(d->extra, "datasheet"),
                                                             "capacity"), el) != 0)) {
        bench_error("out of memory");
        rc = -1;
    }
    while (json_array_size(d->s->runs) > before)
        json_array_remove(d->s->runs, before);
    json_decref(c->obj);
    free(c);
    return rc;
}

/* Every step not yet in the file; the file rewritten after each. */
static void run_steps(ds_run *d, const bench_flag *interrupt)
{
    const double t0 = (double)bench_now_ns() / 1e9;
    size_t left = 0;
    for (size_t k = 0; k < d->nsteps; k++)
        left += !step_run(d->s->runs, d->steps[k].id);
    const double per_step = (double)(d->o->step_ns + DS_STEP_OVERHEAD_NS) / 1e9;
    uint64_t last_write = 0, write_cost = 0;
    for (size_t k = 0; k < d->nsteps && !d->s->interrupted && !d->s->stuck && !*interrupt; k++) {
        const ds_step *st = &d->steps[k];
        if (step_run(d->s->runs, st->id) || capacity_done(d->extra, st->id))
            continue;      /* done before --resume */
        if (st->kind == STEP_THREADS && sweep_done(d->s->runs, d->steps, k)) {
            left--;
            continue;      /* past the knee: the rest of the sweep adds nothing */
        }
        char el[32], rem[32];
        const double elapsed = (double)bench_now_ns() / 1e9 - t0;
        /* The plan's length a step until a few steps have been measured
         * (the first prepares keys: alone it would mislead). */
        const double mean = d->ran >= 8 ? elapsed / (double)d->ran : per_step;
        printf("datasheet: step %zu of %zu: %s %s", k + 1, d->nsteps, st->def->name, step_name[st->kind]);
        if (st->key_bits)
            printf(", key %u", st->key_bits);
        printf(", %u thread%s", st->threads, st->threads == 1 ? "" : "s");
        if (st->data)
            printf(", %llu bytes", (unsigned long long)st->data);
        printf(" (elapsed %s, about %s left)\n", fmt_time(elapsed, el, sizeof el),
               fmt_time(mean * (double)left, rem, sizeof rem));
        fflush(stdout);
        p11_test_params p = { .key_bits = st->key_bits, .data_size = st->data };
        const size_t before = json_array_size(d->s->runs);
        d->r->load = d->load;       /* a capacity search leaves its own */
        d->r->load.threads = st->threads;
        d->r->load.stable_pct = st->kind == STEP_LATENCY ? d->o->stable_pct : 0;
        if (st->kind == STEP_LATENCY) {
            d->r->load.duration_ns = ds_latency_bound(d->o->step_ns);
            d->r->load.stable_min_ns = ds_latency_min(d->o->step_ns);
            d->r->load.stable_batch = 1;
        }
        int rc = 0;
        if (st->kind == STEP_CAPACITY)
            rc = capacity_step(d, st, &p, interrupt);
        else
            p11_runner_test(d->r, st->def, &p);
        if (*interrupt || d->s->interrupted || rc < 0)
            break;          /* an interrupted step is not recorded as done: it runs again */
        if (tag_runs(d->s->runs, before, st) != 0) {
            bench_error("out of memory");
            d->s->any_failed = 1;
            break;
        }
        d->ran++;
        left--;
        const uint64_t now = bench_now_ns();
        if (now - last_write >= DS_WRITE_SHARE * write_cost || left == 0) {
            if (bench_session_checkpoint(d->s, d->env, d->command) != 0) {
                d->s->any_failed = 1;
                break;      /* the steps after it could not be kept: measure no more */
            }
            last_write = bench_now_ns();
            write_cost = last_write - now;
        }
    }
}

/*
 * The steps still to run (*todo: those not in the file --resume read) and
 * the time they are announced to take, said on one line (into ann too):
 * the seconds announced.
 */
static double announce(const ds_opts *o, const ds_step *steps, size_t nsteps, const json_t *runs,
                       const json_t *caps, uint64_t prep_ns, size_t *todo, char *ann, size_t len)
{
    size_t cap_todo = 0, lat_todo = 0;
    *todo = 0;
    for (size_t k = 0; k < nsteps; k++) {
        int done = !!step_run(runs, steps[k].id);
        lat_todo += steps[k].kind == STEP_LATENCY && !done;
        if (steps[k].kind == STEP_CAPACITY) {
            size_t i;
            const json_t *el;
            json_array_foreach(caps, i, el)
                done |= strcmp(bench_json_str(el, "id", ""), steps[k].id) == 0;
            cap_todo += !done;
        }
        *todo += !done;
    }
    /* A capacity search is counted at its bound: the probe, the baseline
     * and every step --max-steps allows. */
    const unsigned cap_steps = o->cap.max_steps ? o->cap.max_steps : BENCH_CAP_DEFAULT_STEPS;
    const double announced = ((double)(*todo + cap_todo * (cap_steps + 1)) *
                              (double)(o->step_ns + DS_STEP_OVERHEAD_NS) +
                              (double)lat_todo * ((double)ds_latency_expected(o->step_ns, o->stable_pct) -
                                                  (double)o->step_ns) +
                              (double)prep_ns * (double)*todo / (double)nsteps) / 1e9;
    size_t ntests = 0;
    for (size_t k = 0; k < nsteps; k++)
        ntests += steps[k].kind == STEP_LATENCY;
    printf("datasheet: %zu test%s, %zu steps, about %s (steps of %.3gs, threads up to %u)\n", ntests,
           ntests == 1 ? "" : "s", nsteps, fmt_time(announced, ann, len),
           (double)o->step_ns / 1e9, o->max_threads);
    return announced;
}

/* The last line of a datasheet that ran: where its results are, or how to
 * resume it. */
static void say_end(const ds_opts *o, int interrupted, int written, double took, const char *ann)
{
    if (interrupted && written) {
        fprintf(stderr, "datasheet: interrupted; the steps done are in %s; carry on with: hsmbench "
                        "datasheet --resume %s (and the same options)\n", o->out.json, o->out.json);
    } else if (interrupted) {
        fprintf(stderr, "datasheet: interrupted before any step was done and written to %s; "
                        "nothing to resume\n", o->out.json);
    } else if (written) {
        char tk[32];
        printf("datasheet: took %s (announced %s); results %s, page %s\n", fmt_time(took, tk, sizeof tk),
               ann, o->out.json, o->out.html);
    }
}

int p11_cmd_datasheet(int argc, char **argv, const bench_section *const *sections)
{
    ds_opts o;
    p11_target t;
    p11_runner r;
    bench_session s;
    ds_run d;
    int opened = 0, session = 0, runner = 0, finished = 0, interrupted = 0, written = 0;
    ds_step *steps = NULL;
    json_t *left = NULL, *plan_doc = NULL, *caps = NULL;
    size_t nsteps = 0, kept = 0;
    uint64_t prep_ns = 0;
    double took = 0;
    char ann[32] = "";
    memset(&d, 0, sizeof d);
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    o.out.sections = sections;
    const bench_flag *interrupt = bench_signals_install();
    steps = calloc(DS_MAX_STEPS, sizeof *steps);
    left = json_array();
    if (!steps || !left) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    rc = p11_target_open(&o.target, o.max_threads, P11_OPEN_LOGIN, &t);
    if (rc != 0) {
        if (*interrupt)
            rc = BENCH_EXIT_INTERRUPTED;
        goto cleanup;
    }
    opened = 1;
    if (plan(&o, &t, steps, &nsteps, &prep_ns, left) != 0) {
        rc = BENCH_EXIT_USAGE;
        goto cleanup;
    }
    if (nsteps == 0) {
        print_left(&o, left);
        bench_error("datasheet: the token offers none of the tests asked for");
        rc = BENCH_EXIT_USAGE;
        goto cleanup;
    }
    plan_doc = plan_json(&o, steps, nsteps);
    if (!plan_doc || bench_session_init(&s, &o.out, interrupt) != 0) {
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    session = 1;
    s.brief = 1;
    d.env = p11_target_env_json(&t);
    if (!d.env) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    if (o.resume && (rc = resume_load(o.resume, plan_doc, d.env, &s, &kept, &caps)) != 0)
        goto cleanup;
    if (!caps && !(caps = json_array())) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    size_t todo = 0;
    const double announced = announce(&o, steps, nsteps, s.runs, caps, prep_ns, &todo, ann, sizeof ann);
    print_left(&o, left);
    if (kept)
        printf("datasheet: resuming %s: %zu step%s done, %zu to run\n", o.resume, nsteps - todo,
               nsteps - todo == 1 ? "" : "s", todo);
    fflush(stdout);
    const double started = (double)bench_now_ns() / 1e9;
    d = (ds_run){ &o, &t, &r, &s, steps, nsteps, d.env,
                  bench_command_json(argc, argv, p11_command_redact, argv), NULL, { 0 }, 0 };
    d.extra = json_pack("{s:{s:O,s:f,s:I,s:I,s:O,s:O}}", "datasheet", "plan", plan_doc, "announced_s",
                        announced, "steps_resumed", (json_int_t)(nsteps - todo), "host_cpus",
                        (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "left_out", left, "capacity", caps);
    s.doc_extra = d.extra;      /* the session's from here on */
    if (!d.env || !d.command || !d.extra) {
        bench_error("out of memory");
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    d.load = (bench_load){ .threads = 1, .duration_ns = o.step_ns, .abort_ns = BENCH_ABORT_DEFAULT_NS,
                           .max_unstarted = BENCH_MAX_UNSTARTED_DEFAULT, .stuck_ns = BENCH_STUCK_DEFAULT_NS };
    if (p11_runner_init(&r, &t, &s, &d.load, NULL) != 0) {
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    runner = 1;
    run_steps(&d, interrupt);
    took = (double)bench_now_ns() / 1e9 - started;
    json_object_set_new(json_object_get(d.extra, "datasheet"), "took_s", json_real(took));
    p11_runner_release(&r);
    interrupted = *interrupt || s.interrupted;
    rc = bench_session_finish(&s, d.env, d.command);   /* takes env and command */
    d.env = d.command = NULL;
    finished = 1;
    /* The file holds steps to resume from (an interrupted step is run again). */
    written = s.json_written && !s.checkpoint_failed && (kept || d.ran);
cleanup:
    p11_runner_teardown(&r, runner, &t, opened, &s, session);
    json_decref(d.env);
    json_decref(d.command);
    json_decref(caps);
    json_decref(plan_doc);
    json_decref(left);
    free(steps);
    if (finished)
        say_end(&o, interrupted, written, took, ann);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* p11/cmd_run.c - "hsmbench run": batch benchmarks of a PKCS#11 token. */
#include "p11/cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/driver/capacity.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/driver/loadopts.h"
#include "bench/core/pool.h"
#include "bench/results/repeat.h"
#include "bench/results/report.h"
#include "bench/util/signals.h"
#include "p11/names.h"
#include "p11/target.h"
#include "p11/token.h"
#include "bench/results/results.h"
#include "bench/driver/outopts.h"
#include "bench/driver/session.h"
#include "bench/driver/sweep.h"
#include "bench/results/threshold.h"
#include "p11/demo.h"
#include "p11/runner.h"
#include "p11/tests.h"

#define MAX_TESTS      128
#define DEFAULT_DURATION_NS (10ULL * 1000000000ULL)

static const char run_usage_head[] =
    "Usage: hsmbench run [selection] [test] [keys] [load] [output]\n"
    "\n"
    "Benchmark PKCS#11 operations on a token.  With no --module, hsmbench's own\n"
    "SoftHSM token is used (created on first use under $HSMBENCH_HOME).\n"
    "\n";

enum {
    OPT_TEST = 2000, OPT_KEY_SIZE, OPT_CURVE, OPT_DATA_SIZE, OPT_HASH,
    OPT_AAD_SIZE, OPT_TOKEN_KEYS, OPT_STATIC_KEY, OPT_KEY_LABEL, OPT_KEY_ID, OPT_VERIFY,
    OPT_MIX, OPT_SEED, OPT_LOOKUP, OPT_REPEAT,
};

/* Several tokens: said under Selection. */
static const bench_opt_group run_tokens_group = BENCH_OPT_NOTE(
    "  --slot ID,ID... | --token LABEL,LABEL... | --uri URI --uri URI...\n"
    "                       several tokens of the module in one run: thread i on\n"
    "                       token i mod N, each with its own session and keys;\n"
    "                       totals and a line per token (--threads >= tokens);\n"
    "                       the one PIN goes to every token (asked once)\n");

static const bench_option test_rows[] = {
    { "test", 0, BENCH_ARG_REQUIRED, "NAME[,NAME...]|all", OPT_TEST,
      "tests to run in turn (see: hsmbench list tests)\n"
      "default rsa-pkcs-sign; pkpspeed's names work too\n"
      "(RSA_CRT, RSA, 3DES, AES_128, AES_256, letters A-K)", NULL },
    { "key-size", 0, BENCH_ARG_REQUIRED, "BITS", OPT_KEY_SIZE,
      "RSA 1024/2048/3072/4096/8192, AES 128/192/256, HMAC key", NULL },
    { "curve", 0, BENCH_ARG_REQUIRED, "P-256|P-384|P-521", OPT_CURVE,
      "EC curve for the EC tests", NULL },
    { "hash", 0, BENCH_ARG_REQUIRED, "SHA1|SHA256|SHA384|SHA512", OPT_HASH,
      "hash of the RSA, ECDSA and OAEP tests", NULL },
    { "data-size", 0, BENCH_ARG_REQUIRED, "BYTES[,BYTES...]", OPT_DATA_SIZE,
      "input size, 1..16200 (default per test); a list sweeps", NULL },
    { "aad-size", 0, BENCH_ARG_REQUIRED, "BYTES", OPT_AAD_SIZE,
      "AES-GCM additional authenticated data (default 0)", NULL },
    { "mix", 0, BENCH_ARG_REQUIRED, "NAME:WEIGHT[,NAME:WEIGHT...]", OPT_MIX,
      "\none run whose operations are drawn by\n"
      "weight from these tests (each with its own keys), reported\n"
      "as a whole and per type; instead of --test", NULL },
    { "lookup", 0, BENCH_ARG_NONE, NULL, OPT_LOOKUP,
      "find the key by label and class (C_FindObjects) before\n"
      "each operation, inside the timed part, and use the handle\n"
      "found, as applications that cache no handles do", NULL },
    { "seed", 0, BENCH_ARG_REQUIRED, "N", OPT_SEED,
      "the mix's generator seed (default 1): the same seed,\n"
      "threads and --iterations draw the same types", NULL },
    { "repeat", 0, BENCH_ARG_REQUIRED, "N", OPT_REPEAT,
      "run each test (each thread count, data size, mix) N\n"
      "times in a row, 2..1000, the same keys and load, each a\n"
      "full run; then the 95% interval of ops/s, p50 and p99\n"
      "between the runs (Student t): the token's rate, where\n"
      "--until-stable's interval is one run's steady state", NULL },
};

static const bench_option keys_rows[] = {
    { "token-keys", 0, BENCH_ARG_NONE, NULL, OPT_TOKEN_KEYS,
      "generate token objects instead (destroyed after)", NULL },
    { "static-key", 0, BENCH_ARG_REQUIRED, "FILE", OPT_STATIC_KEY,
      "import this key: PEM/DER RSA, EC or Ed25519 private key,\n"
      "or raw AES/HMAC/3DES key bytes (destroyed after)", NULL },
    { "key-label", 0, BENCH_ARG_REQUIRED, "LABEL", OPT_KEY_LABEL,
      "use an existing key; never destroyed", "--key-label LABEL | --key-id HEX" },
    { "key-id", 0, BENCH_ARG_REQUIRED, "HEX", OPT_KEY_ID, NULL, NULL },
    { "verify", 0, BENCH_ARG_OPTIONAL, "[=sample:N]", OPT_VERIFY,
      "check results with OpenSSL outside the timed path: the\n"
      "first result of each thread, or every Nth (keys are made\n"
      "in software and imported, so every result can be checked)", NULL },
};

static const bench_opt_group run_test_group = BENCH_OPT_GROUP("Test:", test_rows, NULL);
static const bench_opt_group run_keys_group =
    BENCH_OPT_GROUP("Keys (default: session keys generated for the run, destroyed after):", keys_rows, NULL);

static const bench_opt_group *const run_groups[] = {
    &p11_target_group, &p11_pin_user_group, &run_tokens_group, &run_test_group, &run_keys_group, &bench_load_group,
    &bench_metrics_group, &bench_cap_group, &bench_out_group, &bench_help_group,
    &p11_pkpspeed_spellings, NULL,
};
const bench_cmd_opts p11_run_options = { "run", 0, run_groups };

static const char run_usage_tail[] =
    "\n"
    "Exit codes: 0 success; 1 the run finished but operations failed, or a worker\n"
    "was stuck in a call (--stuck-after); 2 bad usage or input; 3 module, token or\n"
    "login failure; 99 a --threshold failed (as k6; before 1 for failed\n"
    "operations); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,\n"
    "SIGUSR2, SIGALRM, or standard output closed, as by | head).  Ctrl-C in a long\n"
    "module call says what it waits for; a second Ctrl-C stops waiting, lists the\n"
    "token keys left.\n"
    "pkpspeed's -p PASSWORD is --pin and its -s USER is --pin-user, each said once\n"
    "(see: hsmbench-run(1) OLD SPELLINGS).\n";

#define MAX_SWEEP 32

typedef struct run_opts {
    p11_target_opts    target;
    p11_inputs         inputs;      /* the files read with no option naming them */
    const p11_test_def *tests[MAX_TESTS];
    size_t             ntests;
    p11_test_params    params;
    unsigned char      key_id[128];
    bench_load_opts    lo;
    bench_out_opts     out;
    bench_cap_opts     cap;
    uint64_t           data_list[MAX_SWEEP];
    size_t             ndata;
    p11_mix            mix;          /* --mix (mix.n 0: none) */
    int                test_given, seed_given;
    int                keys_flags;            /* 1 --token-keys, 2 --static-key, 4 --key-label/--key-id */
    unsigned           repeat;                /* --repeat N (0: once) */
    const p11_alias   *alias[MAX_TESTS];      /* the pkpspeed name a test was given by, or NULL */
    p11_test_params    tp[MAX_TESTS];         /* each test's: params with the facts of its key */
    char               origin[MAX_TESTS][200]; /* tp[i].key_origin */
} run_opts;

/* "4" or "1,2,4,8": a sweep list, each value in range. */
static int parse_list(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                      size_t *n)
{
    char buf[512];
    char *save = NULL;
    *n = 0;
    if (strlen(text) >= sizeof buf) {
        bench_error("%s: the list is too long", flag);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    if (!*buf || buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,")) {
        bench_error("%s %s: empty item in the list", flag, text);
        return -1;
    }
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_SWEEP) {
            bench_error("%s: at most %d values", flag, MAX_SWEEP);
            return -1;
        }
        if (bench_parse_u64(flag, item, min, max, &out[*n]) != 0)
            return -1;
        (*n)++;
    }
    return 0;
}

/* "--key-id 0a1b..": hex, even length. */
static int parse_hex(const char *flag, const char *text, unsigned char *out, size_t cap, size_t *len)
{
    size_t n = strlen(text);
    if (n == 0 || n % 2 || n / 2 > cap) {
        bench_error("%s %s: give an even number of hex digits (at most %zu bytes)", flag, text, cap);
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(text + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", text[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", text[2 * i + 1])) {
            bench_error("%s %s: not hex", flag, text);
            return -1;
        }
        out[i] = (unsigned char)v;
    }
    *len = n / 2;
    return 0;
}

/* A pkpspeed name in --test: hsmbench's spelling, once on standard error. */
static void note_alias(const p11_alias *a)
{
    if (a->key_bits)
        bench_note("--test %s is pkpspeed's name: hsmbench's spelling is --test %s --key-size %u",
                   a->name, a->test, a->key_bits);
    else
        bench_note("--test %s is pkpspeed%s%s%s: hsmbench's spelling is --test %s", a->name,
                   a->label ? "_blocking's menu letter (" : "'s name", a->label ? a->label : "",
                   a->label ? ")" : "", a->test);
}

static int parse_tests(run_opts *o, const char *arg)
{
    char *copy = strdup(arg), *save = NULL;
    int rc = 0;
    if (!copy) {
        bench_error("out of memory");
        return -1;
    }
    o->ntests = 0;
    if (strcmp(arg, "all") == 0) {
        for (size_t i = 0; i < p11_test_count() && i < MAX_TESTS; i++)
            o->tests[o->ntests++] = p11_test_at(i);
        free(copy);
        return 0;
    }
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const p11_alias *alias = NULL;
        const p11_test_def *def = p11_test_named(name, &alias);
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
        o->alias[o->ntests] = alias;
        o->tests[o->ntests++] = def;
    }
    if (rc == 0 && o->ntests == 0) {
        bench_error("--test: no test named");
        rc = -1;
    }
    free(copy);
    return rc;
}

/* Several tokens: every token gets a thread of its own (round-robin), so
 * no thread count may be below the number of tokens. */
static int check_tokens_threads(const run_opts *o)
{
    const unsigned n = p11_target_count(&o->target);
    if (n < 2)
        return 0;
    if (o->lo.stages_text && o->lo.load.mode == BENCH_MODE_BLOCKING) {
        if (o->lo.load.threads >= n)
            return 0;
        bench_error("--stages %s: at most %u threads, fewer than the %u tokens: each token needs "
                    "a thread of its own", o->lo.stages_text, o->lo.load.threads, n);
        return -1;
    }
    for (size_t i = 0; i < o->lo.nthreads; i++)
        if (o->lo.threads_list[i] < n) {
            bench_error("--threads %u: fewer threads than the %u tokens: each token needs a thread "
                        "of its own (threads go round-robin: thread i to token i mod %u)",
                        o->lo.threads_list[i], n, n);
            return -1;
        }
    return 0;
}

/* Every test at every data size, with its key's facts: 0, or -1 (printed). */
static int check_values(const run_opts *o)
{
    for (size_t t = 0; t < o->ntests; t++)
        for (size_t i = 0; i < (o->ndata ? o->ndata : 1); i++) {
            p11_test_params in = o->tp[t], resolved;
            if (o->ndata)
                in.data_size = o->data_list[i];
            if (p11_test_resolve(o->tests[t], &in, &resolved) != 0)
                return -1;
        }
    return 0;
}

/* The facts of an existing key (--key-label, --key-id), read on every token
 * before anything runs: 0, or -1 (printed) when a flag contradicts the key,
 * the key does not suit a test, or the tokens' keys differ. */
static int existing_key_facts(run_opts *o, const p11_target *t)
{
    if (o->params.keys != P11_KEYS_EXISTING)
        return 0;
    const unsigned n = t->ntokens > 1 ? t->ntokens : 1;
    for (size_t i = 0; i < o->ntests; i++)
        for (unsigned k = 0; k < n; k++) {
            p11_test_params x;
            char other[200];
            if (p11_test_key_facts(o->tests[i], &o->params, t->mod->fn, p11_target_control(t, k),
                                   k ? other : o->origin[i], k ? sizeof other : sizeof o->origin[i],
                                   &x) != 0)
                return -1;
            if (k == 0) {
                o->tp[i] = x;
            } else if (x.key_bits != o->tp[i].key_bits ||
                       (x.curve != o->tp[i].curve && (!x.curve || !o->tp[i].curve ||
                                                      strcmp(x.curve, o->tp[i].curve) != 0))) {
                bench_error("%s: the key on token '%s' is %s, on token '%s' %s: give tokens "
                            "with the same key", o->tests[i]->name, p11_target_token(t, k)->label,
                            x.key_origin ? x.key_origin : "unreadable", p11_target_token(t, 0)->label,
                            o->tp[i].key_origin ? o->tp[i].key_origin : "unreadable");
                return -1;
            }
        }
    return check_values(o);
}

/* --verify or --verify=sample:N. */
static int take_verify(run_opts *o, const char *arg)
{
    uint64_t v;
    o->params.verify = 1;
    if (!arg)
        return 1;
    if (strncmp(arg, "sample:", 7) != 0) {
        bench_error("--verify=%s: use --verify or --verify=sample:N", arg);
        return -1;
    }
    if (bench_parse_u64("--verify=sample", arg + 7, 1, 1000000000ULL, &v) != 0)
        return -1;
    o->params.verify_every = v;
    return 1;
}

/* The Keys options: which keys, each flag a bit of keys_flags. */
static int take_keys(run_opts *o, int c, const char *arg)
{
    switch (c) {
    case OPT_TOKEN_KEYS:
        o->keys_flags |= 1;
        o->params.keys = P11_KEYS_TOKEN;
        return 1;
    case OPT_STATIC_KEY:
        o->keys_flags |= 2;
        o->params.keys = P11_KEYS_STATIC;
        o->params.static_key = arg;
        return 1;
    case OPT_KEY_LABEL:
        o->keys_flags |= 4;
        o->params.keys = P11_KEYS_EXISTING;
        o->params.key_label = arg;
        return 1;
    case OPT_KEY_ID:
        o->keys_flags |= 4;
        o->params.keys = P11_KEYS_EXISTING;
        if (parse_hex("--key-id", arg, o->key_id, sizeof o->key_id, &o->params.key_id_len) != 0)
            return -1;
        o->params.key_id = o->key_id;
        return 1;
    case OPT_VERIFY:
        return take_verify(o, arg);
    default:
        return 0;
    }
}

/*
 * Take one option: its value parsed and stored, nothing checked against
 * the others (check_options does).  1 taken, 0 not one of run's, -1 bad
 * value (printed).
 */
static int take_option(void *opts, int c, char *arg)
{
    run_opts *o = opts;
    uint64_t v;
    int t = p11_target_opt(&o->target, c, arg);
    if (t == 0)
        t = bench_load_opt(&o->lo, c, arg);
    if (t == 0)
        t = bench_out_opt(&o->out, c, arg);
    if (t == 0)
        t = bench_cap_opt(&o->cap, c, arg);
    if (t == 0)
        t = take_keys(o, c, arg);
    if (t != 0)
        return t;
    switch (c) {
    case OPT_TEST:
        if (parse_tests(o, arg) != 0)
            return -1;
        o->test_given = 1;
        return 1;
    case OPT_MIX: {
        const uint64_t seed = o->mix.seed;
        if (p11_mix_parse(arg, &o->mix) != 0)
            return -1;
        if (o->seed_given)
            o->mix.seed = seed;
        return 1;
    }
    case OPT_LOOKUP:
        o->params.lookup = 1;
        return 1;
    case OPT_REPEAT:
        if (bench_parse_u64("--repeat", arg, 0, BENCH_REPEAT_MAX, &v) != 0)
            return -1;
        if (v < 2) {
            bench_error("--repeat %s: at least 2 runs (one run has no interval between runs; "
                        "leave --repeat out to run once)", arg);
            return -1;
        }
        o->repeat = (unsigned)v;
        return 1;
    case OPT_SEED:
        if (bench_parse_u64("--seed", arg, 0, UINT64_MAX, &v) != 0)
            return -1;
        o->mix.seed = v;
        o->seed_given = 1;
        return 1;
    case OPT_KEY_SIZE:
        if (bench_parse_u64("--key-size", arg, 1, 65536, &v) != 0)
            return -1;
        o->params.key_bits = (unsigned)v;
        return 1;
    case OPT_CURVE:
        o->params.curve = arg;
        return 1;
    case OPT_DATA_SIZE:
        if (parse_list("--data-size", arg, 1, 16200, o->data_list, &o->ndata) != 0)
            return -1;
        o->params.data_size = o->data_list[0];
        return 1;
    case OPT_HASH:
        o->params.hash = p11_hash_by_name(arg);
        if (o->params.hash == P11_HASH_NONE) {
            bench_error("--hash %s: unknown; use SHA1, SHA224, SHA256, SHA384 or SHA512", arg);
            return -1;
        }
        return 1;
    case OPT_AAD_SIZE:
        if (bench_parse_u64("--aad-size", arg, 0, 16200, &v) != 0)
            return -1;
        o->params.aad_size = v;
        return 1;
    default:
        return 0;
    }
}

/* The tests and keys chosen together: --mix or --test, one way to the keys. */
static int check_selection(run_opts *o)
{
    if (o->mix.n && o->test_given) {
        bench_error("--mix and --test both choose the tests: give one (a mix runs its tests together)");
        return -1;
    }
    if (o->mix.n && p11_target_count(&o->target) > 1) {
        bench_error("--mix runs on one token: give one --slot, --token or --uri");
        return -1;
    }
    if (o->seed_given && !o->mix.n) {
        bench_error("--seed: only with --mix (it seeds the draw of a mix's types)");
        return -1;
    }
    if (o->mix.n && o->ndata > 1) {
        bench_error("--data-size: a mix takes one size (its types run together), not a list");
        return -1;
    }
    if (o->mix.n) {
        /* The mix's types are checked as --test's are, below. */
        o->ntests = 0;
        for (unsigned i = 0; i < o->mix.n; i++)
            o->tests[o->ntests++] = o->mix.defs[i];
    }
    if ((o->keys_flags & 1) + !!(o->keys_flags & 2) + !!(o->keys_flags & 4) > 1) {
        bench_error("--token-keys, --static-key and --key-label/--key-id each choose the keys: "
                    "give only one");
        return -1;
    }
    if (o->params.static_key && access(o->params.static_key, R_OK) != 0) {
        bench_error("--static-key %s: %s", o->params.static_key, strerror(errno));
        return -1;
    }
    if (o->params.verify && o->params.keys == P11_KEYS_EXISTING)
        bench_warn("--verify with an existing key: only results the public key can check are checked");
    return 0;
}

/* The load, the tokens' threads and a capacity search together. */
static int check_load(run_opts *o)
{
    if (bench_cap_finish(&o->cap, &o->lo) != 0 || bench_load_finish(&o->lo, DEFAULT_DURATION_NS) != 0)
        return -1;
    /* A session each thread (a network HSM's client holds a socket for it). */
    if (bench_load_check_fds(&o->lo, 1, 0) != 0 || check_tokens_threads(o) != 0)
        return -1;
    if (o->ntests == 0) {
        o->tests[0] = p11_test_find("rsa-pkcs-sign");
        o->ntests = 1;
    }
    if (o->cap.nobjectives && o->repeat) {
        bench_error("--find-capacity is its own series of runs, at rates it chooses: leave out --repeat");
        return -1;
    }
    if (o->cap.nobjectives && o->mix.n) {
        bench_error("--find-capacity searches one test; it does not take a --mix");
        return -1;
    }
    if (o->cap.nobjectives && (o->ntests > 1 || o->ndata > 1)) {
        bench_error("--find-capacity searches one test at one data size: give one --test and "
                    "one --data-size");
        return -1;
    }
    return 0;
}

/* Every value must fit every test named, before anything is loaded; a
 * static key must suit each test too, and sets its size. */
static int check_params(run_opts *o)
{
    for (size_t i = 0; i < o->ntests; i++) {
        if (o->params.lookup && !p11_test_has_key(o->tests[i])) {
            bench_error("--lookup: %s uses no key to look up (digests, random, key generation "
                        "and find-objects cannot take it)", o->tests[i]->name);
            return -1;
        }
        p11_test_params in = o->params;
        if (o->alias[i] && o->alias[i]->key_bits) {
            /* AES_128 is aes-cbc-encrypt with a 128-bit key, nothing else. */
            if (in.key_bits && in.key_bits != o->alias[i]->key_bits) {
                bench_error("--key-size %u: --test %s fixes %s's key at %u bits", in.key_bits,
                            o->alias[i]->name, o->tests[i]->name, o->alias[i]->key_bits);
                return -1;
            }
            in.key_bits = o->alias[i]->key_bits;
        }
        o->tp[i] = in;
        if (in.keys == P11_KEYS_STATIC &&
            p11_test_key_facts(o->tests[i], &in, NULL, 0, o->origin[i], sizeof o->origin[i],
                               &o->tp[i]) != 0)
            return -1;
    }
    return check_values(o);
}

/* The options checked together, once all are taken: 0, or -1 (printed). */
static int check_options(run_opts *o, bench_opts_parser *parser)
{
    if (p11_target_check(&o->target) != 0 || check_selection(o) != 0 || check_load(o) != 0 ||
        check_params(o) != 0)
        return -1;
    const char *names[MAX_TESTS];
    for (size_t t = 0; t < o->ntests; t++)
        names[t] = o->tests[t]->name;
    if (o->mix.n)
        names[0] = "mix";     /* the run's one name (--threshold mix:p99<20ms) */
    if (p11_inputs_note(o->target.module, &o->inputs, parser) != 0 ||
        bench_opts_check_files(parser) != 0 || bench_out_finish(&o->out, names, o->mix.n ? 1 : o->ntests) != 0)
        return -1;
    if (!o->ndata) {
        o->data_list[0] = 0;     /* each test's default */
        o->ndata = 1;
    }
    for (size_t i = 0; i < o->ntests && !o->mix.n; i++)
        if (o->alias[i])
            note_alias(o->alias[i]);
    return 0;
}

/* 0, -1 after --help, or an exit code (printed). */
static int parse_args(int argc, char **argv, const bench_section *const *sections, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->target.many = 1;          /* run spreads over several tokens */
    bench_load_opts_init(&o->lo);
    bench_cap_opts_init(&o->cap, NULL);     /* the REST metrics are no objective here */
    o->out.sections = sections;
    bench_opts_parser parser;
    const bench_cmd_help help = { run_usage_head, run_usage_tail, bench_out_help_more, sections };
    const int rc = bench_opts_take_all(&parser, &p11_run_options, &help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench run --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    return check_options(o, &parser) == 0 ? 0 : BENCH_EXIT_USAGE;
}

/*
 * One point of the sweep (a test at a thread count and data size, or the
 * mix, def NULL, at a thread count), run by the driver's sweep once or
 * --repeat N times in a row: the sweep's own path, so a repeat reuses the
 * kept keys and input as a thread sweep does (runner.c: prepared; a mix
 * prepares its types' keys for each run, as for each thread count), each a
 * full run with its own warm-up and element, its place in the group marked
 * by the session.
 */
typedef struct run_point {
    p11_runner         *r;
    const run_opts     *o;
    const p11_test_def *def;       /* NULL: the mix */
    size_t              test;      /* its index in o->tests and o->tp */
} run_point;

static void sweep_point(void *arg, size_t data)
{
    const run_point *pt = arg;
    if (!pt->def) {
        p11_runner_mix(pt->r, &pt->o->mix, pt->o->tp);
        return;
    }
    p11_test_params p = pt->o->tp[pt->test];
    p.data_size = pt->o->data_list[data];
    p11_runner_test(pt->r, pt->def, &p);
}

/* The mix at every thread count, or every test at every thread count and
 * data size asked for (a test that takes no data, at one). */
static void run_sweep(p11_runner *r, const run_opts *o)
{
    bench_session *s = r->session;
    if (o->mix.n) {
        run_point pt = { r, o, NULL, 0 };
        bench_sweep_run(s, &o->lo, &r->load, 1, o->repeat, sweep_point, &pt);
        return;
    }
    for (size_t i = 0; i < o->ntests && !s->interrupted && !s->stuck && !*s->interrupt; i++) {
        run_point pt = { r, o, o->tests[i], i };
        bench_sweep_run(s, &o->lo, &r->load, o->tests[i]->data_max > 0 ? o->ndata : 1, o->repeat,
                        sweep_point, &pt);
    }
}

/* The capacity search: one test, its keys prepared once. */
static void run_capacity(p11_runner *r, const run_opts *o, bench_capacity *cap)
{
    p11_test_params p = o->tp[0];
    p.data_size = o->data_list[0];
    p11_cap_step_arg ca = { r, o->tests[0], &p };
    bench_capacity_run(cap, r->session, &o->cap, &o->lo.load, p11_runner_cap_step, &ca);
}

int p11_cmd_run(int argc, char **argv, const bench_section *const *sections)
{
    run_opts o;
    p11_target t;
    p11_runner r;
    bench_session s;
    bench_metrics *metrics = NULL;
    const bench_flag *interrupt = NULL;
    int opened = 0, session = 0, runner = 0;
    int rc = parse_args(argc, argv, sections, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;

    /* The live endpoint first: a port in use is bad input, before anything runs. */
    if (bench_metrics_start(&o.lo.metrics, &metrics) != 0)
        return BENCH_EXIT_USAGE;
    interrupt = bench_signals_install();
    rc = p11_target_open(&o.target, o.lo.load.threads, P11_OPEN_LOGIN, &t);
    if (rc != 0) {
        rc = *interrupt ? BENCH_EXIT_INTERRUPTED : rc;
        goto cleanup;
    }
    opened = 1;
    if (existing_key_facts(&o, &t) != 0) {
        rc = BENCH_EXIT_USAGE;
        goto cleanup;
    }
    if (bench_session_init(&s, &o.out, interrupt) != 0) {
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    session = 1;
    s.metrics = metrics;
    bench_metrics_target(metrics, metrics ? p11_target_env_json(&t) : NULL);
    if (p11_runner_init(&r, &t, &s, &o.lo.load, o.lo.stages_text) != 0) {
        rc = BENCH_EXIT_FAILED;
        goto cleanup;
    }
    runner = 1;
    bench_capacity cap;
    if (o.cap.nobjectives)
        run_capacity(&r, &o, &cap);
    else
        run_sweep(&r, &o);
    p11_runner_release(&r);    /* kept keys go while the session is open */
    json_t *command = bench_command_json(argc, argv, p11_command_redact, argv);
    rc = o.cap.nobjectives ? bench_capacity_finish(&cap, p11_target_env_json(&t), command)
                           : bench_session_finish(&s, p11_target_env_json(&t), command);
cleanup:
    p11_runner_teardown(&r, runner, &t, opened, &s, session);
    bench_metrics_stop(metrics, interrupt);
    return rc;
}

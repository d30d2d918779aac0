/* SPDX-License-Identifier: Apache-2.0 */
/* rest/cmd_rest.c - "hsmbench rest ekm|sdkms": load a key-management REST service. */
#include "rest/cmd.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "bench/driver/capacity.h"
#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/driver/loadopts.h"
#include "bench/core/pool.h"
#include "bench/results/report.h"
#include "bench/driver/rundesc.h"
#include "bench/driver/session.h"
#include "bench/util/secret.h"
#include "bench/util/signals.h"
#include "rest/client.h"
#include "rest/cmdline.h"
#include "rest/transport/codes.h"
#include "rest/ekm.h"
#include "rest/http_any.h"
#include "rest/views/k6.h"
#include "rest/transport/multi.h"
#include "rest/sdkms.h"
#include "rest/spellings.h"
#include "rest/tokencmd.h"
#include "rest/views/stats.h"
#include "rest/transport/truststore.h"
#include "rest/views/views.h"

#define SECRET_MAX          16384            /* an ID token (JWT) is a few kB */
#define AAD_MAX             65536

static const char rest_usage_head[] =
    "Usage: hsmbench rest ekm   --endpoint KEY_URI [--op wrap|unwrap|wrap-unwrap] [options]\n"
    "       hsmbench rest sdkms --endpoint URL --op keygen|encrypt|decrypt|sign|verify|mac [options]\n"
    "       hsmbench rest http  --url URL [--method M] [--header H ...] [--body ...] [options]\n"
    "                           (any HTTP(S) endpoint; see: hsmbench rest http --help)\n"
    "\n"
    "Benchmark a key-management REST service with the same timing core as\n"
    "'hsmbench run': a Google Cloud EKM endpoint (Thales CipherTrust CCKM and\n"
    "other EKM partners: POST KEY_URI:wrap / :unwrap), or Fortanix SDKMS/DSM.\n"
    "\n"
    ;

static const char rest_usage_tail[] =
    "\n"
    "Tokens, API keys and session tokens are never printed or written to the results.\n"
    "Exit codes: 0 success; 1 the run finished but operations failed; 2 bad usage\n"
    "or input; 3 the endpoint, its TLS or the credentials failed at set-up;\n"
    "99 a --threshold failed (as k6; before 1 for failed operations);\n"
    "130 interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,\n"
    "or standard output closed).\n"
    "k6's and the SDKMS bench's flags (--vus, --stage, --threadcount, --keysize,\n"
    "--op encryption, ...) are taken, each said once; the others' errors say what to\n"
    "use instead (see: hsmbench-rest(1) OLD SPELLINGS).\n";

enum {
    OPT_ENDPOINT = 3000, OPT_OP, OPT_DATA_SIZE,
    OPT_TOKEN_ENV, OPT_TOKEN_FILE, OPT_TOKEN, OPT_REASON, OPT_AAD,
    OPT_API_KEY_ENV, OPT_API_KEY_FILE, OPT_API_KEY, OPT_ALG, OPT_KEY_SIZE, OPT_CURVE,
    OPT_HASH, OPT_TRANSIENT, OPT_FILEPATH, OPT_CHECK, OPT_CIPHER_MODE,
};

/* The SDKMS bench's environment (seed 001), read when no flag gives these,
 * and its defaults, said at run time when hsmbench's differ. */
#define SDKMS_ENV_KEY        "SDKMS_API_KEY"
#define SDKMS_ENV_ENDPOINT   "SDKMS_API_ENDPOINT"
#define SDKMS_ENV_TRUST      "SDKMS_SSL_TRUST_STORE"
#define SDKMS_BENCH_ENDPOINT "https://apps.sdkms.fortanix.com"
/* The EKM package's (seed 000): its set-up script leaves these in .env for
 * `k6 run ... -e G_TOKEN=$G_TOKEN -e ENDPOINT_URL=$ENDPOINT_URL`. */
#define EKM_ENV_TOKEN        "G_TOKEN"
#define EKM_ENV_ENDPOINT     "ENDPOINT_URL"
#define SDKMS_BENCH_THREADS  50
#define SDKMS_BENCH_SECONDS  300

static const bench_option ekm_rows[] = {
    { "endpoint", 0, BENCH_ARG_REQUIRED, "KEY_URI", OPT_ENDPOINT,
      "the key's URI (default $ENDPOINT_URL, as the Thales\n"
      "k6 package's script reads it)", NULL },
    { "op", 0, BENCH_ARG_REQUIRED, "wrap|unwrap|wrap-unwrap", OPT_OP,
      "(default wrap); unwrap uses blobs wrapped at set-up,\n"
      "wrap-unwrap checks the plaintext comes back", NULL },
    { "token-env", 0, BENCH_ARG_REQUIRED, "VAR", OPT_TOKEN_ENV,
      "\nthe bearer token; with none, $G_TOKEN as the Thales k6\n"
      "package's script reads it, else asked without echo on a\n"
      "terminal",
      "--token-env VAR | --token-file FILE | --token TOKEN (warns)" },
    { "token-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_TOKEN_FILE, NULL, NULL },
    { "token", 0, BENCH_ARG_REQUIRED, "TOKEN", OPT_TOKEN, NULL, NULL },
};

/* After --token-cmd and --token-ttl (rest_cmd_token_group). */
static const bench_option ekm_more_rows[] = {
    { "reason", 0, BENCH_ARG_REQUIRED, "REASON", OPT_REASON,
      "accessReasonContext.reason (default CUSTOMER_INITIATED_ACCESS)", NULL },
    { "aad", 0, BENCH_ARG_REQUIRED, "HEX", OPT_AAD, "additionalAuthenticatedData", NULL },
    { "data-size", 0, BENCH_ARG_REQUIRED, "BYTES", OPT_DATA_SIZE,
      "plaintext size, 1..65536 (default 32)", NULL },
    { "check", 0, BENCH_ARG_NONE, NULL, OPT_CHECK,
      "one wrap and one unwrap of its blob: each HTTP status, the\n"
      "wrappedBlob, whether the plaintext came back; exit 0 or 3\n"
      "(the k6 package's verify_setup.sh); no load, no results", NULL },
};

static const bench_option sdkms_rows[] = {
    { "endpoint", 0, BENCH_ARG_REQUIRED, "URL", OPT_ENDPOINT,
      "the service root (https://sdkms.example; default\n"
      "$SDKMS_API_ENDPOINT, as the SDKMS bench reads it)", NULL },
    { "op", 0, BENCH_ARG_REQUIRED, "OP", OPT_OP, "keygen, encrypt, decrypt, sign, verify, mac", NULL },
    { "api-key-env", 0, BENCH_ARG_REQUIRED, "VAR", OPT_API_KEY_ENV,
      "\nthe API key (base64 app_id:secret); with none,\n"
      "$SDKMS_API_KEY as the SDKMS bench reads it, else asked\n"
      "without echo on a terminal",
      "--api-key-env VAR | --api-key-file FILE | --api-key KEY (warns)" },
    { "api-key-file", 0, BENCH_ARG_REQUIRED, "FILE", OPT_API_KEY_FILE, NULL, NULL },
    { "api-key", 0, BENCH_ARG_REQUIRED, "KEY", OPT_API_KEY, NULL, NULL },
    { "alg", 0, BENCH_ARG_REQUIRED, "AES|RSA|EC|HMAC", OPT_ALG,
      "(default: AES for keygen/encrypt/decrypt, RSA for\n"
      "sign/verify, HMAC for mac)", NULL },
    { "key-size", 0, BENCH_ARG_REQUIRED, "BITS", OPT_KEY_SIZE,
      "AES 128/192/256, RSA 1024..8192, HMAC (default 256/2048/256)", NULL },
    { "curve", 0, BENCH_ARG_REQUIRED, "CURVE", OPT_CURVE,
      "EC curve: SecP192K1, SecP224K1, SecP256K1, NistP192,\n"
      "NistP224, NistP256 (default), NistP384, NistP521", NULL },
    { "cipher-mode", 0, BENCH_ARG_REQUIRED, "MODE", OPT_CIPHER_MODE,
      "AES: GCM|CBC; RSA encrypt: OAEP|PKCS1_V15; RSA sign:\n"
      "PKCS1_V15|PSS.  The SDKMS bench's --mode GCM is taken\n"
      "too, with a note; --mode is the load mode (Load)", NULL },
    { "hash-alg", 0, BENCH_ARG_REQUIRED, "SHA1|SHA256|SHA384|SHA512", OPT_HASH,
      "digest for sign/verify, MAC (default SHA256)", NULL },
    { "transient", 0, BENCH_ARG_OPTIONAL, "[=true|false]", OPT_TRANSIENT,
      "transient keys (no kid; nothing to delete)", NULL },
    { "data-size", 0, BENCH_ARG_REQUIRED, "BYTES", OPT_DATA_SIZE, "input size (default 32)", NULL },
    { "filepath", 0, BENCH_ARG_REQUIRED, "FILE", OPT_FILEPATH,
      "the data encrypted, decrypted, signed or MACed is this\n"
      "file (1..65536 bytes; instead of --data-size)", NULL },
    { "check", 0, BENCH_ARG_NONE, NULL, OPT_CHECK,
      "authenticate, make one key and delete it, end the\n"
      "session: each step's outcome; exit 0 or 3; no load", NULL },
};

static const bench_option verbose_rows[] = {
    { "verbose", 'v', BENCH_ARG_NONE, NULL, 'v',
      "log every request on stderr (credentials redacted)", NULL },
};

static const bench_option summary_rows[] = {
    { "summary", 0, BENCH_ARG_REPEATED, "jmeter|k6", REST_CMD_OPT_SUMMARY,
      "also print JMeter's summariser, as the SDKMS bench's JMeter\n"
      "run prints it (see: hsmbench rest http --help), or k6's\n"
      "end-of-test summary in k6's layout (repeatable)", NULL },
};

static const bench_opt_group rest_ekm_group = BENCH_OPT_GROUP("EKM:", ekm_rows, NULL);
static const bench_opt_group rest_ekm_more_group = BENCH_OPT_GROUP(NULL, ekm_more_rows, NULL);
static const bench_opt_group rest_sdkms_group = BENCH_OPT_GROUP("SDKMS:", sdkms_rows, NULL);
static const bench_opt_group rest_verbose_group = BENCH_OPT_GROUP(NULL, verbose_rows, NULL);
static const bench_opt_group rest_summary_group = BENCH_OPT_GROUP("Summary:", summary_rows, NULL);
static const bench_opt_group rest_multi_group = BENCH_OPT_NOTE(REST_MULTI_HELP);

static const bench_opt_group *const rest_groups[] = {
    &rest_ekm_group, &rest_cmd_token_group, &rest_ekm_more_group, &rest_sdkms_group,
    &rest_http_group, &rest_verbose_group, &rest_summary_group, &rest_cmd_interval_group,
    &bench_load_group, &rest_multi_group, &bench_metrics_group,
    &bench_cap_group, &bench_out_group, &bench_help_group, &rest_k6_spellings,
    &rest_k6_env_spellings, &rest_sdkms_spellings, NULL,
};
const bench_cmd_opts rest_options = { "rest", 1, rest_groups };

static void rest_usage(FILE *f)
{
    fputs(rest_usage_head, f);
    bench_opts_help_more(&rest_options, f, bench_out_help_more, rest_sections());
    fputs(rest_usage_tail, f);
}

typedef enum { KIND_EKM, KIND_SDKMS } rest_kind;

typedef struct rest_opts {
    rest_kind      kind;
    const char    *endpoint;
    bench_url      endpoint_url;       /* --endpoint, parsed once at the check */
    const char    *op;
    rest_cmdline   c;                  /* what rest http takes too */
    char           test[64];           /* "ekm-wrap", "sdkms-encrypt" */
    uint64_t       data_size;
    int            check;              /* --check: the set-up check, no load */
    int            bench_defaults;     /* sdkms: no --threads nor a length given (a note) */
    char          *file_data;          /* --filepath's contents */
    const char    *file_path;          /* --filepath, for messages */
    size_t         file_len;
    /* the secret's source */
    const char    *secret_env, *secret_file, *secret_value;
    /* EKM */
    const char    *reason;
    uint8_t       *aad;
    size_t         aadlen;
    /* SDKMS */
    rest_sdkms_cfg sdkms;
    rest_trust_store trust;            /* sdkms: $SDKMS_SSL_TRUST_STORE, when read */
    /* argv slots that held a secret, for the results file's "command" */
    unsigned char *secret_args;      /* per argv index: a BENCH_MARK_* */
} rest_opts;

static int parse_hex(const char *flag, const char *text, uint8_t **out, size_t *len)
{
    size_t n = strlen(text);
    if (n == 0 || n % 2 || n / 2 > AAD_MAX) {
        bench_error("%s: expected an even number of hex digits (at most %d bytes)", flag, AAD_MAX);
        return -1;
    }
    uint8_t *b = malloc(n / 2);
    if (!b) {
        bench_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(text + 2 * i, "%2x", &v) != 1 || !isxdigit((unsigned char)text[2 * i]) ||
            !isxdigit((unsigned char)text[2 * i + 1])) {
            bench_error("%s: '%s' is not hexadecimal", flag, text);
            free(b);
            return -1;
        }
        b[i] = (uint8_t)v;
    }
    free(*out);
    *out = b;
    *len = n / 2;
    return 0;
}

/* Remember what the argv word of the option just taken hides (the parser
 * has masked a secret's value already): `mark` for "--flag VALUE", its
 * "--flag=" twin for "--flag=VALUE". */
static void mark_arg(rest_opts *o, char **argv, int optind_now, unsigned char mark)
{
    int i = optind_now - 1;
    if (i < 0)
        return;
    o->secret_args[i] = bench_mark_of(argv[i], mark);
}

/* The options of one service only: refused by the other one's command. */
static int kind_only(const rest_opts *o, int code)
{
    static const struct { int code; rest_kind kind; const char *flag; } only[] = {
        { OPT_TOKEN_ENV, KIND_EKM, "--token-env" },
        { OPT_TOKEN_FILE, KIND_EKM, "--token-file" },
        { OPT_TOKEN, KIND_EKM, "--token" },
        { REST_CMD_OPT_TOKEN_CMD, KIND_EKM, "--token-cmd" },
        { REST_CMD_OPT_TOKEN_TTL, KIND_EKM, "--token-ttl" },
        { OPT_REASON, KIND_EKM, "--reason" },
        { OPT_API_KEY_ENV, KIND_SDKMS, "--api-key-env" },
        { OPT_API_KEY_FILE, KIND_SDKMS, "--api-key-file" },
        { OPT_API_KEY, KIND_SDKMS, "--api-key" },
        { OPT_ALG, KIND_SDKMS, "--alg" },
        { OPT_KEY_SIZE, KIND_SDKMS, "--key-size" },
        { OPT_CURVE, KIND_SDKMS, "--curve" },
        { OPT_CIPHER_MODE, KIND_SDKMS, "--cipher-mode" },
        { OPT_HASH, KIND_SDKMS, "--hash-alg" },
        { OPT_TRANSIENT, KIND_SDKMS, "--transient" },
        { OPT_FILEPATH, KIND_SDKMS, "--filepath" },
    };
    for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
        if (only[i].code != code || only[i].kind == o->kind)
            continue;
        bench_error("%s: an option of 'hsmbench rest %s' (see: hsmbench rest --help)", only[i].flag,
                    only[i].kind == KIND_EKM ? "ekm" : "sdkms");
        return -1;
    }
    return 0;
}

/* The cipher mode, from --cipher-mode or the old --mode spelling: once. */
static int set_cipher_mode(rest_opts *o, const char *flag, const char *arg)
{
    if (o->sdkms.mode) {
        bench_error("%s %s: the cipher mode is given twice (--cipher-mode %s before)", flag, arg,
                    o->sdkms.mode);
        return -1;
    }
    o->sdkms.mode = arg;
    return 0;
}

/*
 * rest sdkms's --mode: the load mode (blocking|nonblocking, once), or the
 * SDKMS bench's spelling of --cipher-mode when the value can only be a
 * cipher mode.  So "--mode CBC --mode nonblocking" runs CBC open-loop.
 * 1 taken as the cipher mode, 0 a load mode (for bench_load_opt), -1
 * refused (printed).
 */
static int sdkms_mode(rest_opts *o, const char *arg)
{
    if (bench_load_is_mode(arg)) {
        if (o->c.lo.mode_given) {
            bench_error("--mode given twice (see: hsmbench rest --help)");
            return -1;
        }
        return 0;
    }
    if (!rest_sdkms_is_cipher_mode(arg)) {
        bench_error("--mode %s: the load mode is blocking or nonblocking; a cipher mode is "
                    "--cipher-mode " REST_SDKMS_CIPHER_MODES, arg);
        return -1;
    }
    if (set_cipher_mode(o, "--mode", arg) != 0)
        return -1;
    bench_note("--mode %s is the SDKMS bench's spelling: taken as --cipher-mode %s (hsmbench's "
               "--mode is the load mode, blocking|nonblocking)", arg, arg);
    return 1;
}

/* A secret's source: the flag and its value checked, the source kept. */
static int take_secret(rest_opts *o, int c, const char *arg)
{
    const int ekm = c == OPT_TOKEN_ENV || c == OPT_TOKEN_FILE || c == OPT_TOKEN;
    if (c == OPT_TOKEN_ENV || c == OPT_API_KEY_ENV) {
        if (!*arg) {
            bench_error("%s: a variable name is required", ekm ? "--token-env" : "--api-key-env");
            return -1;
        }
        o->secret_env = arg;
    } else if (c == OPT_TOKEN_FILE || c == OPT_API_KEY_FILE) {
        o->secret_file = arg;
    } else {
        bench_warn("%s puts the secret in the shell history (the process list shows '*'s); "
                   "prefer %s", ekm ? "--token" : "--api-key",
                   ekm ? "--token-env VAR or --token-file FILE"
                       : "--api-key-env VAR or --api-key-file FILE");
        if (!*arg) {
            bench_error("%s: the value is empty", ekm ? "--token" : "--api-key");
            return -1;
        }
        o->secret_value = arg;
    }
    return 0;
}

/* --filepath: the file's bytes, read once. */
static int take_file(rest_opts *o, const char *arg)
{
    free(o->file_data);
    o->file_data = NULL;
    if (bench_read_file("--filepath", arg, REST_EKM_MAX_DATA, &o->file_data, &o->file_len) != 0)
        return -1;
    if (!o->file_len) {
        bench_error("--filepath %s: the file is empty", arg);
        return -1;
    }
    o->file_path = arg;
    return 0;
}

/* One of rest ekm|sdkms's own options, its value stored (checked alone).
 * 0, or an exit code (printed). */
static int take_opt(void *arg, int c, char **argv)
{
    rest_opts *o = arg;
    uint64_t v = 0;
    int bad = 0;
    switch (c) {
    case OPT_ENDPOINT:
        mark_arg(o, argv, optind, BENCH_MARK_URL);
        bad = !(o->endpoint = bench_url_take(optarg));
        break;
    case OPT_OP:          o->op = optarg; break;
    case OPT_REASON:      o->reason = optarg; break;
    case OPT_CURVE:       o->sdkms.curve = optarg; break;
    case OPT_HASH:        o->sdkms.hash = optarg; break;
    case OPT_CHECK:       o->check = 1; break;
    case OPT_DATA_SIZE:
        bad = bench_parse_u64("--data-size", optarg, 1, REST_EKM_MAX_DATA, &v) != 0;
        o->data_size = v;
        break;
    case OPT_TOKEN:
    case OPT_API_KEY:
        mark_arg(o, argv, optind, BENCH_MARK_WHOLE);
        /* fall through */
    case OPT_TOKEN_ENV:
    case OPT_API_KEY_ENV:
    case OPT_TOKEN_FILE:
    case OPT_API_KEY_FILE:
        bad = take_secret(o, c, optarg) != 0;
        break;
    case OPT_AAD:
        bad = parse_hex("--aad", optarg, &o->aad, &o->aadlen) != 0;
        break;
    case OPT_ALG:
        if ((bad = rest_sdkms_alg_parse(optarg, &o->sdkms.alg) != 0))
            bench_error("--alg %s: expected AES, RSA, EC or HMAC", optarg);
        break;
    case OPT_KEY_SIZE:
        bad = bench_parse_u64("--key-size", optarg, 1, 65536, &v) != 0;
        o->sdkms.key_bits = (unsigned)v;
        break;
    case OPT_CIPHER_MODE:
        bad = set_cipher_mode(o, "--cipher-mode", optarg) != 0;
        break;
    case OPT_TRANSIENT:
        /* The test bench's --transient=true|false, or the bare flag. */
        if (!optarg || strcasecmp(optarg, "true") == 0)
            o->sdkms.transient = 1;
        else if (strcasecmp(optarg, "false") == 0)
            o->sdkms.transient = 0;
        else {
            bench_error("--transient=%s: expected true or false", optarg);
            bad = 1;
        }
        break;
    case OPT_FILEPATH:
        bad = take_file(o, optarg) != 0;
        break;
    default:
        return bench_option_error(argv, c, "rest");
    }
    return bad ? BENCH_EXIT_USAGE : 0;
}

/* Words after the options: what the old tools' users type, each with one
 * line saying what hsmbench wants instead.  Always BENCH_EXIT_USAGE. */
static int refuse_words(const rest_opts *o, int argc, char **argv, int first)
{
    /* The SDKMS bench's "run encryption": an operation named as a word. */
    const char *word = argv[first], *script = NULL;
    if (strcmp(word, "run") == 0 && first + 1 < argc)
        word = argv[first + 1];      /* test-bench.sh run keygen, k6 run script.js */
    /* Parsing stops at the first word: k6's script may come later. */
    for (int i = first; i < argc && !script; i++) {
        const size_t n = strlen(argv[i]);
        if (n > 3 && argv[i][0] != '-' && strcmp(argv[i] + n - 3, ".js") == 0)
            script = argv[i];
    }
    const char *op = bench_opts_old_value(&rest_options, "op", word);
    rest_sdkms_op named;
    if (script && o->kind == KIND_EKM)
        /* k6's script, as the EKM package runs it: its load is its pause. */
        bench_error("%s: a k6 script; hsmbench runs none: the EKM package's ekm_wrap.js is hsmbench rest "
                    "ekm --op wrap with --think 500ms (it sleeps 0.5 s after each request; see "
                    "docs/migrating.md)", script);
    else if (script)
        bench_error("%s: a k6 script; hsmbench rest sdkms is the script itself: leave its name out (see: "
                    "hsmbench rest --help)", script);
    else if (word != argv[first] && o->kind == KIND_SDKMS &&
             (op || rest_sdkms_op_parse(word, &named) == 0))
        bench_error("run %s: the SDKMS bench's 'test-bench.sh run %s' is hsmbench rest sdkms --op %s "
                    "(see: hsmbench rest --help)", word, word, op ? op : word);
    else if (word != argv[first])
        bench_error("run %s: unexpected arguments; hsmbench rest %s runs as it is, its operation "
                    "given by --op (see: hsmbench rest --help)", word, o->kind == KIND_EKM ? "ekm" : "sdkms");
    else if (o->kind == KIND_SDKMS && (op || rest_sdkms_op_parse(argv[first], &named) == 0))
        bench_error("%s: unexpected argument; the SDKMS bench's 'run %s' is --op %s (see: hsmbench "
                    "rest --help)", argv[first], argv[first], op ? op : argv[first]);
    else
        bench_error("%s: unexpected argument (see: hsmbench rest --help)", argv[first]);
    return BENCH_EXIT_USAGE;
}

/* The endpoint: --endpoint, else the old tool's variable, else (sdkms) the
 * SDKMS bench's default; parsed once.  *flag names where it came from. */
static int check_endpoint(rest_opts *o, const char **flag)
{
    char why[256];
    *flag = "--endpoint";
    if (!o->endpoint) {
        /* As the old tool: the URL from its variable (not argv: nothing to mask). */
        const char *var = o->kind == KIND_EKM ? EKM_ENV_ENDPOINT : SDKMS_ENV_ENDPOINT;
        const char *env = getenv(var);
        if (env && *env) {
            o->endpoint = env;
            *flag = var;
        }
    }
    if (!o->endpoint && o->kind == KIND_SDKMS) {
        /* The bench's own default: said, since the API key goes there. */
        o->endpoint = SDKMS_BENCH_ENDPOINT;
        *flag = "the SDKMS bench's default endpoint";
        bench_note("neither --endpoint nor " SDKMS_ENV_ENDPOINT ": " SDKMS_BENCH_ENDPOINT
                   ", the SDKMS bench's default (the SaaS service)");
    }
    if (!o->endpoint) {
        /* A .env sourced without export sets a shell variable no program
         * sees (the seed's "source .env"): the line says how. */
        bench_error("--endpoint is required (the EKM key URI), or " EKM_ENV_ENDPOINT
                    " exported as the EKM package's k6 script reads it (a .env: set -a; . ./.env; set +a)");
        return -1;
    }
    if (rest_url_parse(&o->endpoint_url, o->endpoint, why, sizeof why) != 0) {
        bench_error("%s: %s", *flag, why);
        return -1;
    }
    return 0;
}

/* TLS: --cacert not a Java store; else (sdkms) the SDKMS bench's trust
 * store; the files read, the engine chosen. */
static int check_tls(rest_opts *o, const char *endpoint_flag)
{
    char why[256];
    rest_http_opts *h = &o->c.http;
    if (h->cacert && rest_trust_jks_hint("--cacert", h->cacert, why, sizeof why)) {
        bench_error("%s", why);
        return -1;
    }
    const char *store = o->kind == KIND_SDKMS && !h->cacert && !h->insecure
                            ? getenv(SDKMS_ENV_TRUST) : NULL;
    if (store && *store) {
        /* As the SDKMS bench: its trust store, when no flag names the CAs. */
        if (rest_trust_store_open(SDKMS_ENV_TRUST, store, &o->trust) != 0)
            return -1;
        h->cacert = o->trust.path;
        if (!o->check)
            bench_note(SDKMS_ENV_TRUST " %s: its CAs are trusted (a %s store; --cacert FILE "
                       "overrides it)", store, o->trust.kind);
    }
    if (rest_http_check_opts(h, &o->endpoint_url, endpoint_flag, why, sizeof why) != 0 ||
        rest_http_pick_engine(h, why, sizeof why) != 0 ||
        rest_http_load_files(h, why, sizeof why) != 0) {
        bench_error("%s", why);
        return -1;
    }
    return 0;
}

/* rest ekm: the operation and the defaults. */
static int finish_ekm(rest_opts *o)
{
    rest_ekm_op op = REST_EKM_WRAP;
    if (o->op && rest_ekm_op_parse(o->op, &op) != 0) {
        bench_error("--op %s: EKM operations are wrap, unwrap and wrap-unwrap", o->op);
        return -1;
    }
    if (!o->reason)
        o->reason = REST_EKM_DEFAULT_REASON;
    if (!o->data_size)
        o->data_size = REST_EKM_DEFAULT_DATA;
    snprintf(o->test, sizeof o->test, "ekm-%s", rest_ekm_op_name(op));
    return 0;
}

/* rest sdkms: the operation, its data (--data-size or --filepath) and the
 * key's settings resolved. */
static int finish_sdkms(rest_opts *o)
{
    char why[256];
    if (!o->op && o->check)
        o->op = "keygen";                 /* --check makes a key of --alg (AES) */
    if (!o->op) {
        bench_error("--op is required: keygen, encrypt, decrypt, sign, verify or mac");
        return -1;
    }
    if (rest_sdkms_op_parse(o->op, &o->sdkms.op) != 0) {
        bench_error("--op %s: SDKMS operations are keygen, encrypt, decrypt, sign, verify "
                    "and mac", o->op);
        return -1;
    }
    if (o->sdkms.op == REST_SDKMS_KEYGEN && (o->file_data || o->data_size)) {
        if (o->file_data)
            bench_error("--op keygen and --filepath %s: keygen sends no data; leave it out",
                        o->file_path);
        else
            bench_error("--op keygen and --data-size %llu: keygen sends no data; leave it out",
                        (unsigned long long)o->data_size);
        return -1;
    }
    if (o->file_data && o->data_size) {
        bench_error("--filepath and --data-size each give the data: give only one");
        return -1;
    }
    if (o->file_data) {
        o->sdkms.data = (const uint8_t *)o->file_data;
        o->sdkms.data_path = o->file_path;
        o->data_size = o->file_len;
    }
    o->sdkms.data_size = (size_t)o->data_size;
    o->sdkms.aad = o->aad;
    o->sdkms.aadlen = o->aadlen;
    if (rest_sdkms_resolve(&o->sdkms, why, sizeof why) != 0) {
        bench_error("%s", why);
        return -1;
    }
    o->data_size = o->sdkms.data_size;
    snprintf(o->test, sizeof o->test, "sdkms-%s", rest_sdkms_op_name(o->sdkms.op));
    return 0;
}

/* The rules between options, once every one is taken: 0 or -1 (printed). */
static int check_opts(rest_opts *o, const bench_opts_parser *parser)
{
    const char *endpoint_flag;
    if (check_endpoint(o, &endpoint_flag) != 0)
        return -1;
    if (!!o->secret_env + !!o->secret_file + !!o->secret_value + !!o->c.token_cmd > 1) {
        bench_error("%s each give the %s: give only one",
                    o->kind == KIND_EKM ? "--token-env, --token-file, --token-cmd and --token"
                                        : "--api-key-env, --api-key-file and --api-key",
                    o->kind == KIND_EKM ? "bearer token" : "API key");
        return -1;
    }
    if (rest_cmdline_check(&o->c) != 0)
        return -1;
    if (o->check && o->c.cap.nobjectives) {
        bench_error("--check makes no load: leave out --find-capacity");
        return -1;
    }
    /* Before the defaults are applied: did the user size the run at all? */
    const bench_load_opts *lo = &o->c.lo;
    o->bench_defaults = o->kind == KIND_SDKMS && !o->check && !o->c.cap.nobjectives &&
                        !lo->threads_given && !lo->has_duration && !lo->load.iterations &&
                        !lo->stages_text && !(lo->load.stable_pct > 0);
    if (rest_cmdline_finish_load(&o->c) != 0 || check_tls(o, endpoint_flag) != 0)
        return -1;
    if ((o->kind == KIND_EKM ? finish_ekm(o) : finish_sdkms(o)) != 0)
        return -1;
    return rest_cmdline_finish_out(&o->c, parser, o->test);
}

/* Before the shared takers: rest sdkms's --mode, and the options of the
 * other service refused.  1 taken, 0 not, -1 refused (printed). */
static int pre_opt(void *arg, int c, const char *value)
{
    rest_opts *o = arg;
    if (c == BENCH_OPT_MODE && o->kind == KIND_SDKMS) {
        const int r = sdkms_mode(o, value);
        if (r != 0)
            return r;
    }
    return kind_only(o, c);
}

static void help(const void *arg)
{
    (void)arg;
    rest_usage(stdout);
}

/* 0, -1 after --help, or an exit code (printed). */
static int parse_args(int argc, char **argv, rest_opts *o)
{
    const rest_cmd_takers takers = { pre_opt, take_opt, help, o };
    rest_cmdline_init(&o->c, " of rest ekm|sdkms");
    /* In order (no reordering), so the positions of secret arguments stay put. */
    bench_opts_parser parser;
    if (bench_opts_begin(&parser, &rest_options) != 0)
        return BENCH_EXIT_USAGE;
    /* sdkms: --mode twice may be a load mode and a cipher mode (sdkms_mode). */
    if (o->kind == KIND_SDKMS && bench_opts_again(&parser, "mode") != 0)
        return BENCH_EXIT_USAGE;
    const int rc = rest_cmdline_take_all(&o->c, &parser, argc, argv, &takers);
    if (rc != 0)
        return rc;
    if (optind < argc)
        return refuse_words(o, argc, argv, optind);
    return check_opts(o, &parser) != 0 ? BENCH_EXIT_USAGE : 0;
}

/* The secret, from its source; BENCH_EXIT_USAGE (printed) when there is none. */
static int read_secret(const rest_opts *o, char *buf, size_t cap)
{
    const int ekm = o->kind == KIND_EKM;
    const char *env = o->secret_env;
    if (!env && !o->secret_file && !o->secret_value) {
        /* As the old tool: its variable, when set and no flag names a source. */
        const char *var = ekm ? EKM_ENV_TOKEN : SDKMS_ENV_KEY;
        const char *v = getenv(var);
        if (v && *v)
            env = var;
    }
    bench_secret_src src = { env, o->secret_file, o->secret_value,
                             ekm ? "bearer token" : "API key",
                             ekm ? "--token-env" : "--api-key-env",
                             ekm ? "--token-file" : "--api-key-file",
                             ekm ? "--token" : "--api-key" };
    size_t len = 0;
    int rc = bench_secret_read(&src, ekm ? "EKM bearer token: " : "SDKMS API key: ", buf, cap,
                               &len);
    if (rc == BENCH_SECRET_NONE) {
        bench_error("%s: give %s, or run on a terminal to be asked",
                    ekm ? "rest ekm needs a bearer token" : "rest sdkms needs an API key",
                    ekm ? "--token-env VAR or --token-file FILE (or set " EKM_ENV_TOKEN ")"
                        : "--api-key-env VAR or --api-key-file FILE (or set " SDKMS_ENV_KEY ")");
        return BENCH_EXIT_USAGE;
    }
    if (rc != BENCH_SECRET_OK)
        return BENCH_EXIT_USAGE;
    if (rest_has_control(buf, len)) {
        bench_error("the %s contains a control character", src.what);
        return BENCH_EXIT_USAGE;
    }
    return 0;
}

static json_t *env_json(const rest_opts *o)
{
    return rest_env_json(o->kind == KIND_EKM ? "ekm" : "sdkms", &o->endpoint_url, &o->c.http, NULL);
}

/* The hint a set-up failure's line ends with, where one helps ("" else). */
static const char *setup_hint(const rest_opts *o, bench_code code)
{
    long status = rest_code_http_status(code);
    if (status == 401 || status == 403)
        return o->kind == KIND_EKM ? " (check the bearer token)" : " (check the API key)";
    if (code == REST_E_TLS && !o->c.http.insecure)
        return o->trust.kind ? " (is " SDKMS_ENV_TRUST "'s CA the one that signed the server's "
                               "certificate? does the server want a client certificate: --cert/--key?)"
                             : rest_cmdline_tls_hint(&o->c.http);
    return "";
}

/* One line for a set-up failure, with a hint where one helps. */
static void setup_error(const rest_opts *o, bench_code code, const char *msg)
{
    bench_error("%s: %s%s", o->endpoint_url.identity, msg, setup_hint(o, code));
}

/* What the REST workload adds to a run's summary and JSON. */
typedef struct rest_run_extra {
    rest_cmd_extra   base;      /* first: the shared hooks (rest/cmdline.h) take it */
    const rest_opts *o;
    const rest_ekm  *ekm;       /* EKM runs */
} rest_run_extra;

static int extra_json(void *arg, json_t *run, const bench_outcome *out)
{
    const rest_run_extra *x = arg;
    const rest_opts *const o = x->o;
    rest_k6_ctx k6;
    rest_k6_ctx_of(&k6, &o->c.lo.load);
    if (out && json_object_set_new(run, rest_http_section.key,
                                   rest_stats_json(out, &k6, o->kind == KIND_SDKMS)) != 0)
        return -1;
    json_t *restj = json_pack("{s:s,s:s,s:s}", "service", o->kind == KIND_EKM ? "ekm" : "sdkms", "op",
                              o->kind == KIND_EKM ? rest_ekm_op_name(x->ekm->cfg.op)
                                                  : rest_sdkms_op_name(o->sdkms.op),
                              "http_engine", rest_http_engine_name(&o->c.http));
    if (!restj)
        return -1;
    if (o->kind == KIND_EKM) {
        json_object_set_new(restj, "reason", json_string(o->reason));
        json_object_set_new(restj, "aad_size", json_integer((json_int_t)o->aadlen));
        if (rest_cmd_extra_tokens(&x->base, restj) != 0) {
            json_decref(restj);
            return -1;
        }
    } else {
        json_object_set_new(restj, "alg", json_string(rest_sdkms_alg_name(o->sdkms.alg)));
        if (o->sdkms.mode)
            json_object_set_new(restj, "mode", json_string(o->sdkms.mode));
        if (o->sdkms.op == REST_SDKMS_SIGN || o->sdkms.op == REST_SDKMS_VERIFY ||
            o->sdkms.op == REST_SDKMS_MAC)
            json_object_set_new(restj, "hash_alg", json_string(o->sdkms.hash));
        json_object_set_new(restj, "transient", json_boolean(o->sdkms.transient));
        if (o->file_data)
            json_object_set_new(restj, "filepath", json_true());
    }
    return json_object_set_new(run, "rest", restj);
}

/* What one rest ekm|sdkms command holds from its set-up to its end. */
typedef struct rest_job {
    rest_opts         o;
    char             *secret;
    bench_metrics    *metrics;     /* --metrics-listen, or NULL */
    const bench_flag *interrupt;
    rest_client       client;
    rest_tokcmd      *tokens;      /* --token-cmd, or NULL */
    rest_ekm          ekm;
    rest_sdkms        sdkms;
    bench_workload    w;
    bench_run_desc    d;
    bench_session     s;
    char              mech[64], keydesc[64], err[512];
} rest_job;

/* One run (a capacity step, or the only run) at this load. */
typedef struct rest_run_ctx {
    rest_job              *j;
    const bench_run_hooks *hooks;
    unsigned               aslots;
} rest_run_ctx;

static void rest_run_step(void *arg, const bench_load *load)
{
    rest_run_ctx *st = arg;
    rest_job *j = st->j;
    j->o.c.lo.load = *load;          /* what the hooks describe (k6's context) */
    rest_tokcmd_resume(j->tokens);   /* halted at the last run's end (its results) */
    bench_run_desc_load(&j->d, load, j->o.c.lo.stages_text,
                        st->aslots ? rest_multi_engine(&j->o.c.http) : NULL, st->aslots);
    if (bench_session_run(&j->s, &j->d, &j->w, load, st->hooks) != 0 &&
        rest_code_is_fatal_setup(atomic_load(&j->client.setup_code)))
        j->s.setup_failed = 1;
}

/* The service's workload set up (no request yet): 0, or -1 with the
 * reason in j->err. */
static int init_workload(rest_job *j)
{
    rest_opts *o = &j->o;
    if (o->kind == KIND_EKM) {
        rest_ekm_cfg cfg = { &o->endpoint_url, REST_EKM_WRAP, (size_t)o->data_size, o->aad,
                             o->aadlen, o->reason, j->secret, j->tokens };
        if (o->op)
            rest_ekm_op_parse(o->op, &cfg.op);
        if (rest_ekm_init(&j->ekm, &cfg, &j->client, j->err, sizeof j->err) != 0)
            return -1;
        snprintf(j->mech, sizeof j->mech, "EKM %s",
                 cfg.op == REST_EKM_WRAP_UNWRAP ? ":wrap+:unwrap"
                 : cfg.op == REST_EKM_WRAP      ? ":wrap" : ":unwrap");
        j->d.key_desc = "server key";
        return 0;
    }
    o->sdkms.endpoint = &o->endpoint_url;
    o->sdkms.api_key = j->secret;
    if (rest_sdkms_init(&j->sdkms, &o->sdkms, &j->client, j->err, sizeof j->err) != 0)
        return -1;
    rest_sdkms_mech_desc(&o->sdkms, j->mech, sizeof j->mech);
    j->d.key_desc = rest_sdkms_key_desc(&o->sdkms, j->keydesc, sizeof j->keydesc);
    j->d.key_type = rest_sdkms_alg_name(o->sdkms.alg);
    j->d.key_bits = o->sdkms.key_bits;
    j->d.curve = o->sdkms.alg == REST_ALG_EC ? o->sdkms.curve : NULL;
    return 0;
}

/* --check: the set-up check alone, no load, no results file. */
static int run_check(rest_job *j)
{
    const rest_opts *o = &j->o;
    int rc;
    j->err[0] = 0;
    /* --op wrap given: the wrap alone (the package's script sends wraps only). */
    const int wrap_only = o->kind == KIND_EKM && o->op && j->ekm.cfg.op == REST_EKM_WRAP;
    bench_code cc = o->kind == KIND_EKM
                        ? rest_ekm_probe(&j->ekm, wrap_only, stdout, j->err, sizeof j->err)
                        : rest_sdkms_probe(&j->sdkms, stdout, j->err, sizeof j->err);
    if (*j->interrupt) {
        rc = BENCH_EXIT_INTERRUPTED;
    } else if (cc != BENCH_OK) {
        /* A run's TLS hint too: the check is where a private CA shows first. */
        if (o->kind == KIND_EKM && j->err[0])
            bench_error("%s: %s%s", o->endpoint, j->err, setup_hint(o, cc));
        else if (cc == REST_E_TLS && *setup_hint(o, cc))
            setup_error(o, cc, "the TLS handshake failed");
        printf("check: FAILED\n");
        rc = BENCH_EXIT_MODULE;
    } else {
        printf("check: ok\n");
        rc = BENCH_EXIT_OK;
    }
    if (bench_stdout_check("--check") != 0 && rc == BENCH_EXIT_OK)
        rc = BENCH_EXIT_FAILED;
    return rc;
}

/* The load: one request first, then the run (or the capacity search), then
 * the results.  An exit code. */
static int run_load(rest_job *j, int argc, char **argv, unsigned char *marks)
{
    rest_opts *o = &j->o;
    /* One request first: a wrong URL, certificate or credential is one line. */
    bench_code code = o->kind == KIND_EKM ? rest_ekm_preflight(&j->ekm, j->err, sizeof j->err)
                                          : rest_sdkms_preflight(&j->sdkms, j->err, sizeof j->err);
    if (code != BENCH_OK) {
        if (*j->interrupt)
            return BENCH_EXIT_INTERRUPTED;
        setup_error(o, code, j->err);
        return BENCH_EXIT_MODULE;
    }
    const bench_load *load = &o->c.lo.load;
    if (o->bench_defaults && !o->c.out.quiet)
        bench_note("%u thread for %llu s (the SDKMS bench's default is %d threads for %d s: "
                   "--threads %d --duration %d)", load->threads,
                   (unsigned long long)(load->duration_ns / 1000000000ULL), SDKMS_BENCH_THREADS,
                   SDKMS_BENCH_SECONDS, SDKMS_BENCH_THREADS, SDKMS_BENCH_SECONDS);
    /* Non-blocking: transfers in flight on curl multi handles. */
    const unsigned aslots = bench_async_slots(load);
    if (o->kind == KIND_EKM)
        rest_ekm_workload(&j->ekm, &j->w, aslots);
    else
        rest_sdkms_workload(&j->sdkms, &j->w, aslots);
    j->d.test = o->test;
    j->d.mechanism = j->mech;
    j->d.data_size = o->data_size;     /* the load's fields: rest_run_step, at each run's load */

    j->s.metrics = j->metrics;
    bench_metrics_target(j->metrics, j->metrics ? env_json(o) : NULL);
    rest_run_extra extra = { { &o->c, j->tokens, { 0 } }, o, o->kind == KIND_EKM ? &j->ekm : NULL };
    rest_jmeter_begin(&extra.base.js, stdout, o->c.summary_interval_s);
    const bench_run_hooks hooks = { .arg = &extra, .summary = rest_cmd_extra_summary,
                                    .json = extra_json,
                                    .second = o->c.jmeter ? rest_cmd_extra_second : NULL,
                                    .done = rest_cmd_extra_done };
    rest_run_ctx step = { j, &hooks, aslots };
    bench_capacity cap;
    if (o->c.cap.nobjectives)
        bench_capacity_run(&cap, &j->s, &o->c.cap, load, rest_run_step, &step);
    else
        rest_run_step(&step, load);

    const uint64_t left = atomic_load(&j->client.cleanup_failures);
    if (left)
        bench_warn("%llu benchmark key%s could not be deleted; look for keys named %s-*",
                   (unsigned long long)left, left == 1 ? "" : "s", j->sdkms.name_prefix);
    rest_client_left_print(&j->client, stderr);
    if (j->tokens)
        rest_tokcmd_warn(j->tokens);
    json_t *cmd = bench_command_json(argc, argv, bench_redact_marks, marks);
    return o->c.cap.nobjectives ? bench_capacity_finish(&cap, env_json(o), cmd)
                                : bench_session_finish(&j->s, env_json(o), cmd);
}

/* "rest ekm" or "rest sdkms" after its options are taken; j->o holds them. */
static int run_service(rest_job *j, int argc, char **argv, unsigned char *marks)
{
    rest_opts *o = &j->o;
    int rc;
    if (!(j->secret = malloc(SECRET_MAX))) {
        bench_error("out of memory");
        return BENCH_EXIT_USAGE;
    }
    rc = o->c.token_cmd ? 0 : read_secret(o, j->secret, SECRET_MAX);
    /* The live endpoint first: a port in use is bad input, before a request. */
    if (rc == 0 && bench_metrics_start(&o->c.lo.metrics, &j->metrics) != 0)
        rc = BENCH_EXIT_USAGE;
    if (rc != 0)
        goto out_secret;
    if (o->c.http.insecure)
        bench_warn("--insecure: the server's certificate is not verified; anyone on the path "
                   "can read the %s", o->kind == KIND_EKM ? "bearer token" : "API key");
    if ((rc = rest_cmdline_begin(&o->c, &j->interrupt)) != 0)
        goto out_secret;
    rest_client_init(&j->client, &o->c.http);
    /* --token-cmd's first token before anything else: without one, no run. */
    if (o->c.token_cmd &&
        !(j->tokens = rest_tokcmd_open(o->c.token_cmd, o->c.token_ttl_ns, j->interrupt, &rc)))
        goto out_curl;
    if (init_workload(j) != 0) {
        bench_error("--endpoint: %s", j->err);
        rc = BENCH_EXIT_USAGE;
        goto out_curl;
    }
    if (bench_session_init(&j->s, &o->c.out, j->interrupt) != 0)
        rc = BENCH_EXIT_USAGE;
    else
        rc = o->check ? run_check(j) : run_load(j, argc, argv, marks);
    bench_session_free(&j->s);
    if (o->kind == KIND_EKM)
        rest_ekm_fini(&j->ekm);
    else
        rest_sdkms_fini(&j->sdkms);
out_curl:
    rest_tokcmd_stop(j->tokens);
    rest_client_fini(&j->client);
    curl_global_cleanup();
out_secret:
    bench_metrics_stop(j->metrics, o->c.http.interrupt);
    bench_secret_wipe(j->secret, SECRET_MAX);
    free(j->secret);
    return rc;
}

int rest_cmd_rest(int argc, char **argv, const struct bench_section *const *sections)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        rest_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? BENCH_EXIT_USAGE : BENCH_EXIT_OK;
    }
    if (strcmp(argv[1], "http") == 0)
        return rest_cmd_http(argc, argv);
    rest_kind kind;
    if (strcmp(argv[1], "ekm") == 0)
        kind = KIND_EKM;
    else if (strcmp(argv[1], "sdkms") == 0)
        kind = KIND_SDKMS;
    else {
        bench_error("rest %s: unknown service; expected ekm, sdkms or http", argv[1]);
        return BENCH_EXIT_USAGE;
    }
    rest_job *j = calloc(1, sizeof *j);
    /* getopt sees "ekm" as argv[0]; the marks index the full argv. */
    unsigned char *marks = calloc((size_t)argc + 1, 1);
    int rc = BENCH_EXIT_USAGE;
    if (!j || !marks) {
        bench_error("out of memory");
        goto out;
    }
    j->o.kind = kind;
    j->o.secret_args = marks + 1;
    rc = parse_args(argc - 1, argv + 1, &j->o);
    if (rc == 0)
        rc = run_service(j, argc, argv, marks);
    else if (rc < 0)
        rc = BENCH_EXIT_OK;
    rest_trust_store_close(&j->o.trust);
    rest_http_release_files(&j->o.c.http);
    bench_url_free(&j->o.endpoint_url);
    free(j->o.aad);
    free(j->o.file_data);
out:
    free(marks);
    free(j);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/spellings.c - k6's, the SDKMS bench's and JMeter's spellings of the
 * REST commands' options (rest/spellings.h). */
#include "rest/spellings.h"

/* k6 run's flags, as the seeds give them: a VU is one closed-loop client,
 * an hsmbench thread; --stage's DURATION:TARGET list is --stages'. */
static const bench_old_spelling k6_rows[] = {
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "vus", .short_name = 'u', .arg = BENCH_ARG_REQUIRED,
      .to = "threads", .note = "a VU is one closed-loop client, a thread" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "stage", .short_name = 's', .arg = BENCH_ARG_REPEATED,
      .to = "stages", .note = "DURATION:TARGET as k6 writes it, one more a flag" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .short_name = 'i', .arg = BENCH_ARG_REQUIRED,
      .to = "iterations" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .short_name = 'd', .arg = BENCH_ARG_REQUIRED,
      .to = "duration" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "insecure-skip-tls-verify", .arg = BENCH_ARG_NONE,
      .to = "insecure" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "no-vu-connection-reuse", .arg = BENCH_ARG_NONE,
      .to = "no-connection-reuse", .note = "one request an iteration: a new connection for each" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "http-debug", .arg = BENCH_ARG_NONE,
      .to = "verbose", .note = "a line per request, credentials redacted, no bodies" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .name = "summary-export", .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --json FILE (hsmbench's results, not k6's summary JSON) or "
              "--summary k6 (k6's summary on standard output)?" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .arg = BENCH_ARG_REQUIRED, .to = "out", .value = "json=",
      .note = "did you mean --out jsonl=FILE (a JSON line a second, not k6's metric points) or "
              "--json FILE (the results)?" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .arg = BENCH_ARG_REQUIRED, .to = "out", .value = "csv=",
      .note = "did you mean --out jtl=FILE (a CSV line a request, in JMeter's columns, not k6's metric "
              "points) or --csv FILE (a row a run)?" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .name = "rps", .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --mode nonblocking --rate N (requests a second on a schedule; k6 only "
              "caps its VUs' rate)?" },
};
const bench_opt_group rest_k6_spellings = BENCH_OPT_SPELLINGS(k6_rows);

static const bench_old_spelling k6_env_rows[] = {
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .name = "env", .short_name = 'e', .arg = BENCH_ARG_REQUIRED,
      .note = "no script reads variables: rest ekm reads ENDPOINT_URL and G_TOKEN itself when they "
              "are set; else did you mean --endpoint KEY_URI and --token-env VAR (the variable holding "
              "the token)?" },
};
const bench_opt_group rest_k6_env_spellings = BENCH_OPT_SPELLINGS(k6_env_rows);

/* test-bench.sh run OP --algorithm A --keysize N --threadcount N --time S:
 * its --time is in seconds, as --duration's bare number; a curve name given
 * to --keysize is --curve's. */
static const bench_old_spelling sdkms_rows[] = {
    { .tool = "SDKMS bench", .kind = BENCH_OLD_SAME, .name = "algorithm", .arg = BENCH_ARG_REQUIRED,
      .to = "alg" },
    { .tool = "SDKMS bench", .kind = BENCH_OLD_SAME, .name = "keysize", .arg = BENCH_ARG_REQUIRED,
      .to = "key-size", .other = "curve" },
    { .tool = "SDKMS bench", .kind = BENCH_OLD_SAME, .name = "threadcount", .arg = BENCH_ARG_REQUIRED,
      .to = "threads" },
    { .tool = "SDKMS bench", .kind = BENCH_OLD_SAME, .name = "time", .arg = BENCH_ARG_REQUIRED,
      .to = "duration", .note = "a bare number is seconds in both" },
    { .tool = "SDKMS bench", .kind = BENCH_OLD_VALUE, .to = "op", .value = "encryption", .to_value = "encrypt" },
    { .tool = "SDKMS bench", .kind = BENCH_OLD_VALUE, .to = "op", .value = "decryption", .to_value = "decrypt" },
};
const bench_opt_group rest_sdkms_spellings = BENCH_OPT_SPELLINGS(sdkms_rows);

/* jmeter -n -t PLAN -l RESULTS [-e -o DIR] [-Jname=value]: no plan here; the
 * request and the load are flags, the results --json, --csv and --html. */
static const bench_old_spelling http_rows[] = {
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .name = "env", .short_name = 'e', .arg = BENCH_ARG_REQUIRED,
      .note = "no script reads variables: did you mean --url URL and --header-env NAME=VAR "
              "(a header's value from a variable)?" },
    { .tool = "JMeter", .kind = BENCH_OLD_IGNORED, .short_name = 'n', .arg = BENCH_ARG_NONE,
      .note = "hsmbench has no GUI: every run is non-GUI" },
    { .tool = "JMeter", .kind = BENCH_OLD_REFUSED, .short_name = 't', .arg = BENCH_ARG_REQUIRED,
      .note = "no test plan: did you mean --url URL (with --method, --header, --body) and --threads N "
              "with --duration TIME or --iterations N?" },
    { .tool = "JMeter", .kind = BENCH_OLD_REFUSED, .short_name = 'l', .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --out jtl=FILE (JMeter's CSV, a line a request), --csv FILE (a row a run) "
              "or --json FILE (the results, every figure)?" },
    { .tool = "JMeter", .kind = BENCH_OLD_REFUSED, .short_name = 'e', .arg = BENCH_ARG_NONE,
      .note = "did you mean --html FILE (the report page, written after the run)?" },
    { .tool = "JMeter", .kind = BENCH_OLD_REFUSED, .short_name = 'o', .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --html FILE (one self-contained page)?" },
    { .tool = "JMeter", .kind = BENCH_OLD_REFUSED, .short_name = 'J', .arg = BENCH_ARG_REQUIRED,
      .note = "no plan's properties: did you mean hsmbench's own --threads, --duration, --url?" },
};
const bench_opt_group rest_http_old_spellings = BENCH_OPT_SPELLINGS(http_rows);

/* SPDX-License-Identifier: Apache-2.0 */
/* tests/unit/test_option_table.c - the option table: getopt tables and --help
 * listings generated from it, and every command's table well formed. */
/* early: no check depends on the cores it gets (fixed inputs, no clock) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/driver/loadopts.h"
#include "bench/results/cmd.h"
#include "bench/util/options.h"
#include "p11/cmd.h"
#include "rest/cmd.h"
#include "serve/cmd.h"
#include "tests/unit/check.h"

enum { C_ALPHA = 7000, C_BETA, C_GAMMA };

static const bench_option rows[] = {
    { "alpha", 0, BENCH_ARG_REQUIRED, "N", C_ALPHA, "the first\nand its second line", NULL },
    { "beta", 0, BENCH_ARG_NONE, NULL, C_BETA, "a flag", "--beta | --gamma[=X]" },
    { "gamma", 0, BENCH_ARG_OPTIONAL, "[=X]", C_GAMMA, NULL, NULL },
    { "header", 'H', BENCH_ARG_REPEATED, "'Name: value'", 'H', "repeatable", NULL },
    { "verbose", 'v', BENCH_ARG_NONE, NULL, 'v', "\nunder the flag", NULL },
};
static const bench_option again[] = {
    { "alpha", 0, BENCH_ARG_REQUIRED, "N", C_ALPHA, "the first, said again", NULL },
};
static const bench_option clash[] = {
    { "alpha", 0, BENCH_ARG_NONE, NULL, C_BETA, "another alpha", NULL },
};
static const bench_opt_group group = BENCH_OPT_GROUP("Things:", rows, "  a note\n");
static const bench_opt_group again_group = BENCH_OPT_GROUP("Again:", again, NULL);
static const bench_opt_group clash_group = BENCH_OPT_GROUP(NULL, clash, NULL);
static const bench_opt_group *const groups[] = { &group, &again_group, &bench_help_group, NULL };
static const bench_opt_group *const clash_groups[] = { &group, &clash_group, NULL };
static const bench_cmd_opts cmd = { "thing", 1, groups };
static const bench_cmd_opts clash_cmd = { "thing", 0, clash_groups };

static void test_generated_tables(void)
{
    bench_opts_parser p;
    CHECK(bench_opts_begin(&p, &cmd) == 0);
    CHECK(strcmp(p.shortopts, "+:H:vh") == 0);
    size_t n = 0;
    while (p.longopts[n].name)
        n++;
    CHECK(n == 6);                                /* alpha once, though listed twice */
    CHECK(strcmp(p.longopts[0].name, "alpha") == 0 && p.longopts[0].has_arg == required_argument &&
          p.longopts[0].val == C_ALPHA);
    CHECK(p.longopts[2].has_arg == optional_argument && p.longopts[2].val == C_GAMMA);
    CHECK(p.longopts[3].val == 'H' && p.longopts[5].val == 'h');
    CHECK(p.longopts[3].has_arg == required_argument && p.gs.repeat[3] && !p.gs.repeat[0]);
    CHECK(bench_opts_begin(&p, &clash_cmd) == -1);  /* one name, two options */
}

static int parse(char **argv, int argc, int *codes, int max)
{
    bench_opts_parser p;
    int c, n = 0;
    if (bench_opts_begin(&p, &cmd) != 0)
        return -1;
    while ((c = bench_opts_next(&p, argc, argv)) != -1 && n < max)
        codes[n++] = c;
    return n;
}

static void test_parsing(void)
{
    char a0[] = "thing", a1[] = "--alpha", a2[] = "3", a3[] = "-H", a4[] = "X: y", a5[] = "--gamma=q",
         a6[] = "-v", a7[] = "--header=Z: w";
    char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, NULL };
    int codes[16];
    CHECK(parse(argv, 8, codes, 16) == 5);
    CHECK(codes[0] == C_ALPHA && codes[1] == 'H' && codes[2] == C_GAMMA && codes[3] == 'v' &&
          codes[4] == 'H');

    /* Whole names only, and a value once: bench_getopt_long's rules. */
    char b1[] = "--alp", b2[] = "1";
    char *abbrev[] = { a0, b1, b2, NULL };
    CHECK(parse(abbrev, 3, codes, 16) == 1 && codes[0] == BENCH_OPT_REFUSED);
    char c1[] = "--alpha=1", c2[] = "--alpha=2";
    char *twice[] = { a0, c1, c2, NULL };
    CHECK(parse(twice, 3, codes, 16) == 2 && codes[0] == C_ALPHA && codes[1] == BENCH_OPT_REFUSED);
    /* A repeated option may be: -H and --header, each time. */
    char e1[] = "-H", e2[] = "A: 1", e3[] = "--header=B: 2", e4[] = "-H", e5[] = "C: 3";
    char *repeated[] = { a0, e1, e2, e3, e4, e5, NULL };
    CHECK(parse(repeated, 6, codes, 16) == 3 && codes[0] == 'H' && codes[1] == 'H' && codes[2] == 'H');
    /* In order ("+"): the first word that is not an option ends the options. */
    char d1[] = "word";
    char *inorder[] = { a0, d1, a6, NULL };
    CHECK(parse(inorder, 3, codes, 16) == 0);
}

/* bench_opts_take_all's taker for cmd: --alpha N (a number), -v; the
 * other options are not this command's. */
typedef struct taken { long alpha; int verbose; } taken;

static int take_thing(void *opts, int code, char *arg)
{
    taken *t = opts;
    char *end;
    switch (code) {
    case C_ALPHA:
        t->alpha = strtol(arg, &end, 10);
        if (!*arg || *end) {
            fprintf(stderr, "--alpha %s: not a number\n", arg);
            return -1;
        }
        return 1;
    case 'v':
        t->verbose = 1;
        return 1;
    default:
        return 0;
    }
}

/* bench_opts_take_all on argv (argc words), standard output into out and
 * standard error thrown away: its return value. */
static int take_all(char **argv, int argc, taken *t, char *out, size_t len)
{
    static const bench_cmd_help help = { "Usage: thing\n", "The end.\n", NULL, NULL };
    bench_opts_parser p;
    FILE *tmp = tmpfile();
    fflush(stdout);
    fflush(stderr);
    const int saved_out = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
    if (tmp)
        dup2(fileno(tmp), 1);
    if (null >= 0)
        dup2(null, 2);
    memset(t, 0, sizeof *t);
    const int rc = bench_opts_take_all(&p, &cmd, &help, argc, argv, take_thing, t);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    if (null >= 0)
        close(null);
    out[0] = 0;
    if (tmp) {
        rewind(tmp);
        const size_t n = fread(out, 1, len - 1, tmp);
        out[n] = 0;
        fclose(tmp);
    }
    return rc;
}

static void test_take_all(void)
{
    taken t;
    char out[4096];
    char a0[] = "thing", a1[] = "--alpha", a2[] = "3", a3[] = "-v", a4[] = "word";
    char *ok[] = { a0, a1, a2, a3, a4, NULL };
    /* Every option taken, the operand left at optind. */
    CHECK(take_all(ok, 5, &t, out, sizeof out) == 0);
    CHECK(t.alpha == 3 && t.verbose == 1 && optind == 4 && out[0] == 0);
    /* A bad value, an option of the table the command does not take, an
     * unknown one: exit status 2. */
    char b2[] = "x";
    char *bad[] = { a0, a1, b2, NULL };
    CHECK(take_all(bad, 3, &t, out, sizeof out) == 2);
    char c1[] = "--beta";
    char *other[] = { a0, c1, NULL };
    CHECK(take_all(other, 2, &t, out, sizeof out) == 2);
    char d1[] = "--bogus";
    char *unknown[] = { a0, d1, NULL };
    CHECK(take_all(unknown, 2, &t, out, sizeof out) == 2);
    /* --help: head, the listing, tail, on standard output; -1, nothing taken after it. */
    char e1[] = "--help";
    char *help[] = { a0, e1, a3, NULL };
    CHECK(take_all(help, 3, &t, out, sizeof out) == -1);
    CHECK(strncmp(out, "Usage: thing\nThings:\n", 21) == 0);
    CHECK(strstr(out, "  --alpha N ") != NULL);
    CHECK(strlen(out) > 9 && strcmp(out + strlen(out) - 9, "The end.\n") == 0);
    CHECK(t.verbose == 0);
}

static void test_help_listing(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    bench_opts_help(&cmd, f);
    fclose(f);
    const char *want =
        "Things:\n"
        "  --alpha N            the first\n"
        "                       and its second line\n"
        "  --beta | --gamma[=X] a flag\n"
        "  -H, --header 'Name: value'  repeatable\n"
        "  -v, --verbose\n"
        "                       under the flag\n"
        "  a note\n"
        "Again:\n"
        "  --alpha N            the first, said again\n"
        "  -h, --help           this help\n";
    CHECK_MSG(strcmp(buf, want) == 0, "got:\n%s", buf);
    free(buf);
}

/* Every command's table: it builds, a short letter is its code, and an
 * option without a help line of its own is named on the line before. */
static void test_every_command(void)
{
    const bench_cmd_opts *const all[] = {
        &p11_run_options, &p11_list_options, &p11_keys_options, &p11_menu_options,
        &bench_report_options, &bench_compare_options, &bench_merge_options,
        &rest_options, &rest_http_options, &serve_options,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        bench_opts_parser p;
        CHECK_MSG(bench_opts_begin(&p, all[i]) == 0, "%s", all[i]->cmd);
        const bench_option *prev = NULL;
        for (const bench_opt_group *const *g = all[i]->groups; *g; g++)
            for (size_t k = 0; k < (*g)->n; k++) {
                const bench_option *o = &(*g)->opts[k];
                char name[64];
                snprintf(name, sizeof name, "--%s", o->name);
                CHECK_MSG(!o->short_name || o->code == o->short_name, "%s %s", all[i]->cmd, name);
                CHECK_MSG(o->help || (prev && ((prev->left && strstr(prev->left, name)) ||
                                               strstr(prev->help, name))),
                          "%s %s: no help and not on the line before", all[i]->cmd, name);
                if (o->help)
                    prev = o;
            }
    }
}

/* A row whose metavar names a secret: taken out of argv as it is read, for
 * every command (the parser's, not the command's), the command given a copy. */
static void test_secret_taken(void)
{
    static const bench_option srows[] = {
        { "pin", 0, BENCH_ARG_REQUIRED, "PIN", C_ALPHA, "the PIN", NULL },
        { "token", 0, BENCH_ARG_REQUIRED, "TOKEN", C_BETA, "a token", NULL },
        { "label", 0, BENCH_ARG_REQUIRED, "LABEL", C_GAMMA, "not a secret", NULL },
    };
    static const bench_opt_group sgroup = BENCH_OPT_GROUP(NULL, srows, NULL);
    static const bench_opt_group *const sgroups[] = { &sgroup, NULL };
    static const bench_cmd_opts scmd = { "secret", 1, sgroups };
    char a0[] = "secret", a1[] = "--pin", a2[] = "1234", a3[] = "--token=tk9", a4[] = "--label",
         a5[] = "lab";
    char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
    const char *got[3] = { NULL, NULL, NULL };
    bench_opts_parser p;
    int c;
    CHECK(bench_opts_begin(&p, &scmd) == 0);
    while ((c = bench_opts_next(&p, 6, argv)) != -1)
        if (c >= C_ALPHA && c <= C_GAMMA)
            got[c - C_ALPHA] = optarg;
    CHECK(got[0] && strcmp(got[0], "1234") == 0 && got[0] != a2);
    CHECK(got[1] && strcmp(got[1], "tk9") == 0);
    CHECK(strcmp(a2, "****") == 0 && strcmp(a3, "--token=***") == 0);   /* what ps shows */
    CHECK(got[2] == a5 && strcmp(a5, "lab") == 0);                      /* left alone */
}

/* Old spellings (options.h): SAME (long and short, a value not a whole
 * number meaning another option, a repeatable one joined), VALUE, IGNORED,
 * REFUSED, each said once; the options they stand for given once. */
enum { C_THREADS = 7100, C_STAGES, C_SIZE, C_CURVE, C_OP, C_OUT, C_QUIET, C_PIN };
static const bench_option load_rows[] = {
    { "threads", 0, BENCH_ARG_REQUIRED, "N", C_THREADS, "threads", NULL },
    { "stages", 0, BENCH_ARG_REQUIRED, "LIST", C_STAGES, "stages", NULL },
    { "key-size", 0, BENCH_ARG_REQUIRED, "BITS", C_SIZE, "bits", NULL },
    { "curve", 0, BENCH_ARG_REQUIRED, "CURVE", C_CURVE, "curve", NULL },
    { "op", 0, BENCH_ARG_REQUIRED, "OP", C_OP, "op", NULL },
    { "out", 0, BENCH_ARG_REQUIRED, "jsonl=FILE", C_OUT, "stream", NULL },
    { "quiet", 0, BENCH_ARG_NONE, NULL, C_QUIET, "quiet", NULL },
    { "pin", 0, BENCH_ARG_REQUIRED, "PIN", C_PIN, "the PIN", NULL },
};
static const bench_old_spelling old_rows[] = {
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "vus", .short_name = 'u', .arg = BENCH_ARG_REQUIRED,
      .to = "threads", .note = "a VU is a thread" },
    { .tool = "k6", .kind = BENCH_OLD_SAME, .name = "stage", .short_name = 's', .arg = BENCH_ARG_REPEATED,
      .to = "stages" },
    { .tool = "bench", .kind = BENCH_OLD_SAME, .name = "keysize", .arg = BENCH_ARG_REQUIRED,
      .to = "key-size", .other = "curve" },
    { .tool = "bench", .kind = BENCH_OLD_VALUE, .to = "op", .value = "encryption", .to_value = "encrypt" },
    { .tool = "pkp", .kind = BENCH_OLD_IGNORED, .short_name = 'n', .arg = BENCH_ARG_REQUIRED,
      .note = "no user names" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .name = "summary-export", .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --out jsonl=FILE?" },
    { .tool = "k6", .kind = BENCH_OLD_REFUSED, .to = "out", .value = "json=", .note = "did you mean --out?" },
    { .tool = "jm", .kind = BENCH_OLD_REFUSED, .short_name = 'l', .arg = BENCH_ARG_REQUIRED,
      .note = "did you mean --threads?" },
    { .tool = "pkp", .kind = BENCH_OLD_SAME, .short_name = 'p', .arg = BENCH_ARG_REQUIRED, .to = "pin" },
};
static const bench_opt_group load_group = BENCH_OPT_GROUP("Load:", load_rows, NULL);
static const bench_opt_group old_group = BENCH_OPT_SPELLINGS(old_rows);
static const bench_opt_group *const old_groups[] = { &load_group, &old_group, NULL };
static const bench_cmd_opts old_cmd = { "old", 0, old_groups };

/* Parse argv with old_cmd: the codes (-1 ended) and values, and what went
 * to stderr in err. */
static int parse_old(char **argv, int argc, int *codes, const char **vals, int max, char *err, size_t len)
{
    static char kept[16][64];    /* the values as they were when taken */
    bench_opts_parser p;
    int c, n = 0;
    fflush(stderr);
    FILE *tmp = tmpfile();
    const int saved = dup(2);
    if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0)
        return -1;
    if (bench_opts_begin(&p, &old_cmd) == 0)
        while ((c = bench_opts_next(&p, argc, argv)) != -1 && n < max && n < 16) {
            snprintf(kept[n], sizeof kept[n], "%s", optarg ? optarg : "");
            vals[n] = kept[n];
            codes[n++] = c;
        }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    const size_t got = fread(err, 1, len - 1, tmp);
    err[got] = 0;
    fclose(tmp);
    return n;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *at = strstr(hay, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void test_old_spellings(void)
{
    int codes[16];
    const char *vals[16];
    char err[2048];
    char a0[] = "old", a1[] = "--vus", a2[] = "3", a3[] = "-s", a4[] = "5s:2", a5[] = "--stage=9s:0",
         a6[] = "--keysize", a7[] = "NistP384", a8[] = "--op", a9[] = "encryption", a10[] = "-n",
         a11[] = "CU", a12[] = "--quiet";
    char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, NULL };
    int n = parse_old(argv, 13, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 6, "%d codes; %s", n, err);
    if (n != 6)
        return;
    CHECK(codes[0] == C_THREADS && strcmp(vals[0], "3") == 0);
    CHECK(codes[1] == C_STAGES && strcmp(vals[1], "5s:2") == 0);
    CHECK(codes[2] == C_STAGES && strcmp(vals[2], "9s:0") == 0);          /* each in turn */
    CHECK(codes[3] == C_CURVE && strcmp(vals[3], "NistP384") == 0);       /* not a number */
    CHECK(codes[4] == C_OP && strcmp(vals[4], "encrypt") == 0);
    CHECK(codes[5] == C_QUIET);                                           /* -n CU dropped */
    CHECK_MSG(strstr(err, "hsmbench: --vus is k6's spelling of --threads (a VU is a thread)\n"), "%s", err);
    CHECK_MSG(count_of(err, "spelling of --stages") == 1 && strstr(err, "-s is k6's"), "%s", err);
    CHECK_MSG(strstr(err, "--keysize NistP384 is bench's spelling of --curve NistP384"), "%s", err);
    CHECK_MSG(strstr(err, "--op encryption is bench's spelling of --op encrypt"), "%s", err);
    CHECK_MSG(strstr(err, "-n CU (pkp's): ignored; no user names"), "%s", err);

    /* The short one, and a whole number: --key-size. */
    char b1[] = "-u", b2[] = "2", b3[] = "--keysize", b4[] = "256";
    char *shorts[] = { a0, b1, b2, b3, b4, NULL };
    n = parse_old(shorts, 5, codes, vals, 16, err, sizeof err);
    CHECK(n == 2 && codes[0] == C_THREADS && codes[1] == C_SIZE && strcmp(vals[1], "256") == 0);
    CHECK_MSG(strstr(err, "-u is k6's spelling of --threads"), "%s", err);

    /* An old spelling is its option: once, either way round. */
    char c1[] = "--threads", c2[] = "4", c3[] = "-u", c4[] = "5";
    char *twice[] = { a0, c1, c2, c3, c4, NULL };
    n = parse_old(twice, 5, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 2 && codes[1] == BENCH_OPT_REFUSED && strstr(err, "--threads given twice"), "%s", err);
    char d1[] = "--stages", d2[] = "1s:1", d3[] = "--stage", d4[] = "2s:2";
    char *both[] = { a0, d1, d2, d3, d4, NULL };
    n = parse_old(both, 5, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 2 && codes[1] == BENCH_OPT_REFUSED && strstr(err, "--stages given twice"), "%s", err);

    char n1[] = "--keysize", n2[] = "NistP256", n3[] = "--curve", n4[] = "P-384";
    char *other[] = { a0, n1, n2, n3, n4, NULL };
    n = parse_old(other, 5, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 2 && codes[1] == BENCH_OPT_REFUSED && strstr(err, "--curve given twice"), "%s", err);

    /* Refused: the unknown option's error says what to use instead. */
    char e1[] = "--summary-export", e2[] = "s.json";
    char *refused[] = { a0, e1, e2, NULL };
    n = parse_old(refused, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 1 && codes[0] == BENCH_OPT_REFUSED &&
              strstr(err, "--summary-export: unknown option; k6's --summary-export: did you mean "
                          "--out jsonl=FILE? (see: hsmbench old --help)"), "%s", err);
    char f1[] = "--out", f2[] = "json=x.json";
    char *value[] = { a0, f1, f2, NULL };
    n = parse_old(value, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 1 && codes[0] == BENCH_OPT_REFUSED &&
              strstr(err, "--out json=x.json: k6's form; did you mean --out?"), "%s", err);
    char g1[] = "-l", g2[] = "r.jtl";
    char *shortref[] = { a0, g1, g2, NULL };
    n = parse_old(shortref, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 1 && codes[0] == BENCH_OPT_REFUSED && strstr(err, "-l: unknown option; jm's -l: "),
              "%s", err);

    /* Close names: a misspelling, an abbreviation, a value for a flag. */
    char h1[] = "--thread", h2[] = "2";
    char *close1[] = { a0, h1, h2, NULL };
    n = parse_old(close1, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 1 && strstr(err, "--thread: unknown option; did you mean --threads?"), "%s", err);
    char i1[] = "--treads";
    char *close2[] = { a0, i1, h2, NULL };
    n = parse_old(close2, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(strstr(err, "--treads: unknown option; did you mean --threads?"), "%s", err);
    char j1[] = "--vuss";
    char *close3[] = { a0, j1, h2, NULL };
    n = parse_old(close3, 3, codes, vals, 16, err, sizeof err);
    CHECK_MSG(strstr(err, "--vuss: unknown option; did you mean --threads?"), "%s", err);
    char k1[] = "--quiet=yes";
    char *flagval[] = { a0, k1, NULL };
    n = parse_old(flagval, 2, codes, vals, 16, err, sizeof err);
    CHECK_MSG(strstr(err, "--quiet: unknown option; --quiet takes no value"), "%s", err);
    char l1[] = "--zzzzzz";
    char *far[] = { a0, l1, NULL };
    n = parse_old(far, 2, codes, vals, 16, err, sizeof err);
    CHECK_MSG(strstr(err, "--zzzzzz: unknown option (see"), "%s", err);

    /* An old spelling of a secret option is a secret: out of argv, given once. */
    char m1[] = "-p", m2[] = "1234", m3[] = "--pin=99";
    char *secret[] = { a0, m1, m2, m3, NULL };
    n = parse_old(secret, 4, codes, vals, 16, err, sizeof err);
    CHECK_MSG(n == 2 && codes[0] == C_PIN && strcmp(vals[0], "1234") == 0 && strcmp(m2, "****") == 0 &&
              codes[1] == BENCH_OPT_REFUSED && strstr(err, "--pin given twice"), "%d %s", n, err);

    /* The dump lists each old spelling, the long and the short apart. */
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    CHECK(f != NULL);
    if (!f)
        return;
    bench_opts_dump(&old_cmd, f);
    fclose(f);
    CHECK_MSG(strstr(buf, "--threads required\n") && strstr(buf, "old\tk6\t--vus\tsame\t--threads\n") &&
              strstr(buf, "old\tk6\t-u\tsame\t--threads\n") &&
              strstr(buf, "old\tbench\t--keysize\tsame\t--key-size --curve\n") &&
              strstr(buf, "old\tbench\t--op encryption\tvalue\t--op encrypt\n") &&
              strstr(buf, "old\tpkp\t-n\tignored\t-\n") &&
              strstr(buf, "old\tk6\t--summary-export\trefused\t--out\n") &&
              strstr(buf, "old\tk6\t--out json=\trefused\t--out\n") &&
              strstr(buf, "old\tjm\t-l\trefused\t--threads\n"), "%s", buf);
    free(buf);
}

/* k6's repeated --stage reaches the load flags as --stages, once a value:
 * they add up (bench_load_opt), in a buffer of the options' own. */
static void test_stages_add_up(void)
{
    bench_load_opts o;
    bench_load_opts_init(&o);
    char a[] = "5s:70", b[] = "30s:70", c[] = "5s:0";
    CHECK(bench_load_opt(&o, BENCH_OPT_STAGES, a) == 1 && o.stages_text == a);
    CHECK(bench_load_opt(&o, BENCH_OPT_STAGES, b) == 1 && bench_load_opt(&o, BENCH_OPT_STAGES, c) == 1);
    CHECK_MSG(o.stages_text && strcmp(o.stages_text, "5s:70,30s:70,5s:0") == 0, "%s", o.stages_text);
    CHECK(strcmp(a, "5s:70") == 0);                          /* argv untouched */
}

/* A table whose old spelling stands for an option it lacks, or names one in
 * its note, or takes a short letter of an option, is refused at the start. */
static void test_old_spellings_checked(void)
{
    static const bench_old_spelling bad_to[] = {
        { .tool = "x", .kind = BENCH_OLD_SAME, .name = "thread-count", .arg = BENCH_ARG_REQUIRED,
          .to = "no-such" },
    };
    static const bench_old_spelling bad_note[] = {
        { .tool = "x", .kind = BENCH_OLD_REFUSED, .name = "plan", .arg = BENCH_ARG_REQUIRED,
          .note = "did you mean --no-such?" },
    };
    static const bench_old_spelling bad_short[] = {
        { .tool = "x", .kind = BENCH_OLD_SAME, .short_name = 'v', .arg = BENCH_ARG_NONE, .to = "verbose" },
    };
    static const bench_opt_group g_to = BENCH_OPT_SPELLINGS(bad_to);
    static const bench_opt_group g_note = BENCH_OPT_SPELLINGS(bad_note);
    static const bench_opt_group g_short = BENCH_OPT_SPELLINGS(bad_short);
    static const bench_opt_group *const to_groups[] = { &group, &g_to, NULL };
    static const bench_opt_group *const note_groups[] = { &group, &g_note, NULL };
    static const bench_opt_group *const short_groups[] = { &group, &g_short, NULL };
    static const bench_cmd_opts cmds[] = {
        { "to", 0, to_groups }, { "note", 0, note_groups }, { "short", 0, short_groups },
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        bench_opts_parser p;
        fflush(stderr);
        const int saved = dup(2), null = open("/dev/null", O_WRONLY);
        if (saved >= 0 && null >= 0)
            dup2(null, 2);
        const int rc = bench_opts_begin(&p, &cmds[i]);
        if (saved >= 0) {
            dup2(saved, 2);
            close(saved);
        }
        if (null >= 0)
            close(null);
        CHECK_MSG(rc == -1, "%s", cmds[i].cmd);
    }
}

int main(void)
{
    RUN(test_generated_tables);
    RUN(test_old_spellings);
    RUN(test_old_spellings_checked);
    RUN(test_stages_add_up);
    RUN(test_parsing);
    RUN(test_secret_taken);
    RUN(test_help_listing);
    RUN(test_take_all);
    RUN(test_every_command);
    return check_finish();
}

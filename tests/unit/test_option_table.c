/* tests/unit/test_option_table.c - the option table: getopt tables and --help
 * listings generated from it, and every command's table well formed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    RUN(test_generated_tables);
    RUN(test_parsing);
    RUN(test_secret_taken);
    RUN(test_help_listing);
    RUN(test_every_command);
    return check_finish();
}

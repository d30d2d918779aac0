/* bench/util/options.c - getopt tables and --help listings from the option table. */
#include "bench/util/options.h"

#include <string.h>

#include "bench/util/outfile.h"
#include "bench/util/secret.h"

static const bench_option help_rows[] = {
    { "help", 'h', BENCH_ARG_NONE, NULL, 'h', "this help", NULL },
};
const bench_opt_group bench_help_group = BENCH_OPT_GROUP(NULL, help_rows, NULL);

/* The row that first names `name` among the groups, or NULL. */
static const bench_option *first_named(const bench_cmd_opts *cmd, const char *name)
{
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->n; i++)
            if (strcmp((*g)->opts[i].name, name) == 0)
                return &(*g)->opts[i];
    return NULL;
}

int bench_opts_begin(bench_opts_parser *p, const bench_cmd_opts *cmd)
{
    size_t n = 0, s = 0;

    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->gs.cmd = cmd->cmd;
    if (cmd->in_order)
        p->shortopts[s++] = '+';
    p->shortopts[s++] = ':';
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->n; i++) {
            const bench_option *o = &(*g)->opts[i];
            const bench_option *first = first_named(cmd, o->name);
            if (first != o) {
                /* Listed again under another heading: the same option. */
                if (first->code != o->code || first->arg != o->arg) {
                    bench_error("%s: --%s is two options in the table", cmd->cmd, o->name);
                    return -1;
                }
                continue;
            }
            if (n + 1 >= BENCH_OPT_MAX || s + 3 >= sizeof p->shortopts) {
                bench_error("%s: the option table is too large", cmd->cmd);
                return -1;
            }
            static const int has[] = { no_argument, required_argument, optional_argument,
                                       required_argument };
            p->longopts[n].name = o->name;
            p->longopts[n].has_arg = has[o->arg];
            p->longopts[n].flag = NULL;
            p->longopts[n].val = o->code;
            p->gs.repeat[n] = o->arg == BENCH_ARG_REPEATED;
            n++;
            if (o->short_name) {
                p->shortopts[s++] = (char)o->short_name;
                if (o->arg == BENCH_ARG_REQUIRED || o->arg == BENCH_ARG_REPEATED)
                    p->shortopts[s++] = ':';
            }
        }
    p->shortopts[s] = 0;
    opterr = 0;
    optind = 1;
    return 0;
}

int bench_opts_again(bench_opts_parser *p, const char *name)
{
    for (size_t i = 0; i < BENCH_OPT_MAX && p->longopts[i].name; i++)
        if (strcmp(p->longopts[i].name, name) == 0) {
            p->gs.repeat[i] = 1;
            return 0;
        }
    return -1;
}

/* The row and group that define option `code`, or NULL. */
static const bench_option *row_of(const bench_cmd_opts *cmd, int code, const bench_opt_group **group)
{
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->n; i++)
            if ((*g)->opts[i].code == code) {
                *group = *g;
                return &(*g)->opts[i];
            }
    return NULL;
}

int bench_opts_add_file(bench_opts_parser *p, const char *what, const char *path, int writes)
{
    if (p->nfiles == BENCH_OPT_FILES) {
        bench_error("%s: more than %d files named", p->cmd->cmd, BENCH_OPT_FILES);
        return -1;
    }
    p->files[p->nfiles++] = (bench_opt_file){ what, path, writes };
    return 0;
}

/* A file option just taken: record its path (after "jsonl=" for --out). */
static int note_file(bench_opts_parser *p, int code, const char *arg)
{
    const bench_opt_group *g = NULL;
    const bench_option *o = row_of(p->cmd, code, &g);
    if (!o || !o->metavar || !arg)
        return 0;
    const size_t m = strlen(o->metavar);
    if (m < 4 || strcmp(o->metavar + m - 4, "FILE") != 0)
        return 0;
    const char *eq = strchr(o->metavar, '=');
    const char *path = arg;
    if (eq) {
        /* "jsonl=FILE": the value's part after its own '=' (the option's
         * parser refuses a value without one). */
        const char *v = strchr(arg, '=');
        if (!v)
            return 0;
        path = v + 1;
    }
    if (p->nfiles == BENCH_OPT_FILES)
        return bench_opts_add_file(p, o->name, path, g->writes);   /* refused */
    /* "--json " or "--out jsonl=": what the messages print before the path. */
    char *flag = p->flags[p->nfiles];
    snprintf(flag, sizeof p->flags[0], "--%s %.*s", o->name, eq ? (int)(eq - o->metavar) + 1 : 0,
             o->metavar);
    return bench_opts_add_file(p, flag, path, g->writes);
}

/* Its metavar names a secret (options.h). */
static int is_secret(const bench_option *o)
{
    static const char *const secret[] = { "PIN", "SO-PIN", "TOKEN", "KEY", "SECRET" };
    for (size_t i = 0; o->metavar && i < sizeof secret / sizeof secret[0]; i++)
        if (strcmp(o->metavar, secret[i]) == 0)
            return 1;
    return 0;
}

/* A secret option just taken: its value out of argv, optarg the copy. */
static int take_secret(const bench_opts_parser *p, int code)
{
    const bench_opt_group *g = NULL;
    const bench_option *o = row_of(p->cmd, code, &g);
    if (!o || !optarg || !is_secret(o))
        return 0;
    char *copy = bench_secret_keep(optarg);
    if (!copy)
        return -1;
    bench_secret_mask(optarg, strlen(optarg));
    optarg = copy;
    return 0;
}

int bench_opts_next(bench_opts_parser *p, int argc, char **argv)
{
    const int c = bench_getopt_long(argc, argv, p->shortopts, p->longopts, &p->gs);
    if (c > 0 && c != '?' && c != ':' && c != BENCH_OPT_REFUSED &&
        (take_secret(p, c) != 0 || note_file(p, c, optarg) != 0))
        return BENCH_OPT_REFUSED;
    return c;
}

/* Between a flag and its path: nothing after "--json " or "--out jsonl=",
 * a space after an operand's name. */
static const char *sep(const char *flag)
{
    const size_t n = strlen(flag);
    return n && (flag[n - 1] == ' ' || flag[n - 1] == '=') ? "" : " ";
}

int bench_opts_check_files(const bench_opts_parser *p)
{
    bench_file_id id[BENCH_OPT_FILES];
    int known[BENCH_OPT_FILES];
    for (size_t i = 0; i < p->nfiles; i++)
        known[i] = strcmp(p->files[i].path, "-") != 0 && bench_file_id_of(p->files[i].path, &id[i]) == 0;
    for (size_t i = 0; i < p->nfiles; i++) {
        if (!p->files[i].writes || !known[i])
            continue;
        for (size_t j = 0; j < p->nfiles; j++) {
            if (j == i || !known[j] || (p->files[j].writes && j < i) || !bench_file_id_same(&id[i], &id[j]))
                continue;
            const bench_opt_file *o = &p->files[i], *other = &p->files[j];
            bench_error("%s%s%s: the same file as %s%s%s: refusing to %s", o->flag, sep(o->flag),
                        o->path, other->flag, sep(other->flag), other->path,
                        other->writes ? "write one file twice" : "overwrite an input");
            return -1;
        }
    }
    return 0;
}

#define HELP_COLUMN 23    /* where the help text starts: "  " + 20 + " " */

static void print_row(const bench_option *o, FILE *f)
{
    char left[160];
    if (o->left)
        snprintf(left, sizeof left, "%s", o->left);
    else if (o->short_name)
        snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name,
                 o->metavar && o->arg != BENCH_ARG_OPTIONAL ? " " : "", o->metavar ? o->metavar : "");
    else
        snprintf(left, sizeof left, "--%s%s%s", o->name,
                 o->metavar && o->arg != BENCH_ARG_OPTIONAL ? " " : "", o->metavar ? o->metavar : "");
    const char *h = o->help;
    const size_t width = strlen(left);
    if (*h == '\n') {
        fprintf(f, "  %s\n", left);
        h++;
    } else {
        const size_t line = strcspn(h, "\n");
        if (width <= HELP_COLUMN - 3)
            fprintf(f, "  %-*s %.*s\n", HELP_COLUMN - 3, left, (int)line, h);
        else
            fprintf(f, "  %s  %.*s\n", left, (int)line, h);
        h += line;
        if (*h == '\n')
            h++;
    }
    while (*h) {
        const size_t line = strcspn(h, "\n");
        fprintf(f, "%*s%.*s\n", HELP_COLUMN, "", (int)line, h);
        h += line;
        if (*h == '\n')
            h++;
    }
}

void bench_opts_help_more(const bench_cmd_opts *cmd, FILE *f, bench_opts_more_fn more,
                          const void *arg)
{
    for (const bench_opt_group *const *g = cmd->groups; *g; g++) {
        if ((*g)->title)
            fprintf(f, "%s\n", (*g)->title);
        for (size_t i = 0; i < (*g)->n; i++)
            if ((*g)->opts[i].help) {
                print_row(&(*g)->opts[i], f);
                if (more)
                    more(arg, (*g)->opts[i].code, f);
            }
        if ((*g)->note)
            fputs((*g)->note, f);
    }
}

void bench_opts_help(const bench_cmd_opts *cmd, FILE *f)
{
    bench_opts_help_more(cmd, f, NULL, NULL);
}

void bench_opts_dump(const bench_cmd_opts *cmd, FILE *f)
{
    static const char *const kind[] = { "none", "required", "optional", "repeated" };
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->n; i++) {
            const bench_option *o = &(*g)->opts[i];
            if (first_named(cmd, o->name) != o)
                continue;
            fprintf(f, "--%s %s", o->name, kind[o->arg]);
            if (o->short_name)
                fprintf(f, " -%c", o->short_name);
            fputc('\n', f);
        }
}

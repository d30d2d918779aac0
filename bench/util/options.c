/* bench/util/options.c - getopt tables and --help listings from the option table. */
#include "bench/util/options.h"

#include <string.h>

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

int bench_opts_next(bench_opts_parser *p, int argc, char **argv)
{
    return bench_getopt_long(argc, argv, p->shortopts, p->longopts, &p->gs);
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

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/options.c - getopt tables and --help listings from the option table. */
#include "bench/util/options.h"

#include <ctype.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
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

static const int has_arg_of[] = { no_argument, required_argument, optional_argument, required_argument };

/* The getopt table's entry of long name `name`, or -1. */
static int entry_of(const bench_opts_parser *p, const char *name)
{
    for (int i = 0; name && p->longopts[i].name; i++)
        if (strcmp(p->longopts[i].name, name) == 0)
            return i;
    return -1;
}

/* The next "--flag" in text from *at on: its start and length, or NULL. */
static const char *next_flag(const char **at, size_t *len)
{
    for (const char *t = *at; t && (t = strstr(t, "--")) != NULL; t += 2) {
        const size_t n = strspn(t + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (n && t[2] != '-') {
            *at = t + 2 + n;
            *len = n + 2;
            return t;
        }
    }
    return NULL;
}

/* Each --flag the note names is an option of the command (options.h). */
static int note_flags_known(const bench_opts_parser *p, const bench_old_spelling *o)
{
    const char *at = o->note;
    size_t len;
    for (const char *f; (f = next_flag(&at, &len)) != NULL;) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len - 2, f + 2);
        if (!first_named(p->cmd, name)) {
            bench_error("%s: %s's %s: its note names --%s, not an option of the command", p->cmd->cmd,
                        o->tool, o->name ? o->name : o->to, name);
            return -1;
        }
    }
    return 0;
}

/* Old spelling o of the command into the getopt table when it is an option
 * of its own (SAME, IGNORED), after checking it against the table. */
static int add_old(bench_opts_parser *p, const bench_old_spelling *o, size_t *n, size_t *s)
{
    const char *cmd = p->cmd->cmd;
    const char *what = o->name ? o->name : o->to;
    if (p->nold == BENCH_OLD_MAX) {
        bench_error("%s: more than %d old spellings", cmd, BENCH_OLD_MAX);
        return -1;
    }
    const size_t k = p->nold++;
    p->old[k] = o;
    if (note_flags_known(p, o) != 0)
        return -1;
    int t = -1;
    if (o->kind != BENCH_OLD_IGNORED && (o->kind != BENCH_OLD_REFUSED || o->value)) {
        t = entry_of(p, o->to);
        if (t < 0 || (o->other && entry_of(p, o->other) < 0)) {
            bench_error("%s: %s's %s stands for --%s, not an option of the command", cmd, o->tool, what,
                        t < 0 ? o->to : o->other);
            return -1;
        }
    }
    if (o->kind == BENCH_OLD_VALUE || o->kind == BENCH_OLD_REFUSED)
        return 0;    /* a value of an option, or still unknown: no entry */
    if (o->arg == BENCH_ARG_REPEATED) {
        for (size_t i = 0; i < k; i++)
            if (p->old[i]->kind == BENCH_OLD_SAME && p->old[i]->arg == BENCH_ARG_REPEATED) {
                bench_error("%s: two repeatable old spellings", cmd);
                return -1;
            }
    }
    const int once = o->kind == BENCH_OLD_SAME && o->arg != BENCH_ARG_REPEATED;
    if (o->name) {
        if (entry_of(p, o->name) >= 0 || *n + 1 >= BENCH_OPT_MAX) {
            bench_error("%s: --%s is an option and an old spelling, or the table is too large", cmd,
                        o->name);
            return -1;
        }
        p->longopts[*n].name = o->name;
        p->longopts[*n].has_arg = has_arg_of[o->arg];
        p->longopts[*n].flag = NULL;
        p->longopts[*n].val = o->short_name ? o->short_name : BENCH_OPT_OLD_CODE + (int)k;
        p->gs.same[*n] = once ? (unsigned short)(t + 1) : 0;
        p->gs.repeat[*n] = o->arg == BENCH_ARG_REPEATED;
        (*n)++;
    }
    if (o->short_name) {
        const int c = o->short_name;
        if (c <= 0 || c >= 128 || !isalnum(c) || strchr(p->shortopts, c) || *s + 3 >= sizeof p->shortopts) {
            bench_error("%s: %s's -%c is an option already, or no short option", cmd, o->tool, c);
            return -1;
        }
        p->shortopts[(*s)++] = (char)c;
        if (o->arg != BENCH_ARG_NONE)
            p->shortopts[(*s)++] = ':';
        p->old_short[c] = (unsigned char)(k + 1);
        if (!o->name && once)
            p->gs.same_short[c] = (unsigned short)(t + 1);
    }
    return 0;
}

static void old_hint(const void *arg, const char *word, size_t n, char *buf, size_t len);

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
            p->longopts[n].name = o->name;
            p->longopts[n].has_arg = has_arg_of[o->arg];
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
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->nold; i++)
            if (add_old(p, &(*g)->old[i], &n, &s) != 0)
                return -1;
    p->shortopts[s] = 0;
    p->gs.hint = old_hint;
    p->gs.hint_arg = p;
    opterr = 0;
    /* 0, not 1: glibc then starts afresh, taking this table's "+" (or its
     * absence) instead of the ordering of the last table it was given. */
    optind = 0;
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

/* 1 + the index of the old spelling getopt returned c for, or 0. */
static size_t old_index(const bench_opts_parser *p, int c)
{
    if (c >= BENCH_OPT_OLD_CODE && c < BENCH_OPT_OLD_CODE + (int)p->nold)
        return (size_t)(c - BENCH_OPT_OLD_CODE) + 1;
    return c > 0 && c < 128 ? p->old_short[c] : 0;
}

/* How old spelling o was given: "--vus" or "-u" (the argv word before a
 * separate value, else the last). */
static void old_word(const bench_old_spelling *o, char **argv, char *buf, size_t len)
{
    const char *w = argv[optind - 1];
    if (optarg && optind >= 2 && optarg == argv[optind - 1])
        w = argv[optind - 2];
    if (o->name && (!o->short_name || strncmp(w, "--", 2) == 0))
        snprintf(buf, len, "--%s", o->name);
    else
        snprintf(buf, len, "-%c", o->short_name);
}

static int whole_number(const char *v)
{
    return *v && strspn(v, "0123456789") == strlen(v);
}

/* Old spelling k just taken: the code of the option it is (optarg its
 * value), said once; 0 when it is ignored; BENCH_OPT_REFUSED (printed). */
static int take_old(bench_opts_parser *p, size_t k, char **argv)
{
    const bench_old_spelling *o = p->old[k];
    char word[64];
    old_word(o, argv, word, sizeof word);
    const int first = !p->noted[k];
    p->noted[k] = 1;
    if (o->kind == BENCH_OLD_IGNORED) {
        if (first)
            bench_note("%s%s%s (%s's): ignored; %s", word, optarg ? " " : "", optarg ? optarg : "",
                       o->tool, o->note);
        return 0;
    }
    const char *to = o->other && optarg && !whole_number(optarg) ? o->other : o->to;
    const bench_option *row = first_named(p->cmd, to);
    if (to == o->other) {
        /* Given as the other option: that one once too (--keysize NistP384 --curve X). */
        const int t = entry_of(p, to);
        if (p->gs.seen[t]) {
            bench_error("--%s given twice (see: hsmbench %s --help)", to, p->cmd->cmd);
            return BENCH_OPT_REFUSED;
        }
        p->gs.seen[t] = 1;
    }
    if (o->arg == BENCH_ARG_REPEATED) {
        /* k6's --stage A --stage B: the option once, given each value in
         * turn (the command adds them up); never beside the option itself. */
        const int t = entry_of(p, to);
        if (first && p->gs.seen[t]) {
            bench_error("--%s given twice (%s is %s's spelling of it; see: hsmbench %s --help)", to, word,
                        o->tool, p->cmd->cmd);
            return BENCH_OPT_REFUSED;
        }
        p->gs.seen[t] = 1;
    }
    if (first && to == o->other)
        bench_note("%s %s is %s's spelling of --%s %s", word, optarg, o->tool, to, optarg);
    else if (first)
        bench_note("%s is %s's spelling of --%s%s%s%s", word, o->tool, to, o->note ? " (" : "",
                   o->note ? o->note : "", o->note ? ")" : "");
    return row->code;
}

/* Option `code` just taken with optarg: an old tool's value of it is taken
 * as hsmbench's (said once), or refused. */
static int old_value(bench_opts_parser *p, int code)
{
    const bench_opt_group *g = NULL;
    const bench_option *row = row_of(p->cmd, code, &g);
    if (!row || !optarg)
        return 0;
    for (size_t k = 0; k < p->nold; k++) {
        const bench_old_spelling *o = p->old[k];
        if (!o->value || strcmp(o->to, row->name) != 0)
            continue;
        if (o->kind == BENCH_OLD_VALUE && strcmp(optarg, o->value) == 0) {
            if (!p->noted[k])
                bench_note("--%s %s is %s's spelling of --%s %s", row->name, o->value, o->tool, o->to,
                           o->to_value);
            p->noted[k] = 1;
            optarg = (char *)o->to_value;   /* read only, as every optarg */
            return 0;
        }
        if (o->kind == BENCH_OLD_REFUSED && strncmp(optarg, o->value, strlen(o->value)) == 0) {
            bench_error("--%s %s: %s's form; %s (see: hsmbench %s --help)", row->name, optarg, o->tool,
                        o->note, p->cmd->cmd);
            return -1;
        }
    }
    return 0;
}

const char *bench_opts_old_value(const bench_cmd_opts *cmd, const char *name, const char *value)
{
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->nold; i++) {
            const bench_old_spelling *o = &(*g)->old[i];
            if (o->kind == BENCH_OLD_VALUE && strcmp(o->to, name) == 0 && strcmp(o->value, value) == 0)
                return o->to_value;
        }
    return NULL;
}

/* Optimal string alignment distance of a (m characters) and b, both short. */
static size_t edit_distance(const char *a, size_t m, const char *b)
{
    const size_t nb = strlen(b);
    size_t d[3][64];
    if (m >= 63 || nb >= 63)
        return 64;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        size_t *cur = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            const size_t cost = a[i - 1] != b[j - 1];
            size_t v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (prev[j - 1] + cost < v)
                v = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
        }
    }
    return d[m % 3][nb];
}

/* How close option name cand is to what was typed (m characters): 0 for
 * an abbreviation of it, the edit distance otherwise. */
static size_t closeness(const char *typed, size_t m, const char *cand)
{
    if (m >= 3 && strlen(cand) > m && strncmp(cand, typed, m) == 0)
        return 0;
    return edit_distance(typed, m, cand);
}

/* The unknown option's hint (bench_getopt_hint_fn): the old tools' words
 * for it, a value given to an option that takes none, or the options whose
 * names are close ("; did you mean --threads?"). */
static void old_hint(const void *arg, const char *word, size_t n, char *buf, size_t len)
{
    const bench_opts_parser *p = arg;
    const int is_long = n > 2 && strncmp(word, "--", 2) == 0;
    size_t used = 0;
    for (size_t k = 0; k < p->nold; k++) {
        const bench_old_spelling *o = p->old[k];
        const int named = is_long ? o->name && strlen(o->name) == n - 2 && strncmp(o->name, word + 2, n - 2) == 0
                                  : n == 2 && o->short_name == word[1];
        if (o->kind != BENCH_OLD_REFUSED || o->value || !named)
            continue;
        snprintf(buf + used, len - used, "; %s's %.*s: %s", o->tool, (int)n, word, o->note);
        used += strlen(buf + used);
    }
    if (used || !is_long)
        return;
    const char *typed = word + 2;
    const size_t m = n - 2;
    const bench_option *exact = NULL;
    for (const bench_opt_group *const *g = p->cmd->groups; *g && !exact; g++)
        for (size_t i = 0; i < (*g)->n; i++)
            if (strlen((*g)->opts[i].name) == m && strncmp((*g)->opts[i].name, typed, m) == 0)
                exact = &(*g)->opts[i];
    if (exact) {
        snprintf(buf, len, "; --%s takes no value", exact->name);
        return;
    }
    /* The closest names, of options or old spellings (as their option). */
    const char *best[3];
    size_t nbest = 0, bestd = m >= 6 ? 2 : 1;
    if (m < 3)
        return;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; p->longopts[i].name; i++) {
            const char *cand = p->longopts[i].name;
            const size_t k = old_index(p, p->longopts[i].val);
            if (k && p->old[k - 1]->kind != BENCH_OLD_SAME)
                continue;
            const char *as = k ? p->old[k - 1]->to : cand;
            const size_t d = closeness(typed, m, cand);
            if (d > bestd)
                continue;
            if (pass == 0) {
                if (d < bestd)
                    bestd = d;
                continue;
            }
            if (d != bestd || nbest == 3)
                continue;
            int dup = 0;
            for (size_t b = 0; b < nbest; b++)
                dup |= strcmp(best[b], as) == 0;
            if (!dup)
                best[nbest++] = as;
        }
    if (!nbest)
        return;
    used = (size_t)snprintf(buf, len, "; did you mean");
    for (size_t b = 0; b < nbest && used < len; b++) {
        snprintf(buf + used, len - used, "%s--%s", b == 0 ? " " : b + 1 == nbest ? " or " : ", ", best[b]);
        used += strlen(buf + used);
    }
    if (used < len)
        snprintf(buf + used, len - used, "?");
}

int bench_opts_next(bench_opts_parser *p, int argc, char **argv)
{
    for (;;) {
        int c = bench_getopt_long(argc, argv, p->shortopts, p->longopts, &p->gs);
        const size_t old = old_index(p, c);
        if (old) {
            c = take_old(p, old - 1, argv);
            if (c == 0)
                continue;            /* ignored */
        }
        if (c > 0 && c != '?' && c != ':' && c != BENCH_OPT_REFUSED &&
            (take_secret(p, c) != 0 || old_value(p, c) != 0 || note_file(p, c, optarg) != 0))
            return BENCH_OPT_REFUSED;
        return c;
    }
}

int bench_opts_take_all(bench_opts_parser *p, const bench_cmd_opts *cmd, const bench_cmd_help *help,
                        int argc, char **argv, bench_opts_take_fn take, void *opts)
{
    int c;
    if (bench_opts_begin(p, cmd) != 0)
        return BENCH_EXIT_USAGE;
    while ((c = bench_opts_next(p, argc, argv)) != -1) {
        if (c == 'h') {
            fputs(help->head, stdout);
            bench_opts_help_more(cmd, stdout, help->more, help->more_arg);
            if (help->tail)
                fputs(help->tail, stdout);
            return -1;
        }
        const int t = take(opts, c, optarg);
        if (t < 0)
            return BENCH_EXIT_USAGE;
        if (t == 0)
            return bench_option_error(argv, c, cmd->cmd);
    }
    return 0;
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
    static const char *const old_kind[] = { "same", "value", "ignored", "refused" };
    for (const bench_opt_group *const *g = cmd->groups; *g; g++)
        for (size_t i = 0; i < (*g)->nold; i++) {
            const bench_old_spelling *o = &(*g)->old[i];
            /* hsmbench's spelling, the same for each of the old ones */
            char to[256] = "-";
            if (o->kind == BENCH_OLD_SAME)
                snprintf(to, sizeof to, "--%s%s%s", o->to, o->other ? " --" : "", o->other ? o->other : "");
            else if (o->kind == BENCH_OLD_VALUE)
                snprintf(to, sizeof to, "--%s %s", o->to, o->to_value);
            else if (o->kind == BENCH_OLD_REFUSED) {
                /* the options its note names, each once */
                size_t used = 0, flen;
                const char *at = o->note;
                to[0] = 0;
                for (const char *fl; (fl = next_flag(&at, &flen)) != NULL;) {
                    char one[64];
                    snprintf(one, sizeof one, "%.*s", (int)flen, fl);
                    const char *dup = strstr(to, one);
                    if (dup && (dup[flen] == ' ' || dup[flen] == 0))
                        continue;
                    snprintf(to + used, sizeof to - used, "%s%s", used ? " " : "", one);
                    used += strlen(to + used);
                }
            }
            if (o->kind == BENCH_OLD_VALUE || (o->kind == BENCH_OLD_REFUSED && o->value)) {
                fprintf(f, "old\t%s\t--%s %s\t%s\t%s\n", o->tool, o->to, o->value, old_kind[o->kind], to);
                continue;
            }
            if (o->name)
                fprintf(f, "old\t%s\t--%s\t%s\t%s\n", o->tool, o->name, old_kind[o->kind], to);
            if (o->short_name)
                fprintf(f, "old\t%s\t-%c\t%s\t%s\n", o->tool, o->short_name, old_kind[o->kind], to);
        }
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/cmd_menu.c - "hsmbench menu": pkpspeed's interactive dialogue.
 *
 * The token is chosen (by the flags, or from a numbered list), the user
 * logged in, then the session's load is asked once (threads, duration,
 * blocking or not), and a lettered menu of the tests the token offers is
 * shown again after every run.  pkpspeed's Linux cipher names (AES_128,
 * AES_256, 3DES, RSA, RSA_CRT: p11_alias, the table "run --test" takes too)
 * are accepted at the test prompt, and at the duration prompt, where the
 * Linux tool asks for its cipher: the dialogue then follows the Linux
 * tool's order (cipher, its size, duration) and runs non-blocking, as it
 * does.  A test at the blocking question, which pkpspeed_blocking never
 * asks, follows pkpspeed_blocking's order, blocking.  So answer files made
 * for either tool replay.  Each run goes through p11_runner_test, the
 * same code as "hsmbench run", and is followed by the "hsmbench run" line
 * that repeats it in batch mode.
 *
 * Every prompt validates its answer and asks again with a one-line
 * explanation; an empty answer takes the default.  End of input leaves
 * cleanly (exit 0), as does X at any prompt; 20 bad answers in a row leave with exit 2;
 * Ctrl-C during a run stops that run and returns to the menu, Ctrl-C at a
 * prompt leaves with exit 130.
 */
#include "p11/cmd.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/core/pool.h"
#include "bench/util/signals.h"
#include "keys/keys.h"
#include "p11/names.h"
#include "bench/driver/loadopts.h"
#include "p11/runner.h"
#include "p11/target.h"
#include "p11/tests.h"

#define MENU_MAX_THREADS 400     /* pkpspeed_blocking's [MAX=400] */
#define MENU_MAX_SECONDS 600
#define MENU_MAX_RATE    1000000
#define MENU_DEF_SECONDS 10
#define MENU_MAX_BAD     20      /* bad answers in a row before giving up */
#define MENU_DASHES      30      /* pkpspeed's "RSA CRT----...---->B" column */

static const char menu_usage[] =
    "Usage: hsmbench menu [selection]\n"
    "\n"
    "Interactive benchmark in the manner of pkpspeed: choose the token, the\n"
    "threads, the duration and blocking or non-blocking once, then tests from a\n"
    "lettered menu (A RSA non-CRT, B RSA CRT, C Basic 3DES CBC, D Basic AES,\n"
    "H FIPS Random, I Random, K AES GCM, further letters for the rest of the\n"
    "catalogue, X to exit; pkpspeed's Linux cipher names AES_128, AES_256, 3DES,\n"
    "RSA and RSA_CRT work too).  Each run prints pkpspeed's per-second lines,\n"
    "hsmbench's summary, and the equivalent \"hsmbench run\" command.\n"
    "\n"
    "Answer files of both pkpspeed tools replay: the Linux pkpspeed's (threads,\n"
    "cipher, its size, duration) runs non-blocking, as that tool does;\n"
    "pkpspeed_blocking's (threads, duration, test letter: no blocking question)\n"
    "runs blocking, said once on standard error.  A block cipher's data size\n"
    "that is not whole blocks is rounded up to them, and said.\n"
    "\n"
    "\n";

static const char menu_usage_tail[] =
    "\n"
    "Answers may be piped on standard input: the same dialogue then runs\n"
    "unattended.  End of input, or X at any prompt, leaves (exit 0); Ctrl-C stops a run and\n"
    "returns to the menu, and leaves at a prompt (exit 130).  See hsmbench-menu(1).\n"
    "pkpspeed's -p PASSWORD is --pin and its -s USER is --pin-user, each said once.\n";

/* With no --slot, --token or --uri: what the menu does. */
static const bench_opt_group menu_choose_group = BENCH_OPT_NOTE(
    "                       with no token named and several initialised tokens,\n"
    "                       a numbered list to choose from\n");
static const bench_opt_group *const menu_groups[] = {
    &p11_target_group, &p11_pin_user_group, &menu_choose_group, &bench_help_group, &p11_pkpspeed_spellings, NULL,
};
const bench_cmd_opts p11_menu_options = { "menu", 0, menu_groups };

/* What ask() and the prompts built on it return. */
enum { ASK_OK = 0, ASK_LEAVE, ASK_INTR, ASK_GIVEUP };

/* Whose order the answers follow: hsmbench's own (threads, duration,
 * blocking or not, then tests), the Linux pkpspeed's (threads, cipher, its
 * size, duration: non-blocking), or pkpspeed_blocking's (threads, duration,
 * then tests: no blocking question, blocking). */
enum { ORDER_HSMBENCH = 0, ORDER_LINUX, ORDER_WINDOWS };

/* The Linux pkpspeed runs non-blocking: each thread keeps requests in
 * flight; hsmbench keeps this many per thread, as its asynchronous engines
 * do by default (bench_load_check_fds). */
#define MENU_INFLIGHT_PER_THREAD 16

typedef struct menu_item {
    char                code[3];
    const char         *label;     /* pkpspeed's name, or NULL: the test's name */
    const p11_test_def *def;
    int                 supported;
    char                reason[200];
} menu_item;

typedef struct menu {
    const bench_flag *interrupt;
    int           tty;             /* standard input is a terminal */
    unsigned      bad;             /* bad answers in a row */
    char         *line;            /* getline's buffer */
    size_t        cap;
    const char   *answer;          /* the last answer, trimmed */
    char          shown[48];       /* the last answer, fit to quote in a message */
    p11_target_opts opts;
    char          chosen[33];      /* label of a token chosen from the list */
    p11_target    t;
    int           t_open;
    bench_out_opts out;            /* none: the menu writes no files */
    bench_session bs;
    p11_runner    r;
    int           r_init;
    menu_item    *items;
    size_t        nitems;
    unsigned      max_threads, def_threads;
    unsigned      threads, seconds;
    int           nonblocking;
    uint64_t      rate;            /* non-blocking: operations/second, or 0 with inflight */
    unsigned      inflight;        /* non-blocking without a rate: requests kept in flight */
    int           order;           /* whose order the dialogue follows (ORDER_*) */
    char         *held;            /* a line read ahead (next_is_number), when has_held */
    size_t        held_cap;
    ssize_t       held_n;          /* its length, or -1: end of input */
    int           has_held;
    char          static_key[4096];
} menu;

/* A test chosen at a prompt: its menu entry, and what its name fixed. */
typedef struct menu_choice {
    const menu_item    *it;
    const p11_alias    *cipher;    /* a Linux cipher's name (RSA_CRT); NULL: a letter or test name */
} menu_choice;

/* ------------------------------------------------------------------------ */
/* Reading answers                                                          */

static int ask(menu *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(menu *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line of standard input into *buf: its length, or -1 at end of input
 * or when our signal arrived. */
static ssize_t read_line(const menu *m, char **buf, size_t *cap)
{
    ssize_t n = -1;
    for (int tries = 0; tries < 100; tries++) {
        if (*m->interrupt)
            break;
        errno = 0;
        n = getline(buf, cap, stdin);
        if (n >= 0 || errno != EINTR || *m->interrupt)
            break;
        clearerr(stdin);       /* a signal that is not ours: read on */
    }
    return n;
}

/* Print the prompt, read one line (or take the one read ahead).
 * ASK_LEAVE at end of input, ASK_INTR when a signal arrived. */
static int ask(menu *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    bench_flush(stdout);

    ssize_t n;
    if (m->has_held && !*m->interrupt) {
        char *line = m->line;
        size_t cap = m->cap;
        m->line = m->held;
        m->cap = m->held_cap;
        m->held = line;
        m->held_cap = cap;
        n = m->held_n;
        m->has_held = 0;
    } else {
        n = read_line(m, &m->line, &m->cap);
    }
    if (*m->interrupt) {
        fputc('\n', stdout);
        bench_flush(stdout);
        return ASK_INTR;
    }
    if (n < 0) {
        printf("\n(end of input)\n");
        bench_flush(stdout);
        /* An answer file that ends on an answer it had wrong asked for
         * something it did not get: that is a usage error, not a leave. */
        if (m->bad) {
            bench_error("the answers ended after an invalid answer ('%s'); nothing was run", m->shown);
            return ASK_GIVEUP;
        }
        return ASK_LEAVE;
    }
    char *a = m->line, *end = m->line + n;
    while (end > a && isspace((unsigned char)end[-1]))
        *--end = 0;
    while (*a && isspace((unsigned char)*a))
        a++;
    m->answer = a;
    size_t i = 0;
    for (; a[i] && i < sizeof m->shown - 4; i++)
        m->shown[i] = isprint((unsigned char)a[i]) ? a[i] : '?';
    if (a[i])
        m->shown[i++] = '.', m->shown[i++] = '.', m->shown[i++] = '.';
    m->shown[i] = 0;
    /* Piped answers are not echoed by a terminal: show them, so the
     * transcript reads like the dialogue.  (PINs never come through here.) */
    if (!m->tty) {
        for (const char *p = a; *p; p++)
            putchar(isprint((unsigned char)*p) ? *p : '?');
        putchar('\n');
    }
    bench_flush(stdout);
    /* X leaves at every prompt, as pkpspeed's eXit does at its menu. */
    if (strcasecmp(a, "X") == 0) {
        m->bad = 0;
        return ASK_LEAVE;
    }
    return ASK_OK;
}

/* Is the next answer, read ahead without taking it, a whole number or
 * empty?  Only an answer file is read ahead: on a terminal, 0. */
static int next_is_number(menu *m)
{
    if (m->tty)
        return 0;
    if (!m->has_held) {
        m->held_n = read_line(m, &m->held, &m->held_cap);
        m->has_held = 1;
    }
    if (m->held_n < 0)
        return 0;
    const char *a = m->held;
    const char *end = a + m->held_n;
    while (a < end && isspace((unsigned char)*a))
        a++;
    while (end > a && isspace((unsigned char)end[-1]))
        end--;
    return strspn(a, "0123456789") >= (size_t)(end - a);
}

/* One line saying what was wrong; ASK_GIVEUP after too many in a row. */
static int bad(menu *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    bench_flush(stdout);
    if (++m->bad >= MENU_MAX_BAD) {
        bench_error("%u invalid answers in a row; leaving", m->bad);
        return ASK_GIVEUP;
    }
    return ASK_OK;
}

static int good(menu *m)
{
    m->bad = 0;
    return ASK_OK;
}

/* A whole decimal number: 0, -1 when it is not one, 1 when it passes
 * 2^64-1 (out of every range; leading zeros count for nothing). */
static int parse_whole(const char *s, uint64_t *v)
{
    size_t n = strlen(s);
    if (n == 0 || strspn(s, "0123456789") != n)
        return -1;
    *v = 0;
    for (; *s; s++) {
        const unsigned d = (unsigned)(*s - '0');
        if (*v > (UINT64_MAX - d) / 10)
            return 1;
        *v = *v * 10 + d;
    }
    return 0;
}

/*
 * Check the last answer as a whole number in [lo, hi]; an empty answer
 * takes def, or is refused when has_def is 0.  *done is 1 with *out set,
 * or 0 after the explanation.
 */
static int number_answer(menu *m, uint64_t lo, uint64_t hi, int has_def, uint64_t def,
                         uint64_t *out, int *done)
{
    uint64_t v;
    *done = 0;
    if (!*m->answer) {
        if (has_def) {
            *out = def;
            *done = 1;
            return good(m);
        }
        return bad(m, "An answer is needed: enter a number from %llu to %llu.",
                   (unsigned long long)lo, (unsigned long long)hi);
    }
    const int pw = parse_whole(m->answer, &v);
    if (pw < 0)
        return bad(m, "'%s' is not a number: enter a whole number from %llu to %llu.",
                   m->shown, (unsigned long long)lo, (unsigned long long)hi);
    if (pw > 0 || v < lo || v > hi)
        return bad(m, "%s is out of range: enter a number from %llu to %llu.", m->shown,
                   (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    *done = 1;
    return good(m);
}

/* Ask until number_answer takes the answer. */
static int ask_number(menu *m, const char *prompt, uint64_t lo, uint64_t hi, int has_def,
                      uint64_t def, uint64_t *out)
{
    for (;;) {
        int done, rc = ask(m, "%s", prompt);
        if (rc != ASK_OK)
            return rc;
        rc = number_answer(m, lo, hi, has_def, def, out, &done);
        if (rc != ASK_OK || done)
            return rc;
    }
}

/* Does the answer equal one of the '|'-separated words (case ignored)? */
static int matches_word(const char *answer, const char *words)
{
    size_t n = strlen(answer);
    for (const char *w = words; *w;) {
        size_t len = strcspn(w, "|");
        if (len == n && strncasecmp(w, answer, n) == 0)
            return 1;
        w += len;
        if (*w == '|')
            w++;
    }
    return 0;
}

/*
 * One of n options.  Each option is "shown|alias|alias"; the prompt is
 * "QUESTION [a/b/c] (default b): ".  An empty answer takes option def.
 */
static int ask_option(menu *m, const char *question, const char *const *opts, size_t n, size_t def,
                      size_t *out)
{
    char list[160] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s", i ? "/" : "",
                                 (int)strcspn(opts[i], "|"), opts[i]);
    for (;;) {
        int rc = ask(m, "%s [%s] (default %.*s): ", question, list, (int)strcspn(opts[def], "|"),
                     opts[def]);
        if (rc != ASK_OK)
            return rc;
        if (!*m->answer) {
            *out = def;
            return good(m);
        }
        for (size_t i = 0; i < n; i++) {
            if (matches_word(m->answer, opts[i])) {
                *out = i;
                return good(m);
            }
        }
        rc = bad(m, "'%s' is not one of %s.", m->shown, list);
        if (rc != ASK_OK)
            return rc;
    }
}

static int ask_yes_no(menu *m, const char *question, int *yes)
{
    static const char *const yn[] = { "y|yes", "n|no" };
    size_t i;
    int rc = ask_option(m, question, yn, 2, 1, &i);
    if (rc == ASK_OK)
        *yes = i == 0;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The token                                                                */

/*
 * With --module and no --slot/--token/--uri, a module with several
 * initialised tokens gets a numbered choice; the choice becomes --token
 * LABEL (or --slot ID when labels repeat) for the real opening.
 */
static int choose_token(menu *m)
{
    p11_target probe;
    CK_SLOT_ID *slots = NULL;
    CK_ULONG n = 0;
    size_t count = 0;
    p11_token *toks = NULL;

    int rc = p11_target_open(&m->opts, 1, P11_OPEN_MODULE, &probe);
    if (rc != 0)
        return rc;
    if (p11_slots(probe.mod, 1, &slots, &n) != 0) {
        p11_target_close(&probe);
        return BENCH_EXIT_MODULE;
    }
    toks = calloc(n ? n : 1, sizeof *toks);
    if (!toks) {
        bench_error("out of memory");
        free(slots);
        p11_target_close(&probe);
        return BENCH_EXIT_FAILED;
    }
    for (CK_ULONG i = 0; i < n; i++) {
        if (p11_token_read(probe.mod, slots[i], &toks[count]) == CKR_OK &&
            (toks[count].info.flags & CKF_TOKEN_INITIALIZED))
            count++;
    }
    free(slots);
    p11_target_close(&probe);
    if (count <= 1) {
        /* None or one: p11_target_open chooses it, or says there is none. */
        free(toks);
        return 0;
    }

    printf("\nThe module has %zu initialised tokens:\n", count);
    for (size_t i = 0; i < count; i++)
        printf("  %2zu) %-32s  model %-16s  serial %-16s  slot %lu\n", i + 1, toks[i].label,
               toks[i].model, toks[i].serial, (unsigned long)toks[i].slot);
    char prompt[64];
    uint64_t pick;
    snprintf(prompt, sizeof prompt, "Select the token [1-%zu]: ", count);
    rc = ask_number(m, prompt, 1, count, 0, 0, &pick);
    if (rc == ASK_OK) {
        const p11_token *c = &toks[pick - 1];
        int same = 0;
        for (size_t i = 0; i < count; i++)
            same += strcmp(toks[i].label, c->label) == 0;
        /* By label when it is unique and no list (--token a,b takes commas). */
        if (same == 1 && c->label[0] && !strchr(c->label, ',')) {
            snprintf(m->chosen, sizeof m->chosen, "%s", c->label);
            m->opts.token = m->chosen;
        } else {
            m->opts.has_slot = 1;
            m->opts.slot = c->slot;
        }
    }
    free(toks);
    return rc == ASK_OK ? 0 : -rc;    /* negative: how the dialogue ended */
}

/* ------------------------------------------------------------------------ */
/* The catalogue as a lettered menu                                          */

/* The codes after pkpspeed's: E, F, G, J, L, ..., Z, then AA, AB, ...;
 * never X (exit), never one of pkpspeed's letters. */
static void next_code(unsigned *seq, const char *taken, char code[3])
{
    for (;;) {
        unsigned s = (*seq)++;
        if (s < 26) {
            code[0] = (char)('A' + s);
            code[1] = 0;
            if (!strchr(taken, code[0]) && code[0] != 'X')
                return;
        } else {
            s -= 26;
            code[0] = (char)('A' + (s / 26) % 26);
            code[1] = (char)('A' + s % 26);
            code[2] = 0;
            if (code[0] != 'X' && code[1] != 'X')
                return;
        }
    }
}

static int build_items(menu *m)
{
    /* pkpspeed_blocking's letters: the aliases with a menu label. */
    const size_t npkp = p11_alias_count();
    size_t total = p11_test_count();
    unsigned seq = 0;

    m->items = calloc(total + npkp, sizeof *m->items);
    if (!m->items) {
        bench_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < npkp; i++) {
        const p11_alias *a = p11_alias_at(i);
        menu_item *it = &m->items[m->nitems];
        if (!a->label || !(it->def = p11_test_find(a->test)))
            continue;
        snprintf(it->code, sizeof it->code, "%s", a->name);
        it->label = a->label;
        m->nitems++;
    }
    for (size_t i = 0; i < total; i++) {
        const p11_test_def *def = p11_test_at(i);
        int mapped = 0;
        for (size_t j = 0; j < npkp; j++)
            mapped |= p11_alias_at(j)->label && strcmp(def->name, p11_alias_at(j)->test) == 0;
        if (mapped)
            continue;
        menu_item *it = &m->items[m->nitems++];
        it->def = def;
        next_code(&seq, "ABCDHIK", it->code);
    }
    /* What the token offers, with each test's default parameters. */
    for (size_t i = 0; i < m->nitems; i++) {
        menu_item *it = &m->items[i];
        p11_test_params zero, p;
        memset(&zero, 0, sizeof zero);
        const int offered = p11_test_offered(m->t.mod, m->t.token.slot, it->def, &zero, &p, it->reason,
                                             sizeof it->reason);
        if (offered < 0)
            snprintf(it->reason, sizeof it->reason, "its default parameters do not resolve");
        it->supported = offered > 0;
    }
    return 0;
}

static void print_entry(const char *label, const char *code, int width)
{
    int len = (int)strlen(label);
    if (len < MENU_DASHES)
        printf("%s%.*s>%-*s", label, MENU_DASHES - len,
               "------------------------------------------------", width, code);
    else
        printf("%s->%-*s", label, width, code);
}

static void print_menu(const menu *m)
{
    const menu_item *more[256];
    size_t nmore = 0;

    printf("\nPlease select the test you want to run\n\n");
    for (size_t i = 0; i < m->nitems; i++) {
        const menu_item *it = &m->items[i];
        if (!it->supported)
            continue;
        if (it->label) {
            print_entry(it->label, it->code, 0);
            putchar('\n');
        } else if (nmore < sizeof more / sizeof more[0]) {
            more[nmore++] = it;
        }
    }
    if (nmore) {
        printf("\nMore tests (hsmbench's catalogue):\n\n");
        size_t rows = (nmore + 1) / 2;
        for (size_t r = 0; r < rows; r++) {
            print_entry(more[r]->def->name, more[r]->code, 2);
            if (r + rows < nmore) {
                printf("    ");
                print_entry(more[r + rows]->def->name, more[r + rows]->code, 0);
            }
            putchar('\n');
        }
    }
    printf("\n");
    print_entry("eXit", "X", 0);
    printf("\n");
}

static const menu_item *find_item(const menu *m, const char *answer)
{
    for (size_t i = 0; i < m->nitems; i++)
        if (strcasecmp(m->items[i].code, answer) == 0)
            return &m->items[i];
    for (size_t i = 0; i < m->nitems; i++)
        if (strcasecmp(m->items[i].def->name, answer) == 0)
            return &m->items[i];
    return NULL;
}

/* pkpspeed's Linux cipher of that name (case ignored), or NULL. */
static const p11_alias *find_cipher(const char *answer)
{
    const p11_alias *a = p11_alias_find(answer);
    return a && !a->label ? a : NULL;
}

/*
 * The last answer as a test: a letter, a test's name or a Linux cipher
 * name.  *done is 1 with *out set, or 0 after the explanation.
 */
static int test_answer(menu *m, menu_choice *out, int *done)
{
    const char *a = m->answer;
    const p11_alias *c = *a ? find_cipher(a) : NULL;
    const menu_item *it = c ? find_item(m, c->test) : *a ? find_item(m, a) : NULL;
    *done = 0;
    if (!*a)
        return bad(m, "Choose a test: type its letter from the menu above (or its name), "
                      "or X to exit.");
    if (!it)
        return bad(m, "'%s' is not in the menu: type a letter shown above, or X to exit.",
                   m->shown);
    if (!it->supported)
        return bad(m, "%s (%s) is not available: %s.", c ? c->name : it->code, it->def->name,
                   it->reason);
    out->it = it;
    out->cipher = c;
    *done = 1;
    return good(m);
}

/* The menu's prompt: a letter (or a test's or cipher's name), X to leave. */
static int ask_test(menu *m, menu_choice *out)
{
    const char *first = NULL, *last = NULL;
    for (size_t i = 0; i < m->nitems; i++) {
        const menu_item *it = &m->items[i];
        if (!it->supported)
            continue;
        if (!first || strlen(it->code) < strlen(first) ||
            (strlen(it->code) == strlen(first) && strcmp(it->code, first) < 0))
            first = it->code;
        if (!last || strlen(it->code) > strlen(last) ||
            (strlen(it->code) == strlen(last) && strcmp(it->code, last) > 0))
            last = it->code;
    }
    for (;;) {
        int rc;
        if (first)
            rc = ask(m, "Enter the letter of the test [%s-%s, X to exit]: ", first, last);
        else
            rc = ask(m, "Enter X to exit [X]: ");
        if (rc != ASK_OK)
            return rc;
        if (strcasecmp(m->answer, "exit") == 0 || strcasecmp(m->answer, "quit") == 0) {
            good(m);
            return ASK_LEAVE;
        }
        int done;
        rc = test_answer(m, out, &done);
        if (rc != ASK_OK || done)
            return rc;
    }
}

/* ------------------------------------------------------------------------ */
/* One test                                                                 */

static int takes_data(const p11_test_def *def)
{
    return def->data_op && def->data_max > 0;
}

static int uses_key(const p11_test_def *def)
{
    return def->key != KEYS_NONE && def->op != P11_OP_KEYGEN;
}

/* Size of the key: RSA modulus, curve, or the sizes the test allows (none
 * when a cipher's name fixed it: AES_128, AES_256). */
static int ask_key(menu *m, const p11_test_def *def, const p11_alias *c, p11_test_params *in)
{
    static const char *const curves[] = { "P-256|P256|256|secp256r1|prime256v1",
                                          "P-384|P384|384|secp384r1",
                                          "P-521|P521|521|secp521r1" };
    static const char *const curve_names[] = { "P-256", "P-384", "P-521" };
    char words[16][12];
    const char *opts[16];
    size_t n = 0, def_i = 0, pick;
    int rc;

    if (c && c->key_bits) {
        if (c->key_bits != def->key_default)
            in->key_bits = c->key_bits;
        return ASK_OK;
    }
    if (def->key == KEYS_EC) {
        rc = ask_option(m, "Enter the curve", curves, 3, 0, &pick);
        if (rc == ASK_OK && pick != 0)
            in->curve = curve_names[pick];
        return rc;
    }
    if (!def->key_sizes || def->op == P11_OP_FIND)
        return ASK_OK;
    if (def->key == KEYS_RSA) {
        static const unsigned rsa[] = { 2048, 3072, 4096, 0 };
        for (const unsigned *s = rsa; *s; s++) {
            snprintf(words[n], sizeof words[n], "%u", *s);
            if (*s == def->key_default)
                def_i = n;
            opts[n] = words[n];
            n++;
        }
    } else {
        for (const unsigned *s = def->key_sizes; *s && n < 16; s++) {
            snprintf(words[n], sizeof words[n], "%u", *s);
            if (*s == def->key_default)
                def_i = n;
            opts[n] = words[n];
            n++;
        }
    }
    if (n < 2)
        return ASK_OK;       /* 3DES: one size only */
    rc = ask_option(m, def->key == KEYS_RSA ? "Enter the modulus length" : "Enter the key size",
                    opts, n, def_i, &pick);
    if (rc == ASK_OK) {
        unsigned bits = (unsigned)strtoul(words[pick], NULL, 10);
        if (bits != def->key_default)
            in->key_bits = bits;
    }
    return rc;
}

/*
 * The data size.  pkpspeed takes any size from 1 to 16200, so a block
 * mode's size that is not whole blocks is rounded up to them, as padding
 * would make it (down at the top of the range), and said: refused, it
 * would take an answer file's next answer for the size.
 */
static int ask_data(menu *m, const p11_test_def *def, p11_test_params *in)
{
    char prompt[160], blocks[64] = "";
    uint64_t v;
    const unsigned mult = def->data_multiple;
    if (mult)
        snprintf(blocks, sizeof blocks, ", rounded up to whole %u-byte blocks", mult);
    snprintf(prompt, sizeof prompt, "Enter the data size in bytes [%llu-%llu%s] (default %llu): ",
             (unsigned long long)def->data_min, (unsigned long long)def->data_max, blocks,
             (unsigned long long)def->data_default);
    int rc = ask_number(m, prompt, def->data_min, def->data_max, 1, def->data_default, &v);
    if (rc == ASK_OK && mult && v % mult) {
        uint64_t up = (v + mult - 1) / mult * mult;
        if (up > def->data_max)
            up -= mult;
        printf("%llu bytes is not whole %u-byte blocks (%s): %llu bytes are %s.\n",
               (unsigned long long)v, mult, def->name, (unsigned long long)up,
               up > v ? "used, rounded up as padding would" : "used, the largest whole blocks");
        v = up;
    }
    if (rc == ASK_OK && v != def->data_default)
        in->data_size = v;
    return rc;
}

/* A static key (and its file, checked against the test)? */
static int ask_static(menu *m, const p11_test_def *def, p11_test_params *in)
{
    int yes = 0;
    int rc = ask_yes_no(m, "Do you want to use static key", &yes);
    if (rc != ASK_OK || !yes)
        return rc;
    for (;;) {
        char err[200];
        p11_test_params res;
        rc = ask(m, "Enter the key file: ");
        if (rc != ASK_OK)
            return rc;
        if (!*m->answer) {
            rc = bad(m, "A file is needed: a PEM or DER private key (RSA, EC, Ed25519), or raw "
                        "AES/HMAC/3DES key bytes.");
        } else if (strlen(m->answer) >= sizeof m->static_key) {
            rc = bad(m, "That path is too long.");
        } else {
            snprintf(m->static_key, sizeof m->static_key, "%s", m->answer);
            in->keys = P11_KEYS_STATIC;
            in->static_key = m->static_key;
            if (p11_test_resolve(def, in, &res) != 0)
                return ASK_GIVEUP;          /* cannot happen: the answers were checked */
            keys_spec spec = { def->key, res.key_bits, res.curve, 0, 0, 0, NULL };
            keys_material *mat = keys_material_load(m->static_key, &spec, err, sizeof err);
            if (mat) {
                keys_material_free(mat);
                return good(m);
            }
            in->keys = P11_KEYS_GENERATE;
            in->static_key = NULL;
            char kd[48];
            rc = bad(m, "%s: %s (%s needs a %s key).", m->shown, err, def->name,
                     p11_test_key_desc(def, &res, kd, sizeof kd));
        }
        if (rc != ASK_OK)
            return rc;
    }
}

/* Token key, or static key. */
static int ask_keys(menu *m, const p11_test_def *def, p11_test_params *in)
{
    int yes = 0;
    int rc = ask_yes_no(m, "Do you want to use Token key", &yes);
    if (rc != ASK_OK)
        return rc;
    if (yes) {
        in->keys = P11_KEYS_TOKEN;
        return ASK_OK;
    }
    return ask_static(m, def, in);
}

/* ------------------------------------------------------------------------ */
/* The equivalent command                                                    */

typedef struct cmdline {
    char   buf[16384];
    size_t used;
    int    overflow;
} cmdline;

static void cmd_add(cmdline *c, const char *arg)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_-./:=,@%+";
    size_t room = sizeof c->buf - c->used;
    int n;
    if (c->overflow)
        return;
    if (*arg && strspn(arg, safe) == strlen(arg)) {
        n = snprintf(c->buf + c->used, room, "%s%s", c->used ? " " : "", arg);
    } else {
        /* Single quotes, each ' written as '\'' */
        n = snprintf(c->buf + c->used, room, "%s'", c->used ? " " : "");
        for (const char *p = arg; n >= 0 && (size_t)n < room && *p; p++) {
            int k = *p == '\'' ? snprintf(c->buf + c->used + n, room - (size_t)n, "'\\''")
                               : snprintf(c->buf + c->used + n, room - (size_t)n, "%c", *p);
            n = k < 0 ? -1 : n + k;
        }
        if (n >= 0 && (size_t)n < room) {
            int k = snprintf(c->buf + c->used + n, room - (size_t)n, "'");
            n = k < 0 ? -1 : n + k;
        }
    }
    if (n < 0 || (size_t)n >= room)
        c->overflow = 1;
    else
        c->used += (size_t)n;
}

static void cmd_add2(cmdline *c, const char *flag, const char *value)
{
    cmd_add(c, flag);
    cmd_add(c, value);
}

static void cmd_addu(cmdline *c, const char *flag, unsigned long long v, const char *suffix)
{
    char num[32];
    snprintf(num, sizeof num, "%llu%s", v, suffix);
    cmd_add2(c, flag, num);
}

/* A PKCS#11 URI without its pin-value attribute (never printed). */
static const char *uri_without_pin(const char *uri, char *buf, size_t len)
{
    const char *p = strstr(uri, "pin-value=");
    if (!p) {
        snprintf(buf, len, "%s", uri);
        return buf;
    }
    const char *end = strpbrk(p, "&;");
    size_t keep = (size_t)(p - uri);
    if (end)
        snprintf(buf, len, "%.*s%s", (int)keep, uri, end + 1);
    else {
        while (keep && strchr("?&;", uri[keep - 1]))
            keep--;
        snprintf(buf, len, "%.*s", (int)keep, uri);
    }
    return buf;
}

static void print_equivalent(const menu *m, const p11_test_def *def, const p11_test_params *in)
{
    const p11_target_opts *o = &m->opts;
    cmdline c;
    char buf[4096];

    c.used = 0;
    c.overflow = 0;
    c.buf[0] = 0;
    cmd_add(&c, "hsmbench");
    cmd_add(&c, "run");
    if (o->module)
        cmd_add2(&c, "--module", o->module);
    if (o->init_args)
        cmd_add2(&c, "--init-args", o->init_args);
    if (o->has_slot)
        cmd_addu(&c, "--slot", (unsigned long long)o->slot, "");
    else if (o->token)
        cmd_add2(&c, "--token", o->token);
    else if (o->uri)
        cmd_add2(&c, "--uri", uri_without_pin(o->uri, buf, sizeof buf));
    if (o->pin_env)
        cmd_add2(&c, "--pin-env", o->pin_env);
    else if (o->pin_file)
        cmd_add2(&c, "--pin-file", o->pin_file);
    cmd_add2(&c, "--test", def->name);
    cmd_addu(&c, "--threads", m->threads, "");
    cmd_addu(&c, "--duration", m->seconds, "s");
    if (m->nonblocking) {
        cmd_add2(&c, "--mode", "nonblocking");
        if (m->rate)
            cmd_addu(&c, "--rate", (unsigned long long)m->rate, "");
        else
            cmd_addu(&c, "--inflight", m->inflight, "");
    }
    if (in->key_bits)
        cmd_addu(&c, "--key-size", in->key_bits, "");
    if (in->curve)
        cmd_add2(&c, "--curve", in->curve);
    if (in->data_size)
        cmd_addu(&c, "--data-size", (unsigned long long)in->data_size, "");
    if (in->keys == P11_KEYS_TOKEN)
        cmd_add(&c, "--token-keys");
    else if (in->keys == P11_KEYS_STATIC)
        cmd_add2(&c, "--static-key", in->static_key);

    printf("\nEquivalent command:\n");
    if (c.overflow)
        printf("    (too long to show)\n");
    else
        printf("    %s\n", c.buf);
    if (o->pin || (o->uri && strstr(o->uri, "pin-value=")))
        printf("    (the PIN is left out: give it with --pin-env VAR or --pin-file FILE)\n");
    bench_flush(stdout);
}

static void print_running(const menu *m, const p11_test_def *def)
{
    printf("\nRunning %u thread%s for %u sec: %s", m->threads, m->threads == 1 ? "" : "s",
           m->seconds, def->name);
    if (m->nonblocking && m->rate)
        printf(", non-blocking at %llu operations/second", (unsigned long long)m->rate);
    else if (m->nonblocking)
        printf(", non-blocking, %u requests in flight", m->inflight);
    printf("\n\n");
}

/* The Linux pkpspeed's lines before a run, and what hsmbench runs for them. */
static void print_starting(const menu *m, const p11_test_def *def, const p11_test_params *in)
{
    p11_test_params res;
    if (p11_test_resolve(def, in, &res) != 0)
        res.data_size = in->data_size;
    printf("Starting non-blocking speed test using data length of %llu bytes...\n"
           "[Test duration is %u seconds]\n", (unsigned long long)res.data_size, m->seconds);
    printf("(non-blocking as the Linux pkpspeed runs: %u requests in flight, %u a thread; "
           "pkpspeed_blocking's order, or b at hsmbench's blocking question, runs blocking)\n",
           m->inflight, MENU_INFLIGHT_PER_THREAD);
}

/*
 * Ask the test's parameters, run it, say how to repeat it, in the order
 * given: hsmbench's (the key size, the data size, Token key, static key);
 * pkpspeed_blocking's, the same but for the key questions, which it asks
 * of RSA tests only; or, for a cipher named at the duration prompt, the
 * Linux pkpspeed's: the cipher's size, then the duration, then, for RSA,
 * the static key question alone.
 */
static int run_item(menu *m, const menu_choice *ch, int order)
{
    const p11_test_def *def = ch->it->def;
    p11_test_params in;
    int rc;

    memset(&in, 0, sizeof in);
    if (order != ORDER_LINUX)
        print_running(m, def);
    if (def->key != KEYS_NONE && (rc = ask_key(m, def, ch->cipher, &in)) != ASK_OK)
        return rc;
    if (takes_data(def) && (rc = ask_data(m, def, &in)) != ASK_OK)
        return rc;
    if (order == ORDER_LINUX) {
        uint64_t v;
        char prompt[96];
        snprintf(prompt, sizeof prompt, "Enter time duration in Secs [MAX=%u] (default %u): ",
                 MENU_MAX_SECONDS, MENU_DEF_SECONDS);
        rc = ask_number(m, prompt, 1, MENU_MAX_SECONDS, 1, MENU_DEF_SECONDS, &v);
        if (rc != ASK_OK)
            return rc;
        m->seconds = (unsigned)v;
        m->r.load.duration_ns = (uint64_t)m->seconds * 1000000000ULL;
        print_starting(m, def, &in);
        print_running(m, def);
        if (def->key == KEYS_RSA && (rc = ask_static(m, def, &in)) != ASK_OK)
            return rc;
    } else if (uses_key(def) && (order != ORDER_WINDOWS || def->key == KEYS_RSA) &&
               (rc = ask_keys(m, def, &in)) != ASK_OK) {
        return rc;
    }

    p11_runner_test(&m->r, def, &in);
    print_equivalent(m, def, &in);

    int sig = *m->interrupt;
    if (sig || m->bs.interrupted) {
        bench_signals_clear();
        m->bs.interrupted = 0;
        if (sig == SIGTERM)
            return ASK_INTR;
        printf("\nInterrupted: partial results above; the test's keys are destroyed.\n");
    }
    /* What was typed during the run is not an answer to the menu. */
    if (m->tty && tcflush(STDIN_FILENO, TCIFLUSH) != 0)
        m->tty = isatty(STDIN_FILENO);     /* the terminal went away: reads will say so */
    bench_flush(stdout);
    return ASK_OK;
}

/* ------------------------------------------------------------------------ */
/* The session                                                              */

static void print_header(const menu *m)
{
    const p11_module *mod = m->t.mod;
    const p11_token *tok = &m->t.token;
    char desc[33], manuf[33];
    size_t avail = 0, col = 0;

    p11_trim(desc, sizeof desc, mod->info.libraryDescription, sizeof mod->info.libraryDescription);
    p11_trim(manuf, sizeof manuf, mod->info.manufacturerID, sizeof mod->info.manufacturerID);
    printf("\nhsmbench %s interactive benchmark\n\n", HSMBENCH_VERSION);
    printf("Library information:\n");
    printf("    module path.......: %s%s\n", mod->path,
           m->t.demo ? "  (hsmbench's demo token)" : "");
    printf("    library...........: %s %u.%u\n", desc, mod->info.libraryVersion.major,
           mod->info.libraryVersion.minor);
    printf("    manufacturer......: %s\n", manuf);
    printf("    cryptoki version..: %u.%u\n", mod->info.cryptokiVersion.major,
           mod->info.cryptokiVersion.minor);
    printf("Token information:\n");
    printf("    label.............: %s\n", tok->label);
    printf("    manufacturer......: %s\n", tok->manufacturer);
    printf("    model.............: %s\n", tok->model);
    printf("    serial............: %s\n", tok->serial);
    printf("    firmware..........: %u.%u\n", tok->info.firmwareVersion.major,
           tok->info.firmwareVersion.minor);
    printf("    hardware..........: %u.%u\n", tok->info.hardwareVersion.major,
           tok->info.hardwareVersion.minor);
    printf("    slot..............: %lu\n", (unsigned long)tok->slot);

    /* Count tests, not letters (H and I are both "random"). */
    for (size_t i = 0; i < p11_test_count(); i++) {
        const menu_item *it = find_item(m, p11_test_at(i)->name);
        avail += it && it->supported;
    }
    printf("\n        Available tests (%zu of %zu):\n", avail, p11_test_count());
    for (size_t i = 0; i < p11_test_count(); i++) {
        const menu_item *it = find_item(m, p11_test_at(i)->name);
        if (!it || !it->supported)
            continue;
        size_t len = strlen(it->def->name);
        if (col == 0)
            col = (size_t)printf("                %s", it->def->name);
        else if (col + 1 + len > 78) {
            printf("\n");
            col = (size_t)printf("                %s", it->def->name);
        } else
            col += (size_t)printf(" %s", it->def->name);
    }
    if (col)
        printf("\n");
    if (avail < p11_test_count()) {
        printf("        Not available (left out of the menu):\n");
        for (size_t i = 0; i < p11_test_count(); i++) {
            const menu_item *it = find_item(m, p11_test_at(i)->name);
            if (it && !it->supported)
                printf("                %s: %s\n", it->def->name, it->reason);
        }
    }
    printf("\n        pkpspeed's Linux ciphers: AES_128, AES_256 (D, AES 128 or 256), 3DES (C),\n"
           "                RSA (A), RSA_CRT (B)\n");
    const menu_item *a = find_item(m, "A"), *b = find_item(m, "B");
    if (a && a->supported && b && b->supported)
        printf("\n        RSA non-CRT (A): PKCS#11 has no non-CRT signing; the token keeps the\n"
               "        private key with its CRT factors and uses them as it chooses.  A runs\n"
               "        %s (CKM_RSA_PKCS on a SHA-256 DigestInfo made in software),\n"
               "        B %s (CKM_SHA256_RSA_PKCS, hashed in the token): the same\n"
               "        private-key operation, so A and B measure the same but for hashing\n"
               "        32 bytes.  pkpspeed's advice holds: choose RSA_CRT (B); the ciphers are\n"
               "        equivalent and RSA_CRT is the one optimised for performance.\n",
               a->def->name, b->def->name);
    printf("\n");
    bench_flush(stdout);
}

/*
 * hsmbench's question "Blocking or non-blocking test", which neither
 * pkpspeed asks (the tool's name says which it runs).  An answer file made
 * for pkpspeed_blocking has its first test here: a test's letter or name
 * that is not b or n, or B (RSA CRT) followed by a number (its modulus
 * length) or an empty line (its default), where after b (blocking) a test
 * would come.  That test is *first, the order pkpspeed_blocking's, blocking.
 */
static int ask_mode(menu *m, menu_choice *first)
{
    for (;;) {
        int rc = ask(m, "Blocking or non-blocking test [b/n] (default b): ");
        if (rc != ASK_OK)
            return rc;
        const char *a = m->answer;
        if (!*a || matches_word(a, "blocking") || (matches_word(a, "b") && !next_is_number(m))) {
            m->nonblocking = 0;
            return good(m);
        }
        if (matches_word(a, "n|non-blocking|nonblocking")) {
            m->nonblocking = 1;
            return good(m);
        }
        if (!matches_word(a, "b") && !find_cipher(a) && !find_item(m, a)) {
            if ((rc = bad(m, "'%s' is not one of b/n.", m->shown)) != ASK_OK)
                return rc;
            continue;
        }
        int done;
        if ((rc = test_answer(m, first, &done)) != ASK_OK)
            return rc;
        if (!done)
            continue;
        m->order = ORDER_WINDOWS;
        m->nonblocking = 0;
        bench_note("'%s' at the blocking question is pkpspeed_blocking's test %s (%s): "
                   "replaying its order, which asks no such question and runs blocking", m->shown, first->it->code, first->it->def->name);
        return ASK_OK;
    }
}

/*
 * Threads, duration, blocking or not: once per session, as pkpspeed_blocking
 * asks.  A Linux cipher name at the duration prompt (where the Linux
 * pkpspeed asks "Enter the cipher:") sets *first: that test comes first,
 * in the Linux tool's order, non-blocking as the Linux tool runs.  A test
 * at the blocking question sets *first too, in pkpspeed_blocking's order
 * (ask_mode).
 */
static int ask_load(menu *m, menu_choice *first)
{
    char prompt[128];
    uint64_t v;
    int rc;

    if (m->max_threads == 1)
        printf("(this module cannot be called from several threads at once: 1 thread)\n");
    snprintf(prompt, sizeof prompt, "Enter the number of threads [MAX=%u] (default %u): ",
             m->max_threads, m->def_threads);
    if ((rc = ask_number(m, prompt, 1, m->max_threads, 1, m->def_threads, &v)) != ASK_OK)
        return rc;
    m->threads = (unsigned)v;
    snprintf(prompt, sizeof prompt, "Enter time duration in Secs [MAX=%u] (default %u): ",
             MENU_MAX_SECONDS, MENU_DEF_SECONDS);
    for (int done = 0; !done;) {
        if ((rc = ask(m, "%s", prompt)) != ASK_OK)
            return rc;
        if (*m->answer && find_cipher(m->answer)) {
            /* Not offered: explained, and the same prompt again. */
            if ((rc = test_answer(m, first, &done)) != ASK_OK)
                return rc;
            if (!done)
                continue;
            m->seconds = MENU_DEF_SECONDS;                /* asked after the cipher's size */
            m->order = ORDER_LINUX;
            m->nonblocking = 1;                           /* as the Linux tool runs */
            m->inflight = m->threads * MENU_INFLIGHT_PER_THREAD;
            return ASK_OK;
        }
        if ((rc = number_answer(m, 1, MENU_MAX_SECONDS, 1, MENU_DEF_SECONDS, &v, &done)) != ASK_OK)
            return rc;
    }
    m->seconds = (unsigned)v;
    if ((rc = ask_mode(m, first)) != ASK_OK || m->order == ORDER_WINDOWS)
        return rc;
    if (m->nonblocking) {
        /* No rate unless the user gives one: an empty answer keeps requests
         * in flight, as many as the Linux order keeps, as fast as the token
         * answers.  A default rate would cap a fast token at a figure nobody
         * chose (and report it as the token's). */
        m->inflight = m->threads * MENU_INFLIGHT_PER_THREAD;
        snprintf(prompt, sizeof prompt,
                 "Enter the target rate in operations/second [1-%u] (default none: %u in flight): ",
                 MENU_MAX_RATE, m->inflight);
        if ((rc = ask_number(m, prompt, 1, MENU_MAX_RATE, 1, 0, &m->rate)) != ASK_OK)
            return rc;
    }
    return ASK_OK;
}

/* The selection's options are the menu's only ones. */
static int take_option(void *opts, int c, char *arg)
{
    return p11_target_opt(opts, c, arg);
}

static const bench_cmd_help menu_help = { menu_usage, menu_usage_tail, NULL, NULL };

static int parse_args(int argc, char **argv, p11_target_opts *o)
{
    memset(o, 0, sizeof *o);
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_menu_options, &menu_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    if (optind < argc) {
        bench_error("%s: unexpected argument (see: hsmbench menu --help)", argv[optind]);
        return BENCH_EXIT_USAGE;
    }
    return p11_target_check(o) != 0 ? BENCH_EXIT_USAGE : 0;
}

/* ASK_* at the end of the dialogue to the exit status. */
static int exit_code(int how)
{
    switch (how) {
    case ASK_INTR:   return BENCH_EXIT_INTERRUPTED;
    case ASK_GIVEUP: return BENCH_EXIT_USAGE;
    default:         return BENCH_EXIT_OK;
    }
}

static int session(menu *m)
{
    int rc;

    if (m->opts.module && !m->opts.has_slot && !m->opts.token && !m->opts.uri) {
        rc = choose_token(m);
        if (rc < 0)
            return exit_code(-rc);
        if (rc > 0)
            return *m->interrupt ? BENCH_EXIT_INTERRUPTED : rc;
    }
    bench_flush(stdout);
    rc = p11_target_open(&m->opts, 1, P11_OPEN_LOGIN, &m->t);
    if (rc != 0)
        return *m->interrupt ? BENCH_EXIT_INTERRUPTED : rc;
    m->t_open = 1;
    m->max_threads = m->t.mod->single_threaded ? 1 : MENU_MAX_THREADS;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    m->def_threads = cpus < 1 ? 1 : cpus > (long)m->max_threads ? m->max_threads : (unsigned)cpus;
    if (build_items(m) != 0)
        return BENCH_EXIT_FAILED;
    print_header(m);

    menu_choice first = { NULL, NULL };
    if ((rc = ask_load(m, &first)) != ASK_OK)
        return exit_code(rc);
    bench_load load;
    memset(&load, 0, sizeof load);
    load.threads = m->threads;
    load.duration_ns = (uint64_t)m->seconds * 1000000000ULL;
    load.mode = m->nonblocking ? BENCH_MODE_NONBLOCKING : BENCH_MODE_BLOCKING;
    load.rate = m->nonblocking ? (double)m->rate : 0;
    load.inflight = m->nonblocking ? m->inflight : 0;
    load.abort_ns = BENCH_ABORT_DEFAULT_NS;
    if (bench_session_init(&m->bs, &m->out, m->interrupt) != 0)
        return BENCH_EXIT_FAILED;
    if (p11_runner_init(&m->r, &m->t, &m->bs, &load, NULL) != 0) {
        bench_session_free(&m->bs);
        return BENCH_EXIT_FAILED;
    }
    m->r_init = 1;

    /* A cipher named at the duration prompt runs first, in the Linux order;
     * a test at the blocking question, in pkpspeed_blocking's. */
    rc = first.it ? run_item(m, &first, m->order) : ASK_OK;
    while (rc == ASK_OK) {
        menu_choice ch = { NULL, NULL };
        print_menu(m);
        if ((rc = ask_test(m, &ch)) == ASK_OK)
            rc = run_item(m, &ch, m->order == ORDER_WINDOWS ? ORDER_WINDOWS : ORDER_HSMBENCH);
    }
    if (m->bs.nrows > 1)
        bench_session_table(&m->bs, stdout);
    return exit_code(rc);
}

int p11_cmd_menu(int argc, char **argv, const bench_section *const *sections)
{
    menu m;
    memset(&m, 0, sizeof m);
    int rc = parse_args(argc, argv, &m.opts);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    m.tty = isatty(STDIN_FILENO);
    m.interrupt = bench_signals_install();

    rc = session(&m);

    /* The runner destroyed each test's keys; close the session. */
    if (m.r_init) {
        p11_runner_free(&m.r);
        bench_session_free(&m.bs);
    }
    if (m.t_open)
        p11_target_close(&m.t);
    free(m.items);
    free(m.line);
    free(m.held);
    if (rc == BENCH_EXIT_INTERRUPTED)
        fprintf(stderr, "hsmbench: interrupted\n");
    bench_flush(stdout);
    return rc;
}

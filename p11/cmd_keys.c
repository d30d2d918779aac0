/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p11/cmd_keys.c - "hsmbench keys create | list | destroy": benchmark keys
 * kept on the token between runs, under the label prefix "hsmbench-", so
 * runs can use them with --key-label and a cleanup never reaches anything
 * else.
 */
#include "p11/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/util/signals.h"
#include "keys/keys.h"
#include "p11/names.h"
#include "p11/target.h"
#include "p11/tests.h"

#define PREFIX "hsmbench-"

static const char keys_usage[] =
    "Usage: hsmbench keys create --type rsa|ec|ed25519|aes|hmac --label hsmbench-NAME\n"
    "                            [--key-size BITS] [--curve P-256|P-384|P-521] [--force]\n"
    "                            [selection]\n"
    "       hsmbench keys list [selection]\n"
    "       hsmbench keys destroy --label LABEL | --all [--force] [selection]\n"
    "\n"
    "Benchmark keys kept on the token (token objects) between runs; use them with\n"
    "hsmbench run --key-label LABEL.  Labels start with \"" PREFIX "\": list shows only\n"
    "those, and destroy refuses any other label unless --force is given.  create takes\n"
    "the key sizes run takes, and refuses a label the token already holds unless\n"
    "--force is given.\n"
    "\n";

enum { OPT_TYPE = 3000, OPT_LABEL, OPT_KEY_SIZE, OPT_CURVE, OPT_FORCE, OPT_ALL };

static const bench_option key_rows[] = {
    { "type", 0, BENCH_ARG_REQUIRED, "rsa|ec|ed25519|aes|hmac", OPT_TYPE, "create: the key type", NULL },
    { "label", 0, BENCH_ARG_REQUIRED, "LABEL", OPT_LABEL,
      "create, destroy: the key's label (hsmbench-NAME)", NULL },
    { "key-size", 0, BENCH_ARG_REQUIRED, "BITS", OPT_KEY_SIZE,
      "create: RSA, AES or HMAC key size (run's sizes)", NULL },
    { "curve", 0, BENCH_ARG_REQUIRED, "P-256|P-384|P-521", OPT_CURVE, "create: the EC curve", NULL },
    { "force", 0, BENCH_ARG_NONE, NULL, OPT_FORCE,
      "create: replace a key of that label; destroy: any label", NULL },
    { "all", 0, BENCH_ARG_NONE, NULL, OPT_ALL, "destroy: every hsmbench- key", NULL },
};
static const bench_opt_group keys_group = BENCH_OPT_GROUP("Keys:", key_rows, NULL);

static const bench_opt_group *const keys_groups[] = {
    &p11_target_group, &keys_group, &bench_help_group, NULL,
};
const bench_cmd_opts p11_keys_options = { "keys", 0, keys_groups };

static void keys_usage_print(FILE *f)
{
    fputs(keys_usage, f);
    bench_opts_help(&p11_keys_options, f);
}

typedef struct keys_opts {
    p11_target_opts target;
    const char *type, *label, *curve;
    unsigned    bits;
    int         force, all;
} keys_opts;

/* Take one option, its value only stored: 1 taken, 0 not one of keys',
 * -1 bad value (printed). */
static int take_option(void *opts, int c, char *arg)
{
    keys_opts *o = opts;
    uint64_t v;
    const int t = p11_target_opt(&o->target, c, arg);
    if (t != 0)
        return t;
    switch (c) {
    case OPT_TYPE:     o->type = arg; return 1;
    case OPT_LABEL:    o->label = arg; return 1;
    case OPT_CURVE:    o->curve = arg; return 1;
    case OPT_FORCE:    o->force = 1; return 1;
    case OPT_ALL:      o->all = 1; return 1;
    case OPT_KEY_SIZE:
        if (bench_parse_u64("--key-size", arg, 1, 16384, &v) != 0)
            return -1;
        o->bits = (unsigned)v;
        return 1;
    default:
        return 0;
    }
}

static const bench_cmd_help keys_help = { keys_usage, NULL, NULL, NULL };

static int parse(int argc, char **argv, keys_opts *o)
{
    memset(o, 0, sizeof *o);
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_keys_options, &keys_help, argc, argv, take_option, o);
    if (rc != 0)
        return rc;
    return p11_target_check(&o->target) == 0 ? 0 : BENCH_EXIT_USAGE;
}

static int has_prefix(const char *label)
{
    return strncmp(label, PREFIX, strlen(PREFIX)) == 0;
}

/* The key keys create makes, checked as run checks its keys (the sizes and
 * curves of p11_key_resolve), before the token is opened. */
static int create_spec(const keys_opts *o, keys_spec *spec)
{
    static const struct {
        const char *name;
        keys_type   type;
        unsigned    uses;
    } types[] = {
        { "rsa", KEYS_RSA, KEYS_USE_SIGN | KEYS_USE_ENCRYPT | KEYS_USE_WRAP },
        { "ec", KEYS_EC, KEYS_USE_SIGN | KEYS_USE_DERIVE },
        { "ed25519", KEYS_ED25519, KEYS_USE_SIGN },
        { "aes", KEYS_AES, KEYS_USE_ENCRYPT | KEYS_USE_WRAP },
        { "hmac", KEYS_GENERIC, KEYS_USE_SIGN },
    };
    memset(spec, 0, sizeof *spec);
    spec->token = 1;
    spec->label = o->label;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(o->type, types[i].name) != 0)
            continue;
        char what[64];
        snprintf(what, sizeof what, "keys create --type %s", types[i].name);
        spec->type = types[i].type;
        spec->uses = types[i].uses;
        return p11_key_resolve(spec->type, what, o->bits, o->curve, &spec->bits, &spec->curve) == 0
                   ? 0 : BENCH_EXIT_USAGE;
    }
    bench_error("--type %s: use rsa, ec, ed25519, aes or hmac", o->type);
    return BENCH_EXIT_USAGE;
}

/* How many objects carry exactly this label (0, 1, or 2 meaning "more"). */
static CK_RV count_label(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const char *label, CK_ULONG *n)
{
    CK_ATTRIBUTE tmpl = { CKA_LABEL, (void *)label, (CK_ULONG)strlen(label) };
    CK_OBJECT_HANDLE h[2];
    *n = 0;
    CK_RV rv = fn->C_FindObjectsInit(s, &tmpl, 1);
    if (rv != CKR_OK)
        return rv;
    rv = fn->C_FindObjects(s, h, 2, n);
    CK_RV fin = fn->C_FindObjectsFinal(s);
    return rv != CKR_OK ? rv : fin;
}

static int create(const keys_opts *o, const keys_spec *spec, p11_target *t)
{
    keys_handle h;
    char rb[32];
    CK_ULONG existing = 0;

    CK_RV rv = count_label(t->mod->fn, t->control, o->label, &existing);
    if (rv != CKR_OK) {
        bench_error("token '%s': finding objects: %s", t->token.label, p11_rv_name(rv, rb, sizeof rb));
        return BENCH_EXIT_MODULE;
    }
    if (existing && !o->force) {
        bench_error("--label %s: the token already holds an object with that label; add --force to "
                    "create another", o->label);
        return BENCH_EXIT_USAGE;
    }
    rv = keys_make(t->mod->fn, t->control, spec, NULL, &h);
    if (rv != CKR_OK) {
        bench_error("creating %s key '%s': %s", o->type, o->label, p11_rv_name(rv, rb, sizeof rb));
        return BENCH_EXIT_MODULE;
    }
    printf("created %s key '%s' on token '%s'\n", o->type, o->label, t->token.label);
    return BENCH_EXIT_OK;
}

/* An object's label, whatever its length (malloc'd; "" when it has none). */
static char *read_label(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE obj)
{
    CK_ATTRIBUTE a = { CKA_LABEL, NULL, 0 };
    char *label = NULL;
    if (fn->C_GetAttributeValue(s, obj, &a, 1) == CKR_OK && a.ulValueLen != CK_UNAVAILABLE_INFORMATION &&
        a.ulValueLen < ((CK_ULONG)1 << 24)) {
        label = malloc(a.ulValueLen + 1);
        a.pValue = label;
        if (label && fn->C_GetAttributeValue(s, obj, &a, 1) == CKR_OK &&
            a.ulValueLen != CK_UNAVAILABLE_INFORMATION) {
            label[a.ulValueLen] = 0;
            return label;
        }
        free(label);
    }
    return strdup("");
}

/* Every object whose label starts with the prefix (or equals `exact`). */
static int walk(p11_target *t, const char *exact, int destroy)
{
    CK_FUNCTION_LIST *fn = t->mod->fn;
    CK_OBJECT_HANDLE h[64];
    CK_ULONG n = 0;
    CK_OBJECT_HANDLE *found = NULL;
    size_t nfound = 0, cap = 0;
    char rb[32];
    CK_ATTRIBUTE tmpl = { CKA_LABEL, (void *)exact, exact ? (CK_ULONG)strlen(exact) : 0 };

    /* Collect first, then act: destroying while finding is not allowed. */
    CK_RV rv = fn->C_FindObjectsInit(t->control, exact ? &tmpl : NULL, exact ? 1 : 0);
    while (rv == CKR_OK && (rv = fn->C_FindObjects(t->control, h, 64, &n)) == CKR_OK && n) {
        if (nfound + n > cap) {
            size_t ncap = (nfound + n) * 2;
            CK_OBJECT_HANDLE *nf = realloc(found, ncap * sizeof *nf);
            if (!nf) {
                rv = CKR_HOST_MEMORY;
                break;
            }
            found = nf;
            cap = ncap;
        }
        memcpy(found + nfound, h, n * sizeof *h);
        nfound += n;
    }
    fn->C_FindObjectsFinal(t->control);
    if (rv != CKR_OK) {
        bench_error("token '%s': finding objects: %s", t->token.label, p11_rv_name(rv, rb, sizeof rb));
        free(found);
        return BENCH_EXIT_MODULE;
    }
    size_t shown = 0, failed = 0;
    if (!destroy)
        printf("%-40s %-12s %-16s %s\n", "LABEL", "CLASS", "KEY TYPE", "ID");
    for (size_t i = 0; i < nfound; i++) {
        unsigned char id[64];
        CK_OBJECT_CLASS cls = (CK_OBJECT_CLASS)-1;
        CK_KEY_TYPE kt = (CK_KEY_TYPE)-1;
        CK_ATTRIBUTE a[3] = { { CKA_CLASS, &cls, sizeof cls }, { CKA_KEY_TYPE, &kt, sizeof kt },
                              { CKA_ID, id, sizeof id } };
        char *label = read_label(fn, t->control, found[i]);
        if (!label) {
            bench_error("out of memory");
            failed++;
            continue;
        }
        /* Some attributes may be absent: each is read on its own terms. */
        (void)fn->C_GetAttributeValue(t->control, found[i], a, 3);
        if (!exact && !has_prefix(label)) {
            free(label);
            continue;
        }
        shown++;
        if (destroy) {
            rv = fn->C_DestroyObject(t->control, found[i]);
            if (rv != CKR_OK) {
                bench_error("destroying '%s': %s", label, p11_rv_name(rv, rb, sizeof rb));
                failed++;
            }
            free(label);
            continue;
        }
        char idhex[129] = "";
        if (a[2].ulValueLen != (CK_ULONG)-1)
            for (CK_ULONG k = 0; k < a[2].ulValueLen && k < 64; k++)
                snprintf(idhex + 2 * k, 3, "%02x", id[k]);
        const char *cn = cls == CKO_PRIVATE_KEY ? "private" : cls == CKO_PUBLIC_KEY ? "public"
                       : cls == CKO_SECRET_KEY ? "secret" : "other";
        const char *kn = kt == CKK_RSA ? "RSA" : kt == CKK_EC ? "EC" : kt == CKK_AES ? "AES"
                       : kt == CKK_GENERIC_SECRET ? "GENERIC_SECRET" : kt == CKK_DES3 ? "DES3"
                       : kt == CKK_EC_EDWARDS ? "EC_EDWARDS" : "-";
        printf("%-40s %-12s %-16s %s\n", label, cn, kn, idhex);
        free(label);
    }
    free(found);
    if (destroy)
        printf("destroyed %zu object%s on token '%s'\n", shown - failed, shown - failed == 1 ? "" : "s",
               t->token.label);
    if (destroy && exact && shown == 0) {
        bench_error("--label %s: no object with that label", exact);
        return BENCH_EXIT_FAILED;
    }
    return failed ? BENCH_EXIT_FAILED : BENCH_EXIT_OK;
}

int p11_cmd_keys(int argc, char **argv, const bench_section *const *sections)
{
    keys_opts o;
    p11_target t;
    int rc;

    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
            keys_usage_print(stdout);
            return BENCH_EXIT_OK;
        }
        bench_error("keys: say create, list or destroy (see: hsmbench keys --help)");
        return BENCH_EXIT_USAGE;
    }
    const char *what = argv[1];
    rc = parse(argc - 1, argv + 1, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    if (optind < argc - 1) {
        bench_error("%s: unexpected argument (see: hsmbench keys --help)", argv[optind + 1]);
        return BENCH_EXIT_USAGE;
    }
    if (strcmp(what, "create") == 0) {
        if (!o.type || !o.label) {
            bench_error("keys create: --type and --label are required");
            return BENCH_EXIT_USAGE;
        }
        if (!has_prefix(o.label)) {
            bench_error("--label %s: benchmark key labels start with \"" PREFIX "\"", o.label);
            return BENCH_EXIT_USAGE;
        }
    } else if (strcmp(what, "destroy") == 0) {
        if (!o.label == !o.all) {
            bench_error("keys destroy: give --label LABEL or --all");
            return BENCH_EXIT_USAGE;
        }
        if (o.label && !has_prefix(o.label) && !o.force) {
            bench_error("--label %s: not a benchmark key (labels start with \"" PREFIX "\"); "
                        "add --force to destroy it anyway", o.label);
            return BENCH_EXIT_USAGE;
        }
    } else if (strcmp(what, "list") != 0) {
        bench_error("keys %s: unknown; say create, list or destroy", what);
        return BENCH_EXIT_USAGE;
    }

    keys_spec spec;
    if (strcmp(what, "create") == 0 && (rc = create_spec(&o, &spec)) != 0)
        return rc;
    (void)bench_signals_install();
    rc = p11_target_open(&o.target, 1, P11_OPEN_LOGIN, &t);
    if (rc != 0)
        return rc;
    if (strcmp(what, "create") == 0)
        rc = create(&o, &spec, &t);
    else if (strcmp(what, "list") == 0)
        rc = walk(&t, NULL, 0);
    else
        rc = walk(&t, o.label, 1);
    p11_target_close(&t);
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* p11/cmd_list.c - "hsmbench list modules | slots | mechanisms | tests". */
#include "p11/cmd.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <p11-kit/p11-kit.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "p11/demo.h"
#include "p11/module.h"
#include "p11/names.h"
#include "p11/target.h"
#include "p11/tests.h"

static const char list_usage[] =
    "Usage: hsmbench list modules | slots | mechanisms | tests [selection]\n"
    "\n"
    "  modules      PKCS#11 modules p11-kit has registered, and the default SoftHSM token\n"
    "  slots        the module's slots and tokens: label, manufacturer, model, serial,\n"
    "               firmware, flags\n"
    "  mechanisms   the token's mechanisms: name, key-size range, flags\n"
    "  tests        the benchmark tests: mechanism, keys, data sizes\n"
    "\n"
    "The selection (slots, mechanisms) is as for hsmbench run.\n";

static const bench_opt_group *const list_groups[] = { &p11_target_group, &bench_help_group, NULL };
const bench_cmd_opts p11_list_options = { "list", 0, list_groups };

static int list_tests(void)
{
    char mb[48];
    printf("%-26s %-24s %-34s %s\n", "TEST", "MECHANISM", "KEY (default)", "DATA SIZE (default)");
    for (size_t i = 0; i < p11_test_count(); i++) {
        const p11_test_def *d = p11_test_at(i);
        p11_test_params in, p;
        char key[64] = "-", data[64] = "-";
        memset(&in, 0, sizeof in);
        if (p11_test_resolve(d, &in, &p) != 0)
            continue;
        if (d->key == KEYS_EC) {
            snprintf(key, sizeof key, "EC --curve P-256|P-384|P-521 (P-256)");
        } else if (d->key == KEYS_ED25519) {
            snprintf(key, sizeof key, "Ed25519");
        } else if (d->key_sizes) {
            size_t used = (size_t)snprintf(key, sizeof key, "%s ",
                                           d->key == KEYS_GENERIC ? "HMAC" : p11_test_key_type(d));
            for (const unsigned *s = d->key_sizes; *s && used < sizeof key; s++)
                used += (size_t)snprintf(key + used, sizeof key - used, "%s%u",
                                         s == d->key_sizes ? "" : "/", *s);
            if (used < sizeof key)
                snprintf(key + used, sizeof key - used, " (%u)", d->key_default);
        }
        if (p.data_size)
            snprintf(data, sizeof data, "%llu..%llu (%llu)%s", (unsigned long long)d->data_min,
                     (unsigned long long)d->data_max, (unsigned long long)p.data_size,
                     d->data_multiple == 16 ? ", x16" : d->data_multiple == 8 ? ", x8" : "");
        else if (d->input == P11_IN_MODULUS)
            snprintf(data, sizeof data, "the modulus length");
        char mech[64];
        snprintf(mech, sizeof mech, "%s", d->op == P11_OP_RANDOM ? "C_GenerateRandom"
                                        : d->op == P11_OP_FIND ? "C_FindObjects"
                                        : p11_mech_name(p11_test_mech(d, &p), mb, sizeof mb));
        printf("%-26s %-24s %-34s %s\n", d->name, mech, key, data);
        printf("%-26s %s", "", d->summary);
        if (d->hashes) {
            /* The hashes it takes; what --hash does is said once, below. */
            const char *sep = "; hash ";
            for (int h = 1; h < P11_HASH_COUNT; h++) {
                if (d->hashes & P11_H(h)) {
                    printf("%s%s", sep, p11_hash_name((p11_hash)h));
                    sep = "|";
                }
            }
            if (d->key == KEYS_EC)
                printf(" (by curve)");
            else
                printf(" (%s)", p11_hash_name(p.hash));
        }
        putchar('\n');
    }
    printf("\n--hash picks the hash of a test that lists one (\"hash A|B (default)\");\n"
           "  an EC test's default follows the curve: SHA256 for P-256, SHA384 for P-384,\n"
           "  SHA512 for P-521.\n");
    return BENCH_EXIT_OK;
}

/* The modules hsmbench ships, marked as its own (and as missing when their
 * file is not where --module would look). */
static void list_own_modules(void)
{
    size_t n;
    const p11_own_module *own = p11_own_modules(&n);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (p11_own_module_path(own[i].name, path, sizeof path) != 0)
            continue;
        printf("%-20s %s  [hsmbench's own: %s%s]\n", own[i].name, path, own[i].what,
               access(path, R_OK) == 0 ? "" : "; not installed there");
    }
}

static int list_modules(void)
{
    CK_FUNCTION_LIST **mods = p11_kit_modules_load(NULL, P11_KIT_MODULE_UNMANAGED);
    printf("%-20s %s\n", "NAME", "PATH");
    printf("%-20s %s\n", "(default)", "hsmbench's private SoftHSM token (" P11_DEMO_LABEL "); used when no --module is given");
    if (!mods) {
        const char *msg = p11_kit_message();
        bench_warn("p11-kit could not list registered modules: %s", msg ? msg : "unknown reason");
    }
    for (size_t i = 0; mods && mods[i]; i++) {
        char *name = p11_kit_module_get_name(mods[i]);
        char *file = p11_kit_module_get_filename(mods[i]);
        printf("%-20s %s\n", name ? name : "?", file ? file : "?");
        free(name);
        free(file);
    }
    if (mods)
        p11_kit_modules_release(mods);
    list_own_modules();
    return BENCH_EXIT_OK;
}

static int list_slots(const p11_target_opts *o)
{
    p11_target t;
    CK_SLOT_ID *slots;
    CK_ULONG n;
    char flags[512], rb[32];
    /* Listing needs the module only: open it without choosing a token. */
    int rc = p11_target_open(o, 1, P11_OPEN_MODULE, &t);
    if (rc != 0)
        return rc;
    char manuf[33], desc[33];
    p11_trim(manuf, sizeof manuf, t.mod->info.manufacturerID, sizeof t.mod->info.manufacturerID);
    p11_trim(desc, sizeof desc, t.mod->info.libraryDescription, sizeof t.mod->info.libraryDescription);
    printf("Module %s (%s): %s, %s, cryptoki %u.%u, library %u.%u\n", t.mod->name, t.mod->path, desc,
           manuf, t.mod->info.cryptokiVersion.major, t.mod->info.cryptokiVersion.minor,
           t.mod->info.libraryVersion.major, t.mod->info.libraryVersion.minor);
    if (p11_slots(t.mod, 0, &slots, &n) != 0) {
        p11_target_close(&t);
        return BENCH_EXIT_MODULE;
    }
    if (n == 0)
        printf("\nThe module has no slots (so no token).\n");
    for (CK_ULONG i = 0; i < n; i++) {
        p11_token tok;
        CK_RV rv = p11_token_read(t.mod, slots[i], &tok);
        printf("\nSlot %lu: %s [%s]\n", (unsigned long)slots[i], tok.slot_desc,
               p11_slot_flags(tok.slot_info.flags, flags, sizeof flags));
        if (rv == CKR_TOKEN_NOT_PRESENT) {
            printf("  (no token)\n");
            continue;
        }
        if (rv != CKR_OK) {
            printf("  token: %s\n", p11_rv_name(rv, rb, sizeof rb));
            continue;
        }
        printf("  label        : %s\n", tok.label);
        printf("  manufacturer : %s\n", tok.manufacturer);
        printf("  model        : %s\n", tok.model);
        printf("  serial       : %s\n", tok.serial);
        printf("  firmware     : %u.%u   hardware: %u.%u\n", tok.info.firmwareVersion.major,
               tok.info.firmwareVersion.minor, tok.info.hardwareVersion.major,
               tok.info.hardwareVersion.minor);
        printf("  flags        : %s\n", p11_token_flags(tok.info.flags, flags, sizeof flags));
    }
    free(slots);
    p11_target_close(&t);
    return BENCH_EXIT_OK;
}

static int list_mechanisms(const p11_target_opts *o)
{
    p11_target t;
    char mb[48], flags[512], rb[32];
    CK_ULONG n = 0;
    int rc = p11_target_open(o, 1, P11_OPEN_TOKEN, &t);
    if (rc != 0)
        return rc;
    CK_RV rv = t.mod->fn->C_GetMechanismList(t.token.slot, NULL, &n);
    CK_MECHANISM_TYPE *list = rv == CKR_OK ? calloc(n ? n : 1, sizeof *list) : NULL;
    if (rv == CKR_OK && !list)
        rv = CKR_HOST_MEMORY;
    if (rv == CKR_OK)
        rv = t.mod->fn->C_GetMechanismList(t.token.slot, list, &n);
    if (rv != CKR_OK) {
        bench_error("token '%s': C_GetMechanismList: %s", t.token.label, p11_rv_name(rv, rb, sizeof rb));
        free(list);
        p11_target_close(&t);
        return BENCH_EXIT_MODULE;
    }
    printf("Token '%s' (slot %lu): %lu mechanisms\n", t.token.label, (unsigned long)t.token.slot,
           (unsigned long)n);
    printf("%-34s %-18s %s\n", "MECHANISM", "KEY SIZE", "FLAGS");
    for (CK_ULONG i = 0; i < n; i++) {
        CK_MECHANISM_INFO info;
        char range[32];
        rv = t.mod->fn->C_GetMechanismInfo(t.token.slot, list[i], &info);
        if (rv != CKR_OK) {
            printf("%-34s %s\n", p11_mech_name(list[i], mb, sizeof mb), p11_rv_name(rv, rb, sizeof rb));
            continue;
        }
        snprintf(range, sizeof range, "%lu..%lu", (unsigned long)info.ulMinKeySize,
                 (unsigned long)info.ulMaxKeySize);
        printf("%-34s %-18s %s\n", p11_mech_name(list[i], mb, sizeof mb), range,
               p11_mech_flags(info.flags, flags, sizeof flags));
    }
    free(list);
    p11_target_close(&t);
    return BENCH_EXIT_OK;
}

/* The selection's options are list's only ones. */
static int take_option(void *opts, int c, char *arg)
{
    return p11_target_opt(opts, c, arg);
}

static const bench_cmd_help list_help = { list_usage, NULL, NULL, NULL };

int p11_cmd_list(int argc, char **argv, const bench_section *const *sections)
{
    p11_target_opts o;
    memset(&o, 0, sizeof o);
    bench_opts_parser parser;
    const int rc = bench_opts_take_all(&parser, &p11_list_options, &list_help, argc, argv, take_option, &o);
    if (rc != 0)
        return rc < 0 ? BENCH_EXIT_OK : rc;
    if (p11_target_check(&o) != 0)
        return BENCH_EXIT_USAGE;
    if (optind + 1 != argc) {
        bench_error("list: say what to list: modules, slots, mechanisms or tests");
        return BENCH_EXIT_USAGE;
    }
    const char *what = argv[optind];
    if (strcmp(what, "tests") == 0)
        return list_tests();
    if (strcmp(what, "modules") == 0)
        return list_modules();
    if (strcmp(what, "slots") == 0)
        return list_slots(&o);
    if (strcmp(what, "mechanisms") == 0)
        return list_mechanisms(&o);
    bench_error("list %s: unknown; choose modules, slots, mechanisms or tests", what);
    return BENCH_EXIT_USAGE;
}

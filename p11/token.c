/* SPDX-License-Identifier: Apache-2.0 */
/* p11/token.c - slots, tokens, URIs and login. */
#include "p11/token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <p11-kit/uri.h>

#include "bench/util/cli.h"
#include "bench/util/signals.h"
#include "p11/names.h"

int p11_slots(const p11_module *m, int present_only, CK_SLOT_ID **slots, CK_ULONG *n)
{
    char rvb[32];
    CK_ULONG count = 0;
    CK_RV rv;

    *slots = NULL;
    *n = 0;
    /* The list can change between the two calls (hot-plug): retry on growth. */
    for (int tries = 0; tries < 4; tries++) {
        rv = m->fn->C_GetSlotList(present_only ? CK_TRUE : CK_FALSE, NULL, &count);
        if (rv != CKR_OK)
            break;
        CK_SLOT_ID *list = calloc(count ? count : 1, sizeof *list);
        if (!list) {
            bench_error("out of memory");
            return -1;
        }
        rv = m->fn->C_GetSlotList(present_only ? CK_TRUE : CK_FALSE, list, &count);
        if (rv == CKR_OK) {
            *slots = list;
            *n = count;
            return 0;
        }
        free(list);
        if (rv != CKR_BUFFER_TOO_SMALL)
            break;
    }
    bench_error("C_GetSlotList: %s", p11_rv_name(rv, rvb, sizeof rvb));
    return -1;
}

CK_RV p11_token_read(const p11_module *m, CK_SLOT_ID slot, p11_token *t)
{
    CK_RV rv;
    memset(t, 0, sizeof *t);
    t->slot = slot;
    rv = m->fn->C_GetSlotInfo(slot, &t->slot_info);
    if (rv != CKR_OK)
        return rv;
    p11_trim(t->slot_desc, sizeof t->slot_desc, t->slot_info.slotDescription,
             sizeof t->slot_info.slotDescription);
    if (!(t->slot_info.flags & CKF_TOKEN_PRESENT))
        return CKR_TOKEN_NOT_PRESENT;
    rv = m->fn->C_GetTokenInfo(slot, &t->info);
    if (rv != CKR_OK)
        return rv;
    p11_trim(t->label, sizeof t->label, t->info.label, sizeof t->info.label);
    p11_trim(t->manufacturer, sizeof t->manufacturer, t->info.manufacturerID,
             sizeof t->info.manufacturerID);
    p11_trim(t->model, sizeof t->model, t->info.model, sizeof t->info.model);
    p11_trim(t->serial, sizeof t->serial, t->info.serialNumber, sizeof t->info.serialNumber);
    return CKR_OK;
}

const char *p11_command_redact(void *arg, int i, const char *word, char *buf, size_t len)
{
    char *const *argv = arg;
    if (i > 0 && strcmp(argv[i - 1], "--pin") == 0)
        return "***";
    if (strncmp(word, "--pin=", 6) == 0)
        return "--pin=***";
    if (strstr(word, "pin-value="))
        return p11_uri_redact(word, buf, len);
    return NULL;
}

const char *p11_uri_redact(const char *uri, char *buf, size_t len)
{
    static const char key[] = "pin-value=";
    static const char masked[] = "pin-value=***";
    if (!buf || len == 0)
        return "";
    size_t used = 0;
    const char *p = uri;
    for (;;) {
        const char *hit = strstr(p, key);
        size_t lit = hit ? (size_t)(hit - p) : strlen(p);
        /* The text before the next pin-value; truncated when it must be
         * (a part of it can never be a pin-value). */
        size_t take = lit < len - 1 - used ? lit : len - 1 - used;
        memcpy(buf + used, p, take);
        used += take;
        if (!hit || take < lit)
            break;
        /* Every pin-value, not only the first, and the mask whole or not at
         * all: a cut "pin-value=**" would read as a value. */
        if (sizeof masked - 1 > len - 1 - used)
            break;
        memcpy(buf + used, masked, sizeof masked - 1);
        used += sizeof masked - 1;
        p = hit + sizeof key - 1;
        p += strcspn(p, "&;");
    }
    buf[used] = '\0';
    return buf;
}

/* Parse --uri, or print one line and return NULL.  A %00 is refused: no
 * PKCS#11 label or name can hold a NUL, and p11-kit would compare the
 * attribute only up to it ("token=%00x" matched every token). */
static P11KitUri *uri_parse(const char *text)
{
    char shown[1024];
    for (const char *p = text; (p = strchr(p, '%')) != NULL; p++)
        if (p[1] == '0' && p[2] == '0') {
            bench_error("--uri %s: %%00 (a NUL byte) cannot be part of a PKCS#11 label or name",
                        p11_uri_redact(text, shown, sizeof shown));
            return NULL;
        }
    P11KitUri *u = p11_kit_uri_new();
    if (!u) {
        bench_error("out of memory");
        return NULL;
    }
    int rc = p11_kit_uri_parse(text, P11_KIT_URI_FOR_ANY, u);
    if (rc != P11_KIT_URI_OK) {
        bench_error("--uri %s: %s", p11_uri_redact(text, shown, sizeof shown), p11_kit_uri_message(rc));
        p11_kit_uri_free(u);
        return NULL;
    }
    return u;
}

int p11_uri_inspect(const char *uri, char *module, size_t modlen, char *pin, size_t pinlen)
{
    P11KitUri *u = uri_parse(uri);
    if (!u)
        return -1;
    const char *mp = p11_kit_uri_get_module_path(u);
    const char *mn = p11_kit_uri_get_module_name(u);
    const char *pv = p11_kit_uri_get_pin_value(u);
    if (module && modlen)
        snprintf(module, modlen, "%s", mp ? mp : mn ? mn : "");
    if (pin && pinlen)
        snprintf(pin, pinlen, "%s", pv ? pv : "");
    p11_kit_uri_free(u);
    return 0;
}

/* Label match, trimmed both sides. */
static int label_is(const p11_token *t, const char *label)
{
    return strcmp(t->label, label) == 0;
}

int p11_token_select(const p11_module *m, const p11_selector *sel, p11_token *out)
{
    CK_SLOT_ID *slots = NULL;
    CK_ULONG n = 0;
    P11KitUri *uri = NULL;
    int matches = 0, rc = -1;
    char rvb[32], shown[1024];
    p11_token t;

    if (p11_slots(m, 0, &slots, &n) != 0)
        return -1;
    if (sel->uri && !(uri = uri_parse(sel->uri)))
        goto out;
    if (sel->has_slot) {
        int exists = 0;
        for (CK_ULONG i = 0; i < n; i++)
            exists |= slots[i] == sel->slot;
        if (!exists) {
            char list[256] = "";
            size_t used = 0;
            for (CK_ULONG i = 0; i < n && used < sizeof list - 24; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%lu", i ? ", " : "",
                                         (unsigned long)slots[i]);
            bench_error("--slot %lu: no such slot (this module has: %s)", (unsigned long)sel->slot,
                        n ? list : "no slots");
            goto out;
        }
    }

    for (CK_ULONG i = 0; i < n; i++) {
        if (sel->has_slot && slots[i] != sel->slot)
            continue;
        CK_RV rv = p11_token_read(m, slots[i], &t);
        if (rv == CKR_TOKEN_NOT_PRESENT || rv == CKR_TOKEN_NOT_RECOGNIZED) {
            if (sel->has_slot) {
                bench_error("--slot %lu: no token in this slot (%s)", (unsigned long)slots[i],
                            p11_rv_name(rv, rvb, sizeof rvb));
                goto out;
            }
            continue;
        }
        if (rv != CKR_OK) {
            bench_error("slot %lu: C_GetTokenInfo: %s", (unsigned long)slots[i],
                        p11_rv_name(rv, rvb, sizeof rvb));
            goto out;
        }
        if (sel->label && !label_is(&t, sel->label))
            continue;
        if (uri && (!p11_kit_uri_match_token_info(uri, &t.info) ||
                    !p11_kit_uri_match_slot_info(uri, &t.slot_info) ||
                    (p11_kit_uri_get_slot_id(uri) != (CK_SLOT_ID)-1 &&
                     p11_kit_uri_get_slot_id(uri) != slots[i])))
            continue;
        /* With no selector at all, an uninitialised token is not a candidate. */
        if (!sel->has_slot && !sel->label && !uri && !(t.info.flags & CKF_TOKEN_INITIALIZED))
            continue;
        if (matches++ == 0)
            *out = t;
    }

    if (matches == 0) {
        if (sel->label)
            bench_error("--token %s: no token with that label (see: hsmbench list slots)", sel->label);
        else if (uri)
            bench_error("--uri %s: no token matches (see: hsmbench list slots)",
                        p11_uri_redact(sel->uri, shown, sizeof shown));
        else if (n == 0)
            bench_error("module %s has no slots, so no token (see: hsmbench list slots)", m->name);
        else
            bench_error("no initialised token found in module %s (%lu slot%s, none with an "
                        "initialised token)", m->name, (unsigned long)n, n == 1 ? "" : "s");
        goto out;
    }
    if (matches > 1 && !sel->has_slot) {
        if (sel->label)
            bench_error("--token %s: %d tokens have that label; choose one with --slot", sel->label,
                        matches);
        else if (uri)
            bench_error("--uri %s: %d tokens match; make it more specific or use --slot",
                        p11_uri_redact(sel->uri, shown, sizeof shown), matches);
        else
            bench_error("module %s has %d tokens; choose one with --slot, --token or --uri "
                        "(see: hsmbench list slots)", m->name, matches);
        goto out;
    }
    if (!(out->info.flags & CKF_TOKEN_INITIALIZED)) {
        bench_error("slot %lu: the token is not initialised", (unsigned long)out->slot);
        goto out;
    }
    rc = 0;
out:
    if (uri)
        p11_kit_uri_free(uri);
    free(slots);
    return rc;
}

int p11_token_wants_pin(const p11_token *t)
{
    return (t->info.flags & CKF_LOGIN_REQUIRED) &&
           !(t->info.flags & CKF_PROTECTED_AUTHENTICATION_PATH);
}

int p11_login(const p11_module *m, CK_SESSION_HANDLE s, const p11_token *t,
              const char *pin, size_t pinlen)
{
    char rvb[32];
    const char *was = bench_signals_waiting("C_Login");
    CK_RV rv = m->fn->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)pin, pin ? (CK_ULONG)pinlen : 0);
    bench_signals_waiting(was);
    if (rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN)
        return 0;
    if (rv == CKR_PIN_INCORRECT)
        bench_error("login to token '%s': CKR_PIN_INCORRECT: wrong PIN", t->label);
    else if (rv == CKR_PIN_LOCKED)
        bench_error("login to token '%s': CKR_PIN_LOCKED: the user PIN is locked", t->label);
    else if (rv == CKR_USER_PIN_NOT_INITIALIZED)
        bench_error("login to token '%s': CKR_USER_PIN_NOT_INITIALIZED: the token has no user PIN",
                    t->label);
    else
        bench_error("login to token '%s': %s", t->label, p11_rv_name(rv, rvb, sizeof rvb));
    return -1;
}

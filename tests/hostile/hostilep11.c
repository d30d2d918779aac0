/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/hostile/hostilep11.c - libhsmbench-hostile.so, a PKCS#11 module with a
 * broken function list, for the tests that hsmbench refuses it in one line
 * (exit 3) instead of crashing.  HSMBENCH_HOSTILE says how it is broken:
 *
 *   null-list                 C_GetFunctionList returns CKR_OK and no list
 *   fail                      C_GetFunctionList returns CKR_GENERAL_ERROR
 *   missing=C_GetSlotList,... the do-nothing module's list (libhsmbench-null.so,
 *                             found next to this file) with those entries NULL
 *   no-slots                  that list, with a C_GetSlotList that finds no slot
 *   leak                      that list, and each C_GetFunctionList leaks a
 *                             block it keeps no pointer to (as OpenSC's spy
 *                             keeps its list), for the sanitizer runs
 *
 * Unset or empty, it is the do-nothing module's list unchanged.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <p11-kit/pkcs11.h>

#include "p11/used_functions.h"

static const struct {
    const char *name;
    size_t      offset;
} hp_entries[] = { P11_USED_FUNCTIONS(P11_USED_FUNCTION_ENTRY) };

static CK_FUNCTION_LIST hp_list;

/* no-slots: a module with nothing in it. */
static CK_RV hp_no_slots(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount)
{
    (void)tokenPresent;
    (void)pSlotList;
    if (!pulCount)
        return CKR_ARGUMENTS_BAD;
    *pulCount = 0;
    return CKR_OK;
}

static CK_RV hp_get_function_list(CK_FUNCTION_LIST_PTR_PTR ppFunctionList);

/* The do-nothing module's list, from libhsmbench-null.so beside this file. */
static CK_FUNCTION_LIST *null_list(void)
{
    Dl_info info;
    char self[PATH_MAX], path[PATH_MAX + 32];
    /* A static function: the name C_GetFunctionList could bind to another
     * library's (libp11-kit exports one). */
    if (!dladdr((void *)(uintptr_t)hp_get_function_list, &info) || !info.dli_fname)
        return NULL;
    snprintf(self, sizeof self, "%s", info.dli_fname);
    snprintf(path, sizeof path, "%s/libhsmbench-null.so", dirname(self));
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    CK_C_GetFunctionList get = (CK_C_GetFunctionList)(uintptr_t)dlsym(h, "C_GetFunctionList");
    CK_FUNCTION_LIST *fn = NULL;
    if (!get || get(&fn) != CKR_OK)
        return NULL;
    return fn;     /* the handle stays open: the list lives in it */
}

static CK_RV hp_get_function_list(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    const char *how = getenv("HSMBENCH_HOSTILE");
    if (!ppFunctionList)
        return CKR_ARGUMENTS_BAD;
    if (how && strcmp(how, "null-list") == 0) {
        *ppFunctionList = NULL;
        return CKR_OK;
    }
    if (how && strcmp(how, "fail") == 0)
        return CKR_GENERAL_ERROR;
    CK_FUNCTION_LIST *base = null_list();
    if (!base)
        return CKR_GENERAL_ERROR;
    hp_list = *base;
    if (how && strncmp(how, "missing=", 8) == 0) {
        for (size_t i = 0; i < sizeof hp_entries / sizeof hp_entries[0]; i++) {
            const char *p = strstr(how + 8, hp_entries[i].name);
            size_t n = strlen(hp_entries[i].name);
            if (p && (p[n] == 0 || p[n] == ',') && (p == how + 8 || p[-1] == ','))
                memset((char *)&hp_list + hp_entries[i].offset, 0, sizeof(void *));
        }
    }
    if (how && strcmp(how, "no-slots") == 0)
        hp_list.C_GetSlotList = hp_no_slots;
    if (how && strcmp(how, "leak") == 0) {
        /* written through, so that the allocation is not optimised away */
        volatile char *lost = malloc(744);
        if (!lost)
            return CKR_HOST_MEMORY;
        lost[0] = 1;
    }
    hp_list.C_GetFunctionList = hp_get_function_list;
    *ppFunctionList = &hp_list;
    return CKR_OK;
}

__attribute__((visibility("default")))
CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList);
CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    return hp_get_function_list(ppFunctionList);
}

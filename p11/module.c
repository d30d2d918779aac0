/* SPDX-License-Identifier: Apache-2.0 */
/* p11/module.c - find, load and initialise a PKCS#11 module (via p11-kit). */
#include "p11/module.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <p11-kit/p11-kit.h>

#include "bench/util/cli.h"
#include "bench/util/signals.h"
#include "p11/names.h"
#include "p11/used_functions.h"

#ifndef HSMBENCH_LIBDIR
#define HSMBENCH_LIBDIR "/usr/local/lib/hsmbench"
#endif

void p11_trim(char *dst, size_t dstlen, const unsigned char *src, size_t srclen)
{
    size_t n = srclen;
    while (n && (src[n - 1] == ' ' || src[n - 1] == 0))
        n--;
    if (n >= dstlen)
        n = dstlen - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static int looks_like_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0) ||
           strstr(spec, ".so.") != NULL;
}

/* Resolve a p11-kit registered name to its file and configured init string. */
static int resolve_registered(const char *name, char *path, size_t pathlen, char **init_reserved)
{
    CK_FUNCTION_LIST **mods = p11_kit_modules_load(NULL, P11_KIT_MODULE_UNMANAGED);
    int found = -1;

    if (!mods)
        return -1;
    CK_FUNCTION_LIST *m = p11_kit_module_for_name(mods, name);
    if (m) {
        char *file = p11_kit_module_get_filename(m);
        if (file) {
            snprintf(path, pathlen, "%s", file);
            free(file);
            *init_reserved = p11_kit_config_option(m, "x-init-reserved");
            found = 0;
        }
    }
    p11_kit_modules_release(mods);
    return found;
}

/*
 * The modules hsmbench installs beside itself, by name: hsmbench-mock,
 * hsmbench-null, hsmbench-trace (the call recorder), in the directory compiled in, or in $HSMBENCH_LIBDIR when
 * it is set and not empty (a build tree, a staged install).
 */
static const p11_own_module own_modules[] = {
    { "hsmbench-mock", "the mock HSM, which misbehaves on request (HSMBENCH_MOCK)" },
    { "hsmbench-null", "the do-nothing module, the harness's ceiling" },
    { "hsmbench-trace", "the call recorder, in front of HSMBENCH_TRACE_MODULE" },
};

const p11_own_module *p11_own_modules(size_t *n)
{
    *n = sizeof own_modules / sizeof own_modules[0];
    return own_modules;
}

int p11_own_module_path(const char *name, char *path, size_t pathlen)
{
    size_t i = 0;
    while (i < sizeof own_modules / sizeof own_modules[0] && strcmp(name, own_modules[i].name) != 0)
        i++;
    if (i == sizeof own_modules / sizeof own_modules[0])
        return -1;
    const char *dir = getenv("HSMBENCH_LIBDIR");
    if (!dir || !*dir)
        dir = HSMBENCH_LIBDIR;
    int n = snprintf(path, pathlen, "%s/lib%s.so", dir, name);
    return n < 0 || (size_t)n >= pathlen ? -1 : 0;
}

/* p11-kit's load failed: find out why, in words a user can act on. */
static void diagnose_load(const char *spec, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        bench_error("--module %s: not a loadable shared object: %s", spec, e ? e : "unknown reason");
        return;
    }
    void *sym = dlsym(h, "C_GetFunctionList");
    dlclose(h);
    if (!sym) {
        bench_error("--module %s: not a PKCS#11 module: it does not export C_GetFunctionList", spec);
        return;
    }
    const char *msg = p11_kit_message();
    bench_error("--module %s: p11-kit could not load it: %s", spec, msg ? msg : "unknown reason");
}

/*
 * Every entry of the function list hsmbench calls, checked before any is
 * used: a module that leaves one NULL (the standard wants a stub returning
 * CKR_FUNCTION_NOT_SUPPORTED) would crash it at the first call.
 */
static const struct {
    const char *name;
    size_t      offset;
} used_functions[] = { P11_USED_FUNCTIONS(P11_USED_FUNCTION_ENTRY) };

/* The first entry hsmbench calls that a function list leaves NULL
 * ("C_GetSlotList"), or NULL when none is missing.  p11_module_open
 * refuses such a module (one line, exit 3) before calling anything. */
static const char *function_list_gap(const CK_FUNCTION_LIST *fn)
{
    for (size_t i = 0; i < sizeof used_functions / sizeof used_functions[0]; i++) {
        void *entry;
        memcpy(&entry, (const char *)fn + used_functions[i].offset, sizeof entry);
        if (!entry)
            return used_functions[i].name;
    }
    return NULL;
}

/*
 * Ask the module for its function list ourselves before p11-kit does:
 * p11-kit follows a NULL list that came with CKR_OK and crashes.  0 when
 * the list is whole (or the module cannot be asked: p11-kit then says
 * why); -1 with one line printed otherwise.
 */
static int check_function_list(const char *spec, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    CK_C_GetFunctionList get = (CK_C_GetFunctionList)(uintptr_t)dlsym(h, "C_GetFunctionList");
    int rc = 0;
    CK_FUNCTION_LIST *fn = NULL;
    if (get) {
        char rvbuf[32];
        CK_RV rv = get(&fn);
        const char *gap = fn ? function_list_gap(fn) : NULL;
        if (rv != CKR_OK) {
            bench_error("--module %s: C_GetFunctionList: %s", spec, p11_rv_name(rv, rvbuf, sizeof rvbuf));
            rc = -1;
        } else if (!fn) {
            bench_error("--module %s: C_GetFunctionList returned CKR_OK and no function list", spec);
            rc = -1;
        } else if (gap) {
            bench_error("--module %s: %s is missing from its function list", spec, gap);
            rc = -1;
        }
    }
    /* Under AddressSanitizer the module stays mapped until the process
     * ends: LeakSanitizer reports after main returns, and a leak allocated
     * in a library already unloaded has "<unknown module>" for a frame,
     * which tests/lsan.supp's module names cannot match (OpenSC's
     * pkcs11-spy, whose function list is never freed, failed one run in
     * about twenty beside a busy loop).  Our reference keeps it loaded
     * past p11-kit's release. */
#if !defined(__SANITIZE_ADDRESS__)
    if (dlclose(h) != 0)
        bench_warn("--module %s: dlclose: %s", spec, dlerror());
#endif
    return rc;
}

static CK_RV initialize(p11_module *m, const char *init_args, unsigned threads)
{
    CK_C_INITIALIZE_ARGS args;
    memset(&args, 0, sizeof args);
    args.flags = CKF_OS_LOCKING_OK;
    args.pReserved = (void *)init_args;
    const char *was = bench_signals_waiting("C_Initialize");
    CK_RV rv = m->fn->C_Initialize(&args);
    if (rv == CKR_CANT_LOCK && threads <= 1) {
        /* One thread needs no locking: accept the module as it is. */
        m->single_threaded = 1;
        args.flags = 0;
        rv = m->fn->C_Initialize(init_args ? &args : NULL);
    }
    bench_signals_waiting(was);
    return rv;
}

p11_module *p11_module_open(const char *spec, const char *init_args, unsigned threads)
{
    p11_module *m = calloc(1, sizeof *m);
    char *config_init = NULL;
    char rvbuf[32];
    struct stat st;

    if (!m) {
        bench_error("out of memory");
        return NULL;
    }
    if (looks_like_path(spec)) {
        if (stat(spec, &st) != 0) {
            bench_error("--module %s: %s", spec, strerror(errno));
            free(m);
            return NULL;
        }
        if (!S_ISREG(st.st_mode)) {
            bench_error("--module %s: not a regular file", spec);
            free(m);
            return NULL;
        }
        /* p11-kit reads a relative path as relative to its module
         * directory; the user meant the current directory. */
        char abs[PATH_MAX];
        snprintf(m->path, sizeof m->path, "%s", realpath(spec, abs) ? abs : spec);
        const char *base = strrchr(spec, '/');
        snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : spec);
    } else {
        if (resolve_registered(spec, m->path, sizeof m->path, &config_init) != 0 &&
            p11_own_module_path(spec, m->path, sizeof m->path) != 0) {
            bench_error("--module %s: no such file, and no p11-kit module registered under that "
                        "name (see: hsmbench list modules)", spec);
            free(m);
            return NULL;
        }
        snprintf(m->name, sizeof m->name, "%s", spec);
    }

    if (check_function_list(spec, m->path) != 0) {
        free(config_init);
        free(m);
        return NULL;
    }
    m->fn = p11_kit_module_load(m->path, P11_KIT_MODULE_UNMANAGED | P11_KIT_MODULE_CRITICAL);
    if (!m->fn) {
        diagnose_load(spec, m->path);
        free(config_init);
        free(m);
        return NULL;
    }

    const char *args = init_args ? init_args : (config_init && *config_init ? config_init : NULL);
    CK_RV rv = initialize(m, args, threads);
    free(config_init);
    if (rv == CKR_OK) {
        m->finalize = 1;
    } else if (rv != CKR_CRYPTOKI_ALREADY_INITIALIZED) {
        if (rv == CKR_CANT_LOCK)
            bench_error("--module %s: C_Initialize: CKR_CANT_LOCK: the module cannot be used from "
                        "several threads; run with --threads 1", spec);
        else
            bench_error("--module %s: C_Initialize: %s%s", spec, p11_rv_name(rv, rvbuf, sizeof rvbuf),
                        init_args ? " (check --init-args)" : "");
        p11_kit_module_release(m->fn);
        free(m);
        return NULL;
    }
    rv = m->fn->C_GetInfo(&m->info);
    if (rv != CKR_OK) {
        bench_error("--module %s: C_GetInfo: %s", spec, p11_rv_name(rv, rvbuf, sizeof rvbuf));
        p11_module_close(m);
        return NULL;
    }
    return m;
}

void p11_module_abandon(p11_module *m)
{
    free(m);    /* m->fn stays loaded and initialized: a thread may be inside it */
}

void p11_module_close(p11_module *m)
{
    if (!m)
        return;
    if (m->finalize) {
        const char *was = bench_signals_waiting("C_Finalize");
        CK_RV rv = m->fn->C_Finalize(NULL);
        bench_signals_waiting(was);
        if (rv != CKR_OK) {
            char rvbuf[32];
            bench_warn("module %s: C_Finalize: %s", m->name, p11_rv_name(rv, rvbuf, sizeof rvbuf));
        }
    }
    p11_kit_module_release(m->fn);
    free(m);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* p11/demo.c - a SoftHSM token of our own, made through PKCS#11 itself. */
#include "p11/demo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "bench/util/cli.h"
#include "bench/util/secret.h"
#include "p11/names.h"
#include "p11/token.h"

#ifndef HSMBENCH_SOFTHSM_DEFAULT
#define HSMBENCH_SOFTHSM_DEFAULT "/usr/lib/softhsm/libsofthsm2.so"
#endif

/* The directory, found anew each time from the environment (no global):
 * 0, -1 with no place to put it, -2 when the path is too long. */
static int find_dir(char *dir, size_t len)
{
    const char *home = getenv("HSMBENCH_HOME");
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *user = getenv("HOME");
    int n;

    if (home && *home)
        n = snprintf(dir, len, "%s/softhsm", home);
    else if (xdg && *xdg)
        n = snprintf(dir, len, "%s/hsmbench/softhsm", xdg);
    else if (user && *user)
        n = snprintf(dir, len, "%s/.local/state/hsmbench/softhsm", user);
    else
        return -1;
    return n < 0 || (size_t)n >= len - 32 ? -2 : 0;
}

static int demo_dir(char *dir, size_t len)
{
    const int rc = find_dir(dir, len);
    if (rc == -1)
        bench_error("no place for the demo token: set HSMBENCH_HOME or HOME");
    else if (rc != 0)
        bench_error("the demo token directory path is too long");
    return rc ? -1 : 0;
}

/* path, or dir/name: one more file in *in (none when it does not fit). */
static void add_input(p11_inputs *in, const char *what, const char *path, const char *name)
{
    if (in->n >= P11_INPUTS_MAX || !path || !*path)
        return;
    const int n = name ? snprintf(in->path[in->n], sizeof in->path[in->n], "%s/%s", path, name)
                       : snprintf(in->path[in->n], sizeof in->path[in->n], "%s", path);
    if (n > 0 && (size_t)n < sizeof in->path[in->n])
        in->what[in->n++] = what;
}

int p11_inputs_note(const char *module, p11_inputs *in, bench_opts_parser *p)
{
    char dir[PATH_MAX];
    in->n = 0;
    if (!module && find_dir(dir, sizeof dir) == 0) {
        const char *mod = getenv("HSMBENCH_SOFTHSM_MODULE");
        add_input(in, "the demo token's PIN file", dir, "user.pin");
        add_input(in, "the demo token's SO PIN file", dir, "so.pin");
        add_input(in, "the demo token's SoftHSM configuration", dir, "softhsm2.conf");
        add_input(in, "the SoftHSM module", mod && *mod ? mod : HSMBENCH_SOFTHSM_DEFAULT, NULL);
    }
    if (module && strchr(module, '/'))
        add_input(in, "--module", module, NULL);
    add_input(in, "SOFTHSM2_CONF", getenv("SOFTHSM2_CONF"), NULL);
    add_input(in, "HSMBENCH_TRACE_CONFIG", getenv("HSMBENCH_TRACE_CONFIG"), NULL);
    add_input(in, "HSMBENCH_TRACE_MODULE", getenv("HSMBENCH_TRACE_MODULE"), NULL);
    for (size_t i = 0; i < in->n; i++)
        if (bench_opts_add_file(p, in->what[i], in->path[i], 0) != 0)
            return -1;
    return 0;
}

static int mkdirs(const char *path)
{
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write content to path (mode 0600) unless it exists already. */
static int write_new(const char *path, const char *content)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno == EEXIST ? 0 : -1;
    size_t n = strlen(content);
    ssize_t w = write(fd, content, n);
    int rc = (w == (ssize_t)n) ? 0 : -1;
    if (close(fd) != 0)
        rc = -1;
    return rc;
}

static int random_pin(char *out, size_t len)
{
    unsigned char raw[12];
    if (len < sizeof raw * 2 + 2 || RAND_bytes(raw, sizeof raw) != 1)
        return -1;
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    strcat(out, "\n");
    bench_secret_wipe(raw, sizeof raw);
    return 0;
}

static int take_lock(const char *dir)
{
    char lock[PATH_MAX + 16];
    snprintf(lock, sizeof lock, "%s/.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        bench_error("%s: %s", lock, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

void p11_demo_unlock(int lock_fd)
{
    if (lock_fd >= 0)
        close(lock_fd);   /* closing releases the flock */
}

int p11_demo_prepare(char *module, size_t modlen, char *pin_file, size_t pinlen, int *lock_fd)
{
    char dir[PATH_MAX], path[PATH_MAX + 64], conf[PATH_MAX * 2], pin[64];
    const char *mod = getenv("HSMBENCH_SOFTHSM_MODULE");

    if (demo_dir(dir, sizeof dir) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/tokens", dir);
    if (mkdirs(path) != 0) {
        bench_error("demo token directory %s: %s", path, strerror(errno));
        return -1;
    }
    *lock_fd = take_lock(dir);
    if (*lock_fd < 0)
        return -1;
    snprintf(path, sizeof path, "%s/softhsm2.conf", dir);
    snprintf(conf, sizeof conf,
             "# hsmbench's private SoftHSM configuration (demo and test token)\n"
             "directories.tokendir = %s/tokens\n"
             "objectstore.backend = file\n"
             "log.level = ERROR\n"
             "slots.removable = false\n", dir);
    if (write_new(path, conf) != 0) {
        bench_error("%s: %s", path, strerror(errno));
        goto fail;
    }
    if (setenv("SOFTHSM2_CONF", path, 1) != 0) {
        bench_error("cannot set SOFTHSM2_CONF: %s", strerror(errno));
        goto fail;
    }
    /* PINs are generated once, kept 0600 beside the token, never printed. */
    static const char *const pins[] = { "user.pin", "so.pin" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, pins[i]);
        if (random_pin(pin, sizeof pin) != 0 || write_new(path, pin) != 0) {
            bench_secret_wipe(pin, sizeof pin);
            bench_error("%s: cannot create the demo PIN file: %s", path, strerror(errno));
            goto fail;
        }
        bench_secret_wipe(pin, sizeof pin);
    }
    snprintf(pin_file, pinlen, "%s/user.pin", dir);
    snprintf(module, modlen, "%s", mod && *mod ? mod : HSMBENCH_SOFTHSM_DEFAULT);
    if (access(module, R_OK) != 0) {
        bench_error("SoftHSM module %s: %s (install softhsm2, or set HSMBENCH_SOFTHSM_MODULE, "
                    "or name a module with --module)", module, strerror(errno));
        goto fail;
    }
    return 0;
fail:
    p11_demo_unlock(*lock_fd);
    *lock_fd = -1;
    return -1;
}

static int read_pin(const char *dir, const char *name, char *buf, size_t cap, size_t *len)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bench_secret_src src = { NULL, path, NULL, "PIN", "", "demo PIN file", NULL };
    return bench_secret_read(&src, "", buf, cap, len) == BENCH_SECRET_OK ? 0 : -1;
}

static int find_label(const p11_module *m, const char *label, int *found, CK_SLOT_ID *free_slot,
                      int *have_free)
{
    CK_SLOT_ID *slots;
    CK_ULONG n;
    p11_token t;

    *found = 0;
    *have_free = 0;
    if (p11_slots(m, 1, &slots, &n) != 0)
        return -1;
    for (CK_ULONG i = 0; i < n; i++) {
        if (p11_token_read(m, slots[i], &t) != CKR_OK)
            continue;
        if (!(t.info.flags & CKF_TOKEN_INITIALIZED)) {
            if (!*have_free) {
                *free_slot = slots[i];
                *have_free = 1;
            }
        } else if (strcmp(t.label, label) == 0) {
            *found = 1;
        }
    }
    free(slots);
    return 0;
}

static int init_token(const p11_module *m, const char *dir, CK_SLOT_ID slot)
{
    char so[64], user[64], rvb[32];
    size_t solen, userlen;
    unsigned char label[32];
    CK_SESSION_HANDLE s;
    CK_RV rv;
    const char *step = "C_InitToken";
    int rc = -1;

    if (read_pin(dir, "so.pin", so, sizeof so, &solen) != 0 ||
        read_pin(dir, "user.pin", user, sizeof user, &userlen) != 0)
        goto out;
    memset(label, ' ', sizeof label);
    memcpy(label, P11_DEMO_LABEL, strlen(P11_DEMO_LABEL));
    rv = m->fn->C_InitToken(slot, (CK_UTF8CHAR_PTR)so, solen, label);
    if (rv != CKR_OK)
        goto fail;

    /* SoftHSM renumbers the slot once initialised: find it again by label. */
    CK_SLOT_ID *slots;
    CK_ULONG n;
    p11_token t;
    int found = 0;
    if (p11_slots(m, 1, &slots, &n) != 0)
        goto out;
    for (CK_ULONG i = 0; i < n && !found; i++)
        if (p11_token_read(m, slots[i], &t) == CKR_OK && strcmp(t.label, P11_DEMO_LABEL) == 0) {
            slot = slots[i];
            found = 1;
        }
    free(slots);
    step = "C_OpenSession";
    rv = m->fn->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s);
    if (rv != CKR_OK)
        goto fail;
    step = "C_Login(SO)";
    rv = m->fn->C_Login(s, CKU_SO, (CK_UTF8CHAR_PTR)so, solen);
    if (rv == CKR_OK) {
        step = "C_InitPIN";
        rv = m->fn->C_InitPIN(s, (CK_UTF8CHAR_PTR)user, userlen);
        m->fn->C_Logout(s);
    }
    m->fn->C_CloseSession(s);
    if (rv != CKR_OK)
        goto fail;
    rc = 0;
    goto out;
fail:
    bench_error("creating the demo token: %s: %s", step, p11_rv_name(rv, rvb, sizeof rvb));
out:
    bench_secret_wipe(so, sizeof so);
    bench_secret_wipe(user, sizeof user);
    return rc;
}

int p11_demo_ensure_token(const p11_module *m)
{
    char dir[PATH_MAX];
    CK_SLOT_ID free_slot = 0;
    int found, have_free;

    if (demo_dir(dir, sizeof dir) != 0)
        return -1;
    if (find_label(m, P11_DEMO_LABEL, &found, &free_slot, &have_free) != 0)
        return -1;
    if (found)
        return 0;
    if (!have_free) {
        bench_error("SoftHSM offers no free slot to create the demo token in");
        return -1;
    }
    return init_token(m, dir, free_slot);
}

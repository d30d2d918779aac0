/* p11/target.c - selection flags to a logged-in token. */
#include "p11/target.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli.h"
#include "bench/exit.h"
#include "bench/report.h"
#include "bench/secret.h"
#include "bench/target.h"
#include "p11/demo.h"
#include "p11/names.h"

int p11_target_opt(p11_target_opts *o, int code, const char *arg)
{
    uint64_t v;
    switch (code) {
    case P11_OPT_MODULE:    o->module = arg; return 1;
    case P11_OPT_INIT_ARGS: o->init_args = arg; return 1;
    case P11_OPT_TOKEN:     o->token = arg; return 1;
    case P11_OPT_URI:       o->uri = arg; return 1;
    case P11_OPT_PIN_ENV:   o->pin_env = arg; return 1;
    case P11_OPT_PIN_FILE:  o->pin_file = arg; return 1;
    case P11_OPT_PIN:
        o->pin = arg;
        bench_warn("--pin puts the PIN in the process list and shell history; "
                   "prefer --pin-env VAR or --pin-file FILE");
        return 1;
    case P11_OPT_SLOT:
        if (bench_parse_u64("--slot", arg, 0, ULONG_MAX, &v) != 0)
            return -1;
        o->has_slot = 1;
        o->slot = (CK_SLOT_ID)v;
        return 1;
    default:
        return 0;
    }
}

int p11_target_check(const p11_target_opts *o)
{
    int sel = !!o->has_slot + !!o->token + !!o->uri;
    int pins = !!o->pin_env + !!o->pin_file + !!o->pin;
    if (sel > 1) {
        bench_error("--slot, --token and --uri each choose the token: give only one");
        return -1;
    }
    if (pins > 1) {
        bench_error("--pin-env, --pin-file and --pin each give the PIN: give only one");
        return -1;
    }
    if (o->pin_env && !*o->pin_env) {
        bench_error("--pin-env: a variable name is required");
        return -1;
    }
    return 0;
}

static int get_pin(const p11_target_opts *o, const char *uri_pin, const char *demo_pin_file,
                   const p11_token *tok, char *pin, size_t cap, size_t *len)
{
    bench_secret_src src = { o->pin_env, o->pin_file, o->pin, "PIN", "--pin-env", "--pin-file",
                             "--pin" };
    char prompt[96];

    if (!src.env && !src.file && !src.value) {
        if (uri_pin && *uri_pin)
            src.value = uri_pin;
        else if (demo_pin_file) {
            src.file = demo_pin_file;
            src.file_flag = "demo token PIN file";
        }
    }
    snprintf(prompt, sizeof prompt, "User PIN for token '%s': ", tok->label);
    int rc = bench_secret_read(&src, prompt, pin, cap, len);
    if (rc == BENCH_SECRET_NONE) {
        bench_error("token '%s' needs a PIN: give --pin-env VAR or --pin-file FILE, "
                    "or run on a terminal to be asked", tok->label);
        return BENCH_EXIT_USAGE;
    }
    return rc == BENCH_SECRET_OK ? 0 : BENCH_EXIT_USAGE;
}

int p11_target_open(const p11_target_opts *o, unsigned threads, p11_open_level level,
                    p11_target *t)
{
    char spec[4096] = "", uri_pin[256] = "", demo_pin[4096] = "", rb[32];
    p11_selector sel = { o->has_slot, o->slot, o->token, o->uri };
    int rc = BENCH_EXIT_MODULE, lock_fd = -1;

    memset(t, 0, sizeof *t);
    if (o->uri && p11_uri_inspect(o->uri, spec, sizeof spec, uri_pin, sizeof uri_pin) != 0)
        return BENCH_EXIT_USAGE;
    if (uri_pin[0] && !o->pin && !o->pin_env && !o->pin_file)
        bench_warn("--uri carries pin-value: the PIN is in the process list and shell history");
    if (o->module) {
        snprintf(spec, sizeof spec, "%s", o->module);
    } else if (!spec[0]) {
        /* No module named: hsmbench's own SoftHSM token. */
        if (p11_demo_prepare(spec, sizeof spec, demo_pin, sizeof demo_pin, &lock_fd) != 0)
            return BENCH_EXIT_MODULE;
        t->demo = 1;
        if (!sel.has_slot && !sel.label && !sel.uri)
            sel.label = P11_DEMO_LABEL;
    }

    t->mod = p11_module_open(spec, o->init_args, threads);
    if (!t->mod)
        goto fail;
    /* For the demo token the lock stays held until the session is open
     * and logged in: SoftHSM's file store does not like another process
     * creating the token under it while it reads. */
    if (t->demo && p11_demo_ensure_token(t->mod) != 0)
        goto fail;
    if (level == P11_OPEN_MODULE) {
        p11_demo_unlock(lock_fd);
        return BENCH_EXIT_OK;
    }
    if (p11_token_select(t->mod, &sel, &t->token) != 0)
        goto fail;

    CK_RV rv = t->mod->fn->C_OpenSession(t->token.slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
                                         NULL, &t->control);
    if (rv == CKR_TOKEN_WRITE_PROTECTED)
        rv = t->mod->fn->C_OpenSession(t->token.slot, CKF_SERIAL_SESSION, NULL, NULL, &t->control);
    if (rv != CKR_OK) {
        bench_error("token '%s': C_OpenSession: %s", t->token.label, p11_rv_name(rv, rb, sizeof rb));
        goto fail;
    }
    t->has_control = 1;

    if (level == P11_OPEN_LOGIN) {
        int have_source = o->pin || o->pin_env || o->pin_file || uri_pin[0];
        if (p11_token_wants_pin(&t->token) || have_source) {
            char pin[256];
            size_t len = 0;
            /* The demo PIN file is for the demo token only: sending it to
             * another token would spend that token's PIN retries. */
            int own = t->demo && strcmp(t->token.label, P11_DEMO_LABEL) == 0;
            int prc = get_pin(o, uri_pin, own ? demo_pin : NULL, &t->token, pin, sizeof pin, &len);
            if (prc != 0) {
                bench_secret_wipe(pin, sizeof pin);
                rc = prc;
                goto fail;
            }
            int lrc = p11_login(t->mod, t->control, &t->token, pin, len);
            bench_secret_wipe(pin, sizeof pin);
            if (lrc != 0)
                goto fail;
            t->logged_in = 1;
        } else if (t->token.info.flags & CKF_LOGIN_REQUIRED) {
            /* Protected authentication path: the PIN pad asks, not us. */
            if (p11_login(t->mod, t->control, &t->token, NULL, 0) != 0)
                goto fail;
            t->logged_in = 1;
        }
    }
    bench_secret_wipe(uri_pin, sizeof uri_pin);
    p11_demo_unlock(lock_fd);
    return BENCH_EXIT_OK;
fail:
    p11_demo_unlock(lock_fd);
    bench_secret_wipe(uri_pin, sizeof uri_pin);
    p11_target_close(t);
    return rc;
}

void p11_target_close(p11_target *t)
{
    if (t->mod) {
        if (t->logged_in)
            t->mod->fn->C_Logout(t->control);
        if (t->has_control)
            t->mod->fn->C_CloseSession(t->control);
        p11_module_close(t->mod);
    }
    memset(t, 0, sizeof *t);
}

static json_t *version_json(CK_VERSION v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%u.%u", v.major, v.minor);
    return json_string(buf);
}

json_t *p11_target_env_json(const p11_target *t)
{
    char manuf[33], desc[33], flags[512];

    p11_trim(manuf, sizeof manuf, t->mod->info.manufacturerID, sizeof t->mod->info.manufacturerID);
    p11_trim(desc, sizeof desc, t->mod->info.libraryDescription,
             sizeof t->mod->info.libraryDescription);
    json_t *module = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:b}", "name", t->mod->name, "path",
                               t->mod->path, "manufacturer", manuf, "library", desc,
                               "library_version", version_json(t->mod->info.libraryVersion),
                               "cryptoki_version", version_json(t->mod->info.cryptokiVersion),
                               "demo_token", t->demo);
    json_t *token = json_pack("{s:I,s:s,s:s,s:s,s:s,s:o,s:o,s:s}", "slot",
                              (json_int_t)t->token.slot, "label", t->token.label, "manufacturer",
                              t->token.manufacturer, "model", t->token.model, "serial",
                              t->token.serial, "firmware",
                              version_json(t->token.info.firmwareVersion), "hardware",
                              version_json(t->token.info.hardwareVersion), "flags",
                              p11_token_flags(t->token.info.flags, flags, sizeof flags));
    json_t *target = bench_target_pkcs11_json(t->mod->name, t->mod->path, manuf, t->token.label,
                                              t->token.serial);
    return json_pack("{s:o,s:o,s:o,s:o}", "target", target, "module", module, "token", token, "host",
                     bench_report_host_json());
}

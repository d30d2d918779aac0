/* SPDX-License-Identifier: Apache-2.0 */
/* p11/target.c - selection flags to a logged-in token. */
#include "p11/target.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/util/cli.h"
#include "bench/util/exit.h"
#include "bench/results/report.h"
#include "bench/util/secret.h"
#include "bench/results/target.h"
#include "p11/demo.h"
#include "p11/names.h"

/* Is a comma-separated list free of empty items? */
static int list_ok(const char *flag, const char *text)
{
    size_t n = strlen(text);
    if (n == 0 || text[0] == ',' || text[n - 1] == ',' || strstr(text, ",,")) {
        bench_error("%s %s: empty item in the list", flag, text);
        return 0;
    }
    return 1;
}

/* --slot ID[,ID...]: each a slot ID, none twice. */
static int parse_slots(p11_target_opts *o, const char *arg)
{
    if (!list_ok("--slot", arg))
        return -1;
    o->nslots = 0;
    for (const char *p = arg; *p;) {
        size_t len = strcspn(p, ",");
        char item[32];
        uint64_t v;
        if (o->nslots == P11_MAX_TOKENS) {
            bench_error("--slot %s: at most %d slots", arg, P11_MAX_TOKENS);
            return -1;
        }
        if (len >= sizeof item) {
            bench_error("--slot %.*s: not a slot ID", (int)len, p);
            return -1;
        }
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (bench_parse_u64("--slot", item, 0, ULONG_MAX, &v) != 0)
            return -1;
        for (unsigned i = 0; i < o->nslots; i++)
            if (o->slots[i] == (CK_SLOT_ID)v) {
                bench_error("--slot %s: slot %s given twice", arg, item);
                return -1;
            }
        o->slots[o->nslots++] = (CK_SLOT_ID)v;
        p += len;
        if (*p == ',')
            p++;
    }
    o->has_slot = 1;
    o->slot = o->slots[0];
    return 1;
}

/* --token LABEL[,LABEL...]: no empty label, none twice. */
static int parse_labels(p11_target_opts *o, const char *arg)
{
    unsigned n = 0;
    if (!list_ok("--token", arg))
        return -1;
    for (const char *p = arg; *p; n++) {
        size_t len = strcspn(p, ",");
        if (n == P11_MAX_TOKENS) {
            bench_error("--token %s: at most %d tokens", arg, P11_MAX_TOKENS);
            return -1;
        }
        for (const char *q = arg; q < p;) {
            size_t qlen = strcspn(q, ",");
            if (qlen == len && strncmp(q, p, len) == 0) {
                bench_error("--token %s: token '%.*s' given twice", arg, (int)len, p);
                return -1;
            }
            q += qlen + 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    o->token = arg;
    return 1;
}

static const bench_option target_rows[] = {
    { "module", 0, BENCH_ARG_REQUIRED, "NAME|PATH", P11_OPT_MODULE,
      "PKCS#11 module: a file, or a name p11-kit registers\n"
      "(default: hsmbench's own SoftHSM token)", NULL },
    { "init-args", 0, BENCH_ARG_REQUIRED, "STRING", P11_OPT_INIT_ARGS,
      "initialisation string for the module (pReserved)", NULL },
    { "slot", 0, BENCH_ARG_REQUIRED, "ID", P11_OPT_SLOT, "the token to use",
      "--slot ID | --token LABEL | --uri PKCS11-URI" },
    { "token", 0, BENCH_ARG_REQUIRED, "LABEL", P11_OPT_TOKEN, NULL, NULL },
    { "uri", 0, BENCH_ARG_REPEATED, "PKCS11-URI", P11_OPT_URI, NULL, NULL },
    { "pin-env", 0, BENCH_ARG_REQUIRED, "VAR", P11_OPT_PIN_ENV,
      "the user PIN (--pin warns);\n"
      "with none, the PIN is asked without echo on a terminal",
      "--pin-env VAR | --pin-file FILE | --pin PIN" },
    { "pin-file", 0, BENCH_ARG_REQUIRED, "FILE", P11_OPT_PIN_FILE, NULL, NULL },
    { "pin", 0, BENCH_ARG_REQUIRED, "PIN", P11_OPT_PIN, NULL, NULL },
};
const bench_opt_group p11_target_group = BENCH_OPT_GROUP("Selection:", target_rows, NULL);

/* AWS CloudHSM's PKCS#11 PIN is the crypto user's name and password,
 * USER:PASSWORD; pkpspeed takes them apart (-s USER -p PASSWORD). */
static const bench_option pin_user_rows[] = {
    { "pin-user", 0, BENCH_ARG_REQUIRED, "USER", P11_OPT_PIN_USER,
      "AWS CloudHSM's crypto user: the PIN sent is USER:PIN\n"
      "(pkpspeed's -s USER -p PASSWORD); a PIN that starts\n"
      "with USER: already is sent as it is", NULL },
};
const bench_opt_group p11_pin_user_group = BENCH_OPT_GROUP(NULL, pin_user_rows, NULL);

/* pkpspeed -s USER -p PASSWORD: the password is the PIN (a secret, as --pin's)
 * and the user goes in front of it, as CloudHSM's PKCS#11 library wants. */
static const bench_old_spelling pkpspeed_rows[] = {
    { .tool = "pkpspeed", .kind = BENCH_OLD_SAME, .short_name = 'p', .arg = BENCH_ARG_REQUIRED,
      .to = "pin" },
    { .tool = "pkpspeed", .kind = BENCH_OLD_SAME, .short_name = 's', .arg = BENCH_ARG_REQUIRED,
      .to = "pin-user", .note = "AWS CloudHSM's PKCS#11 PIN is USER:PASSWORD: the PIN sent is USER:PIN" },
};
const bench_opt_group p11_pkpspeed_spellings = BENCH_OPT_SPELLINGS(pkpspeed_rows);

/* A --uri with a pin-value: the URI kept, each pin-value's value masked in
 * argv (up to the next ';', '&', '?' or '#').  The copy, or NULL (printed). */
static const char *take_uri_pins(char *arg)
{
    static const char key[] = "pin-value=";
    if (!strstr(arg, key))
        return arg;
    const char *copy = bench_secret_keep(arg);
    if (!copy)
        return NULL;
    for (char *p = strstr(arg, key); p; p = strstr(p, key)) {
        p += sizeof key - 1;
        const size_t n = strcspn(p, ";&?#");
        bench_secret_mask(p, n);
        p += n;
    }
    return copy;
}

int p11_target_opt(p11_target_opts *o, int code, char *argw)
{
    const char *arg = argw;
    switch (code) {
    case P11_OPT_MODULE:    o->module = arg; return 1;
    case P11_OPT_INIT_ARGS: o->init_args = arg; return 1;
    case P11_OPT_TOKEN:     return parse_labels(o, arg);
    case P11_OPT_URI:
        /* Repeatable (bench_getopt_long): each --uri is one token. */
        if (o->nuris == P11_MAX_TOKENS) {
            bench_error("--uri: at most %d", P11_MAX_TOKENS);
            return -1;
        }
        if (!(arg = take_uri_pins(argw)))
            return -1;
        for (unsigned i = 0; i < o->nuris; i++)
            if (strcmp(o->uris[i], arg) == 0) {
                char shown[1024];
                bench_error("--uri %s: given twice", p11_uri_redact(arg, shown, sizeof shown));
                return -1;
            }
        o->uris[o->nuris++] = arg;
        o->uri = o->uris[0];
        return 1;
    case P11_OPT_PIN_ENV:   o->pin_env = arg; return 1;
    case P11_OPT_PIN_FILE:  o->pin_file = arg; return 1;
    case P11_OPT_PIN_USER:
        if (!*arg || strchr(arg, ':')) {
            bench_error("--pin-user %s: a user name, without ':' (the PIN sent is USER:PIN)", arg);
            return -1;
        }
        o->pin_user = arg;
        return 1;
    case P11_OPT_PIN:
        o->pin = arg;
        bench_warn("--pin puts the PIN in the shell history (the process list shows '*'s); "
                   "prefer --pin-env VAR or --pin-file FILE");
        return 1;
    case P11_OPT_SLOT:
        return parse_slots(o, arg);
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
    if (p11_target_count(o) > 1 && !o->many) {
        char list[P11_MAX_TOKENS * 22] = "";
        size_t used = 0;
        for (unsigned i = 0; i < o->nslots && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%lu", i ? "," : "",
                                     (unsigned long)o->slots[i]);
        if (o->nuris > 1)
            bench_error("--uri given %u times: this command uses one token (several tokens are for "
                        "hsmbench run)", o->nuris);
        else
            bench_error("%s %s: this command uses one token: give one (several tokens are for "
                        "hsmbench run)", o->has_slot ? "--slot" : "--token",
                        o->has_slot ? list : o->token);
        return -1;
    }
    return 0;
}

unsigned p11_target_count(const p11_target_opts *o)
{
    if (o->has_slot)
        return o->nslots ? o->nslots : 1;
    if (o->nuris)
        return o->nuris;
    if (o->token) {
        unsigned n = 1;
        for (const char *p = o->token; *p; p++)
            n += *p == ',';
        return n;
    }
    return 1;
}

/* --pin-user: pin (len bytes, of cap) becomes USER:pin, unless it starts
 * with USER: already.  A BENCH_EXIT_* code (printed). */
static int join_user(const char *user, char *pin, size_t cap, size_t *len)
{
    const size_t ulen = strlen(user);
    if (*len > ulen && memcmp(pin, user, ulen) == 0 && pin[ulen] == ':')
        return 0;
    if (ulen + 1 + *len >= cap) {
        bench_error("--pin-user %s: the PIN with the user in front is longer than %zu bytes", user,
                    cap - 1);
        return BENCH_EXIT_USAGE;
    }
    memmove(pin + ulen + 1, pin, *len);
    memcpy(pin, user, ulen);
    pin[ulen] = ':';
    *len += ulen + 1;
    pin[*len] = 0;
    return 0;
}

static int get_pin(const p11_target_opts *o, const char *uri_pin, const char *demo_pin_file,
                   const p11_token *tok, int many, char *pin, size_t cap, size_t *len)
{
    bench_secret_src src = { o->pin_env, o->pin_file, o->pin, "PIN", "--pin-env", "--pin-file",
                             "--pin" };
    char prompt[128];

    if (!src.env && !src.file && !src.value) {
        if (uri_pin && *uri_pin)
            src.value = uri_pin;
        else if (demo_pin_file) {
            src.file = demo_pin_file;
            src.file_flag = "demo token PIN file";
        }
    }
    snprintf(prompt, sizeof prompt, "User PIN for token '%s'%s: ", tok->label,
             many ? " (and every other token of the run)" : "");
    int rc = bench_secret_read(&src, prompt, pin, cap, len);
    if (rc == BENCH_SECRET_NONE) {
        bench_error("token '%s' needs a PIN: give --pin-env VAR or --pin-file FILE, "
                    "or run on a terminal to be asked", tok->label);
        return BENCH_EXIT_USAGE;
    }
    if (rc != BENCH_SECRET_OK)
        return BENCH_EXIT_USAGE;
    /* The demo token's own PIN file is whole: the user goes before the user's PIN. */
    if (o->pin_user && !(demo_pin_file && src.file == demo_pin_file))
        return join_user(o->pin_user, pin, cap, len);
    return 0;
}

/* The one PIN of a run over several tokens: read once, sent to each. */
typedef struct pin_cache {
    char   pin[256];
    size_t len;
    int    have;
} pin_cache;

/* Where the tokens' PINs come from (p11_target_open's, for each token). */
typedef struct pin_from {
    const p11_target_opts *o;
    const char *uri_pin;      /* a --uri's pin-value, or "" */
    const char *demo_pin;     /* the demo token's PIN file */
    int         many;         /* several tokens */
    pin_cache   cache;
} pin_from;

/* Control session and login for one token.  A BENCH_EXIT_* code. */
static int open_token(p11_target *t, const p11_token *tok, p11_open_level level, pin_from *pf,
                      CK_SESSION_HANDLE *control, int *has_control, int *logged_in)
{
    const p11_target_opts *o = pf->o;
    char rb[32];
    CK_RV rv = t->mod->fn->C_OpenSession(tok->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL,
                                         control);
    if (rv == CKR_TOKEN_WRITE_PROTECTED)
        rv = t->mod->fn->C_OpenSession(tok->slot, CKF_SERIAL_SESSION, NULL, NULL, control);
    if (rv != CKR_OK) {
        bench_error("token '%s': C_OpenSession: %s", tok->label, p11_rv_name(rv, rb, sizeof rb));
        return BENCH_EXIT_MODULE;
    }
    *has_control = 1;
    if (level != P11_OPEN_LOGIN)
        return BENCH_EXIT_OK;

    const int have_source = o->pin || o->pin_env || o->pin_file || pf->uri_pin[0];
    if (p11_token_wants_pin(tok) || have_source) {
        /* The demo PIN file is for the demo token only: sending it to
         * another token would spend that token's PIN retries. */
        const int own = t->demo && strcmp(tok->label, P11_DEMO_LABEL) == 0;
        char pin[256];
        size_t len = 0;
        int lrc;
        if (own && !have_source) {
            int prc = get_pin(o, pf->uri_pin, pf->demo_pin, tok, 0, pin, sizeof pin, &len);
            if (prc != 0) {
                bench_secret_wipe(pin, sizeof pin);
                return prc;
            }
            lrc = p11_login(t->mod, *control, tok, pin, len);
            bench_secret_wipe(pin, sizeof pin);
        } else {
            if (!pf->cache.have) {
                int prc = get_pin(o, pf->uri_pin, NULL, tok, pf->many, pf->cache.pin,
                                  sizeof pf->cache.pin, &pf->cache.len);
                if (prc != 0)
                    return prc;
                pf->cache.have = 1;
            }
            lrc = p11_login(t->mod, *control, tok, pf->cache.pin, pf->cache.len);
        }
        if (lrc != 0)
            return BENCH_EXIT_MODULE;
        *logged_in = 1;
    } else if (tok->info.flags & CKF_LOGIN_REQUIRED) {
        /* Protected authentication path: the PIN pad asks, not us. */
        if (p11_login(t->mod, *control, tok, NULL, 0) != 0)
            return BENCH_EXIT_MODULE;
        *logged_in = 1;
    }
    return BENCH_EXIT_OK;
}

/* The selector of token i of the flags; label holds the i-th --token item. */
static void selector_at(const p11_target_opts *o, unsigned i, char *label, size_t cap,
                        p11_selector *sel)
{
    memset(sel, 0, sizeof *sel);
    if (o->has_slot) {
        sel->has_slot = 1;
        sel->slot = o->nslots ? o->slots[i] : o->slot;
    } else if (o->nuris) {
        sel->uri = o->uris[i];
    } else if (o->token) {
        const char *p = o->token;
        for (unsigned k = 0; k < i && *p; k++)
            p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',');
        size_t len = strcspn(p, ",");
        snprintf(label, cap, "%.*s", (int)len, p);
        sel->label = label;
    }
}

/* "--slot 2", "--token a", "--uri pkcs11:..." for messages. */
static const char *selector_text(const p11_selector *sel, char *buf, size_t len)
{
    char shown[1024];
    if (sel->has_slot)
        snprintf(buf, len, "--slot %lu", (unsigned long)sel->slot);
    else if (sel->uri)
        snprintf(buf, len, "--uri %s", p11_uri_redact(sel->uri, shown, sizeof shown));
    else
        snprintf(buf, len, "--token %s", sel->label ? sel->label : "");
    return buf;
}

/* The module every --uri names (module-path / module-name, one at most)
 * and the pin-value of a single one.  A BENCH_EXIT_* code. */
static int uris_inspect(const p11_target_opts *o, char *spec, size_t speclen, char *uri_pin,
                        size_t pinlen)
{
    char shown[1024];
    for (unsigned i = 0; i < o->nuris; i++) {
        char mod[4096] = "", pin[256] = "";
        int rc = p11_uri_inspect(o->uris[i], mod, sizeof mod, pin, sizeof pin);
        int has_pin = pin[0] != '\0';
        if (i == 0 && rc == 0)
            snprintf(uri_pin, pinlen, "%s", pin);
        bench_secret_wipe(pin, sizeof pin);
        if (rc != 0)
            return BENCH_EXIT_USAGE;
        if (has_pin && o->nuris > 1) {
            bench_error("--uri %s: pin-value with several tokens: give the one PIN of every token "
                        "with --pin-env VAR or --pin-file FILE",
                        p11_uri_redact(o->uris[i], shown, sizeof shown));
            return BENCH_EXIT_USAGE;
        }
        if (mod[0] && spec[0] && strcmp(mod, spec) != 0) {
            bench_error("--uri %s: names module %s, another --uri names %s: the tokens of one run "
                        "are in one module", p11_uri_redact(o->uris[i], shown, sizeof shown), mod,
                        spec);
            return BENCH_EXIT_USAGE;
        }
        if (mod[0])
            snprintf(spec, speclen, "%s", mod);
    }
    return BENCH_EXIT_OK;
}

/* Do --module's A and a URI's module B name one module: the same text, or
 * paths to the same file? */
static int same_module(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int p11_target_open(const p11_target_opts *o, unsigned threads, p11_open_level level,
                    p11_target *t)
{
    char spec[4096] = "", uri_pin[256] = "", demo_pin[4096] = "", label[256];
    const unsigned n = p11_target_count(o);
    p11_selector sel;
    int rc = BENCH_EXIT_MODULE, lock_fd = -1, demo_default = 0;
    pin_from pf = { o, uri_pin, demo_pin, n > 1, { "", 0, 0 } };

    memset(t, 0, sizeof *t);
    rc = uris_inspect(o, spec, sizeof spec, uri_pin, sizeof uri_pin);
    if (rc != 0) {
        bench_secret_wipe(uri_pin, sizeof uri_pin);
        return rc;
    }
    rc = BENCH_EXIT_MODULE;
    if (uri_pin[0] && !o->pin && !o->pin_env && !o->pin_file)
        bench_warn("--uri carries pin-value: the PIN is in the shell history (the process list "
                   "shows '*'s); prefer --pin-env VAR or --pin-file FILE");
    if (o->module && spec[0] && !same_module(o->module, spec)) {
        bench_error("--module %s and --uri naming module %s: a run loads one module; give it once",
                    o->module, spec);
        bench_secret_wipe(uri_pin, sizeof uri_pin);
        return BENCH_EXIT_USAGE;
    }
    if (o->module) {
        snprintf(spec, sizeof spec, "%s", o->module);
    } else if (!spec[0]) {
        /* No module named: hsmbench's own SoftHSM token. */
        if (p11_demo_prepare(spec, sizeof spec, demo_pin, sizeof demo_pin, &lock_fd) != 0)
            return BENCH_EXIT_MODULE;
        t->demo = 1;
        demo_default = !o->has_slot && !o->token && !o->nuris;
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
    for (unsigned i = 0; i < n; i++) {
        selector_at(o, i, label, sizeof label, &sel);
        if (demo_default)
            sel.label = P11_DEMO_LABEL;
        p11_token tok;
        if (p11_token_select(t->mod, &sel, &tok) != 0)
            goto fail;
        for (unsigned k = 0; k < i; k++)
            if (p11_target_token(t, k)->slot == tok.slot) {
                char a[1100], b[1100];
                p11_selector other;
                char olabel[256];
                selector_at(o, k, olabel, sizeof olabel, &other);
                bench_error("%s and %s: both name token '%s' (slot %lu): give each token once",
                            selector_text(&other, a, sizeof a), selector_text(&sel, b, sizeof b),
                            tok.label, (unsigned long)tok.slot);
                rc = BENCH_EXIT_USAGE;
                goto fail;
            }
        int orc;
        if (i == 0) {
            t->token = tok;
            t->ntokens = 1;
            orc = open_token(t, &t->token, level, &pf, &t->control, &t->has_control,
                             &t->logged_in);
        } else {
            p11_target_tok *m = &t->more[i - 1];
            m->token = tok;
            t->ntokens = i + 1;
            orc = open_token(t, &m->token, level, &pf, &m->control, &m->has_control,
                             &m->logged_in);
        }
        if (orc != 0) {
            rc = orc;
            goto fail;
        }
    }
    bench_secret_wipe(&pf.cache, sizeof pf.cache);
    bench_secret_wipe(uri_pin, sizeof uri_pin);
    p11_demo_unlock(lock_fd);
    return BENCH_EXIT_OK;
fail:
    bench_secret_wipe(&pf.cache, sizeof pf.cache);
    p11_demo_unlock(lock_fd);
    bench_secret_wipe(uri_pin, sizeof uri_pin);
    p11_target_close(t);
    return rc;
}

/* Log out of and close one token's control session. */
static void close_token(const p11_module *mod, CK_SESSION_HANDLE control, int has_control,
                        int logged_in)
{
    if (logged_in)
        mod->fn->C_Logout(control);
    if (has_control)
        mod->fn->C_CloseSession(control);
}

void p11_target_close(p11_target *t)
{
    if (t->mod && t->abandoned) {
        p11_module_abandon(t->mod);
    } else if (t->mod) {
        for (unsigned i = t->ntokens; i-- > 1;)
            close_token(t->mod, t->more[i - 1].control, t->more[i - 1].has_control,
                        t->more[i - 1].logged_in);
        close_token(t->mod, t->control, t->has_control, t->logged_in);
        p11_module_close(t->mod);
    }
    memset(t, 0, sizeof *t);
}

const p11_token *p11_target_token(const p11_target *t, unsigned i)
{
    return i == 0 ? &t->token : &t->more[i - 1].token;
}

CK_SESSION_HANDLE p11_target_control(const p11_target *t, unsigned i)
{
    return i == 0 ? t->control : t->more[i - 1].control;
}

static json_t *version_json(CK_VERSION v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%u.%u", v.major, v.minor);
    return json_string(buf);
}

static json_t *token_json(const p11_token *tok)
{
    char flags[512];
    return json_pack("{s:I,s:s,s:s,s:s,s:s,s:o,s:o,s:s}", "slot", (json_int_t)tok->slot, "label",
                     tok->label, "manufacturer", tok->manufacturer, "model", tok->model, "serial",
                     tok->serial, "firmware", version_json(tok->info.firmwareVersion), "hardware",
                     version_json(tok->info.hardwareVersion), "flags",
                     p11_token_flags(tok->info.flags, flags, sizeof flags));
}

/*
 * environment.target of a run over several tokens, from each token's own
 * (bench_target_pkcs11_json): name "MANUFACTURER · tokens a, b, c", id
 * "BASENAME serial=A,serial=B,..." (each token's part of its id, in
 * the order given).
 */
static json_t *targets_json(const p11_target *t, const char *manuf)
{
    char name[BENCH_TARGET_TEXT_MAX] = "", id[BENCH_TARGET_TEXT_MAX] = "";
    size_t nl = 0, il = 0;
    for (unsigned i = 0; i < t->ntokens; i++) {
        const p11_token *tok = p11_target_token(t, i);
        json_t *one = bench_target_pkcs11_json(t->mod->name, t->mod->path, manuf, tok->label,
                                               tok->serial);
        if (!one)
            return NULL;
        const char *oname = json_string_value(json_object_get(one, "name"));
        const char *oid = json_string_value(json_object_get(one, "id"));
        if (i == 0) {
            const char *cut = oname ? strstr(oname, " \xc2\xb7 token ") : NULL;
            nl = (size_t)snprintf(name, sizeof name, "%.*s \xc2\xb7 tokens %s",
                                  cut ? (int)(cut - oname) : 1, cut ? oname : "?", tok->label);
            il = (size_t)snprintf(id, sizeof id, "%s", oid ? oid : "");
        } else {
            /* "BASENAME " is the first token's; the rest is this one's. */
            const char *part = oid ? strchr(oid, ' ') : NULL;
            if (nl < sizeof name)
                nl += (size_t)snprintf(name + nl, sizeof name - nl, ", %s", tok->label);
            if (il < sizeof id)
                il += (size_t)snprintf(id + il, sizeof id - il, ",%s", part ? part + 1 : "");
        }
        json_decref(one);
    }
    return json_pack("{s:s,s:s,s:s}", "kind", "pkcs11", "name", name, "id", id);
}

json_t *p11_target_env_json(const p11_target *t)
{
    char manuf[33], desc[33];

    p11_trim(manuf, sizeof manuf, t->mod->info.manufacturerID, sizeof t->mod->info.manufacturerID);
    p11_trim(desc, sizeof desc, t->mod->info.libraryDescription,
             sizeof t->mod->info.libraryDescription);
    json_t *module = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:b}", "name", t->mod->name, "path",
                               t->mod->path, "manufacturer", manuf, "library", desc,
                               "library_version", version_json(t->mod->info.libraryVersion),
                               "cryptoki_version", version_json(t->mod->info.cryptokiVersion),
                               "demo_token", t->demo);
    if (t->ntokens > 1) {
        json_t *tokens = json_array();
        for (unsigned i = 0; tokens && i < t->ntokens; i++)
            if (json_array_append_new(tokens, token_json(p11_target_token(t, i))) != 0) {
                json_decref(tokens);
                tokens = NULL;
            }
        return json_pack("{s:o,s:o,s:o,s:o,s:o}", "target", targets_json(t, manuf), "module",
                         module, "token", token_json(&t->token), "tokens", tokens, "host",
                         bench_report_host_json());
    }
    json_t *target = bench_target_pkcs11_json(t->mod->name, t->mod->path, manuf, t->token.label,
                                              t->token.serial);
    return json_pack("{s:o,s:o,s:o,s:o}", "target", target, "module", module, "token",
                     token_json(&t->token), "host", bench_report_host_json());
}

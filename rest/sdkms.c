/* SPDX-License-Identifier: Apache-2.0 */
/* rest/sdkms.c - SDKMS sessions, keys and crypto calls as a workload. */
#include "rest/sdkms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "bench/util/b64.h"
#include "bench/util/signals.h"
#include "rest/transport/codes.h"
#include "rest/transport/multi.h"

/* ---- names and settings -------------------------------------------------- */

static const char *const op_names[] = { "keygen", "encrypt", "decrypt", "sign", "verify", "mac" };

int rest_sdkms_op_parse(const char *s, rest_sdkms_op *out)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++) {
        if (strcmp(s, op_names[i]) == 0) {
            *out = (rest_sdkms_op)i;
            return 0;
        }
    }
    return -1;
}

const char *rest_sdkms_op_name(rest_sdkms_op op)
{
    return (unsigned)op < sizeof op_names / sizeof op_names[0] ? op_names[op] : "?";
}

int rest_sdkms_alg_parse(const char *s, rest_sdkms_alg *out)
{
    if (strcasecmp(s, "AES") == 0)
        *out = REST_ALG_AES;
    else if (strcasecmp(s, "RSA") == 0)
        *out = REST_ALG_RSA;
    else if (strcasecmp(s, "EC") == 0)
        *out = REST_ALG_EC;
    else if (strcasecmp(s, "HMAC") == 0)
        *out = REST_ALG_HMAC;
    else
        return -1;
    return 0;
}

const char *rest_sdkms_alg_name(rest_sdkms_alg alg)
{
    switch (alg) {
    case REST_ALG_AES:  return "AES";
    case REST_ALG_RSA:  return "RSA";
    case REST_ALG_EC:   return "EC";
    case REST_ALG_HMAC: return "HMAC";
    case REST_ALG_NONE: break;
    }
    return "?";
}

/* SDKMS's curve names, and the spellings people also use. */
static const struct { const char *name, *alias1, *alias2; unsigned bits; } curves[] = {
    { "NistP256", "P-256", "prime256v1", 256 },
    { "NistP384", "P-384", "secp384r1", 384 },
    { "NistP521", "P-521", "secp521r1", 521 },
    /* the test bench's other curves; by --key-size, 192/224/256 mean NIST */
    { "NistP192", "P-192", "prime192v1", 192 },
    { "NistP224", "P-224", "secp224r1", 224 },
    { "SecP192K1", "secp192k1", "K-192", 192 },
    { "SecP224K1", "secp224k1", "K-224", 224 },
    { "SecP256K1", "secp256k1", "K-256", 256 },
};

static const char *curve_canon(const char *c, unsigned *bits)
{
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++) {
        if (strcasecmp(c, curves[i].name) == 0 || strcasecmp(c, curves[i].alias1) == 0 ||
            strcasecmp(c, curves[i].alias2) == 0) {
            *bits = curves[i].bits;
            return curves[i].name;
        }
    }
    return NULL;
}

static const char *curve_by_bits(unsigned bits)
{
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        if (curves[i].bits == bits)
            return curves[i].name;
    return NULL;
}


static unsigned hash_bits(const char *h)
{
    return strcmp(h, "SHA1") == 0 ? 160 : strcmp(h, "SHA384") == 0 ? 384
         : strcmp(h, "SHA512") == 0 ? 512 : 256;
}

static const char *canon_word(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(s, words[i]) == 0)
            return words[i];
    return NULL;
}

/* Every cipher mode, in groups: AES's, RSA encryption's, RSA signatures'. */
static const char *const cipher_modes[] = { "GCM", "CBC", "OAEP", "PKCS1_V15", "PKCS1_V15", "PSS" };
static const char *const *const aes_modes = cipher_modes;
static const char *const *const rsa_enc_modes = cipher_modes + 2;
static const char *const *const rsa_sig_modes = cipher_modes + 4;

int rest_sdkms_is_cipher_mode(const char *s)
{
    return canon_word(s, cipher_modes, sizeof cipher_modes / sizeof cipher_modes[0]) != NULL;
}

int rest_sdkms_resolve(rest_sdkms_cfg *c, char *err, size_t errlen)
{
    static const char *const hashes[] = { "SHA1", "SHA256", "SHA384", "SHA512" };
    const char *opn = rest_sdkms_op_name(c->op);

    if (c->alg == REST_ALG_NONE) {
        switch (c->op) {
        case REST_SDKMS_SIGN:
        case REST_SDKMS_VERIFY: c->alg = REST_ALG_RSA; break;
        case REST_SDKMS_MAC:    c->alg = REST_ALG_HMAC; break;
        default:                c->alg = REST_ALG_AES; break;
        }
    }
    const rest_sdkms_alg a = c->alg;
    int ok;
    switch (c->op) {
    case REST_SDKMS_ENCRYPT:
    case REST_SDKMS_DECRYPT: ok = a == REST_ALG_AES || a == REST_ALG_RSA; break;
    case REST_SDKMS_SIGN:
    case REST_SDKMS_VERIFY:  ok = a == REST_ALG_RSA || a == REST_ALG_EC; break;
    case REST_SDKMS_MAC:     ok = a == REST_ALG_HMAC; break;
    default:                 ok = 1; break;
    }
    if (!ok) {
        snprintf(err, errlen, "--alg %s: the %s operation takes %s", rest_sdkms_alg_name(a), opn,
                 c->op == REST_SDKMS_MAC ? "HMAC" :
                 c->op == REST_SDKMS_SIGN || c->op == REST_SDKMS_VERIFY ? "RSA or EC" : "AES or RSA");
        return -1;
    }

    if (c->hash) {
        const char *h = canon_word(c->hash, hashes, 4);
        if (!h) {
            snprintf(err, errlen, "--hash-alg %s: expected SHA1, SHA256, SHA384 or SHA512", c->hash);
            return -1;
        }
        c->hash = h;
    } else {
        c->hash = "SHA256";
    }

    /* Key size and curve. */
    if (a == REST_ALG_EC) {
        unsigned bits = 0;
        const char *cv = c->curve ? curve_canon(c->curve, &bits) : NULL;
        if (c->curve && !cv) {
            snprintf(err, errlen, "--curve %s: expected " REST_SDKMS_CURVES, c->curve);
            return -1;
        }
        if (!cv && c->key_bits) {
            cv = curve_by_bits(c->key_bits);
            if (!cv) {
                snprintf(err, errlen, "--key-size %u: EC takes 192, 224, 256, 384 or 521", c->key_bits);
                return -1;
            }
            bits = c->key_bits;
        }
        if (!cv) {
            cv = "NistP256";
            bits = 256;
        }
        if (c->key_bits && c->key_bits != bits) {
            snprintf(err, errlen, "--key-size %u does not match --curve %s", c->key_bits, cv);
            return -1;
        }
        c->curve = cv;
        c->key_bits = bits;
    } else {
        if (c->curve) {
            snprintf(err, errlen, "--curve: only EC keys have a curve");
            return -1;
        }
        /* An HMAC key as long as the digest: tokens refuse shorter ones. */
        if (!c->key_bits)
            c->key_bits = a == REST_ALG_RSA ? 2048 : a == REST_ALG_HMAC ? hash_bits(c->hash) : 256;
        if (a == REST_ALG_AES && c->key_bits != 128 && c->key_bits != 192 && c->key_bits != 256) {
            snprintf(err, errlen, "--key-size %u: AES takes 128, 192 or 256", c->key_bits);
            return -1;
        }
        if (a == REST_ALG_RSA && (c->key_bits < 1024 || c->key_bits > 8192 || c->key_bits % 8)) {
            snprintf(err, errlen, "--key-size %u: RSA takes 1024 to 8192 (a multiple of 8)",
                     c->key_bits);
            return -1;
        }
        if (a == REST_ALG_HMAC && (c->key_bits < 112 || c->key_bits > 4096 || c->key_bits % 8)) {
            snprintf(err, errlen, "--key-size %u: HMAC keys take 112 to 4096 bits (a multiple of 8)",
                     c->key_bits);
            return -1;
        }
    }

    /* Mode: what it means depends on the algorithm and the operation. */
    const int enc = c->op == REST_SDKMS_ENCRYPT || c->op == REST_SDKMS_DECRYPT;
    const int sig = c->op == REST_SDKMS_SIGN || c->op == REST_SDKMS_VERIFY;
    if (c->mode) {
        const char *m = NULL;
        if (a == REST_ALG_AES && enc)
            m = canon_word(c->mode, aes_modes, 2);
        else if (a == REST_ALG_RSA && enc)
            m = canon_word(c->mode, rsa_enc_modes, 2);
        else if (a == REST_ALG_RSA && sig)
            m = canon_word(c->mode, rsa_sig_modes, 2);
        else {
            snprintf(err, errlen, "--cipher-mode: %s %s takes no mode", rest_sdkms_alg_name(a), opn);
            return -1;
        }
        if (!m) {
            snprintf(err, errlen, "--cipher-mode %s: %s %s takes %s", c->mode, rest_sdkms_alg_name(a), opn,
                     a == REST_ALG_AES ? "GCM or CBC" : enc ? "OAEP or PKCS1_V15" : "PKCS1_V15 or PSS");
            return -1;
        }
        c->mode = m;
    } else if (a == REST_ALG_AES && enc) {
        c->mode = "GCM";
    } else if (a == REST_ALG_RSA && enc) {
        c->mode = "OAEP";
    } else if (a == REST_ALG_RSA && sig) {
        c->mode = "PKCS1_V15";
    }


    if (!c->data_size)
        c->data_size = REST_SDKMS_DEFAULT_DATA;
    if (a == REST_ALG_RSA && enc) {
        size_t k = c->key_bits / 8;
        size_t max = strcmp(c->mode, "OAEP") == 0 ? k - 42 : k - 11;   /* OAEP with SHA-1 */
        if (c->data_size > max && c->data_path) {
            /* The file gave the size: name it, not a --data-size never typed. */
            snprintf(err, errlen, "--filepath %s: %zu bytes; RSA %u with %s encrypts at most %zu "
                     "(a larger --key-size, or --alg AES)", c->data_path, c->data_size, c->key_bits,
                     c->mode, max);
            return -1;
        }
        if (c->data_size > max) {
            snprintf(err, errlen, "--data-size %zu: RSA %u with %s encrypts at most %zu bytes",
                     c->data_size, c->key_bits, c->mode, max);
            return -1;
        }
    }
    if (c->aad && !(a == REST_ALG_AES && enc && strcmp(c->mode, "GCM") == 0)) {
        snprintf(err, errlen, "--aad: only AES-GCM takes additional authenticated data");
        return -1;
    }
    return 0;
}

const char *rest_sdkms_key_desc(const rest_sdkms_cfg *c, char *buf, size_t len)
{
    if (c->alg == REST_ALG_EC)
        snprintf(buf, len, "EC %s", c->curve);
    else
        snprintf(buf, len, "%s %u", rest_sdkms_alg_name(c->alg), c->key_bits);
    return buf;
}

const char *rest_sdkms_mech_desc(const rest_sdkms_cfg *c, char *buf, size_t len)
{
    switch (c->op) {
    case REST_SDKMS_KEYGEN:
        snprintf(buf, len, "%s keygen%s", rest_sdkms_alg_name(c->alg), c->transient ? " (transient)" : "");
        break;
    case REST_SDKMS_ENCRYPT:
    case REST_SDKMS_DECRYPT:
        snprintf(buf, len, "%s-%s", rest_sdkms_alg_name(c->alg), c->mode);
        break;
    case REST_SDKMS_SIGN:
    case REST_SDKMS_VERIFY:
        if (c->alg == REST_ALG_EC)
            snprintf(buf, len, "ECDSA %s", c->hash);
        else
            snprintf(buf, len, "RSA-%s %s", strcmp(c->mode, "PSS") == 0 ? "PSS" : "PKCS1v15", c->hash);
        break;
    case REST_SDKMS_MAC:
        snprintf(buf, len, "HMAC %s", c->hash);
        break;
    }
    return buf;
}

/* ---- bodies -------------------------------------------------------------- */

static char *dump(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    return s;
}

static int set_b64(json_t *obj, const char *key, const uint8_t *data, size_t n)
{
    char *s = bench_b64_encode_alloc(data, n);
    int rc = s ? json_object_set_new(obj, key, json_string(s)) : -1;
    free(s);
    return rc;
}

static json_t *key_fields(const rest_sdkms_cfg *c)
{
    json_t *j = json_pack("{s:s}", "obj_type", rest_sdkms_alg_name(c->alg));
    if (!j)
        return NULL;
    if (c->alg == REST_ALG_EC)
        json_object_set_new(j, "elliptic_curve", json_string(c->curve));
    else
        json_object_set_new(j, "key_size", json_integer(c->key_bits));
    if (c->transient)
        json_object_set_new(j, "transient", json_true());
    json_object_set_new(j, "enabled", json_true());
    return j;
}

char *rest_sdkms_key_body(const rest_sdkms_cfg *c, const char *name)
{
    json_t *j = json_pack("{s:s}", "name", name);
    json_t *f = key_fields(c);
    if (!j || !f || json_object_update(j, f) != 0) {
        json_decref(j);
        json_decref(f);
        return NULL;
    }
    json_decref(f);
    return dump(j);
}

/* RSA padding objects are externally tagged: {"OAEP": {"mgf": {"mgf1": {"hash": H}}}}. */
static json_t *rsa_mode(const rest_sdkms_cfg *c, int sign)
{
    if (strcmp(c->mode, "PKCS1_V15") == 0)
        return json_pack("{s:{}}", "PKCS1_V15");
    return json_pack("{s:{s:{s:{s:s}}}}", sign ? "PSS" : "OAEP", "mgf", "mgf1", "hash",
                     sign ? c->hash : "SHA1");
}

int rest_sdkms_session_gone(long status, const char *body)
{
    return status == 401 || (body && strstr(body, "Session does not exist"));
}

bench_code rest_sdkms_parse_auth(const char *body, size_t len, char **out)
{
    json_t *j = json_loadb(body, len, 0, NULL);
    json_t *t = json_object_get(j, "access_token");
    char *tok = NULL;
    bench_code rc = REST_E_MISSING_FIELD;
    if (json_is_string(t) && json_string_length(t)) {
        /* It goes into every later request's Authorization header. */
        rc = rest_server_value(json_string_value(t), json_string_length(t), REST_INTO_HEADER);
        if (rc == BENCH_OK && !(tok = strdup(json_string_value(t))))
            rc = REST_E_MISSING_FIELD;
    }
    *out = tok;
    if (j) {
        /* The parsed copy held the token too. */
        if (json_is_string(t))
            explicit_bzero((char *)json_string_value(t), json_string_length(t));
        json_decref(j);
    }
    return rc;
}

bench_code rest_sdkms_check(const rest_sdkms_cfg *c, const char *body, size_t len,
                            const uint8_t *expect, size_t expect_len)
{
    bench_code rc;
    json_t *j = rest_json_object(body, len, &rc);
    if (!j)
        return rc;
    switch (c->op) {
    case REST_SDKMS_KEYGEN:
        if (c->transient) {
            rc = rest_json_b64(j, "transient_key", NULL, NULL);
        } else {
            json_t *k = json_object_get(j, "kid");
            rc = json_is_string(k) && json_string_length(k) ? BENCH_OK : REST_E_MISSING_FIELD;
        }
        break;
    case REST_SDKMS_ENCRYPT:
        rc = rest_json_b64(j, "cipher", NULL, NULL);
        if (rc == BENCH_OK && c->alg == REST_ALG_AES && strcmp(c->mode, "GCM") == 0)
            rc = rest_json_b64(j, "tag", NULL, NULL);
        break;
    case REST_SDKMS_DECRYPT: {
        uint8_t *pt = NULL;
        size_t n = 0;
        rc = rest_json_b64(j, "plain", &pt, &n);
        if (rc == BENCH_OK && (n != expect_len || memcmp(pt, expect, n) != 0))
            rc = REST_E_ROUNDTRIP_MISMATCH;
        free(pt);
        break;
    }
    case REST_SDKMS_SIGN:
        rc = rest_json_b64(j, "signature", NULL, NULL);
        break;
    case REST_SDKMS_VERIFY: {
        json_t *r = json_object_get(j, "result");
        rc = !json_is_boolean(r) ? REST_E_MISSING_FIELD : json_is_true(r) ? BENCH_OK
                                                                           : REST_E_VERIFY_FALSE;
        break;
    }
    case REST_SDKMS_MAC:
        rc = rest_json_b64(j, json_object_get(j, "mac") ? "mac" : "digest", NULL, NULL);
        break;
    }
    json_decref(j);
    return rc;
}

/* ---- context ------------------------------------------------------------- */

static const char *op_path(rest_sdkms_op op)
{
    switch (op) {
    case REST_SDKMS_KEYGEN:  return "/crypto/v1/keys";
    case REST_SDKMS_ENCRYPT: return "/crypto/v1/encrypt";
    case REST_SDKMS_DECRYPT: return "/crypto/v1/decrypt";
    case REST_SDKMS_SIGN:    return "/crypto/v1/sign";
    case REST_SDKMS_VERIFY:  return "/crypto/v1/verify";
    case REST_SDKMS_MAC:     return "/crypto/v1/mac";
    }
    return "/";
}

int rest_sdkms_init(rest_sdkms *s, const rest_sdkms_cfg *cfg, rest_client *client, char *err,
                    size_t errlen)
{
    unsigned char r[4];
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->client = client;
    if (RAND_bytes(r, sizeof r) != 1)
        memset(r, 0, sizeof r);
    snprintf(s->name_prefix, sizeof s->name_prefix, "hsmbench-%ld-%02x%02x%02x%02x",
             (long)getpid(), r[0], r[1], r[2], r[3]);
    const bench_url *ep = cfg->endpoint;
    if (bench_url_append(&s->url_auth, ep, "/sys/v1/session/auth", err, errlen) != 0 ||
        bench_url_append(&s->url_terminate, ep, "/sys/v1/session/terminate", err, errlen) != 0 ||
        bench_url_append(&s->url_keys, ep, "/crypto/v1/keys", err, errlen) != 0 ||
        bench_url_append(&s->url_op, ep, op_path(cfg->op), err, errlen) != 0 ||
        bench_url_append(&s->url_encrypt, ep, "/crypto/v1/encrypt", err, errlen) != 0 ||
        bench_url_append(&s->url_sign, ep, "/crypto/v1/sign", err, errlen) != 0) {
        rest_sdkms_fini(s);
        return -1;
    }
    return 0;
}

void rest_sdkms_fini(rest_sdkms *s)
{
    bench_url_free(&s->url_auth);
    bench_url_free(&s->url_terminate);
    bench_url_free(&s->url_keys);
    bench_url_free(&s->url_op);
    bench_url_free(&s->url_encrypt);
    bench_url_free(&s->url_sign);
}

/* ---- a worker ------------------------------------------------------------ */

enum { PH_OP, PH_REAUTH, PH_RETRY };

typedef struct sdkms_worker {
    rest_http  *http;             /* first: the REST side-metrics hooks find it */
    rest_sdkms *s;
    unsigned    index;
    int         phase;
    uint8_t    *data;             /* plaintext, or the data signed / MACed */
    size_t      data_len;
    char       *kid;              /* this worker's key (non-transient), to delete */
    json_t     *key;              /* {"kid": ...} or {"transient_key": ...} */
    char       *body;             /* the measured request */
    size_t      body_len;
    char       *gen_tail;         /* keygen: the key body after its name */
    uint64_t    seq;
    char      **kids;             /* keygen: keys made, deleted after the run */
    size_t      nkids, capkids;
} sdkms_worker;

static bench_code check_auth(void *arg, const rest_response *r)
{
    char **tok = arg;
    return rest_sdkms_parse_auth(r->body, r->body_len, tok);
}

/* The one line for a set-up answer whose FIELD cannot be sent back. */
static void bad_value(char *err, size_t errlen, const char *what, const char *field, const char *why)
{
    snprintf(err, errlen, "%s: the answer's %s %s: not sent back (BAD_VALUE)", what, field, why);
}

/* API key -> session -> bearer on h: BENCH_OK, or the failure with one
 * line in err. */
static bench_code login(rest_http *h, const rest_sdkms *s, char *err, size_t errlen)
{
    rest_response r;
    char *tok = NULL;
    if (rest_http_set_auth(h, "Basic", s->cfg.api_key) != 0) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    bench_code rc = rest_setup_call(h, "SDKMS authentication", "POST", &s->url_auth, "", 0,
                                    check_auth, &tok, &r, err, errlen);
    if (rc == REST_E_BAD_VALUE)
        bad_value(err, errlen, "SDKMS authentication", "access_token",
                  "holds a control character, a space or a byte past ASCII");
    if (rc != BENCH_OK)
        return rc;
    int set = rest_http_set_auth(h, "Bearer", tok);
    explicit_bzero(tok, strlen(tok));
    free(tok);
    if (set != 0) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    return BENCH_OK;
}


static bench_code check_key(void *arg, const rest_response *r)
{
    json_t **out = arg;
    bench_code rc;
    json_t *j = rest_json_object(r->body, r->body_len, &rc);
    if (!j)
        return rc;
    json_t *kid = json_object_get(j, "kid"), *tk = json_object_get(j, "transient_key");
    if (json_is_string(tk) && json_string_length(tk)) {
        rc = bench_b64_valid(json_string_value(tk), json_string_length(tk)) ? BENCH_OK
                                                                          : REST_E_BAD_BASE64;
        if (rc == BENCH_OK)
            *out = json_pack("{s:O}", "transient_key", tk);
    } else if (json_is_string(kid) && json_string_length(kid)) {
        /* It goes into the measured body and the DELETE's path. */
        rc = rest_server_value(json_string_value(kid), json_string_length(kid), REST_INTO_PATH);
        if (rc == BENCH_OK)
            *out = json_pack("{s:O}", "kid", kid);
    } else {
        rc = REST_E_MISSING_FIELD;
    }
    json_decref(j);
    return rc;
}

static bench_code create_key(sdkms_worker *w, char *err, size_t errlen)
{
    char name[96];
    rest_response r;
    snprintf(name, sizeof name, "%s-w%u", w->s->name_prefix, w->index + 1);
    char *body = rest_sdkms_key_body(&w->s->cfg, name);
    if (!body) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    bench_code rc = rest_setup_call(w->http, "SDKMS key creation", "POST", &w->s->url_keys, body,
                                    strlen(body), check_key, &w->key, &r, err, errlen);
    free(body);
    if (rc == REST_E_BAD_VALUE)
        bad_value(err, errlen, "SDKMS key creation", "kid", "holds a control character or is . or ..");
    if (rc != BENCH_OK)
        return rc;
    json_t *kid = json_object_get(w->key, "kid");
    if (json_is_string(kid) && !(w->kid = strdup(json_string_value(kid)))) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    return BENCH_OK;
}

static int digest(const char *hash, const uint8_t *data, size_t n, uint8_t *out, unsigned *outlen)
{
    const EVP_MD *md = EVP_get_digestbyname(strcmp(hash, "SHA1") == 0 ? "SHA1" : hash);
    return md && EVP_Digest(data, n, out, outlen, md, NULL) == 1 ? 0 : -1;
}

/* A set-up call whose JSON answer the caller keeps (NULL on failure). */
typedef struct { json_t *answer; } keep_answer;

static bench_code check_keep(void *arg, const rest_response *r)
{
    keep_answer *k = arg;
    bench_code rc;
    json_decref(k->answer);
    k->answer = rest_json_object(r->body, r->body_len, &rc);
    return rc;
}

static json_t *setup_answer(sdkms_worker *w, const char *what, const bench_url *url, json_t *req,
                            bench_code *rc, char *err, size_t errlen)
{
    keep_answer k = { NULL };
    rest_response r;
    char *body = dump(json_deep_copy(req));
    if (!body) {
        snprintf(err, errlen, "out of memory");
        *rc = REST_E_MISSING_FIELD;
        return NULL;
    }
    *rc = rest_setup_call(w->http, what, "POST", url, body, strlen(body), check_keep, &k, &r, err,
                          errlen);
    free(body);
    if (*rc != BENCH_OK) {
        json_decref(k.answer);
        return NULL;
    }
    return k.answer;
}

/* The measured request's body; for decrypt and verify, first the encrypt or
 * sign that makes their input. */
static bench_code build_body(sdkms_worker *w, char *err, size_t errlen)
{
    const rest_sdkms_cfg *c = &w->s->cfg;
    json_t *j = json_object(), *ans = NULL;
    bench_code rc = BENCH_OK;
    uint8_t md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;

    if (!j) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    json_object_set(j, "key", w->key);
    switch (c->op) {
    case REST_SDKMS_KEYGEN:
        break;
    case REST_SDKMS_ENCRYPT:
    case REST_SDKMS_DECRYPT:
        json_object_set_new(j, "alg", json_string(rest_sdkms_alg_name(c->alg)));
        set_b64(j, "plain", w->data, w->data_len);
        if (c->alg == REST_ALG_RSA) {
            json_object_set_new(j, "mode", rsa_mode(c, 0));
        } else {
            /* No iv: the service makes a fresh one for every call. */
            json_object_set_new(j, "mode", json_string(c->mode));
            if (strcmp(c->mode, "GCM") == 0) {
                if (c->aad)
                    set_b64(j, "ad", c->aad, c->aadlen);
                json_object_set_new(j, "tag_len", json_integer(128));
            }
        }
        if (c->op != REST_SDKMS_DECRYPT)
            break;
        ans = setup_answer(w, "SDKMS encrypt (set-up)", &w->s->url_encrypt, j, &rc, err, errlen);
        if (ans) {
            rest_sdkms_cfg ec = *c;
            ec.op = REST_SDKMS_ENCRYPT;
            char *txt = dump(json_incref(ans));
            rc = txt ? rest_sdkms_check(&ec, txt, strlen(txt), NULL, 0) : REST_E_MISSING_FIELD;
            free(txt);
            if (rc == BENCH_OK && c->alg == REST_ALG_AES && !json_is_string(json_object_get(ans, "iv")))
                rc = REST_E_MISSING_FIELD;
            if (rc != BENCH_OK) {
                snprintf(err, errlen, "SDKMS encrypt (set-up): the answer lacks a valid cipher%s",
                         c->alg == REST_ALG_AES ? ", iv or tag" : "");
                break;
            }
            json_object_del(j, "plain");
            json_object_del(j, "tag_len");
            /* Each goes back in decrypt's body: base64, whatever the mode. */
            static const char *const keep[] = { "cipher", "iv", "tag" };
            for (size_t i = 0; i < 3 && rc == BENCH_OK; i++) {
                const json_t *v = json_object_get(ans, keep[i]);
                if (v && rest_json_b64(ans, keep[i], NULL, NULL) != BENCH_OK) {
                    rc = REST_E_BAD_BASE64;
                    snprintf(err, errlen, "SDKMS encrypt (set-up): the answer's %s is not base64: "
                             "not sent back", keep[i]);
                } else if (v) {
                    json_object_set(j, keep[i], json_object_get(ans, keep[i]));
                }
            }
        }
        break;
    case REST_SDKMS_SIGN:
    case REST_SDKMS_VERIFY:
        if (digest(c->hash, w->data, w->data_len, md, &mdlen) != 0) {
            snprintf(err, errlen, "cannot compute %s", c->hash);
            rc = REST_E_MISSING_FIELD;
            break;
        }
        json_object_set_new(j, "hash_alg", json_string(c->hash));
        set_b64(j, "hash", md, mdlen);
        if (c->alg == REST_ALG_RSA)
            json_object_set_new(j, "mode", rsa_mode(c, 1));
        if (c->op != REST_SDKMS_VERIFY)
            break;
        ans = setup_answer(w, "SDKMS sign (set-up)", &w->s->url_sign, j, &rc, err, errlen);
        if (ans) {
            json_t *sig = json_object_get(ans, "signature");
            if (json_is_string(sig) && json_string_length(sig) &&
                bench_b64_valid(json_string_value(sig), json_string_length(sig))) {
                json_object_set(j, "signature", sig);
            } else {
                rc = REST_E_MISSING_FIELD;
                snprintf(err, errlen, "SDKMS sign (set-up): the answer has no valid signature");
            }
        }
        break;
    case REST_SDKMS_MAC:
        json_object_set_new(j, "alg", json_string(c->hash));
        set_b64(j, "data", w->data, w->data_len);
        break;
    }
    json_decref(ans);
    if (rc == BENCH_OK) {
        w->body = dump(j);
        j = NULL;
        if (!w->body) {
            snprintf(err, errlen, "out of memory");
            rc = REST_E_MISSING_FIELD;
        } else {
            w->body_len = strlen(w->body);
        }
    }
    json_decref(j);
    return rc;
}

/* ---- tear-down ----------------------------------------------------------- */

/* DELETE one key; 404 means it is gone already.  0 when it is gone.  A
 * session that has ended is renewed once for each key: an SDKMS session
 * lives a set time, which a long tear-down (many keys, a slow server)
 * outlasts more than once; renewing once for the whole tear-down left every
 * key after the second expiry on the server.  After a login that failed,
 * no other (*nologin): the credentials will not do better for the next. */
static int delete_key(sdkms_worker *w, const char *kid, int *nologin)
{
    char path[1024], err[256];
    rest_response r;
    bench_url url;
    /* One segment under /crypto/v1/keys/ whatever the kid holds. */
    char *seg = rest_path_segment(kid);
    int gone = -1, n = seg ? snprintf(path, sizeof path, "/%s", seg) : -1;
    free(seg);
    if (n < 0 || (size_t)n >= sizeof path ||
        bench_url_append(&url, &w->s->url_keys, path, err, sizeof err) != 0)
        return -1;
    for (int tries = 0; tries < 2; tries++) {
        /* A URL of its own for one request: the handle is not to keep it. */
        rest_http_request_once(w->http, "DELETE", &url, NULL, 0);
        rest_http_perform(w->http, &r);
        if (!r.transport && ((r.status >= 200 && r.status < 300) || r.status == 404)) {
            gone = 0;
            break;
        }
        if (r.transport || !rest_sdkms_session_gone(r.status, r.body) || tries > 0 || *nologin)
            break;
        if (login(w->http, w->s, err, sizeof err) != BENCH_OK) {
            *nologin = 1;
            break;
        }
    }
    bench_url_free(&url);
    return gone;
}

/* A key its DELETE did not remove: listed after the run by the URL that
 * deletes it (the keys URL's identity: no credentials, no query). */
static void left_key(sdkms_worker *w, const char *kid)
{
    char url[1200];
    char *seg = rest_path_segment(kid);
    const int n = seg ? snprintf(url, sizeof url, "%s/%s", w->s->url_keys.identity, seg) : -1;
    free(seg);
    if (n < 0 || (size_t)n >= sizeof url)
        atomic_fetch_add(&w->s->client->cleanup_failures, 1);   /* counted, not listed */
    else
        rest_client_left(w->s->client, url);
}

static void teardown(sdkms_worker *w)
{
    int nologin = 0;
    rest_response r;

    if (!w->http)
        return;
    /* Keys go even after Ctrl-C: it stopped the run, not the clean-up. */
    rest_http_teardown_mode(w->http, w->s->client->http.timeout_ms);
    if (w->kid && delete_key(w, w->kid, &nologin) != 0)
        left_key(w, w->kid);
    for (size_t i = 0; i < w->nkids; i++)
        if (delete_key(w, w->kids[i], &nologin) != 0)
            left_key(w, w->kids[i]);
    rest_http_request(w->http, "POST", &w->s->url_terminate, "", 0);
    rest_http_perform(w->http, &r);
}

static void worker_free(sdkms_worker *w)
{
    if (!w)
        return;
    rest_http_free(w->http);
    free(w->data);
    free(w->kid);
    json_decref(w->key);
    free(w->body);
    free(w->gen_tail);
    for (size_t i = 0; i < w->nkids; i++)
        free(w->kids[i]);
    free(w->kids);
    free(w);
}

/* ---- set-up -------------------------------------------------------------- */

static int worker_make(rest_sdkms *s, unsigned index, sdkms_worker **out, bench_code *code,
                       char *err, size_t errlen)
{
    const rest_sdkms_cfg *c = &s->cfg;
    sdkms_worker *w = calloc(1, sizeof *w);
    *code = BENCH_OK;
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->s = s;
    w->index = index;
    w->data_len = c->data_size;
    w->data = malloc(w->data_len ? w->data_len : 1);
    if (w->data && c->data)
        memcpy(w->data, c->data, w->data_len);
    if (!w->data || (!c->data && RAND_bytes(w->data, (int)w->data_len) != 1)) {
        snprintf(err, errlen, "cannot make the input data");
        worker_free(w);
        return -1;
    }
    if (!(w->http = rest_client_http(s->client, index, err, errlen))) {
        worker_free(w);
        return -1;
    }
    /* Set-up requests begin sessions and make keys: Ctrl-C must not leave
     * one made but unknown, so they finish (each within --timeout); the
     * pool stops setting up further workers instead. */
    rest_http_interruptible(w->http, 0);
    if ((*code = login(w->http, w->s, err, errlen)) != BENCH_OK) {
        worker_free(w);
        return -1;
    }
    if (c->op == REST_SDKMS_KEYGEN) {
        json_t *f = key_fields(c);
        char *t = dump(f);
        if (t) {
            /* Every key gets its own name: keep the body after "{". */
            w->gen_tail = strdup(t + 1);
            w->body_len = strlen(t) + 128;
            w->body = malloc(w->body_len);
        }
        free(t);
        if (!w->gen_tail || !w->body) {
            snprintf(err, errlen, "out of memory");
            teardown(w);
            worker_free(w);
            return -1;
        }
    } else if ((*code = create_key(w, err, errlen)) != BENCH_OK ||
               (*code = build_body(w, err, errlen)) != BENCH_OK) {
        teardown(w);
        worker_free(w);
        return -1;
    }
    /* keygen's measured requests make keys too: Ctrl-C lets them finish. */
    rest_http_interruptible(w->http, !(c->op == REST_SDKMS_KEYGEN && !c->transient));
    *out = w;
    return 0;
}

static bench_code preflight_once(rest_sdkms *s, char *err, size_t errlen)
{
    rest_response r;
    rest_http *h = rest_http_new(&s->client->http, 0, err, errlen);
    if (!h)
        return REST_E_MISSING_FIELD;
    bench_code rc = login(h, s, err, errlen);
    if (rc == BENCH_OK) {
        rest_http_request(h, "POST", &s->url_terminate, "", 0);
        rest_http_perform(h, &r);
    }
    rest_http_free(h);
    return rc;
}

/* The set-up check, published so a Ctrl-C says what it waits for. */
bench_code rest_sdkms_preflight(rest_sdkms *s, char *err, size_t errlen)
{
    const char *was = bench_signals_waiting_for("the endpoint's answer to the set-up request");
    bench_code rc = preflight_once(s, err, errlen);
    bench_signals_waiting_for(was);
    return rc;
}

bench_code rest_sdkms_probe(rest_sdkms *s, FILE *f, char *err, size_t errlen)
{
    sdkms_worker *w = calloc(1, sizeof *w);
    rest_response r;
    char desc[64];
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return REST_E_MISSING_FIELD;
    }
    w->s = s;
    if (!(w->http = rest_client_http(s->client, 0, err, errlen))) {
        worker_free(w);
        return REST_E_MISSING_FIELD;
    }
    rest_http_interruptible(w->http, 0);   /* a key made must be known, to delete it */
    bench_code rc = login(w->http, w->s, err, errlen);
    const int authed = rc == BENCH_OK;
    fprintf(f, "%-14s %s%s\n", "auth:", rc == BENCH_OK ? "ok: session begun" : "FAILED: ",
            rc == BENCH_OK ? "" : err);
    if (rc == BENCH_OK) {
        /* A named key even for --transient runs: one the check can delete. */
        const int transient = s->cfg.transient;
        s->cfg.transient = 0;
        rc = create_key(w, err, errlen);
        s->cfg.transient = transient;
        rest_sdkms_key_desc(&s->cfg, desc, sizeof desc);
        if (rc == BENCH_OK)
            fprintf(f, "%-14s ok: %s, kid %s\n", "key made:", desc, w->kid ? w->kid : "?");
        else
            fprintf(f, "%-14s FAILED: %s\n", "key made:", err);
    }
    if (w->kid) {
        int nologin = 0;
        const int gone = delete_key(w, w->kid, &nologin) == 0;
        fprintf(f, "%-14s %s\n", "key deleted:", gone ? "ok" : "FAILED");
        if (!gone && rc == BENCH_OK) {
            snprintf(err, errlen, "the key %s could not be deleted", w->kid);
            rc = REST_E_MISSING_FIELD;
        }
    }
    if (authed) {
        rest_http_request(w->http, "POST", &s->url_terminate, "", 0);
        rest_http_perform(w->http, &r);
        const int ended = !r.transport && r.status >= 200 && r.status <= 299;
        fprintf(f, "%-14s ", "session ended:");
        if (ended)
            fprintf(f, "ok (HTTP %ld)\n", r.status);
        else if (r.transport)
            fprintf(f, "FAILED: %s\n", r.error);
        else
            fprintf(f, "FAILED: HTTP %ld\n", r.status);
        if (!ended && rc == BENCH_OK) {
            snprintf(err, errlen, "the session could not be ended");
            rc = r.transport ? r.transport : rest_code_http(r.status);
        }
    }
    worker_free(w);
    return rc;
}

/* ---- the measured operation ---------------------------------------------- */

static int sdkms_open(void *ctx, unsigned index, void **state, char *err, size_t errlen)
{
    rest_sdkms *s = ctx;
    sdkms_worker *w = NULL;
    bench_code code = BENCH_OK;
    if (worker_make(s, index, &w, &code, err, errlen) != 0) {
        rest_client_setup_failed(s->client, code);
        return -1;
    }
    *state = w;
    return 0;
}

static void prepare_op(sdkms_worker *w)
{
    rest_sdkms *s = w->s;
    if (s->cfg.op == REST_SDKMS_KEYGEN) {
        int n = snprintf(w->body, w->body_len, "{\"name\":\"%s-w%u-%llu\",%s", s->name_prefix,
                         w->index + 1, (unsigned long long)++w->seq, w->gen_tail);
        rest_http_request(w->http, "POST", &s->url_keys, w->body, (size_t)n);
    } else {
        rest_http_request(w->http, "POST", &s->url_op, w->body, w->body_len);
    }
}

static rest_http *sdkms_start(void *state)
{
    sdkms_worker *w = state;
    w->phase = PH_OP;
    prepare_op(w);
    return w->http;
}

/* Keep the kid of a key made by keygen, for the tear-down. */
static bench_code keep_kid(sdkms_worker *w, const rest_response *r)
{
    bench_code rc;
    json_t *j = rest_json_object(r->body, r->body_len, &rc);
    if (!j)
        return rc;
    json_t *kid = json_object_get(j, "kid");
    if (!json_is_string(kid) || !json_string_length(kid)) {
        json_decref(j);
        return REST_E_MISSING_FIELD;
    }
    /* A kid no DELETE can name: the key stays, and the user is told. */
    rc = rest_server_value(json_string_value(kid), json_string_length(kid), REST_INTO_PATH);
    if (rc != BENCH_OK) {
        atomic_fetch_add(&w->s->client->cleanup_failures, 1);
        json_decref(j);
        return rc;
    }
    if (w->nkids == w->capkids) {
        size_t cap = w->capkids ? w->capkids * 2 : 256;
        char **n = realloc(w->kids, cap * sizeof *n);
        if (n) {
            w->kids = n;
            w->capkids = cap;
        }
    }
    char *copy = w->nkids < w->capkids ? strdup(json_string_value(kid)) : NULL;
    if (copy)
        w->kids[w->nkids++] = copy;
    else
        atomic_fetch_add(&w->s->client->cleanup_failures, 1);   /* cannot delete it later */
    json_decref(j);
    return BENCH_OK;
}

static rest_step sdkms_finish(void *state, rest_xfer_rc cc, bench_code *rc)
{
    sdkms_worker *w = state;
    rest_sdkms *s = w->s;
    rest_response r;
    rest_http_finish(w->http, cc, &r);
    if (r.transport) {
        /* the operation ends here: its one status check fails, as k6's
         * status 0 fails a check */
        rest_http_note_check(w->http, REST_CHECK_STATUS, 0);
        *rc = r.transport;
        return REST_STEP_DONE;
    }
    if (w->phase == PH_REAUTH) {
        char *tok = NULL;
        const bench_code got = r.status == 200 ? rest_sdkms_parse_auth(r.body, r.body_len, &tok)
                                               : rest_code_http(r.status);
        if (got != BENCH_OK) {
            rest_http_note_check(w->http, REST_CHECK_STATUS, 0);   /* the operation's one check */
            *rc = got;
            return REST_STEP_DONE;
        }
        int set = rest_http_set_auth(w->http, "Bearer", tok);
        explicit_bzero(tok, strlen(tok));
        free(tok);
        if (set != 0) {
            *rc = REST_E_MISSING_FIELD;
            return REST_STEP_DONE;
        }
        w->phase = PH_RETRY;
        if (s->cfg.op == REST_SDKMS_KEYGEN)   /* same key, same name */
            rest_http_request(w->http, "POST", &s->url_keys, w->body, strlen(w->body));
        else
            rest_http_request(w->http, "POST", &s->url_op, w->body, w->body_len);
        return REST_STEP_AGAIN;
    }
    if (w->phase == PH_OP && rest_sdkms_session_gone(r.status, r.body)) {
        /* The session expired: log in again once, as the test bench does. */
        rest_http_note_reauth(w->http);
        if (rest_http_set_auth(w->http, "Basic", s->cfg.api_key) != 0) {
            *rc = rest_code_http(r.status);
            return REST_STEP_DONE;
        }
        w->phase = PH_REAUTH;
        rest_http_request(w->http, "POST", &s->url_auth, "", 0);
        return REST_STEP_AGAIN;
    }
    /* k6's check: the status; then our verification of the answer (its
     * fields, their base64, decrypt's plaintext, verify's result), which
     * k6's summary does not count. */
    rest_http_note_check(w->http, REST_CHECK_STATUS, r.status >= 200 && r.status <= 299);
    if (r.status < 200 || r.status > 299) {
        *rc = rest_code_http(r.status);
        return REST_STEP_DONE;
    }
    if (s->cfg.op == REST_SDKMS_KEYGEN && !s->cfg.transient)
        *rc = keep_kid(w, &r);
    else
        *rc = rest_sdkms_check(&s->cfg, r.body, r.body_len, w->data, w->data_len);
    rest_http_note_check(w->http, REST_CHECK_BODY, *rc == BENCH_OK);
    return REST_STEP_DONE;
}

static void sdkms_close(void *state)
{
    sdkms_worker *w = state;
    teardown(w);
    worker_free(w);
}

static const rest_xfer_ops sdkms_ops = { sdkms_open, sdkms_start, sdkms_finish, sdkms_close };

static bench_code sdkms_do_one(void *state)
{
    return rest_xfer_run(&sdkms_ops, state);
}

void rest_sdkms_workload(rest_sdkms *s, bench_workload *w, unsigned aslots)
{
    memset(w, 0, sizeof *w);
    w->ctx = s;
    w->open = sdkms_open;
    w->do_one = sdkms_do_one;
    w->close = sdkms_close;
    s->xw = (rest_xfer_workload){ &sdkms_ops, s };
    if (aslots)
        rest_multi_attach(w, &s->xw, aslots, &s->client->http);
    w->code_name = rest_code_namer;
    w->call = "an HTTP request";
    rest_client_side(w);
    /* Keys being made at the end are waited for (the engine waits for
     * every request to its timeout: rest_multi_attach), so that each is
     * known and deleted. */
    w->bytes_per_op = s->cfg.op == REST_SDKMS_ENCRYPT || s->cfg.op == REST_SDKMS_DECRYPT ||
                              s->cfg.op == REST_SDKMS_MAC
                          ? s->cfg.data_size : 0;
}

/* keys/keys.c - generate and destroy benchmark keys. */
#include "keys/keys.h"

#include <string.h>

static const unsigned char oid_p256[] = { 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const unsigned char oid_p384[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
static const unsigned char oid_p521[] = { 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };

static const struct {
    const char *name;
    const unsigned char *oid;
    size_t len;
    unsigned bits;
} curves[] = {
    { "P-256", oid_p256, sizeof oid_p256, 256 },
    { "P-384", oid_p384, sizeof oid_p384, 384 },
    { "P-521", oid_p521, sizeof oid_p521, 521 },
};

const unsigned char *keys_curve_oid(const char *curve, size_t *len)
{
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        if (curve && strcmp(curves[i].name, curve) == 0) {
            *len = curves[i].len;
            return curves[i].oid;
        }
    *len = 0;
    return NULL;
}

unsigned keys_curve_bits(const char *curve)
{
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
        if (curve && strcmp(curves[i].name, curve) == 0)
            return curves[i].bits;
    return 0;
}

CK_MECHANISM_TYPE keys_gen_mechanism(keys_type type)
{
    switch (type) {
    case KEYS_RSA:     return CKM_RSA_PKCS_KEY_PAIR_GEN;
    case KEYS_EC:      return CKM_EC_KEY_PAIR_GEN;
    case KEYS_AES:     return CKM_AES_KEY_GEN;
    case KEYS_GENERIC: return CKM_GENERIC_SECRET_KEY_GEN;
    case KEYS_NONE:    break;
    }
    return 0;
}

#define ATTR(t, v) { (t), (void *)&(v), sizeof(v) }

static CK_RV gen_pair(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                      keys_handle *out)
{
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE, tok = spec->token ? CK_TRUE : CK_FALSE;
    CK_ULONG bits = spec->bits;
    CK_BYTE exponent[] = { 0x01, 0x00, 0x01 };
    CK_MECHANISM mech = { keys_gen_mechanism(spec->type), NULL, 0 };
    const char *label = spec->label ? spec->label : "hsmbench";
    CK_ATTRIBUTE pub[6] = {
        ATTR(CKA_TOKEN, tok), ATTR(CKA_VERIFY, yes), ATTR(CKA_ENCRYPT, yes),
        { CKA_LABEL, (void *)label, strlen(label) },
    };
    CK_ATTRIBUTE priv[] = {
        ATTR(CKA_TOKEN, tok), ATTR(CKA_PRIVATE, yes), ATTR(CKA_SENSITIVE, yes),
        ATTR(CKA_SIGN, yes), ATTR(CKA_DECRYPT, yes), ATTR(CKA_EXTRACTABLE, no),
        { CKA_LABEL, (void *)label, strlen(label) },
    };
    CK_ULONG npub = 4, npriv = sizeof priv / sizeof priv[0];

    if (spec->type == KEYS_RSA) {
        pub[npub++] = (CK_ATTRIBUTE)ATTR(CKA_MODULUS_BITS, bits);
        pub[npub++] = (CK_ATTRIBUTE){ CKA_PUBLIC_EXPONENT, exponent, sizeof exponent };
    } else {
        size_t oidlen;
        const unsigned char *oid = keys_curve_oid(spec->curve, &oidlen);
        if (!oid)
            return CKR_CURVE_NOT_SUPPORTED;
        pub[2] = (CK_ATTRIBUTE){ CKA_EC_PARAMS, (void *)oid, oidlen };
        /* EC keys do not decrypt: drop CKA_DECRYPT from the private template. */
        priv[4] = (CK_ATTRIBUTE)ATTR(CKA_DERIVE, yes);
    }
    CK_RV rv = fn->C_GenerateKeyPair(s, &mech, pub, npub, priv, npriv, &out->pub, &out->priv);
    if (rv == CKR_OK)
        out->created = 1;
    return rv;
}

static CK_RV gen_secret(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                        keys_handle *out)
{
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE, tok = spec->token ? CK_TRUE : CK_FALSE;
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE kt = spec->type == KEYS_AES ? CKK_AES : CKK_GENERIC_SECRET;
    CK_ULONG bytes = (spec->bits + 7) / 8;
    CK_MECHANISM mech = { keys_gen_mechanism(spec->type), NULL, 0 };
    const char *label = spec->label ? spec->label : "hsmbench";
    CK_ATTRIBUTE tmpl[12] = {
        ATTR(CKA_CLASS, cls), ATTR(CKA_KEY_TYPE, kt), ATTR(CKA_TOKEN, tok),
        ATTR(CKA_PRIVATE, yes), ATTR(CKA_SENSITIVE, yes), ATTR(CKA_EXTRACTABLE, no),
        ATTR(CKA_VALUE_LEN, bytes), { CKA_LABEL, (void *)label, strlen(label) },
    };
    CK_ULONG n = 8;
    /* Ask only for the uses the key has: strict HSMs refuse the others. */
    if (spec->type == KEYS_GENERIC) {
        tmpl[n++] = (CK_ATTRIBUTE)ATTR(CKA_SIGN, yes);
        tmpl[n++] = (CK_ATTRIBUTE)ATTR(CKA_VERIFY, yes);
    } else {
        tmpl[n++] = (CK_ATTRIBUTE)ATTR(CKA_ENCRYPT, yes);
        tmpl[n++] = (CK_ATTRIBUTE)ATTR(CKA_DECRYPT, yes);
    }
    CK_RV rv = fn->C_GenerateKey(s, &mech, tmpl, n, &out->priv);
    if (rv == CKR_OK)
        out->created = 1;
    return rv;
}

CK_RV keys_generate(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, const keys_spec *spec,
                    keys_handle *out)
{
    memset(out, 0, sizeof *out);
    switch (spec->type) {
    case KEYS_RSA:
    case KEYS_EC:
        return gen_pair(fn, s, spec, out);
    case KEYS_AES:
    case KEYS_GENERIC:
        return gen_secret(fn, s, spec, out);
    case KEYS_NONE:
        break;
    }
    return CKR_OK;
}

CK_RV keys_destroy(CK_FUNCTION_LIST *fn, CK_SESSION_HANDLE s, keys_handle *k)
{
    CK_RV first = CKR_OK, rv;

    if (!k->created)
        return CKR_OK;
    if (k->priv) {
        rv = fn->C_DestroyObject(s, k->priv);
        if (rv != CKR_OK)
            first = rv;
    }
    if (k->pub) {
        rv = fn->C_DestroyObject(s, k->pub);
        if (rv != CKR_OK && first == CKR_OK)
            first = rv;
    }
    memset(k, 0, sizeof *k);
    return first;
}

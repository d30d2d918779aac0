/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/truststore.c - PEM, PKCS#12 and Java (JKS, JCEKS) trust stores. */
#include "rest/transport/truststore.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include "bench/util/cli.h"

#define STORE_MAX (16u << 20)   /* a trust store of every public CA is under 1 MB */

/* JKS and JCEKS start with these four bytes. */
static int is_java(const unsigned char *b, size_t n)
{
    static const unsigned char jks[4] = { 0xfe, 0xed, 0xfe, 0xed }, jceks[4] = { 0xce, 0xce, 0xce, 0xce };
    return n >= 4 && (memcmp(b, jks, 4) == 0 || memcmp(b, jceks, 4) == 0);
}

/* A Java keystore `path`, JKS or JCEKS by its first byte `b0`, that
 * `what` ("which OpenSSL cannot read", ...): keytool's conversion. */
static void java_hint(const char *flag, const char *path, unsigned char b0, const char *what,
                      char *why, size_t len)
{
    snprintf(why, len, "%s %s: a Java keystore (%s) %s: convert it with "
             "keytool -importkeystore -srckeystore %s -destkeystore store.p12 -deststoretype PKCS12, "
             "then give store.p12", flag, path, b0 == 0xfe ? "JKS" : "JCEKS", what, path);
}

int rest_trust_jks_hint(const char *flag, const char *path, char *why, size_t len)
{
    unsigned char b[4];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    const size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (!is_java(b, n))
        return 0;
    java_hint(flag, path, b[0], "which OpenSSL cannot read", why, len);
    return 1;
}

/* The certificates `certs` of the store, as PEM in a private temporary
 * file, the store's kind kept for the note.  0, or -1 printed. */
static int write_pem(const char *flag, const char *path, STACK_OF(X509) *certs, const char *kind,
                     rest_trust_store *ts)
{
    const char *dir = getenv("TMPDIR");
    FILE *out = NULL;
    int n = 0;

    snprintf(ts->path, sizeof ts->path, "%s/hsmbench-trust-XXXXXX", dir && *dir ? dir : "/tmp");
    const int fd = mkstemp(ts->path);          /* mode 0600 */
    if (fd < 0 || !(out = fdopen(fd, "w"))) {
        bench_error("%s %s: cannot write its certificates as PEM in %s", flag, path,
                    dir && *dir ? dir : "/tmp");
        if (fd >= 0) {
            close(fd);
            unlink(ts->path);
        }
        return -1;
    }
    ts->temp = 1;
    for (int i = 0; i < sk_X509_num(certs); i++)
        if (PEM_write_X509(out, sk_X509_value(certs, i)))
            n++;
    if (fclose(out) != 0 || n != sk_X509_num(certs)) {
        bench_error("%s %s: cannot write its certificates as PEM", flag, path);
        return -1;
    }
    ts->kind = kind;
    return 0;
}

/* The certificates of a PKCS#12 store without a password.  0, or -1 printed. */
static int p12_to_pem(const char *flag, const char *path, const unsigned char *der, size_t len,
                      rest_trust_store *ts)
{
    const unsigned char *p = der;
    PKCS12 *p12 = d2i_PKCS12(NULL, &p, (long)len);
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    STACK_OF(X509) *ca = NULL;
    int rc = -1;

    if (!p12) {
        bench_error("%s %s: neither PEM certificates, a PKCS#12 store nor a Java keystore", flag, path);
        goto cleanup;
    }
    if (!PKCS12_parse(p12, "", &key, &cert, &ca) && !PKCS12_parse(p12, NULL, &key, &cert, &ca)) {
        bench_error("%s %s: a PKCS#12 store with a password: openssl pkcs12 -in %s -nokeys "
                    "-out ca.pem (it asks for it), then give --cacert ca.pem", flag, path, path);
        goto cleanup;
    }
    if (!ca && !(ca = sk_X509_new_null())) {
        bench_error("%s %s: out of memory", flag, path);
        goto cleanup;
    }
    if (cert) {
        if (!sk_X509_insert(ca, cert, 0)) {
            bench_error("%s %s: out of memory", flag, path);
            goto cleanup;
        }
        cert = NULL;                       /* ca holds it now */
    }
    if (sk_X509_num(ca) == 0) {
        bench_error("%s %s: the PKCS#12 store holds no certificate", flag, path);
        goto cleanup;
    }
    rc = write_pem(flag, path, ca, "PKCS#12", ts);
cleanup:
    if (rc != 0)
        rest_trust_store_close(ts);
    EVP_PKEY_free(key);
    X509_free(cert);
    sk_X509_pop_free(ca, X509_free);
    PKCS12_free(p12);
    return rc;
}

/* ---- Java keystores ---------------------------------------------------- */
/* The layout of sun.security.provider.JavaKeyStore (JKS) and JceKeyStore
 * (JCEKS), big-endian: magic, version (1 or 2), the entry count, then each
 * entry: a tag (1 a private key, 2 a trusted certificate, 3 a JCEKS secret
 * key), its alias and date, then for a private key its encrypted bytes and
 * its chain, for a trusted certificate the certificate (version 2 names its
 * type first: "X.509"); a SHA-1 digest ends the file.  Java builds its trust
 * anchors from the trusted certificates alone, and checks the digest only
 * when given the store's password (javax.net.ssl.trustStorePassword): so
 * here, with no password, the trusted certificates are read and the digest
 * is not checked, as Java reads a trust store whose password is not set. */
typedef struct jks_reader {
    const unsigned char *p;
    size_t left;
} jks_reader;

static int jks_bytes(jks_reader *r, size_t n, const unsigned char **out)
{
    if (n > r->left)
        return -1;
    if (out)
        *out = r->p;
    r->p += n;
    r->left -= n;
    return 0;
}

static int jks_u32(jks_reader *r, uint32_t *v)
{
    const unsigned char *b;
    if (jks_bytes(r, 4, &b) != 0)
        return -1;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return 0;
}

/* A Java writeUTF string: a 16-bit length, then its bytes; *is_x509 (if
 * given) says whether it is "X.509". */
static int jks_utf(jks_reader *r, int *is_x509)
{
    const unsigned char *b;
    if (jks_bytes(r, 2, &b) != 0)
        return -1;
    const size_t n = (size_t)b[0] << 8 | b[1];
    if (jks_bytes(r, n, &b) != 0)
        return -1;
    if (is_x509)
        *is_x509 = n == 5 && memcmp(b, "X.509", 5) == 0;
    return 0;
}

/* One certificate: its type (version 2), its length, its DER; pushed onto
 * `certs` when given, else skipped.  NULL, or why it cannot be read. */
static const char *jks_cert(jks_reader *r, uint32_t version, STACK_OF(X509) *certs)
{
    int x509 = 1;
    uint32_t n;
    const unsigned char *der;
    if ((version == 2 && jks_utf(r, &x509) != 0) || jks_u32(r, &n) != 0 || jks_bytes(r, n, &der) != 0)
        return "cut short";
    if (!x509)
        return "a certificate that is not X.509";
    if (!certs)
        return NULL;
    X509 *c = d2i_X509(NULL, &der, (long)n);
    if (!c)
        return "a certificate OpenSSL cannot parse";
    if (!sk_X509_push(certs, c)) {
        X509_free(c);
        return "out of memory";
    }
    return NULL;
}

/* One entry: a trusted certificate pushed onto `certs`, a private key's
 * entry skipped.  NULL, or why it cannot be read. */
static const char *jks_entry(jks_reader *r, uint32_t version, STACK_OF(X509) *certs)
{
    uint32_t tag, n;
    if (jks_u32(r, &tag) != 0 || jks_utf(r, NULL) != 0 || jks_bytes(r, 8, NULL) != 0)
        return "cut short";
    if (tag == 2)
        return jks_cert(r, version, certs);
    if (tag != 1)
        return tag == 3 ? "a secret key, which only Java can step over" : "an entry of no known kind";
    if (jks_u32(r, &n) != 0 || jks_bytes(r, n, NULL) != 0 || jks_u32(r, &n) != 0)
        return "cut short";
    for (uint32_t i = 0; i < n; i++) {
        const char *why = jks_cert(r, version, NULL);
        if (why)
            return why;
    }
    return NULL;
}

/* The trusted certificates of a JKS or JCEKS store.  0, or -1 printed. */
static int java_to_pem(const char *flag, const char *path, const unsigned char *b, size_t len,
                       rest_trust_store *ts)
{
    jks_reader r = { b + 4, len - 4 };
    STACK_OF(X509) *certs = sk_X509_new_null();
    const char *kind = b[0] == 0xfe ? "JKS" : "JCEKS";
    const char *why = NULL;
    uint32_t version = 0, count = 0, e = 0;
    int rc = -1;

    if (!certs) {
        bench_error("%s %s: out of memory", flag, path);
        goto cleanup;
    }
    if (jks_u32(&r, &version) != 0 || jks_u32(&r, &count) != 0)
        why = "its header cut short";
    else if (version != 1 && version != 2)
        why = "a version other than 1 and 2";
    for (e = 0; !why && e < count; e++)
        why = jks_entry(&r, version, certs);
    if (why) {
        char what[160], hint[1024];
        if (e)
            snprintf(what, sizeof what, "hsmbench cannot read (entry %u of %u: %s)", e, count, why);
        else
            snprintf(what, sizeof what, "hsmbench cannot read (%s)", why);
        java_hint(flag, path, b[0], what, hint, sizeof hint);
        bench_error("%s", hint);
        goto cleanup;
    }
    if (sk_X509_num(certs) == 0) {
        bench_error("%s %s: the Java keystore (%s) holds no trusted certificate", flag, path, kind);
        goto cleanup;
    }
    rc = write_pem(flag, path, certs, kind, ts);
cleanup:
    if (rc != 0)
        rest_trust_store_close(ts);
    sk_X509_pop_free(certs, X509_free);
    return rc;
}

int rest_trust_store_open(const char *flag, const char *path, rest_trust_store *ts)
{
    char *buf = NULL;
    size_t len = 0;
    memset(ts, 0, sizeof *ts);
    if (bench_read_file(flag, path, STORE_MAX, &buf, &len) != 0)
        return -1;
    int rc = 0;
    if (is_java((const unsigned char *)buf, len)) {
        rc = java_to_pem(flag, path, (const unsigned char *)buf, len, ts);
    } else if (memmem(buf, len, "-----BEGIN CERTIFICATE-----", 27)) {
        snprintf(ts->path, sizeof ts->path, "%s", path);
        ts->kind = "PEM";
    } else {
        rc = p12_to_pem(flag, path, (const unsigned char *)buf, len, ts);
    }
    free(buf);
    return rc;
}

void rest_trust_store_close(rest_trust_store *ts)
{
    if (ts->temp)
        unlink(ts->path);
    ts->temp = 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/truststore.c - PEM, PKCS#12 and Java trust stores. */
#include "rest/transport/truststore.h"

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

static void java_hint(const char *flag, const char *path, char *why, size_t len)
{
    snprintf(why, len, "%s %s: a Java keystore (JKS), which OpenSSL cannot read: convert it with "
             "keytool -importkeystore -srckeystore %s -destkeystore store.p12 -deststoretype PKCS12, "
             "then give store.p12", flag, path, path);
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
    java_hint(flag, path, why, len);
    return 1;
}

/* The certificates of a PKCS#12 store without a password, as PEM in a
 * private temporary file.  0, or -1 printed. */
static int p12_to_pem(const char *flag, const char *path, const unsigned char *der, size_t len,
                      rest_trust_store *ts)
{
    const unsigned char *p = der;
    PKCS12 *p12 = d2i_PKCS12(NULL, &p, (long)len);
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    STACK_OF(X509) *ca = NULL;
    FILE *out = NULL;
    int rc = -1, fd = -1, n = 0;

    if (!p12) {
        bench_error("%s %s: neither PEM certificates, a PKCS#12 store nor a Java keystore", flag, path);
        goto cleanup;
    }
    if (!PKCS12_parse(p12, "", &key, &cert, &ca) && !PKCS12_parse(p12, NULL, &key, &cert, &ca)) {
        bench_error("%s %s: a PKCS#12 store with a password: openssl pkcs12 -in %s -nokeys "
                    "-out ca.pem (it asks for it), then give --cacert ca.pem", flag, path, path);
        goto cleanup;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(ts->path, sizeof ts->path, "%s/hsmbench-trust-XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(ts->path);          /* mode 0600 */
    if (fd < 0 || !(out = fdopen(fd, "w"))) {
        bench_error("%s %s: cannot write its certificates as PEM in %s", flag, path,
                    dir && *dir ? dir : "/tmp");
        if (fd >= 0) {
            close(fd);
            unlink(ts->path);
        }
        goto cleanup;
    }
    ts->temp = 1;
    if (cert && PEM_write_X509(out, cert))
        n++;
    for (int i = 0; ca && i < sk_X509_num(ca); i++)
        if (PEM_write_X509(out, sk_X509_value(ca, i)))
            n++;
    if (fclose(out) != 0 || n == 0) {
        bench_error("%s %s: %s", flag, path, n ? "cannot write its certificates as PEM"
                                               : "the PKCS#12 store holds no certificate");
        goto cleanup;
    }
    ts->kind = "PKCS#12";
    rc = 0;
cleanup:
    if (rc != 0)
        rest_trust_store_close(ts);
    EVP_PKEY_free(key);
    X509_free(cert);
    sk_X509_pop_free(ca, X509_free);
    PKCS12_free(p12);
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
        char why[1024];
        java_hint(flag, path, why, sizeof why);
        bench_error("%s", why);
        rc = -1;
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

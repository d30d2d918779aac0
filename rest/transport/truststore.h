/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/truststore.h - a trust store the old tools name, made a
 * PEM file of CAs that both HTTP engines read as --cacert. */
#ifndef REST_TRUSTSTORE_H
#define REST_TRUSTSTORE_H

#include <stddef.h>

typedef struct rest_trust_store {
    char path[4096];   /* the PEM file to trust: the store itself, or our copy */
    int  temp;         /* path is a private temporary file: ours to remove */
    const char *kind;  /* "PEM", "PKCS#12", "JKS" or "JCEKS" */
} rest_trust_store;

/* A Java keystore's one-line conversion, when the file is one (JKS or
 * JCEKS by its magic number): written into why; 1 if it is, 0 if not (or
 * unreadable: the caller's own check says so). */
int rest_trust_jks_hint(const char *flag, const char *path, char *why, size_t len);

/*
 * The trust store `path` named by `flag` (the SDKMS bench's
 * SDKMS_SSL_TRUST_STORE): PEM certificates are used as they are; a
 * PKCS#12 store without a password, and a Java keystore's (JKS, JCEKS)
 * trusted certificates, read as Java reads a trust store whose password is
 * not set, are written as PEM into a private temporary file (libcurl and
 * the lean engine read CAs from a PEM file); a PKCS#12 store with a
 * password, or a Java keystore that cannot be read (a JCEKS secret key), is
 * one line saying how to convert it.  0, or -1 with one line printed.
 */
int rest_trust_store_open(const char *flag, const char *path, rest_trust_store *ts);
/* Remove the temporary copy, if any. */
void rest_trust_store_close(rest_trust_store *ts);

#endif

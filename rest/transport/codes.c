/* SPDX-License-Identifier: Apache-2.0 */
/* rest/transport/codes.c - error classes and their names. */
#include "rest/transport/codes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <curl/curl.h>

static const char *const class_names[] = {
    [REST_E_TIMEOUT - REST_CODE_CLASS_BASE] = "TIMEOUT",
    [REST_E_CONNECT_REFUSED - REST_CODE_CLASS_BASE] = "CONNECT_REFUSED",
    [REST_E_CONNECT_FAILED - REST_CODE_CLASS_BASE] = "CONNECT_FAILED",
    [REST_E_DNS - REST_CODE_CLASS_BASE] = "DNS",
    [REST_E_TLS - REST_CODE_CLASS_BASE] = "TLS",
    [REST_E_CONNECTION_RESET - REST_CODE_CLASS_BASE] = "CONNECTION_RESET",
    [REST_E_EMPTY_REPLY - REST_CODE_CLASS_BASE] = "EMPTY_REPLY",
    [REST_E_TRUNCATED - REST_CODE_CLASS_BASE] = "TRUNCATED",
    [REST_E_TOO_LARGE - REST_CODE_CLASS_BASE] = "TOO_LARGE",
    [REST_E_INTERRUPTED - REST_CODE_CLASS_BASE] = "INTERRUPTED",
    [REST_E_BAD_JSON - REST_CODE_CLASS_BASE] = "BAD_JSON",
    [REST_E_MISSING_FIELD - REST_CODE_CLASS_BASE] = "MISSING_FIELD",
    [REST_E_BAD_BASE64 - REST_CODE_CLASS_BASE] = "BAD_BASE64",
    [REST_E_ROUNDTRIP_MISMATCH - REST_CODE_CLASS_BASE] = "ROUNDTRIP_MISMATCH",
    [REST_E_VERIFY_FALSE - REST_CODE_CLASS_BASE] = "VERIFY_FALSE",
    [REST_E_HEADER_TOO_LARGE - REST_CODE_CLASS_BASE] = "HEADER_TOO_LARGE",
    [REST_E_BAD_VALUE - REST_CODE_CLASS_BASE] = "BAD_VALUE",
    [REST_E_HTTP2_FRAMING - REST_CODE_CLASS_BASE] = "HTTP2_FRAMING",
    [REST_E_HTTP2_STREAM - REST_CODE_CLASS_BASE] = "HTTP2_STREAM",
    [REST_E_BAD_CHUNK - REST_CODE_CLASS_BASE] = "BAD_CHUNK",
};

/* The CURLcode names a benchmark meets; the rest print as CURLE_<n>. */
static const struct { int code; const char *name; } curl_names[] = {
    { CURLE_UNSUPPORTED_PROTOCOL, "CURLE_UNSUPPORTED_PROTOCOL" },
    { CURLE_FAILED_INIT, "CURLE_FAILED_INIT" },
    { CURLE_URL_MALFORMAT, "CURLE_URL_MALFORMAT" },
    { CURLE_NOT_BUILT_IN, "CURLE_NOT_BUILT_IN" },
    { CURLE_COULDNT_RESOLVE_PROXY, "CURLE_COULDNT_RESOLVE_PROXY" },
    { CURLE_COULDNT_RESOLVE_HOST, "CURLE_COULDNT_RESOLVE_HOST" },
    { CURLE_COULDNT_CONNECT, "CURLE_COULDNT_CONNECT" },
    { CURLE_WEIRD_SERVER_REPLY, "CURLE_WEIRD_SERVER_REPLY" },
    { CURLE_HTTP2, "CURLE_HTTP2" },
    { CURLE_PARTIAL_FILE, "CURLE_PARTIAL_FILE" },
    { CURLE_HTTP_RETURNED_ERROR, "CURLE_HTTP_RETURNED_ERROR" },
    { CURLE_WRITE_ERROR, "CURLE_WRITE_ERROR" },
    { CURLE_READ_ERROR, "CURLE_READ_ERROR" },
    { CURLE_OUT_OF_MEMORY, "CURLE_OUT_OF_MEMORY" },
    { CURLE_OPERATION_TIMEDOUT, "CURLE_OPERATION_TIMEDOUT" },
    { CURLE_RANGE_ERROR, "CURLE_RANGE_ERROR" },
    { CURLE_SSL_CONNECT_ERROR, "CURLE_SSL_CONNECT_ERROR" },
    { CURLE_BAD_DOWNLOAD_RESUME, "CURLE_BAD_DOWNLOAD_RESUME" },
    { CURLE_FUNCTION_NOT_FOUND, "CURLE_FUNCTION_NOT_FOUND" },
    { CURLE_ABORTED_BY_CALLBACK, "CURLE_ABORTED_BY_CALLBACK" },
    { CURLE_BAD_FUNCTION_ARGUMENT, "CURLE_BAD_FUNCTION_ARGUMENT" },
    { CURLE_INTERFACE_FAILED, "CURLE_INTERFACE_FAILED" },
    { CURLE_TOO_MANY_REDIRECTS, "CURLE_TOO_MANY_REDIRECTS" },
    { CURLE_UNKNOWN_OPTION, "CURLE_UNKNOWN_OPTION" },
    { CURLE_GOT_NOTHING, "CURLE_GOT_NOTHING" },
    { CURLE_SSL_ENGINE_NOTFOUND, "CURLE_SSL_ENGINE_NOTFOUND" },
    { CURLE_SSL_ENGINE_SETFAILED, "CURLE_SSL_ENGINE_SETFAILED" },
    { CURLE_SEND_ERROR, "CURLE_SEND_ERROR" },
    { CURLE_RECV_ERROR, "CURLE_RECV_ERROR" },
    { CURLE_SSL_CERTPROBLEM, "CURLE_SSL_CERTPROBLEM" },
    { CURLE_SSL_CIPHER, "CURLE_SSL_CIPHER" },
    { CURLE_PEER_FAILED_VERIFICATION, "CURLE_PEER_FAILED_VERIFICATION" },
    { CURLE_BAD_CONTENT_ENCODING, "CURLE_BAD_CONTENT_ENCODING" },
    { CURLE_FILESIZE_EXCEEDED, "CURLE_FILESIZE_EXCEEDED" },
    { CURLE_SEND_FAIL_REWIND, "CURLE_SEND_FAIL_REWIND" },
    { CURLE_SSL_ENGINE_INITFAILED, "CURLE_SSL_ENGINE_INITFAILED" },
    { CURLE_LOGIN_DENIED, "CURLE_LOGIN_DENIED" },
    { CURLE_SSL_CACERT_BADFILE, "CURLE_SSL_CACERT_BADFILE" },
    { CURLE_SSL_SHUTDOWN_FAILED, "CURLE_SSL_SHUTDOWN_FAILED" },
    { CURLE_AGAIN, "CURLE_AGAIN" },
    { CURLE_SSL_CRL_BADFILE, "CURLE_SSL_CRL_BADFILE" },
    { CURLE_SSL_ISSUER_ERROR, "CURLE_SSL_ISSUER_ERROR" },
    { CURLE_CHUNK_FAILED, "CURLE_CHUNK_FAILED" },
    { CURLE_NO_CONNECTION_AVAILABLE, "CURLE_NO_CONNECTION_AVAILABLE" },
    { CURLE_SSL_PINNEDPUBKEYNOTMATCH, "CURLE_SSL_PINNEDPUBKEYNOTMATCH" },
    { CURLE_SSL_INVALIDCERTSTATUS, "CURLE_SSL_INVALIDCERTSTATUS" },
    { CURLE_HTTP2_STREAM, "CURLE_HTTP2_STREAM" },
    { CURLE_RECURSIVE_API_CALL, "CURLE_RECURSIVE_API_CALL" },
    { CURLE_AUTH_ERROR, "CURLE_AUTH_ERROR" },
    { CURLE_HTTP3, "CURLE_HTTP3" },
    { CURLE_SSL_CLIENTCERT, "CURLE_SSL_CLIENTCERT" },
};

/* "CURLE_OPERATION_TIMEDOUT" for a CURLcode; NULL when unknown. */
static const char *curl_code_name(int curlcode)
{
    for (size_t i = 0; i < sizeof curl_names / sizeof curl_names[0]; i++)
        if (curl_names[i].code == curlcode)
            return curl_names[i].name;
    return NULL;
}

long rest_code_http_status(bench_code code)
{
    if (code >= REST_CODE_HTTP_BASE + 100 && code < REST_CODE_HTTP_BASE + 1000)
        return (long)(code - REST_CODE_HTTP_BASE);
    return 0;
}

/* A receive or send error that is really the peer's TLS alert (TLS 1.3
 * checks the client certificate after the client thinks the handshake is
 * done, so a refused certificate surfaces on the first read). */
static int tls_text(const char *errbuf)
{
    return errbuf && (strstr(errbuf, "alert") || strstr(errbuf, "SSL routines") ||
                      strstr(errbuf, "certificate"));
}

bench_code rest_code_from_curl(int cc, long os_errno, const char *errbuf)
{
    switch (cc) {
    case CURLE_OK:
        return BENCH_OK;
    case CURLE_OPERATION_TIMEDOUT:
        return REST_E_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
        return os_errno == ECONNREFUSED ? REST_E_CONNECT_REFUSED : REST_E_CONNECT_FAILED;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return REST_E_DNS;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_CRL_BADFILE:
        return REST_E_TLS;
    case CURLE_RECV_ERROR:
        /* libcurl's receive errors that are the answer's, not the
         * connection's (the lean engine has codes of its own for them). */
        if (errbuf && strncmp(errbuf, "Too large response headers", 26) == 0)
            return REST_E_HEADER_TOO_LARGE;
        if (errbuf && strstr(errbuf, " in chunked-encoding"))
            return REST_E_BAD_CHUNK;
        return tls_text(errbuf) ? REST_E_TLS : REST_E_CONNECTION_RESET;
    case CURLE_SEND_ERROR:
        return tls_text(errbuf) ? REST_E_TLS : REST_E_CONNECTION_RESET;
    case CURLE_GOT_NOTHING:
        return REST_E_EMPTY_REPLY;
    case CURLE_PARTIAL_FILE:
        return REST_E_TRUNCATED;
    case CURLE_FILESIZE_EXCEEDED:
        return REST_E_TOO_LARGE;
    case CURLE_ABORTED_BY_CALLBACK:
        return REST_E_INTERRUPTED;
    case CURLE_HTTP2:
        return REST_E_HTTP2_FRAMING;
    case CURLE_HTTP2_STREAM:
        return REST_E_HTTP2_STREAM;
    default:
        return (bench_code)(REST_CODE_CURL_BASE + (unsigned)cc);
    }
}

bench_code rest_code_from_lean(rest_lean_rc rc, long os_errno, const char *errbuf)
{
    switch (rc) {
    case REST_LEAN_OK:               return BENCH_OK;
    case REST_LEAN_TIMEOUT:          return REST_E_TIMEOUT;
    case REST_LEAN_CONNECT:
        return os_errno == ECONNREFUSED ? REST_E_CONNECT_REFUSED : REST_E_CONNECT_FAILED;
    case REST_LEAN_RESOLVE:          return REST_E_DNS;
    case REST_LEAN_TLS:
    case REST_LEAN_PEER_UNVERIFIED:
    case REST_LEAN_CA_FILE:
    case REST_LEAN_CLIENT_CERT:      return REST_E_TLS;
    case REST_LEAN_RECV:
    case REST_LEAN_SEND:             return tls_text(errbuf) ? REST_E_TLS : REST_E_CONNECTION_RESET;
    case REST_LEAN_EMPTY:            return REST_E_EMPTY_REPLY;
    case REST_LEAN_PARTIAL:          return REST_E_TRUNCATED;
    case REST_LEAN_HEADER_TOO_LARGE: return REST_E_HEADER_TOO_LARGE;
    case REST_LEAN_BAD_CHUNK:        return REST_E_BAD_CHUNK;
    case REST_LEAN_ABORTED:          return REST_E_INTERRUPTED;
    /* No class of their own: libcurl's code for the same, named as libcurl names it. */
    case REST_LEAN_NO_MEMORY:        return REST_CODE_CURL_BASE + CURLE_OUT_OF_MEMORY;
    case REST_LEAN_BAD_VERSION:      return REST_CODE_CURL_BASE + CURLE_UNSUPPORTED_PROTOCOL;
    case REST_LEAN_BAD_ANSWER:       return REST_CODE_CURL_BASE + CURLE_WEIRD_SERVER_REPLY;
    case REST_LEAN_SINK:             return REST_CODE_CURL_BASE + CURLE_WRITE_ERROR;
    case REST_LEAN_IDLE:             return REST_CODE_CURL_BASE + CURLE_FAILED_INIT;
    }
    return REST_CODE_CURL_BASE + CURLE_FAILED_INIT;
}

void rest_code_name(bench_code code, char *buf, size_t len)
{
    long status = rest_code_http_status(code);
    if (status) {
        snprintf(buf, len, "HTTP %ld", status);
    } else if (code > REST_CODE_CLASS_BASE && code < REST_E_CLASS_END) {
        snprintf(buf, len, "%s", class_names[code - REST_CODE_CLASS_BASE]);
    } else if (code >= REST_CODE_CURL_BASE && code < REST_CODE_CLASS_BASE) {
        const char *n = curl_code_name((int)(code - REST_CODE_CURL_BASE));
        if (n)
            snprintf(buf, len, "%s", n);
        else
            snprintf(buf, len, "CURLE_%u", (unsigned)(code - REST_CODE_CURL_BASE));
    } else {
        snprintf(buf, len, "code %llu", (unsigned long long)code);
    }
}

void rest_code_namer(const void *ctx, bench_code code, char *buf, size_t len)
{
    (void)ctx;
    rest_code_name(code, buf, len);
}

int rest_code_is_transient(bench_code code)
{
    long status = rest_code_http_status(code);
    if (status)
        return status >= 500 || status == 429 || status == 408;
    switch (code) {
    case REST_E_TIMEOUT:
    case REST_E_CONNECTION_RESET:
    case REST_E_EMPTY_REPLY:
    case REST_E_TRUNCATED:
    case REST_E_BAD_JSON:
    case REST_E_MISSING_FIELD:
    case REST_E_BAD_BASE64:
    case REST_E_ROUNDTRIP_MISMATCH:
    case REST_E_VERIFY_FALSE:
    case REST_E_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

int rest_code_is_fatal_setup(bench_code code)
{
    long status = rest_code_http_status(code);
    if (status)
        return status == 401 || status == 403;
    return code == REST_E_TLS || code == REST_E_CONNECT_REFUSED || code == REST_E_CONNECT_FAILED ||
           code == REST_E_DNS;
}

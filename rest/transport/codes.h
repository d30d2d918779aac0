/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rest/transport/codes.h - why a REST operation failed, as one bench_code.
 *
 * The timing core counts errors by code and asks the workload to name them,
 * so every distinct cause gets a code of its own, in three plain ranges:
 *
 *   1000 + status    an HTTP status the operation did not expect: "HTTP 503"
 *   2000 + CURLcode  a libcurl failure with no class below: "CURLE_SEND_FAIL_REWIND"
 *   3000 + n         a class: a transport failure (TIMEOUT, CONNECT_REFUSED,
 *                    TLS, ...) or a bad answer (BAD_JSON, MISSING_FIELD, ...)
 *
 * The numbers are small on purpose: they read well in a debugger and stay
 * far below BENCH_CODE_CORE.
 */
#ifndef REST_CODES_H
#define REST_CODES_H

#include <stddef.h>

#include "bench/core/workload.h"
#include "rest/transport/lean.h"

#define REST_CODE_HTTP_BASE  1000u
#define REST_CODE_CURL_BASE  2000u
#define REST_CODE_CLASS_BASE 3000u

enum {
    /* transport */
    REST_E_TIMEOUT = REST_CODE_CLASS_BASE + 1,  /* --timeout passed */
    REST_E_CONNECT_REFUSED,    /* nothing listens there (ECONNREFUSED) */
    REST_E_CONNECT_FAILED,     /* no route, unreachable, connect timed out */
    REST_E_DNS,                /* the host name does not resolve */
    REST_E_TLS,                /* handshake, certificate or verification failure, TLS alert */
    REST_E_CONNECTION_RESET,   /* the connection broke while sending or receiving */
    REST_E_EMPTY_REPLY,        /* closed without a byte of answer */
    REST_E_TRUNCATED,          /* the body ended before its Content-Length */
    REST_E_TOO_LARGE,          /* a response body over the client's limit */
    REST_E_INTERRUPTED,        /* abandoned in flight by Ctrl-C */
    /* the answer */
    REST_E_BAD_JSON,           /* not JSON, truncated JSON, or not an object */
    REST_E_MISSING_FIELD,      /* a field the operation needs is absent or of the wrong type */
    REST_E_BAD_BASE64,         /* a binary field is not valid base64 */
    REST_E_ROUNDTRIP_MISMATCH, /* unwrap/decrypt did not give back the plaintext */
    REST_E_VERIFY_FALSE,       /* verify answered "result": false for a good signature */
    REST_E_HEADER_TOO_LARGE,   /* a header line over 100 KiB, or 300 KiB of headers and trailers (not "out of memory") */
    REST_E_BAD_VALUE,          /* a value to send back (token, kid) holds a control character or what cannot go in its place */
    /* HTTP/2 (--http2) */
    REST_E_HTTP2_FRAMING,      /* the connection's HTTP/2 framing failed (CURLE_HTTP2) */
    REST_E_HTTP2_STREAM,       /* one stream reset or broken (CURLE_HTTP2_STREAM) */
    REST_E_BAD_CHUNK,          /* a chunk size that is not one, too large, or a size line past the limit */
    REST_E_CLASS_END,
};

/* The code of an HTTP status (100..999, the three digits HTTP allows). */
static inline bench_code rest_code_http(long status)
{
    return (bench_code)(REST_CODE_HTTP_BASE + (unsigned long)status);
}

/* The HTTP status a code stands for, or 0 when it is not an HTTP code. */
long rest_code_http_status(bench_code code);

/*
 * Classify a libcurl failure.  os_errno is CURLINFO_OS_ERRNO (tells a
 * refused connection from an unreachable one); errbuf is the transfer's
 * CURLOPT_ERRORBUFFER text or NULL (tells a TLS alert from a plain reset).
 */
bench_code rest_code_from_curl(int curlcode, long os_errno, const char *errbuf);
/*
 * Classify the lean engine's failure (rest/transport/lean.h) into the same
 * codes libcurl's gets for the same event, so that a run's errors read the
 * same whichever engine sent: os_errno and errbuf as above.
 */
bench_code rest_code_from_lean(rest_lean_rc rc, long os_errno, const char *errbuf);

/* "HTTP 503", "TIMEOUT", "CURLE_SEND_FAIL_REWIND", "code 42". */
void rest_code_name(bench_code code, char *buf, size_t len);
/* The same with the bench_workload.code_name signature (ctx unused). */
void rest_code_namer(const void *ctx, bench_code code, char *buf, size_t len);

/* Worth trying again during set-up: 5xx, 429, timeouts, resets, bad answers. */
int rest_code_is_transient(bench_code code);
/* The endpoint, TLS or credentials are wrong: HTTP 401/403, TLS, refused,
 * unreachable, DNS.  These end a run at set-up with exit status 3. */
int rest_code_is_fatal_setup(bench_code code);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* bench/util/b64.c - strict base64, both alphabets in, the standard one out. */
#include "bench/util/b64.h"

#include <stdlib.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0..63 for a digit of either alphabet, 64 for '=', 255 for anything else:
 * one load a character instead of a chain of range tests. */
#define X 255
static const uint8_t digits[256] = {
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, 62, X, 62, X, 63,          /* + - / */
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, X, X, X, 64, X, X,  /* 0-9 = */
    X, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, X, X, X, X, 63, /* _ */
    X, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
};
#undef X

static unsigned digit(unsigned char c)
{
    return digits[c];
}

size_t bench_b64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t bench_b64_decoded_max(size_t len)
{
    return (len + 3) / 4 * 3;
}

size_t bench_b64_encode(const uint8_t *in, size_t n, char *out)
{
    size_t i = 0, o = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = 0;
    return o;
}

char *bench_b64_encode_alloc(const uint8_t *in, size_t n)
{
    char *s = malloc(bench_b64_encoded_len(n) + 1);
    if (s)
        bench_b64_encode(in, n, s);
    return s;
}

/* Trailing '=' of in[0..len), at most three (three are already too many). */
static size_t trailing_pad(const char *in, size_t len)
{
    size_t pad = 0;
    while (pad < len && pad < 3 && in[len - 1 - pad] == '=')
        pad++;
    return pad;
}

int bench_b64_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *outlen)
{
    const size_t pad = trailing_pad(in, len);
    size_t o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;

    len -= pad;
    if (!bench_b64_valid_len(len, pad))
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned d = digit((unsigned char)in[i]);
        if (d > 63)
            return -1;
        acc = acc << 6 | d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap)
                return -1;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    if (outlen)
        *outlen = o;
    return 0;
}

int bench_b64_valid(const char *in, size_t len)
{
    /* Validating only (an answer's check, per request): no output. */
    const size_t pad = trailing_pad(in, len);
    return bench_b64_digits(in, len - pad) == len - pad && bench_b64_valid_len(len - pad, pad);
}

size_t bench_b64_digits(const char *in, size_t n)
{
    const unsigned char *u = (const unsigned char *)in;
    size_t i = 0;
    /* Four at a time: a character outside the digits sets a bit above 63
     * in the OR (every answer's check runs this). */
    while (i + 4 <= n && (digits[u[i]] | digits[u[i + 1]] | digits[u[i + 2]] | digits[u[i + 3]]) < 64)
        i += 4;
    while (i < n && digits[u[i]] < 64)
        i++;
    return i;
}

int bench_b64_valid_len(size_t ndigits, size_t pad)
{
    /* Padding: at most two '=', only to a multiple of 4; and 6 bits (one
     * digit left over) cannot make a byte. */
    if (pad > 2 || (pad && (ndigits + pad) % 4 != 0) || ndigits % 4 == 1)
        return 0;
    /* 6 bits a digit, 8 a byte: the padding must be what the digits leave. */
    return !pad || (ndigits + pad) / 4 * 3 - pad == ndigits * 3 / 4;
}

/* bench/b64.c - strict base64, both alphabets in, the standard one out. */
#include "bench/b64.h"

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

/* Shared by decode and valid: out may be NULL (validate only). */
static int decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *outlen)
{
    size_t pad = 0, o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;

    /* Padding: at most two '=', only at the end, and only to a multiple of 4. */
    while (pad < len && in[len - 1 - pad] == '=')
        pad++;
    if (pad > 2 || (pad && len % 4 != 0))
        return -1;
    len -= pad;
    if (len % 4 == 1)
        return -1;               /* 6 bits cannot make a byte */
    if (!out) {
        /* Validating only (an answer's check, per request): any character
         * outside the alphabets sets a bit above 63 in the OR. */
        unsigned any = 0;
        for (size_t i = 0; i < len; i++)
            any |= digits[(unsigned char)in[i]];
        if (any > 63)
            return -1;
        o = len * 3 / 4;       /* 6 bits a character, 8 a byte */
        if (pad && (len + pad) / 4 * 3 - pad != o)
            return -1;
        if (outlen)
            *outlen = o;
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned d = digit((unsigned char)in[i]);
        if (d > 63)
            return -1;
        acc = acc << 6 | d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (out) {
                if (o >= cap)
                    return -1;
                out[o] = (uint8_t)(acc >> bits);
            }
            o++;
        }
    }
    if (pad && (len + pad) / 4 * 3 - pad != o)
        return -1;
    if (outlen)
        *outlen = o;
    return 0;
}

int bench_b64_decode(const char *in, size_t len, uint8_t *out, size_t cap, size_t *outlen)
{
    return decode(in, len, out, cap, outlen);
}

int bench_b64_valid(const char *in, size_t len)
{
    return decode(in, len, NULL, 0, NULL) == 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* rest/jscan.c - the answer's one field, read without building the document. */
#include "rest/jscan.h"

#include <string.h>

#include "bench/util/b64.h"

#define DEPTH_MAX 32

typedef struct cursor {
    const char *p, *end;
} cursor;

enum { SCAN_OK, SCAN_UNSURE };   /* UNSURE: let jansson decide */

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* 1 for a character a plain string may hold: printable ASCII but '"' and
 * '\\' (a table: the answer's check scans every character of it). */
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const unsigned char plain_char[256] = {
    R16(0), R16(0),
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x20..0x2f: not '"' */
    R16(1), R16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,         /* 0x50..0x5f: not '\\' */
    R16(1), R16(1),
    R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
};
#undef R16

/* A string at c->p: its text, when plain (ASCII, no escapes). */
static int scan_string(cursor *c, const char **s, size_t *n)
{
    if (c->p >= c->end || *c->p != '"')
        return SCAN_UNSURE;
    const char *b = ++c->p, *p = b, *const end = c->end;
    while (p < end && plain_char[(unsigned char)*p])
        p++;
    if (p >= end || *p != '"')
        return SCAN_UNSURE;          /* the end, an escape, a control or non-ASCII byte */
    *s = b;
    *n = (size_t)(p - b);
    c->p = p + 1;
    return SCAN_OK;
}

/* The same for a base64 field: the text read once for both.  *b64 says
 * whether it is valid base64; a string of another shape is scanned again
 * as any string (a character outside the alphabets, padding in the
 * middle or too long: not base64 either way). */
static int scan_b64_string(cursor *c, const char **s, size_t *n, int *b64)
{
    if (c->p >= c->end || *c->p != '"')
        return SCAN_UNSURE;
    const char *b = c->p + 1, *const end = c->end;
    const size_t k = bench_b64_digits(b, (size_t)(end - b));
    const char *p = b + k;
    size_t pad = 0;
    while (pad < 2 && p < end && *p == '=')
        p++, pad++;
    if (p < end && *p == '"') {
        *b64 = bench_b64_valid_len(k, pad);
        *s = b;
        *n = (size_t)(p - b);
        c->p = p + 1;
        return SCAN_OK;
    }
    *b64 = 0;
    return scan_string(c, s, n);
}

static int scan_literal(cursor *c, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return SCAN_UNSURE;
    c->p += n;
    return SCAN_OK;
}

static int scan_value(cursor *c, int depth);

/* An object or array at c->p; in the top object (field != NULL), finds
 * field's string value. */
static int scan_container(cursor *c, int depth, const char *field, size_t flen,
                          const char **val, size_t *vlen, int *found, int *b64)
{
    const int object = *c->p == '{';
    const char close = object ? '}' : ']';
    if (depth > DEPTH_MAX)
        return SCAN_UNSURE;
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return SCAN_OK;
    }
    for (;;) {
        skip_ws(c);
        int r;
        if (object) {
            const char *k;
            size_t kn;
            if ((r = scan_string(c, &k, &kn)) != SCAN_OK)
                return r;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':')
                return SCAN_UNSURE;
            c->p++;
            skip_ws(c);
            if (field && kn == flen && memcmp(k, field, kn) == 0) {
                if (*found || c->p >= c->end || *c->p != '"')
                    return SCAN_UNSURE;   /* repeated (jansson keeps the last), or no string */
                *found = 1;
                r = b64 ? scan_b64_string(c, val, vlen, b64) : scan_string(c, val, vlen);
            } else {
                r = scan_value(c, depth);
            }
        } else {
            r = scan_value(c, depth);
        }
        if (r != SCAN_OK)
            return r;
        skip_ws(c);
        if (c->p >= c->end)
            return SCAN_UNSURE;
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p == close) {
            c->p++;
            return SCAN_OK;
        }
        return SCAN_UNSURE;
    }
}

static int scan_value(cursor *c, int depth)
{
    const char *s;
    size_t n;
    skip_ws(c);
    if (c->p >= c->end)
        return SCAN_UNSURE;
    switch (*c->p) {
    case '"':
        return scan_string(c, &s, &n);
    case '{':
    case '[':
        return scan_container(c, depth + 1, NULL, 0, NULL, NULL, NULL, NULL);
    case 't':
        return scan_literal(c, "true");
    case 'f':
        return scan_literal(c, "false");
    case 'n':
        return scan_literal(c, "null");
    default:
        return SCAN_UNSURE;   /* a number (jansson checks its range), or an error */
    }
}

static int scan_top(const char *body, size_t len, const char *field, const char **val,
                    size_t *vlen, int *b64)
{
    cursor c = { body, body + len };
    int found = 0;
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return 0;
    if (scan_container(&c, 1, field, strlen(field), val, vlen, &found, b64) != SCAN_OK || !found)
        return 0;
    skip_ws(&c);
    return c.p == c.end;
}

int rest_jscan_string(const char *body, size_t len, const char *field, const char **val,
                      size_t *vlen)
{
    return scan_top(body, len, field, val, vlen, NULL);
}

int rest_jscan_b64(const char *body, size_t len, const char *field, const char **val,
                   size_t *vlen, int *b64)
{
    *b64 = 0;
    return scan_top(body, len, field, val, vlen, b64);
}

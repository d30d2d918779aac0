/* rest/jscan.c - the answer's one field, read without building the document. */
#include "rest/jscan.h"

#include <string.h>

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
                          const char **val, size_t *vlen, int *found)
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
                r = scan_string(c, val, vlen);
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
        return scan_container(c, depth + 1, NULL, 0, NULL, NULL, NULL);
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

int rest_jscan_string(const char *body, size_t len, const char *field, const char **val,
                      size_t *vlen)
{
    cursor c = { body, body + len };
    int found = 0;
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return 0;
    if (scan_container(&c, 1, field, strlen(field), val, vlen, &found) != SCAN_OK || !found)
        return 0;
    skip_ws(&c);
    return c.p == c.end;
}

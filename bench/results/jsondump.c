/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/jsondump.c - jansson's dump with the shortest round-trip text
 * for each real (see jsondump.h).
 *
 * jansson (2.14) writes reals with %.17g, or a fixed precision
 * (JSON_REAL_PRECISION) for every real alike; neither is the shortest text of
 * each value.  Its text passes here through a small filter that knows where
 * strings are: outside them, a number with a '.' or an exponent is a real,
 * read with strtod and written again in the fewest digits that read back to
 * the same double. */
#include "bench/results/jsondump.h"

#include <stdlib.h>
#include <string.h>

size_t bench_json_real_text(double v, char *buf, size_t len)
{
    char tmp[40];
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* %g writes 100 in one digit as 1e+02: below 1e17 a whole part is
     * written out, as %.17g would ("100.0", "4277834443099750.0"). */
    const char *e = strchr(tmp, 'e');
    int exp10 = e ? atoi(e + 1) : -1;
    if (exp10 >= 0 && exp10 < 17)
        n = snprintf(tmp, sizeof tmp, "%.*g", exp10 + 1, v);
    /* As jansson: no '+' and no leading zeros in the exponent ("1e-7"). */
    char out[48];
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        out[o++] = tmp[i];
        if (tmp[i] == 'e') {
            if (tmp[i + 1] == '+')
                i++;
            else if (tmp[i + 1] == '-')
                out[o++] = tmp[++i];
            while (tmp[i + 1] == '0' && tmp[i + 2] != '\0')
                i++;
        }
    }
    out[o] = '\0';
    if (!strpbrk(out, ".eEn")) {       /* an integral value stays a real: "1.0" */
        out[o++] = '.';
        out[o++] = '0';
        out[o] = '\0';
    }
    snprintf(buf, len, "%s", out);
    return o < len ? o : len ? len - 1 : 0;
}

/* The filter: the text outside strings, a number at a time. */
typedef struct sink {
    json_dump_callback_t out;   /* where the filtered text goes */
    void                *data;
    int                  in_string, escaped;
    char                 num[48];
    size_t               nlen;
} sink;

static int flush_number(sink *s)
{
    if (s->nlen == 0)
        return 0;
    int rc;
    if (s->nlen < sizeof s->num && strpbrk(s->num, ".eE")) {
        char text[48];
        size_t n = bench_json_real_text(strtod(s->num, NULL), text, sizeof text);
        rc = s->out(text, n, s->data);
    } else {
        rc = s->out(s->num, s->nlen, s->data);
    }
    s->nlen = 0;
    s->num[0] = '\0';
    return rc;
}

/* A number starts with '-' or a digit (not the 'e' of true or false) and
 * goes on with digits, '.', signs and exponents. */
static int is_number_char(char c, size_t nlen)
{
    if ((c >= '0' && c <= '9') || c == '-')
        return 1;
    return nlen > 0 && (c == '+' || c == '.' || c == 'e' || c == 'E');
}

static int filter(const char *buf, size_t size, void *data)
{
    sink *s = data;
    size_t from = 0;   /* start of the text not yet passed on */
    for (size_t i = 0; i < size; i++) {
        char c = buf[i];
        if (s->in_string) {
            if (s->escaped)
                s->escaped = 0;
            else if (c == '\\')
                s->escaped = 1;
            else if (c == '"')
                s->in_string = 0;
            continue;
        }
        if (is_number_char(c, s->nlen)) {
            if (i > from && s->out(buf + from, i - from, s->data) != 0)
                return -1;
            from = i + 1;
            if (s->nlen + 1 >= sizeof s->num)   /* longer than any number jansson writes */
                return -1;
            s->num[s->nlen++] = c;
            s->num[s->nlen] = '\0';
            continue;
        }
        if (flush_number(s) != 0)
            return -1;
        if (c == '"')
            s->in_string = 1;
    }
    return size > from ? s->out(buf + from, size - from, s->data) : 0;
}

static int dump(const json_t *j, size_t flags, json_dump_callback_t out, void *data)
{
    sink s = { .out = out, .data = data };
    if (json_dump_callback(j, filter, &s, flags) != 0)
        return -1;
    return flush_number(&s);
}

static int to_file(const char *buf, size_t size, void *data)
{
    return fwrite(buf, 1, size, data) == size ? 0 : -1;
}

int bench_json_dumpf(const json_t *j, FILE *f, size_t flags)
{
    return dump(j, flags, to_file, f);
}

typedef struct text {
    char  *p;
    size_t len, cap;
} text;

static int to_text(const char *buf, size_t size, void *data)
{
    text *t = data;
    if (t->len + size + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + size + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p)
            return -1;
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, buf, size);
    t->len += size;
    t->p[t->len] = '\0';
    return 0;
}

char *bench_json_dumps(const json_t *j, size_t flags)
{
    text t = { 0 };
    if (dump(j, flags, to_text, &t) != 0 || !t.p) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

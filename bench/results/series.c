/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/series.c - a run's per-second series, held compactly (see series.h). */
#include "bench/results/series.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/results/jsondump.h"
#include "bench/results/codec.h"

/* The run's member that holds its series: no file's run has it, for
 * bench_results_load escapes every control character of a file's keys
 * before the series are attached. */
#define SERIES_KEY "\x01per_second"

/* The payload: these 8 bytes, then the structs.  0xff is never in UTF-8,
 * so a json_dump that met a payload would fail, not write it. */
static const char MAGIC[8] = { '\xff', 'h', 's', 'm', 'b', 's', 'e', '1' };
#define MAGIC_LEN sizeof MAGIC

/* ---- reading and setting ------------------------------------------------ */

static const json_t *payload_of(const json_t *run)
{
    const json_t *v = json_object_get(run, SERIES_KEY);
    if (!json_is_string(v))
        return NULL;
    const size_t len = json_string_length(v);
    if (len < MAGIC_LEN || (len - MAGIC_LEN) % sizeof(bench_model_second) != 0 ||
        memcmp(json_string_value(v), MAGIC, MAGIC_LEN) != 0)
        return NULL;
    return v;
}

int bench_run_seconds_compact(const json_t *run)
{
    return payload_of(run) != NULL;
}

static uint64_t count_of(const json_t *obj, const char *key)
{
    const long long v = bench_json_int(obj, key, 0);
    return v > 0 ? (uint64_t)v : 0;
}

/* One element of a "per_second" array, as the run model reads it. */
static void second_of_json(const json_t *s, bench_model_second *x)
{
    memset(x, 0, sizeof *x);
    x->t = bench_json_num(s, "t", 0);
    x->span_s = bench_json_num(s, "span_s", 1);
    x->ops = count_of(s, "ops");
    x->errors = count_of(s, "errors");
    x->p50_us = bench_json_num(s, "p50_us", 0);
    x->p99_us = bench_json_num(s, "p99_us", 0);
    const json_t *t = json_object_get(s, "target");
    x->has_target = json_is_number(t);
    x->target = x->has_target ? json_number_value(t) : 0;
    const json_t *f = json_object_get(s, "in_flight");
    x->has_in_flight = json_is_integer(f);
    x->in_flight = x->has_in_flight ? count_of(s, "in_flight") : 0;
}

int bench_run_seconds(const json_t *run, bench_seconds *out)
{
    memset(out, 0, sizeof *out);
    const json_t *v = payload_of(run);
    if (v) {
        const char *p = json_string_value(v) + MAGIC_LEN;
        const size_t n = (json_string_length(v) - MAGIC_LEN) / sizeof *out->s;
        if ((uintptr_t)p % _Alignof(bench_model_second) == 0) {
            out->s = (const bench_model_second *)(const void *)p;   /* jansson's malloc'd copy */
            out->n = n;
            return 0;
        }
        if (!(out->owned = malloc(n * sizeof *out->owned)))
            return -1;
        memcpy(out->owned, p, n * sizeof *out->owned);
        out->s = out->owned;
        out->n = n;
        return 0;
    }
    const json_t *series = json_object_get(run, "per_second");
    const size_t n = json_is_array(series) ? json_array_size(series) : 0;
    if (!n)
        return 0;
    if (!(out->owned = calloc(n, sizeof *out->owned)))
        return -1;
    for (size_t i = 0; i < n; i++)
        second_of_json(json_array_get(series, i), &out->owned[i]);
    out->s = out->owned;
    out->n = n;
    return 0;
}

void bench_seconds_release(bench_seconds *s)
{
    free(s->owned);
    memset(s, 0, sizeof *s);
}

/* run's "per_second" [] where it is, and the payload beside it (n > 0). */
static int attach(json_t *run, const char *payload, size_t len)
{
    json_t *v = json_stringn_nocheck(payload, len);
    if (!v || json_object_set_new(run, "per_second", json_array()) != 0) {
        json_decref(v);
        return -1;
    }
    return json_object_set_new(run, SERIES_KEY, v);
}

int bench_run_seconds_set(json_t *run, const bench_model_second *s, size_t n)
{
    if (!n) {
        (void)json_object_del(run, SERIES_KEY);   /* -1 when there was none */
        return json_object_set_new(run, "per_second", json_array());
    }
    const size_t len = MAGIC_LEN + n * sizeof *s;
    char *payload = malloc(len);
    if (!payload)
        return -1;
    memcpy(payload, MAGIC, MAGIC_LEN);
    memcpy(payload + MAGIC_LEN, s, n * sizeof *s);
    const int rc = attach(run, payload, len);
    free(payload);
    return rc;
}

/* ---- reading the text --------------------------------------------------- */

typedef struct cursor {
    char *p, *end;
} cursor;

enum { SCAN_OK, SCAN_UNSURE };   /* UNSURE: leave it to jansson */

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int at(const cursor *c, char ch)
{
    return c->p < c->end && *c->p == ch;
}

/* A string at c->p, escapes and all: its raw text (a key is compared as
 * written: an escaped "per_second" is not recognised, and left to jansson). */
static int skip_string(cursor *c, const char **s, size_t *n)
{
    if (!at(c, '"'))
        return SCAN_UNSURE;
    char *p = c->p + 1;
    while (p < c->end && *p != '"') {
        if (*p == '\\' && c->end - p < 2)
            return SCAN_UNSURE;        /* an escape cut by the end */
        p += *p == '\\' ? 2 : 1;
    }
    if (p >= c->end)
        return SCAN_UNSURE;
    *s = c->p + 1;
    *n = (size_t)(p - (c->p + 1));
    c->p = p + 1;
    return SCAN_OK;
}

/* Any value at c->p, not looked into (nesting counted, strings skipped whole). */
static int skip_value(cursor *c)
{
    const char *s;
    size_t n;
    if (at(c, '"'))
        return skip_string(c, &s, &n);
    if (at(c, '{') || at(c, '[')) {
        size_t depth = 0;
        while (c->p < c->end) {
            const char ch = *c->p;
            if (ch == '"') {
                if (skip_string(c, &s, &n) != SCAN_OK)
                    return SCAN_UNSURE;
                continue;
            }
            c->p++;
            if (ch == '{' || ch == '[')
                depth++;
            else if ((ch == '}' || ch == ']') && --depth == 0)
                return SCAN_OK;
        }
        return SCAN_UNSURE;
    }
    const char *start = c->p;
    while (c->p < c->end && !strchr(",]} \t\n\r", *c->p))
        c->p++;
    return c->p > start ? SCAN_OK : SCAN_UNSURE;
}

static int key_is(const char *s, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(s, word, n) == 0;
}

static int is_count(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 &&
           json_integer_value(v) <= (json_int_t)BENCH_RESULTS_MAX_VALUE;
}

static int is_figure(const json_t *v)
{
    return json_is_number(v) && json_number_value(v) >= 0 &&
           json_number_value(v) <= (double)BENCH_RESULTS_MAX_VALUE;
}

/*
 * An element as a struct, when it holds what check_series and the range
 * screen accept and nothing else: t, span_s, ops, errors, p50_us, p99_us,
 * and target and in_flight when there (a null target, another member, a
 * value out of range or of another type: 0, and jansson's path says why).
 */
static int second_of_element(const json_t *e, bench_model_second *x)
{
    static const char *const need[] = { "t", "span_s", "ops", "errors", "p50_us", "p99_us" };
    memset(x, 0, sizeof *x);
    if (!json_is_object(e))
        return 0;
    size_t have = 0;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)e, key, v) {
        size_t k = 0;
        while (k < 6 && strcmp(key, need[k]) != 0)
            k++;
        if (k < 6) {
            if (!(k == 0 || k == 2 || k == 3 ? is_count(v) : is_figure(v)))
                return 0;
            have++;
        } else if (strcmp(key, "target") == 0 && is_figure(v)) {
            x->has_target = 1;
            x->target = json_number_value(v);
        } else if (strcmp(key, "in_flight") == 0 && is_count(v)) {
            x->has_in_flight = 1;
            x->in_flight = (uint64_t)json_integer_value(v);
        } else {
            return 0;
        }
    }
    if (have != 6)
        return 0;
    x->t = (double)json_integer_value(json_object_get(e, "t"));
    x->span_s = json_number_value(json_object_get(e, "span_s"));
    x->ops = (uint64_t)json_integer_value(json_object_get(e, "ops"));
    x->errors = (uint64_t)json_integer_value(json_object_get(e, "errors"));
    x->p50_us = json_number_value(json_object_get(e, "p50_us"));
    x->p99_us = json_number_value(json_object_get(e, "p99_us"));
    return 1;
}

/* Room for run i in the table. */
static int table_grow(bench_series_table *t, size_t i)
{
    if (i < t->nruns)
        return 0;
    char **p = realloc(t->payload, (i + 1) * sizeof *p);
    if (!p)
        return -1;
    t->payload = p;
    size_t *l = realloc(t->len, (i + 1) * sizeof *l);
    if (!l)
        return -1;
    t->len = l;
    for (size_t k = t->nruns; k <= i; k++) {
        t->payload[k] = NULL;
        t->len[k] = 0;
    }
    t->nruns = i + 1;
    return 0;
}

/*
 * The array at c->p (a '['), element by element: each parsed alone by
 * jansson, turned into a struct and freed at once.  When every element
 * turned, the array's text is blanked and the series is runs[i]'s in t;
 * otherwise c->p is back at the '[' (SCAN_UNSURE).  -1 when out of memory.
 */
static int take_series(cursor *c, bench_series_table *t, size_t i)
{
    char *const open = c->p;
    cursor k = { open + 1, c->end };
    char *payload = NULL;
    size_t n = 0, cap = 0;
    skip_ws(&k);
    if (at(&k, ']')) {
        c->p = k.p + 1;      /* empty: nothing to take */
        return SCAN_OK;
    }
    for (;;) {
        json_error_t je;
        json_t *e = json_loadb(k.p, (size_t)(k.end - k.p), JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
        bench_model_second x;
        const int ok = e && second_of_element(e, &x);
        json_decref(e);
        if (!ok)
            goto unsure;
        if (n == cap) {
            const size_t more = cap ? cap * 2 : 256;
            char *p = realloc(payload, MAGIC_LEN + more * sizeof x);
            if (!p) {
                free(payload);
                return -1;
            }
            payload = p;
            cap = more;
        }
        memcpy(payload + MAGIC_LEN + n * sizeof x, &x, sizeof x);
        n++;
        k.p += je.position;
        skip_ws(&k);
        if (at(&k, ']'))
            break;
        if (!at(&k, ','))
            goto unsure;
        k.p++;
    }
    if (table_grow(t, i) != 0) {
        free(payload);
        return -1;
    }
    memcpy(payload, MAGIC, MAGIC_LEN);
    t->payload[i] = payload;
    t->len[i] = MAGIC_LEN + n * sizeof(bench_model_second);
    for (char *q = open + 1; q < k.p; q++)
        if (*q != '\n')
            *q = ' ';       /* lines and columns stay where they were */
    c->p = k.p + 1;
    return SCAN_OK;
unsure:
    free(payload);
    c->p = open;
    return SCAN_UNSURE;
}

/* Run i, an object at c->p: its "per_second" taken when it can be. */
static int walk_run(cursor *c, bench_series_table *t, size_t i)
{
    c->p++;
    for (;;) {
        const char *key;
        size_t kn;
        skip_ws(c);
        if (at(c, '}')) {
            c->p++;
            return SCAN_OK;
        }
        if (skip_string(c, &key, &kn) != SCAN_OK)
            return SCAN_UNSURE;
        skip_ws(c);
        if (!at(c, ':'))
            return SCAN_UNSURE;
        c->p++;
        skip_ws(c);
        const int taken = i < t->nruns && t->payload[i];    /* a second per_second: jansson refuses it */
        if (key_is(key, kn, "per_second") && at(c, '[') && !taken) {
            const int rc = take_series(c, t, i);
            if (rc < 0)
                return -1;
            if (rc == SCAN_UNSURE && skip_value(c) != SCAN_OK)
                return SCAN_UNSURE;
        } else if (skip_value(c) != SCAN_OK) {
            return SCAN_UNSURE;
        }
        skip_ws(c);
        if (at(c, ','))
            c->p++;
        else if (!at(c, '}'))
            return SCAN_UNSURE;
    }
}

/* The runs array at c->p (a '['). */
static int walk_runs(cursor *c, bench_series_table *t)
{
    c->p++;
    for (size_t i = 0;; i++) {
        skip_ws(c);
        if (at(c, ']'))
            return SCAN_OK;
        const int rc = at(c, '{') ? walk_run(c, t, i) : skip_value(c);
        if (rc != SCAN_OK)
            return rc;
        skip_ws(c);
        if (!at(c, ','))
            return SCAN_OK;        /* ']' or not: the runs are behind */
        c->p++;
    }
}

int bench_series_extract(char *buf, size_t n, bench_series_table *t)
{
    memset(t, 0, sizeof *t);
    cursor c = { buf, buf + n };
    skip_ws(&c);
    if (!at(&c, '{'))
        return 0;
    c.p++;
    for (;;) {
        const char *key;
        size_t kn;
        skip_ws(&c);
        if (skip_string(&c, &key, &kn) != SCAN_OK)
            return 0;
        skip_ws(&c);
        if (!at(&c, ':'))
            return 0;
        c.p++;
        skip_ws(&c);
        if (key_is(key, kn, "runs") && at(&c, '['))
            return walk_runs(&c, t) < 0 ? -1 : 0;
        if (skip_value(&c) != SCAN_OK)
            return 0;
        skip_ws(&c);
        if (!at(&c, ','))
            return 0;
        c.p++;
    }
}

void bench_series_table_free(bench_series_table *t)
{
    for (size_t i = 0; i < t->nruns; i++)
        free(t->payload[i]);
    free(t->payload);
    free(t->len);
    memset(t, 0, sizeof *t);
}

int bench_series_attach(json_t *doc, bench_series_table *t)
{
    const json_t *runs = json_object_get(doc, "runs");
    int rc = 0;
    for (size_t i = 0; i < t->nruns; i++) {
        if (!t->payload[i])
            continue;
        json_t *run = json_array_get(runs, i);
        const json_t *ps = json_object_get(run, "per_second");
        if (rc == 0 && (!json_is_array(ps) || json_array_size(ps) != 0 || attach(run, t->payload[i], t->len[i]) != 0))
            rc = -1;
        free(t->payload[i]);       /* one run's text less at a time */
        t->payload[i] = NULL;
    }
    bench_series_table_free(t);
    return rc;
}

/* ---- writing ------------------------------------------------------------ */

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

static int spaces(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fputc(' ', f) == EOF)
            return -1;
    return 0;
}

/* run's series as jansson writes a "per_second" array whose key is
 * indented by `indent` spaces: each element dumped alone and indented. */
static int write_series(FILE *f, const json_t *run, size_t indent)
{
    bench_seconds s;
    if (bench_run_seconds(run, &s) != 0)
        return -1;
    int rc = fputc('[', f) == EOF ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        json_t *e = bench_model_second_json(&s.s[i]);
        char *text = e ? bench_json_dumps(e, DUMP_FLAGS) : NULL;
        json_decref(e);
        if (!text || fputc('\n', f) == EOF || spaces(f, indent + 2) != 0)
            rc = -1;
        for (const char *p = text; rc == 0 && *p; p++)
            if (fputc(*p, f) == EOF || (*p == '\n' && spaces(f, indent + 2) != 0))
                rc = -1;
        if (rc == 0 && i + 1 < s.n && fputc(',', f) == EOF)
            rc = -1;
        free(text);
    }
    if (rc == 0 && (fputc('\n', f) == EOF || spaces(f, indent) != 0 || fputc(']', f) == EOF))
        rc = -1;
    bench_seconds_release(&s);
    return rc;
}

/* The placeholder of runs[i]'s series, and how jansson writes it. */
static void placeholder(size_t i, char *raw, size_t rawlen, char *dumped, size_t dumpedlen)
{
    snprintf(raw, rawlen, "\x01series %zu", i);
    snprintf(dumped, dumpedlen, "\"\\u0001series %zu\"", i);
}

/* run's compact series as a jansson array; NULL when out of memory. */
static json_t *series_array(const json_t *run)
{
    bench_seconds s;
    json_t *ps = bench_run_seconds(run, &s) == 0 ? json_array() : NULL;
    for (size_t k = 0; ps && k < s.n; k++)
        if (json_array_append_new(ps, bench_model_second_json(&s.s[k])) != 0) {
            json_decref(ps);
            ps = NULL;
        }
    bench_seconds_release(&s);
    return ps;
}

/* A copy of doc (shallow: only the runs with a compact series copied) whose
 * compact series are placeholders (expand 0) or jansson arrays (expand 1). */
static json_t *dump_copy(const json_t *doc, int expand)
{
    const json_t *runs = json_object_get(doc, "runs");
    json_t *top = json_copy((json_t *)doc), *list = json_array();
    int bad = !top || !list;
    for (size_t i = 0; !bad && i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i);
        if (!bench_run_seconds_compact(run)) {
            bad = json_array_append(list, run) != 0;
            continue;
        }
        char raw[48], dumped[56];
        placeholder(i, raw, sizeof raw, dumped, sizeof dumped);
        json_t *r = json_copy(run);
        json_t *ps = !r ? NULL : expand ? series_array(run) : json_string(raw);
        if (!r || !ps || json_object_del(r, SERIES_KEY) != 0) {
            json_decref(r);
            json_decref(ps);
            bad = 1;
            break;
        }
        /* both take their value, even when they fail */
        if (json_object_set_new(r, "per_second", ps) != 0) {
            json_decref(r);
            bad = 1;
        } else {
            bad = json_array_append_new(list, r) != 0;
        }
    }
    if (bad || json_object_set(top, "runs", list) != 0) {
        json_decref(list);
        json_decref(top);
        return NULL;
    }
    json_decref(list);
    return top;
}

/* The whole placeholder text once in text, or NULL. */
static const char *only_once(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    return p && !strstr(p + 1, needle) ? p : NULL;
}

int bench_series_dumpf(const json_t *doc, FILE *f)
{
    const json_t *runs = json_object_get(doc, "runs");
    size_t compact = 0;
    for (size_t i = 0; i < json_array_size(runs); i++)
        compact += (size_t)bench_run_seconds_compact(json_array_get(runs, i));
    if (!compact)
        return bench_json_dumpf(doc, f, DUMP_FLAGS);
    json_t *copy = dump_copy(doc, 0);
    char *text = copy ? bench_json_dumps(copy, DUMP_FLAGS) : NULL;
    json_decref(copy);
    if (!text)
        return -1;
    /* Each placeholder once, in run order; otherwise (a string of the
     * document holding one) the series as jansson arrays, the long way. */
    const char *p = text;
    int ok = 1;
    for (size_t i = 0; ok && i < json_array_size(runs); i++) {
        char raw[48], dumped[56];
        placeholder(i, raw, sizeof raw, dumped, sizeof dumped);
        const char *hit = bench_run_seconds_compact(json_array_get(runs, i)) ? only_once(text, dumped) : p;
        ok = hit && hit >= p;
        p = ok ? hit : p;
    }
    int rc = 0;
    if (!ok) {
        free(text);
        json_t *full = dump_copy(doc, 1);
        rc = full ? bench_json_dumpf(full, f, DUMP_FLAGS) : -1;
        json_decref(full);
        return rc;
    }
    p = text;
    for (size_t i = 0; rc == 0 && i < json_array_size(runs); i++) {
        const json_t *run = json_array_get(runs, i);
        if (!bench_run_seconds_compact(run))
            continue;
        char raw[48], dumped[56];
        placeholder(i, raw, sizeof raw, dumped, sizeof dumped);
        const char *hit = strstr(p, dumped), *line = hit;
        while (line > text && line[-1] != '\n')
            line--;
        size_t indent = 0;
        while (line[indent] == ' ')
            indent++;
        if (fwrite(p, 1, (size_t)(hit - p), f) != (size_t)(hit - p) || write_series(f, run, indent) != 0)
            rc = -1;
        p = hit + strlen(dumped);
    }
    if (rc == 0 && fputs(p, f) == EOF)
        rc = -1;
    free(text);
    return rc;
}

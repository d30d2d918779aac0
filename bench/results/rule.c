/* SPDX-License-Identifier: Apache-2.0 */
/* bench/results/rule.c - a comparison's regression rules (see rule.h). */
#include "bench/results/rule.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/util/cli.h"

static const char *const own_figs[] = { "ops_per_s", "mean", "p50", "p99", "error_pct" };

/* 'r' rate, 'u' latency (µs), 'p' points; 0 when name is no figure. */
static int fig_kind(const char *name, const bench_section *const *sections)
{
    for (size_t i = 0; i < sizeof own_figs / sizeof own_figs[0]; i++)
        if (strcmp(name, own_figs[i]) == 0)
            return i == 0 ? 'r' : i == 4 ? 'p' : 'u';
    for (size_t s = 0; sections && sections[s]; s++)
        for (size_t k = 0; k < sections[s]->nmetrics; k++)
            if (sections[s]->metrics[k].kind == BENCH_SM_DIST && strcmp(sections[s]->metrics[k].name, name) == 0)
                return 'u';
    return 0;
}

/* A duration's unit to µs: 0 when unit is none of ns, us, µs, ms, s. */
static double unit_us(const char *unit)
{
    if (strcmp(unit, "ns") == 0)
        return 1e-3;
    if (strcmp(unit, "us") == 0 || strcmp(unit, "\xc2\xb5s") == 0)
        return 1;
    if (strcmp(unit, "ms") == 0)
        return 1e3;
    if (strcmp(unit, "s") == 0)
        return 1e6;
    return 0;
}

int bench_rule_parse(const char *text, const bench_section *const *sections, bench_rule *r, char *err,
                     size_t len)
{
    memset(r, 0, sizeof *r);
    snprintf(r->text, sizeof r->text, "%s", text);
    const char *op = strpbrk(text, "<>");
    if (!op || op == text || (size_t)(op - text) >= sizeof r->fig) {
        snprintf(err, len, "--fail-on '%s': not FIGURE<BOUND or FIGURE>BOUND (e.g. 'ops_per_s<-5%%', "
                 "'p99>+10%%', 'error_pct>+1')", text);
        return -1;
    }
    memcpy(r->fig, text, (size_t)(op - text));
    r->fig[op - text] = '\0';
    int kind = fig_kind(r->fig, sections);
    if (!kind) {
        int at = snprintf(err, len, "--fail-on '%s': unknown figure '%s' (ops_per_s, mean, p50, p99, error_pct",
                          text, r->fig);
        for (size_t s = 0; sections && sections[s]; s++)
            for (size_t k = 0; k < sections[s]->nmetrics; k++)
                if (sections[s]->metrics[k].kind == BENCH_SM_DIST && at > 0 && (size_t)at < len)
                    at += snprintf(err + at, len - (size_t)at, ", %s", sections[s]->metrics[k].name);
        if (at > 0 && (size_t)at < len)
            snprintf(err + at, len - (size_t)at, ")");
        return -1;
    }
    r->above = *op == '>';
    const char *num = op + 1;
    if (*num == '=') {
        snprintf(err, len, "--fail-on '%s': '%c=' is not a rule's operator (< or >)", text, *op);
        return -1;
    }
    char *end;
    r->bound = bench_strtod(num, &end);
    if (end == num || !isfinite(r->bound)) {
        snprintf(err, len, "--fail-on '%s': '%s' is not a signed number (e.g. -5%%, +10%%, +1, +2ms)", text, num);
        return -1;
    }
    char unit[16];
    size_t ul = strcspn(end, "!");
    if (ul >= sizeof unit) {
        snprintf(err, len, "--fail-on '%s': '%s' is not a unit (%%, or ns, us, ms, s for a latency)", text, end);
        return -1;
    }
    memcpy(unit, end, ul);
    unit[ul] = '\0';
    const char *tail = end + ul;
    if (*tail == '!') {
        r->any = 1;
        tail++;
    }
    if (*tail) {
        snprintf(err, len, "--fail-on '%s': unexpected '%s' after the bound", text, tail);
        return -1;
    }
    if (strcmp(unit, "%") == 0) {
        r->pct = 1;
        if (kind == 'p') {
            snprintf(err, len, "--fail-on '%s': error_pct changes in points: a bound without %% "
                     "('error_pct>+1')", text);
            return -1;
        }
    } else if (kind == 'u') {
        double k = unit_us(unit);
        if (!(k > 0)) {
            snprintf(err, len, "--fail-on '%s': a latency's bound is a percentage or a duration (+10%%, "
                     "+2ms, +500us), not '%s'", text, *unit ? unit : num);
            return -1;
        }
        r->bound *= k;
    } else if (*unit) {
        snprintf(err, len, "--fail-on '%s': '%s' is not a unit of %s (%% or none)", text, unit, r->fig);
        return -1;
    }
    return 0;
}

static const char *fmt_bound(const bench_rule *r, double v, char *buf, size_t len)
{
    if (r->pct)
        snprintf(buf, len, "%+.2f%%", v);
    else if (strcmp(r->fig, "error_pct") == 0)
        snprintf(buf, len, "%+.2fpp", v);
    else if (strcmp(r->fig, "ops_per_s") == 0)
        snprintf(buf, len, "%+.6g ops/s", v);
    else
        snprintf(buf, len, "%+.6g\xc2\xb5s", v);
    return buf;
}

bench_rule_result bench_rule_check(const bench_rule *r, const bench_pair_cmp *p, char *why, size_t len)
{
    const bench_fig_cmp *f = bench_pair_fig(p, r->fig);
    if (!f) {
        snprintf(why, len, "not judged: neither run has %s", r->fig);
        return BENCH_RULE_NOT_JUDGED;
    }
    if (f->verdict == BENCH_CHANGE_NA) {
        snprintf(why, len, "fails: %s cannot be compared (%s)", r->fig, f->why);
        return BENCH_RULE_FAIL;
    }
    if (r->pct && !f->has_pct) {
        snprintf(why, len, "fails: no change in percent of A's %s, which is 0", r->fig);
        return BENCH_RULE_FAIL;
    }
    double change = r->pct ? f->pct : f->delta;
    int beyond = r->above ? change > r->bound : change < r->bound;
    char c[32], b[32], pv[32];
    fmt_bound(r, change, c, sizeof c);
    fmt_bound(r, r->bound, b, sizeof b);
    if (f->p < 0.0001)
        snprintf(pv, sizeof pv, "p<0.0001");
    else
        snprintf(pv, sizeof pv, "p=%.2g", f->p);
    if (!beyond) {
        snprintf(why, len, "passes: %s %s %s", c, r->above ? "<=" : ">=", b);
        return BENCH_RULE_PASS;
    }
    if (!r->any && !f->significant) {
        snprintf(why, len, "passes: %s %s %s but not significant (%s)", c, r->above ? ">" : "<", b, pv);
        return BENCH_RULE_PASS;
    }
    snprintf(why, len, "fails: %s %s %s, %s%s", c, r->above ? ">" : "<", b, pv,
             r->any && !f->significant ? " (significance not required: !)" : "");
    return BENCH_RULE_FAIL;
}
